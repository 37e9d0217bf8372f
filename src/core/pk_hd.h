/* PK_HD marks a function that both the C kernels and the CUDA kernels call: the physics of a
 * pair is written once (DESIGN.md §8, the HOOMD-blue evaluator pattern). Plain static inline
 * in C, __host__ __device__ under nvcc. */
#ifndef PK_HD_H
#define PK_HD_H

#ifdef __CUDACC__
#define PK_HD __host__ __device__ static inline
#else
#define PK_HD static inline
#endif

#endif
