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
    pk_mdpd_noise noise;
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

/* The backends: mdpd_backend.c (cpu), src/cuda/mdpd_cuda.cu (cuda), src/sve/mdpd_sve.c
 * (sve). */
extern const pk_backend_ops pk_mdpd_backend_cpu;
#ifdef PK_HAVE_CUDA
extern const pk_backend_ops pk_mdpd_backend_cuda;
#endif
#ifdef PK_HAVE_SVE
extern const pk_backend_ops pk_mdpd_backend_sve;
#endif

/* The two passes of the host backends as driver + row kernel (DESIGN.md §8): the driver
 * (pk_mdpd_density_run, pk_mdpd_forces_run) checks the inputs, prepares the workspaces and
 * per-thread copies, opens the OpenMP region and completes the sums; inside it, every thread
 * calls the kernel once, which walks its share of the list entries (an orphaned
 * `omp for schedule(static)`, or the same contiguous share computed by the kernel). The cpu
 * kernels are in mdpd_density.c and mdpd_forces.c, the SVE ones in src/sve/. */
typedef struct {
    pk_mdpd *m;               /* the kernel fills m's pair cache for this list */
    const pk_atoms *atoms;
    const pk_neigh *list;
    int newton, lucy;
} pk_mdpd_density_pass;
/* Adds each entry's density and what its neighbours get from it into acc (this thread's
 * copy of rho), and records the entry's pairs within cutoff in m's pair cache. */
typedef void (*pk_mdpd_density_rows)(const pk_mdpd_density_pass *pass, double *acc);
pk_code pk_mdpd_density_run(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list,
                            int newton, double *rho, pk_mdpd_density_rows rows, pk_status *st);
void pk_mdpd_cpu_density_rows(const pk_mdpd_density_pass *pass, double *acc);

typedef struct {
    double *f, *eatom, *vatom; /* this thread's accumulation targets (eatom/vatom may be NULL) */
    double ev[7];              /* energy, virial */
} pk_mdpd_thread_sums;
typedef struct {
    const pk_mdpd *m;
    const pk_atoms *atoms;
    const pk_neigh *list;
    const double *rho;
    int newton, want_e, want_v;
    int tally_any;             /* energy, virial or a per-atom quantity asked for */
    double energy_b;           /* see pk_mdpd_pair_energy */
    double dtinvsqrt;
    uint32_t key;              /* pk_mdpd_noise_key of this step */
    const double *special;
} pk_mdpd_force_pass;
/* Adds the forces of each entry's cached pairs, and the tallies asked for, into t. */
typedef void (*pk_mdpd_force_rows)(const pk_mdpd_force_pass *pass, pk_mdpd_thread_sums *t);
pk_code pk_mdpd_forces_run(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list,
                           int newton, const double *rho, const pk_mdpd_step *step,
                           pk_out *out, pk_mdpd_force_rows rows, pk_status *st);
void pk_mdpd_cpu_force_rows(const pk_mdpd_force_pass *pass, pk_mdpd_thread_sums *t);

/* One step of a host backend: density, its ghost communication, forces. */
pk_code pk_mdpd_host_step(pk_mdpd *m, const pk_mdpd_args *a, pk_out *out,
                          pk_mdpd_density_rows density_rows, pk_mdpd_force_rows force_rows,
                          pk_status *st);

#ifdef PK_HAVE_SVE
/* The SVE kernels (src/sve/mdpd_sve_density.c, mdpd_sve_forces.c). */
void pk_mdpd_sve_density_rows(const pk_mdpd_density_pass *pass, double *acc);
void pk_mdpd_sve_force_rows(const pk_mdpd_force_pass *pass, pk_mdpd_thread_sums *t);
/* xi[q] = pk_mdpd_gaussian_keyed(key, tag_i, tag_j[q]) for q < n, bit for bit, drawn with
 * SVE (src/sve/mdpd_sve_noise.c; the force kernel draws its noise the same way). */
void pk_mdpd_sve_gaussians(uint32_t key, pk_tag tag_i, const pk_tag *tag_j, int n, double *xi);
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
