/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedbufferpool
 * @title: GstPinnedHostBufferPool, GstPinnedDeviceBufferPool
 * @short_description: video buffer pools of page-locked and device memory
 *
 * Both pools are #GstVideoBufferPool subclasses that allocate from
 * gst-pinned's allocators, so they support %GST_BUFFER_POOL_OPTION_VIDEO_META
 * and %GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT as any video pool does. They
 * allocate their minimum number of buffers when activated: page-locking
 * memory is slow (about 2 GB/s) and must not happen while streaming. The
 * minimum is one allocation, each buffer a piece of it in the order the
 * pool hands them out, so that a batch of consecutive frames copies from
 * one range into one range: a single copy. Each piece has fences of its
 * own; the allocation is freed with its last piece.
 *
 * The page-locked pool makes the memory its configuration asks for:
 * #GstPinnedHostFlags in the config (gst_pinned_host_buffer_pool_config_set_flags(),
 * portable by default), or the pool options
 * %GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED,
 * %GST_BUFFER_POOL_OPTION_PINNED_MAPPED and
 * %GST_BUFFER_POOL_OPTION_PINNED_HUGE_PAGES, which add their flag.
 *
 * Reuse follows the fences. The page-locked pool hands a released buffer
 * out again only once the GPU copies that read or write it are done: the
 * acquirer may write it with the CPU. It takes the least recently released
 * buffer, so it waits only when every buffer is still in flight, which is
 * the pipeline's natural backpressure. Such a wait then lasts until all but
 * the newest copy of that stream are done, so that the next buffers are
 * free without one (a question about running work costs the host
 * microseconds) and the device still has work queued.
 *
 * An acquirer that writes the buffer with the GPU only (pinneddownload)
 * passes %GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE: its stream
 * orders the copy after the buffer's last one, so the pool does not wait
 * for that, but only keeps that stream from running more than a few copies
 * ahead of the host, which would otherwise pile up its work until the
 * driver's queue is full. The device pool hands buffers out at once: the
 * next GPU writer orders itself after the previous readers on its own
 * stream (gst_pinned_memory_sync_stream()), and the host never waits.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedmemory-private.h"
#include "gst/pinned/gstpinnedbufferpool.h"
#include "gst/pinned/gstpinnedhostmemory.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_buffer_pool_debug, "pinnedbufferpool",
    "gst-pinned buffer pools");
#define GST_CAT_DEFAULT gst_pinned_buffer_pool_debug

#define FLAGS_FIELD "pinned-host-flags"

struct _GstPinnedHostBufferPool
{
  GstVideoBufferPool parent;

  GstPinnedContext *context;
  GstAllocator *allocator;
};

struct _GstPinnedDeviceBufferPool
{
  GstVideoBufferPool parent;

  GstPinnedContext *context;
  GstAllocator *allocator;
};

/* Either pool type may be the first one used. */
G_DEFINE_TYPE_WITH_CODE (GstPinnedHostBufferPool, gst_pinned_host_buffer_pool,
    GST_TYPE_VIDEO_BUFFER_POOL, ensure_debug_category ());

G_DEFINE_TYPE_WITH_CODE (GstPinnedDeviceBufferPool,
    gst_pinned_device_buffer_pool, GST_TYPE_VIDEO_BUFFER_POOL,
    ensure_debug_category ());

/* Whoever configures the pool may name another allocator (or none, as
 * GstBaseSrc does with the allocation query's first one): the pool's own
 * allocator is the point of the pool, so it always wins. */
static gboolean
set_config_with_allocator (GstBufferPool * pool, GstStructure * config,
    GstAllocator * own, GstBufferPoolClass * video_pool_class)
{
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  if (!gst_buffer_pool_config_get_allocator (config, &allocator, &params))
    gst_allocation_params_init (&params);

  if (allocator != own) {
    GST_DEBUG_OBJECT (pool, "using own allocator instead of %" GST_PTR_FORMAT,
        allocator);
    gst_buffer_pool_config_set_allocator (config, own, &params);
  }

  return video_pool_class->set_config (pool, config);
}

/* Starts @pool with its minimum of buffers in one block of @allocator;
 * where that block cannot be had, each buffer has its own allocation. */
static gboolean
start_reserved (GstBufferPool * pool, GstAllocator * allocator,
    GstBufferPoolClass * video_pool_class)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocationParams params;
  guint size = 0, min = 0;
  GError *error = NULL;
  gboolean ret;

  gst_buffer_pool_config_get_params (config, NULL, &size, &min, NULL);
  if (!gst_buffer_pool_config_get_allocator (config, NULL, &params))
    gst_allocation_params_init (&params);
  gst_structure_free (config);

  if (min > 1 && size > 0 &&
      !gst_pinned_allocator_reserve (GST_PINNED_ALLOCATOR (allocator), min,
          size + params.prefix + params.padding, &error)) {
    GST_INFO_OBJECT (pool, "no block for %u buffers, one allocation each: %s",
        min, error->message);
    g_clear_error (&error);
  }
  ret = video_pool_class->start (pool);
  gst_pinned_allocator_unreserve (GST_PINNED_ALLOCATOR (allocator));

  return ret;
}

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

  return set_config_with_allocator (pool, config, self->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class));
}

static gboolean
gst_pinned_host_buffer_pool_start (GstBufferPool * pool)
{
  return start_reserved (pool, GST_PINNED_HOST_BUFFER_POOL (pool)->allocator,
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
        gst_pinned_memory_pace_writer ((GstPinnedMemory *) mem);
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
      gst_pinned_memory_wait_for_reuse ((GstPinnedMemory *) mem);
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

static gboolean
gst_pinned_device_buffer_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstPinnedDeviceBufferPool *self = GST_PINNED_DEVICE_BUFFER_POOL (pool);

  return set_config_with_allocator (pool, config, self->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_device_buffer_pool_parent_class));
}

static gboolean
gst_pinned_device_buffer_pool_start (GstBufferPool * pool)
{
  return start_reserved (pool,
      GST_PINNED_DEVICE_BUFFER_POOL (pool)->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_device_buffer_pool_parent_class));
}

static void
gst_pinned_device_buffer_pool_finalize (GObject * object)
{
  GstPinnedDeviceBufferPool *self = GST_PINNED_DEVICE_BUFFER_POOL (object);

  gst_clear_object (&self->allocator);
  gst_clear_object (&self->context);

  G_OBJECT_CLASS (gst_pinned_device_buffer_pool_parent_class)->finalize
      (object);
}

static void
gst_pinned_device_buffer_pool_class_init (GstPinnedDeviceBufferPoolClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_pinned_device_buffer_pool_finalize;

  pool_class->set_config = gst_pinned_device_buffer_pool_set_config;
  pool_class->start = gst_pinned_device_buffer_pool_start;
}

static void
gst_pinned_device_buffer_pool_init (GstPinnedDeviceBufferPool * self)
{
}

/* Takes @allocator. */
static GstBufferPool *
device_pool_new (GstPinnedContext * context, GstAllocator * allocator)
{
  GstPinnedDeviceBufferPool *self;

  self = g_object_new (GST_TYPE_PINNED_DEVICE_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->allocator = allocator;

  return GST_BUFFER_POOL_CAST (self);
}

/**
 * gst_pinned_device_buffer_pool_new:
 * @context: the device context
 *
 * Returns: (transfer full): a new video buffer pool of device memory
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_device_buffer_pool_new (GstPinnedContext * context)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  return device_pool_new (context, gst_pinned_device_allocator_new (context));
}

/**
 * gst_pinned_device_buffer_pool_new_stream_ordered:
 * @context: the device context
 * @stream: the stream that allocates and frees the pool's memory
 *
 * A video buffer pool of device memory allocated and freed in @stream's
 * order (gst_pinned_device_allocator_new_stream_ordered()).
 *
 * Returns: (transfer full): a new video buffer pool of device memory
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_device_buffer_pool_new_stream_ordered (GstPinnedContext * context,
    GstPinnedStream * stream)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);
  g_return_val_if_fail (stream != NULL, NULL);

  return device_pool_new (context,
      gst_pinned_device_allocator_new_stream_ordered (context, stream));
}

/**
 * gst_pinned_buffer_pool_get_context:
 * @pool: a gst-pinned buffer pool
 *
 * Returns: (transfer none) (nullable): the device context of @pool, or
 *   %NULL when @pool is no gst-pinned pool
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_buffer_pool_get_context (GstBufferPool * pool)
{
  if (GST_IS_PINNED_HOST_BUFFER_POOL (pool))
    return GST_PINNED_HOST_BUFFER_POOL (pool)->context;
  if (GST_IS_PINNED_DEVICE_BUFFER_POOL (pool))
    return GST_PINNED_DEVICE_BUFFER_POOL (pool)->context;
  return NULL;
}

/**
 * gst_pinned_buffer_pool_take_error:
 * @pool: a gst-pinned buffer pool
 * @error: (out) (optional): why its last allocation failed
 *
 * Returns: %TRUE when an allocation of @pool failed and @error was set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_pool_take_error (GstBufferPool * pool, GError ** error)
{
  GstAllocator *allocator = NULL;

  if (GST_IS_PINNED_HOST_BUFFER_POOL (pool))
    allocator = GST_PINNED_HOST_BUFFER_POOL (pool)->allocator;
  else if (GST_IS_PINNED_DEVICE_BUFFER_POOL (pool))
    allocator = GST_PINNED_DEVICE_BUFFER_POOL (pool)->allocator;

  return allocator != NULL &&
      gst_pinned_allocator_take_error (GST_PINNED_ALLOCATOR (allocator), error);
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
 * application never overwrites a frame still being copied.
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
  GstQuery *query;
  guint i, size = 0, min = 0, max = 0;

  g_return_val_if_fail (GST_IS_PAD (pad), NULL);
  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  ensure_debug_category ();

  query = gst_query_new_allocation (caps, TRUE);
  if (!gst_pad_peer_query (pad, query)) {
    GST_DEBUG_OBJECT (pad, "peer did not answer the allocation query");
    gst_query_unref (query);
    return NULL;
  }

  for (i = 0; i < gst_query_get_n_allocation_pools (query) && !pool; i++) {
    GstBufferPool *p = NULL;

    gst_query_parse_nth_allocation_pool (query, i, &p, &size, &min, &max);
    if (p && GST_IS_PINNED_HOST_BUFFER_POOL (p))
      pool = p;
    else
      gst_clear_object (&p);
  }
  gst_query_unref (query);
  if (pool == NULL) {
    GST_DEBUG_OBJECT (pad, "peer offers no page-locked pool");
    return NULL;
  }

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, MAX (min,
          min_buffers), max ? MAX (max, min_buffers) : 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_WARNING_OBJECT (pad, "cannot configure or activate %" GST_PTR_FORMAT,
        pool);
    gst_object_unref (pool);
    return NULL;
  }

  return pool;
}
