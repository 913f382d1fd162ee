/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstPinnedCopyTransform: the base class of the elements that copy frames
 * between page-locked host memory and device memory. */

#pragma once

#include <gst/pinned/gstpinnedbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_COPY_TRANSFORM (gst_pinned_copy_transform_get_type ())
GST_PINNED_API
G_DECLARE_DERIVABLE_TYPE (GstPinnedCopyTransform, gst_pinned_copy_transform,
    GST, PINNED_COPY_TRANSFORM, GstPinnedBaseTransform);

/**
 * GstPinnedCopyProperty:
 * @GST_PINNED_COPY_PROP_PAGEABLE_MODE: `pageable-mode`, a
 *   #GstPinnedPageableMode
 * @GST_PINNED_COPY_PROP_COPY_THREADS: `copy-threads`, a #guint
 * @GST_PINNED_COPY_PROP_WRITE_COMBINED: `write-combined`, a #gboolean
 * @GST_PINNED_COPY_PROP_PAGEABLE_STATS: `pageable-stats`, a read-only
 *   #GstStructure
 *
 * The properties of a copy element whose text says its direction: the
 * subclass makes the #GParamSpec, the base class keeps the value (see
 * gst_pinned_copy_transform_class_install_property()).
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_COPY_PROP_PAGEABLE_MODE = 1,
  GST_PINNED_COPY_PROP_COPY_THREADS,
  GST_PINNED_COPY_PROP_WRITE_COMBINED,
  GST_PINNED_COPY_PROP_PAGEABLE_STATS,
} GstPinnedCopyProperty;

/**
 * GstPinnedCopyTransformClass:
 * @span: what the copy is called on the GPU timeline ("H2D copy")
 * @failure: the element message when a frame's copy fails ("Could not
 *   upload a frame")
 * @caps: the caps on the other side of @direction, unfiltered
 * @prepare: where a side is nvcodec's CUDA memory, set @src or @dst to a
 *   view of it (%FALSE after an error message); anything else the copy
 *   needs first
 * @finish: after the copy of @src into @dst (@ok: enqueued): keep or
 *   release the views of @prepare; returns whether the frame is good
 *
 * The base of the elements that copy frames between page-locked host
 * memory and device memory.
 *
 * Since: 0.1
 */
struct _GstPinnedCopyTransformClass
{
  GstPinnedBaseTransformClass parent_class;

  const gchar *span;
  const gchar *failure;

  GstCaps * (*caps)    (GstPinnedCopyTransform * self,
                        GstPadDirection direction,
                        GstCaps * caps);

  gboolean  (*prepare) (GstPinnedCopyTransform * self,
                        GstBuffer * inbuf,
                        GstBuffer * outbuf,
                        GstBuffer ** src,
                        GstBuffer ** dst);

  gboolean  (*finish)  (GstPinnedCopyTransform * self,
                        GstBuffer * inbuf,
                        GstBuffer * outbuf,
                        GstBuffer * src,
                        GstBuffer * dst,
                        gboolean ok,
                        GError ** error);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_PINNED_API
void            gst_pinned_copy_transform_class_install_property (GstPinnedCopyTransformClass * klass,
                                                                  GstPinnedCopyProperty id,
                                                                  GParamSpec * pspec);

GST_PINNED_API
void            gst_pinned_copy_transform_class_install_pageable (GstPinnedCopyTransformClass * klass,
                                                                  const gchar * mode_blurb,
                                                                  const gchar * copy_threads_blurb);

GST_PINNED_API
GstBufferPool * gst_pinned_copy_transform_new_host_pool  (GstPinnedCopyTransform * self,
                                                          GstCaps * caps,
                                                          gsize size,
                                                          guint min_buffers,
                                                          gboolean video_meta);

GST_PINNED_API
void            gst_pinned_copy_transform_flush_pageable (GstPinnedCopyTransform * self);

GST_PINNED_API
guint           gst_pinned_copy_transform_get_pool_size_for (GstPinnedCopyTransform * self,
                                                             const GstVideoInfo * info);

GST_PINNED_API
GstBuffer *     gst_pinned_copy_transform_wrap_cuda      (GstPinnedCopyTransform * self,
                                                          GstBuffer * buffer,
                                                          const GstVideoInfo * info,
                                                          GstMapFlags flags);

G_END_DECLS
