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
 *
 * In builds with CUDA interop, every filter also takes
 * `video/x-raw(memory:CUDAMemory)` from GStreamer's nvcodec elements (a
 * decoder's output) on its sink pad: the base class adds it to the sink
 * pad template (gst_pinned_filter_class_add_sink_pad_template() does so at
 * class_init, so that the registry shows it; for a filter that adds its
 * template itself, the base class does at its first instance), and shows
 * the subclass's transform_caps() device memory only. A subclass sees a
 * view of the CUDA frame in device memory, in the CUDA memory's layout;
 * an in-place filter runs on a copy of it in the output pool. The output
 * is `memory:PinnedDevice`.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbasetransform-private.h"
#include "sync/gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedfilter.h"
#include "gst/pinned/gstpinnedbuffer.h"
#include "gst/pinned/gstpinnedtransfer.h"
#include "gst/pinned/gstpinnedwindow.h"
#include "gst/pinned/gstpinneddevicememory.h"
#ifdef HAVE_CUDA_INTEROP
#include "gst/pinned/gstpinnedcudamemory.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_filter_debug);
#define GST_CAT_DEFAULT gst_pinned_filter_debug

typedef struct
{
  GstBufferPool *pool;
  /* CUDA memory in: views of the input, held until the kernels that read
   * them are done, and the allocator of the views. */
  GstPinnedWindow *held;
  GstAllocator *view_allocator;
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

static void
clear_views (GstPinnedFilter * self)
{
  GstPinnedFilterPrivate *priv = GET_PRIV (self);

  if (priv->held) {
    gst_pinned_window_drain (priv->held);
    gst_pinned_window_stop (priv->held);
    gst_clear_object (&priv->held);
  }
  gst_clear_object (&priv->view_allocator);
}

static gboolean
gst_pinned_filter_stop (GstBaseTransform * trans)
{
  clear_views (GST_PINNED_FILTER (trans));
  clear_pool (GST_PINNED_FILTER (trans));

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

#ifdef HAVE_CUDA_INTEROP
/* @caps with memory:CUDAMemory turned into memory:PinnedDevice: what the
 * subclass works on, a view of the CUDA frame. */
static GstCaps *
cuda_to_device (GstCaps * caps)
{
  GstCaps *ret = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (ret); i++) {
    GstCapsFeatures *f = gst_caps_get_features (ret, i);

    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      gst_caps_set_features (ret, i,
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, NULL));
  }

  return gst_caps_simplify (ret);
}

/* The CUDA memory counterpart of @caps's device memory structures. */
static GstCaps *
device_to_cuda (GstCaps * caps)
{
  GstCaps *device = gst_caps_new_empty ();
  GstCaps *ret;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE))
      gst_caps_append_structure_full (device,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (f));
  }
  ret = gst_pinned_cuda_caps (device);
  gst_caps_unref (device);

  return ret;
}

typedef GstCaps *(*TransformCapsFunc) (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

static GQuark transform_caps_quark;
static GQuark cuda_done_quark;
static GMutex class_lock;

/* The subclass's own transform_caps(), which cuda_transform_caps() took
 * the place of. */
static TransformCapsFunc
subclass_transform_caps (GType type)
{
  TransformCapsFunc func;

  for (; type != GST_TYPE_PINNED_FILTER && type != 0;
      type = g_type_parent (type)) {
    func = g_type_get_qdata (type, transform_caps_quark);
    if (func)
      return func;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps;
}

static GstCaps *
cuda_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  TransformCapsFunc func = subclass_transform_caps (G_OBJECT_TYPE (trans));
  GstCaps *device, *ret, *tmp;

  if (direction == GST_PAD_SINK) {
    device = cuda_to_device (caps);
    ret = func (trans, direction, device, filter);
    gst_caps_unref (device);
    return ret;
  }

  /* Device memory in, as the subclass says; CUDA memory of the same. */
  ret = func (trans, direction, caps, NULL);
  ret = gst_caps_merge (ret, device_to_cuda (ret));
  if (filter) {
    tmp = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

static GstPadTemplate *
sink_template_with_cuda (GstCaps * caps)
{
  GstCaps *all = gst_caps_merge (gst_caps_ref (caps), device_to_cuda (caps));
  GstPadTemplate *templ;

  templ = gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, all);
  gst_caps_unref (all);
  return templ;
}

/* Once per class, before its first instance: a subclass's class_init ran
 * after the base's, so only now are its template and transform_caps() in
 * place. */
static void
accept_cuda_memory (GstPinnedFilterClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);
  GstPadTemplate *templ;
  GstCaps *caps;

  g_mutex_lock (&class_lock);
  if (!g_type_get_qdata (type, cuda_done_quark)) {
    g_type_set_qdata (type, cuda_done_quark, GINT_TO_POINTER (1));

    if (trans_class->transform_caps != cuda_transform_caps) {
      g_type_set_qdata (type, transform_caps_quark,
          trans_class->transform_caps);
      trans_class->transform_caps = cuda_transform_caps;
    }

    templ = gst_element_class_get_pad_template (element_class, "sink");
    caps = templ ? gst_pad_template_get_caps (templ) : NULL;
    if (caps && !gst_pinned_caps_is_cuda (caps)) {
      GST_INFO ("%s takes CUDA memory too", g_type_name (type));
      /* Taken out, not replaced: GStreamer before 1.27.1 leaks a template
       * that gst_element_class_add_pad_template() replaces. */
      element_class->padtemplates =
          g_list_remove (element_class->padtemplates, templ);
      element_class->numpadtemplates--;
      gst_object_unref (templ);
      gst_element_class_add_pad_template (element_class,
          sink_template_with_cuda (caps));
    }
    gst_clear_caps (&caps);
  }
  g_mutex_unlock (&class_lock);
}

static GObject *
gst_pinned_filter_constructor (GType type, guint n_params,
    GObjectConstructParam * params)
{
  accept_cuda_memory (g_type_class_peek (type));

  return G_OBJECT_CLASS (parent_class)->constructor (type, n_params, params);
}
#endif

/**
 * gst_pinned_filter_class_add_sink_pad_template:
 * @klass: a #GstPinnedFilterClass, in class_init
 * @caps: (transfer full): the `memory:PinnedDevice` caps the filter takes
 *
 * Adds the "sink" pad template: @caps and, in builds with CUDA interop, the
 * same with `memory:CUDAMemory` (in the formats #GstCudaMemory can hold),
 * so that the registry, and gst-inspect-1.0, show that the filter takes
 * nvcodec's CUDA memory.
 *
 * Since: 0.1
 */
void
gst_pinned_filter_class_add_sink_pad_template (GstPinnedFilterClass * klass,
    GstCaps * caps)
{
  GstPadTemplate *templ;

  g_return_if_fail (GST_IS_PINNED_FILTER_CLASS (klass));
  g_return_if_fail (GST_IS_CAPS (caps));

#ifdef HAVE_CUDA_INTEROP
  templ = sink_template_with_cuda (caps);
#else
  templ = gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps);
#endif
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass), templ);
  gst_caps_unref (caps);
}

static gboolean
gst_pinned_filter_set_info (GstPinnedBaseTransform * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstPinnedFilterClass *klass = GST_PINNED_FILTER_GET_CLASS (base);
  gboolean cuda_in = FALSE, same;

#ifdef HAVE_CUDA_INTEROP
  cuda_in = gst_pinned_caps_is_cuda (incaps);
  if (cuda_in) {
    GstCaps *device = cuda_to_device (incaps);

    same = gst_caps_is_equal (device, outcaps);
    gst_caps_unref (device);
  } else
#endif
    same = gst_caps_is_equal (incaps, outcaps);

  if (!same && klass->filter == NULL) {
    GST_ERROR_OBJECT (base, "caps differ but the filter works in place only");
    return FALSE;
  }

  /* In place whenever the format allows and the subclass can; never on
   * nvcodec's CUDA memory, which goes back to its pool unchanged. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (base), same &&
      klass->filter_ip != NULL && !cuda_in);

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

/* Each plane of @buffer in one gst-pinned memory, whose GPU address the
 * kernel gets: a plane across memories would be mapped in its first only
 * (GstVideoMeta's map), and other memory (system, pageable) given as a CPU
 * pointer. */
static gboolean
check_gpu_planes (GstBuffer * buffer, const GstVideoInfo * info,
    const gchar * what, GError ** error)
{
  gint offset[GST_VIDEO_MAX_PLANES], stride[GST_VIDEO_MAX_PLANES];
  guint p, idx, length;
  gsize skip;

  if (!gst_pinned_layout_of (buffer, info, offset, stride, what, error))
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize extent = (gsize) stride[p] * (gst_pinned_layout_plane_rows (info,
            p) - 1) + gst_pinned_layout_row_bytes (info, p);
    GstMemory *mem;

    if (!gst_buffer_find_memory (buffer, offset[p], extent, &idx, &length,
            &skip) || length != 1) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer lies across %u of its memories: a "
          "kernel takes each plane in one", p, what, length);
      return FALSE;
    }
    mem = gst_buffer_peek_memory (buffer, idx);
    if (!gst_is_pinned_memory (mem)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer is in %s memory, not gst-pinned "
          "memory: the GPU cannot address it (its caps say %s)", p,
          what, mem->allocator ? mem->allocator->mem_type : "unknown",
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
      return FALSE;
    }
  }
  return TRUE;
}

static void
post_error (GstPinnedFilter * self, GError ** error)
{
  gst_pinned_base_transform_post_frame_error (GST_PINNED_BASE_TRANSFORM (self),
      error, "GPU filter failed");
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
  cudaEvent_t start = NULL, end = NULL;
  gboolean ok, timed;

  /* A frame mapped past its buffer's end would give the kernel pointers
   * out of bounds. */
  if (!gst_pinned_layout_check (inbuf, in_info, "input", &error) ||
      (!in_place && !gst_pinned_layout_check (outbuf, out_info,
              "output", &error)) ||
      !check_gpu_planes (inbuf, in_info, "input", &error) ||
      (!in_place && !check_gpu_planes (outbuf, out_info, "output", &error)))
    goto failed;

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

  /* Timed after the stream's waits for the frames' earlier users. */
  timed = gst_pinned_copier_timer_begin (gst_pinned_base_transform_get_copier
      (base), &start, &end) &&
      gst_pinned_cuda_result (cudaEventRecord (start,
          gst_pinned_stream_get_cuda_stream (stream)), NULL);
  span = gst_pinned_base_transform_begin_span (base, "kernel");
  if (in_place)
    ok = klass->filter_ip (self, &in_frame,
        gst_pinned_stream_get_handle (stream), &error);
  else
    ok = klass->filter (self, &in_frame, &out_frame,
        gst_pinned_stream_get_handle (stream), &error);
  gst_pinned_timeline_end (span);
  timed = timed && ok && gst_pinned_cuda_result (cudaEventRecord (end,
          gst_pinned_stream_get_cuda_stream (stream)), NULL);
  gst_pinned_copier_timer_end (gst_pinned_base_transform_get_copier (base),
      timed);

  if (!in_place)
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);

  if (ok) {
    GstPinnedFence *fence = gst_pinned_fence_record_current (stream, &error);

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
  post_error (self, &error);
  return GST_FLOW_ERROR;

not_mappable:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("GPU filter failed"),
      ("a frame is not in gst-pinned memory"));
  return GST_FLOW_ERROR;
}

#ifdef HAVE_CUDA_INTEROP
/* A gst-pinned view of a CUDA frame, to read; NULL after an error message. */
static GstBuffer *
view_of_cuda_input (GstPinnedFilter * self, GstBuffer * inbuf)
{
  GstPinnedFilterPrivate *priv = GET_PRIV (self);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (self);
  GError *error = NULL;
  GstBuffer *view;

  if (priv->held == NULL) {
    priv->held = gst_pinned_window_new (NULL,
        2 * gst_pinned_base_transform_get_pool_size (base));
    priv->view_allocator =
        gst_pinned_device_allocator_new (gst_pinned_base_transform_get_context
        (base));
  }

  view = gst_pinned_cuda_buffer_wrap (inbuf,
      gst_pinned_base_transform_get_in_info (base), priv->view_allocator,
      GST_MAP_READ, &error);
  if (view == NULL) {
    GST_PINNED_ELEMENT_ERROR (self, error, "Cannot read the CUDA memory");
    g_clear_error (&error);
  }
  return view;
}
#endif

static GstFlowReturn
gst_pinned_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstPinnedFilter *self = GST_PINNED_FILTER (trans);
  GstPinnedFilterClass *klass = GST_PINNED_FILTER_GET_CLASS (self);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (trans);
  GstBuffer *src = inbuf;
  GError *error = NULL;
  GstFlowReturn ret;

#ifdef HAVE_CUDA_INTEROP
  if (gst_pinned_is_cuda_buffer (inbuf) &&
      (src = view_of_cuda_input (self, inbuf)) == NULL)
    return GST_FLOW_ERROR;
#endif

  if (klass->filter) {
    ret = run_filter (self, src, outbuf);
  } else if (gst_pinned_copier_copy (gst_pinned_base_transform_get_copier
          (base), src, outbuf, NULL, FALSE, &error)) {
    /* An in-place filter on CUDA memory: on a copy in the output pool. */
    ret = run_filter (self, outbuf, NULL);
  } else {
    post_error (self, &error);
    ret = GST_FLOW_ERROR;
  }

  /* The view holds the input until the GPU is done with it. */
  if (src != inbuf)
    gst_pinned_window_push (GET_PRIV (self)->held, NULL, src);

  return ret;
}

static gboolean
gst_pinned_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstPinnedFilterPrivate *priv = GET_PRIV (trans);

  /* Upstream may wait for its buffers at EOS (a decoder draining). */
  if (priv->held && GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    gst_pinned_window_drain (priv->held);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static GstFlowReturn
gst_pinned_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  return run_filter (GST_PINNED_FILTER (trans), buf, NULL);
}

static void
gst_pinned_filter_finalize (GObject * object)
{
  clear_views (GST_PINNED_FILTER (object));
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
#ifdef HAVE_CUDA_INTEROP
  gobject_class->constructor = gst_pinned_filter_constructor;
  transform_caps_quark =
      g_quark_from_static_string ("GstPinnedFilterTransformCaps");
  cuda_done_quark = g_quark_from_static_string ("GstPinnedFilterCudaMemory");
#endif

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
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_pinned_filter_sink_event);

  base_class->set_info = GST_DEBUG_FUNCPTR (gst_pinned_filter_set_info);
}

static void
gst_pinned_filter_init (GstPinnedFilter * self)
{
}
