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

G_BEGIN_DECLS

#define GST_TYPE_PINNED_HOST_BUFFER_POOL (gst_pinned_host_buffer_pool_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedHostBufferPool, gst_pinned_host_buffer_pool,
    GST, PINNED_HOST_BUFFER_POOL, GstVideoBufferPool);

GST_PINNED_API
GstBufferPool * gst_pinned_host_buffer_pool_new   (GstPinnedContext * context);

#define GST_TYPE_PINNED_DEVICE_BUFFER_POOL (gst_pinned_device_buffer_pool_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedDeviceBufferPool, gst_pinned_device_buffer_pool,
    GST, PINNED_DEVICE_BUFFER_POOL, GstVideoBufferPool);

GST_PINNED_API
GstBufferPool * gst_pinned_device_buffer_pool_new (GstPinnedContext * context);

GST_PINNED_API
GstPinnedContext * gst_pinned_buffer_pool_get_context (GstBufferPool * pool);

GST_PINNED_API
gboolean        gst_pinned_buffer_pool_take_error (GstBufferPool * pool,
                                                    GError ** error);

G_END_DECLS
