/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedbasetransform
 * @title: GstPinnedBaseTransform
 * @short_description: base class of gst-pinned's elements
 *
 * Owns what every gst-pinned element needs: the `device-id` property, the
 * #GstPinnedContext (shared with the pipeline through #GstContext, opened in
 * GstBaseTransform.start()), the element's own non-blocking stream, and the
 * negotiated video infos. A device that cannot be used fails the state
 * change with a resource error that carries the CUDA error.
 *
 * In builds with CUDA interop the context is also shared with GStreamer's
 * nvcodec elements through `gst.cuda.context` (see
 * gst_pinned_cuda_ensure_element_context()). The element's copies, its
 * batches and its read-only `stats` property are
 * gst_pinned_base_transform_transfer() and its siblings.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbasetransform-private.h"
#include "element/gstpinnedelementcontext-private.h"
#include "element/gstpinnederror-private.h"
#include "sync/gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedbufferpool.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_DEBUG_CATEGORY (gst_pinned_base_transform_debug);
#define GST_CAT_DEFAULT gst_pinned_base_transform_debug

#define DEFAULT_DEVICE_ID GST_PINNED_DEVICE_ID_ANY
#define DEFAULT_SHARED_STREAM FALSE
#define DEFAULT_DEVICE_ALLOC GST_PINNED_DEVICE_ALLOC_DEFAULT
#define DEFAULT_POOL_SIZE 4
/* A partial batch goes after this long without its last frame: an
 * application that pushes a frame and waits for it gets it. */
#define DEFAULT_BATCH_TIMEOUT_US 1000

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_SHARED_STREAM,
  PROP_POOL_SIZE,
  PROP_BATCH_TIMEOUT,
  PROP_DEVICE_ALLOC,
  PROP_STATS,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

#define gst_pinned_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstPinnedBaseTransform,
    gst_pinned_base_transform, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstPinnedBaseTransform);
    GST_DEBUG_CATEGORY_INIT (gst_pinned_base_transform_debug,
        "pinnedbasetransform", 0, "gst-pinned base transform"));

/* Unchecked: the vfuncs and the public calls (after their own check) pass
 * our instances only, and a checked cast costs a type lookup, several per
 * frame. */
#define GET_PRIV(self) ((GstPinnedBaseTransformPrivate *) \
    gst_pinned_base_transform_get_instance_private ((gpointer) (self)))

GstPinnedCopier *
gst_pinned_base_transform_get_copier (GstPinnedBaseTransform * self)
{
  return &GET_PRIV (self)->copier;
}

/* Pushes the outputs of the batch (the batch queue's timer calls it too). */
static GstFlowReturn
push_batch (GstBaseTransform * trans)
{
  return gst_pinned_copier_push (&GET_PRIV (trans)->copier);
}

static GstFlowReturn
gst_pinned_base_transform_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  return gst_pinned_copier_generate_output (&GET_PRIV (trans)->copier, outbuf);
}

static void
gst_pinned_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_SHARED_STREAM:
      priv->shared_stream = g_value_get_boolean (value);
      break;
    case PROP_POOL_SIZE:
      priv->pool_size = g_value_get_uint (value);
      break;
    case PROP_BATCH_TIMEOUT:
      priv->batch_timeout_us = g_value_get_uint64 (value);
      break;
    case PROP_DEVICE_ALLOC:
      priv->device_alloc = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_pinned_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  /* The statistics take the object lock themselves. */
  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_pinned_copier_get_stats (&priv->copier));
    return;
  }

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_SHARED_STREAM:
      g_value_set_boolean (value, priv->shared_stream);
      break;
    case PROP_POOL_SIZE:
      g_value_set_uint (value, priv->pool_size);
      break;
    case PROP_BATCH_TIMEOUT:
      g_value_set_uint64 (value, priv->batch_timeout_us);
      break;
    case PROP_DEVICE_ALLOC:
      g_value_set_enum (value, priv->device_alloc);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static gint
get_device_id (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  return device_id;
}

static void
gst_pinned_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  gst_pinned_element_context_set (element, context,
      get_device_id ((GstPinnedBaseTransform *) element),
      &GET_PRIV (element)->copier.context);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/**
 * gst_pinned_base_transform_open_device:
 * @self: a #GstPinnedBaseTransform
 *
 * Opens the element's device (shared or new) and stream, if that has not
 * happened yet; the base class does it at caps time, a subclass that needs
 * the device earlier calls this. Posts an error message on failure.
 *
 * Returns: %TRUE when the context and the stream are set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_open_device (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GError *error = NULL;
  gint device_id = get_device_id (self);
  gboolean shared;

  if (priv->copier.stream)
    return TRUE;

  GST_OBJECT_LOCK (self);
  shared = priv->shared_stream;
  GST_OBJECT_UNLOCK (self);

  if (!gst_pinned_element_context_ensure (GST_ELEMENT (self), device_id,
          &priv->copier.context, &error)) {
    gst_pinned_error_post_device (GST_ELEMENT (self), device_id, &error);
    return FALSE;
  }

  if (!gst_pinned_copier_open (&priv->copier, shared, &error)) {
    GST_PINNED_ELEMENT_ERROR (self, error, "Could not create a CUDA stream");
    g_clear_error (&error);
    return FALSE;
  }

  GST_INFO_OBJECT (self, "using CUDA device %d (%s)",
      gst_pinned_context_get_device_id (priv->copier.context),
      gst_pinned_context_get_device_name (priv->copier.context));

  return TRUE;
}

/* An element with a device-id opens its device now. One without takes its
 * neighbours' device, and those that start after it (state changes run
 * from the sinks up) announce theirs only then: it opens at caps time,
 * and here only checks that a device exists, to fail early if none. */
static gboolean
gst_pinned_base_transform_start (GstBaseTransform * trans)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GError *error = NULL;
  gint n_devices = 0;

  gst_pinned_stats_reset (&priv->copier.stats);

  if (gst_pinned_element_context_find_at_start (trans, get_device_id (self),
          &priv->copier.context))
    return gst_pinned_base_transform_open_device (self);

  if (!gst_pinned_cuda_result (cudaGetDeviceCount (&n_devices), &error) ||
      n_devices <= 0) {
    if (error == NULL)
      g_set_error (&error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
          "No CUDA device found");
    gst_pinned_error_post_device (GST_ELEMENT (self),
        GST_PINNED_DEVICE_ID_ANY, &error);
    return FALSE;
  }

  return TRUE;
}

static gboolean
gst_pinned_base_transform_stop (GstBaseTransform * trans)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  gst_pinned_copier_stop (&priv->copier);
  gst_video_info_init (&priv->out_info);

  return TRUE;
}

static gboolean
gst_pinned_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_pinned_element_context_query (GST_ELEMENT (trans), query,
          priv->copier.context))
    return TRUE;
  gst_pinned_copier_before_query (&priv->copier, direction, query);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* The statistics are notified at the end of the stream, so that
 * `gst-launch-1.0 -v` prints them. */
static gboolean
gst_pinned_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  gst_pinned_copier_before_event (&GET_PRIV (trans)->copier, event);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    g_object_notify_by_pspec (G_OBJECT (trans), properties[PROP_STATS]);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_pinned_base_transform_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformClass *klass =
      GST_PINNED_BASE_TRANSFORM_GET_CLASS (self);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  gst_pinned_copier_before_caps (&priv->copier);

  gst_pinned_element_context_find_for_caps (GST_ELEMENT (self), incaps,
      &priv->copier.context);
  if (!gst_pinned_base_transform_open_device (self))
    return FALSE;

  if (!gst_video_info_from_caps (&priv->copier.in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_WARNING_OBJECT (self, "cannot parse caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  if (klass->set_info)
    return klass->set_info (self, incaps, &priv->copier.in_info, outcaps,
        &priv->out_info);

  return TRUE;
}

static void
gst_pinned_base_transform_finalize (GObject * object)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  gst_pinned_copier_clear (&priv->copier);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_base_transform_class_init (GstPinnedBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_pinned_base_transform_set_property;
  gobject_class->get_property = gst_pinned_base_transform_get_property;
  gobject_class->finalize = gst_pinned_base_transform_finalize;

  /**
   * GstPinnedBaseTransform:device-id:
   *
   * The CUDA device to use. -1 takes the device of a neighbouring
   * gst-pinned element or of a context the application set, else the
   * current CUDA device (device 0 unless the thread chose another).
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ID] =
      g_param_spec_int ("device-id", "Device ID",
      "CUDA device index (-1: the pipeline's device, else the current one)",
      -1, G_MAXINT, DEFAULT_DEVICE_ID,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:shared-stream:
   *
   * Enqueue on the device's one shared stream instead of the element's own.
   * Every element that does so serialises with the others: a copy then
   * cannot overlap a kernel. For comparison and debugging.
   *
   * Since: 0.1
   */
  /**
   * GstPinnedBaseTransform:device-alloc:
   *
   * How the element's pools of device frames allocate: `default`
   * (cudaMalloc) or `stream-ordered` (cudaMallocAsync on the element's
   * stream, from the device's memory pool, and cudaFreeAsync: freeing a
   * pool does not synchronize the device as cudaFree does). The pools
   * allocate when activated either way; the frames are the same.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ALLOC] =
      g_param_spec_enum ("device-alloc", "Device allocation",
      "How the element's device frames are allocated: cudaMalloc, or "
      "stream-ordered (cudaMallocAsync on its stream, freed without a "
      "device-wide synchronization)", GST_TYPE_PINNED_DEVICE_ALLOC,
      DEFAULT_DEVICE_ALLOC,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  properties[PROP_SHARED_STREAM] =
      g_param_spec_boolean ("shared-stream", "Shared stream",
      "Use the device's one shared CUDA stream instead of an own one "
      "(serialises with other elements that do; for comparison)",
      DEFAULT_SHARED_STREAM,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:pool-size:
   *
   * How many frames can be in flight through the element: the buffers its
   * pools allocate when activated. pinnedupload offers a page-locked pool of
   * this many buffers upstream and keeps twice as many device frames;
   * pinneddownload outputs from a page-locked pool of this many; a filter
   * keeps twice as many output frames. A filter that works in place
   * (pinnedbusy) has no pool for gst-pinned device memory; it has one for
   * nvcodec's CUDA memory, which it works on in a copy. When they are all
   * in flight, the element waits for the oldest: backpressure.
   *
   * Since: 0.1
   */
  properties[PROP_POOL_SIZE] =
      g_param_spec_uint ("pool-size", "Pool size",
      "Frames in flight: buffers the element's pools allocate up front "
      "(an in-place filter has none for gst-pinned device memory)", 1, 64,
      DEFAULT_POOL_SIZE,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:batch-timeout:
   *
   * How long a batch waits for its last frame, in microseconds, after its
   * first came: then the frames it has go on (an application that pushes
   * a frame and waits for the result gets it this much later, or up to a
   * tick more: one thread of the process looks at every element's batch
   * once a tick, half the shortest batch-timeout, at most 500). 0 waits
   * until the batch is full or a serialized event comes.
   *
   * Since: 0.1
   */
  properties[PROP_BATCH_TIMEOUT] =
      g_param_spec_uint64 ("batch-timeout", "Batch timeout",
      "Microseconds a batch waits for its last frame before its frames go "
      "on (0: until it is full)", 0, G_USEC_PER_SEC,
      DEFAULT_BATCH_TIMEOUT_US,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  properties[PROP_STATS] = gst_pinned_stats_param_spec ();
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_set_context);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_query);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_set_caps);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_generate_output);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_sink_event);
}

static void
gst_pinned_base_transform_init (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  priv->device_id = DEFAULT_DEVICE_ID;
  priv->pool_size = DEFAULT_POOL_SIZE;
  priv->device_alloc = DEFAULT_DEVICE_ALLOC;
  priv->batch_timeout_us = DEFAULT_BATCH_TIMEOUT_US;
  gst_pinned_copier_init (&priv->copier, GST_BASE_TRANSFORM (self), push_batch);
  gst_video_info_init (&priv->out_info);
}

/**
 * gst_pinned_base_transform_get_context:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none) (nullable): the element's device context, set
 *   between start and stop
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_base_transform_get_context (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return GET_PRIV (self)->copier.context;
}

/**
 * gst_pinned_base_transform_get_pool_size:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: how many buffers each of the element's pools holds: its
 *   #GstPinnedBaseTransform:pool-size, or twice its batch (see
 *   gst_pinned_base_transform_get_batch()) where that is more
 *
 * Since: 0.1
 */
guint
gst_pinned_base_transform_get_pool_size (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv;
  guint pool_size, batch;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), 0);

  priv = GET_PRIV (self);
  GST_OBJECT_LOCK (self);
  pool_size = priv->pool_size;
  GST_OBJECT_UNLOCK (self);

  /* One batch held, the one before it copied. */
  batch = gst_pinned_batch_queue_get_frames (priv->copier.batch);
  if (batch > 1)
    pool_size = MAX (pool_size, 2 * batch);
  return pool_size;
}

/**
 * gst_pinned_base_transform_get_stream:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none) (nullable): the element's own stream, set between
 *   start and stop
 *
 * Since: 0.1
 */
GstPinnedStream *
gst_pinned_base_transform_get_stream (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return GET_PRIV (self)->copier.stream;
}

/**
 * gst_pinned_base_transform_get_in_info:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none): the video info of the negotiated input caps
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_pinned_base_transform_get_in_info (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return &GET_PRIV (self)->copier.in_info;
}

/**
 * gst_pinned_base_transform_get_out_info:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none): the video info of the negotiated output caps
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_pinned_base_transform_get_out_info (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return &GET_PRIV (self)->out_info;
}

/**
 * gst_pinned_base_transform_make_device_pool:
 * @self: a #GstPinnedBaseTransform with an open device
 * @caps: the caps of the frames
 * @size: the size of a buffer
 * @min_buffers: how many to allocate when activated
 *
 * Makes, configures (with %GST_BUFFER_POOL_OPTION_VIDEO_META) and activates
 * a pool of device memory. Activation allocates, so that a failed
 * cudaMalloc() is reported here, as an error message with its CUDA error.
 *
 * Returns: (transfer full) (nullable): an active pool, or %NULL after an
 *   error message was posted
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_base_transform_make_device_pool (GstPinnedBaseTransform * self,
    GstCaps * caps, gsize size, guint min_buffers)
{
  GstPinnedBaseTransformPrivate *priv;
  GstBufferPool *pool;
  GstStructure *config;
  GError *error = NULL;
  gboolean stream_ordered;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  priv = GET_PRIV (self);
  g_return_val_if_fail (priv->copier.context != NULL, NULL);

  GST_OBJECT_LOCK (self);
  stream_ordered = priv->device_alloc == GST_PINNED_DEVICE_ALLOC_STREAM_ORDERED;
  GST_OBJECT_UNLOCK (self);
  if (stream_ordered && priv->copier.stream)
    pool =
        gst_pinned_device_buffer_pool_new_stream_ordered (priv->copier.context,
        priv->copier.stream);
  else
    pool = gst_pinned_device_buffer_pool_new (priv->copier.context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot configure the device buffer pool"), (NULL));
    gst_object_unref (pool);
    return NULL;
  }

  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    gst_pinned_buffer_pool_take_error (pool, &error);
    GST_PINNED_ELEMENT_ERROR (self, error,
        "Could not allocate CUDA device memory");
    g_clear_error (&error);
    gst_object_unref (pool);
    return NULL;
  }

  return pool;
}

/**
 * gst_pinned_base_transform_begin_span: (skip)
 * @self: a #GstPinnedBaseTransform with an open device
 * @what: what the element is about to enqueue
 *
 * Starts a span of the GPU timeline on the element's stream and track.
 *
 * Returns: (transfer full) (nullable): see gst_pinned_timeline_begin()
 *
 * Since: 0.1
 */
GstPinnedSpan *
gst_pinned_base_transform_begin_span (GstPinnedBaseTransform * self,
    const gchar * what)
{
  GstPinnedBaseTransformPrivate *priv;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  priv = GET_PRIV (self);
  if (priv->copier.stream == NULL)
    return NULL;

  return gst_pinned_timeline_begin (priv->copier.stream, GST_OBJECT_NAME (self),
      what);
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

  return gst_pinned_copier_copy (&GET_PRIV (self)->copier, src, dst, pageable,
      TRUE, error);
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
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  return gst_pinned_copier_copy_output (&GET_PRIV (self)->copier, src, outbuf,
      pageable, error);
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

  return MAX (gst_pinned_batch_queue_get_frames (GET_PRIV (self)->copier.batch),
      1);
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
  gst_pinned_batch_queue_set_frames (priv->copier.batch, frames, timeout);
}

/**
 * gst_pinned_base_transform_error_text:
 * @self: a #GstPinnedBaseTransform
 * @error: (nullable): why a frame failed
 * @what: the element's message for the failure ("Could not upload a
 *   frame")
 *
 * Words the element message for a frame that failed, so that the user
 * learns what to do: where the device reports an error left by earlier GPU
 * work (a kernel that faulted, of this element or another, makes every
 * later CUDA call fail), it says so and that the application must
 * restart; a buffer that does not fit its caps (%GST_STREAM_ERROR_FORMAT)
 * is described after @what; anything else is @what. The CUDA detail stays
 * in @error, for the debug string.
 *
 * Returns: (transfer full): the message
 *
 * Since: 0.1
 */
gchar *
gst_pinned_base_transform_error_text (GstPinnedBaseTransform * self,
    const GError * error, const gchar * what)
{
  GstPinnedBaseTransformPrivate *priv;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  g_return_val_if_fail (what != NULL, NULL);

  priv = GET_PRIV (self);
  return gst_pinned_error_frame_text (priv->copier.stream, priv->copier.context,
      error, what);
}

void
gst_pinned_base_transform_post_frame_error (GstPinnedBaseTransform * self,
    GError ** error, const gchar * what)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  gst_pinned_error_post_frame (GST_ELEMENT (self), priv->copier.stream,
      priv->copier.context, error, what);
}
