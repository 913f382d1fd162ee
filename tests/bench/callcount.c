/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How many CUDA runtime calls and sleeps a process makes, by kind: an
 * LD_PRELOAD module over the real runtime, for the calls of a frame's
 * path. Counts do not move with the host's speed as CPU time does, so two
 * builds compare in one run. At exit it writes one line a kind to
 * $CALLCOUNT_OUT (or stderr):
 *
 *   CALLCOUNT_OUT=counts.txt LD_PRELOAD=.../libpinnedcallcount.so \
 *     gst-pinned-bench --pipeline '...'
 *
 * Questions are split by their answer (finished, or still running); a
 * batch call's copies are counted apart ("copies(batch)"). The
 * system calls of a frame's path that go through libc's exported wrappers
 * are counted too (a system call costs a virtual machine's host more than
 * the call itself): sleeps, the timer slack, the driver's ioctls, GLib's
 * futexes (through syscall()), reads and writes (GstPoll's wake-ups) and
 * polls. libc's own futexes (pthread mutexes) do not go through them.
 *
 * Each CUDA call's wall time is summed too (the third column, ns): what a
 * call costs where many threads call in at once; and the calling thread's
 * CPU time in it (the fourth column, ns): what of that wall time the
 * host's CPU spent, not waited.
 *
 * With CALLCOUNT_MARKED=1 it counts the window the benchmark marks
 * (bench_sampler_window(): the measured seconds, without start-up and
 * teardown) and writes its length too, as "callcount window-ms N".
 *
 * CALLCOUNT_SERIAL lets one caller at a time into those CUDA calls (a lock
 * round each, its wait in the call's time): "device", one a device (the
 * calling thread's current one); "process", one for the process. Do they
 * cost more where many threads call into the driver at once? */

#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum
{
  MEMCPY_ASYNC,
  MEMCPY_BATCH_ASYNC,
  EVENT_RECORD,
  STREAM_WAIT_EVENT,
  EVENT_QUERY_DONE,
  EVENT_QUERY_RUNNING,
  EVENT_SYNCHRONIZE,
  EVENT_ELAPSED_TIME,
  BATCH_COPIES,
  NANOSLEEP,
  PRCTL,
  IOCTL,
  FUTEX,
  READ,
  WRITE,
  POLL,
  N_KINDS
};

static const char *names[N_KINDS] = {
  "cudaMemcpyAsync", "cudaMemcpyBatchAsync", "cudaEventRecord",
  "cudaStreamWaitEvent",
  "cudaEventQuery-done", "cudaEventQuery-running", "cudaEventSynchronize",
  "cudaEventElapsedTime", "copies(batch)", "nanosleep", "prctl", "ioctl",
  "futex(syscall)",
  "read", "write", "poll",
};

static unsigned long counts[N_KINDS];
static unsigned long long call_ns[N_KINDS], call_cpu_ns[N_KINDS];
/* The counts, times in calls and times (ns, CLOCK_MONOTONIC) at the
 * window's ends. */
static unsigned long at_open[N_KINDS], at_close[N_KINDS];
static unsigned long long ns_open[N_KINDS], ns_close[N_KINDS];
static unsigned long long cpu_open[N_KINDS], cpu_close[N_KINDS];
static long long open_ns = -1, close_ns = -1;

static long long
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
real (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);

  if (f == NULL) {
    fprintf (stderr, "callcount: no %s\n", name);
    abort ();
  }
  return f;
}

#define COUNT(kind) __atomic_fetch_add (&counts[kind], 1, __ATOMIC_RELAXED)
#define MAX_DEVICES 64

static pthread_mutex_t serial_locks[MAX_DEVICES];
static pthread_once_t serial_once = PTHREAD_ONCE_INIT;
static int serial_mode;         /* 0: none, 1: process, 2: device */

static void
serial_setup (void)
{
  const char *value = getenv ("CALLCOUNT_SERIAL");
  int i;

  serial_mode = value == NULL ? 0 : strcmp (value, "device") == 0 ? 2 :
      strcmp (value, "process") == 0 ? 1 : 0;
  for (i = 0; i < MAX_DEVICES; i++)
    pthread_mutex_init (&serial_locks[i], NULL);
}

/* The lock a CUDA call takes (CALLCOUNT_SERIAL), or NULL. */
static pthread_mutex_t *
serial_lock (void)
{
  int device = 0;

  pthread_once (&serial_once, serial_setup);
  if (serial_mode == 0)
    return NULL;
  if (serial_mode == 2 && (cudaGetDevice (&device) != cudaSuccess ||
          device < 0 || device >= MAX_DEVICES))
    device = 0;
  return &serial_locks[device];
}

/* What a call cost: wall time and the calling thread's CPU, ns. */
typedef struct
{
  long long wall, cpu;
} Cost;

/* A CUDA call, behind its lock where there is one; what it cost into
 * @cost. */
#define CALL(result, call, cost) do {                                     \
    pthread_mutex_t *lock_ = serial_lock ();                              \
    long long t0_ = now_ns (), c0_ = thread_cpu_ns ();                    \
    if (lock_)                                                            \
      pthread_mutex_lock (lock_);                                         \
    result = call;                                                        \
    if (lock_)                                                            \
      pthread_mutex_unlock (lock_);                                       \
    (cost).cpu = thread_cpu_ns () - c0_;                                  \
    (cost).wall = now_ns () - t0_;                                        \
  } while (0)

static void
counted (int kind, Cost cost)
{
  __atomic_fetch_add (&call_ns[kind], cost.wall, __ATOMIC_RELAXED);
  __atomic_fetch_add (&call_cpu_ns[kind], cost.cpu, __ATOMIC_RELAXED);
  COUNT (kind);
}

cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t count,
    enum cudaMemcpyKind kind, cudaStream_t stream)
{
  static cudaError_t (*f) (void *, const void *, size_t,
      enum cudaMemcpyKind, cudaStream_t);
  cudaError_t r;
  Cost cost;

  if (f == NULL)
    f = real ("cudaMemcpyAsync");
  CALL (r, f (dst, src, count, kind, stream), cost);
  counted (MEMCPY_ASYNC, cost);
  return r;
}

/* A CUDA 12 build of gst-pinned looks the batch call up in the runtime
 * it runs on (12.8 and later), past this module: its calls of it are not
 * counted. */
#if CUDART_VERSION >= 13000
cudaError_t
cudaMemcpyBatchAsync (void *const *dsts, const void *const *srcs,
    const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs,
    size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream)
{
  static cudaError_t (*f) (void *const *, const void *const *,
      const size_t *, size_t, struct cudaMemcpyAttributes *, size_t *, size_t,
      cudaStream_t);
  cudaError_t r;
  Cost cost;

  if (f == NULL)
    f = real ("cudaMemcpyBatchAsync");
  CALL (r, f (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream),
      cost);
  counted (MEMCPY_BATCH_ASYNC, cost);
  __atomic_fetch_add (&counts[BATCH_COPIES], count, __ATOMIC_RELAXED);
  return r;
}
#endif

cudaError_t
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  static cudaError_t (*f) (cudaEvent_t, cudaStream_t);
  cudaError_t r;
  Cost cost;

  if (f == NULL)
    f = real ("cudaEventRecord");
  CALL (r, f (event, stream), cost);
  counted (EVENT_RECORD, cost);
  return r;
}

cudaError_t
cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
  static cudaError_t (*f) (cudaStream_t, cudaEvent_t, unsigned int);
  cudaError_t r;
  Cost cost;

  if (f == NULL)
    f = real ("cudaStreamWaitEvent");
  CALL (r, f (stream, event, flags), cost);
  counted (STREAM_WAIT_EVENT, cost);
  return r;
}

cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  static cudaError_t (*f) (cudaEvent_t);
  cudaError_t result;
  Cost cost;

  if (f == NULL)
    f = real ("cudaEventQuery");
  CALL (result, f (event), cost);
  counted (result == cudaErrorNotReady ? EVENT_QUERY_RUNNING :
      EVENT_QUERY_DONE, cost);
  return result;
}

cudaError_t
cudaEventSynchronize (cudaEvent_t event)
{
  static cudaError_t (*f) (cudaEvent_t);

  if (f == NULL)
    f = real ("cudaEventSynchronize");
  COUNT (EVENT_SYNCHRONIZE);
  return f (event);
}

cudaError_t
cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
  static cudaError_t (*f) (float *, cudaEvent_t, cudaEvent_t);

  if (f == NULL)
    f = real ("cudaEventElapsedTime");
  COUNT (EVENT_ELAPSED_TIME);
  return f (ms, start, end);
}

/* g_usleep() sleeps with nanosleep(). */
int
nanosleep (const struct timespec *req, struct timespec *rem)
{
  static int (*f) (const struct timespec *, struct timespec *);

  if (f == NULL)
    f = real ("nanosleep");
  COUNT (NANOSLEEP);
  return f (req, rem);
}

int
prctl (int option, ...)
{
  static int (*f) (int, unsigned long, unsigned long, unsigned long,
      unsigned long);
  unsigned long a[4];
  va_list ap;
  int i;

  if (f == NULL)
    f = real ("prctl");
  va_start (ap, option);
  for (i = 0; i < 4; i++)
    a[i] = va_arg (ap, unsigned long);
  va_end (ap);
  COUNT (PRCTL);
  return f (option, a[0], a[1], a[2], a[3]);
}

int
ioctl (int fd, unsigned long request, ...)
{
  static int (*f) (int, unsigned long, void *);
  void *arg;
  va_list ap;

  if (f == NULL)
    f = real ("ioctl");
  va_start (ap, request);
  arg = va_arg (ap, void *);
  va_end (ap);
  COUNT (IOCTL);
  return f (fd, request, arg);
}

/* GLib's mutexes and conditions wait and wake with syscall (SYS_futex). */
long
syscall (long number, ...)
{
  static long (*f) (long, long, long, long, long, long, long);
  long a[6];
  va_list ap;
  int i;

  if (f == NULL)
    f = real ("syscall");
  va_start (ap, number);
  for (i = 0; i < 6; i++)
    a[i] = va_arg (ap, long);
  va_end (ap);
  if (number == SYS_futex)
    COUNT (FUTEX);
  return f (number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

ssize_t
read (int fd, void *buf, size_t count)
{
  static ssize_t (*f) (int, void *, size_t);

  if (f == NULL)
    f = real ("read");
  COUNT (READ);
  return f (fd, buf, count);
}

ssize_t
write (int fd, const void *buf, size_t count)
{
  static ssize_t (*f) (int, const void *, size_t);

  if (f == NULL)
    f = real ("write");
  COUNT (WRITE);
  return f (fd, buf, count);
}

int
poll (struct pollfd *fds, nfds_t nfds, int timeout)
{
  static int (*f) (struct pollfd *, nfds_t, int);

  if (f == NULL)
    f = real ("poll");
  COUNT (POLL);
  return f (fds, nfds, timeout);
}

/* Opens (@open nonzero) or closes a CALLCOUNT_MARKED run's window: the
 * benchmark finds it with dlsym(), as it finds the sampler's. */
void pinned_sampler_window (int open) __attribute__((visibility ("default")));

void
pinned_sampler_window (int open)
{
  int i;

  if (!getenv ("CALLCOUNT_MARKED"))
    return;
  for (i = 0; i < N_KINDS; i++) {
    (open ? at_open : at_close)[i] =
        __atomic_load_n (&counts[i], __ATOMIC_RELAXED);
    (open ? ns_open : ns_close)[i] =
        __atomic_load_n (&call_ns[i], __ATOMIC_RELAXED);
    (open ? cpu_open : cpu_close)[i] =
        __atomic_load_n (&call_cpu_ns[i], __ATOMIC_RELAXED);
  }
  if (open)
    open_ns = now_ns ();
  else
    close_ns = now_ns ();
}

static void counts_write (void) __attribute__((destructor));

static void
counts_write (void)
{
  const char *path = getenv ("CALLCOUNT_OUT");
  FILE *f = path ? fopen (path, "w") : stderr;
  int i;

  if (f == NULL)
    return;
  if (open_ns >= 0 && close_ns > open_ns) {
    fprintf (f, "callcount window-ms %lld\n", (close_ns - open_ns) / 1000000);
    for (i = 0; i < N_KINDS; i++)
      fprintf (f, "callcount %s %lu %llu %llu\n", names[i],
          at_close[i] - at_open[i], ns_close[i] - ns_open[i],
          cpu_close[i] - cpu_open[i]);
  } else {
    for (i = 0; i < N_KINDS; i++)
      fprintf (f, "callcount %s %lu %llu %llu\n", names[i], counts[i],
          call_ns[i], call_cpu_ns[i]);
  }
  if (f != stderr)
    fclose (f);
}
