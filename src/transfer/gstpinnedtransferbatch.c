/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Frames whose copies go to the GPU together: one call for all of them
 * (cudaMemcpyBatchAsync) and one fence, where a frame each cost a copy
 * call, a fence and the next stream's wait for it. The frames' copies are
 * noted in a copy list (gstpinnedcopylist.c), tagged with the reserved
 * blocks their buffers lie in (gst_pinned_allocator_reserve()), so that
 * neighbours join. A batch ends where a frame's buffer ends its block, so
 * that the next starts one. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedmemory-private.h"
#include "transfer/gstpinnedcopylist-private.h"
#include "transfer/gstpinnedtransferstate-private.h"
#include "gst/pinned/gstpinnedbuffer.h"

#define GST_CAT_DEFAULT gst_pinned_transfer_debug

struct _GstPinnedTransferBatch
{
  GstPinnedCopyList *copies;
  GPtrArray *srcs;              /* the frames' buffers, referenced */
  GPtrArray *dsts;
};

GstPinnedTransferBatch *
gst_pinned_transfer_batch_new (void)
{
  GstPinnedTransferBatch *batch = g_new0 (GstPinnedTransferBatch, 1);

  batch->copies = gst_pinned_copy_list_new ();
  batch->srcs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  batch->dsts = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  return batch;
}

void
gst_pinned_transfer_batch_clear (GstPinnedTransferBatch * batch)
{
  gst_pinned_copy_list_set_length (batch->copies, 0);
  g_ptr_array_set_size (batch->srcs, 0);
  g_ptr_array_set_size (batch->dsts, 0);
}

void
gst_pinned_transfer_batch_free (GstPinnedTransferBatch * batch)
{
  if (batch == NULL)
    return;
  gst_pinned_transfer_batch_clear (batch);
  gst_pinned_copy_list_free (batch->copies);
  g_ptr_array_free (batch->srcs, TRUE);
  g_ptr_array_free (batch->dsts, TRUE);
  g_free (batch);
}

guint
gst_pinned_transfer_batch_get_frames (GstPinnedTransferBatch * batch)
{
  return batch->dsts->len;
}

gboolean
gst_pinned_transfer_batch_takes (GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    if (!gst_pinned_memory_kind_is_own (gst_buffer_peek_memory (buffer, i)))
      return FALSE;
  }
  return n > 0;
}

/* The block of @buffer's one memory, if it is a piece of one. */
static GstMemory *
buffer_block (GstBuffer * buffer)
{
  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  return gst_pinned_memory_get_block ((GstPinnedMemory *)
      gst_buffer_peek_memory (buffer, 0));
}

/* Whether @buffer's one memory is the last piece of its block. */
static gboolean
buffer_ends_block (GstBuffer * buffer)
{
  return gst_buffer_n_memory (buffer) == 1 &&
      gst_pinned_memory_ends_block ((GstPinnedMemory *)
      gst_buffer_peek_memory (buffer, 0));
}

gboolean
gst_pinned_transfer_batch_ends_block (GstPinnedTransferBatch * batch)
{
  guint n = batch->dsts->len;

  return n > 0 && (buffer_ends_block (g_ptr_array_index (batch->srcs, n - 1))
      || buffer_ends_block (g_ptr_array_index (batch->dsts, n - 1)));
}

gboolean
gst_pinned_transfer_batch_add (GstPinnedTransferBatch * batch,
    GstPinnedStream * stream, const GstVideoInfo * info, GstBuffer * src,
    GstBuffer * dst, gboolean * added, guint64 * bytes, GError ** error)
{
  GstPinnedTransferState t;
  guint n_copies = gst_pinned_copy_list_get_length (batch->copies);
  gboolean ok;

  *added = FALSE;
  if (!gst_pinned_transfer_begin (&t, stream, info, src, dst, NULL,
          batch->copies, error))
    return FALSE;

  /* Only our own memory: its addresses stay valid while the batch holds
   * the buffers, and its fences tell every later user when the copy is
   * done. */
  if (!gst_pinned_memory_kind_side_is_own (&t.in) ||
      !gst_pinned_memory_kind_side_is_own (&t.out) ||
      !gst_pinned_transfer_same_layout (info, &t.in, &t.out)) {
    ok = TRUE;
  } else {
    ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
        gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error) &&
        gst_pinned_transfer_copy_whole (&t, error);
    if (ok) {
      gst_pinned_copy_list_tag_blocks (batch->copies, n_copies,
          buffer_block (src), buffer_block (dst));
      g_ptr_array_add (batch->srcs, gst_buffer_ref (src));
      g_ptr_array_add (batch->dsts, gst_buffer_ref (dst));
      *added = TRUE;
      *bytes = t.bytes;
    } else {
      gst_pinned_copy_list_set_length (batch->copies, n_copies);
    }
  }

  gst_pinned_transfer_end (&t);

  return ok;
}

gboolean
gst_pinned_transfer_batch_flush (GstPinnedTransferBatch * batch,
    GstPinnedStream * stream, GstPinnedTransferReport * report, GError ** error)
{
  GstPinnedContext *context;
  cudaStream_t handle;
  GstPinnedFence *fence = NULL;
  guint i, n, batch_calls = 0;
  gboolean ok = TRUE;

  if (batch->dsts->len == 0)
    return TRUE;
  n = gst_pinned_copy_list_join (batch->copies);

  context = gst_pinned_stream_get_context (stream);
  if (!gst_pinned_context_push (context, error)) {
    gst_pinned_transfer_batch_clear (batch);
    return FALSE;
  }
  handle = gst_pinned_stream_get_cuda_stream (stream);

  if (report && report->start)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->start, handle),
        error);

  /* One copy too: the driver takes a batch call of one joined copy faster
   * than cudaMemcpyAsync of the same bytes. */
  if (ok && n > 0)
    ok = gst_pinned_copy_list_enqueue (batch->copies, n, handle,
        report ? &report->batch_calls : &batch_calls, error);

  if (ok && report && report->end)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->end, handle), error);

  if (ok)
    ok = (fence = gst_pinned_fence_record_current (stream, error)) != NULL;

  if (ok) {
    if (batch->dsts->len > 1)
      gst_pinned_fence_set_batch (fence);
    for (i = 0; i < batch->dsts->len; i++) {
      gst_pinned_buffer_add_fence (g_ptr_array_index (batch->srcs, i), fence,
          GST_MAP_READ);
      gst_pinned_buffer_add_fence (g_ptr_array_index (batch->dsts, i), fence,
          GST_MAP_WRITE);
    }
    gst_pinned_fence_unref (fence);
  }

  gst_pinned_transfer_batch_clear (batch);
  gst_pinned_context_pop (context);

  return ok;
}
