/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* An element's statistics: counters the streaming thread adds to with
 * atomics, and the GPU timer that times every Nth frame's work. */

#pragma once

#include "sync/gstpinnedfence-private.h"
#include "transfer/gstpinnedtransfer-private.h"
#include "gst/pinned/gstpinnedcontext.h"
#include "gst/pinned/gstpinnedpageable.h"

G_BEGIN_DECLS

/* The GPU time of one frame's work in N: a pair of timing events, recorded
 * around the work, read when the next frame is due to be timed (or the
 * statistics are read), never waited for. */
typedef struct
{
  GMutex lock;                  /* for @pending and @failed: timed frames
                                 * and readers only */
  cudaEvent_t start;
  cudaEvent_t end;
  gboolean pending;             /* recorded, not read yet */
  gboolean failed;
  guint frames;                 /* frames the pending timing covers */
  guint since;                  /* frames since the last timed one: the
                                 * streaming thread's */
} GstPinnedGpuTimer;

/* Counted by the streaming thread with relaxed atomics, read by anyone: a
 * reader sees each counter whole, if not all of them at one instant. */
typedef struct
{
  guint64 buffers;
  guint64 copies;
  guint64 bytes;
  guint64 pageable_buffers;
  guint64 paths[GST_PINNED_PATH_LAST];
  guint64 host_waits;
  guint64 host_wait_questions;
  guint64 host_wait_ns;
  guint64 turns;
  guint64 batch_calls;
  guint64 gpu_samples;
  guint64 gpu_ns;
  GstPinnedGpuTimer timer;
} GstPinnedStats;

#define GST_PINNED_STAT_ADD(field, n) \
    __atomic_fetch_add (&(field), (n), __ATOMIC_RELAXED)

G_GNUC_INTERNAL
void     gst_pinned_stats_init         (GstPinnedStats * stats);

G_GNUC_INTERNAL
void     gst_pinned_stats_clear        (GstPinnedStats * stats);

/* Zeroes the counters (at start) */
G_GNUC_INTERNAL
void     gst_pinned_stats_reset        (GstPinnedStats * stats);

/* Counts an enqueued copy: its bytes, and its pageable memories by path */
G_GNUC_INTERNAL
void     gst_pinned_stats_add_copy     (GstPinnedStats * stats,
                                        const GstPinnedTransferReport * report);

/* Counts the host waits and turns of the streaming thread since @before */
G_GNUC_INTERNAL
void     gst_pinned_stats_add_waits    (GstPinnedStats * stats,
                                        const GstPinnedThreadWaits * before);

/* Makes the timing events, once with the stream; without them nothing is
 * timed. */
G_GNUC_INTERNAL
void     gst_pinned_stats_timer_open   (GstPinnedStats * stats,
                                        GstPinnedContext * context);

G_GNUC_INTERNAL
void     gst_pinned_stats_timer_close  (GstPinnedStats * stats,
                                        GstPinnedContext * context);

/* Adds the pending timing if its work is done, asking first (the
 * statistics, stop) */
G_GNUC_INTERNAL
void     gst_pinned_stats_timer_read   (GstPinnedStats * stats,
                                        GstPinnedContext * context);

/* Whether to time this frame's work: then record @start before it and
 * @end after, and call gst_pinned_stats_timer_end(). */
G_GNUC_INTERNAL
gboolean gst_pinned_stats_timer_begin  (GstPinnedStats * stats,
                                        GstPinnedContext * context,
                                        cudaEvent_t * start,
                                        cudaEvent_t * end);

/* @recorded: the events went on the stream, around the work of @frames */
G_GNUC_INTERNAL
void     gst_pinned_stats_timer_end    (GstPinnedStats * stats,
                                        gboolean recorded,
                                        guint frames);

/* `application/x-pinned-stats`, with @pageable's gauges if not NULL */
G_GNUC_INTERNAL
GstStructure * gst_pinned_stats_to_structure (GstPinnedStats * stats,
                                              GstPinnedContext * context,
                                              GstPinnedPageable * pageable);

/* The `stats` property of GstPinnedBaseTransform, with its documentation */
G_GNUC_INTERNAL
GParamSpec *   gst_pinned_stats_param_spec   (void);

G_END_DECLS
