/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedfilter
 * @title: GstPinnedFilter
 * @short_description: base class of GPU filters on device memory
 *
 * A subclass adds pad templates with `memory:PinnedDevice` caps, overrides
 * GstBaseTransformClass.transform_caps() if it changes the format, and
 * implements GstPinnedFilterClass.filter() (or filter_ip()) to enqueue its
 * kernel:
 *
 * |[<!-- language="C" -->
 * static gboolean
 * my_filter_filter (GstPinnedFilter * filter, GstVideoFrame * in,
 *     GstVideoFrame * out, gpointer stream, GError ** error)
 * {
 *   my_kernel<<<grid, block, 0, (cudaStream_t) stream>>> (
 *       GST_VIDEO_FRAME_PLANE_DATA (in, 0), GST_VIDEO_FRAME_PLANE_STRIDE (in, 0),
 *       GST_VIDEO_FRAME_PLANE_DATA (out, 0), GST_VIDEO_FRAME_PLANE_STRIDE (out, 0));
 *   return gst_pinned_cuda_result (cudaGetLastError (), error);
 * }
 * ]|
 *
 * Everything else, pools, streams and fences, is the base class's.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedfilter.h"
#include "gst/pinned/gstpinnedbuffer.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_filter_debug);
#define GST_CAT_DEFAULT gst_pinned_filter_debug

typedef struct
{
  GstBufferPool *pool;
} GstPinnedFilterPrivate;

#define gst_pinned_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstPinnedFilter, gst_pinned_filter,
    GST_TYPE_PINNED_BASE_TRANSFORM, G_ADD_PRIVATE (GstPinnedFilter);
    GST_DEBUG_CATEGORY_INIT (gst_pinned_filter_debug, "pinnedfilter", 0,
        "gst-pinned GPU filter base"));

#define GET_PRIV(self) ((GstPinnedFilterPrivate *) \
    gst_pinned_filter_get_instance_private (GST_PINNED_FILTER (self)))

static void
clear_pool (GstPinnedFilter * self)
{
  GstPinnedFilterPrivate *priv = GET_PRIV (self);

  if (priv->pool) {
    gst_buffer_pool_set_active (priv->pool, FALSE);
    gst_clear_object (&priv->pool);
  }
}

static gboolean
gst_pinned_filter_stop (GstBaseTransform * trans)
{
  clear_pool (GST_PINNED_FILTER (trans));

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static gboolean
gst_pinned_filter_set_info (GstPinnedBaseTransform * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstPinnedFilterClass *klass = GST_PINNED_FILTER_GET_CLASS (base);
  gboolean same = gst_caps_is_equal (incaps, outcaps);

  if (!same && klass->filter == NULL) {
    GST_ERROR_OBJECT (base, "caps differ but the filter works in place only");
    return FALSE;
  }

  /* In place whenever the format allows and the subclass can. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (base), same &&
      klass->filter_ip != NULL);

  return TRUE;
}

static gboolean
gst_pinned_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;

  /* Frames of any layout: the kernel gets the pitch. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

static gboolean
gst_pinned_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstPinnedFilter *self = GST_PINNED_FILTER (trans);
  GstPinnedFilterPrivate *priv = GET_PRIV (self);
  GstVideoInfo info;
  GstCaps *caps;
  guint min = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  clear_pool (self);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, NULL);
  /* Output frames stay in use through the later GPU stages: enough that
   * this stream does not wait for them (as pinnedupload's device pool). */
  min = MAX (min, 2 * gst_pinned_base_transform_get_pool_size
      (GST_PINNED_BASE_TRANSFORM (self)));

  priv->pool = gst_pinned_base_transform_make_device_pool
      (GST_PINNED_BASE_TRANSFORM (self), caps, info.size, min);
  if (priv->pool == NULL)
    return FALSE;

  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, priv->pool, info.size, min, 0);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* Orders the stream after the frames' earlier users, runs the subclass,
 * publishes its work with one fence. */
static GstFlowReturn
run_filter (GstPinnedFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstPinnedFilterClass *klass = GST_PINNED_FILTER_GET_CLASS (self);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (self);
  GstPinnedStream *stream = gst_pinned_base_transform_get_stream (base);
  GstPinnedContext *context = gst_pinned_base_transform_get_context (base);
  const GstVideoInfo *in_info = gst_pinned_base_transform_get_in_info (base);
  const GstVideoInfo *out_info = gst_pinned_base_transform_get_out_info (base);
  gboolean in_place = outbuf == NULL;
  GstVideoFrame in_frame, out_frame;
  GstPinnedSpan *span;
  GError *error = NULL;
  gboolean ok;

  if (!gst_pinned_context_push (context, &error))
    goto failed;

  ok = in_place ?
      gst_pinned_buffer_sync_stream (inbuf, stream, GST_MAP_READWRITE, &error) :
      (gst_pinned_buffer_sync_stream (inbuf, stream, GST_MAP_READ, &error) &&
      gst_pinned_buffer_sync_stream (outbuf, stream, GST_MAP_WRITE, &error));
  if (!ok) {
    gst_pinned_context_pop (context);
    goto failed;
  }

  if (!gst_video_frame_map (&in_frame, in_info, inbuf, GST_MAP_PINNED_GPU |
          (in_place ? GST_MAP_READWRITE : GST_MAP_READ))) {
    gst_pinned_context_pop (context);
    goto not_mappable;
  }
  if (!in_place && !gst_video_frame_map (&out_frame, out_info, outbuf,
          GST_MAP_PINNED_GPU | GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in_frame);
    gst_pinned_context_pop (context);
    goto not_mappable;
  }

  span = gst_pinned_base_transform_begin_span (base, "kernel");
  if (in_place)
    ok = klass->filter_ip (self, &in_frame,
        gst_pinned_stream_get_handle (stream), &error);
  else
    ok = klass->filter (self, &in_frame, &out_frame,
        gst_pinned_stream_get_handle (stream), &error);
  gst_pinned_timeline_end (span);

  if (!in_place)
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);

  if (ok) {
    GstPinnedFence *fence = gst_pinned_stream_record_fence (stream, &error);

    ok = fence != NULL;
    if (ok) {
      if (in_place) {
        gst_pinned_buffer_add_fence (inbuf, fence, GST_MAP_WRITE);
      } else {
        gst_pinned_buffer_add_fence (inbuf, fence, GST_MAP_READ);
        gst_pinned_buffer_add_fence (outbuf, fence, GST_MAP_WRITE);
      }
      gst_pinned_fence_unref (fence);
    }
  }
  gst_pinned_context_pop (context);

  if (!ok)
    goto failed;
  return GST_FLOW_OK;

failed:
  GST_PINNED_ELEMENT_ERROR (self, error, "GPU filter failed");
  g_clear_error (&error);
  return GST_FLOW_ERROR;

not_mappable:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("GPU filter failed"),
      ("a frame is not in gst-pinned memory"));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_pinned_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return run_filter (GST_PINNED_FILTER (trans), inbuf, outbuf);
}

static GstFlowReturn
gst_pinned_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  return run_filter (GST_PINNED_FILTER (trans), buf, NULL);
}

static void
gst_pinned_filter_finalize (GObject * object)
{
  clear_pool (GST_PINNED_FILTER (object));

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_filter_class_init (GstPinnedFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstPinnedBaseTransformClass *base_class =
      GST_PINNED_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_pinned_filter_finalize;

  /* A filter with equal caps still has its kernel to run. */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_filter_stop);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_filter_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_pinned_filter_transform);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_pinned_filter_transform_ip);

  base_class->set_info = GST_DEBUG_FUNCPTR (gst_pinned_filter_set_info);
}

static void
gst_pinned_filter_init (GstPinnedFilter * self)
{
}
