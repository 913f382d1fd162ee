/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the benchmark's parts share: a CUDA call that must succeed, the
 * process's CPU time, its threads' files, and the window a sampler
 * preloaded into it keeps. */

#pragma once

#include <dlfcn.h>
#include <sys/resource.h>
#include <gst/pinned/gstpinnedcuda.h>

G_BEGIN_DECLS

/* The benchmark's own CUDA calls: a failure ends the run. */
#define CHECK(call) G_STMT_START {                                        \
  if (!gst_pinned_cuda_result ((call), NULL))                             \
    g_error ("%s failed", #call);                                         \
} G_STMT_END

/* User and system time of the whole process so far, s. */
static inline gdouble
bench_cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Calls @each with the id of each thread of the process and the text of
 * its /proc/self/task/ID/@file. */
static inline void
bench_each_thread (const gchar * file, void (*each) (const gchar * tid,
        gchar * text, gpointer data), gpointer data)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;

  while (dir && (tid = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/%s", tid, file);
    gchar *text = NULL;

    if (g_file_get_contents (path, &text, NULL, NULL))
      each (tid, text, data);
    g_free (text);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
}

/* Opens or closes the window of samples that tests/bench/sampler.c keeps
 * where it is preloaded with SAMPLER_MARKED=1: the measured seconds. */
static inline void
bench_sampler_window (gboolean open)
{
  void *self = dlopen (NULL, RTLD_LAZY);
  void (*mark) (int) = self ? (void (*)(int)) dlsym (self,
      "pinned_sampler_window") : NULL;

  if (mark)
    mark (open);
  if (self)
    dlclose (self);
}

/* Minor page faults of the process so far (a fresh frame's pages). */
static inline guint64
bench_minor_faults (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

G_END_DECLS
