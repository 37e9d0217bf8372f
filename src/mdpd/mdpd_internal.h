/* Private state of the mdpd/pk core, shared by its source files. */
#ifndef PK_MDPD_INTERNAL_H
#define PK_MDPD_INTERNAL_H

#include "mdpd.h"
#include "mdpd_gather.h"
#include "mdpd_pair.h"
#include "pk_backend.h"
#include "pk_threads.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    pk_backend_slot backend;    /* what pk_mdpd_compute runs on (cpu until chosen) */
};

/* The backends: mdpd_backend.c (cpu), src/cuda/mdpd_cuda.cu (cuda). */
extern const pk_backend_ops pk_mdpd_backend_cpu;
#ifdef PK_HAVE_CUDA
extern const pk_backend_ops pk_mdpd_backend_cuda;
#endif

/* Host side of the gather kernels (mdpd_gather.c). */
/* Everything in g that does not point at per-atom data, for this step. */
void pk_mdpd_gather_params(const pk_mdpd *m, const pk_mdpd_step *step, pk_mdpd_gather *g);
/* Neighbour entries of the list in total. */
size_t pk_mdpd_csr_size(const pk_neigh *list);
/* The list in CSR form (centre[inum], offset[inum + 1], neigh[pk_mdpd_csr_size]) with the
 * entries whose neighbours are all owned atoms first; returns how many those are. */
int pk_mdpd_csr_fill(const pk_neigh *list, int nlocal, int *centre, int *offset, int *neigh);

static inline const pk_mdpd_pair *pk_mdpd_pair_of(const pk_mdpd *m, int i, int j)
{
    return &m->pair[i * (m->ntypes + 1) + j];
}

#ifdef __cplusplus
}
#endif
#endif
