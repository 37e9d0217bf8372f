/* Descriptor and fitting net of a batch of centres of one type, with the gradient back to T.
 *
 * D[m*axis + a] = sum_d T[d][m] T[d][a]   (m < ng, a < axis), so with g = dE/dD
 * dE/dT[d][m] = sum_a g[m][a] T[d][a] + [m < axis] sum_m' g[m'][m] T[d][m']. */
#include "deepmd_internal.h"

size_t dp_fit_scratch(const dp_model *m, int nb)
{
    const size_t nd = (size_t)m->ng * m->axis;
    size_t n = 0;
    for (int t = 0; t < m->ntypes; t++) {
        size_t k = dp_net_fit_scratch(&m->fit[t], nb);
        if (k > n) n = k;
        if (m->fit[t].f32) {   /* dp_fit_atoms_f: D, dE/dD, e and the net's scratch in float */
            k = (dp_net_fit_scratch_f(&m->fit[t], nb) + 2 * (size_t)nb * nd + nb + 1) / 2;
            if (k > n) n = k;
        }
    }
    return 2 * (size_t)nb * nd + n;
}

/* D of nb centres (nb x ng x axis) from their T. */
static void descriptors(const dp_model *m, int nb, const double *T, double *D)
{
    const int ng = m->ng, ax = m->axis, nd = ng * ax;
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
}

/* Biases into e, and dE/dT of nb centres from g = dE/dD. */
static void backward(const dp_model *m, int ti, int nb, const double *T, const double *g,
                     double *e, double *dEdT)
{
    const int ng = m->ng, ax = m->axis, nd = ng * ax;
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

void dp_fit_atoms(const dp_model *m, int ti, int nb, const double *T, double *e,
                  double *dEdT, double *scratch)
{
    const size_t nd = (size_t)m->ng * m->axis;
    double *D = scratch, *g = D + nb * nd, *net = g + nb * nd;
    descriptors(m, nb, T, D);
    dp_net_fit(&m->fit[ti], nb, D, e, g, net);
    backward(m, ti, nb, T, g, e, dEdT);
}

void dp_fit_atoms_f(const dp_model *m, int ti, int nb, const double *T, double *e,
                    double *dEdT, double *scratch)
{
    const size_t nd = (size_t)m->ng * m->axis, n = nb * nd;
    double *D = scratch, *g = D + n;
    float *Df = (float *)(g + n), *gf = Df + n, *ef = gf + n, *net = ef + nb;
    descriptors(m, nb, T, D);
    for (size_t k = 0; k < n; k++) Df[k] = (float)D[k];
    dp_net_fit_f(&m->fit[ti], nb, Df, ef, gf, net);
    for (size_t k = 0; k < n; k++) g[k] = gf[k];
    for (int b = 0; b < nb; b++) e[b] = ef[b];
    backward(m, ti, nb, T, g, e, dEdT);
}
