/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedStream. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedstream.h"

G_BEGIN_DECLS

/* One stream per device (per CUDA driver context, with CUDA interop) that
 * elements with shared-stream=true use: their work serialises, the
 * baseline the overlap of own streams is measured against. Made on first
 * use, kept for the life of the process. */
G_GNUC_INTERNAL
GstPinnedStream *    gst_pinned_stream_get_shared  (GstPinnedContext * context,
                                                    GError ** error);

/* Unique for the life of the process, unlike a cudaStream_t. */
G_GNUC_INTERNAL
guint64              gst_pinned_stream_get_id      (GstPinnedStream * stream);

/* What a stream knows of its fences: their order and how far its work is
 * known done (gstpinnedfence.c). Each stream has one. */
typedef struct _GstPinnedFenceTrack GstPinnedFenceTrack;

G_GNUC_INTERNAL
GstPinnedFenceTrack *gst_pinned_stream_get_track   (GstPinnedStream * stream);

G_END_DECLS
