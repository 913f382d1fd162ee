/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include "convert.h"
#include "convertref.h"

static gint32
fixed (gdouble v)
{
  return (gint32) (v * (1 << PINNED_CONVERT_SHIFT) + (v < 0 ? -0.5 : 0.5));
}

GstBuffer *
pinned_test_reference_convert (GstBuffer * in, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, out_info->size, NULL);
  GstVideoFrame fi, fo;
  PinnedConvertParams p = { 0, };
  gboolean full = in_info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  gdouble kr, kb, kg, ys, cs;
  const gint comps[3] = { GST_VIDEO_COMP_R, GST_VIDEO_COMP_G,
    GST_VIDEO_COMP_B
  };
  gint x, y, i;

  /* As pinnedconvert: an unknown matrix is BT.601. */
  if (!gst_video_color_matrix_get_Kr_Kb (in_info->colorimetry.matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  kg = 1 - kr - kb;
  ys = full ? 1 : 255.0 / 219;
  cs = full ? 1 : 255.0 / 224;
  p.y_offset = full ? 0 : 16;
  p.y_scale = fixed (ys);
  p.r_v = fixed (cs * 2 * (1 - kr));
  p.g_u = fixed (cs * 2 * kb * (1 - kb) / kg);
  p.g_v = fixed (cs * 2 * kr * (1 - kr) / kg);
  p.b_u = fixed (cs * 2 * (1 - kb));

  fail_unless (gst_video_frame_map (&fi, in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, out_info, out, GST_MAP_WRITE));
  p.y = GST_VIDEO_FRAME_COMP_DATA (&fi, GST_VIDEO_COMP_Y);
  p.u = GST_VIDEO_FRAME_COMP_DATA (&fi, GST_VIDEO_COMP_U);
  p.v = GST_VIDEO_FRAME_COMP_DATA (&fi, GST_VIDEO_COMP_V);
  p.y_pitch = GST_VIDEO_FRAME_COMP_STRIDE (&fi, GST_VIDEO_COMP_Y);
  p.uv_pitch = GST_VIDEO_FRAME_COMP_STRIDE (&fi, GST_VIDEO_COMP_U);
  p.uv_step = GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, GST_VIDEO_COMP_U);
  p.width = GST_VIDEO_INFO_WIDTH (in_info);
  p.height = GST_VIDEO_INFO_HEIGHT (in_info);
  for (i = 0; i < 3; i++) {
    p.out[i] = GST_VIDEO_FRAME_COMP_DATA (&fo, comps[i]);
    p.out_pitch[i] = GST_VIDEO_FRAME_COMP_STRIDE (&fo, comps[i]);
    p.out_step[i] = GST_VIDEO_FRAME_COMP_PSTRIDE (&fo, comps[i]);
  }
  if (GST_VIDEO_INFO_N_PLANES (out_info) == 1) {
    /* alpha or padding: 255 */
    p.out[3] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0) + 6 -
        GST_VIDEO_FRAME_COMP_POFFSET (&fo, GST_VIDEO_COMP_R) -
        GST_VIDEO_FRAME_COMP_POFFSET (&fo, GST_VIDEO_COMP_G) -
        GST_VIDEO_FRAME_COMP_POFFSET (&fo, GST_VIDEO_COMP_B);
    p.out_pitch[3] = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
    p.out_step[3] = 4;
  }
  for (y = 0; y < p.height; y++)
    for (x = 0; x < p.width; x++)
      pinned_convert_pixel (&p, x, y);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);

  return out;
}
