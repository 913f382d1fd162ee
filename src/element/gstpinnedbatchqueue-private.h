/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The batch queue of a copy element: the frames whose copies go in one
 * call, the outputs they hold back, and the thread that sends a partial
 * batch on after batch-timeout. */

#pragma once

#include "element/gstpinnedstats-private.h"
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

typedef struct _GstPinnedBatchQueue GstPinnedBatchQueue;

/* The largest frames a copy element batches by itself (batch=0): a copy
 * call, its fence and the next stream's wait for it cost the host about
 * as much for 3 MB as for 33 MB, so small frames pay them per frame
 * (docs/performance.md). Larger frames also take their turn at a shared
 * copy engine every copy (gst_pinned_fence_wait_turn()). */
#define GST_PINNED_BATCH_AUTO_MAX_BYTES (8u << 20)

/* Pushes @element's partial batch (its timer's call, under the stream lock
 * of @element's sink pad). */
typedef GstFlowReturn (*GstPinnedBatchQueuePush) (GstBaseTransform * element);

/* The queue of @element (not a reference: the element owns it); @push
 * pushes a partial batch whose time is up. */
G_GNUC_INTERNAL
GstPinnedBatchQueue * gst_pinned_batch_queue_new           (GstBaseTransform * element,
                                                            GstPinnedBatchQueuePush push);

G_GNUC_INTERNAL
void                  gst_pinned_batch_queue_free          (GstPinnedBatchQueue * batch);

/* Frames a batch (1: each alone), for new caps; starts the timer thread,
 * rung by the batch clock, where @frames > 1 and @timeout_us > 0. */
G_GNUC_INTERNAL
void                  gst_pinned_batch_queue_set_frames    (GstPinnedBatchQueue * batch,
                                                            guint frames,
                                                            guint64 timeout_us);

G_GNUC_INTERNAL
guint                 gst_pinned_batch_queue_get_frames    (GstPinnedBatchQueue * batch);

/* Notes the copy of @src into @outbuf, where the element batches and both
 * are gst-pinned memory of one layout (@added: it was; @bytes: its size);
 * the output is then held until the batch is flushed. */
G_GNUC_INTERNAL
gboolean              gst_pinned_batch_queue_add           (GstPinnedBatchQueue * batch,
                                                            GstPinnedStream * stream,
                                                            const GstVideoInfo * info,
                                                            GstBuffer * src,
                                                            GstBuffer * outbuf,
                                                            gboolean * added,
                                                            guint64 * bytes,
                                                            GError ** error);

/* Enqueues the batch's copies (timed in @stats); its outputs are ready
 * then. */
G_GNUC_INTERNAL
gboolean              gst_pinned_batch_queue_flush         (GstPinnedBatchQueue * batch,
                                                            GstPinnedStream * stream,
                                                            GstPinnedStats * stats,
                                                            GstPinnedContext * context,
                                                            GError ** error);

/* Takes @outbuf, the output just made (NULL: none, an error), if it waits
 * for its batch or for ready ones before it; returns whether the batch is
 * full. */
G_GNUC_INTERNAL
gboolean              gst_pinned_batch_queue_hold          (GstPinnedBatchQueue * batch,
                                                            GstBuffer ** outbuf);

/* The oldest output whose copy is enqueued, or NULL */
G_GNUC_INTERNAL
GstBuffer *           gst_pinned_batch_queue_pop_ready     (GstPinnedBatchQueue * batch);

/* Drops the frames held or ready (a flush, a stop) */
G_GNUC_INTERNAL
void                  gst_pinned_batch_queue_drop          (GstPinnedBatchQueue * batch);

G_GNUC_INTERNAL
void                  gst_pinned_batch_queue_stop_timer    (GstPinnedBatchQueue * batch);

G_END_DECLS
