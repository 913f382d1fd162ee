/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The pool of device video buffers (GstPinnedDeviceBufferPool), from
 * cudaMalloc() or stream-ordered allocation: it hands buffers out at once,
 * as the next GPU writer orders itself after the readers on its stream.
 * The pools' common part is gstpinnedpool.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedbufferpool-private.h"
#include "gst/pinned/gstpinneddevicememory.h"

#define GST_CAT_DEFAULT gst_pinned_buffer_pool_debug

/* Either pool type may be the first one used. */
G_DEFINE_TYPE_WITH_CODE (GstPinnedDeviceBufferPool,
    gst_pinned_device_buffer_pool, GST_TYPE_VIDEO_BUFFER_POOL,
    gst_pinned_pool_init_debug ());

static gboolean
gst_pinned_device_buffer_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstPinnedDeviceBufferPool *self = GST_PINNED_DEVICE_BUFFER_POOL (pool);

  return gst_pinned_pool_set_config_with_allocator (pool, config,
      self->allocator,
      GST_BUFFER_POOL_CLASS (gst_pinned_device_buffer_pool_parent_class));
}

static gboolean
gst_pinned_device_buffer_pool_start (GstBufferPool * pool)
{
  return gst_pinned_pool_start_reserved (pool,
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
