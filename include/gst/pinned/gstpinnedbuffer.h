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
#include <gst/pinned/gstpinnedmemory.h>

G_BEGIN_DECLS

GST_PINNED_API
gboolean         gst_pinned_buffer_sync_stream  (GstBuffer * buffer,
                                                 GstPinnedStream * stream,
                                                 GstMapFlags access,
                                                 GError ** error);

GST_PINNED_API
void             gst_pinned_buffer_add_fence    (GstBuffer * buffer,
                                                 GstPinnedFence * fence,
                                                 GstMapFlags access);

GST_PINNED_API
gboolean         gst_pinned_buffer_record_fence (GstBuffer * buffer,
                                                 GstPinnedStream * stream,
                                                 GstMapFlags access,
                                                 GError ** error);

GST_PINNED_API
gboolean         gst_pinned_buffer_wait         (GstBuffer * buffer,
                                                 GstMapFlags access,
                                                 GError ** error);

GST_PINNED_API
gboolean         gst_pinned_buffer_is_idle      (GstBuffer * buffer,
                                                 GstMapFlags access);

GST_PINNED_API
GstPinnedContext * gst_pinned_buffer_get_context (GstBuffer * buffer);

GST_PINNED_API
gboolean         gst_pinned_buffer_get_plane    (GstBuffer * buffer,
                                                 const GstVideoInfo * info,
                                                 guint plane,
                                                 gpointer * data,
                                                 gint * stride);

G_END_DECLS
