/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedcopytransform
 * @title: GstPinnedCopyTransform
 * @short_description: base class of the elements that copy between host
 *   and device
 *
 * What pinnedupload and pinneddownload share, so that each keeps only its
 * direction (its caps, what it offers upstream, what it decides
 * downstream): the kind of page-locked memory of their pools and staging
 * (the `portable`, `mapped`, `huge-pages` properties, and the values of
 * `pageable-mode`, `copy-threads` and `write-combined`), the handling of
 * host memory that is not page-locked (#GstPinnedPageable, made with the
 * first frame, flushed at stop), the `batch` property, views of nvcodec's
 * CUDA memory, and the copy of a frame with its element error.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbasetransform-private.h"
#include "gst/pinned/gstpinnedcopytransform.h"
#include "gst/pinned/gstpinnedbufferpool.h"
#include "gst/pinned/gstpinneddevicememory.h"
#include "gst/pinned/gstpinnedhostmemory.h"
#ifdef HAVE_CUDA_INTEROP
#include "gst/pinned/gstpinnedcudamemory.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_copy_transform_debug);
#define GST_CAT_DEFAULT gst_pinned_copy_transform_debug

#define DEFAULT_PAGEABLE_MODE GST_PINNED_PAGEABLE_AUTO
#define DEFAULT_COPY_THREADS 0
#define DEFAULT_PORTABLE TRUE
#define DEFAULT_MAPPED FALSE
#define DEFAULT_HUGE_PAGES FALSE
#define DEFAULT_BATCH 0
/* batch=0: frames up to GST_PINNED_BATCH_AUTO_MAX_BYTES from a source that
 * is not live go in batches of AUTO_BATCH. */
#define AUTO_BATCH 4
#define MAX_BATCH 16

/* After the ids of GstPinnedCopyProperty, which the subclasses install. */
enum
{
  PROP_PORTABLE = GST_PINNED_COPY_PROP_PAGEABLE_STATS + 1,
  PROP_MAPPED,
  PROP_HUGE_PAGES,
  PROP_BATCH,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

typedef struct
{
  /* The properties, under the object lock */
  GstPinnedPageableMode pageable_mode;
  guint copy_threads;
  GstPinnedHostFlags host_flags;
  guint batch;
  /* Made with the first frame, in the streaming thread; read under the
   * object lock by the statistics. */
  GstPinnedPageable *pageable;
  /* Of the views of CUDA memory, made with the first */
  GstAllocator *view_allocator;
} GstPinnedCopyTransformPrivate;

#define gst_pinned_copy_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstPinnedCopyTransform,
    gst_pinned_copy_transform, GST_TYPE_PINNED_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstPinnedCopyTransform);
    GST_DEBUG_CATEGORY_INIT (gst_pinned_copy_transform_debug,
        "pinnedcopytransform", 0, "gst-pinned copy transform"));

#define GET_PRIV(self) \
    ((GstPinnedCopyTransformPrivate *) \
    gst_pinned_copy_transform_get_instance_private ( \
        (GstPinnedCopyTransform *) (self)))

static void
set_flag (GstPinnedCopyTransformPrivate * priv, GstPinnedHostFlags flag,
    gboolean on)
{
  if (on)
    priv->host_flags |= flag;
  else
    priv->host_flags &= ~flag;
}

static void
gst_pinned_copy_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case GST_PINNED_COPY_PROP_PAGEABLE_MODE:
      priv->pageable_mode = g_value_get_enum (value);
      break;
    case GST_PINNED_COPY_PROP_COPY_THREADS:
      priv->copy_threads = g_value_get_uint (value);
      break;
    case GST_PINNED_COPY_PROP_WRITE_COMBINED:
      set_flag (priv, GST_PINNED_HOST_WRITE_COMBINED,
          g_value_get_boolean (value));
      break;
    case PROP_PORTABLE:
      set_flag (priv, GST_PINNED_HOST_PORTABLE, g_value_get_boolean (value));
      break;
    case PROP_MAPPED:
      set_flag (priv, GST_PINNED_HOST_MAPPED, g_value_get_boolean (value));
      break;
    case PROP_HUGE_PAGES:
      set_flag (priv, GST_PINNED_HOST_HUGE_PAGES, g_value_get_boolean (value));
      break;
    case PROP_BATCH:
      priv->batch = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static GstStructure *
get_pageable_stats (GstPinnedCopyTransform * self)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (self);
  GstPinnedPageable *pageable;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  pageable = priv->pageable ? gst_object_ref (priv->pageable) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (pageable == NULL)
    return NULL;

  s = gst_pinned_pageable_get_stats (pageable);
  gst_object_unref (pageable);
  return s;
}

static void
gst_pinned_copy_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (object);

  if (prop_id == GST_PINNED_COPY_PROP_PAGEABLE_STATS) {
    g_value_take_boxed (value,
        get_pageable_stats (GST_PINNED_COPY_TRANSFORM (object)));
    return;
  }

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case GST_PINNED_COPY_PROP_PAGEABLE_MODE:
      g_value_set_enum (value, priv->pageable_mode);
      break;
    case GST_PINNED_COPY_PROP_COPY_THREADS:
      g_value_set_uint (value, priv->copy_threads);
      break;
    case GST_PINNED_COPY_PROP_WRITE_COMBINED:
      g_value_set_boolean (value,
          !!(priv->host_flags & GST_PINNED_HOST_WRITE_COMBINED));
      break;
    case PROP_PORTABLE:
      g_value_set_boolean (value,
          !!(priv->host_flags & GST_PINNED_HOST_PORTABLE));
      break;
    case PROP_MAPPED:
      g_value_set_boolean (value,
          !!(priv->host_flags & GST_PINNED_HOST_MAPPED));
      break;
    case PROP_HUGE_PAGES:
      g_value_set_boolean (value,
          !!(priv->host_flags & GST_PINNED_HOST_HUGE_PAGES));
      break;
    case PROP_BATCH:
      g_value_set_uint (value, priv->batch);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/**
 * gst_pinned_copy_transform_class_install_property:
 * @klass: the class of a subclass, in its class_init
 * @id: which
 * @pspec: (transfer full): the property, in words of the subclass's
 *   direction
 *
 * Installs @pspec on @klass; the base class sets and gets it. GObject
 * does not inherit set_property and get_property: where @klass has none,
 * this gives it the base class's. A subclass that has properties of its
 * own chains up to the base class's for these.
 *
 * Since: 0.1
 */
void
gst_pinned_copy_transform_class_install_property (GstPinnedCopyTransformClass
    * klass, GstPinnedCopyProperty id, GParamSpec * pspec)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  g_return_if_fail (GST_IS_PINNED_COPY_TRANSFORM_CLASS (klass));
  g_return_if_fail (id >= GST_PINNED_COPY_PROP_PAGEABLE_MODE &&
      id <= GST_PINNED_COPY_PROP_PAGEABLE_STATS);

  if (gobject_class->set_property == NULL)
    gobject_class->set_property = gst_pinned_copy_transform_set_property;
  if (gobject_class->get_property == NULL)
    gobject_class->get_property = gst_pinned_copy_transform_get_property;
  g_object_class_install_property (gobject_class, id, pspec);
}

/**
 * gst_pinned_copy_transform_class_install_pageable:
 * @klass: the class of a subclass, in its class_init
 * @mode_blurb: what `pageable-mode` does in the subclass's direction
 * @copy_threads_blurb: what `copy-threads` does in it
 *
 * Installs `pageable-mode` (a #GstPinnedPageableMode, `auto` by default)
 * and `copy-threads` (0, one per core, by default; at most 64) on @klass,
 * in words of its direction: how host memory that is not gst-pinned
 * memory is copied, and on how many threads it is staged.
 *
 * Since: 0.1
 */
void
gst_pinned_copy_transform_class_install_pageable (GstPinnedCopyTransformClass
    * klass, const gchar * mode_blurb, const gchar * copy_threads_blurb)
{
  gst_pinned_copy_transform_class_install_property (klass,
      GST_PINNED_COPY_PROP_PAGEABLE_MODE, g_param_spec_enum ("pageable-mode",
          "Pageable mode", mode_blurb, GST_TYPE_PINNED_PAGEABLE_MODE,
          DEFAULT_PAGEABLE_MODE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  gst_pinned_copy_transform_class_install_property (klass,
      GST_PINNED_COPY_PROP_COPY_THREADS, g_param_spec_uint ("copy-threads",
          "Copy threads", copy_threads_blurb, 0, 64, DEFAULT_COPY_THREADS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
}

/* Made with the first frame, in the streaming thread. */
static GstPinnedPageable *
ensure_pageable (GstPinnedCopyTransform * self)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (self);
  GstPinnedContext *context;
  GstPinnedPageable *pageable;
  GstAllocator *allocator;

  if (priv->pageable)
    return priv->pageable;

  context =
      gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM (self));
  pageable = gst_pinned_pageable_new (context);
  GST_OBJECT_LOCK (self);
  gst_pinned_pageable_set_mode (pageable, priv->pageable_mode);
  gst_pinned_pageable_set_threads (pageable, priv->copy_threads);
  /* Staging is the kind of the pools: write-combined only where the
   * element offers such memory upstream, whose staging only the DMA
   * engine reads. */
  allocator = gst_pinned_host_allocator_new_full (context, priv->host_flags);
  gst_pinned_pageable_set_staging_allocator (pageable, allocator);
  gst_object_unref (allocator);
  priv->pageable = pageable;
  GST_OBJECT_UNLOCK (self);

  return pageable;
}

static void
clear_pageable (GstPinnedCopyTransform * self)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (self);
  GstPinnedPageable *pageable;

  GST_OBJECT_LOCK (self);
  pageable = priv->pageable;
  priv->pageable = NULL;
  GST_OBJECT_UNLOCK (self);

  if (pageable) {
    /* Held inputs go back upstream, staging threads are joined. */
    gst_pinned_pageable_flush (pageable, NULL);
    gst_object_unref (pageable);
  }
}

/**
 * gst_pinned_copy_transform_flush_pageable:
 * @self: a #GstPinnedCopyTransform
 *
 * Gives back the pageable input held until its copies are done (a flush:
 * upstream's pool may be flushing) and joins the staging threads.
 *
 * Since: 0.1
 */
void
gst_pinned_copy_transform_flush_pageable (GstPinnedCopyTransform * self)
{
  GstPinnedCopyTransformPrivate *priv;

  g_return_if_fail (GST_IS_PINNED_COPY_TRANSFORM (self));

  priv = GET_PRIV (self);
  if (priv->pageable)
    gst_pinned_pageable_flush (priv->pageable, NULL);
}

/**
 * gst_pinned_copy_transform_new_host_pool:
 * @self: a #GstPinnedCopyTransform with an open device
 * @caps: the caps of the frames
 * @size: the size of a buffer
 * @min_buffers: how many to allocate when activated
 * @video_meta: whether the buffers carry #GstVideoMeta
 *
 * Returns: (transfer full) (nullable): a configured pool of the element's
 *   kind of page-locked memory, not active yet; %NULL if it refused the
 *   configuration
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_copy_transform_new_host_pool (GstPinnedCopyTransform * self,
    GstCaps * caps, gsize size, guint min_buffers, gboolean video_meta)
{
  GstPinnedCopyTransformPrivate *priv;
  GstPinnedContext *context;
  GstBufferPool *pool;
  GstStructure *config;

  g_return_val_if_fail (GST_IS_PINNED_COPY_TRANSFORM (self), NULL);

  priv = GET_PRIV (self);
  context =
      gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM (self));
  pool = gst_pinned_host_buffer_pool_new (context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  GST_OBJECT_LOCK (self);
  gst_pinned_host_buffer_pool_config_set_flags (config, priv->host_flags);
  GST_OBJECT_UNLOCK (self);
  if (video_meta)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }

  return pool;
}

/**
 * gst_pinned_copy_transform_wrap_cuda:
 * @self: a #GstPinnedCopyTransform with an open device
 * @buffer: a buffer of nvcodec's CUDA memory
 * @info: its video info
 * @flags: %GST_MAP_READ to copy from it, %GST_MAP_WRITE to copy into it
 *
 * Returns: (transfer full) (nullable): a gst-pinned view of @buffer, in
 *   its layout; %NULL after an error message (or in builds without CUDA
 *   interop)
 *
 * Since: 0.1
 */
GstBuffer *
gst_pinned_copy_transform_wrap_cuda (GstPinnedCopyTransform * self,
    GstBuffer * buffer, const GstVideoInfo * info, GstMapFlags flags)
{
#ifdef HAVE_CUDA_INTEROP
  GstPinnedCopyTransformPrivate *priv;
  GError *error = NULL;
  GstBuffer *view;

  g_return_val_if_fail (GST_IS_PINNED_COPY_TRANSFORM (self), NULL);

  priv = GET_PRIV (self);
  if (priv->view_allocator == NULL)
    priv->view_allocator =
        gst_pinned_device_allocator_new (gst_pinned_base_transform_get_context
        (GST_PINNED_BASE_TRANSFORM (self)));

  view = gst_pinned_cuda_buffer_wrap (buffer, info, priv->view_allocator,
      flags, &error);
  if (view == NULL) {
    GST_PINNED_ELEMENT_ERROR (self, error, (flags & GST_MAP_WRITE) ?
        "Cannot write the CUDA memory" : "Cannot read the CUDA memory");
    g_clear_error (&error);
  }
  return view;
#else
  g_return_val_if_reached (NULL);
#endif
}

static GstCaps *
gst_pinned_copy_transform_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstPinnedCopyTransformClass *klass =
      GST_PINNED_COPY_TRANSFORM_GET_CLASS (trans);
  GstCaps *ret = klass->caps (GST_PINNED_COPY_TRANSFORM (trans), direction,
      caps);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = tmp;
  }

  GST_DEBUG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);

  return ret;
}

/* The copy of one frame: into the output, which may wait for a batch, or
 * between views of CUDA memory, at once. */
static GstFlowReturn
gst_pinned_copy_transform_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstPinnedCopyTransform *self = GST_PINNED_COPY_TRANSFORM (trans);
  GstPinnedCopyTransformClass *klass = GST_PINNED_COPY_TRANSFORM_GET_CLASS
      (self);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (trans);
  GstBuffer *src = inbuf, *dst = outbuf;
  GError *error = NULL;
  GstPinnedSpan *span;
  gboolean ok;

  if (klass->prepare && !klass->prepare (self, inbuf, outbuf, &src, &dst))
    return GST_FLOW_ERROR;

  span = gst_pinned_base_transform_begin_span (base, klass->span);
  if (src == inbuf && dst == outbuf)
    ok = gst_pinned_base_transform_transfer_output (base, src, dst,
        ensure_pageable (self), &error);
  else
    ok = gst_pinned_base_transform_transfer (base, src, dst,
        ensure_pageable (self), &error);
  gst_pinned_timeline_end (span);

  if (klass->finish)
    ok = klass->finish (self, inbuf, outbuf, src, dst, ok, &error);

  if (!ok) {
    gst_pinned_base_transform_post_frame_error (base, &error, klass->failure);
    return GST_FLOW_ERROR;
  }

  return GST_FLOW_OK;
}

/* Whether upstream is live, or cannot say: a live source's frames must not
 * wait for the next ones. */
static gboolean
upstream_live (GstPinnedCopyTransform * self)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = TRUE;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}

static gboolean
is_system_memory (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features == NULL || gst_caps_features_is_any (features) ||
      gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
}

/* The batch for frames of @size bytes between host and device: the batch
 * property, or by default AUTO_BATCH where they are small and upstream is
 * not live. */
static guint
batch_for_size (GstPinnedCopyTransform * self, gsize size)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (self);
  guint batch;

  GST_OBJECT_LOCK (self);
  batch = priv->batch;
  GST_OBJECT_UNLOCK (self);

  if (batch == 0)
    batch = size <= GST_PINNED_BATCH_AUTO_MAX_BYTES &&
        !upstream_live (self) ? AUTO_BATCH : 1;
  return batch;
}

/* Copies between host and device batch; system memory that passes through
 * does not. */
static guint
choose_batch (GstPinnedCopyTransform * self, GstCaps * incaps,
    GstCaps * outcaps)
{
  const GstVideoInfo *info =
      gst_pinned_base_transform_get_in_info (GST_PINNED_BASE_TRANSFORM (self));
  guint batch;

  if (is_system_memory (incaps) == is_system_memory (outcaps))
    return 1;
#ifdef HAVE_CUDA_INTEROP
  /* nvcodec's CUDA memory goes through views, copied one at a time. */
  if (gst_pinned_caps_is_cuda (incaps) || gst_pinned_caps_is_cuda (outcaps))
    return 1;
#endif

  batch = batch_for_size (self, GST_VIDEO_INFO_SIZE (info));
  GST_DEBUG_OBJECT (self, "frames of %" G_GSIZE_FORMAT " bytes: batches of "
      "%u", GST_VIDEO_INFO_SIZE (info), batch);
  return batch;
}

/**
 * gst_pinned_copy_transform_get_pool_size_for:
 * @self: a #GstPinnedCopyTransform
 * @info: the frames a pool will hold
 *
 * The buffers a pool of @info's frames needs, also before the caps are
 * set (a pool offered upstream ahead of the first frame): `pool-size`,
 * and two batches where the element will copy such frames in batches, so
 * that a source fills one batch while the one before it is copied.
 *
 * Returns: the pool's minimum of buffers
 *
 * Since: 0.2
 */
guint
gst_pinned_copy_transform_get_pool_size_for (GstPinnedCopyTransform * self,
    const GstVideoInfo * info)
{
  guint pool_size, batch;

  g_return_val_if_fail (GST_IS_PINNED_COPY_TRANSFORM (self), 0);
  g_return_val_if_fail (info != NULL, 0);

  pool_size =
      gst_pinned_base_transform_get_pool_size (GST_PINNED_BASE_TRANSFORM
      (self));
  batch = batch_for_size (self, GST_VIDEO_INFO_SIZE (info));
  if (batch > 1)
    pool_size = MAX (pool_size, 2 * batch);
  return pool_size;
}

static gboolean
gst_pinned_copy_transform_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstPinnedCopyTransform *self = GST_PINNED_COPY_TRANSFORM (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;

  gst_pinned_base_transform_set_batch (GST_PINNED_BASE_TRANSFORM (self),
      choose_batch (self, incaps, outcaps));
  return TRUE;
}

static gboolean
gst_pinned_copy_transform_stop (GstBaseTransform * trans)
{
  clear_pageable (GST_PINNED_COPY_TRANSFORM (trans));
  gst_clear_object (&GET_PRIV (trans)->view_allocator);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_pinned_copy_transform_finalize (GObject * object)
{
  clear_pageable (GST_PINNED_COPY_TRANSFORM (object));
  gst_clear_object (&GET_PRIV (object)->view_allocator);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_copy_transform_class_init (GstPinnedCopyTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  guint i;

  gobject_class->set_property = gst_pinned_copy_transform_set_property;
  gobject_class->get_property = gst_pinned_copy_transform_get_property;
  gobject_class->finalize = gst_pinned_copy_transform_finalize;

  /**
   * GstPinnedCopyTransform:portable:
   *
   * The page-locked memory (pinnedupload: offered upstream and staged
   * into; pinneddownload: output) is usable from every CUDA device, not
   * only this element's.
   *
   * Since: 0.1
   */
  properties[PROP_PORTABLE] =
      g_param_spec_boolean ("portable", "Portable",
      "Page-locked memory usable from every CUDA device", DEFAULT_PORTABLE,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedCopyTransform:mapped:
   *
   * The page-locked memory is also mapped into the device's address
   * space, so that GPU code can read it in place.
   *
   * Since: 0.1
   */
  properties[PROP_MAPPED] =
      g_param_spec_boolean ("mapped", "Mapped",
      "Page-locked memory mapped into the device address space",
      DEFAULT_MAPPED,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedCopyTransform:huge-pages:
   *
   * The page-locked memory is backed by huge pages (reserved ones, else
   * transparent huge pages) and page-locked by registration: fewer address
   * translations for the copy engine. Never write-combined.
   *
   * Since: 0.1
   */
  properties[PROP_HUGE_PAGES] =
      g_param_spec_boolean ("huge-pages", "Huge pages",
      "Page-locked memory backed by huge pages", DEFAULT_HUGE_PAGES,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedCopyTransform:batch:
   *
   * How many frames the element copies together, in one call with one
   * fence, where both sides are gst-pinned memory (the pool path): a copy
   * call, its fence and the next stream's wait for it cost the host about
   * the same for a small frame as for a large one. 0 chooses at caps time:
   * batches of 4 for frames up to 8 MiB from a source that is not live,
   * else 1 (each frame alone). A batch holds its frames until its last
   * arrives (a partial one goes before any serialized event or query), so
   * a live pipeline should keep 1. While batching, the element's pools
   * hold at least twice the batch.
   *
   * Since: 0.1
   */
  properties[PROP_BATCH] =
      g_param_spec_uint ("batch", "Batch",
      "Frames copied together in one call (0: 4 for frames up to 8 MiB "
      "from a source that is not live, else 1; 1: each alone)", 0, MAX_BATCH,
      DEFAULT_BATCH,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);
  /* One by one: the first ids are the subclasses'. */
  for (i = PROP_PORTABLE; i < PROP_LAST; i++)
    g_object_class_install_property (gobject_class, i, properties[i]);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_copy_transform_transform_caps);
  trans_class->transform =
      GST_DEBUG_FUNCPTR (gst_pinned_copy_transform_transform);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_copy_transform_set_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_copy_transform_stop);
}

static void
gst_pinned_copy_transform_init (GstPinnedCopyTransform * self)
{
  GstPinnedCopyTransformPrivate *priv = GET_PRIV (self);

  priv->pageable_mode = DEFAULT_PAGEABLE_MODE;
  priv->copy_threads = DEFAULT_COPY_THREADS;
  priv->host_flags = GST_PINNED_HOST_FLAGS_DEFAULT;
  priv->batch = DEFAULT_BATCH;
}
