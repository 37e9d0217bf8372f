/* deepmd/pk sve backend: descriptor, fitting nets and their gradient for a batch of centres
 * of one type, in ACLE SVE (the mathematics of deepmd_fit.c and of dp_net_fit in
 * deepmd_net.c, with the same scratch layout):
 *   D[m*axis + a] = sum_d T[d][m] T[d][a]
 *   layer: y = act(x W + b) * idt + shortcut, reverse: g_in = W (g_out * act' * idt) + shortcut^T
 *   dE/dT[d][m] = sum_a g[m][a] T[d][a] + [m < axis] sum_m' g[m'][m] T[d][m']
 * The layer products run with lanes over the outputs of a layer (forward: W as stored,
 * nin x nout; reverse: its transpose, nout x nin), four centres x two vectors of outputs
 * per tile, two k at a time through ld1rqd + indexed multiply-add.
 *
 * tanh: libm per element by default (the cpu backend's values: the backends agree to
 * round-off); with the model's tanh table (pk_deepmd_options.tanh_table) it is evaluated in
 * the lanes from the table's quintic pieces (deepmd_tanh.c states their accuracy). The
 * other activations stay scalar (dp_act_eval). */
#include <arm_sve.h>
#include <string.h>

#include "deepmd_internal.h"
#include "deepmd_sve.h"

/* C (M x N) += A (M x K) B (K x N), row-major with leading dimensions; lanes over N. */
static void gemm_ab(int M, int N, int K, const double *A, size_t lda, const double *B,
                    size_t ldb, double *C, size_t ldc)
{
    const int vl = (int)svcntd(), K2 = K - K % 2;
    const svbool_t all = svptrue_b64();
    for (int n0 = 0; n0 < N; n0 += 2 * vl) {
        const svbool_t p0 = svwhilelt_b64(n0, N), p1 = svwhilelt_b64(n0 + vl, N);
        const double *Bn = B + n0;
        int m0 = 0;
        for (; m0 + 4 <= M; m0 += 4) {
            const double *a0 = A + (size_t)m0 * lda, *a1 = a0 + lda, *a2 = a1 + lda;
            const double *a3 = a2 + lda;
            double *c0 = C + (size_t)m0 * ldc + n0, *c1 = c0 + ldc, *c2 = c1 + ldc;
            double *c3 = c2 + ldc;
            svfloat64_t s00 = svld1_f64(p0, c0), s01 = svld1_f64(p1, c0 + vl);
            svfloat64_t s10 = svld1_f64(p0, c1), s11 = svld1_f64(p1, c1 + vl);
            svfloat64_t s20 = svld1_f64(p0, c2), s21 = svld1_f64(p1, c2 + vl);
            svfloat64_t s30 = svld1_f64(p0, c3), s31 = svld1_f64(p1, c3 + vl);
            int k = 0;
            for (; k < K2; k += 2) {
                const double *b = Bn + (size_t)k * ldb;
                const svfloat64_t x0 = svld1_f64(p0, b), x1 = svld1_f64(p1, b + vl);
                const svfloat64_t y0 = svld1_f64(p0, b + ldb), y1 = svld1_f64(p1, b + ldb + vl);
                svfloat64_t q = svld1rq_f64(all, a0 + k);
                s00 = svmla_lane_f64(svmla_lane_f64(s00, x0, q, 0), y0, q, 1);
                s01 = svmla_lane_f64(svmla_lane_f64(s01, x1, q, 0), y1, q, 1);
                q = svld1rq_f64(all, a1 + k);
                s10 = svmla_lane_f64(svmla_lane_f64(s10, x0, q, 0), y0, q, 1);
                s11 = svmla_lane_f64(svmla_lane_f64(s11, x1, q, 0), y1, q, 1);
                q = svld1rq_f64(all, a2 + k);
                s20 = svmla_lane_f64(svmla_lane_f64(s20, x0, q, 0), y0, q, 1);
                s21 = svmla_lane_f64(svmla_lane_f64(s21, x1, q, 0), y1, q, 1);
                q = svld1rq_f64(all, a3 + k);
                s30 = svmla_lane_f64(svmla_lane_f64(s30, x0, q, 0), y0, q, 1);
                s31 = svmla_lane_f64(svmla_lane_f64(s31, x1, q, 0), y1, q, 1);
            }
            if (k < K) {
                const double *b = Bn + (size_t)k * ldb;
                const svfloat64_t x0 = svld1_f64(p0, b), x1 = svld1_f64(p1, b + vl);
                s00 = svmla_n_f64_x(all, s00, x0, a0[k]);
                s01 = svmla_n_f64_x(all, s01, x1, a0[k]);
                s10 = svmla_n_f64_x(all, s10, x0, a1[k]);
                s11 = svmla_n_f64_x(all, s11, x1, a1[k]);
                s20 = svmla_n_f64_x(all, s20, x0, a2[k]);
                s21 = svmla_n_f64_x(all, s21, x1, a2[k]);
                s30 = svmla_n_f64_x(all, s30, x0, a3[k]);
                s31 = svmla_n_f64_x(all, s31, x1, a3[k]);
            }
            svst1_f64(p0, c0, s00); svst1_f64(p1, c0 + vl, s01);
            svst1_f64(p0, c1, s10); svst1_f64(p1, c1 + vl, s11);
            svst1_f64(p0, c2, s20); svst1_f64(p1, c2 + vl, s21);
            svst1_f64(p0, c3, s30); svst1_f64(p1, c3 + vl, s31);
        }
        for (; m0 < M; m0++) {
            const double *a = A + (size_t)m0 * lda;
            double *c = C + (size_t)m0 * ldc + n0;
            svfloat64_t s0 = svld1_f64(p0, c), s1 = svld1_f64(p1, c + vl);
            for (int k = 0; k < K; k++) {
                const double *b = Bn + (size_t)k * ldb;
                s0 = svmla_n_f64_x(all, s0, svld1_f64(p0, b), a[k]);
                s1 = svmla_n_f64_x(all, s1, svld1_f64(p1, b + vl), a[k]);
            }
            svst1_f64(p0, c, s0);
            svst1_f64(p1, c + vl, s1);
        }
    }
}

/* tanh(z) and tanh'(z) of the lanes from the table (dp_tanh_table_eval's arithmetic):
 * u = min(|z|, zmax), piece k = trunc(u / h), t = u - k h, p(t) and p'(t), sign of z. */
static inline void tanh_lanes(svbool_t pg, const double *coef, svfloat64_t z, svfloat64_t *a,
                              svfloat64_t *a1)
{
    const double h = 1.0 / DP_TANH_PER_UNIT;
    const svfloat64_t u = svmin_n_f64_x(pg, svabs_f64_x(pg, z), (double)DP_TANH_ZMAX);
    svint64_t k = svcvt_s64_f64_x(pg, svmul_n_f64_x(pg, u, (double)DP_TANH_PER_UNIT));
    k = svmin_n_s64_x(pg, k, DP_TANH_N - 1);
    const svfloat64_t t = svmls_n_f64_x(pg, u, svcvt_f64_s64_x(pg, k), h);
    const svint64_t at = svmul_n_s64_x(pg, k, 6);
    const svfloat64_t c0 = svld1_gather_s64index_f64(pg, coef, at);
    const svfloat64_t c1 = svld1_gather_s64index_f64(pg, coef + 1, at);
    const svfloat64_t c2 = svld1_gather_s64index_f64(pg, coef + 2, at);
    const svfloat64_t c3 = svld1_gather_s64index_f64(pg, coef + 3, at);
    const svfloat64_t c4 = svld1_gather_s64index_f64(pg, coef + 4, at);
    const svfloat64_t c5 = svld1_gather_s64index_f64(pg, coef + 5, at);
    svfloat64_t p = svmla_f64_x(pg, c4, t, c5);
    p = svmla_f64_x(pg, c3, t, p);
    p = svmla_f64_x(pg, c2, t, p);
    p = svmla_f64_x(pg, c1, t, p);
    p = svmla_f64_x(pg, c0, t, p);
    svfloat64_t d = svmla_f64_x(pg, svmul_n_f64_x(pg, c4, 4.0), svmul_n_f64_x(pg, t, 5.0), c5);
    d = svmla_f64_x(pg, svmul_n_f64_x(pg, c3, 3.0), t, d);
    d = svmla_f64_x(pg, svadd_f64_x(pg, c2, c2), t, d);
    *a1 = svmla_f64_x(pg, c1, t, d);
    *a = svneg_f64_m(p, svcmplt_n_f64(pg, z, 0.0), p);
}

/* Activation of one centre's layer outputs in place: y = act(z) * idt, slope = act'(z) * idt. */
static void activate(const dp_layer *L, const double *tanh_coef, double *y, double *slope)
{
    const int no = L->nout;
    if (L->act == DP_ACT_TANH && tanh_coef) {
        for (int o = 0; o < no; o += (int)svcntd()) {
            const svbool_t pg = svwhilelt_b64(o, no);
            svfloat64_t a, a1;
            tanh_lanes(pg, tanh_coef, svld1_f64(pg, y + o), &a, &a1);
            if (L->idt) {
                const svfloat64_t g = svld1_f64(pg, L->idt + o);
                a = svmul_f64_x(pg, a, g);
                a1 = svmul_f64_x(pg, a1, g);
            }
            svst1_f64(pg, y + o, a);
            svst1_f64(pg, slope + o, a1);
        }
        return;
    }
    for (int o = 0; o < no; o++) {
        double a, a1, a2, g = L->idt ? L->idt[o] : 1.0;
        dp_act_eval(L->act, y[o], &a, &a1, &a2);
        y[o] = a * g;
        slope[o] = a1 * g;
    }
}

/* out += in (nout == nin) or (in, in) (nout == 2 nin), when the layer has the shortcut. */
static void shortcut(const dp_layer *L, const double *in, double *out)
{
    if (!L->resnet || (L->nout != L->nin && L->nout != 2 * L->nin)) return;
    const int ni = L->nin;
    for (int half = 0; half < L->nout / ni; half++)
        for (int o = 0; o < ni; o += (int)svcntd()) {
            const svbool_t pg = svwhilelt_b64(o, ni);
            double *po = out + half * ni + o;
            svst1_f64(pg, po, svadd_f64_x(pg, svld1_f64(pg, po), svld1_f64(pg, in + o)));
        }
}

/* dp_net_fit (deepmd_net.c) with its scratch layout: y (nb) and grad (nb x nin) = dy/dx. */
static void net_fit(const dp_net *net, const double *tanh_coef, int nb, const double *x0,
                    double *y_out, double *grad, double *scratch)
{
    const int W = net->width;
    size_t off = 0;
    memcpy(scratch, x0, sizeof(double) * (size_t)nb * net->nin);
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        const double *x = scratch + off;
        double *sl = scratch + off + (size_t)nb * ni, *y = sl + (size_t)nb * no;
        for (int b = 0; b < nb; b++) {
            if (L->b) memcpy(y + (size_t)b * no, L->b, sizeof(double) * no);
            else memset(y + (size_t)b * no, 0, sizeof(double) * no);
        }
        gemm_ab(nb, no, ni, x, ni, L->w, no, y, no);
        for (int b = 0; b < nb; b++) {
            activate(L, tanh_coef, y + (size_t)b * no, sl + (size_t)b * no);
            shortcut(L, x + (size_t)b * ni, y + (size_t)b * no);
        }
        off += (size_t)nb * (ni + no);
    }
    const double *out = scratch + off;
    for (int b = 0; b < nb; b++) y_out[b] = out[(size_t)b * net->nout];

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
            memset(g, 0, sizeof(double) * ni);
            if (L->resnet && (no == ni || no == 2 * ni))
                for (int half = 0; half < no / ni; half++)
                    for (int k = 0; k < ni; k += (int)svcntd()) {
                        const svbool_t pg = svwhilelt_b64(k, ni);
                        svst1_f64(pg, g + k, svadd_f64_x(pg, svld1_f64(pg, g + k),
                                                         svld1_f64(pg, a + half * ni + k)));
                    }
            for (int o = 0; o < no; o += (int)svcntd()) {   /* now dE/dz */
                const svbool_t pg = svwhilelt_b64(o, no);
                svst1_f64(pg, a + o, svmul_f64_x(pg, svld1_f64(pg, a + o), svld1_f64(pg, sb + o)));
            }
        }
        gemm_ab(nb, ni, no, ga, W, L->wt, ni, gb, W);
        double *t = ga; ga = gb; gb = t;
    }
    for (int b = 0; b < nb; b++)
        memcpy(grad + (size_t)b * net->nin, ga + (size_t)b * W, sizeof(double) * net->nin);
}

void dp_sve_fit(const pk_deepmd *dp, int ti, int nb, const double *T, double *e,
                double *dEdT, double *scratch)
{
    const dp_model *m = &dp->m;
    const int ng = m->ng, ax = m->axis, nd = ng * ax;
    const svbool_t all = svptrue_b64();
    double *D = scratch, *g = D + (size_t)nb * nd, *net = g + (size_t)nb * nd;
    /* D[m*axis + a] for a block of m: lanes over m, stored with stride axis. */
    for (int b = 0; b < nb; b++) {
        const double *Tb = T + (size_t)b * 4 * ng;
        double *Db = D + (size_t)b * nd;
        for (int j0 = 0; j0 < ng; j0 += (int)svcntd()) {
            const svbool_t pg = svwhilelt_b64(j0, ng);
            const svint64_t at = svindex_s64((int64_t)j0 * ax, ax);
            const svfloat64_t t0 = svld1_f64(pg, Tb + j0), t1 = svld1_f64(pg, Tb + ng + j0);
            const svfloat64_t t2 = svld1_f64(pg, Tb + 2 * ng + j0);
            const svfloat64_t t3 = svld1_f64(pg, Tb + 3 * ng + j0);
            for (int a = 0; a < ax; a++) {
                svfloat64_t s = svmul_n_f64_x(all, t0, Tb[a]);
                s = svmla_n_f64_x(all, s, t1, Tb[ng + a]);
                s = svmla_n_f64_x(all, s, t2, Tb[2 * ng + a]);
                s = svmla_n_f64_x(all, s, t3, Tb[3 * ng + a]);
                svst1_scatter_s64index_f64(pg, Db + a, at, s);
            }
        }
    }
    net_fit(&m->fit[ti], dp->tanh_tab.coef, nb, D, e, g, net);
    /* dE/dT for a block of m: the a-sum gathers g[m][a] with stride axis; the second sum
     * (m < axis) reads g[m'][m] contiguously over m. */
    for (int b = 0; b < nb; b++) {
        const double *Tb = T + (size_t)b * 4 * ng, *gb = g + (size_t)b * nd;
        double *Gb = dEdT + (size_t)b * 4 * ng;
        e[b] += m->bias[ti];
        for (int j0 = 0; j0 < ng; j0 += (int)svcntd()) {
            const svbool_t pg = svwhilelt_b64(j0, ng), pa = svwhilelt_b64(j0, ax);
            const svint64_t at = svindex_s64((int64_t)j0 * ax, ax);
            svfloat64_t s0 = svdup_f64(0.0), s1 = s0, s2 = s0, s3 = s0;
            for (int a = 0; a < ax; a++) {
                const svfloat64_t ga = svld1_gather_s64index_f64(pg, gb + a, at);
                s0 = svmla_n_f64_x(all, s0, ga, Tb[a]);
                s1 = svmla_n_f64_x(all, s1, ga, Tb[ng + a]);
                s2 = svmla_n_f64_x(all, s2, ga, Tb[2 * ng + a]);
                s3 = svmla_n_f64_x(all, s3, ga, Tb[3 * ng + a]);
            }
            if (svptest_any(all, pa))
                for (int k = 0; k < ng; k++) {
                    const svfloat64_t gk = svld1_f64(pa, gb + (size_t)k * ax + j0);
                    s0 = svmla_n_f64_x(all, s0, gk, Tb[k]);
                    s1 = svmla_n_f64_x(all, s1, gk, Tb[ng + k]);
                    s2 = svmla_n_f64_x(all, s2, gk, Tb[2 * ng + k]);
                    s3 = svmla_n_f64_x(all, s3, gk, Tb[3 * ng + k]);
                }
            svst1_f64(pg, Gb + j0, s0);
            svst1_f64(pg, Gb + ng + j0, s1);
            svst1_f64(pg, Gb + 2 * ng + j0, s2);
            svst1_f64(pg, Gb + 3 * ng + j0, s3);
        }
    }
}
