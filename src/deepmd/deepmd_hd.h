/* deepmd/pk arithmetic shared by the C kernels and the CUDA backend (PK_HD, DESIGN.md §8):
 * activations, the smooth environment row of se_e2_a and the table lookup, used by the C
 * kernel as they are; and the per-thread bodies of the CUDA kernels (deepmd_cuda.cu), which
 * the host test unit.deepmd_cuda_emulate runs thread by thread against the cpu backend.
 * Plain C: no libc beyond math.h. */
#ifndef PK_DEEPMD_HD_H
#define PK_DEEPMD_HD_H

#include <math.h>
#include <stddef.h>

#include "pk_hd.h"

typedef enum { DP_ACT_NONE, DP_ACT_TANH, DP_ACT_RELU, DP_ACT_RELU6, DP_ACT_SOFTPLUS,
               DP_ACT_SIGMOID } dp_act;

/* a = act(z), a1 = act'(z), a2 = act''(z). */
PK_HD void dp_act_eval(dp_act act, double z, double *a, double *a1, double *a2)
{
    switch (act) {
    case DP_ACT_TANH: {
        double t = tanh(z), d = 1.0 - t * t;
        *a = t; *a1 = d; *a2 = -2.0 * t * d;
        return;
    }
    case DP_ACT_RELU:
        *a = z > 0 ? z : 0; *a1 = z > 0 ? 1 : 0; *a2 = 0;
        return;
    case DP_ACT_RELU6:
        *a = z > 0 ? (z < 6 ? z : 6) : 0; *a1 = (z > 0 && z < 6) ? 1 : 0; *a2 = 0;
        return;
    case DP_ACT_SIGMOID: {
        double sg = 1.0 / (1.0 + exp(-z)), d = sg * (1.0 - sg);
        *a = sg; *a1 = d; *a2 = d * (1.0 - 2.0 * sg);
        return;
    }
    case DP_ACT_SOFTPLUS: {
        /* log(1 + e^z) written to avoid overflow; derivative is the sigmoid. */
        double sg = 1.0 / (1.0 + exp(-z));
        *a = z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
        *a1 = sg; *a2 = sg * (1.0 - sg);
        return;
    }
    case DP_ACT_NONE:
    default:
        *a = z; *a1 = 1; *a2 = 0;
        return;
    }
}

/* Smooth switch w(r) = 1 - 10u^3 + 15u^4 - 6u^5 and dw/dr (DeePMD-kit env_mat). */
PK_HD void dp_hd_switch(double rcut, double rcut_smth, double r, double *w, double *dw)
{
    if (r <= rcut_smth) { *w = 1.0; *dw = 0.0; return; }
    if (r >= rcut) { *w = 0.0; *dw = 0.0; return; }
    double inv = 1.0 / (rcut - rcut_smth), u = (r - rcut_smth) * inv;
    double u2 = u * u, u3 = u2 * u;
    *w = u3 * (-6.0 * u2 + 15.0 * u - 10.0) + 1.0;
    *dw = u2 * (-30.0 * u2 + 60.0 * u - 30.0) * inv;
}

/* Row R = w (1/rho, d/rho^2), rho = r + protection, and if dR is not NULL
 * dR[a][b] = dR_a / dd_b. */
PK_HD void dp_hd_env_row(double rcut, double rcut_smth, double protection, double r,
                         const double d[3], double R[4], double dR[4][3])
{
    double w, dw, rho = r + protection;
    dp_hd_switch(rcut, rcut_smth, r, &w, &dw);
    double ir = 1.0 / rho, ir2 = ir * ir;
    R[0] = w * ir;
    for (int a = 0; a < 3; a++) R[1 + a] = w * d[a] * ir2;
    if (!dR) return;
    /* dR0/dd = (w'/rho - w/rho^2) d/r; dRa/dd_b = w delta_ab/rho^2 + d_a (w'/rho^2 -
     * 2w/rho^3) d_b/r. */
    double c0 = (dw * ir - w * ir2) / r, c1 = (dw * ir2 - 2.0 * w * ir2 * ir) / r;
    for (int b = 0; b < 3; b++) {
        dR[0][b] = c0 * d[b];
        for (int a = 0; a < 3; a++)
            dR[1 + a][b] = (a == b ? w * ir2 : 0.0) + d[a] * c1 * d[b];
    }
}

/* Extent of one embedding table (dp_table without its coefficients). */
typedef struct {
    double s0, s1, s2, h0, h1;
    int n0, n1;
} dp_hd_range;

/* The interval k holding s and dt = s - its node; 0 when s lies beyond the table (or is
 * NaN). */
PK_HD int dp_hd_locate(const dp_hd_range *t, double s, int *k_out, double *dt)
{
    int k;
    double base;
    if (s < t->s1) {
        k = (int)((s - t->s0) / t->h0);
        if (k < 0) k = 0;                 /* round-off below the padding value */
        if (k >= t->n0) k = t->n0 - 1;
        base = t->s0 + k * t->h0;
    } else {
        if (!(s <= t->s2)) return 0;
        int k1 = (int)((s - t->s1) / t->h1);
        if (k1 >= t->n1) k1 = t->n1 - 1;
        base = t->s1 + k1 * t->h1;
        k = t->n0 + k1;
    }
    *k_out = k;
    *dt = s - base;
    return 1;
}

/* ---- the CUDA backend's per-thread code ------------------------------------------------ */

/* The model as the device kernels see it (device pointers there, host ones in the test). */
typedef struct {
    int ntypes, nnei, ng, axis, one_side;
    double rcut, rcut_smth, protection;
    const int *sel, *sec;            /* ntypes, ntypes + 1 */
    const unsigned char *excl;       /* ntypes x ntypes */
    const double *davg, *dstd;       /* ntypes x nnei x 4 */
    const dp_hd_range *range;        /* per embedding net */
    const size_t *coef_off;          /* per embedding net: first coefficient */
    const double *coef;              /* all tables, dp_table layout */
    const float *coef_f;             /* the same in float (mixed precision) */
    const double *pad;               /* dp_tables.pad */
    const size_t *pad_off;           /* ntypes x ntypes */
    const unsigned char *pad_uniform;
} dp_hd_model;

PK_HD int dp_hd_emb_index(const dp_hd_model *m, int ti, int tj)
{
    return m->one_side ? tj : ti + m->ntypes * tj;
}

/* A listed neighbour of a centre: candidates, then the kept ones in slot order. src is its
 * position in the centre's row of the list (where its force goes). */
typedef struct {
    int j, type, slot, src;
    double r, d[3];
} dp_hd_nbr;

/* Error codes of a centre (env pass). */
enum { DP_HD_OK = 0, DP_HD_OVERLAP = 1, DP_HD_RANGE = 2 };
/* Atoms at one point: the descriptor 1/r is infinite (deepmd.c). */
#define DP_HD_OVERLAP_R 1e-10

/* One step's list as the device sees it: centre ii is atom centre[ii] of model type
 * mtype[centre[ii]], its listed neighbours are neigh[offset[ii] .. offset[ii + 1]). */
typedef struct {
    const double (*x)[3];
    const int *mtype;                /* nall: model type, -1 not handled */
    const int *centre, *offset, *neigh;
    double *cand_r;                  /* offset[inum]: distance of each listed neighbour */
    int *cand_t;                     /* offset[inum]: its type, -1 beyond rcut or not handled */
    dp_hd_nbr *nbr;                  /* offset[inum]: each centre's row, kept ones first */
    int *nn;                         /* inum: kept neighbours */
    int *count;                      /* inum x ntypes: neighbours within rcut per type */
    int *err, *err_q;                /* inum: code and the neighbour (index into the row) */
} dp_hd_list;

/* s = R^[0] of a kept neighbour of a centre of type ti, its table interval and offset;
 * Rh the normalised row. 0 when beyond the table. */
PK_HD int dp_hd_lookup(const dp_hd_model *m, int ti, const dp_hd_nbr *n, double Rh[4],
                       int *k, double *dt)
{
    const double *avg = m->davg + ((size_t)ti * m->nnei + n->slot) * 4;
    const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;
    double R[4];
    dp_hd_env_row(m->rcut, m->rcut_smth, m->protection, n->r, n->d, R, NULL);
    for (int d = 0; d < 4; d++) Rh[d] = (R[d] - avg[d]) / std[d];
    return dp_hd_locate(&m->range[dp_hd_emb_index(m, ti, n->type)], Rh[0], k, dt);
}

/* The env pass of a centre is one block of threads (deepmd_cuda.cu: dp_env_kernel), in four
 * phases separated by barriers. Together they give the row of dp_env_gather: the listed
 * neighbours within rcut ordered by (type, r, j), the nearest sel[t] of each type kept in
 * slot order, then the checks of the tabulated kernel in the cpu backend's order. Instead
 * of sorting, each candidate finds its place by counting the candidates before it. */

/* Phase 1, thread per listed neighbour jj: its distance and type, or type -1 (also for
 * every neighbour of a centre whose type is not handled: it keeps none). */
PK_HD void dp_hd_env_candidate(const dp_hd_model *m, const dp_hd_list *l, int ii, int jj)
{
    const int i = l->centre[ii], p = l->offset[ii] + jj, j = l->neigh[p], tj = l->mtype[j];
    const double d0 = l->x[j][0] - l->x[i][0], d1 = l->x[j][1] - l->x[i][1];
    const double d2 = l->x[j][2] - l->x[i][2], r2 = d0 * d0 + d1 * d1 + d2 * d2;
    const int inside = l->mtype[i] >= 0 && tj >= 0 && r2 < m->rcut * m->rcut;
    l->cand_t[p] = inside ? tj : -1;
    l->cand_r[p] = inside ? sqrt(r2) : 0.0;
}

/* Phase 2, thread per type t: the centre's candidates of type t; thread 0 also clears the
 * centre's error. */
PK_HD void dp_hd_env_count(const dp_hd_model *m, const dp_hd_list *l, int ii, int t)
{
    const int o = l->offset[ii], jnum = l->offset[ii + 1] - o;
    int c = 0;
    for (int q = 0; q < jnum; q++) c += l->cand_t[o + q] == t;
    l->count[(size_t)ii * m->ntypes + t] = c;
    if (t == 0) {
        l->err[ii] = DP_HD_OK;
        l->err_q[ii] = 0;
    }
}

/* Phase 3, one thread: the kept neighbours, nn (also for a centre without any). */
PK_HD void dp_hd_env_total(const dp_hd_model *m, const dp_hd_list *l, int ii)
{
    const int *count = l->count + (size_t)ii * m->ntypes;
    int nn = 0;
    for (int t = 0; t < m->ntypes; t++) nn += count[t] < m->sel[t] ? count[t] : m->sel[t];
    l->nn[ii] = nn;
}

/* Phase 3, thread per listed neighbour jj: a candidate of type t with k candidates of type t
 * before it in (r, j, list position) order is kept when k < sel[t], at row place (kept ones
 * of the types below t) + k and slot sec[t] + k. */
PK_HD void dp_hd_env_place(const dp_hd_model *m, const dp_hd_list *l, int ii, int jj)
{
    const int nt = m->ntypes, o = l->offset[ii], jnum = l->offset[ii + 1] - o;
    const int *count = l->count + (size_t)ii * nt;
    const int p = o + jj, t = l->cand_t[p];
    if (t < 0) return;
    const double r = l->cand_r[p];
    const int j = l->neigh[p];
    int k = 0;
    for (int q = 0; q < jnum; q++) {
        if (l->cand_t[o + q] != t) continue;
        const double rq = l->cand_r[o + q];
        const int jq = l->neigh[o + q];
        k += rq < r || (rq == r && (jq < j || (jq == j && q < jj)));
    }
    if (k >= m->sel[t]) return;
    int place = k;
    for (int u = 0; u < t; u++) place += count[u] < m->sel[u] ? count[u] : m->sel[u];
    const int i = l->centre[ii];
    dp_hd_nbr *n = &l->nbr[o + place];
    n->j = j; n->type = t; n->slot = m->sec[t] + k; n->src = jj; n->r = r;
    for (int a = 0; a < 3; a++) n->d[a] = l->x[j][a] - l->x[i][a];
}

/* Phase 4, thread per kept neighbour q: DP_HD_OVERLAP when it sits on the centre,
 * DP_HD_RANGE when beyond the table, else DP_HD_OK (excluded pairs are not checked). The
 * block keeps the lowest q of each code (dp_hd_env_verdict). */
PK_HD int dp_hd_env_check(const dp_hd_model *m, const dp_hd_list *l, int ii, int q)
{
    const int ti = l->mtype[l->centre[ii]];
    const dp_hd_nbr *n = &l->nbr[l->offset[ii] + q];
    if (m->excl[ti * m->ntypes + n->type]) return DP_HD_OK;
    if (n->r < DP_HD_OVERLAP_R) return DP_HD_OVERLAP;
    double Rh[4], dt;
    int k;
    return dp_hd_lookup(m, ti, n, Rh, &k, &dt) ? DP_HD_OK : DP_HD_RANGE;
}

/* After phase 4: an overlap anywhere is reported before a neighbour beyond the table, as
 * the cpu kernel checks (first_* = the lowest q with that code, or jnum when none). */
PK_HD void dp_hd_env_verdict(const dp_hd_list *l, int ii, int first_overlap, int first_range)
{
    const int nn = l->nn[ii];
    if (first_overlap < nn) {
        l->err[ii] = DP_HD_OVERLAP;
        l->err_q[ii] = first_overlap;
    } else if (first_range < nn) {
        l->err[ii] = DP_HD_RANGE;
        l->err_q[ii] = first_range;
    }
}

/* Real neighbours of type t after truncation (nreal of the cpu kernel). */
PK_HD int dp_hd_nreal(const dp_hd_model *m, const int *count, int t)
{
    return count[t] < m->sel[t] ? count[t] : m->sel[t];
}

/* Thread tid of block `block` of the forward kernel (deepmd_launch.h): its centre *ii and
 * first column *first; 0 when it has no centre (past inum or past the centre's columns). */
PK_HD int dp_hd_forward_place(int inum, int ng, int width, int centres, int block, int tid,
                              int *ii, int *first)
{
    *ii = block * centres + tid / width;
    *first = tid % width;
    return *ii < inum && *first < ng;
}

/* Most columns of T one forward thread computes. */
#define DP_HD_MAX_COLUMNS 4

/* The per-thread bodies that exist in a double and a float (mixed) form: the table is read
 * as COEF (double or float) and G evaluated in that type; sums are double. SUFFIX names the
 * form (empty or _f), COEF_FIELD the table (coef or coef_f). ng is m->ng, passed so that a
 * kernel specialised for one width sees a constant. */
#define DP_HD_TABLE_FUNCTIONS(SUFFIX, COEF, COEF_FIELD)                                     \
    /* A thread of the forward pass of a centre: the columns first + u stride (u < ncol,    \
     * those < ng) of T (4 x ng, divided by N), padding slots first, then the kept         \
     * neighbours in slot order (dp_fused_forward), each looked up once for all its        \
     * columns. A column's sum is the same sequence of operations for any first, stride    \
     * and ncol: the launch shape does not change the bits. Columns past ng repeat column  \
     * ng - 1 unstored (no branch in the loop).                                         */  \
    PK_HD void dp_hd_forward_columns##SUFFIX(const dp_hd_model *m, const dp_hd_list *l,     \
                                             int ii, int first, int stride, int ncol,       \
                                             int ng, double *T)                             \
    {                                                                                       \
        const int i = l->centre[ii], ti = l->mtype[i], nt = m->ntypes;                      \
        const int *count = l->count + (size_t)ii * nt;                                      \
        int col[DP_HD_MAX_COLUMNS];                                                         \
        double t[DP_HD_MAX_COLUMNS][4];                                                     \
        for (int u = 0; u < ncol; u++) {                                                    \
            col[u] = first + u * stride < ng ? first + u * stride : ng - 1;                 \
            t[u][0] = t[u][1] = t[u][2] = t[u][3] = 0.0;                                    \
        }                                                                                   \
        for (int tj = 0; tj < nt; tj++) {                                                   \
            const double *P = m->pad + m->pad_off[ti * nt + tj];                            \
            const int nr = dp_hd_nreal(m, count, tj);                                       \
            if (m->pad_uniform[ti * nt + tj]) {                                             \
                const double npad = m->sel[tj] - nr;                                        \
                for (int u = 0; u < ncol; u++)                                              \
                    for (int d = 0; d < 4; d++) t[u][d] += npad * P[d * ng + col[u]];       \
            } else {                                                                        \
                P += (size_t)nr * 4 * ng;                                                   \
                for (int u = 0; u < ncol; u++)                                              \
                    for (int d = 0; d < 4; d++) t[u][d] += P[d * ng + col[u]];              \
            }                                                                               \
        }                                                                                   \
        const dp_hd_nbr *row = l->nbr + l->offset[ii];                                      \
        for (int q = 0; q < l->nn[ii]; q++) {                                               \
            if (m->excl[ti * nt + row[q].type]) continue;                                   \
            double Rh[4], dt;                                                               \
            int k;                                                                          \
            if (!dp_hd_lookup(m, ti, &row[q], Rh, &k, &dt)) continue; /* flagged */         \
            const COEF *c = m->COEF_FIELD +                                                 \
                            m->coef_off[dp_hd_emb_index(m, ti, row[q].type)] +             \
                            (size_t)k * ng * 6;                                             \
            const COEF x = (COEF)dt;                                                        \
            for (int u = 0; u < ncol; u++) {                                                \
                const COEF *cu = c + col[u];                                                \
                const COEF G = cu[0] + x * (cu[ng] + x * (cu[2 * ng] + x * (cu[3 * ng] +    \
                               x * (cu[4 * ng] + x * cu[5 * ng]))));                        \
                for (int d = 0; d < 4; d++) t[u][d] += Rh[d] * (double)G;                   \
            }                                                                               \
        }                                                                                   \
        const double invN = 1.0 / m->nnei;                                                  \
        for (int u = 0; u < ncol; u++)                                                      \
            if (first + u * stride < ng)                                                    \
                for (int d = 0; d < 4; d++) T[d * ng + col[u]] = t[u][d] * invN;            \
    }                                                                                       \
                                                                                            \
    /* Force on neighbour n of a centre of type ti from dE/dT (4 x ng): F = -dE/dd         \
     * (dp_fused_backward's row gradient, then dp_env_scatter's chain rule). */             \
    PK_HD void dp_hd_pair_force##SUFFIX(const dp_hd_model *m, int ng, int ti,               \
                                        const dp_hd_nbr *n, const double *dEdT,             \
                                        double F[3])                                        \
    {                                                                                       \
        double Rh[4], dt, g[4] = {0.0, 0.0, 0.0, 0.0}, gs = 0.0;                            \
        int k;                                                                              \
        F[0] = F[1] = F[2] = 0.0;                                                           \
        if (m->excl[ti * m->ntypes + n->type] || !dp_hd_lookup(m, ti, n, Rh, &k, &dt))      \
            return;                                                                         \
        const COEF *c = m->COEF_FIELD + m->coef_off[dp_hd_emb_index(m, ti, n->type)] +     \
                        (size_t)k * ng * 6;                                                 \
        const COEF x = (COEF)dt;                                                            \
        for (int o = 0; o < ng; o++) {                                                      \
            const COEF p1 = c[ng + o], p2 = c[2 * ng + o], p3 = c[3 * ng + o];              \
            const COEF p4 = c[4 * ng + o], p5 = c[5 * ng + o];                              \
            const COEF G = c[o] + x * (p1 + x * (p2 + x * (p3 + x * (p4 + x * p5))));       \
            const COEF dG = p1 + x * (2 * p2 + x * (3 * p3 + x * (4 * p4 + x * 5 * p5)));   \
            const double b0 = dEdT[o], b1 = dEdT[ng + o], b2 = dEdT[2 * ng + o];            \
            const double b3 = dEdT[3 * ng + o];                                             \
            g[0] += b0 * (double)G; g[1] += b1 * (double)G;                                 \
            g[2] += b2 * (double)G; g[3] += b3 * (double)G;                                 \
            gs += (double)dG * (b0 * Rh[0] + b1 * Rh[1] + b2 * Rh[2] + b3 * Rh[3]);         \
        }                                                                                   \
        g[0] += gs;                                                                         \
        const double *std = m->dstd + ((size_t)ti * m->nnei + n->slot) * 4;                 \
        const double invN = 1.0 / m->nnei;                                                  \
        for (int d = 0; d < 4; d++) g[d] *= invN / std[d];                                  \
        double R[4], dR[4][3];                                                              \
        dp_hd_env_row(m->rcut, m->rcut_smth, m->protection, n->r, n->d, R, dR);             \
        for (int b = 0; b < 3; b++)                                                         \
            F[b] = -(g[0] * dR[0][b] + g[1] * dR[1][b] + g[2] * dR[2][b] + g[3] * dR[3][b]); \
    }

DP_HD_TABLE_FUNCTIONS(, double, coef)
DP_HD_TABLE_FUNCTIONS(_f, float, coef_f)

/* Descriptor element D[i * axis + a] = sum_d T[d][i] T[d][a] of one centre (dp_fit_atoms). */
PK_HD double dp_hd_descriptor(const double *T, int ng, int i, int a)
{
    double s = 0.0;
    for (int d = 0; d < 4; d++) s += T[d * ng + i] * T[d * ng + a];
    return s;
}

/* dE/dT[d][i] from g = dE/dD (ng x axis) of one centre (dp_fit_atoms). */
PK_HD double dp_hd_dedt(const double *T, const double *g, int ng, int axis, int d, int i)
{
    const double *Td = T + d * ng;
    double s = 0.0;
    for (int a = 0; a < axis; a++) s += g[i * axis + a] * Td[a];
    if (i < axis)
        for (int k = 0; k < ng; k++) s += g[k * axis + i] * Td[k];
    return s;
}

/* Fitting layer, element (b, o) after the product z = x W + b in y: y = act(z) idt plus
 * the resnet shortcut x (or (x, x) when the layer doubles the width), slope = act'(z) idt
 * (dp_net_fit). idt may be NULL. */
PK_HD void dp_hd_layer_out(dp_act act, int resnet, int nin, int nout, const double *idt,
                           const double *x, double *y, double *slope, int b, int o)
{
    double a, a1, a2;
    const double g = idt ? idt[o] : 1.0;
    dp_act_eval(act, y[(size_t)b * nout + o], &a, &a1, &a2);
    double v = a * g;
    if (resnet && (nout == nin || nout == 2 * nin)) v += x[(size_t)b * nin + o % nin];
    y[(size_t)b * nout + o] = v;
    slope[(size_t)b * nout + o] = a1 * g;
}

/* Fitting layer backward, element (b, k < nin): the shortcut's share of dE/dx from
 * dE/dy (ga, rows of W), before ga is scaled by the slopes (dp_net_fit). */
PK_HD double dp_hd_layer_shortcut(int resnet, int nin, int nout, const double *ga, int W,
                                  int b, int k)
{
    const double *a = ga + (size_t)b * W;
    if (resnet && nout == nin) return a[k];
    if (resnet && nout == 2 * nin) return a[k] + a[k + nin];
    return 0.0;
}

/* Lowest index k in sorted[0, n) with sorted[k] >= key. */
PK_HD int dp_hd_lower_bound(const int *sorted, int n, int key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Thread a of the force gather: the atom's own centre term (minus the forces its
 * neighbours feel from its energy, in list order), then the forces it feels as a neighbour
 * (list positions ascending, from the reverse index by_atom/by_pos sorted by atom), and
 * DeePMD-kit's per-atom virial sum F (x) d over the latter. Fixed order: the same bits on
 * every run. fd holds (F, d) per list position, zero where no force. */
PK_HD void dp_hd_gather_atom(const int *centre_of, const int *offset, const double *fd,
                             const int *by_atom, const int *by_pos, int npos, int a,
                             double f[3], double v9[9])
{
    f[0] = f[1] = f[2] = 0.0;
    for (int k = 0; k < 9; k++) v9[k] = 0.0;
    const int ii = centre_of[a];
    if (ii >= 0)
        for (int p = offset[ii]; p < offset[ii + 1]; p++)
            for (int k = 0; k < 3; k++) f[k] -= fd[6 * (size_t)p + k];
    for (int s = dp_hd_lower_bound(by_atom, npos, a); s < npos && by_atom[s] == a; s++) {
        const double *e = fd + 6 * (size_t)by_pos[s];
        for (int k = 0; k < 3; k++) f[k] += e[k];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) v9[3 * r + c] += e[r] * e[3 + c];
    }
}

#endif
