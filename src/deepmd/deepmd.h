/* deepmd/pk core: Deep Potential energy models (DeePMD-kit v3, descriptor se_e2_a) in C.
 *
 * Model. For a centre atom i of model type ti and each neighbour type t, the neighbours j
 * within rcut are sorted by distance and the nearest sel[t] fill the slots of block t
 * (slots beyond the real neighbours are "padding"). Each slot k holds the row
 *   R_k = w(r) (1/rho, x/rho^2, y/rho^2, z/rho^2),  rho = r + env_protection,
 *   w(r) = 1 - 10u^3 + 15u^4 - 6u^5,  u = (r - rcut_smth)/(rcut - rcut_smth) clipped to [0,1],
 * with (x, y, z) = x_j - x_i; padding rows are 0. Rows are normalised per centre type and
 * slot, R^_k = (R_k - davg[ti][k]) / dstd[ti][k], and padding rows are NOT masked after
 * that (they contribute the constant row -davg/dstd). With s_k = R^_k[0] and the embedding
 * net G of the pair (neighbour type, or (centre, neighbour) type when type_one_side is
 * false), T[d][m] = (1/sum(sel)) sum_k R^_k[d] G_m(s_k) and the descriptor is
 *   D[m*axis + a] = sum_d T[d][m] T[d][a],  m < ng, a < axis_neuron.
 * E_i = fit_ti(D) + bias_atom_e[ti] + out_bias[ti] (out_std is not applied). Neighbour
 * pairs in the descriptor's exclude_types keep their slot but contribute nothing.
 *
 * Two kernels compute the same thing. The exact kernel evaluates the embedding nets for
 * every slot (padding included), like DeePMD-kit: it is the reference. The tabulated
 * kernel (default) replaces each embedding net by quintic Hermite polynomials built at load
 * time (value, 1st and 2nd derivative matched at the nodes; a fine range of width
 * table_step from the padding value s_pad up to s(table_rmin), then a 10x coarser range
 * up to s_pad + table_extrapolate (s(table_rmin) - s_pad)); it fuses the lookup with the
 * contraction so G is never stored, and adds the padding slots in closed form (count x
 * constant row x G(s_pad) when the statistics are uniform per neighbour type, as DeePMD-kit
 * makes them; a precomputed suffix sum over slots otherwise). A neighbour beyond the table
 * is an error (PK_ERR_RANGE) naming the atom and the distance. Its fitting nets run over batches of centres of one type, so the
 * fitting weights stream through the cache once per batch rather than once per atom.
 *
 * Files: .yaml (libyaml) and .dp (HDF5 with the dict as JSON; needs a build with HDF5),
 * told apart by the HDF5 signature. Everything is computed in double, also for float32
 * models (DeePMD-kit computes those in single precision: expect ~1e-7 relative
 * differences).
 *
 * Neighbour overflow: when a type has more than sel[t] neighbours within rcut, the nearest
 * sel[t] are kept (DeePMD-kit's C++/TensorFlow semantics; its PyTorch path first keeps the
 * nearest sum(sel) of all types, which differs only in this overflow case). This silently
 * changes physics, so the core counts it and the adapter should warn.
 *
 * Adapter use:
 *   pk_deepmd_options o; pk_deepmd_options_default(&o); (set tabulate, table_step, ...)
 *   pk_deepmd *dp = pk_deepmd_load(path, &o, &st);          NULL on error, st says why
 *   pk_deepmd_type_index(dp, "O") for each pair_coeff name -> model type (or -1)
 *   pk_deepmd_set_type_map(dp, ntypes_lammps, map, &st);    map[t-1] for LAMMPS type t
 *   cutoff for the neighbour request: pk_deepmd_cutoff(dp) (a FULL list, newton on)
 *   pk_deepmd_set_backend(dp, &request, &st);               optional: cpu until then
 *   each step: pk_deepmd_compute(dp, &atoms, &full_list, &out, NULL, &st);
 *              forces/eatom/vatom land on owned and ghost atoms: reverse-communicate them
 *   end of run: pk_deepmd_overflow(dp, &n, max_per_type) -> warn once if n > 0
 *   pk_deepmd_destroy(dp).
 * Units are the model's (DeePMD-kit: Angstrom, eV). One handle per pair style instance;
 * handles share nothing. */
#ifndef PK_DEEPMD_H
#define PK_DEEPMD_H

#include <stddef.h>

#include "pk_backend.h"
#include "pk_log.h"
#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_deepmd pk_deepmd;

/* The CUDA backend's launch shape as the input fixes it (pair_style keywords cuda_tune,
 * cuda_columns, cuda_centres, cuda_threads; other backends ignore it). A field left 0 is
 * the tuner's: the backend times the candidate values on its first steps and keeps the
 * fastest (deepmd_launch.h). Every shape gives the same bits. */
typedef struct {
    int tune;      /* 1 (default): tune the free fields; 0: take their defaults */
    int columns;   /* columns of T per thread of the forward kernel: 1, 2 or 4 */
    int centres;   /* centres per block of the forward kernel: 1 .. 64 */
    int threads;   /* threads per block of the pair-force and force-gather kernels: a
                      multiple of 32 in 32 .. 1024 */
} pk_deepmd_launch;

typedef struct {
    int tabulate;              /* 1: tabulated fused kernel (default); 0: exact kernel */
    double table_step;         /* fine-range interval in s (default 0.01) */
    double table_rmin;         /* shortest distance covered by the fine range (default 0.5) */
    double table_extrapolate;  /* coarse range reaches this many fine widths (default 5) */
    int tanh_table;            /* 1: the sve backend's fitting nets take tanh from a table
                                  (quintic pieces of width 1/64 on |z| <= 20, Guo et al.,
                                  PPoPP'22 §3.5.3): |error| <= 1.7e-14 in tanh and 3.6e-12
                                  in tanh' against libm; forces stay -dE/dx of the energy
                                  computed. 0 (default): libm tanh (the cpu backend
                                  always takes dp_tanh_n, within 4 ulp of libm, in
                                  deepmd_vtanh.c). The default is 1 when the
                                  environment has PAIRKIT_DEEPMD_TANH_TABLE=1. */
    pk_logger log;             /* load-time messages (table sizes); may be empty */
    pk_deepmd_launch cuda;     /* the CUDA backend's launch shape (default: tuned) */
} pk_deepmd_options;

void pk_deepmd_options_default(pk_deepmd_options *o);
/* When key is cuda_tune (value yes|no), cuda_columns, cuda_centres or cuda_threads (an
 * integer): read value into l and return 1, with st saying whether the value was good
 * (PK_ERR_ARG naming the keyword, the value and the choices). Otherwise 0, st untouched.
 * pk_deepmd_load checks the shape against the model (a forward block holds at most 1024
 * threads). */
int pk_deepmd_launch_parse(pk_deepmd_launch *l, const char *key, const char *value,
                           pk_status *st);

/* Read a DeePMD-kit v3 serialized model (.yaml or .dp) and build the tables if asked.
 * Returns NULL and fills st (file:line: key: problem) on failure. */
pk_deepmd *pk_deepmd_load(const char *path, const pk_deepmd_options *o, pk_status *st);
void pk_deepmd_destroy(pk_deepmd *dp);

int pk_deepmd_ntypes(const pk_deepmd *dp);
const char *pk_deepmd_type_name(const pk_deepmd *dp, int t);
/* Model type index of a type_map name, or -1. */
int pk_deepmd_type_index(const pk_deepmd *dp, const char *name);
double pk_deepmd_cutoff(const pk_deepmd *dp);
/* The precision the fitting nets run in, for the log: "fitting net float64", "fitting net
 * float32" (a float32 model on the cpu backend's tabulated kernel), or float64 with why for a
 * float32 model elsewhere (the exact kernel and the sve and cuda backends run it in double). */
const char *pk_deepmd_fit_precision(const pk_deepmd *dp);
/* Bytes held by tables, workspaces and the backend (not the network weights). */
size_t pk_deepmd_memory(const pk_deepmd *dp);

/* map[t-1] = model type of LAMMPS type t (1..n), or -1: atoms of that type are neither
 * centres nor neighbours. */
pk_code pk_deepmd_set_type_map(pk_deepmd *dp, int n, const int *map, pk_status *st);

/* Energy, forces and virials of the centres in the FULL list nl (neighbours may be ghosts;
 * every neighbour within rcut must be listed). out->f is required. On error the outputs
 * are partly updated and must not be used.
 * Accumulates into out (f, energy, virial, eatom, vatom as requested; eatom/vatom/f cover
 * owned and ghost atoms). vatom9, if not NULL, accumulates DeePMD-kit's full per-atom virial
 * [atom][3a+b] = sum over centres i of F_ij[a] (x_j - x_i)[b] attributed to the neighbour j
 * (row a = force component); out->vatom holds the same in LAMMPS order xx yy zz xy xz yz =
 * [0] [4] [8] [3] [6] [7]. */
pk_code pk_deepmd_compute(pk_deepmd *dp, const pk_atoms *atoms, const pk_neigh *nl,
                          pk_out *out, double (*vatom9)[9], pk_status *st);
/* The next pk_deepmd_compute gets the same list, atom order and types as the previous one,
 * only new positions (LAMMPS: no reneighbouring since), so a backend may reuse what it
 * derived from the list. Without this call every compute treats its list as new. */
void pk_deepmd_list_kept(pk_deepmd *dp);

/* Backends (pk_backend.h): one step's inputs as every backend receives them, the backends
 * by kind (NULL: not written for deepmd/pk) and the choice of one. A loaded model runs on
 * the cpu backend until pk_deepmd_set_backend chooses another; pk_deepmd_compute runs the
 * chosen one. */
typedef struct {
    const pk_atoms *atoms;
    const pk_neigh *nl;
    double (*vatom9)[9];
    int list_changed;   /* nl or the atom order differs from the previous compute's: a
                           backend that keeps what it derived from the list refreshes it */
} pk_deepmd_args;

extern const pk_backend_ops *const pk_deepmd_backends[PK_BACKEND_COUNT];
pk_code pk_deepmd_set_backend(pk_deepmd *dp, const pk_backend_request *req, pk_status *st);
const pk_backend_slot *pk_deepmd_backend(const pk_deepmd *dp);

/* Since load or the last reset: centres that had more neighbours of some type than sel,
 * and the largest neighbour count seen per model type (max_per_type may be NULL). */
void pk_deepmd_overflow(const pk_deepmd *dp, long *ncentres, int *max_per_type);
void pk_deepmd_overflow_reset(pk_deepmd *dp);

#ifdef __cplusplus
}
#endif
#endif
