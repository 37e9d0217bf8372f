/* Gradients of a weighted sum of symmetry functions, sum_s c_s dG_s/dx_n, from what
 * hdnnp_symfuncs stored: the weights are applied per pair first (vector loops over neighbours
 * or pairs), so each pair touches its two atoms once whatever the number of functions. */
#include <stddef.h>

#include "hdnnp_kernel.h"

/* Weights of one function in an angular group's contraction, as vectors (so that they are
 * operands of the vector multiply-adds, not broadcast each time). */
typedef struct {
    hdnnp_v4 q, t, y;     /* c zeta lambda, 2 c eta, c; compact types: c, 0, c */
    const double *Y, *D;  /* the function's per-pair arrays (D: compact types only) */
} fn_weights;

/* One angular group, four pairs at a time: the weighted sums over the group's functions give
 * A, B and C of each pair (hdnnp_kernel.h), then dT/dx_j = A a + B b and dT/dx_k = B a + C b.
 * The functions with lambda = 1 come first, those with lambda = -1 after them, so that
 * P = 1 + lambda cos multiplies two partial sums rather than each function. The k terms go
 * to g lane by lane; pairs are listed by increasing j, so the j terms of a block whose four
 * pairs share j are summed in registers until j changes. */
static inline __attribute__((always_inline)) void
contract_group(const hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
               const hdnnp_pairs *pr, const double *c, double *g, fn_weights *wf,
               const int compact)
{
    const hdnnp_env *e = &s->env;
    const size_t np = (size_t)pr->n;
    const int nsf = grp->nsf;
    const double rs = grp->rs;
    const double *d = s->coef + pr->coef;
    const double *Y = d + HDNNP_PAIR_N * np;
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
    const double *cos = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    const double *IB = d + HDNNP_PAIR_IB * np, *UC = d + HDNNP_PAIR_UC * np;
    const double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    const double *GC = d + HDNNP_PAIR_GC * np, *BX = d + HDNNP_PAIR_BX * np;
    const double *BY = d + HDNNP_PAIR_BY * np, *BZ = d + HDNNP_PAIR_BZ * np;
    const int *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    const hdnnp_v4 zero = {0.0, 0.0, 0.0, 0.0};
    int cur = pj[0];                       /* the j whose terms are being summed */
    hdnnp_v4 sjx = zero, sjy = zero, sjz = zero;
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
            for (int k = 0; k < npos; k++) {
                const hdnnp_v4 y = v4_load(wf[k].Y + p0);
                u += wf[k].q * y;
                vp += wf[k].t * y;
                wp += wf[k].y * y;
            }
            for (int k = npos; k < nsf; k++) {
                const hdnnp_v4 y = v4_load(wf[k].Y + p0);
                u += wf[k].q * y;
                vm += wf[k].t * y;
                wm += wf[k].y * y;
            }
            const hdnnp_v4 pp = 1.0 + cs, pm = 1.0 - cs;
            v = pp * vp + pm * vm;
            w = pp * wp + pm * wm;
        }
        const int j0 = pj[p0], uniform = j0 == pj[p0 + 3];
        hdnnp_v4 ax, ay, az, ia;   /* a = x_j - x_i, 1/r_a */
        if (uniform) {
            ax = zero + e->x[j0];
            ay = zero + e->y[j0];
            az = zero + e->z[j0];
            ia = zero + e->rinv[j0];
        } else {
            ax = v4_gather(e->x, pj + p0);
            ay = v4_gather(e->y, pj + p0);
            az = v4_gather(e->z, pj + p0);
            ia = v4_gather(e->rinv, pj + p0);
        }
        const hdnnp_v4 f = v4_load(F + p0), q = f * u, ib = v4_load(IB + p0);
        hdnnp_v4 A = -q * cs * ia * ia + w * v4_load(GA + p0);
        hdnnp_v4 B = q * ia * ib - w * v4_load(GC + p0);
        hdnnp_v4 C = -q * cs * ib * ib + w * v4_load(GB + p0);
        if (!compact) {
            const hdnnp_v4 T2 = f * v, uc = v4_load(UC + p0);
            A -= T2 * (1.0 - rs * ia + uc);
            B += T2 * uc;
            C -= T2 * (1.0 - rs * ib + uc);
        }
        const hdnnp_v4 bx = v4_load(BX + p0), by = v4_load(BY + p0), bz = v4_load(BZ + p0);
        v4_add_lanes(g, pk + p0, B * ax + C * bx, B * ay + C * by, B * az + C * bz);
        const hdnnp_v4 fx = A * ax + B * bx, fy = A * ay + B * by, fz = A * az + B * bz;
        if (!uniform) {
            v4_add_lanes(g, pj + p0, fx, fy, fz);
            continue;
        }
        if (j0 != cur) {
            double *gj = g + 4 * (size_t)cur;
            gj[0] += v4_sum(sjx);
            gj[1] += v4_sum(sjy);
            gj[2] += v4_sum(sjz);
            sjx = sjy = sjz = zero;
            cur = j0;
        }
        sjx += fx;
        sjy += fy;
        sjz += fz;
    }
    double *gj = g + 4 * (size_t)cur;
    gj[0] += v4_sum(sjx);
    gj[1] += v4_sum(sjy);
    gj[2] += v4_sum(sjz);
}

HDNNP_HOT void hdnnp_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c,
                              double *g)
{
    const hdnnp_env *e = &s->env;
    const int n = e->n;
    const size_t cap = (size_t)s->cap;

    /* radial: dG_s/dx_n = d_s(n) (x_n - x_i) */
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
        g[4 * q] = w[q] * e->x[q];
        g[4 * q + 1] = w[q] * e->y[q];
        g[4 * q + 2] = w[q] * e->z[q];
        g[4 * q + 3] = 0.0;
    }

    /* angular */
    _Static_assert(sizeof(fn_weights) <= HDNNP_FN_WEIGHTS_BYTES, "scratch for the weights");
    fn_weights *wf = s->wts_buf.data;
    for (int g0 = 0; g0 < el->nangular; g0++) {
        const hdnnp_group *grp = &el->angular[g0];
        const hdnnp_pairs *pr = &s->grp[g0];
        if (pr->n == 0) continue;
        if (hdnnp_type_compact(grp->type)) contract_group(s, el, grp, pr, c, g, wf, 1);
        else contract_group(s, el, grp, pr, c, g, wf, 0);
    }
}
