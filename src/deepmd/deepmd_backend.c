/* deepmd/pk backends (pk_backend.h): the portable C kernel as the cpu backend, and the
 * choice of a model's backend. */
#include <stdio.h>

#include "deepmd_internal.h"

/* A float32 model's fitting nets run in float here (the exact kernel, the sve and the cuda
 * backends keep them in double). */
static void fit_cpu(const pk_deepmd *dp, int ti, int nb, const double *T, double *e,
                    double *dEdT, double *scratch)
{
    if (dp->m.fit_f32)
        dp_fit_atoms_f(&dp->m, ti, nb, T, e, dEdT, scratch);
    else
        dp_fit_atoms(&dp->m, ti, nb, T, e, dEdT, scratch);
}

const dp_kernels dp_kernels_cpu = {dp_fused_forward, dp_fused_backward, fit_cpu};

static pk_code cpu_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    const pk_deepmd_args *a = args;
    return dp_compute(model, &dp_kernels_cpu, a->atoms, a->nl, out, a->vatom9, st);
}

static const pk_backend_ops cpu_backend = PK_BACKEND_CPU_OPS(cpu_compute);

const pk_backend_ops *const pk_deepmd_backends[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &cpu_backend,
#ifdef PK_HAVE_CUDA
    [PK_BACKEND_CUDA] = &pk_deepmd_backend_cuda,
#endif
#ifdef PK_HAVE_SVE
    [PK_BACKEND_SVE] = &pk_deepmd_backend_sve,
#endif
};

/* The CUDA kernel is the tabulated one: with `tabulate no`, auto runs what it would take
 * without CUDA and says why, where an explicit `backend cuda` is refused at init. */
pk_code pk_deepmd_set_backend(pk_deepmd *dp, const pk_backend_request *req, pk_status *st)
{
    pk_status_clear(st);
    pk_backend_request r = *req;
    pk_backend_kind kind;
    char note[sizeof dp->backend.note];
    const int exact_passes_cuda =
        req->kind == PK_BACKEND_AUTO && !dp->opt.tabulate &&
        pk_backend_choose("deepmd/pk", pk_deepmd_backends, req, &kind, note, sizeof note, st) ==
            PK_OK && kind == PK_BACKEND_CUDA;
    pk_status_clear(st);
    if (exact_passes_cuda) r.kind = PK_BACKEND_CPU;
    if (pk_backend_select(&dp->backend, "deepmd/pk", pk_deepmd_backends, dp, &r, st))
        return st->code;
    if (exact_passes_cuda)
        snprintf(dp->backend.note, sizeof dp->backend.note,
                 "cuda not used: tabulate no (the CUDA kernel is the tabulated one)");
    return PK_OK;
}

const pk_backend_slot *pk_deepmd_backend(const pk_deepmd *dp) { return &dp->backend; }

const char *pk_deepmd_fit_precision(const pk_deepmd *dp)
{
    if (!dp->m.fit_f32) return "fitting net float64";
    if (!dp->opt.tabulate)
        return "fitting net float64 (float32 model: the exact kernel runs it in double)";
    if (dp->backend.ops && dp->backend.ops->kind != PK_BACKEND_CPU)
        return "fitting net float64 (float32 model: only the cpu backend runs it in float32)";
    return "fitting net float32";
}
