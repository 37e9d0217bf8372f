/* The fitting net of the paper-shaped water model (tools/deepmd_synthetic_model.py water:
 * 1600 -> 240 -> 240 -> 240 -> 1, tanh, resnet_dt; random weights of that shape), forward
 * and backward over a batch of nb centres of one type: deepmd/pk's dp_net_fit (its own
 * gemm_abt, src/deepmd/deepmd_net.c) against the same arithmetic with each layer's product
 * done by a BLAS cblas_dgemm, and the core's FMA peak measured with independent FMAs
 * (256-bit and 512-bit vectors). Prints µs per centre, the fraction of each peak, and the
 * largest difference between the two (relative to the largest gradient). Times are CPU time
 * of the thread (best of 5 rounds of 0.3 s), so that a shared machine's other work does not
 * count. 998,880 multiply-adds per centre: sum(nin x nout) forward and again backward.
 * x86-64 with AVX-512 only. Not built by CMake (it needs a BLAS); with Debian's OpenBLAS
 * (libopenblas-serial-dev):
 *
 *   gcc -O3 -march=native -Isrc/deepmd -Isrc/core \
 *       -I/usr/include/x86_64-linux-gnu/openblas-serial bench/deepmd/fit_gemm.c \
 *       BUILD/src/deepmd/libpk_deepmd.a -lopenblas -lm -o fit_gemm
 *   OPENBLAS_NUM_THREADS=1 taskset -c 0 ./fit_gemm [nb ...]      (default 21 32 43 64 128 256)
 *
 * Results: bench/results/deepmd_peer.md ("The fitting net"). */
#include <cblas.h>
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deepmd_internal.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double urand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0) - 0.5;
}

static const int SHAPE[][2] = {{1600, 240}, {240, 240}, {240, 240}, {240, 1}};

static dp_net make_net(void)
{
    dp_net net = {.nlayer = 4, .nin = 1600, .nout = 1, .width = 1600};
    net.layer = calloc(4, sizeof(dp_layer));
    unsigned s = 1;
    for (int l = 0; l < 4; l++) {
        dp_layer *L = &net.layer[l];
        const int ni = SHAPE[l][0], no = SHAPE[l][1];
        L->nin = ni, L->nout = no;
        L->act = l < 3 ? DP_ACT_TANH : DP_ACT_NONE;
        L->resnet = l > 0 && l < 3;
        L->w = malloc(sizeof(double) * ni * no);
        L->wt = malloc(sizeof(double) * ni * no);
        L->b = malloc(sizeof(double) * no);
        L->idt = L->resnet ? malloc(sizeof(double) * no) : NULL;
        for (int i = 0; i < ni * no; i++) L->w[i] = urand(&s) / sqrt(ni);
        for (int i = 0; i < ni; i++)
            for (int o = 0; o < no; o++) L->wt[(size_t)o * ni + i] = L->w[(size_t)i * no + o];
        for (int o = 0; o < no; o++) L->b[o] = urand(&s);
        if (L->idt)
            for (int o = 0; o < no; o++) L->idt[o] = 0.1 + 0.1 * urand(&s);
    }
    return net;
}

/* dp_net_fit's arithmetic with the products by cblas_dgemm (same scratch layout). */
static void fit_blas(const dp_net *net, int nb, const double *x0, double *y_out, double *grad,
                     double *scratch)
{
    const int W = net->width;
    size_t off = 0;
    memcpy(scratch, x0, sizeof(double) * (size_t)nb * net->nin);
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        const double *x = scratch + off;
        double *sl = scratch + off + (size_t)nb * ni, *y = sl + (size_t)nb * no;
        for (int b = 0; b < nb; b++) memcpy(y + (size_t)b * no, L->b, sizeof(double) * no);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nb, no, ni, 1.0, x, ni, L->w, no,
                    1.0, y, no);
        for (int b = 0; b < nb; b++) {
            double *yb = y + (size_t)b * no, *sb = sl + (size_t)b * no;
            const double *xb = x + (size_t)b * ni;
            for (int o = 0; o < no; o++) {
                double a, a1, a2, g = L->idt ? L->idt[o] : 1.0;
                dp_act_eval(L->act, yb[o], &a, &a1, &a2);
                yb[o] = a * g;
                sb[o] = a1 * g;
            }
            if (L->resnet)
                for (int o = 0; o < no; o++) yb[o] += xb[o];
        }
        off += (size_t)nb * (ni + no);
    }
    const double *out = scratch + off;
    for (int b = 0; b < nb; b++) y_out[b] = out[(size_t)b * net->nout];
    double *ga = scratch + off + (size_t)nb * net->nout, *gb = ga + (size_t)nb * W;
    for (int b = 0; b < nb; b++) ga[(size_t)b * W] = 1.0;
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        off -= (size_t)nb * (ni + no);
        const double *sl = scratch + off + (size_t)nb * ni;
        for (int b = 0; b < nb; b++) {
            double *a = ga + (size_t)b * W, *g = gb + (size_t)b * W;
            for (int k = 0; k < ni; k++) g[k] = L->resnet ? a[k] : 0.0;
            for (int o = 0; o < no; o++) a[o] *= sl[(size_t)b * no + o];
        }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, ni, no, 1.0, ga, W, L->w, no,
                    1.0, gb, W);
        double *t = ga; ga = gb; gb = t;
    }
    for (int b = 0; b < nb; b++)
        memcpy(grad + (size_t)b * net->nin, ga + (size_t)b * W, sizeof(double) * net->nin);
}

/* Multiply-adds per second of independent FMAs (12 chains, enough to cover the latency of
 * two FMA units), 256-bit or 512-bit vectors. */
__attribute__((target("avx512f"))) static double fma_peak(int wide)
{
    const long iters = 50000000;
    double t0 = now(), sum = 0.0;
    if (wide) {
        __m512d a[12], m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-9);
        for (int i = 0; i < 12; i++) a[i] = _mm512_set1_pd(i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < 12; i++) a[i] = _mm512_fmadd_pd(a[i], m, c);
        for (int i = 0; i < 12; i++) sum += _mm512_reduce_add_pd(a[i]);
    } else {
        __m256d a[12], m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-9);
        for (int i = 0; i < 12; i++) a[i] = _mm256_set1_pd(i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < 12; i++) a[i] = _mm256_fmadd_pd(a[i], m, c);
        for (int i = 0; i < 12; i++) {
            double v[4];
            _mm256_storeu_pd(v, a[i]);
            sum += v[0] + v[1] + v[2] + v[3];
        }
    }
    const double t = now() - t0;
    if (sum == 42.0) puts("");   /* keep the loop */
    return iters * 12.0 * (wide ? 8 : 4) / t;
}

typedef void (*fit_fn)(const dp_net *, int, const double *, double *, double *, double *);

/* Best of 5 rounds of ~0.3 s of CPU time: seconds per centre. */
static double time_fit(fit_fn f, const dp_net *net, int nb, const double *x, double *y,
                       double *g, double *scratch)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        int reps = 0;
        const double t0 = now();
        double t;
        do {
            f(net, nb, x, y, g, scratch);
            reps++;
        } while ((t = now() - t0) < 0.3);
        if (t / reps / nb < best) best = t / reps / nb;
    }
    return best;
}

int main(int argc, char **argv)
{
    dp_net net = make_net();
    double macs = 0;
    for (int l = 0; l < 4; l++) macs += 2.0 * SHAPE[l][0] * SHAPE[l][1];   /* fwd + bwd */
    double p4 = 0, p8 = 0;
    for (int r = 0; r < 3; r++) p4 = fmax(p4, fma_peak(0)), p8 = fmax(p8, fma_peak(1));
    printf("multiply-adds per centre (forward + backward): %.0f\n", macs);
    printf("measured FMA peak, one core: 256-bit %.2f G multiply-adds/s, 512-bit %.2f\n",
           p4 / 1e9, p8 / 1e9);
    printf("%4s %10s %10s %8s %8s %8s %8s %9s\n", "nb", "ours us", "blas us", "ours/4w",
           "ours/8w", "blas/4w", "blas/8w", "max diff");
    const int def[] = {21, 32, 43, 64, 128, 256};
    const int n = argc > 1 ? argc - 1 : 6;
    for (int i = 0; i < n; i++) {
        const int nb = argc > 1 ? atoi(argv[i + 1]) : def[i];
        double *x = malloc(sizeof(double) * nb * 1600), *g1 = malloc(sizeof(double) * nb * 1600);
        double *g2 = malloc(sizeof(double) * nb * 1600), *y1 = malloc(sizeof(double) * nb);
        double *y2 = malloc(sizeof(double) * nb);
        double *scr = malloc(sizeof(double) * dp_net_fit_scratch(&net, nb));
        unsigned s = 7;
        for (int k = 0; k < nb * 1600; k++) x[k] = urand(&s);
        dp_net_fit(&net, nb, x, y1, g1, scr);
        fit_blas(&net, nb, x, y2, g2, scr);
        double diff = 0, scale = 0;
        for (int k = 0; k < nb * 1600; k++) {
            diff = fmax(diff, fabs(g1[k] - g2[k]));
            scale = fmax(scale, fabs(g1[k]));
        }
        for (int k = 0; k < nb; k++) diff = fmax(diff, fabs(y1[k] - y2[k]) / fmax(1, fabs(y1[k])));
        const double ours = time_fit(dp_net_fit, &net, nb, x, y1, g1, scr);
        const double blas = time_fit(fit_blas, &net, nb, x, y2, g2, scr);
        printf("%4d %10.2f %10.2f %7.0f%% %7.0f%% %7.0f%% %7.0f%% %9.1e\n", nb, 1e6 * ours,
               1e6 * blas, 100 * macs / ours / p4, 100 * macs / ours / p8,
               100 * macs / blas / p4, 100 * macs / blas / p8, diff / scale);
        free(x), free(g1), free(g2), free(y1), free(y2), free(scr);
    }
    dp_net_free(&net);
    return 0;
}
