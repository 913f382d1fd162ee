/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How the host learns that a stream's copy is done, where many threads
 * call into the driver at once: a recorded event and cudaEventQuery (what
 * the fences do), against a word of page-locked memory that the stream
 * writes after the copy (cuStreamWriteValue64, found at run time with
 * cudaGetDriverEntryPointByVersion) and the host reads. No GStreamer: the
 * driver alone.
 *
 * T threads a GPU on N GPUs, each with a stream of its own, copy one NV12
 * 1080p frame a time up from one of 8 page-locked buffers; before a
 * buffer is used again, the thread asks whether the copy 4 frames back is
 * done, and sleeps 50 us between questions while it is not (as the pool
 * gate does). The two ways run in turns over the same threads, each for
 * the given seconds, so that both see the same machine; a third way is
 * the event with each copy as a cudaMemcpyBatchAsync of one copy (as a
 * batch of joined frames goes). Printed per way: frames/s of all threads,
 * CPU a frame (the threads' own clocks), the copy call, the fence call and
 * a question that found the copy done and one that found it running, in
 * us of CPU; questions and sleeps a frame.
 * Exits 77 without a device.
 *
 *   gst-pinned-fencecost [DEVICES [THREADS_A_DEVICE [SECONDS [ROUNDS]]]]
 */

#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driverutil.h"

#define FRAME (1920 * 1080 * 3 / 2)
#define N_IN 8
#define N_DEV 16
#define IN_FLIGHT 4

typedef CUresult (*WriteValue64) (CUstream, CUdeviceptr, cuuint64_t,
    unsigned int);

enum
{ WAY_EVENT, WAY_BATCH, WAY_WORD, N_WAYS };
static const char *way_names[N_WAYS] = { "event", "batch", "word" };

typedef struct
{
  int device;
  cudaStream_t stream;
  void *in[N_IN], *dev[N_DEV];
  cudaEvent_t events[N_IN];
  volatile unsigned long long *word;    /* page-locked, mapped */
  /* this phase's counts */
  long frames, questions, sleeps, done;
  double cpu_ns, copy_ns, fence_ns, question_ns, done_ns;
} Worker;

static WriteValue64 write_value64;
static pthread_barrier_t start_line, finish_line;
static volatile int way, seconds, quit;

/* Whether frame @k's copy is done, by this phase's way. */
static int
is_done (Worker * w, long k)
{
  double t = now (CLOCK_THREAD_CPUTIME_ID);
  int done;

  if (way != WAY_WORD) {
    cudaError_t r = cudaEventQuery (w->events[k % N_IN]);

    if (r != cudaSuccess && r != cudaErrorNotReady)
      CHECK (r);
    done = r == cudaSuccess;
  } else {
    done = *w->word >= (unsigned long long) k + 1;
  }
  t = now (CLOCK_THREAD_CPUTIME_ID) - t;
  w->question_ns += t;
  w->questions++;
  if (done) {
    w->done_ns += t;
    w->done++;
  }

  return done;
}

/* Frame @k's copy: one cudaMemcpyBatchAsync of one copy for the batch
 * way (as a batch of joined frames goes), else cudaMemcpyAsync. */
static void
copy (Worker * w, long k)
{
  double t = now (CLOCK_THREAD_CPUTIME_ID);

  if (way == WAY_BATCH) {
    void *dst = w->dev[k % N_DEV];
    const void *src = w->in[k % N_IN];
    size_t size = FRAME;

    CHECK (batch_copy (&dst, &src, &size, 1, w->stream));
  } else {
    CHECK (cudaMemcpyAsync (w->dev[k % N_DEV], w->in[k % N_IN], FRAME,
            cudaMemcpyHostToDevice, w->stream));
  }
  w->copy_ns += now (CLOCK_THREAD_CPUTIME_ID) - t;
}

static void
fence (Worker * w, long k)
{
  double t = now (CLOCK_THREAD_CPUTIME_ID);

  if (way != WAY_WORD) {
    CHECK (cudaEventRecord (w->events[k % N_IN], w->stream));
  } else if (write_value64 ((CUstream) w->stream, (CUdeviceptr) w->word,
          (cuuint64_t) k + 1, CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS) {
    fprintf (stderr, "cuStreamWriteValue64 failed\n");
    exit (1);
  }
  w->fence_ns += now (CLOCK_THREAD_CPUTIME_ID) - t;
}

static void
phase (Worker * w)
{
  double end = now (CLOCK_MONOTONIC) + seconds * 1e9, c0;
  long k;

  w->frames = w->questions = w->sleeps = w->done = 0;
  w->copy_ns = w->fence_ns = w->question_ns = w->done_ns = 0;
  *w->word = 0;
  c0 = now (CLOCK_THREAD_CPUTIME_ID);
  for (k = 0; now (CLOCK_MONOTONIC) < end; k++) {
    if (k >= IN_FLIGHT) {
      while (!is_done (w, k - IN_FLIGHT)) {
        usleep (50);
        w->sleeps++;
      }
    }
    copy (w, k);
    fence (w, k);
    w->frames++;
  }
  CHECK (cudaStreamSynchronize (w->stream));
  w->cpu_ns = now (CLOCK_THREAD_CPUTIME_ID) - c0;
}

static void *
worker_main (void *data)
{
  Worker *w = data;
  int i;

  CHECK (cudaSetDevice (w->device));
  CHECK (cudaStreamCreateWithFlags (&w->stream, cudaStreamNonBlocking));
  for (i = 0; i < N_IN; i++) {
    CHECK (cudaHostAlloc (&w->in[i], FRAME, cudaHostAllocDefault));
    CHECK (cudaEventCreateWithFlags (&w->events[i], cudaEventDisableTiming));
  }
  for (i = 0; i < N_DEV; i++)
    CHECK (cudaMalloc (&w->dev[i], FRAME));
  CHECK (cudaHostAlloc ((void **) &w->word, sizeof (*w->word),
          cudaHostAllocMapped | cudaHostAllocPortable));
  pthread_barrier_wait (&finish_line);  /* ready */

  for (;;) {
    pthread_barrier_wait (&start_line);
    if (quit)
      break;
    phase (w);
    pthread_barrier_wait (&finish_line);
  }
  return NULL;
}

static void
report (Worker * workers, int n, double wall_s)
{
  long frames = 0, questions = 0, sleeps = 0, done = 0;
  double cpu = 0, copy_ns = 0, fence_ns = 0, question_ns = 0, done_ns = 0;
  int i;

  for (i = 0; i < n; i++) {
    frames += workers[i].frames;
    questions += workers[i].questions;
    sleeps += workers[i].sleeps;
    cpu += workers[i].cpu_ns;
    copy_ns += workers[i].copy_ns;
    fence_ns += workers[i].fence_ns;
    question_ns += workers[i].question_ns;
    done += workers[i].done;
    done_ns += workers[i].done_ns;
  }
  if (frames == 0)
    return;
  printf ("%-6s %9.1f frames/s  %6.2f GB/s  cpu %6.2f us a frame  "
      "copy %5.2f us  fence %5.2f us  question done %5.2f us, running %5.2f "
      "(%.2f a frame)  sleeps %.2f a frame\n",
      way_names[way], frames / wall_s, frames * (double) FRAME / wall_s / 1e9,
      cpu / frames / 1e3, copy_ns / frames / 1e3, fence_ns / frames / 1e3,
      done ? done_ns / done / 1e3 : 0,
      questions > done ? (question_ns - done_ns) / (questions - done) / 1e3 : 0,
      (double) questions / frames, (double) sleeps / frames);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  int devices = 0, per_device, rounds, n, i, r;
  enum cudaDriverEntryPointQueryResult found;
  Worker *workers;
  pthread_t *threads;

  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices == 0) {
    printf ("SKIP: no CUDA device\n");
    return 77;
  }
  if (argc > 1 && atoi (argv[1]) > 0 && atoi (argv[1]) < devices)
    devices = atoi (argv[1]);
  per_device = argc > 2 ? atoi (argv[2]) : 16;
  seconds = argc > 3 ? atoi (argv[3]) : 3;
  rounds = argc > 4 ? atoi (argv[4]) : 2;
  /* By version from CUDA 12.5, which 13.0 keeps alone. */
#if CUDART_VERSION >= 12050
  CHECK (cudaGetDriverEntryPointByVersion ("cuStreamWriteValue64",
          (void **) &write_value64, 12000, cudaEnableDefault, &found));
#else
  CHECK (cudaGetDriverEntryPoint ("cuStreamWriteValue64",
          (void **) &write_value64, cudaEnableDefault, &found));
#endif
  if (found != cudaDriverEntryPointSuccess || write_value64 == NULL) {
    printf ("SKIP: no cuStreamWriteValue64\n");
    return 77;
  }

  n = devices * per_device;
  workers = calloc (n, sizeof (Worker));
  threads = calloc (n, sizeof (pthread_t));
  pthread_barrier_init (&start_line, NULL, n + 1);
  pthread_barrier_init (&finish_line, NULL, n + 1);
  for (i = 0; i < n; i++) {
    workers[i].device = i % devices;
    pthread_create (&threads[i], NULL, worker_main, &workers[i]);
  }
  pthread_barrier_wait (&finish_line);  /* every thread ready */
  printf ("fencecost: %d GPUs, %d threads each, NV12 1080p copies up, "
      "%d in flight, %d s a way\n", devices, per_device, IN_FLIGHT, seconds);
  for (r = 0; r < rounds; r++) {
    int k;

    /* in turn, then the other way round */
    for (k = 0; k < N_WAYS; k++) {
      double w0;

      way = r % 2 ? N_WAYS - 1 - k : k;
      w0 = now (CLOCK_MONOTONIC);
      pthread_barrier_wait (&start_line);
      pthread_barrier_wait (&finish_line);
      report (workers, n, (now (CLOCK_MONOTONIC) - w0) / 1e9);
    }
  }
  quit = 1;
  pthread_barrier_wait (&start_line);
  for (i = 0; i < n; i++)
    pthread_join (threads[i], NULL);

  return 0;
}
