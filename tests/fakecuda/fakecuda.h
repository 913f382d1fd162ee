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
 * kernel's arguments (they live on the caller's stack) into a closure
 * allocated with g_malloc(), which the stand-in frees with g_free() once
 * the launch ran or was dropped. */
typedef void *(*FakecudaKernelBind) (void **args, dim3 grid, dim3 block);
/* Called on the stream's thread when the launch is reached. */
typedef void (*FakecudaKernelRun) (void *closure);

/* Non-zero: this is the stand-in. */
int      fakecuda_version          (void);

/* Makes @device the calling thread's current device without the checks of
 * cudaSetDevice() (a sticky error of the device does not stop it): what a
 * driver context push does, for the driver stand-in. */
void     fakecuda_make_current     (int device);

/* The same, with a driver context other than the device's primary one
 * current (@context: any non-zero id; 0 is the primary context): device
 * memory allocated now belongs to it, and a copy that names device memory
 * of another context fails with cudaErrorInvalidValue, as a pointer is
 * valid only in the context that allocated it. */
void     fakecuda_make_current_context (int device, uintptr_t context);

/* Back to defaults: no delay, copies in 4 pieces, no injected failures,
 * no device poisoned (as cudaDeviceReset(), but allocations, streams and
 * events stay); counters kept. */
void     fakecuda_reset            (void);

/* Copies and memsets enqueued from now on take this long on their stream:
 * they land in pieces (fakecuda_set_copy_pieces()), the first after a
 * piece's share of the delay, the last at its end. Races between the host
 * and the copy engine show, and a reader that looks early sees a torn
 * frame. */
void     fakecuda_set_copy_delay   (uint64_t usec);

/* How many pieces a held-back copy lands in (default 4; 1: all at once at
 * the end of its delay). */
void     fakecuda_set_copy_pieces  (unsigned pieces);

/* Enqueues a pause on @stream, as a long kernel would be. */
cudaError_t fakecuda_stream_sleep  (cudaStream_t stream, uint64_t usec);

/* Calls @skip + 1 ... @skip + @count of @function, counted from now, fail
 * with @error. */
void     fakecuda_fail             (const char *function, unsigned skip,
                                    unsigned count, cudaError_t error);

/* Like fakecuda_fail(), but the calls succeed and the work they enqueue
 * (a copy, memset or kernel) fails when its stream reaches it, as CUDA's
 * asynchronous errors do: it moves no byte, and the error sticks to the
 * device. From then on every call on the device returns it (event queries
 * and synchronizations included; calls that release something still do),
 * and its streams' work drains without effect, until fakecuda_reset(). */
void     fakecuda_fail_async       (const char *function, unsigned skip,
                                    unsigned count, cudaError_t error);

/* For a kernel emulation (FakecudaKernelRun), on its stream's thread: the
 * kernel faults with @error, as a kernel that writes through a bad pointer
 * does on a GPU. The error sticks to the stream's device at once, as with
 * fakecuda_fail_async(): every later call on the device returns it, and
 * the work queued on any of its streams, before the fault or after, is
 * dropped (never runs; events still complete, so no wait hangs, but their
 * queries report the error), until fakecuda_reset(). Freeing memory that
 * dropped work touched waits for it to drain, and does not abort. */
void     fakecuda_kernel_fault     (cudaError_t error);

/* Tells the stand-in the bounds of a pageable buffer: copies from or into
 * it (and cudaHostRegister() of it) that run past its end fail with
 * cudaErrorInvalidValue and a message, where CUDA would read or write
 * whatever lies beyond. Untrack before freeing it. */
void     fakecuda_track_host_range (const void *ptr, size_t size);
void     fakecuda_untrack_host_range (const void *ptr);

/* The flags @event was created with. */
unsigned int fakecuda_event_flags  (cudaEvent_t event);

/* How often @function was called since the library loaded. */
uint64_t fakecuda_call_count       (const char *function);

/* How many calls the calling thread made. */
uint64_t fakecuda_thread_call_count (void);

/* Joins the threads of destroyed streams that have ended their work or
 * are ending it: when it returns, none of them runs. */
void     fakecuda_join_ended_streams (void);

/* The host storage behind a device pointer, for CPU emulations of kernels;
 * NULL when @ptr is no device memory. */
void *   fakecuda_translate        (const void *ptr, size_t size);

/* Runs @run instead of the kernel whose device name is @name. */
void     fakecuda_register_kernel  (const char *name, FakecudaKernelBind bind,
                                    FakecudaKernelRun run);

#ifdef __cplusplus
}
#endif
