/* deepmd/pk handle: load, type map, dispatch to the chosen backend, and the cpu backend's
 * threaded compute over centres.
 *
 * The neighbour list is cut into one contiguous chunk per thread; each chunk adds forces
 * and per-atom virials into its own copy (pk_accum), reduced in chunk order, and keeps its
 * own energy/virial sums, added in chunk order: a rerun gives the same bits for a given
 * thread count, and thread counts differ by round-off only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"
#include "deepmd_launch.h"

void pk_deepmd_options_default(pk_deepmd_options *o)
{
    memset(o, 0, sizeof *o);
    o->tabulate = 1;
    o->table_step = 0.01;
    o->table_rmin = 0.5;
    o->table_extrapolate = 5.0;
    o->cuda.tune = 1;
    const char *tt = getenv("PAIRKIT_DEEPMD_TANH_TABLE");
    o->tanh_table = tt && !strcmp(tt, "1");
}

static void free_threads(pk_deepmd *dp)
{
    for (int t = 0; dp->th && t < dp->nthreads; t++) {
        pk_buffer_free(&dp->th[t].cand);
        pk_buffer_free(&dp->th[t].nbr);
        pk_buffer_free(&dp->th[t].work);
        free(dp->th[t].nreal);
        free(dp->th[t].maxseen);
    }
    free(dp->th);
    dp->th = NULL;
    dp->nthreads = 0;
}

void pk_deepmd_destroy(pk_deepmd *dp)
{
    if (!dp) return;
    pk_backend_release(&dp->backend);
    free_threads(dp);
    pk_accum_free(&dp->facc);
    pk_accum_free(&dp->vacc);
    pk_buffer_free(&dp->v9);
    pk_buffer_free(&dp->mtype);
    dp_tables_free(&dp->tab, &dp->m);
    dp_tanh_table_free(&dp->tanh_tab);
    dp_model_free(&dp->m);
    free(dp->lmp2model);
    free(dp->maxseen);
    free(dp);
}

/* HDF5 files start with the 8-byte signature \211HDF\r\n\032\n. */
static int is_hdf5(const char *path)
{
    unsigned char sig[8];
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(sig, 1, sizeof sig, fp);
    fclose(fp);
    return n == 8 && !memcmp(sig, "\211HDF\r\n\032\n", 8);
}

/* DeePMD-kit's frozen TensorFlow (.pb) and PyTorch (.pth) models need the frameworks. */
static int is_framework_model(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (!strcmp(dot, ".pb") || !strcmp(dot, ".pth") || !strcmp(dot, ".pt"));
}

pk_deepmd *pk_deepmd_load(const char *path, const pk_deepmd_options *o, pk_status *st)
{
    pk_deepmd_options dflt;
    if (!o) {
        pk_deepmd_options_default(&dflt);
        o = &dflt;
    }
    pk_status_clear(st);
    if (o->tabulate && (!(o->table_step > 0) || !(o->table_rmin > 0) ||
                        !(o->table_extrapolate >= 1))) {
        pk_fail(st, PK_ERR_ARG, "need table_step > 0, table_rmin > 0 and "
                "table_extrapolate >= 1 (got %g, %g, %g)", o->table_step, o->table_rmin,
                o->table_extrapolate);
        return NULL;
    }
    if (is_framework_model(path)) {
        pk_fail(st, PK_ERR_UNSUPPORTED, "%s: a TensorFlow/PyTorch model; convert it to the "
                "serialized form first: dp convert-backend %s model.yaml (or model.dp)", path,
                path);
        return NULL;
    }
    pk_deepmd *dp = calloc(1, sizeof *dp);
    if (!dp) {
        pk_fail(st, PK_ERR_MEMORY, "out of memory");
        return NULL;
    }
    dp->opt = *o;
    if (is_hdf5(path) ? dp_model_read_dp(&dp->m, path, st)
                      : dp_model_read_yaml(&dp->m, path, st)) {
        free(dp);
        return NULL;
    }
    dp->maxseen = calloc((size_t)dp->m.ntypes, sizeof(int));
    if (!dp->maxseen) {
        pk_fail(st, PK_ERR_MEMORY, "out of memory");
        pk_deepmd_destroy(dp);
        return NULL;
    }
    const dp_model *m = &dp->m;
    if (dp_launch_check(&o->cuda, m->ng, st)) {
        pk_deepmd_destroy(dp);
        return NULL;
    }
    pk_log(&o->log, "deepmd/pk: %s: se_e2_a, %d types, rcut %g, rcut_smth %g, sum(sel) %d, "
           "ng %d, axis %d, type_one_side %d", path, m->ntypes, m->rcut, m->rcut_smth,
           m->nnei, m->ng, m->axis, m->one_side);
    if (m->fit_f32)
        pk_log(&o->log, "deepmd/pk: fitting nets float32: in float with the cpu backend's "
               "tabulated kernel, in double with the exact kernel and the sve and cuda backends");
    if (o->tabulate) {
        if (dp_tables_build(&dp->tab, m, o, path, st)) {
            pk_deepmd_destroy(dp);
            return NULL;
        }
        for (int e = 0; e < m->nemb; e++)
            if (dp->tab.tab[e].coef)
                pk_log(&o->log, "deepmd/pk: embedding table %d: s in [%g, %g) step %g, then "
                       "[%g, %g) step %g", e, dp->tab.tab[e].s0, dp->tab.tab[e].s1,
                       dp->tab.tab[e].h0, dp->tab.tab[e].s1, dp->tab.tab[e].s2,
                       dp->tab.tab[e].h1);
        pk_log(&o->log, "deepmd/pk: tables hold %.2f MB", dp->tab.bytes / 1048576.0);
    }
    if (o->tanh_table) {
        if (dp_tanh_table_build(&dp->tanh_tab, st)) {
            pk_deepmd_destroy(dp);
            return NULL;
        }
        pk_log(&o->log, "deepmd/pk: tabulated tanh in the sve backend's fitting nets");
    }
    pk_backend_request cpu;
    pk_backend_request_cpu(&cpu);
    if (pk_deepmd_set_backend(dp, &cpu, st)) {
        pk_deepmd_destroy(dp);
        return NULL;
    }
    return dp;
}

int pk_deepmd_ntypes(const pk_deepmd *dp) { return dp->m.ntypes; }

const char *pk_deepmd_type_name(const pk_deepmd *dp, int t)
{
    return (t >= 0 && t < dp->m.ntypes) ? dp->m.type_map[t] : NULL;
}

int pk_deepmd_type_index(const pk_deepmd *dp, const char *name)
{
    for (int t = 0; t < dp->m.ntypes; t++)
        if (!strcmp(dp->m.type_map[t], name)) return t;
    return -1;
}

double pk_deepmd_cutoff(const pk_deepmd *dp) { return dp->m.rcut; }

size_t pk_deepmd_memory(const pk_deepmd *dp)
{
    size_t b = dp->tab.bytes + (dp->tanh_tab.coef ? sizeof(double) * 6 * DP_TANH_N : 0) +
               dp->mtype.bytes + dp->v9.bytes + dp->facc.copies.bytes +
               dp->vacc.copies.bytes + (size_t)pk_backend_memory(&dp->backend);
    for (int t = 0; t < dp->nthreads; t++)
        b += dp->th[t].cand.bytes + dp->th[t].nbr.bytes + dp->th[t].work.bytes;
    return b;
}

pk_code pk_deepmd_set_type_map(pk_deepmd *dp, int n, const int *map, pk_status *st)
{
    int *m2 = malloc(sizeof(int) * ((size_t)n + 1));
    if (!m2) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    m2[0] = -1;
    for (int t = 1; t <= n; t++) {
        if (map[t - 1] < -1 || map[t - 1] >= dp->m.ntypes) {
            free(m2);
            return pk_fail(st, PK_ERR_ARG, "LAMMPS type %d maps to model type %d, "
                           "the model has %d types", t, map[t - 1], dp->m.ntypes);
        }
        m2[t] = map[t - 1];
    }
    free(dp->lmp2model);
    dp->lmp2model = m2;
    dp->nlmp = n;
    return PK_OK;
}

void pk_deepmd_overflow(const pk_deepmd *dp, long *ncentres, int *max_per_type)
{
    if (ncentres) *ncentres = dp->overflow;
    if (max_per_type) memcpy(max_per_type, dp->maxseen, sizeof(int) * dp->m.ntypes);
}

void pk_deepmd_overflow_reset(pk_deepmd *dp)
{
    dp->overflow = 0;
    memset(dp->maxseen, 0, sizeof(int) * dp->m.ntypes);
}

/* Atoms at one point: the rows (1/r, d/r^2) of se_e2_a and their derivatives are infinite
 * at r = 0 (and overflow just above), so a neighbour this close (A) is an error, not NaN. */
#define DP_OVERLAP_R DP_HD_OVERLAP_R

pk_code dp_overlap_error(const dp_model *m, int i, int ti, const dp_nbr *n, const pk_tag *tag,
                         pk_status *st)
{
    const int j = n->j;
    return pk_fail(st, PK_ERR_RANGE,
                   "atoms %ld (%s) and %ld (%s) overlap: r = %.6g < %g, where the "
                   "descriptor 1/r is infinite", tag ? (long)tag[i] : (long)i + 1,
                   m->type_map[ti], tag ? (long)tag[j] : (long)j + 1,
                   m->type_map[n->type], n->r, DP_OVERLAP_R);
}

static pk_code check_overlap(const dp_model *m, int i, int ti, const dp_nbr *nbr, int nn,
                             const pk_tag *tag, pk_status *st)
{
    for (int q = 0; q < nn; q++) {
        if (nbr[q].r >= DP_OVERLAP_R || m->excl[ti * m->ntypes + nbr[q].type]) continue;
        return dp_overlap_error(m, i, ti, &nbr[q], tag, st);
    }
    return PK_OK;
}

/* Tabulated kernel scratch: T, dE/dT, their per-type gathered copies (DP_BLOCK x 4 x ng
 * each), energies (2 x DP_BLOCK) and the batched fitting. */
static size_t fused_block_scratch(const dp_model *m)
{
    return (size_t)DP_BLOCK * (16 * (size_t)m->ng + 2) + dp_fit_scratch(m, DP_BLOCK);
}

/* One batch of up to DP_BLOCK list entries [b0, b0 + nb) with the tabulated kernel: tables
 * and contraction per centre, the fitting nets per type over the batch, then the forces. */
static void fused_block(const pk_deepmd *dp, const dp_kernels *kern, const pk_atoms *at,
                        const pk_neigh *nl, const int *mtype, int b0, int nb, dp_thread *th,
                        dp_sink *sk, double *eatom)
{
    const dp_model *m = &dp->m;
    const size_t w = 4 * (size_t)m->ng;
    dp_nbr *nbr = th->nbr.data;
    double *T = th->work.data, *G = T + DP_BLOCK * w, *Tg = G + DP_BLOCK * w;
    double *Gg = Tg + DP_BLOCK * w, *e = Gg + DP_BLOCK * w, *eg = e + DP_BLOCK;
    double *fit = eg + DP_BLOCK;
    int idx[DP_BLOCK], ty[DP_BLOCK], nn[DP_BLOCK], cnt = 0;
    for (int ii = b0; ii < b0 + nb; ii++) {
        const int i = nl->ilist[ii], ti = mtype[i];
        if (ti < 0) continue;
        dp_nbr *nb_c = nbr + (size_t)cnt * th->nbr_stride;
        int *nr = th->nreal + cnt * m->ntypes;
        nn[cnt] = dp_env_gather(m, mtype, at->x, i, nl->firstneigh[i], nl->numneigh[i], nb_c,
                                nr, th);
        if (check_overlap(m, i, ti, nb_c, nn[cnt], at->tag, &th->st) ||
            kern->forward(m, &dp->tab, i, ti, nb_c, nn[cnt], nr, at->tag, T + cnt * w,
                          &th->st)) {
            th->err_ii = ii;
            return;
        }
        idx[cnt] = i;
        ty[cnt++] = ti;
    }
    for (int t = 0; t < m->ntypes; t++) {
        int sel[DP_BLOCK], k = 0;
        for (int c = 0; c < cnt; c++)
            if (ty[c] == t) sel[k++] = c;
        if (!k) continue;
        for (int q = 0; q < k; q++) memcpy(Tg + q * w, T + sel[q] * w, sizeof(double) * w);
        kern->fit(dp, t, k, Tg, eg, Gg, fit);
        for (int q = 0; q < k; q++) {
            memcpy(G + sel[q] * w, Gg + q * w, sizeof(double) * w);
            e[sel[q]] = eg[q];
        }
    }
    for (int c = 0; c < cnt; c++) {
        kern->backward(m, &dp->tab, idx[c], ty[c], nbr + (size_t)c * th->nbr_stride, nn[c],
                       G + c * w, sk);
        if (eatom) eatom[idx[c]] += e[c];
        sk->e += e[c];
    }
}

/* Per-thread scratch for up to maxnb listed neighbours. */
static pk_code prepare_threads(pk_deepmd *dp, int nth, int maxnb, pk_status *st)
{
    if (dp->nthreads != nth) {
        free_threads(dp);
        dp->th = calloc((size_t)nth, sizeof(dp_thread));
        if (!dp->th) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
        dp->nthreads = nth;
        for (int t = 0; t < nth; t++) {
            dp->th[t].nreal = calloc((size_t)DP_BLOCK * dp->m.ntypes, sizeof(int));
            dp->th[t].maxseen = calloc((size_t)dp->m.ntypes, sizeof(int));
            if (!dp->th[t].nreal || !dp->th[t].maxseen)
                return pk_fail(st, PK_ERR_MEMORY, "out of memory");
        }
    }
    size_t work = dp->opt.tabulate ? fused_block_scratch(&dp->m) : dp_exact_scratch(&dp->m);
    /* A centre has at most min(sum(sel), listed neighbours) slotted neighbours. */
    const int stride = maxnb < dp->m.nnei ? maxnb + 1 : dp->m.nnei;
    for (int t = 0; t < nth; t++) {
        dp_thread *th = &dp->th[t];
        th->nbr_stride = stride;
        if (pk_buffer_reserve(&th->cand, (size_t)maxnb + 1, sizeof(dp_nbr), st) ||
            pk_buffer_reserve(&th->nbr, (size_t)DP_BLOCK * stride, sizeof(dp_nbr), st) ||
            pk_buffer_reserve(&th->work, work, sizeof(double), st))
            return st->code;
        th->overflow = 0;
        th->err_ii = -1;
        th->e = 0.0;
        memset(th->vir, 0, sizeof th->vir);
        memset(th->maxseen, 0, sizeof(int) * dp->m.ntypes);
    }
    return PK_OK;
}

pk_code pk_deepmd_compute(pk_deepmd *dp, const pk_atoms *at, const pk_neigh *nl, pk_out *out,
                          double (*vatom9)[9], pk_status *st)
{
    const pk_deepmd_args args = {.atoms = at, .nl = nl, .vatom9 = vatom9,
                                 .list_changed = !dp->list_kept};
    dp->list_kept = 0;
    pk_status_clear(st);
    return pk_backend_compute(&dp->backend, dp, &args, out, st);
}

void pk_deepmd_list_kept(pk_deepmd *dp) { dp->list_kept = 1; }

pk_code dp_model_types(pk_deepmd *dp, const pk_atoms *at, pk_status *st)
{
    const int nall = at->nlocal + at->nghost;
    if (pk_buffer_reserve(&dp->mtype, (size_t)nall + 1, sizeof(int), st)) return st->code;
    int *mtype = dp->mtype.data;
    for (int a = 0; a < nall; a++) {
        int t = at->type[a];
        if (t < 1 || t > dp->nlmp)
            return pk_fail(st, PK_ERR_ARG, "atom %d has type %d outside 1..%d", a,
                           t, dp->nlmp);
        mtype[a] = dp->lmp2model[t];
    }
    return PK_OK;
}

pk_code dp_compute(pk_deepmd *dp, const dp_kernels *kern, const pk_atoms *at, const pk_neigh *nl,
                   pk_out *out, double (*vatom9)[9], pk_status *st)
{
    const dp_model *m = &dp->m;
    const int nall = at->nlocal + at->nghost;
    pk_status_clear(st);
    if (!dp->lmp2model) return pk_fail(st, PK_ERR_ARG, "type map is not set");
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "forces must be requested");

    if (dp_model_types(dp, at, st)) return st->code;
    const int *mtype = dp->mtype.data;
    int maxnb = 0;
    for (int ii = 0; ii < nl->inum; ii++)
        if (nl->numneigh[nl->ilist[ii]] > maxnb) maxnb = nl->numneigh[nl->ilist[ii]];

    const int nth = pk_max_threads();
    if (prepare_threads(dp, nth, maxnb, st)) return st->code;
    if (pk_accum_begin(&dp->facc, nth, &out->f[0][0], 3 * (size_t)nall, st)) return st->code;
    double *v9 = NULL;
    if (vatom9 || out->vatom) {
        if (pk_buffer_reserve(&dp->v9, 9 * (size_t)nall + 1, sizeof(double), st))
            return st->code;
        v9 = dp->v9.data;
        memset(v9, 0, sizeof(double) * 9 * (size_t)nall);
        if (pk_accum_begin(&dp->vacc, nth, v9, 9 * (size_t)nall, st)) return st->code;
    }

    /* The list is cut into nth contiguous chunks, each with its own scratch and force copy,
     * so the result depends on nth only (not on which thread runs a chunk) and the lowest
     * failing chunk holds the first failing centre. */
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int c = 0; c < nth; c++) {
        const int lo = (int)((long)nl->inum * c / nth);
        const int hi = (int)((long)nl->inum * (c + 1) / nth);
        dp_thread *th = &dp->th[c];
        dp_sink sk = {.f = pk_accum_slice(&dp->facc, c),
                      .v9 = v9 ? pk_accum_slice(&dp->vacc, c) : NULL};
        if (dp->opt.tabulate) {
            for (int b0 = lo; b0 < hi && th->err_ii < 0; b0 += DP_BLOCK)
                fused_block(dp, kern, at, nl, mtype, b0, hi - b0 < DP_BLOCK ? hi - b0 : DP_BLOCK,
                            th, &sk, out->eatom);
        } else {
            for (int ii = lo; ii < hi && th->err_ii < 0; ii++) {
                const int i = nl->ilist[ii], ti = mtype[i];
                if (ti < 0) continue;
                int nn = dp_env_gather(m, mtype, at->x, i, nl->firstneigh[i], nl->numneigh[i],
                                       th->nbr.data, th->nreal, th);
                if (check_overlap(m, i, ti, th->nbr.data, nn, at->tag, &th->st)) {
                    th->err_ii = ii;
                    break;
                }
                double e = dp_exact_atom(m, i, ti, th->nbr.data, nn, th->nreal, th->work.data,
                                         &sk);
                if (out->eatom) out->eatom[i] += e;
                sk.e += e;
            }
        }
        th->e = sk.e;
        memcpy(th->vir, sk.vir, sizeof sk.vir);
    }

    for (int t = 0; t < nth; t++) {
        dp_thread *th = &dp->th[t];
        dp->overflow += th->overflow;
        for (int k = 0; k < m->ntypes; k++)
            if (th->maxseen[k] > dp->maxseen[k]) dp->maxseen[k] = th->maxseen[k];
    }
    for (int t = 0; t < nth; t++)
        if (dp->th[t].err_ii >= 0) {
            *st = dp->th[t].st;
            return st->code;
        }

    pk_accum_reduce(&dp->facc);
    double e = 0.0, vir[9] = {0};
    for (int t = 0; t < nth; t++) {
        e += dp->th[t].e;
        for (int k = 0; k < 9; k++) vir[k] += dp->th[t].vir[k];
    }
    if (out->want_energy) out->energy += e;
    /* LAMMPS order xx yy zz xy xz yz from [a][b] = F_a d_b: xy = d_x F_y = [1][0], etc. */
    static const int lmp[6] = {0, 4, 8, 3, 6, 7};
    if (out->want_virial)
        for (int k = 0; k < 6; k++) out->virial[k] += vir[lmp[k]];
    if (v9) {
        pk_accum_reduce(&dp->vacc);
        for (int a = 0; a < nall; a++) {
            const double *va = v9 + 9 * (size_t)a;
            if (vatom9)
                for (int k = 0; k < 9; k++) vatom9[a][k] += va[k];
            if (out->vatom)
                for (int k = 0; k < 6; k++) out->vatom[a][k] += va[lmp[k]];
        }
    }
    return PK_OK;
}
