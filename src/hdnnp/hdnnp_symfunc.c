/* Symmetry functions of one atomic environment and their derivative coefficients (n2p2 types
 * 2, 3, 9, 12, 13; definitions of n2p2's SymFncExpRad, SymFncExpAngn, SymFncExpAngw,
 * SymFncExpRadWeighted, SymFncExpAngnWeighted; and the compact-support types 20-25,
 * SymFncCompRad, SymFncCompAngn, SymFncCompAngw and their weighted variants).
 *
 * Radial (type 2; type 12 weights each neighbour with its atomic number Z_j):
 *   G = sum_j w_j exp(-eta (r_ij - rs)^2) fc(r_ij),   dG/dx_j = d_j (x_j - x_i),
 *   d_j = w_j (fc'(r) - 2 eta (r - rs) fc(r)) exp(-eta (r - rs)^2) / r.
 * Angular, narrow (type 3; type 13 weights with Z_j Z_k and runs over all pairs) and wide (9):
 *   G = 2^(1-zeta) sum_{j<k} w_jk (1 + lambda cos t_ijk)^zeta
 *       exp(-eta [(r_ij-rs)^2 + (r_ik-rs)^2 (+ (r_jk-rs)^2)]) fc(r_ij) fc(r_ik) (fc(r_jk))
 *   with the term set to zero where 1 + lambda cos <= 0, and for narrow functions only pairs
 *   with r_jk < rc.
 * Compact (Bircher, Singraber, Dellago, arXiv:2010.14414): with the window C(r) on (rl, rc)
 * of hdnnp_window_fdf in place of fc and C_a(t) on the angular window [left, right],
 *   20: G = sum_j C(r_ij) (23: times Z_j), i.e. types 2 and 12 with eta = 0 and fc = C;
 *   21: G = sum_{j<k} C(r_ij) C(r_ik) C(r_jk) C_a(t_ijk), 22 without C(r_jk), 24 and 25 the
 *       same weighted with Z_j Z_k over all pairs; terms with cos t = +-1 are dropped.
 *
 * Gradients. With a = x_j - x_i, b = x_k - x_i, c = b - a and one term T = Y F P, where
 * P = 1 + lambda cos, Y = 2^(1-zeta) w E P^(zeta-1), F = fc_a fc_b fc_c, q = zeta lambda Y F:
 *   dT/da = alpha_a a + beta b + gamma c,  dT/db = beta a + alpha_b b - gamma c,
 *   beta    = q / (r_a r_b)
 *   alpha_a = -q cos / r_a^2 - 2 eta T (r_a - rs) / r_a + Y P fc_a' fc_b fc_c / r_a
 *   gamma   =  2 eta T (r_c - rs) / r_c - Y P fc_a fc_b fc_c' / r_c      (0 for wide)
 * and because c = b - a both are combinations of a and b only:
 *   dT/dx_j = A a + B b,  dT/dx_k = B a + C b,  dT/dx_i = -(dT/dx_j + dT/dx_k),
 *   A = alpha_a - gamma,  B = beta + gamma,  C = alpha_b - gamma.
 * A compact term T = F C_a(t) has the same form with eta = 0, Y P -> C_a and
 * q = F dC_a/dcos (dt/dcos = -1/sin t).
 *
 * Organisation. Functions sharing type, neighbour elements, radial factor and rs form a group
 * (hdnnp_group). A radial group computes the distances' exponentials once (integer multiples
 * of the smallest eta as its powers) and then each function in one vector loop. An angular
 * group first lists its contributing pairs (both atoms inside the cutoff, and each other's
 * for narrow functions: about half of all pairs), four candidates at a time, by increasing
 * j; then, four pairs at a time, computes once for the whole group cos, the radial factors
 * (fc(r_jk) included), the geometric factors of A, B and C and S, reading the neighbours'
 * distances, cutoff values and positions from one 64-byte record per neighbour (built once
 * per atom) and, for the tanh cutoffs, fc(r_jk) without exp or division (HDNNP_TANH_POLY);
 * then the exponentials of
 * the group's etas from S. Every function of the group is one vector loop over the pairs that
 * sums T and stores Y. Gradients are never formed per function: hdnnp_contract weights the
 * Y of all functions with dE/dG first, builds A, B, C of the weighted sum and touches the
 * atoms once per pair. */
#include <math.h>
#include <string.h>

#include "hdnnp_kernel.h"
#include "hdnnp_math.h"
#include "hdnnp_vmath.h"

/* Per-pair temporaries of one angular group, each tcap doubles: S, P^(zeta-1) for a
 * non-integer zeta, the angle and d(angle)/d(cos) (compact types); then the exponential
 * slots. */
enum { P_S, P_PW, P_TH, P_DTH, P_NFIXED };

static pk_code reserve_env(hdnnp_scratch *s, int n, pk_status *st)
{
    if (n <= s->env.cap) return PK_OK;
    int cap = n + n / 2 + 16;
    if (pk_buffer_reserve(&s->env_buf, (size_t)cap * 7, sizeof(double), st) ||
        pk_buffer_reserve(&s->raw_buf, (size_t)cap * 6, sizeof(double), st))
        return st->code;
    double *d = s->env_buf.data;
    hdnnp_env *e = &s->env;
    e->x = d;
    e->y = d + cap;
    e->z = d + 2 * (size_t)cap;
    e->r = d + 3 * (size_t)cap;
    e->rinv = d + 4 * (size_t)cap;
    e->wz = d + 5 * (size_t)cap;
    e->idx = (int *)(d + 6 * (size_t)cap);   /* cap ints fit in cap doubles */
    e->cap = cap;
    return PK_OK;
}

HDNNP_HOT pk_code hdnnp_env_build(hdnnp_scratch *s, const pk_hdnnp_model *m, int ce,
                                  const double xi[3], const double (*x)[3], const int *jlist,
                                  int jnum, const int *type, const int *t2e, pk_status *st)
{
    if (reserve_env(s, jnum, st)) return st->code;
    hdnnp_env *e = &s->env;
    const int ne = m->nelements;
    const double rc2 = m->el[ce].rcmax * m->el[ce].rcmax;
    double *raw = s->raw_buf.data;          /* dx dy dz r2 | element | index */
    int *rel = (int *)(raw + 4 * (size_t)e->cap);
    int *ridx = (int *)(raw + 5 * (size_t)e->cap);
    int count[HDNNP_MAX_ELEMENTS] = {0};
    int n = 0;
    /* without branches on the distance: about half of a list with LAMMPS's default skin lies
     * beyond the cutoff, in no predictable order; every entry is written at n, and n moves on
     * only for the kept ones (the arrays hold jnum entries) */
    for (int jj = 0; jj < jnum; jj++) {
        const int j = pk_neigh_index(jlist[jj]);
        const int ej = t2e[type[j]];
        const double dx = x[j][0] - xi[0], dy = x[j][1] - xi[1], dz = x[j][2] - xi[2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        raw[4 * n] = dx;
        raw[4 * n + 1] = dy;
        raw[4 * n + 2] = dz;
        raw[4 * n + 3] = r2;
        rel[n] = ej;
        ridx[n] = j;
        n += (r2 < rc2) & (ej >= 0);
    }
    for (int q = 0; q < n; q++) count[rel[q]]++;
    e->n = n;
    e->start[0] = 0;
    for (int k = 0; k < ne; k++) e->start[k + 1] = e->start[k] + count[k];
    int fill[HDNNP_MAX_ELEMENTS];
    memcpy(fill, e->start, sizeof(int) * (size_t)ne);
    for (int q = 0; q < n; q++) {
        const int p = fill[rel[q]]++;
        e->x[p] = raw[4 * q];
        e->y[p] = raw[4 * q + 1];
        e->z[p] = raw[4 * q + 2];
        e->r[p] = raw[4 * q + 3];    /* r^2 until the loop below */
        e->wz[p] = (double)m->el[rel[q]].z;
        e->idx[p] = ridx[q];
    }
#pragma omp simd
    for (int p = 0; p < n; p++) {
        e->r[p] = sqrt(e->r[p]);
        e->rinv[p] = 1.0 / e->r[p];
    }
    for (int p = n; p < n + 4; p++)   /* read (and masked) by the vector loops of list_pairs */
        e->x[p] = e->y[p] = e->z[p] = e->r[p] = 0.0;
    return PK_OK;
}

/* f_c and f_c' of the n distances r; r, f and df are readable and writable 4 entries past n. */
HDNNP_HOT static void cutoff_values(const hdnnp_cutoff *c, int n, const double *r, double *f,
                                    double *df)
{
    for (int k = 0; k < n; k += 4) {
        hdnnp_v4 fv, dv;
        v4_cutoff_fdf(c, v4_load(r + k), &fv, &dv);
        v4_store(f + k, fv);
        v4_store(df + k, dv);
    }
}

/* The neighbour records of cutoff slot c (hdnnp_scratch.nb) from the environment and the
 * cutoff values. */
static void neighbour_records(hdnnp_scratch *s, int c)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap;
    const double *fc = s->fc + c * cap, *dfc = s->dfc + c * cap;
    double *nb = s->nb + (size_t)c * HDNNP_NB_N * cap;
    for (int n = 0; n < e->n; n++, nb += HDNNP_NB_N) {
        nb[HDNNP_NB_X] = e->x[n];
        nb[HDNNP_NB_Y] = e->y[n];
        nb[HDNNP_NB_Z] = e->z[n];
        nb[HDNNP_NB_R] = e->r[n];
        nb[HDNNP_NB_RINV] = e->rinv[n];
        nb[HDNNP_NB_FC] = fc[n];
        nb[HDNNP_NB_GC] = dfc[n] * e->rinv[n];
        nb[HDNNP_NB_WZ] = e->wz[n];
    }
}

/* exp(-eta S[k]) of every exponential slot of a group (hdnnp_group) for k in [k0, k1): slot
 * q at E + q * stride. */
static void group_exps(const hdnnp_group *grp, const double *S, double *E, size_t stride,
                       int k0, int k1)
{
    for (int q = 0; q < grp->nslot; q++) {
        double *Eq = E + (size_t)q * stride;
        if (grp->op_a[q] < 0) {
            const double eta = grp->slot_eta[q];
#pragma omp simd
            for (int k = k0; k < k1; k++) Eq[k] = hdnnp_exp(-eta * S[k]);
            continue;
        }
        const double *A = E + (size_t)grp->op_a[q] * stride, *B = E + (size_t)grp->op_b[q] * stride;
#pragma omp simd
        for (int k = k0; k < k1; k++) Eq[k] = A[k] * B[k];
    }
}

/* Radial functions of one group: values and the coefficients d_n of their gradients
 * (d_n (x_n - x_i)) for the group's neighbours; the distances and exponentials are shared. */
static inline __attribute__((always_inline)) void
radial_group_impl(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
                  const int weighted)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap;
    int n0, n1;
    hdnnp_group_range(e, grp->e1, &n0, &n1);
    const double *fc = s->fc + grp->cut * cap, *dfc = s->dfc + grp->cut * cap;
    const double rs = grp->rs;
    double *S = s->t, *E = S + cap;   /* (r - rs)^2, then the exponential slots */
#pragma omp simd
    for (int n = n0; n < n1; n++) S[n] = (e->r[n] - rs) * (e->r[n] - rs);
    group_exps(grp, S, E, cap, n0, n1);
    for (int m = 0; m < grp->nsf; m++) {
        const int isf = grp->sf[m];
        const double eta = el->sf[isf].eta, *Em = E + (size_t)grp->sf_slot[m] * cap;
        double *d = s->rcoef + (size_t)isf * cap, val = 0.0;
#pragma omp simd reduction(+ : val)
        for (int n = n0; n < n1; n++) {
            const double dr = e->r[n] - rs, t = (weighted ? e->wz[n] : 1.0) * Em[n];
            val += t * fc[n];
            d[n] = (dfc[n] - 2.0 * eta * dr * fc[n]) * t * e->rinv[n];
        }
        s->G[isf] = val;
    }
}

HDNNP_HOT static void radial_group(hdnnp_scratch *s, const hdnnp_element *el, int g)
{
    /* the compact types 20 and 23 are types 2 and 12 with eta = 0 and a compact window */
    if (hdnnp_type_weighted(el->radial[g].type)) radial_group_impl(s, el, &el->radial[g], 1);
    else radial_group_impl(s, el, &el->radial[g], 0);
}

/* Positions of the set bits of a 4-bit mask, and how many there are: the compaction of four
 * candidate pairs at once. */
typedef int hdnnp_v4si __attribute__((vector_size(16)));
static const int bit_pos[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
static const int bit_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* Contributing pairs of a group into s->pj/pk from pr->off; sets the real and padded counts.
 * Candidates k of each j are tested four at a time (vector compare); the four flags become a
 * 4-bit table index and four pair slots are written at once (the slots past the kept ones
 * are overwritten by the next four). The env arrays are readable 4 entries past n. */
static inline __attribute__((always_inline)) void
list_pairs_impl(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
                hdnnp_pairs *pr, const int compact)
{
    const hdnnp_env *e = &s->env;
    const hdnnp_pair_window w = hdnnp_pair_window_of(e, el, grp, compact);
    const double rcut = w.rcut, rcut2 = w.rcut2, rlo = w.rlo, rlo2 = w.rlo2;
    const int narrow = w.narrow, same = w.same, test_r = w.test_r;
    const int j0 = w.j0, j1 = w.j1, k0 = w.k0, k1 = w.k1;
    int *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    const hdnnp_v4i lane = {0, 1, 2, 3};
    int n = 0;
    for (int j = j0; j < j1; j++) {
        if (e->r[j] >= rcut || e->r[j] <= rlo) continue;
        const double ax = e->x[j], ay = e->y[j], az = e->z[j];
        const int kb = same ? j + 1 : k0;
        const hdnnp_v4si jv = {j, j, j, j};
        for (int k = kb; k < k1; k += 4) {
            const hdnnp_v4 cx = v4_load(e->x + k) - ax, cy = v4_load(e->y + k) - ay;
            const hdnnp_v4 cz = v4_load(e->z + k) - az, rb = v4_load(e->r + k);
            const hdnnp_v4 d2 = cx * cx + cy * cy + cz * cz;
            hdnnp_v4i in = lane + k < k1;
            if (test_r) in &= rb < rcut;
            if (narrow) in &= d2 < rcut2;
            if (compact) in &= rb > rlo;
            if (compact && narrow) in &= d2 > rlo2;
            const int mask = v4_mask_bits(in);
            hdnnp_v4si kv;
            memcpy(&kv, bit_pos[mask], sizeof kv);
            kv += k;
            memcpy(pj + n, &jv, sizeof jv);
            memcpy(pk + n, &kv, sizeof kv);
            n += bit_count[mask];
        }
    }
    hdnnp_pairs_pad(pj, pk, n, pr);
}

HDNNP_HOT static void list_pairs(hdnnp_scratch *s, const hdnnp_element *el,
                                 const hdnnp_group *grp, hdnnp_pairs *pr)
{
    if (hdnnp_type_compact(grp->type)) list_pairs_impl(s, el, grp, pr, 1);
    else list_pairs_impl(s, el, grp, pr, 0);
}

/* The neighbour records (hdnnp_scratch.nb) of the four neighbours i[0..3], field by field:
 * two row loads per neighbour and two transposes instead of eight element gathers. */
HDNNP_V4_INLINE void nb_gather(const double *nb, const int *i, hdnnp_v4 v[HDNNP_NB_N])
{
    hdnnp_v4 lo[4], hi[4];
    for (int l = 0; l < 4; l++) {
        const double *rec = nb + HDNNP_NB_N * (size_t)i[l];
        lo[l] = v4_load(rec);
        hi[l] = v4_load(rec + 4);
    }
    v4_transpose(lo);
    v4_transpose(hi);
    for (int q = 0; q < 4; q++) {
        v[q] = lo[q];
        v[4 + q] = hi[q];
    }
}

/* The fields of the four neighbours i[0..3] (HDNNP_NB_*): from their records, or where the
 * records may not exist (compact groups, which the sve backend also evaluates here without
 * building records) element by element. */
HDNNP_V4_INLINE void neighbour_fields(const hdnnp_env *e, const double *fc, const double *dfc,
                                      const double *nb, const int *i, hdnnp_v4 v[HDNNP_NB_N],
                                      const int records)
{
    if (records) {
        nb_gather(nb, i, v);
        return;
    }
    v[HDNNP_NB_X] = v4_gather(e->x, i);
    v[HDNNP_NB_Y] = v4_gather(e->y, i);
    v[HDNNP_NB_Z] = v4_gather(e->z, i);
    v[HDNNP_NB_R] = v4_gather(e->r, i);
    v[HDNNP_NB_RINV] = v4_gather(e->rinv, i);
    v[HDNNP_NB_FC] = v4_gather(fc, i);
    v[HDNNP_NB_GC] = v4_gather(dfc, i) * v[HDNNP_NB_RINV];
    v[HDNNP_NB_WZ] = v4_gather(e->wz, i);
}

/* Pair quantities shared by all functions of a group (rs is the group's), four pairs at a
 * time: the persistent factors hdnnp_contract needs (see hdnnp_kernel.h, HDNNP_PAIR_*) and
 * the exponentials of the group's etas (slots, hdnnp_group), or for compact groups the angle
 * and d(angle)/d(cos). For compact groups fc is the radial window, eta = rs = 0, and the U
 * factors are unused. The neighbours' values come from their records (neighbour_fields), or
 * for a block that shares j, j's as scalars. */
static inline __attribute__((always_inline)) void
pair_data(hdnnp_scratch *s, const hdnnp_element *el, const hdnnp_group *grp,
          const hdnnp_pairs *pr, const int narrow, const int weighted, const int compact,
          const int ctype)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap, tc = s->tcap, np = (size_t)pr->n;
    /* a copy, with the type as a constant where ctype >= 0: v4_cutoff_fdf's switch and the
     * cutoff's constants then leave the pair loop */
    hdnnp_cutoff cut = el->cut[grp->cut];
    if (ctype >= 0) cut.type = (hdnnp_cutoff_type)ctype;
    const double *fc = s->fc + grp->cut * cap, *dfc = s->dfc + grp->cut * cap;
    const double *nb = s->nb + (size_t)grp->cut * HDNNP_NB_N * cap;
    const int *pj = s->pj + pr->off, *pk = s->pk + pr->off;
    const int n = pr->n & ~3, nreal = pr->nreal;
    const double rs = grp->rs;
    double *d = s->coef + pr->coef;
    double *cs = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    double *IB = d + HDNNP_PAIR_IB * np, *UC = d + HDNNP_PAIR_UC * np;
    double *GA = d + HDNNP_PAIR_GA * np, *GB = d + HDNNP_PAIR_GB * np;
    double *GC = d + HDNNP_PAIR_GC * np;
    double *BX = d + HDNNP_PAIR_BX * np, *BY = d + HDNNP_PAIR_BY * np, *BZ = d + HDNNP_PAIR_BZ * np;
    double *Sv = s->t + P_S * tc, *th = s->t + P_TH * tc, *dth = s->t + P_DTH * tc;
    const hdnnp_v4 zero = {0.0, 0.0, 0.0, 0.0}, one = zero + 1.0;
    const hdnnp_v4i lane = {0, 1, 2, 3};
    /* most blocks share j (pairs are listed by j), whose values are then broadcast rather than
     * gathered */
    for (int p = 0; p < n; p += 4) {
        const int *jj = pj + p, *kk = pk + p;
        hdnnp_v4 ax, ay, az, ia, fa, ga, da2, wa;   /* j: x, 1/r, fc, fc'/r, (r - rs)^2, Z */
        if (jj[0] == jj[3]) {
            const int j = jj[0];
            const double ij = e->rinv[j], dj = e->r[j] - rs;
            ax = zero + e->x[j];
            ay = zero + e->y[j];
            az = zero + e->z[j];
            ia = zero + ij;
            fa = zero + fc[j];
            ga = zero + dfc[j] * ij;
            da2 = zero + dj * dj;
            wa = zero + (weighted ? e->wz[j] : 1.0);
        } else {
            hdnnp_v4 a[HDNNP_NB_N];
            neighbour_fields(e, fc, dfc, nb, jj, a, !compact);
            ax = a[HDNNP_NB_X];
            ay = a[HDNNP_NB_Y];
            az = a[HDNNP_NB_Z];
            ia = a[HDNNP_NB_RINV];
            fa = a[HDNNP_NB_FC];
            ga = a[HDNNP_NB_GC];
            const hdnnp_v4 dj = a[HDNNP_NB_R] - rs;
            da2 = dj * dj;
            wa = weighted ? a[HDNNP_NB_WZ] : one;
        }
        hdnnp_v4 b[HDNNP_NB_N];   /* k */
        neighbour_fields(e, fc, dfc, nb, kk, b, !compact);
        const hdnnp_v4 bx = b[HDNNP_NB_X], by = b[HDNNP_NB_Y], bz = b[HDNNP_NB_Z];
        const hdnnp_v4 ib = b[HDNNP_NB_RINV], fb = b[HDNNP_NB_FC], gb = b[HDNNP_NB_GC];
        const hdnnp_v4 db = b[HDNNP_NB_R] - rs;
        v4_store(BX + p, bx);
        v4_store(BY + p, by);
        v4_store(BZ + p, bz);
        const hdnnp_v4 cx = bx - ax, cy = by - ay, cz = bz - az;
        const hdnnp_v4 c = (ax * bx + ay * by + az * bz) * (ia * ib);
        v4_store(cs + p, c);
        v4_store(IB + p, ib);
        const hdnnp_v4 w = v4_select(lane + p < nreal, weighted ? wa * b[HDNNP_NB_WZ] : one);
        hdnnp_v4 f = w * fa * fb, gA = w * ga * fb, gB = w * fa * gb, gC = zero, uC = zero;
        hdnnp_v4 S = da2 + db * db;
        if (narrow) {   /* the factor fc(r_jk); gamma's terms folded into A, B and C */
            const hdnnp_v4 r = v4_sqrt(cx * cx + cy * cy + cz * cz), ic = 1.0 / r;
            hdnnp_v4 fcc, dfcc;
            v4_cutoff_fdf(&cut, r, &fcc, &dfcc);
            gC = f * dfcc * ic;
            uC = 1.0 - rs * ic;   /* (r - rs) / r */
            f *= fcc;
            gA = gA * fcc + gC;
            gB = gB * fcc + gC;
            S += (r - rs) * (r - rs);
        }
        v4_store(F + p, f);
        v4_store(GA + p, gA);
        v4_store(GB + p, gB);
        v4_store(GC + p, gC);
        v4_store(UC + p, uC);
        if (compact) {
            /* n2p2 drops the terms with cos <= -1 or >= 1: there d(angle)/d(cos) is infinite */
            for (int l = 0; l < 4; l++) {
                const int in = c[l] > -1.0 && c[l] < 1.0;
                th[p + l] = in ? acos(c[l]) : -1e3;   /* outside every angular window */
                dth[p + l] = in ? -1.0 / sqrt(1.0 - c[l] * c[l]) : 0.0;
            }
            continue;
        }
        v4_store(Sv + p, S);
    }
    if (!compact) group_exps(grp, Sv, s->t + P_NFIXED * tc, tc, 0, n);
}

/* One compact angular function over the pairs of its group: returns the value and stores
 * per pair Y = C(angle) and D = dC/dcos (0 outside the window), from which hdnnp_contract
 * rebuilds the gradient (T = F Y). */
static double compact_sf(hdnnp_scratch *s, const hdnnp_pairs *pr, const hdnnp_sf *sf, double *Y,
                         double *D)
{
    const size_t tc = s->tcap, np = (size_t)pr->n;
    const double *F = s->coef + pr->coef + HDNNP_PAIR_F * np;
    const double *th = s->t + P_TH * tc, *dth = s->t + P_DTH * tc;
    double val = 0.0;
    for (size_t p = 0; p < np; p++) {
        double a, da;
        hdnnp_window_fdf(sf->core, 0, sf->rad_left, sf->rad_right, sf->rad_center, sf->rad_hw,
                         th[p], &a, &da);
        Y[p] = a;
        D[p] = da * dth[p];
        val += F[p] * a;
    }
    return val;
}

/* P^(zeta-1) into pw[p] for exponents the specialised loop does not inline; 0 where
 * P = 1 + lambda cos <= 0 (n2p2 drops those terms). */
static void angular_power(const hdnnp_sf *sf, int n, const double *cs, double *pw)
{
    for (int p = 0; p < n; p++) {
        const double P = 1.0 + sf->lambda * cs[p];
        pw[p] = P > 0.0 ? pow(P, sf->int_pow ? (double)(sf->zeta_int - 1) : sf->zeta - 1.0) : 0.0;
    }
}

/* Four pairs of one angular function: stores Y and returns the terms T = Y F P. */
static inline __attribute__((always_inline)) hdnnp_v4
angular_block(const double *cs, const double *F, const double *Ex, const double *pwv, double *Y,
              double lam, double norm, const int m)
{
    const hdnnp_v4 P = 1.0 + lam * v4_load(cs);
    hdnnp_v4 pw = {1.0, 1.0, 1.0, 1.0};
    if (m < 0) pw = v4_load(pwv);
    else
        for (int r = 0; r < m; r++) pw *= P;
    const hdnnp_v4 y = v4_select(P > 0.0, norm * v4_load(Ex) * pw);
    v4_store(Y, y);
    return y * v4_load(F) * P;
}

/* One angular function over the pairs of its group: returns the value and stores
 * Y = 2^(1-zeta) E P^(zeta-1) per pair (0 where P <= 0), from which hdnnp_contract rebuilds
 * the gradient (T = Y F P). m = zeta - 1 is a compile-time constant for small integers;
 * m < 0 uses the precomputed powers. */
static inline __attribute__((always_inline)) double
angular_sf(hdnnp_scratch *s, const hdnnp_pairs *pr, const hdnnp_sf *sf, int slot, double *Y,
           const int m)
{
    const size_t tc = s->tcap, np = (size_t)pr->n;
    const double *d = s->coef + pr->coef;
    const double *cs = d + HDNNP_PAIR_COS * np, *F = d + HDNNP_PAIR_F * np;
    const double *pwv = s->t + P_PW * tc, *Ex = s->t + (P_NFIXED + (size_t)slot) * tc;
    const double lam = sf->lambda, norm = sf->norm;
    /* two blocks of 4 pairs at a time, two accumulators so that their additions overlap */
    hdnnp_v4 acc0 = {0.0, 0.0, 0.0, 0.0}, acc1 = acc0;
    size_t p = 0;
    for (; p + 8 <= np; p += 8) {
        acc0 += angular_block(cs + p, F + p, Ex + p, pwv + p, Y + p, lam, norm, m);
        acc1 += angular_block(cs + p + 4, F + p + 4, Ex + p + 4, pwv + p + 4, Y + p + 4, lam,
                              norm, m);
    }
    if (p < np) acc0 += angular_block(cs + p, F + p, Ex + p, pwv + p, Y + p, lam, norm, m);
    return v4_sum(acc0 + acc1);
}

static inline __attribute__((always_inline)) void
angular_group_impl(hdnnp_scratch *s, const hdnnp_element *el, int g, const int narrow,
                   const int weighted, const int compact)
{
    const hdnnp_group *grp = &el->angular[g];
    const hdnnp_pairs *pr = &s->grp[g];
    /* the n2p2 cutoff types of the published models as constants (see pair_data) */
    switch (compact || !narrow ? -1 : (int)el->cut[grp->cut].type) {
    case HDNNP_CT_TANHU: pair_data(s, el, grp, pr, narrow, weighted, 0, HDNNP_CT_TANHU); break;
    case HDNNP_CT_TANH: pair_data(s, el, grp, pr, narrow, weighted, 0, HDNNP_CT_TANH); break;
    case HDNNP_CT_POLY2: pair_data(s, el, grp, pr, narrow, weighted, 0, HDNNP_CT_POLY2); break;
    default: pair_data(s, el, grp, pr, narrow, weighted, compact, -1); break;
    }
    if (compact) {
        const size_t np = (size_t)pr->n;
        double *Y = s->coef + pr->coef + HDNNP_PAIR_N * np, *D = Y + (size_t)grp->nsf * np;
        for (int m = 0; m < grp->nsf; m++)
            s->G[grp->sf[m]] = compact_sf(s, pr, &el->sf[grp->sf[m]], Y + m * np, D + m * np);
        return;
    }
    for (int m = 0; m < grp->nsf; m++) {
        const int isf = grp->sf[m];
        const hdnnp_sf *sf = &el->sf[isf];
        const int x = grp->sf_slot[m];
        double *Y = s->coef + pr->coef + (HDNNP_PAIR_N + (size_t)m) * pr->n;
        const int zm = sf->int_pow && sf->zeta_int <= 5 ? sf->zeta_int - 1 : -1;
        double val;
        switch (zm) {
        case 0: val = angular_sf(s, pr, sf, x, Y, 0); break;
        case 1: val = angular_sf(s, pr, sf, x, Y, 1); break;
        case 2: val = angular_sf(s, pr, sf, x, Y, 2); break;
        case 3: val = angular_sf(s, pr, sf, x, Y, 3); break;
        case 4: val = angular_sf(s, pr, sf, x, Y, 4); break;
        default:
            angular_power(sf, pr->n, s->coef + pr->coef + HDNNP_PAIR_COS * (size_t)pr->n,
                          s->t + P_PW * s->tcap);
            val = angular_sf(s, pr, sf, x, Y, -1);
            break;
        }
        s->G[isf] = val;
    }
}

HDNNP_HOT void hdnnp_angular_group(hdnnp_scratch *s, const hdnnp_element *el, int g)
{
    switch (el->angular[g].type) {
    case 3: angular_group_impl(s, el, g, 1, 0, 0); break;
    case 9: angular_group_impl(s, el, g, 0, 0, 0); break;
    case 13: angular_group_impl(s, el, g, 1, 1, 0); break;
    case 21: angular_group_impl(s, el, g, 1, 0, 1); break;
    case 22: angular_group_impl(s, el, g, 0, 0, 1); break;
    case 24: angular_group_impl(s, el, g, 1, 1, 1); break;
    default: angular_group_impl(s, el, g, 0, 1, 1); break;   /* 25 */
    }
}

/* hdnnp_symfuncs_layout with the pair lister as a parameter: a constant in hdnnp_symfuncs */
static inline __attribute__((always_inline)) pk_code
symfuncs_layout(hdnnp_scratch *s, const hdnnp_element *el, hdnnp_list_pairs_fn list,
                pk_status *st)
{
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)e->cap, nsf = (size_t)el->nsf, ng = (size_t)el->nangular;
    /* layout of the per-atom buffers */
    if (pk_buffer_reserve(&s->sf_buf, nsf * (1 + cap), sizeof(double), st) ||
        pk_buffer_reserve(&s->grp_buf, ng + 1, sizeof(hdnnp_pairs), st) ||
        pk_buffer_reserve(&s->wts_buf, nsf, HDNNP_FN_WEIGHTS_BYTES, st))
        return st->code;
    s->cap = e->cap;
    s->G = s->sf_buf.data;
    s->rcoef = s->G + nsf;
    s->grp = s->grp_buf.data;
    size_t maxpairs = 0, totpairs = 0;
    for (size_t g = 0; g < ng; g++) {    /* upper bound of the pairs of every group */
        const hdnnp_group *a = &el->angular[g];
        const int all = hdnnp_type_weighted(a->type);
        const size_t n1 = all ? (size_t)e->n : (size_t)(e->start[a->e1 + 1] - e->start[a->e1]);
        const size_t n2 = all ? (size_t)e->n : (size_t)(e->start[a->e2 + 1] - e->start[a->e2]);
        const size_t np = (all || a->e1 == a->e2 ? n1 * (n1 > 0 ? n1 - 1 : 0) / 2 : n1 * n2) + 4;
        totpairs += np;
        if (np > maxpairs) maxpairs = np;
    }
    totpairs += 4;   /* list_pairs writes four slots at a time */
    if (pk_buffer_reserve(&s->pair_buf, 2 * totpairs + 1, sizeof(int), st)) return st->code;
    s->pj = s->pair_buf.data;
    s->pk = s->pj + totpairs;
    int off = 0;
    size_t ncoef = 0, maxslot = 0;
    for (size_t g = 0; g < ng; g++) {
        hdnnp_pairs *pr = &s->grp[g];
        pr->off = off;
        list(s, el, &el->angular[g], pr);
        pr->coef = ncoef;
        off += pr->n;
        /* compact groups keep two arrays per function (hdnnp_kernel.h) */
        const size_t per_sf = hdnnp_type_compact(el->angular[g].type) ? 2 : 1;
        ncoef += (HDNNP_PAIR_N + per_sf * (size_t)el->angular[g].nsf) * (size_t)pr->n;
        if ((size_t)el->angular[g].nslot > maxslot) maxslot = (size_t)el->angular[g].nslot;
    }
    for (int g = 0; g < el->nradial; g++)   /* radial groups: (r - rs)^2 and the slots */
        if ((size_t)el->radial[g].nslot > maxslot) maxslot = (size_t)el->radial[g].nslot;
    if (maxpairs < cap) maxpairs = cap;   /* hdnnp_contract reuses a temporary per atom */
    if (pk_buffer_reserve(&s->coef_buf, ncoef + 1, sizeof(double), st) ||
        pk_buffer_reserve(&s->tmp_buf,
                          (2 + HDNNP_NB_N) * (size_t)el->ncut * cap +
                              (P_NFIXED + maxslot) * maxpairs + 4 * nsf,
                          sizeof(double), st))
        return st->code;
    s->coef = s->coef_buf.data;
    s->fc = s->tmp_buf.data;
    s->dfc = s->fc + (size_t)el->ncut * cap;
    s->nb = s->dfc + (size_t)el->ncut * cap;
    s->t = s->nb + HDNNP_NB_N * (size_t)el->ncut * cap;
    s->tcap = maxpairs;
    return PK_OK;
}

pk_code hdnnp_symfuncs_layout(hdnnp_scratch *s, const hdnnp_element *el,
                              hdnnp_list_pairs_fn list, pk_status *st)
{
    return symfuncs_layout(s, el, list, st);
}

pk_code hdnnp_symfuncs(hdnnp_scratch *s, const hdnnp_element *el, pk_status *st)
{
    if (symfuncs_layout(s, el, list_pairs, st)) return st->code;
    const hdnnp_env *e = &s->env;
    const size_t cap = (size_t)s->cap, ng = (size_t)el->nangular;
    for (int c = 0; c < el->ncut; c++) {
        cutoff_values(&el->cut[c], e->n, e->r, s->fc + c * cap, s->dfc + c * cap);
        neighbour_records(s, c);
    }
    for (int g = 0; g < el->nradial; g++) radial_group(s, el, g);
    for (size_t g = 0; g < ng; g++)
        if (s->grp[g].n > 0) hdnnp_angular_group(s, el, (int)g);
        else
            for (int m = 0; m < el->angular[g].nsf; m++) s->G[el->angular[g].sf[m]] = 0.0;
    return PK_OK;
}

void hdnnp_scratch_free(hdnnp_scratch *s)
{
    pk_buffer_free(&s->env_buf);
    pk_buffer_free(&s->raw_buf);
    pk_buffer_free(&s->sf_buf);
    pk_buffer_free(&s->pair_buf);
    pk_buffer_free(&s->coef_buf);
    pk_buffer_free(&s->tmp_buf);
    pk_buffer_free(&s->nn_buf);
    pk_buffer_free(&s->grp_buf);
    pk_buffer_free(&s->wts_buf);
    memset(s, 0, sizeof *s);
}
