/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-pinnedconvert
 * @title: pinnedconvert
 * @see_also: pinnedupload, pinneddownload
 *
 * Converts 4:2:0 YUV video in CUDA device memory (NV12, NV21, I420, YV12),
 * as decoders and cameras deliver it, to RGB for analytics and inference:
 * packed (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR) or planar (RGBP,
 * BGRP), on the GPU, without leaving device memory. The matrix (BT.601,
 * BT.709, BT.2020) and the range (limited or full) come from the input's
 * colorimetry. The kernel runs on the element's own stream after the copy
 * or kernel that wrote the input, and nothing waits on the host.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! pinnedconvert ! video/x-raw(memory:PinnedDevice),format=RGBP ! pinneddownload ! fakesink
 * ]| NV12 to planar RGB, as many networks take it.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=I420,colorimetry=bt709 ! pinnedupload ! pinnedconvert ! pinneddownload ! videoconvert ! autovideosink
 * ]| BT.709 I420 to RGBA, shown.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "gstpinnedconvert.h"
#include "kernels/convert.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_convert_debug);
#define GST_CAT_DEFAULT gst_pinned_convert_debug

#define SINK_FORMATS "{ NV12, NV21, I420, YV12 }"
#define SRC_FORMATS \
    "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGBP, BGRP }"

struct _GstPinnedConvert
{
  GstPinnedFilter parent;

  /* Coefficients for the negotiated input, in fixed point. */
  PinnedConvertParams coeffs;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, SINK_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, SRC_FORMATS)));

#define gst_pinned_convert_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedConvert, gst_pinned_convert,
    GST_TYPE_PINNED_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_convert_debug, "pinnedconvert", 0,
        "YUV to RGB on the GPU"));
GST_ELEMENT_REGISTER_DEFINE (pinnedconvert, "pinnedconvert", GST_RANK_NONE,
    GST_TYPE_PINNED_CONVERT);

/* Same size, frame rate and memory; any format of the other pad. */
static GstCaps *
gst_pinned_convert_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  GstCaps *templ = gst_pad_get_pad_template_caps (other);
  GstCaps *ret = gst_caps_new_empty ();
  GstCaps *tmp;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

    gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site",
        NULL);
    ret = gst_caps_merge_structure_full (ret, s,
        gst_caps_features_copy (gst_caps_get_features (caps, i)));
  }

  tmp = gst_caps_intersect_full (ret, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (ret);
  gst_caps_unref (templ);
  ret = tmp;

  if (filter) {
    tmp = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }

  return ret;
}

static gint32
fixed (gdouble v)
{
  return (gint32) (v * (1 << PINNED_CONVERT_SHIFT) + (v < 0 ? -0.5 : 0.5));
}

static gboolean
gst_pinned_convert_set_info (GstPinnedBaseTransform * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstPinnedConvert *self = GST_PINNED_CONVERT (base);
  GstVideoColorimetry cinfo = in_info->colorimetry;
  gdouble kr, kb, kg, ys, cs;
  gboolean full = cinfo.range == GST_VIDEO_COLOR_RANGE_0_255;

  if (!gst_video_color_matrix_get_Kr_Kb (cinfo.matrix, &kr, &kb)) {
    GST_DEBUG_OBJECT (self, "no YUV matrix in the input, using BT.601");
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  }
  kg = 1.0 - kr - kb;
  ys = full ? 1.0 : 255.0 / 219.0;
  cs = full ? 1.0 : 255.0 / 224.0;

  self->coeffs.y_offset = full ? 0 : 16;
  self->coeffs.y_scale = fixed (ys);
  self->coeffs.r_v = fixed (cs * 2.0 * (1.0 - kr));
  self->coeffs.g_u = fixed (cs * 2.0 * kb * (1.0 - kb) / kg);
  self->coeffs.g_v = fixed (cs * 2.0 * kr * (1.0 - kr) / kg);
  self->coeffs.b_u = fixed (cs * 2.0 * (1.0 - kb));

  GST_INFO_OBJECT (self, "Kr %.4f Kb %.4f, %s range -> %s", kr, kb,
      full ? "full" : "limited", GST_VIDEO_INFO_NAME (out_info));

  return GST_PINNED_BASE_TRANSFORM_CLASS (parent_class)->set_info (base,
      incaps, in_info, outcaps, out_info);
}

static gboolean
gst_pinned_convert_filter (GstPinnedFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out, gpointer stream, GError ** error)
{
  GstPinnedConvert *self = GST_PINNED_CONVERT (filter);
  PinnedConvertParams p = self->coeffs;
  static const gint comps[3] = { GST_VIDEO_COMP_R, GST_VIDEO_COMP_G,
    GST_VIDEO_COMP_B
  };
  gint i;

  p.y = GST_VIDEO_FRAME_COMP_DATA (in, GST_VIDEO_COMP_Y);
  p.u = GST_VIDEO_FRAME_COMP_DATA (in, GST_VIDEO_COMP_U);
  p.v = GST_VIDEO_FRAME_COMP_DATA (in, GST_VIDEO_COMP_V);
  p.y_pitch = GST_VIDEO_FRAME_COMP_STRIDE (in, GST_VIDEO_COMP_Y);
  p.uv_pitch = GST_VIDEO_FRAME_COMP_STRIDE (in, GST_VIDEO_COMP_U);
  p.uv_step = GST_VIDEO_FRAME_COMP_PSTRIDE (in, GST_VIDEO_COMP_U);
  p.width = GST_VIDEO_FRAME_WIDTH (in);
  p.height = GST_VIDEO_FRAME_HEIGHT (in);

  for (i = 0; i < 3; i++) {
    p.out[i] = GST_VIDEO_FRAME_COMP_DATA (out, comps[i]);
    p.out_pitch[i] = GST_VIDEO_FRAME_COMP_STRIDE (out, comps[i]);
    p.out_step[i] = GST_VIDEO_FRAME_COMP_PSTRIDE (out, comps[i]);
  }
  /* The fourth byte of packed formats: alpha, or padding; 255 either way,
   * so that no byte of the output is left unwritten. */
  p.out[3] = NULL;
  if (GST_VIDEO_FRAME_N_PLANES (out) == 1) {
    gint pad = 6 - GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_R) -
        GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_G) -
        GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_B);

    p.out[3] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0) + pad;
    p.out_pitch[3] = GST_VIDEO_FRAME_PLANE_STRIDE (out, 0);
    p.out_step[3] = 4;
  }

  return gst_pinned_cuda_result ((cudaError_t) pinned_convert_launch (&p,
          stream), error);
}

static void
gst_pinned_convert_class_init (GstPinnedConvertClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstPinnedBaseTransformClass *base_class =
      GST_PINNED_BASE_TRANSFORM_CLASS (klass);
  GstPinnedFilterClass *filter_class = GST_PINNED_FILTER_CLASS (klass);

  /* With CUDA interop, nvcodec's CUDA memory too. */
  gst_pinned_filter_class_add_sink_pad_template (filter_class,
      gst_static_pad_template_get_caps (&sink_template));
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA colour converter", "Filter/Converter/Video/Hardware",
      "Converts 4:2:0 YUV to RGB in CUDA device memory",
      "gst-pinned developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_convert_transform_caps);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_pinned_convert_set_info);
  filter_class->filter = GST_DEBUG_FUNCPTR (gst_pinned_convert_filter);
}

static void
gst_pinned_convert_init (GstPinnedConvert * self)
{
}
