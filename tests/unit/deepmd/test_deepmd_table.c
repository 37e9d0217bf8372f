/* Accuracy of the tabulated kernel against the exact one as the table interval shrinks
 * (the shape of Fig. 2 of Guo et al., PPoPP'22): energy per atom and force RMSE on 10
 * water-like boxes of 27 molecules, for table_step 0.1, 0.05, 0.02, 0.01 and 0.001.
 *
 * Asserts: the errors fall at every refinement down to 0.01 (interpolation error, ~h^6
 * for a quintic); 0.001 stays below the 0.1 error and below 1e-9 eV/A force RMSE. From
 * 0.01 on, this small model is at the round-off floor (the slope of a piece carries the
 * ~1e-16 noise of the net's values divided by h), so 0.001 is not asserted below 0.01. */
#include <math.h>
#include <stdio.h>

#include "dp_run.h"
#include "pk_test.h"

enum { NCONF = 10, NMOL = 3, NAT = 3 * NMOL * NMOL * NMOL };

int main(void)
{
    pk_status st;
    const double steps[5] = {0.1, 0.05, 0.02, 0.01, 0.001};
    double rmse_e[5], rmse_f[5];
    pk_deepmd *exact = dp_load(0, 0, &st);
    PK_CHECK(exact != NULL, "%s", st.msg);
    if (!exact) return pk_test_finish();
    dp_sys sys[NCONF];
    dp_result ref[NCONF];
    for (int c = 0; c < NCONF; c++) {
        double x[3 * NAT], L = 9.3, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
        int type[NAT];
        dp_water(NMOL, L, 100 + c, x, type);
        dp_sys_build(&sys[c], NAT, x, type, box, 7.0);
        PK_CHECK(dp_run(exact, &sys[c], &ref[c], &st) == PK_OK, "%s", st.msg);
    }
    for (int k = 0; k < 5; k++) {
        pk_deepmd *dp = dp_load(1, steps[k], &st);
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
        printf("table_step %-6g energy RMSE %.3e eV/atom  force RMSE %.3e eV/A  (%.2f MB)\n",
               steps[k], rmse_e[k], rmse_f[k], pk_deepmd_memory(dp) / 1048576.0);
        pk_deepmd_destroy(dp);
    }
    for (int k = 1; k < 4; k++) {
        PK_CHECK(rmse_f[k] < rmse_f[k - 1], "force error does not fall from step %g to %g",
                 steps[k - 1], steps[k]);
        PK_CHECK(rmse_e[k] <= rmse_e[k - 1], "energy error grows from step %g to %g",
                 steps[k - 1], steps[k]);
    }
    PK_CHECK(rmse_f[4] < rmse_f[0] && rmse_f[4] <= 1e-9, "step 0.001 force RMSE %.3g",
             rmse_f[4]);
    for (int c = 0; c < NCONF; c++) {
        dp_result_free(&ref[c]);
        dp_sys_free(&sys[c]);
    }
    pk_deepmd_destroy(exact);
    return pk_test_finish();
}
