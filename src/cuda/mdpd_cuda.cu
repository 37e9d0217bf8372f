/* mdpd/pk on CUDA: the density and force passes over a full neighbour list, one thread per
 * atom summing over its own neighbours in list order (mdpd_gather.h, the same PK_HD code the
 * host test runs), so every sum is written by one thread in a fixed order and reruns give
 * the same bits. The noise is the C kernel's Philox stream, drawn per pair from the seed,
 * step and sorted tags, so CPU and GPU apply the same random forces.
 *
 * One step: upload positions and velocities (the list, types, tags and masses only when
 * LAMMPS rebuilt the list); density pass; owned densities down; interior forces (atoms whose
 * neighbours are all owned) run while the host sends the densities to other ranks' ghosts
 * (the overlap of DL_MESO's multi-GPU scheme); ghost densities up; border forces; forces
 * and, when asked, energies down. With a full list each rank computes only its own atoms'
 * forces, so no reverse communication is needed. */
#include <cuda_runtime.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mdpd_internal.h"
#include "pk_cuda.h"
#include "pk_cuda_sums.cuh"

static_assert(sizeof(pk_tag) == sizeof(int), "atom IDs are uploaded as int");

PK_MDPD_PAIR_FUNCTIONS(_f, float)
PK_MDPD_GATHER_FUNCTIONS(, double)
PK_MDPD_GATHER_FUNCTIONS(_f, float)

enum { THREADS = 128, EV = 7 };

typedef struct {
    pk_cuda_ctx cuda;
    int mixed;
    /* device */
    pk_cuda_buffer pair, x, v, type, tag, mass, rho, centre, offset, neigh, f, ev, block_ev;
    /* pinned host staging */
    pk_cuda_buffer h_xv, h_atoms, h_list, h_rho, h_out;
    /* the list on the device */
    int inum, interior, nall;
    int have_list;
} mdpd_cuda;

template <bool Mixed>
__global__ void pk_mdpd_density_kernel(pk_mdpd_gather g, double *rho, int n)
{
    const int ii = blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= n) return;
    rho[g.centre[ii]] = Mixed ? pk_mdpd_gather_density_f(&g, ii) : pk_mdpd_gather_density(&g, ii);
}

template <bool Mixed>
__global__ void pk_mdpd_force_kernel(pk_mdpd_gather g, const double *rho, int first, int end,
                                     int want_ev, double *f, double *ev)
{
    const int ii = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= end) return;
    double fi[3] = {0.0, 0.0, 0.0}, e[EV] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (Mixed) pk_mdpd_gather_force_f(&g, rho, ii, want_ev, fi, e);
    else pk_mdpd_gather_force(&g, rho, ii, want_ev, fi, e);
    for (int k = 0; k < 3; k++) f[3 * ii + k] = fi[k];
    if (want_ev)
        for (int k = 0; k < EV; k++) ev[EV * ii + k] = e[k];
}

static int blocks(int n, int threads) { return (n + threads - 1) / threads; }

static int cuda_available(char *why, size_t len) { return pk_cuda_available(why, len); }

static void cuda_release(void *state)
{
    mdpd_cuda *s = (mdpd_cuda *)state;
    if (!s) return;
    pk_cuda_buffer *device[] = {&s->pair, &s->x, &s->v, &s->type, &s->tag, &s->mass, &s->rho,
                                &s->centre, &s->offset, &s->neigh, &s->f, &s->ev, &s->block_ev};
    for (pk_cuda_buffer *b : device) pk_cuda_release(&s->cuda, b);
    pk_cuda_buffer *host[] = {&s->h_xv, &s->h_atoms, &s->h_list, &s->h_rho, &s->h_out};
    for (pk_cuda_buffer *b : host) pk_cuda_host_release(b);
    pk_cuda_close(&s->cuda);
    free(s);
}

static double cuda_memory(const void *state)
{
    const mdpd_cuda *s = (const mdpd_cuda *)state;
    return (double)(s->cuda.held + s->h_xv.bytes + s->h_atoms.bytes + s->h_list.bytes +
                    s->h_rho.bytes + s->h_out.bytes);
}

/* The coefficients are copied once; pk_mdpd_set_backend is called again when they change. */
static pk_code cuda_init(void *model, const pk_backend_request *req, void **state,
                         pk_backend_info *info, pk_status *st)
{
    const pk_mdpd *m = (const pk_mdpd *)model;
    mdpd_cuda *s = (mdpd_cuda *)calloc(1, sizeof *s);
    if (!s) return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the CUDA backend");
    s->mixed = info->precision == PK_PRECISION_MIXED;
    const size_t pair_bytes = sizeof(pk_mdpd_pair) * (size_t)(m->ntypes + 1) * (m->ntypes + 1);
    if (pk_cuda_open(&s->cuda, req, info, st) ||
        pk_cuda_reserve(&s->cuda, &s->pair, pair_bytes, "pair coefficients", st) ||
        pk_cuda_upload(&s->cuda, s->pair.ptr, m->pair, pair_bytes, "pair coefficients", st) ||
        pk_cuda_sync(&s->cuda, "uploading the pair coefficients", st)) {
        cuda_release(s);
        return st->code;
    }
    *state = s;
    return PK_OK;
}

/* The list in CSR form with interior entries first, and the per-atom data that only change
 * when the list is rebuilt (types, tags, masses), to the device. */
static pk_code upload_list(const pk_mdpd *m, mdpd_cuda *s, const pk_mdpd_args *a, pk_status *st)
{
    const pk_atoms *at = a->atoms;
    const int nlocal = at->nlocal, nall = at->nlocal + at->nghost, inum = a->list->inum;
    const size_t nneigh = pk_mdpd_csr_size(a->list);
    if (nneigh > (size_t)INT_MAX)
        return pk_fail(st, PK_ERR_RANGE, "%zu neighbour entries on this rank exceed the CUDA "
                       "backend's 32-bit offsets; use more ranks or GPUs", nneigh);
    const int lucy = pk_mdpd_kernel_of(m) == PK_MDPD_LUCY;
    const size_t list_ints = (size_t)inum + ((size_t)inum + 1) + nneigh;
    const size_t atom_bytes = (size_t)nall * (2 * sizeof(int) + (lucy ? sizeof(double) : 0));
    if (pk_cuda_host_reserve(&s->cuda, &s->h_list, list_ints * sizeof(int), "neighbour list", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_atoms, atom_bytes, "types, tags and masses", st) ||
        pk_cuda_reserve(&s->cuda, &s->centre, (size_t)inum * sizeof(int), "list centres", st) ||
        pk_cuda_reserve(&s->cuda, &s->offset, ((size_t)inum + 1) * sizeof(int), "list offsets", st) ||
        pk_cuda_reserve(&s->cuda, &s->neigh, nneigh * sizeof(int), "neighbour list", st) ||
        pk_cuda_reserve(&s->cuda, &s->type, (size_t)nall * sizeof(int), "atom types", st) ||
        pk_cuda_reserve(&s->cuda, &s->tag, (size_t)nall * sizeof(int), "atom IDs", st) ||
        (lucy && pk_cuda_reserve(&s->cuda, &s->mass, (size_t)nall * sizeof(double), "masses", st)))
        return st->code;
    /* the previous step's transfers from these buffers must be done before they are rewritten */
    if (pk_cuda_sync(&s->cuda, "the previous step", st)) return st->code;
    int *centre = (int *)s->h_list.ptr, *offset = centre + inum, *neigh = offset + inum + 1;
    s->interior = pk_mdpd_csr_fill(a->list, nlocal, centre, offset, neigh);
    int *type = (int *)s->h_atoms.ptr, *tag = type + nall;
    memcpy(type, at->type, (size_t)nall * sizeof(int));
    memcpy(tag, at->tag, (size_t)nall * sizeof(int));
    if (lucy) {
        double *mass = (double *)(tag + nall);
        for (int i = 0; i < nall; i++) mass[i] = at->rmass ? at->rmass[i] : at->mass[at->type[i]];
    }
    if (pk_cuda_upload(&s->cuda, s->centre.ptr, centre, (size_t)inum * sizeof(int), "list centres",
                       st) ||
        pk_cuda_upload(&s->cuda, s->offset.ptr, offset, ((size_t)inum + 1) * sizeof(int),
                       "list offsets", st) ||
        pk_cuda_upload(&s->cuda, s->neigh.ptr, neigh, nneigh * sizeof(int), "neighbour list", st) ||
        pk_cuda_upload(&s->cuda, s->type.ptr, type, (size_t)nall * sizeof(int), "atom types", st) ||
        pk_cuda_upload(&s->cuda, s->tag.ptr, tag, (size_t)nall * sizeof(int), "atom IDs", st) ||
        (lucy && pk_cuda_upload(&s->cuda, s->mass.ptr, tag + nall, (size_t)nall * sizeof(double),
                                "masses", st)))
        return st->code;
    s->inum = inum;
    s->nall = nall;
    s->have_list = 1;
    return PK_OK;
}

template <bool Mixed>
static pk_code launch_density(mdpd_cuda *s, const pk_mdpd_gather &g, int n, pk_status *st)
{
    if (n <= 0) return PK_OK;
    pk_mdpd_density_kernel<Mixed><<<blocks(n, THREADS), THREADS, 0, (cudaStream_t)s->cuda.stream>>>(
        g, (double *)s->rho.ptr, n);
    return pk_cuda_launched(&s->cuda, "mdpd density kernel", st);
}

template <bool Mixed>
static pk_code launch_forces(mdpd_cuda *s, const pk_mdpd_gather &g, int first, int end, int want_ev,
                             pk_status *st)
{
    if (end <= first) return PK_OK;
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    pk_mdpd_force_kernel<Mixed><<<blocks(end - first, THREADS), THREADS, 0, stream>>>(
        g, (const double *)s->rho.ptr, first, end, want_ev, (double *)s->f.ptr,
        (double *)s->ev.ptr);
    return pk_cuda_launched(&s->cuda, "mdpd force kernel", st);
}

static pk_code cuda_compute(void *model, void *state, const void *args, pk_out *out, pk_status *st)
{
    const pk_mdpd *m = (const pk_mdpd *)model;
    mdpd_cuda *s = (mdpd_cuda *)state;
    const pk_mdpd_args *a = (const pk_mdpd_args *)args;
    const pk_atoms *at = a->atoms;
    if (!at->v) return pk_fail(st, PK_ERR_ARG, "mdpd needs velocities of owned and ghost atoms");
    if (!at->tag) return pk_fail(st, PK_ERR_ARG, "mdpd needs atom IDs");
    if (!(a->step->dt > 0.0)) return pk_fail(st, PK_ERR_ARG, "timestep must be > 0");
    if (pk_mdpd_kernel_of(m) == PK_MDPD_LUCY && !at->mass && !at->rmass)
        return pk_fail(st, PK_ERR_ARG, "the lucy density kernel needs atom masses");
    const int nlocal = at->nlocal, nall = at->nlocal + at->nghost;
    if (pk_cuda_enter(&s->cuda, st)) return st->code;
    if (a->list_changed || !s->have_list || s->nall != nall || s->inum != a->list->inum)
        if (upload_list(m, s, a, st)) return st->code;
    const int inum = s->inum;
    const int want_ev = out->want_energy || out->want_virial || out->eatom || out->vatom;
    const int nblocks = blocks(inum, PK_SUM_THREADS);
    const size_t xv = 3 * (size_t)nall * sizeof(double);
    if (pk_cuda_host_reserve(&s->cuda, &s->h_xv, 2 * xv, "positions and velocities", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_rho, (size_t)nall * sizeof(double), "densities", st) ||
        pk_cuda_host_reserve(&s->cuda, &s->h_out, ((size_t)inum * (3 + EV) + (size_t)nblocks * EV) *
                             sizeof(double), "forces and energies", st) ||
        pk_cuda_reserve(&s->cuda, &s->x, xv, "positions", st) ||
        pk_cuda_reserve(&s->cuda, &s->v, xv, "velocities", st) ||
        pk_cuda_reserve(&s->cuda, &s->rho, (size_t)nall * sizeof(double), "densities", st) ||
        pk_cuda_reserve(&s->cuda, &s->f, 3 * (size_t)inum * sizeof(double), "forces", st) ||
        (want_ev && (pk_cuda_reserve(&s->cuda, &s->ev, EV * (size_t)inum * sizeof(double),
                                     "per-atom energies and virials", st) ||
                     pk_cuda_reserve(&s->cuda, &s->block_ev, EV * (size_t)nblocks * sizeof(double),
                                     "energy and virial sums", st))))
        return st->code;

    double *h_x = (double *)s->h_xv.ptr, *h_v = h_x + 3 * (size_t)nall;
    memcpy(h_x, at->x, xv);
    memcpy(h_v, at->v, xv);
    cudaStream_t stream = (cudaStream_t)s->cuda.stream;
    if (pk_cuda_upload(&s->cuda, s->x.ptr, h_x, xv, "positions", st) ||
        pk_cuda_upload(&s->cuda, s->v.ptr, h_v, xv, "velocities", st))
        return st->code;
    if (pk_cuda_zero(&s->cuda, s->rho.ptr, (size_t)nall * sizeof(double), "densities", st))
        return st->code;

    pk_mdpd_gather g;
    pk_mdpd_gather_params(m, a->step, &g);
    g.x = (const double(*)[3])s->x.ptr;
    g.v = (const double(*)[3])s->v.ptr;
    g.type = (const int *)s->type.ptr;
    g.tag = (const pk_tag *)s->tag.ptr;
    g.mass = pk_mdpd_kernel_of(m) == PK_MDPD_LUCY ? (const double *)s->mass.ptr : NULL;
    g.centre = (const int *)s->centre.ptr;
    g.offset = (const int *)s->offset.ptr;
    g.neigh = (const int *)s->neigh.ptr;
    g.pair = (const pk_mdpd_pair *)s->pair.ptr;

    /* density, then the owned atoms' values down to the host */
    double *h_rho = (double *)s->h_rho.ptr;
    if ((s->mixed ? launch_density<true>(s, g, inum, st) : launch_density<false>(s, g, inum, st)) ||
        pk_cuda_download(&s->cuda, h_rho, s->rho.ptr, (size_t)nlocal * sizeof(double),
                         "densities", st) ||
        pk_cuda_mark(&s->cuda, st))
        return st->code;
    /* interior forces need no ghost density: they run while the host communicates */
    if ((s->mixed ? launch_forces<true>(s, g, 0, s->interior, want_ev, st)
                  : launch_forces<false>(s, g, 0, s->interior, want_ev, st)) ||
        pk_cuda_wait_mark(&s->cuda, "the density pass", st))
        return st->code;
    memcpy(a->rho, h_rho, (size_t)nlocal * sizeof(double));
    if (a->comm.forward_rho) a->comm.forward_rho(a->comm.ctx);
    memcpy(h_rho + nlocal, a->rho + nlocal, (size_t)at->nghost * sizeof(double));
    if (pk_cuda_upload(&s->cuda, (double *)s->rho.ptr + nlocal, h_rho + nlocal,
                       (size_t)at->nghost * sizeof(double), "ghost densities", st) ||
        (s->mixed ? launch_forces<true>(s, g, s->interior, inum, want_ev, st)
                  : launch_forces<false>(s, g, s->interior, inum, want_ev, st)))
        return st->code;
    if (want_ev && inum > 0) {
        pk_block_sums_kernel<<<nblocks, PK_SUM_THREADS, 0, stream>>>((const double *)s->ev.ptr, inum,
                                                                     EV, (double *)s->block_ev.ptr);
        if (pk_cuda_launched(&s->cuda, "energy and virial sums", st)) return st->code;
    }

    double *h_f = (double *)s->h_out.ptr, *h_ev = h_f + 3 * (size_t)inum;
    double *h_block = h_ev + EV * (size_t)inum;
    const int per_atom = out->eatom || out->vatom;
    if (pk_cuda_download(&s->cuda, h_f, s->f.ptr, 3 * (size_t)inum * sizeof(double), "forces", st) ||
        (per_atom && pk_cuda_download(&s->cuda, h_ev, s->ev.ptr, EV * (size_t)inum * sizeof(double),
                                      "per-atom energies and virials", st)) ||
        (want_ev && pk_cuda_download(&s->cuda, h_block, s->block_ev.ptr,
                                     EV * (size_t)nblocks * sizeof(double), "energy sums", st)) ||
        pk_cuda_sync(&s->cuda, "the mdpd force pass", st))
        return st->code;

    const int *centre = (const int *)s->h_list.ptr;
    for (int ii = 0; ii < inum; ii++) {
        const int i = centre[ii];
        for (int k = 0; k < 3; k++) out->f[i][k] += h_f[3 * ii + k];
        if (out->eatom) out->eatom[i] += h_ev[EV * ii];
        if (out->vatom)
            for (int k = 0; k < 6; k++) out->vatom[i][k] += h_ev[EV * ii + 1 + k];
    }
    if (want_ev)
        for (int b = 0; b < (inum > 0 ? nblocks : 0); b++) {
            if (out->want_energy) out->energy += h_block[EV * b];
            if (out->want_virial)
                for (int k = 0; k < 6; k++) out->virial[k] += h_block[EV * b + 1 + k];
        }
    return PK_OK;
}

extern "C" const pk_backend_ops pk_mdpd_backend_cuda = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    cuda_available, cuda_init, cuda_compute, cuda_memory, cuda_release};
