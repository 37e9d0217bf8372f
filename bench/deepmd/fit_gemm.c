/* The fitting net of the paper-shaped water and copper models (tools/deepmd_synthetic_model.py:
 * 1600 -> 240 -> 240 -> 240 -> 1, tanh, resnet_dt; random weights of that shape) over a batch
 * of nb centres of one type, against the core's FMA peak:
 *   net      deepmd/pk's dp_net_fit (src/deepmd/deepmd_net.c): forward and the backward pass
 *            to dE/dD, everything included (activations, shortcuts, copies);
 *   ours     its eight matrix products alone (dp_gemm, src/deepmd/deepmd_gemm.c: each layer
 *            forward, x W, and backward, g W^T);
 *   blas     the same eight products by cblas_dgemm, when built with a CBLAS (OpenBLAS).
 * 998,880 multiply-adds per centre: sum(nin x nout) forward and again backward. The peak is
 * measured with 12 independent chains of multiply-adds on 4-lane (256-bit) and 8-lane
 * (512-bit) vectors. Times are CPU time of the thread (best of 5 rounds of 0.3 s), so that a
 * shared machine's other work does not count; "max diff" is the largest difference between
 * the products of ours and blas relative to the largest element.
 *
 *   OPENBLAS_NUM_THREADS=1 taskset -c 0 build/bench/deepmd/fit_gemm [nb ...]
 *                                                   (default 1 8 21 32 43 64 128 256)
 * Built by CMake (bench/deepmd/CMakeLists.txt); with a serial OpenBLAS when CMake finds one
 * (PK_FIT_GEMM_BLAS). Results: bench/results/deepmd_peer.md ("The fitting net"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PK_FIT_GEMM_BLAS
#include <cblas.h>
#endif

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

enum { NL = 4 };
static const int SHAPE[NL][2] = {{1600, 240}, {240, 240}, {240, 240}, {240, 1}};

static dp_net make_net(void)
{
    dp_net net = {.nlayer = NL, .nin = 1600, .nout = 1, .width = 1600};
    net.layer = calloc(NL, sizeof(dp_layer));
    unsigned s = 1;
    for (int l = 0; l < NL; l++) {
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
    if (dp_net_pack(&net)) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return net;
}

/* Operands of the eight products of a batch: x (nb x 1600), g (nb x 240), outputs. */
typedef struct {
    const dp_net *net;
    int nb;
    double *x, *g, *y, *gx;
} products;

static void run_net(const products *p)
{
    dp_net_fit(p->net, p->nb, p->x, p->y, p->gx, p->y + p->nb);
}

static void run_ours(const products *p)
{
    for (int l = 0; l < NL; l++) {
        const dp_layer *L = &p->net->layer[l];
        dp_gemm(p->nb, p->x, L->nin, &L->fwd, p->y, L->nout);
        dp_gemm(p->nb, p->g, L->nout, &L->bwd, p->gx, L->nin);
    }
}

#ifdef PK_FIT_GEMM_BLAS
static void run_blas(const products *p)
{
    for (int l = 0; l < NL; l++) {
        const dp_layer *L = &p->net->layer[l];
        const int ni = L->nin, no = L->nout;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->nb, no, ni, 1.0, p->x, ni,
                    L->w, no, 1.0, p->y, no);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p->nb, ni, no, 1.0, p->g, no,
                    L->w, no, 1.0, p->gx, ni);
    }
}
#endif

/* Multiply-adds per second of 12 independent chains (enough to cover the latency of two FMA
 * units) on vectors of 4 or 8 doubles (-ffp-contract=fast makes each a fused multiply-add). */
#define FMA_PEAK(NAME, LANES)                                                              \
    static double NAME(void)                                                               \
    {                                                                                      \
        typedef double v __attribute__((vector_size(LANES * sizeof(double))));             \
        const long iters = 50000000;                                                       \
        v a[12], m = {0}, c = {0};                                                         \
        m += 0.999999, c += 1e-9;                                                          \
        for (int i = 0; i < 12; i++) a[i] = (v){0} + i;                                    \
        const double t0 = now();                                                           \
        for (long it = 0; it < iters; it++) {                                              \
            for (int i = 0; i < 12; i++) a[i] = a[i] * m + c;                              \
        }                                                                                  \
        const double t = now() - t0;                                                       \
        double sum = 0.0;                                                                  \
        for (int i = 0; i < 12; i++)                                                       \
            for (int j = 0; j < LANES; j++) sum += a[i][j];                                \
        if (sum == 42.0) puts("");                                                         \
        return iters * 12.0 * LANES / t;                                                   \
    }
FMA_PEAK(fma_peak4, 4)
FMA_PEAK(fma_peak8, 8)

typedef void run_fn(const products *);

/* Best of 5 rounds of ~0.3 s of CPU time: seconds per centre. */
static double time_per_centre(run_fn *f, const products *p)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        int reps = 0;
        const double t0 = now();
        double t;
        do {
            f(p);
            reps++;
        } while ((t = now() - t0) < 0.3);
        if (t / reps / p->nb < best) best = t / reps / p->nb;
    }
    return best;
}

int main(int argc, char **argv)
{
    dp_net net = make_net();
    double macs = 0;
    for (int l = 0; l < NL; l++) macs += 2.0 * SHAPE[l][0] * SHAPE[l][1];   /* fwd + bwd */
    double p4 = 0, p8 = 0;
    for (int r = 0; r < 3; r++) p4 = fmax(p4, fma_peak4()), p8 = fmax(p8, fma_peak8());
    printf("multiply-adds per centre (forward + backward): %.0f\n", macs);
    printf("measured FMA peak, one core: 4 lanes %.2f G multiply-adds/s, 8 lanes %.2f\n",
           p4 / 1e9, p8 / 1e9);
    printf("µs per centre; %% of the 4-lane / 8-lane peak\n");
    printf("%4s %8s %11s %8s %11s", "nb", "net", "net %", "ours", "ours %");
#ifdef PK_FIT_GEMM_BLAS
    printf(" %8s %11s %9s", "blas", "blas %", "max diff");
#endif
    printf("\n");
    const int def[] = {1, 8, 21, 32, 43, 64, 128, 256};
    const int n = argc > 1 ? argc - 1 : (int)(sizeof def / sizeof def[0]);
    for (int i = 0; i < n; i++) {
        const int nb = argc > 1 ? atoi(argv[i + 1]) : def[i];
        if (nb < 1) continue;
        const size_t big = (size_t)nb * 1600;
        double *x = malloc(sizeof(double) * big), *g = malloc(sizeof(double) * nb * 240);
        double *gx = malloc(sizeof(double) * big);
        double *y = malloc(sizeof(double) * (big + dp_net_fit_scratch(&net, nb)));
        unsigned s = 7;
        for (size_t k = 0; k < big; k++) x[k] = urand(&s);
        for (int k = 0; k < nb * 240; k++) g[k] = urand(&s);
        const products p = {&net, nb, x, g, y, gx};
        const double t_net = time_per_centre(run_net, &p);
        const double t_ours = time_per_centre(run_ours, &p);
        printf("%4d %8.2f %4.0f%% / %3.0f%% %8.2f %4.0f%% / %3.0f%%", nb, 1e6 * t_net,
               100 * macs / t_net / p4, 100 * macs / t_net / p8, 1e6 * t_ours,
               100 * macs / t_ours / p4, 100 * macs / t_ours / p8);
#ifdef PK_FIT_GEMM_BLAS
        const double t_blas = time_per_centre(run_blas, &p);
        /* The last layer's products, ours against blas from the same starting outputs. */
        double *y2 = malloc(sizeof(double) * big), *gx2 = malloc(sizeof(double) * big);
        double diff = 0, scale = 0;
        for (int l = 0; l < NL; l++) {
            const dp_layer *L = &net.layer[l];
            const size_t ny = (size_t)nb * L->nout, ng = (size_t)nb * L->nin;
            memset(y, 0, sizeof(double) * ny), memset(y2, 0, sizeof(double) * ny);
            memset(gx, 0, sizeof(double) * ng), memset(gx2, 0, sizeof(double) * ng);
            dp_gemm(nb, x, L->nin, &L->fwd, y, L->nout);
            dp_gemm(nb, g, L->nout, &L->bwd, gx, L->nin);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nb, L->nout, L->nin, 1.0,
                        x, L->nin, L->w, L->nout, 0.0, y2, L->nout);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, L->nin, L->nout, 1.0, g,
                        L->nout, L->w, L->nout, 0.0, gx2, L->nin);
            for (size_t k = 0; k < ny; k++)
                diff = fmax(diff, fabs(y[k] - y2[k])), scale = fmax(scale, fabs(y2[k]));
            for (size_t k = 0; k < ng; k++)
                diff = fmax(diff, fabs(gx[k] - gx2[k])), scale = fmax(scale, fabs(gx2[k]));
        }
        printf(" %8.2f %4.0f%% / %3.0f%% %9.1e", 1e6 * t_blas, 100 * macs / t_blas / p4,
               100 * macs / t_blas / p8, diff / scale);
        free(y2), free(gx2);
#endif
        printf("\n");
        fflush(stdout);
        free(x), free(g), free(gx), free(y);
    }
    dp_net_free(&net);
    return 0;
}
