/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/gstpinnedbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_FILTER (gst_pinned_filter_get_type ())
GST_PINNED_API
G_DECLARE_DERIVABLE_TYPE (GstPinnedFilter, gst_pinned_filter, GST,
    PINNED_FILTER, GstPinnedBaseTransform);

/**
 * GstPinnedFilterClass:
 * @filter: enqueue the work that reads @in and writes @out on @stream (a
 *   `cudaStream_t`), and return without waiting for it. The frames are
 *   mapped with %GST_MAP_PINNED_GPU: GST_VIDEO_FRAME_PLANE_DATA() is a
 *   device pointer and GST_VIDEO_FRAME_PLANE_STRIDE() its pitch.
 * @filter_ip: the same, in place, for filters whose input and output caps
 *   are equal. A subclass implements either or both.
 *
 * The base of GPU filters on gst-pinned device memory. It negotiates
 * `memory:PinnedDevice` caps on both pads, keeps the output's device pool
 * and the element's stream, and does the fence work: the stream waits (on
 * the GPU) for the copy or kernel that wrote the input and for the last
 * users of the output, and after the subclass enqueued its kernel the base
 * records a fence that the next element, or the CPU, waits for. Nothing
 * waits on the host, so a filter's kernel on frame N runs while the upload
 * of frame N + 1 copies.
 *
 * Since: 0.1
 */
struct _GstPinnedFilterClass
{
  GstPinnedBaseTransformClass parent_class;

  gboolean (*filter)    (GstPinnedFilter * self,
                         GstVideoFrame * in,
                         GstVideoFrame * out,
                         gpointer stream,
                         GError ** error);

  gboolean (*filter_ip) (GstPinnedFilter * self,
                         GstVideoFrame * frame,
                         gpointer stream,
                         GError ** error);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_PINNED_API
void gst_pinned_filter_class_add_sink_pad_template (GstPinnedFilterClass * klass,
                                                    GstCaps * caps);

G_END_DECLS
