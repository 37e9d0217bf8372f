/* Bench-size periodic boxes: ghosts by face sweeps, full list by cell binning. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_box.h"

/* Append the image of atom i shifted by s along dimension d. */
static void add_ghost(bench_box *b, int i, int d, double s)
{
    const int g = b->nall++;
    memcpy(b->x[g], b->x[i], sizeof b->x[g]);
    b->x[g][d] += s;
    b->type[g] = b->type[i];
    b->tag[g] = b->tag[i];
}

int bench_box_build(bench_box *b, int n, const double *x, const int *type, const double L[3],
                    double cut)
{
    memset(b, 0, sizeof *b);
    for (int d = 0; d < 3; d++)
        if (!(cut < L[d])) {
            fprintf(stderr, "bench box: cutoff %g not below box length %g\n", cut, L[d]);
            return -1;
        }
    /* Each sweep at most adds the atoms within cut of the two faces: bound the total by the
     * volume of the box grown by cut on every side (times 2 for density fluctuations). */
    double grow = 1.0;
    for (int d = 0; d < 3; d++) grow *= (L[d] + 2 * cut) / L[d];
    const size_t cap = (size_t)(2.0 * grow * n) + 64;
    b->x = malloc(sizeof(double[3]) * cap);
    b->type = malloc(sizeof(int) * cap);
    b->tag = malloc(sizeof(int) * cap);
    if (!b->x || !b->type || !b->tag) return -1;
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            double v = fmod(x[3 * i + d], L[d]);
            b->x[i][d] = v < 0 ? v + L[d] : v;
        }
        b->type[i] = type[i];
        b->tag[i] = i + 1;
    }
    b->nall = n;
    for (int d = 0; d < 3; d++) {
        const int upto = b->nall;   /* earlier ghosts are swept too: edges and corners */
        for (int i = 0; i < upto; i++) {
            if ((size_t)b->nall + 2 > cap) {
                fprintf(stderr, "bench box: ghost estimate exceeded\n");
                return -1;
            }
            if (b->x[i][d] < cut) add_ghost(b, i, d, L[d]);
            if (b->x[i][d] >= L[d] - cut) add_ghost(b, i, d, -L[d]);
        }
    }
    /* cells of side >= cut over [-cut, L + cut) */
    int nc[3];
    double lo = -cut, h[3];
    for (int d = 0; d < 3; d++) {
        nc[d] = (int)((L[d] + 2 * cut) / cut);
        if (nc[d] < 1) nc[d] = 1;
        h[d] = (L[d] + 2 * cut) / nc[d];
    }
    const int ncell = nc[0] * nc[1] * nc[2];
    int *head = malloc(sizeof(int) * ncell), *next = malloc(sizeof(int) * b->nall);
    int *cell = malloc(sizeof(int) * b->nall);
    for (int c = 0; c < ncell; c++) head[c] = -1;
    for (int i = b->nall - 1; i >= 0; i--) {
        int ci[3];
        for (int d = 0; d < 3; d++) {
            ci[d] = (int)((b->x[i][d] - lo) / h[d]);
            ci[d] = ci[d] < 0 ? 0 : ci[d] >= nc[d] ? nc[d] - 1 : ci[d];
        }
        cell[i] = (ci[2] * nc[1] + ci[1]) * nc[0] + ci[0];
        next[i] = head[cell[i]];
        head[cell[i]] = i;
    }
    /* count, then fill */
    b->ilist = malloc(sizeof(int) * n);
    b->numneigh = calloc((size_t)b->nall, sizeof(int));
    b->firstneigh = calloc((size_t)b->nall, sizeof(int *));
    size_t total = 0, room = (size_t)n * 64;
    b->store = malloc(sizeof(int) * room);
    size_t *start = malloc(sizeof(size_t) * (n + 1));
    for (int i = 0; i < n; i++) {
        const int c = cell[i], cx = c % nc[0], cy = (c / nc[0]) % nc[1], cz = c / (nc[0] * nc[1]);
        start[i] = total;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int x0 = cx + dx, y0 = cy + dy, z0 = cz + dz;
                    if (x0 < 0 || y0 < 0 || z0 < 0 || x0 >= nc[0] || y0 >= nc[1] || z0 >= nc[2])
                        continue;
                    for (int j = head[(z0 * nc[1] + y0) * nc[0] + x0]; j >= 0; j = next[j]) {
                        if (j == i) continue;
                        double r2 = 0;
                        for (int d = 0; d < 3; d++) {
                            const double v = b->x[j][d] - b->x[i][d];
                            r2 += v * v;
                        }
                        if (r2 >= cut * cut) continue;
                        if (total == room) {
                            room *= 2;
                            b->store = realloc(b->store, sizeof(int) * room);
                        }
                        b->store[total++] = j;
                    }
                }
        b->ilist[i] = i;
        b->numneigh[i] = (int)(total - start[i]);
    }
    for (int i = 0; i < n; i++) b->firstneigh[i] = b->store + start[i];
    free(start);
    free(head);
    free(next);
    free(cell);
    b->nlocal = n;
    b->atoms = (pk_atoms){.nlocal = n, .nghost = b->nall - n, .x = (const double (*)[3])b->x,
                          .type = b->type, .tag = b->tag};
    b->nl = (pk_neigh){.inum = n, .ilist = b->ilist, .numneigh = b->numneigh,
                       .firstneigh = b->firstneigh};
    return 0;
}

void bench_box_free(bench_box *b)
{
    free(b->x);
    free(b->type);
    free(b->tag);
    free(b->ilist);
    free(b->numneigh);
    free(b->firstneigh);
    free(b->store);
    memset(b, 0, sizeof *b);
}

void bench_fcc(int n, double a, double *x, int *type)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int l = 0; l < n; l++)
                for (int q = 0; q < 4; q++, k++) {
                    x[3 * k] = (i + basis[q][0]) * a;
                    x[3 * k + 1] = (j + basis[q][1]) * a;
                    x[3 * k + 2] = (l + basis[q][2]) * a;
                    type[k] = 1;
                }
}
