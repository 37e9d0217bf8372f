#include "mdpd_system.h"

#include <stdio.h>
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

void mdpd_system_full_list(mdpd_system *s, double cut)
{
    free(s->full_numneigh); free(s->full_firstneigh); free(s->full_pairs);
    s->full_numneigh = calloc((size_t)s->nlocal, sizeof(int));
    s->full_firstneigh = malloc(sizeof(int *) * (size_t)s->nlocal);
    size_t cap = 128 * (size_t)s->nlocal + 1, used = 0;
    s->full_pairs = malloc(sizeof(int) * cap);
    size_t *start = malloc(sizeof(size_t) * (size_t)s->nlocal);
    const double cutsq = cut * cut;
    for (int i = 0; i < s->nlocal; i++) {
        start[i] = used;
        for (int j = 0; j < s->nall; j++) {
            if (j == i) continue;
            double dx = s->x[i][0] - s->x[j][0], dy = s->x[i][1] - s->x[j][1],
                   dz = s->x[i][2] - s->x[j][2];
            if (dx * dx + dy * dy + dz * dz >= cutsq) continue;
            if (used == cap) { cap *= 2; s->full_pairs = realloc(s->full_pairs, sizeof(int) * cap); }
            s->full_pairs[used++] = j;
            s->full_numneigh[i]++;
        }
    }
    for (int i = 0; i < s->nlocal; i++) s->full_firstneigh[i] = s->full_pairs + start[i];
    free(start);
}

pk_neigh mdpd_system_full_view(const mdpd_system *s)
{
    pk_neigh l = {s->nlocal, s->ilist, s->full_numneigh, s->full_firstneigh};
    return l;
}

static void mark_list(const mdpd_system *s, int *const *first, const int *num, int every, int cls)
{
    for (int i = 0; i < s->nlocal; i++)
        for (int k = 0; k < num[i]; k++) {
            const int j = first[i][k] & PK_NEIGHMASK;
            if ((s->tag[i] + s->tag[j]) % every == 0) first[i][k] = pk_neigh_entry(j, cls);
        }
}

void mdpd_system_mark_special(mdpd_system *s, int every, int cls)
{
    mark_list(s, s->firstneigh, s->numneigh, every, cls);
    if (s->full_pairs) mark_list(s, s->full_firstneigh, s->full_numneigh, every, cls);
}

void mdpd_system_fold(const mdpd_system *s, double *per_atom, int width)
{
    for (int g = s->nlocal; g < s->nall; g++)
        for (int d = 0; d < width; d++) {
            per_atom[(size_t)s->owner[g] * width + d] += per_atom[(size_t)g * width + d];
            per_atom[(size_t)g * width + d] = 0.0;
        }
}

void mdpd_system_free(mdpd_system *s)
{
    free(s->x); free(s->v); free(s->type); free(s->tag); free(s->owner);
    free(s->numneigh); free(s->ilist); free(s->firstneigh); free(s->pairs);
    free(s->full_numneigh); free(s->full_firstneigh); free(s->full_pairs);
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

void mdpd_result_alloc(mdpd_result *r, const mdpd_system *s)
{
    memset(r, 0, sizeof *r);
    r->f = calloc((size_t)s->nall, sizeof *r->f);
    r->rho = calloc((size_t)s->nall, sizeof *r->rho);
    r->eatom = calloc((size_t)s->nall, sizeof *r->eatom);
    r->vatom = calloc((size_t)s->nall, sizeof *r->vatom);
}

void mdpd_result_free(mdpd_result *r)
{
    free(r->f); free(r->rho); free(r->eatom); free(r->vatom);
    memset(r, 0, sizeof *r);
}

void mdpd_system_jiggle(mdpd_system *s, double amount, unsigned seed)
{
    double (*d)[3] = malloc(sizeof *d * (size_t)s->nlocal);
    for (int i = 0; i < s->nlocal; i++)
        for (int k = 0; k < 3; k++) d[i][k] = amount * (2.0 * urand(&seed) - 1.0);
    for (int i = 0; i < s->nall; i++)
        for (int k = 0; k < 3; k++) s->x[i][k] += d[s->owner[i]][k];
    free(d);
}

/* The system's stand-in for LAMMPS's communication of the density. */
typedef struct {
    const mdpd_system *s;
    double *rho;
} density_comm;

static void reverse_rho(void *ctx)
{
    const density_comm *c = ctx;
    for (int g = c->s->nlocal; g < c->s->nall; g++) c->rho[c->s->owner[g]] += c->rho[g];
}

static void forward_rho(void *ctx)
{
    const density_comm *c = ctx;
    for (int g = c->s->nlocal; g < c->s->nall; g++) c->rho[g] = c->rho[c->s->owner[g]];
}

void mdpd_system_step(pk_mdpd *m, mdpd_system *s, const pk_mdpd_step *step, int list_changed,
                      int want_ev, mdpd_result *r)
{
    const pk_atoms a = mdpd_system_atoms(s);
    const pk_neigh l = pk_mdpd_full_list(m) ? mdpd_system_full_view(s) : mdpd_system_list(s);
    density_comm c = {s, r->rho};
    const pk_mdpd_args args = {&a, &l, 1, list_changed, r->rho, step,
                               {reverse_rho, forward_rho, &c}};
    pk_out out = {r->f, 0.0, {0}, want_ev, want_ev, want_ev ? r->eatom : NULL,
                  want_ev ? r->vatom : NULL};
    pk_status st;
    pk_status_clear(&st);
    if (pk_mdpd_compute(m, &args, &out, &st)) {
        fprintf(stderr, "pk_mdpd_compute: %s\n", st.msg);
        exit(2);
    }
    mdpd_system_fold(s, &r->f[0][0], 3);
    mdpd_system_fold(s, r->eatom, 1);
    mdpd_system_fold(s, &r->vatom[0][0], 6);
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
}

pk_mdpd *mdpd_two_type_model(pk_mdpd_kernel kernel)
{
    pk_status st;
    pk_status_clear(&st);
    pk_mdpd *m = pk_mdpd_create(2);
    pk_mdpd_settings(m, 1.0, 1.0, 4242, kernel, &st);
    pk_mdpd_coeff(m, 1, 1, 1, 1, -40.0, 25.0, 4.5, 1.0, 0.75, &st);
    pk_mdpd_coeff(m, 1, 1, 2, 2, -30.0, 20.0, 3.0, 0.9, 0.7, &st);
    pk_mdpd_coeff(m, 2, 2, 2, 2, -50.0, 30.0, 6.0, 1.0, 0.8, &st);
    if (pk_mdpd_init(m, &st)) {
        fprintf(stderr, "model: %s\n", st.msg);
        exit(2);
    }
    return m;
}

void mdpd_system_liquid(mdpd_system *s, unsigned seed)
{
    mdpd_system_make(s, 750, 5.0, 0.0, seed);
    mdpd_system_neighbors(s, 1.3, 1);
    mdpd_system_full_list(s, 1.3);
    mdpd_system_mark_special(s, 7, 1);
}
