/* Forces are minus the gradient of the energy and the virial is minus its strain
 * derivative, for both kernels, on DeePMD-kit's periodic test box, its non-periodic one
 * and a 27-molecule water-like box (many neighbours, several in the switching range; forces
 * of its first 5 molecules, to keep the test short).
 *
 * Derivatives by the 4-point central stencil [8(E(h) - E(-h)) - (E(2h) - E(-2h))] / 12h,
 * h = 2e-3 (A, or strain): error O(h^4) plus about 1e-11 eV / 12h of round-off on totals of
 * ~1e4 eV. Tolerance: 1e-6 of the largest force (resp. virial) component.
 * Strain: x_a -> x_a + eps x_b for every atom and cell vector; W[a][b] = -dE/deps is the
 * global virial sum_ij F_ij[a] (x_j - x_i)[b] (LAMMPS's xy is W[1][0]). */
#include <stdio.h>

#include "dp_run.h"
#include "pk_test.h"

int main(void)
{
    pk_status st;
    dp_case *cs;
    int nc = dp_cases_read(dp_shared_path("reference/deepmd/deeppot_sea-testcase.yaml"), NULL,
                           &cs);
    pk_deepmd *dp[2] = {dp_load(0, 0, &st), dp_load(1, 0.01, &st)};
    PK_CHECK(nc == 3 && dp[0] && dp[1], "setup: %s", st.msg);
    if (nc != 3 || !dp[0] || !dp[1]) return pk_test_finish();

    dp_config cf[3];
    int types[2][64];
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < cs[b].natoms; i++) types[b][i] = cs[b].atype[i] + 1;
        cf[b] = (dp_config){.n = cs[b].natoms, .x = cs[b].coord, .type = types[b],
                            .box = cs[b].box};
    }
    double wx[81 * 3], L = 9.3, wbox[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    int wt[81];
    dp_water(3, L, 7, wx, wt);
    cf[2] = (dp_config){.n = 81, .x = wx, .type = wt, .box = wbox, .nfd = 15};

    const char *names[3] = {"testcase box 1", "testcase no-PBC", "water 27"};
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 3; b++) {
            double ef, ew, el;
            dp_fd_errors(dp[k], &cf[b], 7.0, 2e-3, &ef, &ew, &el);
            printf("%s kernel, %s: |F - F_fd| / max|F| = %.2e, |W - W_fd| / max|W| = %.2e\n",
                   k ? "tabulated" : "exact", names[b], ef, ew);
            PK_CHECK(ef <= 1e-6, "%s forces vs finite differences: %.3g", names[b], ef);
            PK_CHECK(ew <= 1e-6, "%s virial vs strain derivative: %.3g", names[b], ew);
            PK_CHECK(el <= 1e-14, "%s LAMMPS-order virial vs sum of atomic ones: %.3g",
                     names[b], el);
        }
    pk_deepmd_destroy(dp[0]);
    pk_deepmd_destroy(dp[1]);
    dp_cases_free(cs, nc);
    return pk_test_finish();
}
