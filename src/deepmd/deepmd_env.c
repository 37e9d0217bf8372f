/* Environment of one centre: neighbour slots and the smooth rows of se_e2_a.
 *
 * Row of a neighbour at d = x_j - x_i, r = |d|, rho = r + env_protection:
 *   R = w(r) (1/rho, d/rho^2),  w = 1 - 10u^3 + 15u^4 - 6u^5,
 *   u = (r - rcut_smth) / (rcut - rcut_smth) clipped to [0, 1]   (DeePMD-kit env_mat). */
#include <math.h>
#include <stdlib.h>

#include "deepmd_internal.h"

static int by_type_distance(const void *pa, const void *pb)
{
    const dp_nbr *a = pa, *b = pb;
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

int dp_env_gather(const dp_model *m, const int *mtype, const double (*x)[3], int i,
                  const int *jlist, int jnum, dp_nbr *nbr, int *nreal, dp_thread *th)
{
    dp_nbr *cand = th->cand.data;
    const double rc2 = m->rcut * m->rcut;
    int nc = 0;
    for (int jj = 0; jj < jnum; jj++) {
        int j = pk_neigh_index(jlist[jj]);
        int tj = mtype[j];
        if (tj < 0) continue;
        double d0 = x[j][0] - x[i][0], d1 = x[j][1] - x[i][1], d2 = x[j][2] - x[i][2];
        double r2 = d0 * d0 + d1 * d1 + d2 * d2;
        if (r2 >= rc2) continue;
        dp_nbr *c = &cand[nc++];
        c->j = j;
        c->type = tj;
        c->r = sqrt(r2);
        c->d[0] = d0; c->d[1] = d1; c->d[2] = d2;
    }
    qsort(cand, (size_t)nc, sizeof *cand, by_type_distance);

    /* Keep the nearest sel[t] of each type, in slot order. */
    int nn = 0, over = 0;
    for (int t = 0; t < m->ntypes; t++) nreal[t] = 0;
    for (int k = 0; k < nc; k++) {
        int t = cand[k].type;
        if (nreal[t] < m->sel[t]) {
            nbr[nn] = cand[k];
            nbr[nn].slot = m->sec[t] + nreal[t];
            nn++;
        } else {
            over = 1;
        }
        nreal[t]++;
    }
    for (int t = 0; t < m->ntypes; t++) {
        if (nreal[t] > th->maxseen[t]) th->maxseen[t] = nreal[t];
        if (nreal[t] > m->sel[t]) nreal[t] = m->sel[t];
    }
    th->overflow += over;
    return nn;
}

void dp_env_row(const dp_model *m, const dp_nbr *n, double R[4], double dR[4][3])
{
    dp_hd_env_row(m->rcut, m->rcut_smth, m->protection, n->r, n->d, R, dR);
}

void dp_env_scatter(const dp_model *m, const dp_nbr *n, int i, const double g[4], dp_sink *sk)
{
    double dR[4][3], R[4], F[3];
    dp_env_row(m, n, R, dR);
    for (int b = 0; b < 3; b++)
        F[b] = -(g[0] * dR[0][b] + g[1] * dR[1][b] + g[2] * dR[2][b] + g[3] * dR[3][b]);
    /* F is the force on j from E_i; i feels -F. DeePMD-kit's per-atom virial gives
     * F[a] d[b] to the neighbour j. */
    double *fj = sk->f + 3 * (size_t)n->j, *fi = sk->f + 3 * (size_t)i;
    for (int a = 0; a < 3; a++) {
        fj[a] += F[a];
        fi[a] -= F[a];
    }
    double *vj = sk->v9 ? sk->v9 + 9 * (size_t)n->j : NULL;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double v = F[a] * n->d[b];
            sk->vir[3 * a + b] += v;
            if (vj) vj[3 * a + b] += v;
        }
}
