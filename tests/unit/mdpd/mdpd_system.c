#include "mdpd_system.h"

#include <stdlib.h>
#include <string.h>

static double urand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) * (1.0 / 16777216.0);
}

void mdpd_system_make(mdpd_system *s, int n, double box, double span, unsigned seed)
{
    memset(s, 0, sizeof *s);
    s->nlocal = s->nall = n;
    s->box = box;
    s->x = malloc(sizeof *s->x * (size_t)n);
    s->v = malloc(sizeof *s->v * (size_t)n);
    s->type = malloc(sizeof *s->type * (size_t)n);
    s->tag = malloc(sizeof *s->tag * (size_t)n);
    s->owner = malloc(sizeof *s->owner * (size_t)n);
    s->mass[1] = 1.0;
    s->mass[2] = 1.5;
    double edge = box > 0 ? box : span;
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            s->x[i][d] = edge * urand(&seed);
            s->v[i][d] = urand(&seed) - 0.5;
        }
        s->type[i] = 1 + (i % 2);
        s->tag[i] = i + 1;
        s->owner[i] = i;
    }
}

static void add_atom(mdpd_system *s, int from, const double shift[3], int *cap)
{
    if (s->nall == *cap) {
        *cap *= 2;
        s->x = realloc(s->x, sizeof *s->x * (size_t)*cap);
        s->v = realloc(s->v, sizeof *s->v * (size_t)*cap);
        s->type = realloc(s->type, sizeof *s->type * (size_t)*cap);
        s->tag = realloc(s->tag, sizeof *s->tag * (size_t)*cap);
        s->owner = realloc(s->owner, sizeof *s->owner * (size_t)*cap);
    }
    int g = s->nall++;
    for (int d = 0; d < 3; d++) {
        s->x[g][d] = s->x[from][d] + shift[d];
        s->v[g][d] = s->v[from][d];
    }
    s->type[g] = s->type[from];
    s->tag[g] = s->tag[from];
    s->owner[g] = from;
}

void mdpd_system_neighbors(mdpd_system *s, double cut, int newton)
{
    s->nall = s->nlocal;
    if (s->box > 0) {
        int cap = s->nlocal;
        for (int i = 0; i < s->nlocal; i++) {
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        if (!a && !b && !c) continue;
                        double shift[3] = {a * s->box, b * s->box, c * s->box};
                        int inside = 1;
                        for (int d = 0; d < 3; d++) {
                            double y = s->x[i][d] + shift[d];
                            if (y < -cut || y >= s->box + cut) inside = 0;
                        }
                        if (inside) add_atom(s, i, shift, &cap);
                    }
        }
    }
    free(s->numneigh); free(s->ilist); free(s->firstneigh); free(s->pairs);
    s->numneigh = calloc((size_t)s->nlocal, sizeof(int));
    s->ilist = malloc(sizeof(int) * (size_t)s->nlocal);
    s->firstneigh = malloc(sizeof(int *) * (size_t)s->nlocal);
    size_t cap = 64 * (size_t)s->nlocal, used = 0;
    s->pairs = malloc(sizeof(int) * cap);
    size_t *start = malloc(sizeof(size_t) * (size_t)s->nlocal);
    const double cutsq = cut * cut;
    for (int i = 0; i < s->nlocal; i++) {
        s->ilist[i] = i;
        start[i] = used;
        for (int j = 0; j < s->nall; j++) {
            if (j == i) continue;
            /* Half list: each owned pair once (j > i); owned-ghost pairs once by tag order
             * when newton is on, on "both ranks" (i.e. always) when it is off. */
            if (j < s->nlocal && j < i) continue;
            if (j >= s->nlocal && newton && s->tag[j] < s->tag[i]) continue;
            double dx = s->x[i][0] - s->x[j][0], dy = s->x[i][1] - s->x[j][1],
                   dz = s->x[i][2] - s->x[j][2];
            if (dx * dx + dy * dy + dz * dz >= cutsq) continue;
            if (used == cap) { cap *= 2; s->pairs = realloc(s->pairs, sizeof(int) * cap); }
            s->pairs[used++] = j;
            s->numneigh[i]++;
        }
    }
    for (int i = 0; i < s->nlocal; i++) s->firstneigh[i] = s->pairs + start[i];
    free(start);
}

void mdpd_system_free(mdpd_system *s)
{
    free(s->x); free(s->v); free(s->type); free(s->tag); free(s->owner);
    free(s->numneigh); free(s->ilist); free(s->firstneigh); free(s->pairs);
    memset(s, 0, sizeof *s);
}

pk_atoms mdpd_system_atoms(const mdpd_system *s)
{
    pk_atoms a = {s->nlocal, s->nall - s->nlocal, (const double(*)[3])s->x,
                  (const double(*)[3])s->v, s->type, s->tag, s->mass, NULL};
    return a;
}

pk_neigh mdpd_system_list(const mdpd_system *s)
{
    pk_neigh l = {s->nlocal, s->ilist, s->numneigh, s->firstneigh};
    return l;
}

void mdpd_system_complete(const mdpd_system *s, double *per_atom, int newton)
{
    if (newton)
        for (int g = s->nlocal; g < s->nall; g++) per_atom[s->owner[g]] += per_atom[g];
    for (int g = s->nlocal; g < s->nall; g++) per_atom[g] = per_atom[s->owner[g]];
}

void mdpd_system_fold_forces(const mdpd_system *s, double (*f)[3])
{
    for (int g = s->nlocal; g < s->nall; g++)
        for (int d = 0; d < 3; d++) {
            f[s->owner[g]][d] += f[g][d];
            f[g][d] = 0.0;
        }
}
