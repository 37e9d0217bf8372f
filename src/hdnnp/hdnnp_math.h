/* Scalar building blocks of hdnnp/pk written so that loops over them vectorise:
 * an exp without libm calls, the n2p2 cutoff functions, the activation functions. */
#ifndef HDNNP_MATH_H
#define HDNNP_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hdnnp_model.h"

#define HDNNP_PI 3.14159265358979323846
#define HDNNP_E 2.71828182845904523536

/* exp(x) for x in [-708, 709] (clamped outside), relative error < 5e-16.
 * exp(x) = 2^k exp(r), k = nearint(x / ln2), |r| <= ln2/2 (Cody-Waite split of ln2), exp(r)
 * by its Taylor polynomial of degree 13 (truncation error < 3e-18) evaluated with Estrin's
 * scheme. 2^k is assembled from the rounding trick x/ln2 + 1.5*2^52, whose low mantissa bits
 * hold k. HDNNP_EXP_POLY is shared with the four-lane v4_exp (the macro works for double and
 * vector operands alike). */
#define HDNNP_EXP_SHIFT 6755399441055744.0   /* 1.5 * 2^52 */
/* exp(r), |r| <= ln2/2, from r and its powers r2, r4, r8 (Estrin's scheme: a short chain) */
#define HDNNP_EXP_POLY(r, r2, r4, r8)                                                         \
    ((((1.0 + (r)) + (r2) * (0.5 + (r) * (1.0 / 6.0))) +                                      \
      (r4) * ((1.0 / 24.0 + (r) * (1.0 / 120.0)) + (r2) * (1.0 / 720.0 + (r) * (1.0 / 5040.0)))) + \
     (r8) * (((1.0 / 40320.0 + (r) * (1.0 / 362880.0)) +                                      \
              (r2) * (1.0 / 3628800.0 + (r) * (1.0 / 39916800.0))) +                          \
             (r4) * (1.0 / 479001600.0 + (r) * (1.0 / 6227020800.0))))

static inline double hdnnp_exp(double x)
{
    x = x < -708.0 ? -708.0 : x;
    x = x > 709.0 ? 709.0 : x;
    const double kd = x * 1.4426950408889634 + HDNNP_EXP_SHIFT, k = kd - HDNNP_EXP_SHIFT;
    const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4, p = HDNNP_EXP_POLY(r, r2, r4, r8);
    uint64_t bits;
    memcpy(&bits, &kd, sizeof bits);
    bits = (bits + 1023u) << 52;                        /* biased exponent k + 1023 */
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* tanh(u) = u P(u^2) for u in [0, 1]: P of degree 15 interpolates tanh(sqrt v)/sqrt v at the 16
 * Chebyshev points of v in [0, 1] (coefficients from a 60-digit fit); relative error < 4e-16
 * in double with Estrin's scheme (checked against 60-digit tanh at 50000 points). The TANHU
 * and TANH cutoffs evaluate it for every neighbour pair of the angular functions: no exp and
 * no division, and a short dependency chain. From v = u^2 and its powers v2, v4, v8 (for
 * double and vector operands alike). */
static const double hdnnp_tanh_c[16] = {
    1.0, -0.3333333333333273, 0.13333333333282113, -0.05396825395091773,
    0.021869488226930838, -0.008863232181130274, 0.003592104115230281, -0.00145571559077928,
    0.0005896028950856166, -0.00023801236323479905, 9.472256075732066e-05,
    -3.603918536997382e-05, 1.2306805295349983e-05, -3.402993826979274e-06,
    6.496857637862531e-07, -6.20675330545365e-08};
#define HDNNP_TANH_PAIR(v, k) (hdnnp_tanh_c[k] + (v) * hdnnp_tanh_c[(k) + 1])
#define HDNNP_TANH_POLY(v, v2, v4, v8)                                                        \
    (((HDNNP_TANH_PAIR(v, 0) + (v2) * HDNNP_TANH_PAIR(v, 2)) +                                  \
      (v4) * (HDNNP_TANH_PAIR(v, 4) + (v2) * HDNNP_TANH_PAIR(v, 6))) +                          \
     (v8) * ((HDNNP_TANH_PAIR(v, 8) + (v2) * HDNNP_TANH_PAIR(v, 10)) +                          \
             (v4) * (HDNNP_TANH_PAIR(v, 12) + (v2) * HDNNP_TANH_PAIR(v, 14))))

/* The core function of cutoff types EXP and POLY1-4 (n2p2 CutoffFunction). */
static inline hdnnp_core hdnnp_cutoff_core(hdnnp_cutoff_type type)
{
    static const hdnnp_core cores[] = {HDNNP_CORE_EXP, HDNNP_CORE_POLY1, HDNNP_CORE_POLY2,
                                       HDNNP_CORE_POLY3, HDNNP_CORE_POLY4};
    return cores[type - HDNNP_CT_EXP];
}

/* Core function f(x) and f'(x) for x in [0, 1) (n2p2 CoreFunction; see hdnnp_core). The
 * polynomials are the complements of the smoothstep polynomials,
 *   POLYn: f = 1 - S_n(x) = (1 - x)^(n+1) sum_{k=0}^{n} C(n+k, k) x^k,
 *          f' = -(2n+1)!/(n!)^2 x^n (1 - x)^n,
 * identical to n2p2's (2x - 3)x^2 + 1, ((15 - 6x)x - 10)x^3 + 1, ... but written so that
 * they keep their relative accuracy near x = 1, where the expanded forms cancel. */
static inline void hdnnp_core_fdf(hdnnp_core core, double x, double *f, double *df)
{
    const double u = 1.0 - x, xu = x * u;
    switch (core) {
    case HDNNP_CORE_EXP: {         /* f = e * exp(1/(x^2 - 1)) = exp(1 - 1/(1 - x^2)) */
        const double t = 1.0 / ((x - 1.0) * (x + 1.0));
        *f = HDNNP_E * hdnnp_exp(t);
        *df = -2.0 * x * t * t * *f;
        return;
    }
    case HDNNP_CORE_POLY1:
        *f = u * u * (1.0 + 2.0 * x);
        *df = -6.0 * xu;
        return;
    case HDNNP_CORE_POLY2:
        *f = u * u * u * (1.0 + x * (3.0 + 6.0 * x));
        *df = -30.0 * xu * xu;
        return;
    case HDNNP_CORE_POLY3: {
        const double u2 = u * u;
        *f = u2 * u2 * (1.0 + x * (4.0 + x * (10.0 + 20.0 * x)));
        *df = -140.0 * xu * xu * xu;
        return;
    }
    case HDNNP_CORE_POLY4: {
        const double u2 = u * u, xu2 = xu * xu;
        *f = u2 * u2 * u * (1.0 + x * (5.0 + x * (15.0 + x * (35.0 + 70.0 * x))));
        *df = -630.0 * xu2 * xu2;
        return;
    }
    }
    *f = *df = 0.0;
}

/* Compact window of the types 20-25 (n2p2 CompactFunction): C(r) = core(y), y = |r - c| hw
 * (y (2 - y) with asym), zero outside the open interval (lo, hi). Also used for angles. */
static inline void hdnnp_window_fdf(hdnnp_core core, int asym, double lo, double hi, double c,
                                    double hw, double r, double *f, double *df)
{
    const double y = fabs(r - c) * hw;
    if (!(r > lo && r < hi) || y >= 1.0) {
        *f = *df = 0.0;
        return;
    }
    const double x = asym ? y * (2.0 - y) : y;
    hdnnp_core_fdf(core, x, f, df);
    /* dC/dr = f'(x) dx/dy dy/dr */
    *df *= (asym ? 2.0 - 2.0 * y : 1.0) * (r < c ? -hw : hw);
}

/* n2p2 cutoff functions f_c(r) and df_c/dr (CutoffFunction.h): zero for r >= rc; types with
 * an inner cutoff are 1 below rci = alpha rc and f(x) of x = (r - rci)/(rc - rci) above.
 * HDNNP_CT_COMPACT: the compact window. */
static inline void hdnnp_cutoff_fdf(const hdnnp_cutoff *c, double r, double *f, double *df)
{
    if (c->type == HDNNP_CT_COMPACT) {
        hdnnp_window_fdf(c->core, c->asym, c->rl, c->rc, c->center, c->hw, r, f, df);
        return;
    }
    if (r >= c->rc) {
        *f = 0.0;
        *df = 0.0;
        return;
    }
    if (c->type == HDNNP_CT_HARD) {
        *f = 1.0;
        *df = 0.0;
        return;
    }
    if (c->type == HDNNP_CT_TANHU || c->type == HDNNP_CT_TANH) {
        /* f = pre * tanh^3(1 - r/rc); pre = 1/tanh^3(1) for TANH (f(0) = 1) */
        const double pre = c->pre;
        const double u = 1.0 - r / c->rc, v = u * u, v2 = v * v, v4 = v2 * v2;
        const double t = u * HDNNP_TANH_POLY(v, v2, v4, v4 * v4);
        const double t2 = t * t;
        *f = pre * t * t2;
        *df = 3.0 * pre * t2 * (t2 - 1.0) / c->rc;
        return;
    }
    if (r < c->rci) {
        *f = 1.0;
        *df = 0.0;
        return;
    }
    const double x = (r - c->rci) * c->iw;
    double fx, dfx;
    if (c->type == HDNNP_CT_COS) {
        fx = 0.5 * (cos(HDNNP_PI * x) + 1.0);
        dfx = -0.5 * HDNNP_PI * sin(HDNNP_PI * x);
    } else {   /* EXP, POLY1-4: the core functions */
        hdnnp_core_fdf(hdnnp_cutoff_core(c->type), x, &fx, &dfx);
    }
    *f = fx;
    *df = dfx * c->iw;
}

/* Activation value and derivative, as n2p2's NeuralNetwork::propagateLayer (EXP_LIMIT 35
 * saturation for the logistic and softplus functions). */
static inline void hdnnp_activate(hdnnp_activation a, double x, double *y, double *dy)
{
    switch (a) {
    case HDNNP_AF_IDENTITY: *y = x; *dy = 1.0; return;
    case HDNNP_AF_TANH: { const double t = tanh(x); *y = t; *dy = 1.0 - t * t; return; }
    case HDNNP_AF_LOGISTIC:
        if (x > 35.0) { *y = 1.0; *dy = 0.0; }
        else if (x < -35.0) { *y = 0.0; *dy = 0.0; }
        else { const double s = 1.0 / (1.0 + exp(-x)); *y = s; *dy = s * (1.0 - s); }
        return;
    case HDNNP_AF_SOFTPLUS:
        if (x > 35.0) { *y = x; *dy = 1.0; }
        else if (x < -35.0) { *y = 0.0; *dy = 0.0; }
        else { const double e = exp(x); *y = log(1.0 + e); *dy = 1.0 / (1.0 + 1.0 / e); }
        return;
    case HDNNP_AF_RELU: *y = x > 0.0 ? x : 0.0; *dy = x > 0.0 ? 1.0 : 0.0; return;
    case HDNNP_AF_GAUSSIAN: { const double g = exp(-0.5 * x * x); *y = g; *dy = -x * g; return; }
    case HDNNP_AF_COS: *y = cos(x); *dy = -sin(x); return;
    case HDNNP_AF_REVLOGISTIC: {
        const double s = 1.0 / (1.0 + exp(-x));
        *y = 1.0 - s; *dy = s * (s - 1.0); return;
    }
    case HDNNP_AF_EXP: { const double e = exp(-x); *y = e; *dy = -e; return; }
    case HDNNP_AF_HARMONIC: *y = x * x; *dy = 2.0 * x; return;
    }
    *y = x;
    *dy = 1.0;
}

#endif
