/* Per-pair functions of the hdnnp/pk CUDA backend in one precision (cutoffs, compact
 * windows, powers) and, through hdnnp_gpu_block.h, the block kernels' phases: included by
 * hdnnp_gpu.h once per precision with HDG_SUFFIX (_d, _f), HDG_REAL (the type of the
 * per-pair arithmetic) and its math functions defined; sums are double in both.
 *
 * The formulas are those of hdnnp_symfunc.c (definitions of every type). */

#define HDG_CAT2(a, b) a##b
#define HDG_CAT(a, b) HDG_CAT2(a, b)
#define HDG(name) HDG_CAT(name, HDG_SUFFIX)
#define R HDG_REAL

/* hdnnp_core_fdf (the complements of the smoothstep polynomials, and exp(1 - 1/(1 - x^2))) */
PK_HD void HDG(hdg_core)(int core, R x, R *f, R *df)
{
    const R u = (R)1 - x, xu = x * u;
    switch (core) {
    case HDNNP_CORE_EXP: {
        const R t = (R)1 / ((x - (R)1) * (x + (R)1));
        *f = (R)HDG_E * HDG_EXP(t);
        *df = (R)-2 * x * t * t * *f;
        return;
    }
    case HDNNP_CORE_POLY1:
        *f = u * u * ((R)1 + (R)2 * x);
        *df = (R)-6 * xu;
        return;
    case HDNNP_CORE_POLY2:
        *f = u * u * u * ((R)1 + x * ((R)3 + (R)6 * x));
        *df = (R)-30 * xu * xu;
        return;
    case HDNNP_CORE_POLY3: {
        const R u2 = u * u;
        *f = u2 * u2 * ((R)1 + x * ((R)4 + x * ((R)10 + (R)20 * x)));
        *df = (R)-140 * xu * xu * xu;
        return;
    }
    case HDNNP_CORE_POLY4: {
        const R u2 = u * u, xu2 = xu * xu;
        *f = u2 * u2 * u * ((R)1 + x * ((R)5 + x * ((R)15 + x * ((R)35 + (R)70 * x))));
        *df = (R)-630 * xu2 * xu2;
        return;
    }
    default: *f = *df = (R)0; return;
    }
}

/* hdnnp_window_fdf: compact window on (lo, hi) with centre c and inverse half-width hw */
PK_HD void HDG(hdg_window)(int core, int asym, R lo, R hi, R c, R hw, R r, R *f, R *df)
{
    const R y = HDG_FABS(r - c) * hw;
    if (!(r > lo && r < hi) || y >= (R)1) {
        *f = *df = (R)0;
        return;
    }
    const R x = asym ? y * ((R)2 - y) : y;
    HDG(hdg_core)(core, x, f, df);
    *df *= (asym ? (R)2 - (R)2 * y : (R)1) * (r < c ? -hw : hw);
}

/* hdnnp_cutoff_fdf */
PK_HD void HDG(hdg_cutoff)(const hdnnp_cutoff *c, R r, R *f, R *df)
{
    if (c->type == HDNNP_CT_COMPACT) {
        HDG(hdg_window)(c->core, c->asym, (R)c->rl, (R)c->rc, (R)c->center, (R)c->hw, r, f, df);
        return;
    }
    if (r >= (R)c->rc) {
        *f = *df = (R)0;
        return;
    }
    switch (c->type) {
    case HDNNP_CT_HARD:
        *f = (R)1;
        *df = (R)0;
        return;
    case HDNNP_CT_TANHU:
    case HDNNP_CT_TANH: {   /* pre tanh^3(1 - r/rc) */
        const R e = HDG_EXP((R)-2 * ((R)1 - r * (R)c->irc));
        const R t = ((R)1 - e) / ((R)1 + e), t2 = t * t, pre = (R)c->pre;
        *f = pre * t * t2;
        *df = (R)3 * pre * t2 * (t2 - (R)1) * (R)c->irc;
        return;
    }
    default: break;
    }
    if (r < (R)c->rci) {
        *f = (R)1;
        *df = (R)0;
        return;
    }
    const R iw = (R)c->iw, x = (r - (R)c->rci) * iw;
    R fx, dfx;
    if (c->type == HDNNP_CT_COS) {
        fx = (R)0.5 * (HDG_COS((R)HDG_PI * x) + (R)1);
        dfx = (R)-0.5 * (R)HDG_PI * HDG_SIN((R)HDG_PI * x);
    } else {   /* EXP, POLY1-4: the core functions */
        const int core = c->type == HDNNP_CT_EXP
                             ? (int)HDNNP_CORE_EXP
                             : (int)HDNNP_CORE_POLY1 + ((int)c->type - (int)HDNNP_CT_POLY1);
        HDG(hdg_core)(core, x, &fx, &dfx);
    }
    *f = fx;
    *df = dfx * iw;
}

/* P^(zeta - 1) for P > 0 */
PK_HD R HDG(hdg_pow_m1)(const hdnnp_sf *sf, R P)
{
    if (!sf->int_pow || sf->zeta_int < 1) return HDG_POW(P, (R)(sf->zeta - 1.0));
    R y = (R)1;
    for (int k = 1; k < sf->zeta_int; k++) y *= P;
    return y;
}

/* Compact angular window of function sf at cos t: C_a and dC_a/dcos; 0 unless -1 < cos < 1
 * (n2p2 drops those terms: dt/dcos is infinite there). */
PK_HD void HDG(hdg_angle_window)(const hdnnp_sf *sf, R cs, R *ca, R *dca)
{
    *ca = *dca = (R)0;
    if (!(cs > (R)-1 && cs < (R)1)) return;
    R da;
    HDG(hdg_window)(sf->core, 0, (R)sf->rad_left, (R)sf->rad_right, (R)sf->rad_center,
                    (R)sf->rad_hw, HDG_ACOS(cs), ca, &da);
    *dca = da * ((R)-1 / HDG_SQRT((R)1 - cs * cs));
}

#include "hdnnp_gpu_block.h"

#undef R
#undef HDG
#undef HDG_SUFFIX
#undef HDG_REAL
#undef HDG_EXP
#undef HDG_SQRT
#undef HDG_POW
#undef HDG_ACOS
#undef HDG_COS
#undef HDG_SIN
#undef HDG_FABS
