/* Descriptor and fitting net of a batch of centres of one type, with the gradient back to T.
 *
 * D[m*axis + a] = sum_d T[d][m] T[d][a]   (m < ng, a < axis), so with g = dE/dD
 * dE/dT[d][m] = sum_a g[m][a] T[d][a] + [m < axis] sum_m' g[m'][m] T[d][m']. */
#include "deepmd_internal.h"

size_t dp_fit_scratch(const dp_model *m, int nb)
{
    size_t n = 0;
    for (int t = 0; t < m->ntypes; t++) {
        size_t k = dp_net_fit_scratch(&m->fit[t], nb);
        if (k > n) n = k;
    }
    return 2 * (size_t)nb * m->ng * m->axis + n;
}

void dp_fit_atoms(const dp_model *m, int ti, int nb, const double *T, double *e,
                  double *dEdT, double *scratch)
{
    const int ng = m->ng, ax = m->axis, nd = ng * ax;
    double *D = scratch, *g = D + (size_t)nb * nd, *net = g + (size_t)nb * nd;
    for (int b = 0; b < nb; b++) {
        const double *Tb = T + (size_t)b * 4 * ng;
        double *Db = D + (size_t)b * nd;
        for (int i = 0; i < ng; i++)
            for (int a = 0; a < ax; a++) {
                double s = 0.0;
                for (int d = 0; d < 4; d++) s += Tb[d * ng + i] * Tb[d * ng + a];
                Db[i * ax + a] = s;
            }
    }
    dp_net_fit(&m->fit[ti], nb, D, e, g, net);
    for (int b = 0; b < nb; b++) {
        const double *Tb = T + (size_t)b * 4 * ng, *gb = g + (size_t)b * nd;
        double *Gb = dEdT + (size_t)b * 4 * ng;
        e[b] += m->bias[ti];
        for (int d = 0; d < 4; d++) {
            const double *Td = Tb + d * ng;
            for (int i = 0; i < ng; i++) {
                double s = 0.0;
                for (int a = 0; a < ax; a++) s += gb[i * ax + a] * Td[a];
                if (i < ax)
                    for (int k = 0; k < ng; k++) s += gb[k * ax + i] * Td[k];
                Gb[d * ng + i] = s;
            }
        }
    }
}
