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
#include <time.h>

static inline double
now (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define CHECK(call) do { cudaError_t r_ = (call); if (r_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (r_)); exit (1); } } while (0)
