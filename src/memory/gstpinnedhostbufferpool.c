/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The pool of page-locked video buffers (GstPinnedHostBufferPool): the
 * memory its configuration asks for, reuse gated on the buffers' fences,
 * a device writer paced instead, and a source's pool from its peer. The
 * pools' common part is gstpinnedpool.c, their section gstpinnedbufferpool.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedbufferpool-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedhostmemory.h"

#define GST_CAT_DEFAULT gst_pinned_buffer_pool_debug

#define FLAGS_FIELD "pinned-host-flags"

/* Either pool type may be the first one used. */
G_DEFINE_TYPE_WITH_CODE (GstPinnedHostBufferPool, gst_pinned_host_buffer_pool,
    GST_TYPE_VIDEO_BUFFER_POOL, gst_pinned_pool_init_debug ());

/**
 * gst_pinned_host_buffer_pool_config_set_flags:
 * @config: a configuration of a #GstPinnedHostBufferPool
 * @flags: the kind of page-locked memory its buffers have
 *
 * Since: 0.1
 */
void
gst_pinned_host_buffer_pool_config_set_flags (GstStructure * config,
    GstPinnedHostFlags flags)
{
  g_return_if_fail (config != NULL);

  gst_structure_set (config, FLAGS_FIELD, GST_TYPE_PINNED_HOST_FLAGS, flags,
      NULL);
}

/**
 * gst_pinned_host_buffer_pool_config_get_flags:
 * @config: a configuration of a #GstPinnedHostBufferPool
 *
 * Returns: the kind of page-locked memory @config asks for: its flags
 *   (%GST_PINNED_HOST_FLAGS_DEFAULT if it names none) and those its
 *   options add
 *
 * Since: 0.1
 */
GstPinnedHostFlags
gst_pinned_host_buffer_pool_config_get_flags (GstStructure * config)
{
  guint flags = GST_PINNED_HOST_FLAGS_DEFAULT;

  g_return_val_if_fail (config != NULL, GST_PINNED_HOST_FLAGS_DEFAULT);

  gst_structure_get_flags (config, FLAGS_FIELD, GST_TYPE_PINNED_HOST_FLAGS,
      &flags);
  if (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED))
    flags |= GST_PINNED_HOST_WRITE_COMBINED;
  if (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_PINNED_MAPPED))
    flags |= GST_PINNED_HOST_MAPPED;
  if (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_PINNED_HUGE_PAGES))
    flags |= GST_PINNED_HOST_HUGE_PAGES;

  return flags;
}

static const gchar **
gst_pinned_host_buffer_pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = {
    GST_BUFFER_POOL_OPTION_VIDEO_META,
    GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT,
    GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED,
    GST_BUFFER_POOL_OPTION_PINNED_MAPPED,
    GST_BUFFER_POOL_OPTION_PINNED_HUGE_PAGES,
    NULL
  };

  return options;
}

static gboolean
gst_pinned_host_buffer_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstPinnedHostBufferPool *self = GST_PINNED_HOST_BUFFER_POOL (pool);
  GstPinnedHostFlags flags =
      gst_pinned_host_buffer_pool_config_get_flags (config);

  /* A new kind of memory, a new allocator; set_config happens while the
   * pool is inactive. */
  if (flags != gst_pinned_host_allocator_get_flags (GST_PINNED_HOST_ALLOCATOR
          (self->allocator))) {
    GST_DEBUG_OBJECT (pool, "page-locked memory with flags 0x%x", flags);
    gst_object_unref (self->allocator);
    self->allocator = gst_pinned_host_allocator_new_full (self->context, flags);
  }

  return gst_pinned_pool_set_config_with_allocator (pool, config,
      self->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class));
}

static gboolean
gst_pinned_host_buffer_pool_start (GstBufferPool * pool)
{
  return gst_pinned_pool_start_reserved (pool,
      GST_PINNED_HOST_BUFFER_POOL (pool)->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class));
}

static GstFlowReturn
gst_pinned_host_buffer_pool_acquire_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret;
  guint i, n;

  ret = GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class)
      ->acquire_buffer (pool, buffer, params);
  if (ret != GST_FLOW_OK)
    return ret;

  n = gst_buffer_n_memory (*buffer);

  /* A GPU writer orders itself after the last copy on its stream. */
  if (params && (params->flags &
          GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE)) {
    for (i = 0; i < n; i++) {
      GstMemory *mem = gst_buffer_peek_memory (*buffer, i);

      if (gst_is_pinned_memory (mem))
        gst_pinned_host_wait_for_pace ((GstPinnedMemory *) mem);
    }
    return GST_FLOW_OK;
  }

  /* The acquirer may write it with the CPU: a copy must not still read it
   * (nor still write it). Mostly already done; else this is backpressure.
   * A wait for WRITE does not fail: after a device error, what failed
   * copies did no longer matters to a buffer about to be overwritten, and
   * the element whose next CUDA call meets the error reports it. */
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (*buffer, i);

    if (gst_is_pinned_memory (mem))
      gst_pinned_host_wait_for_reuse ((GstPinnedMemory *) mem);
  }

  return GST_FLOW_OK;
}

static void
gst_pinned_host_buffer_pool_finalize (GObject * object)
{
  GstPinnedHostBufferPool *self = GST_PINNED_HOST_BUFFER_POOL (object);

  gst_clear_object (&self->allocator);
  gst_clear_object (&self->context);

  G_OBJECT_CLASS (gst_pinned_host_buffer_pool_parent_class)->finalize (object);
}

static void
gst_pinned_host_buffer_pool_class_init (GstPinnedHostBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_pinned_host_buffer_pool_finalize;

  pool_class->get_options = gst_pinned_host_buffer_pool_get_options;
  pool_class->set_config = gst_pinned_host_buffer_pool_set_config;
  pool_class->start = gst_pinned_host_buffer_pool_start;
  pool_class->acquire_buffer = gst_pinned_host_buffer_pool_acquire_buffer;
}

static void
gst_pinned_host_buffer_pool_init (GstPinnedHostBufferPool * self)
{
}

/**
 * gst_pinned_host_buffer_pool_new:
 * @context: the device context
 *
 * Returns: (transfer full): a new video buffer pool of page-locked memory
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_host_buffer_pool_new (GstPinnedContext * context)
{
  GstPinnedHostBufferPool *self;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_PINNED_HOST_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->allocator = gst_pinned_host_allocator_new (context);

  return GST_BUFFER_POOL_CAST (self);
}

/* The page-locked pool @pad's peer offers for @caps, not configured; or
 * %NULL. */
static GstBufferPool *
offered_pool (GstPad * pad, GstCaps * caps, guint * size, guint * min,
    guint * max)
{
  GstBufferPool *pool = NULL;
  GstQuery *query;
  guint i;

  query = gst_query_new_allocation (caps, TRUE);
  if (!gst_pad_peer_query (pad, query)) {
    GST_DEBUG_OBJECT (pad, "peer did not answer the allocation query");
    gst_query_unref (query);
    return NULL;
  }

  for (i = 0; i < gst_query_get_n_allocation_pools (query) && !pool; i++) {
    GstBufferPool *p = NULL;

    gst_query_parse_nth_allocation_pool (query, i, &p, size, min, max);
    if (p && GST_IS_PINNED_HOST_BUFFER_POOL (p))
      pool = p;
    else
      gst_clear_object (&p);
  }
  gst_query_unref (query);
  if (pool == NULL)
    GST_DEBUG_OBJECT (pad, "peer offers no page-locked pool");

  return pool;
}

/**
 * gst_pinned_host_buffer_pool_from_peer:
 * @pad: a source pad whose peer uploads with gst-pinned (an appsrc's
 *   source pad linked to a pinnedupload, say)
 * @caps: the caps of the frames
 * @min_buffers: at least this many buffers (0: as many as offered)
 *
 * For an application that makes its own frames: asks @pad's peer for the
 * page-locked pool it offers (an ALLOCATION query), configures it for
 * @caps with %GST_BUFFER_POOL_OPTION_VIDEO_META and activates it. Frames
 * written into its buffers and pushed are copied at the link's rate, and
 * the pool hands a buffer out again only once its copy is done, so the
 * application never overwrites a frame still being copied. Where another
 * upstream (the appsrc's own query) took the pool offered first, the peer
 * is asked again for one of its own.
 *
 * |[<!-- language="C" -->
 *   pool = gst_pinned_host_buffer_pool_from_peer (appsrc_pad, caps, 4);
 *   gst_buffer_pool_acquire_buffer (pool, &buf, NULL);
 *   gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE);
 *   ... write the frame ...
 *   gst_video_frame_unmap (&frame);
 *   gst_app_src_push_buffer (appsrc, buf);
 * ]|
 *
 * Returns: (transfer full) (nullable): the active pool, or %NULL when the
 *   peer offers no page-locked pool
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_host_buffer_pool_from_peer (GstPad * pad, GstCaps * caps,
    guint min_buffers)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint attempt, size = 0, min = 0, max = 0;

  g_return_val_if_fail (GST_IS_PAD (pad), NULL);
  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  gst_pinned_pool_init_debug ();

  /* The peer offers its pool while it is idle: another upstream that was
   * offered it too (an appsrc's own query) may activate it between the
   * answer and this configuration. Asked again, the peer then offers a new
   * one. */
  for (attempt = 0; attempt < 3; attempt++) {
    pool = offered_pool (pad, caps, &size, &min, &max);
    if (pool == NULL)
      return NULL;

    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, MAX (min,
            min_buffers), max ? MAX (max, min_buffers) : 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (gst_buffer_pool_set_config (pool, config) &&
        gst_buffer_pool_set_active (pool, TRUE))
      return pool;

    if (!gst_buffer_pool_is_active (pool))
      break;
    GST_DEBUG_OBJECT (pad, "%" GST_PTR_FORMAT " was taken by another "
        "upstream: asking again", pool);
    gst_clear_object (&pool);
  }

  GST_WARNING_OBJECT (pad, "cannot configure or activate %" GST_PTR_FORMAT,
      pool);
  gst_clear_object (&pool);
  return NULL;
}
