/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A batch's frames: when the oldest waiting frame makes a live batch
 * late, which pad's frame goes into which slot, each frame on the GPU as
 * a slot, the batch's meta, and the frames let go (nvcodec's held until
 * the kernel that reads them is done). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/pinned.h>

#include "gstpinnedbatchframes.h"
#include "gstpinnedbatchkernel.h"

/* The earliest running time of the frames waiting: a live batch goes out
 * `timeout` (the latency) after it. */
GstClockTime
gst_pinned_batch_frames_next_time (GstAggregator * agg)
{
  GstClockTime next = GST_CLOCK_TIME_NONE;
  GList *l;

  GST_OBJECT_LOCK (agg);
  for (l = GST_ELEMENT (agg)->sinkpads; l; l = l->next) {
    GstAggregatorPad *pad = l->data;
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (pad);
    GstClockTime rt;

    if (buf == NULL)
      continue;
    rt = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
    gst_buffer_unref (buf);
    if (GST_CLOCK_TIME_IS_VALID (rt) && (!GST_CLOCK_TIME_IS_VALID (next) ||
            rt < next))
      next = rt;
  }
  GST_OBJECT_UNLOCK (agg);
  return next;
}

/* The frames of the next batch from @pads, into @frames (@n slots). */
GstFlowReturn
gst_pinned_batch_frames_take (GPtrArray * pads, guint n, guint * next_pad,
    GstPinnedBatchFrame * frames, guint * n_taken)
{
  gboolean all_eos = TRUE;
  guint i, n_pads = pads->len, taken = 0, start;

  /* With a slot for each pad, slot i is pad i's; else pads take turns. */
  start = n_pads <= n ? 0 : *next_pad % n_pads;
  for (i = 0; i < n_pads && taken < n; i++) {
    guint at = (start + i) % n_pads;
    GstPinnedBatchPad *pad = g_ptr_array_index (pads, at);
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (GST_AGGREGATOR_PAD (pad));
    guint slot = n_pads <= n ? at : taken;

    if (!gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad)) || buf)
      all_eos = FALSE;
    if (buf == NULL)
      continue;
    if (!pad->has_info) {
      /* its caps were refused (an error is posted): it goes no further */
      gst_buffer_unref (buf);
      gst_aggregator_pad_drop_buffer (GST_AGGREGATOR_PAD (pad));
      *n_taken = taken;
      return GST_FLOW_NOT_NEGOTIATED;
    }
    frames[slot].pad = pad;
    frames[slot].buffer = buf;
    taken++;
    *next_pad = at + 1;
  }
  /* the pads not looked at may hold frames too */
  for (; i < n_pads && all_eos; i++) {
    GstAggregatorPad *pad = g_ptr_array_index (pads, (start + i) % n_pads);

    if (!gst_aggregator_pad_is_eos (pad) || gst_aggregator_pad_has_buffer (pad))
      all_eos = FALSE;
  }

  *n_taken = taken;
  return taken == 0 && all_eos ? GST_FLOW_EOS : GST_FLOW_OK;
}

/* Each frame on the GPU as a slot, placed in the plane; empty slots. */
gboolean
gst_pinned_batch_frames_prepare (GstPinnedBatchFrame * frames,
    PinnedBatchSlot * slots, guint n, GstPinnedStream * stream,
    GstAllocator * device_allocator, gint width, gint height,
    gboolean letterbox, GError ** error)
{
  guint i;

  for (i = 0; i < n; i++) {
    if (frames[i].buffer == NULL) {
      slots[i].kind = PINNED_BATCH_KIND_EMPTY;
      continue;
    }
    if (!gst_pinned_batch_pad_prepare_frame (&frames[i], stream,
            device_allocator, &slots[i], error))
      return FALSE;
    gst_pinned_batch_kernel_place (&slots[i], width, height, letterbox);
  }
  return TRUE;
}

/* The batch's meta; each frame read by the kernel (@fence) and dropped
 * from its pad. Returns the earliest running time, the batch's. */
GstClockTime
gst_pinned_batch_frames_finish (GstPinnedBatchFrame * frames,
    const PinnedBatchSlot * slots, guint n, GstBuffer * out,
    GstPinnedFence * fence)
{
  GstPinnedBatchMeta *meta;
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  guint i;

  meta = gst_buffer_add_pinned_batch_meta (out, n);
  for (i = 0; i < n; i++) {
    GstPinnedBatchFrame *fr = &frames[i];
    GstPinnedBatchSlot *ms = &meta->slots[i];
    GstAggregatorPad *aggpad;

    if (fr->buffer == NULL)
      continue;
    aggpad = GST_AGGREGATOR_PAD (fr->pad);
    gst_pinned_buffer_add_fence (fr->gpu, fence, GST_MAP_READ);
    ms->empty = FALSE;
    ms->pad_index = fr->pad->index;
    ms->pad_name = g_intern_string (GST_PAD_NAME (fr->pad));
    ms->pts = GST_BUFFER_PTS (fr->buffer);
    ms->running_time = gst_segment_to_running_time (&aggpad->segment,
        GST_FORMAT_TIME, ms->pts);
    ms->source_width = slots[i].width;
    ms->source_height = slots[i].height;
    ms->x = slots[i].x;
    ms->y = slots[i].y;
    ms->width = slots[i].w;
    ms->height = slots[i].h;
    if (GST_CLOCK_TIME_IS_VALID (ms->running_time) &&
        (!GST_CLOCK_TIME_IS_VALID (pts) || ms->running_time < pts))
      pts = ms->running_time;
    gst_aggregator_pad_drop_buffer (aggpad);
  }
  return pts;
}

void
gst_pinned_batch_frames_release (GstPinnedBatchFrame * frames, guint n,
    GstPinnedWindow ** held)
{
  guint i;

  for (i = 0; i < n; i++) {
    gst_clear_buffer (&frames[i].buffer);
    if (frames[i].gpu == NULL)
      continue;
    /* a view holds nvcodec's frame until the kernel is done */
    if (frames[i].pad->kind == GST_PINNED_BATCH_INPUT_CUDA) {
      if (*held == NULL)
        *held = gst_pinned_window_new (NULL, 2 * n + 2);
      gst_pinned_window_push (*held, NULL, frames[i].gpu);
    } else {
      gst_buffer_unref (frames[i].gpu);
    }
  }
}

void
gst_pinned_batch_frames_drop_held (GstPinnedWindow ** held)
{
  if (*held) {
    gst_pinned_window_drain (*held);
    gst_pinned_window_stop (*held);
    gst_clear_object (held);
  }
}
