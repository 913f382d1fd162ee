/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The kinds of memory a frame's copy meets, one row each in one table:
 * how a memory of the kind is recognised and mapped, whether its fences
 * order its users, how it is staged and counted, and how it is copied to
 * or from the device. A new kind of memory is a new row (as GStreamer
 * GL's gstglupload.c keeps an upload method). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "transfer/gstpinnedtransferstate-private.h"
#include "gst/pinned/gstpinneddevicememory.h"

#define GST_CAT_DEFAULT gst_pinned_transfer_debug

static gboolean copy_as_is (GstPinnedTransferState * t,
    GstPinnedTransferSide * side, guint i, guint8 * d, const guint8 * s,
    gsize len, gboolean upload, GError ** error);
static gboolean copy_registered (GstPinnedTransferState * t,
    GstPinnedTransferSide * side, guint i, guint8 * d, const guint8 * s,
    gsize len, gboolean upload, GError ** error);
static gboolean copy_pageable (GstPinnedTransferState * t,
    GstPinnedTransferSide * side, guint i, guint8 * d, const guint8 * s,
    gsize len, gboolean upload, GError ** error);

/* In the order they are tried: gst-pinned device memory is gst-pinned
 * memory too. */
static const GstPinnedMemoryKind kinds[] = {
  {
        .name = "gst-pinned device memory",
        .claims = gst_is_pinned_device_memory,
        .map_flags = GST_MAP_PINNED_GPU,
        .device = TRUE,
        .own = TRUE,
        .path = GST_PINNED_PATH_PINNED,
      },
  {
        .name = "gst-pinned page-locked memory",
        .claims = gst_is_pinned_memory,
        .map_flags = GST_MAP_PINNED_GPU,
        .own = TRUE,
        .path = GST_PINNED_PATH_PINNED,
        .copy = copy_as_is,
      },
  {
        .name = "page-locked memory of another owner",
        .host = GST_PINNED_HOST_FOREIGN_LOCKED,
        .unfenced = TRUE,
        .path = GST_PINNED_PATH_LOCKED,
        .copy = copy_as_is,
      },
  {
        /* CUDA would stage a pitched copy from its partial pages row by
         * row: ours stages it whole. */
        .name = "registered memory",
        .host = GST_PINNED_HOST_REGISTERED,
        .unfenced = TRUE,
        .staged_pitched = TRUE,
        .path = GST_PINNED_PATH_REGISTERED,
        .copy = copy_registered,
      },
  {
        .name = "pageable memory",
        .host = GST_PINNED_HOST_PAGEABLE,
        .staged_whole = TRUE,
        .staged_pitched = TRUE,
        .path = GST_PINNED_PATH_STAGED,
        .copy = copy_pageable,
      },
};

/* The kind that recognises @mem unmapped (gst-pinned memory), or NULL. */
static const GstPinnedMemoryKind *
kind_claiming (GstMemory * mem)
{
  guint k;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
    if (kinds[k].claims && kinds[k].claims (mem))
      return &kinds[k];
  }
  return NULL;
}

/* The kind of host memory that the registry answered @host for. */
static const GstPinnedMemoryKind *
kind_of_host (GstPinnedHostKind host)
{
  guint k;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
    if (kinds[k].claims == NULL && kinds[k].host == host)
      return &kinds[k];
  }
  g_assert_not_reached ();
  return NULL;
}

gboolean
gst_pinned_memory_kind_is_own (GstMemory * mem)
{
  const GstPinnedMemoryKind *kind = kind_claiming (mem);

  return kind != NULL && kind->own;
}

void
gst_pinned_memory_kind_unmap_side (GstPinnedTransferSide * side)
{
  guint i;

  for (i = 0; i < side->n_mem; i++)
    gst_memory_unmap (side->map[i].memory, &side->map[i]);
  side->n_mem = 0;
}

/* The kind of mapped foreign host memory @i of @side, asked of the
 * registry of @t's pageable (once in the memory's life, not per frame). */
static const GstPinnedMemoryKind *
classify_host (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i, GstMemory * mem)
{
  GstPinnedHostRegistry *registry = NULL;
  GstPinnedRegisterPolicy policy = GST_PINNED_REGISTER_NEVER;

  if (t->pageable) {
    registry = gst_pinned_pageable_get_registry (t->pageable);
    policy = gst_pinned_pageable_get_policy (t->pageable);
  }
  return kind_of_host (gst_pinned_host_registry_classify (registry, mem,
          side->map[i].data, side->map[i].size, policy, &side->locked[i],
          &side->locked_size[i]));
}

static gboolean
side_map_memory (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i, GstMapFlags access, GError ** error)
{
  GstMemory *mem = gst_buffer_peek_memory (side->buffer, i);
  const GstPinnedMemoryKind *kind = kind_claiming (mem);

  if (!gst_memory_map (mem, &side->map[i],
          kind ? access | kind->map_flags : access)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot map memory %u of %" GST_PTR_FORMAT, i, side->buffer);
    return FALSE;
  }
  side->n_mem++;

  if (kind == NULL)
    kind = classify_host (t, side, i, mem);
  side->kind[i] = kind;
  GST_TRACE ("memory %u of %" GST_PTR_FORMAT ": %s", i, side->buffer,
      kind->name);
  side->foreign |= !kind->own;
  side->unfenced |= kind->unfenced;
  return TRUE;
}

gboolean
gst_pinned_memory_kind_map_side (GstPinnedTransferState * t,
    GstPinnedTransferSide * side, GstBuffer * buffer, GstMapFlags access,
    GError ** error)
{
  const GstVideoInfo *info = t->info;
  const gchar *what;
  gsize start = 0;
  guint i, n;

  side->buffer = buffer;
  side->n_mem = 0;
  side->unfenced = FALSE;
  side->foreign = FALSE;

  what = access & GST_MAP_WRITE ? "output" : "input";
  if (!gst_pinned_layout_of (buffer, info, side->offset, side->stride, what,
          error) ||
      !gst_pinned_layout_fits (info, side->offset, side->stride,
          gst_buffer_get_video_meta (buffer) != NULL,
          gst_buffer_get_size (buffer), what, error))
    return FALSE;

  n = gst_buffer_n_memory (buffer);
  if (n > GST_PINNED_TRANSFER_MAX_MEMORIES) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "buffer has %u memories, at most %u are supported", n,
        GST_PINNED_TRANSFER_MAX_MEMORIES);
    return FALSE;
  }

  for (i = 0; i < n; i++) {
    if (!side_map_memory (t, side, i, access, error)) {
      gst_pinned_memory_kind_unmap_side (side);
      return FALSE;
    }
    side->start[i] = start;
    start += side->map[i].size;
  }

  return TRUE;
}

gboolean
gst_pinned_memory_kind_side_is_own (GstPinnedTransferSide * side)
{
  guint i;

  for (i = 0; i < side->n_mem; i++) {
    if (!side->kind[i]->own)
      return FALSE;
  }
  return side->n_mem > 0;
}

gboolean
gst_pinned_memory_kind_uses_our_staging (GstPinnedTransferState * t)
{
  return t->pageable != NULL && t->mode != GST_PINNED_PAGEABLE_DIRECT;
}

void
gst_pinned_memory_kind_count_side (GstPinnedTransferState * t,
    GstPinnedTransferSide * side)
{
  guint i;

  /* The pool path counts nothing: no lock per frame. */
  for (i = 0; i < side->n_mem; i++) {
    GstPinnedPageablePath path = side->kind[i]->path;

    if (side->kind[i]->own)
      continue;
    if (path == GST_PINNED_PATH_STAGED &&
        !gst_pinned_memory_kind_uses_our_staging (t))
      path = GST_PINNED_PATH_DIRECT;
    if (t->report)
      t->report->paths[path]++;
    if (t->pageable)
      gst_pinned_pageable_count (t->pageable, path);
  }
}

gsize
gst_pinned_memory_kind_side_staging (GstPinnedTransferSide * side,
    GstPinnedTransferSide * other, gboolean pitched)
{
  /* Pieces are cut where the other side's memories end, or per plane,
   * and each is aligned. */
  gsize margin = 64 * (MAX (other->n_mem, GST_VIDEO_MAX_PLANES) + 1);
  gsize bytes = 0;
  guint i;

  for (i = 0; i < side->n_mem; i++) {
    if (pitched ? side->kind[i]->staged_pitched : side->kind[i]->staged_whole)
      bytes += side->map[i].size + margin;
  }
  return bytes;
}

enum cudaMemcpyKind
gst_pinned_memory_kind_copy_kind (gboolean src_device, gboolean dst_device)
{
  if (src_device)
    return dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  return dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost;
}

gboolean
gst_pinned_memory_kind_enqueue_copy (GstPinnedTransferState * t, guint8 * d,
    gboolean d_device, const guint8 * s, gboolean s_device, gsize len,
    GError ** error)
{
  enum cudaMemcpyKind kind = gst_pinned_memory_kind_copy_kind (s_device,
      d_device);

  if (len == 0)
    return TRUE;
  GST_TRACE ("copy %p <- %p, %" G_GSIZE_FORMAT " bytes%s", d, s, len,
      t->copies ? " (batched)" : "");
  if (t->copies) {
    gst_pinned_copy_list_note (t->copies, d, s, len, kind);
    return TRUE;
  }
  return gst_pinned_cuda_result (cudaMemcpyAsync (d, s, len, kind, t->handle),
      error);
}

/* Page-locked memory: the DMA engine takes it as it is. */
static gboolean
copy_as_is (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i, guint8 * d, const guint8 * s, gsize len, gboolean upload,
    GError ** error)
{
  return gst_pinned_memory_kind_enqueue_copy (t, d, upload, s, !upload, len,
      error);
}

/* Registered memory: the registered interior directly, the partial pages
 * at its ends (at most a page each) through CUDA's staging, which copies
 * so little at once. */
static gboolean
copy_registered (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i, guint8 * d, const guint8 * s, gsize len, gboolean upload,
    GError ** error)
{
  const guint8 *host = upload ? s : d;
  const guint8 *lo = side->locked[i];
  const guint8 *hi = lo + side->locked_size[i];
  const guint8 *end = host + len;
  const guint8 *cut[4];
  guint k;

  cut[0] = host;
  cut[1] = CLAMP (lo, host, end);
  cut[2] = CLAMP (hi, cut[1], end);
  cut[3] = end;
  for (k = 0; k < 3; k++) {
    gsize off = cut[k] - host, n = cut[k + 1] - cut[k];

    if (!gst_pinned_memory_kind_enqueue_copy (t, d + off, upload, s + off,
            !upload, n, error))
      return FALSE;
  }
  return TRUE;
}

/* Pageable memory: through our staging where it was reserved, else
 * through CUDA's own. */
static gboolean
copy_pageable (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i, guint8 * d, const guint8 * s, gsize len, gboolean upload,
    GError ** error)
{
  if (t->stager == NULL)
    return copy_as_is (t, side, i, d, s, len, upload, error);
  if (upload)
    return gst_pinned_stager_upload (t->stager, t->stream, d, s, len,
        &side->map[i], side->buffer, error);
  return gst_pinned_stager_download (t->stager, t->stream, d, s, len, error);
}

gboolean
gst_pinned_memory_kind_copy_piece (GstPinnedTransferState * t, guint i, guint j,
    guint8 * d, const guint8 * s, gsize len, GError ** error)
{
  GstPinnedTransferSide *src = &t->in, *dst = &t->out;
  gboolean s_dev = src->kind[i]->device, d_dev = dst->kind[j]->device;

  if (s_dev == d_dev)
    return gst_pinned_memory_kind_enqueue_copy (t, d, d_dev, s, s_dev, len,
        error);
  if (s_dev)
    return dst->kind[j]->copy (t, dst, j, d, s, len, FALSE, error);
  return src->kind[i]->copy (t, src, i, d, s, len, TRUE, error);
}
