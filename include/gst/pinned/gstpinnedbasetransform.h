/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedstream.h>
#include <gst/pinned/gstpinnedtimeline.h>
#include <gst/pinned/gstpinnedpageable.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_BASE_TRANSFORM (gst_pinned_base_transform_get_type ())
GST_PINNED_API
G_DECLARE_DERIVABLE_TYPE (GstPinnedBaseTransform, gst_pinned_base_transform,
    GST, PINNED_BASE_TRANSFORM, GstBaseTransform);

/**
 * GstPinnedBaseTransformClass:
 * @set_info: the negotiated caps are parsed into video infos; a subclass
 *   reconfigures itself here. Chain up is not needed.
 *
 * The base of gst-pinned's elements: it owns the `device-id` property, finds
 * or creates the #GstPinnedContext shared through #GstContext, and creates
 * the element's own non-blocking CUDA stream between start and stop.
 *
 * Since: 0.1
 */
struct _GstPinnedBaseTransformClass
{
  GstBaseTransformClass parent_class;

  gboolean (*set_info) (GstPinnedBaseTransform * self,
                        GstCaps * incaps,
                        const GstVideoInfo * in_info,
                        GstCaps * outcaps,
                        const GstVideoInfo * out_info);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_PINNED_API
gboolean             gst_pinned_base_transform_open_device  (GstPinnedBaseTransform * self);

GST_PINNED_API
GstPinnedContext *   gst_pinned_base_transform_get_context  (GstPinnedBaseTransform * self);

GST_PINNED_API
guint                gst_pinned_base_transform_get_pool_size (GstPinnedBaseTransform * self);

GST_PINNED_API
GstPinnedStream *    gst_pinned_base_transform_get_stream   (GstPinnedBaseTransform * self);

GST_PINNED_API
const GstVideoInfo * gst_pinned_base_transform_get_in_info  (GstPinnedBaseTransform * self);

GST_PINNED_API
const GstVideoInfo * gst_pinned_base_transform_get_out_info (GstPinnedBaseTransform * self);

GST_PINNED_API
GstBufferPool *      gst_pinned_base_transform_make_device_pool (GstPinnedBaseTransform * self,
                                                             GstCaps * caps,
                                                             gsize size,
                                                             guint min_buffers);

GST_PINNED_API
gboolean             gst_pinned_base_transform_transfer     (GstPinnedBaseTransform * self,
                                                             GstBuffer * src,
                                                             GstBuffer * dst,
                                                             GstPinnedPageable * pageable,
                                                             GError ** error);

GST_PINNED_API
gboolean             gst_pinned_base_transform_transfer_output (GstPinnedBaseTransform * self,
                                                             GstBuffer * src,
                                                             GstBuffer * outbuf,
                                                             GstPinnedPageable * pageable,
                                                             GError ** error);

GST_PINNED_API
guint                gst_pinned_base_transform_get_batch    (GstPinnedBaseTransform * self);

GST_PINNED_API
GstPinnedSpan *      gst_pinned_base_transform_begin_span   (GstPinnedBaseTransform * self,
                                                             const gchar * what);

GST_PINNED_API
gchar *              gst_pinned_base_transform_error_text   (GstPinnedBaseTransform * self,
                                                             const GError * error,
                                                             const gchar * what);

GST_PINNED_API
GstCaps *            gst_pinned_caps_set_memory_feature     (GstCaps * caps,
                                                             const gchar * feature);

G_END_DECLS
