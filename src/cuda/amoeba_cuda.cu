/* amoeba/pk on CUDA: HAL, the permanent multipoles and the polarization forces as gather
 * kernels over the step's pairs by row (amoeba_gpu_pair.h, the PK_HD code the host test
 * unit.amoeba_gpu_emul runs), one warp per row summing its pairs in a fixed order, so each
 * result has one writer and reruns give the same bits; and the induced-dipole solve on the
 * device (amoeba_gpu_solve.h: the direct field and pair tensors, then the PCG's passes, a
 * warp per row for products, fixed-order sums, the scalars updated on the device). The step
 * around them (the pair search, the rows, the frames, torques to forces, the PCG's sequence
 * and its communication) is the host's (amoeba_gpu.c, amoeba_gpu_solve.c). Precision double,
 * or mixed: the pair arithmetic of the gathers and of the direct field in float, every sum,
 * the PCG and its products in double (amoeba_gpu_pair.h).
 *
 * Transfers: each list by row goes up once a step (tagged by the host), positions,
 * multipoles, types and Thole tables once a step, the sites and dipoles with their kernel;
 * each gather's per-row results come down with one wait. A PCG iteration on one rank waits
 * once, for the residual (8 bytes, pinned); with remote rows each product also moves the
 * owned rows of its input down and the remote rows up, then the remote rows of its output
 * down and the owned rows' additions up, and each pass's sums go down and back
 * (amoeba_gpu_solve.c). Host memory is otherwise pageable; the buffers on the device persist
 * and grow. */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "amoeba_gpu.h"
#include "pk_cuda.h"
#include "pk_cuda_sums.cuh"

enum { THREADS = 128 };

/* The two lists by row a step uploads: HAL's and the electrostatic one. */
enum { HAL_LIST, ELEC_LIST };

typedef struct {
    pk_cuda_ctx cuda;
    pk_cuda_buffer offset[2], self[2], other[2];   /* the lists by row (HAL_LIST, ELEC_LIST) */
    unsigned tag[2];                               /* the host's tags of the lists held */
    unsigned inputs_tag;   /* the electrostatic list whose step's x and rpole are held */
    unsigned types_tag;    /* and whose step's types, groups and Thole tables are held */
    pk_cuda_buffer site, cls, radmin, epsmix, x, rpole, out;
    pk_cuda_buffer u, amtype, amgroup, pdamp, thole;
    amoeba_gpu_host *host;
    /* the device solve: PCG rows, per-type polarizability, tensors of both pair sets, the
     * PCG vectors (u r conj y udir: 6 per row, poli ipoli), the rows' and blocks' partial
     * sums, the scalars and a pass's sums, rows from the host; the residual and the sums
     * staged in pinned memory */
    pk_cuda_buffer row, polarity, ten, pten, vec, part, blocks, scalars, sums, rows_in;
    pk_cuda_buffer h_small;
    amoeba_gpu_field field;    /* the field pass's inputs, device pointers */
    amoeba_gpu_pcg_rows rows;  /* the PCG vectors, device pointers */
    int n, nrows;              /* owned rows, all rows */
    int mixed;                 /* precision mixed: the pair arithmetic in float */
} amoeba_cuda;

enum { ROWS = THREADS / AG_LANES };   /* rows (warps) per block */

/* amoeba_gpu_lanes_combine's tree as shuffles: lane 0 ends with the same sums */
__device__ static void warp_combine(double *v, int width)
{
    for (int s = AG_LANES / 2; s > 0; s /= 2)
        for (int c = 0; c < width; c++) v[c] += __shfl_down_sync(0xffffffffu, v[c], s);
}

/* A gather kernel: one warp per atom, its lanes' results combined (amoeba_gpu_pair.h) */
template <typename G, void (*ATOM)(const G *, int, int, double *)>
__global__ void pk_amoeba_gather_kernel(G g, int n, double *out)
{
    const int a = blockIdx.x * ROWS + threadIdx.x / AG_LANES, lane = threadIdx.x % AG_LANES;
    if (a >= n) return;   /* the whole warp */
    double o[AG_OUT];
    ATOM(&g, a, lane, o);
    warp_combine(o, AG_OUT);
    if (lane == 0)
        for (int c = 0; c < AG_OUT; c++) out[(size_t)a * AG_OUT + c] = o[c];
}

/* ---- the device solve (amoeba_gpu_solve.h) ------------------------------------------- */

/* the field of every row (owned and remote) into u_dir, and the pair tensors */
template <bool Mixed>
__global__ void pk_amoeba_field_kernel(amoeba_gpu_field g, double *field, int nrows,
                                       double *ten, double *pten)
{
    const int a = blockIdx.x * ROWS + threadIdx.x / AG_LANES, lane = threadIdx.x % AG_LANES;
    if (a >= nrows) return;   /* the whole warp */
    double f[6];
    (Mixed ? amoeba_gpu_field_lane_f : amoeba_gpu_field_lane_d)(&g, a, lane, f, ten, pten);
    warp_combine(f, 6);
    if (lane == 0)
        for (int c = 0; c < 6; c++) field[6 * (size_t)a + c] = f[c];
}

__global__ void pk_amoeba_start_kernel(amoeba_gpu_field g, amoeba_gpu_pcg_rows v, int n)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a < n) amoeba_gpu_pcg_start(&g, &v, a);
}

/* y = T v over every row */
__global__ void pk_amoeba_product_kernel(amoeba_gpu_product p, int nrows, double *y)
{
    const int a = blockIdx.x * ROWS + threadIdx.x / AG_LANES, lane = threadIdx.x % AG_LANES;
    if (a >= nrows) return;
    double r[6];
    amoeba_gpu_product_lane(&p, a, lane, r);
    warp_combine(r, 6);
    if (lane == 0)
        for (int c = 0; c < 6; c++) y[6 * (size_t)a + c] = r[c];
}

__global__ void pk_amoeba_pass_kernel(int pass, amoeba_gpu_pcg_rows v,
                                      const amoeba_gpu_pcg_scalars *s, int n, double *part)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    amoeba_gpu_pass_row(pass, &v, s, a, part + (size_t)amoeba_gpu_pass_width(pass) * a);
}

/* One thread: the blocks' sums in block order, then the pass's scalar update (update) or
 * the sums into sums[0..3] for the host. */
__global__ void pk_amoeba_scalars_kernel(int pass, amoeba_gpu_pcg_scalars *s,
                                         const double *block, int nblocks, int width,
                                         int update, double *sums)
{
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    for (int b = 0; b < nblocks; b++)
        for (int c = 0; c < width; c++) sum[c] += block[(size_t)width * b + c];
    if (update) amoeba_gpu_pass_scalars(pass, s, sum);
    else
        for (int c = 0; c < 4; c++) sums[c] = sum[c];
}

/* the host's sums over ranks, then the pass's scalar update */
__global__ void pk_amoeba_update_kernel(int pass, amoeba_gpu_pcg_scalars *s, const double *sums)
{
    amoeba_gpu_pass_scalars(pass, s, sums);
}

__global__ void pk_amoeba_add_rows_kernel(double *v, const double *add, size_t n)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) v[k] += add[k];
}

static int blocks(int n) { return (n + THREADS - 1) / THREADS; }

/* blocks for n warps */
static int warps(int n) { return (n + ROWS - 1) / ROWS; }

/* Launch a gather kernel over nall atoms in the instance's precision (D double, F mixed). */
template <typename G, void (*D)(const G *, int, int, double *),
          void (*F)(const G *, int, int, double *)>
static void gather(amoeba_cuda *s, const G &g, int nall, double *out)
{
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    if (s->mixed)
        pk_amoeba_gather_kernel<G, F><<<warps(nall), THREADS, 0, stream>>>(g, nall, out);
    else
        pk_amoeba_gather_kernel<G, D><<<warps(nall), THREADS, 0, stream>>>(g, nall, out);
}

/* Upload `bytes` of host src into buf (reserved first), naming it `what`. */
static pk_code put(amoeba_cuda *s, pk_cuda_buffer *buf, const void *src, size_t bytes,
                   const char *what, pk_status *st)
{
    return pk_cuda_reserve(&s->cuda, buf, bytes + 8, what, st) ||
                   pk_cuda_upload(&s->cuda, buf->ptr, src, bytes, what, st)
               ? st->code
               : PK_OK;
}

/* A list by row (nrows + 1 offsets, nentry entries) into slot `which` of the device, unless
 * the slot holds the host's list `tag` already; dl gets the device's pointers. */
static pk_code upload_list(amoeba_cuda *s, int which, unsigned tag, const amoeba_gpu_list *l,
                           int nrows, int nentry, amoeba_gpu_list *dl, pk_status *st)
{
    const size_t off = ((size_t)nrows + 1) * sizeof(int), ent = (size_t)nentry * sizeof(int);
    const char *what = which == HAL_LIST ? "HAL pair list" : "electrostatic pair list";
    if (s->tag[which] != tag && (put(s, &s->offset[which], l->offset, off, what, st) ||
                                 put(s, &s->self[which], l->self, ent, what, st) ||
                                 put(s, &s->other[which], l->other, ent, what, st)))
        return st->code;
    s->tag[which] = tag;
    dl->offset = (const int *)s->offset[which].ptr;
    dl->self = (const int *)s->self[which].ptr;
    dl->other = (const int *)s->other[which].ptr;
    return PK_OK;
}

/* The step's positions and multipoles (nall atoms) to the device, unless they are there for
 * the electrostatic list `tag` already (both are fixed within a step). */
static pk_code step_inputs(amoeba_cuda *s, unsigned tag, const double *x, const double *rpole,
                           int nall, pk_status *st)
{
    const size_t bx = 3 * (size_t)nall * sizeof(double), br = 13 * (size_t)nall * sizeof(double);
    if (s->inputs_tag == tag) return PK_OK;
    if (put(s, &s->x, x, bx, "positions", st) || put(s, &s->rpole, rpole, br, "multipoles", st))
        return st->code;
    s->inputs_tag = tag;
    return PK_OK;
}

/* The atoms' AMOEBA types and polarization groups (nall) and the types' Thole lengths and
 * parameters (types 0..ntypes) to the device, unless they are there for the electrostatic
 * list `tag` already (the solve and the polarization forces both read them). */
static pk_code step_types(amoeba_cuda *s, unsigned tag, const int *amtype, const int *amgroup,
                          const double *pdamp, const double *thole, int nall, int ntypes,
                          pk_status *st)
{
    const size_t ints = (size_t)nall * sizeof(int), types = ((size_t)ntypes + 1) * sizeof(double);
    if (s->types_tag == tag) return PK_OK;
    if (put(s, &s->amtype, amtype, ints, "AMOEBA types", st) ||
        put(s, &s->amgroup, amgroup, ints, "polarization groups", st) ||
        put(s, &s->pdamp, pdamp, types, "Thole lengths", st) ||
        put(s, &s->thole, thole, types, "Thole parameters", st))
        return st->code;
    s->types_tag = tag;
    return PK_OK;
}

/* The results of nrows rows down to the host, then wait for the stream. */
static pk_code results(amoeba_cuda *s, int nrows, double *out, const char *what, pk_status *st)
{
    return pk_cuda_download(&s->cuda, out, s->out.ptr, (size_t)nrows * AG_OUT * sizeof(double),
                            what, st) ||
                   pk_cuda_sync(&s->cuda, what, st)
               ? st->code
               : PK_OK;
}

static pk_code cuda_hal(void *dev, const amoeba_gpu_hal *g, int nrows, int nall, int nentry,
                        unsigned tag, double *out, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nrows <= 0) return PK_OK;
    amoeba_gpu_hal d = *g;
    const size_t tab = (size_t)g->ncls * (size_t)g->ncls * sizeof(double);
    const size_t site = 3 * (size_t)nall * sizeof(double), cls = (size_t)nall * sizeof(int);
    const size_t res = (size_t)nrows * AG_OUT * sizeof(double);
    if (upload_list(s, HAL_LIST, tag, &g->list, nrows, nentry, &d.list, st) ||
        put(s, &s->site, g->site, site, "HAL sites", st) ||
        put(s, &s->cls, g->cls, cls, "vdW classes", st) ||
        put(s, &s->radmin, g->radmin, tab, "HAL R_min table", st) ||
        put(s, &s->epsmix, g->epsmix, tab, "HAL epsilon table", st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-row results", st))
        return st->code;
    d.site = (const double *)s->site.ptr;
    d.cls = (const int *)s->cls.ptr;
    d.radmin = (const double *)s->radmin.ptr;
    d.epsmix = (const double *)s->epsmix.ptr;
    gather<amoeba_gpu_hal, amoeba_gpu_hal_row_d, amoeba_gpu_hal_row_f>(
        s, d, nrows, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba HAL kernel", st)) return st->code;
    return results(s, nrows, out, "the amoeba HAL kernel", st);
}

static pk_code cuda_mpole(void *dev, const amoeba_gpu_mpole *g, int nrows, int nall,
                          int nentry, unsigned tag, double *out, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nrows <= 0) return PK_OK;
    amoeba_gpu_mpole d = *g;
    const size_t res = (size_t)nrows * AG_OUT * sizeof(double);
    if (upload_list(s, ELEC_LIST, tag, &g->list, nrows, nentry, &d.list, st) ||
        step_inputs(s, tag, g->x, g->rpole, nall, st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-row results", st))
        return st->code;
    d.x = (const double *)s->x.ptr;
    d.rpole = (const double *)s->rpole.ptr;
    gather<amoeba_gpu_mpole, amoeba_gpu_mpole_row_d, amoeba_gpu_mpole_row_f>(
        s, d, nrows, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba multipole kernel", st)) return st->code;
    return results(s, nrows, out, "the amoeba multipole kernel", st);
}

static pk_code cuda_polar(void *dev, const amoeba_gpu_polar *g, int nrows, int nall,
                          int nentry, unsigned tag, int ntypes, double *out, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nrows <= 0) return PK_OK;
    amoeba_gpu_polar d = *g;
    const size_t u = 6 * (size_t)nall * sizeof(double);
    const size_t res = (size_t)nrows * AG_OUT * sizeof(double);
    if (upload_list(s, ELEC_LIST, tag, &g->list, nrows, nentry, &d.list, st) ||
        step_inputs(s, tag, g->x, g->rpole, nall, st) ||
        step_types(s, tag, g->amtype, g->amgroup, g->pdamp, g->thole, nall, ntypes, st) ||
        put(s, &s->u, g->u, u, "induced dipoles", st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-row results", st))
        return st->code;
    d.x = (const double *)s->x.ptr;
    d.rpole = (const double *)s->rpole.ptr;
    d.u = (const double *)s->u.ptr;
    d.amtype = (const int *)s->amtype.ptr;
    d.amgroup = (const int *)s->amgroup.ptr;
    d.pdamp = (const double *)s->pdamp.ptr;
    d.thole = (const double *)s->thole.ptr;
    gather<amoeba_gpu_polar, amoeba_gpu_polar_row_d, amoeba_gpu_polar_row_f>(
        s, d, nrows, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba polarization kernel", st)) return st->code;
    return results(s, nrows, out, "the amoeba polarization kernel", st);
}

static pk_code cuda_solve_field(void *dev, const amoeba_gpu_field *g, int n, int nrows,
                                int nall, int nentry, unsigned tag, int ntypes,
                                const amoeba_gpu_pcg_rows *consts,
                                const amoeba_gpu_pcg_scalars *s0, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const size_t ia = (size_t)nall * sizeof(int), types = ((size_t)ntypes + 1) * sizeof(double);
    const size_t te = 4 * ((size_t)nentry + 1) * sizeof(double);
    const size_t rows = (size_t)(nrows > 0 ? nrows : 1);
    amoeba_gpu_field d = *g;
    if (upload_list(s, ELEC_LIST, tag, &g->list, nrows, nentry, &d.list, st) ||
        put(s, &s->row, g->row, ia, "PCG rows", st) ||
        step_inputs(s, tag, g->x, g->rpole, nall, st) ||
        step_types(s, tag, g->amtype, g->amgroup, g->pdamp, g->thole, nall, ntypes, st) ||
        put(s, &s->polarity, g->polarity, types, "polarizabilities", st) ||
        put(s, &s->scalars, s0, sizeof *s0, "PCG scalars", st) ||
        pk_cuda_reserve(&s->cuda, &s->ten, te, "PCG pair tensors", st) ||
        pk_cuda_reserve(&s->cuda, &s->pten, te, "PCG preconditioner blocks", st) ||
        pk_cuda_reserve(&s->cuda, &s->vec, 32 * rows * sizeof(double), "PCG vectors", st) ||
        pk_cuda_reserve(&s->cuda, &s->rows_in, 6 * rows * sizeof(double), "PCG rows", st) ||
        pk_cuda_reserve(&s->cuda, &s->part, 4 * rows * sizeof(double), "PCG sums", st) ||
        pk_cuda_reserve(&s->cuda, &s->blocks, 4 * (rows / PK_SUM_THREADS + 1) * sizeof(double),
                        "PCG sums", st) ||
        pk_cuda_reserve(&s->cuda, &s->sums, 4 * sizeof(double), "PCG sums", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_small, 4 * sizeof(double), "PCG sums", st))
        return st->code;
    d.row = (const int *)s->row.ptr;
    d.x = (const double *)s->x.ptr;
    d.rpole = (const double *)s->rpole.ptr;
    d.amtype = (const int *)s->amtype.ptr;
    d.amgroup = (const int *)s->amgroup.ptr;
    d.polarity = (const double *)s->polarity.ptr;
    d.pdamp = (const double *)s->pdamp.ptr;
    d.thole = (const double *)s->thole.ptr;
    double *vec = (double *)s->vec.ptr;   /* u r conj y udir (6 per row each), poli ipoli */
    amoeba_gpu_pcg_rows v = *consts;
    v.u = vec;
    v.r = vec + 6 * rows;
    v.conj = vec + 12 * rows;
    v.y = vec + 18 * rows;
    v.udir = vec + 24 * rows;
    v.poli = vec + 30 * rows;
    v.ipoli = vec + 31 * rows;
    s->field = d;
    s->rows = v;
    s->n = n;
    s->nrows = nrows;
    if (pk_cuda_zero(&s->cuda, vec, 32 * rows * sizeof(double), "PCG vectors", st))
        return st->code;
    if (nrows <= 0) return PK_OK;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    if (s->mixed)
        pk_amoeba_field_kernel<true><<<warps(nrows), THREADS, 0, stream>>>(
            d, v.udir, nrows, (double *)s->ten.ptr, (double *)s->pten.ptr);
    else
        pk_amoeba_field_kernel<false><<<warps(nrows), THREADS, 0, stream>>>(
            d, v.udir, nrows, (double *)s->ten.ptr, (double *)s->pten.ptr);
    return pk_cuda_launched(&s->cuda, "amoeba direct-field kernel", st);
}

static pk_code cuda_solve_start(void *dev, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (s->n <= 0) return PK_OK;
    pk_amoeba_start_kernel<<<blocks(s->n), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        s->field, s->rows, s->n);
    return pk_cuda_launched(&s->cuda, "amoeba PCG start kernel", st);
}

/* vector vec of the PCG (AG_VEC_*), device pointer */
static double *vector(const amoeba_cuda *s, int vec)
{
    double *const all[] = {s->rows.u, s->rows.r, s->rows.conj, s->rows.y, s->rows.udir};
    return all[vec];
}

static pk_code cuda_solve_product(void *dev, int set, int vec, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (s->nrows <= 0) return PK_OK;
    const amoeba_gpu_product p = {s->field.list, s->field.row,
                                  (const double *)(set ? s->pten.ptr : s->ten.ptr),
                                  vector(s, vec)};
    pk_amoeba_product_kernel<<<warps(s->nrows), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        p, s->nrows, s->rows.y);
    return pk_cuda_launched(&s->cuda, "amoeba PCG product kernel", st);
}

static pk_code cuda_solve_pass(void *dev, int pass, double *sums, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    const int n = s->n, width = amoeba_gpu_pass_width(pass);
    double *part = (double *)s->part.ptr, *block = (double *)s->blocks.ptr;
    amoeba_gpu_pcg_scalars *sc = (amoeba_gpu_pcg_scalars *)s->scalars.ptr;
    int nblocks = 0;
    if (n > 0 && amoeba_gpu_pass_rows(pass, s->rows.precond)) {
        pk_amoeba_pass_kernel<<<blocks(n), THREADS, 0, stream>>>(pass, s->rows, sc, n, part);
        if (width) {
            nblocks = (n + PK_SUM_THREADS - 1) / PK_SUM_THREADS;
            pk_block_sums_kernel<<<nblocks, PK_SUM_THREADS, 0, stream>>>(part, n, width, block);
        }
    }
    pk_amoeba_scalars_kernel<<<1, 1, 0, stream>>>(pass, sc, block, nblocks, width, !sums,
                                                 (double *)s->sums.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba PCG pass kernels", st)) return st->code;
    if (!sums) return PK_OK;
    if (pk_cuda_download(&s->cuda, s->h_small.ptr, s->sums.ptr, 4 * sizeof(double),
                         "PCG sums", st) ||
        pk_cuda_sync(&s->cuda, "the amoeba PCG kernels", st))
        return st->code;
    memcpy(sums, s->h_small.ptr, 4 * sizeof(double));
    return PK_OK;
}

static pk_code cuda_solve_scalars(void *dev, int pass, const double *sums, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    memcpy(s->h_small.ptr, sums, 4 * sizeof(double));
    if (pk_cuda_upload(&s->cuda, s->sums.ptr, s->h_small.ptr, 4 * sizeof(double), "PCG sums",
                       st))
        return st->code;
    pk_amoeba_update_kernel<<<1, 1, 0, (cudaStream_t)s->cuda.stream>>>(
        pass, (amoeba_gpu_pcg_scalars *)s->scalars.ptr, (const double *)s->sums.ptr);
    return pk_cuda_launched(&s->cuda, "amoeba PCG scalar kernel", st);
}

static pk_code cuda_solve_eps(void *dev, double *eps, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const amoeba_gpu_pcg_scalars *sc = (const amoeba_gpu_pcg_scalars *)s->scalars.ptr;
    if (pk_cuda_download(&s->cuda, s->h_small.ptr, &sc->eps, sizeof(double), "PCG residual",
                         st) ||
        pk_cuda_sync(&s->cuda, "the amoeba PCG kernels", st))
        return st->code;
    *eps = *(const double *)s->h_small.ptr;
    return PK_OK;
}

/* Rows r0 .. r0 + nr - 1 of a vector to or from the host: waits for the device before a
 * get returns, and copies the host's rows before a set or add returns. */
static pk_code cuda_solve_rows(void *dev, int vec, int r0, int nr, double *host, int mode,
                               pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const size_t n = 6 * (size_t)nr, bytes = n * sizeof(double);
    double *v = vector(s, vec) + 6 * (size_t)r0;
    if (nr <= 0) return PK_OK;
    if (mode == AG_GET)
        return pk_cuda_download(&s->cuda, host, v, bytes, "PCG rows", st) ||
                       pk_cuda_sync(&s->cuda, "the amoeba PCG kernels", st)
                   ? st->code
                   : PK_OK;
    double *to = mode == AG_SET ? v : (double *)s->rows_in.ptr;
    if (pk_cuda_upload(&s->cuda, to, host, bytes, "PCG rows", st)) return st->code;
    if (mode == AG_ADD) {
        pk_amoeba_add_rows_kernel<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS, 0,
                                    (cudaStream_t)s->cuda.stream>>>(v, to, n);
        if (pk_cuda_launched(&s->cuda, "amoeba PCG rows kernel", st)) return st->code;
    }
    return pk_cuda_sync(&s->cuda, "the amoeba PCG rows", st);   /* host may reuse its rows */
}

static pk_code cuda_solve_result(void *dev, double *u, double *udir, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const size_t bytes = 6 * (size_t)s->n * sizeof(double);
    if (s->n <= 0) return PK_OK;
    return pk_cuda_download(&s->cuda, u, s->rows.u, bytes, "induced dipoles", st) ||
                   pk_cuda_download(&s->cuda, udir, s->rows.udir, bytes, "direct dipoles",
                                    st) ||
                   pk_cuda_sync(&s->cuda, "the amoeba direct-field and PCG kernels", st)
               ? st->code
               : PK_OK;
}

static const amoeba_gpu_solve_ops CUDA_SOLVE = {
    cuda_solve_field, cuda_solve_start, cuda_solve_product, cuda_solve_pass,
    cuda_solve_scalars, cuda_solve_eps, cuda_solve_rows, cuda_solve_result};

static int cuda_available(char *why, size_t len) { return pk_cuda_available(why, len); }

static void cuda_release(void *state)
{
    amoeba_cuda *s = (amoeba_cuda *)state;
    if (!s) return;
    for (int l = 0; l < 2; l++) {
        pk_cuda_release(&s->cuda, &s->offset[l]);
        pk_cuda_release(&s->cuda, &s->self[l]);
        pk_cuda_release(&s->cuda, &s->other[l]);
    }
    pk_cuda_buffer *device[] = {&s->site, &s->cls, &s->radmin,
                                &s->epsmix, &s->x, &s->rpole, &s->out,
                                &s->u, &s->amtype, &s->amgroup, &s->pdamp, &s->thole,
                                &s->row, &s->polarity, &s->ten, &s->pten, &s->vec,
                                &s->part, &s->blocks, &s->scalars, &s->sums, &s->rows_in};
    for (pk_cuda_buffer *b : device) pk_cuda_release(&s->cuda, b);
    pk_cuda_host_release(&s->h_small);
    amoeba_gpu_host_free(s->host);
    pk_cuda_close(&s->cuda);
    free(s);
}

static double cuda_memory(const void *state)
{
    const amoeba_cuda *s = (const amoeba_cuda *)state;
    return (double)(s->cuda.held + s->h_small.bytes) + amoeba_gpu_host_bytes(s->host);
}

static pk_code cuda_init(void *model, const pk_backend_request *req, void **state,
                         pk_backend_info *info, pk_status *st)
{
    (void)model;
    amoeba_cuda *s = (amoeba_cuda *)calloc(1, sizeof *s);
    if (!s) return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend");
    s->host = amoeba_gpu_host_new();
    if (!s->host) {
        free(s);
        return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend");
    }
    if (pk_cuda_open(&s->cuda, req, info, st)) {
        cuda_release(s);
        return st->code;
    }
    s->mixed = info->precision == PK_PRECISION_MIXED;
    *state = s;
    return PK_OK;
}

static pk_code cuda_compute(void *model, void *state, const void *args, pk_out *out,
                            pk_status *st)
{
    (void)model;
    amoeba_cuda *s = (amoeba_cuda *)state;
    if (pk_cuda_enter(&s->cuda, st)) return st->code;
    const amoeba_gpu_device dev = {cuda_hal, cuda_mpole, cuda_polar, s, &CUDA_SOLVE, s};
    return amoeba_gpu_step(&dev, s->host, args, out, st);
}

extern "C" const pk_backend_ops pk_amoeba_backend_cuda = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    cuda_available, cuda_init,
    cuda_compute, cuda_memory, cuda_release};
