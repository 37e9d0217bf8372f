/* Exact (reference) kernel: every slot, padding included, goes through its embedding net,
 * as in DeePMD-kit. T = (1/N) sum_k R^_k (x) G(s_k), N = sum(sel), s_k = R^_k[0].
 * Backward: dE/dR^_k[d] = (1/N) sum_m dE/dT[d][m] G_m(s_k), plus on d = 0 the embedding
 * path (1/N) sum_m G'_m(s_k) sum_d dE/dT[d][m] R^_k[d]; raw rows divide by dstd. */
#include <string.h>

#include "deepmd_internal.h"

static size_t emb_width(const dp_model *m)
{
    int w = 0;
    for (int k = 0; k < m->nemb; k++)
        if (m->emb[k].width > w) w = m->emb[k].width;
    return (size_t)w;
}

size_t dp_exact_scratch(const dp_model *m)
{
    const size_t ng = (size_t)m->ng, nn = (size_t)m->nnei;
    return 8 * ng + 2 * nn * ng + 4 * nn + 6 * emb_width(m) + dp_fit_scratch(m, 1);
}

double dp_exact_atom(const dp_model *m, int i, int ti, const dp_nbr *nbr, int nn,
                     const int *nreal, double *work, dp_sink *sk)
{
    const int ng = m->ng, N = m->nnei;
    double *T = work, *dEdT = T + 4 * ng, *G = dEdT + 4 * ng, *dG = G + (size_t)N * ng;
    double *Rh = dG + (size_t)N * ng, *net = Rh + 4 * (size_t)N, *fit = net + 6 * emb_width(m);
    const double *avg = m->davg + (size_t)ti * N * 4, *std = m->dstd + (size_t)ti * N * 4;
    const double invN = 1.0 / N;

    /* Normalised rows of every slot: padding rows are (0 - davg)/dstd. */
    for (int k = 0; k < 4 * N; k++) Rh[k] = -avg[k] / std[k];
    for (int q = 0; q < nn; q++) {
        double R[4];
        int k = nbr[q].slot;
        dp_env_row(m, &nbr[q], R, NULL);
        for (int d = 0; d < 4; d++) Rh[4 * k + d] = (R[d] - avg[4 * k + d]) / std[4 * k + d];
    }
    memset(T, 0, sizeof(double) * 4 * ng);
    for (int t = 0; t < m->ntypes; t++) {
        const dp_net *e = dp_emb_of(m, ti, t);
        /* Excluded pairs keep their slots but their rows are zeroed (no contribution). */
        int k0 = m->excl[ti * m->ntypes + t] ? m->sec[t] + nreal[t] : m->sec[t];
        for (int k = k0; k < m->sec[t + 1]; k++) {
            double *Gk = G + (size_t)k * ng, *Rk = Rh + 4 * k;
            dp_net_scalar(e, Rk[0], Gk, dG + (size_t)k * ng, NULL, net);
            for (int d = 0; d < 4; d++)
                for (int c = 0; c < ng; c++) T[d * ng + c] += Rk[d] * Gk[c];
        }
    }
    for (int c = 0; c < 4 * ng; c++) T[c] *= invN;

    double E;
    dp_fit_atoms(m, ti, 1, T, &E, dEdT, fit);

    for (int q = 0; q < nn; q++) {
        const dp_nbr *n = &nbr[q];
        if (m->excl[ti * m->ntypes + n->type]) continue;
        int k = n->slot;
        const double *Gk = G + (size_t)k * ng, *dGk = dG + (size_t)k * ng, *Rk = Rh + 4 * k;
        double g[4] = {0, 0, 0, 0}, gs = 0.0;
        for (int c = 0; c < ng; c++) {
            double a = 0.0;
            for (int d = 0; d < 4; d++) {
                g[d] += dEdT[d * ng + c] * Gk[c];
                a += dEdT[d * ng + c] * Rk[d];
            }
            gs += dGk[c] * a;
        }
        g[0] += gs;
        for (int d = 0; d < 4; d++) g[d] *= invN / std[4 * k + d];
        dp_env_scatter(m, n, i, g, sk);
    }
    return E;
}
