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

#include <dlfcn.h>

#include "memory/gstpinnedmemory-private.h"
#include "transfer/gstpinnedtransferstate-private.h"
#include "gst/pinned/gstpinnedbuffer.h"

#define GST_CAT_DEFAULT gst_pinned_transfer_debug

/* cudaMemcpyAttributes as CUDA 12.8 and 13 lay it out, for the headers of
 * the toolkits before 12.8 that lack it. */
typedef struct
{
  gint src_access_order;        /* enum cudaMemcpySrcAccessOrder */
  struct cudaMemLocation src_loc_hint;
  struct cudaMemLocation dst_loc_hint;
  guint flags;
} BatchAttributes;

/* cudaMemcpySrcAccessOrderStream */
#define SRC_ACCESS_ORDER_STREAM 1

/* cudaMemcpyBatchAsync of CUDA 13, and of 12.8 and 12.9 with failIdx. */
typedef cudaError_t (*BatchCall) (void *const *dsts, const void *const *srcs,
    const size_t *sizes, size_t count, BatchAttributes * attrs,
    size_t *attrs_idxs, size_t n_attrs, cudaStream_t stream);
typedef cudaError_t (*BatchCall12) (void *const *dsts,
    const void *const *srcs, const size_t *sizes, size_t count,
    BatchAttributes * attrs, size_t *attrs_idxs, size_t n_attrs,
    size_t *fail_idx, cudaStream_t stream);

typedef struct
{
  BatchCall call;
  BatchCall12 call12;
} BatchApi;

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

/* The batch call of the running runtime. A CUDA 13 build runs on
 * libcudart.so.13, which has it; a CUDA 12 build on any libcudart.so.12,
 * of which 12.8 and later have it with a failIdx that 13.0 dropped: looked
 * up there, so that one build runs on every CUDA 12 runtime. Without it a
 * batch goes as single copies, still under one fence. */
static const BatchApi *
batch_api (void)
{
  static BatchApi api;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    int version = 0;

    gst_pinned_cuda_result (cudaRuntimeGetVersion (&version), NULL);
#if CUDART_VERSION >= 13000
    /* Linked, not looked up: tools that interpose the runtime see it. */
    if (version >= 13000)
      api.call = (BatchCall) (gpointer) cudaMemcpyBatchAsync;
#else
    if (version >= 12080) {
      gchar *soname = g_strdup_printf ("libcudart.so.%d",
          CUDART_VERSION / 1000);
      gpointer runtime = dlopen (soname, RTLD_LAZY | RTLD_NOLOAD);

      if (runtime != NULL) {
        api.call12 = (BatchCall12) dlsym (runtime, "cudaMemcpyBatchAsync");
        dlclose (runtime);
      }
      g_free (soname);
    }
#endif
    GST_INFO ("CUDA runtime %d.%d: %s", version / 1000, version % 1000 / 10,
        api.call || api.call12 ? "batched copies" :
        "no batched copies, a batch goes as single copies");
    g_once_init_leave (&once, 1);
  }
  return &api;
}

/* The copies of a batch in stream order, after the waits enqueued for
 * each frame: one call where the runtime has it, counted in
 * @batch_calls. */
static gboolean
copy_batch (GstPinnedTransferBatch * batch, guint n, cudaStream_t handle,
    guint * batch_calls, GError ** error)
{
  const BatchApi *api = batch_api ();
  gpointer *dsts;
  gconstpointer *srcs;
  gsize *sizes;
  BatchAttributes attr = { SRC_ACCESS_ORDER_STREAM, };
  gsize attr_index = 0, fail_index = 0;
  gboolean ok = TRUE;
  guint i;

  if (api->call == NULL && api->call12 == NULL) {
    for (i = 0; ok && i < n; i++) {
      BatchCopy *c = &g_array_index (batch->copies, BatchCopy, i);

      ok = gst_pinned_cuda_result (cudaMemcpyAsync (c->dst, c->src, c->len,
              c->kind, handle), error);
    }
    return ok;
  }

  dsts = g_newa (gpointer, n);
  srcs = g_newa (gconstpointer, n);
  sizes = g_newa (gsize, n);
  for (i = 0; i < n; i++) {
    BatchCopy *c = &g_array_index (batch->copies, BatchCopy, i);

    dsts[i] = c->dst;
    srcs[i] = c->src;
    sizes[i] = c->len;
  }
  *batch_calls += 1;
  if (api->call != NULL)
    return gst_pinned_cuda_result (api->call (dsts, srcs, sizes, n, &attr,
            &attr_index, 1, handle), error);
  return gst_pinned_cuda_result (api->call12 (dsts, srcs, sizes, n, &attr,
          &attr_index, 1, &fail_index, handle), error);
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

  /* One copy too: the driver takes a batch call of one joined copy faster
   * than cudaMemcpyAsync of the same bytes. */
  if (ok && n > 0)
    ok = copy_batch (batch, n, handle, report ? &report->batch_calls :
        &batch_calls, error);

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
