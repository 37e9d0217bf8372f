/* mdpd core: forces against finite differences of the Warren many-body energy, newton on/off
 * agreement with ghosts, and independence of the thread count. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mdpd.h"
#include "mdpd_system.h"
#include "pk_test.h"

typedef struct {
    double (*f)[3];
    double *rho, *eatom, (*vatom)[6];
    double energy, virial[6];
} result;

static pk_mdpd *make_model(pk_mdpd_kernel kernel, double kT, int mixed)
{
    pk_status st;
    pk_mdpd *m = pk_mdpd_create(2);
    pk_mdpd_settings(m, kT, 1.0, 4242, kernel, &st);
    if (mixed) {
        pk_mdpd_coeff(m, 1, 1, 1, 1, -40.0, 25.0, 4.5, 1.0, 0.75, &st);
        pk_mdpd_coeff(m, 1, 1, 2, 2, -30.0, 20.0, 3.0, 0.9, 0.7, &st);
        pk_mdpd_coeff(m, 2, 2, 2, 2, -50.0, 30.0, 6.0, 1.0, 0.8, &st);
    } else {
        pk_mdpd_coeff(m, 1, 2, 1, 2, -40.0, 25.0, kT > 0 ? 4.5 : 0.0, 1.0, 0.75, &st);
    }
    if (pk_mdpd_init(m, &st)) { fprintf(stderr, "%s\n", st.msg); exit(2); }
    return m;
}

/* One complete evaluation, as the adapter does it: density, ghost completion, forces,
 * then ghost forces folded back (what LAMMPS's reverse communication does). */
static void evaluate(pk_mdpd *m, mdpd_system *s, int newton, result *r)
{
    pk_status st;
    pk_atoms a = mdpd_system_atoms(s);
    pk_neigh l = mdpd_system_list(s);
    r->f = calloc((size_t)s->nall, sizeof *r->f);
    r->rho = calloc((size_t)s->nall, sizeof *r->rho);
    r->eatom = calloc((size_t)s->nall, sizeof *r->eatom);
    r->vatom = calloc((size_t)s->nall, sizeof *r->vatom);
    if (pk_mdpd_density(m, &a, &l, newton, r->rho, &st)) { fprintf(stderr, "%s\n", st.msg); exit(2); }
    mdpd_system_complete(s, r->rho, newton);
    pk_out out = {r->f, 0.0, {0}, 1, 1, r->eatom, r->vatom};
    pk_mdpd_step step = {17, 0.01, NULL};
    if (pk_mdpd_forces(m, &a, &l, newton, r->rho, &step, &out, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        exit(2);
    }
    if (newton) mdpd_system_fold_forces(s, r->f);
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
}

static void release(result *r)
{
    free(r->f); free(r->rho); free(r->eatom); free(r->vatom);
}

static double energy_at(pk_mdpd *m, mdpd_system *s)
{
    result r;
    evaluate(m, s, 1, &r);
    double e = r.energy;
    release(&r);
    return e;
}

/* Warren kernel, gamma = 0: F = -grad U with U the many-body energy (Warren 2003 eq. 10). */
static void test_forces_are_energy_gradient(void)
{
    mdpd_system s;
    mdpd_system_make(&s, 80, 0.0, 2.2, 11u);
    mdpd_system_neighbors(&s, 1.0, 1);
    pk_mdpd *m = make_model(PK_MDPD_WARREN, 0.0, 0);
    result r;
    evaluate(m, &s, 1, &r);
    const double h = 1e-5;
    double worst = 0.0;
    for (int i = 0; i < 20; i++) {
        for (int d = 0; d < 3; d++) {
            double x0 = s.x[i][d];
            s.x[i][d] = x0 + h;
            double ep = energy_at(m, &s);
            s.x[i][d] = x0 - h;
            double em = energy_at(m, &s);
            s.x[i][d] = x0;
            double fd = -(ep - em) / (2 * h);
            double rel = fabs(fd - r.f[i][d]) / fmax(fabs(r.f[i][d]), 1.0);
            if (rel > worst) worst = rel;
            PK_CHECK_CLOSE(r.f[i][d], fd, 1e-6, 1.0);
        }
    }
    printf("warren: max relative |F + dU/dx| = %.3g (tolerance 1e-6)\n", worst);
    release(&r);
    pk_mdpd_destroy(m);
    mdpd_system_free(&s);
}

/* The same periodic system with newton on (pairs with ghosts once, ghost parts folded back)
 * and off (pairs with ghosts on both sides): identical physics, random forces (of either
 * noise) included. */
static void test_newton_on_off_agree(pk_mdpd_kernel kernel, pk_mdpd_noise noise)
{
    mdpd_system s;
    mdpd_system_make(&s, 192, 4.0, 0.0, 7u);
    pk_mdpd *m = make_model(kernel, 1.0, 1);
    pk_status st;
    PK_CHECK(pk_mdpd_set_noise(m, noise, &st) == PK_OK, "%s", st.msg);
    result on, off;
    mdpd_system_neighbors(&s, 1.0, 1);
    evaluate(m, &s, 1, &on);
    mdpd_system_neighbors(&s, 1.0, 0);
    evaluate(m, &s, 0, &off);
    for (int i = 0; i < s.nlocal; i++) {
        PK_CHECK_CLOSE(on.rho[i], off.rho[i], 1e-12, 1.0);
        for (int d = 0; d < 3; d++) PK_CHECK_CLOSE(on.f[i][d], off.f[i][d], 1e-11, 1.0);
    }
    PK_CHECK_CLOSE(on.energy, off.energy, 1e-12, 1.0);
    for (int k = 0; k < 6; k++) PK_CHECK_CLOSE(on.virial[k], off.virial[k], 1e-12, 1.0);
    /* Per-atom energies sum to the total (newton off: owned atoms only carry it). */
    double esum = 0.0;
    for (int i = 0; i < s.nlocal; i++) esum += off.eatom[i];
    PK_CHECK_CLOSE(esum, off.energy, 1e-12, 1.0);
    /* Momentum: pair forces cancel exactly in pairs, so the total is round-off small. */
    double p[3] = {0, 0, 0};
    for (int i = 0; i < s.nlocal; i++) for (int d = 0; d < 3; d++) p[d] += on.f[i][d];
    PK_CHECK(fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e-9, "total force %g %g %g", p[0], p[1], p[2]);
    release(&on);
    release(&off);
    pk_mdpd_destroy(m);
    mdpd_system_free(&s);
}

/* 1 and 2 threads give the same forces, for either noise (the pair's xi depends on the
 * tags alone, not on which thread draws it). */
static void test_threads_agree(pk_mdpd_noise noise)
{
#ifdef _OPENMP
    mdpd_system s;
    mdpd_system_make(&s, 192, 4.0, 0.0, 5u);
    mdpd_system_neighbors(&s, 1.0, 1);
    pk_mdpd *m = make_model(PK_MDPD_WARREN, 1.0, 1);
    pk_status st;
    PK_CHECK(pk_mdpd_set_noise(m, noise, &st) == PK_OK, "%s", st.msg);
    result one, two;
    omp_set_num_threads(1);
    evaluate(m, &s, 1, &one);
    omp_set_num_threads(2);
    evaluate(m, &s, 1, &two);
    for (int i = 0; i < s.nlocal; i++)
        for (int d = 0; d < 3; d++) PK_CHECK_CLOSE(one.f[i][d], two.f[i][d], 1e-12, 1.0);
    PK_CHECK_CLOSE(one.energy, two.energy, 1e-13, 1.0);
    release(&one);
    release(&two);
    pk_mdpd_destroy(m);
    mdpd_system_free(&s);
#else
    (void)noise;
    printf("threads: skipped (built without OpenMP)\n");
#endif
}

static void test_bad_coefficients(void)
{
    pk_status st;
    pk_mdpd *m = pk_mdpd_create(2);
    PK_CHECK(pk_mdpd_settings(m, 1.0, 1.0, 0, PK_MDPD_WARREN, &st) == PK_ERR_ARG, "seed 0");
    PK_CHECK(strstr(st.msg, "seed must be a positive integer") != NULL, "%s", st.msg);
    PK_CHECK(pk_mdpd_settings(m, 1.0, -1.0, 3, PK_MDPD_WARREN, &st) == PK_ERR_ARG, "rc < 0");
    PK_CHECK(strstr(st.msg, "cutoff must be > 0") != NULL, "%s", st.msg);
    PK_CHECK(pk_mdpd_settings(m, 1.0, 1.0, 3, PK_MDPD_WARREN, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_coeff(m, 1, 1, 1, 1, -40, 25, 18, 0.7, 0.75, &st) == PK_ERR_ARG, "rd > rc");
    PK_CHECK(strstr(st.msg, "rd = 0.75 is larger than cutoff rc = 0.7") != NULL, "%s", st.msg);
    PK_CHECK(pk_mdpd_coeff(m, 1, 1, 1, 1, -40, 25, 18, 1.0, 0.75, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_init(m, &st) == PK_ERR_ARG, "unset pair");
    PK_CHECK(strstr(st.msg, "type pair 1 2 are not set") != NULL, "%s", st.msg);
    pk_mdpd_destroy(m);
}

/* Expect code and a message holding `needle` (the quantity and its value). */
static void expect_msg(pk_code got, pk_code want, const pk_status *st, const char *needle)
{
    PK_CHECK(got == want, "code %d, want %d (%s)", got, want, st->msg);
    PK_CHECK(strstr(st->msg, needle) != NULL, "message \"%s\" lacks \"%s\"", st->msg, needle);
}

/* nan, inf, overflow ("1e999" as LAMMPS's numeric() reads it: inf) and out-of-range numbers,
 * and derived constants that overflow although every input is finite. */
static void test_nonfinite_coefficients(void)
{
    pk_status st;
    const double nan = strtod("nan", NULL), inf = strtod("1e999", NULL);
    pk_mdpd *m = pk_mdpd_create(2);
    expect_msg(pk_mdpd_settings(m, nan, 1.0, 3, PK_MDPD_WARREN, &st), PK_ERR_ARG, &st,
               "temperature must be >= 0 (got nan)");
    expect_msg(pk_mdpd_settings(m, inf, 1.0, 3, PK_MDPD_WARREN, &st), PK_ERR_ARG, &st,
               "temperature must be finite (got inf)");
    expect_msg(pk_mdpd_settings(m, 1.0, inf, 3, PK_MDPD_WARREN, &st), PK_ERR_ARG, &st,
               "cutoff must be finite (got inf)");
    PK_CHECK(pk_mdpd_settings(m, 1.0, 1.0, 3, PK_MDPD_WARREN, &st) == PK_OK, "%s", st.msg);
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, nan, 25, 18, 1.0, 0.75, &st), PK_ERR_ARG, &st,
               "A must be finite (got nan)");
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, -inf, 18, 1.0, 0.75, &st), PK_ERR_ARG, &st,
               "B must be finite (got -inf)");
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, inf, 1.0, 0.75, &st), PK_ERR_ARG, &st,
               "gamma must be finite (got inf)");
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, -1.0, 1.0, 0.75, &st), PK_ERR_ARG, &st,
               "gamma must be >= 0 (got -1)");
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, 18, inf, 0.75, &st), PK_ERR_ARG, &st,
               "cutoff rc must be finite (got inf)");
    expect_msg(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, 18, 1.0, nan, &st), PK_ERR_ARG, &st,
               "density cutoff rd must be > 0 (got nan)");
    PK_CHECK(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, 18, 1.0, 0.75, &st) == PK_OK, "%s", st.msg);
    expect_msg(pk_mdpd_density_cutoff(m, 1, 1, inf, &st), PK_ERR_ARG, &st,
               "density cutoff must be finite (got inf)");
    PK_CHECK(pk_mdpd_init(m, &st) == PK_OK, "finite coefficients: %s", st.msg);

    /* derived: sigma^2 = 2 gamma kT overflows; 1/rc of a subnormal rc overflows */
    PK_CHECK(pk_mdpd_settings(m, 1e200, 1.0, 3, PK_MDPD_WARREN, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_coeff(m, 1, 1, 2, 2, -40, 25, 1e200, 1.0, 0.75, &st) == PK_OK, "%s", st.msg);
    expect_msg(pk_mdpd_init(m, &st), PK_ERR_NUMERIC, &st,
               "type pair 1 2: random force amplitude sqrt(2 gamma kT) is not finite "
               "(gamma 1e+200, kT 1e+200)");
    PK_CHECK(pk_mdpd_settings(m, 1.0, 1.0, 3, PK_MDPD_WARREN, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_coeff(m, 1, 2, 1, 2, -40, 25, 18, 1e-320, 1e-320, &st) == PK_OK, "%s", st.msg);
    expect_msg(pk_mdpd_init(m, &st), PK_ERR_NUMERIC, &st,
               "type pair 1 1: 1/cutoff or cutoff^2 is not finite (rc 9.99989e-321");
    pk_mdpd_destroy(m);
}

int main(void)
{
    test_forces_are_energy_gradient();
    test_newton_on_off_agree(PK_MDPD_WARREN, PK_MDPD_NOISE_GAUSSIAN);
    test_newton_on_off_agree(PK_MDPD_LUCY, PK_MDPD_NOISE_GAUSSIAN);
    test_newton_on_off_agree(PK_MDPD_WARREN, PK_MDPD_NOISE_UNIFORM);
    test_threads_agree(PK_MDPD_NOISE_GAUSSIAN);
    test_threads_agree(PK_MDPD_NOISE_UNIFORM);
    test_bad_coefficients();
    test_nonfinite_coefficients();
    return pk_test_finish();
}
