/* Step driver of mdpd/pk for the SVE instruction counts: `sve_steps_mdpd cpu|sve STEPS` runs
 * STEPS steps (density, its ghost exchange, forces with noise; no energy or virial, as most MD
 * steps) of the backend tests' liquid, 750 beads of two types with special pairs, on fixed
 * positions and a fixed neighbour list, the timestep advancing so that each step draws new
 * noise. */
#include <stdio.h>
#include <stdlib.h>

#include "mdpd.h"
#include "mdpd_system.h"
#include "sve_steps.h"

int main(int argc, char **argv)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request req;
    int steps;
    if (sve_steps_args(argc, argv, &req, &steps)) return 2;
    pk_mdpd *m = mdpd_two_type_model(PK_MDPD_WARREN);
    if (pk_mdpd_set_backend(m, &req, &st)) {
        fprintf(stderr, "backend: %s\n", st.msg);
        return 2;
    }
    mdpd_system s;
    mdpd_system_liquid(&s, 11u);
    const double special[4] = MDPD_LIQUID_SPECIAL;
    pk_mdpd_step step = {100, 0.01, special};
    mdpd_result r;
    mdpd_result_alloc(&r, &s);
    for (int k = 0; k < steps; k++, step.timestep++)
        mdpd_system_step(m, &s, &step, k == 0, 0, &r);
    printf("atoms=%d steps=%d\n", s.nlocal, steps);
    mdpd_result_free(&r);
    mdpd_system_free(&s);
    pk_mdpd_destroy(m);
    return 0;
}
