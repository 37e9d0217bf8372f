/* Private state of the deepmd/pk core, shared by its source files. */
#ifndef PK_DEEPMD_INTERNAL_H
#define PK_DEEPMD_INTERNAL_H

#include <math.h>
#include <string.h>

#include "deepmd.h"
#include "deepmd_hd.h"
#include "pk_threads.h"
#include "pk_workspace.h"

#ifdef __cplusplus
extern "C" {   /* the CUDA backend (deepmd_cuda.cu) calls the C side */
#endif

/* Four doubles as one value (GNU vector extension: one AVX register, or two SSE ones), for
 * the loops the vectoriser gets wrong or may not reorder (sums). */
typedef double dp_v4 __attribute__((vector_size(32)));

static inline dp_v4 dp_v4_load(const double *p)
{
    dp_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void dp_v4_store(double *p, dp_v4 v) { memcpy(p, &v, sizeof v); }

static inline double dp_v4_sum(dp_v4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

/* ---- networks (deepmd_net.c) ------------------------------------------------------------ */

/* dp_act and dp_act_eval(act, z, &a, &a1, &a2) (a = act(z) and its first two derivatives)
 * live in deepmd_hd.h, shared with the CUDA backend. tanh comes from libm there; the cpu
 * backend's fitting nets take dp_tanh_n (a few ulps from libm, vectorised); the sve backend
 * can use the table of deepmd_tanh.c. */

/* z[i] = tanh(z[i]) for i < n (deepmd_vtanh.c); NaN stays NaN. dp_tanh_nf: the same in
 * float (float32 fitting nets). */
void dp_tanh_n(double *z, size_t n);
void dp_tanh_nf(float *z, size_t n);

/* ---- matrix products of the fitting nets (deepmd_gemm.c) ------------------------------- */

/* B (K x N) packed into column panels for dp_gemm (layout in deepmd_gemm.c). */
typedef struct {
    int K, N;
    double *p;
} dp_panels;

/* Pack B (K x N, row-major, leading dimension ldb); -1 when out of memory. */
int dp_panels_pack(dp_panels *P, const double *B, int K, int N, size_t ldb);
void dp_panels_free(dp_panels *P);
/* C (M x N) += A (M x K) B, A and C row-major with leading dimensions lda and ldc. Each
 * element of C gets its products added in k order (one fused multiply-add each where the
 * target has them), independently of M and of its row's place. */
void dp_gemm(int M, const double *A, size_t lda, const dp_panels *B, double *C, size_t ldc);
/* Columns per full panel (tests use it to choose shapes around the panel edges). */
int dp_gemm_nr(void);

/* The same in float, for the fitting nets of float32 models (one kernel body for both:
 * deepmd_gemm_kernel.h); a float panel holds twice the columns of a double one. */
typedef struct {
    int K, N;
    float *p;
} dp_panels_f;

int dp_panels_pack_f(dp_panels_f *P, const float *B, int K, int N, size_t ldb);
void dp_panels_free_f(dp_panels_f *P);
void dp_gemm_f(int M, const float *A, size_t lda, const dp_panels_f *B, float *C, size_t ldc);
int dp_gemm_nr_f(void);

/* y = act(x W + b) [* idt] [+ x if nout == nin, + (x, x) if nout == 2 nin, when resnet]. */
typedef struct {
    int nin, nout;
    dp_act act;
    int resnet;
    double *w;     /* nin x nout, row-major (DeePMD-kit's layout) */
    double *wt;    /* its transpose, nout x nin (read by the sve and cuda backends) */
    dp_panels fwd; /* w packed: forward products x W (dp_net_fit) */
    dp_panels bwd; /* wt packed: backward products g W^T (dp_net_fit) */
    double *b;     /* nout, or NULL */
    double *idt;   /* nout, or NULL */
    struct {       /* float copies for dp_net_fit_f (dp_net_pack_f; zero otherwise) */
        dp_panels_f fwd, bwd;
        float *b, *idt;
    } f32;
} dp_layer;

typedef struct {
    int nlayer, nin, nout;
    int width;     /* widest layer (input included): scratch size unit */
    int f32;       /* float copies packed (dp_net_pack_f): a float32 model's fitting net */
    dp_layer *layer;
} dp_net;

/* Embedding net of one scalar input: y = G(s), and dy = G'(s), d2y = G''(s) when not
 * NULL. scratch holds 6 * width doubles. */
void dp_net_scalar(const dp_net *net, double s, double *y, double *dy, double *d2y,
                   double *scratch);
/* Fitting net on nb inputs x (nb x nin): y[b] (first output) and, if grad is not NULL,
 * grad (nb x nin) = dy/dx. scratch holds dp_net_fit_scratch(net, nb) doubles. */
void dp_net_fit(const dp_net *net, int nb, const double *x, double *y, double *grad,
                double *scratch);
size_t dp_net_fit_scratch(const dp_net *net, int nb);
/* dp_net_fit in float (a float32 model's fitting net, packed by dp_net_pack_f): x, y, grad
 * and scratch (dp_net_fit_scratch_f(net, nb) floats) in float. */
void dp_net_fit_f(const dp_net *net, int nb, const float *x, float *y, float *grad,
                  float *scratch);
size_t dp_net_fit_scratch_f(const dp_net *net, int nb);
/* Pack every layer's w and wt for dp_net_fit (once, at load); -1 when out of memory. */
int dp_net_pack(dp_net *net);
/* The float copies for dp_net_fit_f (weights, biases and idt rounded to float; sets f32). */
int dp_net_pack_f(dp_net *net);
void dp_net_free(dp_net *net);

/* ---- tabulated tanh (deepmd_tanh.c) ------------------------------------------------------ */

/* tanh on [0, DP_TANH_ZMAX] as quintic Hermite pieces of width 1/DP_TANH_PER_UNIT (value,
 * 1st and 2nd derivative of tanh matched at the nodes, so the pieces join C2), odd
 * extension below 0, |z| clamped to DP_TANH_ZMAX (where 1 - tanh < 1e-17). The fitting
 * nets' reverse pass takes the slope from the same piece, p'(|z|): forces stay the exact
 * derivative of the energy computed. coef[k * 6 + p] multiplies (|z| - k h)^p. Errors
 * against libm: 1.7e-14 in tanh, 3.6e-12 in tanh' (deepmd_tanh.c). */
enum { DP_TANH_PER_UNIT = 64, DP_TANH_ZMAX = 20, DP_TANH_N = DP_TANH_PER_UNIT * DP_TANH_ZMAX };

typedef struct {
    double *coef;      /* DP_TANH_N x 6, or NULL when the option is off */
} dp_tanh_table;

pk_code dp_tanh_table_build(dp_tanh_table *t, pk_status *st);
void dp_tanh_table_free(dp_tanh_table *t);
/* The table's tanh(z) and its derivative (scalar form of the sve backend's lanes). */
void dp_tanh_table_eval(const dp_tanh_table *t, double z, double *a, double *a1);

/* ---- model (deepmd_model.c, deepmd_dp.c) ----------------------------------------------- */

typedef struct {
    int ntypes;
    char **type_map;
    double rcut, rcut_smth, protection;
    int *sel;          /* ntypes */
    int *sec;          /* ntypes + 1: first slot of each neighbour type */
    int nnei;          /* sum(sel) */
    int ng, axis;      /* last embedding width, axis_neuron */
    int one_side;      /* type_one_side */
    unsigned char *excl;    /* ntypes x ntypes: descriptor pair exclusion (symmetric) */
    double *davg, *dstd;    /* ntypes x nnei x 4 */
    int nemb;
    dp_net *emb;       /* ntypes (one side) or ntypes^2 indexed ti + ntypes * tj */
    dp_net *fit;       /* ntypes */
    int fit_f32;       /* the fitting section's precision is float32: the cpu backend's
                        * tabulated kernel runs the fitting nets in float (dp_fit_atoms_f) */
    double *bias;      /* bias_atom_e + out_bias, ntypes */
} dp_model;

pk_code dp_model_read_yaml(dp_model *m, const char *path, pk_status *st);
/* .dp (HDF5); PK_ERR_UNSUPPORTED when built without HDF5 (deepmd_dp.c). */
pk_code dp_model_read_dp(dp_model *m, const char *path, pk_status *st);
void dp_model_free(dp_model *m);

/* Embedding net of a (centre type, neighbour type) pair. */
static inline int dp_emb_index(const dp_model *m, int ti, int tj)
{
    return m->one_side ? tj : ti + m->ntypes * tj;
}
static inline const dp_net *dp_emb_of(const dp_model *m, int ti, int tj)
{
    return &m->emb[dp_emb_index(m, ti, tj)];
}

/* ---- tables (deepmd_table.c) ------------------------------------------------------------ */

/* Quintic pieces of one embedding net over [s0, s1) with step h, then [s1, s2) with step
 * 10h; coef[(interval * 6 + p) * ng + m] multiplies (s - node)^p in output m (the outputs
 * of one power are contiguous, so the kernels run over them in vector registers). */
typedef struct {
    double s0, s1, s2, h0, h1;
    int n0, n1;        /* intervals in each range */
    double *coef;
} dp_table;

typedef struct {
    dp_table *tab;     /* one per embedding net */
    /* Padding slots of block tj around a centre of type ti, from P = pad + pad_off[ti *
     * ntypes + tj]. When the block's statistics are uniform (as DeePMD-kit computes them)
     * every padding row is the same: P[d * ng + m] = R^_pad[d] G_m(s_pad), to be taken
     * (sel - n_real) times, so the memory does not grow with sel. Otherwise (per-slot
     * statistics) P[n * 4 * ng + d * ng + m], n = 0..sel[tj], is the sum over the slots
     * k >= n of R^_k[d] G_m(s_k). */
    double *pad;
    size_t *pad_off;
    unsigned char *pad_uniform;
    size_t bytes;
} dp_tables;

/* file names the model in messages; PK_ERR_NUMERIC when a net overflows in its table. */
pk_code dp_tables_build(dp_tables *t, const dp_model *m, const pk_deepmd_options *o,
                        const char *file, pk_status *st);
void dp_tables_free(dp_tables *t, const dp_model *m);

/* The piece holding s: *c = its 6 x ng coefficients, *dt = s - its node. Returns 0 when s
 * lies beyond the table (or is NaN). */
static inline int dp_table_locate(const dp_table *t, double s, int ng, const double **c,
                                  double *dt)
{
    const dp_hd_range r = {t->s0, t->s1, t->s2, t->h0, t->h1, t->n0, t->n1};
    int k;
    if (!dp_hd_locate(&r, s, &k, dt)) return 0;
    *c = t->coef + (size_t)k * ng * 6;
    return 1;
}

/* ---- environment (deepmd_env.c) --------------------------------------------------------- */

/* One real neighbour in a slot. */
typedef struct {
    int j;             /* atom index (owned or ghost) */
    int type;          /* model type */
    int slot;          /* k in [0, nnei) */
    double r, d[3];    /* distance and x_j - x_i */
} dp_nbr;

/* Centres per batch of the tabulated kernel: their fitting nets run together, so each
 * row of the fitting weights is loaded once per batch. Measured on the water model of
 * tools/deepmd_synthetic_model.py (bench_deepmd, one thread, CPU time per atom): 16 -> 64
 * centres per batch saves ~25%; 128 gains little more for 8 MB more scratch. */
enum { DP_BLOCK = 64 };

/* Scratch of one chunk of the list (one per thread), sized before the parallel region. */
typedef struct {
    pk_buffer cand;    /* candidates: dp_nbr, max numneigh */
    pk_buffer nbr;     /* slotted neighbours: dp_nbr, DP_BLOCK x nbr_stride */
    int nbr_stride;    /* room per centre: min(sum(sel), most listed neighbours + 1) */
    pk_buffer work;    /* kernel scratch, doubles */
    int *nreal;        /* DP_BLOCK x ntypes: real neighbours per type (after truncation) */
    int *maxseen;      /* ntypes: largest count seen before truncation */
    long overflow;     /* centres with overflow */
    int err_ii;        /* first failing list index, or -1 */
    double e, vir[9];  /* sums of this thread */
    pk_status st;
} dp_thread;

/* Sort the neighbours of centre i into slots. Fills nbr (real neighbours, in slot order),
 * nreal[t] per type; returns the count. Updates overflow statistics in th. */
int dp_env_gather(const dp_model *m, const int *mtype, const double (*x)[3], int i,
                  const int *jlist, int jnum, dp_nbr *nbr, int *nreal, dp_thread *th);
/* Row R (4) of a neighbour and, if dR is not NULL, dR[d][b] = dR_d / d(x_j - x_i)_b. */
void dp_env_row(const dp_model *m, const dp_nbr *n, double R[4], double dR[4][3]);

/* ---- kernels (deepmd_fit.c, deepmd_exact.c, deepmd_fused.c) ---------------------------- */

typedef struct {
    double *f;         /* 3 x nall: this thread's slice */
    double *v9;        /* 9 x nall or NULL */
    double e, vir[9];  /* this thread's sums */
} dp_sink;

/* For nb centres of type ti with T (nb x 4 x ng, already divided by sum(sel)): energies
 * e (biases included) and dE/dT (nb x 4 x ng). scratch: dp_fit_scratch(m, nb) doubles. */
void dp_fit_atoms(const dp_model *m, int ti, int nb, const double *T, double *e,
                  double *dEdT, double *scratch);
size_t dp_fit_scratch(const dp_model *m, int nb);
/* dp_fit_atoms with the fitting nets in float (m->fit_f32; same scratch): D in double,
 * converted to float at the net's input, dE/dD back to double; e and dE/dT in double. */
void dp_fit_atoms_f(const dp_model *m, int ti, int nb, const double *T, double *e,
                    double *dEdT, double *scratch);

/* Scatter the force from dE/dR (raw row) of one neighbour of centre i into the sink. */
void dp_env_scatter(const dp_model *m, const dp_nbr *n, int i, const double g[4], dp_sink *sk);

/* Energy of centre i (type ti) with its slotted neighbours; forces into sk. work holds
 * dp_exact_scratch doubles. */
size_t dp_exact_scratch(const dp_model *m);
double dp_exact_atom(const dp_model *m, int i, int ti, const dp_nbr *nbr, int nn,
                     const int *nreal, double *work, dp_sink *sk);

/* Tabulated kernel in two halves around a batched fitting: T (4 x ng) of centre i from
 * the tables, PK_ERR_RANGE (st filled, tag may be NULL) when a neighbour lies beyond them;
 * then the forces from dE/dT. */
pk_code dp_fused_forward(const dp_model *m, const dp_tables *tb, int i, int ti,
                         const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                         double *T, pk_status *st);
void dp_fused_backward(const dp_model *m, const dp_tables *tb, int i, int ti,
                       const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk);
/* PK_ERR_RANGE for neighbour n of centre i, beyond the table at s = its R^[0]. */
pk_code dp_fused_range_error(const dp_model *m, const dp_tables *tb, int i, int ti,
                             const dp_nbr *n, double s, const pk_tag *tag, pk_status *st);

/* Normalised row of a neighbour of a centre of type ti and its table piece (*c, *x); 0 when
 * beyond the table. */
static inline int dp_fused_lookup(const dp_model *m, const dp_tables *tb, int ti,
                                  const dp_nbr *n, double Rh[4], const double **c, double *x)
{
    const double *avg = m->davg + ((size_t)ti * m->nnei + n->slot) * 4;
    const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;
    double R[4];
    dp_env_row(m, n, R, NULL);
    for (int d = 0; d < 4; d++) Rh[d] = (R[d] - avg[d]) / std[d];
    return dp_table_locate(&tb->tab[dp_emb_index(m, ti, n->type)], Rh[0], m->ng, c, x);
}

/* ---- handle (deepmd.c) ------------------------------------------------------------------ */

struct pk_deepmd {
    dp_model m;
    pk_deepmd_options opt;
    dp_tables tab;
    int nlmp;
    int *lmp2model;    /* nlmp + 1, indexed by LAMMPS type */
    pk_buffer mtype;   /* model type of every atom (owned + ghost), -1 if not handled */
    int nthreads;
    dp_thread *th;
    pk_accum facc, vacc;
    pk_buffer v9;      /* per-atom 3x3 virials of one call, then added to the outputs */
    long overflow;
    int *maxseen;
    dp_tanh_table tanh_tab;   /* built when opt.tanh_table: the sve backend's fitting nets */
    pk_backend_slot backend;
    int list_kept;     /* pk_deepmd_list_kept: the next compute's list is the last one's */
};

/* The kernels of the tabulated path that a backend may substitute (BLIS's pattern: the
 * portable ones fill the cpu table, a backend overrides what it optimises); the driver
 * (dp_compute: neighbour slots, batches, threads, reductions) is shared. Called once per centre
 * (forward, backward) or per batch of one type (fit), never inside an inner loop. */
typedef struct {
    pk_code (*forward)(const dp_model *m, const dp_tables *tb, int i, int ti,
                       const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                       double *T, pk_status *st);
    void (*backward)(const dp_model *m, const dp_tables *tb, int i, int ti,
                     const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk);
    /* dp_fit_atoms of the handle's model; scratch: dp_fit_scratch doubles */
    void (*fit)(const pk_deepmd *dp, int ti, int nb, const double *T, double *e,
                double *dEdT, double *scratch);
} dp_kernels;

extern const dp_kernels dp_kernels_cpu;

/* The compute of a backend over the shared driver: the tabulated path with kernels k, the
 * exact path in portable C (deepmd.c). dp_kernels_cpu makes it the cpu backend. */
pk_code dp_compute(pk_deepmd *dp, const dp_kernels *k, const pk_atoms *at, const pk_neigh *nl,
                   pk_out *out, double (*vatom9)[9], pk_status *st);

/* dp->mtype (model type of every atom, -1 not handled) from the LAMMPS types; PK_ERR_ARG
 * for a type outside the map. */
pk_code dp_model_types(pk_deepmd *dp, const pk_atoms *at, pk_status *st);
/* PK_ERR_RANGE for neighbour n of centre i at (nearly) the same point (r < 1e-10). */
pk_code dp_overlap_error(const dp_model *m, int i, int ti, const dp_nbr *n, const pk_tag *tag,
                         pk_status *st);

#ifdef PK_HAVE_CUDA
/* The cuda backend (src/cuda/deepmd_cuda.cu): the tabulated kernel on the GPU. */
extern const pk_backend_ops pk_deepmd_backend_cuda;
#endif

#ifdef PK_HAVE_SVE
/* The sve backend (src/sve/deepmd_sve*.c): tabulated kernels and fitting nets in ACLE. */
extern const pk_backend_ops pk_deepmd_backend_sve;
#endif

#ifdef __cplusplus
}
#endif

#endif
