/* mdpd/pk's SVE backend (DESIGN.md §8): the portable drivers of the two passes
 * (pk_mdpd_host_step) with the SVE row kernels of mdpd_sve_density.c and mdpd_sve_forces.c;
 * setup, pair cache, communication and reductions are the cpu backend's. */
#include "mdpd_internal.h"
#include "pk_sve.h"

static pk_code sve_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    /* pk_mdpd_set_backend refuses uniform noise here; this catches a later pk_mdpd_set_noise */
    if (((const pk_mdpd *)model)->noise != PK_MDPD_NOISE_GAUSSIAN)
        return pk_fail(st, PK_ERR_UNSUPPORTED, "backend sve draws only gaussian noise; choose "
                       "the backend again after pk_mdpd_set_noise");
    return pk_mdpd_host_step(model, args, out, pk_mdpd_sve_density_rows,
                             pk_mdpd_sve_force_rows, st);
}

const pk_backend_ops pk_mdpd_backend_sve = PK_BACKEND_SVE_OPS(sve_compute);
