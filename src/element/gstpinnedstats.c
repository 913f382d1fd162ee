/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* An element's statistics, its `stats` property: counters the streaming
 * thread adds to with atomics (no lock per buffer), and the GPU time of
 * every Nth frame's copy or kernel, from a pair of timing events recorded
 * on the element's stream (never waited for: they are read N frames
 * later, or when the statistics are read). The timer's lock is the only
 * one. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedstats-private.h"
#include "sync/gstpinnedfence-private.h"
#include "core/gstpinnedenv-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_stats_debug);
#define GST_CAT_DEFAULT gst_pinned_stats_debug

/* Every how many frames the GPU work is timed */
#define DEFAULT_TIMING_INTERVAL 16

#define STAT_GET(field) __atomic_load_n (&(field), __ATOMIC_RELAXED)
#define STAT_SET_ZERO(field) __atomic_store_n (&(field), 0, __ATOMIC_RELAXED)

void
gst_pinned_stats_init (GstPinnedStats * stats)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_pinned_stats_debug, "pinnedstats", 0,
        "gst-pinned element statistics");
    g_once_init_leave (&once, 1);
  }
  g_mutex_init (&stats->timer.lock);
}

void
gst_pinned_stats_clear (GstPinnedStats * stats)
{
  g_mutex_clear (&stats->timer.lock);
}

/* How often frames are timed: every DEFAULT_TIMING_INTERVAL frames, or as
 * GST_PINNED_GPU_TIMING says (0: never, 1: every frame). Read as each
 * element opens its stream, so that an application may set it before it
 * makes a pipeline. */
static guint
timing_interval (void)
{
  const gchar *value = gst_pinned_env_get ("GST_PINNED_GPU_TIMING");

  return value ? g_ascii_strtoull (value, NULL, 10) : DEFAULT_TIMING_INTERVAL;
}

/* Timing events (unlike fences, whose events have no timing, which makes
 * waiting on them cheaper), made once with the stream. Without them the
 * element just times nothing. */
void
gst_pinned_stats_timer_open (GstPinnedStats * stats, GstPinnedContext * context)
{
  GstPinnedGpuTimer *timer = &stats->timer;

  timer->interval = timing_interval ();
  if (timer->interval == 0 || timer->start != NULL ||
      !gst_pinned_context_push (context, NULL))
    return;
  if (!gst_pinned_cuda_result (cudaEventCreateWithFlags (&timer->start,
              cudaEventDefault), NULL) ||
      !gst_pinned_cuda_result (cudaEventCreateWithFlags (&timer->end,
              cudaEventDefault), NULL)) {
    if (timer->start)
      gst_pinned_cuda_result (cudaEventDestroy (timer->start), NULL);
    timer->start = timer->end = NULL;
  }
  gst_pinned_context_pop (context);
  /* The first frame is timed. */
  timer->since = timer->interval - 1;
}

void
gst_pinned_stats_timer_close (GstPinnedStats * stats,
    GstPinnedContext * context)
{
  GstPinnedGpuTimer *timer = &stats->timer;

  if (timer->start == NULL)
    return;
  if (gst_pinned_context_push (context, NULL)) {
    gst_pinned_cuda_result (cudaEventDestroy (timer->start), NULL);
    gst_pinned_cuda_result (cudaEventDestroy (timer->end), NULL);
    gst_pinned_context_pop (context);
  }
  g_mutex_lock (&timer->lock);
  timer->start = timer->end = NULL;
  timer->pending = FALSE;
  g_mutex_unlock (&timer->lock);
}

/* Adds the pending frame's GPU time if its work is done; never waits.
 * The end event is asked first: cudaEventElapsedTime would answer
 * cudaErrorNotReady while the work runs, which compute-sanitizer counts as
 * an error, and a question every timing interval costs next to nothing. */
static void
timer_read_locked (GstPinnedStats * stats, GstPinnedContext * context)
{
  GstPinnedGpuTimer *timer = &stats->timer;
  cudaError_t result;
  gfloat ms = 0;

  if (!timer->pending || !gst_pinned_context_push (context, NULL))
    return;
  result = cudaEventQuery (timer->end);
  if (result == cudaSuccess)
    result = cudaEventElapsedTime (&ms, timer->start, timer->end);
  gst_pinned_context_pop (context);

  if (result == cudaErrorNotReady)
    return;
  timer->pending = FALSE;
  if (!_gst_pinned_cuda_result (result, "cudaEventElapsedTime",
          GST_CAT_DEFAULT, __FILE__, GST_FUNCTION, __LINE__, NULL)) {
    /* A device error: the element reports it; time no more. */
    timer->failed = TRUE;
    return;
  }
  GST_PINNED_STAT_ADD (stats->gpu_ns, (guint64) (ms * 1e6 + 0.5));
  GST_PINNED_STAT_ADD (stats->gpu_samples, MAX (timer->frames, 1));
}

void
gst_pinned_stats_timer_read (GstPinnedStats * stats, GstPinnedContext * context)
{
  g_mutex_lock (&stats->timer.lock);
  timer_read_locked (stats, context);
  g_mutex_unlock (&stats->timer.lock);
}

gboolean
gst_pinned_stats_timer_begin (GstPinnedStats * stats,
    GstPinnedContext * context, cudaEvent_t * start, cudaEvent_t * end)
{
  GstPinnedGpuTimer *timer = &stats->timer;
  gboolean ok;

  if (timer->start == NULL || ++timer->since < timer->interval)
    return FALSE;

  timer->since = 0;
  g_mutex_lock (&timer->lock);
  timer_read_locked (stats, context);
  /* Still running N frames later (a long queue): skip this one. */
  ok = !timer->pending && !timer->failed;
  g_mutex_unlock (&timer->lock);
  if (!ok)
    return FALSE;

  *start = timer->start;
  *end = timer->end;
  return TRUE;
}

void
gst_pinned_stats_timer_end (GstPinnedStats * stats, gboolean recorded,
    guint frames)
{
  GstPinnedGpuTimer *timer = &stats->timer;

  if (!recorded)
    return;
  g_mutex_lock (&timer->lock);
  timer->pending = TRUE;
  timer->frames = frames;
  g_mutex_unlock (&timer->lock);
}

void
gst_pinned_stats_reset (GstPinnedStats * stats)
{
  guint i;

  STAT_SET_ZERO (stats->buffers);
  STAT_SET_ZERO (stats->copies);
  STAT_SET_ZERO (stats->bytes);
  STAT_SET_ZERO (stats->pageable_buffers);
  for (i = 0; i < GST_PINNED_PATH_LAST; i++)
    STAT_SET_ZERO (stats->paths[i]);
  STAT_SET_ZERO (stats->host_waits);
  STAT_SET_ZERO (stats->host_wait_questions);
  STAT_SET_ZERO (stats->host_wait_ns);
  STAT_SET_ZERO (stats->turns);
  STAT_SET_ZERO (stats->batch_calls);
  STAT_SET_ZERO (stats->gpu_samples);
  STAT_SET_ZERO (stats->gpu_ns);
  STAT_SET_ZERO (stats->frames);
  STAT_SET_ZERO (stats->timeout_batches);
  STAT_SET_ZERO (stats->empty_slots);
  g_mutex_lock (&stats->timer.lock);
  stats->timer.failed = FALSE;
  g_mutex_unlock (&stats->timer.lock);
}

void
gst_pinned_stats_add_copy (GstPinnedStats * stats,
    const GstPinnedTransferReport * report)
{
  guint64 pageable_memories = 0;
  guint i;

  GST_PINNED_STAT_ADD (stats->copies, 1);
  GST_PINNED_STAT_ADD (stats->bytes, report->bytes);
  for (i = 0; i < GST_PINNED_PATH_LAST; i++) {
    if (report->paths[i] > 0) {
      GST_PINNED_STAT_ADD (stats->paths[i], report->paths[i]);
      pageable_memories += report->paths[i];
    }
  }
  if (pageable_memories > 0)
    GST_PINNED_STAT_ADD (stats->pageable_buffers, 1);
}

void
gst_pinned_stats_get_thread_waits (GstPinnedThreadWaits * waits)
{
  gst_pinned_fence_wait_get_thread_waits (waits);
}

void
gst_pinned_stats_add_waits (GstPinnedStats * stats,
    const GstPinnedThreadWaits * before)
{
  GstPinnedThreadWaits now;

  gst_pinned_fence_wait_get_thread_waits (&now);
  if (now.waits != before->waits) {
    GST_PINNED_STAT_ADD (stats->host_waits, now.waits - before->waits);
    GST_PINNED_STAT_ADD (stats->host_wait_questions,
        now.questions - before->questions);
    GST_PINNED_STAT_ADD (stats->host_wait_ns, now.ns - before->ns);
  }
  if (now.turns != before->turns)
    GST_PINNED_STAT_ADD (stats->turns, now.turns - before->turns);
}

/* The fields every element has: buffers, copies, GPU time, host waits,
 * turns */
static GstStructure *
common_structure (GstPinnedStats * stats, GstPinnedContext * context)
{
  guint64 samples, gpu_ns;

  gst_pinned_stats_timer_read (stats, context);

  samples = STAT_GET (stats->gpu_samples);
  gpu_ns = STAT_GET (stats->gpu_ns);
  return gst_structure_new ("application/x-pinned-stats",
      "buffers", G_TYPE_UINT64, STAT_GET (stats->buffers),
      "copies", G_TYPE_UINT64, STAT_GET (stats->copies),
      "bytes", G_TYPE_UINT64, STAT_GET (stats->bytes),
      "gpu-samples", G_TYPE_UINT64, samples,
      "gpu-time-sampled", G_TYPE_UINT64, gpu_ns,
      "gpu-time-per-frame", G_TYPE_UINT64, samples ? gpu_ns / samples : 0,
      "host-waits", G_TYPE_UINT64, STAT_GET (stats->host_waits),
      "host-wait-questions", G_TYPE_UINT64,
      STAT_GET (stats->host_wait_questions),
      "host-wait-time", G_TYPE_UINT64, STAT_GET (stats->host_wait_ns),
      "turns", G_TYPE_UINT64, STAT_GET (stats->turns), NULL);
}

GstStructure *
gst_pinned_stats_to_batch_structure (GstPinnedStats * stats,
    GstPinnedContext * context)
{
  GstStructure *s = common_structure (stats, context);

  gst_structure_set (s,
      "frames", G_TYPE_UINT64, STAT_GET (stats->frames),
      "timeout-batches", G_TYPE_UINT64, STAT_GET (stats->timeout_batches),
      "empty-slots", G_TYPE_UINT64, STAT_GET (stats->empty_slots), NULL);
  return s;
}

GstStructure *
gst_pinned_stats_to_structure (GstPinnedStats * stats,
    GstPinnedContext * context, GstPinnedPageable * pageable)
{
  GstStructure *s = common_structure (stats, context);

  gst_structure_set (s,
      "batch-calls", G_TYPE_UINT64, STAT_GET (stats->batch_calls),
      "pageable-buffers", G_TYPE_UINT64, STAT_GET (stats->pageable_buffers),
      "locked", G_TYPE_UINT64,
      STAT_GET (stats->paths[GST_PINNED_PATH_LOCKED]),
      "registered", G_TYPE_UINT64,
      STAT_GET (stats->paths[GST_PINNED_PATH_REGISTERED]),
      "staged", G_TYPE_UINT64,
      STAT_GET (stats->paths[GST_PINNED_PATH_STAGED]),
      "direct", G_TYPE_UINT64,
      STAT_GET (stats->paths[GST_PINNED_PATH_DIRECT]), NULL);

  if (pageable)
    gst_structure_set (s,
        "registered-bytes", G_TYPE_UINT64,
        gst_pinned_pageable_get_registered_bytes (pageable),
        "copy-threads", G_TYPE_UINT, gst_pinned_pageable_get_threads (pageable),
        "running-threads", G_TYPE_UINT,
        gst_pinned_pageable_get_running_threads (pageable),
        "held", G_TYPE_UINT, gst_pinned_pageable_get_n_held (pageable), NULL);

  return s;
}

/**
 * GstPinnedBaseTransform:stats:
 *
 * What the element did since it last started (it keeps the values after
 * it stops), as a #GstStructure named `application/x-pinned-stats`:
 *
 * * `buffers` (#guint64): buffers the element pushed (or passed through)
 * * `copies` (#guint64): frames it copied between host and device (a
 *   filter: a copy of nvcodec's CUDA memory before an in-place kernel)
 * * `bytes` (#guint64): the bytes those copies moved
 * * `gpu-samples` (#guint64): frames whose GPU work (the copies, or a
 *   filter's kernel) was timed: the first, then every 16th (the
 *   environment variable `GST_PINNED_GPU_TIMING` sets N; 0 times none)
 * * `gpu-time-sampled` (#guint64): their GPU time in all, in ns, from
 *   timing events around the work, after the stream's waits for earlier
 *   work
 * * `gpu-time-per-frame` (#guint64): the mean, in ns (0 before the first
 *   sample is read)
 * * `host-waits` (#guint64), `host-wait-time` (#guint64, ns): how often,
 *   and how long in all, the element's streaming thread waited on the
 *   host for GPU work (a pool whose oldest buffer's copy still ran, a copy
 *   into memory without fences)
 * * `host-wait-questions` (#guint64): how many times those waits asked the
 *   driver whether the work was done, each after a sleep
 * * `turns` (#guint64): frames whose copies waited for their turn at a
 *   copy engine that another pipeline of the process used too (lately):
 *   each waited for its stream's earlier copies first (every few frames)
 * * `pageable-buffers` (#guint64): frames with host memory that was not
 *   gst-pinned page-locked memory (pinnedupload: upstream did not write
 *   into the offered pool), and their memories by the way they went:
 *   `locked` (page-locked by another owner), `registered` (page-locked
 *   here), `staged` (through page-locked staging), `direct` (through
 *   CUDA's own staging), each #guint64
 * * while pinnedupload or pinneddownload has copied such memory, until it
 *   stops: `registered-bytes` (#guint64), `copy-threads` (#guint),
 *   `running-threads` (#guint), `held` (#guint), as in
 *   gst_pinned_pageable_get_stats()
 *
 * Counters are added to with atomic operations; no lock is taken per
 * buffer. The property is notified at the end of the stream:
 * `gst-launch-1.0 -v` prints it then.
 *
 * Since: 0.1
 */
GParamSpec *
gst_pinned_stats_param_spec (void)
{
  return g_param_spec_boxed ("stats", "Statistics",
      "What the element did since it started: buffers, copies, bytes, GPU "
      "time per frame, host waits, pageable input (see the documentation)",
      /* not GST_TYPE_STRUCTURE, which gst_init() sets: the introspection
       * scanner makes this class without it */
      gst_structure_get_type (), G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}
