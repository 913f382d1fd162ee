/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The copies noted for one call to the GPU (a batch of frames, see
 * gstpinnedtransferbatch.c): noted as a frame's transfer meets them,
 * joined where both ends continue the last one within the same reserved
 * blocks (the driver's work grows with a call's copies, hardly with their
 * bytes), and enqueued with one cudaMemcpyBatchAsync() where the runtime
 * has it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>

#include "core/gstpinnedenv-private.h"
#include "transfer/gstpinnedcopylist-private.h"
#include "transfer/gstpinnedtransferstate-private.h"

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

/* One copy of the list. */
typedef struct
{
  gpointer dst;
  gconstpointer src;
  gsize len;
  enum cudaMemcpyKind kind;
  /* The reserved blocks the two ends lie in, or NULL */
  GstMemory *dst_block, *src_block;
} BatchCopy;

struct _GstPinnedCopyList
{
  GArray *copies;               /* BatchCopy */
};

GstPinnedCopyList *
gst_pinned_copy_list_new (void)
{
  GstPinnedCopyList *list = g_new0 (GstPinnedCopyList, 1);

  list->copies = g_array_new (FALSE, FALSE, sizeof (BatchCopy));
  return list;
}

void
gst_pinned_copy_list_free (GstPinnedCopyList * list)
{
  g_array_free (list->copies, TRUE);
  g_free (list);
}

guint
gst_pinned_copy_list_get_length (GstPinnedCopyList * list)
{
  return list->copies->len;
}

void
gst_pinned_copy_list_set_length (GstPinnedCopyList * list, guint n)
{
  g_array_set_size (list->copies, n);
}

void
gst_pinned_copy_list_note (GstPinnedCopyList * list, gpointer dst,
    gconstpointer src, gsize len, enum cudaMemcpyKind kind)
{
  BatchCopy copy = { dst, src, len, kind, NULL, NULL };

  g_array_append_val (list->copies, copy);
}

void
gst_pinned_copy_list_tag_blocks (GstPinnedCopyList * list, guint first,
    GstMemory * src_block, GstMemory * dst_block)
{
  guint i;

  for (i = first; i < list->copies->len; i++) {
    BatchCopy *c = &g_array_index (list->copies, BatchCopy, i);

    c->src_block = src_block;
    c->dst_block = dst_block;
  }
}

/* Joins each copy that continues the one before it on both sides within
 * the same blocks (a copy must not span two allocations); returns the
 * number of copies left. */
guint
gst_pinned_copy_list_join (GstPinnedCopyList * list)
{
  GArray *copies = list->copies;
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

/* The batch call of the running runtime. A CUDA 13 build runs on
 * libcudart.so.13, which has it; a CUDA 12 build on any libcudart.so.12,
 * of which 12.8 and later have it with a failIdx that 13.0 dropped: looked
 * up there, so that one build runs on every CUDA 12 runtime. Without it a
 * batch goes as single copies, still under one fence; so it does where
 * GST_PINNED_COPY_BATCH=single, for tools that do not follow the batch
 * call's writes (compute-sanitizer's initcheck takes its bytes for
 * uninitialised ones). */
static const BatchApi *
batch_api (void)
{
  static BatchApi api;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    int version = 0;
    gboolean single = g_strcmp0 (gst_pinned_env_get ("GST_PINNED_COPY_BATCH"),
        "single") == 0;

    gst_pinned_cuda_result (cudaRuntimeGetVersion (&version), NULL);
#if CUDART_VERSION >= 13000
    /* Linked, not looked up: tools that interpose the runtime see it. */
    if (version >= 13000 && !single)
      api.call = (BatchCall) (gpointer) cudaMemcpyBatchAsync;
#else
    if (version >= 12080 && !single) {
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

gboolean
gst_pinned_copy_list_enqueue (GstPinnedCopyList * list, guint n,
    cudaStream_t handle, guint * batch_calls, GError ** error)
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
      BatchCopy *c = &g_array_index (list->copies, BatchCopy, i);

      ok = gst_pinned_cuda_result (cudaMemcpyAsync (c->dst, c->src, c->len,
              c->kind, handle), error);
    }
    return ok;
  }

  dsts = g_newa (gpointer, n);
  srcs = g_newa (gconstpointer, n);
  sizes = g_newa (gsize, n);
  for (i = 0; i < n; i++) {
    BatchCopy *c = &g_array_index (list->copies, BatchCopy, i);

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
