/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/video/video.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedhostmemory.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_HOST_BUFFER_POOL (gst_pinned_host_buffer_pool_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedHostBufferPool, gst_pinned_host_buffer_pool,
    GST, PINNED_HOST_BUFFER_POOL, GstVideoBufferPool);

GST_PINNED_API
GstBufferPool * gst_pinned_host_buffer_pool_new   (GstPinnedContext * context);

/**
 * GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED:
 *
 * The page-locked pool's memory is write-combined (see
 * %GST_PINNED_HOST_WRITE_COMBINED): only for buffers the CPU never reads.
 *
 * Since: 0.1
 */
#define GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED "GstBufferPoolOptionPinnedWriteCombined"

/**
 * GST_BUFFER_POOL_OPTION_PINNED_MAPPED:
 *
 * The page-locked pool's memory is mapped into the device address space
 * (see %GST_PINNED_HOST_MAPPED).
 *
 * Since: 0.1
 */
#define GST_BUFFER_POOL_OPTION_PINNED_MAPPED "GstBufferPoolOptionPinnedMapped"

/**
 * GST_BUFFER_POOL_OPTION_PINNED_HUGE_PAGES:
 *
 * The page-locked pool's memory is backed by huge pages (see
 * %GST_PINNED_HOST_HUGE_PAGES).
 *
 * Since: 0.1
 */
#define GST_BUFFER_POOL_OPTION_PINNED_HUGE_PAGES "GstBufferPoolOptionPinnedHugePages"

/**
 * GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE:
 *
 * A #GstBufferPoolAcquireParams flag for the page-locked pool: the acquirer
 * writes the buffer with GPU work only, which it orders after the buffer's
 * fences on its own stream (gst_pinned_buffer_sync_stream() with
 * %GST_MAP_WRITE), so the pool hands the buffer out without a host wait
 * for its last copy. A CPU map still waits, as always.
 *
 * Since: 0.1
 */
#define GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE \
  ((GstBufferPoolAcquireFlags) (GST_BUFFER_POOL_ACQUIRE_FLAG_LAST << 0))

GST_PINNED_API
void            gst_pinned_host_buffer_pool_config_set_flags (GstStructure * config,
                                                              GstPinnedHostFlags flags);

GST_PINNED_API
GstPinnedHostFlags gst_pinned_host_buffer_pool_config_get_flags (GstStructure * config);

#define GST_TYPE_PINNED_DEVICE_BUFFER_POOL (gst_pinned_device_buffer_pool_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedDeviceBufferPool, gst_pinned_device_buffer_pool,
    GST, PINNED_DEVICE_BUFFER_POOL, GstVideoBufferPool);

GST_PINNED_API
GstBufferPool * gst_pinned_device_buffer_pool_new (GstPinnedContext * context);

GST_PINNED_API
GstBufferPool * gst_pinned_device_buffer_pool_new_stream_ordered
                                                  (GstPinnedContext * context,
                                                   GstPinnedStream * stream);

GST_PINNED_API
GstBufferPool * gst_pinned_host_buffer_pool_from_peer (GstPad * pad,
                                                       GstCaps * caps,
                                                       guint min_buffers);

GST_PINNED_API
GstPinnedContext * gst_pinned_buffer_pool_get_context (GstBufferPool * pool);

GST_PINNED_API
gboolean        gst_pinned_buffer_pool_take_error (GstBufferPool * pool,
                                                    GError ** error);

G_END_DECLS
