/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedFence. */

#pragma once

#include "gstpinnedstream-private.h"
#include "gst/pinned/gstpinnedfence.h"

G_BEGIN_DECLS

/* The id of the stream the fence was recorded on (see
 * gst_pinned_stream_get_id()). */
G_GNUC_INTERNAL
guint64              gst_pinned_fence_get_stream_id (GstPinnedFence * fence);

/* Whether the work before @fence has finished, without waiting. Unlike
 * gst_pinned_fence_is_signaled() it tells a device error from finished
 * work: FALSE, with @error set. */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_query         (GstPinnedFence * fence,
                                                     gboolean * signaled,
                                                     GError ** error);

G_END_DECLS
