/* mdpd/pk's density pass in SVE: pk_mdpd_cpu_density_rows (src/mdpd/mdpd_density.c) with
 * one neighbour per 64-bit lane. The pairs within cutoff are packed into the pair cache with
 * COMPACT, in list order, so the cache (indices and distances, bit for bit) is the cpu
 * kernel's and the force pass sees the same pairs. A row's neighbours are distinct atoms,
 * so the gather-add-scatter of what they receive has no two lanes on one address. */
#include <arm_sve.h>
#include <stddef.h>
#include <stdint.h>

#include "mdpd_internal.h"
#include "mdpd_sve_lanes.h"

/* The rows of this thread; `lucy` and `newton` are constants where called. */
static inline __attribute__((always_inline)) void density_rows(
    const pk_mdpd_density_pass *pass, double *restrict acc, const int lucy, const int newton)
{
    pk_mdpd *m = pass->m;
    const pk_neigh *list = pass->list;
    const int nlocal = pass->atoms->nlocal;
    const int stride = m->ntypes + 1;
    const double *x = &pass->atoms->x[0][0];
    const int *restrict type = pass->atoms->type;
    const double *restrict rmass = pass->atoms->rmass, *restrict tmass = pass->atoms->mass;
    const size_t *restrict start = m->pair_start.data;
    int *restrict count = m->pair_count.data;
    int *restrict pj = m->pair_j.data;
    double *restrict pr = m->pair_r.data;
    const int64_t lanes = (int64_t)svcntd();
    const double warren_c = 15.0 / (2.0 * PK_PI), lucy_c = 105.0 / (16.0 * PK_PI);

#pragma omp for schedule(static)
    for (int ii = 0; ii < list->inum; ii++) {
        const int i = list->ilist[ii];
        const double *xp = x + 3 * (ptrdiff_t)i;
        const svfloat64_t xi = svdup_f64(xp[0]), yi = svdup_f64(xp[1]), zi = svdup_f64(xp[2]);
        const pk_mdpd_pair *prow = &m->pair[type[i] * stride];
        const double mi = lucy ? (rmass ? rmass[i] : tmass[type[i]]) : 1.0;
        const int *jlist = list->firstneigh[i];
        const int64_t jnum = list->numneigh[i];
        size_t slot = start[ii];
        svfloat64_t rho_i = svdup_f64(0.0);
        for (int64_t jj = 0; jj < jnum; jj += lanes) {
            const svbool_t pg = svwhilelt_b64_s64(jj, jnum);
            const svint64_t jraw = svld1sw_s64(pg, jlist + jj);
            const svint64_t j = svand_n_s64_x(pg, jraw, PK_NEIGHMASK);
            /* rsq in the scalar's order, unfused: the same r bit for bit */
            const svuint64_t xj = mdpd_lanes(pg, x, j, 3 * sizeof(double));
            const svfloat64_t dx = svsub_f64_x(pg, xi, mdpd_load(pg, xj, 0));
            const svfloat64_t dy = svsub_f64_x(pg, yi, mdpd_load(pg, xj, sizeof(double)));
            const svfloat64_t dz = svsub_f64_x(pg, zi, mdpd_load(pg, xj, 2 * sizeof(double)));
            const svfloat64_t rsq = svadd_f64_x(
                pg, svadd_f64_x(pg, svmul_f64_x(pg, dx, dx), svmul_f64_x(pg, dy, dy)),
                svmul_f64_x(pg, dz, dz));
            const svint64_t tj = svld1sw_gather_s64index_s64(pg, type, j);
            const svuint64_t coef = mdpd_lanes(pg, prow, tj, sizeof(pk_mdpd_pair));
            const svfloat64_t cutsq = mdpd_load(pg, coef, offsetof(pk_mdpd_pair, cutsq));
            const svbool_t kept = svcmplt_f64(pg, rsq, cutsq);
            const svfloat64_t r = svsqrt_f64_x(kept, rsq);

            const uint64_t nkept = svcntp_b64(pg, kept);
            const svbool_t store = svwhilelt_b64_u64(0, nkept);
            svst1w_s64(store, pj + slot, svcompact_s64(kept, jraw));
            svst1_f64(store, pr + slot, svcompact_f64(kept, r));
            slot += nkept;

            const svfloat64_t inv_h = mdpd_load(kept, coef, offsetof(pk_mdpd_pair, inv_h));
            const svfloat64_t h = mdpd_load(kept, coef, offsetof(pk_mdpd_pair, h));
            const svbool_t in = svcmplt_f64(kept, r, h);
            /* pk_mdpd_warren / pk_mdpd_lucy, same order of operations */
            const svfloat64_t u = svsubr_n_f64_x(in, svmul_f64_x(in, r, inv_h), 1.0);
            svfloat64_t w, wi, wj;
            if (lucy) {
                w = svmul_n_f64_x(in, inv_h, lucy_c);
                w = svmul_f64_x(in, svmul_f64_x(in, w, inv_h), inv_h);
                const svfloat64_t near =
                    svadd_n_f64_x(in, svmul_f64_x(in, svmul_n_f64_x(in, r, 3.0), inv_h), 1.0);
                w = svmul_f64_x(in, svmul_f64_x(in, w, near), u);
                w = svmul_f64_x(in, svmul_f64_x(in, w, u), u);
                const svfloat64_t mj = rmass ? svld1_gather_s64index_f64(in, rmass, j)
                                             : svld1_gather_s64index_f64(in, tmass, tj);
                wi = svmul_f64_x(in, mj, w);
                wj = svmul_n_f64_x(in, w, mi);
            } else {
                w = svmul_n_f64_x(in, inv_h, warren_c);
                w = svmul_f64_x(in, svmul_f64_x(in, w, inv_h), inv_h);
                wi = wj = svmul_f64_x(in, svmul_f64_x(in, w, u), u);
            }
            rho_i = svadd_f64_m(in, rho_i, wi);
            const svbool_t to_j = newton ? in : svcmplt_n_s64(in, j, nlocal);
            svst1_scatter_s64index_f64(
                to_j, acc, j, svadd_f64_x(to_j, svld1_gather_s64index_f64(to_j, acc, j), wj));
        }
        count[ii] = (int)(slot - start[ii]);
        acc[i] += svaddv_f64(svptrue_b64(), rho_i);
    }
}

void pk_mdpd_sve_density_rows(const pk_mdpd_density_pass *pass, double *restrict acc)
{
    if (pass->lucy)
        pass->newton ? density_rows(pass, acc, 1, 1) : density_rows(pass, acc, 1, 0);
    else
        pass->newton ? density_rows(pass, acc, 0, 1) : density_rows(pass, acc, 0, 0);
}
