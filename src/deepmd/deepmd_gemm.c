/* The fitting nets' matrix products: C (M x N) += A (M x K) B, with B packed once (at model
 * load) into column panels that the register-blocked micro-kernel streams.
 *
 * Panel layout: the columns of B in panels of NR = NV vectors of L doubles (the last panel is
 * as many vectors as its columns need, padded with zeros); panel p holds its K rows of
 * nv(p) * L contiguous doubles and starts at p * NR * K, so the whole of B is one stream in
 * the order the products read it. The micro-kernel keeps an
 * MR x NV tile of vector sums of C in registers; for each k it loads the NV vectors of the
 * panel's row k, broadcasts A[r][k] of its MR rows and adds the products (MR x NV
 * multiply-adds per NV + MR loads). K runs in blocks of KC so that the panel block in use
 * (KC x NR doubles) stays in L1 while the tiles of all M rows pass over it.
 *
 * Every C element is its initial value plus A[r][k] B[k][c] added in k order, one fused
 * multiply-add at a time, whatever M, the row's place in A or the panel: a sample's result
 * does not depend on the batch it is computed in.
 *
 * Measured (bench/deepmd/fit_gemm, the water fitting net's eight products at 64 centres, one
 * core with AVX-512): 68% of the core's 512-bit multiply-add peak, 73-76% for one product
 * repeated with its operands in cache; the previous 4 x 2 tile of 4-lane dot products
 * without packing reached 23%. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

/* Lanes per vector and tile rows by the vector registers the target has (plain C: the
 * compiler maps the vector type to them): 32 registers of 8 doubles with AVX-512 (8 x 3
 * sums + 3 panel vectors + a broadcast), 16 registers on other x86-64 (4 x 3 sums), 32
 * registers of 2 doubles elsewhere (aarch64 NEON: 8 x 3). */
#if defined(__AVX512F__)
enum { L = 8, MR = 8 };
#elif defined(__x86_64__) && defined(__AVX__)
enum { L = 4, MR = 4 };
#elif defined(__x86_64__)
enum { L = 2, MR = 4 };
#else
enum { L = 2, MR = 8 };
#endif
enum { NV = 3, NR = NV * L, KC = 128 };   /* KC: measured best of 64, 128, 192, 256 */

typedef double vec __attribute__((vector_size(L * sizeof(double))));

static inline vec vload(const double *p)
{
    vec v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void vstore(double *p, vec v) { memcpy(p, &v, sizeof v); }

int dp_gemm_nr(void) { return NR; }

/* Vectors of the panel that starts at column c0 of N. */
static inline int panel_nv(int c0, int N)
{
    const int cols = N - c0 < NR ? N - c0 : NR;
    return (cols + L - 1) / L;
}

int dp_panels_pack(dp_panels *P, const double *B, int K, int N, size_t ldb)
{
    const int np = (N + NR - 1) / NR;
    const size_t width = (size_t)(np - 1) * NR + (size_t)panel_nv((np - 1) * NR, N) * L;
    const size_t size = (size_t)K * width;
    P->K = K;
    P->N = N;
    /* 64-byte aligned (a cache line, one 8-lane vector); size rounded up as aligned_alloc
     * requires. */
    P->p = aligned_alloc(64, (sizeof(double) * size + 63) / 64 * 64);
    if (!P->p) return -1;
    for (int p = 0; p < np; p++) {
        const int c0 = p * NR, w = panel_nv(c0, N) * L;
        double *dst = P->p + (size_t)c0 * K;
        for (int k = 0; k < K; k++)
            for (int j = 0; j < w; j++)
                dst[(size_t)k * w + j] = c0 + j < N ? B[(size_t)k * ldb + c0 + j] : 0.0;
    }
    return 0;
}

void dp_panels_free(dp_panels *P)
{
    free(P->p);
    P->p = NULL;
}

/* C tile (mr x nv vectors) += A (mr rows, kc columns) x panel block (kc x nv vectors).
 * Always inlined into the instances below, where mr and nv are constants: the sums become
 * registers and the loops over them unroll. */
static inline __attribute__((always_inline)) void tile(const int mr, const int nv, int kc,
                                                       const double *A, size_t lda,
                                                       const double *B, double *C, size_t ldc)
{
    vec c[8][NV];   /* 8 >= MR: the table below instantiates up to 8 rows */
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) c[r][v] = vload(C + (size_t)r * ldc + v * L);
    for (int k = 0; k < kc; k++) {
        vec b[NV];
        for (int v = 0; v < nv; v++) b[v] = vload(B + (size_t)k * nv * L + v * L);
        for (int r = 0; r < mr; r++) {
            const double a = A[(size_t)r * lda + k];
            for (int v = 0; v < nv; v++) c[r][v] += a * b[v];
        }
    }
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) vstore(C + (size_t)r * ldc + v * L, c[r][v]);
}

typedef void tile_fn(int kc, const double *A, size_t lda, const double *B, double *C,
                     size_t ldc);

#define DP_TILE(R, V)                                                                      \
    static void tile_##R##_##V(int kc, const double *A, size_t lda, const double *B,      \
                               double *C, size_t ldc)                                     \
    {                                                                                      \
        tile(R, V, kc, A, lda, B, C, ldc);                                                 \
    }
#define DP_TILE_ROW(R) DP_TILE(R, 1) DP_TILE(R, 2) DP_TILE(R, 3)
DP_TILE_ROW(1) DP_TILE_ROW(2) DP_TILE_ROW(3) DP_TILE_ROW(4)
DP_TILE_ROW(5) DP_TILE_ROW(6) DP_TILE_ROW(7) DP_TILE_ROW(8)
#define DP_TILE_REF(R) {tile_##R##_1, tile_##R##_2, tile_##R##_3}
/* tiles[mr - 1][nv - 1]; rows beyond MR are never called where MR = 4. */
static tile_fn *const tiles[8][3] = {DP_TILE_REF(1), DP_TILE_REF(2), DP_TILE_REF(3),
                                     DP_TILE_REF(4), DP_TILE_REF(5), DP_TILE_REF(6),
                                     DP_TILE_REF(7), DP_TILE_REF(8)};

void dp_gemm(int M, const double *A, size_t lda, const dp_panels *B, double *C, size_t ldc)
{
    const int K = B->K, N = B->N;
    for (int c0 = 0; c0 < N; c0 += NR) {
        const int nv = panel_nv(c0, N), w = nv * L, cols = N - c0 < w ? N - c0 : w;
        const double *panel = B->p + (size_t)c0 * K;
        for (int k0 = 0; k0 < K; k0 += KC) {
            const int kc = K - k0 < KC ? K - k0 : KC;
            const double *blk = panel + (size_t)k0 * w;
            for (int m0 = 0; m0 < M; m0 += MR) {
                const int mr = M - m0 < MR ? M - m0 : MR;
                const double *a = A + (size_t)m0 * lda + k0;
                double *c = C + (size_t)m0 * ldc + c0;
                if (cols == w) {
                    tiles[mr - 1][nv - 1](kc, a, lda, blk, c, ldc);
                } else {   /* the last panel's padding columns go through a copy */
                    double t[MR * NR];
                    for (int r = 0; r < mr; r++) {
                        memcpy(t + r * w, c + (size_t)r * ldc, sizeof(double) * cols);
                        memset(t + r * w + cols, 0, sizeof(double) * (w - cols));
                    }
                    tiles[mr - 1][nv - 1](kc, a, lda, blk, t, w);
                    for (int r = 0; r < mr; r++)
                        memcpy(c + (size_t)r * ldc, t + r * w, sizeof(double) * cols);
                }
            }
        }
    }
}
