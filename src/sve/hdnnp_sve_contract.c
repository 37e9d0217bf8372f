/* Gradients of a weighted sum of symmetry functions in SVE (the sve backend's
 * hdnnp_contract): g[4 n + q] = sum_s c_s dG_s/dx_n,q from what the symmetry-function
 * kernels stored, as the portable hdnnp_contract.c (its comment and hdnnp_kernel.h give A, B
 * and C).
 *
 * An angular group is done in blocks of pairs, in two passes. The first, a plain vector loop,
 * sums the functions' weighted Y into A, B and C and stores per pair the gradient terms
 * dT/dx_j = A a + B b and dT/dx_k = B a + C b. The second adds them to g. Pairs are listed by
 * increasing j, and within one j the k are distinct: the second pass takes runs of pairs that
 * share j (at most a vector, found with BRKB on pj != j), so that the gather-add-scatter of
 * the k terms never meets a repeated index, and the j terms are summed in a vector until j
 * changes. */
#include "hdnnp_sve.h"
#include "hdnnp_sve_math.h"

/* pairs of one block; a multiple of every SVE vector length (at most 32 doubles) */
enum { BLOCK = 256 };

/* Weights of one function of an angular group (compact types: q = c, t = 0) */
typedef struct {
    double q, t, y;       /* c zeta lambda, 2 c eta, c */
    const double *Y, *D;  /* the function's per-pair arrays (D: compact types only) */
} fn_weights;

/* Gradient terms of one block's pairs [p0, p1) of a group into fj, fk (x, y, z each BLOCK
 * apart), index 0 = pair p0. */
static inline __attribute__((always_inline)) void
block_terms(const hdnnp_scratch *s, const hdnnp_pairs *pr, double rs, const fn_weights *wf,
            int nsf, int npos, int p0, int p1, double *fj, double *fk, const int compact)
{
    const hdnnp_env *e = &s->env;
    const size_t np = (size_t)pr->n;
    const double *d = s->coef + pr->coef;
    const double *cos = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    const double *IB = d + HDNNP_PAIR_IB * np, *UC = d + HDNNP_PAIR_UC * np;
    const double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    const double *GC = d + HDNNP_PAIR_GC * np, *BX = d + HDNNP_PAIR_BX * np;
    const double *BY = d + HDNNP_PAIR_BY * np, *BZ = d + HDNNP_PAIR_BZ * np;
    const int32_t *pj = s->pj + pr->off;
    const int vl = (int)svcntd();
    const svfloat64_t zero = svdup_n_f64(0.0);
    for (int p = p0; p < p1; p += vl) {
        const svbool_t pg = svwhilelt_b64(p, p1);
        const svfloat64_t cs = svld1_f64(pg, cos + p);
        /* u = sum c dT/dcos / F, v = sum 2 c eta T / F, w = sum c T / F */
        svfloat64_t u = zero, v = zero, w = zero;
        if (compact) {
            for (int k = 0; k < nsf; k++) {
                u = svmla_n_f64_x(pg, u, svld1_f64(pg, wf[k].D + p), wf[k].q);
                w = svmla_n_f64_x(pg, w, svld1_f64(pg, wf[k].Y + p), wf[k].y);
            }
        } else {
            /* lambda = +1 first, then -1: P = 1 +- cos multiplies the partial sums */
            svfloat64_t vp = zero, wp = zero, vm = zero, wm = zero;
            for (int k = 0; k < npos; k++) {
                const svfloat64_t y = svld1_f64(pg, wf[k].Y + p);
                u = svmla_n_f64_x(pg, u, y, wf[k].q);
                vp = svmla_n_f64_x(pg, vp, y, wf[k].t);
                wp = svmla_n_f64_x(pg, wp, y, wf[k].y);
            }
            for (int k = npos; k < nsf; k++) {
                const svfloat64_t y = svld1_f64(pg, wf[k].Y + p);
                u = svmla_n_f64_x(pg, u, y, wf[k].q);
                vm = svmla_n_f64_x(pg, vm, y, wf[k].t);
                wm = svmla_n_f64_x(pg, wm, y, wf[k].y);
            }
            const svfloat64_t pp = svadd_n_f64_x(pg, cs, 1.0), pm = svsubr_n_f64_x(pg, cs, 1.0);
            v = sve_fma(pg, svmul_f64_x(pg, pp, vp), pm, vm);
            w = sve_fma(pg, svmul_f64_x(pg, pp, wp), pm, wm);
        }
        const svint64_t jv = svld1sw_s64(pg, pj + p);
        const svfloat64_t ax = svld1_gather_s64index_f64(pg, e->x, jv);
        const svfloat64_t ay = svld1_gather_s64index_f64(pg, e->y, jv);
        const svfloat64_t az = svld1_gather_s64index_f64(pg, e->z, jv);
        const svfloat64_t ia = svld1_gather_s64index_f64(pg, e->rinv, jv);
        const svfloat64_t f = svld1_f64(pg, F + p), q = svmul_f64_x(pg, f, u);
        const svfloat64_t ib = svld1_f64(pg, IB + p), qc = svmul_f64_x(pg, q, cs);
        /* A = -q cos/r_a^2 + w GA, B = q/(r_a r_b) - w GC, C = -q cos/r_b^2 + w GB */
        svfloat64_t A = svmls_f64_x(pg, svmul_f64_x(pg, w, svld1_f64(pg, GA + p)), qc,
                                    svmul_f64_x(pg, ia, ia));
        svfloat64_t B = svmls_f64_x(pg, svmul_f64_x(pg, q, svmul_f64_x(pg, ia, ib)), w,
                                    svld1_f64(pg, GC + p));
        svfloat64_t C = svmls_f64_x(pg, svmul_f64_x(pg, w, svld1_f64(pg, GB + p)), qc,
                                    svmul_f64_x(pg, ib, ib));
        if (!compact) {   /* the exponential's terms: T2 = 2 eta T summed, U factors */
            const svfloat64_t T2 = svmul_f64_x(pg, f, v), uc = svld1_f64(pg, UC + p);
            const svfloat64_t ua = svadd_f64_x(pg, sve_fman(pg, 1.0, ia, -rs), uc);
            const svfloat64_t ub = svadd_f64_x(pg, sve_fman(pg, 1.0, ib, -rs), uc);
            A = svmls_f64_x(pg, A, T2, ua);
            B = sve_fma(pg, B, T2, uc);
            C = svmls_f64_x(pg, C, T2, ub);
        }
        const svfloat64_t bx = svld1_f64(pg, BX + p), by = svld1_f64(pg, BY + p);
        const svfloat64_t bz = svld1_f64(pg, BZ + p);
        const int o = p - p0;
        svst1_f64(pg, fj + o, sve_fma(pg, svmul_f64_x(pg, A, ax), B, bx));
        svst1_f64(pg, fj + BLOCK + o, sve_fma(pg, svmul_f64_x(pg, A, ay), B, by));
        svst1_f64(pg, fj + 2 * BLOCK + o, sve_fma(pg, svmul_f64_x(pg, A, az), B, bz));
        svst1_f64(pg, fk + o, sve_fma(pg, svmul_f64_x(pg, B, ax), C, bx));
        svst1_f64(pg, fk + BLOCK + o, sve_fma(pg, svmul_f64_x(pg, B, ay), C, by));
        svst1_f64(pg, fk + 2 * BLOCK + o, sve_fma(pg, svmul_f64_x(pg, B, az), C, bz));
    }
}

/* The j sums of the current j (svaddv of each component) into g */
static inline __attribute__((always_inline)) void
flush_j(double *g, int j, svfloat64_t sx, svfloat64_t sy, svfloat64_t sz)
{
    const svbool_t all = svptrue_b64();
    double *gj = g + 4 * (size_t)j;
    gj[0] += svaddv_f64(all, sx);
    gj[1] += svaddv_f64(all, sy);
    gj[2] += svaddv_f64(all, sz);
}

static inline __attribute__((always_inline)) void
contract_group(const hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
               const hdnnp_pairs *pr, const double *c, double *g, fn_weights *wf,
               const int compact)
{
    const size_t np = (size_t)pr->n;
    const int nsf = grp->nsf, n = pr->nreal;
    const double *Y = s->coef + pr->coef + HDNNP_PAIR_N * np;
    int nw = 0, npos = 0;   /* functions with lambda = 1: wf[0..npos) */
    for (int pass = 0; pass < (compact ? 1 : 2); pass++) {
        for (int m = 0; m < nsf; m++) {
            const hdnnp_sf *sf = &el->sf[grp->sf[m]];
            if (!compact && (sf->lambda > 0.0) != (pass == 0)) continue;
            const double cs = c[grp->sf[m]];
            fn_weights *w = &wf[nw++];
            w->q = compact ? cs : cs * sf->zeta * sf->lambda;
            w->t = cs * 2.0 * sf->eta;
            w->y = cs;
            w->Y = Y + (size_t)m * np;
            w->D = compact ? Y + (size_t)(nsf + m) * np : NULL;
        }
        if (pass == 0) npos = nw;
    }
    const int32_t *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    double fj[3 * BLOCK], fk[3 * BLOCK];
    const svfloat64_t zero = svdup_n_f64(0.0);
    svfloat64_t sx = zero, sy = zero, sz = zero;   /* j terms of the current j */
    int cur = pj[0];
    for (int b0 = 0; b0 < n; b0 += BLOCK) {
        const int b1 = b0 + BLOCK < n ? b0 + BLOCK : n;
        block_terms(s, pr, grp->rs, wf, nsf, npos, b0, b1, fj, fk, compact);
        for (int p = b0; p < b1;) {
            const svbool_t pg = svwhilelt_b64(p, b1);
            const int j = pj[p];
            /* run: the leading lanes whose pair has this j */
            const svbool_t run =
                svbrkb_b_z(pg, svcmpne_n_s64(pg, svld1sw_s64(pg, pj + p), j));
            const int o = p - b0;
            const svint64_t k4 = svlsl_n_s64_x(run, svld1sw_s64(run, pk + p), 2);   /* 4 k */
            for (int q = 0; q < 3; q++) {
                const svfloat64_t gk = svld1_gather_s64index_f64(run, g + q, k4);
                svst1_scatter_s64index_f64(run, g + q, k4,
                                           svadd_f64_x(run, gk, svld1_f64(run, fk + q * BLOCK + o)));
            }
            if (j != cur) {
                flush_j(g, cur, sx, sy, sz);
                sx = sy = sz = zero;
                cur = j;
            }
            sx = svadd_f64_m(run, sx, svld1_f64(run, fj + o));
            sy = svadd_f64_m(run, sy, svld1_f64(run, fj + BLOCK + o));
            sz = svadd_f64_m(run, sz, svld1_f64(run, fj + 2 * BLOCK + o));
            p += (int)svcntp_b64(pg, run);
        }
    }
    flush_j(g, cur, sx, sy, sz);
}

void hdnnp_sve_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c, double *g)
{
    const hdnnp_env *e = &s->env;
    const int n = e->n, vl = (int)svcntd();
    const size_t cap = (size_t)s->cap;

    /* radial: dG_s/dx_n = d_s(n) (x_n - x_i); w(n) = sum_s c_s d_s(n) */
    double *w = s->t;   /* the pair temporaries are free once the symmetry functions are done */
    for (int q = 0; q < n; q += vl) svst1_f64(svwhilelt_b64(q, n), w + q, svdup_n_f64(0.0));
    for (int g0 = 0; g0 < el->nradial; g0++) {
        const hdnnp_group *grp = &el->radial[g0];
        int n0, n1;
        hdnnp_group_range(e, grp->e1, &n0, &n1);
        for (int m = 0; m < grp->nsf; m++) {
            const double cs = c[grp->sf[m]], *d = s->rcoef + (size_t)grp->sf[m] * cap;
            for (int q = n0; q < n1; q += vl) {
                const svbool_t pg = svwhilelt_b64(q, n1);
                svst1_f64(pg, w + q, svmla_n_f64_x(pg, svld1_f64(pg, w + q), svld1_f64(pg, d + q), cs));
            }
        }
    }
    for (int q = 0; q < n; q += vl) {   /* g[4 q ..] = (w x, w y, w z, 0), interleaved */
        const svbool_t pg = svwhilelt_b64(q, n);
        const svfloat64_t wq = svld1_f64(pg, w + q);
        svst4_f64(pg, g + 4 * (size_t)q,
                  svcreate4_f64(svmul_f64_x(pg, wq, svld1_f64(pg, e->x + q)),
                                svmul_f64_x(pg, wq, svld1_f64(pg, e->y + q)),
                                svmul_f64_x(pg, wq, svld1_f64(pg, e->z + q)), svdup_n_f64(0.0)));
    }

    /* angular */
    _Static_assert(sizeof(fn_weights) <= HDNNP_FN_WEIGHTS_BYTES, "scratch for the weights");
    fn_weights *wf = s->wts_buf.data;
    for (int g0 = 0; g0 < el->nangular; g0++) {
        const hdnnp_group *grp = &el->angular[g0];
        const hdnnp_pairs *pr = &s->grp[g0];
        if (pr->nreal == 0) continue;
        if (hdnnp_type_compact(grp->type)) contract_group(s, el, grp, pr, c, g, wf, 1);
        else contract_group(s, el, grp, pr, c, g, wf, 0);
    }
}
