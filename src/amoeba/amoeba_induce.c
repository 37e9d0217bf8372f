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

/* {a[0], a[1], b[0], b[1]} */
static inline lane4 lane4_join(const double *a, const double *b)
{
    return __builtin_shufflevector(lane2_load(a), lane2_load(b), 0, 1, 2, 3);
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
    const double (*x)[3];
    const double (*rpole)[13];
    double off2;                   /* polar_cut^2 */
    double start2, zero2;          /* S(r) = 1 up to start2 and 0 from zero2 (infinite when
                                      the switch is off) */
    amoeba_switch sw;
    int use_pc, mutual, nlocal;
} field_ctx;

/* The batch's class entries carry this flag on the preconditioner's pairs. */
#define PC_PAIR 8

/* Move the entries of i's list kept by gather_pairs to the front of the batch (pcf: the
 * list's preconditioner marks, NULL without the preconditioner). */
static inline int keep_pairs(const int *jlist, int nn, double off2, const unsigned char *pcf,
                             amoeba_batch *b, long *row)
{
    int n = 0;
    for (int jj = 0; jj < nn; jj++) {
        const int in_pc = pcf && pcf[jj] != 0;
        if (b->r2[jj] > off2 && !in_pc) continue;
        b->k[n] = b->k[jj];
        b->cls[n] = pk_amoeba_special(jlist[jj]) | (in_pc ? PC_PAIR : 0);
        b->rx[n] = b->rx[jj], b->ry[n] = b->ry[jj], b->rz[n] = b->rz[jj];
        b->r2[n] = b->r2[jj];
        row[n++] = row[jj];
    }
    return n;
}

/* The neighbours of i that the field or the preconditioner needs: within polar_cut, or
 * marked for the preconditioner (class | PC_PAIR) when it is used. The distances of all
 * the list's entries come from a SIMD loop; the kept entries are then moved to the front. */
static void gather_pairs(const field_ctx *c, int i, amoeba_batch *b)
{
    const pk_amoeba_list *nl = c->nl;
    const int *jlist = nl->firstneigh[i], nn = nl->numneigh[i];
    const double (*x)[3] = c->x;
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
    int *ks = b->k;
    double *rx = b->rx, *ry = b->ry, *rz = b->rz, *r2 = b->r2;
    long *row = (long *)(b->scratch + S_ROW * (size_t)b->cap);
#pragma omp simd
    for (int jj = 0; jj < nn; jj++) {
        const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
        const double dx = x[k][0] - xi, dy = x[k][1] - yi, dz = x[k][2] - zi;
        ks[jj] = k;
        row[jj] = 13 * (long)k;
        rx[jj] = dx, ry[jj] = dy, rz[jj] = dz;
        r2[jj] = dx * dx + dy * dy + dz * dz;
    }
    const unsigned char *pcf =
        c->use_pc ? nl->precond + (jlist - (const int *)nl->entries.data) : NULL;
    b->n = keep_pairs(jlist, nn, c->off2, pcf, b, row);
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
        const int cj = cls[j] & ~PC_PAIR;
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
 * pair beyond polar_cut keeps a zero T_ik) and the preconditioner blocks of the PC_PAIR pairs
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
        if (!(b->cls[j] & PC_PAIR)) continue;
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
                            const pk_amoeba_list *nl, const double (*rpole)[13],
                            pk_amoeba_induce_work *w, double (*field)[6], double *ghosts,
                            pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const int nt = pk_max_threads();
    field_ctx c = {m, s, nl, a->x, rpole, m->set.polar_cut * m->set.polar_cut, INFINITY,
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
            gather_pairs(&c, i, &b);
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

/* The 6 columns of the partners' rows at byte offsets k0...k3 of v, one lane4 per column
 * (lane = partner): {x_d x_p y_d y_p} of each row loaded whole and transposed, {z_d z_p}
 * by halves. */
static inline void partner_columns(const char *v, int k0, int k1, int k2, int k3, lane4 c[6])
{
    const double *v0 = (const double *)(v + k0), *v1 = (const double *)(v + k1);
    const double *v2 = (const double *)(v + k2), *v3 = (const double *)(v + k3);
    const lane4 r0 = lane4_load(v0), r1 = lane4_load(v1);
    const lane4 r2 = lane4_load(v2), r3 = lane4_load(v3);
    const lane4 d01 = lane4_even(r0, r1), p01 = lane4_odd(r0, r1);   /* {x0 x1 y0 y1} */
    const lane4 d23 = lane4_even(r2, r3), p23 = lane4_odd(r2, r3);
    c[0] = __builtin_shufflevector(d01, d23, 0, 1, 4, 5);
    c[1] = __builtin_shufflevector(p01, p23, 0, 1, 4, 5);
    c[2] = __builtin_shufflevector(d01, d23, 2, 3, 6, 7);
    c[3] = __builtin_shufflevector(p01, p23, 2, 3, 6, 7);
    const lane4 z02 = lane4_join(v0 + 4, v2 + 4), z13 = lane4_join(v1 + 4, v3 + 4);
    c[4] = lane4_even(z02, z13);
    c[5] = lane4_odd(z02, z13);
}

/* y_i += T_ik v_k and y_k += T_ik v_i for every stored pair (i, k) of the listed atoms
 * (pc picks the preconditioner's counts in the slots), both dipole sets (6 columns, lanes
 * order, in rows of 8 doubles: v and y padded). Each pair is stored once: per group of
 * four pairs of one atom i, the partners' columns are gathered into one vector per column
 * (lane = pair), T v_k is formed for the four, and T v_i for the partners is turned back
 * into rows and added to them. y goes through per-thread copies (acc, whose target is y)
 * summed in thread order. */
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
            const lane4 uxd = lane4_bcast(in[i][0]), uxp = lane4_bcast(in[i][1]);
            const lane4 uyd = lane4_bcast(in[i][2]), uyp = lane4_bcast(in[i][3]);
            const lane4 uzd = lane4_bcast(in[i][4]), uzp = lane4_bcast(in[i][5]);
            lane4 axd = {0, 0, 0, 0}, axp = axd, ayd = axd, ayp = axd, azd = axd, azp = axd;
            for (int e = begin; e < end; e += 4) {
                const int k0 = col[e], k1 = col[e + 1], k2 = col[e + 2], k3 = col[e + 3];
                lane4 sx, sy, sz, nb, d, p;
                memcpy(&sx, ten + 4 * e, sizeof sx);
                memcpy(&sy, ten + 4 * e + 4, sizeof sy);
                memcpy(&sz, ten + 4 * e + 8, sizeof sz);
                memcpy(&nb, ten + 4 * e + 12, sizeof nb);
                /* row i: T v_k = s (s.v_k) - b3 v_k */
                lane4 vk[6];
                partner_columns(v, k0, k1, k2, k3, vk);
                const lane4 svd = sx * vk[0] + sy * vk[2] + sz * vk[4];
                const lane4 svp = sx * vk[1] + sy * vk[3] + sz * vk[5];
                axd += nb * vk[0], axp += nb * vk[1], ayd += nb * vk[2], ayp += nb * vk[3];
                azd += nb * vk[4], azp += nb * vk[5];
                axd += sx * svd, axp += sx * svp, ayd += sy * svd, ayp += sy * svp;
                azd += sz * svd, azp += sz * svp;
                /* rows k: T v_i, back to rows {x_d x_p y_d y_p} and {z_d z_p} (the
                 * padding gets the other lanes) */
                const lane4 sud = sx * uxd + sy * uyd + sz * uzd;
                const lane4 sup = sx * uxp + sy * uyp + sz * uzp;
                d = sx * sud + nb * uxd, p = sx * sup + nb * uxp;
                const lane4 x02 = lane4_even(d, p), x13 = lane4_odd(d, p);
                d = sy * sud + nb * uyd, p = sy * sup + nb * uyp;
                const lane4 y02 = lane4_even(d, p), y13 = lane4_odd(d, p);
                lane4_add((double *)(y + k0), __builtin_shufflevector(x02, y02, 0, 1, 4, 5));
                lane4_add((double *)(y + k1), __builtin_shufflevector(x13, y13, 0, 1, 4, 5));
                lane4_add((double *)(y + k2), __builtin_shufflevector(x02, y02, 2, 3, 6, 7));
                lane4_add((double *)(y + k3), __builtin_shufflevector(x13, y13, 2, 3, 6, 7));
                d = sz * sud + nb * uzd, p = sz * sup + nb * uzp;
                const lane4 z02 = lane4_even(d, p), z13 = lane4_odd(d, p);
                lane4_add((double *)(y + k0) + 4, z02);
                lane4_add((double *)(y + k1) + 4, z13);
                lane4_add((double *)(y + k2) + 4, __builtin_shufflevector(z02, z02, 2, 3, 2, 3));
                lane4_add((double *)(y + k3) + 4, __builtin_shufflevector(z13, z13, 2, 3, 2, 3));
            }
            /* row i: the sum of the four lanes, as {d, p} of each component */
            const lane4 hx = lane4_even(axd, axp) + lane4_odd(axd, axp);
            const lane4 hy = lane4_even(ayd, ayp) + lane4_odd(ayd, ayp);
            const lane4 hz = lane4_even(azd, azp) + lane4_odd(azd, azp);
            double *yi = (double *)(y + sizeof(lane8) * (size_t)i);
            lane2_add(yi, lane4_fold(hx));
            lane2_add(yi + 2, lane4_fold(hy));
            lane2_add(yi + 4, lane4_fold(hz));
        }
    }
    pk_accum_reduce(acc);
}

/* Ghost values of v from their owners, unless the products need none. */
static void forward_ghosts(const pk_amoeba_induce_work *w, const pk_amoeba_comm *comm, double (*v)[6])
{
    if (!w->local) comm->forward(comm->ctx, &v[0][0], 6);
}

/* out = scale diag_i in_i (owned atoms; 0 for ghosts and where diag is NULL) plus the
 * products of one pair set (pc: the preconditioner's) with in, through padded copies of
 * in and out (w->padded, reserved for all atoms); the ghosts' rows, when the pairs name
 * ghosts, are summed onto their owners. */
static pk_code apply_pairs(const pk_atoms *a, const pk_amoeba_list *nl, pk_amoeba_induce_work *w,
                           const pk_amoeba_comm *comm, int pc, double scale, const double *diag,
                           const double (*in)[6], double (*out)[6], pk_status *st)
{
    const int nrows = w->local ? a->nlocal : a->nlocal + a->nghost;
    lane8 *v8 = w->padded.data, *y8 = v8 + nrows;
    for (int i = 0; i < nrows; i++)
        for (int j = 0; j < 8; j++) {
            v8[i][j] = j < 6 ? in[i][j] : 0.0;
            y8[i][j] = 0.0;
        }
    if (pk_accum_begin(&w->acc, pk_max_threads(), &y8[0][0], (size_t)nrows * 8, st))
        return st->code;
    pairs_apply(nl, w->counts.data, pc, pc ? w->pc_pairs.data : w->pairs.data,
                pc ? w->pc_tensors.data : w->tensors.data, &w->acc, v8);
    for (int i = 0; i < nrows; i++) {
        const double p = diag && i < a->nlocal ? scale * diag[i] : 0.0;
        for (int j = 0; j < 6; j++) out[i][j] = p * in[i][j] + y8[i][j];
    }
    if (!w->local) comm->reverse(comm->ctx, &out[0][0], 6);
    return PK_OK;
}

/* Field T v of the dipoles v at the owned atoms (v's ghosts refreshed first when the
 * pairs name ghosts). */
static pk_code mutual_field(const pk_atoms *a, const pk_amoeba_list *nl, pk_amoeba_induce_work *w,
                            const pk_amoeba_comm *comm, double (*v)[6], double (*field)[6],
                            pk_status *st)
{
    forward_ghosts(w, comm, v);
    return apply_pairs(a, nl, w, comm, 0, 0.0, NULL, (const double (*)[6])v, field, st);
}

/* z = M r: usolve_diag * max(alpha_i, POLMIN) (poli) on the diagonal plus the neighbour
 * blocks (LAMMPS uscale0b APPLY). */
static pk_code precondition(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                            pk_amoeba_induce_work *w, const pk_amoeba_comm *comm, double (*r)[6],
                            double (*z)[6], pk_status *st)
{
    forward_ghosts(w, comm, r);
    return apply_pairs(a, nl, w, comm, 1, m->set.usolve_diag, w->poli.data,
                       (const double (*)[6])r, z, st);
}

/* Inside the PCG an atom's 6 columns are ordered x_d x_p y_d y_p z_d z_p ("lanes"), so
 * that rows_apply works on both dipole sets as pairs of SIMD lanes; column j belongs to
 * set j & 1 and is column DP(j) of the d-then-p order used outside (u, udir, field). */
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

/* Sums over owned atoms of a.b for the d (out[0]) and p (out[1]) sets (lanes order). */
static void dot2(int n, const double (*x)[6], const double (*y)[6], double out[2])
{
    out[0] = out[1] = 0.0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            out[0] += x[i][2 * c] * y[i][2 * c];
            out[1] += x[i][2 * c + 1] * y[i][2 * c + 1];
        }
}

pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const double (*rpole)[13],
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
    size_t nv = (size_t)nall * 6;
    if (pk_buffer_reserve(&w->pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->pc_pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->pc_tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->udir, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->zrsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->conj, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->vec, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->poli, (size_t)(n > 0 ? n : 1), sizeof(double), st) ||
        pk_buffer_reserve(&w->padded, (size_t)(nall > 0 ? nall : 1) * 16, sizeof(double), st))
        return st->code;
    double (*field)[6] = w->field.data, (*udir)[6] = w->udir.data;
    double (*rsd)[6] = w->rsd.data, (*zrsd)[6] = w->zrsd.data;
    double (*conj)[6] = w->conj.data, (*vec)[6] = w->vec.data;
    double *poli = w->poli.data;

    /* direct dipoles u_dir = alpha E_perm (also the starting guess) */
    double ghosts = 0.0;
    if (direct_field(m, a, s, nl, rpole, w, field, &ghosts, st)) return st->code;
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
    reorder(n, u, 1);
    if (mutual_field(a, nl, w, comm, u, field, st)) return st->code;
    for (int i = 0; i < n; i++) {
        poli[i] = fmax(POLMIN, m->polarity[s->amtype[i]]);
        for (int j = 0; j < 6; j++) {
            rsd[i][j] = set->pcg_guess ? (udir[i][DP(j)] - u[i][j]) / poli[i] + field[i][j]
                                       : udir[i][DP(j)] / poli[i];
            zrsd[i][j] = rsd[i][j];
        }
    }
    if (set->pcg_precond && precondition(m, a, nl, w, comm, rsd, zrsd, st)) return st->code;
    memcpy(conj, zrsd, (size_t)n * sizeof *conj);

    double eps = 100.0;
    for (int done = 0; !done;) {
        info->iterations++;
        /* vec = alpha^-1 conj - T conj */
        if (mutual_field(a, nl, w, comm, conj, field, st)) return st->code;
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) vec[i][d] = conj[i][d] / poli[i] - field[i][d];
        double red[4], cv[2], rz[2];
        dot2(n, (const double (*)[6])conj, (const double (*)[6])vec, cv);
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, rz);
        red[0] = cv[0], red[1] = cv[1], red[2] = rz[0], red[3] = rz[1];
        comm->allreduce(comm->ctx, red, 4);
        const double sum[2] = {red[2], red[3]};
        double step[2];
        for (int k = 0; k < 2; k++) step[k] = red[k] != 0.0 ? sum[k] / red[k] : red[k];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) {
                const double al = step[d & 1];
                u[i][d] += al * conj[i][d];
                rsd[i][d] -= al * vec[i][d];
                zrsd[i][d] = rsd[i][d];
            }
        if (set->pcg_precond && precondition(m, a, nl, w, comm, rsd, zrsd, st)) return st->code;
        double beta[2];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, beta);
        comm->allreduce(comm->ctx, beta, 2);
        for (int k = 0; k < 2; k++)
            if (sum[k] != 0.0) beta[k] /= sum[k];
        double ee[2];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) conj[i][d] = zrsd[i][d] + beta[d & 1] * conj[i][d];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])rsd, ee);
        comm->allreduce(comm->ctx, ee, 2);
        eps = PK_AMOEBA_DEBYE * sqrt(fmax(ee[0], ee[1]) / natoms);
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
