/* PK_HD marks a function that both the C kernels and the CUDA kernels call: the physics of a
 * pair is written once (DESIGN.md §8, the HOOMD-blue evaluator pattern). Plain static inline
 * in C, __host__ __device__ under nvcc. The CUDA kernels are compiled without FMA
 * contraction (--fmad=false), as the C kernels are, so both give the same bits per pair. */
#ifndef PK_HD_H
#define PK_HD_H

#ifdef __CUDACC__
#define PK_HD __host__ __device__ static inline
#else
#define PK_HD static inline
#endif

/* Unroll the next loop n times: GCC's pragma in C, nvcc's own in CUDA. */
#define PK_PRAGMA(text) _Pragma(#text)
#ifdef __CUDACC__
#define PK_UNROLL(n) PK_PRAGMA(unroll n)
#else
#define PK_UNROLL(n) PK_PRAGMA(GCC unroll n)
#endif

#endif
