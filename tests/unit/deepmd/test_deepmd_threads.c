/* OpenMP: the same forces, energies and virials with 1, 2 and 3 threads (to 1e-13 of the
 * largest component: only the order of the per-thread reduction differs), and bitwise the
 * same on a rerun with the same thread count. Both kernels. */
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dp_run.h"
#include "pk_test.h"

enum { NAT = 81 };

int main(void)
{
#ifndef _OPENMP
    printf("built without OpenMP: nothing to test\n");
    return pk_test_finish();
#else
    pk_status st;
    double x[3 * NAT], L = 9.3, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    int type[NAT];
    dp_water(3, L, 3, x, type);
    dp_sys s;
    dp_sys_build(&s, NAT, x, type, box, 7.0);
    for (int k = 0; k < 2; k++) {
        pk_deepmd *dp = dp_load(k, 0.01, &st);
        PK_CHECK(dp != NULL, "%s", st.msg);
        if (!dp) return pk_test_finish();
        dp_result r1, r;
        omp_set_num_threads(1);
        PK_CHECK(dp_run(dp, &s, &r1, &st) == PK_OK, "%s", st.msg);
        for (int nt = 2; nt <= 3; nt++) {
            omp_set_num_threads(nt);
            dp_result again;
            PK_CHECK(dp_run(dp, &s, &r, &st) == PK_OK, "%s", st.msg);
            PK_CHECK(dp_run(dp, &s, &again, &st) == PK_OK, "%s", st.msg);
            double ef = dp_relerr(r.f, r1.f, 3 * NAT), ev = dp_relerr(r.v9, r1.v9, 9 * NAT);
            double ee = dp_relerr(&r.energy, &r1.energy, 1);
            printf("%s kernel, %d threads vs 1: f %.2e  vatom %.2e  energy %.2e\n",
                   k ? "tabulated" : "exact", nt, ef, ev, ee);
            PK_CHECK(ef <= 1e-13 && ev <= 1e-13 && ee <= 1e-15, "%d threads differ", nt);
            PK_CHECK(!memcmp(r.f, again.f, sizeof(double) * 3 * NAT) &&
                     !memcmp(r.v9, again.v9, sizeof(double) * 9 * NAT) &&
                     r.energy == again.energy, "rerun with %d threads is not bitwise equal", nt);
            dp_result_free(&r);
            dp_result_free(&again);
        }
        dp_result_free(&r1);
        pk_deepmd_destroy(dp);
    }
    dp_sys_free(&s);
    return pk_test_finish();
#endif
}
