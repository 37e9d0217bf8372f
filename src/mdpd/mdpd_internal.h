/* Private state of the mdpd/pk core, shared by its source files. */
#ifndef PK_MDPD_INTERNAL_H
#define PK_MDPD_INTERNAL_H

#include "mdpd.h"
#include "pk_threads.h"

typedef struct {
    double A, B, gamma, rc, rd; /* user coefficients */
    double h;                   /* density-kernel cutoff: rd unless overridden */
    int set;
    /* derived by pk_mdpd_init */
    double sigma;               /* sqrt(2 gamma kT) */
    double inv_rc, inv_rd, inv_h;
    double cutsq;               /* max(rc, h)^2: pairs kept by the density pass */
} pk_mdpd_pair;

struct pk_mdpd {
    int ntypes;
    double kT, rc_global;
    uint32_t seed;
    pk_mdpd_kernel kernel;
    int noisy;            /* some pair has sigma > 0 (set by pk_mdpd_init) */
    pk_mdpd_pair *pair;   /* (ntypes+1)^2, indexed [i*(ntypes+1)+j] with 1-based types */
    pk_accum rho_acc, f_acc, eatom_acc, vatom_acc;
    /* Pairs within cutoff found by the density pass, reused by the force pass: for list
     * entry ii, slots [pair_start[ii], pair_start[ii] + pair_count[ii]) hold the neighbour
     * index as listed (special bits kept) and the distance. */
    pk_buffer pair_start, pair_count, pair_j, pair_r;
    int pairs_inum;             /* list length the cache was built for */
    pk_buffer ev;         /* per-thread energy + 6 virial terms */
};

static inline const pk_mdpd_pair *pk_mdpd_pair_of(const pk_mdpd *m, int i, int j)
{
    return &m->pair[i * (m->ntypes + 1) + j];
}

#endif
