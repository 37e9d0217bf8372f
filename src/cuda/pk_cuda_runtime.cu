/* The CUDA runtime of PairKit's backends: see pk_cuda.h. */
#include <cuda_runtime.h>

#include <stdio.h>

#include "pk_cuda.h"

/* What a user can do about an error, by kind. */
static const char *advice(cudaError_t err)
{
    switch (err) {
    case cudaErrorMemoryAllocation:
        return "use fewer atoms per GPU (more GPUs or a finer decomposition), or backend cpu";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return "check the GPU driver (nvidia-smi) and CUDA_VISIBLE_DEVICES, or use backend cpu";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
        return "rebuild PairKit for this GPU (-DCMAKE_CUDA_ARCHITECTURES=<its compute capability>)";
    default:
        return "this is a bug or a failing GPU: please report it with the input";
    }
}

static pk_code fail_cuda(pk_status *st, const pk_cuda_ctx *ctx, cudaError_t err, const char *call,
                         const char *what)
{
    return pk_fail(st, err == cudaErrorMemoryAllocation ? PK_ERR_MEMORY : PK_ERR_NUMERIC,
                   "CUDA %s (%s) failed on %s: %s; %s", call, what,
                   ctx ? ctx->name : "the GPU", cudaGetErrorString(err), advice(err));
}

extern "C" int pk_cuda_available(char *why, size_t len)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(why, len, "no usable GPU (cudaGetDeviceCount: %s)", cudaGetErrorString(err));
        cudaGetLastError();   /* clear the sticky error for later calls */
        return 0;
    }
    if (count == 0) {
        snprintf(why, len, "no GPU visible (cudaGetDeviceCount found none)");
        return 0;
    }
    return 1;
}

extern "C" pk_code pk_cuda_open(pk_cuda_ctx *ctx, const pk_backend_request *req,
                                pk_backend_info *info, pk_status *st)
{
    ctx->device = -1;
    ctx->stream = NULL;
    ctx->mark = NULL;
    ctx->cap = req->device_memory_cap;
    ctx->held = 0;
    snprintf(ctx->name, sizeof ctx->name, "the GPU");
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return fail_cuda(st, NULL, err, "cudaGetDeviceCount", "choosing a GPU");
    if (count == 0) return pk_fail(st, PK_ERR_UNSUPPORTED, "no GPU visible; use backend cpu");
    if (req->device >= count)
        return pk_fail(st, PK_ERR_ARG, "device %d requested, but only %d GPU(s) are visible",
                       req->device, count);
    /* ranks of a node share its GPUs round-robin by node-local rank */
    const int device = req->device >= 0 ? req->device : req->local_rank % count;
    err = cudaSetDevice(device);
    if (err != cudaSuccess) return fail_cuda(st, NULL, err, "cudaSetDevice", "choosing a GPU");
    cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess) return fail_cuda(st, NULL, err, "cudaGetDeviceProperties", "choosing a GPU");
    ctx->device = device;
    snprintf(ctx->name, sizeof ctx->name, "%.100s (device %d)", prop.name, device);
    cudaStream_t stream;
    err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) return fail_cuda(st, ctx, err, "cudaStreamCreate", "the instance's stream");
    ctx->stream = stream;
    cudaEvent_t mark;
    err = cudaEventCreateWithFlags(&mark, cudaEventDisableTiming);
    if (err != cudaSuccess) return fail_cuda(st, ctx, err, "cudaEventCreate", "the instance's mark");
    ctx->mark = mark;

    if (req->device >= 0) {
        snprintf(info->device, sizeof info->device, "%s of %d, chosen by the device keyword, "
                 "rank %d of %d on this node", ctx->name, count, req->local_rank, req->local_size);
    } else {
        int sharing = 0;
        for (int r = 0; r < req->local_size; r++) sharing += (r % count == device);
        snprintf(info->device, sizeof info->device, "%s of %d, %d rank%s on it (node rank %d of %d)",
                 ctx->name, count, sharing, sharing == 1 ? "" : "s", req->local_rank,
                 req->local_size);
    }
    return PK_OK;
}

extern "C" void pk_cuda_close(pk_cuda_ctx *ctx)
{
    if (ctx->mark) cudaEventDestroy((cudaEvent_t)ctx->mark);
    if (ctx->stream) cudaStreamDestroy((cudaStream_t)ctx->stream);
    ctx->mark = NULL;
    ctx->stream = NULL;
}

extern "C" pk_code pk_cuda_enter(pk_cuda_ctx *ctx, pk_status *st)
{
    const cudaError_t err = cudaSetDevice(ctx->device);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaSetDevice", "this step");
}

extern "C" pk_code pk_cuda_zero(pk_cuda_ctx *ctx, void *device, size_t bytes, const char *what,
                                pk_status *st)
{
    if (!bytes) return PK_OK;
    const cudaError_t err = cudaMemsetAsync(device, 0, bytes, (cudaStream_t)ctx->stream);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaMemsetAsync", what);
}

/* Grow geometrically (by half again) so that a slowly growing system reallocates rarely. */
static size_t grown(size_t have, size_t need)
{
    const size_t more = have + have / 2;
    return need > more ? need : more;
}

extern "C" pk_code pk_cuda_reserve(pk_cuda_ctx *ctx, pk_cuda_buffer *buf, size_t bytes,
                                   const char *what, pk_status *st)
{
    if (bytes <= buf->bytes) return PK_OK;
    const size_t want = grown(buf->bytes, bytes);
    pk_cuda_release(ctx, buf);
    if (ctx->cap && ctx->held + want > ctx->cap)
        return pk_fail(st, PK_ERR_MEMORY, "CUDA cudaMalloc (%s, %zu bytes) refused on %s: it "
                       "would hold %zu bytes, over the cap of %zu bytes (PAIRKIT_GPU_MEMORY_CAP); "
                       "%s", what, want, ctx->name, ctx->held + want, ctx->cap,
                       advice(cudaErrorMemoryAllocation));
    const cudaError_t err = cudaMalloc(&buf->ptr, want);
    if (err != cudaSuccess) {
        cudaGetLastError();
        buf->ptr = NULL;
        char call[96];
        snprintf(call, sizeof call, "cudaMalloc of %zu bytes (holding %zu)", want, ctx->held);
        return fail_cuda(st, ctx, err, call, what);
    }
    buf->bytes = want;
    ctx->held += want;
    return PK_OK;
}

extern "C" void pk_cuda_release(pk_cuda_ctx *ctx, pk_cuda_buffer *buf)
{
    if (buf->ptr) {
        cudaFree(buf->ptr);
        ctx->held -= buf->bytes;
    }
    buf->ptr = NULL;
    buf->bytes = 0;
}

extern "C" pk_code pk_cuda_host_reserve(pk_cuda_ctx *ctx, pk_cuda_buffer *buf, size_t bytes,
                                        const char *what, pk_status *st)
{
    if (bytes <= buf->bytes) return PK_OK;
    const size_t want = grown(buf->bytes, bytes);
    pk_cuda_host_release(buf);
    const cudaError_t err = cudaMallocHost(&buf->ptr, want);
    if (err != cudaSuccess) {
        cudaGetLastError();
        buf->ptr = NULL;
        return fail_cuda(st, ctx, err, "cudaMallocHost", what);
    }
    buf->bytes = want;
    return PK_OK;
}

extern "C" void pk_cuda_host_release(pk_cuda_buffer *buf)
{
    if (buf->ptr) cudaFreeHost(buf->ptr);
    buf->ptr = NULL;
    buf->bytes = 0;
}

extern "C" pk_code pk_cuda_upload(pk_cuda_ctx *ctx, void *device, const void *host, size_t bytes,
                                  const char *what, pk_status *st)
{
    if (!bytes) return PK_OK;
    const cudaError_t err = cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice,
                                            (cudaStream_t)ctx->stream);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaMemcpyAsync to the GPU", what);
}

extern "C" pk_code pk_cuda_download(pk_cuda_ctx *ctx, void *host, const void *device, size_t bytes,
                                    const char *what, pk_status *st)
{
    if (!bytes) return PK_OK;
    const cudaError_t err = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost,
                                            (cudaStream_t)ctx->stream);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaMemcpyAsync from the GPU", what);
}

extern "C" pk_code pk_cuda_mark(pk_cuda_ctx *ctx, pk_status *st)
{
    const cudaError_t err = cudaEventRecord((cudaEvent_t)ctx->mark, (cudaStream_t)ctx->stream);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaEventRecord", "the mark");
}

extern "C" pk_code pk_cuda_wait_mark(pk_cuda_ctx *ctx, const char *what, pk_status *st)
{
    const cudaError_t err = cudaEventSynchronize((cudaEvent_t)ctx->mark);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaEventSynchronize", what);
}

extern "C" pk_code pk_cuda_sync(pk_cuda_ctx *ctx, const char *what, pk_status *st)
{
    const cudaError_t err = cudaStreamSynchronize((cudaStream_t)ctx->stream);
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "cudaStreamSynchronize", what);
}

extern "C" pk_code pk_cuda_launched(pk_cuda_ctx *ctx, const char *kernel, pk_status *st)
{
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? PK_OK : fail_cuda(st, ctx, err, "kernel launch", kernel);
}
