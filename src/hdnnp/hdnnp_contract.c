/* Gradients of a weighted sum of symmetry functions, sum_s c_s dG_s/dx_n, from what
 * hdnnp_symfuncs stored: the weights are applied per pair first (vector loops over neighbours
 * or pairs), so each pair touches its two atoms once whatever the number of functions.
 *
 * Every term of a neighbour's gradient is a multiple of its own vector x_n - x_i or of
 * another neighbour's (radial: d_n (x_n - x_i); angular: A a to j, C b to k, B b to j and
 * B a to k). The multiples of the own vector are summed as one scalar in g[4 n + 3] and
 * applied once per neighbour at the end, so a pair adds one vector and one scalar to each
 * of its atoms instead of two vectors. */
#include <stddef.h>

#include "hdnnp_kernel.h"

/* Weights of one function in an angular group's contraction, as vectors (so that they are
 * operands of the vector multiply-adds, not broadcast each time). */
typedef struct {
    hdnnp_v4 q, t, y;     /* c zeta lambda, 2 c eta, c; compact types: c, 0, c */
    const double *Y, *D;  /* the function's per-pair arrays (D: compact types only) */
} fn_weights;

/* (sum of a's lanes, b's, c's, d's), each summed as v4_sum does: four shuffles and three adds
 * instead of four separate horizontal sums. */
HDNNP_V4_INLINE hdnnp_v4 v4_sum4(hdnnp_v4 a, hdnnp_v4 b, hdnnp_v4 c, hdnnp_v4 d)
{
    const hdnnp_v4 ab = HDNNP_SHUFFLE(a, b, 0, 4, 2, 6) + HDNNP_SHUFFLE(a, b, 1, 5, 3, 7);
    const hdnnp_v4 cd = HDNNP_SHUFFLE(c, d, 0, 4, 2, 6) + HDNNP_SHUFFLE(c, d, 1, 5, 3, 7);
    return HDNNP_SHUFFLE(ab, cd, 0, 1, 4, 5) + HDNNP_SHUFFLE(ab, cd, 2, 3, 6, 7);
}

/* The weights of an angular group's functions into wf (for non-compact groups those with
 * lambda = 1 first); returns how many have lambda = 1 (all of them for compact groups). */
static int group_weights(const hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
                         const hdnnp_pairs *pr, const double *c, fn_weights *wf)
{
    const int compact = hdnnp_type_compact(grp->type), nsf = grp->nsf;
    const size_t np = (size_t)pr->n;
    const double *Y = s->coef + pr->coef + HDNNP_PAIR_N * np;
    int nw = 0, npos = 0;   /* functions with lambda = 1: wf[0..npos) */
    for (int pass = 0; pass < (compact ? 1 : 2); pass++) {
        for (int m = 0; m < nsf; m++) {
            const hdnnp_sf *sf = &el->sf[grp->sf[m]];
            if (!compact && (sf->lambda > 0.0) != (pass == 0)) continue;
            const double cs = c[grp->sf[m]];
            fn_weights *w = &wf[nw++];
            w->q = w->t = w->y = (hdnnp_v4){0.0, 0.0, 0.0, 0.0};
            w->q += compact ? cs : cs * sf->zeta * sf->lambda;
            w->t += cs * 2.0 * sf->eta;
            w->y += cs;
            w->Y = Y + (size_t)m * np;
            w->D = compact ? Y + (size_t)(nsf + m) * np : NULL;
        }
        if (pass == 0) npos = nw;
    }
    return npos;
}

/* One angular group, four pairs at a time: the weighted sums over the group's functions give
 * A, B and C of each pair (hdnnp_kernel.h), then dT/dx_j = A a + B b and dT/dx_k = B a + C b.
 * The functions with lambda = 1 come first, those with lambda = -1 after them, so that
 * P = 1 + lambda cos multiplies two partial sums rather than each function. The k terms
 * (B a, and C in the own-vector slot) go to g lane by lane; pairs are listed by increasing j,
 * so the j terms (B b, and A) of a block whose four pairs share j are summed in registers
 * until j changes. kp, km >= 0: the numbers of functions with lambda = 1 and -1 as constants
 * (the function loops then unroll); -1: npos and nsf - npos at run time. */
static inline __attribute__((always_inline)) void
contract_group(const hdnnp_scratch *s, const hdnnp_group *grp, const hdnnp_pairs *pr, double *g,
               const fn_weights *wf, int npos, const int compact, const int kp, const int km)
{
    const hdnnp_env *e = &s->env;
    const size_t np = (size_t)pr->n;
    const int nsf = grp->nsf;
    const int np1 = kp >= 0 ? kp : npos, nm1 = km >= 0 ? km : nsf - npos;
    const double rs = grp->rs;
    const double *d = s->coef + pr->coef;
    const double *cos = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    const double *IB = d + HDNNP_PAIR_IB * np, *UC = d + HDNNP_PAIR_UC * np;
    const double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    const double *GC = d + HDNNP_PAIR_GC * np, *BX = d + HDNNP_PAIR_BX * np;
    const double *BY = d + HDNNP_PAIR_BY * np, *BZ = d + HDNNP_PAIR_BZ * np;
    const int *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    const hdnnp_v4 zero = {0.0, 0.0, 0.0, 0.0};
    int cur = -1;   /* the j whose terms are being summed, and its values broadcast: */
    hdnnp_v4 jx = zero, jy = zero, jz = zero, jia = zero, jia2 = zero, jua = zero;
    hdnnp_v4 sjx = zero, sjy = zero, sjz = zero, sja = zero;
    for (size_t p0 = 0; p0 < np; p0 += 4) {
        /* u = sum c dT/dcos / F, v = sum 2 c eta T / F, w = sum c T / F (per pair) */
        const hdnnp_v4 cs = v4_load(cos + p0);
        hdnnp_v4 u = zero, v = zero, w = zero;
        if (compact) {
            for (int k = 0; k < nsf; k++) {
                u += wf[k].q * v4_load(wf[k].D + p0);
                w += wf[k].y * v4_load(wf[k].Y + p0);
            }
        } else {
            hdnnp_v4 vp = zero, wp = zero, vm = zero, wm = zero;
            for (int k = 0; k < np1; k++) {
                const hdnnp_v4 y = v4_load(wf[k].Y + p0);
                u += wf[k].q * y;
                vp += wf[k].t * y;
                wp += wf[k].y * y;
            }
            for (int k = 0; k < nm1; k++) {
                const hdnnp_v4 y = v4_load(wf[np1 + k].Y + p0);
                u += wf[np1 + k].q * y;
                vm += wf[np1 + k].t * y;
                wm += wf[np1 + k].y * y;
            }
            const hdnnp_v4 pp = 1.0 + cs, pm = 1.0 - cs;
            v = pp * vp + pm * vm;
            w = pp * wp + pm * wm;
        }
        const int j0 = pj[p0], uniform = j0 == pj[p0 + 3];
        if (uniform && j0 != cur) {   /* a new j: its sums to g, its values broadcast */
            if (cur >= 0) {
                double *gj = g + 4 * (size_t)cur;
                v4_store(gj, v4_load(gj) + v4_sum4(sjx, sjy, sjz, sja));
            }
            sjx = sjy = sjz = sja = zero;
            cur = j0;
            jx = zero + e->x[j0];
            jy = zero + e->y[j0];
            jz = zero + e->z[j0];
            jia = zero + e->rinv[j0];
            jia2 = jia * jia;
            jua = 1.0 - rs * jia;
        }
        /* a = x_j - x_i, 1/r_a, 1/r_a^2, 1 - rs/r_a */
        hdnnp_v4 ax = jx, ay = jy, az = jz, ia = jia, ia2 = jia2, ua = jua;
        if (!uniform) {
            ax = v4_gather(e->x, pj + p0);
            ay = v4_gather(e->y, pj + p0);
            az = v4_gather(e->z, pj + p0);
            ia = v4_gather(e->rinv, pj + p0);
            ia2 = ia * ia;
            ua = 1.0 - rs * ia;
        }
        const hdnnp_v4 f = v4_load(F + p0), q = f * u, ib = v4_load(IB + p0);
        hdnnp_v4 A = -q * cs * ia2 + w * v4_load(GA + p0);
        hdnnp_v4 B = q * ia * ib - w * v4_load(GC + p0);
        hdnnp_v4 C = -q * cs * ib * ib + w * v4_load(GB + p0);
        if (!compact) {
            const hdnnp_v4 T2 = f * v, uc = v4_load(UC + p0);
            A -= T2 * (ua + uc);
            B += T2 * uc;
            C -= T2 * (1.0 - rs * ib + uc);
        }
        const hdnnp_v4 bx = v4_load(BX + p0), by = v4_load(BY + p0), bz = v4_load(BZ + p0);
        v4_add_lanes(g, pk + p0, B * ax, B * ay, B * az, C);
        if (!uniform) {
            v4_add_lanes(g, pj + p0, B * bx, B * by, B * bz, A);
            continue;
        }
        sjx += B * bx;
        sjy += B * by;
        sjz += B * bz;
        sja += A;
    }
    if (cur >= 0) {
        double *gj = g + 4 * (size_t)cur;
        v4_store(gj, v4_load(gj) + v4_sum4(sjx, sjy, sjz, sja));
    }
}

HDNNP_HOT void hdnnp_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c,
                              double *g)
{
    const hdnnp_env *e = &s->env;
    const int n = e->n;
    const size_t cap = (size_t)s->cap;

    /* radial: dG_s/dx_n = d_s(n) (x_n - x_i), an own-vector multiple */
    double *w = s->t;   /* the pair temporaries are free once hdnnp_symfuncs is done */
    for (int q = 0; q < n; q++) w[q] = 0.0;
    for (int g0 = 0; g0 < el->nradial; g0++) {
        const hdnnp_group *grp = &el->radial[g0];
        int n0, n1;
        hdnnp_group_range(e, grp->e1, &n0, &n1);
        for (int m = 0; m < grp->nsf; m++) {
            const double cs = c[grp->sf[m]], *d = s->rcoef + (size_t)grp->sf[m] * cap;
#pragma omp simd
            for (int q = n0; q < n1; q++) w[q] += cs * d[q];
        }
    }
    for (int q = 0; q < n; q++) {
        g[4 * q] = g[4 * q + 1] = g[4 * q + 2] = 0.0;
        g[4 * q + 3] = w[q];
    }

    /* angular */
    _Static_assert(sizeof(fn_weights) <= HDNNP_FN_WEIGHTS_BYTES, "scratch for the weights");
    fn_weights *wf = s->wts_buf.data;
    for (int g0 = 0; g0 < el->nangular; g0++) {
        const hdnnp_group *grp = &el->angular[g0];
        const hdnnp_pairs *pr = &s->grp[g0];
        if (pr->n == 0) continue;
        const int npos = group_weights(s, el, grp, pr, c, wf), nneg = grp->nsf - npos;
        if (hdnnp_type_compact(grp->type)) {
            contract_group(s, grp, pr, g, wf, npos, 1, -1, -1);
            continue;
        }
        /* the usual groups, as many functions with lambda = -1 as with 1 (or one fewer), as
         * constants */
#define HDNNP_CONTRACT_CASE(a, b) \
    case 8 * (a) + (b): contract_group(s, grp, pr, g, wf, npos, 0, a, b); break
        switch (npos <= 4 && nneg <= 4 ? 8 * npos + nneg : -1) {
            HDNNP_CONTRACT_CASE(1, 1);
            HDNNP_CONTRACT_CASE(2, 1);
            HDNNP_CONTRACT_CASE(2, 2);
            HDNNP_CONTRACT_CASE(3, 2);
            HDNNP_CONTRACT_CASE(3, 3);
            HDNNP_CONTRACT_CASE(4, 3);
            HDNNP_CONTRACT_CASE(4, 4);
        default: contract_group(s, grp, pr, g, wf, npos, 0, -1, -1); break;
        }
#undef HDNNP_CONTRACT_CASE
    }
    for (int q = 0; q < n; q++) {   /* the own-vector multiples */
        g[4 * q] += g[4 * q + 3] * e->x[q];
        g[4 * q + 1] += g[4 * q + 3] * e->y[q];
        g[4 * q + 2] += g[4 * q + 3] * e->z[q];
    }
}
