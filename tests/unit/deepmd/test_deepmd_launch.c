/* The CUDA backend's launch shapes of deepmd/pk without a GPU (deepmd_launch.h): the
 * pair_style keywords' parser and its messages, threads per centre, the check of a fixed
 * shape against the model (also through pk_deepmd_load), the candidates derived from the
 * embedding width, and the tuner's schedule, choice and log text run with made-up timings.
 * That every shape gives the same bits is unit.deepmd_cuda_emulate's part. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_launch.h"
#include "pk_test.h"

static pk_deepmd_launch fresh(void)
{
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    return o.cuda;
}

/* key value: handled, accepted, and then the field read, else the message. */
static void parse_case(const char *key, const char *value, int handled, int ok,
                       const char *says)
{
    pk_deepmd_launch l = fresh();
    pk_status st;
    pk_status_clear(&st);
    const int h = pk_deepmd_launch_parse(&l, key, value, &st);
    PK_CHECK(h == handled, "%s %s: handled %d", key, value, h);
    if (!handled) {
        PK_CHECK(st.code == PK_OK, "%s: not a launch keyword, yet status %d", key, st.code);
        return;
    }
    PK_CHECK((st.code == PK_OK) == ok, "%s %s: %s", key, value, st.msg);
    if (!ok) {
        PK_CHECK(st.code == PK_ERR_ARG && strstr(st.msg, says), "%s %s: \"%s\"", key, value,
                 st.msg);
        return;
    }
    const long want = strtol(says, NULL, 10);
    const int got = !strcmp(key, "cuda_tune") ? l.tune : !strcmp(key, "cuda_columns") ? l.columns
                    : !strcmp(key, "cuda_centres") ? l.centres : l.threads;
    PK_CHECK(got == want, "%s %s: read %d, want %ld", key, value, got, want);
}

static void test_parse(void)
{
    pk_deepmd_launch l = fresh();
    PK_CHECK(l.tune == 1 && !l.columns && !l.centres && !l.threads, "defaults");
    parse_case("cuda_tune", "no", 1, 1, "0");
    parse_case("cuda_tune", "off", 1, 1, "0");
    parse_case("cuda_tune", "yes", 1, 1, "1");
    parse_case("cuda_tune", "maybe", 1, 0, "cuda_tune must be yes or no (got 'maybe')");
    parse_case("cuda_columns", "2", 1, 1, "2");
    parse_case("cuda_columns", "4", 1, 1, "4");
    parse_case("cuda_columns", "3", 1, 0, "cuda_columns must be 1, 2 or 4 (got '3')");
    parse_case("cuda_columns", "2x", 1, 0, "cuda_columns must be 1, 2 or 4 (got '2x')");
    parse_case("cuda_centres", "64", 1, 1, "64");
    parse_case("cuda_centres", "0", 1, 0, "cuda_centres must be an integer in 1 .. 64 (got '0')");
    parse_case("cuda_centres", "65", 1, 0, "in 1 .. 64 (got '65')");
    parse_case("cuda_centres", "", 1, 0, "(got '')");
    parse_case("cuda_threads", "256", 1, 1, "256");
    parse_case("cuda_threads", "32", 1, 1, "32");
    parse_case("cuda_threads", "100", 1, 0,
               "cuda_threads must be a multiple of 32 in 32 .. 1024 (got '100')");
    parse_case("cuda_threads", "2048", 1, 0, "(got '2048')");
    parse_case("cuda_threads", "99999999999999999999", 1, 0, "(got '99999999999999999999')");
    parse_case("tabulate", "yes", 0, 0, "");
    parse_case("backend", "cuda", 0, 0, "");
}

static void test_width_and_check(void)
{
    static const int cases[][3] = {{100, 1, 128}, {100, 2, 64}, {100, 4, 32}, {128, 4, 32},
                                   {12, 1, 16},   {12, 2, 8},   {12, 4, 4},   {1, 1, 1},
                                   {1, 4, 1},     {33, 1, 64},  {31, 1, 32},  {1024, 1, 1024}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int w = dp_launch_width(cases[k][0], cases[k][1]);
        PK_CHECK(w == cases[k][2], "width(ng %d, columns %d) = %d, want %d", cases[k][0],
                 cases[k][1], w, cases[k][2]);
        PK_CHECK(w * cases[k][1] >= cases[k][0], "ng %d: columns not covered", cases[k][0]);
    }
    pk_status st;
    pk_deepmd_launch l = fresh();
    l.centres = 16;   /* with columns free, the narrowest (4 per thread) fits: 16 x 32 */
    PK_CHECK(dp_launch_check(&l, 100, &st) == PK_OK, "centres 16, ng 100: %s", st.msg);
    l.columns = 1;    /* 16 x 128 */
    PK_CHECK(dp_launch_check(&l, 100, &st) == PK_ERR_ARG &&
             strstr(st.msg, "cuda_centres 16 with 1 column(s) per thread makes forward blocks "
                            "of 16 x 128 = 2048 threads for this model's embedding width 100; "
                            "the most is 1024: lower cuda_centres or raise cuda_columns"),
             "centres 16, columns 1, ng 100: \"%s\"", st.msg);
    l.columns = 4;
    l.centres = 64;   /* 64 x 32 */
    PK_CHECK(dp_launch_check(&l, 100, &st) == PK_ERR_ARG &&
             strstr(st.msg, "2048 threads") && strstr(st.msg, "lower cuda_centres;") == NULL &&
             !strstr(st.msg, "raise"), "centres 64, columns 4, ng 100: \"%s\"", st.msg);
    PK_CHECK(dp_launch_check(&l, 12, &st) == PK_OK, "centres 64, columns 4, ng 12: %s", st.msg);
}

static void check_candidates(const dp_tuner *t, int ng, const pk_deepmd_launch *req)
{
    for (int k = 0; k < t->nfwd; k++) {
        const dp_fwd_shape *f = &t->fwd[k];
        const int block = f->width * f->centres;
        PK_CHECK(f->width == dp_launch_width(ng, f->columns), "ng %d candidate %d: width", ng, k);
        PK_CHECK(block >= 1 && block <= DP_LAUNCH_MAX_BLOCK, "ng %d: block %d", ng, block);
        PK_CHECK(!req->columns || f->columns == req->columns, "ng %d: columns not as fixed", ng);
        PK_CHECK(!req->centres || f->centres == req->centres, "ng %d: centres not as fixed", ng);
        for (int j = 0; j < k; j++)
            PK_CHECK(f->columns != t->fwd[j].columns || f->centres != t->fwd[j].centres,
                     "ng %d: candidate %d repeats %d", ng, k, j);
    }
    for (int k = 0; k < t->npair; k++)
        PK_CHECK(t->pair[k] % 32 == 0 && (!req->threads || t->pair[k] == req->threads),
                 "ng %d: pair block %d", ng, t->pair[k]);
}

/* "CxN" list of the forward candidates. */
static void shapes(const dp_tuner *t, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < t->nfwd && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%dx%d", k ? " " : "", t->fwd[k].columns,
                               t->fwd[k].centres);
}

static void test_candidates(void)
{
    char got[512];
    dp_tuner t;
    pk_deepmd_launch req = fresh();
    /* the synthetic water model's width (DeePMD-kit's water example): the default (today's
     * kernel: one thread per column, 128 threads per centre) first, then blocks of 64 to 512 */
    dp_tuner_init(&t, &req, 100);
    shapes(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "1x1 1x2 1x4 2x1 2x2 2x4 2x8 4x2 4x4 4x8 4x16"), "ng 100: %s", got);
    PK_CHECK(t.npair == 4 && t.pair[0] == 128 && t.pair[1] == 64 && t.pair[2] == 256 &&
             t.pair[3] == 512, "pair candidates");
    PK_CHECK(t.tuning && t.best.fwd.columns == 1 && t.best.fwd.centres == 1 &&
             t.best.fwd.width == 128 && t.best.threads == 128, "ng 100: default");
    check_candidates(&t, 100, &req);
    /* deeppot_sea's width 12: 16 threads per centre, 8 centres fill the default block */
    dp_tuner_init(&t, &req, 12);
    shapes(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "1x8 1x4 1x16 1x32 2x8 2x16 2x32 2x64 4x16 4x32 4x64"), "ng 12: %s",
             got);
    check_candidates(&t, 12, &req);
    /* the widest the backend takes: no block of 512 or fewer at one column per thread */
    dp_tuner_init(&t, &req, 1024);
    shapes(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "1x1 2x1 4x1 4x2"), "ng 1024: %s", got);
    check_candidates(&t, 1024, &req);
    for (int ng = 1; ng <= 1024; ng++) {
        dp_tuner_init(&t, &req, ng);
        PK_CHECK(t.nfwd >= 1 && t.nfwd <= DP_LAUNCH_MAX, "ng %d: %d candidates", ng, t.nfwd);
        check_candidates(&t, ng, &req);
    }
    /* every fixed shape the load check lets through gives candidates (and a default) that
     * fit in a block */
    pk_status st;
    for (int columns = 0; columns <= 4; columns += columns < 2 ? 1 : 2)
        for (int centres = 1; centres <= DP_LAUNCH_MAX_CENTRES; centres++)
            for (int ng = 1; ng <= 1024; ng += ng < 140 ? 1 : 17) {
                pk_deepmd_launch fixed = fresh();
                fixed.columns = columns;
                fixed.centres = centres;
                if (dp_launch_check(&fixed, ng, &st)) continue;
                dp_tuner_init(&t, &fixed, ng);
                int fits = t.nfwd >= 1;
                for (int k = 0; k < t.nfwd; k++)
                    fits &= t.fwd[k].width * t.fwd[k].centres <= DP_LAUNCH_MAX_BLOCK;
                PK_CHECK(fits, "ng %d, columns %d, centres %d: a block over %d threads", ng,
                         columns, centres, DP_LAUNCH_MAX_BLOCK);
            }
    /* centres fixed, columns free: only the column counts whose blocks fit, the fewest
     * first */
    req.centres = 16;
    dp_tuner_init(&t, &req, 100);
    shapes(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "2x16 4x16"), "ng 100, centres 16: %s", got);
    check_candidates(&t, 100, &req);
    req.tune = 0;
    dp_tuner_init(&t, &req, 100);
    PK_CHECK(t.nfwd == 1 && t.best.fwd.columns == 2 && t.best.fwd.width * 16 == 1024,
             "ng 100, centres 16, tune no: %dx%d", t.best.fwd.columns, t.best.fwd.centres);
    req = fresh();
    /* fixed fields are not tuned */
    req.columns = 2;
    dp_tuner_init(&t, &req, 128);
    shapes(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "2x2 2x1 2x4 2x8"), "ng 128, columns 2: %s", got);
    req.centres = 4;
    req.threads = 256;
    dp_tuner_init(&t, &req, 128);
    PK_CHECK(t.nfwd == 1 && t.npair == 1 && !t.tuning && t.best.fwd.columns == 2 &&
             t.best.fwd.centres == 4 && t.best.threads == 256, "all fixed");
    dp_tuner_describe(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "cuda launch (fixed by the cuda_* keywords): "
                          "forward kernel 2 columns x 4 centres per block (256 threads), pair "
                          "kernels 256 threads"), "all fixed: %s", got);
    req = fresh();
    req.tune = 0;
    dp_tuner_init(&t, &req, 100);
    dp_tuner_describe(&t, got, sizeof got);
    PK_CHECK(!t.tuning && !strcmp(got, "cuda launch (cuda_tune no): forward kernel 1 column x "
                                       "1 centre per block (128 threads), pair kernels 128 "
                                       "threads"), "tune no: %s", got);
    dp_launch use;
    int kf, kp;
    PK_CHECK(!dp_tuner_next(&t, &use, &kf, &kp) && !dp_tuner_next(&t, &use, &kf, &kp) &&
             kf < 0 && kp < 0 && use.fwd.width == 128, "tune no: nothing timed");
}

/* A run of the tuner with made-up timings: forward candidate k takes fwd_ms[k] on its first
 * timing and half a unit more on its second, pair block k pair_ms[k]; forward candidate
 * `differing` reports different bits. Returns the number of timed calls. */
static int tune_run(dp_tuner *t, const double *fwd_ms, const double *pair_ms, int differing)
{
    dp_launch use;
    int kf, kp, timed = 0, seen_f[DP_LAUNCH_MAX] = {0};
    PK_CHECK(!dp_tuner_next(t, &use, &kf, &kp), "the first call is not timed");
    PK_CHECK(use.fwd.columns == t->fwd[0].columns && use.threads == t->pair[0],
             "the first call runs the defaults");
    while (t->tuning && timed < 100) {
        PK_CHECK(dp_tuner_next(t, &use, &kf, &kp), "call %d not timed while tuning", timed + 2);
        timed++;
        /* the step's own forward shape stays the default while tuning */
        PK_CHECK(use.fwd.columns == t->fwd[0].columns && use.fwd.centres == t->fwd[0].centres,
                 "call %d: forward shape not the default", timed + 1);
        PK_CHECK(kp < 0 || use.threads == t->pair[kp], "call %d: pair block", timed + 1);
        const double f = kf >= 0 ? fwd_ms[kf] + 0.5 * seen_f[kf]++ : 0.0;
        dp_tuner_record(t, kf, f, kf == differing, kp, kp >= 0 ? pair_ms[kp] : 0.0);
    }
    PK_CHECK(!dp_tuner_next(t, &use, &kf, &kp) && use.fwd.columns == t->best.fwd.columns &&
             use.fwd.centres == t->best.fwd.centres && use.threads == t->best.threads,
             "after tuning: the choice, untimed");
    return timed;
}

static void test_tuner(void)
{
    pk_deepmd_launch req = fresh();
    dp_tuner t;
    char got[2048];
    /* ng 100: 11 forward shapes, 4 pair blocks; shape 5 (2x4) the fastest but its bits
     * differ, so 6 (2x8) wins over 7 (4x2) with the same time (the lower index) */
    dp_tuner_init(&t, &req, 100);
    dp_tuner_describe(&t, got, sizeof got);
    PK_CHECK(!strcmp(got, "cuda launch: tuning 11 forward shapes and 4 pair block sizes on "
                          "compute calls 2-23, 2 timings each (every shape gives the same "
                          "bits)"), "plan: %s", got);
    const double fwd[11] = {1.0, 0.9, 0.95, 0.8, 0.7, 0.5, 0.6, 0.6, 0.9, 0.9, 1.2};
    const double pair[4] = {0.30, 0.31, 0.25, 0.40};
    const int timed = tune_run(&t, fwd, pair, 5);
    PK_CHECK(timed == 2 * 11, "%d timed calls, want 22", timed);
    for (int k = 0; k < t.nfwd; k++)
        PK_CHECK(t.fwd_runs[k] == 2 && t.fwd_ms[k] == fwd[k], "forward %d: %d runs, best %g", k,
                 t.fwd_runs[k], t.fwd_ms[k]);
    PK_CHECK(t.best.fwd.columns == 2 && t.best.fwd.centres == 8 && t.best.fwd.width == 64,
             "chose %dx%d", t.best.fwd.columns, t.best.fwd.centres);
    PK_CHECK(t.best.threads == 256, "chose %d threads", t.best.threads);
    dp_tuner_describe(&t, got, sizeof got);
    printf("%s\n", got);
    PK_CHECK(!strcmp(got, "cuda launch tuned on compute calls 2-23 (best of 2 timings each): "
                          "forward kernel 2 columns x 8 centres per block (512 threads) "
                          "0.600 ms [columns x centres: 1x1 1.000 1x2 0.900 1x4 0.950 2x1 "
                          "0.800 2x2 0.700 2x4 not used: its bits differ 4x2 0.600 4x4 0.900 "
                          "4x8 0.900 4x16 1.200], pair kernels 256 threads 0.250 ms "
                          "[threads: 128 0.300 64 0.310 512 0.400]"), "log: %s", got);
    /* only the pair block free: the forward kernel is not run twice */
    req.columns = 1;
    req.centres = 2;
    dp_tuner_init(&t, &req, 100);
    dp_launch use;
    int kf, kp;
    dp_tuner_next(&t, &use, &kf, &kp);
    PK_CHECK(dp_tuner_next(&t, &use, &kf, &kp) && kf < 0 && kp == 0, "pair only: kf %d kp %d",
             kf, kp);
    /* the tiny list of a rank with no centres: all timings 0, the defaults stay */
    req = fresh();
    dp_tuner_init(&t, &req, 128);
    const double zero[DP_LAUNCH_MAX] = {0};
    tune_run(&t, zero, zero, -1);
    PK_CHECK(t.best.fwd.columns == t.fwd[0].columns && t.best.fwd.centres == t.fwd[0].centres &&
             t.best.threads == 128, "equal timings: the defaults");
}

/* A fixed shape that does not fit the model is refused at load, as the adapter's settings
 * call it (before any backend opens). */
static void test_load_check(void)
{
    const char *water = getenv("PK_DEEPMD_WATER_MODEL");
    if (!water || !*water) {
        printf("PK_DEEPMD_WATER_MODEL not set: load check skipped\n");
        return;
    }
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.cuda.columns = 1;
    o.cuda.centres = 16;
    pk_status st;
    pk_deepmd *dp = pk_deepmd_load(water, &o, &st);
    PK_CHECK(!dp && st.code == PK_ERR_ARG && strstr(st.msg, "16 x 128 = 2048 threads"),
             "load with 16 centres x 128 threads: \"%s\"", st.msg);
    pk_deepmd_destroy(dp);
    o.cuda.columns = 2;
    o.cuda.centres = 16;
    dp = pk_deepmd_load(water, &o, &st);
    PK_CHECK(dp != NULL, "load with 16 centres x 64 threads: %s", st.msg);
    pk_deepmd_destroy(dp);
}

int main(void)
{
    test_parse();
    test_width_and_check();
    test_candidates();
    test_tuner();
    test_load_check();
    return pk_test_finish();
}
