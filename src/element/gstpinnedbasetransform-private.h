/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedBaseTransform: its copier, for
 * GstPinnedFilter's timer and copies; its batch, for
 * GstPinnedCopyTransform; its element errors, for every subclass. */

#pragma once

#include "element/gstpinnedcopier-private.h"
#include "gst/pinned/gstpinnedbasetransform.h"
#include "gst/pinned/gstpinneddevicememory.h"

G_BEGIN_DECLS

/* The base class's own state. The object lock guards the properties and
 * the copier's pageable helper. */
typedef struct
{
  gint device_id;
  gboolean shared_stream;
  guint pool_size;
  guint64 batch_timeout_us;     /* the properties */
  GstPinnedDeviceAlloc device_alloc;
  GstVideoInfo out_info;

  /* The element's context, stream, input info, statistics and batch. */
  GstPinnedCopier copier;
} GstPinnedBaseTransformPrivate;

/* The element's copier (gstpinnedcopier.c). */
G_GNUC_INTERNAL
GstPinnedCopier * gst_pinned_base_transform_get_copier (GstPinnedBaseTransform * self);

/* Frames a batch (1: each alone), as a copy element chose them for the
 * caps just set; starts the batch's timer where it batches. */
G_GNUC_INTERNAL
void     gst_pinned_base_transform_set_batch   (GstPinnedBaseTransform * self,
                                                guint frames);

/* Posts the failure of a frame's GPU work as an element error: @what and
 * what the user can do, with the CUDA detail of *@error, which it clears */
G_GNUC_INTERNAL
void     gst_pinned_base_transform_post_frame_error (GstPinnedBaseTransform * self,
                                                     GError ** error,
                                                     const gchar * what);

G_END_DECLS
