/* Induced dipoles (AMOEBA polarization without Ewald, as LAMMPS amoeba / Tinker induce.f).
 *
 * Each polarizable site i gets dipoles u = alpha_i (E_perm + E_ind), E_ind the field of
 * all other induced dipoles, for two scalings of the permanent field (Ren & Ponder 2003;
 * Tinker's "d" set with direct-11-scale inside polarization groups, and "p" set with
 * polar-1n-scale / polar-1n-intra by special class). Interactions are Thole-damped:
 * with a = min(thole_i, thole_k) (r / (alpha_i alpha_k)^(1/6))^3 the 1/r^3, 1/r^5 and 1/r^7
 * kernels are multiplied by
 *   l3 = 1 - e^-a,   l5 = 1 - (1 + a) e^-a,   l7 = 1 - (1 + a + 3/5 a^2) e^-a
 * (Thole, Chem. Phys. 59, 341 (1981); Ren & Ponder eq. 8). Each factor satisfies
 * l_{n+2} = l_n - r/n dl_n/dr, so the damped kernels keep dB_n/dr = -r B_n+1; the next
 * one, l9 = 1 - (1 + a + 18/35 a^2 + 9/35 a^3) e^-a, is needed by forces. The mutual equations
 * (alpha^-1 - T) u = E_perm are solved by preconditioned conjugate gradients; the
 * dipole-dipole tensors T_ik = l5 3 r r^T / r^5 - l3 I / r^3 (times mutual-11-scale
 * inside a group) are computed once per call and reused by every iteration. In SMOOTH
 * mode the permanent fields, T_ik and the preconditioner blocks of a pair carry S(r_ik)
 * (pk_amoeba.h).
 *
 * Storage of the per-step tensors. Each is kept as T = s s^T - b3 I with s = sqrt(b5) r
 * (b5 = 3 l5 / r^5 >= 0 times the scalings, b3 = l3 / r^3 times them): 4 doubles, and
 * T v = s (s.v) - b3 v costs 9 flops instead of 15. Each pair of the half neighbour list
 * is stored once, in the list's order, in groups of four pairs of one atom i (one array
 * per component, so that they load as SIMD vectors); a product applies it to both atoms,
 * y_i += T v_k and y_k += T v_i (T_ki = T_ik). A ghost that is an image of an atom owned
 * here is replaced by that atom; the rows of the other ghosts are added onto their owners
 * by the reverse communication, and their values come by the forward one. On one rank no
 * ghost is left and the PCG communicates nothing. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"
#include "amoeba_kernels.h"
#include "amoeba_lanes.h"

#define POLMIN 1.0e-8   /* smallest polarizability used as a PCG weight (LAMMPS) */

void pk_amoeba_induce_work_free(pk_amoeba_induce_work *w)
{
    pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->conj, &w->poli,
                      &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors, &w->counts,
                      &w->padded, &w->batches.mem};
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) pk_buffer_free(b[k]);
    pk_accum_free(&w->acc);
}

double pk_amoeba_induce_work_bytes(const pk_amoeba_induce_work *w)
{
    const pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->conj,
                            &w->poli, &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors,
                            &w->counts, &w->padded, &w->acc.copies, &w->batches.mem};
    double bytes = 0.0;
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) bytes += (double)b[k]->bytes;
    return bytes;
}

/* a0 + a2 and a1 + a3 */
static inline lane2 lane4_fold(lane4 a)
{
    return __builtin_shufflevector(a, a, 0, 1) + __builtin_shufflevector(a, a, 2, 3);
}

/* ---- direct field ----------------------------------------------------------------------- */

typedef long long long4 __attribute__((vector_size(4 * sizeof(long long))));
typedef int int4 __attribute__((vector_size(4 * sizeof(int))));

/* The per-pair inputs of the padded batch of i, four pairs at a time from their partners'
 * rows: scale factors by group and special class (0 in the padding), Thole coefficient,
 * polarizabilities, and col[j], the byte offset of partner j's row in the products (i for
 * the padding). Returns how many partners are still ghosts. */
static int pair_inputs(const amoeba_field_ctx *c, int i, const amoeba_batch *b, int npad, int *col)
{
    const pk_amoeba_model *m = c->m;
    const double (*arow)[A_LEN] = c->arow, *ti = arow[i];
    const int *ks = b->k, *cls = b->cls;
    const double *intra = m->polar_intra, *pscale = m->polar_scale;
    const lane4 one = lane4_bcast(1.0), gi = lane4_bcast(ti[A_GROUP]);
    const lane4 d11 = lane4_bcast(m->direct11_scale), u11 = lane4_bcast(m->mutual11_scale);
    const lane4 poli = lane4_bcast(ti[A_POL]), spoli = lane4_bcast(ti[A_SPOL]);
    const lane4 ipd3i = lane4_bcast(ti[A_IPD3]), thi = lane4_bcast(ti[A_THOLE]);
    const lane4 inf = lane4_bcast(INFINITY), remote = lane4_bcast(c->ghost_col);
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    long4 ghosts = {0, 0, 0, 0};   /* minus the count (a true comparison is -1) */
    for (int j = 0; j < npad; j += 4) {
        const int *k = ks + j, *cj = cls + j;
        const double *r[4] = {arow[k[0]], arow[k[1]], arow[k[2]], arow[k[3]]};
        lane4 v[A_LEN];
        for (int a = 0; a < A_LEN; a += 2) rows_to_lanes(r, a, &v[a], &v[a + 1]);
        const lane4 group = v[A_GROUP], cols = v[A_COL];
        /* same: 1 inside i's polarization group, else 0; the scales as sums with one term 0 */
        const lane4 same = (lane4)((long4)one & (group == gi)), other = one - same;
        const lane4 pin = {intra[cj[0]], intra[cj[1]], intra[cj[2]], intra[cj[3]]};
        const lane4 pout = {pscale[cj[0]], pscale[cj[1]], pscale[cj[2]], pscale[cj[3]]};
        lane4_store(sc + S_DSC * cap + j, same * d11 + other);
        lane4_store(sc + S_PSC * cap + j, same * pin + other * pout);
        lane4_store(sc + S_USC * cap + j, same * u11 + other);
        lane4_store(sc + S_POL * cap + j, poli * v[A_POL]);
        lane4_store(sc + S_SPOL * cap + j, spoli * v[A_SPOL]);
        /* amoeba_thole_damp's a = min(thole) (r / (pdamp_i pdamp_k))^3 as a coefficient of
         * r^3; the selects as masks (C has no ?: on vectors) */
        const long4 lower = thi < v[A_THOLE], undamped = ipd3i * v[A_IPD3] == inf;
        const lane4 g = (lane4)(((long4)thi & lower) | ((long4)v[A_THOLE] & ~lower));
        const lane4 ta = ipd3i * v[A_IPD3] * g;
        lane4_store(sc + S_THOLE * cap + j, (lane4)(((long4)inf & undamped) | ((long4)ta & ~undamped)));
        lane4_store(sc + S_PCOL * cap + j, cols);
        const int4 icols = __builtin_convertvector(cols, int4);
        memcpy(col + j, &icols, sizeof icols);
        ghosts += cols >= remote;
    }
    long long g = -(ghosts[0] + ghosts[1] + ghosts[2] + ghosts[3]);
    for (int j = b->n; j < npad; j++) {   /* the padding */
        sc[S_DSC * cap + j] = sc[S_PSC * cap + j] = sc[S_USC * cap + j] = 0.0;
        col[j] = (int)sizeof(lane8) * i;
        g -= arow[ks[j]][A_COL] >= c->ghost_col;
    }
    return (int)g;
}

/* The distance-dependent part of the pair kernel over the padded batch of i (SIMD): the
 * Thole-damped 1/r^3, 3/r^5, 15/r^7 and, in SMOOTH mode, S(r) (smooth is a constant in each
 * copy, pair_fields). A loop of its own: its chain of sqrt, exp and products is long, and
 * the processor overlaps more iterations of two short loops than of one long one. */
static inline __attribute__((always_inline)) void pair_kernels(const amoeba_field_ctx *c,
                                                                const amoeba_batch *b, int npad,
                                                                const int smooth)
{
    const double sw0 = c->sw.start, inv_width = 1.0 / c->sw.width;
    const double *r2s = b->r2;
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    const double *tha = sc + S_THOLE * cap;
    double *const b0s = sc + S_B0 * cap, *const b1s = sc + S_B1 * cap;
    double *const b2s = sc + S_B2 * cap, *const srs = sc + S_SR * cap;
#pragma omp simd
    for (int j = 0; j < npad; j++) {
        const double r2 = r2s[j], rr = sqrt(r2), rr1 = 1.0 / rr, rr2 = rr1 * rr1;
        /* S(r) inside the cutoff */
        if (smooth) srs[j] = amoeba_switch_s(amoeba_switch_x(rr, sw0, inv_width));
        /* a and e^-a as amoeba_thole_damp (0 where undamped), the division by pdamp_i
         * pdamp_k done in pair_inputs */
        const double au = tha[j] * (r2 * rr), a = au < AMOEBA_THOLE_FAR ? au : 0.0;
        const double e = au < AMOEBA_THOLE_FAR ? amoeba_exp_neg(a) : 0.0;
        const double rr3 = rr2 * rr1, rr5 = 3.0 * rr2 * rr3, rr7 = 5.0 * rr2 * rr5;
        b0s[j] = (1.0 - e) * rr3;
        b1s[j] = (1.0 - e * (1.0 + a)) * rr5;
        b2s[j] = (1.0 - e * (1.0 + a + 0.6 * a * a)) * rr7;
    }
}

/* Add four pairs' fields f[d] (component d, d then p set, of each pair) to the rows of
 * their partners k[0..3] of fl: transposed into rows {dx dy dz px} and {py pz}, two wide
 * additions per partner. */
static inline void add_rows4(double (*fl)[6], const int *k, const lane4 f[6])
{
    lane4 head[4];
    lane2 tail[4];
    lanes_to_rows6(f, head, tail);
    for (int l = 0; l < 4; l++) {
        lane4_add(fl[k[l]], head[l]);
        lane2_add(fl[k[l]] + 4, tail[l]);
    }
}

/* The pair kernel over the padded batch of i, four pairs at a time as SIMD vectors (k's
 * moments transposed from its rows of rpole, no gathers), from the damped kernels of
 * pair_kernels: the permanent fields at i (added to fi[6], d then p set) and at k (added to
 * fl), and, for mutual polarization (ten, the batch's first tensor group, not NULL), the
 * dipole-dipole tensors, stored, and the preconditioner blocks (S_PX...). smooth is a
 * constant in each of the two copies (pair_fields). */
static inline __attribute__((always_inline)) void pair_fields_mode(const amoeba_field_ctx *c, int i,
                                                                    const amoeba_batch *b,
                                                                    int npad, double fi[6],
                                                                    double (*fl)[6], double *ten,
                                                                    const int smooth)
{
    const double *rp = &c->rpole[0][0], *pi = c->rpole[i];
    const double ci = pi[0], dix = pi[1], diy = pi[2], diz = pi[3];
    const double qxx = pi[4], qxy = pi[5], qxz = pi[6], qyy = pi[8], qyz = pi[9], qzz = pi[12];
    const lane4 one = lane4_bcast(1.0), off2 = lane4_bcast(c->off2);
    const int *ks = b->k;
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    const double *dsc = sc + S_DSC * cap, *psc = sc + S_PSC * cap, *usc = sc + S_USC * cap;
    const double *polk = sc + S_POL * cap, *spolk = sc + S_SPOL * cap;
    const double *b0s = sc + S_B0 * cap, *b1s = sc + S_B1 * cap, *b2s = sc + S_B2 * cap;
    const double *srs = sc + S_SR * cap;
    double *const pk = sc + S_PX * cap;
    lane4 fd[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}, fp[3] = {fd[0], fd[1], fd[2]};
    for (int j = 0; j < npad; j += 4) {
        const lane4 rx = lane4_load(b->rx + j), ry = lane4_load(b->ry + j);
        const lane4 rz = lane4_load(b->rz + j), r2 = lane4_load(b->r2 + j);
        const lane4 b0 = lane4_load(b0s + j), b1 = lane4_load(b1s + j), b2 = lane4_load(b2s + j);
        /* the field and T_ik only within polar_cut (a preconditioner pair may be farther in
         * LAMMPS mode); in SMOOTH mode they and the preconditioner block carry S(r), 0 from
         * the cutoff on */
        const lane4 in = (lane4)((long4)one & (r2 <= off2));
        const lane4 sr = smooth ? in * lane4_load(srs + j) : one, fm = smooth ? sr : in;
        /* k's moments: components 0..9, 11, 12 of the rows (7 and 11 unused) */
        const double *rows[4] = {rp + 13 * (size_t)ks[j], rp + 13 * (size_t)ks[j + 1],
                                 rp + 13 * (size_t)ks[j + 2], rp + 13 * (size_t)ks[j + 3]};
        lane4 mk[12];
        for (int p = 0; p < 5; p++) rows_to_lanes(rows, 2 * p, &mk[2 * p], &mk[2 * p + 1]);
        rows_to_lanes(rows, 11, &mk[10], &mk[11]);
        const lane4 ck = mk[0], dkx = mk[1], dky = mk[2], dkz = mk[3];
        const lane4 kxx = mk[4], kxy = mk[5], kxz = mk[6], kyy = mk[8], kyz = mk[9], kzz = mk[11];
        /* fields of k's moments at i and of i's at k (Tinker udirect2b; Q symmetric) */
        const lane4 qix = qxx * rx + qxy * ry + qxz * rz;
        const lane4 qiy = qxy * rx + qyy * ry + qyz * rz;
        const lane4 qiz = qxz * rx + qyz * ry + qzz * rz;
        const lane4 qkx = kxx * rx + kxy * ry + kxz * rz;
        const lane4 qky = kxy * rx + kyy * ry + kyz * rz;
        const lane4 qkz = kxz * rx + kyz * ry + kzz * rz;
        const lane4 dir = dix * rx + diy * ry + diz * rz;
        const lane4 dkr = dkx * rx + dky * ry + dkz * rz;
        const lane4 qir = qix * rx + qiy * ry + qiz * rz;
        const lane4 qkr = qkx * rx + qky * ry + qkz * rz;
        const lane4 gk = b0 * ck - b1 * dkr + b2 * qkr;
        const lane4 gi = b0 * ci + b1 * dir + b2 * qir;
        const lane4 eix = -rx * gk - b0 * dkx + 2.0 * b1 * qkx;
        const lane4 eiy = -ry * gk - b0 * dky + 2.0 * b1 * qky;
        const lane4 eiz = -rz * gk - b0 * dkz + 2.0 * b1 * qkz;
        const lane4 ekx = rx * gi - b0 * dix - 2.0 * b1 * qix;
        const lane4 eky = ry * gi - b0 * diy - 2.0 * b1 * qiy;
        const lane4 ekz = rz * gi - b0 * diz - 2.0 * b1 * qiz;
        /* the field is linear in the kernels: the unscaled one, times each set's scale */
        const lane4 ds = fm * lane4_load(dsc + j), ps = fm * lane4_load(psc + j);
        fd[0] += ds * eix, fd[1] += ds * eiy, fd[2] += ds * eiz;
        fp[0] += ps * eix, fp[1] += ps * eiy, fp[2] += ps * eiz;
        const lane4 fk[6] = {ds * ekx, ds * eky, ds * ekz, ps * ekx, ps * eky, ps * ekz};
        add_rows4(fl, ks + j, fk);
        if (!ten) continue;
        /* T_ik = b5 r r^T - b3 I with b3 = S u l3 / r^3, b5 = S u 3 l5 / r^5 (b5 >= 0, but
         * S rounds to -1e-17 just inside the cutoff), stored as a group; the preconditioner
         * block of a pair the list marked at reneighbouring is alpha_i alpha_k T_ik (LAMMPS
         * uscale0b), its s sqrt(alpha_i alpha_k) times T's */
        const lane4 us = sr * lane4_load(usc + j), b5 = us * b1, q = lane4_sqrt_pos(b5);
        double *t = ten + 4 * (size_t)j;
        lane4_store(t, in * q * rx);
        lane4_store(t + 4, in * q * ry);
        lane4_store(t + 8, in * q * rz);
        lane4_store(t + 12, -in * us * b0);
        const lane4 qp = q * lane4_load(spolk + j);
        lane4_store(pk + j, qp * rx);
        lane4_store(pk + cap + j, qp * ry);
        lane4_store(pk + 2 * cap + j, qp * rz);
        lane4_store(pk + 3 * cap + j, -us * b0 * lane4_load(polk + j));
    }
    for (int d = 0; d < 3; d++) {
        fi[d] += (fd[d][0] + fd[d][1]) + (fd[d][2] + fd[d][3]);
        fi[3 + d] += (fp[d][0] + fp[d][1]) + (fp[d][2] + fp[d][3]);
    }
}

static void pair_fields(const amoeba_field_ctx *c, int i, const amoeba_batch *b, int npad,
                        double fi[6], double (*fl)[6], double *ten)
{
    if (c->sw.on) {
        pair_kernels(c, b, npad, 1);
        pair_fields_mode(c, i, b, npad, fi, fl, ten, 1);
    } else {
        pair_kernels(c, b, npad, 0);
        pair_fields_mode(c, i, b, npad, fi, fl, ten, 0);
    }
}

/* Move the entries S_PX..S_PCOL of the preconditioner pairs (pc[j] = 1) to the front of
 * the arrays, in order; returns how many there are. In place: a group's entries go no
 * further than its own place. By groups of four where keep4_lane4 is one permute
 * (amoeba_lanes_avx.h), else entry by entry. */
#ifdef AMOEBA_LANES_AVX2
static int pack_pc(const unsigned char *pc, double *sc, size_t cap, int npad)
{
    int np = 0;
    for (int g = 0; g < npad; g += 4) {   /* by the 4-bit mask of a group's marked pairs */
        const unsigned mask = flags4_mask(pc + g);
        for (int s = S_PX; s <= S_PCOL; s++) {
            double *v = sc + s * cap;
            keep4_lane4(lane4_load(v + g), mask, v + np);
        }
        np += __builtin_popcount(mask);
    }
    return np;
}
#else
static int pack_pc(const unsigned char *pc, double *sc, size_t cap, int npad)
{
    int np = 0;
    for (int j = 0; j < npad; j++) {   /* written always, kept by advancing np */
        for (int s = S_PX; s <= S_PCOL; s++) sc[s * cap + np] = sc[s * cap + j];
        np += pc[j];
    }
    return np;
}
#endif

/* Store the preconditioner blocks of the padded batch's marked pairs (zero where S(r) is)
 * at poff..., padded to a multiple of 4 with partner i and zero tensors, and the batch's
 * slot (its npad dipole pairs were stored at off... by pair_fields; a preconditioner pair
 * beyond polar_cut keeps a zero T_ik there). */
static void store_tensors(const amoeba_batch *b, int i, int npad, int off, int poff,
                          int *pcol, double *pten, amoeba_slot *sl)
{
    const size_t cap = (size_t)b->cap;
    double *sc = b->scratch;
    const int np = pack_pc(b->pc, sc, cap, npad), npc = amoeba_padded(np);
    for (int j = np; j < npc; j++) {
        for (int s = S_PX; s <= S_PB; s++) sc[s * cap + j] = 0.0;
        sc[S_PCOL * cap + j] = (double)sizeof(lane8) * i;
    }
    for (int g = 0; g < npc; g += 4) {
        double *t = pten + 4 * ((size_t)poff + g);
        for (int s = 0; s < 4; s++) lane4_store(t + 4 * s, lane4_load(sc + (S_PX + s) * cap + g));
        const int4 cols = __builtin_convertvector(lane4_load(sc + S_PCOL * cap + g), int4);
        memcpy(pcol + poff + g, &cols, sizeof cols);
    }
    sl->off = off;
    sl->ndip = npad;
    sl->poff = poff;
    sl->npc = npc;
}

/* Direct field of the permanent multipoles (both sets) and, for mutual polarization, the
 * pair tensors of the PCG; *ghosts counts the pairs whose partner is a ghost that is not
 * an image of an owned atom. */
static pk_code direct_field(const amoeba_kernels *kern, const pk_amoeba_model *m,
                            const pk_atoms *a, const pk_amoeba_sites *s,
                            const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                            const double (*rpole)[13], pk_amoeba_induce_work *w,
                            double (*field)[6], double *ghosts, pk_status *st)
{
    const int nlocal = a->nlocal, nall = nlocal + a->nghost;
    const int nt = pk_max_threads();
    const int ntrow = m->ntypes + 1;   /* types 1..ntypes */
    amoeba_field_ctx c = {m, s, pairs, rpole, NULL, m->set.polar_cut * m->set.polar_cut,
                   (double)sizeof(lane8) * nlocal, {0}, 0,
                   m->polarization == PK_AMOEBA_POLAR_MUTUAL};
    c.use_pc = c.mutual && m->set.pcg_precond;
    if (amoeba_switch_init(m, 1, &c.sw, st)) return st->code;
    if (!c.sw.on) c.sw.width = 1.0;   /* S(r) unused: keep its arithmetic finite */
    amoeba_slot *sl = w->counts.data;
    int *col = w->pairs.data, *pcol = w->pc_pairs.data;
    double *ten = w->tensors.data, *pten = w->pc_tensors.data;

    memset(field, 0, (size_t)nall * sizeof *field);
    if (pk_buffer_reserve(&w->padded, (size_t)A_LEN * (ntrow + nall), sizeof(double), st) ||
        pk_accum_begin(&w->acc, nt, &field[0][0], (size_t)nall * 6, st) ||
        amoeba_batches_begin(&w->batches, nl, nt, S_COUNT, st))
        return st->code;
    /* the types' parts of the rows first, then the atoms' rows */
    double (*trow)[A_LEN] = w->padded.data, (*arow)[A_LEN] = trow + ntrow;
    for (int t = 0; t < ntrow; t++) {
        const double pd = m->pdamp[t];
        trow[t][A_POL] = m->polarity[t];
        trow[t][A_SPOL] = sqrt(m->polarity[t]);
        trow[t][A_IPD3] = pd != 0.0 ? 1.0 / (pd * pd * pd) : INFINITY;
        trow[t][A_THOLE] = m->thole[t];
    }
    c.arow = (const double (*)[A_LEN])arow;
    int remote = 0;
#pragma omp parallel num_threads(nt) reduction(+ : remote)
    {
        const int tid = pk_thread_id();
        double (*fl)[6] = (double (*)[6])pk_accum_slice(&w->acc, tid);
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        const int *owner = s->owner;
#pragma omp for schedule(static)
        for (int k = 0; k < nall; k++) {
            const int o = owner ? owner[k] : -1;
            memcpy(arow[k], trow[s->amtype[k]], A_GROUP * sizeof(double));
            arow[k][A_GROUP] = s->amgroup[k];
            arow[k][A_COL] = (double)sizeof(lane8) * (o >= 0 ? o : k);
        }
        int off = -1, poff = -1;   /* where this thread's next atom's pairs go */
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            if (off < 0) off = sl[ii].room, poff = sl[ii].proom;
            /* the pairs within polar_cut, and the preconditioner's when it is used */
            amoeba_batch_pairs(&b, c.pairs, i, ii, c.off2, c.use_pc);
            const int npad = amoeba_padded(b.n);
            remote += pair_inputs(&c, i, &b, npad, col + off);
            double *const t = c.mutual ? ten + 4 * (size_t)off : NULL;
            if (kern->field) kern->field(&c, i, &b, npad, fl[i], fl, t);
            else pair_fields(&c, i, &b, npad, fl[i], fl, t);
            if (!c.mutual) continue;
            store_tensors(&b, i, npad, off, poff, pcol, pten, &sl[ii]);
            off += sl[ii].ndip;
            poff += sl[ii].npc;
        }
    }
    pk_accum_reduce(&w->acc);
    *ghosts = remote;
    return PK_OK;
}

/* ---- PCG products ----------------------------------------------------------------------- */

/* The pairs (i, a) and (i, b) of one atom i, in the lanes {a_d a_p b_d b_p}: components
 * of the two tensors as {t_a t_a t_b t_b}, the partners' rows at byte offsets ka and kb of
 * v and y. Adds T v_a and T v_b to i's sums acc (x, y, z; lanes as above) and T v_i (ui:
 * i's x, y, z as {d p d p}) to the rows a and b of y. */
static inline void pair_pair(const char *v, char *y, int ka, int kb, lane4 sx, lane4 sy,
                             lane4 sz, lane4 nb, const lane4 ui[3], lane4 acc[3])
{
    const double *va = (const double *)(v + ka), *vb = (const double *)(v + kb);
    const lane4 x = lane4_blend(lane4_bcast2(va), lane4_bcast2(vb));
    const lane4 yv = lane4_blend(lane4_bcast2(va + 2), lane4_bcast2(vb + 2));
    const lane4 z = lane4_blend(lane4_bcast2(va + 4), lane4_bcast2(vb + 4));
    /* row i: T v_k = s (s.v_k) - b3 v_k. The loop is bound by how long its operations wait
     * for their inputs, so the chains are kept short: s.v_k as a tree, and -b3 v_k added
     * first, without waiting for s.v_k (two FMAs per sum instead of a multiply, an FMA and
     * an add: ~10% faster). */
    const lane4 ty = sy * yv, tz = sz * z;
    const lane4 sv = (sx * x + ty) + tz;
    acc[0] += nb * x;
    acc[1] += nb * yv;
    acc[2] += nb * z;
    acc[0] += sx * sv;
    acc[1] += sy * sv;
    acc[2] += sz * sv;
    /* rows a and b: T v_i, back to rows {x_d x_p y_d y_p} and {z_d z_p} */
    const lane4 su = sx * ui[0] + sy * ui[1] + sz * ui[2];
    const lane4 rx = sx * su + nb * ui[0], ry = sy * su + nb * ui[1], rz = sz * su + nb * ui[2];
    double *ya = (double *)(y + ka), *yb = (double *)(y + kb);
    lane4_add(ya, __builtin_shufflevector(rx, ry, 0, 1, 4, 5));
    lane4_add(yb, __builtin_shufflevector(rx, ry, 2, 3, 6, 7));
    lane2_add(ya + 4, __builtin_shufflevector(rz, rz, 0, 1));
    lane2_add(yb + 4, lane4_high(rz));
}

/* y_i += T_ik v_k and y_k += T_ik v_i for every stored pair (i, k) of the listed atoms
 * (pc picks the preconditioner's counts in the slots), both dipole sets (6 columns, lanes
 * order, in rows of 8 doubles). Each pair is stored once and applied to both atoms; a
 * group of four pairs {a b c d} is taken as the two-pair vectors (a, c) and (b, d)
 * (pair_pair), whose tensor components are the group's even and odd entries duplicated.
 * y goes through per-thread copies (acc, whose target is y), which the caller sums in thread
 * order (apply_pairs).
 * vty = v.y of each set over this rank's pairs: as T_ki = T_ik, each stored pair gives
 * v_i.T v_k + v_k.T v_i = 2 v_i.(T v_k), i's sums dotted with v_i once per atom, so that
 * the PCG needs no pass over the rows for it (summed over ranks, as each pair is stored on
 * one rank). */
static void pairs_apply(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc, const int *col,
                        const double *ten, pk_accum *acc, const lane8 *in, double vty[2])
{
    const char *v = (const char *)in;
    const int nt = acc->nthreads;
    lane4 part[nt];   /* per thread, summed in thread order (0 for a thread not started) */
    for (int t = 0; t < nt; t++) part[t] = (lane4){0, 0, 0, 0};
#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        char *y = (char *)pk_accum_slice(acc, tid);
        lane4 dot = {0, 0, 0, 0};   /* lanes {d p d p} */
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii], begin = pc ? sl[ii].poff : sl[ii].off;
            const int end = begin + (pc ? sl[ii].npc : sl[ii].ndip);
            const lane4 ui[3] = {lane4_bcast2(in[i]), lane4_bcast2(in[i] + 2),
                                 lane4_bcast2(in[i] + 4)};
            lane4 acc3[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
            for (int e = begin; e < end; e += 4) {
                const double *t = ten + 4 * e;
                pair_pair(v, y, col[e], col[e + 2], lane4_dup_even(t), lane4_dup_even(t + 4),
                          lane4_dup_even(t + 8), lane4_dup_even(t + 12), ui, acc3);
                pair_pair(v, y, col[e + 1], col[e + 3], lane4_dup_even(t + 1),
                          lane4_dup_even(t + 5), lane4_dup_even(t + 9), lane4_dup_even(t + 13),
                          ui, acc3);
            }
            double *yi = (double *)(y + sizeof(lane8) * (size_t)i);
            lane2_add(yi, lane4_fold(acc3[0]));
            lane2_add(yi + 2, lane4_fold(acc3[1]));
            lane2_add(yi + 4, lane4_fold(acc3[2]));
            dot += ui[0] * acc3[0] + ui[1] * acc3[1] + ui[2] * acc3[2];
        }
        part[tid] = dot;
    }
    lane4 dot = part[0];
    for (int t = 1; t < nt; t++) dot += part[t];
    vty[0] = 2.0 * (dot[0] + dot[2]);
    vty[1] = 2.0 * (dot[1] + dot[3]);
}

/* Forward (owned values onto their ghost images) or reverse (ghost rows added onto their
 * owners) communication of the 6 columns of rows of 8, through the 6-column buffer
 * w->field (the comm callbacks move rows of at most 6). */
static void comm_rows(const pk_atoms *a, pk_amoeba_induce_work *w, const pk_amoeba_comm *comm,
                      lane8 *v, int reverse)
{
    const int n = a->nlocal, nall = n + a->nghost;
    double (*t)[6] = w->field.data;
    for (int i = 0; i < (reverse ? nall : n); i++) memcpy(t[i], v[i], sizeof t[i]);
    if (reverse) comm->reverse(comm->ctx, &t[0][0], 6);
    else comm->forward(comm->ctx, &t[0][0], 6);
    for (int i = reverse ? 0 : n; i < (reverse ? n : nall); i++) memcpy(v[i], t[i], sizeof t[i]);
}

/* y += the products of one pair set (pc: the preconditioner's; prod[pc] computes them) with
 * v, whose owned rows
 * must be 0 on entry; vty = v.(T v) of each set on this rank (pairs_apply). When the pairs
 * name ghosts, v's ghost rows are refreshed first and y's are summed onto their owners. */
static pk_code apply_pairs(const pk_atoms *a, const pk_amoeba_list *nl, pk_amoeba_induce_work *w,
                           const pk_amoeba_comm *comm, amoeba_products_fn *const prod[2], int pc,
                           lane8 *v, lane8 *y, double vty[2], pk_status *st)
{
    const int n = a->nlocal, nrows = w->local ? n : n + a->nghost;
    if (!w->local) comm_rows(a, w, comm, v, 0);
    memset(y + n, 0, (size_t)(nrows - n) * sizeof *y);
    if (pk_accum_begin(&w->acc, pk_max_threads(), &y[0][0], (size_t)nrows * 8, st))
        return st->code;
    prod[pc](nl, w->counts.data, pc, pc ? w->pc_pairs.data : w->pairs.data,
                pc ? w->pc_tensors.data : w->tensors.data, &w->acc, v, vty);
    pk_accum_reduce(&w->acc);
    if (!w->local) comm_rows(a, w, comm, y, 1);
    return PK_OK;
}

/* Inside the PCG an atom's 6 columns are ordered x_d x_p y_d y_p z_d z_p ("lanes"), so
 * that the products work on both dipole sets as pairs of SIMD lanes; column j belongs to
 * set j & 1 and is column DP(j) of the d-then-p order used outside (u, udir, field). The
 * PCG vectors other than u are rows of 8 (lane8; the owned rows' last two columns are 0)
 * that the products read in place. */
#define DP(j) (3 * ((j) & 1) + ((j) >> 1))

/* Reorder the rows of n atoms from d-then-p to lanes (to_lanes = 1) or back. */
static void reorder(int n, double (*v)[6], int to_lanes)
{
    for (int i = 0; i < n; i++) {
        double t[6];
        for (int j = 0; j < 6; j++) {
            if (to_lanes) t[j] = v[i][DP(j)];
            else t[DP(j)] = v[i][j];
        }
        memcpy(v[i], t, sizeof t);
    }
}

/* The d (out[0]) and p (out[1]) parts of the sums a and b of a row's two halves (lanes
 * order: even lanes belong to the d set). */
static void sum_sets(lane4 a, lane4 b, double out[2])
{
    out[0] = (a[0] + a[2]) + (b[0] + b[2]);
    out[1] = (a[1] + a[3]) + (b[1] + b[3]);
}

/* The PCG (LAMMPS induce) in passes over the owned rows that each read a row once; the
 * scalars it needs of the products' outputs come with them (pairs_apply), those of the
 * other vectors from the pass that writes them. M = diag(p) + P is the preconditioner,
 * p_i = usolve_diag poli_i and P the neighbour blocks (LAMMPS uscale0b), so that
 * r.z = r.(p r) + r.(P r). */

/* rr = r.r and rpr = r.(p r) of each set at the n owned atoms. */
static void residual_sums(int n, const double *poli, double diag, const lane8 *r, double rr[2],
                          double rpr[2])
{
    lane4 s[4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    for (int i = 0; i < n; i++) {
        const lane4 p = lane4_bcast(diag * poli[i]);
        const lane4 r0 = lane4_load(r[i]), r1 = lane4_load(r[i] + 4);
        s[0] += r0 * r0, s[1] += r1 * r1;
        s[2] += p * r0 * r0, s[3] += p * r1 * r1;
    }
    sum_sets(s[0], s[1], rr);
    sum_sets(s[2], s[3], rpr);
}

/* One step along conj at the n owned atoms, y = T conj (cleared here for the next
 * product): u += al conj, r -= al (alpha^-1 conj - y) (ipoli = 1 / poli); rr = r.r and
 * rpr = r.(p r) of each set. */
static void pcg_step(int n, const double al[2], const double *poli, const double *ipoli,
                     double diag, const lane8 *conj, lane8 *y, double (*u)[6], lane8 *r,
                     double rr[2], double rpr[2])
{
    const lane4 a4 = {al[0], al[1], al[0], al[1]}, zero = {0, 0, 0, 0};
    const lane2 a2 = {al[0], al[1]};
    lane4 s[4] = {zero, zero, zero, zero};
    for (int i = 0; i < n; i++) {
        const lane4 ip = lane4_bcast(ipoli[i]), p = lane4_bcast(diag * poli[i]);
        const lane4 c0 = lane4_load(conj[i]), c1 = lane4_load(conj[i] + 4);
        const lane4 v0 = c0 * ip - lane4_load(y[i]), v1 = c1 * ip - lane4_load(y[i] + 4);
        memcpy(y[i], &zero, sizeof zero);
        memcpy(y[i] + 4, &zero, sizeof zero);
        lane4_add(u[i], a4 * c0);
        lane2_add(u[i] + 4, a2 * __builtin_shufflevector(c1, c1, 0, 1));
        const lane4 r0 = lane4_load(r[i]) - a4 * v0, r1 = lane4_load(r[i] + 4) - a4 * v1;
        memcpy(r[i], &r0, sizeof r0);
        memcpy(r[i] + 4, &r1, sizeof r1);
        s[0] += r0 * r0, s[1] += r1 * r1;
        s[2] += p * r0 * r0, s[3] += p * r1 * r1;
    }
    sum_sets(s[0], s[1], rr);
    sum_sets(s[2], s[3], rpr);
}

/* conj = z + beta conj at the n owned atoms with z = M r = p r + y (y = P r, cleared here;
 * without the preconditioner y is NULL and z = r); cc = conj.(alpha^-1 conj) of each set,
 * the diagonal part of the next step's conj.((alpha^-1 - T) conj). */
static void pcg_direction(int n, const double beta[2], const double *poli, const double *ipoli,
                          double diag, const lane8 *r, lane8 *y, lane8 *conj, double cc[2])
{
    const lane4 b4 = {beta[0], beta[1], beta[0], beta[1]}, zero = {0, 0, 0, 0};
    lane4 s0 = zero, s1 = zero;
    for (int i = 0; i < n; i++) {
        const lane4 ip = lane4_bcast(ipoli[i]);
        lane4 z0 = lane4_load(r[i]), z1 = lane4_load(r[i] + 4);
        if (y) {
            const lane4 p = lane4_bcast(diag * poli[i]);
            z0 = p * z0 + lane4_load(y[i]), z1 = p * z1 + lane4_load(y[i] + 4);
            memcpy(y[i], &zero, sizeof zero);
            memcpy(y[i] + 4, &zero, sizeof zero);
        }
        const lane4 c0 = z0 + b4 * lane4_load(conj[i]), c1 = z1 + b4 * lane4_load(conj[i] + 4);
        memcpy(conj[i], &c0, sizeof c0);
        memcpy(conj[i] + 4, &c1, sizeof c1);
        s0 += ip * c0 * c0, s1 += ip * c1 * c1;
    }
    sum_sets(s0, s1, cc);
}

/* rz = r.z of each set on this rank from rr = r.r and rpr = r.(p r) of the rows; with the
 * preconditioner y gets P r (to be cleared by pcg_direction). */
static pk_code residual_dot(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                            pk_amoeba_induce_work *w, const pk_amoeba_comm *comm,
                            amoeba_products_fn *const prod[2], lane8 *r,
                            lane8 *y, const double rr[2], const double rpr[2], double rz[2],
                            pk_status *st)
{
    double rbr[2] = {0.0, 0.0};   /* r.(P r) */
    if (m->set.pcg_precond && apply_pairs(a, nl, w, comm, prod, 1, r, y, rbr, st)) return st->code;
    for (int k = 0; k < 2; k++) rz[k] = m->set.pcg_precond ? rpr[k] + rbr[k] : rr[k];
    return PK_OK;
}

pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], const pk_amoeba_comm *comm, double (*u)[6],
                         pk_amoeba_induce_work *w,
                         pk_amoeba_induce_info *info, pk_status *st)
{
    return amoeba_induce_run(&AMOEBA_PORTABLE, m, a, s, nl, pairs, rpole, comm, u, w, info, st);
}

pk_code amoeba_induce_run(const amoeba_kernels *kern, const pk_amoeba_model *m, const pk_atoms *a,
                          const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                          const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                          const pk_amoeba_comm *comm, double (*u)[6], pk_amoeba_induce_work *w,
                          pk_amoeba_induce_info *info, pk_status *st)
{
    const int n = a->nlocal, nall = n + a->nghost;
    const pk_amoeba_settings *set = &m->set;
    memset(info, 0, sizeof *info);
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    if ((size_t)nall > (size_t)INT_MAX / sizeof(lane8))   /* partner rows as int byte offsets */
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk: %d owned + ghost atoms on one rank; the induced-dipole solver "
                       "takes at most %d (use more MPI ranks)",
                       nall, (int)(INT_MAX / sizeof(lane8)));

    /* pair slots, padded to groups of 4: room for each listed atom's dipole pairs (its step
     * pairs within polar_cut and the preconditioner's: pk_amoeba_pairs' polar_count, a
     * bound) and, apart, for its preconditioner pairs (pc_count) */
    const int *npol = pairs->polar_count.data, *npc = pairs->pc_count.data;
    size_t total = 0, ptotal = 0;
    if (pk_buffer_reserve(&w->counts, (size_t)(nl->inum > 0 ? nl->inum : 1), sizeof(amoeba_slot),
                          st))
        return st->code;
    amoeba_slot *sl = w->counts.data;
    for (int ii = 0; ii < nl->inum; ii++) {
        sl[ii].room = (int)total;
        sl[ii].proom = (int)ptotal;
        total += ((size_t)npol[ii] + 3) / 4 * 4;
        ptotal += ((size_t)npc[ii] + 3) / 4 * 4;
    }
    if (total == 0) total = 1;
    if (ptotal == 0) ptotal = 1;
    const size_t rows = (size_t)(nall > 0 ? nall : 1);
    /* one double more than the groups: the products' duplicating load of a group's odd
     * pairs (lane4_dup_even(t + 13)) reads one past the group */
    if (pk_buffer_reserve(&w->pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->tensors, total * 4 + 1, sizeof(double), st) ||
        pk_buffer_reserve(&w->pc_pairs, ptotal, sizeof(int), st) ||
        pk_buffer_reserve(&w->pc_tensors, ptotal * 4 + 1, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->udir, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->conj, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->poli, (size_t)(n > 0 ? 2 * n : 1), sizeof(double), st) ||
        pk_buffer_reserve(&w->padded, rows, sizeof(lane8), st))
        return st->code;
    double (*field)[6] = w->field.data, (*udir)[6] = w->udir.data;

    /* direct dipoles u_dir = alpha E_perm (also the starting guess) */
    double ghosts = 0.0;
    if (direct_field(kern, m, a, s, nl, pairs, rpole, w, field, &ghosts, st)) return st->code;
    comm->reverse(comm->ctx, &field[0][0], 6);
    memset(u, 0, (size_t)nall * sizeof *u);
    memset(udir, 0, (size_t)nall * sizeof *udir);
    const int guess = set->pcg_guess || m->polarization == PK_AMOEBA_POLAR_DIRECT;
    for (int i = 0; i < n; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        for (int d = 0; d < 6; d++) {
            udir[i][d] = alpha * field[i][d];
            if (guess) u[i][d] = udir[i][d];
        }
    }
    if (m->polarization == PK_AMOEBA_POLAR_DIRECT) {
        info->converged = 1;
        comm->forward(comm->ctx, &u[0][0], 6);
        return PK_OK;
    }

    /* mutual: PCG on (alpha^-1 - T) u = E_perm for both sets at once (LAMMPS induce) */
    /* the products of each pair set: the kernels' where they can run this step's pairs */
    amoeba_products_fn *prod[2] = {pairs_apply, pairs_apply};
    for (int pc = 0; pc < 2 && kern->products; pc++)
        if (kern->products_fit(nl, sl, pc, pc ? w->pc_pairs.data : w->pairs.data,
                            pc ? w->pc_tensors.data : w->tensors.data))
            prod[pc] = kern->products;
    /* the products skip their communication when no rank has a ghost left in its pairs */
    comm->allreduce(comm->ctx, &ghosts, 1);
    w->local = ghosts == 0.0;
    double natoms = (double)n;
    comm->allreduce(comm->ctx, &natoms, 1);
    /* poli = max(alpha, POLMIN), then its inverse */
    double *poli = w->poli.data, *ipoli = poli + n;
    const double diag = set->usolve_diag;
    lane8 *rsd = w->rsd.data, *conj = w->conj.data, *y = w->padded.data;
    lane8 *pr = set->pcg_precond ? y : NULL;   /* P r for pcg_direction */
    /* the owned rows' padding columns stay 0 (the dot products read them); the ghost rows
     * are read only when the pairs name ghosts, after comm_rows has filled them; y's owned
     * rows are 0 before each product (apply_pairs) */
    memset(rsd, 0, (size_t)n * sizeof *rsd);
    memset(y, 0, (size_t)n * sizeof *y);
    reorder(n, u, 1);
    for (int i = 0; i < n; i++) {
        poli[i] = fmax(POLMIN, m->polarity[s->amtype[i]]);
        ipoli[i] = 1.0 / poli[i];
    }
    if (set->pcg_guess) {   /* r = alpha^-1 (u_dir - u) + T u, T u through conj */
        double unused[2];
        for (int i = 0; i < n; i++) memcpy(conj[i], u[i], sizeof u[i]);
        if (apply_pairs(a, nl, w, comm, prod, 0, conj, y, unused, st)) return st->code;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 6; j++)
            rsd[i][j] = set->pcg_guess ? (udir[i][DP(j)] - u[i][j]) * ipoli[i] + y[i][j]
                                       : udir[i][DP(j)] * ipoli[i];
    memset(y, 0, (size_t)n * sizeof *y);
    memset(conj, 0, (size_t)n * sizeof *conj);
    double rr[2], rpr[2], rz[2], cc[2];   /* rz: r.z of each set, summed over ranks */
    residual_sums(n, poli, diag, rsd, rr, rpr);
    if (residual_dot(m, a, nl, w, comm, prod, rsd, y, rr, rpr, rz, st)) return st->code;
    comm->allreduce(comm->ctx, rz, 2);
    const double first[2] = {0.0, 0.0};   /* conj = z */
    pcg_direction(n, first, poli, ipoli, diag, rsd, pr, conj, cc);

    double eps = 100.0;
    for (;;) {
        info->iterations++;
        /* cv = conj.((alpha^-1 - T) conj); rr and rz: the new r.r and r.z */
        double ctc[2], cv[2], al[2], beta[2];
        if (apply_pairs(a, nl, w, comm, prod, 0, conj, y, ctc, st)) return st->code;
        for (int k = 0; k < 2; k++) cv[k] = cc[k] - ctc[k];
        comm->allreduce(comm->ctx, cv, 2);
        for (int k = 0; k < 2; k++) al[k] = cv[k] != 0.0 ? rz[k] / cv[k] : cv[k];
        pcg_step(n, al, poli, ipoli, diag, conj, y, u, rsd, rr, rpr);
        double rsum[2] = {rr[0], rr[1]};
        comm->allreduce(comm->ctx, rsum, 2);
        eps = PK_AMOEBA_DEBYE * sqrt(fmax(rsum[0], rsum[1]) / natoms);
        info->converged = eps < set->polar_eps;
        if (info->converged || info->iterations >= set->polar_iter) {
            /* one "peek" step along the preconditioned residual */
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 6; d++) u[i][d] += set->pcg_peek * poli[i] * rsd[i][d];
            break;
        }
        double rznew[2];
        if (residual_dot(m, a, nl, w, comm, prod, rsd, y, rr, rpr, rznew, st)) return st->code;
        comm->allreduce(comm->ctx, rznew, 2);
        for (int k = 0; k < 2; k++) beta[k] = rz[k] != 0.0 ? rznew[k] / rz[k] : rznew[k];
        pcg_direction(n, beta, poli, ipoli, diag, rsd, pr, conj, cc);
        rz[0] = rznew[0], rz[1] = rznew[1];
    }
    info->rms = eps;
    if (!isfinite(eps))
        return pk_fail(st, PK_ERR_NUMERIC, "amoeba/pk: induced dipoles are not finite (PCG residual %g)", eps);
    reorder(n, u, 0);
    comm->forward(comm->ctx, &u[0][0], 6);
    return PK_OK;
}

void pk_amoeba_polar_energy(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const double (*u)[6], const pk_amoeba_induce_work *w, pk_out *out)
{
    const double f = -0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
    const double (*udir)[6] = w->udir.data;
    double e = 0.0;
    for (int i = 0; i < a->nlocal; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        if (alpha == 0.0) continue;   /* no dipole, no energy (LAMMPS would divide by 0) */
        const double ei = f / alpha * (u[i][0] * udir[i][3] + u[i][1] * udir[i][4] + u[i][2] * udir[i][5]);
        e += ei;
        if (out->eatom) out->eatom[i] += ei;
    }
    out->energy += e;
}
