/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: where a frame's planes lie in a buffer
 * (gstpinnedlayout.c). */

#pragma once

#include <gst/video/video.h>

#include "gstpinned-private.h"

G_BEGIN_DECLS

/* Rows of plane @plane; the palette of paletted formats is one row, and so
 * is a plane of tiles (its tiles are copied as the bytes they are). */
G_GNUC_INTERNAL
guint    gst_pinned_layout_plane_rows     (const GstVideoInfo * info,
                                           guint plane);

/* The bytes of a row of plane @plane that hold pixels. */
G_GNUC_INTERNAL
gsize    gst_pinned_layout_row_bytes      (const GstVideoInfo * info,
                                           guint plane);

/* The offsets and strides of @buffer's planes: its GstVideoMeta's, else
 * @info's; FALSE with @error (naming the buffer @what) where the meta
 * describes another frame than @info or places a plane past G_MAXINT. */
G_GNUC_INTERNAL
gboolean gst_pinned_layout_of             (GstBuffer * buffer,
                                           const GstVideoInfo * info,
                                           gint * offset,
                                           gint * stride,
                                           const gchar * what,
                                           GError ** error);

/* Whether every plane, at @offset with @stride, lies within @size bytes;
 * else sets @error, naming the buffer @what. */
G_GNUC_INTERNAL
gboolean gst_pinned_layout_fits           (const GstVideoInfo * info,
                                           const gint * offset,
                                           const gint * stride,
                                           gboolean has_meta,
                                           gsize size,
                                           const gchar * what,
                                           GError ** error);

/* Whether the frame of @info, laid out as @buffer's GstVideoMeta (or @info)
 * says, lies within @buffer; @what names the buffer in the error. (Named
 * for its first user, the transfer; the filters check with it too.) */
G_GNUC_INTERNAL
gboolean gst_pinned_layout_check (GstBuffer * buffer,
                                  const GstVideoInfo * info,
                                  const gchar * what,
                                  GError ** error);

G_END_DECLS
