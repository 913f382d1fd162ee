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
 * memory is slower than copying it and must not happen while streaming. The
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

#include "memory/gstpinnedbufferpool-private.h"

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
