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
 * memory is slow (about 2 GB/s) and must not happen while streaming.
 *
 * Reuse follows the fences. The page-locked pool hands a released buffer
 * out again only once the GPU copies that read or write it are done: the
 * acquirer may write it with the CPU. It takes the least recently released
 * buffer, so it waits only when every buffer is still in flight, which is
 * the pipeline's natural backpressure. The device pool hands buffers out at
 * once: the next GPU writer orders itself after the previous readers on
 * its own stream (gst_pinned_memory_sync_stream()), and the host never
 * waits.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedbufferpool.h"
#include "gst/pinned/gstpinnedhostmemory.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_pinned_buffer_pool_debug

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

G_DEFINE_TYPE_WITH_CODE (GstPinnedHostBufferPool, gst_pinned_host_buffer_pool,
    GST_TYPE_VIDEO_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_buffer_pool_debug, "pinnedbufferpool",
        0, "gst-pinned buffer pools"));

G_DEFINE_TYPE (GstPinnedDeviceBufferPool, gst_pinned_device_buffer_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);

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

static gboolean
gst_pinned_host_buffer_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstPinnedHostBufferPool *self = GST_PINNED_HOST_BUFFER_POOL (pool);

  return set_config_with_allocator (pool, config, self->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class));
}

static GstFlowReturn
gst_pinned_host_buffer_pool_acquire_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret;
  GError *error = NULL;
  guint i, n;

  ret = GST_BUFFER_POOL_CLASS (gst_pinned_host_buffer_pool_parent_class)
      ->acquire_buffer (pool, buffer, params);
  if (ret != GST_FLOW_OK)
    return ret;

  /* The acquirer may write it with the CPU: a copy must not still read it
   * (nor still write it). Mostly already done; else this is backpressure.
   * A write access: after a device error the old copies no longer matter. */
  n = gst_buffer_n_memory (*buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (*buffer, i);

    if (!gst_is_pinned_memory (mem))
      continue;
    if (!gst_pinned_memory_wait ((GstPinnedMemory *) mem, GST_MAP_WRITE,
            &error)) {
      GST_ERROR_OBJECT (pool, "waiting for buffer failed: %s", error->message);
      g_clear_error (&error);
      gst_buffer_pool_release_buffer (pool, *buffer);
      *buffer = NULL;
      return GST_FLOW_ERROR;
    }
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

  pool_class->set_config = gst_pinned_host_buffer_pool_set_config;
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
}

static void
gst_pinned_device_buffer_pool_init (GstPinnedDeviceBufferPool * self)
{
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
  GstPinnedDeviceBufferPool *self;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_PINNED_DEVICE_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->allocator = gst_pinned_device_allocator_new (context);

  return GST_BUFFER_POOL_CAST (self);
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
