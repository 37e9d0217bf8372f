/* DeePMD-kit network layers: y = act(x W + b) * idt + resnet shortcut (x, or (x, x) when the
 * layer doubles the width). Forward mode with 1st/2nd derivatives for the scalar-input
 * embedding nets; reverse mode over a batch of inputs for the fitting nets, in double or
 * (float32 models) float: deepmd_net_fit.h holds that pass once, included here per type. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

#define GT double
#define G(x) x##_d
#define GFIT dp_net_fit
#define GSCRATCH dp_net_fit_scratch
#define GGEMM dp_gemm
#define GTANH dp_tanh_n
#define GFWD(L) (&(L)->fwd)
#define GBWD(L) (&(L)->bwd)
#define GB(L) ((L)->b)
#define GIDT(L) ((L)->idt)
#include "deepmd_net_fit.h"
#undef GT
#undef G
#undef GFIT
#undef GSCRATCH
#undef GGEMM
#undef GTANH
#undef GFWD
#undef GBWD
#undef GB
#undef GIDT

/* The embedding nets take the double instance's shortcut_d. */
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
        shortcut_d(L, x, u);
        shortcut_d(L, dx, du);
        shortcut_d(L, d2x, d2u);
        double *t;
        t = x; x = u; u = t;
        t = dx; dx = du; du = t;
        t = d2x; d2x = d2u; d2u = t;
    }
    memcpy(y, x, sizeof(double) * net->nout);
    if (dy) memcpy(dy, dx, sizeof(double) * net->nout);
    if (d2y) memcpy(d2y, d2x, sizeof(double) * net->nout);
}

/* The float32 instance: the layer's float copies (dp_net_pack_f). */
#define GT float
#define G(x) x##_f
#define GFIT dp_net_fit_f
#define GSCRATCH dp_net_fit_scratch_f
#define GGEMM dp_gemm_f
#define GTANH dp_tanh_nf
#define GFWD(L) (&(L)->f32.fwd)
#define GBWD(L) (&(L)->f32.bwd)
#define GB(L) ((L)->f32.b)
#define GIDT(L) ((L)->f32.idt)
#include "deepmd_net_fit.h"

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

/* A float copy of v (n values; NULL stays NULL); *ok cleared when out of memory. */
static float *to_float(const double *v, size_t n, int *ok)
{
    if (!v) return NULL;
    float *f = malloc(sizeof(float) * n);
    if (!f) {
        *ok = 0;
        return NULL;
    }
    for (size_t k = 0; k < n; k++) f[k] = (float)v[k];
    return f;
}

int dp_net_pack_f(dp_net *net)
{
    for (int l = 0; l < net->nlayer; l++) {
        dp_layer *L = &net->layer[l];
        const size_t nw = (size_t)L->nin * L->nout;
        int ok = 1;
        float *w = to_float(L->w, nw, &ok), *wt = to_float(L->wt, nw, &ok);
        L->f32.b = to_float(L->b, (size_t)L->nout, &ok);
        L->f32.idt = to_float(L->idt, (size_t)L->nout, &ok);
        if (ok && (dp_panels_pack_f(&L->f32.fwd, w, L->nin, L->nout, (size_t)L->nout) ||
                   dp_panels_pack_f(&L->f32.bwd, wt, L->nout, L->nin, (size_t)L->nin)))
            ok = 0;
        free(w);
        free(wt);
        if (!ok) return -1;
    }
    net->f32 = 1;
    return 0;
}

void dp_net_free(dp_net *net)
{
    for (int l = 0; l < net->nlayer; l++) {
        free(net->layer[l].w);
        free(net->layer[l].wt);
        dp_panels_free(&net->layer[l].fwd);
        dp_panels_free(&net->layer[l].bwd);
        dp_panels_free_f(&net->layer[l].f32.fwd);
        dp_panels_free_f(&net->layer[l].f32.bwd);
        free(net->layer[l].f32.b);
        free(net->layer[l].f32.idt);
        free(net->layer[l].b);
        free(net->layer[l].idt);
    }
    free(net->layer);
    net->layer = NULL;
    net->nlayer = 0;
    net->f32 = 0;
}
