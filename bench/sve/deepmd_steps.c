/* Step driver of deepmd/pk for the SVE instruction counts: `sve_steps_deepmd cpu|sve STEPS`
 * runs STEPS force evaluations (tabulated kernel, no energy or virial, as most MD steps) of
 * the agreement test's system, the 81-atom periodic water box with DeePMD-kit's
 * deeppot_sea model, on fixed positions and a fixed neighbour list. PK_DEEPMD_STEPS_MODEL
 * names another model (e.g. the realistic-size synthetic water model that the tests
 * generate, build/tests/deepmd_water_synthetic.yaml); PAIRKIT_DEEPMD_TANH_TABLE=1 turns on
 * the sve backend's tanh table. */
#include <stdio.h>
#include <stdlib.h>

#include "dp_run.h"
#include "sve_steps.h"

enum { NMOL = 3, NAT = 3 * NMOL * NMOL * NMOL };

int main(int argc, char **argv)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request req;
    int steps;
    if (sve_steps_args(argc, argv, &req, &steps)) return 2;
    const char *path = getenv("PK_DEEPMD_STEPS_MODEL");
    if (!path) path = dp_shared_path("reference/deepmd/deeppot_sea.yaml");
    pk_deepmd *dp = dp_load_path(path, 1, 0, &st);
    if (!dp || pk_deepmd_set_backend(dp, &req, &st)) {
        fprintf(stderr, "%s: %s\n", path, st.msg);
        return 2;
    }
    double x[3 * NAT], L = 9.3, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    int type[NAT];
    dp_water(NMOL, L, 3, x, type);
    dp_sys s;
    dp_sys_build(&s, NAT, x, type, box, pk_deepmd_cutoff(dp));
    double *f = malloc(sizeof(double) * 3 * (size_t)s.nall);
    for (int k = 0; k < steps; k++) {
        pk_out out = {.f = (double (*)[3])f};
        if (pk_deepmd_compute(dp, &s.atoms, &s.nl, &out, NULL, &st)) {
            fprintf(stderr, "compute: %s\n", st.msg);
            return 1;
        }
    }
    printf("atoms=%d steps=%d\n", s.nlocal, steps);
    free(f);
    dp_sys_free(&s);
    pk_deepmd_destroy(dp);
    return 0;
}
