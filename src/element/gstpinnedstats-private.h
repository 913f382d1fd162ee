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
  guint interval;               /* every Nth frame is timed; 0: none */
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
  /* a batcher's (pinnedbatch): frames in its batches, batches that went
   * out on timeout with empty slots, empty slots */
  guint64 frames;
  guint64 timeout_batches;
  guint64 empty_slots;
  GstPinnedGpuTimer timer;
} GstPinnedStats;

#define GST_PINNED_STAT_ADD(field, n) \
    __atomic_fetch_add (&(field), (n), __ATOMIC_RELAXED)

/* The functions marked GST_PINNED_API are exported for the plugin's
 * pinnedbatch, a GstAggregator outside the library's base classes; this
 * header is not installed and they are no public API. */

GST_PINNED_API
void     gst_pinned_stats_init         (GstPinnedStats * stats);

GST_PINNED_API
void     gst_pinned_stats_clear        (GstPinnedStats * stats);

/* Zeroes the counters (at start) */
GST_PINNED_API
void     gst_pinned_stats_reset        (GstPinnedStats * stats);

/* Counts an enqueued copy: its bytes, and its pageable memories by path */
G_GNUC_INTERNAL
void     gst_pinned_stats_add_copy     (GstPinnedStats * stats,
                                        const GstPinnedTransferReport * report);

/* The calling thread's host waits so far, for gst_pinned_stats_add_waits() */
GST_PINNED_API
void     gst_pinned_stats_get_thread_waits (GstPinnedThreadWaits * waits);

/* Counts the host waits and turns of the streaming thread since @before */
GST_PINNED_API
void     gst_pinned_stats_add_waits    (GstPinnedStats * stats,
                                        const GstPinnedThreadWaits * before);

/* Makes the timing events, once with the stream; without them nothing is
 * timed. */
GST_PINNED_API
void     gst_pinned_stats_timer_open   (GstPinnedStats * stats,
                                        GstPinnedContext * context);

GST_PINNED_API
void     gst_pinned_stats_timer_close  (GstPinnedStats * stats,
                                        GstPinnedContext * context);

/* Adds the pending timing if its work is done, asking first (the
 * statistics, stop) */
GST_PINNED_API
void     gst_pinned_stats_timer_read   (GstPinnedStats * stats,
                                        GstPinnedContext * context);

/* Whether to time this frame's work: then record @start before it and
 * @end after, and call gst_pinned_stats_timer_end(). */
GST_PINNED_API
gboolean gst_pinned_stats_timer_begin  (GstPinnedStats * stats,
                                        GstPinnedContext * context,
                                        cudaEvent_t * start,
                                        cudaEvent_t * end);

/* @recorded: the events went on the stream, around the work of @frames */
GST_PINNED_API
void     gst_pinned_stats_timer_end    (GstPinnedStats * stats,
                                        gboolean recorded,
                                        guint frames);

/* `application/x-pinned-stats`, with @pageable's gauges if not NULL */
G_GNUC_INTERNAL
GstStructure * gst_pinned_stats_to_structure (GstPinnedStats * stats,
                                              GstPinnedContext * context,
                                              GstPinnedPageable * pageable);

/* `application/x-pinned-stats` of a batcher: its frames, batches, empty
 * slots, the GPU time and host waits, in the fields of the others */
GST_PINNED_API
GstStructure * gst_pinned_stats_to_batch_structure (GstPinnedStats * stats,
                                                    GstPinnedContext * context);

/* The `stats` property of GstPinnedBaseTransform, with its documentation */
G_GNUC_INTERNAL
GParamSpec *   gst_pinned_stats_param_spec   (void);

G_END_DECLS
