/* DeePMD-kit network layers: y = act(x W + b) * idt + resnet shortcut (x, or (x, x) when the
 * layer doubles the width). Forward mode with 1st/2nd derivatives for the scalar-input
 * embedding nets; reverse mode over a batch of inputs for the fitting nets. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

/* sum_k a[k] b[k], four lanes at a time. */
static inline double dot(const double *a, const double *b, int K)
{
    dp_v4 s = {0};
    int k = 0;
    for (; k + 4 <= K; k += 4) s += dp_v4_load(a + k) * dp_v4_load(b + k);
    double t = dp_v4_sum(s);
    for (; k < K; k++) t += a[k] * b[k];
    return t;
}

/* C (M x N) += A (M x K) B^T, B stored as N rows of K, all row-major with leading
 * dimensions. The fitting layers of a batch of centres are such products (forward with the
 * transposed weights, backward with the weights as stored), so both read whole weight rows
 * contiguously, once per batch. A tile of 4 rows of A x 2 rows of B keeps eight 4-lane
 * partial sums in registers: 6 loads per 8 multiply-adds. Leftovers: plain dot products. */
static void gemm_abt(int M, int N, int K, const double *A, size_t lda, const double *B,
                     size_t ldb, double *C, size_t ldc)
{
    const int K4 = K - K % 4;
    int n0 = 0;
    for (; n0 + 2 <= N; n0 += 2) {
        const double *b0 = B + (size_t)n0 * ldb, *b1 = b0 + ldb;
        int m0 = 0;
        for (; m0 + 4 <= M; m0 += 4) {
            const double *a[4] = {A + (size_t)m0 * lda, A + (size_t)(m0 + 1) * lda,
                                  A + (size_t)(m0 + 2) * lda, A + (size_t)(m0 + 3) * lda};
            dp_v4 s00 = {0}, s01 = {0}, s10 = {0}, s11 = {0};
            dp_v4 s20 = {0}, s21 = {0}, s30 = {0}, s31 = {0};
            for (int k = 0; k < K4; k += 4) {
                const dp_v4 x0 = dp_v4_load(b0 + k), x1 = dp_v4_load(b1 + k);
                dp_v4 y = dp_v4_load(a[0] + k);
                s00 += y * x0; s01 += y * x1;
                y = dp_v4_load(a[1] + k);
                s10 += y * x0; s11 += y * x1;
                y = dp_v4_load(a[2] + k);
                s20 += y * x0; s21 += y * x1;
                y = dp_v4_load(a[3] + k);
                s30 += y * x0; s31 += y * x1;
            }
            const dp_v4 s[4][2] = {{s00, s01}, {s10, s11}, {s20, s21}, {s30, s31}};
            for (int r = 0; r < 4; r++)
                for (int j = 0; j < 2; j++) {
                    const double *bj = j ? b1 : b0;
                    double t = dp_v4_sum(s[r][j]);
                    for (int k = K4; k < K; k++) t += a[r][k] * bj[k];
                    C[(size_t)(m0 + r) * ldc + n0 + j] += t;
                }
        }
        for (; m0 < M; m0++) {
            C[(size_t)m0 * ldc + n0] += dot(A + (size_t)m0 * lda, b0, K);
            C[(size_t)m0 * ldc + n0 + 1] += dot(A + (size_t)m0 * lda, b1, K);
        }
    }
    for (; n0 < N; n0++)
        for (int m = 0; m < M; m++)
            C[(size_t)m * ldc + n0] += dot(A + (size_t)m * lda, B + (size_t)n0 * ldb, K);
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

void dp_net_fit(const dp_net *net, int nb, const double *x0, double *y_out, double *grad,
                double *scratch)
{
    /* Scratch layout: per layer [inputs (nb x nin) | slopes act'(z) * idt (nb x nout)], then
     * the outputs (nb x nout), then two gradient blocks (nb x width). Each layer writes its
     * outputs straight into the next layer's input slot. Each layer is one matrix product
     * over the batch (gemm_abt); every sample's arithmetic is the same as alone. */
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
        gemm_abt(nb, no, ni, x, ni, L->wt, ni, y, no);
        for (int b = 0; b < nb; b++) {
            double *yb = y + (size_t)b * no, *sb = sl + (size_t)b * no;
            for (int o = 0; o < no; o++) {
                double a, a1, a2, g = L->idt ? L->idt[o] : 1.0;
                dp_act_eval(L->act, yb[o], &a, &a1, &a2);
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
        gemm_abt(nb, ni, no, ga, W, L->w, no, gb, W);
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
