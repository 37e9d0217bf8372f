/* deepmd/pk on CUDA: the tabulated se_e2_a kernel (first version, issue 15).
 *
 * Load: tables, padding sums, davg/dstd and the fitting weights go to the device once.
 * One step, all on the instance's stream:
 *   env      one block per centre: its listed neighbours within rcut ordered by type and
 *            distance in its own row of the pair array, each placed by counting those
 *            before it, the nearest sel[t] kept in slot order, then the overlap and
 *            table-range checks (dp_hd_env_candidate .. dp_hd_env_verdict). The host
 *            waits for the per-centre codes and counts: an error is reported with the cpu
 *            backend's message; overflow statistics are kept as the cpu backend keeps them.
 *   forward  `width` threads per centre, `centres` centres per block, each thread
 *            `columns` columns m of T (4 x ng): padding in closed form, then G_m(s_k) from
 *            the quintic table inside the contraction (dp_hd_forward_columns); G is never
 *            stored.
 *   fitting  per centre type: descriptor D = T^T T[:, :axis], layers as cuBLAS DGEMMs over
 *            the type's centres with the activation as an elementwise kernel, reverse pass
 *            to dE/dD and dE/dT (dp_fit_atoms, dp_net_fit).
 *   pairs    one thread per kept neighbour: dE/dR^ from the same table piece and the chain
 *            rule to the force F on the neighbour (dp_hd_pair_force), stored with d = x_j -
 *            x_i at its list position.
 *   gather   one thread per atom (owned and ghost): minus its own centre's pair forces,
 *            plus the forces it feels as a neighbour, found through the list positions
 *            sorted by neighbour atom (CUB radix sort, stable), and DeePMD-kit's per-atom
 *            virial. Every sum has one fixed order, so reruns give the same bits; energy
 *            and virial are fixed-shape block sums added in order on the host.
 * Shapes (deepmd_launch.h): the forward kernel's columns and centres and the pair and
 * gather kernels' block size are tuned on the first steps (CUDA events) unless the input
 * fixes them; none changes a bit of the result. The forward and pair kernels are compiled
 * for the common embedding widths 100 (DeePMD-kit's water example) and 128 (the paper's
 * copper) besides any width, chosen at load: the same code with ng a constant.
 * Mixed precision: the tables are read in float and G, G' evaluated in float; every sum,
 * the environment rows and the fitting nets stay double. */
#include <cublas_v2.h>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_hd_host.h"
#include "deepmd_launch.h"
#include "pk_cuda.h"
#include "pk_cuda_sums.cuh"

enum { THREADS = 128 };

/* One fitting layer: device pointers into the weights buffer. */
typedef struct {
    int nin, nout, resnet;
    dp_act act;
    const double *w, *wt, *b, *idt;
} dp_cuda_layer;

typedef struct {
    pk_cuda_ctx cuda;
    cublasHandle_t blas;
    int mixed;
    int ng_fixed;                /* the model's ng when its kernels are specialised, else 0 */
    dp_tuner tune;               /* launch shapes (deepmd_launch.h) */
    void *ev[6];                 /* cudaEvent_t: around the timed forward, pair, gather */
    int differs;                 /* host copy of tune_differs */
    dp_hd_model hm;              /* device view of the model */
    dp_cuda_layer *layers;       /* ntypes x maxlayers */
    int maxlayers;
    /* device: model (uploaded once) */
    pk_cuda_buffer model;
    /* device: one step */
    pk_cuda_buffer x, mtype, centre, offset, neigh, centre_of, perm, cand_r, cand_t, nbr, nn,
        count, err, T, dEdT, e, fit, fd, pos, by_atom, by_pos, sort_tmp, f, v9, block;
    /* device, while tuning: T of the timed forward candidate, and whether it differs */
    pk_cuda_buffer T_alt, tune_differs;
    /* pinned host staging */
    pk_cuda_buffer h_in, h_list, h_check, h_out;
    /* what the list gave, kept while LAMMPS keeps its list (pk_deepmd_args.list_changed):
     * the list arrays on the device and in h_list, the reverse index, centres by type */
    int have_list, list_inum, list_nall, list_npos;
    int gfirst[64], gcount[64];
} dp_cuda;

static int blocks(size_t n, int threads) { return (int)((n + threads - 1) / threads); }

/* ---- kernels: thin wrappers of deepmd_hd.h -------------------------------------------- */

/* Block ii: the env pass of centre ii in its four phases (deepmd_hd.h). */
__global__ void dp_env_kernel(dp_hd_model m, dp_hd_list l)
{
    __shared__ int first_overlap, first_range;
    const int ii = blockIdx.x, tid = threadIdx.x, bd = blockDim.x;
    const int jnum = l.offset[ii + 1] - l.offset[ii];
    for (int jj = tid; jj < jnum; jj += bd) dp_hd_env_candidate(&m, &l, ii, jj);
    if (tid == 0) first_overlap = first_range = jnum;
    __syncthreads();
    for (int t = tid; t < m.ntypes; t += bd) dp_hd_env_count(&m, &l, ii, t);
    __syncthreads();
    if (tid == 0) dp_hd_env_total(&m, &l, ii);
    for (int jj = tid; jj < jnum; jj += bd) dp_hd_env_place(&m, &l, ii, jj);
    __syncthreads();
    const int nn = l.nn[ii];
    for (int q = tid; q < nn; q += bd) {
        const int code = dp_hd_env_check(&m, &l, ii, q);
        if (code == DP_HD_OVERLAP) atomicMin(&first_overlap, q);
        if (code == DP_HD_RANGE) atomicMin(&first_range, q);
    }
    __syncthreads();
    if (tid == 0) dp_hd_env_verdict(&l, ii, first_overlap, first_range);
}

/* Columns per thread (1, 2, 4) and the embedding width (NG, or 0: m.ng) are constants. */
template <bool Mixed, int Columns, int NG>
__global__ void dp_forward_kernel(dp_hd_model m, dp_hd_list l, int inum, int width,
                                  int centres, double *T)
{
    const int ng = NG ? NG : m.ng;
    int ii, first;
    if (!dp_hd_forward_place(inum, ng, width, centres, blockIdx.x, threadIdx.x, &ii, &first) ||
        l.mtype[l.centre[ii]] < 0)
        return;
    double *Tc = T + (size_t)ii * 4 * ng;
    if (Mixed) dp_hd_forward_columns_f(&m, &l, ii, first, width, Columns, ng, Tc);
    else dp_hd_forward_columns(&m, &l, ii, first, width, Columns, ng, Tc);
}

/* *differs = 1 when a and b (n doubles) differ in any bit. */
__global__ void dp_same_bits_kernel(const double *a, const double *b, size_t n, int *differs)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n && __double_as_longlong(a[k]) != __double_as_longlong(b[k])) atomicOr(differs, 1);
}

/* D (nb x ng*axis) of the centres perm[0, nb). */
__global__ void dp_descriptor_kernel(const double *T, const int *perm, int nb, int ng, int ax,
                                     double *D)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x, nd = (size_t)ng * ax;
    if (k >= nb * nd) return;
    const int b = (int)(k / nd), ia = (int)(k % nd);
    D[k] = dp_hd_descriptor(T + (size_t)perm[b] * 4 * ng, ng, ia / ax, ia % ax);
}

__global__ void dp_bias_kernel(double *y, const double *bias, int nb, int no)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < (size_t)nb * no) y[k] = bias ? bias[k % no] : 0.0;
}

__global__ void dp_layer_out_kernel(dp_cuda_layer L, const double *x, double *y, double *slope,
                                    int nb)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < (size_t)nb * L.nout)
        dp_hd_layer_out(L.act, L.resnet, L.nin, L.nout, L.idt, x, y, slope,
                        (int)(k / L.nout), (int)(k % L.nout));
}

__global__ void dp_energy_kernel(const double *out, int nout, const int *perm, int nb,
                                 double bias, double *e)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) e[perm[b]] = out[(size_t)b * nout] + bias;
}

/* dE/d(output) = (1, 0, ...) per centre. */
__global__ void dp_grad_init_kernel(double *ga, int nb, int W)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < (size_t)nb * W) ga[k] = k % W == 0 ? 1.0 : 0.0;
}

__global__ void dp_shortcut_kernel(dp_cuda_layer L, const double *ga, double *gb, int nb, int W)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)nb * L.nin) return;
    const int b = (int)(k / L.nin), i = (int)(k % L.nin);
    gb[(size_t)b * W + i] = dp_hd_layer_shortcut(L.resnet, L.nin, L.nout, ga, W, b, i);
}

__global__ void dp_scale_kernel(double *ga, const double *slope, int nb, int no, int W)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)nb * no) return;
    const int b = (int)(k / no), o = (int)(k % no);
    ga[(size_t)b * W + o] *= slope[k];
}

__global__ void dp_dedt_kernel(const double *T, const double *g, int W, const int *perm, int nb,
                               int ng, int ax, double *dEdT)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x, w = 4 * (size_t)ng;
    if (k >= (size_t)nb * w) return;
    const int b = (int)(k / w), di = (int)(k % w);
    const size_t c = (size_t)perm[b] * w;
    dEdT[c + di] = dp_hd_dedt(T + c, g + (size_t)b * W, ng, ax, di / ng, di % ng);
}

/* Thread p: list position p; the kept neighbour in that place of its centre's row. */
template <bool Mixed, int NG>
__global__ void dp_pair_kernel(dp_hd_model m, dp_hd_list l, int inum, int npos,
                               const double *dEdT, double *fd)
{
    const int ng = NG ? NG : m.ng;
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npos) return;
    const int ii = dp_hd_lower_bound(l.offset, inum + 1, p + 1) - 1;
    if (p - l.offset[ii] >= l.nn[ii]) return;
    const dp_hd_nbr n = l.nbr[p];
    const int ti = l.mtype[l.centre[ii]];
    double F[3];
    const double *g = dEdT + (size_t)ii * 4 * ng;
    if (Mixed) dp_hd_pair_force_f(&m, ng, ti, &n, g, F);
    else dp_hd_pair_force(&m, ng, ti, &n, g, F);
    double *e = fd + 6 * ((size_t)l.offset[ii] + n.src);
    for (int k = 0; k < 3; k++) {
        e[k] = F[k];
        e[3 + k] = n.d[k];
    }
}

__global__ void dp_iota_kernel(int *v, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) v[k] = k;
}

__global__ void dp_gather_kernel(const int *centre_of, const int *offset, const double *fd,
                                 const int *by_atom, const int *by_pos, int npos, int nall,
                                 double *f, double *v9)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= nall) return;
    double fa[3], va[9];
    dp_hd_gather_atom(centre_of, offset, fd, by_atom, by_pos, npos, a, fa, va);
    for (int k = 0; k < 3; k++) f[3 * (size_t)a + k] = fa[k];
    for (int k = 0; k < 9; k++) v9[9 * (size_t)a + k] = va[k];
}

/* ---- host side ------------------------------------------------------------------------- */

static pk_code blas_check(cublasStatus_t r, const char *what, pk_status *st)
{
    if (r == CUBLAS_STATUS_SUCCESS) return PK_OK;
    return pk_fail(st, PK_ERR_NUMERIC, "deepmd/pk cuda backend: cuBLAS %s failed (status %d)",
                   what, (int)r);
}

/* C (M x N) += A (M x K) B^T, all row-major (B: N rows of K), the product of deepmd_net.c's
 * gemm_abt. In cuBLAS's column-major terms C^T = B A^T: B as stored is B^T (K x N), so op T,
 * A as stored is A^T (K x M), op N. */
static pk_code gemm_abt(dp_cuda *s, int M, int N, int K, const double *A, int lda,
                        const double *B, int ldb, double *C, int ldc, pk_status *st)
{
    const double one = 1.0;
    return blas_check(cublasDgemm(s->blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, ldb, A,
                                  lda, &one, C, ldc), "DGEMM (fitting layer)", st);
}

static int cuda_available(char *why, size_t len) { return pk_cuda_available(why, len); }

static pk_code cuda_check(cudaError_t err, const char *what, pk_status *st)
{
    if (err == cudaSuccess) return PK_OK;
    return pk_fail(st, PK_ERR_NUMERIC, "deepmd/pk cuda backend: %s failed: %s", what,
                   cudaGetErrorString(err));
}

static void cuda_release(void *state)
{
    dp_cuda *s = (dp_cuda *)state;
    if (!s) return;
    pk_cuda_buffer *device[] = {&s->model, &s->x, &s->mtype, &s->centre, &s->offset, &s->neigh,
                                &s->centre_of, &s->perm, &s->cand_r, &s->cand_t, &s->nbr,
                                &s->nn, &s->count, &s->err, &s->T, &s->dEdT, &s->e, &s->fit,
                                &s->fd, &s->pos, &s->by_atom, &s->by_pos, &s->sort_tmp, &s->f,
                                &s->v9, &s->block};
    for (pk_cuda_buffer *b : device) pk_cuda_release(&s->cuda, b);
    pk_cuda_release(&s->cuda, &s->T_alt);
    pk_cuda_release(&s->cuda, &s->tune_differs);
    for (void *ev : s->ev)
        if (ev) cudaEventDestroy((cudaEvent_t)ev);
    pk_cuda_buffer *host[] = {&s->h_in, &s->h_list, &s->h_check, &s->h_out};
    for (pk_cuda_buffer *b : host) pk_cuda_host_release(b);
    if (s->blas) cublasDestroy(s->blas);
    free(s->layers);
    pk_cuda_close(&s->cuda);
    free(s);
}

static double cuda_memory(const void *state)
{
    const dp_cuda *s = (const dp_cuda *)state;
    return (double)(s->cuda.held + s->h_in.bytes + s->h_list.bytes + s->h_check.bytes +
                    s->h_out.bytes);
}

/* Bytes of one piece of the model image, 16-byte aligned. */
static size_t pad16(size_t b) { return (b + 15) & ~(size_t)15; }

/* The model image: every array the kernels read, packed into one device buffer. */
typedef struct {
    const void *src;
    size_t bytes;
    size_t at;
} dp_piece;

static pk_code upload_model(const pk_deepmd *dp, dp_cuda *s, pk_status *st)
{
    const dp_model *m = &dp->m;
    const dp_tables *tb = &dp->tab;
    const int nt = m->ntypes;
    dp_hd_tables h;
    if (dp_hd_tables_build(&h, m, tb, st)) return st->code;
    s->maxlayers = 0;
    size_t nweights = 0;
    for (int t = 0; t < nt; t++) {
        if (m->fit[t].nlayer > s->maxlayers) s->maxlayers = m->fit[t].nlayer;
        for (int l = 0; l < m->fit[t].nlayer; l++) {
            const dp_layer *L = &m->fit[t].layer[l];
            nweights += 2 * (size_t)L->nin * L->nout + (L->b ? L->nout : 0) +
                        (L->idt ? L->nout : 0);
        }
    }
    double *weights = (double *)malloc(sizeof(double) * (nweights + 1));
    s->layers = (dp_cuda_layer *)calloc((size_t)nt * (s->maxlayers + 1), sizeof(dp_cuda_layer));
    if (!weights || !s->layers) {
        free(weights);
        dp_hd_tables_free(&h);
        return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend's model");
    }
    const size_t nnei4 = (size_t)nt * m->nnei * 4;
    dp_piece pieces[] = {
        {m->sel, sizeof(int) * nt, 0},
        {m->sec, sizeof(int) * (nt + 1), 0},
        {m->excl, (size_t)nt * nt, 0},
        {m->davg, sizeof(double) * nnei4, 0},
        {m->dstd, sizeof(double) * nnei4, 0},
        {h.range, sizeof(dp_hd_range) * m->nemb, 0},
        {h.coef_off, sizeof(size_t) * m->nemb, 0},
        {h.coef, sizeof(double) * h.ncoef, 0},
        {h.coef_f, sizeof(float) * h.ncoef, 0},
        {tb->pad, sizeof(double) * h.npad, 0},
        {tb->pad_off, sizeof(size_t) * nt * nt, 0},
        {tb->pad_uniform, (size_t)nt * nt, 0},
        {weights, sizeof(double) * nweights, 0},
    };
    const int npieces = (int)(sizeof pieces / sizeof pieces[0]);
    size_t total = 0;
    for (int k = 0; k < npieces; k++) {
        pieces[k].at = total;
        total += pad16(pieces[k].bytes);
    }
    pk_code rc = pk_cuda_reserve(&s->cuda, &s->model, total, "model tables and weights", st);
    /* fitting weights per layer (w, wt, b, idt) into the host image; the layers point at
     * their device copies */
    const double *dw = rc ? NULL : (const double *)((char *)s->model.ptr + pieces[npieces - 1].at);
    size_t at = 0;
    for (int t = 0; t < nt && !rc; t++)
        for (int l = 0; l < m->fit[t].nlayer; l++) {
            const dp_layer *L = &m->fit[t].layer[l];
            dp_cuda_layer *D = &s->layers[(size_t)t * s->maxlayers + l];
            const size_t n = (size_t)L->nin * L->nout;
            D->nin = L->nin;
            D->nout = L->nout;
            D->resnet = L->resnet;
            D->act = L->act;
            memcpy(weights + at, L->w, sizeof(double) * n);
            D->w = dw + at;
            at += n;
            memcpy(weights + at, L->wt, sizeof(double) * n);
            D->wt = dw + at;
            at += n;
            D->b = D->idt = NULL;
            if (L->b) {
                memcpy(weights + at, L->b, sizeof(double) * L->nout);
                D->b = dw + at;
                at += L->nout;
            }
            if (L->idt) {
                memcpy(weights + at, L->idt, sizeof(double) * L->nout);
                D->idt = dw + at;
                at += L->nout;
            }
        }
    for (int k = 0; k < npieces && !rc; k++)
        if (pieces[k].bytes)
            rc = pk_cuda_upload(&s->cuda, (char *)s->model.ptr + pieces[k].at, pieces[k].src,
                                pieces[k].bytes, "model tables and weights", st);
    if (!rc) rc = pk_cuda_sync(&s->cuda, "uploading the model", st);
    free(weights);
    dp_hd_tables_free(&h);
    if (rc) return rc;
    /* the host view with every array swapped for its device copy */
    char *base = (char *)s->model.ptr;
    dp_hd_model *v = &s->hm;
    dp_hd_model_host(v, m, tb, &h);
    v->sel = (const int *)(base + pieces[0].at);
    v->sec = (const int *)(base + pieces[1].at);
    v->excl = (const unsigned char *)(base + pieces[2].at);
    v->davg = (const double *)(base + pieces[3].at);
    v->dstd = (const double *)(base + pieces[4].at);
    v->range = (const dp_hd_range *)(base + pieces[5].at);
    v->coef_off = (const size_t *)(base + pieces[6].at);
    v->coef = (const double *)(base + pieces[7].at);
    v->coef_f = (const float *)(base + pieces[8].at);
    v->pad = (const double *)(base + pieces[9].at);
    v->pad_off = (const size_t *)(base + pieces[10].at);
    v->pad_uniform = (const unsigned char *)(base + pieces[11].at);
    return PK_OK;
}

static pk_code cuda_init(void *model, const pk_backend_request *req, void **state,
                         pk_backend_info *info, pk_status *st)
{
    const pk_deepmd *dp = (const pk_deepmd *)model;
    if (!dp->opt.tabulate)
        return pk_fail(st, PK_ERR_UNSUPPORTED, "deepmd/pk: the cuda backend runs the "
                       "tabulated kernel only; use tabulate yes, or backend cpu for the exact "
                       "kernel");
    if (dp->m.ng > 1024)
        return pk_fail(st, PK_ERR_UNSUPPORTED, "deepmd/pk: the cuda backend handles embedding "
                       "widths up to 1024 (this model: %d); use backend cpu", dp->m.ng);
    dp_cuda *s = (dp_cuda *)calloc(1, sizeof *s);
    if (!s) return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend");
    s->mixed = info->precision == PK_PRECISION_MIXED;
    const int ng = dp->m.ng;
    s->ng_fixed = ng == 100 || ng == 128 ? ng : 0;
    dp_tuner_init(&s->tune, &dp->opt.cuda, ng);
    if (pk_cuda_open(&s->cuda, req, info, st) ||
        blas_check(cublasCreate(&s->blas), "handle creation", st) ||
        blas_check(cublasSetStream(s->blas, (cudaStream_t)s->cuda.stream), "stream", st) ||
        upload_model(dp, s, st)) {
        cuda_release(s);
        return st->code;
    }
    for (void *&ev : s->ev)
        if (cuda_check(cudaEventCreate((cudaEvent_t *)&ev), "creating the tuner's events",
                       st)) {
            cuda_release(s);
            return st->code;
        }
    char text[1024];
    dp_tuner_describe(&s->tune, text, sizeof text);
    pk_log(&dp->opt.log, "deepmd/pk: cuda forward and pair kernels %s %d; %s",
           s->ng_fixed ? "compiled for this model's embedding width"
                       : "for any embedding width (compiled for 100 and 128), this model's",
           ng, text);
    *state = s;
    return PK_OK;
}

static pk_code launched(dp_cuda *s, const char *what, pk_status *st)
{
    return pk_cuda_launched(&s->cuda, what, st);
}

/* The forward kernel of shape f into T (4 ng doubles per centre). */
template <bool Mixed, int NG>
static void forward_shape(const dp_cuda *s, const dp_fwd_shape &f, const dp_hd_list &l,
                          int inum, double *T)
{
    const int grid = blocks(inum, f.centres), block = f.width * f.centres;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    if (f.columns == 1)
        dp_forward_kernel<Mixed, 1, NG><<<grid, block, 0, stream>>>(s->hm, l, inum, f.width,
                                                                    f.centres, T);
    else if (f.columns == 2)
        dp_forward_kernel<Mixed, 2, NG><<<grid, block, 0, stream>>>(s->hm, l, inum, f.width,
                                                                    f.centres, T);
    else
        dp_forward_kernel<Mixed, 4, NG><<<grid, block, 0, stream>>>(s->hm, l, inum, f.width,
                                                                    f.centres, T);
}

template <bool Mixed>
static pk_code forward(dp_cuda *s, const dp_fwd_shape &f, const dp_hd_list &l, int inum,
                       double *T, pk_status *st)
{
    if (inum == 0) return PK_OK;
    if (s->ng_fixed == 100) forward_shape<Mixed, 100>(s, f, l, inum, T);
    else if (s->ng_fixed == 128) forward_shape<Mixed, 128>(s, f, l, inum, T);
    else forward_shape<Mixed, 0>(s, f, l, inum, T);
    return launched(s, "deepmd forward kernel", st);
}

template <bool Mixed>
static pk_code pair_forces(dp_cuda *s, const dp_hd_list &l, int inum, int npos, int threads,
                           pk_status *st)
{
    if (npos == 0) return PK_OK;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    const int grid = blocks(npos, threads);
    const double *dEdT = (const double *)s->dEdT.ptr;
    double *fd = (double *)s->fd.ptr;
    if (s->ng_fixed == 100)
        dp_pair_kernel<Mixed, 100><<<grid, threads, 0, stream>>>(s->hm, l, inum, npos, dEdT, fd);
    else if (s->ng_fixed == 128)
        dp_pair_kernel<Mixed, 128><<<grid, threads, 0, stream>>>(s->hm, l, inum, npos, dEdT, fd);
    else
        dp_pair_kernel<Mixed, 0><<<grid, threads, 0, stream>>>(s->hm, l, inum, npos, dEdT, fd);
    return launched(s, "deepmd pair kernel", st);
}

static pk_code mark(dp_cuda *s, int k, pk_status *st)
{
    return cuda_check(cudaEventRecord((cudaEvent_t)s->ev[k], (cudaStream_t)s->cuda.stream),
                      "recording a tuner event", st);
}

/* Milliseconds between events a and b (both done). */
static pk_code elapsed(const dp_cuda *s, int a, int b, double *ms, pk_status *st)
{
    float t = 0.0f;
    if (cuda_check(cudaEventElapsedTime(&t, (cudaEvent_t)s->ev[a], (cudaEvent_t)s->ev[b]),
                   "reading a tuner event", st))
        return st->code;
    *ms = t;
    return PK_OK;
}

/* Fitting nets of the nb centres perm[0, nb) of type t: energies into e, dE/dT. */
static pk_code fit_type(const pk_deepmd *dp, dp_cuda *s, int t, const int *perm, int nb,
                        pk_status *st)
{
    const dp_model *m = &dp->m;
    const dp_net *net = &m->fit[t];
    const int ng = m->ng, ax = m->axis, W = net->width;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    double *S = (double *)s->fit.ptr, *T = (double *)s->T.ptr;
    dp_descriptor_kernel<<<blocks((size_t)nb * ng * ax, THREADS), THREADS, 0, stream>>>(
        T, perm, nb, ng, ax, S);
    if (launched(s, "deepmd descriptor kernel", st)) return st->code;
    size_t off = 0;
    for (int l = 0; l < net->nlayer; l++) {
        const dp_cuda_layer *L = &s->layers[(size_t)t * s->maxlayers + l];
        const int ni = L->nin, no = L->nout;
        const double *x = S + off;
        double *sl = S + off + (size_t)nb * ni, *y = sl + (size_t)nb * no;
        dp_bias_kernel<<<blocks((size_t)nb * no, THREADS), THREADS, 0, stream>>>(y, L->b, nb, no);
        if (launched(s, "deepmd fitting bias kernel", st) ||
            gemm_abt(s, nb, no, ni, x, ni, L->wt, ni, y, no, st))
            return st->code;
        dp_layer_out_kernel<<<blocks((size_t)nb * no, THREADS), THREADS, 0, stream>>>(*L, x, y, sl, nb);
        if (launched(s, "deepmd fitting activation kernel", st)) return st->code;
        off += (size_t)nb * (ni + no);
    }
    const double *out = S + off;
    double *ga = S + off + (size_t)nb * net->nout, *gb = ga + (size_t)nb * W;
    dp_energy_kernel<<<blocks(nb, THREADS), THREADS, 0, stream>>>(out, net->nout, perm, nb,
                                                                  m->bias[t], (double *)s->e.ptr);
    dp_grad_init_kernel<<<blocks((size_t)nb * W, THREADS), THREADS, 0, stream>>>(ga, nb, W);
    if (launched(s, "deepmd fitting output kernels", st)) return st->code;
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_cuda_layer *L = &s->layers[(size_t)t * s->maxlayers + l];
        const int ni = L->nin, no = L->nout;
        off -= (size_t)nb * (ni + no);
        const double *sl = S + off + (size_t)nb * ni;
        dp_shortcut_kernel<<<blocks((size_t)nb * ni, THREADS), THREADS, 0, stream>>>(*L, ga, gb, nb, W);
        dp_scale_kernel<<<blocks((size_t)nb * no, THREADS), THREADS, 0, stream>>>(ga, sl, nb, no, W);
        if (launched(s, "deepmd fitting reverse kernels", st) ||
            gemm_abt(s, nb, ni, no, ga, W, L->w, no, gb, W, st))
            return st->code;
        double *tmp = ga; ga = gb; gb = tmp;
    }
    dp_dedt_kernel<<<blocks((size_t)nb * 4 * ng, THREADS), THREADS, 0, stream>>>(
        T, ga, W, perm, nb, ng, ax, (double *)s->dEdT.ptr);
    return launched(s, "deepmd dE/dT kernel", st);
}

/* The first centre (in list order) that failed the env checks, as the cpu backend says it. */
static pk_code report_error(const pk_deepmd *dp, dp_cuda *s, const pk_atoms *at, const int *err,
                            const int *err_q, const int *centre, const int *offset, int inum,
                            pk_status *st)
{
    int ii = 0;
    while (ii < inum && err[ii] == DP_HD_OK) ii++;
    if (ii == inum) return PK_OK;
    dp_hd_nbr hn;
    if (pk_cuda_download(&s->cuda, &hn, (const dp_hd_nbr *)s->nbr.ptr + offset[ii] + err_q[ii],
                         sizeof hn, "the failing neighbour", st) ||
        pk_cuda_sync(&s->cuda, "the deepmd environment pass", st))
        return st->code;
    const dp_model *m = &dp->m;
    const int i = centre[ii], ti = ((const int *)dp->mtype.data)[i];
    dp_nbr n;
    n.j = hn.j; n.type = hn.type; n.slot = hn.slot; n.r = hn.r;
    for (int k = 0; k < 3; k++) n.d[k] = hn.d[k];
    if (err[ii] == DP_HD_OVERLAP) return dp_overlap_error(m, i, ti, &n, at->tag, st);
    double Rh[4], x;
    const double *c;
    dp_fused_lookup(m, &dp->tab, ti, &n, Rh, &c, &x);
    return dp_fused_range_error(m, &dp->tab, i, ti, &n, Rh[0], at->tag, st);
}

/* A timed step's timings to the tuner; once it has chosen, the log line, and the scratch
 * T goes. */
static pk_code tuning_record(const pk_deepmd *dp, dp_cuda *s, int kf, int kp, pk_status *st)
{
    double fwd_ms = 0.0, pair_ms = 0.0, gather_ms = 0.0;
    if ((kf >= 0 && elapsed(s, 0, 1, &fwd_ms, st)) ||
        (kp >= 0 && (elapsed(s, 2, 3, &pair_ms, st) || elapsed(s, 4, 5, &gather_ms, st))))
        return st->code;
    dp_tuner_record(&s->tune, kf, fwd_ms, kf >= 0 && s->differs, kp, pair_ms + gather_ms);
    if (s->tune.tuning) return PK_OK;
    pk_cuda_release(&s->cuda, &s->T_alt);
    pk_cuda_release(&s->cuda, &s->tune_differs);
    char text[2048];
    dp_tuner_describe(&s->tune, text, sizeof text);
    pk_log(&dp->opt.log, "deepmd/pk: %s", text);
    return PK_OK;
}

static pk_code cuda_compute(void *model, void *state, const void *args, pk_out *out, pk_status *st)
{
    pk_deepmd *dp = (pk_deepmd *)model;
    dp_cuda *s = (dp_cuda *)state;
    const pk_deepmd_args *a = (const pk_deepmd_args *)args;
    const pk_atoms *at = a->atoms;
    const pk_neigh *nl = a->nl;
    const dp_model *m = &dp->m;
    const int nt = m->ntypes, ng = m->ng, nall = at->nlocal + at->nghost, inum = nl->inum;
    if (!dp->lmp2model) return pk_fail(st, PK_ERR_ARG, "type map is not set");
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "forces must be requested");
    if (dp_model_types(dp, at, st) || pk_cuda_enter(&s->cuda, st)) return st->code;
    const int *mtype = (const int *)dp->mtype.data;
    const size_t npos_z = dp_hd_list_size(nl);
    if (npos_z > (size_t)INT_MAX / 8)
        return pk_fail(st, PK_ERR_RANGE, "%zu neighbour entries on this rank exceed the CUDA "
                       "backend's 32-bit indices; use more ranks or GPUs", npos_z);
    const int npos = (int)npos_z;
    const int nb_e = blocks(inum, PK_SUM_THREADS), nb_v = blocks(nall, PK_SUM_THREADS);

    /* staging: positions and types; the list, centre of each atom, centres by type */
    const size_t xb = 3 * (size_t)nall * sizeof(double);
    const size_t list_ints = (size_t)inum + (inum + 1) + npos_z + nall + inum;
    if (nt > 64) return pk_fail(st, PK_ERR_UNSUPPORTED, "deepmd/pk cuda: more than 64 types");
    if (pk_cuda_host_reserve(&s->cuda, &s->h_in, xb + sizeof(int) * (size_t)nall, "positions", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_list, sizeof(int) * list_ints, "neighbour list", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_check, sizeof(int) * (size_t)inum * (2 + nt) + 1,
                             "per-centre checks", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_out, sizeof(double) * ((size_t)nall * 12 + inum +
                             (size_t)nb_e + 9 * (size_t)nb_v) + 8, "forces and energies", st))
        return st->code;
    /* the previous step's transfers from the staging buffers are done (each step syncs) */
    double *h_x = (double *)s->h_in.ptr;
    int *h_mtype = (int *)((char *)s->h_in.ptr + xb);
    memcpy(h_x, at->x, xb);
    memcpy(h_mtype, mtype, sizeof(int) * (size_t)nall);
    int *centre = (int *)s->h_list.ptr, *offset = centre + inum, *neigh = offset + inum + 1;
    int *centre_of = neigh + npos_z, *perm = centre_of + nall;
    const int *gcount = s->gcount, *gfirst = s->gfirst;
    const int fresh = a->list_changed || !s->have_list || s->list_inum != inum ||
                      s->list_nall != nall || s->list_npos != npos;
    if (fresh) {
        s->have_list = 0;
        dp_hd_list_fill(nl, mtype, nt, nall, centre, offset, neigh, centre_of, perm, s->gfirst,
                        s->gcount);
    }
    size_t fit_doubles = 1;
    for (int t = 0; t < nt; t++) {
        const size_t k = dp_hd_fit_scratch(m, t, gcount[t]);
        if (k > fit_doubles) fit_doubles = k;
    }
    size_t sort_bytes = 0;
    int end_bit = 1;
    while (end_bit < 31 && (1L << end_bit) <= nall) end_bit++;
    if (npos > 0 &&
        cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, (const unsigned *)NULL,
                                        (unsigned *)NULL, (const int *)NULL, (int *)NULL, npos,
                                        0, end_bit) !=
            cudaSuccess)
        return pk_fail(st, PK_ERR_NUMERIC, "deepmd/pk cuda: sizing the neighbour sort failed");
    const size_t w4 = 4 * (size_t)ng;
    if (pk_cuda_reserve(&s->cuda, &s->x, xb + 8, "positions", st) ||
        pk_cuda_reserve(&s->cuda, &s->mtype, sizeof(int) * (size_t)nall + 4, "atom types", st) ||
        pk_cuda_reserve(&s->cuda, &s->centre, sizeof(int) * (size_t)inum + 4, "list centres", st) ||
        pk_cuda_reserve(&s->cuda, &s->offset, sizeof(int) * ((size_t)inum + 1), "list offsets", st) ||
        pk_cuda_reserve(&s->cuda, &s->neigh, sizeof(int) * npos_z + 4, "neighbour list", st) ||
        pk_cuda_reserve(&s->cuda, &s->centre_of, sizeof(int) * (size_t)nall + 4, "centre index", st) ||
        pk_cuda_reserve(&s->cuda, &s->perm, sizeof(int) * (size_t)inum + 4, "centres by type", st) ||
        pk_cuda_reserve(&s->cuda, &s->cand_r, sizeof(double) * npos_z + 8, "neighbour distances", st) ||
        pk_cuda_reserve(&s->cuda, &s->cand_t, sizeof(int) * npos_z + 4, "neighbour types", st) ||
        pk_cuda_reserve(&s->cuda, &s->nbr, sizeof(dp_hd_nbr) * npos_z + 8, "neighbour slots", st) ||
        pk_cuda_reserve(&s->cuda, &s->nn, sizeof(int) * (size_t)inum + 4, "kept neighbours", st) ||
        pk_cuda_reserve(&s->cuda, &s->count, sizeof(int) * (size_t)inum * nt + 4, "neighbour counts", st) ||
        pk_cuda_reserve(&s->cuda, &s->err, sizeof(int) * 2 * (size_t)inum + 4, "per-centre checks", st) ||
        pk_cuda_reserve(&s->cuda, &s->T, sizeof(double) * (size_t)inum * w4 + 8, "T", st) ||
        pk_cuda_reserve(&s->cuda, &s->dEdT, sizeof(double) * (size_t)inum * w4 + 8, "dE/dT", st) ||
        pk_cuda_reserve(&s->cuda, &s->e, sizeof(double) * (size_t)inum + 8, "atom energies", st) ||
        pk_cuda_reserve(&s->cuda, &s->fit, sizeof(double) * fit_doubles, "fitting-net scratch", st) ||
        pk_cuda_reserve(&s->cuda, &s->fd, sizeof(double) * 6 * npos_z + 8, "pair forces", st) ||
        pk_cuda_reserve(&s->cuda, &s->pos, sizeof(int) * npos_z + 4, "list positions", st) ||
        pk_cuda_reserve(&s->cuda, &s->by_atom, sizeof(int) * npos_z + 4, "reverse list", st) ||
        pk_cuda_reserve(&s->cuda, &s->by_pos, sizeof(int) * npos_z + 4, "reverse list", st) ||
        pk_cuda_reserve(&s->cuda, &s->sort_tmp, sort_bytes + 8, "reverse-list sort", st) ||
        pk_cuda_reserve(&s->cuda, &s->f, sizeof(double) * 3 * (size_t)nall + 8, "forces", st) ||
        pk_cuda_reserve(&s->cuda, &s->v9, sizeof(double) * 9 * (size_t)nall + 8, "atom virials", st) ||
        pk_cuda_reserve(&s->cuda, &s->block, sizeof(double) * ((size_t)nb_e + 9 * (size_t)nb_v) + 8,
                        "energy and virial sums", st))
        return st->code;
    /* the shape of this step; a timed step also runs forward candidate kf into T_alt */
    dp_launch use;
    int kf, kp;
    const int timed = dp_tuner_next(&s->tune, &use, &kf, &kp);
    const size_t nT = (size_t)inum * w4;
    if (kf >= 0 &&
        (pk_cuda_reserve(&s->cuda, &s->T_alt, sizeof(double) * nT + 8, "T (tuning)", st) ||
         pk_cuda_reserve(&s->cuda, &s->tune_differs, sizeof(int), "tuning flag", st)))
        return st->code;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    if (pk_cuda_upload(&s->cuda, s->x.ptr, h_x, xb, "positions", st) ||
        pk_cuda_upload(&s->cuda, s->mtype.ptr, h_mtype, sizeof(int) * (size_t)nall, "atom types", st))
        return st->code;
    if (fresh &&
        (pk_cuda_upload(&s->cuda, s->centre.ptr, centre, sizeof(int) * (size_t)inum, "list centres", st) ||
         pk_cuda_upload(&s->cuda, s->offset.ptr, offset, sizeof(int) * ((size_t)inum + 1), "list offsets", st) ||
         pk_cuda_upload(&s->cuda, s->neigh.ptr, neigh, sizeof(int) * npos_z, "neighbour list", st) ||
         pk_cuda_upload(&s->cuda, s->centre_of.ptr, centre_of, sizeof(int) * (size_t)nall, "centre index", st) ||
         pk_cuda_upload(&s->cuda, s->perm.ptr, perm, sizeof(int) * (size_t)inum, "centres by type", st)))
        return st->code;

    dp_hd_list l;
    l.x = (const double(*)[3])s->x.ptr;
    l.mtype = (const int *)s->mtype.ptr;
    l.centre = (const int *)s->centre.ptr;
    l.offset = (const int *)s->offset.ptr;
    l.neigh = (const int *)s->neigh.ptr;
    l.cand_r = (double *)s->cand_r.ptr;
    l.cand_t = (int *)s->cand_t.ptr;
    l.nbr = (dp_hd_nbr *)s->nbr.ptr;
    l.nn = (int *)s->nn.ptr;
    l.count = (int *)s->count.ptr;
    l.err = (int *)s->err.ptr;
    l.err_q = l.err + inum;

    /* env pass; the host checks errors and keeps the overflow statistics */
    int *h_err = (int *)s->h_check.ptr, *h_count = h_err + 2 * (size_t)inum;
    if (inum > 0) {
        dp_env_kernel<<<inum, THREADS, 0, stream>>>(s->hm, l);
        if (launched(s, "deepmd environment kernel", st) ||
            pk_cuda_download(&s->cuda, h_err, s->err.ptr, sizeof(int) * 2 * (size_t)inum,
                             "per-centre checks", st) ||
            pk_cuda_download(&s->cuda, h_count, s->count.ptr, sizeof(int) * (size_t)inum * nt,
                             "neighbour counts", st) ||
            pk_cuda_sync(&s->cuda, "the deepmd environment pass", st))
            return st->code;
    }
    for (int ii = 0; ii < inum; ii++) {
        int over = 0;
        for (int t = 0; t < nt; t++) {
            const int c = h_count[(size_t)ii * nt + t];
            if (c > dp->maxseen[t]) dp->maxseen[t] = c;
            over |= c > m->sel[t];
        }
        dp->overflow += over;
    }
    if (report_error(dp, s, at, h_err, h_err + inum, centre, offset, inum, st)) return st->code;

    /* forward, fitting per type, pair forces */
    if (pk_cuda_zero(&s->cuda, s->e.ptr, sizeof(double) * (size_t)inum + 8, "atom energies", st) ||
        pk_cuda_zero(&s->cuda, s->fd.ptr, sizeof(double) * 6 * npos_z + 8, "pair forces", st))
        return st->code;
    double *T = (double *)s->T.ptr, *T_alt = (double *)s->T_alt.ptr;
    /* T rows of centres of no handled type are written by no shape: zeroed for the
     * comparison */
    if (kf >= 0 && (pk_cuda_zero(&s->cuda, T, sizeof(double) * nT, "T", st) ||
                    pk_cuda_zero(&s->cuda, T_alt, sizeof(double) * nT, "T (tuning)", st) ||
                    pk_cuda_zero(&s->cuda, s->tune_differs.ptr, sizeof(int), "tuning flag", st)))
        return st->code;
    if ((s->mixed ? forward<true> : forward<false>)(s, use.fwd, l, inum, T, st)) return st->code;
    if (kf >= 0) {
        if (mark(s, 0, st) ||
            (s->mixed ? forward<true> : forward<false>)(s, s->tune.fwd[kf], l, inum, T_alt, st) ||
            mark(s, 1, st))
            return st->code;
        if (nT > 0) {
            dp_same_bits_kernel<<<blocks(nT, THREADS), THREADS, 0, stream>>>(
                T, T_alt, nT, (int *)s->tune_differs.ptr);
            if (launched(s, "deepmd tuning comparison", st)) return st->code;
        }
    }
    for (int t = 0; t < nt; t++)
        if (gcount[t] > 0 &&
            fit_type(dp, s, t, (const int *)s->perm.ptr + gfirst[t], gcount[t], st))
            return st->code;
    if ((kp >= 0 && mark(s, 2, st)) ||
        (s->mixed ? pair_forces<true> : pair_forces<false>)(s, l, inum, npos, use.threads, st) ||
        (kp >= 0 && mark(s, 3, st)))
        return st->code;
    if (npos > 0 && fresh) {
        dp_iota_kernel<<<blocks(npos, THREADS), THREADS, 0, stream>>>((int *)s->pos.ptr, npos);
        if (launched(s, "deepmd list positions", st)) return st->code;
        /* keys as unsigned: the atom indices are >= 0, sorted on their low end_bit bits */
        if (cub::DeviceRadixSort::SortPairs(s->sort_tmp.ptr, sort_bytes,
                                            (const unsigned *)s->neigh.ptr,
                                            (unsigned *)s->by_atom.ptr, (const int *)s->pos.ptr,
                                            (int *)s->by_pos.ptr, npos, 0, end_bit, stream) !=
            cudaSuccess)
            return pk_fail(st, PK_ERR_NUMERIC, "deepmd/pk cuda: the neighbour sort failed on %s",
                           s->cuda.name);
    }
    if (fresh) {
        s->have_list = 1;
        s->list_inum = inum;
        s->list_nall = nall;
        s->list_npos = npos;
    }
    /* forces and per-atom virials by gather; energy and virial sums */
    double *block = (double *)s->block.ptr;
    if (kp >= 0 && mark(s, 4, st)) return st->code;
    if (nall > 0) {
        dp_gather_kernel<<<blocks(nall, use.threads), use.threads, 0, stream>>>(
            (const int *)s->centre_of.ptr, (const int *)s->offset.ptr, (const double *)s->fd.ptr,
            (const int *)s->by_atom.ptr, (const int *)s->by_pos.ptr, npos, nall,
            (double *)s->f.ptr, (double *)s->v9.ptr);
        if (launched(s, "deepmd force gather kernel", st)) return st->code;
    }
    if (kp >= 0 && mark(s, 5, st)) return st->code;
    if (out->want_energy && inum > 0) {
        pk_block_sums_kernel<<<nb_e, PK_SUM_THREADS, 0, stream>>>((const double *)s->e.ptr, inum, 1, block);
        if (launched(s, "deepmd energy sum", st)) return st->code;
    }
    if (out->want_virial && nall > 0) {
        pk_block_sums_kernel<<<nb_v, PK_SUM_THREADS, 0, stream>>>((const double *)s->v9.ptr, nall,
                                                                  9, block + nb_e);
        if (launched(s, "deepmd virial sum", st)) return st->code;
    }
    double *h_f = (double *)s->h_out.ptr, *h_v9 = h_f + 3 * (size_t)nall;
    double *h_e = h_v9 + 9 * (size_t)nall, *h_block = h_e + inum;
    if (pk_cuda_download(&s->cuda, h_f, s->f.ptr, sizeof(double) * 3 * (size_t)nall, "forces", st) ||
        ((a->vatom9 || out->vatom) &&
         pk_cuda_download(&s->cuda, h_v9, s->v9.ptr, sizeof(double) * 9 * (size_t)nall,
                          "per-atom virials", st)) ||
        (out->eatom && pk_cuda_download(&s->cuda, h_e, s->e.ptr, sizeof(double) * (size_t)inum,
                                        "per-atom energies", st)) ||
        pk_cuda_download(&s->cuda, h_block, block, sizeof(double) * ((size_t)nb_e + 9 * (size_t)nb_v),
                         "energy and virial sums", st) ||
        (kf >= 0 && pk_cuda_download(&s->cuda, &s->differs, s->tune_differs.ptr, sizeof(int),
                                     "tuning flag", st)) ||
        pk_cuda_sync(&s->cuda, "the deepmd step", st))
        return st->code;
    if (timed && tuning_record(dp, s, kf, kp, st)) return st->code;

    for (int k = 0; k < nall; k++)
        for (int c = 0; c < 3; c++) out->f[k][c] += h_f[3 * (size_t)k + c];
    if (out->eatom)
        for (int ii = 0; ii < inum; ii++) out->eatom[centre[ii]] += h_e[ii];
    static const int lmp[6] = {0, 4, 8, 3, 6, 7};
    if (a->vatom9 || out->vatom)
        for (int k = 0; k < nall; k++) {
            const double *va = h_v9 + 9 * (size_t)k;
            if (a->vatom9)
                for (int c = 0; c < 9; c++) a->vatom9[k][c] += va[c];
            if (out->vatom)
                for (int c = 0; c < 6; c++) out->vatom[k][c] += va[lmp[c]];
        }
    if (out->want_energy)
        for (int b = 0; b < (inum > 0 ? nb_e : 0); b++) out->energy += h_block[b];
    if (out->want_virial) {
        double vir[9] = {0};
        for (int b = 0; b < (nall > 0 ? nb_v : 0); b++)
            for (int c = 0; c < 9; c++) vir[c] += h_block[nb_e + 9 * (size_t)b + c];
        for (int c = 0; c < 6; c++) out->virial[c] += vir[lmp[c]];
    }
    return PK_OK;
}

extern "C" const pk_backend_ops pk_deepmd_backend_cuda = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    cuda_available, cuda_init, cuda_compute, cuda_memory, cuda_release};
