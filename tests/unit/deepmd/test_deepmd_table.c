/* Accuracy of the tabulated kernel against the exact one as the table interval shrinks:
 * the shape of Fig. 2 of Guo et al. (PPoPP'22). Energy per atom and force RMSE over a
 * sample of 100 water-like boxes (27 molecules at 1 g/cm^3, jittered positions and random
 * orientations), table_step 0.1, 0.01 and 0.001, double precision.
 *
 * Model: the realistic-size synthetic water model of tools/deepmd_synthetic_model.py
 * (embedding [25, 50, 100], axis 16, fitting [240, 240, 240], sel [46, 92]), generated at
 * build time; its path comes in PK_DEEPMD_WATER_MODEL. Its embedding nets vary on the scale
 * of one unit of s, so the interpolation error at 0.01 is well above the round-off floor
 * and the fall from 0.01 to 0.001 is real (DeePMD-kit's small test model is already at the
 * floor at 0.01: test_deepmd_reference holds it to 1e-10 there).
 *
 * Asserts: energy and force RMSE fall at each refinement, each by at least 10x; force
 * RMSE at 0.001 is at most 1e-9 eV/A. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dp_run.h"
#include "pk_test.h"

enum { NCONF = 100, NMOL = 3, NAT = 3 * NMOL * NMOL * NMOL, NSTEP = 3 };

int main(void)
{
    const char *path = getenv("PK_DEEPMD_WATER_MODEL");
    PK_CHECK(path != NULL, "PK_DEEPMD_WATER_MODEL is not set (ctest sets it)");
    if (!path) return pk_test_finish();
    pk_status st;
    const double steps[NSTEP] = {0.1, 0.01, 0.001};
    double rmse_e[NSTEP], rmse_f[NSTEP];
    pk_deepmd *exact = dp_load_path(path, 0, 0, &st);
    PK_CHECK(exact != NULL, "%s", st.msg);
    if (!exact) return pk_test_finish();
    static dp_sys sys[NCONF];
    static dp_result ref[NCONF];
    for (int c = 0; c < NCONF; c++) {
        double x[3 * NAT], L = 9.313, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
        int type[NAT];
        dp_water(NMOL, L, 100 + c, x, type);
        dp_sys_build(&sys[c], NAT, x, type, box, pk_deepmd_cutoff(exact));
        PK_CHECK(dp_run(exact, &sys[c], &ref[c], &st) == PK_OK, "%s", st.msg);
    }
    for (int k = 0; k < NSTEP; k++) {
        pk_deepmd *dp = dp_load_path(path, 1, steps[k], &st);
        PK_CHECK(dp != NULL, "%s", st.msg);
        if (!dp) return pk_test_finish();
        double se = 0, sf = 0;
        for (int c = 0; c < NCONF; c++) {
            dp_result r;
            PK_CHECK(dp_run(dp, &sys[c], &r, &st) == PK_OK, "%s", st.msg);
            double de = (r.energy - ref[c].energy) / NAT;
            se += de * de;
            for (int q = 0; q < 3 * NAT; q++) sf += pow(r.f[q] - ref[c].f[q], 2);
            dp_result_free(&r);
        }
        rmse_e[k] = sqrt(se / NCONF);
        rmse_f[k] = sqrt(sf / (NCONF * 3.0 * NAT));
        printf("table_step %-6g energy RMSE %.3e eV/atom  force RMSE %.3e eV/A  (tables and "
               "scratch %.1f MB)\n", steps[k], rmse_e[k], rmse_f[k],
               pk_deepmd_memory(dp) / 1048576.0);
        pk_deepmd_destroy(dp);
    }
    double fsum = 0;
    for (int c = 0; c < NCONF; c++)
        for (int q = 0; q < 3 * NAT; q++) fsum += ref[c].f[q] * ref[c].f[q];
    printf("exact kernel: force RMS %.3f eV/A over %d atoms\n", sqrt(fsum / (NCONF * 3.0 * NAT)),
           NCONF * NAT);
    for (int k = 1; k < NSTEP; k++) {
        PK_CHECK(rmse_f[k] <= 0.1 * rmse_f[k - 1], "force RMSE %.3g at step %g is not 10x "
                 "below %.3g at step %g", rmse_f[k], steps[k], rmse_f[k - 1], steps[k - 1]);
        PK_CHECK(rmse_e[k] <= 0.1 * rmse_e[k - 1], "energy RMSE %.3g at step %g is not 10x "
                 "below %.3g at step %g", rmse_e[k], steps[k], rmse_e[k - 1], steps[k - 1]);
    }
    PK_CHECK(rmse_f[NSTEP - 1] <= 1e-9, "force RMSE %.3g eV/A at step 0.001 (want <= 1e-9)",
             rmse_f[NSTEP - 1]);
    for (int c = 0; c < NCONF; c++) {
        dp_result_free(&ref[c]);
        dp_sys_free(&sys[c]);
    }
    pk_deepmd_destroy(exact);
    return pk_test_finish();
}
