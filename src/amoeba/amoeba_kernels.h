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

/* Per listed atom ii: room, where the room for its pairs would start if every entry of
 * the list were kept (padded to groups of 4); its dipole pairs' and preconditioner pairs'
 * first entries and counts, padded to a multiple of 4 with zero tensors. A thread stores
 * the pairs of its atoms one after the other from the room of its first atom, so that a
 * product streams through them. */
typedef struct {
    int room, off, ndip, poff, npc;
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

/* ---- the table ------------------------------------------------------------------------- */

typedef struct {
    amoeba_field_fn *field;
    amoeba_products_fn *products;
    amoeba_products_fit_fn *products_fit;   /* with products */
} amoeba_kernels;

/* All portable. */
extern const amoeba_kernels AMOEBA_PORTABLE;

/* pk_amoeba_induce with the kernels of k. */
pk_code amoeba_induce_run(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                          const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                          const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                          const pk_amoeba_comm *comm, double (*u)[6], pk_amoeba_induce_work *w,
                          pk_amoeba_induce_info *info, pk_status *st);

/* One step (pk_amoeba_compute's contract) with the kernels of k. */
pk_code amoeba_step(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                    const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                    const pk_amoeba_comm *comm, pk_amoeba_terms terms, pk_amoeba_state *state,
                    pk_out *out, pk_status *st);

#endif
