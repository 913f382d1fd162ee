/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A sampling profiler for machines without perf (the GPU machines have
 * none): LD_PRELOAD it with SAMPLER_OUT=PREFIX. Every SAMPLER_US of the
 * process's CPU time (200 by default) a
 * SIGPROF takes the backtrace of the thread that runs; at exit the samples
 * go to PREFIX.<pid>, one line each: "tid/thread-name lib+offset:symbol
 * ...", innermost first. tests/bench/sampler-report.py sums them up.
 * SAMPLER_SKIP_S and SAMPLER_FOR_S keep only the samples of a window of
 * wall time (seconds after the process started, and how long): the steady
 * state of a run without its start-up and teardown. With SAMPLER_MARKED=1
 * the program marks that window itself instead, calling
 * pinned_sampler_window() where it finds it (gst-pinned-bench --devices
 * around its measured seconds): a start-up that lasts longer on one host
 * than another stays out. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 24
#define MAX_SAMPLES 400000

/* Filled by the signal handler: no allocation there. */
static void *stacks[MAX_SAMPLES][DEPTH];
static int depths[MAX_SAMPLES];
static int tids[MAX_SAMPLES];
static char names[MAX_SAMPLES][16];
static int n_samples;
static volatile int sampling;
/* The window, CLOCK_MONOTONIC ns; 0: none. */
static long long window_from, window_to;
/* A POSIX timer, not setitimer(): an itimer survives exec(), and would
 * kill a child (gst-plugin-scanner) before its own handler is set. */
static timer_t timer;

static long long
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
in_window (void)
{
  long long now, from, to;

  from = __atomic_load_n (&window_from, __ATOMIC_RELAXED);
  to = __atomic_load_n (&window_to, __ATOMIC_RELAXED);
  if (to == 0)
    return 1;
  now = now_ns ();
  return now >= from && now < to;
}

/* Opens (@open nonzero) or closes the window of a SAMPLER_MARKED run; the
 * program finds it with dlsym(). */
void pinned_sampler_window (int open) __attribute__((visibility ("default")));

void
pinned_sampler_window (int open)
{
  if (!getenv ("SAMPLER_MARKED"))
    return;
  if (open) {
    __atomic_store_n (&window_from, now_ns (), __ATOMIC_RELAXED);
    __atomic_store_n (&window_to, 1LL << 62, __ATOMIC_RELAXED);
  } else {
    __atomic_store_n (&window_to, now_ns (), __ATOMIC_RELAXED);
  }
}

static void
on_sigprof (int sig, siginfo_t * info, void *context)
{
  int i;

  (void) sig;
  (void) info;
  (void) context;
  if (!sampling || !in_window ())
    return;
  i = __atomic_fetch_add (&n_samples, 1, __ATOMIC_RELAXED);
  if (i >= MAX_SAMPLES)
    return;
  depths[i] = backtrace (stacks[i], DEPTH);
  tids[i] = (int) syscall (SYS_gettid);
  prctl (PR_GET_NAME, names[i], 0, 0, 0);
}

static void sampler_start (void) __attribute__((constructor));
static void sampler_stop (void) __attribute__((destructor));

static void
sampler_start (void)
{
  struct sigaction sa;
  struct sigevent ev;
  struct itimerspec it;
  void *warm[4];
  const char *us = getenv ("SAMPLER_US");
  const char *skip = getenv ("SAMPLER_SKIP_S"), *len = getenv ("SAMPLER_FOR_S");

  if (!getenv ("SAMPLER_OUT"))
    return;
  if (getenv ("SAMPLER_MARKED")) {
    /* Shut until the program opens it. */
    window_from = 1LL << 62;
    window_to = 1LL << 62;
  } else if (skip || len) {
    window_from = now_ns () + (long long) ((skip ? atof (skip) : 0) * 1e9);
    window_to = len ? window_from + (long long) (atof (len) * 1e9) :
        (1LL << 62);
  }
  /* The first backtrace() loads the unwinder, which allocates. */
  backtrace (warm, 4);
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction (SIGPROF, &sa, NULL);
  memset (&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGPROF;
  if (timer_create (CLOCK_PROCESS_CPUTIME_ID, &ev, &timer) != 0)
    return;
  memset (&it, 0, sizeof it);
  it.it_interval.tv_nsec = (us ? atol (us) : 200) * 1000;
  it.it_value = it.it_interval;
  sampling = 1;
  timer_settime (timer, 0, &it, NULL);
}

static void
sampler_stop (void)
{
  char path[4096];
  FILE *f;
  int i, j, n;

  if (!getenv ("SAMPLER_OUT") || !sampling)
    return;
  timer_delete (timer);
  sampling = 0;

  /* One file a process: children (gst-plugin-scanner) write their own. */
  snprintf (path, sizeof path, "%s.%d", getenv ("SAMPLER_OUT"),
      (int) getpid ());
  if (!(f = fopen (path, "w")))
    return;
  n = n_samples < MAX_SAMPLES ? n_samples : MAX_SAMPLES;
  for (i = 0; i < n; i++) {
    for (j = 0; names[i][j]; j++)
      if (names[i][j] == ' ')
        names[i][j] = '_';
    fprintf (f, "%d/%s", tids[i], names[i]);
    /* Frame 0 is the handler; 1, the signal trampoline, stays in the file
     * and the report drops it. */
    for (j = 1; j < depths[i]; j++) {
      Dl_info di;

      if (dladdr (stacks[i][j], &di) && di.dli_fname) {
        const char *base = strrchr (di.dli_fname, '/');

        fprintf (f, " %s+0x%lx:%s", base ? base + 1 : di.dli_fname,
            (unsigned long) ((char *) stacks[i][j] - (char *) di.dli_fbase),
            di.dli_sname ? di.dli_sname : "");
      } else {
        fprintf (f, " ?+%p:", stacks[i][j]);
      }
    }
    fprintf (f, "\n");
  }
  fclose (f);
}
