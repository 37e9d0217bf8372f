/* Tabulated fused kernel: T = (1/N) [sum over real slots R^_k (x) G(s_k) + pad[ti][t][n_t]]
 * with G(s_k) evaluated from the quintic table inside the contraction (never stored), and
 * the padding slots taken from the precomputed suffix sums. The backward pass evaluates G
 * and G' from the same piece again:
 *   dE/dR^_k[d] = (1/N) sum_m dE/dT[d][m] G_m,  plus on d = 0
 *   (1/N) sum_m G'_m sum_d dE/dT[d][m] R^_k[d]. */
#include <string.h>

#include "deepmd_internal.h"

/* Normalised row of a neighbour and its table piece; 0 when beyond the table. */
static inline int lookup(const dp_model *m, const dp_tables *tb, int ti, const dp_nbr *n,
                         double Rh[4], const double **c, double *x)
{
    const double *avg = m->davg + ((size_t)ti * m->nnei + n->slot) * 4;
    const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;
    double R[4];
    dp_env_row(m, n, R, NULL);
    for (int d = 0; d < 4; d++) Rh[d] = (R[d] - avg[d]) / std[d];
    return dp_table_locate(&tb->tab[dp_emb_index(m, ti, n->type)], Rh[0], m->ng, c, x);
}

pk_code dp_fused_forward(const dp_model *m, const dp_tables *tb, int i, int ti,
                         const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                         double *T, pk_status *st)
{
    const int ng = m->ng, nt = m->ntypes;
    memset(T, 0, sizeof(double) * 4 * ng);
    /* Padding slots in closed form. */
    for (int t = 0; t < nt; t++) {
        const double *P = tb->pad + tb->pad_off[ti * nt + t] + (size_t)nreal[t] * 4 * ng;
        for (int c = 0; c < 4 * ng; c++) T[c] += P[c];
    }
    /* Real neighbours: table lookup fused with the contraction. */
    for (int q = 0; q < nn; q++) {
        const dp_nbr *n = &nbr[q];
        if (m->excl[ti * nt + n->type]) continue;
        double Rh[4], x;
        const double *c;
        if (!lookup(m, tb, ti, n, Rh, &c, &x)) {
            const dp_table *tab = &tb->tab[dp_emb_index(m, ti, n->type)];
            return pk_fail(st, PK_ERR_RANGE,
                           "deepmd/pk: atom %d (tag %d) has a %s neighbour at r = %.6g, closer "
                           "than the embedding table covers (s = %.6g > %.6g); rerun with a "
                           "smaller table_rmin or tabulate no", i, tag ? (int)tag[i] : i + 1,
                           m->type_map[n->type], n->r, Rh[0], tab->s2);
        }
        for (int k = 0; k < ng; k++, c += 6) {
            double G = c[0] + x * (c[1] + x * (c[2] + x * (c[3] + x * (c[4] + x * c[5]))));
            T[k] += Rh[0] * G;
            T[ng + k] += Rh[1] * G;
            T[2 * ng + k] += Rh[2] * G;
            T[3 * ng + k] += Rh[3] * G;
        }
    }
    const double invN = 1.0 / m->nnei;
    for (int c = 0; c < 4 * ng; c++) T[c] *= invN;
    return PK_OK;
}

void dp_fused_backward(const dp_model *m, const dp_tables *tb, int i, int ti,
                       const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk)
{
    const int ng = m->ng, nt = m->ntypes;
    const double invN = 1.0 / m->nnei;
    for (int q = 0; q < nn; q++) {
        const dp_nbr *n = &nbr[q];
        if (m->excl[ti * nt + n->type]) continue;
        double Rh[4], x = 0.0, g[4] = {0, 0, 0, 0}, gs = 0.0;
        const double *c = NULL;
        lookup(m, tb, ti, n, Rh, &c, &x);   /* in range: checked by the forward pass */
        for (int k = 0; k < ng; k++, c += 6) {
            double G = c[0] + x * (c[1] + x * (c[2] + x * (c[3] + x * (c[4] + x * c[5]))));
            double dG = c[1] + x * (2 * c[2] + x * (3 * c[3] + x * (4 * c[4] + x * 5 * c[5])));
            double a0 = dEdT[k], a1 = dEdT[ng + k], a2 = dEdT[2 * ng + k];
            double a3 = dEdT[3 * ng + k];
            g[0] += a0 * G;
            g[1] += a1 * G;
            g[2] += a2 * G;
            g[3] += a3 * G;
            gs += dG * (a0 * Rh[0] + a1 * Rh[1] + a2 * Rh[2] + a3 * Rh[3]);
        }
        g[0] += gs;
        const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;
        for (int d = 0; d < 4; d++) g[d] *= invN / std[d];
        dp_env_scatter(m, n, i, g, sk);
    }
}
