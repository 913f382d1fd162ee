/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's caps: the element type and channel order enums, the sink
 * pads' raw video (pinned, nvcodec's CUDA or system memory), the source
 * pad's tensor caps and a batch's from its shape. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>
#include <gst/pinned/pinned.h>
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#endif

#include <gst/base/gstaggregator.h>

#include "gstpinnedbatchcaps.h"

#define SINK_FORMATS "{ NV12, NV21, I420, YV12, P010_10LE, P016_LE, RGBA, " \
    "BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, RGBP, BGRP }"

#define SRC_CAPS GST_PINNED_BATCH_CAPS_NAME "(" \
    GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE "), batch = (int) [ 1, MAX ], " \
    "channels = (int) 3, height = (int) [ 1, 32767 ], " \
    "width = (int) [ 1, 32767 ], type = (string) { uint8, float16, float32 }, " \
    "channel-order = (string) { RGB, BGR }, layout = (string) NCHW"

GType
gst_pinned_batch_type_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_PINNED_BATCH_TYPE_UINT8, "8-bit levels, not normalised", "uint8"},
    {GST_PINNED_BATCH_TYPE_FLOAT16, "IEEE half, normalised", "float16"},
    {GST_PINNED_BATCH_TYPE_FLOAT32, "IEEE single, normalised", "float32"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstPinnedBatchType", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_pinned_batch_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_PINNED_BATCH_ORDER_RGB, "red, green, blue", "RGB"},
    {GST_PINNED_BATCH_ORDER_BGR, "blue, green, red", "BGR"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstPinnedBatchOrder", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

const gchar *
gst_pinned_batch_caps_type_name (GstPinnedBatchType type)
{
  return type == GST_PINNED_BATCH_TYPE_UINT8 ? "uint8" :
      type == GST_PINNED_BATCH_TYPE_FLOAT16 ? "float16" : "float32";
}

gsize
gst_pinned_batch_caps_type_size (GstPinnedBatchType type)
{
  return type == GST_PINNED_BATCH_TYPE_UINT8 ? 1 :
      type == GST_PINNED_BATCH_TYPE_FLOAT16 ? 2 : 4;
}

GstCaps *
gst_pinned_batch_caps_sink (void)
{
  GstCaps *caps = gst_caps_from_string (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
      (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, SINK_FORMATS));

#ifdef HAVE_CUDA_INTEROP
  gst_caps_append (caps, gst_caps_from_string
      (GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY,
              SINK_FORMATS)));
#endif
  gst_caps_append (caps, gst_caps_from_string (GST_VIDEO_CAPS_MAKE
          (SINK_FORMATS)));
  return caps;
}

GstCaps *
gst_pinned_batch_caps_src (void)
{
  return gst_caps_from_string (SRC_CAPS);
}

/* A batch's caps: N slots of 3 planes, width × height, type and order. */
GstCaps *
gst_pinned_batch_caps_new (guint n, gint width, gint height,
    GstPinnedBatchType type, GstPinnedBatchOrder order)
{
  GstCaps *caps;

  caps = gst_caps_new_simple (GST_PINNED_BATCH_CAPS_NAME,
      "batch", G_TYPE_INT, (gint) n, "channels", G_TYPE_INT, 3,
      "height", G_TYPE_INT, height, "width", G_TYPE_INT, width,
      "type", G_TYPE_STRING, gst_pinned_batch_caps_type_name (type),
      "channel-order", G_TYPE_STRING,
      order == GST_PINNED_BATCH_ORDER_RGB ? "RGB" : "BGR",
      "layout", G_TYPE_STRING, "NCHW", NULL);
  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, NULL));
  return caps;
}

/* The batch, width and height of the fixed caps @caps of a batch. */
gboolean
gst_pinned_batch_caps_get_size (GstCaps * caps, gint * batch, gint * width,
    gint * height)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);

  return gst_structure_get_int (s, "batch", batch) &&
      gst_structure_get_int (s, "width", width) &&
      gst_structure_get_int (s, "height", height);
}

/* The element's pad templates: request sink pads of @pad_type, the
 * batches' source pad. */
void
gst_pinned_batch_caps_add_templates (GstElementClass * klass, GType pad_type)
{
  GstCaps *caps = gst_pinned_batch_caps_sink ();
  GstPadTemplate *templ;

  templ = gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
      GST_PAD_REQUEST, caps, pad_type);
  gst_element_class_add_pad_template (klass, templ);
  gst_caps_unref (caps);
  caps = gst_pinned_batch_caps_src ();
  templ = gst_pad_template_new_with_gtype ("src", GST_PAD_SRC,
      GST_PAD_ALWAYS, caps, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_pad_template (klass, templ);
  gst_caps_unref (caps);
}
