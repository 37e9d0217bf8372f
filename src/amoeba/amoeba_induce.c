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

#ifdef __AVX__
#include <immintrin.h>
#endif

#define POLMIN 1.0e-8   /* smallest polarizability used as a PCG weight (LAMMPS) */

void pk_amoeba_induce_work_free(pk_amoeba_induce_work *w)
{
    pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->zrsd, &w->conj, &w->vec, &w->poli,
                      &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors, &w->counts,
                      &w->padded, &w->batches.mem};
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) pk_buffer_free(b[k]);
    pk_accum_free(&w->acc);
}

double pk_amoeba_induce_work_bytes(const pk_amoeba_induce_work *w)
{
    const pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->zrsd, &w->conj, &w->vec,
                            &w->poli, &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors,
                            &w->counts, &w->padded, &w->acc.copies, &w->batches.mem};
    double bytes = 0.0;
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) bytes += (double)b[k]->bytes;
    return bytes;
}

/* Per listed atom ii: room, where the room for its pairs would start if every entry of
 * the list were kept (padded to groups of 4); its dipole pairs' and preconditioner pairs'
 * first entries and counts, padded to a multiple of 4 with zero tensors. A thread stores
 * the pairs of its atoms one after the other from the room of its first atom, so that a
 * product streams through them. */
typedef struct {
    int room, off, ndip, poff, npc;
} slot;

/* SIMD vectors of four and two doubles (GCC/Clang vector extensions), and an atom's 6
 * columns (lanes order, below) padded to 8 doubles in the products. */
typedef double lane4 __attribute__((vector_size(4 * sizeof(double))));
typedef double lane2 __attribute__((vector_size(2 * sizeof(double))));
typedef double lane8[8];

/* The per-step tensors of a pair set, stored by groups of 4 pairs: entry e has its partner
 * col[e] (the byte offset of the partner's lane8 row in a product; an int, so up to 2^25
 * atoms on a rank) and its tensor {s, -b3} (the header), component c at
 * ten[4 (e - e % 4) + 4 c + e % 4], so that a group's components load as four lane4. */
static double *tensor_slot(void *ten, int e)
{
    return (double *)ten + 4 * (e - e % 4) + e % 4;
}

static inline lane2 lane2_load(const double *p)
{
    lane2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void lane2_add(double *p, lane2 v)
{
    lane2 o;
    memcpy(&o, p, sizeof o);
    o += v;
    memcpy(p, &o, sizeof o);
}

static inline void lane4_add(double *p, lane4 v)
{
    lane4 o;
    memcpy(&o, p, sizeof o);
    o += v;
    memcpy(p, &o, sizeof o);
}

/* {a0, b0, a2, b2} and {a1, b1, a3, b3} */
static inline lane4 lane4_even(lane4 a, lane4 b)
{
    return __builtin_shufflevector(a, b, 0, 4, 2, 6);
}

static inline lane4 lane4_odd(lane4 a, lane4 b)
{
    return __builtin_shufflevector(a, b, 1, 5, 3, 7);
}

/* a0 + a2 and a1 + a3 */
static inline lane2 lane4_fold(lane4 a)
{
    return __builtin_shufflevector(a, a, 0, 1) + __builtin_shufflevector(a, a, 2, 3);
}

static inline lane4 lane4_bcast(double v)
{
    const lane4 r = {v, v, v, v};
    return r;
}

static inline lane4 lane4_load(const double *p)
{
    lane4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- direct field ----------------------------------------------------------------------- */

/* The batch's scratch arrays: per-pair inputs (pair_inputs, thole_factors), then results. */
enum {
    S_ROW,                         /* k's row in rpole, 13 k (a long) */
    S_DSC, S_PSC, S_USC,           /* d, p and mutual scale factors */
    S_POL, S_PDAMP, S_THOLE,       /* k's alpha, alpha^(1/6) and Thole parameter */
    S_EXP, S_A,                    /* Thole e^-a and a (amoeba_thole_damp) */
    S_FDX, S_FDY, S_FDZ, S_FPX, S_FPY, S_FPZ,   /* field at k, d and p sets */
    S_TX, S_TY, S_TZ, S_TB,        /* dipole-dipole tensor {s, -b3} */
    S_PX, S_PY, S_PZ, S_PB,        /* preconditioner block, the same */
    S_COUNT
};

/* What the direct-field kernel reads. */
typedef struct {
    const pk_amoeba_model *m;
    const pk_amoeba_sites *s;
    const pk_amoeba_list *nl;
    const pk_amoeba_pairs *pairs;
    const double (*x)[3];
    const double (*rpole)[13];
    double off2;                   /* polar_cut^2 */
    double start2, zero2;          /* S(r) = 1 up to start2 and 0 from zero2 (infinite when
                                      the switch is off) */
    amoeba_switch sw;
    int use_pc, mutual, nlocal;
} field_ctx;

/* The pairs of listed atom ii that the field or the preconditioner needs, from the step's
 * pairs: within polar_cut, or marked for the preconditioner (b->pc) when it is used; and
 * the partners' rows in rpole. */
static void gather_pairs(const field_ctx *c, int i, int ii, amoeba_batch *b)
{
    amoeba_batch_pairs(b, c->pairs, c->x, i, ii, c->off2, c->use_pc);
    const int *ks = b->k, n = b->n;
    long *row = (long *)(b->scratch + S_ROW * (size_t)b->cap);
#pragma omp simd
    for (int j = 0; j < n; j++) row[j] = 13 * (long)ks[j];
}

/* col[j]: the byte offset of partner j's row in the products, a ghost replaced by its
 * owned copy when here. Returns how many partners are still ghosts. */
static int partner_rows(const field_ctx *c, const amoeba_batch *b, int *col)
{
    const int *owner = c->s->owner, *ks = b->k, nlocal = c->nlocal, n = b->n;
    int ghosts = 0;
    if (owner) {
#pragma omp simd reduction(+ : ghosts)
        for (int j = 0; j < n; j++) {
            const int k = ks[j], o = owner[k], kk = o >= 0 ? o : k;
            col[j] = (int)sizeof(lane8) * kk;
            ghosts += kk >= nlocal;
        }
    } else {
#pragma omp simd reduction(+ : ghosts)
        for (int j = 0; j < n; j++) {
            col[j] = (int)sizeof(lane8) * ks[j];
            ghosts += ks[j] >= nlocal;
        }
    }
    return ghosts;
}

/* Per-pair inputs of the batch of i: scale factors by group and special class, k's type
 * data. */
static void pair_inputs(const field_ctx *c, int i, const amoeba_batch *b)
{
    const pk_amoeba_model *m = c->m;
    const int *amtype = c->s->amtype, *amgroup = c->s->amgroup, *ks = b->k, *cls = b->cls;
    const int gi = amgroup[i], n = b->n;
    const double *pol = m->polarity, *pdamp = m->pdamp, *thole = m->thole;
    const double *intra = m->polar_intra, *pscale = m->polar_scale;
    const double d11 = m->direct11_scale, u11 = m->mutual11_scale;
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
#pragma omp simd
    for (int j = 0; j < n; j++) {
        const int k = ks[j], tk = amtype[k], same = amgroup[k] == gi;
        const int cj = cls[j];
        const double p_in = intra[cj], p_out = pscale[cj];
        const double dsc = same ? d11 : 1.0, psc = same ? p_in : p_out, usc = same ? u11 : 1.0;
        sc[S_DSC * cap + j] = dsc;
        sc[S_PSC * cap + j] = psc;
        sc[S_USC * cap + j] = usc;
        sc[S_POL * cap + j] = pol[tk];
        sc[S_PDAMP * cap + j] = pdamp[tk];
        sc[S_THOLE * cap + j] = thole[tk];
    }
}

/* Thole's e^-a and a of the batch's pairs (amoeba_thole_damp), in one SIMD loop. */
static void thole_factors(const field_ctx *c, int i, const amoeba_batch *b)
{
    const int ti = c->s->amtype[i];
    const double pdi = c->m->pdamp[ti], thi = c->m->thole[ti];
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    const int n = b->n;
#pragma omp simd
    for (int j = 0; j < n; j++) {
        const amoeba_thole_ae t = amoeba_thole_damp(pdi, sc[S_PDAMP * cap + j], thi,
                                                    sc[S_THOLE * cap + j], sqrt(b->r2[j]));
        sc[S_A * cap + j] = t.a;
        sc[S_EXP * cap + j] = t.e;
    }
}

/* The pair kernel over the batch of i (SIMD): permanent fields at k (results) and at i
 * (added to fi[6], d then p set), the dipole-dipole tensor and the preconditioner block. */
static void pair_fields(const field_ctx *c, int i, const amoeba_batch *b, double fi[6])
{
    const double (*rp)[13] = c->rpole;
    const double *pi = rp[i];
    const double ci = pi[0], dix = pi[1], diy = pi[2], diz = pi[3];
    const double qxx = pi[4], qxy = pi[5], qxz = pi[6], qyy = pi[8], qyz = pi[9], qzz = pi[12];
    const double poli = c->m->polarity[c->s->amtype[i]];
    const double off2 = c->off2, start2 = c->start2, zero2 = c->zero2;
    const double sw0 = c->sw.start, sww = c->sw.width;
    const double *rxs = b->rx, *rys = b->ry, *rzs = b->rz, *r2s = b->r2;
    double *const sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    const long *row = (const long *)(sc + S_ROW * cap);
    const double *p0 = &rp[0][0];
    const int n = b->n;
    double fdx = 0.0, fdy = 0.0, fdz = 0.0, fpx = 0.0, fpy = 0.0, fpz = 0.0;
#pragma omp simd reduction(+ : fdx, fdy, fdz, fpx, fpy, fpz)
    for (int j = 0; j < n; j++) {
        const double rx = rxs[j], ry = rys[j], rz = rzs[j], r2 = r2s[j];
        const double rr = sqrt(r2);
        /* S(r) of SMOOTH mode (amoeba_switch_eval), 1 in LAMMPS mode; the field and T_ik
         * only within polar_cut (a preconditioner pair may be farther in LAMMPS mode) */
        const double xs = (rr - sw0) / sww;
        const double taper = 1.0 - xs * xs * xs * (10.0 - xs * (15.0 - 6.0 * xs));
        const double sr = r2 >= zero2 ? 0.0 : r2 > start2 ? taper : 1.0;
        const double fm = r2 <= off2 ? sr : 0.0;
        /* Thole-damped 1/r^3, 3/r^5, 15/r^7 */
        const double e = sc[S_EXP * cap + j], a = sc[S_A * cap + j];
        const double rr1 = 1.0 / rr, rr2 = rr1 * rr1;
        const double rr3 = rr2 * rr1, rr5 = 3.0 * rr2 * rr3, rr7 = 5.0 * rr2 * rr5;
        const double b0 = (1.0 - e) * rr3, b1 = (1.0 - e * (1.0 + a)) * rr5;
        const double b2 = (1.0 - e * (1.0 + a + 0.6 * a * a)) * rr7;
        /* fields of k's moments at i and of i's at k (Tinker udirect2b; Q symmetric) */
        const long o = row[j];
        const double ck = p0[o], dkx = p0[o + 1], dky = p0[o + 2], dkz = p0[o + 3];
        const double qix = qxx * rx + qxy * ry + qxz * rz;
        const double qiy = qxy * rx + qyy * ry + qyz * rz;
        const double qiz = qxz * rx + qyz * ry + qzz * rz;
        const double qkx = p0[o + 4] * rx + p0[o + 5] * ry + p0[o + 6] * rz;
        const double qky = p0[o + 5] * rx + p0[o + 8] * ry + p0[o + 9] * rz;
        const double qkz = p0[o + 6] * rx + p0[o + 9] * ry + p0[o + 12] * rz;
        const double dir = dix * rx + diy * ry + diz * rz;
        const double dkr = dkx * rx + dky * ry + dkz * rz;
        const double qir = qix * rx + qiy * ry + qiz * rz;
        const double qkr = qkx * rx + qky * ry + qkz * rz;
        const double gk = b0 * ck - b1 * dkr + b2 * qkr;
        const double gi = b0 * ci + b1 * dir + b2 * qir;
        const double eix = -rx * gk - b0 * dkx + 2.0 * b1 * qkx;
        const double eiy = -ry * gk - b0 * dky + 2.0 * b1 * qky;
        const double eiz = -rz * gk - b0 * dkz + 2.0 * b1 * qkz;
        const double ekx = rx * gi - b0 * dix - 2.0 * b1 * qix;
        const double eky = ry * gi - b0 * diy - 2.0 * b1 * qiy;
        const double ekz = rz * gi - b0 * diz - 2.0 * b1 * qiz;
        /* the field is linear in the kernels: the unscaled one, times each set's scale */
        const double ds = fm * sc[S_DSC * cap + j], ps = fm * sc[S_PSC * cap + j];
        fdx += ds * eix, fdy += ds * eiy, fdz += ds * eiz;
        fpx += ps * eix, fpy += ps * eiy, fpz += ps * eiz;
        sc[S_FDX * cap + j] = ds * ekx, sc[S_FDY * cap + j] = ds * eky;
        sc[S_FDZ * cap + j] = ds * ekz, sc[S_FPX * cap + j] = ps * ekx;
        sc[S_FPY * cap + j] = ps * eky, sc[S_FPZ * cap + j] = ps * ekz;
        /* T_ik = b5 r r^T - b3 I with b3 = S u l3 / r^3, b5 = S u 3 l5 / r^5 (b5 >= 0, but
         * S rounds to -1e-17 just inside the cutoff); the preconditioner block of a pair the
         * list marked at reneighbouring is alpha_i alpha_k T_ik (LAMMPS uscale0b) */
        const double us = sr * sc[S_USC * cap + j];
        const double b5 = us * b1, q = b5 > 0.0 ? sqrt(b5) : 0.0;
        const double tm = r2 <= off2 ? 1.0 : 0.0;
        sc[S_TX * cap + j] = tm * q * rx, sc[S_TY * cap + j] = tm * q * ry;
        sc[S_TZ * cap + j] = tm * q * rz, sc[S_TB * cap + j] = -tm * us * b0;
        const double pol = poli * sc[S_POL * cap + j], b5p = b5 * pol;
        const double qp = b5p > 0.0 ? sqrt(b5p) : 0.0;
        sc[S_PX * cap + j] = qp * rx, sc[S_PY * cap + j] = qp * ry, sc[S_PZ * cap + j] = qp * rz;
        sc[S_PB * cap + j] = -us * b0 * pol;
    }
    fi[0] += fdx, fi[1] += fdy, fi[2] += fdz;
    fi[3] += fpx, fi[4] += fpy, fi[5] += fpz;
}

/* Add the batch's fields at the partners to fl (d then p set): four pairs at a time, their
 * six result arrays transposed into rows. */
static void add_fields(const amoeba_batch *b, double (*fl)[6])
{
    const double *sc = b->scratch;
    const size_t cap = (size_t)b->cap;
    int j = 0;
    for (; j + 4 <= b->n; j += 4) {
        lane4 f[6];
        for (int d = 0; d < 6; d++) f[d] = lane4_load(sc + (S_FDX + d) * cap + j);
        /* rows {dx dy dz px} of the four, and {py pz} */
        const lane4 a01 = lane4_even(f[0], f[1]), b01 = lane4_odd(f[0], f[1]);
        const lane4 a23 = lane4_even(f[2], f[3]), b23 = lane4_odd(f[2], f[3]);
        const lane4 c45 = lane4_even(f[4], f[5]), d45 = lane4_odd(f[4], f[5]);
        lane4_add(fl[b->k[j]], __builtin_shufflevector(a01, a23, 0, 1, 4, 5));
        lane4_add(fl[b->k[j + 1]], __builtin_shufflevector(b01, b23, 0, 1, 4, 5));
        lane4_add(fl[b->k[j + 2]], __builtin_shufflevector(a01, a23, 2, 3, 6, 7));
        lane4_add(fl[b->k[j + 3]], __builtin_shufflevector(b01, b23, 2, 3, 6, 7));
        lane2_add(fl[b->k[j]] + 4, __builtin_shufflevector(c45, c45, 0, 1));
        lane2_add(fl[b->k[j + 1]] + 4, __builtin_shufflevector(d45, d45, 0, 1));
        lane2_add(fl[b->k[j + 2]] + 4, __builtin_shufflevector(c45, c45, 2, 3));
        lane2_add(fl[b->k[j + 3]] + 4, __builtin_shufflevector(d45, d45, 2, 3));
    }
    for (; j < b->n; j++)
        for (int d = 0; d < 6; d++) fl[b->k[j]][d] += sc[(S_FDX + d) * cap + j];
}

/* Store the batch's tensors at entries off...: all the gathered pairs (a preconditioner
 * pair beyond polar_cut keeps a zero T_ik) and the preconditioner blocks of the marked pairs
 * (zero where S(r) is), both padded to a multiple of 4 (partner i, zero tensor); col holds
 * the partners. */
static void store_tensors(const amoeba_batch *b, int i, int off, int poff, int *col,
                          double *ten, int *pcol, double *pten, slot *sl)
{
    const size_t cap = (size_t)b->cap;
    double *sc = b->scratch;
    const int n = b->n, npad = (n + 3) / 4 * 4;
    for (int s = S_TX; s <= S_TB; s++)
        for (int j = n; j < npad; j++) sc[s * cap + j] = 0.0;
    for (int j = n; j < npad; j++) col[off + j] = (int)sizeof(lane8) * i;
    for (int g = 0; g < npad; g += 4)   /* a group: 4 components of 4 pairs */
        for (int s = 0; s < 4; s++)
            memcpy(ten + 4 * ((size_t)off + g + s), sc + (S_TX + s) * cap + g, 4 * sizeof(double));
    int np = 0;
    for (int j = 0; j < n; j++) {
        if (!b->pc[j]) continue;
        double *t = tensor_slot(pten, poff + np);
        for (int s = 0; s < 4; s++) t[4 * s] = sc[(S_PX + s) * cap + j];
        pcol[poff + np++] = col[off + j];
    }
    for (; np % 4; np++) {
        double *t = tensor_slot(pten, poff + np);
        for (int s = 0; s < 4; s++) t[4 * s] = 0.0;
        pcol[poff + np] = (int)sizeof(lane8) * i;
    }
    sl->off = off;
    sl->ndip = npad;
    sl->poff = poff;
    sl->npc = np;
}

/* Direct field of the permanent multipoles (both sets) and, for mutual polarization, the
 * pair tensors of the PCG; *ghosts counts the pairs whose partner is a ghost that is not
 * an image of an owned atom. */
static pk_code direct_field(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                            const double (*rpole)[13],
                            pk_amoeba_induce_work *w, double (*field)[6], double *ghosts,
                            pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const int nt = pk_max_threads();
    field_ctx c = {m, s, nl, pairs, a->x, rpole, m->set.polar_cut * m->set.polar_cut, INFINITY,
                   INFINITY, {0}, 0, m->polarization == PK_AMOEBA_POLAR_MUTUAL, a->nlocal};
    c.use_pc = c.mutual && m->set.pcg_precond;
    if (amoeba_switch_init(m, 1, &c.sw, st)) return st->code;
    if (c.sw.on) c.start2 = c.sw.start2, c.zero2 = c.off2;
    else c.sw.width = 1.0;   /* S(r) unused: keep its arithmetic finite */
    slot *sl = w->counts.data;
    int *col = w->pairs.data, *pcol = w->pc_pairs.data;
    double *ten = w->tensors.data, *pten = w->pc_tensors.data;

    memset(field, 0, (size_t)nall * sizeof *field);
    if (pk_accum_begin(&w->acc, nt, &field[0][0], (size_t)nall * 6, st) ||
        amoeba_batches_begin(&w->batches, nl, nt, S_COUNT, st))
        return st->code;
    int remote = 0;
#pragma omp parallel num_threads(nt) reduction(+ : remote)
    {
        const int tid = pk_thread_id();
        double (*fl)[6] = (double (*)[6])pk_accum_slice(&w->acc, tid);
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        int off = -1, poff = -1;   /* where this thread's next atom's pairs go */
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            if (off < 0) off = poff = sl[ii].room;
            gather_pairs(&c, i, ii, &b);
            remote += partner_rows(&c, &b, col + off);
            pair_inputs(&c, i, &b);
            thole_factors(&c, i, &b);
            pair_fields(&c, i, &b, fl[i]);
            add_fields(&b, fl);
            if (!c.mutual) continue;
            store_tensors(&b, i, off, poff, col, ten, pcol, pten, &sl[ii]);
            off += sl[ii].ndip;
            poff += sl[ii].npc;
        }
    }
    pk_accum_reduce(&w->acc);
    *ghosts = remote;
    return PK_OK;
}

/* ---- PCG products ----------------------------------------------------------------------- */

/* Lane moves of the products. With AVX they are written as intrinsics so that they compile
 * to broadcasting and duplicating loads and blends, which cost no shuffle unit: GCC turns
 * the equivalent generic shuffles into cross-lane permutes, which on Zen 3 take a slot of
 * an FMA pipe each. */
static inline lane4 lane4_bcast2(const double *p)   /* {p0 p1 p0 p1} */
{
#ifdef __AVX__
    return (lane4)_mm256_broadcast_pd((const __m128d *)p);
#else
    const lane2 h = lane2_load(p);
    return __builtin_shufflevector(h, h, 0, 1, 0, 1);
#endif
}

static inline lane4 lane4_dup_even(const double *p)   /* {p0 p0 p2 p2} */
{
#ifdef __AVX__
    return (lane4)_mm256_movedup_pd(_mm256_loadu_pd(p));
#else
    const lane4 v = lane4_load(p);
    return __builtin_shufflevector(v, v, 0, 0, 2, 2);
#endif
}

static inline lane4 lane4_blend(lane4 a, lane4 b)   /* {a0 a1 b2 b3} */
{
#ifdef __AVX__
    return (lane4)_mm256_blend_pd((__m256d)a, (__m256d)b, 12);
#else
    return __builtin_shufflevector(a, b, 0, 1, 6, 7);
#endif
}

static inline lane2 lane4_high(lane4 a)   /* {a2 a3} */
{
#ifdef __AVX__
    return (lane2)_mm256_extractf128_pd((__m256d)a, 1);
#else
    return __builtin_shufflevector(a, a, 2, 3);
#endif
}

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
 * y goes through per-thread copies (acc, whose target is y) summed in thread order. */
static void pairs_apply(const pk_amoeba_list *nl, const slot *sl, int pc, const int *col,
                        const double *ten, pk_accum *acc, const lane8 *in)
{
    const char *v = (const char *)in;
#pragma omp parallel num_threads(acc->nthreads)
    {
        char *y = (char *)pk_accum_slice(acc, pk_thread_id());
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
        }
    }
    pk_accum_reduce(acc);
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

/* y = the products of one pair set (pc: the preconditioner's) with v; when the pairs name
 * ghosts, v's ghost rows are refreshed first and y's are summed onto their owners. */
static pk_code apply_pairs(const pk_atoms *a, const pk_amoeba_list *nl, pk_amoeba_induce_work *w,
                           const pk_amoeba_comm *comm, int pc, lane8 *v, lane8 *y, pk_status *st)
{
    const int nrows = w->local ? a->nlocal : a->nlocal + a->nghost;
    if (!w->local) comm_rows(a, w, comm, v, 0);
    memset(y, 0, (size_t)nrows * sizeof *y);
    if (pk_accum_begin(&w->acc, pk_max_threads(), &y[0][0], (size_t)nrows * 8, st))
        return st->code;
    pairs_apply(nl, w->counts.data, pc, pc ? w->pc_pairs.data : w->pairs.data,
                pc ? w->pc_tensors.data : w->tensors.data, &w->acc, v);
    if (!w->local) comm_rows(a, w, comm, y, 1);
    return PK_OK;
}

/* The d (out[0]) and p (out[1]) parts of the sums a and b of a row's two halves (lanes
 * order: even lanes belong to the d set). */
static void sum_sets(lane4 a, lane4 b, double out[2])
{
    out[0] = (a[0] + a[2]) + (b[0] + b[2]);
    out[1] = (a[1] + a[3]) + (b[1] + b[3]);
}

/* The field T v of the dipoles v at the owned atoms, into y. */
static pk_code mutual_field(const pk_atoms *a, const pk_amoeba_list *nl, pk_amoeba_induce_work *w,
                            const pk_amoeba_comm *comm, lane8 *v, lane8 *y, pk_status *st)
{
    return apply_pairs(a, nl, w, comm, 0, v, y, st);
}

/* z = M r: usolve_diag * max(alpha_i, POLMIN) (poli) on the diagonal plus the neighbour
 * blocks (LAMMPS uscale0b APPLY), for the owned atoms; rz = r.z of each set there. The
 * blocks' products go through w->padded. */
static pk_code precondition(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                            pk_amoeba_induce_work *w, const pk_amoeba_comm *comm, lane8 *r,
                            lane8 *z, double rz[2], pk_status *st)
{
    lane8 *y = w->padded.data;
    if (apply_pairs(a, nl, w, comm, 1, r, y, st)) return st->code;
    const double *poli = w->poli.data, diag = m->set.usolve_diag;
    lane4 s0 = {0, 0, 0, 0}, s1 = s0;
    for (int i = 0; i < a->nlocal; i++) {
        const lane4 p = lane4_bcast(diag * poli[i]);
        const lane4 r0 = lane4_load(r[i]), r1 = lane4_load(r[i] + 4);
        const lane4 z0 = p * r0 + lane4_load(y[i]), z1 = p * r1 + lane4_load(y[i] + 4);
        memcpy(z[i], &z0, sizeof z0);
        memcpy(z[i] + 4, &z1, sizeof z1);
        s0 += r0 * z0, s1 += r1 * z1;
    }
    sum_sets(s0, s1, rz);
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

/* out = a.b of each set over the n owned atoms. */
static void dot_sets(int n, const lane8 *a, const lane8 *b, double out[2])
{
    lane4 s0 = {0, 0, 0, 0}, s1 = s0;
    for (int i = 0; i < n; i++) {
        s0 += lane4_load(a[i]) * lane4_load(b[i]);
        s1 += lane4_load(a[i] + 4) * lane4_load(b[i] + 4);
    }
    sum_sets(s0, s1, out);
}

/* vec = alpha^-1 conj - T conj (y = T conj) at the n owned atoms; cv = conj.vec of each
 * set. */
static void pcg_matvec(int n, const double *ipoli, const lane8 *conj, const lane8 *y, lane8 *vec,
                       double cv[2])
{
    lane4 s0 = {0, 0, 0, 0}, s1 = s0;
    for (int i = 0; i < n; i++) {
        const lane4 ip = lane4_bcast(ipoli[i]);
        const lane4 c0 = lane4_load(conj[i]), c1 = lane4_load(conj[i] + 4);
        const lane4 v0 = c0 * ip - lane4_load(y[i]), v1 = c1 * ip - lane4_load(y[i] + 4);
        memcpy(vec[i], &v0, sizeof v0);
        memcpy(vec[i] + 4, &v1, sizeof v1);
        s0 += c0 * v0, s1 += c1 * v1;
    }
    sum_sets(s0, s1, cv);
}

/* u += al conj, r -= al vec (al of each set) at the n owned atoms; rr = r.r of each set. */
static void pcg_step(int n, const double al[2], const lane8 *conj, const lane8 *vec,
                     double (*u)[6], lane8 *r, double rr[2])
{
    const lane4 a4 = {al[0], al[1], al[0], al[1]};
    const lane2 a2 = {al[0], al[1]};
    lane4 s0 = {0, 0, 0, 0}, s1 = s0;
    for (int i = 0; i < n; i++) {
        lane4_add(u[i], a4 * lane4_load(conj[i]));
        lane2_add(u[i] + 4, a2 * lane2_load(conj[i] + 4));
        const lane4 r0 = lane4_load(r[i]) - a4 * lane4_load(vec[i]);
        const lane4 r1 = lane4_load(r[i] + 4) - a4 * lane4_load(vec[i] + 4);
        memcpy(r[i], &r0, sizeof r0);
        memcpy(r[i] + 4, &r1, sizeof r1);
        s0 += r0 * r0, s1 += r1 * r1;
    }
    sum_sets(s0, s1, rr);
}

pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], const pk_amoeba_comm *comm, double (*u)[6],
                         pk_amoeba_induce_work *w,
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

    /* pair slots: room for every entry of the list, in list order, padded to groups of 4 */
    size_t total = 0;
    if (pk_buffer_reserve(&w->counts, (size_t)(nl->inum > 0 ? nl->inum : 1), sizeof(slot), st))
        return st->code;
    slot *sl = w->counts.data;
    for (int ii = 0; ii < nl->inum; ii++) {
        sl[ii].room = (int)total;
        total += ((size_t)nl->numneigh[nl->ilist[ii]] + 3) / 4 * 4;
    }
    if (total == 0) total = 1;
    const size_t rows = (size_t)(nall > 0 ? nall : 1);
    if (pk_buffer_reserve(&w->pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->pc_pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->pc_tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->udir, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->zrsd, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->conj, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->vec, rows, sizeof(lane8), st) ||
        pk_buffer_reserve(&w->poli, (size_t)(n > 0 ? 2 * n : 1), sizeof(double), st) ||
        pk_buffer_reserve(&w->padded, rows, sizeof(lane8), st))
        return st->code;
    double (*field)[6] = w->field.data, (*udir)[6] = w->udir.data;

    /* direct dipoles u_dir = alpha E_perm (also the starting guess) */
    double ghosts = 0.0;
    if (direct_field(m, a, s, nl, pairs, rpole, w, field, &ghosts, st)) return st->code;
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
    /* the products skip their communication when no rank has a ghost left in its pairs */
    comm->allreduce(comm->ctx, &ghosts, 1);
    w->local = ghosts == 0.0;
    double natoms = (double)n;
    comm->allreduce(comm->ctx, &natoms, 1);
    /* poli = max(alpha, POLMIN), then its inverse */
    double *poli = w->poli.data, *ipoli = poli + n;
    lane8 *rsd = w->rsd.data, *conj = w->conj.data, *vec = w->vec.data, *y = w->padded.data;
    lane8 *zrsd = set->pcg_precond ? w->zrsd.data : rsd;   /* z = r without preconditioner */
    /* the owned rows' padding columns stay 0 (the dot products read them); the ghost rows
     * are read only when the pairs name ghosts, after comm_rows has filled them */
    memset(rsd, 0, (size_t)n * sizeof *rsd);
    memset(zrsd, 0, (size_t)n * sizeof *zrsd);
    memset(conj, 0, (size_t)n * sizeof *conj);
    memset(vec, 0, (size_t)n * sizeof *vec);
    reorder(n, u, 1);
    for (int i = 0; i < n; i++) {
        poli[i] = fmax(POLMIN, m->polarity[s->amtype[i]]);
        ipoli[i] = 1.0 / poli[i];
    }
    if (set->pcg_guess) {   /* r = alpha^-1 (u_dir - u) + T u, T u through conj */
        for (int i = 0; i < n; i++) memcpy(conj[i], u[i], sizeof u[i]);
        if (mutual_field(a, nl, w, comm, conj, y, st)) return st->code;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 6; j++)
            rsd[i][j] = set->pcg_guess ? (udir[i][DP(j)] - u[i][j]) * ipoli[i] + y[i][j]
                                       : udir[i][DP(j)] * ipoli[i];
    double rz[2];   /* r.z of each set, summed over ranks */
    if (set->pcg_precond) {
        if (precondition(m, a, nl, w, comm, rsd, zrsd, rz, st)) return st->code;
    } else {
        dot_sets(n, rsd, rsd, rz);
    }
    comm->allreduce(comm->ctx, rz, 2);
    memcpy(conj, zrsd, (size_t)n * sizeof *conj);

    double eps = 100.0;
    for (int done = 0; !done;) {
        info->iterations++;
        double cv[2], al[2], red[4];
        if (mutual_field(a, nl, w, comm, conj, y, st)) return st->code;
        pcg_matvec(n, ipoli, conj, y, vec, cv);
        comm->allreduce(comm->ctx, cv, 2);
        for (int k = 0; k < 2; k++) al[k] = cv[k] != 0.0 ? rz[k] / cv[k] : cv[k];
        pcg_step(n, al, conj, vec, u, rsd, red + 2);
        /* red: the new r.z (r.r without preconditioner), then r.r */
        if (set->pcg_precond) {
            if (precondition(m, a, nl, w, comm, rsd, zrsd, red, st)) return st->code;
        } else {
            red[0] = red[2], red[1] = red[3];
        }
        comm->allreduce(comm->ctx, red, 4);
        double beta[2];
        for (int k = 0; k < 2; k++) beta[k] = rz[k] != 0.0 ? red[k] / rz[k] : red[k];
        const lane4 b4 = {beta[0], beta[1], beta[0], beta[1]};
        for (int i = 0; i < n; i++) {
            const lane4 c0 = lane4_load(zrsd[i]) + b4 * lane4_load(conj[i]);
            const lane4 c1 = lane4_load(zrsd[i] + 4) + b4 * lane4_load(conj[i] + 4);
            memcpy(conj[i], &c0, sizeof c0);
            memcpy(conj[i] + 4, &c1, sizeof c1);
        }
        rz[0] = red[0], rz[1] = red[1];
        eps = PK_AMOEBA_DEBYE * sqrt(fmax(red[2], red[3]) / natoms);
        info->converged = eps < set->polar_eps;
        done = info->converged || info->iterations >= set->polar_iter;
        if (done)   /* one "peek" step along the preconditioned residual */
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 6; d++) u[i][d] += set->pcg_peek * poli[i] * rsd[i][d];
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
