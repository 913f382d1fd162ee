/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A base transform's copies of frames (GstPinnedCopier): counted in its
 * statistics, timed every Nth frame, alone or through the batch queue,
 * whose outputs it pushes in order. The base class owns one, with the
 * element's context, stream and input info; the copier never calls the
 * class (gstpinnedbasetransform.c), whose methods call it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedcopier-private.h"
#include "element/gstpinnederror-private.h"
#include "sync/gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedtimeline.h"

/* The copier logs as its element's class, "pinnedbasetransform". */
#define GST_CAT_DEFAULT gst_pinned_base_transform_debug

void
gst_pinned_copier_init (GstPinnedCopier * copier, GstBaseTransform * element,
    GstPinnedBatchQueuePush push)
{
  copier->element = element;
  copier->batch = gst_pinned_batch_queue_new (element, push);
  gst_pinned_stats_init (&copier->stats);
  gst_video_info_init (&copier->in_info);
}

gboolean
gst_pinned_copier_open (GstPinnedCopier * copier, gboolean shared,
    GError ** error)
{
  copier->stream = shared ?
      gst_pinned_stream_get_shared (copier->context, error) :
      gst_pinned_stream_new (copier->context, error);
  if (copier->stream == NULL)
    return FALSE;

  gst_pinned_stats_timer_open (&copier->stats, copier->context);
  return TRUE;
}

void
gst_pinned_copier_stop (GstPinnedCopier * copier)
{
  /* The batch timer first: a batch it flushes is timed with the events
   * closed below (valgrind saw one read after they were freed). */
  gst_pinned_batch_queue_stop_timer (copier->batch);
  gst_pinned_batch_queue_drop (copier->batch);
  /* Counted so far: the statistics keep it until the next start. */
  gst_pinned_stats_timer_read (&copier->stats, copier->context);
  gst_pinned_stats_timer_close (&copier->stats, copier->context);
  GST_OBJECT_LOCK (copier->element);
  gst_clear_object (&copier->pageable);
  GST_OBJECT_UNLOCK (copier->element);

  /* Work still queued runs on: every memory it touches waits for its
   * fences before it is freed. */
  gst_clear_pinned_stream (&copier->stream);
  gst_pinned_timeline_flush ();
  gst_clear_object (&copier->context);
  gst_video_info_init (&copier->in_info);
}

void
gst_pinned_copier_clear (GstPinnedCopier * copier)
{
  gst_pinned_batch_queue_free (copier->batch);
  gst_pinned_stats_timer_close (&copier->stats, copier->context);
  gst_clear_object (&copier->pageable);
  gst_clear_pinned_stream (&copier->stream);
  gst_clear_object (&copier->context);
  gst_pinned_stats_clear (&copier->stats);
}

gboolean
gst_pinned_copier_timer_begin (GstPinnedCopier * copier, cudaEvent_t * start,
    cudaEvent_t * end)
{
  return gst_pinned_stats_timer_begin (&copier->stats, copier->context, start,
      end);
}

void
gst_pinned_copier_timer_end (GstPinnedCopier * copier, gboolean recorded)
{
  gst_pinned_stats_timer_end (&copier->stats, recorded, 1);
}

static void
set_pageable (GstPinnedCopier * copier, GstPinnedPageable * pageable)
{
  GST_OBJECT_LOCK (copier->element);
  gst_object_replace ((GstObject **) & copier->pageable,
      (GstObject *) pageable);
  GST_OBJECT_UNLOCK (copier->element);
}

gboolean
gst_pinned_copier_copy (GstPinnedCopier * copier, GstBuffer * src,
    GstBuffer * dst, GstPinnedPageable * pageable, gboolean timed,
    GError ** error)
{
  GstPinnedTransferReport report = { NULL, };
  gboolean ok;

  if (copier->stream == NULL) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the element has no device yet");
    return FALSE;
  }
  if (pageable != copier->pageable)
    set_pageable (copier, pageable);

  timed = timed && gst_pinned_copier_timer_begin (copier, &report.start,
      &report.end);
  ok = gst_pinned_transfer_video_frame_report (copier->stream, &copier->in_info,
      src, dst, pageable, &report, error);
  gst_pinned_copier_timer_end (copier, timed && ok);
  if (ok)
    gst_pinned_stats_add_copy (&copier->stats, &report);

  return ok;
}

gboolean
gst_pinned_copier_flush (GstPinnedCopier * copier, GError ** error)
{
  return gst_pinned_batch_queue_flush (copier->batch, copier->stream,
      &copier->stats, copier->context, error);
}

/* Before a serialized event or query goes on: every frame before it is
 * pushed. */
GstFlowReturn
gst_pinned_copier_push (GstPinnedCopier * copier)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstBuffer *buf;

  if (!gst_pinned_copier_flush (copier, &error)) {
    gst_pinned_error_post_frame (GST_ELEMENT (copier->element), copier->stream,
        copier->context, &error, "Could not copy a batch of frames");
    return GST_FLOW_ERROR;
  }
  while ((buf = gst_pinned_batch_queue_pop_ready (copier->batch))) {
    GST_PINNED_STAT_ADD (copier->stats.buffers, 1);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (copier->element), buf);
    else
      gst_buffer_unref (buf);
  }
  return ret;
}

gboolean
gst_pinned_copier_copy_output (GstPinnedCopier * copier, GstBuffer * src,
    GstBuffer * outbuf, GstPinnedPageable * pageable, GError ** error)
{
  gboolean added = FALSE;
  guint64 bytes = 0;

  if (!gst_pinned_batch_queue_add (copier->batch, copier->stream,
          &copier->in_info, src, outbuf, &added, &bytes, error))
    return FALSE;
  if (added) {
    GST_PINNED_STAT_ADD (copier->stats.copies, 1);
    GST_PINNED_STAT_ADD (copier->stats.bytes, bytes);
    return TRUE;
  }
  /* In order: the batch's copies before this frame's (a frame in another
   * layout, or in memory that is not ours, such as pageable input). */
  if (!gst_pinned_copier_flush (copier, error))
    return FALSE;

  return gst_pinned_copier_copy (copier, src, outbuf, pageable, TRUE, error);
}

GstStructure *
gst_pinned_copier_get_stats (GstPinnedCopier * copier)
{
  GstPinnedPageable *pageable = NULL;
  GstStructure *s;

  GST_OBJECT_LOCK (copier->element);
  if (copier->pageable)
    pageable = gst_object_ref (copier->pageable);
  GST_OBJECT_UNLOCK (copier->element);
  s = gst_pinned_stats_to_structure (&copier->stats, copier->context, pageable);
  gst_clear_object (&pageable);

  return s;
}

/* Every buffer, and the host waits of the streaming thread while it made
 * it (a pool whose buffers' copies still run, a map): the fences count
 * them per thread. */
GstFlowReturn
gst_pinned_copier_generate_output (GstPinnedCopier * copier,
    GstBuffer ** outbuf)
{
  GstBaseTransform *trans = copier->element;
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstPinnedThreadWaits waits;

  /* The base class asks again after each push: a flushed batch's outputs
   * go one a call. */
  if ((*outbuf = gst_pinned_batch_queue_pop_ready (copier->batch))) {
    GST_PINNED_STAT_ADD (copier->stats.buffers, 1);
    return GST_FLOW_OK;
  }

  gst_pinned_fence_wait_get_thread_waits (&waits);
  /* GstBaseTransform's, the parent class's */
  ret = GST_BASE_TRANSFORM_CLASS (g_type_class_peek
      (GST_TYPE_BASE_TRANSFORM))->generate_output (trans, outbuf);
  gst_pinned_stats_add_waits (&copier->stats, &waits);

  /* A batched output waits for its batch, whose last frame flushes it. */
  if (gst_pinned_batch_queue_hold (copier->batch,
          ret == GST_FLOW_OK ? outbuf : NULL)
      && !gst_pinned_copier_flush (copier, &error)) {
    gst_pinned_error_post_frame (GST_ELEMENT (trans), copier->stream,
        copier->context, &error, "Could not copy a batch of frames");
    ret = GST_FLOW_ERROR;
  }

  if (ret == GST_FLOW_OK && *outbuf == NULL)
    *outbuf = gst_pinned_batch_queue_pop_ready (copier->batch);
  if (ret == GST_FLOW_OK && *outbuf != NULL)
    GST_PINNED_STAT_ADD (copier->stats.buffers, 1);

  return ret;
}

/* Whether the sink pad is being deactivated: its pre-activation sets
 * FLUSHING under the pad's lock before GstBaseTransform waits for the
 * pad's stream lock and calls stop(). */
static gboolean
sink_flushing (GstBaseTransform * trans)
{
  GstPad *pad = GST_BASE_TRANSFORM_SINK_PAD (trans);
  gboolean flushing;

  GST_OBJECT_LOCK (pad);
  flushing = GST_PAD_IS_FLUSHING (pad);
  GST_OBJECT_UNLOCK (pad);
  return flushing;
}

void
gst_pinned_copier_before_query (GstPinnedCopier * copier,
    GstPadDirection direction, GstQuery * query)
{
  /* Upstream's serialized queries (drain, allocation) come after the
   * frames it sent. GstPad holds the stream lock for such a query but,
   * unlike an event, sends it on a flushing pad too: one that comes while
   * the element stops would flush the batch that stop() drops, with the
   * stream it frees. Not then (the frames are dropped anyway); before the
   * pad flushes, stop() waits for the stream lock. */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query) &&
      !sink_flushing (copier->element) &&
      gst_pinned_copier_push (copier) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (copier->element, "pushing the batch before %s failed",
        GST_QUERY_TYPE_NAME (query));
}

void
gst_pinned_copier_before_event (GstPinnedCopier * copier, GstEvent * event)
{
  /* A batch's frames go before the events that follow them, and not at
   * all after a flush. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    gst_pinned_batch_queue_drop (copier->batch);
  else if (GST_EVENT_IS_SERIALIZED (event)
      && gst_pinned_copier_push (copier) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (copier->element, "pushing the batch before %s failed",
        GST_EVENT_TYPE_NAME (event));
}

void
gst_pinned_copier_before_caps (GstPinnedCopier * copier)
{
  /* A renegotiation that downstream asked for (RECONFIGURE) comes here
   * before the next frame, not after a serialized event: the frames of a
   * partial batch go first, under the caps they were made for. */
  if (gst_pinned_copier_push (copier) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (copier->element,
        "pushing the batch before new caps failed");
}
