/* One deepmd/pk evaluation of a test system with every output requested, ghost parts
 * folded onto their owners (what LAMMPS's reverse communication does). */
#ifndef DP_RUN_H
#define DP_RUN_H

#include <stdlib.h>
#include <string.h>

#include "deepmd.h"
#include "dp_system.h"

typedef struct {
    double energy, virial[6];
    double *eatom, *f, *vatom, *v9;   /* nlocal x 1, 3, 6, 9 after folding */
} dp_result;

static inline pk_code dp_run(pk_deepmd *dp, const dp_sys *s, dp_result *r, pk_status *st)
{
    const size_t na = (size_t)s->nall;
    r->eatom = calloc(na, sizeof(double));
    r->f = calloc(3 * na, sizeof(double));
    r->vatom = calloc(6 * na, sizeof(double));
    r->v9 = calloc(9 * na, sizeof(double));
    pk_out out = {.f = (double (*)[3])r->f, .want_energy = 1, .want_virial = 1,
                  .eatom = r->eatom, .vatom = (double (*)[6])r->vatom};
    pk_code c = pk_deepmd_compute(dp, &s->atoms, &s->nl, &out, (double (*)[9])r->v9, st);
    dp_sys_fold(s, r->eatom, 1);
    dp_sys_fold(s, r->f, 3);
    dp_sys_fold(s, r->vatom, 6);
    dp_sys_fold(s, r->v9, 9);
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
    return c;
}

static inline void dp_result_free(dp_result *r)
{
    free(r->eatom);
    free(r->f);
    free(r->vatom);
    free(r->v9);
}

/* max_k |a_k - b_k| / max_k |b_k| */
static inline double dp_relerr(const double *a, const double *b, int n)
{
    double e = 0.0, s = 0.0;
    for (int k = 0; k < n; k++) {
        double d = a[k] - b[k];
        if (d < 0) d = -d;
        if (d > e) e = d;
        if ((b[k] < 0 ? -b[k] : b[k]) > s) s = b[k] < 0 ? -b[k] : b[k];
    }
    return s > 0 ? e / s : e;
}

/* max_k |a_k - b_k| */
static inline double dp_abserr(const double *a, const double *b, int n)
{
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double d = a[k] - b[k];
        if (d < 0) d = -d;
        if (d > e) e = d;
    }
    return e;
}

/* Load a model with LAMMPS type t+1 = model type t for all its types. */
static inline pk_deepmd *dp_load_path(const char *path, int tabulate, double step,
                                      pk_status *st)
{
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.tabulate = tabulate;
    if (step > 0) o.table_step = step;
    pk_deepmd *dp = pk_deepmd_load(path, &o, st);
    if (dp) {
        int map[16];
        for (int t = 0; t < pk_deepmd_ntypes(dp) && t < 16; t++) map[t] = t;
        pk_deepmd_set_type_map(dp, pk_deepmd_ntypes(dp), map, st);
    }
    return dp;
}

/* DeePMD-kit's deeppot_sea.yaml (O, H). */
static inline pk_deepmd *dp_load(int tabulate, double step, pk_status *st)
{
    return dp_load_path(dp_shared_path("reference/deepmd/deeppot_sea.yaml"), tabulate, step, st);
}

#endif
