/* Element networks in SVE (the sve backend's hdnnp_network_eval): the forward pass and dE/dG
 * by back-propagation as the portable hdnnp_network.c (n2p2 NeuralNetwork). Each layer is
 * computed one vector of outputs at a time, summing over the inputs in a register:
 *   forward   x_o = (b_o + sum_i W_oi a_i) scale   (rows of W transposed: wt[i nout + o])
 *   backward  dE/da_i = sum_o (dE/dx_o scale) W_oi (rows of W: w[o nin + i]). */
#include "hdnnp_sve.h"
#include "hdnnp_sve_math.h"

/* y[0..n) = y0 (NULL: 0) + sum_r m[r ld + 0..n) c[r] for r in [0, nr) */
static inline __attribute__((always_inline)) void
sum_rows(int n, int nr, const double *m, size_t ld, const double *c, const double *y0, double *y)
{
    const int vl = (int)svcntd();
    for (int o = 0; o < n; o += vl) {
        const svbool_t pg = svwhilelt_b64(o, n);
        svfloat64_t acc = y0 ? svld1_f64(pg, y0 + o) : svdup_n_f64(0.0);
        for (int r = 0; r < nr; r++) acc = svmla_n_f64_x(pg, acc, svld1_f64(pg, m + r * ld + o), c[r]);
        svst1_f64(pg, y + o, acc);
    }
}

double hdnnp_sve_network_eval(const hdnnp_network *net, const double *Gs, double *dEdG,
                              double *work)
{
    const double *a[HDNNP_MAX_LAYERS];
    double *da[HDNNP_MAX_LAYERS];
    double *p = work;
    const int vl = (int)svcntd();
    a[0] = Gs;
    for (int l = 1; l < net->nlayers; l++) {
        const int nin = net->size[l - 1], nout = net->size[l];
        double *al = p, *dal = p + nout;
        p += 2 * (size_t)nout;
        const double scale = net->normalize ? 1.0 / nin : 1.0;
        sum_rows(nout, nin, net->wt[l], (size_t)nout, a[l - 1], net->b[l], al);
        const hdnnp_activation act = net->act[l];
        for (int o = 0; o < nout; o += vl) {
            const svbool_t pg = svwhilelt_b64(o, nout);
            const svfloat64_t x = svmul_n_f64_x(pg, svld1_f64(pg, al + o), scale);
            if (act == HDNNP_AF_TANH) {   /* f' = 1 - f^2 */
                const svfloat64_t y = sve_tanh(pg, x);
                svst1_f64(pg, al + o, y);
                svst1_f64(pg, dal + o, svmls_f64_x(pg, svdup_n_f64(1.0), y, y));
            } else if (act == HDNNP_AF_IDENTITY) {
                svst1_f64(pg, al + o, x);
                svst1_f64(pg, dal + o, svdup_n_f64(1.0));
            } else {
                svst1_f64(pg, al + o, x);
            }
        }
        if (act != HDNNP_AF_TANH && act != HDNNP_AF_IDENTITY)   /* lane by lane */
            for (int o = 0; o < nout; o++) hdnnp_activate(act, al[o], &al[o], &dal[o]);
        a[l] = al;
        da[l] = dal;
    }
    const int L = net->nlayers - 1;
    double *d = p, *g = p + net->maxsize;     /* dE/dx of layer l (times scale), dE/da */
    d[0] = da[L][0];
    for (int l = L; l >= 1; l--) {
        const int nin = net->size[l - 1], nout = net->size[l];
        const double scale = net->normalize ? 1.0 / nin : 1.0;
        for (int o = 0; o < nout; o += vl) {
            const svbool_t pg = svwhilelt_b64(o, nout);
            svst1_f64(pg, d + o, svmul_n_f64_x(pg, svld1_f64(pg, d + o), scale));
        }
        double *out = l == 1 ? dEdG : g;
        sum_rows(nin, nout, net->w[l], (size_t)nin, d, NULL, out);
        if (l > 1)
            for (int i = 0; i < nin; i += vl) {
                const svbool_t pg = svwhilelt_b64(i, nin);
                svst1_f64(pg, d + i, svmul_f64_x(pg, svld1_f64(pg, g + i), svld1_f64(pg, da[l - 1] + i)));
            }
    }
    return a[L][0];
}
