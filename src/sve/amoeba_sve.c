/* The sve backend of amoeba/pk: the portable step (amoeba_step, amoeba_compute.c) with the
 * SVE pair kernels of this directory in place of the portable ones where written (the
 * direct field, the PCG products, the HAL pair loop, and the multipole and polarization
 * pair forces with their sums onto the atoms); the rest (neighbour batches, HAL's sums
 * onto the sites, frames, torques, the PCG's vector passes) runs the portable C. Double
 * precision; its workspaces are the cpu backend's, in pk_amoeba_state. */
#include "amoeba_sve.h"
#include "pk_sve.h"

static const amoeba_kernels SVE_KERNELS = {
    .field = amoeba_sve_field,
    .products = amoeba_sve_products,
    .products_fit = amoeba_sve_products_fit,
    .polar = amoeba_sve_polar,
    .mpole = amoeba_sve_mpole,
    .hal = amoeba_sve_hal,
};

static pk_code sve_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)model;
    (void)state;
    const pk_amoeba_args *g = args;
    return amoeba_step(&SVE_KERNELS, g->model, g->atoms, g->sites, g->list, g->comm, g->terms,
                       g->state, out, st);
}

const pk_backend_ops pk_amoeba_backend_sve = PK_BACKEND_SVE_OPS(sve_compute);
