/* mdpd/pk's force pass in SVE: pk_mdpd_cpu_force_rows (src/mdpd/mdpd_forces.c) with one
 * cached pair per 64-bit lane.
 *
 * The noise is drawn ahead for the pairs of several rows at once (noise_stream), in full
 * 32-bit vectors whatever the row lengths (mdpd_sve_noise.h); the forces then take a row's
 * pairs svcntd() at a time. Each pair's force is the cpu kernel's arithmetic in the same
 * order, unfused (pk_mdpd_pair_force), so only the sums differ in order: the forces on atom
 * i add up across lanes and are reduced once per row. The neighbours of a row are distinct
 * atoms, so the gather-add-scatter of their forces and per-atom tallies has no two lanes on
 * one address. */
#include <arm_sve.h>
#include <stddef.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mdpd_internal.h"
#include "mdpd_sve_lanes.h"
#include "mdpd_sve_noise.h"

_Static_assert(sizeof(pk_tag) == sizeof(uint32_t), "the noise gathers tags as 32-bit words");

/* *(address + offset) -= d * fpair on the lanes of pg (distinct addresses). */
static inline void subtract_at(svbool_t pg, svuint64_t address, size_t offset, svfloat64_t d,
                               svfloat64_t fpair)
{
    const svfloat64_t old = mdpd_load(pg, address, offset);
    svst1_scatter_u64base_offset_f64(pg, address, (int64_t)offset, svmls_f64_x(pg, old, d, fpair));
}

/* a[index] += add on the lanes of pg (distinct indices). */
static inline void scatter_add(svbool_t pg, double *a, svint64_t index, svfloat64_t add)
{
    svst1_scatter_s64index_f64(
        pg, a, index, svadd_f64_x(pg, svld1_gather_s64index_f64(pg, a, index), add));
}

/* Noise drawn ahead, in the order the force loop takes the pairs: row by row, each row's
 * pairs in cache order. A row that does not fit is split after a multiple of svcntd() pairs,
 * so that every vector of pairs the force loop takes is drawn whole. */
enum { NOISE_AHEAD = 512 };
typedef struct {
    uint32_t tag_i[NOISE_AHEAD], tag_j[NOISE_AHEAD];
    double xi[NOISE_AHEAD];
    int row;               /* the next row to draw from, at pair `offset` of it */
    int64_t offset;
} noise_stream;

/* Refill an exhausted stream from its position up to row `end`; returns the pairs drawn. */
static int64_t draw_ahead(noise_stream *s, const pk_mdpd_force_pass *pass, int end)
{
    const pk_mdpd *m = pass->m;
    const size_t *start = m->pair_start.data;
    const int *count = m->pair_count.data, *pj = m->pair_j.data, *ilist = pass->list->ilist;
    const uint32_t *tag = (const uint32_t *)pass->atoms->tag;
    const int64_t nw = (int64_t)svcntw(), nd = (int64_t)svcntd();
    int64_t fill = 0;
    for (; s->row < end; s->row++, s->offset = 0) {
        const int64_t left = count[s->row] - s->offset, space = NOISE_AHEAD - fill;
        const int64_t take = left <= space ? left : space / nd * nd;
        const int *jraw = pj + start[s->row] + s->offset;
        const svuint32_t tag_i = svdup_n_u32(tag[ilist[s->row]]);
        for (int64_t q = 0; q < take; q += nw) {
            const svbool_t pg = svwhilelt_b32_s64(q, take);
            const svint32_t j = svand_n_s32_x(pg, svld1_s32(pg, jraw + q), PK_NEIGHMASK);
            svst1_u32(pg, s->tag_j + fill + q, svld1_gather_s32index_u32(pg, tag, j));
            svst1_u32(pg, s->tag_i + fill + q, tag_i);
        }
        fill += take;
        if (take < left) {   /* the rest of this row in the next refill */
            s->offset += take;
            break;
        }
    }
    pk_mdpd_sve_noise_array(pass->key, s->tag_i, s->tag_j, fill, s->xi);
    return fill;
}

/* The rows of this thread; `tally` adds energy, virial and the per-atom quantities asked
 * for, as tally() of the cpu kernel; `noisy` draws the random force, `newton` adds to
 * ghosts' forces too. Constants where called, for the steps without tallies. */
static inline __attribute__((always_inline)) void force_rows(const pk_mdpd_force_pass *pass,
                                                             pk_mdpd_thread_sums *t,
                                                             const int tally,
                                                             const int noisy,
                                                             const int newton)
{
    const pk_mdpd *m = pass->m;
    const pk_neigh *list = pass->list;
    const int nlocal = pass->atoms->nlocal;
    const int want_e = pass->want_e, want_v = pass->want_v;
    const double energy_b = pass->energy_b, dtinvsqrt = pass->dtinvsqrt;
    const double *special = pass->special;
    const int stride = m->ntypes + 1;
    const double *restrict x = &pass->atoms->x[0][0];
    const double *restrict v = &pass->atoms->v[0][0];
    const int *restrict type = pass->atoms->type;
    const double *restrict rho = pass->rho;
    const size_t *restrict start = m->pair_start.data;
    const int *restrict count = m->pair_count.data;
    const int *restrict pj = m->pair_j.data;
    const double *restrict pr = m->pair_r.data;
    double *restrict f = t->f, *restrict eatom = t->eatom, *restrict vatom = t->vatom;
    const uint64_t nd = svcntd();
    const svbool_t all = svptrue_b64();
    const svfloat64_t zero = svdup_f64(0.0);
    /* energy and virial of this thread's pairs, lane by lane */
    svfloat64_t ev0 = zero, ev1 = zero, ev2 = zero, ev3 = zero, ev4 = zero, ev5 = zero,
                ev6 = zero;
    /* this thread's rows, one contiguous share as `omp for schedule(static)` gives: the
     * noise is drawn ahead across the rows of the share */
#ifdef _OPENMP
    const int nthreads = omp_get_num_threads(), tid = omp_get_thread_num();
#else
    const int nthreads = 1, tid = 0;
#endif
    const int first = (int)((int64_t)list->inum * tid / nthreads);
    const int last = (int)((int64_t)list->inum * (tid + 1) / nthreads);
    noise_stream stream;
    stream.row = first;
    stream.offset = 0;
    const double *noise_next = NULL;   /* the next pair's noise in stream.xi, */
    int64_t noise_left = 0;            /* and how many are left there */
    const svfloat64_t one = svdup_f64(1.0);

    for (int ii = first; ii < last; ii++) {
        const int i = list->ilist[ii];
        const double *xp = x + 3 * (ptrdiff_t)i, *vp = v + 3 * (ptrdiff_t)i;
        const svfloat64_t xi = svdup_f64(xp[0]), yi = svdup_f64(xp[1]), zi = svdup_f64(xp[2]);
        const svfloat64_t vxi = svdup_f64(vp[0]), vyi = svdup_f64(vp[1]), vzi = svdup_f64(vp[2]);
        const svfloat64_t rho_i = svdup_f64(rho[i]);
        const pk_mdpd_pair *prow = &m->pair[type[i] * stride];
        /* forces on i and its per-atom tallies, lane by lane */
        svfloat64_t fx = zero, fy = zero, fz = zero;
        svfloat64_t ei = zero, vi0 = zero, vi1 = zero, vi2 = zero, vi3 = zero, vi4 = zero,
                    vi5 = zero;
        const uint64_t end = start[ii] + (uint64_t)count[ii];
        for (uint64_t k = start[ii]; k < end; k += nd) {
            const svbool_t pg = svwhilelt_b64_u64(k, end);
            svfloat64_t noise = zero;
            if (noisy) {
                if (!noise_left) {
                    noise_left = draw_ahead(&stream, pass, last);
                    noise_next = stream.xi;
                }
                noise = svld1_f64(pg, noise_next);
                const int64_t taken = (int64_t)svcntp_b64(pg, pg);
                noise_next += taken;
                noise_left -= taken;
            }
            const svint64_t jraw = svld1sw_s64(pg, pj + k);
            const svfloat64_t r = svld1_f64(pg, pr + k);
            const svint64_t j = svand_n_s64_x(pg, jraw, PK_NEIGHMASK);
            const svuint64_t coef = mdpd_lanes(
                pg, prow, svld1sw_gather_s64index_s64(pg, type, j), sizeof(pk_mdpd_pair));
            const svfloat64_t rc = mdpd_load(pg, coef, offsetof(pk_mdpd_pair, rc));
            const svbool_t act = svcmpge_n_f64(svcmplt_f64(pg, r, rc), r, PK_MDPD_RMIN);

            const svuint64_t xj = mdpd_lanes(act, x, j, 3 * sizeof(double));
            const svuint64_t vj = mdpd_lanes(act, v, j, 3 * sizeof(double));
            const svfloat64_t dx = svsub_f64_x(act, xi, mdpd_load(act, xj, 0));
            const svfloat64_t dy = svsub_f64_x(act, yi, mdpd_load(act, xj, sizeof(double)));
            const svfloat64_t dz = svsub_f64_x(act, zi, mdpd_load(act, xj, 2 * sizeof(double)));
            const svfloat64_t dvx = svsub_f64_x(act, vxi, mdpd_load(act, vj, 0));
            const svfloat64_t dvy = svsub_f64_x(act, vyi, mdpd_load(act, vj, sizeof(double)));
            const svfloat64_t dvz = svsub_f64_x(act, vzi, mdpd_load(act, vj, 2 * sizeof(double)));
            const svfloat64_t rinv = svdiv_f64_x(act, one, r);
            svfloat64_t factor = one;
            if (special) {   /* special[sb] for the pairs with special bits sb != 0 */
                const svint64_t sb = svand_n_s64_x(act, svasr_n_s64_x(act, jraw, PK_SBBITS), 3);
                const svbool_t marked = svcmpne_n_s64(act, sb, 0);
                factor = svsel_f64(marked, svld1_gather_s64index_f64(marked, special, sb), one);
            }
            const svfloat64_t dot = svadd_f64_x(
                act, svadd_f64_x(act, svmul_f64_x(act, dx, dvx), svmul_f64_x(act, dy, dvy)),
                svmul_f64_x(act, dz, dvz));
            const svfloat64_t rho_sum =
                svadd_f64_x(act, rho_i, svld1_gather_s64index_f64(act, rho, j));

            /* pk_mdpd_pair_force, operation by operation */
            const svfloat64_t rd = mdpd_load(act, coef, offsetof(pk_mdpd_pair, rd));
            const svfloat64_t inv_rc = mdpd_load(act, coef, offsetof(pk_mdpd_pair, inv_rc));
            const svfloat64_t inv_rd = mdpd_load(act, coef, offsetof(pk_mdpd_pair, inv_rd));
            const svfloat64_t wc = svsub_f64_x(act, one, svmul_f64_x(act, r, inv_rc));
            const svfloat64_t wd = svsel_f64(svcmplt_f64(act, r, rd),
                                             svsub_f64_x(act, one, svmul_f64_x(act, r, inv_rd)),
                                             zero);
            const svfloat64_t A = mdpd_load(act, coef, offsetof(pk_mdpd_pair, A));
            const svfloat64_t B = mdpd_load(act, coef, offsetof(pk_mdpd_pair, B));
            const svfloat64_t gamma = mdpd_load(act, coef, offsetof(pk_mdpd_pair, gamma));
            const svfloat64_t conservative = svadd_f64_x(
                act, svmul_f64_x(act, A, wc), svmul_f64_x(act, svmul_f64_x(act, B, rho_sum), wd));
            const svfloat64_t dissipative = svmul_f64_x(
                act, svmul_f64_x(act, svmul_f64_x(act, svmul_f64_x(act, gamma, wc), wc), dot),
                rinv);
            svfloat64_t fpair = svsub_f64_x(act, conservative, dissipative);
            if (noisy) {
                const svfloat64_t sigma = mdpd_load(act, coef, offsetof(pk_mdpd_pair, sigma));
                fpair = svadd_f64_x(
                    act, fpair,
                    svmul_f64_x(act, svmul_n_f64_x(act, svmul_f64_x(act, sigma, wc), dtinvsqrt),
                                noise));
            }
            fpair = svmul_f64_x(act, fpair, svmul_f64_x(act, factor, rinv));

            fx = svmla_f64_m(act, fx, dx, fpair);
            fy = svmla_f64_m(act, fy, dy, fpair);
            fz = svmla_f64_m(act, fz, dz, fpair);
            const svbool_t to_j = newton ? act : svcmplt_n_s64(act, j, nlocal);
            const svuint64_t fj = mdpd_lanes(to_j, f, j, 3 * sizeof(double));
            subtract_at(to_j, fj, 0, dx, fpair);
            subtract_at(to_j, fj, sizeof(double), dy, fpair);
            subtract_at(to_j, fj, 2 * sizeof(double), dz, fpair);

            if (tally) {   /* tally() of the cpu kernel */
                const svfloat64_t rcw = svmul_f64_x(
                    act, svmul_f64_x(act, svmul_n_f64_x(act, A, 0.5), rc), wc);
                const svfloat64_t rdw = svmul_f64_x(
                    act,
                    svmul_f64_x(act, svmul_f64_x(act, svmul_n_f64_x(act, B, energy_b), rd),
                                rho_sum),
                    wd);
                const svfloat64_t e = svmul_f64_x(
                    act, factor,
                    svadd_f64_x(act, svmul_f64_x(act, rcw, wc), svmul_f64_x(act, rdw, wd)));
                /* the full value when j is counted here, half for an owned-ghost pair */
                const svfloat64_t w = svsel_f64(to_j, svdup_f64(1.0), svdup_f64(0.5));
                const svfloat64_t v0 = svmul_f64_x(act, svmul_f64_x(act, dx, dx), fpair);
                const svfloat64_t v1 = svmul_f64_x(act, svmul_f64_x(act, dy, dy), fpair);
                const svfloat64_t v2 = svmul_f64_x(act, svmul_f64_x(act, dz, dz), fpair);
                const svfloat64_t v3 = svmul_f64_x(act, svmul_f64_x(act, dx, dy), fpair);
                const svfloat64_t v4 = svmul_f64_x(act, svmul_f64_x(act, dx, dz), fpair);
                const svfloat64_t v5 = svmul_f64_x(act, svmul_f64_x(act, dy, dz), fpair);
                if (want_e) ev0 = svmla_f64_m(act, ev0, w, e);
                if (want_v) {
                    ev1 = svmla_f64_m(act, ev1, w, v0);
                    ev2 = svmla_f64_m(act, ev2, w, v1);
                    ev3 = svmla_f64_m(act, ev3, w, v2);
                    ev4 = svmla_f64_m(act, ev4, w, v3);
                    ev5 = svmla_f64_m(act, ev5, w, v4);
                    ev6 = svmla_f64_m(act, ev6, w, v5);
                }
                if (eatom) {
                    const svfloat64_t half_e = svmul_n_f64_x(act, e, 0.5);
                    ei = svadd_f64_m(act, ei, half_e);
                    scatter_add(to_j, eatom, j, half_e);
                }
                if (vatom) {
                    const svint64_t j6 = svmul_n_s64_x(act, j, 6);
                    const svfloat64_t h0 = svmul_n_f64_x(act, v0, 0.5);
                    const svfloat64_t h1 = svmul_n_f64_x(act, v1, 0.5);
                    const svfloat64_t h2 = svmul_n_f64_x(act, v2, 0.5);
                    const svfloat64_t h3 = svmul_n_f64_x(act, v3, 0.5);
                    const svfloat64_t h4 = svmul_n_f64_x(act, v4, 0.5);
                    const svfloat64_t h5 = svmul_n_f64_x(act, v5, 0.5);
                    vi0 = svadd_f64_m(act, vi0, h0);
                    vi1 = svadd_f64_m(act, vi1, h1);
                    vi2 = svadd_f64_m(act, vi2, h2);
                    vi3 = svadd_f64_m(act, vi3, h3);
                    vi4 = svadd_f64_m(act, vi4, h4);
                    vi5 = svadd_f64_m(act, vi5, h5);
                    scatter_add(to_j, vatom, j6, h0);
                    scatter_add(to_j, vatom + 1, j6, h1);
                    scatter_add(to_j, vatom + 2, j6, h2);
                    scatter_add(to_j, vatom + 3, j6, h3);
                    scatter_add(to_j, vatom + 4, j6, h4);
                    scatter_add(to_j, vatom + 5, j6, h5);
                }
            }
        }
        double *fp = f + 3 * (ptrdiff_t)i;
        fp[0] += svaddv_f64(all, fx);
        fp[1] += svaddv_f64(all, fy);
        fp[2] += svaddv_f64(all, fz);
        if (tally && eatom) eatom[i] += svaddv_f64(all, ei);
        if (tally && vatom) {
            vatom[6 * i] += svaddv_f64(all, vi0);
            vatom[6 * i + 1] += svaddv_f64(all, vi1);
            vatom[6 * i + 2] += svaddv_f64(all, vi2);
            vatom[6 * i + 3] += svaddv_f64(all, vi3);
            vatom[6 * i + 4] += svaddv_f64(all, vi4);
            vatom[6 * i + 5] += svaddv_f64(all, vi5);
        }
    }
    if (tally) {
        t->ev[0] += svaddv_f64(all, ev0);
        t->ev[1] += svaddv_f64(all, ev1);
        t->ev[2] += svaddv_f64(all, ev2);
        t->ev[3] += svaddv_f64(all, ev3);
        t->ev[4] += svaddv_f64(all, ev4);
        t->ev[5] += svaddv_f64(all, ev5);
        t->ev[6] += svaddv_f64(all, ev6);
    }
}

void pk_mdpd_sve_force_rows(const pk_mdpd_force_pass *pass, pk_mdpd_thread_sums *t)
{
    const int noisy = pass->m->noisy, newton = pass->newton;
    if (pass->tally_any)
        force_rows(pass, t, 1, noisy, newton);   /* energy steps: one general instance */
    else if (noisy)
        newton ? force_rows(pass, t, 0, 1, 1) : force_rows(pass, t, 0, 1, 0);
    else
        newton ? force_rows(pass, t, 0, 0, 1) : force_rows(pass, t, 0, 0, 0);
}
