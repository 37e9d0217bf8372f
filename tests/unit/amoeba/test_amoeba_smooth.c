/* SMOOTH electrostatics: the energy and the forces are continuous where a pair crosses a
 * cutoff (and LAMMPS mode's are not, which shows the test can fail), the work of the
 * forces along a path through all cutoffs equals the energy change, a switch that does not
 * start inside its cutoff is refused, and reruns are bitwise identical.
 *
 * The water dimer with multipoles cut at 6 A (switched from 4.5) and polarization at 5 A
 * (from 3.5); molecule 2 is moved by t along the O-O direction, so each of its 9 atom pairs
 * with molecule 1 crosses each cutoff at a known t. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_testsys.h"
#include "pk_test.h"

enum { ALL = TS_HAL | TS_MPOLE | TS_POLAR };

typedef struct {
    test_system s;
    pk_amoeba_model m;
    double x0[6][3];   /* starting positions */
    double e[3];       /* unit O1 -> O2 */
    double (*f)[3];
} scan;

static int scan_open(scan *c)
{
    pk_status st;
    if (pk_amoeba_read(&c->m, ts_data("amoeba_water.prm"), ts_data("amoeba_water.key"), &st) ||
        ts_load(&c->s, ts_data("water_dimer.txt"), 0, 0) || ts_assign(&c->s, &c->m, &st)) {
        PK_CHECK(0, "dimer setup: %s", st.msg);
        return -1;
    }
    c->m.set.mpole_cut = 6.0;
    c->m.set.mpole_taper = 4.5;
    c->m.set.polar_cut = 5.0;
    c->m.set.polar_taper = 3.5;
    c->m.set.polar_eps = 1e-10;
    memcpy(c->x0, c->s.x, sizeof c->x0);
    double n = 0;
    for (int d = 0; d < 3; d++) {
        c->e[d] = c->s.x[3][d] - c->s.x[0][d];   /* atoms 1 and 4 are the oxygens */
        n += c->e[d] * c->e[d];
    }
    for (int d = 0; d < 3; d++) c->e[d] /= sqrt(n);
    c->f = calloc(6, sizeof *c->f);
    return 0;
}

static void scan_close(scan *c)
{
    free(c->f);
    ts_free(&c->s);
    pk_amoeba_free(&c->m);
}

/* Energy and forces with molecule 2 moved by t; returns dE/dt = -sum_b F_b . e. */
static double at(scan *c, double t, double *energy)
{
    pk_status st;
    for (int i = 0; i < 6; i++)
        for (int d = 0; d < 3; d++) c->s.x[i][d] = c->x0[i][d] + (i >= 3 ? t * c->e[d] : 0.0);
    pk_code rc = ts_compute(&c->s, &c->m, ALL, energy, c->f, NULL, &st);
    PK_CHECK(rc == PK_OK && c->s.info.converged, "scan at t = %g: %s", t, st.msg);
    double g = 0;
    for (int i = 3; i < 6; i++) g -= c->f[i][0] * c->e[0] + c->f[i][1] * c->e[1] + c->f[i][2] * c->e[2];
    return g;
}

/* The t > 0 at which atoms a (molecule 1) and b (molecule 2) are cut apart. */
static double crossing(const scan *c, int a, int b, double cut)
{
    double p[3], pe = 0, pp = 0;
    for (int d = 0; d < 3; d++) {
        p[d] = c->x0[b][d] - c->x0[a][d];
        pe += p[d] * c->e[d];
        pp += p[d] * p[d];
    }
    return -pe + sqrt(pe * pe - pp + cut * cut);
}

/* Largest jump over all 18 crossings of the energy not explained by its slope,
 * |E(t+h) - E(t-h) - 2h dE/dt(t)|, and of the forces, max |F(t+h) - F(t-h)|. */
static void jumps(scan *c, double h, double *je, double *jf)
{
    double f0[6][3];
    *je = *jf = 0;
    for (int k = 0; k < 18; k++) {
        const double cut = k < 9 ? c->m.set.mpole_cut : c->m.set.polar_cut;
        const double t = crossing(c, (k % 9) / 3, 3 + k % 3, cut);
        double ep, em, e0;
        const double g = at(c, t, &e0);
        at(c, t - h, &em);
        memcpy(f0, c->f, sizeof f0);
        at(c, t + h, &ep);
        *je = fmax(*je, fabs(ep - em - 2 * h * g));
        for (int i = 0; i < 6; i++)
            for (int d = 0; d < 3; d++) *jf = fmax(*jf, fabs(c->f[i][d] - f0[i][d]));
    }
}

static void continuity(void)
{
    scan c;
    if (scan_open(&c)) return;
    double je[2][2], jf[2][2];
    const double h[2] = {1e-3, 1e-6};
    for (int mode = 0; mode < 2; mode++) {
        c.m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
        for (int k = 0; k < 2; k++) {
            jumps(&c, h[k], &je[mode][k], &jf[mode][k]);
            printf("%s: across the cutoffs with step %.0e: energy jump %.2e kcal/mol, force jump "
                   "%.2e kcal/mol/A\n", mode ? "smooth" : "lammps", h[k], je[mode][k], jf[mode][k]);
        }
    }
    /* hard cutoffs: jumps that do not shrink with the step */
    PK_CHECK(je[0][1] > 0.1 && jf[0][1] > 0.1, "lammps mode jumps %g %g", je[0][1], jf[0][1]);
    /* smooth: C2, so the energy's jump beyond its slope goes as h^3 and the forces' as h */
    PK_CHECK(je[1][1] < 1e-10, "smooth energy jump %g", je[1][1]);
    PK_CHECK(jf[1][1] < 2e-5, "smooth force jump %g", jf[1][1]);
    PK_CHECK(jf[1][1] < 2e-3 * jf[1][0], "smooth force jump shrinks linearly: %g then %g", jf[1][0],
             jf[1][1]);
    scan_close(&c);
}

/* Work along the path: from O-O 2.9 A to beyond every cutoff (all pairs > 6 A), the energy
 * change against the integral of dE/dt = -F . e (composite Simpson, n intervals). This is
 * what NVE energy conservation needs; the hard cutoffs fail it by their (partly cancelling)
 * jumps. */
static void path_work(void)
{
    scan c;
    if (scan_open(&c)) return;
    const int n = 1200;
    const double t1 = 6.0;
    const double dt = t1 / n;
    for (int mode = 0; mode < 2; mode++) {
        c.m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
        double e0 = 0, e1, e, sum = 0;
        for (int k = 0; k <= n; k++) {
            const double g = at(&c, k * dt, &e);
            sum += g * (k == 0 || k == n ? 1 : k % 2 ? 4 : 2);
            if (k == 0) e0 = e;
        }
        e1 = e;
        const double work = sum * dt / 3;
        printf("%s: E(end) - E(start) = %.10f, integral of dE/dt along the path = %.10f "
               "(difference %.2e kcal/mol)\n", mode ? "smooth" : "lammps", e1 - e0, work,
               fabs(e1 - e0 - work));
        if (mode)
            PK_CHECK(fabs(e1 - e0 - work) < 1e-6 * fabs(e1 - e0), "smooth path: %g vs %g", e1 - e0, work);
        else
            PK_CHECK(fabs(e1 - e0 - work) > 1e-2, "lammps path should miss its jumps: %g vs %g", e1 - e0, work);
    }
    scan_close(&c);
}

/* A switch must start inside (0, cutoff) in SMOOTH mode; LAMMPS mode ignores it. */
static void bad_switch(void)
{
    scan c;
    if (scan_open(&c)) return;
    pk_status st;
    double e;
    static const struct {
        int polar;
        double taper;
        const char *want;
    } bad[] = {{0, 6.0, "multipole switch starts at 6"},
               {0, 0.0, "multipole switch starts at 0"},
               {1, 7.5, "polarization switch starts at 7.5"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        pk_amoeba_model m = c.m;
        if (bad[k].polar) m.set.polar_taper = bad[k].taper;
        else m.set.mpole_taper = bad[k].taper;
        m.set.elec = PK_AMOEBA_ELEC_SMOOTH;
        pk_code rc = ts_compute(&c.s, &m, bad[k].polar ? TS_POLAR : TS_MPOLE, &e, c.f, NULL, &st);
        PK_CHECK(rc == PK_ERR_ARG && strstr(st.msg, bad[k].want) && strstr(st.msg, "taper"),
                 "bad switch %zu: %s", k, st.msg);
        m.set.elec = PK_AMOEBA_ELEC_LAMMPS;
        rc = ts_compute(&c.s, &m, bad[k].polar ? TS_POLAR : TS_MPOLE, &e, c.f, NULL, &st);
        PK_CHECK(rc == PK_OK, "lammps mode ignores the taper: %s", st.msg);
    }
    scan_close(&c);
}

/* The periodic box in SMOOTH mode: a rerun gives the same bits (per thread count); the
 * per-atom energies add up to the total. */
static void box_rerun(void)
{
    pk_amoeba_model m;
    pk_status st;
    test_system s;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"), &st) ||
        ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        PK_CHECK(0, "box setup: %s", st.msg);
        return;
    }
    m.set.elec = PK_AMOEBA_ELEC_SMOOTH;
    ts_assign(&s, &m, &st);
    double (*f1)[3] = calloc((size_t)s.n, sizeof *f1), (*f2)[3] = calloc((size_t)s.n, sizeof *f2);
    double e1 = NAN, e2 = NAN, v1[6] = {0}, v2[6] = {0}, esum = 0; /* defined even if a compute fails */
    s.eatom = calloc((size_t)s.n, sizeof *s.eatom);
    pk_code rc = ts_compute(&s, &m, ALL, &e1, f1, v1, &st);
    for (int i = 0; i < s.n; i++) esum += s.eatom[i];
    free(s.eatom);
    s.eatom = NULL;
    if (!rc) rc = ts_compute(&s, &m, ALL, &e2, f2, v2, &st);
    printf("smooth water box: E = %.10f kcal/mol (%d PCG iterations), sum of per-atom %.10f\n", e1,
           s.info.iterations, esum);
    PK_CHECK(rc == PK_OK, "box: %s", st.msg);
    PK_CHECK(e1 == e2 && !memcmp(f1, f2, (size_t)s.n * sizeof *f1) && !memcmp(v1, v2, sizeof v1),
             "smooth rerun is bitwise identical");
    PK_CHECK_CLOSE(esum, e1, 1e-12, 1.0);
    free(f1);
    free(f2);
    ts_free(&s);
    pk_amoeba_free(&m);
}

int main(void)
{
    continuity();
    path_work();
    bad_switch();
    box_rerun();
    return pk_test_finish();
}
