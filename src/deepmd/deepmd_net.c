/* DeePMD-kit network layers: y = act(x W + b) * idt + resnet shortcut (x, or (x, x) when the
 * layer doubles the width). Forward mode with 1st/2nd derivatives for the scalar-input
 * embedding nets; reverse mode over a batch of inputs for the fitting nets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

/* a = act(z), a1 = act'(z), a2 = act''(z). */
static inline void act_eval(dp_act act, double z, double *a, double *a1, double *a2)
{
    switch (act) {
    case DP_ACT_TANH: {
        double t = tanh(z), d = 1.0 - t * t;
        *a = t; *a1 = d; *a2 = -2.0 * t * d;
        return;
    }
    case DP_ACT_RELU:
        *a = z > 0 ? z : 0; *a1 = z > 0 ? 1 : 0; *a2 = 0;
        return;
    case DP_ACT_RELU6:
        *a = z > 0 ? (z < 6 ? z : 6) : 0; *a1 = (z > 0 && z < 6) ? 1 : 0; *a2 = 0;
        return;
    case DP_ACT_SIGMOID: {
        double sg = 1.0 / (1.0 + exp(-z)), d = sg * (1.0 - sg);
        *a = sg; *a1 = d; *a2 = d * (1.0 - 2.0 * sg);
        return;
    }
    case DP_ACT_SOFTPLUS: {
        /* log(1 + e^z) written to avoid overflow; derivative is the sigmoid. */
        double sg = 1.0 / (1.0 + exp(-z));
        *a = z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
        *a1 = sg; *a2 = sg * (1.0 - sg);
        return;
    }
    case DP_ACT_NONE:
    default:
        *a = z; *a1 = 1; *a2 = 0;
        return;
    }
}

/* Add the resnet shortcut of a layer: out += in (nout == nin) or (in, in) (nout == 2 nin). */
static inline void shortcut(const dp_layer *L, const double *in, double *out)
{
    if (!L->resnet) return;
    if (L->nout == L->nin) {
        for (int o = 0; o < L->nout; o++) out[o] += in[o];
    } else if (L->nout == 2 * L->nin) {
        for (int o = 0; o < L->nout; o++) out[o] += in[o % L->nin];
    }
}

void dp_net_scalar(const dp_net *net, double s, double *y, double *dy, double *d2y,
                   double *scratch)
{
    const int W = net->width;
    double *x = scratch, *dx = x + W, *d2x = dx + W;
    double *u = d2x + W, *du = u + W, *d2u = du + W;
    x[0] = s; dx[0] = 1.0; d2x[0] = 0.0;
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        /* z = x W + b (and its derivatives) row by row: W is read contiguously. */
        for (int o = 0; o < L->nout; o++) {
            u[o] = L->b ? L->b[o] : 0.0;
            du[o] = d2u[o] = 0.0;
        }
        for (int k = 0; k < L->nin; k++) {
            const double *wk = L->w + (size_t)k * L->nout;
            for (int o = 0; o < L->nout; o++) {
                u[o] += x[k] * wk[o];
                du[o] += dx[k] * wk[o];
                d2u[o] += d2x[k] * wk[o];
            }
        }
        for (int o = 0; o < L->nout; o++) {
            double a, a1, a2, g = L->idt ? L->idt[o] : 1.0, dz = du[o];
            act_eval(L->act, u[o], &a, &a1, &a2);
            u[o] = a * g;
            du[o] = a1 * dz * g;
            d2u[o] = (a2 * dz * dz + a1 * d2u[o]) * g;
        }
        shortcut(L, x, u);
        shortcut(L, dx, du);
        shortcut(L, d2x, d2u);
        double *t;
        t = x; x = u; u = t;
        t = dx; dx = du; du = t;
        t = d2x; d2x = d2u; d2u = t;
    }
    memcpy(y, x, sizeof(double) * net->nout);
    if (dy) memcpy(dy, dx, sizeof(double) * net->nout);
    if (d2y) memcpy(d2y, d2x, sizeof(double) * net->nout);
}

size_t dp_net_fit_scratch(const dp_net *net, int nb)
{
    size_t n = 2 * (size_t)net->width + (size_t)net->nout;
    for (int l = 0; l < net->nlayer; l++) n += (size_t)net->layer[l].nin + net->layer[l].nout;
    return n * (size_t)nb;
}

void dp_net_fit(const dp_net *net, int nb, const double *x0, double *y_out, double *grad,
                double *scratch)
{
    /* Scratch layout: per layer [inputs (nb x nin) | slopes act'(z) * idt (nb x nout)], then
     * the outputs (nb x nout), then two gradient blocks (nb x width). Each layer writes its
     * outputs straight into the next layer's input slot. The batch shares each row of W
     * while it is in cache; every sample's arithmetic is the same as alone. */
    const int W = net->width;
    size_t off = 0;
    memcpy(scratch, x0, sizeof(double) * (size_t)nb * net->nin);
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        const double *x = scratch + off;
        double *sl = scratch + off + (size_t)nb * ni;
        double *y = sl + (size_t)nb * no;
        for (int b = 0; b < nb; b++)
            for (int o = 0; o < no; o++) y[(size_t)b * no + o] = L->b ? L->b[o] : 0.0;
        for (int k = 0; k < ni; k++) {
            const double *wk = L->w + (size_t)k * no;
            for (int b = 0; b < nb; b++) {
                const double xk = x[(size_t)b * ni + k];
                double *yb = y + (size_t)b * no;
                for (int o = 0; o < no; o++) yb[o] += xk * wk[o];
            }
        }
        for (int b = 0; b < nb; b++) {
            double *yb = y + (size_t)b * no, *sb = sl + (size_t)b * no;
            for (int o = 0; o < no; o++) {
                double a, a1, a2, g = L->idt ? L->idt[o] : 1.0;
                act_eval(L->act, yb[o], &a, &a1, &a2);
                yb[o] = a * g;
                sb[o] = a1 * g;
            }
            shortcut(L, x + (size_t)b * ni, yb);
        }
        off += (size_t)nb * (ni + no);
    }
    const double *out = scratch + off;
    for (int b = 0; b < nb; b++) y_out[b] = out[(size_t)b * net->nout];
    if (!grad) return;

    /* Backward: g_in = W (g_out * slope) + shortcut^T g_out, for a scalar output. */
    double *ga = scratch + off + (size_t)nb * net->nout, *gb = ga + (size_t)nb * W;
    for (int b = 0; b < nb; b++) ga[(size_t)b * W] = 1.0;
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        off -= (size_t)nb * (ni + no);
        const double *sl = scratch + off + (size_t)nb * ni;
        for (int b = 0; b < nb; b++) {
            double *a = ga + (size_t)b * W, *g = gb + (size_t)b * W;
            const double *sb = sl + (size_t)b * no;
            for (int k = 0; k < ni; k++) g[k] = 0.0;
            if (L->resnet && no == ni)
                for (int k = 0; k < ni; k++) g[k] = a[k];
            else if (L->resnet && no == 2 * ni)
                for (int k = 0; k < ni; k++) g[k] = a[k] + a[k + ni];
            for (int o = 0; o < no; o++) a[o] *= sb[o];   /* now dE/dz */
        }
        for (int o = 0; o < no; o++) {
            const double *wo = L->wt + (size_t)o * ni;
            for (int b = 0; b < nb; b++) {
                const double ao = ga[(size_t)b * W + o];
                double *g = gb + (size_t)b * W;
                for (int k = 0; k < ni; k++) g[k] += ao * wo[k];
            }
        }
        double *t = ga; ga = gb; gb = t;
    }
    for (int b = 0; b < nb; b++)
        memcpy(grad + (size_t)b * net->nin, ga + (size_t)b * W, sizeof(double) * net->nin);
}

void dp_net_free(dp_net *net)
{
    for (int l = 0; l < net->nlayer; l++) {
        free(net->layer[l].w);
        free(net->layer[l].wt);
        free(net->layer[l].b);
        free(net->layer[l].idt);
    }
    free(net->layer);
    net->layer = NULL;
    net->nlayer = 0;
}
