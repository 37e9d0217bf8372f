/* The CUDA backend of hdnnp/pk as data and per-thread code shared by the device
 * (src/cuda/hdnnp_cuda.cu) and the host test that runs every kernel's threads on the CPU
 * (tests/unit/hdnnp/test_hdnnp_gpu_emul.c): the model flattened into arrays, one step's
 * arrays (hdg_step), and the PK_HD function each kernel's thread calls.
 *
 * One step, each line a kernel (threads in brackets):
 *   hdg_env        [centre]          neighbours within the element's cutoff, sorted by element
 *   hdg_blk_values [block: centre]   raw symmetry-function values (hdnnp_gpu_block.h): the
 *                                    neighbours' geometry and cutoffs once into shared memory,
 *                                    then group by group the pairs spread over the threads,
 *                                    per-thread sums added in thread order
 *   hdg_network    [centre]          scaling, extrapolation count, network, dE/dG
 *   hdg_blk_grad   [block: centre]   dE_i/dx_n of every neighbour n: the same shared geometry;
 *                                    a thread owns a neighbour and a chunk of its partners,
 *                                    each pair is evaluated by both of its members' owners,
 *                                    so no pair term is ever scattered
 *   hdg_centre     [centre]          force on the centre (translation invariance), virial
 *   hdg_gather     [atom]            force and per-atom virial of every atom, owned or ghost,
 *                                    summed over the list slots naming it in ascending order
 * Every sum has one writer and a fixed order: reruns are bitwise equal without atomics.
 * The *_d functions compute in double; *_f (precision mixed) do the per-pair arithmetic
 * in float and every sum in double (hdnnp_gpu_body.h, hdnnp_gpu_block.h). */
#ifndef HDNNP_GPU_H
#define HDNNP_GPU_H

#include <stddef.h>

#include "hdnnp_model.h"
#include "pk_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An element of the flattened model: its functions sf[sf0 ..), cutoffs cut[cut0 ..), groups
 * grp[radial0 ..) and grp[angular0 ..), and its network (w[woff[l] + o * size[l-1] + i],
 * bias w[boff[l] + o]). */
typedef struct {
    int nsf, sf0, cut0, ncut, nradial, radial0, nangular, angular0;
    double rcmax, atom_energy;
    int nlayers, normalize;
    int size[HDNNP_MAX_LAYERS];
    int act[HDNNP_MAX_LAYERS];
    size_t woff[HDNNP_MAX_LAYERS], boff[HDNNP_MAX_LAYERS];
} hdg_element;

/* Functions sharing type, neighbour elements, radial factor and rs (hdnnp_group), at most
 * HDG_GROUP_MAX of them (larger groups are split; a thread keeps one sum per member in
 * registers): members mem[first .. first + nsf) are element-local function indices; cut
 * indexes the flat cutoff array. Angular groups of types 3, 9 and 13 list their distinct
 * etas (eta[0 .. neta)) and each member's (eidx[m], members ordered by eta): exp(-eta (r -
 * rs)^2) is a factor per neighbour, computed once per centre, and per pair only the factor
 * of r_jk is left, once per distinct eta (exp(-eta S) = the product of the three; S = the
 * sum of the squared shifted distances). */
enum { HDG_GROUP_MAX = 8 };
typedef struct {
    int type, e1, e2, cut;
    double rs;
    int first, nsf;
    int neta;
    double eta[HDG_GROUP_MAX];
    int eidx[HDG_GROUP_MAX];
} hdg_group;

/* The flattened model (pointers: device or host arrays). */
typedef struct {
    int nelements, maxnsf;
    int maxcut, maxneta;             /* largest cutoff count of an element, neta of a group */
    size_t nwork;                    /* doubles of network work per centre */
    double inv_conv, mean_energy;    /* 1/conv_energy, mean_energy */
    double z[HDNNP_MAX_ELEMENTS];    /* atomic numbers: the weights of types 12, 13, 23-25 */
    const hdg_element *el;
    const hdnnp_sf *sf;
    const hdnnp_cutoff *cut;
    const hdg_group *grp;
    const int *mem;
    const double *w;
} hdg_model;

/* The model on the host, in the arrays hdg_model points at (uploaded once by the backend). */
typedef struct {
    hdg_model m;
    hdg_element *el;
    hdnnp_sf *sf;
    hdnnp_cutoff *cut;
    hdg_group *grp;
    int *mem;
    double *w;
    size_t nel, nsf, ncut, ngrp, nmem, nw;
} hdg_host_model;

/* The neighbour list in CSR form with what the kernels need beside it; rebuilt only when the
 * caller's list or types change. */
typedef struct {
    int inum, nall;
    size_t nslot;
    int maxneigh;       /* longest neighbour list of a centre */
    int *elem;          /* nall: element of each atom, -1 where not handled */
    int *centre;        /* inum: atom index of each centre */
    int *offset;        /* inum + 1: slots of centre ii: [offset[ii], offset[ii+1]) */
    int *neigh;         /* nslot: neighbour atom (special bits removed) */
    int *slot_centre;   /* nslot: ii of the slot's centre */
    int *rev_off;       /* nall + 1 */
    int *rev;           /* nslot: the slots naming atom j, ascending, at [rev_off[j], ..+1) */
    int *atom_centre;   /* nall: ii of atom j as a centre, or -1 */
    size_t cap_atoms, cap_centres, cap_slots;
} hdg_host_list;

/* One step's arrays (device pointers in the kernels, host ones in the emulation). The env
 * arrays use the slot range of each centre: entry p in [offset[ii], offset[ii] + env_n[ii])
 * is its (p - offset[ii])-th neighbour in element order. */
typedef struct {
    hdg_model m;
    int inum, nall;
    int ncap;               /* longest list: environments are no longer (shared memory) */
    const double *x;        /* 3 nall, model length units */
    const int *elem, *centre, *offset, *neigh, *slot_centre, *rev_off, *rev, *atom_centre;
    int *env_n;             /* inum; < 0: overlapping atoms */
    int *env_start;         /* (HDNNP_MAX_ELEMENTS + 1) per centre, relative to offset[ii] */
    int *env_slot;          /* list slot of each env entry */
    int *env_el;            /* element of each env entry */
    double *env_d;          /* 4 per env entry: x_n - x_i, r */
    double *G, *C;          /* maxnsf per centre: raw G; c_s = dE/dGs_s factor_s / conv */
    double *work;           /* nwork per centre, centre-minor: entry k of centre ii at
                             * work[k inum + ii] */
    double *g;              /* 3 per list slot: dE_i/dx_n (0 for slots outside the cutoff) */
    double *ev;             /* 7 per centre: energy, virial xx yy zz xy xz yz */
    double *fcen;           /* 3 per centre: its own force from its energy */
    int *ewn;               /* per centre: functions outside [Gmin, Gmax] */
    double *f, *vatom;      /* 3 and 6 per atom */
} hdg_step;

enum { HDG_START_STRIDE = HDNNP_MAX_ELEMENTS + 1 };

/* One kept extrapolation record as the device writes it. */
typedef struct {
    int ii, sf;
    double value;
} hdg_ew_record;

/* Host side (hdnnp_gpu.c). */
pk_code hdg_model_build(const pk_hdnnp_model *m, hdg_host_model *h, pk_status *st);
void hdg_model_free(hdg_host_model *h);
pk_code hdg_list_build(hdg_host_list *L, const pk_atoms *atoms, const pk_neigh *nl,
                       const int *t2e, pk_status *st);
void hdg_list_free(hdg_host_list *L);

/* The context's model and its extrapolation records (hdnnp_compute.c), for backends that do
 * not run the shared driver. */
const pk_hdnnp_model *hdnnp_context_model(const pk_hdnnp_context *c);
/* Adds count warnings, of which the n records w (in atom order) are kept while room lasts. */
void hdnnp_context_ew_add(pk_hdnnp_context *c, const pk_hdnnp_ew *w, size_t n, long count);
/* The error of the cpu backend for centre i whose environment holds an atom closer than
 * HDNNP_OVERLAP_R: names the first such neighbour in element order. */
pk_code hdnnp_overlap_fail(const pk_hdnnp_model *m, const pk_atoms *atoms, const pk_neigh *nl,
                           int ii, const int *t2e, pk_status *st);

#ifdef PK_HAVE_CUDA
/* The cuda backend (src/cuda/hdnnp_cuda.cu). */
extern const pk_backend_ops pk_hdnnp_backend_cuda;
#endif

#ifdef __cplusplus
}
#endif

/* Threads per block of the block kernels (hdg_blk_*); the code takes any block size, the
 * emulation test also runs others. The threads' sums of a symmetry function are added in
 * runs of HDG_FOLD threads, then the runs (hdg_blk_values_fold, hdg_blk_values_sum). */
enum { HDG_BLOCK = 128, HDG_FOLD = 16 };

/* Per-thread code: the precision-independent kernels, then each precision's. */
#include "hdnnp_gpu_common.h"

#define HDG_SUFFIX _d
#define HDG_REAL double
#define HDG_EXP exp
#define HDG_SQRT sqrt
#define HDG_POW pow
#define HDG_ACOS acos
#define HDG_COS cos
#define HDG_SIN sin
#define HDG_FABS fabs
#include "hdnnp_gpu_body.h"

#define HDG_SUFFIX _f
#define HDG_REAL float
#define HDG_EXP expf
#define HDG_SQRT sqrtf
#define HDG_POW powf
#define HDG_ACOS acosf
#define HDG_COS cosf
#define HDG_SIN sinf
#define HDG_FABS fabsf
#include "hdnnp_gpu_body.h"

#endif
