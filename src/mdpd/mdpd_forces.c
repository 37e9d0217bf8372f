/* Conservative, dissipative and random forces of mdpd/pk over a half neighbour list. */
#include <math.h>
#include <string.h>

#include "mdpd_internal.h"
#include "mdpd_random.h"

/* Cached pairs are taken this many at a time: their noise and pair forces in vectorised
 * loops, then the sums into the atoms in list order. */
enum { NOISE_BATCH = 64 };

/* Tally one pair as LAMMPS's ev_tally does: the full value when both atoms are counted on
 * this rank, half for an owned-ghost pair stored on both ranks (newton off). */
static inline void tally(pk_mdpd_thread_sums *t, int i, int j, int nlocal, int newton, double e,
                         double fpair, double dx, double dy, double dz, int want_e, int want_v)
{
    const int jcount = newton || j < nlocal;
    const double w = jcount ? 1.0 : 0.5;
    const double v[6] = {dx * dx * fpair, dy * dy * fpair, dz * dz * fpair,
                         dx * dy * fpair, dx * dz * fpair, dy * dz * fpair};
    if (want_e) t->ev[0] += w * e;
    if (want_v) for (int k = 0; k < 6; k++) t->ev[1 + k] += w * v[k];
    if (t->eatom) {
        t->eatom[i] += 0.5 * e;
        if (jcount) t->eatom[j] += 0.5 * e;
    }
    if (t->vatom) {
        for (int k = 0; k < 6; k++) t->vatom[6 * i + k] += 0.5 * v[k];
        if (jcount) for (int k = 0; k < 6; k++) t->vatom[6 * j + k] += 0.5 * v[k];
    }
}

/* The cpu kernel: each entry's cached pairs in list order, the noise and the pair forces
 * computed a batch at a time. */
void pk_mdpd_cpu_force_rows(const pk_mdpd_force_pass *pass, pk_mdpd_thread_sums *t)
{
    const pk_mdpd *m = pass->m;
    const pk_neigh *list = pass->list;
    const int nlocal = pass->atoms->nlocal, newton = pass->newton;
    const int want_e = pass->want_e, want_v = pass->want_v, tally_any = pass->tally_any;
    const int noisy = m->noisy, uniform = m->noise == PK_MDPD_NOISE_UNIFORM;
    const double energy_b = pass->energy_b, dtinvsqrt = pass->dtinvsqrt;
    const uint32_t key = pass->key;
    const double *special = pass->special;
    /* special-bond factors by class, 1 for class 0 and without special_lj; chosen by selects
     * below, since a table lookup by class keeps GCC from vectorising the pair loop */
    const double factor1 = special ? special[1] : 1.0, factor2 = special ? special[2] : 1.0,
                 factor3 = special ? special[3] : 1.0;
    const int stride = m->ntypes + 1;
    const double (*restrict x)[3] = pass->atoms->x;
    const double (*restrict v)[3] = pass->atoms->v;
    const int *restrict type = pass->atoms->type;
    const pk_tag *restrict tag = pass->atoms->tag;
    const double *restrict rho = pass->rho;
    const size_t *restrict start = m->pair_start.data;
    const int *restrict count = m->pair_count.data;
    const int *restrict pj = m->pair_j.data;
    const double *restrict pr = m->pair_r.data;
    double *restrict f = t->f;

#pragma omp for schedule(static)
    for (int ii = 0; ii < list->inum; ii++) {
        const int i = list->ilist[ii];
        const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
        const double vxi = v[i][0], vyi = v[i][1], vzi = v[i][2];
        const pk_tag tag_i = tag[i];
        const double rho_i = rho[i];
        const pk_mdpd_pair *prow = &m->pair[type[i] * stride];
        double fi[3] = {0.0, 0.0, 0.0};
        const size_t end = start[ii] + (size_t)count[ii];
        for (size_t k0 = start[ii]; k0 < end; k0 += NOISE_BATCH) {
            const int n = end - k0 < NOISE_BATCH ? (int)(end - k0) : NOISE_BATCH;
            double xi_batch[NOISE_BATCH];
            if (noisy && uniform) {
#pragma omp simd
                for (int q = 0; q < n; q++)
                    xi_batch[q] = pk_mdpd_uniform_keyed(key, tag_i, tag[pk_neigh_index(pj[k0 + q])]);
            } else if (noisy) {
#pragma omp simd
                for (int q = 0; q < n; q++)
                    xi_batch[q] = pk_mdpd_gaussian_keyed(key, tag_i, tag[pk_neigh_index(pj[k0 + q])]);
            } else {
                memset(xi_batch, 0, sizeof xi_batch);   /* no noise: never read as such */
            }
            /* The pair forces of the batch, vectorised (gathers of the neighbours' data): the
             * same IEEE operations per pair as one at a time, so the same bits. Pairs beyond
             * rc or closer than PK_MDPD_RMIN compute on (r = 0 gives inf) but are skipped. */
            double fpair_b[NOISE_BATCH], dx_b[NOISE_BATCH], dy_b[NOISE_BATCH], dz_b[NOISE_BATCH];
            double wc_b[NOISE_BATCH], wd_b[NOISE_BATCH], factor_b[NOISE_BATCH];
            int in_b[NOISE_BATCH];
#pragma omp simd
            for (int q = 0; q < n; q++) {
                const int jraw = pj[k0 + q];
                const int j = pk_neigh_index(jraw);
                const double r = pr[k0 + q];
                const pk_mdpd_pair *p = &prow[type[j]];
                const double dx = xi - x[j][0], dy = yi - x[j][1], dz = zi - x[j][2];
                const double rinv = 1.0 / r;
                const int sb = pk_neigh_special(jraw);
                const double factor =
                    sb == 0 ? 1.0 : sb == 1 ? factor1 : sb == 2 ? factor2 : factor3;
                const double dot =
                    dx * (vxi - v[j][0]) + dy * (vyi - v[j][1]) + dz * (vzi - v[j][2]);
                const pk_mdpd_force pf = pk_mdpd_pair_force(p, r, rinv, dot, rho_i + rho[j],
                                                            noisy, dtinvsqrt, xi_batch[q], factor);
                in_b[q] = r < p->rc && r >= PK_MDPD_RMIN;
                fpair_b[q] = pf.fpair;
                dx_b[q] = dx; dy_b[q] = dy; dz_b[q] = dz;
                wc_b[q] = pf.wc; wd_b[q] = pf.wd; factor_b[q] = factor;
            }
            for (int q = 0; q < n; q++) {
                if (!in_b[q]) continue;
                const int j = pk_neigh_index(pj[k0 + q]);
                const double fpair = fpair_b[q], dx = dx_b[q], dy = dy_b[q], dz = dz_b[q];
                fi[0] += dx * fpair; fi[1] += dy * fpair; fi[2] += dz * fpair;
                if (newton || j < nlocal) {
                    f[3 * j + 0] -= dx * fpair;
                    f[3 * j + 1] -= dy * fpair;
                    f[3 * j + 2] -= dz * fpair;
                }
                if (tally_any) {
                    const double e = pk_mdpd_pair_energy(&prow[type[j]], wc_b[q], wd_b[q],
                                                         rho_i + rho[j], energy_b, factor_b[q]);
                    tally(t, i, j, nlocal, newton, e, fpair, dx, dy, dz, want_e, want_v);
                }
            }
        }
        f[3 * i + 0] += fi[0]; f[3 * i + 1] += fi[1]; f[3 * i + 2] += fi[2];
    }
}

pk_code pk_mdpd_forces_run(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list,
                           int newton, const double *rho, const pk_mdpd_step *step,
                           pk_out *out, pk_mdpd_force_rows rows, pk_status *st)
{
    if (!atoms->v) return pk_fail(st, PK_ERR_ARG, "mdpd needs velocities of owned and ghost atoms");
    if (!atoms->tag) return pk_fail(st, PK_ERR_ARG, "mdpd needs atom IDs");
    if (!(step->dt > 0.0)) return pk_fail(st, PK_ERR_ARG, "timestep must be > 0");
    if (m->pairs_inum != list->inum)
        return pk_fail(st, PK_ERR_ARG, "pk_mdpd_forces called without pk_mdpd_density on this list");

    const size_t nall = (size_t)atoms->nlocal + (size_t)atoms->nghost;
    const int nthreads = pk_max_threads();
    const pk_mdpd_force_pass pass = {
        .m = m, .atoms = atoms, .list = list, .rho = rho, .newton = newton,
        .want_e = out->want_energy, .want_v = out->want_virial,
        .tally_any = out->want_energy || out->want_virial || out->eatom || out->vatom,
        .energy_b = (m->kernel == PK_MDPD_LUCY) ? 0.5 : 0.25,
        .dtinvsqrt = 1.0 / sqrt(step->dt),
        .key = pk_mdpd_noise_key(m->seed, step->timestep),
        .special = step->special};

    if (pk_accum_begin(&m->f_acc, nthreads, &out->f[0][0], 3 * nall, st)) return st->code;
    if (out->eatom && pk_accum_begin(&m->eatom_acc, nthreads, out->eatom, nall, st)) return st->code;
    if (out->vatom && pk_accum_begin(&m->vatom_acc, nthreads, &out->vatom[0][0], 6 * nall, st))
        return st->code;
    if (pk_buffer_reserve(&m->ev, (size_t)nthreads * 7, sizeof(double), st)) return st->code;
    double *ev = m->ev.data;

#pragma omp parallel num_threads(nthreads)
    {
        const int tid = pk_thread_id();
        pk_mdpd_thread_sums t = {pk_accum_slice(&m->f_acc, tid),
                                 out->eatom ? pk_accum_slice(&m->eatom_acc, tid) : NULL,
                                 out->vatom ? pk_accum_slice(&m->vatom_acc, tid) : NULL,
                                 {0, 0, 0, 0, 0, 0, 0}};
        rows(&pass, &t);
        memcpy(&ev[7 * tid], t.ev, sizeof t.ev);
    }
    pk_accum_reduce(&m->f_acc);
    if (out->eatom) pk_accum_reduce(&m->eatom_acc);
    if (out->vatom) pk_accum_reduce(&m->vatom_acc);
    for (int p = 0; p < nthreads; p++) {
        out->energy += ev[7 * p];
        for (int k = 0; k < 6; k++) out->virial[k] += ev[7 * p + 1 + k];
    }
    return PK_OK;
}

pk_code pk_mdpd_forces(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                       const double *rho, const pk_mdpd_step *step, pk_out *out,
                       pk_status *st)
{
    return pk_mdpd_forces_run(m, atoms, list, newton, rho, step, out, pk_mdpd_cpu_force_rows,
                              st);
}
