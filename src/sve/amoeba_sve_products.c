/* The PCG products of amoeba/pk in SVE (amoeba_products_fn; the portable form is
 * pairs_apply in amoeba_induce.c): for every stored pair (i, k), y_i += T v_k and
 * y_k += T v_i with T = s s^T - b3 I stored as {s, -b3}, both dipole sets.
 *
 * The lanes are the pairs of one atom i, svcntd() at a time: their tensors gathered from
 * the groups of four (amoeba_sve_tensor_index), the partners' rows of v gathered by the
 * stored byte offsets, i's sums kept per lane and added across the lanes once per atom;
 * T v_i is added to the partners' rows of y by gather, add and scatter. A scatter is right
 * only when no two active lanes name one row: the padding (partner i, zero tensors) is
 * left out by its row, and amoeba_sve_products_fit, once per step, sends a step whose
 * vectors name one row twice (two images of one atom in a small periodic box) or name i
 * itself with a tensor to the portable products. */
#include "amoeba_sve.h"

#include "pk_threads.h"

/* The columns of a PCG row (lanes order, amoeba_induce.c): x_d x_p y_d y_p z_d z_p; set 0
 * (d) in the even ones, set 1 (p) in the odd ones. */
enum { XD, XP, YD, YP, ZD, ZP };

/* One dipole set of a vector of pairs with tensors {sx, sy, sz, nb = -b3}: T v_k summed at
 * i (*ax, *ay, *az; the partners' columns gathered from v by the byte offsets off), and
 * T v_i (ui: i's row) added to the partners' rows of y, the live lanes only. */
static inline void pair_set(svbool_t pg, svbool_t live, svint64_t off, svfloat64_t sx,
                            svfloat64_t sy, svfloat64_t sz, svfloat64_t nb, const double *v,
                            double *y, const double *ui, int set, svfloat64_t *ax,
                            svfloat64_t *ay, svfloat64_t *az)
{
    const svfloat64_t x = svld1_gather_s64offset_f64(pg, v + XD + set, off);
    const svfloat64_t yv = svld1_gather_s64offset_f64(pg, v + YD + set, off);
    const svfloat64_t z = svld1_gather_s64offset_f64(pg, v + ZD + set, off);
    /* row i: T v_k = s (s.v_k) - b3 v_k */
    const svfloat64_t sv = svmla_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, sx, x), sy, yv), sz, z);
    *ax = svmla_f64_m(pg, svmla_f64_m(pg, *ax, nb, x), sx, sv);
    *ay = svmla_f64_m(pg, svmla_f64_m(pg, *ay, nb, yv), sy, sv);
    *az = svmla_f64_m(pg, svmla_f64_m(pg, *az, nb, z), sz, sv);
    /* rows k: T v_i by gather, add, scatter */
    const double uix = ui[XD + set], uiy = ui[YD + set], uiz = ui[ZD + set];
    const svfloat64_t su =
        svmla_n_f64_x(pg, svmla_n_f64_x(pg, svmul_n_f64_x(pg, sx, uix), sy, uiy), sz, uiz);
    double *const yx = y + XD + set, *const yy = y + YD + set, *const yz = y + ZD + set;
    const svfloat64_t ox = svld1_gather_s64offset_f64(live, yx, off);
    const svfloat64_t oy = svld1_gather_s64offset_f64(live, yy, off);
    const svfloat64_t oz = svld1_gather_s64offset_f64(live, yz, off);
    svst1_scatter_s64offset_f64(live, yx, off,
                                svmla_f64_x(live, svmla_n_f64_x(live, ox, nb, uix), sx, su));
    svst1_scatter_s64offset_f64(live, yy, off,
                                svmla_f64_x(live, svmla_n_f64_x(live, oy, nb, uiy), sy, su));
    svst1_scatter_s64offset_f64(live, yz, off,
                                svmla_f64_x(live, svmla_n_f64_x(live, oz, nb, uiz), sz, su));
}

void amoeba_sve_products(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc,
                         const int *col, const double *ten, pk_accum *acc, const lane8 *in,
                         double vty[2])
{
    const double *v = &in[0][0];
    const int nt = acc->nthreads;
    double part[nt][2];   /* per thread v_i.(T v_k) of each set, summed in thread order */
    for (int t = 0; t < nt; t++) part[t][0] = part[t][1] = 0.0;
#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double *y = pk_accum_slice(acc, tid);
        const int64_t vl = (int64_t)svcntd();
        const svbool_t all = svptrue_b64();
        double dot[2] = {0.0, 0.0};
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int64_t begin = pc ? sl[ii].poff : sl[ii].off;
            const int64_t end = begin + (pc ? sl[ii].npc : sl[ii].ndip);
            const double *ui = in[i];
            const svint64_t own = svdup_s64((int64_t)sizeof(lane8) * i);
            const svfloat64_t zero = svdup_f64(0.0);
            svfloat64_t dx = zero, dy = zero, dz = zero, px = zero, py = zero, pz = zero;
            for (int64_t e = begin; e < end; e += vl) {
                const svbool_t pg = svwhilelt_b64(e, end);
                const svint64_t off = svld1sw_s64(pg, col + e);
                const svuint64_t ti = amoeba_sve_tensor_index(pg, (uint64_t)e);
                const svfloat64_t sx = svld1_gather_u64index_f64(pg, ten, ti);
                const svfloat64_t sy = svld1_gather_u64index_f64(pg, ten + 4, ti);
                const svfloat64_t sz = svld1_gather_u64index_f64(pg, ten + 8, ti);
                const svfloat64_t nb = svld1_gather_u64index_f64(pg, ten + 12, ti);
                /* the padding's partner is i itself */
                const svbool_t live = svcmpne_s64(pg, off, own);
                pair_set(pg, live, off, sx, sy, sz, nb, v, y, ui, 0, &dx, &dy, &dz);
                pair_set(pg, live, off, sx, sy, sz, nb, v, y, ui, 1, &px, &py, &pz);
            }
            /* i's sums across the lanes; v_i.(T v_k) of each set */
            double *yi = y + 8 * (size_t)i;
            const double s[6] = {svaddv_f64(all, dx), svaddv_f64(all, px), svaddv_f64(all, dy),
                                 svaddv_f64(all, py), svaddv_f64(all, dz), svaddv_f64(all, pz)};
            for (int c = 0; c < 6; c++) yi[c] += s[c];
            dot[0] += ui[XD] * s[XD] + ui[YD] * s[YD] + ui[ZD] * s[ZD];
            dot[1] += ui[XP] * s[XP] + ui[YP] * s[YP] + ui[ZP] * s[ZP];
        }
        part[tid][0] = dot[0];
        part[tid][1] = dot[1];
    }
    double d = part[0][0], p = part[0][1];
    for (int t = 1; t < nt; t++) d += part[t][0], p += part[t][1];
    /* T_ki = T_ik: each stored pair gives v_i.T v_k + v_k.T v_i = 2 v_i.(T v_k) */
    vty[0] = 2.0 * d;
    vty[1] = 2.0 * p;
}

/* Whether one vector of atom i's stored pairs (entries e.., active lanes pg) would lose a
 * contribution in amoeba_sve_products' scatter: two lanes that scatter (partner row off,
 * not i's own row) name one row, or a lane names i's own row with a nonzero tensor (an
 * image of i, which the scatter leaves out with the padding). The pairs of lanes are
 * compared as each lane l against lane l + d, d = 1 .. svcntd() - 1 (svtbl; lanes past the
 * end read 0), with the lanes that do not scatter given distinct negative rows. */
static int vector_loses(svbool_t pg, const int *col, const double *ten, int64_t e, svint64_t own)
{
    const svint64_t off = svld1sw_s64(pg, col + e);
    const svbool_t self = svcmpeq_s64(pg, off, own);
    if (svptest_any(pg, self)) {
        const svuint64_t ti = amoeba_sve_tensor_index(pg, (uint64_t)e);
        svbool_t live = svpfalse_b();
        for (int c = 0; c < 4; c++) {
            const svfloat64_t t = svld1_gather_u64index_f64(self, ten + 4 * c, ti);
            live = svorr_b_z(self, live, svcmpne_n_f64(self, t, 0.0));
        }
        if (svptest_any(self, live)) return 1;
    }
    const svbool_t all = svptrue_b64();
    const svuint64_t lane = svindex_u64(0, 1);
    const svbool_t scatters = svcmpne_s64(pg, off, own);
    const svint64_t rows = svsel_s64(scatters, off, svsub_s64_x(all, svdup_s64(-1),
                                                                svreinterpret_s64_u64(lane)));
    const uint64_t vl = svcntd();
    for (uint64_t d = 1; d < vl; d++) {
        const svuint64_t other = svadd_n_u64_x(all, lane, d);
        const svbool_t pairs = svcmplt_n_u64(scatters, other, vl);
        if (svptest_any(pairs, svcmpeq_s64(pairs, rows, svtbl_s64(rows, other)))) return 1;
    }
    return 0;
}

int amoeba_sve_products_fit(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc,
                            const int *col, const double *ten)
{
    const int64_t vl = (int64_t)svcntd();
    int loses = 0;
#pragma omp parallel for schedule(static) num_threads(pk_max_threads()) reduction(| : loses)
    for (int ii = 0; ii < nl->inum; ii++) {
        const int64_t begin = pc ? sl[ii].poff : sl[ii].off;
        const int64_t end = begin + (pc ? sl[ii].npc : sl[ii].ndip);
        const svint64_t own = svdup_s64((int64_t)sizeof(lane8) * nl->ilist[ii]);
        for (int64_t e = begin; e < end && !loses; e += vl)
            loses |= vector_loses(svwhilelt_b64(e, end), col, ten, e, own);
    }
    return !loses;
}
