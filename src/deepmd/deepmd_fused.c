/* Tabulated fused kernel: T = (1/N) [sum over real slots R^_k (x) G(s_k) + padding], with
 * G(s_k) evaluated from the quintic table inside the contraction (never stored), and the
 * padding slots in closed form: (sel - n_real) x R^_pad (x) G(s_pad) per neighbour type, or
 * a precomputed suffix sum when the statistics differ per slot. The backward pass evaluates G
 * and G' from the same piece again:
 *   dE/dR^_k[d] = (1/N) sum_m dE/dT[d][m] G_m,  plus on d = 0
 *   (1/N) sum_m G'_m sum_d dE/dT[d][m] R^_k[d]. */
#include <string.h>

#include "deepmd_internal.h"

/* T[d][m] += R^[d] G_m for one neighbour, G from its table piece (c, x), 4 outputs at a time. */
static void accumulate_row(const double *c, double x, int ng, const double Rh[4], double *T)
{
    const double *c1 = c + ng, *c2 = c1 + ng, *c3 = c2 + ng, *c4 = c3 + ng, *c5 = c4 + ng;
    double *T1 = T + ng, *T2 = T1 + ng, *T3 = T2 + ng;
    int k = 0;
    for (; k + 4 <= ng; k += 4) {
        const dp_v4 G = dp_v4_load(c + k) +
                        x * (dp_v4_load(c1 + k) +
                             x * (dp_v4_load(c2 + k) +
                                  x * (dp_v4_load(c3 + k) +
                                       x * (dp_v4_load(c4 + k) + x * dp_v4_load(c5 + k)))));
        dp_v4_store(T + k, dp_v4_load(T + k) + Rh[0] * G);
        dp_v4_store(T1 + k, dp_v4_load(T1 + k) + Rh[1] * G);
        dp_v4_store(T2 + k, dp_v4_load(T2 + k) + Rh[2] * G);
        dp_v4_store(T3 + k, dp_v4_load(T3 + k) + Rh[3] * G);
    }
    for (; k < ng; k++) {
        double G = c[k] + x * (c1[k] + x * (c2[k] + x * (c3[k] + x * (c4[k] + x * c5[k]))));
        T[k] += Rh[0] * G;
        T1[k] += Rh[1] * G;
        T2[k] += Rh[2] * G;
        T3[k] += Rh[3] * G;
    }
}

pk_code dp_fused_range_error(const dp_model *m, const dp_tables *tb, int i, int ti,
                             const dp_nbr *n, double s, const pk_tag *tag, pk_status *st)
{
    const dp_table *tab = &tb->tab[dp_emb_index(m, ti, n->type)];
    return pk_fail(st, PK_ERR_RANGE,
                   "atom %ld (%s) has a %s neighbour at r = %.6g, closer than the "
                   "embedding table covers (s = %.6g > %.6g); rerun with a smaller "
                   "table_rmin or tabulate no", tag ? (long)tag[i] : (long)i + 1,
                   m->type_map[ti], m->type_map[n->type], n->r, s, tab->s2);
}

pk_code dp_fused_forward(const dp_model *m, const dp_tables *tb, int i, int ti,
                         const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                         double *T, pk_status *st)
{
    const int ng = m->ng, nt = m->ntypes;
    memset(T, 0, sizeof(double) * 4 * ng);
    /* Padding slots in closed form. */
    for (int t = 0; t < nt; t++) {
        const double *P = tb->pad + tb->pad_off[ti * nt + t];
        if (tb->pad_uniform[ti * nt + t]) {
            const double npad = m->sel[t] - nreal[t];
            for (int c = 0; c < 4 * ng; c++) T[c] += npad * P[c];
        } else {
            P += (size_t)nreal[t] * 4 * ng;
            for (int c = 0; c < 4 * ng; c++) T[c] += P[c];
        }
    }
    /* Real neighbours: table lookup fused with the contraction. */
    for (int q = 0; q < nn; q++) {
        const dp_nbr *n = &nbr[q];
        if (m->excl[ti * nt + n->type]) continue;
        double Rh[4], x;
        const double *c;
        if (!dp_fused_lookup(m, tb, ti, n, Rh, &c, &x))
            return dp_fused_range_error(m, tb, i, ti, n, Rh[0], tag, st);
        accumulate_row(c, x, ng, Rh, T);
    }
    const double invN = 1.0 / m->nnei;
    for (int c = 0; c < 4 * ng; c++) T[c] *= invN;
    return PK_OK;
}

/* dE/dR^ of one neighbour from its table piece (c, x): g[d] = sum_m dE/dT[d][m] G_m and
 * g[0] += sum_m G'_m sum_d dE/dT[d][m] R^[d], the sums over m in 4-lane partial sums. */
static void row_gradient(const double *c, double x, int ng, const double *dEdT,
                         const double Rh[4], double g[4])
{
    const double *c1 = c + ng, *c2 = c1 + ng, *c3 = c2 + ng, *c4 = c3 + ng, *c5 = c4 + ng;
    const double *a0 = dEdT, *a1 = a0 + ng, *a2 = a1 + ng, *a3 = a2 + ng;
    dp_v4 g0 = {0}, g1 = {0}, g2 = {0}, g3 = {0}, gs = {0};
    int k = 0;
    for (; k + 4 <= ng; k += 4) {
        const dp_v4 p0 = dp_v4_load(c + k), p1 = dp_v4_load(c1 + k), p2 = dp_v4_load(c2 + k);
        const dp_v4 p3 = dp_v4_load(c3 + k), p4 = dp_v4_load(c4 + k), p5 = dp_v4_load(c5 + k);
        const dp_v4 G = p0 + x * (p1 + x * (p2 + x * (p3 + x * (p4 + x * p5))));
        const dp_v4 dG = p1 + x * (2 * p2 + x * (3 * p3 + x * (4 * p4 + x * 5 * p5)));
        const dp_v4 b0 = dp_v4_load(a0 + k), b1 = dp_v4_load(a1 + k);
        const dp_v4 b2 = dp_v4_load(a2 + k), b3 = dp_v4_load(a3 + k);
        g0 += b0 * G;
        g1 += b1 * G;
        g2 += b2 * G;
        g3 += b3 * G;
        gs += dG * (b0 * Rh[0] + b1 * Rh[1] + b2 * Rh[2] + b3 * Rh[3]);
    }
    g[0] = dp_v4_sum(g0) + dp_v4_sum(gs);
    g[1] = dp_v4_sum(g1);
    g[2] = dp_v4_sum(g2);
    g[3] = dp_v4_sum(g3);
    for (; k < ng; k++) {
        double G = c[k] + x * (c1[k] + x * (c2[k] + x * (c3[k] + x * (c4[k] + x * c5[k]))));
        double dG = c1[k] + x * (2 * c2[k] + x * (3 * c3[k] + x * (4 * c4[k] + x * 5 * c5[k])));
        g[0] += a0[k] * G + dG * (a0[k] * Rh[0] + a1[k] * Rh[1] + a2[k] * Rh[2] + a3[k] * Rh[3]);
        g[1] += a1[k] * G;
        g[2] += a2[k] * G;
        g[3] += a3[k] * G;
    }
}

void dp_fused_backward(const dp_model *m, const dp_tables *tb, int i, int ti,
                       const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk)
{
    const int nt = m->ntypes;
    const double invN = 1.0 / m->nnei;
    for (int q = 0; q < nn; q++) {
        const dp_nbr *n = &nbr[q];
        if (m->excl[ti * nt + n->type]) continue;
        double Rh[4], x = 0.0, g[4];
        const double *c = NULL;
        dp_fused_lookup(m, tb, ti, n, Rh, &c, &x);   /* in range: checked by the forward pass */
        row_gradient(c, x, m->ng, dEdT, Rh, g);
        const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;
        for (int d = 0; d < 4; d++) g[d] *= invN / std[d];
        dp_env_scatter(m, n, i, g, sk);
    }
}
