/* mdpd/pk core: many-body dissipative particle dynamics (Warren 2003; Li et al. 2013).
 *
 * Per pair i<j with r = |x_i - x_j| < rc, wc = 1 - r/rc, wd = max(0, 1 - r/rd):
 *   F_ij = [ A wc + B (rho_i + rho_j) wd - gamma wc^2 (r^.v_ij) + sigma wc xi / sqrt(dt) ] r^
 * with sigma^2 = 2 gamma kT and xi a unit Gaussian shared by the pair. The local density
 * rho is summed over neighbours (no self term) with one of two kernels:
 *   warren: w(r) = 15/(2 pi rd^3) (1 - r/rd)^2 (number density). The conservative force is
 *           then -grad of U = sum_{i<j} (A rc/2) wc^2 + sum_i (pi rd^4 B/30) rho_i^2, which
 *           per pair is (A rc/2) wc^2 + (B rd/4)(rho_i + rho_j) wd^2 (exact for one B, rd).
 *   lucy:   w(r) = 105/(16 pi rd^3) (1 + 3r/rd)(1 - r/rd)^3, weighted by the neighbour's
 *           mass, as LAMMPS mdpd/rhosum; the energy is then LAMMPS mdpd's per-pair
 *           expression (A rc/2) wc^2 + (B rd/2)(rho_i + rho_j) wd^2, which is not a true
 *           potential (kept for drop-in compatibility).
 *
 * Use: pk_mdpd_create -> pk_mdpd_settings -> pk_mdpd_coeff (per type pair) -> pk_mdpd_init
 * -> pk_mdpd_set_backend (optional; cpu otherwise) -> each step pk_mdpd_compute ->
 * pk_mdpd_destroy. The cpu backend (the reference) is pk_mdpd_density, then the density
 * completed on ghosts through the caller's communication, then pk_mdpd_forces, over a LAMMPS
 * half list; `newton` says whether pairs with ghosts are stored once (1) or on both ranks (0).
 * The cuda backend takes a full list (pk_mdpd_full_list) and sums each atom's density and
 * force over its own neighbours in list order, so it needs no reverse communication and its
 * sums do not depend on the thread schedule. */
#ifndef PK_MDPD_H
#define PK_MDPD_H

#include <stdint.h>

#include "pk_backend.h"
#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PK_MDPD_WARREN = 0, PK_MDPD_LUCY = 1 } pk_mdpd_kernel;
/* The random numbers xi of the pair noise: unit Gaussians (the default), or uniform with the
 * same mean 0 and variance 1 (Groot & Warren 1997; cheaper, a different stream). Both are the
 * same for (i, j) and (j, i) and on every rank, thread and backend (mdpd_random.h). */
typedef enum { PK_MDPD_NOISE_GAUSSIAN = 0, PK_MDPD_NOISE_UNIFORM = 1 } pk_mdpd_noise;

typedef struct pk_mdpd pk_mdpd;

typedef struct {
    uint64_t timestep;         /* keys the random stream together with the seed */
    double dt;
    const double *special;     /* 4 special_lj factors indexed by special class, or NULL */
} pk_mdpd_step;

pk_mdpd *pk_mdpd_create(int ntypes);
void pk_mdpd_destroy(pk_mdpd *m);

/* kT >= 0, rc > 0 (global cutoff used by coefficients that do not give one), seed >= 1.
 * Coefficients already set are kept. pk_mdpd_check_settings only validates. */
pk_code pk_mdpd_check_settings(double kT, double rc, uint32_t seed, pk_status *st);
pk_code pk_mdpd_settings(pk_mdpd *m, double kT, double rc, uint32_t seed,
                         pk_mdpd_kernel kernel, pk_status *st);
/* Coefficients for types [ilo,ihi] x [jlo,jhi] (1-based, symmetric). rc <= 0 means the
 * global cutoff. */
pk_code pk_mdpd_coeff(pk_mdpd *m, int ilo, int ihi, int jlo, int jhi, double A, double B,
                      double gamma, double rc, double rd, pk_status *st);
/* Check that every pair is set and derive sigma. */
pk_code pk_mdpd_init(pk_mdpd *m, pk_status *st);
/* Interaction cutoff of a type pair after pk_mdpd_init (the larger of rc and rd). */
double pk_mdpd_cutoff(const pk_mdpd *m, int itype, int jtype);
/* Override the density cutoff of a type pair (LAMMPS mdpd/rhosum compatibility, where the
 * density kernel has its own cutoff h); 0 restores rd. */
pk_code pk_mdpd_density_cutoff(pk_mdpd *m, int itype, int jtype, double h, pk_status *st);
/* Choose the noise distribution (Gaussian until set); call before pk_mdpd_set_backend. */
pk_code pk_mdpd_set_noise(pk_mdpd *m, pk_mdpd_noise noise, pk_status *st);
pk_mdpd_noise pk_mdpd_noise_of(const pk_mdpd *m);
pk_mdpd_kernel pk_mdpd_kernel_of(const pk_mdpd *m);
void pk_mdpd_set_kernel(pk_mdpd *m, pk_mdpd_kernel kernel);
double pk_mdpd_kT(const pk_mdpd *m);
uint32_t pk_mdpd_seed(const pk_mdpd *m);
/* Coefficients as stored, for restart files and write_data; 0 when the pair is unset. */
int pk_mdpd_get_coeff(const pk_mdpd *m, int itype, int jtype, double *A, double *B,
                      double *gamma, double *rc, double *rd);

/* rho[0 .. nlocal+nghost) is overwritten with the partial sums of this rank: owned atoms
 * complete when newton is 0, ghost parts to be reverse-summed when newton is 1. */
pk_code pk_mdpd_density(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                        double *rho, pk_status *st);

/* Adds forces (and energy/virial when requested) for the pairs of the half list. rho must
 * be complete on owned and ghost atoms. Needs velocities and tags in atoms. Reuses the
 * pairs and distances found by the last pk_mdpd_density, which must have been called on
 * the same list and positions. */
pk_code pk_mdpd_forces(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                       const double *rho, const pk_mdpd_step *step, pk_out *out,
                       pk_status *st);

/* Bytes held in reusable workspaces, the backend's included. */
double pk_mdpd_memory_usage(const pk_mdpd *m);

/* ---- one step through the backend seam -------------------------------------------------- */

/* The caller's ghost communication of the density (LAMMPS comm->reverse_comm and
 * forward_comm on the pair style): reverse adds ghosts' partial sums into their owners,
 * forward copies owners' values out to their ghosts. Both act on the `rho` of the args. */
typedef struct {
    void (*reverse_rho)(void *ctx);
    void (*forward_rho)(void *ctx);
    void *ctx;
} pk_mdpd_comm;

typedef struct {
    const pk_atoms *atoms;
    const pk_neigh *list;      /* half list (cpu) or full list (pk_mdpd_full_list) */
    int newton;
    int list_changed;          /* the list (and with it the atom order) was rebuilt since the
                                  last step: backends that keep a copy refresh it */
    double *rho;               /* owned + ghost; complete on both after the step */
    const pk_mdpd_step *step;
    pk_mdpd_comm comm;
} pk_mdpd_args;

/* Every backend of mdpd/pk by kind, NULL where not built. */
extern const pk_backend_ops *const pk_mdpd_backends[PK_BACKEND_COUNT];
/* Choose and set up the backend for req; call after pk_mdpd_init (a backend may copy the
 * coefficients), and again after the coefficients change. */
pk_code pk_mdpd_set_backend(pk_mdpd *m, const pk_backend_request *req, pk_status *st);
const pk_backend_slot *pk_mdpd_backend(const pk_mdpd *m);
/* 1 when the chosen backend takes a full neighbour list, 0 for a half list. */
int pk_mdpd_full_list(const pk_mdpd *m);
/* Density, ghost communication and forces for one step on the chosen backend. */
pk_code pk_mdpd_compute(pk_mdpd *m, const pk_mdpd_args *a, pk_out *out, pk_status *st);

#ifdef __cplusplus
}
#endif
#endif
