/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of the frame transfer: what the base class of the
 * elements needs to keep its statistics. */

#pragma once

#include "transfer/gstpinnedlayout-private.h"
#include "transfer/gstpinnedpageable-private.h"
#include "gst/pinned/gstpinnedtransfer.h"

G_BEGIN_DECLS

/* What one transfer did, and the timing events to record around its
 * copies. */
typedef struct
{
  /* In: when set, recorded on the stream after its waits for the buffers'
   * earlier users and after the copies, so that they time the copies. */
  cudaEvent_t start;
  cudaEvent_t end;

  /* Out: the bytes the copies moved, and the host memories that were no
   * gst-pinned memory, by the way they went (GST_PINNED_PATH_PINNED stays
   * 0). */
  guint64 bytes;
  guint paths[GST_PINNED_PATH_LAST];
  /* Out: cudaMemcpyBatchAsync calls (a batch, where the runtime has it) */
  guint batch_calls;
} GstPinnedTransferReport;

/* gst_pinned_transfer_video_frame_full(), filling @report. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_video_frame_report (GstPinnedStream * stream,
                                                 const GstVideoInfo * info,
                                                 GstBuffer * src,
                                                 GstBuffer * dst,
                                                 GstPinnedPageable * pageable,
                                                 GstPinnedTransferReport * report,
                                                 GError ** error);

/* Frames whose copies go to the GPU together: one call for all of them
 * (cudaMemcpyBatchAsync) and one fence, where a frame each cost a copy
 * call, a fence and the next stream's wait for it. For gst-pinned memory
 * on both sides in the same layout (the pool path); the caller holds
 * each destination back until the batch is flushed. */
typedef struct _GstPinnedTransferBatch GstPinnedTransferBatch;

G_GNUC_INTERNAL
GstPinnedTransferBatch *gst_pinned_transfer_batch_new   (void);

/* Drops the frames not flushed yet, as gst_pinned_transfer_batch_clear(). */
G_GNUC_INTERNAL
void     gst_pinned_transfer_batch_free       (GstPinnedTransferBatch * batch);

G_GNUC_INTERNAL
guint    gst_pinned_transfer_batch_get_frames (GstPinnedTransferBatch * batch);

/* Whether the last frame added ends its block on either side: the next
 * frame starts a block again, so the batch goes now (a stream whose
 * batches had drifted against its pools' blocks starts aligned again). */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_batch_ends_block (GstPinnedTransferBatch * batch);

/* Whether a batch may take @buffer: all its memory our own (told without
 * mapping it; gst_pinned_transfer_batch_add() checks the layouts). */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_batch_takes      (GstBuffer * buffer);

/* As gst_pinned_transfer_video_frame_report() where both buffers are
 * gst-pinned memory in the same layout: the stream's waits for the
 * buffers' earlier users are enqueued, the copies only noted in @batch,
 * with references to both buffers (*@added: TRUE, *@bytes: the frame's).
 * Any other frame is left alone (*@added: FALSE): the caller flushes the
 * batch and copies it itself. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_batch_add        (GstPinnedTransferBatch * batch,
                                               GstPinnedStream * stream,
                                               const GstVideoInfo * info,
                                               GstBuffer * src,
                                               GstBuffer * dst,
                                               gboolean * added,
                                               guint64 * bytes,
                                               GError ** error);

/* Enqueues the batch's copies on @stream in one call (@report's events,
 * if set, around it), records one fence that becomes every destination's
 * writer and joins every source's readers, and empties the batch. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_batch_flush      (GstPinnedTransferBatch * batch,
                                               GstPinnedStream * stream,
                                               GstPinnedTransferReport * report,
                                               GError ** error);

/* Drops the batch's frames without copying them (a flush, a stop). */
G_GNUC_INTERNAL
void     gst_pinned_transfer_batch_clear      (GstPinnedTransferBatch * batch);

G_END_DECLS
