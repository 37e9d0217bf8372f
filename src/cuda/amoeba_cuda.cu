/* amoeba/pk on CUDA, first version: HAL, the permanent multipoles, the PCG's products and
 * the polarization forces as gather kernels over full lists (amoeba_gpu_pair.h, the PK_HD
 * code the host test unit.amoeba_gpu_emul runs), one thread per atom (owned and ghost) or
 * PCG row summing its own pairs in list order, so each result has one writer and reruns
 * give the same bits; the step around them (the pair search, the full lists, the frames,
 * the direct field and pair tensors, the PCG's vector passes, torques to forces) is the
 * host's (amoeba_gpu.c). Double precision.
 *
 * HAL, multipoles and polarization forces: upload the full list and the atoms' inputs, run,
 * download the per-atom results (AG_OUT doubles each), wait. PCG: each pair set's list and
 * tensors go up once per step; each product uploads v, runs, downloads y into pinned memory
 * (two transfers, one wait). Otherwise plain (pageable) host memory; the buffers on the
 * device persist and grow. */
#include <cuda_runtime.h>

#include <stdlib.h>

#include "amoeba_gpu.h"
#include "pk_cuda.h"

enum { THREADS = 128 };

typedef struct {
    pk_cuda_ctx cuda;
    pk_cuda_buffer offset, entry, site, cls, radmin, epsmix, x, rpole, out;
    pk_cuda_buffer u, amtype, amgroup, pdamp, thole;
    pk_cuda_buffer pcg_offset[2], pcg_entry[2], pcg_partner[2], pcg_ten[2], v, y;
    pk_cuda_buffer h_y;      /* pinned: a product's rows */
    amoeba_gpu_pcg pcg[2];   /* the pair sets' lists and tensors on the device */
    amoeba_gpu_host *host;
} amoeba_cuda;

__global__ void pk_amoeba_hal_kernel(amoeba_gpu_hal g, int n, double *out)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    double o[AG_OUT];
    amoeba_gpu_hal_atom(&g, a, o);
    for (int c = 0; c < AG_OUT; c++) out[(size_t)a * AG_OUT + c] = o[c];
}

__global__ void pk_amoeba_mpole_kernel(amoeba_gpu_mpole g, int n, double *out)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    double o[AG_OUT];
    amoeba_gpu_mpole_atom(&g, a, o);
    for (int c = 0; c < AG_OUT; c++) out[(size_t)a * AG_OUT + c] = o[c];
}

__global__ void pk_amoeba_polar_kernel(amoeba_gpu_polar g, int n, double *out)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    double o[AG_OUT];
    amoeba_gpu_polar_atom(&g, a, o);
    for (int c = 0; c < AG_OUT; c++) out[(size_t)a * AG_OUT + c] = o[c];
}

__global__ void pk_amoeba_pcg_kernel(amoeba_gpu_pcg g, int n, double *y)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    double row[6];
    amoeba_gpu_pcg_row(&g, a, row);
    for (int c = 0; c < 6; c++) y[(size_t)a * 8 + c] = row[c];
    y[(size_t)a * 8 + 6] = y[(size_t)a * 8 + 7] = 0.0;
}

static int blocks(int n) { return (n + THREADS - 1) / THREADS; }

/* The full list (nall + 1 offsets, nentry entries) to the device. */
static pk_code upload_list(amoeba_cuda *s, const amoeba_gpu_list *l, int nall, int nentry,
                           amoeba_gpu_list *dl, pk_status *st)
{
    const size_t off = ((size_t)nall + 1) * sizeof(int), ent = ((size_t)nentry + 1) * sizeof(int);
    if (pk_cuda_reserve(&s->cuda, &s->offset, off, "list offsets", st) ||
        pk_cuda_reserve(&s->cuda, &s->entry, ent, "full neighbour list", st) ||
        pk_cuda_upload(&s->cuda, s->offset.ptr, l->offset, off, "list offsets", st) ||
        pk_cuda_upload(&s->cuda, s->entry.ptr, l->entry, (size_t)nentry * sizeof(int),
                       "full neighbour list", st))
        return st->code;
    dl->offset = (const int *)s->offset.ptr;
    dl->entry = (const int *)s->entry.ptr;
    return PK_OK;
}

/* The results of nall atoms down to the host, then wait for the stream. */
static pk_code results(amoeba_cuda *s, int nall, double *out, const char *what, pk_status *st)
{
    return pk_cuda_download(&s->cuda, out, s->out.ptr, (size_t)nall * AG_OUT * sizeof(double),
                            what, st) ||
                   pk_cuda_sync(&s->cuda, what, st)
               ? st->code
               : PK_OK;
}

static pk_code cuda_hal(void *dev, const amoeba_gpu_hal *g, int nall, int nentry, double *out,
                        pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nall <= 0) return PK_OK;
    amoeba_gpu_hal d = *g;
    const size_t tab = (size_t)g->ncls * (size_t)g->ncls * sizeof(double);
    const size_t site = 3 * (size_t)nall * sizeof(double), cls = (size_t)nall * sizeof(int);
    const size_t res = (size_t)nall * AG_OUT * sizeof(double);
    if (upload_list(s, &g->list, nall, nentry, &d.list, st) ||
        pk_cuda_reserve(&s->cuda, &s->site, site, "HAL sites", st) ||
        pk_cuda_reserve(&s->cuda, &s->cls, cls, "vdW classes", st) ||
        pk_cuda_reserve(&s->cuda, &s->radmin, tab, "HAL R_min table", st) ||
        pk_cuda_reserve(&s->cuda, &s->epsmix, tab, "HAL epsilon table", st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-atom results", st) ||
        pk_cuda_upload(&s->cuda, s->site.ptr, g->site, site, "HAL sites", st) ||
        pk_cuda_upload(&s->cuda, s->cls.ptr, g->cls, cls, "vdW classes", st) ||
        pk_cuda_upload(&s->cuda, s->radmin.ptr, g->radmin, tab, "HAL R_min table", st) ||
        pk_cuda_upload(&s->cuda, s->epsmix.ptr, g->epsmix, tab, "HAL epsilon table", st))
        return st->code;
    d.site = (const double *)s->site.ptr;
    d.cls = (const int *)s->cls.ptr;
    d.radmin = (const double *)s->radmin.ptr;
    d.epsmix = (const double *)s->epsmix.ptr;
    pk_amoeba_hal_kernel<<<blocks(nall), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        d, nall, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba HAL kernel", st)) return st->code;
    return results(s, nall, out, "the amoeba HAL kernel", st);
}

static pk_code cuda_mpole(void *dev, const amoeba_gpu_mpole *g, int nall, int nentry,
                          double *out, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nall <= 0) return PK_OK;
    amoeba_gpu_mpole d = *g;
    const size_t x = 3 * (size_t)nall * sizeof(double), rp = 13 * (size_t)nall * sizeof(double);
    const size_t res = (size_t)nall * AG_OUT * sizeof(double);
    if (upload_list(s, &g->list, nall, nentry, &d.list, st) ||
        pk_cuda_reserve(&s->cuda, &s->x, x, "positions", st) ||
        pk_cuda_reserve(&s->cuda, &s->rpole, rp, "multipoles", st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-atom results", st) ||
        pk_cuda_upload(&s->cuda, s->x.ptr, g->x, x, "positions", st) ||
        pk_cuda_upload(&s->cuda, s->rpole.ptr, g->rpole, rp, "multipoles", st))
        return st->code;
    d.x = (const double *)s->x.ptr;
    d.rpole = (const double *)s->rpole.ptr;
    pk_amoeba_mpole_kernel<<<blocks(nall), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        d, nall, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba multipole kernel", st)) return st->code;
    return results(s, nall, out, "the amoeba multipole kernel", st);
}

static pk_code cuda_polar(void *dev, const amoeba_gpu_polar *g, int nall, int nentry,
                          int ntypes, double *out, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    if (nall <= 0) return PK_OK;
    amoeba_gpu_polar d = *g;
    const size_t x = 3 * (size_t)nall * sizeof(double), rp = 13 * (size_t)nall * sizeof(double);
    const size_t u = 6 * (size_t)nall * sizeof(double), ints = (size_t)nall * sizeof(int);
    const size_t types = ((size_t)ntypes + 1) * sizeof(double);
    const size_t res = (size_t)nall * AG_OUT * sizeof(double);
    if (upload_list(s, &g->list, nall, nentry, &d.list, st) ||
        pk_cuda_reserve(&s->cuda, &s->x, x, "positions", st) ||
        pk_cuda_reserve(&s->cuda, &s->rpole, rp, "multipoles", st) ||
        pk_cuda_reserve(&s->cuda, &s->u, u, "induced dipoles", st) ||
        pk_cuda_reserve(&s->cuda, &s->amtype, ints, "AMOEBA types", st) ||
        pk_cuda_reserve(&s->cuda, &s->amgroup, ints, "polarization groups", st) ||
        pk_cuda_reserve(&s->cuda, &s->pdamp, types, "Thole lengths", st) ||
        pk_cuda_reserve(&s->cuda, &s->thole, types, "Thole parameters", st) ||
        pk_cuda_reserve(&s->cuda, &s->out, res, "per-atom results", st) ||
        pk_cuda_upload(&s->cuda, s->x.ptr, g->x, x, "positions", st) ||
        pk_cuda_upload(&s->cuda, s->rpole.ptr, g->rpole, rp, "multipoles", st) ||
        pk_cuda_upload(&s->cuda, s->u.ptr, g->u, u, "induced dipoles", st) ||
        pk_cuda_upload(&s->cuda, s->amtype.ptr, g->amtype, ints, "AMOEBA types", st) ||
        pk_cuda_upload(&s->cuda, s->amgroup.ptr, g->amgroup, ints, "polarization groups", st) ||
        pk_cuda_upload(&s->cuda, s->pdamp.ptr, g->pdamp, types, "Thole lengths", st) ||
        pk_cuda_upload(&s->cuda, s->thole.ptr, g->thole, types, "Thole parameters", st))
        return st->code;
    d.x = (const double *)s->x.ptr;
    d.rpole = (const double *)s->rpole.ptr;
    d.u = (const double *)s->u.ptr;
    d.amtype = (const int *)s->amtype.ptr;
    d.amgroup = (const int *)s->amgroup.ptr;
    d.pdamp = (const double *)s->pdamp.ptr;
    d.thole = (const double *)s->thole.ptr;
    pk_amoeba_polar_kernel<<<blocks(nall), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        d, nall, (double *)s->out.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba polarization kernel", st)) return st->code;
    return results(s, nall, out, "the amoeba polarization kernel", st);
}

static const char *const SET_NAME[2] = {"PCG dipole pairs", "PCG preconditioner pairs"};

static pk_code cuda_pcg_pairs(void *dev, int set, const amoeba_gpu_pcg *g, int nall, int nentry,
                              size_t nten, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const char *what = SET_NAME[set];
    const size_t off = ((size_t)nall + 1) * sizeof(int), ent = (size_t)nentry * sizeof(int);
    const size_t ten = nten * sizeof(double);
    if (pk_cuda_reserve(&s->cuda, &s->pcg_offset[set], off, what, st) ||
        pk_cuda_reserve(&s->cuda, &s->pcg_entry[set], ent + sizeof(int), what, st) ||
        pk_cuda_reserve(&s->cuda, &s->pcg_partner[set], ent + sizeof(int), what, st) ||
        pk_cuda_reserve(&s->cuda, &s->pcg_ten[set], ten + sizeof(double), what, st) ||
        pk_cuda_upload(&s->cuda, s->pcg_offset[set].ptr, g->offset, off, what, st) ||
        pk_cuda_upload(&s->cuda, s->pcg_entry[set].ptr, g->entry, ent, what, st) ||
        pk_cuda_upload(&s->cuda, s->pcg_partner[set].ptr, g->partner, ent, what, st) ||
        pk_cuda_upload(&s->cuda, s->pcg_ten[set].ptr, g->ten, ten, what, st) ||
        pk_cuda_sync(&s->cuda, what, st))
        return st->code;
    s->pcg[set].offset = (const int *)s->pcg_offset[set].ptr;
    s->pcg[set].entry = (const int *)s->pcg_entry[set].ptr;
    s->pcg[set].partner = (const int *)s->pcg_partner[set].ptr;
    s->pcg[set].ten = (const double *)s->pcg_ten[set].ptr;
    return PK_OK;
}

static pk_code cuda_pcg_product(void *dev, int set, int nrows, const double *v,
                                const double **yp, pk_status *st)
{
    amoeba_cuda *s = (amoeba_cuda *)dev;
    const size_t rows = (size_t)nrows * 8 * sizeof(double);
    if (pk_cuda_host_reserve(&s->cuda, &s->h_y, rows + sizeof(double), "PCG product", st))
        return st->code;
    double *y = (double *)s->h_y.ptr;
    *yp = y;
    if (nrows <= 0) return PK_OK;
    if (pk_cuda_reserve(&s->cuda, &s->v, rows, "PCG vector", st) ||
        pk_cuda_reserve(&s->cuda, &s->y, rows, "PCG product", st) ||
        pk_cuda_upload(&s->cuda, s->v.ptr, v, rows, "PCG vector", st))
        return st->code;
    amoeba_gpu_pcg g = s->pcg[set];
    g.v = (const double *)s->v.ptr;
    pk_amoeba_pcg_kernel<<<blocks(nrows), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        g, nrows, (double *)s->y.ptr);
    if (pk_cuda_launched(&s->cuda, "amoeba PCG product kernel", st) ||
        pk_cuda_download(&s->cuda, y, s->y.ptr, rows, "PCG product", st) ||
        pk_cuda_sync(&s->cuda, "the amoeba PCG product kernel", st))
        return st->code;
    return PK_OK;
}

static int cuda_available(char *why, size_t len) { return pk_cuda_available(why, len); }

static void cuda_release(void *state)
{
    amoeba_cuda *s = (amoeba_cuda *)state;
    if (!s) return;
    pk_cuda_buffer *device[] = {&s->offset, &s->entry, &s->site, &s->cls, &s->radmin,
                                &s->epsmix, &s->x, &s->rpole, &s->out, &s->v, &s->y,
                                &s->u, &s->amtype, &s->amgroup, &s->pdamp, &s->thole};
    for (pk_cuda_buffer *b : device) pk_cuda_release(&s->cuda, b);
    for (int set = 0; set < 2; set++) {
        pk_cuda_release(&s->cuda, &s->pcg_offset[set]);
        pk_cuda_release(&s->cuda, &s->pcg_entry[set]);
        pk_cuda_release(&s->cuda, &s->pcg_partner[set]);
        pk_cuda_release(&s->cuda, &s->pcg_ten[set]);
    }
    pk_cuda_host_release(&s->h_y);
    amoeba_gpu_host_free(s->host);
    pk_cuda_close(&s->cuda);
    free(s);
}

static double cuda_memory(const void *state)
{
    const amoeba_cuda *s = (const amoeba_cuda *)state;
    return (double)(s->cuda.held + s->h_y.bytes) + amoeba_gpu_host_bytes(s->host);
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
    *state = s;
    return PK_OK;
}

static pk_code cuda_compute(void *model, void *state, const void *args, pk_out *out,
                            pk_status *st)
{
    (void)model;
    amoeba_cuda *s = (amoeba_cuda *)state;
    if (pk_cuda_enter(&s->cuda, st)) return st->code;
    const amoeba_gpu_device dev = {cuda_hal,       cuda_mpole,       cuda_polar,
                                   cuda_pcg_pairs, cuda_pcg_product, s};
    return amoeba_gpu_step(&dev, s->host, args, out, st);
}

extern "C" const pk_backend_ops pk_amoeba_backend_cuda = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE), cuda_available, cuda_init,
    cuda_compute, cuda_memory, cuda_release};
