/* The pair kernels of amoeba/pk that a backend may put in place of the portable ones (the
 * BLIS pattern of DESIGN.md section 8: the portable driver does everything else, setup,
 * batches, reductions, communication), and what those kernels read and write. A table
 * entry left NULL runs the portable kernel, inlined in its driver as before; the cpu
 * backend's table is all NULL (AMOEBA_PORTABLE). */
#ifndef AMOEBA_KERNELS_H
#define AMOEBA_KERNELS_H

#include "amoeba_internal.h"

/* ---- induced dipoles (amoeba_induce.c) -------------------------------------------------- */

/* An atom's 6 PCG columns (lanes order x_d x_p y_d y_p z_d z_p) padded to 8 doubles in the
 * products. */
typedef double lane8[8];

/* Per listed atom ii: room and proom, where the room for its dipole and preconditioner
 * pairs starts when every atom before it takes as many as pk_amoeba_pairs counted
 * (polar_count, pc_count; padded to groups of 4); its dipole pairs' and preconditioner
 * pairs' first entries and counts, padded to a multiple of 4 with zero tensors. A thread
 * stores the pairs of its atoms one after the other from the rooms of its first atom, so
 * that a product streams through them. */
typedef struct {
    int room, proom, off, ndip, poff, npc;
} amoeba_slot;

/* The per-step tensors of a pair set, stored by groups of 4 pairs: entry e has its partner
 * col[e] (the byte offset of the partner's lane8 row in a product; an int, so up to 2^25
 * atoms on a rank) and its tensor {s, -b3} (amoeba_induce.c), component c at
 * ten[4 (e - e % 4) + 4 c + e % 4], so that a group's components load as four lane4. */
static inline size_t amoeba_tensor_at(size_t e, int c)
{
    return 4 * (e - e % 4) + 4 * (size_t)c + e % 4;
}

/* What the direct field needs of an atom (owned and ghost), as a row of doubles: its
 * type's alpha, sqrt(alpha), pdamp^-3 (infinite for pdamp = 0: undamped) and Thole
 * parameter, its group and the byte offset of its row in the products (a ghost replaced
 * by its owned copy when here). */
enum { A_POL, A_SPOL, A_IPD3, A_THOLE, A_GROUP, A_COL, A_LEN };

/* The direct field's batch scratch arrays: per-pair inputs (pair_inputs, then the
 * kernels), then the preconditioner blocks (the field kernel). The batch is padded to
 * whole groups of 4 (amoeba_batch); the padding gets zero scales, so its fields and
 * tensors are 0. */
enum {
    S_DSC, S_PSC, S_USC,           /* d, p and mutual scale factors */
    S_POL, S_SPOL,                 /* alpha_i alpha_k and its square root */
    S_THOLE,                       /* Thole's a / r^3 = min(thole_i, thole_k) / (pdamp_i
                                      pdamp_k)^3, infinite where undamped */
    S_B0, S_B1, S_B2, S_SR,        /* damped kernels (pair_kernels), S(r) */
    S_PX, S_PY, S_PZ, S_PB,        /* preconditioner block {s, -b3} */
    S_PCOL,                        /* k's A_COL (packed with the preconditioner blocks) */
    S_COUNT
};

/* What the direct-field kernel reads. */
typedef struct {
    const pk_amoeba_model *m;
    const pk_amoeba_sites *s;
    const pk_amoeba_pairs *pairs;
    const double (*rpole)[13];
    const double (*arow)[A_LEN];   /* the atoms' rows */
    double off2;                   /* polar_cut^2 */
    double ghost_col;              /* A_COL from here on: a ghost's row */
    amoeba_switch sw;
    int use_pc, mutual;
} amoeba_field_ctx;

/* The field kernel over the padded batch of atom i (npad pairs, scratch inputs S_DSC..
 * S_THOLE filled): the permanent fields at i (added to fi[6], d then p set) and at each
 * partner k (added to fl[k]), and, for mutual polarization (ten, the batch's first tensor
 * group, not NULL), the pairs' dipole-dipole tensors, stored, and their preconditioner
 * blocks (scratch S_PX..S_PB). */
typedef void amoeba_field_fn(const amoeba_field_ctx *c, int i, const amoeba_batch *b, int npad,
                             double fi[6], double (*fl)[6], double *ten);

/* One PCG product: y_i += T_ik v_k and y_k += T_ik v_i for every stored pair (i, k) of the
 * listed atoms (pc: the preconditioner's pairs and counts), into the per-thread copies acc
 * of y (begun by the caller, which also sums them); vty = v.y of each dipole set over this
 * rank's pairs. */
typedef void amoeba_products_fn(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc,
                                const int *col, const double *ten, pk_accum *acc,
                                const lane8 *in, double vty[2]);

/* Whether an amoeba_products_fn may run the step's stored pairs of one set (1), or the
 * portable products must (0): called once per step and pair set. */
typedef int amoeba_products_fit_fn(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc,
                                   const int *col, const double *ten);

/* ---- HAL van der Waals (amoeba_hal.c) -------------------------------------------------- */

/* The HAL batch scratch arrays: the pair's R_min and scaled epsilon (0 in the padding;
 * inputs), its energy and the force on k's site (results). */
enum { H_RV, H_EPS, H_E, H_GX, H_GY, H_GZ, H_COUNT };

/* What the HAL pair kernel reads besides the batch: the taper and the buffer constants. */
typedef struct {
    amoeba_taper taper;
    double dhal, ghal;
} amoeba_hal_ctx;

/* The HAL pair kernel over a padded batch of sites (npad pairs, r and r^2 the sites'
 * separation; scratch inputs H_RV, H_EPS filled): each pair's tapered energy and the force
 * on k's site, into H_E..H_GZ; returns the sum of the energies (the portable form is the
 * pair loop of pk_amoeba_hal, amoeba_hal.c). */
typedef double amoeba_hal_fn(const amoeba_hal_ctx *c, const amoeba_batch *b, int npad);

/* ---- multipoles (amoeba_mpole.c) ------------------------------------------------------- */

/* The multipole batch scratch arrays: the partner's row in rpole (13 k, a long: with int
 * inputs GCC vectorises the portable pair loop by 8 pairs and spills) and the pair's
 * Coulomb constant times its 1-n scale factor, 0 in the padding (inputs); the pair energy,
 * force on k and torque on k (results). */
enum { M_ROW, M_FSCALE, M_E, M_F, M_TK = M_F + 3, M_COUNT = M_TK + 3 };

/* What the multipole pair kernel reads besides the batch: the multipoles, and the SMOOTH
 * mode's cutoff R, 1/R^2 and switch (amoeba_mpole.c). */
typedef struct {
    const double (*rpole)[13];
    double R, iR2, start, iw;
    int smooth;
} amoeba_mpole_ctx;

/* The multipole pair kernel over the padded batch of atom i (npad pairs, scratch inputs
 * M_ROW, M_FSCALE filled), with the sums of its results (the portable form is
 * mpole_simd_pair then mpole_apply, amoeba_mpole.c): each pair's energy, force on k and
 * torque on k; the forces and torques added to the atoms' rows of f and tq (i's the sums
 * over the batch), when eatom or vatom is not NULL each pair's half energy and virial to
 * both atoms' rows, and the batch's energy and virial into sums[0] and sums[1..6]. Scratch
 * M_E..M_TK is the kernel's own. */
typedef void amoeba_mpole_fn(const amoeba_mpole_ctx *c, int i, const amoeba_batch *b, int npad,
                             double (*f)[3], double (*tq)[3], double *eatom,
                             double (*vatom)[6], double sums[7]);

/* ---- polarization forces (amoeba_polar.c) ---------------------------------------------- */

/* The polarization forces' batch scratch arrays: the inputs of each pair (polar_inputs),
 * then its results. */
enum {
    P_ROW,                   /* the neighbour's index k, a long */
    P_DS, P_PS, P_US,        /* d, p and mutual scales (0 in the padding) */
    P_PDAMP, P_THOLE,        /* the neighbour's pdamp and Thole parameter */
    P_F,                     /* force on k */
    P_TI = P_F + 3,          /* torque on i */
    P_TK = P_TI + 3,         /* torque on k */
    P_COUNT = P_TK + 3
};

/* What the polarization pair kernel reads besides the batch. */
typedef struct {
    const double (*rpole)[13], (*u)[6];
    double hf;                     /* 1/2 the electric constant over the dielectric */
    double start, inv_width;       /* the switch x = (r - start) inv_width, when smooth */
    int smooth;
    double pdi, thi;               /* i's pdamp and Thole parameter */
} amoeba_polar_ctx;

/* The polarization pair kernel over the padded batch of atom i (npad pairs, scratch inputs
 * P_ROW..P_THOLE filled), with the sums of its results (the portable form is polar_pairs
 * then polar_apply, amoeba_polar.c): each pair's force on k and torques on i and k; the
 * forces and torques added to the atoms' rows of f and tq (i's the sums over the batch),
 * the virial to vir[6] and, when vatom is not NULL, each pair's half to both atoms' rows.
 * Scratch P_F..P_TK is the kernel's own. */
typedef void amoeba_polar_fn(const amoeba_polar_ctx *c, int i, const amoeba_batch *b, int npad,
                             double (*f)[3], double (*tq)[3], double *vir,
                             double (*vatom)[6]);

/* ---- the table ------------------------------------------------------------------------- */

typedef struct {
    amoeba_field_fn *field;
    amoeba_products_fn *products;
    amoeba_products_fit_fn *products_fit;   /* with products */
    amoeba_polar_fn *polar;
    amoeba_mpole_fn *mpole;
    amoeba_hal_fn *hal;
} amoeba_kernels;

/* All portable. */
extern const amoeba_kernels AMOEBA_PORTABLE;

/* pk_amoeba_induce with the kernels of k. */
pk_code amoeba_induce_run(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                          const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                          const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                          const pk_amoeba_comm *comm, double (*u)[6], pk_amoeba_induce_work *w,
                          pk_amoeba_induce_info *info, pk_status *st);

/* pk_amoeba_hal with the kernels of k. */
pk_code amoeba_hal_run(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                       const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                       const pk_amoeba_pairs *pairs, pk_amoeba_work *w, pk_out *out,
                       pk_status *st);

/* pk_amoeba_mpole with the kernels of k. */
pk_code amoeba_mpole_run(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], double (*torque)[3], pk_amoeba_work *w,
                         pk_out *out, pk_status *st);

/* pk_amoeba_polar_forces with the kernels of k. */
pk_code amoeba_polar_forces_run(const amoeba_kernels *k, const pk_amoeba_model *m,
                                const pk_atoms *a, const pk_amoeba_sites *s,
                                const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                                const double (*rpole)[13], const double (*u)[6],
                                double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                                pk_status *st);

/* One step (pk_amoeba_compute's contract) with the kernels of k. */
pk_code amoeba_step(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                    const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                    const pk_amoeba_comm *comm, pk_amoeba_terms terms, pk_amoeba_state *state,
                    pk_out *out, pk_status *st);

/* ---- the step with a backend's own terms ------------------------------------------------ */

/* How a backend computes each term of a step (ctx: its own data); amoeba_step_terms runs
 * them in order with the pair sets, frames, communication, timers and solver statistics
 * between them. The pair sets are g->state->pairs; hal and mpole collect their energy from
 * out->energy = 0, polar adds its forces to the polarization energy already there. The
 * portable ones call the amoeba_*_run functions above with a kernel table. */
typedef struct {
    const void *ctx;
    pk_code (*hal)(const void *ctx, const pk_amoeba_args *g, pk_out *out, pk_status *st);
    pk_code (*mpole)(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                     double (*torque)[3], pk_out *out, pk_status *st);
    pk_code (*induce)(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                      double (*u)[6], pk_status *st);
    pk_code (*polar)(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                     const double (*u)[6], double (*torque)[3], pk_out *out, pk_status *st);
} amoeba_terms_ops;

pk_code amoeba_step_terms(const amoeba_terms_ops *ops, const pk_amoeba_args *g, pk_out *out,
                          pk_status *st);

#endif
