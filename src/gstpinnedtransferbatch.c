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
 * call, a fence and the next stream's wait for it. Frames whose buffers
 * lie next to each other in one reserved block on both sides
 * (gst_pinned_allocator_reserve()) go as one copy: the driver's work
 * grows with a call's copies, hardly with their bytes. A batch ends where
 * a frame's buffer ends its block, so that the next starts one. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedmemory-private.h"
#include "gstpinnedtransferstate-private.h"
#include "gst/pinned/gstpinnedbuffer.h"

#define GST_CAT_DEFAULT gst_pinned_transfer_debug

/* One copy of a batch. */
typedef struct
{
  gpointer dst;
  gconstpointer src;
  gsize len;
  enum cudaMemcpyKind kind;
  /* The reserved blocks the two ends lie in, or NULL */
  GstMemory *dst_block, *src_block;
} BatchCopy;

struct _GstPinnedTransferBatch
{
  GArray *copies;               /* BatchCopy */
  GPtrArray *srcs;              /* the frames' buffers, referenced */
  GPtrArray *dsts;
};

GstPinnedTransferBatch *
gst_pinned_transfer_batch_new (void)
{
  GstPinnedTransferBatch *batch = g_new0 (GstPinnedTransferBatch, 1);

  batch->copies = g_array_new (FALSE, FALSE, sizeof (BatchCopy));
  batch->srcs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  batch->dsts = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  return batch;
}

void
gst_pinned_transfer_batch_clear (GstPinnedTransferBatch * batch)
{
  g_array_set_size (batch->copies, 0);
  g_ptr_array_set_size (batch->srcs, 0);
  g_ptr_array_set_size (batch->dsts, 0);
}

void
gst_pinned_transfer_batch_free (GstPinnedTransferBatch * batch)
{
  if (batch == NULL)
    return;
  gst_pinned_transfer_batch_clear (batch);
  g_array_free (batch->copies, TRUE);
  g_ptr_array_free (batch->srcs, TRUE);
  g_ptr_array_free (batch->dsts, TRUE);
  g_free (batch);
}

void
gst_pinned_transfer_batch_note (GstPinnedTransferBatch * batch, gpointer dst,
    gconstpointer src, gsize len, enum cudaMemcpyKind kind)
{
  BatchCopy copy = { dst, src, len, kind, NULL, NULL };

  g_array_append_val (batch->copies, copy);
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

/* Marks the copies from @first on as those of @src into @dst. */
static void
tag_blocks (GstPinnedTransferBatch * batch, guint first, GstBuffer * src,
    GstBuffer * dst)
{
  GstMemory *src_block = buffer_block (src), *dst_block = buffer_block (dst);
  guint i;

  for (i = first; i < batch->copies->len; i++) {
    BatchCopy *c = &g_array_index (batch->copies, BatchCopy, i);

    c->src_block = src_block;
    c->dst_block = dst_block;
  }
}

/* Joins each copy that continues the one before it on both sides within
 * the same blocks (a copy must not span two allocations); returns the
 * number of copies left. */
static guint
join_copies (GArray * copies)
{
  BatchCopy *c = (BatchCopy *) copies->data;
  guint i, n = 0;

  for (i = 0; i < copies->len; i++) {
    BatchCopy *last = n > 0 ? &c[n - 1] : NULL;

    if (last && c[i].src_block && c[i].dst_block &&
        c[i].src_block == last->src_block &&
        c[i].dst_block == last->dst_block && c[i].kind == last->kind &&
        (const guint8 *) c[i].src == (const guint8 *) last->src + last->len &&
        (guint8 *) c[i].dst == (guint8 *) last->dst + last->len)
      last->len += c[i].len;
    else
      c[n++] = c[i];
  }
  g_array_set_size (copies, n);

  return n;
}

gboolean
gst_pinned_transfer_batch_add (GstPinnedTransferBatch * batch,
    GstPinnedStream * stream, const GstVideoInfo * info, GstBuffer * src,
    GstBuffer * dst, gboolean * added, guint64 * bytes, GError ** error)
{
  GstPinnedTransferState t;
  guint n_copies = batch->copies->len;
  gboolean ok;

  *added = FALSE;
  if (!gst_pinned_transfer_begin (&t, stream, info, src, dst, NULL, batch,
          error))
    return FALSE;

  /* Only our own memory: its addresses stay valid while the batch holds
   * the buffers, and its fences tell every later user when the copy is
   * done. */
  if (!gst_pinned_transfer_side_is_own (&t.in) ||
      !gst_pinned_transfer_side_is_own (&t.out) ||
      !gst_pinned_transfer_same_layout (info, &t.in, &t.out)) {
    ok = TRUE;
  } else {
    ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
        gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error) &&
        gst_pinned_transfer_copy_whole (&t, error);
    if (ok) {
      tag_blocks (batch, n_copies, src, dst);
      g_ptr_array_add (batch->srcs, gst_buffer_ref (src));
      g_ptr_array_add (batch->dsts, gst_buffer_ref (dst));
      *added = TRUE;
      *bytes = t.bytes;
    } else {
      g_array_set_size (batch->copies, n_copies);
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
  guint i, n;
  gboolean ok = TRUE;

  if (batch->dsts->len == 0)
    return TRUE;
  n = join_copies (batch->copies);

  context = gst_pinned_stream_get_context (stream);
  if (!gst_pinned_context_push (context, error)) {
    gst_pinned_transfer_batch_clear (batch);
    return FALSE;
  }
  handle = gst_pinned_stream_get_cuda_stream (stream);

  if (report && report->start)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->start, handle),
        error);

  /* One copy too: at 64 streams a batch call of one joined copy took 10 us
   * in the driver, cudaMemcpyAsync of the same bytes 12. */
  if (ok && n > 0) {
    gpointer *dsts = g_newa (gpointer, n);
    gconstpointer *srcs = g_newa (gconstpointer, n);
    gsize *sizes = g_newa (gsize, n);
    struct cudaMemcpyAttributes attr = { 0, };
    gsize attr_index = 0;

    for (i = 0; i < n; i++) {
      BatchCopy *c = &g_array_index (batch->copies, BatchCopy, i);

      dsts[i] = c->dst;
      srcs[i] = c->src;
      sizes[i] = c->len;
    }
    /* In stream order, after the waits enqueued for each frame. */
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    ok = gst_pinned_cuda_result (cudaMemcpyBatchAsync (dsts, srcs, sizes, n,
            &attr, &attr_index, 1, handle), error);
  }

  if (ok && report && report->end)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->end, handle), error);

  if (ok)
    ok = (fence = gst_pinned_stream_record_fence_current (stream, error)) !=
        NULL;

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
