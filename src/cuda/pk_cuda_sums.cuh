/* Deterministic sums on the GPU, shared by the styles' CUDA backends (device code: include
 * from .cu files only). */
#ifndef PK_CUDA_SUMS_CUH
#define PK_CUDA_SUMS_CUH

enum { PK_SUM_THREADS = 256 };

/* Per-block sums of `width` interleaved quantities over n items (item k's c-th at
 * v[width k + c]): block b writes block[width b + c], each a fixed tree over a fixed range of
 * PK_SUM_THREADS items, so a rerun gives the same bits; the host adds the blocks in order.
 * Launch with PK_SUM_THREADS threads and ceil(n / PK_SUM_THREADS) blocks. */
static __global__ void pk_block_sums_kernel(const double *v, int n, int width, double *block)
{
    __shared__ double part[PK_SUM_THREADS];
    const int k0 = blockIdx.x * PK_SUM_THREADS + threadIdx.x;
    for (int c = 0; c < width; c++) {
        part[threadIdx.x] = k0 < n ? v[(size_t)width * k0 + c] : 0.0;
        __syncthreads();
        for (int half = PK_SUM_THREADS / 2; half > 0; half /= 2) {
            if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) block[(size_t)width * blockIdx.x + c] = part[0];
        __syncthreads();
    }
}

#endif
