/* hdnnp/pk: Behler-Parrinello high-dimensional neural network potentials (n2p2 models).
 *
 * Design note
 * -----------
 * A model (pk_hdnnp_model) is read once from an n2p2 model directory: input.nn,
 * scaling.data and weights.ZZZ.data (ZZZ = atomic number). It is immutable afterwards and
 * may be shared. A context (pk_hdnnp_context) holds everything that changes per step:
 * per-thread scratch buffers (grown geometrically, reused), the deterministic scatter
 * accumulators and the extrapolation-warning records. One context per pair style instance.
 *
 * Units. The core computes in the *physical units of the model* (the units of the n2p2
 * training data, e.g. Bohr and Hartree for the RPBE-D3 water model):
 *   - positions handed to pk_hdnnp_compute must already be in model length units; the LAMMPS
 *     adapter passes x * cflength (it may keep a scaled copy of x, owned + ghost);
 *   - energies, per-atom energies and virials come back in model energy units, forces in
 *     model energy / model length. The adapter multiplies energies and virials by
 *     1/cfenergy and forces by cflength/cfenergy.
 *   - n2p2's data-set normalisation (mean_energy, conv_energy, conv_length) is internal:
 *     symmetry functions are dimensionless, so evaluating them with the input.nn parameters
 *     in physical units equals n2p2's evaluation in normalised units (n2p2 multiplies rc and
 *     rs by conv_length and divides eta by conv_length^2). Only the energy conversion is
 *     visible: E_i = E_nn,i / conv_energy + mean_energy + atom_energy[element], and forces
 *     carry the same 1/conv_energy factor. conv_length therefore never appears in the core.
 *
 * Calling sequence (adapter):
 *   pk_hdnnp_model_load(dir, &logger, &model, &st);        // pair_style: dir D
 *   pk_hdnnp_element_index(model, "H") ...                   // pair_coeff: map types
 *   pk_hdnnp_max_cutoff(model) <= pair cutoff * cflength     // check in init_one
 *   pk_hdnnp_context_create(model, &ctx, &st);
 *   pk_hdnnp_set_backend(ctx, &request, &st);                // optional: cpu until then
 *   every step:  pk_hdnnp_compute(ctx, &atoms, &full_list, type_to_element, &out, &st);
 *                pk_hdnnp_ew_count(ctx) / pk_hdnnp_ew_get(...)  -> showew, maxew
 *                pk_hdnnp_ew_reset(ctx)                          -> resetew (or every step)
 *   pk_hdnnp_context_free(ctx); pk_hdnnp_model_free(model);
 *
 * The neighbour list must be FULL (every pair in both directions) and contain ghosts;
 * forces on ghost atoms are written into out->f at ghost indices (LAMMPS reverse-
 * communicates them with newton_pair on). type_to_element is indexed by LAMMPS type
 * (1-based, entry 0 unused); -1 means "not handled": such atoms are neither centres nor
 * neighbours. Per-atom virial convention: the term r_in (x) F_n^(i) of centre i acting on
 * neighbour n is assigned to neighbour n (the same convention as DeePMD-kit's atomic
 * virial); the sum over all atoms equals the global virial.
 *
 * Extrapolation: a warning is one (centre atom, symmetry function) whose unscaled value is
 * < Gmin or > Gmax of scaling.data (n2p2's test). The core counts and records them; showew,
 * showewsum, maxew and resetew are the adapter's policy on top of the count and records.
 *
 * Supported: symmetry-function types 2, 3, 9, 12, 13 and the compact-support types 20-25
 * (subtypes p1-p4, p1a-p4a, e); cutoff types 0-8 with the inner-cutoff parameter; all scaling
 * modes; all activation letters; normalize_nodes; global and per-element node counts;
 * mean_energy/conv_energy/conv_length; atom_energy. Refused with an error naming the keyword
 * or line: nnp_type other than 2G (4G charge equilibration, charge NN), committee_mode, and
 * what n2p2 itself refuses (other symmetry-function types, malformed parameters).
 *
 * Threads: OpenMP over centre atoms (static schedule), forces scattered through pk_accum,
 * energies/virials reduced in thread order: bitwise reproducible for a given thread count.
 * Kernel organisation (per atom): hdnnp_symfunc.c (values and derivative factors, pairs of
 * neighbours listed once per angular group), hdnnp_network.c, hdnnp_contract.c (dE/dG
 * applied before any gradient is formed), hdnnp_compute.c (driver). */
#ifndef PK_HDNNP_H
#define PK_HDNNP_H

#include <stddef.h>

#include "pk_backend.h"
#include "pk_log.h"
#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_hdnnp_model pk_hdnnp_model;
typedef struct pk_hdnnp_context pk_hdnnp_context;

/* Read an n2p2 model directory. log may be NULL. On failure *model is NULL and st names
 * the file, line and problem. */
pk_code pk_hdnnp_model_load(const char *dir, const pk_logger *log, pk_hdnnp_model **model,
                            pk_status *st);
void pk_hdnnp_model_free(pk_hdnnp_model *model);

int pk_hdnnp_num_elements(const pk_hdnnp_model *model);
/* Element index (ordered by atomic number, as n2p2) of a symbol, or -1 if not in the model. */
int pk_hdnnp_element_index(const pk_hdnnp_model *model, const char *symbol);
const char *pk_hdnnp_element_symbol(const pk_hdnnp_model *model, int element);
int pk_hdnnp_num_symfuncs(const pk_hdnnp_model *model, int element);
/* Largest symmetry-function cutoff (model length units). */
double pk_hdnnp_max_cutoff(const pk_hdnnp_model *model);
/* One-line human description of symmetry function sf (0-based, sorted n2p2 order) of an
 * element, including its input.nn line number. Returns buf. */
const char *pk_hdnnp_describe_symfunc(const pk_hdnnp_model *model, int element, int sf,
                                      char *buf, size_t len);

pk_code pk_hdnnp_context_create(const pk_hdnnp_model *model, pk_hdnnp_context **ctx,
                                pk_status *st);
void pk_hdnnp_context_free(pk_hdnnp_context *ctx);
/* Bytes held by the context's reusable buffers and its backend. */
size_t pk_hdnnp_memory_usage(const pk_hdnnp_context *ctx);

/* Backends (pk_backend.h): one step's inputs as every backend receives them, the backends
 * by kind (NULL: not written for hdnnp/pk) and the choice of one per context. A new context
 * runs on the cpu backend until pk_hdnnp_set_backend chooses another; pk_hdnnp_compute runs
 * the chosen one. */
typedef struct {
    const pk_atoms *atoms;
    const pk_neigh *nl;
    const int *type_to_element;
    int list_changed;   /* nl, the atom order or the types differ from the previous
                           compute's: a backend that keeps what it derived from the list
                           refreshes it */
} pk_hdnnp_args;

extern const pk_backend_ops *const pk_hdnnp_backends[PK_BACKEND_COUNT];
pk_code pk_hdnnp_set_backend(pk_hdnnp_context *ctx, const pk_backend_request *req,
                             pk_status *st);
const pk_backend_slot *pk_hdnnp_backend(const pk_hdnnp_context *ctx);

/* Energy, forces and (optionally) virial, per-atom energy and per-atom virial for the
 * centres nl->ilist[0..inum). Accumulates into out (does not reset it). */
pk_code pk_hdnnp_compute(pk_hdnnp_context *ctx, const pk_atoms *atoms, const pk_neigh *nl,
                         const int *type_to_element, pk_out *out, pk_status *st);
/* The next pk_hdnnp_compute gets the same list, atom order and types as the previous one,
 * only new positions (LAMMPS: no reneighbouring since), so a backend may reuse what it
 * derived from the list. Without this call every compute treats its list as new. */
void pk_hdnnp_list_kept(pk_hdnnp_context *ctx);

/* Extrapolation warnings: one record per (atom, symmetry function) whose unscaled value lies
 * outside [Gmin, Gmax] of scaling.data. Records accumulate over compute calls until reset;
 * at most PK_HDNNP_EW_KEEP are kept, the count covers all of them. */
enum { PK_HDNNP_EW_KEEP = 4096 };
typedef struct {
    int atom;          /* local index of the centre atom */
    pk_tag tag;        /* its tag, or 0 when atoms->tag was NULL */
    int element;
    int sf;            /* 0-based index in sorted order (row of scaling.data minus 1) */
    double value, gmin, gmax;
} pk_hdnnp_ew;

long pk_hdnnp_ew_count(const pk_hdnnp_context *ctx);
/* Kept records in atom order; *n receives how many. */
const pk_hdnnp_ew *pk_hdnnp_ew_get(const pk_hdnnp_context *ctx, size_t *n);
void pk_hdnnp_ew_reset(pk_hdnnp_context *ctx);
/* "atom 12 (tag 13, O), SF 5 [input.nn line 40: type 2 ...]: 1.2 above Gmax 1.1 by 0.1" */
const char *pk_hdnnp_ew_format(const pk_hdnnp_model *model, const pk_hdnnp_ew *w, char *buf,
                               size_t len);

/* Seconds spent in symmetry functions, networks and force contraction (summed over threads
 * divided by thread count) since the context was created. */
void pk_hdnnp_timing(const pk_hdnnp_context *ctx, double *symfuncs, double *networks,
                     double *forces);

#ifdef __cplusplus
}
#endif
#endif
