/* deepmd/pk's CUDA launch shapes: the keywords, the candidates and the choice
 * (deepmd_launch.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_launch.h"

/* The whole of s as an integer, or 0 (with *ok = 0) when it is not one. */
static long whole_integer(const char *s, int *ok)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    *ok = *s && !*end && errno == 0;
    return *ok ? v : 0;
}

int pk_deepmd_launch_parse(pk_deepmd_launch *l, const char *key, const char *value,
                           pk_status *st)
{
    int ok;
    long v;
    if (!strcmp(key, "cuda_tune")) {
        static const char *const yes[] = {"yes", "on", "true"}, *const no[] = {"no", "off",
                                                                                 "false"};
        for (int k = 0; k < 3; k++) {
            if (!strcmp(value, yes[k])) l->tune = 1;
            else if (!strcmp(value, no[k])) l->tune = 0;
            else continue;
            pk_status_clear(st);
            return 1;
        }
        pk_fail(st, PK_ERR_ARG, "cuda_tune must be yes or no (got '%s')", value);
        return 1;
    }
    if (!strcmp(key, "cuda_columns")) {
        v = whole_integer(value, &ok);
        if (ok && (v == 1 || v == 2 || v == 4)) {
            l->columns = (int)v;
            pk_status_clear(st);
        } else {
            pk_fail(st, PK_ERR_ARG, "cuda_columns must be 1, 2 or 4 (got '%s')", value);
        }
        return 1;
    }
    if (!strcmp(key, "cuda_centres")) {
        v = whole_integer(value, &ok);
        if (ok && v >= 1 && v <= DP_LAUNCH_MAX_CENTRES) {
            l->centres = (int)v;
            pk_status_clear(st);
        } else {
            pk_fail(st, PK_ERR_ARG, "cuda_centres must be an integer in 1 .. %d (got '%s')",
                    DP_LAUNCH_MAX_CENTRES, value);
        }
        return 1;
    }
    if (!strcmp(key, "cuda_threads")) {
        v = whole_integer(value, &ok);
        if (ok && v >= 32 && v <= DP_LAUNCH_MAX_BLOCK && v % 32 == 0) {
            l->threads = (int)v;
            pk_status_clear(st);
        } else {
            pk_fail(st, PK_ERR_ARG, "cuda_threads must be a multiple of 32 in 32 .. %d (got "
                    "'%s')", DP_LAUNCH_MAX_BLOCK, value);
        }
        return 1;
    }
    return 0;
}

int dp_launch_width(int ng, int columns)
{
    const int c = (ng + columns - 1) / columns;
    if (c >= 32) return (c + 31) / 32 * 32;
    int w = 1;
    while (w < c) w *= 2;
    return w;
}

pk_code dp_launch_check(const pk_deepmd_launch *req, int ng, pk_status *st)
{
    if (!req->centres || ng > DP_LAUNCH_MAX_BLOCK) return PK_OK;
    const int columns = req->columns ? req->columns : 4;   /* the narrowest a tuner tries */
    const int w = dp_launch_width(ng, columns);
    if (w * req->centres <= DP_LAUNCH_MAX_BLOCK) return PK_OK;
    return pk_fail(st, PK_ERR_ARG, "cuda_centres %d with %d column(s) per thread makes "
                   "forward blocks of %d x %d = %d threads for this model's embedding width "
                   "%d; the most is %d: lower cuda_centres%s", req->centres, columns,
                   req->centres, w, req->centres * w, ng, DP_LAUNCH_MAX_BLOCK,
                   req->columns == 4 ? "" : " or raise cuda_columns");
}

/* Centres per block by default: as many as fill 128 threads (at least one). */
static int default_centres(int width)
{
    int c = 1;
    while (2 * c * width <= 128 && 2 * c <= DP_LAUNCH_MAX_CENTRES) c *= 2;
    return c;
}

static void add_fwd(dp_tuner *t, int columns, int centres, int width)
{
    for (int k = 0; k < t->nfwd; k++)
        if (t->fwd[k].columns == columns && t->fwd[k].centres == centres) return;
    if (t->nfwd < DP_LAUNCH_MAX) t->fwd[t->nfwd++] = (dp_fwd_shape){columns, centres, width};
}

static void add_pair(dp_tuner *t, int threads)
{
    for (int k = 0; k < t->npair; k++)
        if (t->pair[k] == threads) return;
    if (t->npair < DP_LAUNCH_MAX) t->pair[t->npair++] = threads;
}

void dp_tuner_init(dp_tuner *t, const pk_deepmd_launch *req, int ng)
{
    memset(t, 0, sizeof *t);
    t->req = *req;
    /* the default first: columns 1 (or as fixed; or, with centres fixed, the fewest that fit
     * them in a block), centres filling 128 threads */
    int c0 = req->columns ? req->columns : 1;
    while (!req->columns && req->centres && c0 < 4 &&
           dp_launch_width(ng, c0) * req->centres > DP_LAUNCH_MAX_BLOCK)
        c0 *= 2;
    const int w0 = dp_launch_width(ng, c0);
    add_fwd(t, c0, req->centres ? req->centres : default_centres(w0), w0);
    add_pair(t, req->threads ? req->threads : DP_LAUNCH_THREADS);
    if (req->tune) {
        /* per column count, the centres per block (powers of two) that make blocks of 64 to
         * 512 threads: enough warps to hide latency, few enough to leave room for several
         * blocks per multiprocessor */
        static const int columns[3] = {1, 2, 4};
        for (int k = 0; k < 3; k++) {
            if (req->columns && req->columns != columns[k]) continue;
            const int w = dp_launch_width(ng, columns[k]);
            if (req->centres) {
                if (w * req->centres <= DP_LAUNCH_MAX_BLOCK)
                    add_fwd(t, columns[k], req->centres, w);
                continue;
            }
            int any = 0;
            for (int c = 1; c <= DP_LAUNCH_MAX_CENTRES && c * w <= 512; c *= 2)
                if (c * w >= 64) {
                    add_fwd(t, columns[k], c, w);
                    any = 1;
                }
            if (!any) add_fwd(t, columns[k], default_centres(w), w);
        }
        if (!req->threads)
            for (int b = 64; b <= 512; b *= 2) add_pair(t, b);
    }
    t->best = (dp_launch){t->fwd[0], t->pair[0]};
    t->tuning = t->nfwd > 1 || t->npair > 1;
}

int dp_tuner_next(dp_tuner *t, dp_launch *use, int *kf, int *kp)
{
    const int call = t->calls++;
    *use = t->best;
    *kf = *kp = -1;
    if (!t->tuning || call == 0) return 0;
    if (t->nfwd > 1) *kf = (call - 1) % t->nfwd;
    if (t->npair > 1) {
        *kp = (call - 1) % t->npair;
        use->threads = t->pair[*kp];
    }
    return 1;
}

/* The candidate with the lowest best timing among those allowed (ties: the lower index). */
static int fastest(const double *ms, const int *differs, int n)
{
    int best = -1;
    for (int k = 0; k < n; k++)
        if (!(differs && differs[k]) && (best < 0 || ms[k] < ms[best])) best = k;
    return best < 0 ? 0 : best;
}

void dp_tuner_record(dp_tuner *t, int kf, double fwd_ms, int differs, int kp, double pair_ms)
{
    if (!t->tuning) return;
    if (kf >= 0) {
        if (!t->fwd_runs[kf]++ || fwd_ms < t->fwd_ms[kf]) t->fwd_ms[kf] = fwd_ms;
        t->fwd_differs[kf] |= differs;
    }
    if (kp >= 0 && (!t->pair_runs[kp]++ || pair_ms < t->pair_ms[kp])) t->pair_ms[kp] = pair_ms;
    for (int k = 0; k < t->nfwd && t->nfwd > 1; k++)
        if (t->fwd_runs[k] < DP_TUNE_ROUNDS) return;
    for (int k = 0; k < t->npair && t->npair > 1; k++)
        if (t->pair_runs[k] < DP_TUNE_ROUNDS) return;
    t->tuning = 0;
    if (t->nfwd > 1) t->best.fwd = t->fwd[fastest(t->fwd_ms, t->fwd_differs, t->nfwd)];
    if (t->npair > 1) t->best.threads = t->pair[fastest(t->pair_ms, NULL, t->npair)];
}

/* Appends to buf (at *at, of len) like snprintf, never past the end. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0) *at += (size_t)n;
}

static void put_fwd(char *buf, size_t len, size_t *at, const dp_fwd_shape *f)
{
    put(buf, len, at, "forward kernel %d column%s x %d centre%s per block (%d threads)",
        f->columns, f->columns > 1 ? "s" : "", f->centres, f->centres > 1 ? "s" : "",
        f->width * f->centres);
}

void dp_tuner_describe(const dp_tuner *t, char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = 0;
    const int ntimed = DP_TUNE_ROUNDS * (t->nfwd > t->npair ? t->nfwd : t->npair);
    if (t->nfwd == 1 && t->npair == 1) {
        put(buf, len, &at, "cuda launch (%s): ",
            t->req.tune ? "fixed by the cuda_* keywords" : "cuda_tune no");
        put_fwd(buf, len, &at, &t->best.fwd);
        put(buf, len, &at, ", pair kernels %d threads", t->best.threads);
        return;
    }
    if (t->tuning) {
        put(buf, len, &at, "cuda launch: tuning %d forward shape%s and %d pair block size%s "
            "on compute calls 2-%d, %d timings each (every shape gives the same bits)",
            t->nfwd, t->nfwd > 1 ? "s" : "", t->npair, t->npair > 1 ? "s" : "", 1 + ntimed,
            DP_TUNE_ROUNDS);
        return;
    }
    put(buf, len, &at, "cuda launch tuned on compute calls 2-%d (best of %d timings each): ",
        1 + ntimed, DP_TUNE_ROUNDS);
    put_fwd(buf, len, &at, &t->best.fwd);
    if (t->nfwd > 1) {
        int bk = 0;
        while (t->fwd[bk].columns != t->best.fwd.columns ||
               t->fwd[bk].centres != t->best.fwd.centres)
            bk++;
        put(buf, len, &at, " %.3f ms [columns x centres:", t->fwd_ms[bk]);
        for (int k = 0; k < t->nfwd; k++) {
            if (k == bk) continue;
            put(buf, len, &at, " %dx%d ", t->fwd[k].columns, t->fwd[k].centres);
            if (t->fwd_differs[k]) put(buf, len, &at, "not used: its bits differ");
            else put(buf, len, &at, "%.3f", t->fwd_ms[k]);
        }
        put(buf, len, &at, "]");
    }
    put(buf, len, &at, ", pair kernels %d threads", t->best.threads);
    if (t->npair > 1) {
        int bk = 0;
        while (t->pair[bk] != t->best.threads) bk++;
        put(buf, len, &at, " %.3f ms [threads:", t->pair_ms[bk]);
        for (int k = 0; k < t->npair; k++)
            if (k != bk) put(buf, len, &at, " %d %.3f", t->pair[k], t->pair_ms[k]);
        put(buf, len, &at, "]");
    }
}
