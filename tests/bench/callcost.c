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
 * Then the round trip's sequence of calls without GStreamer, at the
 * link's pace: per frame a copy up from one of 4 page-locked buffers into
 * one of 8 device buffers and its record, a cross-stream wait, a copy down
 * into one of 8 page-locked buffers and its record; the host waits (asks,
 * sleeps with a 1 us timer slack) until all copies up but the newest are
 * done before it reuses a buffer, as the pool gate does, and asks about
 * the download's work every frame or every few. CPU per frame of the
 * thread, and of each kind of call: the driver's share of the pair.
 *
 * Last, what a copy costs the host by its size and its memory: page-locked
 * by cudaHostAlloc, or malloc'd or huge-page memory registered with
 * cudaHostRegister (a copy's cost grows with its size: per page?); and N
 * frames in one call (cudaMemcpyBatchAsync) against N calls.
 *
 *   gst-pinned-callcost [N]
 */

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "driverutil.h"

#define FRAME (1920 * 1080 * 3 / 2)
#define BUSY (256u << 20)
#define MAX_N 20000

typedef int (*CtxFunc) (void *);

static double wall_ns[MAX_N], cpu_ns[MAX_N];

enum
{ K_COPY_UP, K_RECORD, K_WAIT_EVENT, K_COPY_DOWN, K_QUERY_GATE, K_SLEEP,
  K_QUERY_DOWN, K_LAST
};
static const char *kind_names[K_LAST] = { "copy up", "record (x2)",
  "cross-stream wait", "copy down", "gate questions", "gate sleeps",
  "download questions"
};

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

/* Times @stmt alone, @n times, @prep before each (untimed). */
#define TIME(what, n, prep, stmt) do { int i_; \
    for (i_ = 0; i_ < (n); i_++) { double w_, c_; prep; \
      w_ = now (CLOCK_MONOTONIC); c_ = now (CLOCK_THREAD_CPUTIME_ID); \
      stmt; \
      cpu_ns[i_] = now (CLOCK_THREAD_CPUTIME_ID) - c_; \
      wall_ns[i_] = now (CLOCK_MONOTONIC) - w_; } \
    report (what, (n)); } while (0)

/* The round trip's calls for @frames frames; asks about the download's
 * work every @ask_every frames (0: never); @timed: each call timed (the
 * clock reads cost too: the totals come from a run without). */
static void
pattern (int frames, int ask_every, int timed, int n_in, int leave)
{
  enum
  { N_IN_MAX = 16, N_DEV = 8, N_OUT = 8, N_EV = 32 };
  cudaStream_t up, down;
  cudaEvent_t ev_up[N_EV], ev_down[N_EV];
  void *in[N_IN_MAX], *dev[N_DEV], *out[N_OUT];
  double sum[K_LAST] = { 0 }, c0 = 0, w0, t;
  long count[K_LAST] = { 0 }, first_us = 2;
  int i, k, done = -1;

  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));
  for (i = 0; i < N_EV; i++) {
    CHECK (cudaEventCreateWithFlags (&ev_up[i], cudaEventDisableTiming));
    CHECK (cudaEventCreateWithFlags (&ev_down[i], cudaEventDisableTiming));
  }
  for (i = 0; i < n_in; i++)
    CHECK (cudaHostAlloc (&in[i], FRAME, cudaHostAllocDefault));
  for (i = 0; i < N_DEV; i++)
    CHECK (cudaMalloc (&dev[i], FRAME));
  for (i = 0; i < N_OUT; i++)
    CHECK (cudaHostAlloc (&out[i], FRAME, cudaHostAllocDefault));

#define CALL(kind, stmt) do { if (timed) { t = now (CLOCK_THREAD_CPUTIME_ID); \
      stmt; sum[kind] += now (CLOCK_THREAD_CPUTIME_ID) - t; } else { stmt; } \
    count[kind]++; } while (0)

  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  w0 = now (CLOCK_MONOTONIC);
  for (i = 0; i < frames + 100; i++) {
    cudaError_t r = cudaSuccess;

    if (i == 100) {
      c0 = now (CLOCK_THREAD_CPUTIME_ID);
      w0 = now (CLOCK_MONOTONIC);
      memset (sum, 0, sizeof (sum));
      memset (count, 0, sizeof (count));
    }
    /* The gate: the buffer's last copy up was 4 frames ago. Unless known
     * done, one question; when running, wait until all copies up but the
     * newest are done: a first sleep learnt as the gate learns it, then
     * shorter ones. */
    if (i >= n_in && i - n_in > done) {
      CALL (K_QUERY_GATE, r = cudaEventQuery (ev_up[(i - n_in) % N_EV]));
      if (r == cudaSuccess) {
        done = i - n_in;
      } else {
        long sleep = first_us;
        int questions = 0;

        do {
          CALL (K_SLEEP, usleep (sleep));
          sleep = first_us / 8 > 2 ? first_us / 8 : 2;
          questions++;
          CALL (K_QUERY_GATE, r =
              cudaEventQuery (ev_up[(i - 1 - leave) % N_EV]));
        } while (r == cudaErrorNotReady);
        done = i - 1 - leave;
        first_us = questions == 1 ? first_us - first_us / 8 :
            first_us + (first_us / 16 > 2 ? first_us / 16 : 2);
      }
    }
    CALL (K_COPY_UP, cudaMemcpyAsync (dev[i % N_DEV], in[i % n_in], FRAME,
            cudaMemcpyHostToDevice, up));
    CALL (K_RECORD, cudaEventRecord (ev_up[i % N_EV], up));
    if (ask_every && i >= 4 && i % ask_every == 0)
      CALL (K_QUERY_DOWN, cudaEventQuery (ev_down[(i - 3) % N_EV]));
    CALL (K_WAIT_EVENT, cudaStreamWaitEvent (down, ev_up[i % N_EV], 0));
    CALL (K_COPY_DOWN, cudaMemcpyAsync (out[i % N_OUT], dev[i % N_DEV], FRAME,
            cudaMemcpyDeviceToHost, down));
    CALL (K_RECORD, cudaEventRecord (ev_down[i % N_EV], down));
  }
  CHECK (cudaDeviceSynchronize ());
  t = now (CLOCK_THREAD_CPUTIME_ID) - c0;
  printf ("pattern: %d buffers, gate leaves %d, ask the download every %d "
      "frames%s: cpu %.2f us/frame, %.1f us/frame wall\n", n_in, leave,
      ask_every, timed ? ", timed" : "",
      t / frames / 1e3, (now (CLOCK_MONOTONIC) - w0) / frames / 1e3);
  for (k = 0; timed && k < K_LAST; k++)
    printf ("  %-20s %6.2f calls/frame  %7.0f ns each  %5.2f us/frame\n",
        kind_names[k], (double) count[k] / frames,
        count[k] ? sum[k] / count[k] : 0, sum[k] / frames / 1e3);

  for (i = 0; i < n_in; i++)
    cudaFreeHost (in[i]);
  for (i = 0; i < N_DEV; i++)
    cudaFree (dev[i]);
  for (i = 0; i < N_OUT; i++)
    cudaFreeHost (out[i]);
  for (i = 0; i < N_EV; i++) {
    cudaEventDestroy (ev_up[i]);
    cudaEventDestroy (ev_down[i]);
  }
  cudaStreamDestroy (up);
  cudaStreamDestroy (down);
}

/* @n frames from @src to @dst on @stream: one cudaMemcpyAsync for one,
 * else one cudaMemcpyBatchAsync, in stream order. */
static void
copy_frames (void **dst, void **src, int n, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
  size_t lens[16];
  int i;

  if (n == 1) {
    CHECK (cudaMemcpyAsync (dst[0], src[0], FRAME, kind, stream));
    return;
  }
  for (i = 0; i < n; i++)
    lens[i] = FRAME;
  CHECK (batch_copy (dst, (const void *const *) src, lens, n, stream));
}

/* The round trip's calls with @batch frames a call: cudaMemcpyBatchAsync
 * up, a record, a cross-stream wait, cudaMemcpyBatchAsync down, a record;
 * 2 * @batch page-locked inputs, and the gate before a batch's inputs are
 * written waits for the batch that read them last (a question, then
 * sleeps as above). CPU per frame of the thread. */
static void
pattern_batch (int frames, int batch)
{
  enum
  { B_MAX = 8, N_EV = 8 };
  cudaStream_t up, down;
  cudaEvent_t ev_up[N_EV], ev_down[N_EV];
  void *in[2 * B_MAX], *dev[4 * B_MAX], *out[4 * B_MAX];
  double c0 = 0, w0 = 0;
  long first_us = 2, sleeps = 0, questions = 0;
  int i, b, n_batches = frames / batch, n_in = 2 * batch;

  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));
  for (i = 0; i < N_EV; i++) {
    CHECK (cudaEventCreateWithFlags (&ev_up[i], cudaEventDisableTiming));
    CHECK (cudaEventCreateWithFlags (&ev_down[i], cudaEventDisableTiming));
  }
  for (i = 0; i < n_in; i++)
    CHECK (cudaHostAlloc (&in[i], FRAME, cudaHostAllocDefault));
  for (i = 0; i < 4 * batch; i++) {
    CHECK (cudaMalloc (&dev[i], FRAME));
    CHECK (cudaHostAlloc (&out[i], FRAME, cudaHostAllocDefault));
  }
  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  for (b = 0; b < n_batches + 20; b++) {
    if (b == 20) {
      c0 = now (CLOCK_THREAD_CPUTIME_ID);
      w0 = now (CLOCK_MONOTONIC);
      sleeps = questions = 0;
    }
    /* The inputs of this batch were read by batch b - 2. */
    if (b >= 2) {
      cudaEvent_t ev = ev_up[(b - 2) % N_EV];

      questions++;
      if (cudaEventQuery (ev) == cudaErrorNotReady) {
        long sleep = first_us;
        int q = 0;

        do {
          usleep (sleep);
          sleeps++;
          sleep = first_us / 8 > 2 ? first_us / 8 : 2;
          q++;
          questions++;
        } while (cudaEventQuery (ev) == cudaErrorNotReady);
        first_us = q == 1 ? first_us - first_us / 8 :
            first_us + (first_us / 16 > 2 ? first_us / 16 : 2);
      }
    }
    copy_frames (dev + (b % 4) * batch, in + (b % 2) * batch, batch,
        cudaMemcpyHostToDevice, up);
    CHECK (cudaEventRecord (ev_up[b % N_EV], up));
    CHECK (cudaStreamWaitEvent (down, ev_up[b % N_EV], 0));
    copy_frames (out + (b % 4) * batch, dev + (b % 4) * batch, batch,
        cudaMemcpyDeviceToHost, down);
    CHECK (cudaEventRecord (ev_down[b % N_EV], down));
  }
  CHECK (cudaDeviceSynchronize ());
  printf ("pattern: %d frames a batch call, %d inputs: cpu %.2f us/frame, "
      "%.1f us/frame wall, %.2f questions and %.2f sleeps a frame\n", batch,
      n_in, (now (CLOCK_THREAD_CPUTIME_ID) - c0) / (n_batches * batch) / 1e3,
      (now (CLOCK_MONOTONIC) - w0) / (n_batches * batch) / 1e3,
      (double) questions / (n_batches * batch),
      (double) sleeps / (n_batches * batch));

  for (i = 0; i < n_in; i++)
    cudaFreeHost (in[i]);
  for (i = 0; i < 4 * batch; i++) {
    cudaFree (dev[i]);
    cudaFreeHost (out[i]);
  }
  for (i = 0; i < N_EV; i++) {
    cudaEventDestroy (ev_up[i]);
    cudaEventDestroy (ev_down[i]);
  }
  cudaStreamDestroy (up);
  cudaStreamDestroy (down);
}

#define HUGE_2M (2u << 20)
#define SIZES_MAX (48u << 20)

/* @size bytes of memory of @kind: 0 cudaHostAlloc, 1 malloc + register,
 * 2 huge pages (THP, 2 MiB-aligned) + register. */
static void *
host_memory (int kind, size_t size)
{
  void *p = NULL;

  if (kind == 0) {
    CHECK (cudaHostAlloc (&p, size, cudaHostAllocDefault));
    return p;
  }
  if (kind == 1) {
    if (posix_memalign (&p, 4096, size) != 0)
      exit (1);
  } else {
    size = (size + HUGE_2M - 1) / HUGE_2M * HUGE_2M;
    if (posix_memalign (&p, HUGE_2M, size) != 0)
      exit (1);
    madvise (p, size, MADV_HUGEPAGE);
  }
  memset (p, 1, size);
  CHECK (cudaHostRegister (p, size, cudaHostRegisterDefault));
  return p;
}

static void
host_memory_free (int kind, void *p)
{
  if (kind == 0) {
    cudaFreeHost (p);
  } else {
    cudaHostUnregister (p);
    free (p);
  }
}

static void
copy_costs (int n)
{
  static const char *kinds[] = { "cudaHostAlloc", "malloc+register",
    "hugepages+register"
  };
  static const size_t sizes[] = { 4096, 256 << 10, 1 << 20, FRAME,
    4 * FRAME, 3840 * 2160 * 4
  };
  enum
  { BATCH = 4 };
  cudaStream_t s;
  void *dev, *host, *devs[BATCH], *hosts[BATCH];
  size_t lens[BATCH];
  int k, j, b;
  char what[96];

  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaMalloc (&dev, SIZES_MAX));
  for (k = 0; k < 3; k++) {
    host = host_memory (k, SIZES_MAX);
    for (j = 0; j < (int) (sizeof (sizes) / sizeof (sizes[0])); j++) {
      size_t len = sizes[j];

      snprintf (what, sizeof (what), "H2D %zu KiB %s", len >> 10, kinds[k]);
      TIME (what, n / 5, if (i_ % 8 == 0)
          CHECK (cudaStreamSynchronize (s)), cudaMemcpyAsync (dev, host, len,
              cudaMemcpyHostToDevice, s));
      CHECK (cudaStreamSynchronize (s));
    }
    /* BATCH frames: one call each, then one call for all. */
    for (b = 0; b < BATCH; b++) {
      devs[b] = (char *) dev + (size_t) b *FRAME;
      hosts[b] = (char *) host + (size_t) b *FRAME;
      lens[b] = FRAME;
    }
    snprintf (what, sizeof (what), "H2D %d frames, %d calls %s", BATCH, BATCH,
        kinds[k]);
    TIME (what, n / 5, if (i_ % 2 == 0)
        CHECK (cudaStreamSynchronize (s)), for (b = 0; b < BATCH; b++)
        cudaMemcpyAsync (devs[b], hosts[b], FRAME, cudaMemcpyHostToDevice, s));
    CHECK (cudaStreamSynchronize (s));
    snprintf (what, sizeof (what), "H2D %d frames, 1 batch call %s", BATCH,
        kinds[k]);
    TIME (what, n / 5, if (i_ % 2 == 0)
        CHECK (cudaStreamSynchronize (s)), CHECK (batch_copy (devs,
                (const void *const *) hosts, lens, BATCH, s)));
    CHECK (cudaStreamSynchronize (s));
    host_memory_free (k, host);
  }
  cudaFree (dev);
  cudaStreamDestroy (s);
}

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

  pattern (n * 4, 1, 0, 4, 1);
  pattern (n * 4, 5, 0, 4, 1);
  pattern (n * 4, 5, 0, 8, 1);
  pattern (n * 4, 5, 0, 4, 2);
  pattern (n * 4, 5, 0, 8, 2);
  pattern (n * 4, 5, 0, 8, 4);
  pattern (n * 4, 5, 1, 4, 1);
  pattern (n * 4, 5, 1, 8, 1);
  pattern_batch (n * 4, 1);
  pattern_batch (n * 4, 2);
  pattern_batch (n * 4, 4);
  pattern_batch (n * 4, 8);
  copy_costs (n);
  return 0;
}
