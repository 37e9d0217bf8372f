#define _XOPEN_SOURCE 700
#include "hdnnp_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

int hd_read_n2p2(const char *path, const char *const *symbols, int nsym, hd_system *s)
{
    memset(s, 0, sizeof *s);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char line[1024];
    int cap = 0, nl = 0;
    while (fgets(line, sizeof line, fp)) {
        char kw[32];
        if (sscanf(line, "%31s", kw) != 1) continue;
        if (strcmp(kw, "end") == 0) break;
        if (strcmp(kw, "lattice") == 0 && nl < 3) {
            sscanf(line, "%*s %lf %lf %lf", &s->lattice[nl][0], &s->lattice[nl][1],
                   &s->lattice[nl][2]);
            nl++;
        } else if (strcmp(kw, "atom") == 0) {
            double p[3];
            char el[8];
            if (sscanf(line, "%*s %lf %lf %lf %7s", &p[0], &p[1], &p[2], el) != 4) break;
            if (s->nlocal == cap) {
                cap = cap ? 2 * cap : 1024;
                s->x = realloc(s->x, sizeof(double[3]) * (size_t)cap);
                s->type = realloc(s->type, sizeof(int) * (size_t)cap);
            }
            int t = 0;
            for (int k = 0; k < nsym; k++)
                if (strcmp(el, symbols[k]) == 0) t = k + 1;
            if (!t) { fclose(fp); return -2; }
            memcpy(s->x[s->nlocal], p, sizeof p);
            s->type[s->nlocal++] = t;
        }
    }
    fclose(fp);
    s->periodic = nl == 3;
    return s->nlocal > 0 ? 0 : -3;
}

static void invert3(const double a[3][3], double inv[3][3])
{
    const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                       a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                       a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
            inv[i][j] = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / det;
        }
}

/* Images of the owned atoms in the 26 neighbouring cells; with margin >= 0 only those within
 * margin of the cell (fractional coordinate c within margin / h_c of [0, 1), h_c the cell's
 * height across the faces of c). */
static void make_ghosts(hd_system *s, double margin)
{
    const int n = s->nlocal;
    /* wrap: fractional coordinates f = x L^-1 (rows of L are cell vectors) into [0, 1) */
    double inv[3][3], (*fr)[3] = malloc(sizeof(double[3]) * (size_t)n), slack[3];
    invert3(s->lattice, inv);
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++)
            fr[i][c] = s->x[i][0] * inv[0][c] + s->x[i][1] * inv[1][c] + s->x[i][2] * inv[2][c];
        for (int c = 0; c < 3; c++) fr[i][c] -= floor(fr[i][c]);
        for (int c = 0; c < 3; c++)
            s->x[i][c] = fr[i][0] * s->lattice[0][c] + fr[i][1] * s->lattice[1][c] +
                         fr[i][2] * s->lattice[2][c];
    }
    for (int c = 0; c < 3; c++) {   /* 1/h_c = |column c of L^-1| */
        const double ih =
            sqrt(inv[0][c] * inv[0][c] + inv[1][c] * inv[1][c] + inv[2][c] * inv[2][c]);
        slack[c] = margin < 0.0 ? 2.0 : margin * ih;
    }
    const int cap = 27 * n;
    s->x = realloc(s->x, sizeof(double[3]) * (size_t)cap);
    s->type = realloc(s->type, sizeof(int) * (size_t)cap);
    s->owner = malloc(sizeof(int) * (size_t)cap);
    s->tag = malloc(sizeof(pk_tag) * (size_t)cap);
    for (int i = 0; i < n; i++) {
        s->owner[i] = i;
        s->tag[i] = i + 1;
    }
    int m = n;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++)
            for (int c = -1; c <= 1; c++) {
                if (!a && !b && !c) continue;
                const int shift[3] = {a, b, c};
                for (int i = 0; i < n; i++) {
                    int keep = 1;
                    for (int q = 0; q < 3; q++) {
                        const double f = fr[i][q] + shift[q];
                        keep &= f >= -slack[q] && f < 1.0 + slack[q];
                    }
                    if (!keep) continue;
                    for (int q = 0; q < 3; q++)
                        s->x[m][q] = s->x[i][q] + a * s->lattice[0][q] + b * s->lattice[1][q] +
                                     c * s->lattice[2][q];
                    s->type[m] = s->type[i];
                    s->owner[m] = i;
                    s->tag[m] = i + 1;
                    m++;
                }
            }
    s->nghost = m - n;
    free(fr);
}

void hd_make_ghosts(hd_system *s) { make_ghosts(s, -1.0); }

void hd_make_ghosts_within(hd_system *s, double margin) { make_ghosts(s, margin); }

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void hd_make_neigh(hd_system *s, double cutoff)
{
    const int n = s->nlocal, nall = s->nlocal + s->nghost;
    const double c2 = cutoff * cutoff;
    if (!s->owner) {
        s->owner = malloc(sizeof(int) * (size_t)nall);
        s->tag = malloc(sizeof(pk_tag) * (size_t)nall);
        for (int i = 0; i < nall; i++) { s->owner[i] = i; s->tag[i] = i + 1; }
    }
    free(s->ilist); free(s->numneigh); free(s->firstneigh); free(s->neighbuf);
    s->ilist = malloc(sizeof(int) * (size_t)n);
    s->numneigh = malloc(sizeof(int) * (size_t)n);
    s->firstneigh = malloc(sizeof(int *) * (size_t)n);
    /* bins of edge >= cutoff over the atoms' bounding box (counting sort by bin) */
    double lo[3], hi[3];
    for (int q = 0; q < 3; q++) lo[q] = hi[q] = nall ? s->x[0][q] : 0.0;
    for (int j = 0; j < nall; j++)
        for (int q = 0; q < 3; q++) {
            lo[q] = s->x[j][q] < lo[q] ? s->x[j][q] : lo[q];
            hi[q] = s->x[j][q] > hi[q] ? s->x[j][q] : hi[q];
        }
    int nb[3];
    for (int q = 0; q < 3; q++) {
        nb[q] = (int)((hi[q] - lo[q]) / cutoff);
        nb[q] = nb[q] < 1 ? 1 : nb[q] > 400 ? 400 : nb[q];
    }
    const size_t nbins = (size_t)nb[0] * nb[1] * nb[2];
    int *bin = malloc(sizeof(int) * ((size_t)nall + 1)), *start = calloc(nbins + 1, sizeof(int));
    int *sorted = malloc(sizeof(int) * ((size_t)nall + 1));
    for (int j = 0; j < nall; j++) {
        int b[3];
        for (int q = 0; q < 3; q++) {
            b[q] = (int)((s->x[j][q] - lo[q]) / (hi[q] - lo[q] + 1e-300) * nb[q]);
            b[q] = b[q] < 0 ? 0 : b[q] >= nb[q] ? nb[q] - 1 : b[q];
        }
        bin[j] = (b[2] * nb[1] + b[1]) * nb[0] + b[0];
        start[bin[j] + 1]++;
    }
    for (size_t k = 0; k < nbins; k++) start[k + 1] += start[k];
    int *fill = malloc(sizeof(int) * (nbins + 1));
    memcpy(fill, start, sizeof(int) * (nbins + 1));
    for (int j = 0; j < nall; j++) sorted[fill[bin[j]]++] = j;
    size_t cap = 1024, used = 0;
    s->neighbuf = malloc(sizeof(int) * cap);
    size_t *off = malloc(sizeof(size_t) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        s->ilist[i] = i;
        off[i] = used;
        const int bi = bin[i], bx = bi % nb[0], by = bi / nb[0] % nb[1], bz = bi / nb[0] / nb[1];
        for (int z = bz - 1; z <= bz + 1; z++)
            for (int y = by - 1; y <= by + 1; y++)
                for (int x = bx - 1; x <= bx + 1; x++) {
                    if (x < 0 || y < 0 || z < 0 || x >= nb[0] || y >= nb[1] || z >= nb[2]) continue;
                    const int b = (z * nb[1] + y) * nb[0] + x;
                    for (int k = start[b]; k < start[b + 1]; k++) {
                        const int j = sorted[k];
                        if (j == i) continue;
                        const double dx = s->x[j][0] - s->x[i][0], dy = s->x[j][1] - s->x[i][1],
                                     dz = s->x[j][2] - s->x[i][2];
                        if (dx * dx + dy * dy + dz * dz >= c2) continue;
                        if (used == cap) {
                            cap *= 2;
                            s->neighbuf = realloc(s->neighbuf, sizeof(int) * cap);
                        }
                        s->neighbuf[used++] = j;
                    }
                }
        /* ascending, as a scan over all atoms gives */
        qsort(s->neighbuf + off[i], used - off[i], sizeof(int), cmp_int);
        s->numneigh[i] = (int)(used - off[i]);
    }
    for (int i = 0; i < n; i++) s->firstneigh[i] = s->neighbuf + off[i];
    free(off);
    free(bin);
    free(start);
    free(fill);
    free(sorted);
}

void hd_fold(const hd_system *s, double (*f)[3])
{
    for (int g = s->nlocal; g < s->nlocal + s->nghost; g++)
        for (int c = 0; c < 3; c++) {
            f[s->owner[g]][c] += f[g][c];
            f[g][c] = 0.0;
        }
}

void hd_free(hd_system *s)
{
    free(s->x); free(s->type); free(s->tag); free(s->owner);
    free(s->ilist); free(s->numneigh); free(s->firstneigh); free(s->neighbuf);
    memset(s, 0, sizeof *s);
}

pk_neigh hd_neigh(const hd_system *s)
{
    pk_neigh nl = {s->nlocal, s->ilist, s->numneigh, s->firstneigh};
    return nl;
}

pk_atoms hd_atoms(const hd_system *s)
{
    pk_atoms a = {0};
    a.nlocal = s->nlocal;
    a.nghost = s->nghost;
    a.x = (const double (*)[3])s->x;
    a.type = s->type;
    a.tag = s->tag;
    return a;
}

int hd_write_file(const char *dir, const char *name, const char *text)
{
    mkdir(dir, 0755);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fputs(text, fp);
    return fclose(fp);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void hd_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int hd_water_reference(char *dir, pk_hdnnp_model **m, hd_system *s)
{
    static const char *const symbols[] = {"H", "O"};
    const char *shared = getenv("PAIRKIT_SHARED");
    char path[HD_PATH + 16];
    pk_status st;
    snprintf(dir, HD_PATH, "%s/reference/n2p2/H2O_RPBE-D3", shared ? shared : "../shared");
    *m = NULL;
    if (pk_hdnnp_model_load(dir, NULL, m, &st)) {
        fprintf(stderr, "loading the n2p2 water model: %s\n", st.msg);
        return -1;
    }
    snprintf(path, sizeof path, "%s/input.data", dir);
    if (hd_read_n2p2(path, symbols, 2, s)) {
        fprintf(stderr, "cannot read %s\n", path);
        pk_hdnnp_model_free(*m);
        *m = NULL;
        return -1;
    }
    return 0;
}
