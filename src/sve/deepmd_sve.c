/* deepmd/pk sve backend: the portable driver (deepmd.c: slots, batches, threads,
 * reductions) with the tabulated kernel's hot parts in SVE: the fused table evaluation and
 * contraction, forward and backward (deepmd_sve_fused.c), and the descriptor and fitting
 * nets (deepmd_sve_fit.c). The exact kernel (tabulate no) stays portable C. */
#include "deepmd_sve.h"
#include "pk_sve.h"

static const dp_kernels sve_kernels = {dp_sve_fused_forward, dp_sve_fused_backward,
                                       dp_sve_fit};

static pk_code sve_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    const pk_deepmd_args *a = args;
    return dp_compute(model, &sve_kernels, a->atoms, a->nl, out, a->vatom9, st);
}

const pk_backend_ops pk_deepmd_backend_sve = PK_BACKEND_SVE_OPS(sve_compute);
