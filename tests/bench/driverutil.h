/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the driver-alone tools (callcost, fencecost: no GStreamer, no
 * GLib) share: a clock read in ns and a CUDA call that must succeed. */

#pragma once

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double
now (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* @n copies in one call, in stream order: cudaMemcpyBatchAsync as the
 * toolkit spells it (13.0 dropped 12.8's failIdx). Toolkits before 12.8
 * have none: the tools then fail where they would make one. */
static inline cudaError_t
batch_copy (void *const *dst, const void *const *src, const size_t * lens,
    size_t n, cudaStream_t stream)
{
#if CUDART_VERSION >= 12080
  struct cudaMemcpyAttributes attr;
  size_t attr_idx = 0;

  memset (&attr, 0, sizeof (attr));
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
#if CUDART_VERSION >= 13000
  return cudaMemcpyBatchAsync (dst, src, lens, n, &attr, &attr_idx, 1, stream);
#else
  {
    size_t fail_idx;

    return cudaMemcpyBatchAsync ((void **) dst, (void **) src,
        (size_t *) lens, n, &attr, &attr_idx, 1, &fail_idx, stream);
  }
#endif
#else
  return cudaErrorNotSupported;
#endif
}

#define CHECK(call) do { cudaError_t r_ = (call); if (r_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (r_)); exit (1); } } while (0)
