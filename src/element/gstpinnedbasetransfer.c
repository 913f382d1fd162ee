/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A base transform's copies of frames: counted in its statistics, timed
 * every Nth frame, alone or through the batch queue, whose outputs it
 * pushes in order. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbasetransform-private.h"
#include "sync/gstpinnedfence-private.h"

#define GET_PRIV(self) \
    gst_pinned_base_transform_get_priv ((GstPinnedBaseTransform *) (self))

gboolean
gst_pinned_base_transform_timer_begin (GstPinnedBaseTransform * self,
    cudaEvent_t * start, cudaEvent_t * end)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  return gst_pinned_stats_timer_begin (&priv->stats, priv->context, start, end);
}

void
gst_pinned_base_transform_timer_end (GstPinnedBaseTransform * self,
    gboolean recorded)
{
  gst_pinned_stats_timer_end (&GET_PRIV (self)->stats, recorded, 1);
}

static void
set_pageable (GstPinnedBaseTransform * self, GstPinnedPageable * pageable)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  gst_object_replace ((GstObject **) & priv->pageable, (GstObject *) pageable);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
transfer (GstPinnedBaseTransform * self, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, gboolean timed, GError ** error)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPinnedTransferReport report = { NULL, };
  gboolean ok;

  if (priv->stream == NULL) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the element has no device yet");
    return FALSE;
  }
  if (pageable != priv->pageable)
    set_pageable (self, pageable);

  timed = timed && gst_pinned_base_transform_timer_begin (self, &report.start,
      &report.end);
  ok = gst_pinned_transfer_video_frame_report (priv->stream, &priv->in_info,
      src, dst, pageable, &report, error);
  gst_pinned_base_transform_timer_end (self, timed && ok);
  if (ok)
    gst_pinned_stats_add_copy (&priv->stats, &report);

  return ok;
}

/**
 * gst_pinned_base_transform_transfer:
 * @self: a #GstPinnedBaseTransform with an open device
 * @src: the frame to copy, in the negotiated input format
 * @dst: the buffer to copy it into
 * @pageable: (nullable): how to copy host memory that is not gst-pinned
 *   memory (see gst_pinned_transfer_video_frame_full())
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_transfer_video_frame_full() on the element's stream with its
 * input video info, counted in the element's `stats`: a copy, its bytes,
 * host memory that was not gst-pinned memory (by the way it went), and
 * for every Nth frame the copies' time on the GPU.
 *
 * Returns: %TRUE when the copies were enqueued
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_transfer (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * dst, GstPinnedPageable * pageable,
    GError ** error)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (dst), FALSE);

  return transfer (self, src, dst, pageable, TRUE, error);
}

gboolean
gst_pinned_base_transform_copy_frame (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * dst, GError ** error)
{
  return transfer (self, src, dst, NULL, FALSE, error);
}

gboolean
gst_pinned_base_transform_flush_batch (GstPinnedBaseTransform * self,
    GError ** error)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  return gst_pinned_batch_queue_flush (priv->batch, priv->stream, &priv->stats,
      priv->context, error);
}

/* Before a serialized event or query goes on: every frame before it is
 * pushed. */
GstFlowReturn
gst_pinned_base_transform_push_batch (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstBuffer *buf;

  if (!gst_pinned_base_transform_flush_batch (self, &error)) {
    gst_pinned_base_transform_post_frame_error (self, &error,
        "Could not copy a batch of frames");
    return GST_FLOW_ERROR;
  }
  while ((buf = gst_pinned_batch_queue_pop_ready (priv->batch))) {
    GST_PINNED_STAT_ADD (priv->stats.buffers, 1);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
    else
      gst_buffer_unref (buf);
  }
  return ret;
}

/**
 * gst_pinned_base_transform_transfer_output:
 * @self: a #GstPinnedBaseTransform with an open device
 * @src: the frame to copy, in the negotiated input format
 * @outbuf: the output buffer of the frame being transformed, to copy into
 * @pageable: (nullable): as for gst_pinned_base_transform_transfer()
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_base_transform_transfer() into the buffer that the element's
 * transform pushes. Where the element batches frames
 * (#GstPinnedCopyTransform:batch) and both buffers are gst-pinned memory
 * in the same layout, the copy is only noted: the base class enqueues the
 * copies of a batch in one call, with one fence, and pushes its outputs
 * then, in order; it pushes a partial batch before any serialized event
 * or query (end of stream, caps, drain, allocation) and drops it on a
 * flush. Other frames are copied at once, after the batch before them.
 *
 * Returns: %TRUE when the copies were enqueued or noted
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_transfer_output (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * outbuf, GstPinnedPageable * pageable,
    GError ** error)
{
  GstPinnedBaseTransformPrivate *priv;
  gboolean added = FALSE;
  guint64 bytes = 0;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  priv = GET_PRIV (self);
  if (!gst_pinned_batch_queue_add (priv->batch, priv->stream, &priv->in_info,
          src, outbuf, &added, &bytes, error))
    return FALSE;
  if (added) {
    GST_PINNED_STAT_ADD (priv->stats.copies, 1);
    GST_PINNED_STAT_ADD (priv->stats.bytes, bytes);
    return TRUE;
  }
  /* In order: the batch's copies before this frame's (a frame in another
   * layout, or in memory that is not ours, such as pageable input). */
  if (!gst_pinned_base_transform_flush_batch (self, error))
    return FALSE;

  return transfer (self, src, outbuf, pageable, TRUE, error);
}

/**
 * gst_pinned_base_transform_get_batch:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: how many frames the element copies together, as chosen when
 *   the caps were set (1: each alone)
 *
 * Since: 0.1
 */
guint
gst_pinned_base_transform_get_batch (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), 1);

  return MAX (gst_pinned_batch_queue_get_frames (GET_PRIV (self)->batch), 1);
}

void
gst_pinned_base_transform_set_batch (GstPinnedBaseTransform * self,
    guint frames)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  guint64 timeout;

  GST_OBJECT_LOCK (self);
  timeout = priv->batch_timeout_us;
  GST_OBJECT_UNLOCK (self);
  gst_pinned_batch_queue_set_frames (priv->batch, frames, timeout);
}

GstStructure *
gst_pinned_base_transform_get_stats (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPinnedPageable *pageable = NULL;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  if (priv->pageable)
    pageable = gst_object_ref (priv->pageable);
  GST_OBJECT_UNLOCK (self);
  s = gst_pinned_stats_to_structure (&priv->stats, priv->context, pageable);
  gst_clear_object (&pageable);

  return s;
}

/* Every buffer, and the host waits of the streaming thread while it made
 * it (a pool whose buffers' copies still run, a map): the fences count
 * them per thread. */
GstFlowReturn
gst_pinned_base_transform_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstPinnedThreadWaits waits;

  /* The base class asks again after each push: a flushed batch's outputs
   * go one a call. */
  if ((*outbuf = gst_pinned_batch_queue_pop_ready (priv->batch))) {
    GST_PINNED_STAT_ADD (priv->stats.buffers, 1);
    return GST_FLOW_OK;
  }

  gst_pinned_fence_wait_get_thread_waits (&waits);
  /* GstBaseTransform's, the parent class's */
  ret = GST_BASE_TRANSFORM_CLASS (g_type_class_peek
      (GST_TYPE_BASE_TRANSFORM))->generate_output (trans, outbuf);
  gst_pinned_stats_add_waits (&priv->stats, &waits);

  /* A batched output waits for its batch, whose last frame flushes it. */
  if (gst_pinned_batch_queue_hold (priv->batch,
          ret == GST_FLOW_OK ? outbuf : NULL)
      && !gst_pinned_base_transform_flush_batch (self, &error)) {
    gst_pinned_base_transform_post_frame_error (self, &error,
        "Could not copy a batch of frames");
    ret = GST_FLOW_ERROR;
  }

  if (ret == GST_FLOW_OK && *outbuf == NULL)
    *outbuf = gst_pinned_batch_queue_pop_ready (priv->batch);
  if (ret == GST_FLOW_OK && *outbuf != NULL)
    GST_PINNED_STAT_ADD (priv->stats.buffers, 1);

  return ret;
}
