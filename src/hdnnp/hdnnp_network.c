/* Element networks: forward pass and dE/dG by back-propagation (n2p2 NeuralNetwork:
 * x_o = (sum_i w_oi a_i + b_o) / n_in with normalize_nodes, else without the division;
 * a_o = f(x_o); the output neuron is linear). */
#include <math.h>

#include "hdnnp_kernel.h"
#include "hdnnp_math.h"

size_t hdnnp_network_work_size(const hdnnp_network *net)
{
    size_t n = 0;
    for (int l = 0; l < net->nlayers; l++) n += 2 * (size_t)net->size[l];
    return n + 2 * (size_t)net->maxsize;
}

HDNNP_HOT double hdnnp_network_eval(const hdnnp_network *net, const double *Gs, double *dEdG,
                                    double *work)
{
    const double *a[HDNNP_MAX_LAYERS];
    double *da[HDNNP_MAX_LAYERS];
    double *p = work;
    a[0] = Gs;
    for (int l = 1; l < net->nlayers; l++) {
        const int nin = net->size[l - 1], nout = net->size[l];
        double *al = p, *dal = p + nout;
        p += 2 * (size_t)nout;
        const double scale = net->normalize ? 1.0 / nin : 1.0;
        /* x = W a + b as a sum of columns (contiguous in the outputs: vectorises) */
        for (int o = 0; o < nout; o++) al[o] = net->b[l][o];
        for (int i = 0; i < nin; i++) {
            const double *wt = net->wt[l] + (size_t)i * nout, ai = a[l - 1][i];
#pragma omp simd
            for (int o = 0; o < nout; o++) al[o] += wt[o] * ai;
        }
        for (int o = 0; o < nout; o++) al[o] *= scale;
        if (net->act[l] == HDNNP_AF_TANH) {
            /* tanh(x) = sign(x) (1 - e)/(1 + e), e = exp(-2|x|): vectorises; absolute error
             * ~2e-16 (what matters for a neuron value) */
#pragma omp simd
            for (int o = 0; o < nout; o++) {
                const double e = hdnnp_exp(-2.0 * fabs(al[o]));
                const double t = (1.0 - e) / (1.0 + e);
                const double y = al[o] < 0.0 ? -t : t;
                al[o] = y;
                dal[o] = 1.0 - y * y;
            }
        } else {
            for (int o = 0; o < nout; o++) hdnnp_activate(net->act[l], al[o], &al[o], &dal[o]);
        }
        a[l] = al;
        da[l] = dal;
    }
    const int L = net->nlayers - 1;
    double *d = p, *g = p + net->maxsize;     /* dE/dx of layer l, dE/da of layer l - 1 */
    d[0] = da[L][0];
    for (int l = L; l >= 1; l--) {
        const int nin = net->size[l - 1], nout = net->size[l];
        const double scale = net->normalize ? 1.0 / nin : 1.0;
        double *out = l == 1 ? dEdG : g;
        for (int i = 0; i < nin; i++) out[i] = 0.0;
        for (int o = 0; o < nout; o++) {
            const double *w = net->w[l] + (size_t)o * nin;
            const double c = d[o] * scale;
#pragma omp simd
            for (int i = 0; i < nin; i++) out[i] += c * w[i];
        }
        if (l > 1) {
            for (int i = 0; i < nin; i++) d[i] = g[i] * da[l - 1][i];
        }
    }
    return a[L][0];
}
