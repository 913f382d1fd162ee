/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: a base transform's copies of frames
 * (gstpinnedcopier.c), for the base class and its subclasses. */

#pragma once

#include "element/gstpinnedbatchqueue-private.h"
#include "element/gstpinnedstats-private.h"
#include "transfer/gstpinnedtransfer-private.h"

G_BEGIN_DECLS

/* The copier logs as its element's class. */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_base_transform_debug);

/* What the copies of one element need: its stream and context (set
 * between start and stop), its input info, its statistics, the pageable
 * helper last given (for its gauges, under the element's object lock) and
 * its batch queue. Owned by the element's base class (@element: not a
 * reference); the statistics and the queue have locks of their own. */
typedef struct
{
  GstBaseTransform *element;
  GstPinnedContext *context;
  GstPinnedStream *stream;
  GstVideoInfo in_info;

  GstPinnedStats stats;
  GstPinnedPageable *pageable;

  GstPinnedBatchQueue *batch;
} GstPinnedCopier;

/* Sets @copier up for @element (not a reference); @push pushes a partial
 * batch whose time is up (the batch queue's timer calls it). */
G_GNUC_INTERNAL
void     gst_pinned_copier_init               (GstPinnedCopier * copier,
                                               GstBaseTransform * element,
                                               GstPinnedBatchQueuePush push);

/* Opens the element's stream (@shared: the device's shared one) on its
 * context, which the caller set, and the statistics' timer. */
G_GNUC_INTERNAL
gboolean gst_pinned_copier_open               (GstPinnedCopier * copier,
                                               gboolean shared,
                                               GError ** error);

/* At the element's stop: drops the batch, reads and closes the timer,
 * lets go of the stream and the context (the statistics stay until the
 * next start). */
G_GNUC_INTERNAL
void     gst_pinned_copier_stop               (GstPinnedCopier * copier);

/* At finalize: frees what gst_pinned_copier_init() made. */
G_GNUC_INTERNAL
void     gst_pinned_copier_clear              (GstPinnedCopier * copier);

/* Whether to time the GPU work of this frame (every Nth frame): then
 * *@start and *@end are the events to record on the element's stream,
 * after its waits for earlier work and after its own; report with
 * gst_pinned_copier_timer_end() whether both were recorded. */
G_GNUC_INTERNAL
gboolean gst_pinned_copier_timer_begin        (GstPinnedCopier * copier,
                                               cudaEvent_t * start,
                                               cudaEvent_t * end);

G_GNUC_INTERNAL
void     gst_pinned_copier_timer_end          (GstPinnedCopier * copier,
                                               gboolean recorded);

/* gst_pinned_base_transform_transfer(); @timed: time it every Nth frame
 * (a filter's copy of its input before its kernel is not: it times the
 * kernel instead). */
G_GNUC_INTERNAL
gboolean gst_pinned_copier_copy               (GstPinnedCopier * copier,
                                               GstBuffer * src,
                                               GstBuffer * dst,
                                               GstPinnedPageable * pageable,
                                               gboolean timed,
                                               GError ** error);

/* gst_pinned_base_transform_transfer_output(). */
G_GNUC_INTERNAL
gboolean gst_pinned_copier_copy_output        (GstPinnedCopier * copier,
                                               GstBuffer * src,
                                               GstBuffer * outbuf,
                                               GstPinnedPageable * pageable,
                                               GError ** error);

/* Enqueues the copies of the batch; its outputs are ready then. */
G_GNUC_INTERNAL
gboolean gst_pinned_copier_flush              (GstPinnedCopier * copier,
                                               GError ** error);

/* Pushes the outputs of the batch, after enqueueing its copies (before a
 * serialized event or query, or when the batch timed out). */
G_GNUC_INTERNAL
GstFlowReturn gst_pinned_copier_push          (GstPinnedCopier * copier);

/* GstBaseTransform.generate_output(): counts every buffer and the host
 * waits of the streaming thread while it made it; holds a batched output
 * until its batch is enqueued. */
G_GNUC_INTERNAL
GstFlowReturn gst_pinned_copier_generate_output (GstPinnedCopier * copier,
                                                 GstBuffer ** outbuf);

/* Before a query reaches the base class: a serialized one from upstream
 * (drain, allocation) comes after the frames of the batch, which go
 * first. */
G_GNUC_INTERNAL
void     gst_pinned_copier_before_query       (GstPinnedCopier * copier,
                                               GstPadDirection direction,
                                               GstQuery * query);

/* Before a sink event reaches the base class: the batch's frames go
 * before a serialized event, and not at all after a flush. */
G_GNUC_INTERNAL
void     gst_pinned_copier_before_event       (GstPinnedCopier * copier,
                                               GstEvent * event);

/* Before new caps take effect: the batch's frames go first. */
G_GNUC_INTERNAL
void     gst_pinned_copier_before_caps        (GstPinnedCopier * copier);

/* The element's `stats` property. */
G_GNUC_INTERNAL
GstStructure * gst_pinned_copier_get_stats    (GstPinnedCopier * copier);

G_END_DECLS
