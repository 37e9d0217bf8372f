/* The sve backend of hdnnp/pk: the portable driver (hdnnp_compute_with: OpenMP over centre
 * atoms, environments, scaling, energies, forces, virials) with the SVE per-atom kernels of
 * hdnnp_sve_symfunc.c, hdnnp_sve_contract.c and hdnnp_sve_network.c. */
#include "hdnnp_sve.h"
#include "pk_sve.h"

static const hdnnp_kernels sve_kernels = {hdnnp_sve_symfuncs, hdnnp_sve_contract,
                                          hdnnp_sve_network_eval};

static pk_code sve_compute(void *ctx, void *state, const void *args, pk_out *out, pk_status *st)
{
    (void)state;
    const pk_hdnnp_args *a = args;
    return hdnnp_compute_with(ctx, a->atoms, a->nl, a->type_to_element, &sve_kernels, out, st);
}

const pk_backend_ops pk_hdnnp_backend_sve = PK_BACKEND_SVE_OPS(sve_compute);
