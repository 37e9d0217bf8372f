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

/* per-pair scratch arrays: R_min, scaled epsilon, H-reduction share, energy, force */
enum { HAL_SCRATCH = 7 };

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
        amoeba_batches_begin(&w->batches, nl, nt, HAL_SCRATCH, st) ||
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
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        double *rv = b.scratch, *eps = rv + b.cap, *red = eps + b.cap, *en = red + b.cap;
        double *gx = en + b.cap, *gy = gx + b.cap, *gz = gy + b.cap;
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
        int my_missing = -1;
        /* thread-private copies: GCC does not vectorise a loop that reads the parallel
         * region's shared variables */
        const amoeba_taper t = tp;
        const double dh = dhal, gh = ghal;

#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int ci = m->type_class[s->amtype[i]];
            const int iv = s->hred[i];
            amoeba_batch_gather(&b, nl, (const double (*)[3])xred, i, t.off2);
            /* pair parameters; a pair with a missing partner or scale 0 gets eps = 0; red is
             * the share of the force on site j that goes to atom j (1 without a partner) */
            for (int n = 0; n < b.n; n++) {
                const int j = b.k[n], cj = m->type_class[s->amtype[j]];
                const double scale = m->vdw_scale[b.cls[n]];
                const int known = iv >= 0 && s->hred[j] >= 0;
                if (!known && scale != 0.0) my_missing = iv < 0 ? i : j;
                rv[n] = pk_amoeba_radmin(m, ci, cj);
                eps[n] = known ? pk_amoeba_epsilon(m, ci, cj) * scale : 0.0;
                red[n] = s->hred[j] == j || s->hred[j] < 0 ? 1.0 : m->vdw_red[cj];
            }
            const int nb = b.n;
            const double *r2s = b.r2, *rx = b.rx, *ry = b.ry, *rz = b.rz;
            double e_i = 0.0, fx = 0.0, fy = 0.0, fz = 0.0;
            double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0, v5 = 0.0;
#pragma omp simd reduction(+ : e_i, fx, fy, fz, v0, v1, v2, v3, v4, v5)
            for (int n = 0; n < nb; n++) {
                const double r2 = r2s[n], r = sqrt(r2), v = rv[n];
                const double rv2 = v * v, rv7 = rv2 * rv2 * rv2 * v;
                const double r6 = r2 * r2 * r2;
                const double rho = r6 * r + gh * rv7;
                const double tau = (dh + 1.0) / (r + dh * v);
                const double tau2 = tau * tau, tau7 = tau2 * tau2 * tau2 * tau;
                const double e = eps[n] * tau7 * rv7 * ((gh + 1.0) * rv7 / rho - 2.0);
                /* dE/dr: d(tau^7)/dr = -7 tau^7 tau/(1+d); d(1/rho)/dr = -7 r^6/rho^2 */
                const double de = -7.0 * (tau / (dh + 1.0) * e +
                                          eps[n] * tau7 * r6 * (gh + 1.0) * (rv7 / rho) * (rv7 / rho));
                double dsw;
                const double sw = r2 > t.cut2 ? amoeba_taper_eval(&t, r, &dsw) : 1.0;
                const double gr = (r2 > t.cut2 ? e * dsw + de * sw : de) / r;
                /* force on site j: -dE/dr r/|r| with r = xred_j - xred_i; site i gets minus */
                const double f0 = -gr * rx[n], f1 = -gr * ry[n], f2 = -gr * rz[n];
                en[n] = e * sw;
                gx[n] = f0;
                gy[n] = f1;
                gz[n] = f2;
                e_i += e * sw;
                fx += f0;
                fy += f1;
                fz += f2;
                /* virial sum r_ij (x) F_i over reduced sites (exact: x_red is linear in x) */
                v0 += rx[n] * f0;
                v1 += ry[n] * f1;
                v2 += rz[n] * f2;
                v3 += rx[n] * f1;
                v4 += rx[n] * f2;
                v5 += ry[n] * f2;
            }
            /* the forces on the sites, shared between each H and its partner */
            for (int n = 0; n < nb; n++) {
                const int j = b.k[n], jv = s->hred[j] < 0 ? j : s->hred[j];
                f[j][0] += red[n] * gx[n];
                f[j][1] += red[n] * gy[n];
                f[j][2] += red[n] * gz[n];
                f[jv][0] += (1.0 - red[n]) * gx[n];
                f[jv][1] += (1.0 - red[n]) * gy[n];
                f[jv][2] += (1.0 - red[n]) * gz[n];
            }
            const double redi = iv == i ? 1.0 : m->vdw_red[ci];
            f[i][0] -= redi * fx;
            f[i][1] -= redi * fy;
            f[i][2] -= redi * fz;
            if (iv >= 0) {
                f[iv][0] -= (1.0 - redi) * fx;
                f[iv][1] -= (1.0 - redi) * fy;
                f[iv][2] -= (1.0 - redi) * fz;
            }
            esum += e_i;
            vir[0] += v0;
            vir[1] += v1;
            vir[2] += v2;
            vir[3] += v3;
            vir[4] += v4;
            vir[5] += v5;
            if (eatom || vatom)
                for (int n = 0; n < nb; n++) {
                    const int j = b.k[n];
                    if (eatom) {
                        eatom[i] += 0.5 * en[n];
                        eatom[j] += 0.5 * en[n];
                    }
                    const double v[6] = {rx[n] * gx[n], ry[n] * gy[n], rz[n] * gz[n],
                                         rx[n] * gy[n], rx[n] * gz[n], ry[n] * gz[n]};
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
