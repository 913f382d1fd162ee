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
#include <gst/pinned/gstpinnedstream.h>
#include <gst/pinned/gstpinnedpageable.h>

G_BEGIN_DECLS

GST_PINNED_API
gboolean gst_pinned_transfer_video_frame (GstPinnedStream * stream,
                                          const GstVideoInfo * info,
                                          GstBuffer * src,
                                          GstBuffer * dst,
                                          GError ** error);

GST_PINNED_API
gboolean gst_pinned_transfer_video_frame_full (GstPinnedStream * stream,
                                               const GstVideoInfo * info,
                                               GstBuffer * src,
                                               GstBuffer * dst,
                                               GstPinnedPageable * pageable,
                                               GError ** error);

G_END_DECLS
