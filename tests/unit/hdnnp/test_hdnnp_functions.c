/* hdnnp/pk building blocks against finite differences and direct formulas:
 * - every cutoff type (0-8, with and without inner cutoff): df against FD of f;
 * - every activation letter: derivative against FD of the value;
 * - the vectorisable exp against libm;
 * - every symmetry-function type (2, 3, 9, 12, 13) with every cutoff type: values against a
 *   direct O(N^3) evaluation of the n2p2 definitions (1e-10: the polynomial cutoffs lose
 *   digits near rc), gradients (neighbours and centre) against fourth-order central
 *   differences. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_kernel.h"
#include "hdnnp_math.h"
#include "hdnnp_synth.h"
#include "hdnnp_system.h"
#include "pk_test.h"

static void test_cutoffs(void)
{
    for (int type = 0; type <= 8; type++)
        for (int ia = 0; ia < 2; ia++) {
            hdnnp_cutoff c;
            c.type = (hdnnp_cutoff_type)type;
            c.rc = 4.0;
            c.alpha = ia ? 0.3 : 0.0;
            c.rci = c.alpha * c.rc;
            c.iw = 1.0 / (c.rc - c.rci);
            c.pre = type == HDNNP_CT_TANH ? 1.0 / pow(tanh(1.0), 3) : 1.0;
            /* fourth-order central differences (the POLY4 core loses digits near x = 1) */
            double worst = 0.0, dmax = 0.0;
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
                PK_CHECK(f >= 0.0 && f <= 1.0 + 1e-15, "cutoff %d f(%g) = %g", type, r, f);
            }
            PK_CHECK(worst < 1e-9 * fmax(dmax, 1.0), "cutoff type %d alpha %g: |df - FD| = %.3g",
                     type, c.alpha, worst);
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
    double worst = 0.0;
    for (int k = -70000; k <= 70000; k++) {
        const double x = k * 0.01 + 0.001234 * (k % 7);
        worst = fmax(worst, fabs(hdnnp_exp(x) - exp(x)) / exp(x));
    }
    PK_CHECK(worst < 1e-15, "hdnnp_exp max rel error %.3g", worst);
    printf("hdnnp_exp: max relative error %.3g on [-700, 700]\n", worst);
}

/* ---- symmetry functions -------------------------------------------------------------------- */

enum { NAT = 14 };
static const int zs[3] = {1, 6, 8};

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
            if (sf->type != 13 && !((el[j] == sf->e1 && el[k] == sf->e2) ||
                                    (el[j] == sf->e2 && el[k] == sf->e1)))
                continue;
            double b[3], d[3], rb, rjk, fb, dfb, fjk = 1.0, dfjk;
            for (int q = 0; q < 3; q++) { b[q] = x[k][q] - x[centre][q]; d[q] = b[q] - a[q]; }
            rb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
            rjk = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
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
    /* type 2 */
    "symfunction_short H 2 O 0.5 0.3 4.0\nsymfunction_short H 2 H 0.1 1.0 3.5\n"
    "symfunction_short C 2 H 0.2 0.0 4.0\nsymfunction_short O 2 H 0.5 0.0 4.0\n"
    "symfunction_short O 2 C 0.05 0.8 3.5\n",
    /* type 3 (one non-integer zeta, one rs) */
    "symfunction_short H 3 O C 0.1 -1 2.0 4.0\nsymfunction_short H 3 H O 0.05 1 1.0 4.0 0.5\n"
    "symfunction_short C 3 H H 0.1 1 3.0 4.0\nsymfunction_short O 3 O O 0.02 1 1.5 3.5\n"
    "symfunction_short O 3 H H 0.02 -1 4.0 4.0\n",
    /* type 9 */
    "symfunction_short H 9 O C 0.1 -1 2.0 4.0\nsymfunction_short H 9 H O 0.05 1 1.0 4.0 0.5\n"
    "symfunction_short C 9 H H 0.1 1 3.0 4.0\nsymfunction_short O 9 O O 0.02 1 1.5 3.5\n"
    "symfunction_short O 9 H H 0.02 -1 4.0 4.0\n",
    /* type 12 */
    "symfunction_short H 12 0.3 0.5 4.0\nsymfunction_short C 12 0.1 0.0 3.5\n"
    "symfunction_short O 12 0.3 0.0 4.0\nsymfunction_short O 12 0.05 1.0 4.0\n",
    /* type 13 */
    "symfunction_short H 13 0.05 0.0 1 2.0 4.0\nsymfunction_short C 13 0.1 0.5 -1 1.0 4.0\n"
    "symfunction_short O 13 0.02 0.0 1 2.5 3.5\nsymfunction_short O 13 0.02 0.0 -1 1.0 4.0\n",
};
static const int sf_counts[][3] = {{2, 1, 2}, {2, 1, 2}, {2, 1, 2}, {1, 1, 2}, {1, 1, 2}};
static const int sf_types[] = {2, 3, 9, 12, 13};

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

static void test_symfuncs(const char *tmp)
{
    double x[NAT][3];
    int type[NAT], el[NAT];
    make_cluster(x, type, 12345u);
    for (int i = 0; i < NAT; i++) el[i] = type[i] - 1;
    const int hidden[1] = {3};
    for (int set = 0; set < 5; set++)
        for (int ct = 0; ct <= 8; ct++) {
            char dir[512];
            snprintf(dir, sizeof dir, "%s/sf%d_ct%d", tmp, sf_types[set], ct);
            hd_synth syn = {"O H C", 3, ct, (ct == 2 || ct == 3 || ct == 0) ? 0.0 : 0.3, "",
                            "global_hidden_layers_short 1\nglobal_nodes_short 3\n"
                            "global_activation_short t l\n",
                            NULL, sf_sets[set], 7u};
            PK_CHECK(hd_synth_write(dir, &syn, sf_counts[set], zs, hidden, 1) == 0, "write %s",
                     dir);
            pk_hdnnp_model *m = NULL;
            pk_status st;
            PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "%s: %s", dir, st.msg);
            if (!m) continue;
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
                    double c[64] = {0};
                    c[k] = 1.0;
                    hdnnp_contract(&s, &m->el[ce], c, grad[k][0], grad[k][1], grad[k][2]);
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
            printf("SF type %2d cutoff type %d: value rel err %.2e, gradient vs FD %.2e\n",
                   sf_types[set], ct, worst_val, worst_grad);
            hdnnp_scratch_free(&s);
            hdnnp_scratch_free(&s2);
            pk_hdnnp_model_free(m);
        }
}

int main(void)
{
    test_cutoffs();
    test_activations();
    test_exp();
    char tmp[] = "/tmp/pk_hdnnp_fnXXXXXX";
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    test_symfuncs(tmp);
    hd_remove_tree(tmp);
    return pk_test_finish();
}
