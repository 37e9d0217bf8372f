/* One atom's density and force, each summed over the atom's own full neighbour list in list
 * order: what one CUDA thread computes. Gathering (instead of scattering into neighbours)
 * writes each sum from one thread in a fixed order, so reruns give the same bits whatever
 * the schedule, without atomics or fixed point. PK_HD, so a host test runs the same code.
 *
 * The list is in CSR form: list entry ii is atom centre[ii], its neighbours are
 * neigh[offset[ii] .. offset[ii+1]) (atom indices with LAMMPS's special-bond bits). Each
 * pair is seen from both sides; the pair force is exactly antisymmetric (the same
 * arithmetic on negated separations and the same noise), so Newton's third law holds. */
#ifndef PK_MDPD_GATHER_H
#define PK_MDPD_GATHER_H

#include <math.h>
#include <stdint.h>

#include "mdpd_pair.h"
#include "mdpd_random.h"
#include "pk_views.h"

typedef struct {
    const double (*x)[3], (*v)[3];
    const int *type;
    const pk_tag *tag;
    const double *mass;          /* per-atom mass for the lucy kernel; NULL for warren */
    const int *centre, *offset, *neigh;
    const pk_mdpd_pair *pair;    /* pair[type_i * stride + type_j] */
    int stride;
    int noisy;
    int uniform;                 /* uniform noise instead of Gaussian (pk_mdpd_noise_keyed) */
    uint32_t key;                /* pk_mdpd_noise_key(seed, step) */
    double dtinvsqrt, energy_b;  /* dt^-1/2; 1/4 (warren) or 1/2 (lucy) */
    double special[4];           /* special_lj factors by special class */
} pk_mdpd_gather;

/* PK_MDPD_GATHER_FUNCTIONS(sfx, real): the pair arithmetic in `real` (separations are taken
 * in double, relative to the centre, then rounded), every sum in double.
 *   pk_mdpd_gather_density<sfx>(g, ii)  rho of atom centre[ii]
 *   pk_mdpd_gather_force<sfx>(g, rho, ii, want_ev, f, ev)  its force into f[3]; with
 *       want_ev, half of each pair's energy and virial (xx yy zz xy xz yz) into ev[7],
 *       LAMMPS's per-atom convention: summed over atoms they give the totals. */
#define PK_MDPD_GATHER_FUNCTIONS(sfx, real)                                                   \
    PK_HD double pk_mdpd_gather_density##sfx(const pk_mdpd_gather *g, int ii)                 \
    {                                                                                         \
        const int i = g->centre[ii];                                                          \
        const double xi = g->x[i][0], yi = g->x[i][1], zi = g->x[i][2];                       \
        const pk_mdpd_pair *prow = g->pair + g->type[i] * g->stride;                          \
        double rho = 0.0;                                                                     \
        for (int k = g->offset[ii]; k < g->offset[ii + 1]; k++) {                             \
            const int j = pk_neigh_index(g->neigh[k]);                                        \
            const real dx = (real)(xi - g->x[j][0]), dy = (real)(yi - g->x[j][1]),            \
                       dz = (real)(zi - g->x[j][2]);                                          \
            const real rsq = dx * dx + dy * dy + dz * dz;                                     \
            const pk_mdpd_pair *p = &prow[g->type[j]];                                        \
            if (rsq >= (real)p->cutsq) continue;                                              \
            const real r = sqrt(rsq);                                                         \
            if (r >= (real)p->h) continue;                                                    \
            rho += g->mass ? g->mass[j] * (double)pk_mdpd_lucy##sfx(r, (real)p->inv_h)        \
                           : (double)pk_mdpd_warren##sfx(r, (real)p->inv_h);                  \
        }                                                                                     \
        return rho;                                                                           \
    }                                                                                         \
    PK_HD void pk_mdpd_gather_force##sfx(const pk_mdpd_gather *g, const double *rho, int ii,  \
                                         int want_ev, double f[3], double ev[7])              \
    {                                                                                         \
        const int i = g->centre[ii];                                                          \
        const double xi = g->x[i][0], yi = g->x[i][1], zi = g->x[i][2];                       \
        const double vxi = g->v[i][0], vyi = g->v[i][1], vzi = g->v[i][2];                    \
        const double rho_i = rho[i];                                                          \
        const pk_tag tag_i = g->tag[i];                                                       \
        const pk_mdpd_pair *prow = g->pair + g->type[i] * g->stride;                          \
        for (int k = g->offset[ii]; k < g->offset[ii + 1]; k++) {                             \
            const int jraw = g->neigh[k];                                                     \
            const int j = pk_neigh_index(jraw);                                               \
            const real dx = (real)(xi - g->x[j][0]), dy = (real)(yi - g->x[j][1]),            \
                       dz = (real)(zi - g->x[j][2]);                                          \
            const real rsq = dx * dx + dy * dy + dz * dz;                                     \
            const pk_mdpd_pair *p = &prow[g->type[j]];                                        \
            if (rsq >= (real)p->cutsq) continue;                                              \
            const real r = sqrt(rsq);                                                         \
            if (r >= (real)p->rc || r < (real)PK_MDPD_RMIN) continue;                         \
            const real rinv = (real)1 / r;                                                    \
            const int sb = pk_neigh_special(jraw);                                            \
            const real factor = sb ? (real)g->special[sb] : (real)1;                          \
            const real dot = dx * (real)(vxi - g->v[j][0]) + dy * (real)(vyi - g->v[j][1]) +  \
                             dz * (real)(vzi - g->v[j][2]);                                   \
            const real rho_sum = (real)(rho_i + rho[j]);                                      \
            const double xi_ij =                                                              \
                g->noisy ? pk_mdpd_noise_keyed(g->uniform, g->key, tag_i, g->tag[j]) : 0.0;   \
            const pk_mdpd_force##sfx pf =                                                     \
                pk_mdpd_pair_force##sfx(p, r, rinv, dot, rho_sum, g->noisy,                   \
                                        (real)g->dtinvsqrt, (real)xi_ij, factor);             \
            const real fpair = pf.fpair;                                                      \
            f[0] += (double)(dx * fpair);                                                     \
            f[1] += (double)(dy * fpair);                                                     \
            f[2] += (double)(dz * fpair);                                                     \
            if (want_ev) {                                                                    \
                ev[0] += 0.5 * (double)pk_mdpd_pair_energy##sfx(p, pf.wc, pf.wd, rho_sum,     \
                                                                (real)g->energy_b, factor);   \
                ev[1] += 0.5 * (double)(dx * dx * fpair);                                     \
                ev[2] += 0.5 * (double)(dy * dy * fpair);                                     \
                ev[3] += 0.5 * (double)(dz * dz * fpair);                                     \
                ev[4] += 0.5 * (double)(dx * dy * fpair);                                     \
                ev[5] += 0.5 * (double)(dx * dz * fpair);                                     \
                ev[6] += 0.5 * (double)(dy * dz * fpair);                                     \
            }                                                                                 \
        }                                                                                     \
    }

#endif
