/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedBaseTransform: its GPU timer, for
 * GstPinnedFilter; its batch, for GstPinnedCopyTransform and the batch's
 * timer; its element errors, for every subclass. */

#pragma once

#include "element/gstpinnedbatchqueue-private.h"
#include "element/gstpinnedstats-private.h"
#include "transfer/gstpinnedtransfer-private.h"
#include "gst/pinned/gstpinnedbasetransform.h"
#include "gst/pinned/gstpinneddevicememory.h"

G_BEGIN_DECLS

/* The base class's own state, for its files (gstpinnedbasetransform.c:
 * the element, its device and properties; gstpinnedbasetransfer.c: its
 * copies). The object lock guards the properties and @pageable; the
 * statistics and the batch queue have locks of their own. */
typedef struct
{
  gint device_id;
  gboolean shared_stream;
  guint pool_size;
  guint64 batch_timeout_us;     /* the properties */
  GstPinnedDeviceAlloc device_alloc;
  GstPinnedContext *context;
  GstPinnedStream *stream;
  GstVideoInfo in_info;
  GstVideoInfo out_info;

  GstPinnedStats stats;
  /* The last one given to gst_pinned_base_transform_transfer(), for its
   * gauges in the statistics; under the object lock. */
  GstPinnedPageable *pageable;

  GstPinnedBatchQueue *batch;
} GstPinnedBaseTransformPrivate;

G_GNUC_INTERNAL
GstPinnedBaseTransformPrivate * gst_pinned_base_transform_get_priv (GstPinnedBaseTransform * self);

/* Frames a batch (1: each alone), as a copy element chose them for the
 * caps just set; starts the batch's timer where it batches. */
G_GNUC_INTERNAL
void     gst_pinned_base_transform_set_batch   (GstPinnedBaseTransform * self,
                                                guint frames);

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


/* The element's `stats` property */
G_GNUC_INTERNAL
GstStructure * gst_pinned_base_transform_get_stats (GstPinnedBaseTransform * self);

/* GstBaseTransform.generate_output(): counts every buffer and the host
 * waits of the streaming thread while it made it; holds a batched output
 * until its batch is enqueued */
G_GNUC_INTERNAL
GstFlowReturn gst_pinned_base_transform_generate_output (GstBaseTransform * trans,
                                                         GstBuffer ** outbuf);

/* Enqueues the copies of the batch; its outputs are ready then */
G_GNUC_INTERNAL
gboolean gst_pinned_base_transform_flush_batch (GstPinnedBaseTransform * self,
                                                GError ** error);

/* Pushes the outputs of the batch, after enqueueing its copies (before a
 * serialized event or query, or when the batch timed out) */
G_GNUC_INTERNAL
GstFlowReturn gst_pinned_base_transform_push_batch (GstPinnedBaseTransform * self);

/* Posts the failure of a frame's GPU work as an element error: @what and
 * what the user can do, with the CUDA detail of *@error, which it clears */
G_GNUC_INTERNAL
void     gst_pinned_base_transform_post_frame_error (GstPinnedBaseTransform * self,
                                                     GError ** error,
                                                     const gchar * what);

/* The element message when no device opens (-1: any) */
G_GNUC_INTERNAL
gchar *  gst_pinned_base_transform_device_error_text (gint device_id);

G_END_DECLS
