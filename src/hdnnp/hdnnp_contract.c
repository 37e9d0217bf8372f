/* Gradients of a weighted sum of symmetry functions, sum_s c_s dG_s/dx_n, from what
 * hdnnp_symfuncs stored: the weights are applied per pair first (vector loops over neighbours
 * or pairs), so each pair touches its two atoms once whatever the number of functions. */
#include <string.h>

#include "hdnnp_kernel.h"

/* A, B, C of a compact group's pairs (see hdnnp_kernel.h): with u = sum c D, w = sum c Y,
 * q = F u: A = -q CA + w GA, B = q IAB - w GC, C = -q CB + w GB. */
static void compact_coefficients(const hdnnp_scratch *s, const hdnnp_pairs *pr,
                                 const hdnnp_angular_group *grp, const double *c, double *At,
                                 double *Bt, double *Ct)
{
    const size_t np = (size_t)pr->n;
    const double *d = s->coef + pr->coef;
    const double *F = d + HDNNP_PAIR_F * np, *CA = d + HDNNP_PAIR_CA * np;
    const double *CB = d + HDNNP_PAIR_CB * np, *IAB = d + HDNNP_PAIR_IAB * np;
    const double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    const double *GC = d + HDNNP_PAIR_GC * np, *Y = d + HDNNP_PAIR_N * np;
    const double *D = Y + (size_t)grp->nsf * np;
    for (size_t p = 0; p < np; p++) {
        double u = 0.0, w = 0.0;
        for (int m = 0; m < grp->nsf; m++) {
            u += c[grp->sf[m]] * D[(size_t)m * np + p];
            w += c[grp->sf[m]] * Y[(size_t)m * np + p];
        }
        const double q = F[p] * u;
        At[p] = -q * CA[p] + w * GA[p];
        Bt[p] = q * IAB[p] - w * GC[p];
        Ct[p] = -q * CB[p] + w * GB[p];
    }
}

HDNNP_HOT void hdnnp_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c,
                              double *gx, double *gy, double *gz)
{
    const hdnnp_env *e = &s->env;
    const int n = e->n;
    const size_t cap = (size_t)s->cap;
    memset(gx, 0, sizeof(double) * (size_t)n);
    memset(gy, 0, sizeof(double) * (size_t)n);
    memset(gz, 0, sizeof(double) * (size_t)n);

    /* radial: dG_s/dx_n = d_s(n) (x_n - x_i) */
    double *w = s->t;   /* the pair temporaries are free once hdnnp_symfuncs is done */
    for (int q = 0; q < n; q++) w[q] = 0.0;
    for (int r = 0; r < el->nradial; r++) {
        const int isf = el->radial[r];
        const double cs = c[isf];
        const double *d = s->rcoef + (size_t)isf * cap;
        if (cs == 0.0) continue;
#pragma omp simd
        for (int q = 0; q < n; q++) w[q] += cs * d[q];
    }
#pragma omp simd
    for (int q = 0; q < n; q++) {
        gx[q] = w[q] * e->x[q];
        gy[q] = w[q] * e->y[q];
        gz[q] = w[q] * e->z[q];
    }

    /* angular: sum_s c_s dT_s/dx_j = A a + B b and dx_k = B a + C b with the weighted sums
     * q = F sum c zeta lambda Y, T2 = F sum c 2 eta Y P, YP = sum c Y P (hdnnp_kernel.h) */
    for (int g = 0; g < el->nangular; g++) {
        const hdnnp_angular_group *grp = &el->angular[g];
        const hdnnp_pairs *pr = &s->grp[g];
        const size_t np = (size_t)pr->n;
        if (np == 0) continue;
        const int nsf = grp->nsf;
        double *At = s->t, *Bt = At + np, *Ct = Bt + np;
        if (hdnnp_type_compact(grp->type)) compact_coefficients(s, pr, grp, c, At, Bt, Ct);
        else {
        double *wq = Ct + np, *wt = wq + nsf, *wy = wt + nsf, *lam = wy + nsf;
        for (int m = 0; m < nsf; m++) {
            const hdnnp_sf *sf = &el->sf[grp->sf[m]];
            const double cs = c[grp->sf[m]];
            wq[m] = cs * sf->zeta * sf->lambda;
            wt[m] = cs * 2.0 * sf->eta;
            wy[m] = cs;
            lam[m] = sf->lambda;
        }
        const double *d = s->coef + pr->coef;
        const double *cos = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
        const double *CA = d + HDNNP_PAIR_CA * np, *CB = d + HDNNP_PAIR_CB * np;
        const double *IAB = d + HDNNP_PAIR_IAB * np, *UA = d + HDNNP_PAIR_UA * np;
        const double *UB = d + HDNNP_PAIR_UB * np, *UC = d + HDNNP_PAIR_UC * np;
        const double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
        const double *GC = d + HDNNP_PAIR_GC * np, *Y = d + HDNNP_PAIR_N * np;
        /* blocks of 4 pairs (the padding guarantees whole blocks): the block's sums stay in
         * vector registers while the functions are summed */
        for (size_t p0 = 0; p0 < np; p0 += 4) {
            const hdnnp_v4 cb = v4_load(cos + p0);
            hdnnp_v4 u = {0.0, 0.0, 0.0, 0.0}, v = u, w = u;
            for (int m = 0; m < nsf; m++) {
                const hdnnp_v4 y = v4_load(Y + (size_t)m * np + p0);
                const hdnnp_v4 yp = y * (1.0 + lam[m] * cb);
                u += wq[m] * y;
                v += wt[m] * yp;
                w += wy[m] * yp;
            }
            const hdnnp_v4 f = v4_load(F + p0), q = f * u, T2 = f * v;
            v4_store(At + p0, -q * v4_load(CA + p0) - T2 * v4_load(UA + p0) + w * v4_load(GA + p0));
            v4_store(Bt + p0, q * v4_load(IAB + p0) + T2 * v4_load(UC + p0) - w * v4_load(GC + p0));
            v4_store(Ct + p0, -q * v4_load(CB + p0) - T2 * v4_load(UB + p0) + w * v4_load(GB + p0));
        }
        }
        const int *pj = s->pj + pr->off, *pk = s->pk + pr->off;
        /* pairs come in runs of equal j: j's sums stay in registers along its run */
        for (int p = 0; p < pr->nreal;) {
            const int j = pj[p];
            const double ax = e->x[j], ay = e->y[j], az = e->z[j];
            double sa = 0.0, sx = 0.0, sy = 0.0, sz = 0.0;
            for (; p < pr->nreal && pj[p] == j; p++) {
                const int k = pk[p];
                const double bx = e->x[k], by = e->y[k], bz = e->z[k];
                const double A = At[p], B = Bt[p], C = Ct[p];
                sa += A;
                sx += B * bx;
                sy += B * by;
                sz += B * bz;
                gx[k] += B * ax + C * bx;
                gy[k] += B * ay + C * by;
                gz[k] += B * az + C * bz;
            }
            gx[j] += sa * ax + sx;
            gy[j] += sa * ay + sy;
            gz[j] += sa * az + sz;
        }
    }
}
