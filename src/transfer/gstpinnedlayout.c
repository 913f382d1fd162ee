/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Where a frame's planes lie in a buffer (its GstVideoMeta, else its
 * caps), and whether they fit in it: checked before any copy, so that a
 * buffer that does not hold its frame is refused, not read or written out
 * of bounds. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "transfer/gstpinnedlayout-private.h"

/* Rows of a plane; the palette of paletted formats is one row, and so is a
 * plane of tiles (its tiles are copied as the bytes they are). */
guint
gst_pinned_layout_plane_rows (const GstVideoInfo * info, guint plane)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  if ((GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1) ||
      GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    return 1;

  gst_video_format_info_component (finfo, plane, comp);
  return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
      GST_VIDEO_INFO_FIELD_HEIGHT (info));
}

/* The bytes of a row of a plane that hold pixels: the widest of its
 * components; the palette is 256 entries of 4 bytes; a plane of tiles is
 * its tiles (its stride counts tiles, not bytes). */
gsize
gst_pinned_layout_row_bytes (const GstVideoInfo * info, guint plane)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize bytes = 0;
  guint i;

  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1)
    return 256 * 4;
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);

    return (gsize) GST_VIDEO_TILE_X_TILES (stride) *
        GST_VIDEO_TILE_Y_TILES (stride) *
        GST_VIDEO_FORMAT_INFO_TILE_SIZE (finfo, plane);
  }

  gst_video_format_info_component (finfo, plane, comp);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[i]);

    /* Pixels packed in groups (v210): the default stride is one row. */
    if (pstride <= 0)
      return GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
    bytes = MAX (bytes, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[i]) *
        pstride);
  }
  return bytes;
}

/* Whether every plane, at @offset with @stride, lies within @size bytes. A
 * buffer smaller than its caps, or a GstVideoMeta that places a plane
 * past the end, would have the copy read or write out of bounds, or leave
 * part of the destination as it was. */
gboolean
gst_pinned_layout_fits (const GstVideoInfo * info, const gint * offset,
    const gint * stride, gboolean has_meta, gsize size, const gchar * what,
    GError ** error)
{
  gboolean default_layout = TRUE;
  guint p;

  if (!has_meta && size < info->size) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "the %s buffer holds %" G_GSIZE_FORMAT " bytes, but a %dx%d %s "
        "frame of its caps needs %" G_GSIZE_FORMAT ": the caps do not "
        "describe the buffers", what, size, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info), info->size);
    return FALSE;
  }

  /* The layout of @info holds the frame in info->size bytes: per frame,
   * only other layouts are checked plane by plane. */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    default_layout = default_layout && offset[p] >= 0 &&
        (gsize) offset[p] == info->offset[p] && stride[p] == info->stride[p];
  }
  if (default_layout && size >= info->size)
    return TRUE;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row = gst_pinned_layout_row_bytes (info, p);
    guint rows = gst_pinned_layout_plane_rows (info, p);
    gsize end;

    /* One row (a palette) has no stride to speak of. */
    if (offset[p] < 0 || (rows > 1 && (stride[p] <= 0 ||
                (gsize) stride[p] < row))) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer has offset %d and stride %d, but a row "
          "of a %dx%d %s frame holds %" G_GSIZE_FORMAT " bytes: its "
          "GstVideoMeta does not fit its caps", p, what, offset[p], stride[p],
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), row);
      return FALSE;
    }
    end = offset[p] + (gsize) stride[p] * (rows - 1) + row;
    if (end > size) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer ends at byte %" G_GSIZE_FORMAT
          " (offset %d, stride %d, %u rows of a %dx%d %s frame), past its %"
          G_GSIZE_FORMAT " bytes: %s", p, what, end, offset[p], stride[p],
          rows, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), size, has_meta ?
          "its GstVideoMeta does not fit the buffer" :
          "the caps do not describe the buffers");
      return FALSE;
    }
  }

  return TRUE;
}

/* The layout of @buffer: its GstVideoMeta's, else @info's. A meta must
 * describe a frame of the caps, as gst_video_frame_map() requires (which
 * calls any other a programming error): the same format and planes, at
 * least the caps' width and height. A meta's offsets are gsize, the
 * layout's gint (as strides are): an offset past G_MAXINT is refused,
 * where it would wrap to another place in the buffer (4 GiB + 512 to 512)
 * and the copy take bytes the meta does not name. */
gboolean
gst_pinned_layout_of (GstBuffer * buffer, const GstVideoInfo * info,
    gint * offset, gint * stride, const gchar * what, GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  guint p;

  if (meta && (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
          meta->n_planes != GST_VIDEO_INFO_N_PLANES (info) ||
          meta->width < (guint) GST_VIDEO_INFO_WIDTH (info) ||
          meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info))) {
    GEnumClass *formats = g_type_class_ref (GST_TYPE_VIDEO_FORMAT);

    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "the GstVideoMeta of the %s buffer describes a %ux%u %s frame in %u "
        "plane(s), its caps a %dx%d %s frame in %u: its GstVideoMeta does "
        "not fit its caps", what, meta->width, meta->height,
        g_enum_get_value (formats, meta->format) ?
        gst_video_format_to_string (meta->format) : "unknown",
        meta->n_planes, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_N_PLANES (info));
    g_type_class_unref (formats);
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (meta && meta->offset[p] > G_MAXINT) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer is at offset %" G_GSIZE_FORMAT
          " of its GstVideoMeta, past the %d bytes a plane may start in",
          p, what, meta->offset[p], G_MAXINT);
      return FALSE;
    }
    offset[p] = meta ? meta->offset[p] : info->offset[p];
    stride[p] = meta ? meta->stride[p] : info->stride[p];
  }
  return TRUE;
}

gboolean
gst_pinned_layout_check (GstBuffer * buffer,
    const GstVideoInfo * info, const gchar * what, GError ** error)
{
  gint offset[GST_VIDEO_MAX_PLANES], stride[GST_VIDEO_MAX_PLANES];

  if (!gst_pinned_layout_of (buffer, info, offset, stride, what, error))
    return FALSE;
  return gst_pinned_layout_fits (info, offset, stride,
      gst_buffer_get_video_meta (buffer) != NULL,
      gst_buffer_get_size (buffer), what, error);
}
