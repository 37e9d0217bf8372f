/* Symmetry functions of one atomic environment in SVE (the sve backend's hdnnp_symfuncs):
 * the same groups, pair lists, formulas and stored coefficients as the portable
 * hdnnp_symfunc.c (its header comment derives them), one vector of svcntd() neighbours or
 * pairs at a time with a predicated tail. The portable part reused: the buffer layout
 * (hdnnp_symfuncs_layout, given the SVE pair lister) and the compact angular groups (types
 * 21-25, hdnnp_angular_group).
 * The padding pairs of a group get zero weight as in the portable code, so either
 * contraction can follow. */
#include <math.h>

#include "hdnnp_sve.h"
#include "hdnnp_sve_math.h"

/* Per-pair temporaries of a non-compact angular group in s->t, tcap doubles each: S (the
 * exponent's sum of squares), P^(zeta-1) for exponents computed by pow, then the group's
 * exponential slots. */
enum { T_S, T_PW, T_SLOTS };

/* exp(-eta S[k]) of every exponential slot of a group for k in [0, n): slot q at
 * E + q stride (direct slots by sve_exp, the others as products of earlier slots) */
static void group_exps(const hdnnp_group *grp, const double *S, double *E, size_t stride, int n)
{
    const int vl = (int)svcntd();
    for (int q = 0; q < grp->nslot; q++) {
        double *Eq = E + (size_t)q * stride;
        if (grp->op_a[q] < 0) {
            const double meta = -grp->slot_eta[q];
            for (int k = 0; k < n; k += vl) {
                const svbool_t pg = svwhilelt_b64(k, n);
                svst1_f64(pg, Eq + k, sve_exp(pg, svmul_n_f64_x(pg, svld1_f64(pg, S + k), meta)));
            }
            continue;
        }
        const double *A = E + (size_t)grp->op_a[q] * stride, *B = E + (size_t)grp->op_b[q] * stride;
        for (int k = 0; k < n; k += vl) {
            const svbool_t pg = svwhilelt_b64(k, n);
            svst1_f64(pg, Eq + k, svmul_f64_x(pg, svld1_f64(pg, A + k), svld1_f64(pg, B + k)));
        }
    }
}

/* f_c and f_c' of every cutoff slot for the n neighbours */
static void cutoff_values(hdnnp_scratch *s, const hdnnp_element *el)
{
    const int n = s->env.n, vl = (int)svcntd();
    const size_t cap = (size_t)s->cap;
    for (int c = 0; c < el->ncut; c++) {
        double *f = s->fc + c * cap, *df = s->dfc + c * cap;
        for (int k = 0; k < n; k += vl) {
            const svbool_t pg = svwhilelt_b64(k, n);
            svfloat64_t fv, dv;
            sve_cutoff_fdf(pg, &el->cut[c], svld1_f64(pg, s->env.r + k), &fv, &dv);
            svst1_f64(pg, f + k, fv);
            svst1_f64(pg, df + k, dv);
        }
    }
}

/* Contributing pairs of an angular group (hdnnp_list_pairs_fn): for each j, the candidates k
 * a vector at a time, those inside the cutoffs packed to the front (COMPACT) and stored with
 * their count, so the list is the portable one, pair for pair. */
static inline __attribute__((always_inline)) void
list_pairs_impl(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
                hdnnp_pairs *pr, const int compact)
{
    const hdnnp_env *e = &s->env;
    const hdnnp_pair_window w = hdnnp_pair_window_of(e, el, grp, compact);
    const double rcut = w.rcut, rcut2 = w.rcut2, rlo = w.rlo, rlo2 = w.rlo2;
    const int narrow = w.narrow, same = w.same, test_r = w.test_r;
    const int j0 = w.j0, j1 = w.j1, k0 = w.k0, k1 = w.k1;
    const int vl = (int)svcntd();
    int32_t *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    int n = 0;
    for (int j = j0; j < j1; j++) {
        if (e->r[j] >= rcut || e->r[j] <= rlo) continue;
        const double ax = e->x[j], ay = e->y[j], az = e->z[j];
        for (int k = same ? j + 1 : k0; k < k1; k += vl) {
            const svbool_t pg = svwhilelt_b64(k, k1);
            const svfloat64_t cx = svsub_n_f64_x(pg, svld1_f64(pg, e->x + k), ax);
            const svfloat64_t cy = svsub_n_f64_x(pg, svld1_f64(pg, e->y + k), ay);
            const svfloat64_t cz = svsub_n_f64_x(pg, svld1_f64(pg, e->z + k), az);
            const svfloat64_t rb = svld1_f64(pg, e->r + k);
            const svfloat64_t d2 = sve_fma(pg, sve_fma(pg, svmul_f64_x(pg, cx, cx), cy, cy), cz, cz);
            svbool_t in = pg;
            if (test_r) in = svcmplt_n_f64(in, rb, rcut);
            if (narrow) in = svcmplt_n_f64(in, d2, rcut2);
            if (compact) in = svcmpgt_n_f64(in, rb, rlo);
            if (compact && narrow) in = svcmpgt_n_f64(in, d2, rlo2);
            const int kept = (int)svcntp_b64(pg, in);
            const svbool_t out = svwhilelt_b64(0, kept);
            svst1w_s64(out, pk + n, svcompact_s64(in, svindex_s64(k, 1)));
            svst1w_s64(out, pj + n, svdup_n_s64(j));
            n += kept;
        }
    }
    hdnnp_pairs_pad(pj, pk, n, pr);
}

static void list_pairs(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
                       hdnnp_pairs *pr)
{
    if (hdnnp_type_compact(grp->type)) list_pairs_impl(s, el, grp, pr, 1);
    else list_pairs_impl(s, el, grp, pr, 0);
}

/* One radial group: G_s = sum_n w_n E_s(n) fc(r_n) and the gradient coefficients
 * d_s(n) = w_n (fc'(r_n) - 2 eta (r_n - rs) fc(r_n)) E_s(n) / r_n, E_s = exp(-eta (r - rs)^2) */
static void radial_group(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap;
    const int vl = (int)svcntd(), weighted = hdnnp_type_weighted(grp->type);
    int n0, n1;
    hdnnp_group_range(e, grp->e1, &n0, &n1);
    const int nn = n1 - n0;
    const double *r = e->r + n0, *rinv = e->rinv + n0, *wz = e->wz + n0;
    const double *fc = s->fc + grp->cut * cap + n0, *dfc = s->dfc + grp->cut * cap + n0;
    const double rs = grp->rs;
    double *S = s->t, *E = S + cap;   /* (r - rs)^2, then the exponential slots */
    for (int n = 0; n < nn; n += vl) {
        const svbool_t pg = svwhilelt_b64(n, nn);
        const svfloat64_t dr = svsub_n_f64_x(pg, svld1_f64(pg, r + n), rs);
        svst1_f64(pg, S + n, svmul_f64_x(pg, dr, dr));
    }
    group_exps(grp, S, E, cap, nn);
    for (int m = 0; m < grp->nsf; m++) {
        const int isf = grp->sf[m];
        const double m2eta = -2.0 * el->sf[isf].eta, *Em = E + (size_t)grp->sf_slot[m] * cap;
        double *d = s->rcoef + (size_t)isf * cap + n0;
        svfloat64_t acc = svdup_n_f64(0.0);
        for (int n = 0; n < nn; n += vl) {
            const svbool_t pg = svwhilelt_b64(n, nn);
            const svfloat64_t dr = svsub_n_f64_x(pg, svld1_f64(pg, r + n), rs);
            svfloat64_t t = svld1_f64(pg, Em + n);
            if (weighted) t = svmul_f64_x(pg, svld1_f64(pg, wz + n), t);
            const svfloat64_t f = svld1_f64(pg, fc + n);
            acc = svmla_f64_m(pg, acc, t, f);
            /* (fc' - 2 eta dr fc) t / r */
            const svfloat64_t g = sve_fma(pg, svld1_f64(pg, dfc + n), svmul_n_f64_x(pg, dr, m2eta), f);
            svst1_f64(pg, d + n, svmul_f64_x(pg, svmul_f64_x(pg, g, t), svld1_f64(pg, rinv + n)));
        }
        s->G[isf] = svaddv_f64(svptrue_b64(), acc);
    }
}

/* Pair factors of a non-compact angular group (hdnnp_kernel.h, HDNNP_PAIR_*), S and the
 * exponentials of its slots, for its pairs (padding included). a = x_j - x_i, b = x_k - x_i. */
static inline __attribute__((always_inline)) void
pair_data(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
          const hdnnp_pairs *pr, const int narrow, const int weighted)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap, tc = s->tcap, np = (size_t)pr->n;
    const hdnnp_cutoff *cut = &el->cut[grp->cut];
    const double *fc = s->fc + grp->cut * cap, *dfc = s->dfc + grp->cut * cap;
    const int32_t *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    const int n = pr->n, nreal = pr->nreal, vl = (int)svcntd();
    const double rs = grp->rs;
    double *d = s->coef + pr->coef;
    double *cs = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    double *IB = d + HDNNP_PAIR_IB * np, *UC = d + HDNNP_PAIR_UC * np;
    double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    double *GC = d + HDNNP_PAIR_GC * np;
    double *BX = d + HDNNP_PAIR_BX * np, *BY = d + HDNNP_PAIR_BY * np, *BZ = d + HDNNP_PAIR_BZ * np;
    double *Sv = s->t + T_S * tc;
    const svfloat64_t zero = svdup_n_f64(0.0);
    for (int p = 0; p < n; p += vl) {
        const svbool_t pg = svwhilelt_b64(p, n), real = svwhilelt_b64(p, nreal);
        const svint64_t jv = svld1sw_s64(pg, pj + p), kv = svld1sw_s64(pg, pk + p);
        const svfloat64_t ax = svld1_gather_s64index_f64(pg, e->x, jv);
        const svfloat64_t ay = svld1_gather_s64index_f64(pg, e->y, jv);
        const svfloat64_t az = svld1_gather_s64index_f64(pg, e->z, jv);
        const svfloat64_t ia = svld1_gather_s64index_f64(pg, e->rinv, jv);
        const svfloat64_t fa = svld1_gather_s64index_f64(pg, fc, jv);
        const svfloat64_t ga = svmul_f64_x(pg, svld1_gather_s64index_f64(pg, dfc, jv), ia);
        const svfloat64_t da = svsub_n_f64_x(pg, svld1_gather_s64index_f64(pg, e->r, jv), rs);
        const svfloat64_t bx = svld1_gather_s64index_f64(pg, e->x, kv);
        const svfloat64_t by = svld1_gather_s64index_f64(pg, e->y, kv);
        const svfloat64_t bz = svld1_gather_s64index_f64(pg, e->z, kv);
        const svfloat64_t ib = svld1_gather_s64index_f64(pg, e->rinv, kv);
        const svfloat64_t fb = svld1_gather_s64index_f64(pg, fc, kv);
        const svfloat64_t gb = svmul_f64_x(pg, svld1_gather_s64index_f64(pg, dfc, kv), ib);
        const svfloat64_t db = svsub_n_f64_x(pg, svld1_gather_s64index_f64(pg, e->r, kv), rs);
        svst1_f64(pg, BX + p, bx);
        svst1_f64(pg, BY + p, by);
        svst1_f64(pg, BZ + p, bz);
        /* cos = a.b / (r_a r_b) */
        const svfloat64_t dot = sve_fma(pg, sve_fma(pg, svmul_f64_x(pg, ax, bx), ay, by), az, bz);
        svst1_f64(pg, cs + p, svmul_f64_x(pg, dot, svmul_f64_x(pg, ia, ib)));
        svst1_f64(pg, IB + p, ib);
        /* w fc_a and w fc_a'/r_a, w = 0 for the padding */
        svfloat64_t fw = svsel_f64(real, fa, zero), gw = svsel_f64(real, ga, zero);
        if (weighted) {
            const svfloat64_t w = svmul_f64_z(real, svld1_gather_s64index_f64(pg, e->wz, jv),
                                              svld1_gather_s64index_f64(pg, e->wz, kv));
            fw = svmul_f64_x(pg, w, fa);
            gw = svmul_f64_x(pg, w, ga);
        }
        svfloat64_t f = svmul_f64_x(pg, fw, fb), gA = svmul_f64_x(pg, gw, fb);
        svfloat64_t gB = svmul_f64_x(pg, fw, gb), gC = zero, uC = zero;
        svfloat64_t S = sve_fma(pg, svmul_f64_x(pg, da, da), db, db);
        if (narrow) {   /* the factor fc(r_jk); gamma's terms folded into A, B and C */
            const svfloat64_t cx = svsub_f64_x(pg, bx, ax), cy = svsub_f64_x(pg, by, ay);
            const svfloat64_t cz = svsub_f64_x(pg, bz, az);
            const svfloat64_t rc = svsqrt_f64_x(
                pg, sve_fma(pg, sve_fma(pg, svmul_f64_x(pg, cx, cx), cy, cy), cz, cz));
            const svfloat64_t ic = svdivr_n_f64_x(pg, rc, 1.0);
            svfloat64_t fcc, dfcc;
            sve_cutoff_fdf(pg, cut, rc, &fcc, &dfcc);
            gC = svmul_f64_x(pg, svmul_f64_x(pg, f, dfcc), ic);
            uC = sve_fman(pg, 1.0, ic, -rs);   /* (r - rs) / r */
            f = svmul_f64_x(pg, f, fcc);
            gA = sve_fma(pg, gC, gA, fcc);
            gB = sve_fma(pg, gC, gB, fcc);
            const svfloat64_t dc = svsub_n_f64_x(pg, rc, rs);
            S = sve_fma(pg, S, dc, dc);
        }
        svst1_f64(pg, F + p, f);
        svst1_f64(pg, GA + p, gA);
        svst1_f64(pg, GB + p, gB);
        svst1_f64(pg, GC + p, gC);
        svst1_f64(pg, UC + p, uC);
        svst1_f64(pg, Sv + p, S);
    }
    group_exps(grp, Sv, s->t + T_SLOTS * tc, tc, n);
}

/* One angular function over the n pairs of its group: returns G = sum Y F P and stores
 * Y = 2^(1-zeta) E P^(zeta-1) (0 where P = 1 + lambda cos <= 0). m = zeta - 1 is a
 * compile-time constant for small integers; m < 0 reads the powers from pw. */
static inline __attribute__((always_inline)) double
angular_sf(int n, const double *cs, const double *F, const double *Ex, const double *pw,
           double *Y, double lam, double norm, const int m)
{
    const int vl = (int)svcntd();
    svfloat64_t acc = svdup_n_f64(0.0);
    for (int p = 0; p < n; p += vl) {
        const svbool_t pg = svwhilelt_b64(p, n);
        const svfloat64_t P = sve_fman(pg, 1.0, svld1_f64(pg, cs + p), lam);
        svfloat64_t pwv = svdup_n_f64(1.0);
        if (m < 0) pwv = svld1_f64(pg, pw + p);
        else if (m > 0) {
            pwv = P;
            for (int r = 1; r < m; r++) pwv = svmul_f64_x(pg, pwv, P);
        }
        const svbool_t pos = svcmpgt_n_f64(pg, P, 0.0);
        const svfloat64_t y = svmul_f64_z(pos, svmul_n_f64_x(pg, svld1_f64(pg, Ex + p), norm), pwv);
        svst1_f64(pg, Y + p, y);
        acc = svmla_f64_m(pg, acc, svmul_f64_x(pg, y, svld1_f64(pg, F + p)), P);
    }
    return svaddv_f64(svptrue_b64(), acc);
}

static inline __attribute__((always_inline)) void
angular_group_impl(hdnnp_scratch *s, const hdnnp_element *el, int g, const int narrow,
                   const int weighted)
{
    const hdnnp_group *grp = &el->angular[g];
    const hdnnp_pairs *pr = &s->grp[g];
    pair_data(s, el, grp, pr, narrow, weighted);
    const size_t np = (size_t)pr->n, tc = s->tcap;
    const int n = pr->n;
    const double *cs = s->coef + pr->coef + HDNNP_PAIR_COS * np;
    const double *F = s->coef + pr->coef + HDNNP_PAIR_F * np;
    double *pw = s->t + T_PW * tc;
    for (int m = 0; m < grp->nsf; m++) {
        const int isf = grp->sf[m];
        const hdnnp_sf *sf = &el->sf[isf];
        const double *Ex = s->t + (T_SLOTS + (size_t)grp->sf_slot[m]) * tc;
        double *Y = s->coef + pr->coef + (HDNNP_PAIR_N + (size_t)m) * np;
        const double lam = sf->lambda, norm = sf->norm;
        const int zm = sf->int_pow && sf->zeta_int <= 5 ? sf->zeta_int - 1 : -1;
        double val;
        switch (zm) {
        case 0: val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, 0); break;
        case 1: val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, 1); break;
        case 2: val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, 2); break;
        case 3: val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, 3); break;
        case 4: val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, 4); break;
        default: {   /* P^(zeta-1) by pow, lane by lane; 0 where P <= 0 */
            const double ex = sf->int_pow ? (double)(sf->zeta_int - 1) : sf->zeta - 1.0;
            for (int p = 0; p < n; p++) {
                const double P = 1.0 + lam * cs[p];
                pw[p] = P > 0.0 ? pow(P, ex) : 0.0;
            }
            val = angular_sf(n, cs, F, Ex, pw, Y, lam, norm, -1);
            break;
        }
        }
        s->G[isf] = val;
    }
}

static void angular_group(hdnnp_scratch *s, const hdnnp_element *el, int g)
{
    switch (el->angular[g].type) {
    case 3: angular_group_impl(s, el, g, 1, 0); break;
    case 9: angular_group_impl(s, el, g, 0, 0); break;
    case 13: angular_group_impl(s, el, g, 1, 1); break;
    default: hdnnp_angular_group(s, el, g); break;   /* compact types 21-25: portable */
    }
}

pk_code hdnnp_sve_symfuncs(hdnnp_scratch *s, const hdnnp_element *el, pk_status *st)
{
    if (hdnnp_symfuncs_layout(s, el, list_pairs, st)) return st->code;
    cutoff_values(s, el);
    for (int g = 0; g < el->nradial; g++) radial_group(s, el, &el->radial[g]);
    for (int g = 0; g < el->nangular; g++)
        if (s->grp[g].n > 0) angular_group(s, el, g);
        else
            for (int m = 0; m < el->angular[g].nsf; m++) s->G[el->angular[g].sf[m]] = 0.0;
    return PK_OK;
}
