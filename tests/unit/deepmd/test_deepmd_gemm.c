/* The fitting nets' matrix product (dp_gemm on packed panels, deepmd_gemm.c) and the batched
 * fitting net (dp_net_fit) against plain loops:
 *  - dp_gemm on shapes around the tile edges (M, N, K not multiples of the tile, one row, one
 *    column, K across the cache blocks, leading dimensions wider than the rows) against a
 *    triple loop; the bound is the usual one of a sum of K + 1 terms in any order, with or
 *    without fused multiply-adds, |C - C_ref| <= 2 (K + 1) u (sum_k |A_ik B_kj| + |C0_ij|),
 *    u = 2^-53;
 *  - the same for dp_gemm_f (float32 fitting nets: its own panel width) against a triple
 *    loop in float, u = 2^-24;
 *  - a row's result does not depend on the batch: each row of a 13-row product equals,
 *    bit for bit, the same row computed alone (what keeps a centre's energy independent of
 *    the other centres of its block, threads and MPI decompositions);
 *  - dp_net_fit on a small odd net (37 -> 29 tanh -> 29 tanh resnet idt -> 58 tanh resnet
 *    doubling -> 1) with nb = 1, 5, 11 against a forward and reverse pass written centre
 *    by centre with scalar loops: energies and gradients to 1e-13 relative;
 *  - dp_net_fit_f (the same net packed in float) against the plain net in double: energies
 *    and gradients within 5e-6 relative (float rounding through four layers; measured
 *    1.1e-7 and 3.7e-7). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"
#include "pk_test.h"

static double urand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0) - 0.5;
}

static const double U = 0x1p-53;

static const double UF = 0x1p-24;

/* One product of M x K by K x N, leading dimensions padded by 3, by dp_gemm or, when single,
 * dp_gemm_f (operands rounded to float, reference summed in float); returns the largest
 * error relative to the bound, and checks the bound and the batch independence. */
static double check_gemm(int M, int N, int K, unsigned seed, int single)
{
    const size_t lda = (size_t)K + 3, ldb = (size_t)N + 3, ldc = (size_t)N + 3;
    const size_t na = M * lda, nb = K * ldb, nc = M * ldc;
    const double u = single ? UF : U;
    double *A = malloc(sizeof(double) * na), *B = malloc(sizeof(double) * nb);
    double *C = malloc(sizeof(double) * nc), *C0 = malloc(sizeof(double) * nc);
    double *row = malloc(sizeof(double) * ldc);
    float *Af = malloc(sizeof(float) * na), *Bf = malloc(sizeof(float) * nb);
    float *Cf = malloc(sizeof(float) * nc), *rowf = malloc(sizeof(float) * ldc);
    for (size_t k = 0; k < na; k++) Af[k] = (float)(A[k] = urand(&seed));
    for (size_t k = 0; k < nb; k++) Bf[k] = (float)(B[k] = urand(&seed));
    for (size_t k = 0; k < nc; k++) Cf[k] = (float)(C0[k] = C[k] = urand(&seed));
    if (single) {   /* the float operands, as doubles, for the reference */
        for (size_t k = 0; k < na; k++) A[k] = Af[k];
        for (size_t k = 0; k < nb; k++) B[k] = Bf[k];
        for (size_t k = 0; k < nc; k++) C0[k] = C[k] = Cf[k];
    }
    dp_panels P;
    dp_panels_f Pf;
    if (single) {
        PK_CHECK(dp_panels_pack_f(&Pf, Bf, K, N, ldb) == 0, "pack %d x %d", K, N);
        dp_gemm_f(M, Af, lda, &Pf, Cf, ldc);
        for (size_t k = 0; k < nc; k++) C[k] = Cf[k];
    } else {
        PK_CHECK(dp_panels_pack(&P, B, K, N, ldb) == 0, "pack %d x %d", K, N);
        dp_gemm(M, A, lda, &P, C, ldc);
    }
    double worst = 0.0;
    int padding_kept = 1, alone_same = 1;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double s = C0[i * ldc + j], mag = 0.0;
            for (int k = 0; k < K; k++) {
                s += A[i * lda + k] * B[k * ldb + j];   /* exact product of two floats */
                if (single) s = (float)s;
                mag += fabs(A[i * lda + k] * B[k * ldb + j]);
            }
            const double bound = 2 * (K + 1) * u * (mag + fabs(C0[i * ldc + j]));
            const double r = fabs(C[i * ldc + j] - s) / bound;
            if (r > worst) worst = r;
        }
        for (size_t j = N; j < ldc; j++) padding_kept &= C[i * ldc + j] == C0[i * ldc + j];
        if (single) {
            for (size_t j = 0; j < ldc; j++) rowf[j] = (float)C0[i * ldc + j];
            dp_gemm_f(1, Af + i * lda, lda, &Pf, rowf, ldc);
            for (size_t j = 0; j < ldc; j++) row[j] = rowf[j];
        } else {
            memcpy(row, C0 + i * ldc, sizeof(double) * ldc);
            dp_gemm(1, A + i * lda, lda, &P, row, ldc);
        }
        alone_same &= !memcmp(row, C + i * ldc, sizeof(double) * N);
    }
    const char *name = single ? "dp_gemm_f" : "dp_gemm";
    PK_CHECK(worst <= 1.0, "%s M %d N %d K %d: error %.3g of the bound", name, M, N, K, worst);
    PK_CHECK(padding_kept, "%s M %d N %d K %d: wrote beyond the N columns", name, M, N, K);
    PK_CHECK(alone_same, "%s M %d N %d K %d: a row alone differs from the batch", name, M, N,
             K);
    if (single)
        dp_panels_free_f(&Pf);
    else
        dp_panels_free(&P);
    free(A), free(B), free(C), free(C0), free(row);
    free(Af), free(Bf), free(Cf), free(rowf);
    return worst;
}

/* A layer of the test net with random weights. */
static void make_layer(dp_layer *L, int nin, int nout, dp_act act, int resnet, int idt,
                       unsigned *s)
{
    L->nin = nin, L->nout = nout, L->act = act, L->resnet = resnet;
    L->w = malloc(sizeof(double) * nin * nout);
    L->wt = malloc(sizeof(double) * nin * nout);
    L->b = malloc(sizeof(double) * nout);
    L->idt = idt ? malloc(sizeof(double) * nout) : NULL;
    for (int k = 0; k < nin * nout; k++) L->w[k] = 2.0 * urand(s) / sqrt(nin);
    for (int k = 0; k < nin; k++)
        for (int o = 0; o < nout; o++) L->wt[o * nin + k] = L->w[k * nout + o];
    for (int o = 0; o < nout; o++) L->b[o] = urand(s);
    if (idt)
        for (int o = 0; o < nout; o++) L->idt[o] = 0.5 + urand(s);
}

enum { NIN = 37, NMAX = 58 };

/* The net on one input, written plainly: y and dy/dx. */
static double naive_net(const dp_net *net, const double *x0, double *grad)
{
    double act[5][NMAX], slope[5][NMAX];
    memcpy(act[0], x0, sizeof(double) * NIN);
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        for (int o = 0; o < L->nout; o++) {
            double z = L->b[o];
            for (int k = 0; k < L->nin; k++) z += act[l][k] * L->w[k * L->nout + o];
            const double g = L->idt ? L->idt[o] : 1.0;
            const double t = L->act == DP_ACT_TANH ? tanh(z) : z;
            act[l + 1][o] = t * g + (L->resnet ? act[l][o % L->nin] : 0.0);
            slope[l][o] = (L->act == DP_ACT_TANH ? 1.0 - t * t : 1.0) * g;
        }
    }
    double up[NMAX] = {1.0}, down[NMAX];
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_layer *L = &net->layer[l];
        for (int k = 0; k < L->nin; k++) {
            double s = 0.0;
            for (int o = 0; o < L->nout; o++) {
                s += L->w[k * L->nout + o] * up[o] * slope[l][o];
                if (L->resnet && o % L->nin == k) s += up[o];
            }
            down[k] = s;
        }
        memcpy(up, down, sizeof(double) * L->nin);
    }
    memcpy(grad, up, sizeof(double) * NIN);
    return act[net->nlayer][0];
}

static void check_net(void)
{
    unsigned s = 11;
    dp_net net = {.nlayer = 4, .nin = NIN, .nout = 1, .width = NMAX};
    net.layer = calloc(4, sizeof(dp_layer));
    make_layer(&net.layer[0], NIN, 29, DP_ACT_TANH, 0, 0, &s);
    make_layer(&net.layer[1], 29, 29, DP_ACT_TANH, 1, 1, &s);
    make_layer(&net.layer[2], 29, NMAX, DP_ACT_TANH, 1, 0, &s);
    make_layer(&net.layer[3], NMAX, 1, DP_ACT_NONE, 0, 0, &s);
    PK_CHECK(dp_net_pack(&net) == 0 && dp_net_pack_f(&net) == 0, "pack");
    const int nbs[] = {1, 5, 11};
    double ey = 0.0, eg = 0.0, fy = 0.0, fg = 0.0;
    for (int q = 0; q < 3; q++) {
        const int nb = nbs[q];
        double *x = malloc(sizeof(double) * nb * NIN), *g = malloc(sizeof(double) * nb * NIN);
        double *y = malloc(sizeof(double) * nb);
        double *scr = malloc(sizeof(double) * dp_net_fit_scratch(&net, nb));
        float *xf = malloc(sizeof(float) * nb * NIN), *gf = malloc(sizeof(float) * nb * NIN);
        float *yf = malloc(sizeof(float) * nb);
        float *scrf = malloc(sizeof(float) * dp_net_fit_scratch_f(&net, nb));
        for (int k = 0; k < nb * NIN; k++) x[k] = 2.0 * urand(&s);
        for (int k = 0; k < nb * NIN; k++) xf[k] = (float)x[k];
        dp_net_fit(&net, nb, x, y, g, scr);
        dp_net_fit_f(&net, nb, xf, yf, gf, scrf);
        for (int b = 0; b < nb; b++) {
            double gref[NIN];
            const double yref = naive_net(&net, x + b * NIN, gref), gmax = fabs(gref[0]);
            double gscale = gmax;
            for (int k = 0; k < NIN; k++) gscale = fmax(gscale, fabs(gref[k]));
            ey = fmax(ey, fabs(y[b] - yref) / fmax(fabs(yref), 1.0));
            fy = fmax(fy, fabs(yf[b] - yref) / fmax(fabs(yref), 1.0));
            /* plain comparisons, not fmax: aarch64 GCC 12 -O3 stops with an internal error
             * vectorising two fmax reductions in one loop */
            for (int k = 0; k < NIN; k++) {
                const double d = fabs(g[b * NIN + k] - gref[k]) / gscale;
                const double df = fabs(gf[b * NIN + k] - gref[k]) / gscale;
                if (d > eg) eg = d;
                if (df > fg) fg = df;
            }
        }
        free(x), free(g), free(y), free(scr), free(xf), free(gf), free(yf), free(scrf);
    }
    printf("dp_net_fit against the plain net: energy %.3g, gradient %.3g (relative)\n", ey, eg);
    PK_CHECK(ey <= 1e-13, "energy error %.3g", ey);
    PK_CHECK(eg <= 1e-13, "gradient error %.3g", eg);
    printf("dp_net_fit_f (float) against the plain net in double: energy %.3g, gradient %.3g "
           "(relative)\n", fy, fg);
    PK_CHECK(fy <= 5e-6, "float energy error %.3g", fy);
    PK_CHECK(fg <= 5e-6, "float gradient error %.3g", fg);
    dp_net_free(&net);
}

int main(void)
{
    for (int single = 0; single <= 1; single++) {
        const int nr = single ? dp_gemm_nr_f() : dp_gemm_nr();
        const int Ms[] = {1, 3, 7, 8, 9, 17};
        const int Ns[] = {1, 5, 8, 17, nr - 1, nr, nr + 1, 2 * nr + 7};
        const int Ks[] = {1, 3, 127, 128, 129, 300};
        double worst = 0.0;
        unsigned seed = 1;
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
                for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++)
                    worst = fmax(worst, check_gemm(Ms[a], Ns[b], Ks[c], seed++, single));
        printf("%s (panel width %d): largest error %.3g of the bound\n",
               single ? "dp_gemm_f" : "dp_gemm", nr, worst);
    }
    check_net();
    return pk_test_finish();
}
