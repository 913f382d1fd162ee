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

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedtransfer.h"
#include "gst/pinned/gstpinnedbuffer.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_transfer_debug, "pinnedtransfer",
    "gst-pinned frame transfers");
#define GST_CAT_DEFAULT gst_pinned_transfer_debug

#define MAX_MEMORIES 16

/* One side of a transfer, its memories mapped for the duration of the
 * enqueue. */
typedef struct
{
  GstBuffer *buffer;
  guint n_mem;
  GstMapInfo map[MAX_MEMORIES];
  gsize start[MAX_MEMORIES];
  gboolean device[MAX_MEMORIES];
  /* Page-locked memory of another allocator: CUDA copies it
   * asynchronously, and no fence tells its owner when. */
  gboolean unfenced_pinned;
  gint offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} Side;

static void
side_unmap (Side * side)
{
  guint i;

  for (i = 0; i < side->n_mem; i++)
    gst_memory_unmap (side->map[i].memory, &side->map[i]);
  side->n_mem = 0;
}

static gboolean
side_map (Side * side, GstBuffer * buffer, const GstVideoInfo * info,
    GstMapFlags access, GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  gsize start = 0;
  guint i, n, p;

  side->buffer = buffer;
  side->n_mem = 0;
  side->unfenced_pinned = FALSE;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    side->offset[p] = meta ? meta->offset[p] : info->offset[p];
    side->stride[p] = meta ? meta->stride[p] : info->stride[p];
  }

  n = gst_buffer_n_memory (buffer);
  if (n > MAX_MEMORIES) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "buffer has %u memories, at most %u are supported", n, MAX_MEMORIES);
    return FALSE;
  }

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstMapFlags flags = access;
    struct cudaPointerAttributes attr;

    /* Ours: the GPU address, without a host wait; the stream waits. */
    if (gst_is_pinned_memory (mem))
      flags |= GST_MAP_PINNED_GPU;

    if (!gst_memory_map (mem, &side->map[i], flags)) {
      side_unmap (side);
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
          "cannot map memory %u of %" GST_PTR_FORMAT, i, buffer);
      return FALSE;
    }
    side->n_mem++;
    side->start[i] = start;
    side->device[i] = gst_is_pinned_device_memory (mem);
    start += side->map[i].size;

    if (!gst_is_pinned_memory (mem) &&
        gst_pinned_cuda_result (cudaPointerGetAttributes (&attr,
                side->map[i].data), NULL) && attr.type == cudaMemoryTypeHost)
      side->unfenced_pinned = TRUE;
  }

  return TRUE;
}

/* The memory holding [offset, offset + size) of the buffer. */
static gboolean
side_find (Side * side, gsize offset, gsize size, guint * idx)
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

static enum cudaMemcpyKind
copy_kind (gboolean src_device, gboolean dst_device)
{
  if (src_device)
    return dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  return dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost;
}

static gboolean
same_layout (const GstVideoInfo * info, Side * src, Side * dst)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (src->offset[p] != dst->offset[p] || src->stride[p] != dst->stride[p])
      return FALSE;
  }
  return TRUE;
}

/* Same layout: copy the bytes as they lie, one copy per piece of memory. */
static gboolean
copy_whole (GstPinnedStream * stream, Side * src, Side * dst, GError ** error)
{
  cudaStream_t handle = gst_pinned_stream_get_cuda_stream (stream);
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

      if (!gst_pinned_cuda_result (cudaMemcpyAsync (dst->map[j].data +
                  (pos - dst->start[j]), src->map[i].data + (pos -
                      src->start[i]), len, copy_kind (src->device[i],
                      dst->device[j]), handle), error))
        return FALSE;
      pos += len;
    }
  }

  return TRUE;
}

/* Rows of a plane; the palette of paletted formats is one row. */
static guint
plane_rows (const GstVideoInfo * info, guint plane)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1)
    return 1;

  gst_video_format_info_component (finfo, plane, comp);
  return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
      GST_VIDEO_INFO_FIELD_HEIGHT (info));
}

/* Different layouts: copy each plane's rows, as wide as the narrower
 * stride, which holds every pixel of both. */
static gboolean
copy_planes (GstPinnedStream * stream, const GstVideoInfo * info, Side * src,
    Side * dst, GError ** error)
{
  cudaStream_t handle = gst_pinned_stream_get_cuda_stream (stream);
  guint p, si, di;

  if (GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "cannot change the layout of tiled format %s",
        GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint rows = plane_rows (info, p);
    gsize width, src_extent, dst_extent;
    guint8 *s, *d;

    if (src->stride[p] <= 0 || dst->stride[p] <= 0) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u: negative strides are not supported", p);
      return FALSE;
    }

    if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (info->finfo) && p == 1)
      width = 256 * 4;
    else
      width = MIN (src->stride[p], dst->stride[p]);

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

    if (rows == 1) {
      if (!gst_pinned_cuda_result (cudaMemcpyAsync (d, s, width,
                  copy_kind (src->device[si], dst->device[di]), handle), error))
        return FALSE;
    } else if (!gst_pinned_cuda_result (cudaMemcpy2DAsync (d, dst->stride[p],
                s, src->stride[p], width, rows, copy_kind (src->device[si],
                    dst->device[di]), handle), error)) {
      return FALSE;
    }
  }

  return TRUE;
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
 * Enqueues the copy of a video frame from @src to @dst on @stream, after the
 * GPU work that last wrote @src and last accessed @dst, and records one
 * fence that becomes @dst's writer and joins @src's readers. The host does
 * not wait, except where CUDA itself copies synchronously (pageable memory)
 * or where page-locked memory of another allocator needs it.
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
  GstPinnedContext *context;
  GstPinnedFence *fence = NULL;
  Side in, out;
  gboolean ok;

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (dst), FALSE);

  ensure_debug_category ();

  context = gst_pinned_stream_get_context (stream);
  if (!gst_pinned_context_push (context, error))
    return FALSE;

  if (!side_map (&in, src, info, GST_MAP_READ, error)) {
    gst_pinned_context_pop (context);
    return FALSE;
  }
  if (!side_map (&out, dst, info, GST_MAP_WRITE, error)) {
    side_unmap (&in);
    gst_pinned_context_pop (context);
    return FALSE;
  }

  ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
      gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error);

  if (ok && same_layout (info, &in, &out))
    ok = copy_whole (stream, &in, &out, error);
  else if (ok)
    ok = copy_planes (stream, info, &in, &out, error);

  if (ok)
    ok = (fence = gst_pinned_stream_record_fence (stream, error)) != NULL;

  if (ok) {
    gst_pinned_buffer_add_fence (src, fence, GST_MAP_READ);
    gst_pinned_buffer_add_fence (dst, fence, GST_MAP_WRITE);
    if (in.unfenced_pinned || out.unfenced_pinned) {
      GST_LOG ("waiting for a copy with unfenced page-locked memory");
      ok = gst_pinned_fence_wait (fence, error);
    }
    gst_pinned_fence_unref (fence);
  }

  side_unmap (&out);
  side_unmap (&in);
  gst_pinned_context_pop (context);

  return ok;
}
