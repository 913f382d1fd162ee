/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedtransfer
 * @title: Frame transfer
 * @short_description: copy a video frame between host and device memory
 *
 * gst_pinned_transfer_video_frame() enqueues the copies of one frame on a
 * stream and publishes them with one fence, so that the caller can push the
 * destination at once. It is the upload and download of the `pinned`
 * elements.
 *
 * When both sides have the same layout (offsets and strides), each source
 * memory is one cudaMemcpyAsync(). Otherwise each plane is one
 * cudaMemcpy2DAsync(): that packs a padded device frame for a downstream
 * without #GstVideoMeta.
 *
 * Sources and destinations that are not gst-pinned memory work too:
 * pageable memory through CUDA's own staging (slower, and the copy is
 * synchronous where CUDA makes it so), and page-locked memory of another
 * allocator, which has no fences, by waiting for the copy before returning.
 */

/* This file: one frame's transfer, its copies planned by layout. The
 * kinds of memory are gstpinnedmemorykind.c, the layout checks
 * gstpinnedlayout.c, frames copied together gstpinnedtransferbatch.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "transfer/gstpinnedtransferstate-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedbuffer.h"

GST_PINNED_DEBUG_CATEGORY_SHARED (gst_pinned_transfer_debug, "pinnedtransfer",
    "gst-pinned frame transfers", gst_pinned_transfer_init_debug);
#define GST_CAT_DEFAULT gst_pinned_transfer_debug

/* Reserves staging for the host memories that go through it: pageable
 * ones, and for pitched copies also the registered ones. */
static gboolean
reserve_staging (GstPinnedTransferState * t, gboolean pitched, GError ** error)
{
  gsize bytes;

  if (!gst_pinned_memory_kind_uses_our_staging (t))
    return TRUE;

  bytes = gst_pinned_memory_kind_side_staging (&t->in, &t->out, pitched) +
      gst_pinned_memory_kind_side_staging (&t->out, &t->in, pitched);
  if (bytes == 0)
    return TRUE;

  t->stager = gst_pinned_pageable_get_stager (t->pageable);
  if (!gst_pinned_stager_begin (t->stager, bytes, error)) {
    t->stager = NULL;
    return FALSE;
  }
  return TRUE;
}

/* The memory holding [offset, offset + size) of the buffer. */
static gboolean
side_find (GstPinnedTransferSide * side, gsize offset, gsize size, guint * idx)
{
  guint i;

  for (i = 0; i < side->n_mem; i++) {
    if (offset >= side->start[i] &&
        offset + size <= side->start[i] + side->map[i].size) {
      *idx = i;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean
gst_pinned_transfer_same_layout (const GstVideoInfo * info,
    GstPinnedTransferSide * src, GstPinnedTransferSide * dst)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (src->offset[p] != dst->offset[p] || src->stride[p] != dst->stride[p])
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_pinned_transfer_copy_whole (GstPinnedTransferState * t, GError ** error)
{
  GstPinnedTransferSide *src = &t->in, *dst = &t->out;
  gsize dst_size = gst_buffer_get_size (dst->buffer);
  guint i, j;

  for (i = 0; i < src->n_mem; i++) {
    gsize pos = src->start[i];
    gsize end = MIN (src->start[i] + src->map[i].size, dst_size);

    while (pos < end) {
      gsize len;

      if (!side_find (dst, pos, 1, &j)) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "no destination memory at offset %" G_GSIZE_FORMAT, pos);
        return FALSE;
      }
      len = MIN (end, dst->start[j] + dst->map[j].size) - pos;

      if (!gst_pinned_memory_kind_copy_piece (t, i, j,
              dst->map[j].data + (pos - dst->start[j]),
              src->map[i].data + (pos - src->start[i]), len, error))
        return FALSE;
      t->bytes += len;
      pos += len;
    }
  }

  return TRUE;
}

/* A host memory that a pitched copy cannot use as it is (pageable, or
 * registered only in part), where staging was reserved. */
static gboolean
needs_staging (GstPinnedTransferState * t, GstPinnedTransferSide * side,
    guint i)
{
  return t->stager != NULL && side->kind[i]->staged_pitched;
}

/* A pitched copy into staged host memory: into staging with the
 * destination's pitch, waited for, then copied out row by row on the
 * threads (only pixel rows: padding between rows is left alone). */
static gboolean
copy_2d_staged_out (GstPinnedTransferState * t, guint8 * d, gsize dpitch,
    const guint8 * s, gsize spitch, gsize width, guint rows, GError ** error)
{
  gsize extent = dpitch * (rows - 1) + width;
  GstPinnedFence *fence;
  guint8 *staging;
  gboolean ok;

  staging = gst_pinned_stager_reserve (t->stager, extent, error);
  if (staging == NULL)
    return FALSE;
  if (!gst_pinned_cuda_result (cudaMemcpy2DAsync (staging, dpitch, s, spitch,
              width, rows, cudaMemcpyDeviceToHost, t->handle), error))
    return FALSE;
  fence = gst_pinned_fence_record_current (t->stream, error);
  if (fence == NULL)
    return FALSE;
  ok = gst_pinned_host_wait_for_copy_out (fence, error);
  gst_pinned_fence_unref (fence);
  if (ok)
    gst_pinned_stager_copy_out (t->stager, d, dpitch, staging, dpitch, width,
        rows);
  return ok;
}

/* Different layouts: copy each plane's rows of pixels (both layouts were
 * checked to hold them). */
static gboolean
copy_planes (GstPinnedTransferState * t, GError ** error)
{
  const GstVideoInfo *info = t->info;
  GstPinnedTransferSide *src = &t->in, *dst = &t->out;
  const guint8 *staged[GST_PINNED_TRANSFER_MAX_MEMORIES] = { NULL, };
  guint p, si, di;

  /* A plane of tiles moves whole: only where it is may change. */
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)) {
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      if (src->stride[p] != dst->stride[p]) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "cannot change the tiles of plane %u of tiled format %s", p,
            GST_VIDEO_INFO_NAME (info));
        return FALSE;
      }
    }
  }

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint rows = gst_pinned_layout_plane_rows (info, p);
    gsize width, src_extent, dst_extent;
    gboolean s_dev, d_dev;
    const guint8 *s;
    guint8 *d;

    width = gst_pinned_layout_row_bytes (info, p);

    src_extent = (gsize) src->stride[p] * (rows - 1) + width;
    dst_extent = (gsize) dst->stride[p] * (rows - 1) + width;
    if (!side_find (src, src->offset[p], src_extent, &si) ||
        !side_find (dst, dst->offset[p], dst_extent, &di)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u does not lie within one memory of each buffer", p);
      return FALSE;
    }

    s = src->map[si].data + (src->offset[p] - src->start[si]);
    d = dst->map[di].data + (dst->offset[p] - dst->start[di]);
    s_dev = src->kind[si]->device;
    d_dev = dst->kind[di]->device;

    /* A pageable source is staged whole, once, then copied pitched from
     * page-locked memory. */
    if (!s_dev && d_dev && needs_staging (t, src, si)) {
      if (staged[si] == NULL) {
        staged[si] = gst_pinned_stager_stage (t->stager, t->stream,
            &src->map[si], src->buffer, error);
        if (staged[si] == NULL)
          return FALSE;
      }
      s = staged[si] + (s - src->map[si].data);
    } else if (s_dev && !d_dev && needs_staging (t, dst, di)) {
      if (!copy_2d_staged_out (t, d, dst->stride[p], s, src->stride[p],
              width, rows, error))
        return FALSE;
      t->bytes += width * (guint64) rows;
      continue;
    }

    GST_LOG ("plane %u: %p (pitch %d) <- %p (pitch %d), %" G_GSIZE_FORMAT
        " bytes x %u rows", p, d, dst->stride[p], s, src->stride[p], width,
        rows);
    if (rows == 1) {
      if (!gst_pinned_memory_kind_enqueue_copy (t, d, d_dev, s, s_dev, width,
              error))
        return FALSE;
    } else if (!gst_pinned_cuda_result (cudaMemcpy2DAsync (d, dst->stride[p],
                s, src->stride[p], width, rows,
                gst_pinned_memory_kind_copy_kind (s_dev, d_dev),
                t->handle), error)) {
      return FALSE;
    }
    t->bytes += width * (guint64) rows;
  }

  return TRUE;
}

gboolean
gst_pinned_transfer_begin (GstPinnedTransferState * t, GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, GstPinnedCopyList * copies, GError ** error)
{
  GstPinnedContext *context = gst_pinned_stream_get_context (stream);

  gst_pinned_transfer_init_debug ();

  t->stager = NULL;
  t->report = NULL;
  t->bytes = 0;
  t->copies = copies;
  t->stream = stream;
  t->handle = gst_pinned_stream_get_cuda_stream (stream);
  t->info = info;
  t->pageable = pageable;
  /* The mode matters only for host memory that is not ours. */
  t->mode = GST_PINNED_PAGEABLE_DIRECT;

  if (!gst_pinned_context_push (context, error))
    return FALSE;

  /* Earlier inputs whose copies are done go back to their owner. */
  if (pageable)
    gst_pinned_pageable_release_done (pageable);

  if (!gst_pinned_memory_kind_map_side (t, &t->in, src, GST_MAP_READ, error)) {
    gst_pinned_context_pop (context);
    return FALSE;
  }
  if (!gst_pinned_memory_kind_map_side (t, &t->out, dst, GST_MAP_WRITE, error)) {
    gst_pinned_memory_kind_unmap_side (&t->in);
    gst_pinned_context_pop (context);
    return FALSE;
  }
  /* The copy engine this stream uses, and its turn at it where other
   * streams use it too. */
  if (t->in.n_mem && t->out.n_mem &&
      !gst_pinned_host_wait_for_turn (stream, t->in.kind[0]->device,
          t->out.kind[0]->device, GST_VIDEO_INFO_SIZE (t->info), error)) {
    gst_pinned_memory_kind_unmap_side (&t->out);
    gst_pinned_memory_kind_unmap_side (&t->in);
    gst_pinned_context_pop (context);
    return FALSE;
  }
  return TRUE;
}

void
gst_pinned_transfer_end (GstPinnedTransferState * t)
{
  gst_pinned_memory_kind_unmap_side (&t->out);
  gst_pinned_memory_kind_unmap_side (&t->in);
  gst_pinned_context_pop (gst_pinned_stream_get_context (t->stream));
}

/* One frame, its copies enqueued and fenced. */
static gboolean
transfer_frame (GstPinnedStream * stream, const GstVideoInfo * info,
    GstBuffer * src, GstBuffer * dst, GstPinnedPageable * pageable,
    GstPinnedTransferReport * report, GError ** error)
{
  GstPinnedFence *fence = NULL;
  /* Not cleared as a whole: the sides' maps are big, and filled as used. */
  GstPinnedTransferState t;
  gboolean ok, whole;

  if (!gst_pinned_transfer_begin (&t, stream, info, src, dst, pageable, NULL,
          error))
    return FALSE;
  t.report = report;

  ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
      gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error);

  whole = gst_pinned_transfer_same_layout (info, &t.in, &t.out);
  if (ok && pageable && (t.in.foreign || t.out.foreign)) {
    t.mode = gst_pinned_pageable_get_mode (pageable);
    ok = reserve_staging (&t, !whole, error);
  }

  /* Timed from here: the stream's waits for earlier users are not the
   * copies' time. */
  if (ok && report && report->start)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->start, t.handle),
        error);

  if (ok && whole)
    ok = gst_pinned_transfer_copy_whole (&t, error);
  else if (ok)
    ok = copy_planes (&t, error);

  if (ok && report && report->end)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->end, t.handle),
        error);

  if (ok) {
    ok = (fence = gst_pinned_fence_record_current (stream, error)) != NULL;
  } else {
    /* Copies of the frame may be enqueued before the one that failed:
     * the buffers and the staging are fenced by them all the same, so
     * that no one frees or rewrites them under a copy still running, and
     * memory without our fences is waited for here. */
    fence = gst_pinned_fence_record_current (stream, NULL);
    gst_pinned_host_wait_for_unfenced (fence, t.in.foreign, t.out.foreign,
        NULL);
  }

  if (t.stager)
    gst_pinned_stager_finish (t.stager, fence);

  if (fence) {
    gst_pinned_buffer_add_fence (src, fence, GST_MAP_READ);
    gst_pinned_buffer_add_fence (dst, fence, GST_MAP_WRITE);
  }
  if (ok) {
    /* Pageable input is held (its owner gets it back later); memory
     * without our fences otherwise is waited for. */
    if (t.in.unfenced && pageable && !t.out.unfenced) {
      ok = gst_pinned_pageable_hold (pageable, src, fence, error);
    } else if (t.in.unfenced || t.out.unfenced) {
      GST_LOG ("waiting for a copy with unfenced page-locked memory");
      ok = gst_pinned_host_wait_for_unfenced (fence, t.in.unfenced,
          t.out.unfenced, error);
    }
    if (t.in.foreign)
      gst_pinned_memory_kind_count_side (&t, &t.in);
    if (t.out.foreign)
      gst_pinned_memory_kind_count_side (&t, &t.out);
    if (report)
      report->bytes = t.bytes;
  }
  if (fence)
    gst_pinned_fence_unref (fence);

  gst_pinned_transfer_end (&t);

  return ok;
}

/**
 * gst_pinned_transfer_video_frame_full:
 * @stream: the stream to enqueue the copies on
 * @info: the video info of both buffers; each buffer's #GstVideoMeta, if
 *   it has one, gives its layout
 * @src: the frame to copy: gst-pinned host or device memory, or system
 *   memory
 * @dst: the buffer to copy into, likewise
 * @pageable: (nullable): how to copy pageable host memory, and what to
 *   remember of it between frames; %NULL copies it as
 *   %GST_PINNED_PAGEABLE_DIRECT does and waits for copies of page-locked
 *   memory without fences
 * @error: (out) (optional): where to describe a failure
 *
 * Enqueues the copy of a video frame from @src to @dst on @stream, after the
 * GPU work that last wrote @src and last accessed @dst, and records one
 * fence that becomes @dst's writer and joins @src's readers.
 *
 * The host does not wait for copies of gst-pinned memory. Host memory of
 * other allocators: a source that is page-locked but has no fences (another
 * allocator's, or registered through @pageable) is kept by @pageable until
 * its copy is done (without @pageable, the copy is waited for); a pageable
 * source is staged as @pageable says. A host destination that is not
 * gst-pinned memory holds the frame when this returns.
 *
 * A buffer whose frame does not lie within it (smaller than @info says,
 * or a #GstVideoMeta whose planes reach past its end) is refused with a
 * %GST_STREAM_ERROR_FORMAT error before anything is copied.
 *
 * Returns: %TRUE when the copies were enqueued
 *
 * Since: 0.1
 */
gboolean
gst_pinned_transfer_video_frame_full (GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, GError ** error)
{
  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (pageable == NULL || GST_IS_PINNED_PAGEABLE (pageable),
      FALSE);

  return transfer_frame (stream, info, src, dst, pageable, NULL, error);
}

gboolean
gst_pinned_transfer_video_frame_report (GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, GstPinnedTransferReport * report,
    GError ** error)
{
  return transfer_frame (stream, info, src, dst, pageable, report, error);
}

/**
 * gst_pinned_transfer_video_frame:
 * @stream: the stream to enqueue the copies on
 * @info: the video info of both buffers; each buffer's #GstVideoMeta, if
 *   it has one, gives its layout
 * @src: the frame to copy: gst-pinned host or device memory, or system
 *   memory
 * @dst: the buffer to copy into, likewise
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_transfer_video_frame_full() without a #GstPinnedPageable:
 * pageable memory goes through CUDA's own staging, and copies of
 * page-locked memory without fences are waited for.
 *
 * Returns: %TRUE when the copies were enqueued
 *
 * Since: 0.1
 */
gboolean
gst_pinned_transfer_video_frame (GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GError ** error)
{
  return gst_pinned_transfer_video_frame_full (stream, info, src, dst, NULL,
      error);
}
