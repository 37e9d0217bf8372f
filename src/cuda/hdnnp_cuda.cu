/* hdnnp/pk on CUDA: the kernels of hdnnp_gpu.h, each a thin wrapper around the PK_HD function
 * its threads run (the host test test_hdnnp_gpu_emul runs the same functions thread by thread
 * against the cpu backend), and the data movement around them.
 *
 * Once, at init: the model flattened (symmetry-function parameters, cutoffs, groups, scaling,
 * weights). When the list or the atoms' elements change (compared entry by entry each step):
 * the list in CSR form with its reverse index. Every step: positions up; environments,
 * symmetry functions, networks, gradients, centre forces, the force gather, energy and virial
 * block sums; forces (owned and ghost: LAMMPS reverse-communicates them), sums and per-atom
 * values down. No floating-point atomics: every sum has one writer and a fixed order, so
 * reruns are bitwise equal. Two integer counters (atomics are exact) say whether atoms
 * overlap and how many extrapolation warnings there are; only when there are some do their
 * records come down (the first ones in centre and function order, as the cpu backend keeps).
 *
 * The symmetry functions and their gradients run a block of HDG_BLOCK threads per centre
 * (hdnnp_gpu_block.h): the neighbours' geometry, cutoffs and radial exponentials once into
 * shared memory, then group by group the pairs spread over the threads; the block's shared
 * memory is sized at each step for the longest list. The networks run a thread per centre
 * with its work vector a column of a centre-minor array (coalesced): at n2p2's sizes (27-30
 * inputs, two layers of 25 nodes for water) they took 3% of the step under Nsight Compute
 * on an H200 (bench/results/hdnnp_ncu.md), so per-element cuBLAS GEMMs, with the gathers by
 * element and the activation passes around them, wait until these kernels are measured. */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "hdnnp_gpu.h"
#include "pk_cuda.h"
#include "pk_cuda_sums.cuh"

enum { THREADS = 128, EV = 7 };

typedef struct {
    pk_cuda_ctx cuda;
    int mixed;
    pk_hdnnp_context *ctx;
    hdg_host_model hm;
    hdg_model dm;               /* the model with device pointers */
    hdg_host_list L;
    int have_list;
    /* device: model, list, per-step scratch */
    pk_cuda_buffer m_el, m_sf, m_cut, m_grp, m_mem, m_w;
    pk_cuda_buffer elem, centre, offset, neigh, slot_centre, rev_off, rev, atom_centre;
    pk_cuda_buffer x, env_n, env_start, env_slot, env_el, env_d, G, C, work, g, ev, fcen, ewn;
    pk_cuda_buffer f, vatom, block_ev, counters, rec_first, rec;
    /* pinned host staging */
    pk_cuda_buffer h_x, h_out, h_counters, h_ew;
} hdnnp_cuda;

/* counters[0]: inum - (first centre with overlapping atoms), 0 if none; counters[1]: the
 * number of extrapolation warnings. */
__global__ void hdnnp_env_kernel(const __grid_constant__ hdg_step s, int *counters)
{
    const int ii = blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= s.inum) return;
    if (hdg_env(&s, ii)) atomicMax(&counters[0], s.inum - ii);
}

/* Block ii: the raw symmetry-function values of centre ii (hdnnp_gpu_block.h's phases), and
 * block ii of the gradient kernel its neighbours' dE_i/dx_n; one pair per precision. At
 * most 128 registers a thread, 4 blocks an SM (ptxas, sm_90: the double gradient kernel
 * would take 150; held to 128 it spills 8 bytes, the others fit). */
#define HDNNP_BLOCK_KERNELS(SFX)                                                                \
    __global__ void __launch_bounds__(HDG_BLOCK, 4)                                             \
        hdnnp_values_kernel##SFX(const __grid_constant__ hdg_step s)                            \
    {                                                                                           \
        extern __shared__ double smem[];                                                        \
        const int ii = blockIdx.x, t = threadIdx.x, bd = blockDim.x;                            \
        if (!hdg_blk_values_run(&s, ii)) return;                                                \
        const hdg_shared##SFX sh = hdg_shared_at##SFX(smem, &s.m, s.ncap, bd);                  \
        hdg_blk_load##SFX(&s, ii, &sh, t, bd);                                                  \
        __syncthreads();                                                                        \
        const int ng = hdg_blk_ngroups(&s, ii);                                                 \
        for (int g = 0; g < ng; g++) {                                                          \
            hdg_blk_exps##SFX(&s, ii, g, &sh, t, bd);                                           \
            __syncthreads();                                                                    \
            hdg_blk_values##SFX(&s, ii, g, &sh, t, bd);                                         \
            __syncthreads();                                                                    \
            hdg_blk_values_fold##SFX(&s, ii, g, &sh, t, bd);                                    \
            __syncthreads();                                                                    \
            hdg_blk_values_sum##SFX(&s, ii, g, &sh, t, bd);                                     \
            __syncthreads();                                                                    \
        }                                                                                       \
    }                                                                                           \
    __global__ void __launch_bounds__(HDG_BLOCK, 4)                                             \
        hdnnp_grad_kernel##SFX(const __grid_constant__ hdg_step s)                              \
    {                                                                                           \
        extern __shared__ double smem[];                                                        \
        const int ii = blockIdx.x, t = threadIdx.x, bd = blockDim.x;                            \
        if (!hdg_blk_grad_run(&s, ii)) return;                                                  \
        const hdg_shared##SFX sh = hdg_shared_at##SFX(smem, &s.m, s.ncap, bd);                  \
        hdg_blk_load##SFX(&s, ii, &sh, t, bd);                                                  \
        __syncthreads();                                                                        \
        const int ng = hdg_blk_ngroups(&s, ii);                                                 \
        for (int g = 0; g < ng; g++) {                                                          \
            hdg_blk_exps##SFX(&s, ii, g, &sh, t, bd);                                           \
            __syncthreads();                                                                    \
            hdg_blk_grad##SFX(&s, ii, g, &sh, t, bd);                                           \
            __syncthreads();                                                                    \
            hdg_blk_grad_sum##SFX(&s, ii, g, &sh, t, bd);                                       \
            __syncthreads();                                                                    \
        }                                                                                       \
        hdg_blk_store##SFX(&s, ii, &sh, t, bd);                                                 \
    }
HDNNP_BLOCK_KERNELS(_d)
HDNNP_BLOCK_KERNELS(_f)

__global__ void hdnnp_network_kernel(const __grid_constant__ hdg_step s, int *counters)
{
    const int ii = blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= s.inum) return;
    hdg_network(&s, ii);
    if (s.ewn[ii]) atomicAdd(&counters[1], s.ewn[ii]);
}

__global__ void hdnnp_centre_kernel(const __grid_constant__ hdg_step s)
{
    const int ii = blockIdx.x * blockDim.x + threadIdx.x;
    if (ii < s.inum) hdg_centre(&s, ii);
}

__global__ void hdnnp_gather_kernel(const __grid_constant__ hdg_step s, int want_vatom)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < s.nall) hdg_gather(&s, j, want_vatom);
}

__global__ void hdnnp_ew_kernel(const __grid_constant__ hdg_step s, const int *first, int limit,
                                hdg_ew_record *rec)
{
    const int ii = blockIdx.x * blockDim.x + threadIdx.x;
    if (ii < s.inum && first[ii] < limit) hdg_ew_write(&s, ii, first[ii], limit, rec);
}

static unsigned blocks(size_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

static int cuda_available(char *why, size_t len) { return pk_cuda_available(why, len); }

static void cuda_release(void *state)
{
    hdnnp_cuda *s = (hdnnp_cuda *)state;
    if (!s) return;
    pk_cuda_buffer *device[] = {
        &s->m_el, &s->m_sf, &s->m_cut, &s->m_grp, &s->m_mem, &s->m_w, &s->elem, &s->centre,
        &s->offset, &s->neigh, &s->slot_centre, &s->rev_off, &s->rev, &s->atom_centre, &s->x,
        &s->env_n, &s->env_start, &s->env_slot, &s->env_el, &s->env_d, &s->G, &s->C, &s->work,
        &s->g, &s->ev, &s->fcen, &s->ewn, &s->f, &s->vatom, &s->block_ev, &s->counters,
        &s->rec_first, &s->rec};
    for (pk_cuda_buffer *b : device) pk_cuda_release(&s->cuda, b);
    pk_cuda_buffer *host[] = {&s->h_x, &s->h_out, &s->h_counters, &s->h_ew};
    for (pk_cuda_buffer *b : host) pk_cuda_host_release(b);
    pk_cuda_close(&s->cuda);
    hdg_model_free(&s->hm);
    hdg_list_free(&s->L);
    free(s);
}

static double cuda_memory(const void *state)
{
    const hdnnp_cuda *s = (const hdnnp_cuda *)state;
    return (double)(s->cuda.held + s->h_x.bytes + s->h_out.bytes + s->h_counters.bytes +
                    s->h_ew.bytes);
}

/* One host array to a device buffer of its own. */
static pk_code put(hdnnp_cuda *s, pk_cuda_buffer *buf, const void *host, size_t bytes,
                   const char *what, pk_status *st)
{
    if (pk_cuda_reserve(&s->cuda, buf, bytes, what, st)) return st->code;
    return pk_cuda_upload(&s->cuda, buf->ptr, host, bytes, what, st);
}

/* The model is read-only: flattened and uploaded once. */
static pk_code cuda_init(void *model, const pk_backend_request *req, void **state,
                         pk_backend_info *info, pk_status *st)
{
    hdnnp_cuda *s = (hdnnp_cuda *)calloc(1, sizeof *s);
    if (!s) return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend");
    s->ctx = (pk_hdnnp_context *)model;
    s->mixed = info->precision == PK_PRECISION_MIXED;
    const hdg_host_model *h = &s->hm;
    if (hdg_model_build(hdnnp_context_model(s->ctx), &s->hm, st) ||
        pk_cuda_open(&s->cuda, req, info, st) ||
        put(s, &s->m_el, h->el, sizeof(hdg_element) * h->nel, "model elements", st) ||
        put(s, &s->m_sf, h->sf, sizeof(hdnnp_sf) * (h->nsf + 1), "symmetry functions", st) ||
        put(s, &s->m_cut, h->cut, sizeof(hdnnp_cutoff) * (h->ncut + 1), "cutoffs", st) ||
        put(s, &s->m_grp, h->grp, sizeof(hdg_group) * (h->ngrp + 1), "function groups", st) ||
        put(s, &s->m_mem, h->mem, sizeof(int) * (h->nmem + 1), "group members", st) ||
        put(s, &s->m_w, h->w, sizeof(double) * (h->nw + 1), "network weights", st) ||
        pk_cuda_sync(&s->cuda, "uploading the model", st)) {
        cuda_release(s);
        return st->code;
    }
    s->dm = h->m;
    s->dm.el = (const hdg_element *)s->m_el.ptr;
    s->dm.sf = (const hdnnp_sf *)s->m_sf.ptr;
    s->dm.cut = (const hdnnp_cutoff *)s->m_cut.ptr;
    s->dm.grp = (const hdg_group *)s->m_grp.ptr;
    s->dm.mem = (const int *)s->m_mem.ptr;
    s->dm.w = (const double *)s->m_w.ptr;
    *state = s;
    return PK_OK;
}

/* The list and the atoms' elements, unless the caller kept them (list_changed 0), to the
 * device. */
static pk_code upload_list(hdnnp_cuda *s, const pk_hdnnp_args *a, pk_status *st)
{
    const pk_atoms *at = a->atoms;
    hdg_host_list *L = &s->L;
    if (!a->list_changed && s->have_list && L->inum == a->nl->inum &&
        L->nall == at->nlocal + at->nghost)
        return PK_OK;
    s->have_list = 0;
    if (hdg_list_build(L, at, a->nl, a->type_to_element, st)) return st->code;
    const size_t na = (size_t)L->nall, nc = (size_t)L->inum, ns = L->nslot;
    if (put(s, &s->elem, L->elem, sizeof(int) * na, "atom elements", st) ||
        put(s, &s->centre, L->centre, sizeof(int) * nc, "list centres", st) ||
        put(s, &s->offset, L->offset, sizeof(int) * (nc + 1), "list offsets", st) ||
        put(s, &s->neigh, L->neigh, sizeof(int) * ns, "neighbour list", st) ||
        put(s, &s->slot_centre, L->slot_centre, sizeof(int) * ns, "list slot centres", st) ||
        put(s, &s->rev_off, L->rev_off, sizeof(int) * (na + 1), "reverse list offsets", st) ||
        put(s, &s->rev, L->rev, sizeof(int) * ns, "reverse list", st) ||
        put(s, &s->atom_centre, L->atom_centre, sizeof(int) * na, "centre of each atom", st))
        return st->code;
    s->have_list = 1;
    return PK_OK;
}

/* Device buffers of one step. */
static pk_code reserve_step(hdnnp_cuda *s, int want_vatom, size_t nblocks, pk_status *st)
{
    pk_cuda_ctx *c = &s->cuda;
    const size_t na = (size_t)s->L.nall, nc = (size_t)s->L.inum, ns = s->L.nslot + 1;
    const size_t nsf = (size_t)s->hm.m.maxnsf * nc;
    if (pk_cuda_reserve(c, &s->x, 3 * na * sizeof(double), "positions", st) ||
        pk_cuda_reserve(c, &s->env_n, nc * sizeof(int), "environment sizes", st) ||
        pk_cuda_reserve(c, &s->env_start, HDG_START_STRIDE * nc * sizeof(int),
                        "environment element ranges", st) ||
        pk_cuda_reserve(c, &s->env_slot, ns * sizeof(int), "environment slots", st) ||
        pk_cuda_reserve(c, &s->env_el, ns * sizeof(int), "environment elements", st) ||
        pk_cuda_reserve(c, &s->env_d, 4 * ns * sizeof(double), "environment distances", st) ||
        pk_cuda_reserve(c, &s->G, nsf * sizeof(double), "symmetry functions", st) ||
        pk_cuda_reserve(c, &s->C, nsf * sizeof(double), "dE/dG", st) ||
        pk_cuda_reserve(c, &s->work, s->hm.m.nwork * nc * sizeof(double), "network work", st) ||
        pk_cuda_reserve(c, &s->g, 3 * ns * sizeof(double), "neighbour gradients", st) ||
        pk_cuda_reserve(c, &s->ev, EV * nc * sizeof(double), "energies and virials", st) ||
        pk_cuda_reserve(c, &s->fcen, 3 * nc * sizeof(double), "centre forces", st) ||
        pk_cuda_reserve(c, &s->ewn, nc * sizeof(int), "extrapolation counts", st) ||
        pk_cuda_reserve(c, &s->f, 3 * na * sizeof(double), "forces", st) ||
        (want_vatom &&
         pk_cuda_reserve(c, &s->vatom, 6 * na * sizeof(double), "per-atom virials", st)) ||
        pk_cuda_reserve(c, &s->block_ev, EV * nblocks * sizeof(double), "energy sums", st) ||
        pk_cuda_reserve(c, &s->counters, 2 * sizeof(int), "counters", st) ||
        pk_cuda_host_reserve(c, &s->h_x, 3 * na * sizeof(double), "positions", st) ||
        pk_cuda_host_reserve(c, &s->h_out, ((3 + (want_vatom ? 6 : 0)) * na + EV * nc +
                                            EV * nblocks) * sizeof(double),
                             "forces and energies", st) ||
        pk_cuda_host_reserve(c, &s->h_counters, 2 * sizeof(int), "counters", st))
        return st->code;
    return PK_OK;
}

static hdg_step step_view(const hdnnp_cuda *s)
{
    hdg_step t;
    memset(&t, 0, sizeof t);
    t.m = s->dm;
    t.inum = s->L.inum;
    t.nall = s->L.nall;
    t.ncap = s->L.maxneigh;
    t.x = (const double *)s->x.ptr;
    t.elem = (const int *)s->elem.ptr;
    t.centre = (const int *)s->centre.ptr;
    t.offset = (const int *)s->offset.ptr;
    t.neigh = (const int *)s->neigh.ptr;
    t.slot_centre = (const int *)s->slot_centre.ptr;
    t.rev_off = (const int *)s->rev_off.ptr;
    t.rev = (const int *)s->rev.ptr;
    t.atom_centre = (const int *)s->atom_centre.ptr;
    t.env_n = (int *)s->env_n.ptr;
    t.env_start = (int *)s->env_start.ptr;
    t.env_slot = (int *)s->env_slot.ptr;
    t.env_el = (int *)s->env_el.ptr;
    t.env_d = (double *)s->env_d.ptr;
    t.G = (double *)s->G.ptr;
    t.C = (double *)s->C.ptr;
    t.work = (double *)s->work.ptr;
    t.g = (double *)s->g.ptr;
    t.ev = (double *)s->ev.ptr;
    t.fcen = (double *)s->fcen.ptr;
    t.ewn = (int *)s->ewn.ptr;
    t.f = (double *)s->f.ptr;
    t.vatom = (double *)s->vatom.ptr;
    return t;
}

/* The dynamic shared memory of the block kernels for lists of up to maxneigh entries (the
 * environments are no longer): set as the kernels' limit when above the default 48 KiB,
 * refused with advice when above the device's. */
static pk_code shared_memory(hdnnp_cuda *s, size_t *bytes, pk_status *st)
{
    const hdg_model *m = &s->hm.m;
    *bytes = s->mixed ? hdg_shared_bytes_f(m, s->L.maxneigh, HDG_BLOCK)
                      : hdg_shared_bytes_d(m, s->L.maxneigh, HDG_BLOCK);
    if (*bytes <= 48 * 1024) return PK_OK;
    int most = 0;
    cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->cuda.device);
    if (*bytes > (size_t)most)
        return pk_fail(st, PK_ERR_RANGE, "a neighbour list of %d entries needs %zu bytes of "
                       "shared memory per block in the hdnnp CUDA kernels, more than the %d of "
                       "%s; use a shorter neighbor skin or more ranks", s->L.maxneigh, *bytes,
                       most, s->cuda.name);
    const void *kernels[] = {(const void *)hdnnp_values_kernel_d,
                             (const void *)hdnnp_grad_kernel_d,
                             (const void *)hdnnp_values_kernel_f,
                             (const void *)hdnnp_grad_kernel_f};
    for (const void *k : kernels)
        if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes) !=
            cudaSuccess)
            return pk_cuda_launched(&s->cuda, "hdnnp shared-memory limit", st);
    return PK_OK;
}

static pk_code launch_pairs(hdnnp_cuda *s, const hdg_step &t, pk_status *st)
{
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    const unsigned nb = (unsigned)t.inum;
    size_t shm;
    if (shared_memory(s, &shm, st)) return st->code;
    if (s->mixed) hdnnp_values_kernel_f<<<nb, HDG_BLOCK, shm, stream>>>(t);
    else hdnnp_values_kernel_d<<<nb, HDG_BLOCK, shm, stream>>>(t);
    if (pk_cuda_launched(&s->cuda, "hdnnp symmetry-function kernel", st)) return st->code;
    hdnnp_network_kernel<<<blocks((size_t)t.inum, THREADS), THREADS, 0, stream>>>(
        t, (int *)s->counters.ptr);
    if (pk_cuda_launched(&s->cuda, "hdnnp network kernel", st)) return st->code;
    if (s->mixed) hdnnp_grad_kernel_f<<<nb, HDG_BLOCK, shm, stream>>>(t);
    else hdnnp_grad_kernel_d<<<nb, HDG_BLOCK, shm, stream>>>(t);
    if (pk_cuda_launched(&s->cuda, "hdnnp gradient kernel", st)) return st->code;
    return PK_OK;
}

/* The kept records of this step's warnings (first in centre and function order, as many as
 * the context still keeps) down, and all of them counted. */
static pk_code extrapolation(hdnnp_cuda *s, const hdg_step &t, const pk_atoms *at, long count,
                             pk_status *st)
{
    size_t kept;
    pk_hdnnp_ew_get(s->ctx, &kept);
    const long room = (long)PK_HDNNP_EW_KEEP - (long)kept;
    const int limit = (int)(count < room ? count : room);
    if (limit <= 0) {
        hdnnp_context_ew_add(s->ctx, NULL, 0, count);
        return PK_OK;
    }
    const int inum = t.inum;
    const size_t hbytes = (size_t)inum * sizeof(int) + (size_t)limit * sizeof(hdg_ew_record) +
                          (size_t)limit * sizeof(pk_hdnnp_ew);
    if (pk_cuda_host_reserve(&s->cuda, &s->h_ew, hbytes, "extrapolation records", st) ||
        pk_cuda_reserve(&s->cuda, &s->rec_first, (size_t)inum * sizeof(int),
                        "extrapolation offsets", st) ||
        pk_cuda_reserve(&s->cuda, &s->rec, (size_t)limit * sizeof(hdg_ew_record),
                        "extrapolation records", st))
        return st->code;
    /* records first: their doubles stay aligned */
    hdg_ew_record *rec = (hdg_ew_record *)s->h_ew.ptr;
    pk_hdnnp_ew *ew = (pk_hdnnp_ew *)(rec + limit);
    int *first = (int *)(ew + limit);
    if (pk_cuda_download(&s->cuda, first, t.ewn, (size_t)inum * sizeof(int),
                         "extrapolation counts", st) ||
        pk_cuda_sync(&s->cuda, "the extrapolation counts", st))
        return st->code;
    long sum = 0;   /* counts to offsets, in centre order */
    for (int ii = 0; ii < inum; ii++) {
        const int n = first[ii];
        first[ii] = sum < limit ? (int)sum : limit;
        sum += n;
    }
    if (pk_cuda_upload(&s->cuda, s->rec_first.ptr, first, (size_t)inum * sizeof(int),
                       "extrapolation offsets", st))
        return st->code;
    hdnnp_ew_kernel<<<blocks((size_t)inum, THREADS), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        t, (const int *)s->rec_first.ptr, limit, (hdg_ew_record *)s->rec.ptr);
    if (pk_cuda_launched(&s->cuda, "hdnnp extrapolation records", st) ||
        pk_cuda_download(&s->cuda, rec, s->rec.ptr, (size_t)limit * sizeof(hdg_ew_record),
                         "extrapolation records", st) ||
        pk_cuda_sync(&s->cuda, "the extrapolation records", st))
        return st->code;
    for (int k = 0; k < limit; k++) {
        const int i = s->L.centre[rec[k].ii], e = s->L.elem[i];
        const hdnnp_sf *sf = &s->hm.sf[s->hm.el[e].sf0 + rec[k].sf];
        ew[k].atom = i;
        ew[k].tag = at->tag ? at->tag[i] : 0;
        ew[k].element = e;
        ew[k].sf = rec[k].sf;
        ew[k].value = rec[k].value;
        ew[k].gmin = sf->gmin;
        ew[k].gmax = sf->gmax;
    }
    hdnnp_context_ew_add(s->ctx, ew, (size_t)limit, count);
    return PK_OK;
}

static pk_code cuda_compute(void *model, void *state, const void *args, pk_out *out, pk_status *st)
{
    (void)model;
    hdnnp_cuda *s = (hdnnp_cuda *)state;
    const pk_hdnnp_args *a = (const pk_hdnnp_args *)args;
    const pk_atoms *at = a->atoms;
    if (pk_cuda_enter(&s->cuda, st) || upload_list(s, a, st)) return st->code;
    const int inum = s->L.inum, nall = s->L.nall;
    if (inum == 0) return PK_OK;
    const int want_vatom = out->vatom != NULL;
    const size_t nblocks = blocks((size_t)inum, PK_SUM_THREADS);
    if (reserve_step(s, want_vatom, nblocks, st)) return st->code;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    const size_t xbytes = 3 * (size_t)nall * sizeof(double);
    memcpy(s->h_x.ptr, at->x, xbytes);
    if (pk_cuda_upload(&s->cuda, s->x.ptr, s->h_x.ptr, xbytes, "positions", st) ||
        pk_cuda_zero(&s->cuda, s->counters.ptr, 2 * sizeof(int), "counters", st))
        return st->code;
    const hdg_step t = step_view(s);
    hdnnp_env_kernel<<<blocks((size_t)inum, THREADS), THREADS, 0, stream>>>(
        t, (int *)s->counters.ptr);
    if (pk_cuda_launched(&s->cuda, "hdnnp environment kernel", st) ||
        launch_pairs(s, t, st))
        return st->code;
    hdnnp_centre_kernel<<<blocks((size_t)inum, THREADS), THREADS, 0, stream>>>(t);
    if (pk_cuda_launched(&s->cuda, "hdnnp centre kernel", st)) return st->code;
    hdnnp_gather_kernel<<<blocks((size_t)nall, THREADS), THREADS, 0, stream>>>(t, want_vatom);
    if (pk_cuda_launched(&s->cuda, "hdnnp force gather", st)) return st->code;
    pk_block_sums_kernel<<<(unsigned)nblocks, PK_SUM_THREADS, 0, stream>>>(
        (const double *)s->ev.ptr, inum, EV, (double *)s->block_ev.ptr);
    if (pk_cuda_launched(&s->cuda, "hdnnp energy and virial sums", st)) return st->code;

    double *h_f = (double *)s->h_out.ptr, *h_vatom = h_f + 3 * (size_t)nall;
    double *h_ev = h_vatom + (want_vatom ? 6 * (size_t)nall : 0);
    double *h_block = h_ev + EV * (size_t)inum;
    int *h_counters = (int *)s->h_counters.ptr;
    if (pk_cuda_download(&s->cuda, h_counters, s->counters.ptr, 2 * sizeof(int), "counters", st) ||
        pk_cuda_download(&s->cuda, h_f, s->f.ptr, xbytes, "forces", st) ||
        (want_vatom && pk_cuda_download(&s->cuda, h_vatom, s->vatom.ptr,
                                        6 * (size_t)nall * sizeof(double), "per-atom virials",
                                        st)) ||
        (out->eatom && pk_cuda_download(&s->cuda, h_ev, s->ev.ptr,
                                        EV * (size_t)inum * sizeof(double), "per-atom energies",
                                        st)) ||
        pk_cuda_download(&s->cuda, h_block, s->block_ev.ptr, EV * nblocks * sizeof(double),
                         "energy and virial sums", st) ||
        pk_cuda_sync(&s->cuda, "the hdnnp step", st))
        return st->code;
    if (h_counters[0] > 0)
        return hdnnp_overlap_fail(hdnnp_context_model(s->ctx), at, a->nl, inum - h_counters[0],
                                  a->type_to_element, st);

    for (int j = 0; j < nall; j++)
        for (int k = 0; k < 3; k++) out->f[j][k] += h_f[3 * (size_t)j + k];
    if (want_vatom)
        for (int j = 0; j < nall; j++)
            for (int k = 0; k < 6; k++) out->vatom[j][k] += h_vatom[6 * (size_t)j + k];
    if (out->eatom)
        for (int ii = 0; ii < inum; ii++) out->eatom[s->L.centre[ii]] += h_ev[EV * (size_t)ii];
    double e = 0.0, v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (size_t b = 0; b < nblocks; b++) {
        e += h_block[EV * b];
        for (int k = 0; k < 6; k++) v[k] += h_block[EV * b + 1 + k];
    }
    if (out->want_energy) out->energy += e;
    if (out->want_virial)
        for (int k = 0; k < 6; k++) out->virial[k] += v[k];
    if (h_counters[1] > 0) return extrapolation(s, t, at, (long)h_counters[1], st);
    return PK_OK;
}

extern "C" const pk_backend_ops pk_hdnnp_backend_cuda = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    cuda_available, cuda_init, cuda_compute, cuda_memory, cuda_release};
