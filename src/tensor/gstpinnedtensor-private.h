/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the tensor files share: the layout of a format's planes as
 * tensors (gstpinnedtensorlayout.c), and DLPack 1.x's versioned tensor. */

#pragma once

#include <dlpack/dlpack.h>
#include <gst/video/video.h>

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedtensor.h"

G_BEGIN_DECLS

/* DLPack 1.x's versioned tensor, from dlpack.h where it has one; else its
 * layout, which DLPack 1.0 fixed for every later 1.x (Debian 12 ships the
 * 0.6 header), so that every build exports and imports it. */
#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/* The struct's tag: 1.0's header declares no typedef of it. */
typedef struct DLManagedTensorVersioned GstPinnedDLVersioned;
#define GST_PINNED_DLPACK_FLAG_READ_ONLY DLPACK_FLAG_BITMASK_READ_ONLY
#else
typedef struct GstPinnedDLVersioned
{
  struct
  {
    uint32_t major;
    uint32_t minor;
  } version;
  void *manager_ctx;
  void (*deleter) (struct GstPinnedDLVersioned * self);
  uint64_t flags;
  DLTensor dl_tensor;
} GstPinnedDLVersioned;
#define GST_PINNED_DLPACK_FLAG_READ_ONLY ((uint64_t) 1 << 0)
#endif

/* The version the versioned tensors made here say. */
#define GST_PINNED_DLPACK_MAJOR 1
#define GST_PINNED_DLPACK_MINOR 0

/* A plane as a tensor: rows of @width pixels of @channels elements. */
typedef struct
{
  guint width, height, channels;
} PlaneShape;

G_GNUC_INTERNAL
gboolean gst_pinned_tensor_format_element (const GstVideoFormatInfo * finfo,
                                           guint * elem,
                                           GError ** error);

G_GNUC_INTERNAL
void     gst_pinned_tensor_plane_shape    (const GstVideoInfo * info,
                                           guint plane,
                                           guint elem,
                                           PlaneShape * shape);

G_GNUC_INTERNAL
void     gst_pinned_tensor_set_dtype      (DLDataType * dtype,
                                           guint elem);

/* For a GWeakRef kept as qdata. */
static inline void
gst_pinned_tensor_weak_ref_free (GWeakRef * ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

G_END_DECLS
