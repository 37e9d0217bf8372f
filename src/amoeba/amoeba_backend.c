/* The backends of amoeba/pk (pk_backend.h): the table pk_amoeba_compute dispatches through.
 * cpu is the portable C step of amoeba_compute.c; its workspaces live in pk_amoeba_state,
 * so it keeps no state of its own. sve (src/sve/amoeba_sve.c, built with PAIRKIT_SVE) is the
 * same step with ACLE SVE pair kernels. cuda (src/cuda/amoeba_cuda.cu, built with
 * PAIRKIT_CUDA) runs HAL and the permanent multipoles on the GPU and the rest of the step on
 * the host (amoeba_gpu.c). */
#include "amoeba_gpu.h"
#include "amoeba_kernels.h"

static pk_code cpu_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)model;
    (void)state;
    const pk_amoeba_args *g = args;
    return amoeba_step(&AMOEBA_PORTABLE, g->model, g->atoms, g->sites, g->list, g->comm, g->terms,
                       g->state, out, st);
}

static const pk_backend_ops CPU = PK_BACKEND_CPU_OPS(cpu_compute);

const pk_backend_ops *const pk_amoeba_backends[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &CPU,
#ifdef PK_HAVE_CUDA
    [PK_BACKEND_CUDA] = &pk_amoeba_backend_cuda,
#endif
#ifdef PK_HAVE_SVE
    [PK_BACKEND_SVE] = &pk_amoeba_backend_sve,
#endif
};

pk_code pk_amoeba_set_backend(pk_amoeba_state *state, const pk_amoeba_model *m,
                              const pk_backend_request *req, pk_status *st)
{
    /* the seam's model is not const; no amoeba backend writes to it */
    return pk_backend_select(&state->backend, "amoeba/pk", pk_amoeba_backends, (void *)m, req,
                             st);
}

const pk_backend_slot *pk_amoeba_backend(const pk_amoeba_state *state)
{
    return &state->backend;
}
