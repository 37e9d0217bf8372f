/* hdnnp/pk backends (pk_backend.h): the portable C driver as the cpu backend. */
#include "hdnnp_kernel.h"

static pk_code cpu_compute(void *ctx, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    const pk_hdnnp_args *a = args;
    return hdnnp_compute_cpu(ctx, a->atoms, a->nl, a->type_to_element, out, st);
}

static const pk_backend_ops cpu_backend = PK_BACKEND_CPU_OPS(cpu_compute);

/* cuda and sve: not written yet */
const pk_backend_ops *const pk_hdnnp_backends[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &cpu_backend,
};
