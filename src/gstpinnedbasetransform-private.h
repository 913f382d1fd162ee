/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedBaseTransform: its statistics, for
 * GstPinnedFilter. */

#pragma once

#include "gstpinnedtransfer-private.h"
#include "gst/pinned/gstpinnedbasetransform.h"

G_BEGIN_DECLS

/* Whether to time the GPU work of this frame (every Nth frame): then
 * *@start and *@end are the events to record on the element's stream,
 * after its waits for earlier work and after its own; report with
 * gst_pinned_base_transform_timer_end() whether both were recorded. */
G_GNUC_INTERNAL
gboolean gst_pinned_base_transform_timer_begin (GstPinnedBaseTransform * self,
                                                cudaEvent_t * start,
                                                cudaEvent_t * end);

G_GNUC_INTERNAL
void     gst_pinned_base_transform_timer_end   (GstPinnedBaseTransform * self,
                                                gboolean recorded);

/* gst_pinned_base_transform_transfer() without timing, without pageable
 * memory: a filter's copy of its input before its kernel, which it times
 * instead. */
G_GNUC_INTERNAL
gboolean gst_pinned_base_transform_copy_frame  (GstPinnedBaseTransform * self,
                                                GstBuffer * src,
                                                GstBuffer * dst,
                                                GError ** error);

/* Frames a batch (1: each alone), as a copy element chose them for the
 * caps just set; starts the batch's timer where it batches. */
G_GNUC_INTERNAL
void     gst_pinned_base_transform_set_batch   (GstPinnedBaseTransform * self,
                                                guint frames);

G_END_DECLS
