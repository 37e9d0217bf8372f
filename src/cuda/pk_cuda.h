/* The CUDA runtime shared by the styles' CUDA backends (DESIGN.md §8): device selection,
 * one stream per style instance, persistent buffers that grow geometrically, pinned host
 * staging, and CUDA errors turned into statuses that name the call, the device and what to
 * do. C declarations; implemented in pk_cuda_runtime.cu. */
#ifndef PK_CUDA_H
#define PK_CUDA_H

#include <stddef.h>

#include "pk_backend.h"
#include "pk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int device;
    void *stream;             /* cudaStream_t of this instance */
    void *mark;               /* cudaEvent_t: a point in the stream the host can wait for */
    size_t cap;               /* device bytes this instance may hold (0: no cap) */
    size_t held;              /* device bytes it holds */
    char name[128];           /* "NVIDIA H100 80GB HBM3 (device 0)" */
} pk_cuda_ctx;

/* A device or pinned host buffer: kept between steps, grown by half again when too small. */
typedef struct {
    void *ptr;
    size_t bytes;
} pk_cuda_buffer;

/* 1 when a CUDA device is visible; otherwise 0 and why (for backend auto and the tests). */
int pk_cuda_available(char *why, size_t len);

/* Pick the device (req->device, or node-local rank modulo the device count), make the
 * stream, and describe the choice in info->device, with how many of the node's ranks share
 * the device. */
pk_code pk_cuda_open(pk_cuda_ctx *ctx, const pk_backend_request *req, pk_backend_info *info,
                     pk_status *st);
void pk_cuda_close(pk_cuda_ctx *ctx);
/* Make the instance's device current (another instance in the process may use another). */
pk_code pk_cuda_enter(pk_cuda_ctx *ctx, pk_status *st);
/* Zero `bytes` of device memory at `device`, on the instance's stream. */
pk_code pk_cuda_zero(pk_cuda_ctx *ctx, void *device, size_t bytes, const char *what,
                     pk_status *st);

/* Make buf hold at least `bytes` on the device (contents not kept when it grows). `what`
 * names the buffer in the out-of-memory message. */
pk_code pk_cuda_reserve(pk_cuda_ctx *ctx, pk_cuda_buffer *buf, size_t bytes, const char *what,
                        pk_status *st);
void pk_cuda_release(pk_cuda_ctx *ctx, pk_cuda_buffer *buf);
/* The same for page-locked host memory, used to stage transfers. */
pk_code pk_cuda_host_reserve(pk_cuda_ctx *ctx, pk_cuda_buffer *buf, size_t bytes,
                             const char *what, pk_status *st);
void pk_cuda_host_release(pk_cuda_buffer *buf);

/* Asynchronous copies on the instance's stream. */
pk_code pk_cuda_upload(pk_cuda_ctx *ctx, void *device, const void *host, size_t bytes,
                       const char *what, pk_status *st);
pk_code pk_cuda_download(pk_cuda_ctx *ctx, void *host, const void *device, size_t bytes,
                         const char *what, pk_status *st);
/* Record the mark after the work queued so far, and wait (on the host) until the stream
 * has reached it, while later work goes on. */
pk_code pk_cuda_mark(pk_cuda_ctx *ctx, pk_status *st);
pk_code pk_cuda_wait_mark(pk_cuda_ctx *ctx, const char *what, pk_status *st);
/* Wait for the stream; reports errors of the kernels it ran, naming `what`. */
pk_code pk_cuda_sync(pk_cuda_ctx *ctx, const char *what, pk_status *st);
/* Check for a failed kernel launch right after it, naming the kernel. */
pk_code pk_cuda_launched(pk_cuda_ctx *ctx, const char *kernel, pk_status *st);

#ifdef __cplusplus
}
#endif
#endif
