/* HAL buffered 14-7 van der Waals (Halgren, JACS 114, 7827 (1992); AMOEBA: Ren & Ponder,
 * J. Phys. Chem. B 107, 5933 (2003), eq. 4):
 *
 *   E = eps * ((1+d) / (rho + d))^7 * ((1+g) / (rho^7 + g) - 2),   rho = r / rv,
 *
 * written in r as eps * tau^7 * rv^7 * ((1+g) rv^7 / (r^7 + g rv^7) - 2) with
 * tau = (1+d) / (r + d rv). Hydrogens interact from a site moved towards their bond
 * partner, x_red = f (x_H - x_P) + x_P (the class's reduction factor f), so the force on
 * the site is shared f : (1-f) between H and P. Beyond set.vdw_taper the energy is
 * multiplied by the 5th-order taper S(r), reaching 0 at set.vdw_cut. */
#include <math.h>

#include "amoeba_internal.h"

pk_code pk_amoeba_hal(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                      const pk_amoeba_list *nl, pk_amoeba_work *w, pk_out *out,
                      pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk hal: no force array");

    /* reduced sites; an atom whose partner is unknown (-1) is an error only if used */
    if (pk_buffer_reserve(&w->xred, (size_t)nall * 3, sizeof(double), st)) return st->code;
    double (*xred)[3] = w->xred.data;
    for (int i = 0; i < nall; i++) {
        const int p = s->hred[i];
        const double f = m->vdw_red[m->type_class[s->amtype[i]]];
        for (int d = 0; d < 3; d++)
            xred[i][d] = (p >= 0 && p != i) ? f * (x[i][d] - x[p][d]) + x[p][d] : x[i][d];
    }

    amoeba_taper tp;
    amoeba_taper_init(&tp, m->set.vdw_taper, m->set.vdw_cut);
    const double dhal = m->set.dhal, ghal = m->set.ghal;

    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        (out->eatom && pk_accum_begin(&w->acc_e, nt, out->eatom, (size_t)nall, st)) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_partials_begin(w, nt, st))
        return st->code;

    int missing = -1;
#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double *eatom = out->eatom ? pk_accum_slice(&w->acc_e, tid) : NULL;
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
        int my_missing = -1;

#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int ci = m->type_class[s->amtype[i]];
            const double redi = m->vdw_red[ci];
            const int iv = s->hred[i];
            const int *jlist = nl->firstneigh[i];
            for (int jj = 0; jj < nl->numneigh[i]; jj++) {
                const int j = jlist[jj] & PK_AMOEBA_NEIGHMASK;
                const double scale = m->vdw_scale[pk_amoeba_special(jlist[jj])];
                if (scale == 0.0) continue;
                const double dx = xred[i][0] - xred[j][0];
                const double dy = xred[i][1] - xred[j][1];
                const double dz = xred[i][2] - xred[j][2];
                const double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 > tp.off2) continue;
                const int jv = s->hred[j];
                if (iv < 0 || jv < 0) {
                    my_missing = iv < 0 ? i : j;
                    continue;
                }
                const int cj = m->type_class[s->amtype[j]];
                const double rv = pk_amoeba_radmin(m, ci, cj);
                const double eps = pk_amoeba_epsilon(m, ci, cj) * scale;

                const double r = sqrt(r2);
                const double rv2 = rv * rv, rv7 = rv2 * rv2 * rv2 * rv;
                const double r6 = r2 * r2 * r2;
                const double rho = r6 * r + ghal * rv7;
                const double tau = (dhal + 1.0) / (r + dhal * rv);
                const double tau2 = tau * tau, tau7 = tau2 * tau2 * tau2 * tau;
                double e = eps * tau7 * rv7 * ((ghal + 1.0) * rv7 / rho - 2.0);
                /* dE/dr: d(tau^7)/dr = -7 tau^7 tau/(1+d); d(1/rho)/dr = -7 r^6/rho^2 */
                double de = -7.0 * (tau / (dhal + 1.0) * e +
                                    eps * tau7 * r6 * (ghal + 1.0) * (rv7 / rho) * (rv7 / rho));
                if (r2 > tp.cut2) {
                    double dsw;
                    const double sw = amoeba_taper_eval(&tp, r, &dsw);
                    de = e * dsw + de * sw;
                    e *= sw;
                }
                esum += e;
                if (eatom) {
                    eatom[i] += 0.5 * e;
                    eatom[j] += 0.5 * e;
                }
                /* gradient on site i is g = de/r * (xred_i - xred_j); site j gets -g */
                const double g[3] = {de / r * dx, de / r * dy, de / r * dz};
                const double redj = m->vdw_red[cj];
                for (int d = 0; d < 3; d++) {
                    if (iv == i) {
                        f[i][d] -= g[d];
                    } else {
                        f[i][d] -= g[d] * redi;
                        f[iv][d] -= g[d] * (1.0 - redi);
                    }
                    if (jv == j) {
                        f[j][d] += g[d];
                    } else {
                        f[j][d] += g[d] * redj;
                        f[jv][d] += g[d] * (1.0 - redj);
                    }
                }
                /* virial sum r_ij (x) F_i over reduced sites (exact: x_red is linear in x) */
                const double v[6] = {-dx * g[0], -dy * g[1], -dz * g[2],
                                     -dx * g[1], -dx * g[2], -dy * g[2]};
                for (int c = 0; c < 6; c++) vir[c] += v[c];
                amoeba_vatom_pair(vatom, i, j, v);
            }
        }
        part[0] = esum;
        for (int k = 0; k < 6; k++) part[1 + k] = vir[k];
        if (my_missing >= 0) {
#pragma omp critical(amoeba_hal_missing)
            missing = my_missing;
        }
    }
    pk_accum_reduce(&w->acc_f);
    if (out->eatom) pk_accum_reduce(&w->acc_e);
    if (out->vatom) pk_accum_reduce(&w->acc_v);
    if (missing >= 0)
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk hal: H-reduction partner of atom %d missing (ghost cutoff too short)",
                       a->tag ? (int)a->tag[missing] : missing + 1);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
