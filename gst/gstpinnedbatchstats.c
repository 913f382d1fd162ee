/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's statistics, its `stats` property: the library's counters
 * (GstPinnedStats, as the other elements have), counted per batch, and
 * the GPU time of every Nth batch's kernel, from the library's timing
 * events recorded on the element's stream and never waited for. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/gstpinnedcuda.h>

#include "gstpinnedbatchstats.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_batch_stats_debug);
#define GST_CAT_DEFAULT gst_pinned_batch_stats_debug

gboolean
gst_pinned_batch_stats_time_begin (GstPinnedStats * stats,
    GstPinnedBatchDevice * device, cudaEvent_t * end)
{
  cudaEvent_t start;

  /* After the stream's waits for the frames' writers, as a filter's */
  return gst_pinned_stats_timer_begin (stats, device->context, &start, end) &&
      gst_pinned_cuda_result (cudaEventRecord (start,
          gst_pinned_stream_get_cuda_stream (device->stream)), NULL);
}

void
gst_pinned_batch_stats_time_end (GstPinnedStats * stats,
    GstPinnedBatchDevice * device, gboolean timed, cudaEvent_t end,
    gboolean launched, guint frames)
{
  timed = timed && launched && gst_pinned_cuda_result (cudaEventRecord (end,
          gst_pinned_stream_get_cuda_stream (device->stream)), NULL);
  gst_pinned_stats_timer_end (stats, timed, frames);
}

void
gst_pinned_batch_stats_add_batch (GstPinnedStats * stats,
    const GstPinnedBatchFrame * frames, guint n, gboolean timeout)
{
  guint64 taken = 0, copies = 0, bytes = 0;
  guint i;

  for (i = 0; i < n; i++) {
    if (frames[i].buffer == NULL)
      continue;
    taken++;
    /* system memory in: its frame copied into device memory */
    if (frames[i].pad->kind == GST_PINNED_BATCH_INPUT_SYSTEM) {
      copies++;
      bytes += GST_VIDEO_INFO_SIZE (&frames[i].pad->info);
    }
  }
  GST_PINNED_STAT_ADD (stats->buffers, 1);
  GST_PINNED_STAT_ADD (stats->frames, taken);
  if (copies > 0) {
    GST_PINNED_STAT_ADD (stats->copies, copies);
    GST_PINNED_STAT_ADD (stats->bytes, bytes);
  }
  if (taken < n) {
    GST_PINNED_STAT_ADD (stats->empty_slots, n - taken);
    if (timeout)
      GST_PINNED_STAT_ADD (stats->timeout_batches, 1);
  }
}

/**
 * GstPinnedBatch:stats:
 *
 * What the element did since it last started (it keeps the values after
 * it stops), as a #GstStructure named `application/x-pinned-stats`, in
 * the fields of the other elements' `stats` where they apply:
 *
 * * `buffers` (#guint64): batches pushed
 * * `frames` (#guint64): frames in them
 * * `empty-slots` (#guint64): their slots without a frame (a stream that
 *   had ended, or had nothing by the timeout)
 * * `timeout-batches` (#guint64): batches that went out partial because
 *   `timeout` had passed
 * * `copies` (#guint64), `bytes` (#guint64): frames of system memory
 *   copied into device memory, and their bytes
 * * `gpu-samples` (#guint64): frames whose batch's kernel was timed: the
 *   first batch, then every 16th (`GST_PINNED_GPU_TIMING` sets N; 0
 *   times none)
 * * `gpu-time-sampled` (#guint64): those kernels' GPU time in all, in ns,
 *   after the stream's waits for the frames' writers
 * * `gpu-time-per-frame` (#guint64): the mean a frame, in ns (0 before the
 *   first sample is read)
 * * `host-waits` (#guint64), `host-wait-time` (#guint64, ns): how often,
 *   and how long in all, the element's streaming threads waited on the
 *   host for GPU work while it worked on them: the aggregator's thread
 *   making batches, and the sink pads' threads in the element's events
 *   and allocation (otherwise they only queue frames)
 * * `host-wait-questions` (#guint64), `turns` (#guint64): as for the
 *   other elements
 *
 * Counters are added to with atomic operations; no lock is taken per
 * batch. The property is notified at the end of the stream.
 *
 * Since: 0.2
 */
GParamSpec *
gst_pinned_batch_stats_param_spec (void)
{
  GST_DEBUG_CATEGORY_INIT (gst_pinned_batch_stats_debug, "pinnedbatch", 0,
      "many streams into one tensor on the GPU");
  return g_param_spec_boxed ("stats", "Statistics",
      "What the element did since it started: batches, frames, empty slots, "
      "GPU time per frame, host waits (see the documentation)",
      gst_structure_get_type (), G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}
