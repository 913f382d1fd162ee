/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedfault: a test-only GPU filter (never in the plugin) whose kernel
 * faults on frame `fault-frame` (counted from 1; 0: never), in place, and
 * leaves every other frame as it is. With it, tests show what a CUDA error
 * in the middle of a stream does to a pipeline: an element error, a stop,
 * no hang, nothing leaked.
 *
 *   ... ! pinnedupload ! pinnedfault fault-frame=10 ! pinneddownload ! ...
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/gstpinnedcuda.h>

#include "gstpinnedfault.h"
#include "fault.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_fault_debug);
#define GST_CAT_DEFAULT gst_pinned_fault_debug

#define DEFAULT_FAULT_FRAME 0

enum
{
  PROP_0,
  PROP_FAULT_FRAME,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

struct _GstPinnedFault
{
  GstPinnedFilter parent;

  guint fault_frame;
  guint frames;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, GST_VIDEO_FORMATS_ALL)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, GST_VIDEO_FORMATS_ALL)));

#define gst_pinned_fault_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedFault, gst_pinned_fault,
    GST_TYPE_PINNED_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_fault_debug, "pinnedfault", 0,
        "gst-pinned faulting test filter"));

static void
gst_pinned_fault_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedFault *self = GST_PINNED_FAULT (object);

  switch (prop_id) {
    case PROP_FAULT_FRAME:
      GST_OBJECT_LOCK (self);
      self->fault_frame = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_fault_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedFault *self = GST_PINNED_FAULT (object);

  switch (prop_id) {
    case PROP_FAULT_FRAME:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->fault_frame);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static gboolean
gst_pinned_fault_start (GstBaseTransform * trans)
{
  GST_PINNED_FAULT (trans)->frames = 0;

  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static gboolean
gst_pinned_fault_filter_ip (GstPinnedFilter * filter, GstVideoFrame * frame,
    gpointer stream, GError ** error)
{
  GstPinnedFault *self = GST_PINNED_FAULT (filter);
  gboolean fault;

  GST_OBJECT_LOCK (self);
  self->frames++;
  fault = self->frames == self->fault_frame;
  GST_OBJECT_UNLOCK (self);

  if (fault)
    GST_INFO_OBJECT (self, "faulting on frame %u", self->frames);

  return gst_pinned_cuda_result ((cudaError_t) pinned_test_fault_launch (fault,
          stream), error);
}

static void
gst_pinned_fault_class_init (GstPinnedFaultClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstPinnedFilterClass *filter_class = GST_PINNED_FILTER_CLASS (klass);

  gobject_class->set_property = gst_pinned_fault_set_property;
  gobject_class->get_property = gst_pinned_fault_get_property;

  properties[PROP_FAULT_FRAME] =
      g_param_spec_uint ("fault-frame", "Fault frame",
      "The frame whose kernel faults, counted from 1 (0: none)", 0,
      G_MAXUINT, DEFAULT_FAULT_FRAME,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA faulting test filter", "Filter/Video/Hardware",
      "A kernel that faults on a given frame (tests only)",
      "gst-pinned developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_pinned_fault_start);
  filter_class->filter_ip = GST_DEBUG_FUNCPTR (gst_pinned_fault_filter_ip);
}

static void
gst_pinned_fault_init (GstPinnedFault * self)
{
  self->fault_frame = DEFAULT_FAULT_FRAME;
}

gboolean
gst_pinned_fault_register (void)
{
  return gst_element_register (NULL, "pinnedfault", GST_RANK_NONE,
      GST_TYPE_PINNED_FAULT);
}
