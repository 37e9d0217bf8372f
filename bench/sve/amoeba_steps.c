/* Step driver of amoeba/pk for the SVE instruction counts: `sve_steps_amoeba cpu|sve STEPS`
 * runs STEPS whole steps (HAL, multipoles, mutual polarization by the preconditioned CG to
 * the key's 1e-5 Debye, polarization forces; forces only, as most MD steps) of the
 * agreement test's periodic box, 216 waters (648 atoms) at its key's 7 A cutoff, on fixed
 * positions and a fixed neighbour list. Needs PAIRKIT_SOURCE (the data files). */
#include <stdio.h>
#include <stdlib.h>

#include "amoeba_testsys.h"
#include "sve_steps.h"

int main(int argc, char **argv)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request req;
    int steps;
    if (sve_steps_args(argc, argv, &req, &steps)) return 2;
    pk_amoeba_model m;
    test_system s;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"),
                       &st) ||
        ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        fprintf(stderr, "setup: %s\n", st.msg);
        return 1;
    }
    const pk_atoms a = ts_atoms(&s);
    const pk_neigh nl = ts_neigh(&s);
    const pk_amoeba_topology top = ts_topology(&s);
    const pk_amoeba_sites sites = {.amtype = s.amtype, .amgroup = s.amgroup, .hred = s.hred,
                                   .mpole = s.mpole, .frame = (const int (*)[3])s.frame,
                                   .owner = s.owner};
    const pk_amoeba_comm comm = ts_comm(&s);
    const pk_amoeba_terms all = {1, 1, 1};
    pk_amoeba_list list = {0};
    pk_amoeba_state state = {0};
    double (*f)[3] = calloc((size_t)s.nall, sizeof *f);
    pk_code rc = ts_assign(&s, &m, &st);
    if (!rc) rc = pk_amoeba_list_build(&list, &m, &nl, &a, &top, &st);
    if (!rc) rc = pk_amoeba_set_backend(&state, &m, &req, &st);
    for (int k = 0; k < steps && !rc; k++) {
        pk_out out = {.f = f};
        rc = pk_amoeba_compute(&m, &a, &sites, &list, &comm, all, &state, &out, &st);
    }
    if (rc) {
        fprintf(stderr, "step: %s\n", st.msg);
        return 1;
    }
    printf("atoms=%d steps=%d\n", s.n, steps);
    free(f);
    pk_amoeba_state_free(&state);
    pk_amoeba_list_free(&list);
    ts_free(&s);
    pk_amoeba_free(&m);
    return 0;
}
