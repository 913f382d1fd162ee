/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* One caller at a time into the CUDA calls of a frame's path: an
 * LD_PRELOAD module over the real runtime that takes a lock around each
 * copy, record, cross-stream wait and question. It asks whether those
 * calls cost more where many threads call into the driver at once (64
 * streams in one process) than where one does:
 *
 *   CALLSERIAL=device LD_PRELOAD=.../libpinnedcallserial.so \
 *     gst-pinned-bench --devices 4 --streams 64 ...
 *
 * CALLSERIAL=process: one lock for the process; device: one a device
 * (the calling thread's current one); unset: no lock. */

#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

static pthread_mutex_t locks[MAX_DEVICES];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int mode;                /* 0: none, 1: process, 2: device */

static void
setup (void)
{
  const char *value = getenv ("CALLSERIAL");
  int i;

  mode = value == NULL ? 0 : strcmp (value, "device") == 0 ? 2 :
      strcmp (value, "process") == 0 ? 1 : 0;
  for (i = 0; i < MAX_DEVICES; i++)
    pthread_mutex_init (&locks[i], NULL);
}

static void *
real (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);

  if (f == NULL) {
    fprintf (stderr, "callserial: no %s\n", name);
    abort ();
  }
  return f;
}

/* The lock a call takes, or NULL. */
static pthread_mutex_t *
lock_for (void)
{
  int device = 0;

  pthread_once (&once, setup);
  if (mode == 0)
    return NULL;
  if (mode == 2 && (cudaGetDevice (&device) != cudaSuccess ||
          device < 0 || device >= MAX_DEVICES))
    device = 0;
  return &locks[device];
}

#define SERIAL(result, call) do {                                         \
    pthread_mutex_t *lock_ = lock_for ();                                 \
    if (lock_)                                                            \
      pthread_mutex_lock (lock_);                                         \
    result = call;                                                        \
    if (lock_)                                                            \
      pthread_mutex_unlock (lock_);                                       \
  } while (0)

cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t count,
    enum cudaMemcpyKind kind, cudaStream_t stream)
{
  static cudaError_t (*f) (void *, const void *, size_t,
      enum cudaMemcpyKind, cudaStream_t);
  cudaError_t r;

  if (f == NULL)
    f = real ("cudaMemcpyAsync");
  SERIAL (r, f (dst, src, count, kind, stream));
  return r;
}

cudaError_t
cudaMemcpyBatchAsync (void *const *dsts, const void *const *srcs,
    const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs,
    size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream)
{
  static cudaError_t (*f) (void *const *, const void *const *,
      const size_t *, size_t, struct cudaMemcpyAttributes *, size_t *, size_t,
      cudaStream_t);
  cudaError_t r;

  if (f == NULL)
    f = real ("cudaMemcpyBatchAsync");
  SERIAL (r, f (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream));
  return r;
}

cudaError_t
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  static cudaError_t (*f) (cudaEvent_t, cudaStream_t);
  cudaError_t r;

  if (f == NULL)
    f = real ("cudaEventRecord");
  SERIAL (r, f (event, stream));
  return r;
}

cudaError_t
cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
  static cudaError_t (*f) (cudaStream_t, cudaEvent_t, unsigned int);
  cudaError_t r;

  if (f == NULL)
    f = real ("cudaStreamWaitEvent");
  SERIAL (r, f (stream, event, flags));
  return r;
}

cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  static cudaError_t (*f) (cudaEvent_t);
  cudaError_t r;

  if (f == NULL)
    f = real ("cudaEventQuery");
  SERIAL (r, f (event));
  return r;
}
