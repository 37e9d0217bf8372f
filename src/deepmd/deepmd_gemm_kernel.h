/* The body of dp_gemm and its panels for one element type, included by deepmd_gemm.c once per
 * instance (double, float) with these macros set: GT the element type, GL its lanes per
 * vector, G(x) the name of a static helper of the instance (x suffixed), and GPANELS,
 * GPACK, GFREE, GGEMM, GNR the public names (deepmd_internal.h). The layout and the tile
 * logic are described at the top of deepmd_gemm.c; only the lanes per vector differ between
 * the instances (a float vector has twice the lanes of a double one in the same register),
 * so NR = NV * GL columns per panel. Not a header of its own: no include guard. */

typedef GT G(vec) __attribute__((vector_size(GL * sizeof(GT))));

static inline G(vec) G(vload)(const GT *p)
{
    G(vec) v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void G(vstore)(GT *p, G(vec) v) { memcpy(p, &v, sizeof v); }

int GNR(void) { return NV * GL; }

/* Vectors of the panel that starts at column c0 of N. */
static inline int G(panel_nv)(int c0, int N)
{
    const int nr = NV * GL, cols = N - c0 < nr ? N - c0 : nr;
    return (cols + GL - 1) / GL;
}

int GPACK(GPANELS *P, const GT *B, int K, int N, size_t ldb)
{
    const int nr = NV * GL, np = (N + nr - 1) / nr;
    const size_t width = (size_t)(np - 1) * nr + (size_t)G(panel_nv)((np - 1) * nr, N) * GL;
    const size_t size = (size_t)K * width;
    P->K = K;
    P->N = N;
    /* 64-byte aligned (a cache line, one 512-bit vector); size rounded up as aligned_alloc
     * requires. */
    P->p = aligned_alloc(64, (sizeof(GT) * size + 63) / 64 * 64);
    if (!P->p) return -1;
    for (int p = 0; p < np; p++) {
        const int c0 = p * nr, w = G(panel_nv)(c0, N) * GL;
        GT *dst = P->p + (size_t)c0 * K;
        for (int k = 0; k < K; k++)
            for (int j = 0; j < w; j++)
                dst[(size_t)k * w + j] = c0 + j < N ? B[(size_t)k * ldb + c0 + j] : (GT)0;
    }
    return 0;
}

void GFREE(GPANELS *P)
{
    free(P->p);
    P->p = NULL;
}

/* C tile (mr x nv vectors) += A (mr rows, kc columns) x panel block (kc x nv vectors).
 * Always inlined into the instances below, where mr and nv are constants: the sums become
 * registers and the loops over them unroll. */
static inline __attribute__((always_inline)) void G(tile)(const int mr, const int nv, int kc,
                                                          const GT *A, size_t lda,
                                                          const GT *B, GT *C, size_t ldc)
{
    G(vec) c[8][NV];   /* 8 >= MR: the table below instantiates up to 8 rows */
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) c[r][v] = G(vload)(C + (size_t)r * ldc + v * GL);
    for (int k = 0; k < kc; k++) {
        G(vec) b[NV];
        for (int v = 0; v < nv; v++) b[v] = G(vload)(B + (size_t)k * nv * GL + v * GL);
        for (int r = 0; r < mr; r++) {
            const GT a = A[(size_t)r * lda + k];
            for (int v = 0; v < nv; v++) c[r][v] += a * b[v];
        }
    }
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) G(vstore)(C + (size_t)r * ldc + v * GL, c[r][v]);
}

#define DP_TILE(R, V)                                                                      \
    static void G(tile_##R##_##V)(int kc, const GT *A, size_t lda, const GT *B, GT *C,    \
                                  size_t ldc)                                             \
    {                                                                                      \
        G(tile)(R, V, kc, A, lda, B, C, ldc);                                              \
    }
#define DP_TILE_ROW(R) DP_TILE(R, 1) DP_TILE(R, 2) DP_TILE(R, 3)
DP_TILE_ROW(1) DP_TILE_ROW(2) DP_TILE_ROW(3) DP_TILE_ROW(4)
DP_TILE_ROW(5) DP_TILE_ROW(6) DP_TILE_ROW(7) DP_TILE_ROW(8)
#define DP_TILE_REF(R) {G(tile_##R##_1), G(tile_##R##_2), G(tile_##R##_3)}
/* tiles[mr - 1][nv - 1]; rows beyond MR are never called where MR = 4. */
static void (*const G(tiles)[8][3])(int, const GT *, size_t, const GT *, GT *, size_t) = {
    DP_TILE_REF(1), DP_TILE_REF(2), DP_TILE_REF(3), DP_TILE_REF(4),
    DP_TILE_REF(5), DP_TILE_REF(6), DP_TILE_REF(7), DP_TILE_REF(8)};
#undef DP_TILE
#undef DP_TILE_ROW
#undef DP_TILE_REF

void GGEMM(int M, const GT *A, size_t lda, const GPANELS *B, GT *C, size_t ldc)
{
    const int K = B->K, N = B->N, nr = NV * GL;
    for (int c0 = 0; c0 < N; c0 += nr) {
        const int nv = G(panel_nv)(c0, N), w = nv * GL, cols = N - c0 < w ? N - c0 : w;
        const GT *panel = B->p + (size_t)c0 * K;
        for (int k0 = 0; k0 < K; k0 += KC) {
            const int kc = K - k0 < KC ? K - k0 : KC;
            const GT *blk = panel + (size_t)k0 * w;
            for (int m0 = 0; m0 < M; m0 += MR) {
                const int mr = M - m0 < MR ? M - m0 : MR;
                const GT *a = A + (size_t)m0 * lda + k0;
                GT *c = C + (size_t)m0 * ldc + c0;
                if (cols == w) {
                    G(tiles)[mr - 1][nv - 1](kc, a, lda, blk, c, ldc);
                } else {   /* the last panel's padding columns go through a copy */
                    GT t[MR * NV * GL];
                    for (int r = 0; r < mr; r++) {
                        memcpy(t + r * w, c + (size_t)r * ldc, sizeof(GT) * cols);
                        memset(t + r * w + cols, 0, sizeof(GT) * (w - cols));
                    }
                    G(tiles)[mr - 1][nv - 1](kc, a, lda, blk, t, w);
                    for (int r = 0; r < mr; r++)
                        memcpy(c + (size_t)r * ldc, t + r * w, sizeof(GT) * cols);
                }
            }
        }
    }
}
