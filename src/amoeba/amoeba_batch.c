/* Neighbour batches: the neighbours of one atom within a cutoff, gathered into arrays so
 * that a pair kernel runs over them as a SIMD loop (#pragma omp simd) and applies the
 * per-pair results in a scalar loop afterwards. The electrostatic kernels take their
 * neighbours from the step's pairs (pk_amoeba_pairs: the list entries within the cutoffs,
 * found once per step, so that each kernel skips the list's skin without testing it);
 * HAL gathers its own from the step's candidates (amoeba_hal.c: its distances are between
 * H-reduced sites). The positions are kept as rows of four doubles, so that four partners'
 * separations are four vector loads and a transpose (entries_rows4). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"
#include "amoeba_lanes.h"

/* k, cls; rx, ry, rz, r2 (then scratch); then pc, a byte per entry */
enum { BATCH_INTS = 2, BATCH_DOUBLES = 4 };

static size_t batch_bytes(const pk_amoeba_batches *b)
{
    return (size_t)b->cap * ((size_t)b->ndouble * sizeof(double) + BATCH_INTS * sizeof(int) + 1);
}

pk_code amoeba_batches_begin(pk_amoeba_batches *b, const pk_amoeba_list *nl, int nthreads,
                             int nscratch, pk_status *st)
{
    int longest = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int n = nl->numneigh[nl->ilist[ii]];
        if (n > longest) longest = n;
    }
    b->cap = (longest + 7) / 8 * 8;   /* room for the padding to 4 too */
    b->ndouble = BATCH_DOUBLES + nscratch;
    return pk_buffer_reserve(&b->mem, (size_t)nthreads * batch_bytes(b), 1, st);
}

amoeba_batch amoeba_batch_slice(const pk_amoeba_batches *b, int tid)
{
    const size_t cap = (size_t)b->cap;
    double *d = (double *)((char *)b->mem.data + (size_t)tid * batch_bytes(b));
    int *k = (int *)(d + (size_t)b->ndouble * cap);
    amoeba_batch out = {0, b->cap, k, k + cap, d, d + cap, d + 2 * cap, d + 3 * cap,
                        (unsigned char *)(k + 2 * cap), d + BATCH_DOUBLES * cap};
    return out;
}

/* Padding entries from n up to the next multiple of 4 (amoeba_batch; partner 0, which
 * exists wherever there are pairs). */
static void pad_entries(int n, int *k, int *cls, double *rx, double *ry, double *rz,
                        double *r2, unsigned char *pc)
{
    for (int j = n; j % 4; j++) {
        k[j] = 0;
        cls[j] = 0;
        rx[j] = r2[j] = 1.0;
        ry[j] = rz[j] = 0.0;
        pc[j] = 0;
    }
}

/* Atoms at one point: every term has 1/r (and the damping r/(a_i a_j)^(1/6) its powers),
 * so a pair closer than this (A) stops the step with an error rather than NaN forces. */
#define AMOEBA_OVERLAP_R 1e-10

/* What the filters below keep of one atom's entries, appended: the entries within cut2 of
 * it or marked as the preconditioner's, with their marks (e[n], mk[n]), and, when h is not
 * NULL, those within hcut2 (h[nh]); beyond counts the marked entries beyond cut2, close is
 * set when an entry is closer than AMOEBA_OVERLAP_R. */
typedef struct {
    int *e;
    unsigned char *mk;
    int *h;
    int n, nh, beyond, close, npol, npc;
    double pol2;
} kept;

/* Keep the entries jlist[jj..nn) of atom i (positions x4, xi) with marks pcf (NULL: none
 * marked). Written always, kept by advancing n: no branch to mispredict. */
static void keep_entries(const int *jlist, int jj, int nn, const unsigned char *pcf,
                         const lane4 *x4, lane4 xi, double cut2, double hcut2, kept *o)
{
    for (; jj < nn; jj++) {
        const lane4 d = x4[jlist[jj] & PK_AMOEBA_NEIGHMASK] - xi;
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        const int in_pc = pcf && pcf[jj], far = r2 > cut2;
        o->e[o->n] = jlist[jj];
        o->mk[o->n] = (unsigned char)in_pc;
        o->beyond += in_pc && far;
        o->close |= r2 < AMOEBA_OVERLAP_R * AMOEBA_OVERLAP_R;
        o->n += !far || in_pc;
        o->npol += r2 <= o->pol2 || in_pc;
        o->npc += in_pc;
        if (o->h) {
            o->h[o->nh] = jlist[jj];
            o->nh += r2 <= hcut2;
        }
    }
}

#ifdef AMOEBA_LANES_AVX
/* keep_entries four entries at a time (entries_rows4), the kept entries and their marks
 * moved to the front by the permutations of keep4 and keep4_bytes and stored whole (the
 * storage has room for three entries more than kept). Returns where the scalar rest starts.
 * Only where those are single permutes (amoeba_lanes_avx.h). */
static int keep_entries4(const int *jlist, int nn, const unsigned char *pcf, const lane4 *x4,
                         lane4 xi, double cut2, double hcut2, kept *o)
{
    const lane4 c2 = lane4_bcast(cut2), h2 = lane4_bcast(hcut2), p2 = lane4_bcast(o->pol2);
    static const unsigned char unmarked[4] = {0, 0, 0, 0};
    int j = 0;
    for (; j + 4 <= nn; j += 4) {
        lane4 dx, dy, dz;
        entries_rows4(x4, jlist + j, xi, &dx, &dy, &dz);
        const lane4 r2 = dx * dx + dy * dy + dz * dz;
        const unsigned far = lane4_mask((lane4)(r2 > c2));
        const unsigned char *marks = pcf ? pcf + j : unmarked;
        const unsigned pc = flags4_mask(marks);
        const unsigned keep = (~far & 15u) | pc;
        keep4(jlist + j, keep, o->e + o->n);
        keep4_bytes(marks, keep, o->mk + o->n);   /* the marks alike */
        o->beyond += __builtin_popcount(pc & far);
        o->close |= lane4_mask((lane4)(r2 < lane4_bcast(AMOEBA_OVERLAP_R * AMOEBA_OVERLAP_R)));
        o->n += __builtin_popcount(keep);
        o->npol += __builtin_popcount((~lane4_mask((lane4)(r2 > p2)) & 15u) | pc);
        o->npc += __builtin_popcount(pc);
        if (o->h) {
            const unsigned near = lane4_mask((lane4)(r2 <= h2));
            keep4(jlist + j, near, o->h + o->nh);
            o->nh += __builtin_popcount(near);
        }
    }
    return j;
}
#endif

/* The first listed pair closer than AMOEBA_OVERLAP_R, as an error naming both atoms. */
static pk_code overlap_error(const pk_amoeba_list *nl, const pk_atoms *a, pk_status *st)
{
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii];
        for (int jj = 0; jj < nl->numneigh[i]; jj++) {
            const int j = nl->firstneigh[i][jj] & PK_AMOEBA_NEIGHMASK;
            double r2 = 0.0;
            for (int d = 0; d < 3; d++) r2 += (a->x[j][d] - a->x[i][d]) * (a->x[j][d] - a->x[i][d]);
            if (!(r2 < AMOEBA_OVERLAP_R * AMOEBA_OVERLAP_R)) continue;
            return pk_fail(st, PK_ERR_RANGE,
                           "amoeba/pk: atoms %ld and %ld overlap: r = %.6g < %g A, where the "
                           "interactions (1/r) are infinite",
                           a->tag ? (long)a->tag[i] : (long)i + 1,
                           a->tag ? (long)a->tag[j] : (long)j + 1, sqrt(r2), AMOEBA_OVERLAP_R);
        }
    }
    return PK_OK;
}

pk_code pk_amoeba_pairs_build(pk_amoeba_pairs *p, const pk_amoeba_list *nl, const pk_atoms *a,
                              double cut, double polar_cut, int with_pc, double hal_cut,
                              pk_status *st)
{
    const int inum = nl->inum, with_hal = hal_cut > 0.0, nall = a->nlocal + a->nghost;
    const size_t nrows = (size_t)(inum > 0 ? inum : 1);
    size_t total = 0;
    if (pk_buffer_reserve(&p->x4, (size_t)(nall > 0 ? nall : 1), sizeof(lane4), st) ||
        pk_buffer_reserve(&p->first, nrows, sizeof(int), st) ||
        pk_buffer_reserve(&p->count, nrows, sizeof(int), st) ||
        pk_buffer_reserve(&p->polar_count, nrows, sizeof(int), st) ||
        pk_buffer_reserve(&p->pc_count, nrows, sizeof(int), st) ||
        (with_hal && (pk_buffer_reserve(&p->hal_first, nrows, sizeof(int), st) ||
                      pk_buffer_reserve(&p->hal_count, nrows, sizeof(int), st))))
        return st->code;
    int *first = p->first.data, *count = p->count.data;
    int *pcount = p->polar_count.data, *mcount = p->pc_count.data;
    int *hfirst = p->hal_first.data, *hcount = p->hal_count.data;
    for (int ii = 0; ii < inum; ii++) {   /* room for every entry */
        first[ii] = (int)total;
        total += (size_t)nl->numneigh[nl->ilist[ii]];
    }
    if (total > (size_t)INT_MAX - 4)
        return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: %zu neighbour entries on one rank; at most %d",
                       total, INT_MAX - 4);
    /* 3 more for keep_entries4's whole stores of four */
    if (pk_buffer_reserve(&p->entries, total + 3, sizeof(int), st) ||
        pk_buffer_reserve(&p->pc, total + 3, 1, st) ||
        (with_hal && pk_buffer_reserve(&p->hal_entries, total + 3, sizeof(int), st)))
        return st->code;
    const double cut2 = cut * cut, hcut2 = hal_cut * hal_cut;
    const int *base = nl->entries.data;
    lane4 *x4 = p->x4.data;
    int beyond = 0, close = 0;
#pragma omp parallel num_threads(pk_max_threads()) reduction(+ : beyond) reduction(| : close)
    {
#pragma omp for schedule(static)
        for (int k = 0; k < nall; k++) x4[k] = (lane4){a->x[k][0], a->x[k][1], a->x[k][2], 0.0};
        /* where this thread's next atom's pairs go: its atoms are packed */
        kept o = {p->entries.data, p->pc.data, with_hal ? p->hal_entries.data : NULL, -1, -1, 0, 0,
                  0, 0, polar_cut * polar_cut * (1.0 + 1e-9)};
#pragma omp for schedule(static)
        for (int ii = 0; ii < inum; ii++) {
            const int i = nl->ilist[ii], nn = nl->numneigh[i];
            const int *jlist = nl->firstneigh[i];
            const unsigned char *pcf = with_pc ? nl->precond + (jlist - base) : NULL;
            if (o.n < 0) o.n = o.nh = first[ii];
            const int n0 = o.n, nh0 = o.nh, np0 = o.npol, nm0 = o.npc;
            int jj = 0;
#ifdef AMOEBA_LANES_AVX
            jj = keep_entries4(jlist, nn, pcf, x4, x4[i], cut2, hcut2, &o);
#endif
            keep_entries(jlist, jj, nn, pcf, x4, x4[i], cut2, hcut2, &o);
            first[ii] = n0;
            count[ii] = o.n - n0;
            pcount[ii] = o.npol - np0;
            mcount[ii] = o.npc - nm0;
            if (with_hal) {
                hfirst[ii] = nh0;
                hcount[ii] = o.nh - nh0;
            }
        }
        beyond += o.beyond;
        close |= o.close;
    }
    if (close) return overlap_error(nl, a, st);
    p->cut2 = cut2;
    p->hal_cut2 = with_hal ? hcut2 : 0.0;
    p->with_pc = with_pc;
    p->beyond = beyond;
    return PK_OK;
}

void pk_amoeba_pairs_free(pk_amoeba_pairs *p)
{
    pk_buffer *b[] = {&p->first, &p->count, &p->entries, &p->pc, &p->hal_first, &p->hal_count,
                      &p->hal_entries, &p->x4, &p->polar_count, &p->pc_count};
    for (size_t j = 0; j < sizeof b / sizeof *b; j++) pk_buffer_free(b[j]);
}

double pk_amoeba_pairs_bytes(const pk_amoeba_pairs *p)
{
    const pk_buffer *b[] = {&p->first, &p->count, &p->entries, &p->pc, &p->hal_first,
                            &p->hal_count, &p->hal_entries, &p->x4, &p->polar_count,
                            &p->pc_count};
    double bytes = 0.0;
    for (size_t j = 0; j < sizeof b / sizeof *b; j++) bytes += (double)b[j]->bytes;
    return bytes;
}

void amoeba_batch_pairs(amoeba_batch *b, const pk_amoeba_pairs *p, int i, int ii, double off2,
                        int with_pc)
{
    const int f = ((const int *)p->first.data)[ii], c = ((const int *)p->count.data)[ii];
    const int *pe = (const int *)p->entries.data + f;
    const lane4 *x4 = p->x4.data, xi = x4[i];
    int *bk = b->k, *bcls = b->cls;
    double *rx = b->rx, *ry = b->ry, *rz = b->rz, *rr = b->r2;
    int j = 0;
    for (; j + 4 <= c; j += 4) {   /* four at a time: the partners' rows transposed */
        lane4 dx, dy, dz;
        entries_rows4(x4, pe + j, xi, &dx, &dy, &dz);
        lane4_store(rx + j, dx);
        lane4_store(ry + j, dy);
        lane4_store(rz + j, dz);
        lane4_store(rr + j, dx * dx + dy * dy + dz * dz);
    }
    for (; j < c; j++) {
        const lane4 d = x4[pe[j] & PK_AMOEBA_NEIGHMASK] - xi;
        rx[j] = d[0];
        ry[j] = d[1];
        rz[j] = d[2];
        rr[j] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    }
#pragma omp simd
    for (j = 0; j < c; j++) {
        bk[j] = pe[j] & PK_AMOEBA_NEIGHMASK;
        bcls[j] = pk_amoeba_special(pe[j]);
    }
    if (with_pc && p->with_pc) memcpy(b->pc, (const unsigned char *)p->pc.data + f, (size_t)c);
    else memset(b->pc, 0, (size_t)c);
    int n = c;
    if (off2 < p->cut2 || (!with_pc && p->beyond)) {   /* keep those within off2 and marked */
        n = 0;
        for (int j = 0; j < c; j++) {   /* written always, kept by advancing n */
            const int keep = rr[j] <= off2 || b->pc[j];
            bk[n] = bk[j];
            bcls[n] = bcls[j];
            b->pc[n] = b->pc[j];
            rx[n] = rx[j];
            ry[n] = ry[j];
            rz[n] = rz[j];
            rr[n] = rr[j];
            n += keep;
        }
    }
    b->n = n;
    pad_entries(n, bk, bcls, rx, ry, rz, rr, b->pc);
}
