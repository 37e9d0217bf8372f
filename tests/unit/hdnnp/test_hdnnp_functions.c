/* hdnnp/pk building blocks against finite differences and direct formulas:
 * - every cutoff type (0-8, with and without inner cutoff): df against FD of f, and the
 *   kernel's four-lane version against the scalar one;
 * - every activation letter: derivative against FD of the value;
 * - the vectorisable exp and its four-lane version against libm;
 * - every symmetry-function type (2, 3, 9, 12, 13) with every cutoff type, and every
 *   compact-support type (20-25) with every compact function (p1-p4, p1a-p4a, e): values
 *   against a direct O(N^3) evaluation of the n2p2 definitions (1e-10 relative), gradients
 *   (neighbours and centre) against fourth-order central differences (1e-7 of the largest
 *   gradient component);
 * - the order of the compact types after reading, which is the network input order: n2p2's
 *   SymFncComp* operator< (subtype as a string, e1, e2, rc, rl, left, right), written out by
 *   hand for a shuffled input. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_kernel.h"
#include "hdnnp_math.h"
#include "hdnnp_synth.h"
#include "hdnnp_vmath.h"
#include "hdnnp_system.h"
#include "pk_test.h"

static void test_cutoffs(void)
{
    for (int type = 0; type <= 8; type++)
        for (int ia = 0; ia < 2; ia++) {
            hdnnp_cutoff c = {0};
            c.type = (hdnnp_cutoff_type)type;
            c.rc = 4.0;
            c.irc = 1.0 / c.rc;
            c.alpha = ia ? 0.3 : 0.0;
            c.rci = c.alpha * c.rc;
            c.iw = 1.0 / (c.rc - c.rci);
            c.pre = type == HDNNP_CT_TANH ? 1.0 / pow(tanh(1.0), 3) : 1.0;
            /* fourth-order central differences */
            double worst = 0.0, dmax = 0.0, lanes = 0.0;
            for (int k = 1; k < 200; k++) {
                const double r = 4.0 * k / 200.0 + 0.0037, h = 1e-4;
                if (r >= c.rc - 3 * h || fabs(r - c.rci) < 3 * h) continue;
                double f, df, v[4], dv;
                hdnnp_cutoff_fdf(&c, r, &f, &df);
                const double off[4] = {2 * h, h, -h, -2 * h};
                for (int p = 0; p < 4; p++) hdnnp_cutoff_fdf(&c, r + off[p], &v[p], &dv);
                const double fd = (-v[0] + 8 * v[1] - 8 * v[2] + v[3]) / (12 * h);
                worst = fmax(worst, fabs(fd - df));
                dmax = fmax(dmax, fabs(df));
                /* the kernel's four-lane version at r, r + 2h, r - h, 1.2 rc (zero) */
                const hdnnp_v4 rv = {r, r + 2 * h, r - h, 1.2 * c.rc};
                hdnnp_v4 fv, dfv;
                v4_cutoff_fdf(&c, rv, &fv, &dfv);
                for (int l = 0; l < 4; l++) {
                    double fl, dfl;
                    hdnnp_cutoff_fdf(&c, rv[l], &fl, &dfl);
                    lanes = fmax(lanes, fmax(fabs(fv[l] - fl), fabs(dfv[l] - dfl)));
                }
                PK_CHECK(f >= 0.0 && f <= 1.0 + 1e-15, "cutoff %d f(%g) = %g", type, r, f);
            }
            PK_CHECK(worst < 1e-9 * fmax(dmax, 1.0), "cutoff type %d alpha %g: |df - FD| = %.3g",
                     type, c.alpha, worst);
            PK_CHECK(lanes < 1e-14, "cutoff type %d alpha %g: four-lane version differs by %.3g",
                     type, c.alpha, lanes);
            double f, df;
            hdnnp_cutoff_fdf(&c, 4.0, &f, &df);
            PK_CHECK(f == 0.0 && df == 0.0, "cutoff %d vanishes at rc", type);
            hdnnp_cutoff_fdf(&c, 1e-9, &f, &df);
            if (type != HDNNP_CT_TANHU)
                PK_CHECK_CLOSE(f, 1.0, 1e-8, 1.0);
        }
}

static void test_activations(void)
{
    const double xs[] = {-3.1, -0.7, -0.05, 0.3, 1.2, 2.9};
    for (int a = 0; a <= HDNNP_AF_HARMONIC; a++) {
        double worst = 0.0;
        for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
            const double h = 1e-6;
            double y, dy, yp, dyp, ym, dym;
            hdnnp_activate((hdnnp_activation)a, xs[k], &y, &dy);
            hdnnp_activate((hdnnp_activation)a, xs[k] + h, &yp, &dyp);
            hdnnp_activate((hdnnp_activation)a, xs[k] - h, &ym, &dym);
            worst = fmax(worst, fabs((yp - ym) / (2 * h) - dy));
        }
        PK_CHECK(worst < 1e-8, "activation %d: |dy - FD| = %.3g", a, worst);
    }
}

static void test_exp(void)
{
    double worst = 0.0, lanes = 0.0;
    for (int k = -70000; k <= 70000; k++) {
        const double x = k * 0.01 + 0.001234 * (k % 7);
        worst = fmax(worst, fabs(hdnnp_exp(x) - exp(x)) / exp(x));
        const hdnnp_v4 v = v4_exp((hdnnp_v4){x, -x, 0.5 * x, x - 0.3});
        for (int l = 0; l < 4; l++) {
            const double xl = l == 0 ? x : l == 1 ? -x : l == 2 ? 0.5 * x : x - 0.3;
            lanes = fmax(lanes, fabs(v[l] - exp(xl)) / exp(xl));
        }
    }
    PK_CHECK(worst < 1e-15, "hdnnp_exp max rel error %.3g", worst);
    PK_CHECK(lanes < 1e-15, "v4_exp max rel error %.3g", lanes);
    printf("hdnnp_exp, v4_exp: max relative error %.3g, %.3g on [-700, 700]\n", worst, lanes);
}

/* ---- symmetry functions -------------------------------------------------------------------- */

enum { NAT = 14 };
static const int zs[3] = {1, 6, 8};

/* The core polynomials as n2p2 documents them, f(y) = (2y - 3)y^2 + 1 and so on. */
static double core_documented(int n, double y)
{
    switch (n) {
    case 1: return (2 * y - 3) * y * y + 1;
    case 2: return ((15 - 6 * y) * y - 10) * y * y * y + 1;
    case 3: return (y * (y * (20 * y - 70) + 84) - 35) * pow(y, 4) + 1;
    default: return (y * (y * ((315 - 70 * y) * y - 540) + 420) - 126) * pow(y, 5) + 1;
    }
}

/* The same, written in u = 1 - y: f(y) = 1 - S(y) = S(1 - y) with the smoothstep S, so that
 * the value keeps its relative accuracy near the window's edge (y -> 1), where the terms in y
 * cancel. test_core_forms checks the two forms against each other. */
static double core_reference(int n, double y)
{
    const double u = 1.0 - y;
    switch (n) {
    case 1: return 3 * u * u - 2 * pow(u, 3);
    case 2: return 10 * pow(u, 3) - 15 * pow(u, 4) + 6 * pow(u, 5);
    case 3: return 35 * pow(u, 4) - 84 * pow(u, 5) + 70 * pow(u, 6) - 20 * pow(u, 7);
    default:
        return 126 * pow(u, 5) - 420 * pow(u, 6) + 540 * pow(u, 7) - 315 * pow(u, 8) +
               70 * pow(u, 9);
    }
}

static void test_core_forms(void)
{
    double worst = 0.0;
    for (int n = 1; n <= 4; n++)
        for (int k = 0; k <= 1000; k++) {
            const double y = k / 1000.0;
            worst = fmax(worst, fabs(core_documented(n, y) - core_reference(n, y)));
        }
    PK_CHECK(worst < 1e-12, "core polynomials in y and in 1 - y differ by %.3g", worst);
}

/* The compact window of n2p2's SymFncBaseComp written out from its definition: the core
 * polynomial (or exponential) of y = |x - centre| / half-width on (lo, hi), zero outside; the
 * "a" subtypes use y (2 - y) as the core's argument. */
static double naive_window(const char *subtype, int asym_allowed, double lo, double hi,
                           double x)
{
    if (x <= lo || x >= hi) return 0.0;
    double y = fabs(x - 0.5 * (lo + hi)) / (0.5 * (hi - lo));
    if (asym_allowed && strlen(subtype) == 3) y = 2.0 * y - y * y;
    if (subtype[0] == 'e') return exp(1.0 - 1.0 / ((1.0 - y) * (1.0 + y)));
    return core_reference(subtype[1] - '0', y);
}

/* One term of a compact type: radial windows of r_ij, r_ik (and r_jk for 21 and 24; the
 * angular window is never asymmetric) times the angular window of the angle at i. */
static double naive_compact_term(const hdnnp_sf *sf, double ra, double rb, double rjk, double cs)
{
    const char *st = sf->subtype;
    double t = naive_window(st, 1, sf->rl, sf->rc, ra) * naive_window(st, 1, sf->rl, sf->rc, rb);
    if (sf->type == 21 || sf->type == 24) t *= naive_window(st, 1, sf->rl, sf->rc, rjk);
    if (cs <= -1.0 || cs >= 1.0) return 0.0;
    return t * naive_window(st, 0, sf->aleft * HDNNP_PI / 180.0,
                                sf->aright * HDNNP_PI / 180.0, acos(cs));
}

static double naive_sf(const pk_hdnnp_model *m, int ce, int s, double (*x)[3], const int *el,
                       int centre)
{
    const hdnnp_element *E = &m->el[ce];
    const hdnnp_sf *sf = &E->sf[s];
    const hdnnp_cutoff *c = &E->cut[sf->cut];
    double G = 0.0;
    for (int j = 0; j < NAT; j++) {
        if (j == centre) continue;
        double a[3], ra, fa, dfa;
        for (int q = 0; q < 3; q++) a[q] = x[j][q] - x[centre][q];
        ra = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (sf->type == 20 || sf->type == 23) {
            if (sf->type == 20 && el[j] != sf->e1) continue;
            G += (sf->type == 23 ? zs[el[j]] : 1.0) *
                 naive_window(sf->subtype, 1, sf->rl, sf->rc, ra);
            continue;
        }
        if (ra >= sf->rc) continue;
        hdnnp_cutoff_fdf(c, ra, &fa, &dfa);
        if (sf->type == 2 || sf->type == 12) {
            if (sf->type == 2 && el[j] != sf->e1) continue;
            const double w = sf->type == 12 ? zs[el[j]] : 1.0;
            G += w * exp(-sf->eta * (ra - sf->rs) * (ra - sf->rs)) * fa;
            continue;
        }
        for (int k = j + 1; k < NAT; k++) {
            if (k == centre) continue;
            const int weighted = sf->type == 13 || sf->type == 24 || sf->type == 25;
            if (!weighted && !((el[j] == sf->e1 && el[k] == sf->e2) ||
                               (el[j] == sf->e2 && el[k] == sf->e1)))
                continue;
            double b[3], d[3], rb, rjk, fb, dfb, fjk = 1.0, dfjk;
            for (int q = 0; q < 3; q++) { b[q] = x[k][q] - x[centre][q]; d[q] = b[q] - a[q]; }
            rb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
            rjk = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (sf->type >= 20) {
                const double cs = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (ra * rb);
                G += (weighted ? (double)zs[el[j]] * zs[el[k]] : 1.0) *
                     naive_compact_term(sf, ra, rb, rjk, cs);
                continue;
            }
            if (rb >= sf->rc) continue;
            const int narrow = sf->type != 9;
            if (narrow && rjk >= sf->rc) continue;
            hdnnp_cutoff_fdf(c, rb, &fb, &dfb);
            if (narrow) hdnnp_cutoff_fdf(c, rjk, &fjk, &dfjk);
            const double cs = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (ra * rb);
            const double P = 1.0 + sf->lambda * cs;
            if (P <= 0.0) continue;
            double ex = (ra - sf->rs) * (ra - sf->rs) + (rb - sf->rs) * (rb - sf->rs);
            if (narrow) ex += (rjk - sf->rs) * (rjk - sf->rs);
            const double w = sf->type == 13 ? (double)zs[el[j]] * zs[el[k]] : 1.0;
            G += w * pow(2.0, 1.0 - sf->zeta) * pow(P, sf->zeta) * exp(-sf->eta * ex) * fa * fb *
                 fjk;
        }
    }
    return G;
}

static void eval(hdnnp_scratch *s, const pk_hdnnp_model *m, int ce, double (*x)[3],
                 const int *type, int centre)
{
    static const int t2e[4] = {-1, 0, 1, 2};
    int jlist[NAT], n = 0;
    for (int j = 0; j < NAT; j++)
        if (j != centre) jlist[n++] = j;
    pk_status st;
    PK_CHECK(hdnnp_env_build(s, m, ce, x[centre], (const double (*)[3])x, jlist, n, type, t2e,
                             &st) == PK_OK, "env: %s", st.msg);
    PK_CHECK(hdnnp_symfuncs(s, &m->el[ce], &st) == PK_OK, "symfuncs: %s", st.msg);
}

static const char *const sf_sets[] = {
    /* type 2 (O-H: etas 0.5, 1.5 = 3 x 0.5, 0.7) */
    "symfunction_short H 2 O 0.5 0.3 4.0\nsymfunction_short H 2 H 0.1 1.0 3.5\n"
    "symfunction_short C 2 H 0.2 0.0 4.0\nsymfunction_short O 2 H 0.5 0.0 4.0\n"
    "symfunction_short O 2 C 0.05 0.8 3.5\nsymfunction_short O 2 H 1.5 0.0 4.0\n"
    "symfunction_short O 2 H 0.7 0.0 4.0\n",
    /* type 3 (one non-integer zeta, one rs; O H H: etas 0.06 and 0.02 (an integer multiple:
     * a power of the base exponential), 0.05 (not a multiple) and 0) */
    "symfunction_short H 3 O C 0.1 -1 2.0 4.0\nsymfunction_short H 3 H O 0.05 1 1.0 4.0 0.5\n"
    "symfunction_short C 3 H H 0.1 1 3.0 4.0\nsymfunction_short O 3 O O 0.02 1 1.5 3.5\n"
    "symfunction_short O 3 H H 0.02 -1 4.0 4.0\nsymfunction_short O 3 H H 0.06 -1 4.0 4.0\n"
    "symfunction_short O 3 H H 0.05 1 1.0 4.0\nsymfunction_short O 3 H H 0.0 1 2.0 4.0\n",
    /* type 9 (O H H: etas 0.02, 0.06, 0.05) */
    "symfunction_short H 9 O C 0.1 -1 2.0 4.0\nsymfunction_short H 9 H O 0.05 1 1.0 4.0 0.5\n"
    "symfunction_short C 9 H H 0.1 1 3.0 4.0\nsymfunction_short O 9 O O 0.02 1 1.5 3.5\n"
    "symfunction_short O 9 H H 0.02 -1 4.0 4.0\nsymfunction_short O 9 H H 0.06 1 2.0 4.0\n"
    "symfunction_short O 9 H H 0.05 -1 1.0 4.0\n",
    /* type 12 */
    "symfunction_short H 12 0.3 0.5 4.0\nsymfunction_short C 12 0.1 0.0 3.5\n"
    "symfunction_short O 12 0.3 0.0 4.0\nsymfunction_short O 12 0.05 1.0 4.0\n"
    "symfunction_short O 12 1.2 0.0 4.0\n",
    /* type 13 */
    "symfunction_short H 13 0.05 0.0 1 2.0 4.0\nsymfunction_short C 13 0.1 0.5 -1 1.0 4.0\n"
    "symfunction_short O 13 0.02 0.0 1 2.5 3.5\nsymfunction_short O 13 0.02 0.0 -1 1.0 4.0\n"
    "symfunction_short O 13 0.16 0.0 1 2.0 4.0\n",
};
/* compact types: together every subtype, windows with rl <= 0, angular windows centred on 0
 * and 180 (periodic continuation) and inside [0, 180] */
#define HD_ANGULAR_COMPACT(t)                                                                 \
    "symfunction_short H " t " O C 0.0 4.0 0 180 p1\n"                                        \
    "symfunction_short H " t " H O 0.5 4.0 30 120 p2a\n"                                      \
    "symfunction_short C " t " H H -4.0 4.0 -40 40 e\n"                                       \
    "symfunction_short O " t " O O 1.0 3.5 140 220 p3\n"                                      \
    "symfunction_short O " t " H H 0.3 4.0 60 150 p4a\n"                                      \
    "symfunction_short O " t " H C 0.0 3.5 90 180 p4\n"                                       \
    "symfunction_short C " t " O H 0.8 4.0 0 90 p3a\n"                                        \
    "symfunction_short H " t " H H 0.0 4.0 30 150 p2\n"                                       \
    "symfunction_short C " t " C O 0.0 4.0 40 140 p1a\n"
#define HD_ANGULAR_COMPACT_WEIGHTED(t)                                                        \
    "symfunction_short H " t " 0.0 4.0 0 180 p1\nsymfunction_short H " t " 0.5 4.0 30 120 p2a\n" \
    "symfunction_short C " t " -4.0 4.0 -40 40 e\nsymfunction_short O " t " 1.0 3.5 140 220 p3\n" \
    "symfunction_short O " t " 0.3 4.0 60 150 p4a\nsymfunction_short O " t " 0.0 3.5 90 180 p4\n" \
    "symfunction_short C " t " 0.8 4.0 0 90 p3a\nsymfunction_short H " t " 0.0 4.0 30 150 p2\n"   \
    "symfunction_short C " t " 0.0 4.0 40 140 p1a\n"
static const char *const compact_sets[] = {
    /* type 20 */
    "symfunction_short H 20 O 0.5 4.0 p1\nsymfunction_short H 20 H 0.0 3.5 p2a\n"
    "symfunction_short C 20 H -4.0 4.0 e\nsymfunction_short O 20 H 1.0 4.0 p3\n"
    "symfunction_short O 20 C 0.3 3.5 p4a\nsymfunction_short O 20 H 1.2 3.5 p4\n"
    "symfunction_short C 20 O 0.8 4.0 p1a\nsymfunction_short H 20 C 0.9 4.0 p3a\n"
    "symfunction_short O 20 O 0.0 4.0 p2\n",
    HD_ANGULAR_COMPACT("21"),
    HD_ANGULAR_COMPACT("22"),
    /* type 23 */
    "symfunction_short H 23 0.5 4.0 p1\nsymfunction_short H 23 0.0 3.5 p2a\n"
    "symfunction_short C 23 -4.0 4.0 e\nsymfunction_short O 23 1.0 4.0 p3\n"
    "symfunction_short O 23 0.3 3.5 p4a\nsymfunction_short C 23 1.2 3.5 p4\n"
    "symfunction_short H 23 0.8 4.0 p3a\nsymfunction_short C 23 0.0 4.0 p2\n"
    "symfunction_short O 23 0.9 3.5 p1a\n",
    HD_ANGULAR_COMPACT_WEIGHTED("24"),
    HD_ANGULAR_COMPACT_WEIGHTED("25"),
};
static const int sf_counts[][3] = {{2, 1, 4}, {2, 1, 5}, {2, 1, 4}, {1, 1, 3}, {1, 1, 3},
                                   {3, 2, 4}, {3, 3, 3}, {3, 3, 3}, {3, 3, 3}, {3, 3, 3},
                                   {3, 3, 3}};
static const int sf_types[] = {2, 3, 9, 12, 13, 20, 21, 22, 23, 24, 25};

static void make_cluster(double (*x)[3], int *type, unsigned seed)
{
    for (;;) {
        for (int i = 0; i < NAT; i++) {
            for (int q = 0; q < 3; q++) x[i][q] = 5.0 * hd_rand(&seed);
            type[i] = 1 + (i % 5 == 1 ? 1 : (i % 2 ? 0 : 2));   /* H, C, O mixture */
        }
        int ok = 1;
        for (int i = 0; i < NAT && ok; i++)
            for (int j = i + 1; j < NAT && ok; j++) {
                const double dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1], dz = x[i][2] - x[j][2];
                const double r = sqrt(dx * dx + dy * dy + dz * dz);
                ok = r > 0.9 && fabs(r - 3.5) > 0.01 && fabs(r - 4.0) > 0.01;
            }
        if (ok) return;
    }
}

/* Edges and centres of the compact windows of a model (distances; angles in degrees). */
static void compact_edges(const pk_hdnnp_model *m, double *dist, int *nd, double *deg, int *na)
{
    *nd = *na = 0;
    for (int e = 0; e < m->nelements; e++)
        for (int k = 0; k < m->el[e].nsf; k++) {
            const hdnnp_sf *sf = &m->el[e].sf[k];
            dist[(*nd)++] = sf->rl;
            dist[(*nd)++] = sf->rc;
            dist[(*nd)++] = 0.5 * (sf->rl + sf->rc);
            if (sf->type == 20 || sf->type == 23) continue;
            deg[(*na)++] = sf->aleft;
            deg[(*na)++] = sf->aright;
            deg[(*na)++] = 0.5 * (sf->aleft + sf->aright);
        }
}

static void test_symfuncs(const char *tmp)
{
    double x[NAT][3];
    int type[NAT], el[NAT];
    const int hidden[1] = {3};
    for (size_t set = 0; set < sizeof sf_types / sizeof sf_types[0]; set++) {
        const int compact = sf_types[set] >= 20;
        /* the cutoff type does not enter the compact types: one model each */
        for (int ct = 0; ct <= (compact ? 0 : 8); ct++) {
            char dir[512];
            snprintf(dir, sizeof dir, "%s/sf%d_ct%d", tmp, sf_types[set], ct);
            hd_synth syn = {"O H C", 3, ct, (ct == 2 || ct == 3 || ct == 0) ? 0.0 : 0.3, "",
                            "global_hidden_layers_short 1\nglobal_nodes_short 3\n"
                            "global_activation_short t l\n",
                            NULL, compact ? compact_sets[set - 5] : sf_sets[set], 7u};
            PK_CHECK(hd_synth_write(dir, &syn, sf_counts[set], zs, hidden, 1) == 0, "write %s",
                     dir);
            pk_hdnnp_model *m = NULL;
            pk_status st;
            PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "%s: %s", dir, st.msg);
            if (!m) continue;
            unsigned seed = 12345u;
            make_cluster(x, type, seed);
            if (compact) {
                double dist[64], deg[64];
                int nd, na;
                compact_edges(m, dist, &nd, deg, &na);
                while (!hd_cluster_avoids((const double (*)[3])x, NAT, dist, nd, deg, na, 1e-3))
                    make_cluster(x, type, ++seed);
            }
            for (int i = 0; i < NAT; i++) el[i] = type[i] - 1;
            hdnnp_scratch s = {0}, s2 = {0};
            double worst_val = 0.0, worst_grad = 0.0;
            for (int centre = 0; centre < NAT; centre++) {
                const int ce = el[centre];
                const int nsf = m->el[ce].nsf;
                eval(&s, m, ce, x, type, centre);
                for (int k = 0; k < nsf; k++) {
                    const double ref = naive_sf(m, ce, k, x, el, centre);
                    worst_val = fmax(worst_val, fabs(s.G[k] - ref) / fmax(fabs(ref), 1e-3));
                }
                /* gradients: each neighbour (position in env) and the centre, errors
                 * relative to the largest gradient component of that function (at least 0.01:
                 * the polynomial cutoffs have absolute rounding errors ~1e-14 near rc) */
                const hdnnp_env *e = &s.env;
                double scale[64] = {0}, err[64] = {0};
                /* gradient of each function alone: contraction with a unit vector */
                static double grad[64][3][NAT];
                for (int k = 0; k < nsf; k++) {
                    double c[64] = {0}, g[4 * NAT];
                    c[k] = 1.0;
                    hdnnp_contract(&s, &m->el[ce], c, g);
                    for (int n = 0; n < e->n; n++)
                        for (int q = 0; q < 3; q++) grad[k][q][n] = g[4 * n + q];
                }
                for (int n = -1; n < e->n; n++) {
                    const int atom = n < 0 ? centre : e->idx[n];
                    for (int q = 0; q < 3; q++) {
                        const double h = 1e-4, x0 = x[atom][q], off[4] = {2 * h, h, -h, -2 * h};
                        double Gv[4][64];
                        for (int p = 0; p < 4; p++) {
                            x[atom][q] = x0 + off[p];
                            eval(&s2, m, ce, x, type, centre);
                            memcpy(Gv[p], s2.G, sizeof(double) * (size_t)nsf);
                        }
                        x[atom][q] = x0;
                        for (int k = 0; k < nsf; k++) {
                            double g = 0.0;
                            if (n >= 0) g = grad[k][q][n];
                            else
                                for (int p = 0; p < e->n; p++) g -= grad[k][q][p];
                            const double fd =
                                (-Gv[0][k] + 8 * Gv[1][k] - 8 * Gv[2][k] + Gv[3][k]) / (12 * h);
                            scale[k] = fmax(scale[k], fabs(g));
                            err[k] = fmax(err[k], fabs(fd - g));
                        }
                    }
                }
                for (int k = 0; k < nsf; k++)
                    worst_grad = fmax(worst_grad, err[k] / fmax(scale[k], 1e-2));
            }
            PK_CHECK(worst_val < 1e-10, "SF type %d cutoff %d: values off by %.3g (relative)",
                     sf_types[set], ct, worst_val);
            PK_CHECK(worst_grad < 1e-7, "SF type %d cutoff %d: gradients off FD by %.3g",
                     sf_types[set], ct, worst_grad);
            if (compact)
                printf("SF type %2d (cluster %u): value rel err %.2e, gradient vs FD %.2e\n",
                       sf_types[set], seed, worst_val, worst_grad);
            else
                printf("SF type %2d cutoff type %d: value rel err %.2e, gradient vs FD %.2e\n",
                       sf_types[set], ct, worst_val, worst_grad);
            hdnnp_scratch_free(&s);
            hdnnp_scratch_free(&s2);
            pk_hdnnp_model_free(m);
        }
    }
}

/* input.nn line of the first line equal to text, or 0 */
static int line_of(const char *path, const char *text)
{
    FILE *fp = fopen(path, "r");
    char buf[512];
    int n = 0, found = 0;
    while (fp && !found && fgets(buf, sizeof buf, fp)) {
        n++;
        buf[strcspn(buf, "\n")] = '\0';
        if (strcmp(buf, text) == 0) found = n;
    }
    if (fp) fclose(fp);
    return found;
}

static void test_compact_order(const char *tmp)
{
    /* expected order (element H = index 0 < O = 1; "p1a" < "p2" as strings) */
    static const char *const sorted[] = {
        "symfunction_short H 2 H 0.1 0 4",
        "symfunction_short H 20 H 0.5 4.0 p1a",
        "symfunction_short H 20 H 0.5 3.5 p2",
        "symfunction_short H 20 H 0.0 4.0 p2",
        "symfunction_short H 20 H 0.5 4.0 p2",
        "symfunction_short H 20 O 0.5 4.0 p2",
        "symfunction_short H 21 O H 0 3.5 0 60 p1",
        "symfunction_short H 21 H O 0 4 0 60 p1",
        "symfunction_short H 21 H O 0 4 0 90 p1",
        "symfunction_short H 21 O H 0 4 30 90 p1",
        "symfunction_short H 21 O O 0 4 30 90 p1",
        "symfunction_short H 22 H H 0 4 0 90 p2",
        "symfunction_short H 23 0 4 e",
        "symfunction_short H 24 0 4 0 90 p1",
    };
    static const int shuffle[] = {11, 4, 13, 1, 8, 3, 10, 0, 6, 12, 2, 9, 5, 7};
    enum { NS = sizeof sorted / sizeof sorted[0] };
    char text[4096] = "symfunction_short O 2 H 0.1 0 4\n";
    for (int k = 0; k < NS; k++) {
        strcat(text, sorted[shuffle[k]]);
        strcat(text, "\n");
    }
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/order", tmp);
    snprintf(path, sizeof path, "%s/input.nn", dir);
    const int counts[2] = {NS, 1}, z[2] = {1, 8}, hidden[1] = {2};
    hd_synth syn = {"O H", 2, 2, 0.0, "",
                    "global_hidden_layers_short 1\nglobal_nodes_short 2\n"
                    "global_activation_short t l\n", NULL, text, 3u};
    PK_CHECK(hd_synth_write(dir, &syn, counts, z, hidden, 1) == 0, "write %s", dir);
    pk_hdnnp_model *m = NULL;
    pk_status st;
    PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "%s", st.msg);
    if (!m) return;
    int bad = 0;
    for (int k = 0; k < NS; k++) {
        const int want = line_of(path, sorted[k]);
        if (m->el[0].sf[k].line != want) {
            bad++;
            fprintf(stderr, "H SF %d: input.nn line %d, want line %d (%s)\n", k + 1,
                    m->el[0].sf[k].line, want, sorted[k]);
        }
    }
    PK_CHECK(bad == 0, "compact types in n2p2's order: %d misplaced", bad);
    pk_hdnnp_model_free(m);
}

int main(void)
{
    test_cutoffs();
    test_activations();
    test_exp();
    char tmp[] = "/tmp/pk_hdnnp_fnXXXXXX";
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    test_core_forms();
    test_symfuncs(tmp);
    test_compact_order(tmp);
    hd_remove_tree(tmp);
    return pk_test_finish();
}
