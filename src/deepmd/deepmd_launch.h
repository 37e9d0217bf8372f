/* Launch shapes of deepmd/pk's CUDA kernels and their tuner: plain C, so the host tests run
 * the choice with made-up timings (unit.deepmd_launch).
 *
 * Shapes. The forward kernel gives each centre `width` threads; thread c of a centre
 * computes the columns c, c + width, ... of T, `columns` of them, in one pass over the
 * neighbours (each lookup serves them all), and a block holds `centres` centres. width is
 * ceil(ng / columns) rounded up to a warp (32), or below a warp to a power of two, so that a
 * warp never serves part of a centre next to part of another. The pair-force and
 * force-gather kernels take `threads` per block. Each column of T and each pair force is
 * computed by one thread with the same operations in the same order whatever the shape, so
 * a shape changes the time, never the bits; the backend still compares every tuned forward
 * shape's T with the default shape's bitwise and never keeps one that differs.
 *
 * Tuning (pk_deepmd_launch.tune). The candidates are derived from the model's embedding
 * width; the first of each kind is the default. The first compute runs the defaults
 * untimed (module loading, first touches); then each compute times one forward candidate
 * and one pair block size (CUDA events) round-robin until each has DP_TUNE_ROUNDS timings;
 * the fastest of its best timings is kept. While tuning, the step's forces come from the
 * default forward shape (the candidate runs a second time into a scratch copy of T). */
#ifndef PK_DEEPMD_LAUNCH_H
#define PK_DEEPMD_LAUNCH_H

#include <stddef.h>

#include "deepmd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    DP_LAUNCH_MAX = 12,        /* candidates of one kind */
    DP_LAUNCH_MAX_BLOCK = 1024,
    DP_LAUNCH_MAX_CENTRES = 64,
    DP_LAUNCH_THREADS = 128,   /* default block of the pair and gather kernels */
    DP_TUNE_ROUNDS = 2         /* timings per candidate; the best is kept */
};

typedef struct {
    int columns, centres, width;   /* width: threads per centre */
} dp_fwd_shape;

typedef struct {
    dp_fwd_shape fwd;
    int threads;
} dp_launch;

/* Threads per centre for `columns` columns each (see above). */
int dp_launch_width(int ng, int columns);
/* PK_ERR_ARG when the fixed fields make a forward block of more than 1024 threads for
 * embedding width ng. */
pk_code dp_launch_check(const pk_deepmd_launch *req, int ng, pk_status *st);

typedef struct {
    int nfwd, npair;
    dp_fwd_shape fwd[DP_LAUNCH_MAX];
    int pair[DP_LAUNCH_MAX];
    double fwd_ms[DP_LAUNCH_MAX], pair_ms[DP_LAUNCH_MAX];   /* best timing so far */
    int fwd_runs[DP_LAUNCH_MAX], pair_runs[DP_LAUNCH_MAX];
    int fwd_differs[DP_LAUNCH_MAX];   /* its T was not bitwise the default shape's */
    int calls;                        /* dp_tuner_next calls so far */
    int tuning;                       /* 0 once the choice is made */
    dp_launch best;                   /* the choice (the defaults while tuning) */
    pk_deepmd_launch req;
} dp_tuner;

/* Candidates for embedding width ng (1 .. 1024) under req (already checked). */
void dp_tuner_init(dp_tuner *t, const pk_deepmd_launch *req, int ng);
/* The shape of the next compute. Returns 1 when that compute is timed: it also runs forward
 * candidate *kf (besides the default into T) and the pair kernels with pair[*kp]. */
int dp_tuner_next(dp_tuner *t, dp_launch *use, int *kf, int *kp);
/* The timings of a timed compute; `differs`: candidate kf's T was not bitwise the
 * default's. Makes the choice once every candidate has DP_TUNE_ROUNDS timings. */
void dp_tuner_record(dp_tuner *t, int kf, double fwd_ms, int differs, int kp, double pair_ms);
/* Log text: the plan (while tuning or when nothing is tuned) or the choice with every
 * candidate's best timing. */
void dp_tuner_describe(const dp_tuner *t, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
