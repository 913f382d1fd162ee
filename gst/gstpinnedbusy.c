/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-pinnedbusy
 * @title: pinnedbusy
 * @see_also: pinnedupload, pinneddownload
 *
 * A test filter: per frame it runs a kernel that keeps the GPU busy for
 * `busy-us` microseconds, on its own stream, in place, leaving the frame as
 * it is. With it, a pipeline shows whether GPU work overlaps the copies:
 * with copies and kernel on their own streams, the frame period of
 * `pinnedupload ! pinnedbusy ! pinneddownload` is the longest of the three,
 * not their sum.
 *
 * It allocates nothing for gst-pinned device memory. nvcodec's CUDA memory
 * (in builds with CUDA interop) goes back to its pool unchanged: the kernel
 * runs on a copy, in a pool of twice #GstPinnedBaseTransform:pool-size
 * frames.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=3840,height=2160 ! pinnedupload ! pinnedbusy busy-us=600 ! pinneddownload ! fakesink
 * ]| A 600 us kernel between the copies of 4K frames.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "gstpinnedbusy.h"
#include "kernels/busy.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_busy_debug);
#define GST_CAT_DEFAULT gst_pinned_busy_debug

#define DEFAULT_BUSY_US 1000

enum
{
  PROP_0,
  PROP_BUSY_US,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

struct _GstPinnedBusy
{
  GstPinnedFilter parent;

  guint busy_us;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_PINNED_DEVICE_VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_PINNED_DEVICE_VIDEO_CAPS));

#define gst_pinned_busy_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedBusy, gst_pinned_busy,
    GST_TYPE_PINNED_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_busy_debug, "pinnedbusy", 0,
        "GPU busy test filter"));
GST_ELEMENT_REGISTER_DEFINE (pinnedbusy, "pinnedbusy", GST_RANK_NONE,
    GST_TYPE_PINNED_BUSY);

static void
gst_pinned_busy_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedBusy *self = GST_PINNED_BUSY (object);

  switch (prop_id) {
    case PROP_BUSY_US:
      GST_OBJECT_LOCK (self);
      self->busy_us = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_busy_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedBusy *self = GST_PINNED_BUSY (object);

  switch (prop_id) {
    case PROP_BUSY_US:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->busy_us);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static gboolean
gst_pinned_busy_filter_ip (GstPinnedFilter * filter, GstVideoFrame * frame,
    gpointer stream, GError ** error)
{
  GstPinnedBusy *self = GST_PINNED_BUSY (filter);
  guint busy_us;

  GST_OBJECT_LOCK (self);
  busy_us = self->busy_us;
  GST_OBJECT_UNLOCK (self);

  if (busy_us == 0)
    return TRUE;

  return gst_pinned_cuda_result ((cudaError_t) pinned_busy_launch (
          (unsigned long long) busy_us * 1000, stream), error);
}

static void
gst_pinned_busy_class_init (GstPinnedBusyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstPinnedFilterClass *filter_class = GST_PINNED_FILTER_CLASS (klass);

  gobject_class->set_property = gst_pinned_busy_set_property;
  gobject_class->get_property = gst_pinned_busy_get_property;

  /**
   * GstPinnedBusy:busy-us:
   *
   * How long the kernel keeps the GPU busy per frame, in microseconds.
   *
   * Since: 0.1
   */
  properties[PROP_BUSY_US] =
      g_param_spec_uint ("busy-us", "Busy time",
      "GPU time per frame, in microseconds", 0, 10 * G_USEC_PER_SEC,
      DEFAULT_BUSY_US, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);

  /* With CUDA interop, nvcodec's CUDA memory too. */
  gst_pinned_filter_class_add_sink_pad_template (filter_class,
      gst_static_pad_template_get_caps (&sink_template));
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA busy test filter", "Filter/Video/Hardware",
      "Keeps the GPU busy for a given time per frame, in place",
      "gst-pinned developers");

  filter_class->filter_ip = GST_DEBUG_FUNCPTR (gst_pinned_busy_filter_ip);
}

static void
gst_pinned_busy_init (GstPinnedBusy * self)
{
  self->busy_us = DEFAULT_BUSY_US;
}
