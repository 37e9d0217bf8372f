/* HAL buffered 14-7 van der Waals (Halgren, JACS 114, 7827 (1992); AMOEBA: Ren & Ponder,
 * J. Phys. Chem. B 107, 5933 (2003), eq. 4):
 *
 *   E = eps * ((1+d) / (rho + d))^7 * ((1+g) / (rho^7 + g) - 2),   rho = r / rv,
 *
 * written in r as eps * tau^7 * rv^7 * ((1+g) rv^7 / (r^7 + g rv^7) - 2) with
 * tau = (1+d) / (r + d rv). Hydrogens interact from a site moved towards their bond
 * partner, x_red = f (x_H - x_P) + x_P (the class's reduction factor f), so the force on
 * the site is shared f : (1-f) between H and P. Beyond set.vdw_taper the energy is
 * multiplied by the 5th-order taper S(r), reaching 0 at set.vdw_cut. A backend's
 * amoeba_hal_fn (amoeba_kernels.h) may take the place of the pair loop. */
#include <math.h>
#include <string.h>

#include "amoeba_kernels.h"
#include "amoeba_lanes.h"

/* Per-step data of an atom, found once before the pair loops: its site (the reduced
 * position and the share of the site's force that goes to the atom itself: f, or 1 without
 * a partner) as one SIMD vector of four doubles (GCC/Clang vector extension; the workspace
 * is 64-byte aligned), its class and its partner (-1 when unknown, i.e. beyond the ghost
 * cutoff). The pair loops sum the forces on each site in such vectors (x, y, z, 0); they are
 * shared between each atom and its partner once per step, which equals sharing every pair's
 * force since x_red is linear in x. */
typedef lane4 hal_site;   /* x, y, z, share */
typedef struct {
    int cls, partner;
} hal_atom;

/* Gather the neighbours k of atom i among the entries jlist[0..nn) whose sites are within
 * off2 of i's into b (r = site k - site i) with their pair parameters: R_min (rrow: i's row
 * of the table) and epsilon times the special-class scale (eps). Padded to a multiple of 4
 * by entries at r = (1, 0, 0) with eps = 0 on atom 0. A kept pair with eps != 0 (its
 * energy depends on the sites) whose atom has no known partner sets *missing to that atom
 * (i before k). Returns the padded count; b->cls is left unused (the special class's scale
 * is in eps). */
static int hal_gather(amoeba_batch *b, const int *jlist, int nn, const hal_site *site,
                      const hal_atom *ha, int i, double off2, const double *rrow,
                      const double *erow, const double *vscale, double *rv, double *eps,
                      int *missing)
{
    const lane4 c = {site[i][0], site[i][1], site[i][2], 0.0};
    const lane4 r2max = {off2, off2, off2, off2};
    int *bk = b->k, n = 0, jj = 0;
    double *rx = b->rx, *ry = b->ry, *rz = b->rz, *rr = b->r2;
    /* the entries within off2 and their r, compacted four at a time (keep4) */
    for (; jj + 4 <= nn; jj += 4) {
        int e[4];
        memcpy(e, jlist + jj, sizeof e);
        lane4 x, y, z;
        entries_rows4(site, e, c, &x, &y, &z);
        const lane4 r2 = x * x + y * y + z * z;
        const unsigned keep = lane4_mask((lane4)(r2 <= r2max));
        keep4_lane4(x, keep, rx + n);
        keep4_lane4(y, keep, ry + n);
        keep4_lane4(z, keep, rz + n);
        keep4_lane4(r2, keep, rr + n);
        n += keep4(e, keep, bk + n);
    }
    for (; jj < nn; jj++) {   /* written always, kept by advancing n */
        const lane4 d = site[jlist[jj] & PK_AMOEBA_NEIGHMASK] - c;
        bk[n] = jlist[jj];
        rx[n] = d[0], ry[n] = d[1], rz[n] = d[2];
        rr[n] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        n += rr[n] <= off2;
    }
    b->n = n;
    const int npad = amoeba_padded(n);
    const int pi = ha[i].partner;
    int unknown = pi;   /* negative if a partner is unknown */
    for (int q = 0; q < n; q++) {   /* the pair parameters */
        const int e = bk[q], k = e & PK_AMOEBA_NEIGHMASK;
        const hal_atom t = ha[k];
        bk[q] = k;
        rv[q] = rrow[t.cls];
        eps[q] = erow[t.cls] * vscale[pk_amoeba_special(e)];
        unknown |= t.partner;
    }
    if (unknown < 0)   /* rare: which pair needs an unknown partner? */
        for (int q = 0; q < n; q++)
            if ((pi | ha[bk[q]].partner) < 0 && eps[q] != 0.0) *missing = pi < 0 ? i : bk[q];
    for (int q = n; q < npad; q++) {
        bk[q] = 0;
        rx[q] = rr[q] = rv[q] = 1.0;
        ry[q] = rz[q] = eps[q] = 0.0;
    }
    return npad;
}

/* Add the forces gx, gy, gz of the npad (a multiple of 4) entries to the site forces fs of
 * their atoms k: four at a time, the three arrays transposed into rows {x y z 0}. Returns
 * their sum (the force on the centre's site with the sign reversed). */
static lane4 hal_scatter(const int *k, const double *gx, const double *gy, const double *gz,
                         int npad, lane4 *fs)
{
    const lane4 zero = {0.0, 0.0, 0.0, 0.0};
    lane4 sum = zero;
    for (int n = 0; n < npad; n += 4) {
        const lane4 x = lane4_load(gx + n), y = lane4_load(gy + n), z = lane4_load(gz + n);
        /* {x0 y0 x2 y2}, {x1 y1 x3 y3}, {z0 0 z2 0}, {z1 0 z3 0} */
        const lane4 xy0 = __builtin_shufflevector(x, y, 0, 4, 2, 6);
        const lane4 xy1 = __builtin_shufflevector(x, y, 1, 5, 3, 7);
        const lane4 z0 = __builtin_shufflevector(z, zero, 0, 4, 2, 6);
        const lane4 z1 = __builtin_shufflevector(z, zero, 1, 5, 3, 7);
        const lane4 w0 = __builtin_shufflevector(xy0, z0, 0, 1, 4, 5);
        const lane4 w1 = __builtin_shufflevector(xy1, z1, 0, 1, 4, 5);
        const lane4 w2 = __builtin_shufflevector(xy0, z0, 2, 3, 6, 7);
        const lane4 w3 = __builtin_shufflevector(xy1, z1, 2, 3, 6, 7);
        fs[k[n]] += w0;
        fs[k[n + 1]] += w1;
        fs[k[n + 2]] += w2;
        fs[k[n + 3]] += w3;
        sum += (w0 + w1) + (w2 + w3);
    }
    return sum;
}

/* An atom's H-reduction: its partner (-1 for none) and the fraction f of its position,
 * site = f (x - x_p) + x_p. */
static double hal_reduction(const pk_amoeba_model *m, const pk_amoeba_sites *s, int i, int *p)
{
    *p = s->hred[i];
    return *p >= 0 && *p != i ? m->vdw_red[m->type_class[s->amtype[i]]] : 1.0;
}

double pk_amoeba_hal_reach(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s)
{
    const double (*x)[3] = a->x;
    double shift2 = 0.0;   /* the largest |site - x|^2 = (1 - f)^2 |x - x_p|^2 */
    for (int i = 0; i < a->nlocal + a->nghost; i++) {
        int p;
        const double g = 1.0 - hal_reduction(m, s, i, &p);
        if (g == 0.0) continue;
        double d2 = 0.0;
        for (int d = 0; d < 3; d++) d2 += (x[i][d] - x[p][d]) * (x[i][d] - x[p][d]);
        shift2 = fmax(shift2, g * g * d2);
    }
    /* and a little more, for the rounding of the distances on either side */
    return (m->set.vdw_cut + 2.0 * sqrt(shift2)) * (1.0 + 1e-12);
}

pk_code pk_amoeba_hal(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                      const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs, pk_amoeba_work *w,
                      pk_out *out, pk_status *st)
{
    return amoeba_hal_run(&AMOEBA_PORTABLE, m, a, s, nl, pairs, w, out, st);
}

pk_code amoeba_hal_run(const amoeba_kernels *kern, const pk_amoeba_model *m, const pk_atoms *a,
                       const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                       const pk_amoeba_pairs *pairs, pk_amoeba_work *w, pk_out *out,
                       pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk hal: no force array");

    /* w->xred: the sites, nt arrays of site forces, then the hal_atoms */
    if (pk_buffer_reserve(&w->xred, (size_t)nall,
                          (size_t)(1 + nt) * sizeof(hal_site) + sizeof(hal_atom), st))
        return st->code;
    hal_site *site = w->xred.data;
    lane4 *fsite = site + nall;
    hal_atom *ha = (hal_atom *)(site + (size_t)(1 + nt) * nall);
    for (int i = 0; i < nall; i++) {
        int p;
        const double f = hal_reduction(m, s, i, &p);
        ha[i].cls = m->type_class[s->amtype[i]];
        ha[i].partner = p;
        for (int d = 0; d < 3; d++)
            site[i][d] = f == 1.0 ? x[i][d] : f * (x[i][d] - x[p][d]) + x[p][d];
        site[i][3] = f;
    }

    amoeba_taper tp;
    amoeba_taper_init(&tp, m->set.vdw_taper, m->set.vdw_cut);
    const double dhal = m->set.dhal, ghal = m->set.ghal;
    const int ncls = m->nclasses + 1;

    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        (out->eatom && pk_accum_begin(&w->acc_e, nt, out->eatom, (size_t)nall, st)) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_batches_begin(&w->batches, nl, nt, H_COUNT, st) ||
        amoeba_partials_begin(w, nt, st))
        return st->code;

    const int candidates = pairs && pairs->hal_cut2 > 0.0;
    const int *hal_entries = candidates ? pairs->hal_entries.data : NULL;
    const int *hal_first = candidates ? pairs->hal_first.data : NULL;
    const int *hal_count = candidates ? pairs->hal_count.data : NULL;
    int missing = -1;
#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double *eatom = out->eatom ? pk_accum_slice(&w->acc_e, tid) : NULL;
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
        lane4 *fs = fsite + (size_t)tid * nall;
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        const size_t cap = (size_t)b.cap;
        double *rv = b.scratch + H_RV * cap, *eps = b.scratch + H_EPS * cap;
        double *en = b.scratch + H_E * cap, *gx = b.scratch + H_GX * cap;
        double *gy = b.scratch + H_GY * cap, *gz = b.scratch + H_GZ * cap;
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
        int my_missing = -1;
        /* thread-private copies: GCC does not vectorise a loop that reads the parallel
         * region's shared variables */
        const amoeba_taper t = tp;
        const double dh = dhal, gh = ghal;
        const amoeba_hal_ctx hc = {.taper = tp, .dhal = dhal, .ghal = ghal};
        memset(fs, 0, (size_t)nall * sizeof *fs);

#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii], ci = ha[i].cls;
            const int *jlist = candidates ? hal_entries + hal_first[ii] : nl->firstneigh[i];
            const int nn = candidates ? hal_count[ii] : nl->numneigh[i];
            const int np = hal_gather(&b, jlist, nn, site, ha, i, t.off2, m->radmin + ci * ncls,
                                      m->epsmix + ci * ncls, m->vdw_scale, rv, eps, &my_missing);
            const double *r2s = b.r2, *rx = b.rx, *ry = b.ry, *rz = b.rz;
            double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0, v5 = 0.0;
            double e_i = 0.0;
            if (kern->hal) {
                e_i = kern->hal(&hc, &b, np);
            } else {
#pragma omp simd reduction(+ : e_i)
                for (int n = 0; n < np; n++) {
                    const double r2 = r2s[n], r = sqrt(r2), v = rv[n];
                    const double rv2 = v * v, rv7 = rv2 * rv2 * rv2 * v;
                    const double r6 = r2 * r2 * r2;
                    const double s7 = rv7 / (r6 * r + gh * rv7), inv_a = 1.0 / (r + dh * v);
                    const double tau = (dh + 1.0) * inv_a;   /* a = r + d rv */
                    const double tau2 = tau * tau, tau7 = tau2 * tau2 * tau2 * tau;
                    const double e = eps[n] * tau7 * rv7 * ((gh + 1.0) * s7 - 2.0);
                    /* s7 = rv^7 / (r^7 + g rv^7); dE/dr: d(tau^7)/dr = -7 tau^7 / a,
                     * d(s7)/dr = -7 r^6 s7^2 / rv^7 */
                    const double de =
                        -7.0 * (inv_a * e + eps[n] * tau7 * r6 * (gh + 1.0) * s7 * s7);
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
                }
            }
            /* virial sum r_ij (x) F_i over reduced sites (exact: x_red is linear in x), in a
             * loop of its own: its six sums would crowd the registers of the one above */
#pragma omp simd reduction(+ : v0, v1, v2, v3, v4, v5)
            for (int n = 0; n < np; n++) {
                v0 += rx[n] * gx[n];
                v1 += ry[n] * gy[n];
                v2 += rz[n] * gz[n];
                v3 += rx[n] * gy[n];
                v4 += rx[n] * gz[n];
                v5 += ry[n] * gz[n];
            }
            fs[i] -= hal_scatter(b.k, gx, gy, gz, np, fs);
            esum += e_i;
            vir[0] += v0;
            vir[1] += v1;
            vir[2] += v2;
            vir[3] += v3;
            vir[4] += v4;
            vir[5] += v5;
            if (eatom || vatom)
                for (int n = 0; n < b.n; n++) {
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
        /* the site forces shared between each H and its partner (f : 1-f) */
        for (int k = 0; k < nall; k++) {
            const int p = ha[k].partner;
            const double sh = site[k][3];
            if (sh == 1.0)
                for (int d = 0; d < 3; d++) f[k][d] += fs[k][d];
            else
                for (int d = 0; d < 3; d++) {
                    f[k][d] += sh * fs[k][d];
                    f[p][d] += (1.0 - sh) * fs[k][d];
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
                       "amoeba/pk hal: H-reduction partner of atom %d missing (lost, its bond "
                       "stretched beyond 3 A, or the ghost cutoff too short?)",
                       a->tag ? (int)a->tag[missing] : missing + 1);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
