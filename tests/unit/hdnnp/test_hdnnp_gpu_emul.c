/* The CUDA backend's per-thread code (hdnnp_gpu.h), run here on the host thread by thread in
 * the kernels' order (the block kernels phase by phase, every thread of a block through one
 * phase before the next, as __syncthreads() orders them), in both precisions, with the
 * device's block size (gradient partners split into chunks) and with a small one (5
 * threads: strided loops, more owners and members than threads), against the cpu backend:
 * n2p2's RPBE-D3 water (1080 atoms, periodic, ghosts) and the synthetic models of the
 * agreement test (every symmetry-function type 2, 3, 9, 12, 13, 20-25 under every cutoff
 * type 0-8, every activation), and the water with a third of its atoms as centres (in
 * reverse order). It checks the GPU path's physics on machines without a GPU; the CUDA
 * agreement test runs the same code on the device. Also: the extrapolation records and
 * count equal the cpu backend's, the list copy notices a changed list, and an overlap is
 * reported with the cpu backend's message.
 *
 * Tolerances: double as the agreement test (1e-10 relative, floor 1e-3 of the largest
 * element). Mixed (float per-pair arithmetic, double sums) is measured here and stated in
 * HDG_MIXED_RTOL, the tolerance the CUDA agreement test applies in mixed precision. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_gpu.h"
#include "hdnnp_synth.h"
#include "hdnnp_system.h"
#include "hdnnp_tolerances.h"
#include "pk_agree.h"
#include "pk_hdnnp.h"

static const int t2e[3] = {-1, 0, 1};
enum { SMALL_BLOCK = 5 };   /* fewer threads than members, owners and pairs */

typedef struct {
    pk_agree_run r;
    long ewcount;
    hdg_ew_record *rec;
    int nrec;
    int overlap;   /* ii of the first centre with overlapping atoms, or -1 */
    int ncap;      /* longest list */
    size_t shared; /* bytes of shared memory a block */
} emul_result;

/* The block kernels of hdnnp_cuda.cu for every centre: a host buffer as the block's shared
 * memory, each phase run by threads 0 .. bd - 1 before the next. */
#define EMULATE_BLOCKS(SFX)                                                                     \
    static void values_blocks##SFX(const hdg_step *t, int bd)                                   \
    {                                                                                           \
        void *mem = malloc(hdg_shared_bytes##SFX(&t->m, t->ncap, bd));                          \
        const hdg_shared##SFX sh = hdg_shared_at##SFX(mem, &t->m, t->ncap, bd);                 \
        for (int ii = 0; ii < t->inum; ii++) {                                                  \
            if (!hdg_blk_values_run(t, ii)) continue;                                           \
            for (int k = 0; k < bd; k++) hdg_blk_load##SFX(t, ii, &sh, k, bd);                  \
            for (int g = 0; g < hdg_blk_ngroups(t, ii); g++) {                                  \
                for (int k = 0; k < bd; k++) hdg_blk_exps##SFX(t, ii, g, &sh, k, bd);           \
                for (int k = 0; k < bd; k++) hdg_blk_values##SFX(t, ii, g, &sh, k, bd);         \
                for (int k = 0; k < bd; k++) hdg_blk_values_fold##SFX(t, ii, g, &sh, k, bd);    \
                for (int k = 0; k < bd; k++) hdg_blk_values_sum##SFX(t, ii, g, &sh, k, bd);     \
            }                                                                                   \
        }                                                                                       \
        free(mem);                                                                              \
    }                                                                                           \
    static void grad_blocks##SFX(const hdg_step *t, int bd)                                     \
    {                                                                                           \
        void *mem = malloc(hdg_shared_bytes##SFX(&t->m, t->ncap, bd));                          \
        const hdg_shared##SFX sh = hdg_shared_at##SFX(mem, &t->m, t->ncap, bd);                 \
        for (int ii = 0; ii < t->inum; ii++) {                                                  \
            if (!hdg_blk_grad_run(t, ii)) continue;                                             \
            for (int k = 0; k < bd; k++) hdg_blk_load##SFX(t, ii, &sh, k, bd);                  \
            for (int g = 0; g < hdg_blk_ngroups(t, ii); g++) {                                  \
                for (int k = 0; k < bd; k++) hdg_blk_exps##SFX(t, ii, g, &sh, k, bd);           \
                for (int k = 0; k < bd; k++) hdg_blk_grad##SFX(t, ii, g, &sh, k, bd);           \
                for (int k = 0; k < bd; k++) hdg_blk_grad_sum##SFX(t, ii, g, &sh, k, bd);       \
            }                                                                                   \
            for (int k = 0; k < bd; k++) hdg_blk_store##SFX(t, ii, &sh, k, bd);                 \
        }                                                                                       \
        free(mem);                                                                              \
    }
EMULATE_BLOCKS(_d)
EMULATE_BLOCKS(_f)

/* What hdnnp_cuda.cu does in one step, each kernel a loop over its threads or blocks of bd
 * threads. */
static void emulate(const pk_hdnnp_model *model, const hd_system *s, const pk_neigh *nl,
                    int mixed, int bd, emul_result *out)
{
    pk_status st;
    hdg_host_model hm;
    hdg_host_list L = {0};
    const pk_atoms atoms = hd_atoms(s);
    PK_CHECK(hdg_model_build(model, &hm, &st) == PK_OK, "flatten: %s", st.msg);
    PK_CHECK(hdg_list_build(&L, &atoms, nl, t2e, &st) == PK_OK, "list: %s", st.msg);
    const int inum = L.inum, nall = L.nall, maxnsf = hm.m.maxnsf;
    const size_t ns = L.nslot + 1;
    hdg_step t = {0};
    t.m = hm.m;
    t.inum = inum;
    t.nall = nall;
    t.ncap = L.maxneigh;
    out->ncap = t.ncap;
    out->shared = mixed ? hdg_shared_bytes_f(&t.m, t.ncap, bd)
                        : hdg_shared_bytes_d(&t.m, t.ncap, bd);
    t.x = &s->x[0][0];
    t.elem = L.elem;
    t.centre = L.centre;
    t.offset = L.offset;
    t.neigh = L.neigh;
    t.slot_centre = L.slot_centre;
    t.rev_off = L.rev_off;
    t.rev = L.rev;
    t.atom_centre = L.atom_centre;
    t.env_n = calloc((size_t)inum + 1, sizeof(int));
    t.env_start = calloc((size_t)HDG_START_STRIDE * inum + 1, sizeof(int));
    t.env_slot = calloc(ns, sizeof(int));
    t.env_el = calloc(ns, sizeof(int));
    t.env_d = calloc(4 * ns, sizeof(double));
    t.G = calloc((size_t)maxnsf * inum + 1, sizeof(double));
    t.C = calloc((size_t)maxnsf * inum + 1, sizeof(double));
    t.work = calloc(hm.m.nwork * inum + 1, sizeof(double));
    t.g = calloc(3 * ns, sizeof(double));
    t.ev = calloc(7 * (size_t)inum + 1, sizeof(double));
    t.fcen = calloc(3 * (size_t)inum + 1, sizeof(double));
    t.ewn = calloc((size_t)inum + 1, sizeof(int));
    out->overlap = -1;
    for (int ii = 0; ii < inum; ii++)
        if (hdg_env(&t, ii) && out->overlap < 0) out->overlap = ii;
    if (mixed) values_blocks_f(&t, bd);
    else values_blocks_d(&t, bd);
    for (int ii = 0; ii < inum; ii++) hdg_network(&t, ii);
    if (mixed) grad_blocks_f(&t, bd);
    else grad_blocks_d(&t, bd);
    for (int ii = 0; ii < inum; ii++) hdg_centre(&t, ii);
    pk_out o = pk_agree_run_begin(&out->r, (size_t)nall, 1);
    t.f = out->r.f;
    t.vatom = out->r.vatom;
    for (int j = 0; j < nall; j++) hdg_gather(&t, j, 1);
    /* energy and virial: the sums the device's block reduction forms, in centre order */
    o.energy = 0.0;
    for (int ii = 0; ii < inum; ii++) {
        o.energy += t.ev[7 * (size_t)ii];
        for (int q = 0; q < 6; q++) o.virial[q] += t.ev[7 * (size_t)ii + 1 + q];
        out->r.eatom[L.centre[ii]] += t.ev[7 * (size_t)ii];
    }
    pk_agree_run_end(&out->r, &o);
    /* extrapolation records: counts, offsets in centre order, then the kept records */
    out->ewcount = 0;
    for (int ii = 0; ii < inum; ii++) out->ewcount += t.ewn[ii];
    out->nrec = out->ewcount < PK_HDNNP_EW_KEEP ? (int)out->ewcount : PK_HDNNP_EW_KEEP;
    out->rec = calloc((size_t)out->nrec + 1, sizeof(hdg_ew_record));
    for (int ii = 0, first = 0; ii < inum && first < out->nrec; first += t.ewn[ii++])
        hdg_ew_write(&t, ii, first, out->nrec, out->rec);
    free(t.env_n);
    free(t.env_start);
    free(t.env_slot);
    free(t.env_el);
    free(t.env_d);
    free(t.G);
    free(t.C);
    free(t.work);
    free(t.g);
    free(t.ev);
    free(t.fcen);
    free(t.ewn);
    hdg_list_free(&L);
    hdg_model_free(&hm);
}

/* Worst deviation over forces, energy, virial, per-atom energy and virial (floor 1e-3 of the
 * largest element of each) */
static double worst_dev(const double *got, const double *want, size_t n)
{
    double largest = 0.0, worst = 0.0;
    for (size_t k = 0; k < n; k++) largest = fabs(want[k]) > largest ? fabs(want[k]) : largest;
    const double floor = AGREE_FLOOR * largest + 1e-300;
    for (size_t k = 0; k < n; k++) {
        const double sc = fabs(want[k]) > floor ? fabs(want[k]) : floor;
        const double d = fabs(got[k] - want[k]) / sc;
        worst = d > worst || d != d ? d : worst;
    }
    return worst;
}

static double mixed_worst = 0.0;

static void check_case(const pk_hdnnp_model *m, const hd_system *s, const pk_neigh *nl,
                       const char *name)
{
    const size_t nall = (size_t)s->nlocal + (size_t)s->nghost;
    pk_hdnnp_context *ctx = NULL;
    pk_status st;
    PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);
    if (!ctx) return;
    pk_agree_run want;
    pk_out o = pk_agree_run_begin(&want, nall, 1);
    const pk_atoms atoms = hd_atoms(s);
    PK_CHECK(pk_hdnnp_compute(ctx, &atoms, nl, t2e, &o, &st) == PK_OK, "cpu: %s", st.msg);
    pk_agree_run_end(&want, &o);
    size_t nkept;
    const pk_hdnnp_ew *ew = pk_hdnnp_ew_get(ctx, &nkept);
    printf("%s: %ld extrapolation warnings\n", name, pk_hdnnp_ew_count(ctx));
    for (int run = 0; run < 4; run++) {
        const int mixed = run % 2, bd = run < 2 ? HDG_BLOCK : SMALL_BLOCK;
        emul_result r;
        emulate(m, s, nl, mixed, bd, &r);
        PK_CHECK(r.overlap < 0, "no overlap");
        const double tol = mixed ? HDG_MIXED_RTOL : AGREE_RTOL;
        printf(" %s, %d threads a block, lists up to %d: %zu bytes of shared memory a block\n",
               mixed ? "mixed" : "double", bd, r.ncap, r.shared);
        pk_agree_close_scaled("forces", r.r.f, want.f, 3 * nall, tol, AGREE_FLOOR);
        pk_agree_close_scaled("energy", &r.r.energy, &want.energy, 1, tol, AGREE_FLOOR);
        pk_agree_close_scaled("virial", r.r.virial, want.virial, 6, tol, AGREE_FLOOR);
        pk_agree_close_scaled("per-atom energy", r.r.eatom, want.eatom, nall, tol, AGREE_FLOOR);
        pk_agree_close_scaled("per-atom virial", r.r.vatom, want.vatom, 6 * nall, tol,
                              AGREE_FLOOR);
        if (mixed) {
            const double w[] = {worst_dev(r.r.f, want.f, 3 * nall),
                                worst_dev(&r.r.energy, &want.energy, 1),
                                worst_dev(r.r.virial, want.virial, 6),
                                worst_dev(r.r.eatom, want.eatom, nall),
                                worst_dev(r.r.vatom, want.vatom, 6 * nall)};
            for (int k = 0; k < 5; k++) mixed_worst = w[k] > mixed_worst ? w[k] : mixed_worst;
        }
        /* the same warnings: count and kept records (atom, function); a value within
         * round-off of Gmin or Gmax could flip, none does in these cases */
        PK_CHECK(r.ewcount == pk_hdnnp_ew_count(ctx), "%s: %ld warnings, cpu %ld",
                 mixed ? "mixed" : "double", r.ewcount, pk_hdnnp_ew_count(ctx));
        PK_CHECK((size_t)r.nrec == nkept, "%d records kept, cpu %zu", r.nrec, nkept);
        for (int k = 0; k < r.nrec && (size_t)k < nkept; k++) {
            const int i = nl->ilist[r.rec[k].ii];
            PK_CHECK(i == ew[k].atom && r.rec[k].sf == ew[k].sf, "record %d: atom %d SF %d, cpu "
                     "atom %d SF %d", k, i, r.rec[k].sf, ew[k].atom, ew[k].sf);
        }
        free(r.rec);
        pk_agree_run_free(&r.r);
    }
    pk_agree_run_free(&want);
    pk_hdnnp_context_free(ctx);
}

/* Atom 1 moved onto atom 0 (list rebuilt): hdg_env flags centre 0 and the backend's message
 * is the cpu's. */
static void check_overlap(const pk_hdnnp_model *m, hd_system *s)
{
    const double keep[3] = {s->x[1][0], s->x[1][1], s->x[1][2]};
    memcpy(s->x[1], s->x[0], sizeof keep);
    hd_make_neigh(s, 4.5);
    const pk_neigh nl = hd_neigh(s);
    const pk_atoms atoms = hd_atoms(s);
    emul_result r;
    emulate(m, s, &nl, 0, HDG_BLOCK, &r);
    PK_CHECK(r.overlap == 0, "overlap found at centre %d", r.overlap);
    pk_hdnnp_context *ctx = NULL;
    pk_status st, gst;
    PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);
    pk_agree_run want;
    pk_out o = pk_agree_run_begin(&want, (size_t)s->nlocal, 1);
    PK_CHECK(pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &o, &st) == PK_ERR_RANGE, "cpu refuses");
    PK_CHECK(hdnnp_overlap_fail(m, &atoms, &nl, r.overlap, t2e, &gst) == PK_ERR_RANGE &&
                 strcmp(st.msg, gst.msg) == 0,
             "messages:\n  cpu  %s\n  cuda %s", st.msg, gst.msg);
    printf("overlap: %s\n", gst.msg);
    free(r.rec);
    pk_agree_run_free(&r.r);
    pk_agree_run_free(&want);
    pk_hdnnp_context_free(ctx);
}

int main(void)
{
    char dir[HD_PATH];
    pk_status st;
    pk_hdnnp_model *m;
    hd_system s;
    PK_CHECK(hd_water_reference(dir, &m, &s) == 0, "the n2p2 water reference");
    if (!m) return pk_test_finish();
    hd_make_ghosts(&s);
    hd_make_neigh(&s, pk_hdnnp_max_cutoff(m) + 0.5);
    pk_neigh nl = hd_neigh(&s);
    check_case(m, &s, &nl, "RPBE-D3 water");
    /* every third atom a centre, in reverse order: owned atoms that are only neighbours */
    int *centres = malloc(sizeof(int) * (size_t)s.nlocal), nc = 0;
    for (int i = s.nlocal - 1; i >= 0; i -= 3) centres[nc++] = i;
    pk_neigh part = nl;
    part.inum = nc;
    part.ilist = centres;
    check_case(m, &s, &part, "RPBE-D3 water, every third atom a centre");
    free(centres);
    hd_free(&s);
    pk_hdnnp_model_free(m);

    char tmp[] = "/tmp/pk_hdnnp_emulXXXXXX";
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    hd_system c = {0};
    hd_agree_cluster(&c);
    const pk_neigh cnl = hd_neigh(&c);
    for (int cut = 0; cut < HD_AGREE_NCUT; cut++) {
        char name[128];
        const char *act = "";
        snprintf(dir, sizeof dir, "%s/cut%d", tmp, cut);
        PK_CHECK(hd_agree_model_write(dir, cut, &act) == 0, "write %s", dir);
        PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "load %s: %s", dir, st.msg);
        if (!m) continue;
        snprintf(name, sizeof name, "synthetic model, cutoff type %d, activations %s", cut, act);
        check_case(m, &c, &cnl, name);
        if (cut == HD_AGREE_NCUT - 1) check_overlap(m, &c);   /* rebuilds the list: last */
        pk_hdnnp_model_free(m);
    }
    hd_free(&c);
    hd_remove_tree(tmp);
    printf("mixed precision: largest deviation %.3g (tolerance %.3g)\n", mixed_worst,
           HDG_MIXED_RTOL);
    return pk_test_finish();
}
