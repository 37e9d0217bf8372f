/* Tabulated embedding nets (the "compressed model" of DeePMD-kit; Guo et al., PPoPP'22).
 *
 * Each net G(s) is replaced on [s0, s2) by quintic Hermite pieces: on an interval of width
 * h starting at node x0, with y, y', y'' known at both ends (from forward-mode derivatives
 * of the net), p(t) = sum_p c_p t^p, t = s - x0, with
 *   c0 = y0, c1 = y0', c2 = y0''/2, and with D0 = y1 - y0 - y0' h - y0'' h^2/2,
 *   D1 = y1' - y0' - y0'' h, D2 = y1'' - y0'':
 *   c3 h^3 = 10 D0 - 4 h D1 + h^2 D2/2
 *   c4 h^4 = -15 D0 + 7 h D1 - h^2 D2
 *   c5 h^5 = 6 D0 - 3 h D1 + h^2 D2/2
 * (the solution of p(h) = y1, p'(h) = y1', p''(h) = y1''), so G is C2 across nodes.
 *
 * Range: s0 is one step below the lowest padding value -davg/dstd (s at r >= rcut); the
 * fine range [s0, s1) of step h reaches s(table_rmin); the coarse range [s1, s2) of step
 * 10h extends it to s0 + table_extrapolate (s1 - s0). The padding slots are evaluated
 * once here (see dp_tables in deepmd_internal.h): one row R^_pad (x) G(s_pad) per block
 * with uniform statistics, suffix sums over the slots otherwise.
 *
 * The loader checks each weight for finiteness only; a net can still overflow where it is
 * tabulated (a linear layer with a weight of 1e307 makes G infinite beyond s = 18, inside
 * the coarse range; differences of values near the largest double overflow first), so every
 * coefficient and padding sum is checked here, and a non-finite one is an error naming the
 * model file, the net and the interval of s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

/* Lowest padding value and highest s(rmin) over the centre types that use net e. */
static void s_range(const dp_model *m, int e, double rmin, double *lo, double *hi)
{
    const int nt = m->ntypes, tj = m->one_side ? e : e / nt;
    dp_nbr n = {.r = rmin, .d = {rmin, 0, 0}};
    double R[4];
    dp_env_row(m, &n, R, NULL);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int ti = 0; ti < nt; ti++) {
        if (!m->one_side && ti != e % nt) continue;
        for (int k = m->sec[tj]; k < m->sec[tj + 1]; k++) {
            double a = m->davg[((size_t)ti * m->nnei + k) * 4];
            double s = m->dstd[((size_t)ti * m->nnei + k) * 4];
            double pad = -a / s, top = (R[0] - a) / s;
            if (pad < *lo) *lo = pad;
            if (top > *hi) *hi = top;
        }
    }
}

/* "model.descriptor.embeddings.networks[e] (neighbour H[, centre O])" into buf. */
static const char *net_name(const dp_model *m, int e, char *buf, size_t len)
{
    const int nt = m->ntypes;
    if (m->one_side)
        snprintf(buf, len, "model.descriptor.embeddings.networks[%d] (neighbour type %s)", e,
                 m->type_map[e]);
    else
        snprintf(buf, len, "model.descriptor.embeddings.networks[%d] (centre type %s, "
                 "neighbour type %s)", e, m->type_map[e % nt], m->type_map[e / nt]);
    return buf;
}

/* The 6 x ng coefficients of interval [x0, x0 + h) of net e finite, else the error. */
static pk_code check_piece(const double *c, int ng, const dp_model *m, int e, double x0,
                           double h, const char *file, pk_status *st)
{
    for (int k = 0; k < 6 * ng; k++) {
        if (isfinite(c[k])) continue;
        char name[200];
        return pk_fail(st, PK_ERR_NUMERIC, "%s: %s: its table has coefficient %g (power %d "
                       "of output %d) on s in [%.9g, %.9g): the net or its first two "
                       "derivatives overflow there; its weights are too large", file,
                       net_name(m, e, name, sizeof name), c[k], k / ng, k % ng, x0, x0 + h);
    }
    return PK_OK;
}

/* Largest table of one embedding net (coefficients of all intervals). */
#define DP_TABLE_MAX_BYTES 1073741824.0

static pk_code build_one(dp_table *t, const dp_model *mod, int e, double lo, double hi,
                         const pk_deepmd_options *o, const char *file, pk_status *st)
{
    const dp_net *net = &mod->emb[e];
    const int ng = mod->ng;
    t->h0 = o->table_step;
    t->h1 = 10.0 * o->table_step;
    t->s0 = lo - t->h0;
    double n0 = ceil((hi - t->s0) / t->h0);
    /* n0 fine intervals and (table_extrapolate - 1) n0 / 10 coarse ones, 6 ng doubles
     * each: a tiny table_step or table_rmin must be an error, not gigabytes of tables
     * computed for minutes (and no interval count may overflow an int). */
    const double n1 = fmax(1.0, ceil((o->table_extrapolate - 1.0) * n0 * t->h0 / t->h1));
    const double bytes = (n0 + n1) * ng * 6.0 * sizeof(double);
    if (!(n0 >= 1) || !(bytes <= DP_TABLE_MAX_BYTES)) {
        char name[200];
        return pk_fail(st, PK_ERR_ARG, "%s: %s: table range [%g, %g] with table_step %g "
                       "is not usable (%.3g intervals, %.3g GiB; at most %g GiB per net: "
                       "use a larger table_step or table_rmin)", file,
                       net_name(mod, e, name, sizeof name), lo, hi, t->h0, n0 + n1,
                       bytes / 1073741824.0, DP_TABLE_MAX_BYTES / 1073741824.0);
    }
    t->n0 = (int)n0;
    t->s1 = t->s0 + t->n0 * t->h0;
    t->n1 = (int)n1;
    t->s2 = t->s1 + t->n1 * t->h1;
    const int nint = t->n0 + t->n1;
    t->coef = malloc(sizeof(double) * (size_t)nint * ng * 6);
    double *y = malloc(sizeof(double) * 6 * ((size_t)ng + net->width));
    if (!t->coef || !y) {
        free(y);
        return pk_fail(st, PK_ERR_MEMORY, "cannot allocate the tables (%d "
                       "intervals of %d outputs)", nint, ng);
    }
    double *y0 = y, *d0 = y0 + ng, *s0 = d0 + ng, *y1 = s0 + ng, *d1 = y1 + ng, *s1 = d1 + ng;
    double *scr = s1 + ng;
    dp_net_scalar(net, t->s0, y0, d0, s0, scr);
    for (int k = 0; k < nint; k++) {
        double h = k < t->n0 ? t->h0 : t->h1;
        double x1 = k < t->n0 ? t->s0 + (k + 1) * t->h0 : t->s1 + (k + 1 - t->n0) * t->h1;
        dp_net_scalar(net, x1, y1, d1, s1, scr);
        double *c = t->coef + (size_t)k * ng * 6;
        for (int m = 0; m < ng; m++) {
            double D0 = y1[m] - y0[m] - d0[m] * h - 0.5 * s0[m] * h * h;
            double D1 = d1[m] - d0[m] - s0[m] * h;
            double D2 = s1[m] - s0[m];
            double h2 = h * h, h3 = h2 * h;
            c[m] = y0[m];
            c[ng + m] = d0[m];
            c[2 * ng + m] = 0.5 * s0[m];
            c[3 * ng + m] = (10.0 * D0 - 4.0 * h * D1 + 0.5 * h2 * D2) / h3;
            c[4 * ng + m] = (-15.0 * D0 + 7.0 * h * D1 - h2 * D2) / (h3 * h);
            c[5 * ng + m] = (6.0 * D0 - 3.0 * h * D1 + 0.5 * h2 * D2) / (h3 * h2);
        }
        if (check_piece(c, ng, mod, e, x1 - h, h, file, st)) {
            free(y);
            return st->code;
        }
        memcpy(y0, y1, sizeof(double) * 3 * ng);  /* y1, d1, s1 follow y0, d0, s0 */
    }
    free(y);
    return PK_OK;
}

/* Do all slots of block tj share centre ti's statistics? */
static int block_uniform(const dp_model *m, int ti, int tj)
{
    const size_t first = ((size_t)ti * m->nnei + m->sec[tj]) * 4;
    for (int k = m->sec[tj] + 1; k < m->sec[tj + 1]; k++) {
        const size_t at = ((size_t)ti * m->nnei + k) * 4;
        if (memcmp(m->davg + at, m->davg + first, 4 * sizeof(double)) ||
            memcmp(m->dstd + at, m->dstd + first, 4 * sizeof(double)))
            return 0;
    }
    return 1;
}

static pk_code build_pad(dp_tables *tb, const dp_model *m, const char *file, pk_status *st)
{
    const int nt = m->ntypes, ng = m->ng;
    size_t total = 0;
    tb->pad_off = malloc(sizeof(size_t) * nt * nt);
    tb->pad_uniform = malloc((size_t)nt * nt);
    if (!tb->pad_off || !tb->pad_uniform)
        return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    for (int ti = 0; ti < nt; ti++)
        for (int tj = 0; tj < nt; tj++) {
            const int u = block_uniform(m, ti, tj);
            tb->pad_uniform[ti * nt + tj] = (unsigned char)u;
            tb->pad_off[ti * nt + tj] = total;
            total += (u ? 1 : (size_t)m->sel[tj] + 1) * 4 * ng;
        }
    int width = 0;
    for (int e = 0; e < m->nemb; e++)
        if (m->emb[e].width > width) width = m->emb[e].width;
    tb->pad = calloc(total, sizeof(double));
    double *G = malloc(sizeof(double) * ((size_t)ng + 6 * width));
    if (!tb->pad || !G) {
        free(G);
        return pk_fail(st, PK_ERR_MEMORY, "out of memory for padding sums");
    }
    tb->bytes += total * sizeof(double);
    for (int ti = 0; ti < nt; ti++)
        for (int tj = 0; tj < nt; tj++) {
            double *P = tb->pad + tb->pad_off[ti * nt + tj];
            const dp_net *net = dp_emb_of(m, ti, tj);
            const int uniform = tb->pad_uniform[ti * nt + tj];
            double slast = NAN;
            if (m->sel[tj] == 0) continue;   /* no slots: P stays zero */
            /* One row, or suffix sums from the last slot down; G re-evaluated only when s
             * changes. */
            for (int n = uniform ? 0 : m->sel[tj] - 1; n >= 0; n--) {
                const int k = m->sec[tj] + n;
                const double *a = m->davg + ((size_t)ti * m->nnei + k) * 4;
                const double *s = m->dstd + ((size_t)ti * m->nnei + k) * 4;
                double Rh[4], *Pn = P + (size_t)n * 4 * ng, *Pn1 = Pn + 4 * ng;
                for (int d = 0; d < 4; d++) Rh[d] = -a[d] / s[d];
                if (Rh[0] != slast) dp_net_scalar(net, Rh[0], G, NULL, NULL, G + ng);
                slast = Rh[0];
                for (int d = 0; d < 4; d++)
                    for (int c = 0; c < ng; c++)
                        Pn[d * ng + c] = (uniform ? 0.0 : Pn1[d * ng + c]) + Rh[d] * G[c];
                for (int c = 0; c < 4 * ng; c++)
                    if (!isfinite(Pn[c])) {
                        char name[200];
                        free(G);
                        return pk_fail(st, PK_ERR_NUMERIC, "%s: %s: the padding rows of a "
                                       "centre of type %s are not finite (%g at s = %.9g, "
                                       "neighbour slot %d): its weights are too large", file,
                                       net_name(m, dp_emb_index(m, ti, tj), name, sizeof name),
                                       m->type_map[ti], Pn[c], Rh[0], k);
                    }
            }
        }
    free(G);
    return PK_OK;
}

pk_code dp_tables_build(dp_tables *tb, const dp_model *m, const pk_deepmd_options *o,
                        const char *file, pk_status *st)
{
    memset(tb, 0, sizeof *tb);
    tb->tab = calloc((size_t)m->nemb, sizeof(dp_table));
    if (!tb->tab) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    for (int e = 0; e < m->nemb; e++) {
        const int tj = m->one_side ? e : e / m->ntypes;
        double lo, hi;
        if (m->sel[tj] == 0) continue;   /* never evaluated */
        s_range(m, e, o->table_rmin, &lo, &hi);
        if (build_one(&tb->tab[e], m, e, lo, hi, o, file, st)) return st->code;
        tb->bytes += sizeof(double) * 6 * (size_t)m->ng * (tb->tab[e].n0 + tb->tab[e].n1);
    }
    return build_pad(tb, m, file, st);
}

void dp_tables_free(dp_tables *tb, const dp_model *m)
{
    for (int e = 0; tb->tab && e < m->nemb; e++) free(tb->tab[e].coef);
    free(tb->tab);
    free(tb->pad);
    free(tb->pad_off);
    free(tb->pad_uniform);
    memset(tb, 0, sizeof *tb);
}
