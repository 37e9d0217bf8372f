/* hdnnp/pk backends (pk_backend.h): the portable C driver with the portable kernels as the
 * cpu backend; the same driver with SVE kernels as the sve backend (src/sve/hdnnp_sve.c);
 * the kernels of hdnnp_gpu.h on a GPU as the cuda backend (src/cuda/hdnnp_cuda.cu). */
#include "hdnnp_gpu.h"
#include "hdnnp_kernel.h"

static pk_code cpu_compute(void *ctx, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    const pk_hdnnp_args *a = args;
    return hdnnp_compute_with(ctx, a->atoms, a->nl, a->type_to_element, &hdnnp_kernels_cpu, out,
                              st);
}

static const pk_backend_ops cpu_backend = PK_BACKEND_CPU_OPS(cpu_compute);

const pk_backend_ops *const pk_hdnnp_backends[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &cpu_backend,
#ifdef PK_HAVE_CUDA
    [PK_BACKEND_CUDA] = &pk_hdnnp_backend_cuda,
#endif
#ifdef PK_HAVE_SVE
    [PK_BACKEND_SVE] = &pk_hdnnp_backend_sve,
#endif
};
