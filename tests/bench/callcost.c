/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What one CUDA call costs the host, on the real driver: the calls of a
 * frame's path (a copy, an event record, a question about finished and
 * about running work, a cross-stream wait, a context push and pop), each
 * timed alone, median and mean of thousands, in ns of the calling thread's
 * CPU and of wall time. No GStreamer: the driver alone. Exits 77 without
 * a device.
 *
 *   gst-pinned-callcost [N]
 */

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAME (1920 * 1080 * 3 / 2)
#define BUSY (256u << 20)
#define MAX_N 20000

typedef int (*CtxFunc) (void *);

static double wall_ns[MAX_N], cpu_ns[MAX_N];

static double
now (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
report (const char *what, int n)
{
  double cw = 0, cc = 0;
  int i;

  for (i = 0; i < n; i++) {
    cw += wall_ns[i];
    cc += cpu_ns[i];
  }
  qsort (wall_ns, n, sizeof (double), cmp);
  qsort (cpu_ns, n, sizeof (double), cmp);
  printf ("%-44s n %6d  cpu ns median %7.0f mean %7.0f  wall ns median "
      "%7.0f mean %7.0f p99 %7.0f\n", what, n, cpu_ns[n / 2], cc / n,
      wall_ns[n / 2], cw / n, wall_ns[n * 99 / 100]);
}

#define CHECK(call) do { cudaError_t r_ = (call); if (r_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (r_)); exit (1); } } while (0)

/* Times @stmt alone, @n times, @prep before each (untimed). */
#define TIME(what, n, prep, stmt) do { int i_; \
    for (i_ = 0; i_ < (n); i_++) { double w_, c_; prep; \
      w_ = now (CLOCK_MONOTONIC); c_ = now (CLOCK_THREAD_CPUTIME_ID); \
      stmt; \
      cpu_ns[i_] = now (CLOCK_THREAD_CPUTIME_ID) - c_; \
      wall_ns[i_] = now (CLOCK_MONOTONIC) - w_; } \
    report (what, (n)); } while (0)

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 5000, count = 0, dev = 0;
  cudaStream_t s1, s2;
  cudaEvent_t done, running, ev[64];
  void *host, *devmem, *busy_host, *busy_dev, *lib, *ctx = NULL;
  CtxFunc push = NULL, pop = NULL, get = NULL;
  int i;

  if (n > MAX_N)
    n = MAX_N;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("no CUDA device\n");
    return 77;
  }
  CHECK (cudaSetDevice (0));
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&done, cudaEventDisableTiming));
  CHECK (cudaEventCreateWithFlags (&running, cudaEventDisableTiming));
  for (i = 0; i < 64; i++)
    CHECK (cudaEventCreateWithFlags (&ev[i], cudaEventDisableTiming));
  CHECK (cudaHostAlloc (&host, FRAME, cudaHostAllocDefault));
  CHECK (cudaMalloc (&devmem, FRAME));
  CHECK (cudaHostAlloc (&busy_host, BUSY, cudaHostAllocDefault));
  CHECK (cudaMalloc (&busy_dev, BUSY));
  memset (host, 1, FRAME);
  memset (busy_host, 1, BUSY);

  lib = dlopen ("libcuda.so.1", RTLD_NOW);
  if (lib) {
    push = (CtxFunc) dlsym (lib, "cuCtxPushCurrent_v2");
    pop = (CtxFunc) dlsym (lib, "cuCtxPopCurrent_v2");
    get = (CtxFunc) dlsym (lib, "cuCtxGetCurrent");
  }
  CHECK (cudaFree (NULL));
  if (get)
    get (&ctx);

  cudaDeviceGetAttribute (&dev, cudaDevAttrPciBusId, 0);
  printf ("callcost: %d calls each, frame copy %d bytes\n", n, FRAME);

  TIME ("cudaGetDevice", n, (void) 0, cudaGetDevice (&dev));
  if (push && pop && ctx) {
    void *out;

    TIME ("cuCtxPushCurrent + cuCtxPopCurrent", n, (void) 0,
        (push (ctx), pop (&out)));
    TIME ("cuCtxGetCurrent", n, (void) 0, get (&out));
  }

  /* Records on an idle stream, then questions about finished work. */
  TIME ("cudaEventRecord (idle stream)", n, (void) 0,
      cudaEventRecord (ev[i_ % 64], s1));
  CHECK (cudaStreamSynchronize (s1));
  CHECK (cudaEventRecord (done, s1));
  CHECK (cudaStreamSynchronize (s1));
  TIME ("cudaEventQuery (finished)", n, (void) 0, cudaEventQuery (done));
  TIME ("cudaStreamWaitEvent (finished, other stream)", n, (void) 0,
      cudaStreamWaitEvent (s2, done, 0));
  CHECK (cudaStreamSynchronize (s2));

  /* The same with the copy engine busy: a 256 MiB copy (about 5 ms)
   * before the event, renewed when it is done. */
#define KEEP_BUSY \
  if (cudaEventQuery (running) == cudaSuccess) { \
    CHECK (cudaMemcpyAsync (busy_dev, busy_host, BUSY, \
            cudaMemcpyHostToDevice, s1)); \
    CHECK (cudaEventRecord (running, s1)); }
  CHECK (cudaEventRecord (running, s1));
  CHECK (cudaStreamSynchronize (s1));
  TIME ("cudaEventQuery (running)", n, KEEP_BUSY, cudaEventQuery (running));
  TIME ("cudaEventRecord (busy stream)", n, KEEP_BUSY,
      cudaEventRecord (ev[i_ % 64], s1));
  TIME ("cudaStreamWaitEvent (running, other stream)", n / 10,
      KEEP_BUSY, cudaStreamWaitEvent (s2, running, 0));
  CHECK (cudaDeviceSynchronize ());

  /* Frame copies, 8 queued at most (as a pool allows). */
  TIME ("cudaMemcpyAsync H2D 3 MB page-locked", n, if (i_ % 8 == 0)
      CHECK (cudaStreamSynchronize (s1)), cudaMemcpyAsync (devmem, host,
          FRAME, cudaMemcpyHostToDevice, s1));
  CHECK (cudaStreamSynchronize (s1));
  TIME ("cudaMemcpyAsync D2H 3 MB page-locked", n, if (i_ % 8 == 0)
      CHECK (cudaStreamSynchronize (s2)), cudaMemcpyAsync (host, devmem,
          FRAME, cudaMemcpyDeviceToHost, s2));
  CHECK (cudaDeviceSynchronize ());
  TIME ("cudaMemcpyAsync H2D + cudaEventRecord", n, if (i_ % 8 == 0)
      CHECK (cudaStreamSynchronize (s1)), (cudaMemcpyAsync (devmem, host,
              FRAME, cudaMemcpyHostToDevice, s1), cudaEventRecord (ev[i_ %
                  64], s1)));
  CHECK (cudaDeviceSynchronize ());
  return 0;
}
