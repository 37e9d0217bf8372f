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
 * The same kernel serves the float32 fitting nets: deepmd_gemm_kernel.h holds its body once,
 * included below for double and for float (twice the lanes per vector).
 *
 * Measured (bench/deepmd/fit_gemm, the water fitting net's eight products at 64 centres, one
 * core with AVX-512): 68% of the core's 512-bit multiply-add peak, 73-76% for one product
 * repeated with its operands in cache; the previous 4 x 2 tile of 4-lane dot products
 * without packing reached 23%. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"

/* Lanes per double vector and tile rows by the vector registers the target has (plain C: the
 * compiler maps the vector type to them): 32 registers of 8 doubles with AVX-512 (8 x 3
 * sums + 3 panel vectors + a broadcast), 16 registers on other x86-64 (4 x 3 sums), 32
 * registers of 2 doubles elsewhere (aarch64 NEON: 8 x 3). A float vector has twice the
 * lanes in the same register. */
#if defined(__AVX512F__)
enum { L = 8, MR = 8 };
#elif defined(__x86_64__) && defined(__AVX__)
enum { L = 4, MR = 4 };
#elif defined(__x86_64__)
enum { L = 2, MR = 4 };
#else
enum { L = 2, MR = 8 };
#endif
enum { NV = 3, KC = 128 };   /* KC: measured best of 64, 128, 192, 256 (double) */

#define GT double
#define GL L
#define G(x) x##_d
#define GPANELS dp_panels
#define GPACK dp_panels_pack
#define GFREE dp_panels_free
#define GGEMM dp_gemm
#define GNR dp_gemm_nr
#include "deepmd_gemm_kernel.h"
#undef GT
#undef GL
#undef G
#undef GPANELS
#undef GPACK
#undef GFREE
#undef GGEMM
#undef GNR

#define GT float
#define GL (2 * L)
#define G(x) x##_f
#define GPANELS dp_panels_f
#define GPACK dp_panels_pack_f
#define GFREE dp_panels_free_f
#define GGEMM dp_gemm_f
#define GNR dp_gemm_nr_f
#include "deepmd_gemm_kernel.h"
