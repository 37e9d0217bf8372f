/* DeePMD-kit network layers: y = act(x W + b) * idt + resnet shortcut (x, or (x, x) when the
 * layer doubles the width). Forward mode with 1st/2nd derivatives for the scalar-input
 * embedding nets; reverse mode over a batch of inputs for the fitting nets. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

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
    const int W = net->width, want2 = d2y != NULL;   /* the exact kernel needs no G'' */
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
            if (want2)
                for (int o = 0; o < L->nout; o++) {
                    u[o] += x[k] * wk[o];
                    du[o] += dx[k] * wk[o];
                    d2u[o] += d2x[k] * wk[o];
                }
            else
                for (int o = 0; o < L->nout; o++) {
                    u[o] += x[k] * wk[o];
                    du[o] += dx[k] * wk[o];
                }
        }
        for (int o = 0; o < L->nout; o++) {
            double a, a1, a2, g = L->idt ? L->idt[o] : 1.0, dz = du[o];
            dp_act_eval(L->act, u[o], &a, &a1, &a2);
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

/* Outputs of a fitting layer from z = x W + b in y (nb x nout): y = act(z) idt + shortcut,
 * and the slopes sl = act'(z) idt for the backward pass. */
static void layer_out(const dp_layer *L, int nb, const double *x, size_t ldx, double *y,
                      double *sl)
{
    const int no = L->nout;
    const size_t n = (size_t)nb * no;
    if (L->act == DP_ACT_TANH) {
        dp_tanh_n(y, n);   /* tanh' = 1 - tanh^2 */
        for (int b = 0; b < nb; b++) {
            double *yb = y + (size_t)b * no, *sb = sl + (size_t)b * no;
            if (L->idt)
                for (int o = 0; o < no; o++) {
                    const double t = yb[o], g = L->idt[o];
                    yb[o] = t * g;
                    sb[o] = (1.0 - t * t) * g;
                }
            else
                for (int o = 0; o < no; o++) sb[o] = 1.0 - yb[o] * yb[o];
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            double a, a1, a2, g = L->idt ? L->idt[k % no] : 1.0;
            dp_act_eval(L->act, y[k], &a, &a1, &a2);
            y[k] = a * g;
            sl[k] = a1 * g;
        }
    }
    for (int b = 0; b < nb; b++) shortcut(L, x + (size_t)b * ldx, y + (size_t)b * no);
}

void dp_net_fit(const dp_net *net, int nb, const double *x0, double *y_out, double *grad,
                double *scratch)
{
    /* Scratch layout: per layer [inputs (nb x nin) | slopes act'(z) * idt (nb x nout)], then
     * the outputs (nb x nout), then two gradient blocks (nb x width). Each layer writes its
     * outputs straight into the next layer's input slot; the first layer reads x0 in place
     * (its slot stays unused here; the sve backend's copy of this function fills it). Each
     * layer is one matrix product over the batch (dp_gemm); every sample's arithmetic is
     * the same as alone. */
    const int W = net->width;
    size_t off = 0;
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        const double *x = l ? scratch + off : x0;
        double *sl = scratch + off + (size_t)nb * ni;
        double *y = sl + (size_t)nb * no;
        for (int b = 0; b < nb; b++)
            if (L->b)
                memcpy(y + (size_t)b * no, L->b, sizeof(double) * no);
            else
                memset(y + (size_t)b * no, 0, sizeof(double) * no);
        dp_gemm(nb, x, ni, &L->fwd, y, no);
        layer_out(L, nb, x, ni, y, sl);
        off += (size_t)nb * (ni + no);
    }
    const double *out = scratch + off;
    for (int b = 0; b < nb; b++) y_out[b] = out[(size_t)b * net->nout];
    if (!grad) return;

    /* Backward: g_in = W (g_out * slope) + shortcut^T g_out, for a scalar output; the first
     * layer's lands in grad. */
    double *ga = scratch + off + (size_t)nb * net->nout, *gb = ga + (size_t)nb * W;
    for (int b = 0; b < nb; b++) ga[(size_t)b * W] = 1.0;
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        off -= (size_t)nb * (ni + no);
        const double *sl = scratch + off + (size_t)nb * ni;
        double *gout = l ? gb : grad;
        const size_t ldg = l ? (size_t)W : (size_t)ni;
        for (int b = 0; b < nb; b++) {
            double *a = ga + (size_t)b * W, *g = gout + (size_t)b * ldg;
            const double *sb = sl + (size_t)b * no;
            if (L->resnet && no == ni)
                for (int k = 0; k < ni; k++) g[k] = a[k];
            else if (L->resnet && no == 2 * ni)
                for (int k = 0; k < ni; k++) g[k] = a[k] + a[k + ni];
            else
                memset(g, 0, sizeof(double) * ni);
            for (int o = 0; o < no; o++) a[o] *= sb[o];   /* now dE/dz */
        }
        dp_gemm(nb, ga, W, &L->bwd, gout, ldg);
        double *t = ga; ga = gb; gb = t;
    }
}

int dp_net_pack(dp_net *net)
{
    for (int l = 0; l < net->nlayer; l++) {
        dp_layer *L = &net->layer[l];
        if (dp_panels_pack(&L->fwd, L->w, L->nin, L->nout, (size_t)L->nout) ||
            dp_panels_pack(&L->bwd, L->wt, L->nout, L->nin, (size_t)L->nin))
            return -1;
    }
    return 0;
}

void dp_net_free(dp_net *net)
{
    for (int l = 0; l < net->nlayer; l++) {
        free(net->layer[l].w);
        free(net->layer[l].wt);
        dp_panels_free(&net->layer[l].fwd);
        dp_panels_free(&net->layer[l].bwd);
        free(net->layer[l].b);
        free(net->layer[l].idt);
    }
    free(net->layer);
    net->layer = NULL;
    net->nlayer = 0;
}
