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

#include "gstpinnedtransfer-private.h"
#include "gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedbuffer.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_transfer_debug, "pinnedtransfer",
    "gst-pinned frame transfers");
#define GST_CAT_DEFAULT gst_pinned_transfer_debug

#define MAX_MEMORIES 16

/* What the DMA engine can do with a memory. */
typedef enum
{
  KIND_DEVICE,                  /* gst-pinned device memory */
  KIND_PINNED,                  /* gst-pinned page-locked memory: fenced */
  KIND_LOCKED,                  /* page-locked by another owner: unfenced */
  KIND_REGISTERED,              /* its interior registered: unfenced */
  KIND_PAGEABLE,
} Kind;

/* One side of a transfer, its memories mapped for the duration of the
 * enqueue. */
typedef struct
{
  GstBuffer *buffer;
  guint n_mem;
  GstMapInfo map[MAX_MEMORIES];
  gsize start[MAX_MEMORIES];
  Kind kind[MAX_MEMORIES];
  /* KIND_REGISTERED: the page-locked part of the map */
  const guint8 *locked[MAX_MEMORIES];
  gsize locked_size[MAX_MEMORIES];
  /* Page-locked memory without fences: CUDA copies it asynchronously, and
   * nothing tells its owner when. */
  gboolean unfenced;
  /* Host memory that is not ours (pageable or not). */
  gboolean foreign;
  gint offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} Side;

/* One copy of a batch. */
typedef struct
{
  gpointer dst;
  gconstpointer src;
  gsize len;
  enum cudaMemcpyKind kind;
} BatchCopy;

struct _GstPinnedTransferBatch
{
  GArray *copies;               /* BatchCopy */
  GPtrArray *srcs;              /* the frames' buffers, referenced */
  GPtrArray *dsts;
};

/* The state of one frame's transfer. */
typedef struct
{
  GstPinnedStream *stream;
  cudaStream_t handle;
  const GstVideoInfo *info;
  GstPinnedPageable *pageable;
  GstPinnedPageableMode mode;
  GstPinnedStager *stager;      /* once staging is reserved */
  GstPinnedTransferReport *report;      /* nullable */
  guint64 bytes;
  /* Set: the copies are noted there, not enqueued. */
  GstPinnedTransferBatch *batch;
  Side in, out;
} Transfer;

/* Rows of a plane; the palette of paletted formats is one row, and so is a
 * plane of tiles (its tiles are copied as the bytes they are). */
static guint
plane_rows (const GstVideoInfo * info, guint plane)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  if ((GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1) ||
      GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    return 1;

  gst_video_format_info_component (finfo, plane, comp);
  return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
      GST_VIDEO_INFO_FIELD_HEIGHT (info));
}

/* The bytes of a row of a plane that hold pixels: the widest of its
 * components; the palette is 256 entries of 4 bytes; a plane of tiles is
 * its tiles (its stride counts tiles, not bytes). */
static gsize
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize bytes = 0;
  guint i;

  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1)
    return 256 * 4;
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);

    return (gsize) GST_VIDEO_TILE_X_TILES (stride) *
        GST_VIDEO_TILE_Y_TILES (stride) *
        GST_VIDEO_FORMAT_INFO_TILE_SIZE (finfo, plane);
  }

  gst_video_format_info_component (finfo, plane, comp);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[i]);

    /* Pixels packed in groups (v210): the default stride is one row. */
    if (pstride <= 0)
      return GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
    bytes = MAX (bytes, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[i]) *
        pstride);
  }
  return bytes;
}

/* Whether every plane, at @offset with @stride, lies within @size bytes. A
 * buffer smaller than its caps, or a GstVideoMeta that places a plane
 * past the end, would have the copy read or write out of bounds, or leave
 * part of the destination as it was. */
static gboolean
layout_fits (const GstVideoInfo * info, const gint * offset,
    const gint * stride, gboolean has_meta, gsize size, const gchar * what,
    GError ** error)
{
  gboolean default_layout = TRUE;
  guint p;

  if (!has_meta && size < info->size) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "the %s buffer holds %" G_GSIZE_FORMAT " bytes, but a %dx%d %s "
        "frame of its caps needs %" G_GSIZE_FORMAT ": the caps do not "
        "describe the buffers", what, size, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info), info->size);
    return FALSE;
  }

  /* The layout of @info holds the frame in info->size bytes: per frame,
   * only other layouts are checked plane by plane. */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    default_layout = default_layout && offset[p] >= 0 &&
        (gsize) offset[p] == info->offset[p] && stride[p] == info->stride[p];
  }
  if (default_layout && size >= info->size)
    return TRUE;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row = plane_row_bytes (info, p);
    guint rows = plane_rows (info, p);
    gsize end;

    /* One row (a palette) has no stride to speak of. */
    if (offset[p] < 0 || (rows > 1 && (stride[p] <= 0 ||
                (gsize) stride[p] < row))) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer has offset %d and stride %d, but a row "
          "of a %dx%d %s frame holds %" G_GSIZE_FORMAT " bytes: its "
          "GstVideoMeta does not fit its caps", p, what, offset[p], stride[p],
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), row);
      return FALSE;
    }
    end = offset[p] + (gsize) stride[p] * (rows - 1) + row;
    if (end > size) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of the %s buffer ends at byte %" G_GSIZE_FORMAT
          " (offset %d, stride %d, %u rows of a %dx%d %s frame), past its %"
          G_GSIZE_FORMAT " bytes: %s", p, what, end, offset[p], stride[p],
          rows, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), size, has_meta ?
          "its GstVideoMeta does not fit the buffer" :
          "the caps do not describe the buffers");
      return FALSE;
    }
  }

  return TRUE;
}

static void
layout_of (GstBuffer * buffer, const GstVideoInfo * info, gint * offset,
    gint * stride)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    offset[p] = meta ? meta->offset[p] : info->offset[p];
    stride[p] = meta ? meta->stride[p] : info->stride[p];
  }
}

gboolean
gst_pinned_transfer_check_layout (GstBuffer * buffer,
    const GstVideoInfo * info, const gchar * what, GError ** error)
{
  gint offset[GST_VIDEO_MAX_PLANES], stride[GST_VIDEO_MAX_PLANES];

  layout_of (buffer, info, offset, stride);
  return layout_fits (info, offset, stride,
      gst_buffer_get_video_meta (buffer) != NULL,
      gst_buffer_get_size (buffer), what, error);
}

static void
side_unmap (Side * side)
{
  guint i;

  for (i = 0; i < side->n_mem; i++)
    gst_memory_unmap (side->map[i].memory, &side->map[i]);
  side->n_mem = 0;
}

static gboolean
side_map (Transfer * t, Side * side, GstBuffer * buffer, GstMapFlags access,
    GError ** error)
{
  const GstVideoInfo *info = t->info;
  GstPinnedHostRegistry *registry = NULL;
  GstPinnedRegisterPolicy policy = GST_PINNED_REGISTER_NEVER;
  gsize start = 0;
  guint i, n;

  side->buffer = buffer;
  side->n_mem = 0;
  side->unfenced = FALSE;
  side->foreign = FALSE;

  layout_of (buffer, info, side->offset, side->stride);
  if (!layout_fits (info, side->offset, side->stride,
          gst_buffer_get_video_meta (buffer) != NULL,
          gst_buffer_get_size (buffer), access & GST_MAP_WRITE ? "output" :
          "input", error))
    return FALSE;

  n = gst_buffer_n_memory (buffer);
  if (n > MAX_MEMORIES) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "buffer has %u memories, at most %u are supported", n, MAX_MEMORIES);
    return FALSE;
  }

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    gboolean ours = gst_is_pinned_memory (mem);

    /* Ours: the GPU address, without a host wait; the stream waits. */
    if (!gst_memory_map (mem, &side->map[i],
            ours ? access | GST_MAP_PINNED_GPU : access)) {
      side_unmap (side);
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
          "cannot map memory %u of %" GST_PTR_FORMAT, i, buffer);
      return FALSE;
    }
    side->n_mem++;
    side->start[i] = start;
    start += side->map[i].size;

    if (ours) {
      side->kind[i] = gst_is_pinned_device_memory (mem) ? KIND_DEVICE :
          KIND_PINNED;
      continue;
    }
    side->foreign = TRUE;

    /* Asked once in the memory's life, not per frame. */
    if (t->pageable && registry == NULL) {
      registry = gst_pinned_pageable_get_registry (t->pageable);
      policy = gst_pinned_pageable_get_policy (t->pageable);
    }
    switch (gst_pinned_host_registry_classify (registry, mem,
            side->map[i].data, side->map[i].size, policy, &side->locked[i],
            &side->locked_size[i])) {
      case GST_PINNED_HOST_FOREIGN_LOCKED:
        side->kind[i] = KIND_LOCKED;
        side->unfenced = TRUE;
        break;
      case GST_PINNED_HOST_REGISTERED:
        side->kind[i] = KIND_REGISTERED;
        side->unfenced = TRUE;
        break;
      default:
        side->kind[i] = KIND_PAGEABLE;
        break;
    }
  }

  return TRUE;
}

static gboolean
is_device (Side * side, guint i)
{
  return side->kind[i] == KIND_DEVICE;
}

/* Whether pageable host memory goes through our staging. */
static gboolean
stages (Transfer * t)
{
  return t->pageable != NULL && t->mode != GST_PINNED_PAGEABLE_DIRECT;
}

static void
count (Transfer * t, Side * side, guint i)
{
  static const GstPinnedPageablePath paths[] = {
    [KIND_DEVICE] = GST_PINNED_PATH_PINNED,
    [KIND_PINNED] = GST_PINNED_PATH_PINNED,
    [KIND_LOCKED] = GST_PINNED_PATH_LOCKED,
    [KIND_REGISTERED] = GST_PINNED_PATH_REGISTERED,
    [KIND_PAGEABLE] = GST_PINNED_PATH_STAGED,
  };
  GstPinnedPageablePath path = paths[side->kind[i]];

  if (path == GST_PINNED_PATH_STAGED && !stages (t))
    path = GST_PINNED_PATH_DIRECT;
  if (t->report)
    t->report->paths[path]++;
  if (t->pageable)
    gst_pinned_pageable_count (t->pageable, path);
}

static gsize
staging_bytes (Side * side, Side * other, gboolean whole_registered)
{
  /* Pieces are cut where the other side's memories end, or per plane,
   * and each is aligned. */
  gsize margin = 64 * (MAX (other->n_mem, GST_VIDEO_MAX_PLANES) + 1);
  gsize bytes = 0;
  guint i;

  for (i = 0; i < side->n_mem; i++) {
    if (side->kind[i] == KIND_PAGEABLE ||
        (whole_registered && side->kind[i] == KIND_REGISTERED))
      bytes += side->map[i].size + margin;
  }
  return bytes;
}

/* Reserves staging for the host memories that go through it: pageable
 * ones, and for pitched copies also the registered ones. */
static gboolean
reserve_staging (Transfer * t, gboolean whole_registered, GError ** error)
{
  gsize bytes;

  if (!stages (t))
    return TRUE;

  bytes = staging_bytes (&t->in, &t->out, whole_registered) +
      staging_bytes (&t->out, &t->in, whole_registered);
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

static gboolean
direct (Transfer * t, guint8 * d, gboolean d_device, const guint8 * s,
    gboolean s_device, gsize len, GError ** error)
{
  if (len == 0)
    return TRUE;
  if (t->batch) {
    BatchCopy copy = { d, s, len, copy_kind (s_device, d_device) };

    g_array_append_val (t->batch->copies, copy);
    return TRUE;
  }
  return gst_pinned_cuda_result (cudaMemcpyAsync (d, s, len,
          copy_kind (s_device, d_device), t->handle), error);
}

/* A copy between @host in registered memory and the device: the
 * registered interior directly, the partial pages at its ends (at most a
 * page each) through CUDA's staging, which copies so little at once. */
static gboolean
copy_registered (Transfer * t, Side * side, guint i, guint8 * d,
    const guint8 * s, gsize len, gboolean upload, GError ** error)
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

    if (!direct (t, d + off, upload, s + off, !upload, n, error))
      return FALSE;
  }
  return TRUE;
}

/* One piece: bytes [@s, @s + @len) of source memory @i to @d in
 * destination memory @j. */
static gboolean
copy_piece (Transfer * t, guint i, guint j, guint8 * d, const guint8 * s,
    gsize len, GError ** error)
{
  Side *src = &t->in, *dst = &t->out;
  gboolean s_dev = is_device (src, i), d_dev = is_device (dst, j);
  Kind host;

  if (s_dev == d_dev)
    return direct (t, d, d_dev, s, s_dev, len, error);

  host = s_dev ? dst->kind[j] : src->kind[i];
  switch (host) {
    case KIND_REGISTERED:
      return copy_registered (t, s_dev ? dst : src, s_dev ? j : i, d, s, len,
          !s_dev, error);
    case KIND_PAGEABLE:
      if (t->stager == NULL)
        return direct (t, d, d_dev, s, s_dev, len, error);
      return s_dev ? gst_pinned_stager_download (t->stager, t->stream, d, s,
          len, error) : gst_pinned_stager_upload (t->stager, t->stream, d, s,
          len, error);
    default:
      return direct (t, d, d_dev, s, s_dev, len, error);
  }
}

/* Same layout: copy the bytes as they lie, one copy per piece of memory. */
static gboolean
copy_whole (Transfer * t, GError ** error)
{
  Side *src = &t->in, *dst = &t->out;
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

      if (!copy_piece (t, i, j, dst->map[j].data + (pos - dst->start[j]),
              src->map[i].data + (pos - src->start[i]), len, error))
        return FALSE;
      t->bytes += len;
      pos += len;
    }
  }

  return TRUE;
}

/* A host memory that a pitched copy cannot use as it is: pageable, or
 * registered only in part (CUDA would stage a pitched copy from it row by
 * row). */
static gboolean
needs_staging (Transfer * t, Side * side, guint i)
{
  return t->stager != NULL && (side->kind[i] == KIND_PAGEABLE ||
      side->kind[i] == KIND_REGISTERED);
}

/* A pitched copy into staged host memory: into staging with the
 * destination's pitch, waited for, then copied out row by row on the
 * threads (only pixel rows: padding between rows is left alone). */
static gboolean
copy_2d_staged_out (Transfer * t, guint8 * d, gsize dpitch, const guint8 * s,
    gsize spitch, gsize width, guint rows, GError ** error)
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
  fence = gst_pinned_stream_record_fence_current (t->stream, error);
  if (fence == NULL)
    return FALSE;
  ok = gst_pinned_fence_wait (fence, error);
  gst_pinned_fence_unref (fence);
  if (ok)
    gst_pinned_stager_copy_out (t->stager, d, dpitch, staging, dpitch, width,
        rows);
  return ok;
}

/* Different layouts: copy each plane's rows of pixels (both layouts were
 * checked to hold them). */
static gboolean
copy_planes (Transfer * t, GError ** error)
{
  const GstVideoInfo *info = t->info;
  Side *src = &t->in, *dst = &t->out;
  const guint8 *staged[MAX_MEMORIES] = { NULL, };
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
    guint rows = plane_rows (info, p);
    gsize width, src_extent, dst_extent;
    gboolean s_dev, d_dev;
    const guint8 *s;
    guint8 *d;

    width = plane_row_bytes (info, p);

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
    s_dev = is_device (src, si);
    d_dev = is_device (dst, di);

    /* A pageable source is staged whole, once, then copied pitched from
     * page-locked memory. */
    if (!s_dev && d_dev && needs_staging (t, src, si)) {
      if (staged[si] == NULL) {
        staged[si] = gst_pinned_stager_stage (t->stager, src->map[si].data,
            src->map[si].size, error);
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

    if (rows == 1) {
      if (!direct (t, d, d_dev, s, s_dev, width, error))
        return FALSE;
    } else if (!gst_pinned_cuda_result (cudaMemcpy2DAsync (d, dst->stride[p],
                s, src->stride[p], width, rows, copy_kind (s_dev, d_dev),
                t->handle), error)) {
      return FALSE;
    }
    t->bytes += width * (guint64) rows;
  }

  return TRUE;
}

static void
count_side (Transfer * t, Side * side)
{
  guint i;

  /* The pool path counts nothing: no lock per frame. */
  for (i = 0; i < side->n_mem; i++) {
    if (side->kind[i] != KIND_DEVICE && side->kind[i] != KIND_PINNED)
      count (t, side, i);
  }
}

/* Sets @t up for @src to @dst on @stream, pushes the stream's context
 * and maps both sides; on failure nothing is left mapped or pushed. */
static gboolean
transfer_begin (Transfer * t, GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, GstPinnedTransferBatch * batch,
    GError ** error)
{
  GstPinnedContext *context = gst_pinned_stream_get_context (stream);

  ensure_debug_category ();

  t->stager = NULL;
  t->report = NULL;
  t->bytes = 0;
  t->batch = batch;
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

  if (!side_map (t, &t->in, src, GST_MAP_READ, error)) {
    gst_pinned_context_pop (context);
    return FALSE;
  }
  if (!side_map (t, &t->out, dst, GST_MAP_WRITE, error)) {
    side_unmap (&t->in);
    gst_pinned_context_pop (context);
    return FALSE;
  }
  return TRUE;
}

static gboolean
transfer (GstPinnedStream * stream, const GstVideoInfo * info,
    GstBuffer * src, GstBuffer * dst, GstPinnedPageable * pageable,
    GstPinnedTransferReport * report, GError ** error)
{
  GstPinnedContext *context;
  GstPinnedFence *fence = NULL;
  /* Not cleared as a whole: the sides' maps are big, and filled as used. */
  Transfer t;
  gboolean ok, whole;

  if (!transfer_begin (&t, stream, info, src, dst, pageable, NULL, error))
    return FALSE;
  t.report = report;
  context = gst_pinned_stream_get_context (stream);

  ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
      gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error);

  whole = same_layout (info, &t.in, &t.out);
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
    ok = copy_whole (&t, error);
  else if (ok)
    ok = copy_planes (&t, error);

  if (ok && report && report->end)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->end, t.handle),
        error);

  if (ok)
    ok = (fence = gst_pinned_stream_record_fence_current (stream, error)) !=
        NULL;

  if (t.stager)
    gst_pinned_stager_finish (t.stager, fence);

  if (ok) {
    gst_pinned_buffer_add_fence (src, fence, GST_MAP_READ);
    gst_pinned_buffer_add_fence (dst, fence, GST_MAP_WRITE);
    if (t.out.unfenced || (t.in.unfenced && pageable == NULL)) {
      GST_LOG ("waiting for a copy with unfenced page-locked memory");
      ok = gst_pinned_fence_wait (fence, error);
    } else if (t.in.unfenced) {
      ok = gst_pinned_pageable_hold (pageable, src, fence, error);
    }
    gst_pinned_fence_unref (fence);
    if (t.in.foreign)
      count_side (&t, &t.in);
    if (t.out.foreign)
      count_side (&t, &t.out);
    if (report)
      report->bytes = t.bytes;
  }

  side_unmap (&t.out);
  side_unmap (&t.in);
  gst_pinned_context_pop (context);

  return ok;
}


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

guint
gst_pinned_transfer_batch_get_frames (GstPinnedTransferBatch * batch)
{
  return batch->dsts->len;
}

/* Only our own memory: its addresses stay valid while the batch holds
 * the buffers, and its fences tell every later user when the copy is
 * done. */
static gboolean
batchable (Side * side)
{
  guint i;

  for (i = 0; i < side->n_mem; i++) {
    if (side->kind[i] != KIND_DEVICE && side->kind[i] != KIND_PINNED)
      return FALSE;
  }
  return side->n_mem > 0;
}

gboolean
gst_pinned_transfer_batch_add (GstPinnedTransferBatch * batch,
    GstPinnedStream * stream, const GstVideoInfo * info, GstBuffer * src,
    GstBuffer * dst, gboolean * added, guint64 * bytes, GError ** error)
{
  GstPinnedContext *context;
  Transfer t;
  guint n_copies = batch->copies->len;
  gboolean ok;

  *added = FALSE;
  if (!transfer_begin (&t, stream, info, src, dst, NULL, batch, error))
    return FALSE;
  context = gst_pinned_stream_get_context (stream);

  if (!batchable (&t.in) || !batchable (&t.out) ||
      !same_layout (info, &t.in, &t.out)) {
    ok = TRUE;
  } else {
    ok = gst_pinned_buffer_sync_stream (src, stream, GST_MAP_READ, error) &&
        gst_pinned_buffer_sync_stream (dst, stream, GST_MAP_WRITE, error) &&
        copy_whole (&t, error);
    if (ok) {
      g_ptr_array_add (batch->srcs, gst_buffer_ref (src));
      g_ptr_array_add (batch->dsts, gst_buffer_ref (dst));
      *added = TRUE;
      *bytes = t.bytes;
    } else {
      g_array_set_size (batch->copies, n_copies);
    }
  }

  side_unmap (&t.out);
  side_unmap (&t.in);
  gst_pinned_context_pop (context);

  return ok;
}

gboolean
gst_pinned_transfer_batch_flush (GstPinnedTransferBatch * batch,
    GstPinnedStream * stream, GstPinnedTransferReport * report, GError ** error)
{
  GstPinnedContext *context;
  cudaStream_t handle;
  GstPinnedFence *fence = NULL;
  guint i, n = batch->copies->len;
  gboolean ok = TRUE;

  if (batch->dsts->len == 0)
    return TRUE;

  context = gst_pinned_stream_get_context (stream);
  if (!gst_pinned_context_push (context, error)) {
    gst_pinned_transfer_batch_clear (batch);
    return FALSE;
  }
  handle = gst_pinned_stream_get_cuda_stream (stream);

  if (report && report->start)
    ok = gst_pinned_cuda_result (cudaEventRecord (report->start, handle),
        error);

  if (ok && n == 1) {
    BatchCopy *c = &g_array_index (batch->copies, BatchCopy, 0);

    ok = gst_pinned_cuda_result (cudaMemcpyAsync (c->dst, c->src, c->len,
            c->kind, handle), error);
  } else if (ok && n > 1) {
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

  return transfer (stream, info, src, dst, pageable, NULL, error);
}

gboolean
gst_pinned_transfer_video_frame_report (GstPinnedStream * stream,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, GstPinnedTransferReport * report,
    GError ** error)
{
  return transfer (stream, info, src, dst, pageable, report, error);
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
