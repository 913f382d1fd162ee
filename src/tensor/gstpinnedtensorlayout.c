/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The tensor layout of a video format: the element type of its
 * components, the shape of each plane (shared by export and import). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tensor/gstpinnedtensor-private.h"

/**
 * gst_pinned_tensor_error_quark:
 *
 * Returns: the quark of %GST_PINNED_TENSOR_ERROR
 *
 * Since: 0.1
 */
GQuark
gst_pinned_tensor_error_quark (void)
{
  return g_quark_from_static_string ("gst-pinned-tensor-error-quark");
}

GType
gst_pinned_tensor_flags_get_type (void)
{
  static gsize type = 0;
  static const GFlagsValue values[] = {
    {GST_PINNED_TENSOR_FLAG_NONE, "Read on the consumer's stream", "none"},
    {GST_PINNED_TENSOR_FLAG_NO_SYNC, "The consumer orders its work itself",
        "no-sync"},
    {GST_PINNED_TENSOR_FLAG_WRITE, "The consumer also writes", "write"},
    {GST_PINNED_TENSOR_FLAG_HOST_AS_CPU,
        "Page-locked memory as CPU memory, for a CPU consumer", "host-as-cpu"},
    {GST_PINNED_TENSOR_FLAG_VERSIONED,
        "A DLManagedTensorVersioned of DLPack 1.x", "versioned"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstPinnedTensorFlags", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The element size of @finfo's components, 1 or 2 bytes: every component
 * must be a whole element of its own. */
gboolean
gst_pinned_tensor_format_element (const GstVideoFormatInfo * finfo,
    guint * elem, GError ** error)
{
  guint c, depth = 0, size;

  if (GST_VIDEO_FORMAT_INFO_IS_COMPLEX (finfo) ||
      GST_VIDEO_FORMAT_INFO_IS_TILED (finfo) ||
      GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) || finfo->n_components == 0) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "%s has no tensor layout (packed in "
        "blocks, tiles or a palette): convert it to a format of whole 8- or "
        "16-bit components", finfo->name);
    return FALSE;
  }
  for (c = 0; c < finfo->n_components; c++)
    depth = MAX (depth, finfo->depth[c]);
  size = depth <= 8 ? 1 : depth <= 16 ? 2 : 0;
  for (c = 0; c < finfo->n_components && size; c++) {
    guint o;

    if (finfo->pixel_stride[c] <= 0 || finfo->pixel_stride[c] % size != 0 ||
        finfo->shift[c] + finfo->depth[c] > size * 8)
      size = 0;
    /* Packed in one word (RGB16, BGR10A2_LE): at the same offset. */
    for (o = 0; o < c && size; o++) {
      if (finfo->plane[o] == finfo->plane[c] &&
          finfo->poffset[o] == finfo->poffset[c])
        size = 0;
    }
  }
  if (size == 0) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "%s has components that share bytes "
        "or exceed 16 bits: it has no uint8 or uint16 tensor layout",
        finfo->name);
    return FALSE;
  }
  *elem = size;
  return TRUE;
}

/* The shape of @plane: the component with the finest sampling in it gives
 * the pixels, its pixel stride the elements per pixel. */
void
gst_pinned_tensor_plane_shape (const GstVideoInfo * info, guint plane,
    guint elem, PlaneShape * shape)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint best = -1;
  guint c;

  for (c = 0; c < finfo->n_components; c++) {
    if (finfo->plane[c] != plane)
      continue;
    if (best < 0 || finfo->pixel_stride[c] < finfo->pixel_stride[best])
      best = c;
  }
  g_assert (best >= 0);
  shape->width = GST_VIDEO_INFO_COMP_WIDTH (info, best);
  shape->height = GST_VIDEO_INFO_COMP_HEIGHT (info, best);
  shape->channels = finfo->pixel_stride[best] / elem;
}

void
gst_pinned_tensor_set_dtype (DLDataType * dtype, guint elem)
{
  dtype->code = kDLUInt;
  dtype->bits = elem * 8;
  dtype->lanes = 1;
}

/**
 * gst_pinned_tensor_n_planes:
 * @info: a #GstVideoInfo
 *
 * Returns: how many tensors gst_pinned_tensor_export_plane() makes of a
 *   frame of @info: one per plane
 *
 * Since: 0.1
 */
guint
gst_pinned_tensor_n_planes (const GstVideoInfo * info)
{
  g_return_val_if_fail (info != NULL && info->finfo != NULL, 0);

  return GST_VIDEO_INFO_N_PLANES (info);
}
