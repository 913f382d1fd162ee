/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* gst-pinned-bench --devices N: many GPUs and many streams at once. */

#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  guint devices;                /* GPUs to spread over */
  guint streams;                /* round trips in one process */
  const gchar *format;
  gint width, height;
  gdouble seconds;              /* measured time of each part */
  gboolean convert;             /* pinnedconvert to RGBA between */
  gboolean bind;                /* each stream on its GPU's share of CPUs */
  guint bind_cpus;              /* with bind: that many of the share (0: all) */
  const gchar *props;           /* properties of both copy elements */
  const gchar *self;            /* this program, for the per-process part */
  gsize frame_bytes;            /* moved a frame, both ways (set by the run) */
} BenchDevices;

typedef struct
{
  gdouble frames_per_s;         /* all streams together */
  gdouble gb_per_s;             /* both ways */
  gdouble cpu_us;               /* the process's CPU a frame */
  gdouble startup_s;            /* to every stream's first frame */
  gdouble resident_mib;         /* resident memory added by the streams */
  gdouble locked_mib;           /* of it page-locked by gst-pinned */
  gdouble slowest, fastest;     /* one stream's frames/s, in this process */
  gboolean verified;            /* each stream's last frame the source's */
  guint pool_buffers;           /* a stream's pool, each way (the upload's) */
  /* In the window, a frame: the process's host waits, their questions a
   * wait, and their time (us); of them the uploads' and the downloads' own
   * (their pools' gates are their sources') and their questions a wait,
   * and the uploads' turns. */
  gdouble waits, questions, wait_us, up_waits, up_questions, down_waits,
      down_questions, turns;
  /* In the window, a frame: of the CPU in the kernel (us), the threads'
   * sleeps (voluntary context switches) and preemptions (involuntary). */
  gdouble sys_us, sleeps, preempted;
} BenchDevicesResult;

gboolean bench_devices_run (BenchDevices * b);

G_END_DECLS
