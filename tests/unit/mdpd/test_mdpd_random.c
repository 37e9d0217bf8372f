/* mdpd core: the pair random numbers are symmetric, reproducible and unit Gaussian (or
 * uniform with mean 0 and variance 1), and the random force on a pair is equal and opposite
 * whichever atom lists the other. */
#include <string.h>

#include <Random123/philox.h>

#include "mdpd.h"
#include "mdpd_random.h"
#include "pk_test.h"

static void test_symmetric_and_keyed(void)
{
    double a = pk_mdpd_pair_gaussian(9872598u, 100, 17, 4242);
    PK_CHECK(a == pk_mdpd_pair_gaussian(9872598u, 100, 4242, 17), "pair order matters");
    PK_CHECK(a == pk_mdpd_pair_gaussian(9872598u, 100, 17, 4242), "not reproducible");
    PK_CHECK(a != pk_mdpd_pair_gaussian(9872598u, 101, 17, 4242), "step does not change it");
    PK_CHECK(a != pk_mdpd_pair_gaussian(9872599u, 100, 17, 4242), "seed does not change it");
    PK_CHECK(a != pk_mdpd_pair_gaussian(9872598u, 100, 17, 4243), "tag does not change it");
    PK_CHECK(pk_mdpd_pair_gaussian(1u, UINT64_C(1) << 33, 1, 2) !=
                 pk_mdpd_pair_gaussian(1u, 0, 1, 2), "high timestep bits ignored");
}

/* Mean 0, variance 1, fourth moment 3, each within 6 standard errors. */
static void test_unit_gaussian(void)
{
    const int n = 4000000;
    double s1 = 0, s2 = 0, s4 = 0;
    for (int k = 0; k < n; k++) {
        double g = pk_mdpd_pair_gaussian(12345u, (uint64_t)(k / 4000), k % 4000 + 1, 5000 + k % 777);
        s1 += g; s2 += g * g; s4 += g * g * g * g;
    }
    double mean = s1 / n, var = s2 / n - mean * mean, m4 = s4 / n;
    PK_CHECK(fabs(mean) < 6.0 / sqrt(n), "mean %g", mean);
    PK_CHECK(fabs(var - 1.0) < 6.0 * sqrt(2.0 / n), "variance %g", var);
    PK_CHECK(fabs(m4 - 3.0) < 6.0 * sqrt(96.0 / n), "fourth moment %g", m4);
    printf("gaussian: mean %.2e variance %.5f fourth moment %.4f over %d samples\n", mean, var, m4, n);
}

/* The uniform noise: keyed and pair-symmetric as the Gaussian, a different stream, inside
 * (-sqrt 3, sqrt 3), and with mean 0, variance 1 and fourth moment 9/5 (uniform on
 * [-sqrt 3, sqrt 3]), each within 6 standard errors over 4e6 pairs (standard errors
 * sqrt(1/n), sqrt(0.8/n), sqrt((81/9 - 3.24)/n) = sqrt(5.76/n)). */
static void test_unit_uniform(void)
{
    const uint32_t key = pk_mdpd_noise_key(9872598u, 100);
    const double a = pk_mdpd_uniform_keyed(key, 17, 4242);
    PK_CHECK(a == pk_mdpd_uniform_keyed(key, 4242, 17), "pair order matters");
    PK_CHECK(a == pk_mdpd_noise_keyed(1, key, 17, 4242), "noise_keyed(uniform) differs");
    PK_CHECK(pk_mdpd_noise_keyed(0, key, 17, 4242) == pk_mdpd_gaussian_keyed(key, 17, 4242),
             "noise_keyed(gaussian) is not the default stream");
    PK_CHECK(a != pk_mdpd_uniform_keyed(pk_mdpd_noise_key(9872598u, 101), 17, 4242),
             "step does not change it");
    /* words w and 2^32 - 1 - w give exact opposites; the ends are -+(1 - 2^-32) sqrt 3 */
    int opposite = 1;
    for (uint32_t w = 0; w < 100000u; w++) {
        const uint32_t v = w * 42949u;
        if (pk_mdpd_uniform_of_word(v) != -pk_mdpd_uniform_of_word(0xFFFFFFFFu - v)) opposite = 0;
    }
    PK_CHECK(opposite, "uniform noise of w and 2^32-1-w are not exact opposites");
    PK_CHECK(pk_mdpd_uniform_of_word(0xFFFFFFFFu) == 1.7320508075688772 * (1.0 - 0x1.0p-32),
             "largest word gives %.17g", pk_mdpd_uniform_of_word(0xFFFFFFFFu));
    const int n = 4000000;
    double s1 = 0, s2 = 0, s4 = 0, biggest = 0;
    for (int k = 0; k < n; k++) {
        const double u = pk_mdpd_uniform_keyed(pk_mdpd_noise_key(12345u, (uint64_t)(k / 4000)),
                                               k % 4000 + 1, 5000 + k % 777);
        s1 += u; s2 += u * u; s4 += u * u * u * u;
        if (fabs(u) > biggest) biggest = fabs(u);
    }
    const double mean = s1 / n, var = s2 / n - mean * mean, m4 = s4 / n;
    PK_CHECK(biggest < sqrt(3.0), "|xi| = %.17g reaches sqrt 3", biggest);
    PK_CHECK(fabs(mean) < 6.0 * sqrt(1.0 / n), "mean %g", mean);
    PK_CHECK(fabs(var - 1.0) < 6.0 * sqrt(0.8 / n), "variance %g", var);
    PK_CHECK(fabs(m4 - 1.8) < 6.0 * sqrt(5.76 / n), "fourth moment %g", m4);
    printf("uniform: mean %.2e variance %.5f fourth moment %.4f max |xi| %.6f over %d samples\n",
           mean, var, m4, biggest, n);
}

/* Two beads at rest: only the random force acts. Listing the pair from either side gives
 * F on bead 0 and F on bead 1 that are exact negatives; for either noise. */
static void test_random_force_antisymmetric(pk_mdpd_noise noise)
{
    double x[2][3] = {{0.1, 0.2, 0.3}, {0.5, 0.1, 0.6}}, v[2][3] = {{0}};
    int type[2] = {1, 1};
    pk_tag tag[2] = {7, 3};
    double mass[2] = {0, 1};
    pk_atoms atoms = {2, 0, (const double(*)[3])x, (const double(*)[3])v, type, tag, mass, NULL};
    int from0[1] = {1}, from1[1] = {0}, i0 = 0, i1 = 1;
    int *first0[2] = {from0, NULL}, *first1[2] = {NULL, from1};
    int num0[2] = {1, 0}, num1[2] = {0, 1};
    pk_neigh by0 = {1, &i0, num0, first0}, by1 = {1, &i1, num1, first1};

    pk_status st;
    pk_mdpd *m = pk_mdpd_create(1);
    pk_mdpd_settings(m, 1.0, 1.0, 99, PK_MDPD_WARREN, &st);
    pk_mdpd_coeff(m, 1, 1, 1, 1, 0.0, 0.0, 4.5, 1.0, 0.75, &st);
    pk_mdpd_init(m, &st);
    PK_CHECK(pk_mdpd_set_noise(m, noise, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_set_noise(m, (pk_mdpd_noise)7, &st) == PK_ERR_ARG, "noise 7 accepted");
    double rho[2] = {0, 0};
    double fa[2][3] = {{0}}, fb[2][3] = {{0}};
    pk_mdpd_step step = {3, 0.01, NULL};
    pk_out oa = {fa, 0, {0}, 0, 0, NULL, NULL}, ob = {fb, 0, {0}, 0, 0, NULL, NULL};
    /* A = B = 0: the density only feeds the pair cache the force pass reuses. */
    PK_CHECK(pk_mdpd_density(m, &atoms, &by0, 1, rho, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_forces(m, &atoms, &by0, 1, rho, &step, &oa, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_density(m, &atoms, &by1, 1, rho, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_forces(m, &atoms, &by1, 1, rho, &step, &ob, &st) == PK_OK, "%s", st.msg);
    for (int d = 0; d < 3; d++) {
        PK_CHECK(fa[0][d] == -fa[1][d], "F01 != -F10 (%g, %g)", fa[0][d], fa[1][d]);
        PK_CHECK(fa[0][d] == fb[0][d], "differs by listing side (%g, %g)", fa[0][d], fb[0][d]);
        PK_CHECK(fa[0][d] != 0.0, "no random force");
    }
    pk_mdpd_destroy(m);
}

/* The in-house cos(2 pi u) used by Box-Muller against libm over [0, 1). */
static void test_cos_two_pi(void)
{
    double worst = 0.0;
    for (int k = 0; k <= 1000000; k++) {
        double u = k / 1000001.0;
        double err = fabs(pk_cos_two_pi(u) - cos(PK_TWO_PI * u));
        if (err > worst) worst = err;
    }
    PK_CHECK(worst < 1e-15, "max |pk_cos_two_pi - cos| = %g", worst);
    printf("cos(2 pi u): max abs error vs libm %.3g\n", worst);
}

/* Our Philox-2x32-10 against the Random123 reference implementation. */
static void test_philox_matches_random123(void)
{
    uint32_t state = 12345u;
    int same = 1;
    for (int k = 0; k < 100000; k++) {
        state = state * 1664525u + 1013904223u;
        uint32_t a = state, b = state * 69069u + 1u, key = state ^ 0xA5A5A5A5u;
        philox2x32_ctr_t ref = philox2x32_R(10, ((philox2x32_ctr_t){{a, b}}), ((philox2x32_key_t){{key}}));
        pk_philox2x32_10(&a, &b, key);
        if (a != ref.v[0] || b != ref.v[1]) same = 0;
    }
    PK_CHECK(same, "pk_philox2x32_10 differs from Random123 philox2x32_R(10, ...)");
}

/* The in-house log against libm over the range Box-Muller uses, (2^-32, 1]. */
static void test_log(void)
{
    double worst = 0.0;
    for (int k = 0; k <= 1000000; k++) {
        double x = exp2(-32.0 * k / 1000000.0) * (1.0 - 1e-7 * (k % 7));
        double want = log(x);
        double err = fabs(pk_log_normal(x) - want) / fmax(fabs(want), 1e-300);
        if (want != 0.0 && err > worst) worst = err;
    }
    PK_CHECK(worst < 1e-15, "max relative |pk_log_normal - log| = %g", worst);
    printf("log: max relative error vs libm %.3g\n", worst);
}

int main(void)
{
    test_philox_matches_random123();
    test_log();
    test_cos_two_pi();
    test_symmetric_and_keyed();
    test_unit_gaussian();
    test_unit_uniform();
    test_random_force_antisymmetric(PK_MDPD_NOISE_GAUSSIAN);
    test_random_force_antisymmetric(PK_MDPD_NOISE_UNIFORM);
    return pk_test_finish();
}
