/* deepmd/pk sve backend: the tabulated embedding fused with the contraction (the hottest
 * kernel), forward and backward, in ACLE SVE; vector-length agnostic. The mathematics and
 * order of the terms of T are those of deepmd_fused.c (whose header gives the formulas):
 *   T[d][m] = (1/N) [padding_d,m + sum_k R^_k[d] G_m(s_k)],  G_m(s) = sum_p c_p,m (s - node)^p
 *   dE/dR^_k[d] = (1/N) [sum_m dE/dT[d][m] G_m + [d = 0] sum_m G'_m sum_d' dE/dT[d'][m] R^_k[d']]
 * Lanes run over the embedding columns m, whose coefficients of one power are contiguous
 * in the table (deepmd_internal.h, dp_table).
 *
 * The neighbours of one type (one table, contiguous slots) go in chunks through three
 * phases: (1) rows, normalisation and table pieces in lanes over neighbours (chunk_lookup);
 * (2) the contraction in lanes over columns: per neighbour the scalars (R^_k[0..3], t =
 * s - node, and for G' the powers 2t, 3t^2, 4t^3, 5t^4) are stored in pairs so that a
 * 128-bit replicating load (ld1rqd) brings two of them into every segment and the indexed
 * multiply-add (fmla z, z, z[i]) applies them, no broadcast per use; the forward pass keeps
 * T's four rows of one column block in registers across the chunk, the backward pass the
 * four sums of one neighbour across the column blocks, reduced once (faddv); (3) backward:
 * the forces and virials in lanes over neighbours (chunk_scatter). Padding slots are added
 * in closed form exactly as the cpu kernel does. The sums into the centre's force and the
 * virial run in another order than the cpu kernel's (round-off only). */
#include <arm_sve.h>
#include <stddef.h>

#include "deepmd_internal.h"
#include "deepmd_sve.h"

/* Neighbours of one type handled together: looked up in lanes over neighbours, then
 * contracted in lanes over columns. */
enum { CHUNK = 32 };

/* A chunk of neighbours of one type, looked up: what the column passes read per neighbour
 * (pairs for ld1rqd) and what the force scatter reads per lane. */
typedef struct {
    double rh[CHUNK][4];      /* R^[0..3] */
    double t01[CHUNK][2];     /* t = s - node, 2t */
    double t23[CHUNK][2];     /* 3t^2, 4t^3 (backward only) */
    double t45[CHUNK][2];     /* 5t^4, 0 (backward only) */
    int64_t coff[CHUNK];      /* offset of the piece's coefficients in the table */
    double c0[CHUNK], c1[CHUNK], wir2[CHUNK];   /* dR terms (backward only), see scatter */
    double g[CHUNK][4];       /* dE/dR^ (backward) */
} chunk;

/* dp_nbr as doubles: lanes gather r and d from the neighbour array. */
_Static_assert(sizeof(dp_nbr) % sizeof(double) == 0 && offsetof(dp_nbr, r) % sizeof(double) == 0 &&
               offsetof(dp_nbr, d) == offsetof(dp_nbr, r) + sizeof(double), "dp_nbr layout");
enum { NBR_STRIDE = sizeof(dp_nbr) / sizeof(double), NBR_R = offsetof(dp_nbr, r) / sizeof(double) };

/* Rows, normalisation and table pieces of neighbours n[0..cnt) of one type in lanes, the
 * arithmetic of dp_env_row, dp_fused_lookup and dp_table_locate:
 *   u = (r - rs)/(rc - rs), w = 1 + u^3 (-10 + 15u - 6u^2) (1 below rs, 0 beyond rc),
 *   R = w (1/rho, d/rho^2), R^ = (R - avg)/std with avg, std of the slots (contiguous:
 *   the chunk's slots follow each other), s = R^[0]; piece k = trunc((s - s0)/h0) in the
 *   fine range (clamped to it), n0 + trunc((s - s1)/h1) in the coarse one, t = s - node.
 * With force_terms, also the powers of t for G' and the terms of dR (chunk_scatter).
 * Returns the index of the first neighbour beyond the table, or -1. */
static int chunk_lookup(const dp_model *m, const dp_table *tab, const double *avg,
                        const double *std, const dp_nbr *n, int cnt, int force_terms,
                        chunk *ck)
{
    const double rs = m->rcut_smth, rc = m->rcut, inv = 1.0 / (rc - rs);
    const int ng6 = 6 * m->ng;
    const double *base = (const double *)n + NBR_R;
    for (int q = 0; q < cnt; q += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(q, cnt);
        const svint64_t at = svindex_s64((int64_t)q * NBR_STRIDE, NBR_STRIDE);
        const svfloat64_t r = svld1_gather_s64index_f64(pg, base, at);
        const svfloat64_t d0 = svld1_gather_s64index_f64(pg, base + 1, at);
        const svfloat64_t d1 = svld1_gather_s64index_f64(pg, base + 2, at);
        const svfloat64_t d2 = svld1_gather_s64index_f64(pg, base + 3, at);
        const svfloat64_t u = svmul_n_f64_x(pg, svsub_n_f64_x(pg, r, rs), inv);
        const svfloat64_t u2 = svmul_f64_x(pg, u, u), u3 = svmul_f64_x(pg, u2, u);
        svfloat64_t w = svmla_n_f64_x(pg, svmul_n_f64_x(pg, u2, -6.0), u, 15.0);
        w = svmla_f64_x(pg, svdup_f64(1.0), u3, svsub_n_f64_x(pg, w, 10.0));
        svfloat64_t dw = svmla_n_f64_x(pg, svmul_n_f64_x(pg, u2, -30.0), u, 60.0);
        dw = svmul_n_f64_x(pg, svmul_f64_x(pg, u2, svsub_n_f64_x(pg, dw, 30.0)), inv);
        const svbool_t inner = svcmple_n_f64(pg, r, rs), outer = svcmpge_n_f64(pg, r, rc);
        w = svsel_f64(inner, svdup_f64(1.0), svsel_f64(outer, svdup_f64(0.0), w));
        dw = svsel_f64(svorr_b_z(pg, inner, outer), svdup_f64(0.0), dw);
        const svfloat64_t ir = svdivr_n_f64_x(pg, svadd_n_f64_x(pg, r, m->protection), 1.0);
        const svfloat64_t ir2 = svmul_f64_x(pg, ir, ir), wir2 = svmul_f64_x(pg, w, ir2);
        const svfloat64x4_t a4 = svld4_f64(pg, avg + 4 * q), s4 = svld4_f64(pg, std + 4 * q);
        const svfloat64_t R0 = svmul_f64_x(pg, w, ir);
        const svfloat64_t R1 = svmul_f64_x(pg, svmul_f64_x(pg, w, d0), ir2);
        const svfloat64_t R2 = svmul_f64_x(pg, svmul_f64_x(pg, w, d1), ir2);
        const svfloat64_t R3 = svmul_f64_x(pg, svmul_f64_x(pg, w, d2), ir2);
        const svfloat64_t s = svdiv_f64_x(pg, svsub_f64_x(pg, R0, svget4(a4, 0)), svget4(s4, 0));
        const svfloat64_t h1 = svdiv_f64_x(pg, svsub_f64_x(pg, R1, svget4(a4, 1)), svget4(s4, 1));
        const svfloat64_t h2 = svdiv_f64_x(pg, svsub_f64_x(pg, R2, svget4(a4, 2)), svget4(s4, 2));
        const svfloat64_t h3 = svdiv_f64_x(pg, svsub_f64_x(pg, R3, svget4(a4, 3)), svget4(s4, 3));
        svst4_f64(pg, &ck->rh[q][0], svcreate4_f64(s, h1, h2, h3));
        /* the piece (NaN and s > s2 are beyond the table) */
        const svbool_t bad = svnot_b_z(pg, svcmple_n_f64(pg, s, tab->s2));
        if (svptest_any(pg, bad)) return q + (int)svcntp_b64(pg, svbrkb_b_z(pg, bad));
        const svbool_t fine = svcmplt_n_f64(pg, s, tab->s1);
        svint64_t k0 = svcvt_s64_f64_x(pg, svdiv_n_f64_x(pg, svsub_n_f64_x(pg, s, tab->s0),
                                                         tab->h0));
        k0 = svmin_n_s64_x(pg, svmax_n_s64_x(pg, k0, 0), tab->n0 - 1);
        svint64_t k1 = svcvt_s64_f64_x(pg, svdiv_n_f64_x(pg, svsub_n_f64_x(pg, s, tab->s1),
                                                         tab->h1));
        k1 = svmin_n_s64_x(pg, k1, tab->n1 - 1);
        const svfloat64_t node = svsel_f64(
            fine, svmla_n_f64_x(pg, svdup_f64(tab->s0), svcvt_f64_s64_x(pg, k0), tab->h0),
            svmla_n_f64_x(pg, svdup_f64(tab->s1), svcvt_f64_s64_x(pg, k1), tab->h1));
        const svint64_t k = svsel_s64(fine, k0, svadd_n_s64_x(pg, k1, tab->n0));
        svst1_s64(pg, ck->coff + q, svmul_n_s64_x(pg, k, ng6));
        const svfloat64_t t = svsub_f64_x(pg, s, node), t2 = svmul_f64_x(pg, t, t);
        svst2_f64(pg, &ck->t01[q][0], svcreate2_f64(t, svadd_f64_x(pg, t, t)));
        if (!force_terms) continue;
        const svfloat64_t t3 = svmul_f64_x(pg, t2, t), t4 = svmul_f64_x(pg, t2, t2);
        svst2_f64(pg, &ck->t23[q][0], svcreate2_f64(svmul_n_f64_x(pg, t2, 3.0),
                                                    svmul_n_f64_x(pg, t3, 4.0)));
        svst2_f64(pg, &ck->t45[q][0], svcreate2_f64(svmul_n_f64_x(pg, t4, 5.0), svdup_f64(0.0)));
        /* dR0/dd = c0 d, dRa/dd_b = w/rho^2 delta_ab + c1 d_a d_b (dp_env_row):
         * c0 = (w'/rho - w/rho^2)/r, c1 = (w'/rho^2 - 2w/rho^3)/r; svmsb(a, b, c) = c - a b */
        const svfloat64_t c0 = svmsb_f64_x(pg, w, ir2, svmul_f64_x(pg, dw, ir));
        const svfloat64_t c1 = svmsb_f64_x(pg, svmul_n_f64_x(pg, wir2, 2.0), ir,
                                           svmul_f64_x(pg, dw, ir2));
        svst1_f64(pg, ck->c0 + q, svdiv_f64_x(pg, c0, r));
        svst1_f64(pg, ck->c1 + q, svdiv_f64_x(pg, c1, r));
        svst1_f64(pg, ck->wir2 + q, wir2);
    }
    return -1;
}

/* Closed-form padding of deepmd_fused.c: T = sum over neighbour types of (sel - n_real) x
 * R^_pad (x) G(s_pad), or the suffix sum from the first padding slot. */
static void padding(const dp_model *m, const dp_tables *tb, int ti, const int *nreal,
                    double *T)
{
    const int n = 4 * m->ng, nt = m->ntypes;
    for (int c0 = 0; c0 < n; c0 += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(c0, n);
        svfloat64_t acc = svdup_f64(0.0);
        for (int t = 0; t < nt; t++) {
            const double *P = tb->pad + tb->pad_off[ti * nt + t];
            if (tb->pad_uniform[ti * nt + t])
                acc = svmla_n_f64_x(pg, acc, svld1_f64(pg, P + c0), m->sel[t] - nreal[t]);
            else
                acc = svadd_f64_x(pg, acc, svld1_f64(pg, P + (size_t)nreal[t] * n + c0));
        }
        svst1_f64(pg, T + c0, acc);
    }
}

/* G of columns [j0, j0 + vl) of one piece: c0 + t (c1 + t (c2 + t (c3 + t (c4 + t c5)))). */
static inline svfloat64_t piece_value(svbool_t pg, const double *c, int ng, svfloat64_t tq)
{
    svfloat64_t G = svld1_f64(pg, c + 5 * ng);
    G = svmla_lane_f64(svld1_f64(pg, c + 4 * ng), G, tq, 0);
    G = svmla_lane_f64(svld1_f64(pg, c + 3 * ng), G, tq, 0);
    G = svmla_lane_f64(svld1_f64(pg, c + 2 * ng), G, tq, 0);
    G = svmla_lane_f64(svld1_f64(pg, c + ng), G, tq, 0);
    return svmla_lane_f64(svld1_f64(pg, c), G, tq, 0);
}

/* T[d][m] += R^_k[d] G_m(s_k) over a looked-up chunk; T's rows of one column block stay in
 * registers over the chunk. */
static void chunk_contract(const chunk *ck, int cnt, const double *coef, int ng, double *T)
{
    const svbool_t all = svptrue_b64();
    for (int j0 = 0; j0 < ng; j0 += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(j0, ng);
        double *T0 = T + j0, *T1 = T0 + ng, *T2 = T1 + ng, *T3 = T2 + ng;
        svfloat64_t t0 = svld1_f64(pg, T0), t1 = svld1_f64(pg, T1);
        svfloat64_t t2 = svld1_f64(pg, T2), t3 = svld1_f64(pg, T3);
        for (int q = 0; q < cnt; q++) {
            const svfloat64_t G = piece_value(pg, coef + ck->coff[q] + j0, ng,
                                              svld1rq_f64(all, ck->t01[q]));
            const svfloat64_t r01 = svld1rq_f64(all, ck->rh[q]);
            const svfloat64_t r23 = svld1rq_f64(all, ck->rh[q] + 2);
            t0 = svmla_lane_f64(t0, G, r01, 0);
            t1 = svmla_lane_f64(t1, G, r01, 1);
            t2 = svmla_lane_f64(t2, G, r23, 0);
            t3 = svmla_lane_f64(t3, G, r23, 1);
        }
        svst1_f64(pg, T0, t0);
        svst1_f64(pg, T1, t1);
        svst1_f64(pg, T2, t2);
        svst1_f64(pg, T3, t3);
    }
}

pk_code dp_sve_fused_forward(const dp_model *m, const dp_tables *tb, int i, int ti,
                             const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                             double *T, pk_status *st)
{
    const int ng = m->ng, nt = m->ntypes;
    const double *avg = m->davg + (size_t)ti * m->nnei * 4;
    const double *std = m->dstd + (size_t)ti * m->nnei * 4;
    chunk ck;
    (void)nn;
    padding(m, tb, ti, nreal, T);
    /* the neighbours of type t are nbr[q0, q0 + nreal[t]), in slots sec[t], sec[t] + 1, ... */
    for (int t = 0, q0 = 0; t < nt; q0 += nreal[t++]) {
        if (m->excl[ti * nt + t]) continue;
        const dp_table *tab = &tb->tab[dp_emb_index(m, ti, t)];
        for (int k0 = 0; k0 < nreal[t]; k0 += CHUNK) {
            const int cnt = nreal[t] - k0 < CHUNK ? nreal[t] - k0 : CHUNK;
            const size_t slot = (size_t)m->sec[t] + k0;
            const int bad = chunk_lookup(m, tab, avg + 4 * slot, std + 4 * slot, nbr + q0 + k0,
                                         cnt, 0, &ck);
            if (bad >= 0)
                return dp_fused_range_error(m, tb, i, ti, &nbr[q0 + k0 + bad], ck.rh[bad][0],
                                            tag, st);
            chunk_contract(&ck, cnt, tab->coef, ng, T);
        }
    }
    const double invN = 1.0 / m->nnei;
    for (int c0 = 0; c0 < 4 * ng; c0 += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(c0, 4 * ng);
        svst1_f64(pg, T + c0, svmul_n_f64_x(pg, svld1_f64(pg, T + c0), invN));
    }
    return PK_OK;
}

/* g[q][d] = sum_m dE/dT[d][m] G_m, g[q][0] += sum_m G'_m sum_d dE/dT[d][m] R^[d] for each
 * neighbour of a looked-up chunk; the four sums of one neighbour stay in registers over the
 * column blocks. G' = c1 + 2t c2 + 3t^2 c3 + 4t^3 c4 + 5t^4 c5. */
static void chunk_gradient(chunk *ck, int cnt, const double *coef, int ng, const double *dEdT)
{
    const svbool_t all = svptrue_b64();
    for (int q = 0; q < cnt; q++) {
        const svfloat64_t tq = svld1rq_f64(all, ck->t01[q]), t23 = svld1rq_f64(all, ck->t23[q]);
        const svfloat64_t t45 = svld1rq_f64(all, ck->t45[q]);
        const svfloat64_t r01 = svld1rq_f64(all, ck->rh[q]), r23 = svld1rq_f64(all, ck->rh[q] + 2);
        const double *cq = coef + ck->coff[q];
        svfloat64_t g0 = svdup_f64(0.0), g1 = g0, g2 = g0, g3 = g0;
        for (int j0 = 0; j0 < ng; j0 += (int)svcntd()) {
            const svbool_t pg = svwhilelt_b64(j0, ng);
            const double *c = cq + j0;
            const svfloat64_t c1 = svld1_f64(pg, c + ng), c2 = svld1_f64(pg, c + 2 * ng);
            const svfloat64_t c3 = svld1_f64(pg, c + 3 * ng), c4 = svld1_f64(pg, c + 4 * ng);
            const svfloat64_t c5 = svld1_f64(pg, c + 5 * ng);
            svfloat64_t G = svmla_lane_f64(c4, c5, tq, 0);
            G = svmla_lane_f64(c3, G, tq, 0);
            G = svmla_lane_f64(c2, G, tq, 0);
            G = svmla_lane_f64(c1, G, tq, 0);
            G = svmla_lane_f64(svld1_f64(pg, c), G, tq, 0);
            svfloat64_t dG = svmla_lane_f64(c1, c2, tq, 1);
            dG = svmla_lane_f64(dG, c3, t23, 0);
            dG = svmla_lane_f64(dG, c4, t23, 1);
            dG = svmla_lane_f64(dG, c5, t45, 0);
            const double *a = dEdT + j0;
            const svfloat64_t b0 = svld1_f64(pg, a), b1 = svld1_f64(pg, a + ng);
            const svfloat64_t b2 = svld1_f64(pg, a + 2 * ng), b3 = svld1_f64(pg, a + 3 * ng);
            svfloat64_t s = svmul_lane_f64(b0, r01, 0);
            s = svmla_lane_f64(s, b1, r01, 1);
            s = svmla_lane_f64(s, b2, r23, 0);
            s = svmla_lane_f64(s, b3, r23, 1);
            /* inactive lanes: the loads gave 0, so every product there is 0 */
            g0 = svmla_f64_x(all, g0, b0, G);
            g0 = svmla_f64_x(all, g0, dG, s);
            g1 = svmla_f64_x(all, g1, b1, G);
            g2 = svmla_f64_x(all, g2, b2, G);
            g3 = svmla_f64_x(all, g3, b3, G);
        }
        ck->g[q][0] = svaddv_f64(all, g0);
        ck->g[q][1] = svaddv_f64(all, g1);
        ck->g[q][2] = svaddv_f64(all, g2);
        ck->g[q][3] = svaddv_f64(all, g3);
    }
}

/* j's force and per-atom virial components: dst[idx] += v in the lanes of pg (distinct idx). */
static inline void add_at(svbool_t pg, double *dst, svint64_t idx, svfloat64_t v)
{
    const svfloat64_t old = svld1_gather_s64index_f64(pg, dst, idx);
    svst1_scatter_s64index_f64(pg, dst, idx, svadd_f64_x(pg, old, v));
}

/* Forces of a looked-up chunk from g = dE/dR^ (dp_env_scatter in lanes over neighbours):
 * with g scaled by 1/(N std), F_b = -(d_b (g0 c0 + c1 sum_a g_a+1 d_a) + g_b+1 w/rho^2) is
 * the force on j (the neighbours of one centre are distinct atoms, so the gather-add-scatter
 * of one vector has no conflicts); i feels -F; F_a d_b goes to the virial and, when asked,
 * to j's per-atom virial. The chunk's sums over its neighbours go to fi[3] and vir[9]. */
static void chunk_scatter(const chunk *ck, int cnt, const dp_nbr *n, const double *std,
                          double invN, dp_sink *sk, double fi[3], double vir[9])
{
    const double *base = (const double *)n + NBR_R;
    const svbool_t all = svptrue_b64();
    svfloat64_t fx = svdup_f64(0.0), fy = fx, fz = fx;
    svfloat64_t vxx = fx, vxy = fx, vxz = fx, vyx = fx, vyy = fx, vyz = fx;
    svfloat64_t vzx = fx, vzy = fx, vzz = fx;
    for (int q = 0; q < cnt; q += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(q, cnt);
        const svint64_t at = svindex_s64((int64_t)q * NBR_STRIDE, NBR_STRIDE);
        const svfloat64_t dx = svld1_gather_s64index_f64(pg, base + 1, at);
        const svfloat64_t dy = svld1_gather_s64index_f64(pg, base + 2, at);
        const svfloat64_t dz = svld1_gather_s64index_f64(pg, base + 3, at);
        const svint64_t j = svld1sw_gather_s64index_s64(
            pg, &n->j, svindex_s64((int64_t)q * 2 * NBR_STRIDE, 2 * NBR_STRIDE));
        /* g[d] *= invN / std[d] */
        const svfloat64x4_t g4 = svld4_f64(pg, &ck->g[q][0]), s4 = svld4_f64(pg, std + 4 * q);
        const svfloat64_t g0 = svmul_f64_x(pg, svget4(g4, 0),
                                           svdivr_n_f64_x(pg, svget4(s4, 0), invN));
        const svfloat64_t g1 = svmul_f64_x(pg, svget4(g4, 1),
                                           svdivr_n_f64_x(pg, svget4(s4, 1), invN));
        const svfloat64_t g2 = svmul_f64_x(pg, svget4(g4, 2),
                                           svdivr_n_f64_x(pg, svget4(s4, 2), invN));
        const svfloat64_t g3 = svmul_f64_x(pg, svget4(g4, 3),
                                           svdivr_n_f64_x(pg, svget4(s4, 3), invN));
        svfloat64_t gd = svmul_f64_x(pg, g1, dx);
        gd = svmla_f64_x(pg, gd, g2, dy);
        gd = svmla_f64_x(pg, gd, g3, dz);
        const svfloat64_t A = svmla_f64_x(pg, svmul_f64_x(pg, g0, svld1_f64(pg, ck->c0 + q)),
                                          svld1_f64(pg, ck->c1 + q), gd);
        const svfloat64_t wir2 = svld1_f64(pg, ck->wir2 + q);
        const svfloat64_t Fx = svneg_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, A, dx), g1, wir2));
        const svfloat64_t Fy = svneg_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, A, dy), g2, wir2));
        const svfloat64_t Fz = svneg_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, A, dz), g3, wir2));
        const svint64_t j3 = svmul_n_s64_x(pg, j, 3);
        add_at(pg, sk->f, j3, Fx);
        add_at(pg, sk->f + 1, j3, Fy);
        add_at(pg, sk->f + 2, j3, Fz);
        /* sums over the chunk; inactive lanes keep their value */
        fx = svadd_f64_m(pg, fx, Fx); fy = svadd_f64_m(pg, fy, Fy); fz = svadd_f64_m(pg, fz, Fz);
        const svfloat64_t xx = svmul_f64_x(pg, Fx, dx), xy = svmul_f64_x(pg, Fx, dy);
        const svfloat64_t xz = svmul_f64_x(pg, Fx, dz), yx = svmul_f64_x(pg, Fy, dx);
        const svfloat64_t yy = svmul_f64_x(pg, Fy, dy), yz = svmul_f64_x(pg, Fy, dz);
        const svfloat64_t zx = svmul_f64_x(pg, Fz, dx), zy = svmul_f64_x(pg, Fz, dy);
        const svfloat64_t zz = svmul_f64_x(pg, Fz, dz);
        vxx = svadd_f64_m(pg, vxx, xx); vxy = svadd_f64_m(pg, vxy, xy);
        vxz = svadd_f64_m(pg, vxz, xz); vyx = svadd_f64_m(pg, vyx, yx);
        vyy = svadd_f64_m(pg, vyy, yy); vyz = svadd_f64_m(pg, vyz, yz);
        vzx = svadd_f64_m(pg, vzx, zx); vzy = svadd_f64_m(pg, vzy, zy);
        vzz = svadd_f64_m(pg, vzz, zz);
        if (!sk->v9) continue;
        const svint64_t j9 = svmul_n_s64_x(pg, j, 9);
        double *v = sk->v9;
        add_at(pg, v, j9, xx); add_at(pg, v + 1, j9, xy); add_at(pg, v + 2, j9, xz);
        add_at(pg, v + 3, j9, yx); add_at(pg, v + 4, j9, yy); add_at(pg, v + 5, j9, yz);
        add_at(pg, v + 6, j9, zx); add_at(pg, v + 7, j9, zy); add_at(pg, v + 8, j9, zz);
    }
    fi[0] += svaddv_f64(all, fx); fi[1] += svaddv_f64(all, fy); fi[2] += svaddv_f64(all, fz);
    vir[0] += svaddv_f64(all, vxx); vir[1] += svaddv_f64(all, vxy); vir[2] += svaddv_f64(all, vxz);
    vir[3] += svaddv_f64(all, vyx); vir[4] += svaddv_f64(all, vyy); vir[5] += svaddv_f64(all, vyz);
    vir[6] += svaddv_f64(all, vzx); vir[7] += svaddv_f64(all, vzy); vir[8] += svaddv_f64(all, vzz);
}

void dp_sve_fused_backward(const dp_model *m, const dp_tables *tb, int i, int ti,
                           const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk)
{
    const int ng = m->ng, nt = m->ntypes;
    const double *avg = m->davg + (size_t)ti * m->nnei * 4;
    const double *std = m->dstd + (size_t)ti * m->nnei * 4;
    const double invN = 1.0 / m->nnei;
    double fi[3] = {0, 0, 0}, vir[9] = {0};
    chunk ck;
    /* nreal is not passed to the backward pass: the type runs are read off the slots */
    for (int q0 = 0; q0 < nn;) {
        const int t = nbr[q0].type;
        int q1 = q0 + 1;
        while (q1 < nn && nbr[q1].type == t) q1++;
        if (!m->excl[ti * nt + t]) {
            const dp_table *tab = &tb->tab[dp_emb_index(m, ti, t)];
            for (int k0 = q0; k0 < q1; k0 += CHUNK) {
                const int cnt = q1 - k0 < CHUNK ? q1 - k0 : CHUNK;
                const size_t slot = (size_t)nbr[k0].slot;
                chunk_lookup(m, tab, avg + 4 * slot, std + 4 * slot, nbr + k0, cnt, 1, &ck);
                chunk_gradient(&ck, cnt, tab->coef, ng, dEdT);
                chunk_scatter(&ck, cnt, nbr + k0, std + 4 * slot, invN, sk, fi, vir);
            }
        }
        q0 = q1;
    }
    double *f = sk->f + 3 * (size_t)i;
    for (int b = 0; b < 3; b++) f[b] -= fi[b];
    for (int k = 0; k < 9; k++) sk->vir[k] += vir[k];
}
