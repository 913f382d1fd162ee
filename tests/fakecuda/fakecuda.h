/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The control interface of the stand-in CUDA runtime (libcudart.so.13 in
 * this folder) that the test suites load instead of the real one on
 * machines without a GPU. Tests reach these functions with dlsym(), so that
 * the same binaries also run against the real runtime. */

#pragma once

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called at launch, in the launching thread: copies what it needs of the
 * kernel's arguments (they live on the caller's stack) into a closure. */
typedef void *(*FakecudaKernelBind) (void **args, dim3 grid, dim3 block);
/* Called on the stream's thread when the launch is reached. */
typedef void (*FakecudaKernelRun) (void *closure);

/* Non-zero: this is the stand-in. */
int      fakecuda_version          (void);

/* Back to defaults: no delay, no injected failures, counters kept. */
void     fakecuda_reset            (void);

/* Copies enqueued from now on wait this long on their stream before they
 * move any byte: races between the host and the copy engine show. */
void     fakecuda_set_copy_delay   (uint64_t usec);

/* Enqueues a pause on @stream, as a long kernel would be. */
cudaError_t fakecuda_stream_sleep  (cudaStream_t stream, uint64_t usec);

/* Calls @skip + 1 ... @skip + @count of @function, counted from now, fail
 * with @error. */
void     fakecuda_fail             (const char *function, unsigned skip,
                                    unsigned count, cudaError_t error);

/* How often @function was called since the library loaded. */
uint64_t fakecuda_call_count       (const char *function);

/* The host storage behind a device pointer, for CPU emulations of kernels;
 * NULL when @ptr is no device memory. */
void *   fakecuda_translate        (const void *ptr, size_t size);

/* Runs @run instead of the kernel whose device name is @name. */
void     fakecuda_register_kernel  (const char *name, FakecudaKernelBind bind,
                                    FakecudaKernelRun run);

#ifdef __cplusplus
}
#endif
