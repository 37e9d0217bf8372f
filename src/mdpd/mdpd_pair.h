/* The physics of one mDPD pair, written once for every backend (DESIGN.md §8): the C kernel,
 * and the CUDA kernels in double and in mixed precision, call these PK_HD functions, so the
 * backends differ only in how they walk the pairs and add up the results. */
#ifndef PK_MDPD_PAIR_H
#define PK_MDPD_PAIR_H

#include "pk_hd.h"
#include "pk_math.h"

typedef struct {
    double A, B, gamma, rc, rd; /* user coefficients */
    double h;                   /* density-kernel cutoff: rd unless overridden */
    int set;
    /* derived by pk_mdpd_init */
    double sigma;               /* sqrt(2 gamma kT) */
    double inv_rc, inv_rd, inv_h;
    double cutsq;               /* max(rc, h)^2: pairs kept by the density pass */
} pk_mdpd_pair;

/* Pairs closer than this get no force, as in LAMMPS mdpd (r can be 0 in mDPD systems). */
#define PK_MDPD_RMIN 1.0e-10

/* PK_MDPD_PAIR_FUNCTIONS(sfx, real) defines the pair arithmetic in type `real` (the C and
 * CUDA double kernels use sfx empty and double; CUDA's mixed precision _f and float):
 *
 *   pk_mdpd_warren<sfx>(r, inv_h)  Warren (PRE 68, 066702, eq. 9): 15/(2 pi h^3) (1 - r/h)^2
 *   pk_mdpd_lucy<sfx>(r, inv_h)    Lucy, as LAMMPS mdpd/rhosum: 105/(16 pi h^3)(1 + 3r/h)(1 - r/h)^3
 *   pk_mdpd_pair_force<sfx>(...)   F_ij / r_ij (along x_i - x_j) and the weights wc, wd:
 *       [A wc + B (rho_i + rho_j) wd - gamma wc^2 (r^.v_ij) + sigma wc xi dt^-1/2] / r,
 *       times the special-bond factor; `dot` is (x_i - x_j).(v_i - v_j), the noise term is
 *       added only when `noisy` (xi is then the pair's unit Gaussian)
 *   pk_mdpd_pair_energy<sfx>(...)  factor [(A rc/2) wc^2 + b B rd (rho_i + rho_j) wd^2] with
 *       b = 1/4 (warren: the true potential) or 1/2 (lucy: LAMMPS mdpd's expression) */
#define PK_MDPD_PAIR_FUNCTIONS(sfx, real)                                                      \
    PK_HD real pk_mdpd_warren##sfx(real r, real inv_h)                                         \
    {                                                                                          \
        const real c = (real)(15.0 / (2.0 * PK_PI));                                           \
        const real u = (real)1 - r * inv_h;                                                    \
        return c * inv_h * inv_h * inv_h * u * u;                                              \
    }                                                                                          \
    PK_HD real pk_mdpd_lucy##sfx(real r, real inv_h)                                           \
    {                                                                                          \
        const real c = (real)(105.0 / (16.0 * PK_PI));                                         \
        const real u = (real)1 - r * inv_h;                                                    \
        return c * inv_h * inv_h * inv_h * ((real)1 + (real)3 * r * inv_h) * u * u * u;        \
    }                                                                                          \
    typedef struct {                                                                           \
        real fpair, wc, wd;                                                                    \
    } pk_mdpd_force##sfx;                                                                      \
    PK_HD pk_mdpd_force##sfx pk_mdpd_pair_force##sfx(const pk_mdpd_pair *p, real r, real rinv, \
                                                     real dot, real rho_sum, int noisy,        \
                                                     real dtinvsqrt, real xi, real factor)     \
    {                                                                                          \
        pk_mdpd_force##sfx o;                                                                  \
        o.wc = (real)1 - r * (real)p->inv_rc;                                                  \
        o.wd = r < (real)p->rd ? (real)1 - r * (real)p->inv_rd : (real)0;                      \
        real fpair = (real)p->A * o.wc + (real)p->B * rho_sum * o.wd -                         \
                     (real)p->gamma * o.wc * o.wc * dot * rinv;                                \
        if (noisy) fpair += (real)p->sigma * o.wc * dtinvsqrt * xi;                            \
        o.fpair = fpair * (factor * rinv);                                                     \
        return o;                                                                              \
    }                                                                                          \
    PK_HD real pk_mdpd_pair_energy##sfx(const pk_mdpd_pair *p, real wc, real wd, real rho_sum, \
                                        real energy_b, real factor)                            \
    {                                                                                          \
        return factor * ((real)0.5 * (real)p->A * (real)p->rc * wc * wc +                      \
                         energy_b * (real)p->B * (real)p->rd * rho_sum * wd * wd);             \
    }

PK_MDPD_PAIR_FUNCTIONS(, double)

#endif
