/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Frames as DLPack tensors and back. The tensors are `DLManagedTensor *`
 * of DLPack 0.6 (dlpack/dlpack.h), or `DLManagedTensorVersioned *` of
 * DLPack 1.x with %GST_PINNED_TENSOR_FLAG_VERSIONED; this header passes
 * them as gpointer, so that neither applications nor introspection need
 * dlpack.h. Only in builds with the dlpack option. */

#pragma once

#include <gst/video/video.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedmemory.h>

G_BEGIN_DECLS

/**
 * GstPinnedTensorFlags:
 * @GST_PINNED_TENSOR_FLAG_NONE: the consumer reads the tensor on the
 *   stream it names
 * @GST_PINNED_TENSOR_FLAG_NO_SYNC: the consumer orders its work itself
 *   (DLPack's stream -1): its stream does not wait for the frame's
 *   writer, and no reader fence is recorded at release
 * @GST_PINNED_TENSOR_FLAG_WRITE: the consumer also writes the tensor: its
 *   stream waits for the frame's readers too, and the fence recorded at
 *   release becomes the frame's writer
 * @GST_PINNED_TENSOR_FLAG_HOST_AS_CPU: page-locked host memory is exported
 *   as `kDLCPU` rather than `kDLCUDAHost`, for a consumer on the CPU (NumPy):
 *   the tensor holds the memory mapped until its release (for writing with
 *   %GST_PINNED_TENSOR_FLAG_WRITE), which waits on the host for the frame's
 *   writer (and with WRITE for its readers), and no fence is recorded at
 *   release
 * @GST_PINNED_TENSOR_FLAG_VERSIONED: the tensor is a
 *   `DLManagedTensorVersioned *` of DLPack 1.x (the layout of DLPack 1.0,
 *   whichever dlpack.h the library was built with), whose flags say
 *   `DLPACK_FLAG_BITMASK_READ_ONLY` unless it is exported with
 *   %GST_PINNED_TENSOR_FLAG_WRITE; without it, a `DLManagedTensor *` of
 *   DLPack 0.6 (Since: 0.2)
 *
 * How a frame is exported (gst_pinned_tensor_export_plane(),
 * gst_pinned_tensor_export_frame()) or imported
 * (gst_pinned_tensor_import()).
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_TENSOR_FLAG_NONE = 0,
  GST_PINNED_TENSOR_FLAG_NO_SYNC = (1 << 0),
  GST_PINNED_TENSOR_FLAG_WRITE = (1 << 1),
  GST_PINNED_TENSOR_FLAG_HOST_AS_CPU = (1 << 2),
  GST_PINNED_TENSOR_FLAG_VERSIONED = (1 << 3),
} GstPinnedTensorFlags;

#define GST_TYPE_PINNED_TENSOR_FLAGS (gst_pinned_tensor_flags_get_type ())
GST_PINNED_API
GType           gst_pinned_tensor_flags_get_type   (void);

/**
 * GST_PINNED_TENSOR_ERROR:
 *
 * The error domain of tensor exports and imports that do not fit: a format
 * without a tensor layout, a pitch that is no whole number of elements, a
 * tensor whose shape, type, strides or device the caps do not allow.
 *
 * Since: 0.1
 */
#define GST_PINNED_TENSOR_ERROR (gst_pinned_tensor_error_quark ())
GST_PINNED_API
GQuark          gst_pinned_tensor_error_quark      (void);

/**
 * GstPinnedTensorError:
 * @GST_PINNED_TENSOR_ERROR_LAYOUT: the frame or tensor has no layout that
 *   the other side can express
 * @GST_PINNED_TENSOR_ERROR_MEMORY: the memory cannot be shared: system
 *   memory, another device, another kind of device
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_TENSOR_ERROR_LAYOUT,
  GST_PINNED_TENSOR_ERROR_MEMORY,
} GstPinnedTensorError;

GST_PINNED_API
guint           gst_pinned_tensor_n_planes         (const GstVideoInfo * info);

GST_PINNED_API
gpointer        gst_pinned_tensor_export_plane     (GstBuffer * buffer,
                                                    const GstVideoInfo * info,
                                                    guint plane,
                                                    gpointer stream,
                                                    GstPinnedTensorFlags flags,
                                                    GError ** error);

GST_PINNED_API
gpointer        gst_pinned_tensor_export_frame     (GstBuffer * buffer,
                                                    const GstVideoInfo * info,
                                                    gpointer stream,
                                                    GstPinnedTensorFlags flags,
                                                    GError ** error);

GST_PINNED_API
gpointer        gst_pinned_tensor_export_batch     (GstBuffer * buffer,
                                                    GstCaps * caps,
                                                    gpointer stream,
                                                    GstPinnedTensorFlags flags,
                                                    GError ** error);

GST_PINNED_API
void            gst_pinned_tensor_release          (gpointer tensor);

GST_PINNED_API
void            gst_pinned_tensor_release_full     (gpointer tensor,
                                                    GstPinnedTensorFlags flags);

GST_PINNED_API
GstBuffer *     gst_pinned_tensor_import           (gpointer tensor,
                                                    GstCaps * caps,
                                                    GstPinnedContext * context,
                                                    gpointer stream,
                                                    GstCaps ** out_caps,
                                                    GError ** error);

GST_PINNED_API
GstBuffer *     gst_pinned_tensor_import_full      (gpointer tensor,
                                                    GstPinnedTensorFlags flags,
                                                    GstCaps * caps,
                                                    GstPinnedContext * context,
                                                    gpointer stream,
                                                    GstCaps ** out_caps,
                                                    GError ** error);

G_END_DECLS
