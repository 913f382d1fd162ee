/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* DLPack tensors (gstpinnedtensor.h): the shapes, strides, types and
 * devices of exported frames, their lifetime, the stream order both ways
 * (each with a control that must come out wrong), imports into
 * pinneddownload, and the refusals with their messages. Built only with
 * dlpack/dlpack.h. */

#include <string.h>
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <gst/pinned/gstpinnedtensor.h>
#include "pinnedtest.h"

/* The deleter of a buffer freed while its fences are pending runs on the
 * release thread once they signal: waited for here, up to 2 s. */
static void
wait_deleted (gint * deleted)
{
  gint64 until = g_get_monotonic_time () + pinned_test_ms (2000) * 1000;

  while (g_atomic_int_get (deleted) == 0 && g_get_monotonic_time () < until)
    g_usleep (1000);
}

#ifdef HAVE_CUDA_INTEROP
#include <gst/cuda/gstcudamemory.h>
#endif

#define DELAY_MS pinned_test_ms (300)

/* ---- frames ------------------------------------------------------------ */

/* A frame of @format in @allocator's memory, each row padded by @pad
 * bytes, planes one after another, with a GstVideoMeta. */
static GstBuffer *
new_frame (GstAllocator * allocator, GstVideoInfo * info,
    GstVideoFormat format, guint width, guint height, guint pad)
{
  gsize offsets[GST_VIDEO_MAX_PLANES], size = 0;
  gint strides[GST_VIDEO_MAX_PLANES];
  GstBuffer *buffer;
  GstMemory *mem;
  guint p;

  gst_video_info_set_format (info, format, width, height);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    /* The plane's rows: the info's own plane sizes tell them. */
    gsize rows = ((p + 1 < GST_VIDEO_INFO_N_PLANES (info) ?
            GST_VIDEO_INFO_PLANE_OFFSET (info, p + 1) : info->size) -
        GST_VIDEO_INFO_PLANE_OFFSET (info, p)) /
        GST_VIDEO_INFO_PLANE_STRIDE (info, p);

    offsets[p] = size;
    strides[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + pad;
    size += (gsize) strides[p] * rows;
    info->stride[p] = strides[p];
    info->offset[p] = offsets[p];
  }
  info->size = size;
  mem = gst_allocator_alloc (allocator, size, NULL);
  fail_unless (mem != NULL);
  buffer = gst_buffer_new ();
  gst_buffer_append_memory (buffer, mem);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, GST_VIDEO_INFO_N_PLANES (info), offsets, strides);
  return buffer;
}

/* An NV12 frame whose chroma plane starts a row after the luma's end. */
static GstBuffer *
stacked_frame_with_gap (GstAllocator * allocator, GstVideoInfo * info)
{
  GstBuffer *buffer;

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_NV12, 16, 16);
  info->offset[1] += info->stride[0];
  info->size += info->stride[0];
  buffer = gst_buffer_new ();
  gst_buffer_append_memory (buffer, gst_allocator_alloc (allocator,
          info->size, NULL));
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV12, 16, 16, 2, info->offset, info->stride);
  return buffer;
}

static guint8 *
mem_data (GstBuffer * buffer)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) gst_buffer_peek_memory (buffer, 0);

  return (guint8 *) mem->data + mem->mem.offset;
}

/* Writes @size bytes of @byte into device memory @dst on @stream through a
 * page-locked staging buffer (a real copy, which the stand-in can hold
 * back). The staging buffer is returned, to free after a sync. */
static gpointer
write_async (gpointer dst, guint8 byte, gsize size, cudaStream_t stream)
{
  gpointer staging;

  fail_unless (cudaHostAlloc (&staging, size, cudaHostAllocDefault) == 0);
  memset (staging, byte, size);
  fail_unless (cudaMemcpyAsync (dst, staging, size, cudaMemcpyHostToDevice,
          stream) == 0);
  return staging;
}

static void
write_sync (gpointer dst, guint8 byte, gsize size)
{
  gpointer staging = write_async (dst, byte, size, NULL);

  fail_unless (cudaDeviceSynchronize () == 0);
  cudaFreeHost (staging);
}

static gboolean
all_bytes (const guint8 * data, gsize size, guint8 byte)
{
  gsize i;

  for (i = 0; i < size; i++)
    if (data[i] != byte)
      return FALSE;
  return TRUE;
}

static cudaStream_t
new_cuda_stream (void)
{
  /* In device 0's context, the tests' own, whatever context an earlier
   * call left current on this thread (a stream is valid in its context
   * only). */
  static GstPinnedContext *ctx;
  cudaStream_t s;

  if (ctx == NULL)
    ctx = gst_pinned_context_new (0, NULL);
  fail_unless (ctx != NULL && gst_pinned_context_push (ctx, NULL));
  fail_unless (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) == 0);
  gst_pinned_context_pop (ctx);
  return s;
}

/* ---- export: shapes, strides, types, devices --------------------------- */

typedef struct
{
  GstVideoFormat format;
  guint plane;
  gint ndim;
  /* in pixels of the frame: the shape is computed from them */
  guint bits;
  gint channels;                /* last dimension; 0: [H, W] */
  guint w_div, h_div;
} PlaneCase;

static const PlaneCase plane_cases[] = {
  {GST_VIDEO_FORMAT_RGBA, 0, 3, 8, 4, 1, 1},
  {GST_VIDEO_FORMAT_BGRx, 0, 3, 8, 4, 1, 1},
  {GST_VIDEO_FORMAT_RGB, 0, 3, 8, 3, 1, 1},
  {GST_VIDEO_FORMAT_GRAY8, 0, 2, 8, 0, 1, 1},
  {GST_VIDEO_FORMAT_GRAY16_LE, 0, 2, 16, 0, 1, 1},
  {GST_VIDEO_FORMAT_NV12, 0, 2, 8, 0, 1, 1},
  {GST_VIDEO_FORMAT_NV12, 1, 3, 8, 2, 2, 2},
  {GST_VIDEO_FORMAT_I420, 2, 2, 8, 0, 2, 2},
  {GST_VIDEO_FORMAT_P010_10LE, 1, 3, 16, 2, 2, 2},
  {GST_VIDEO_FORMAT_I420_10LE, 0, 2, 16, 0, 1, 1},
  {GST_VIDEO_FORMAT_YUY2, 0, 3, 8, 2, 1, 1},
  {GST_VIDEO_FORMAT_RGBP, 1, 2, 8, 0, 1, 1},
  {GST_VIDEO_FORMAT_RGBA64_LE, 0, 3, 16, 4, 1, 1},
};

/* Odd sizes, padded rows: every plane of the cases above, on the device. */
GST_START_TEST (test_export_plane_shapes)
{
  PinnedTestDevice d;
  guint i, s;
  const guint sizes[][2] = { {33, 17}, {1, 1}, {640, 360} };

  pinned_test_device_init (&d);
  for (i = 0; i < G_N_ELEMENTS (plane_cases); i++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const PlaneCase *c = &plane_cases[i];
      guint width = sizes[s][0], height = sizes[s][1];
      guint elem = c->bits / 8;
      GstVideoInfo info;
      GstBuffer *buffer = new_frame (d.device, &info, c->format, width,
          height, 6 * elem);
      GError *error = NULL;
      DLManagedTensor *t;
      gint64 w = GST_VIDEO_INFO_COMP_WIDTH (&info, c->plane == 0 ? 0 : 1);
      gint64 h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c->plane == 0 ? 0 : 1);

      /* The planes of 4:2:0 formats are halved, rounded up. */
      if (c->w_div == 1) {
        w = width;
        h = height;
      }
      /* As many tensors as the format has planes. */
      fail_unless_equals_int (gst_pinned_tensor_n_planes (&info),
          GST_VIDEO_FORMAT_INFO_N_PLANES (info.finfo));
      t = gst_pinned_tensor_export_plane (buffer, &info, c->plane, NULL, 0,
          &error);
      fail_unless (t != NULL, "%s plane %u: %s",
          gst_video_format_to_string (c->format), c->plane,
          error ? error->message : "");
      fail_unless_equals_int (t->dl_tensor.ndim, c->ndim);
      fail_unless_equals_int64 (t->dl_tensor.shape[0], h);
      fail_unless_equals_int64 (t->dl_tensor.shape[1], w);
      if (c->ndim == 3)
        fail_unless_equals_int64 (t->dl_tensor.shape[2], c->channels);
      fail_unless_equals_int64 (t->dl_tensor.strides[0],
          info.stride[c->plane] / elem);
      fail_unless_equals_int64 (t->dl_tensor.strides[1],
          c->ndim == 3 ? c->channels : 1);
      fail_unless_equals_int (t->dl_tensor.dtype.code, kDLUInt);
      fail_unless_equals_int (t->dl_tensor.dtype.bits, c->bits);
      fail_unless_equals_int (t->dl_tensor.dtype.lanes, 1);
      fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCUDA);
      fail_unless_equals_int (t->dl_tensor.device.device_id, 0);
      fail_unless ((guint8 *) t->dl_tensor.data + t->dl_tensor.byte_offset ==
          mem_data (buffer) + info.offset[c->plane]);
      fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 2);
      gst_pinned_tensor_release (t);
      fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 1);
      gst_buffer_unref (buffer);
    }
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Whole frames: [H, W, C] for one plane, [C, H, W] for equal planes. */
GST_START_TEST (test_export_frame_shapes)
{
  static const struct
  {
    GstVideoFormat format;
    gboolean planar;
    gint channels;
    guint bits;
  } cases[] = {
    {GST_VIDEO_FORMAT_RGBA, FALSE, 4, 8},
    {GST_VIDEO_FORMAT_RGB, FALSE, 3, 8},
    {GST_VIDEO_FORMAT_GRAY8, FALSE, 1, 8},
    {GST_VIDEO_FORMAT_RGBP, TRUE, 3, 8},
    {GST_VIDEO_FORMAT_BGRP, TRUE, 3, 8},
    {GST_VIDEO_FORMAT_Y444, TRUE, 3, 8},
    {GST_VIDEO_FORMAT_GBRA, TRUE, 4, 8},
    {GST_VIDEO_FORMAT_Y444_16LE, TRUE, 3, 16},
  };
  PinnedTestDevice d;
  guint i;

  pinned_test_device_init (&d);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint elem = cases[i].bits / 8;
    GstVideoInfo info;
    GstBuffer *buffer = new_frame (d.device, &info, cases[i].format, 37, 19,
        10 * elem);
    GError *error = NULL;
    DLManagedTensor *t = gst_pinned_tensor_export_frame (buffer, &info, NULL,
        0, &error);
    const int64_t *shape, *strides;

    fail_unless (t != NULL, "%s: %s",
        gst_video_format_to_string (cases[i].format),
        error ? error->message : "");
    shape = t->dl_tensor.shape;
    strides = t->dl_tensor.strides;
    fail_unless_equals_int (t->dl_tensor.ndim, 3);
    fail_unless_equals_int (t->dl_tensor.dtype.bits, cases[i].bits);
    fail_unless (t->dl_tensor.data == mem_data (buffer));
    if (cases[i].planar) {
      fail_unless_equals_int64 (shape[0], cases[i].channels);
      fail_unless_equals_int64 (shape[1], 19);
      fail_unless_equals_int64 (shape[2], 37);
      fail_unless_equals_int64 (strides[0], info.offset[1] / elem);
      fail_unless_equals_int64 (strides[1], info.stride[0] / elem);
      fail_unless_equals_int64 (strides[2], 1);
    } else {
      fail_unless_equals_int64 (shape[0], 19);
      fail_unless_equals_int64 (shape[1], 37);
      fail_unless_equals_int64 (shape[2], cases[i].channels);
      fail_unless_equals_int64 (strides[0], info.stride[0] / elem);
      fail_unless_equals_int64 (strides[1], cases[i].channels);
      fail_unless_equals_int64 (strides[2], 1);
    }
    gst_pinned_tensor_release (t);
    gst_buffer_unref (buffer);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Planes of equally long rows, one after the other: [rows, W] (NV12 as
 * [H * 3 / 2, W]), padded pitches too. */
GST_START_TEST (test_export_frame_stacked)
{
  static const struct
  {
    GstVideoFormat format;
    guint width, height, rows, bits;
  } cases[] = {
    {GST_VIDEO_FORMAT_NV12, 38, 20, 30, 8},
    {GST_VIDEO_FORMAT_NV21, 64, 48, 72, 8},
    {GST_VIDEO_FORMAT_NV16, 38, 19, 38, 8},
    {GST_VIDEO_FORMAT_P010_10LE, 38, 20, 30, 16},
  };
  PinnedTestDevice d;
  guint i, pad;

  pinned_test_device_init (&d);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    for (pad = 0; pad <= 10; pad += 10) {
      guint elem = cases[i].bits / 8;
      GstVideoInfo info;
      GstBuffer *buffer = new_frame (d.device, &info, cases[i].format,
          cases[i].width, cases[i].height, pad * elem);
      GError *error = NULL;
      DLManagedTensor *t = gst_pinned_tensor_export_frame (buffer, &info,
          NULL, 0, &error);

      fail_unless (t != NULL, "%s: %s",
          gst_video_format_to_string (cases[i].format),
          error ? error->message : "");
      fail_unless_equals_int (t->dl_tensor.ndim, 2);
      fail_unless_equals_int (t->dl_tensor.dtype.bits, cases[i].bits);
      fail_unless (t->dl_tensor.data == mem_data (buffer));
      fail_unless_equals_int64 (t->dl_tensor.shape[0], cases[i].rows);
      fail_unless_equals_int64 (t->dl_tensor.shape[1], cases[i].width);
      fail_unless_equals_int64 (t->dl_tensor.strides[0], info.stride[0] / elem);
      fail_unless_equals_int64 (t->dl_tensor.strides[1], 1);
      /* The chroma rows are the tensor's rows after the luma's. */
      fail_unless_equals_int64 (info.offset[1],
          (gint64) cases[i].height * t->dl_tensor.strides[0] * elem);
      gst_pinned_tensor_release (t);
      gst_buffer_unref (buffer);
    }
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Page-locked memory: kDLCUDAHost, or kDLCPU for a CPU consumer, which
 * the export makes wait for the frame's writer on the host. */
GST_START_TEST (test_export_host)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  GError *error = NULL;
  gpointer dev;

  pinned_test_device_init (&d);
  buffer = new_frame (d.host, &info, GST_VIDEO_FORMAT_RGBA, 64, 8, 0);

  t = gst_pinned_tensor_export_frame (buffer, &info, NULL, 0, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCUDAHost);
  gst_pinned_tensor_release (t);

  /* A copy into it, held back: the CPU export waits for it. */
  fail_unless (cudaMalloc (&dev, info.size) == 0);
  write_sync (dev, 0x5a, info.size);
  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless (cudaMemcpyAsync (mem_data (buffer), dev, info.size,
          cudaMemcpyDeviceToHost,
          gst_pinned_stream_get_cuda_stream (d.stream)) == 0);
  gst_pinned_context_pop (d.ctx);
  fail_unless (gst_pinned_buffer_record_fence (buffer, d.stream,
          GST_MAP_WRITE, NULL));
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (buffer, GST_MAP_READ));

  t = gst_pinned_tensor_export_frame (buffer, &info, NULL,
      GST_PINNED_TENSOR_FLAG_HOST_AS_CPU, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCPU);
  fail_unless (all_bytes (t->dl_tensor.data, info.size, 0x5a),
      "the CPU tensor was handed out before the copy into it landed");
  gst_pinned_tensor_release (t);

  fail_unless (cudaFree (dev) == 0);
  gst_buffer_unref (buffer);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* DLPack 1.0's versioned tensor, as dlpack.h of 1.x declares it (the
 * header here may be 0.6's). */
typedef struct TestVersioned
{
  struct
  {
    uint32_t major, minor;
  } version;
  void *manager_ctx;
  void (*deleter) (struct TestVersioned * self);
  uint64_t flags;
  DLTensor dl_tensor;
} TestVersioned;

#define TEST_FLAG_READ_ONLY ((uint64_t) 1 << 0)

/* GST_PINNED_TENSOR_FLAG_VERSIONED: a DLManagedTensorVersioned of DLPack
 * 1.0 on the same memory, read-only unless exported for writing, released
 * through its own deleter (gst_pinned_tensor_release_full()). */
GST_START_TEST (test_export_versioned)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  GError *error = NULL;
  guint i, j;

  pinned_test_device_init (&d);
  for (i = 0; i < 2; i++) {
    buffer = new_frame (i ? d.host : d.device, &info, GST_VIDEO_FORMAT_RGBA,
        64, 8, 0);
    for (j = 0; j < 2; j++) {
      GstPinnedTensorFlags flags = GST_PINNED_TENSOR_FLAG_VERSIONED |
          (j ? GST_PINNED_TENSOR_FLAG_WRITE : 0) |
          (i ? GST_PINNED_TENSOR_FLAG_HOST_AS_CPU : 0);
      TestVersioned *v;

      v = gst_pinned_tensor_export_frame (buffer, &info, NULL, flags, &error);
      fail_unless (v != NULL, "%s", error ? error->message : "");
      fail_unless_equals_int (v->version.major, 1);
      fail_unless_equals_int (v->version.minor, 0);
      fail_unless (v->deleter != NULL && v->manager_ctx != NULL);
      fail_unless_equals_int (!!(v->flags & TEST_FLAG_READ_ONLY), !j);
      fail_unless_equals_int (v->dl_tensor.device.device_type,
          i ? kDLCPU : kDLCUDA);
      fail_unless (v->dl_tensor.data == mem_data (buffer));
      fail_unless_equals_int (v->dl_tensor.ndim, 3);
      fail_unless_equals_int64 (v->dl_tensor.shape[0], 8);
      fail_unless_equals_int64 (v->dl_tensor.shape[1], 64);
      fail_unless_equals_int64 (v->dl_tensor.shape[2], 4);
      fail_unless_equals_int64 (v->dl_tensor.strides[0], info.stride[0]);
      fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 2);
      gst_pinned_tensor_release_full (v, GST_PINNED_TENSOR_FLAG_VERSIONED);
      fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 1);
    }
    gst_buffer_unref (buffer);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A copy still reads a page-locked frame on the GPU (held back on its
 * stream) when a CPU consumer that writes exports it: the export waits for
 * that copy, so the copy takes the frame as it was and not the consumer's
 * writes. Returns whether it did. */
static gboolean
copy_reads_before_cpu_writes (GstPinnedTensorFlags flags)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  GError *error = NULL;
  gpointer dev;
  guint8 *result;
  gboolean old;

  pinned_test_device_init (&d);
  buffer = new_frame (d.host, &info, GST_VIDEO_FORMAT_RGBA, 64, 8, 0);
  memset (mem_data (buffer), 0x5a, info.size);
  fail_unless (cudaMalloc (&dev, info.size) == 0);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless (cudaMemcpyAsync (dev, mem_data (buffer), info.size,
          cudaMemcpyHostToDevice,
          gst_pinned_stream_get_cuda_stream (d.stream)) == 0);
  gst_pinned_context_pop (d.ctx);
  fail_unless (gst_pinned_buffer_record_fence (buffer, d.stream,
          GST_MAP_READ, NULL));

  t = gst_pinned_tensor_export_frame (buffer, &info, NULL,
      flags | GST_PINNED_TENSOR_FLAG_HOST_AS_CPU, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCPU);
  /* The consumer writes the whole frame. */
  memset (t->dl_tensor.data, 0xff, info.size);
  gst_pinned_tensor_release (t);

  fail_unless (cudaDeviceSynchronize () == 0);
  result = g_malloc (info.size);
  fail_unless (cudaMemcpy (result, dev, info.size,
          cudaMemcpyDeviceToHost) == 0);
  old = all_bytes (result, info.size, 0x5a);

  g_free (result);
  fail_unless (cudaFree (dev) == 0);
  gst_buffer_unref (buffer);
  pinned_test_device_clear (&d);
  return old;
}

GST_START_TEST (test_cpu_writer_waits_for_copies)
{
  fail_unless (copy_reads_before_cpu_writes (GST_PINNED_TENSOR_FLAG_WRITE),
      "a GPU copy still reading the page-locked frame took the bytes its "
      "CPU consumer wrote after the export for writing");
}

GST_END_TEST;

/* Control: an export for reading does not wait for the frame's readers,
 * and a consumer that writes anyway races the held-back copy. */
GST_START_TEST (test_cpu_reader_export_leaves_copies_running)
{
  if (!pinned_test_is_fake ())
    return;                     /* a GPU might run the two in either order */
  if (pinned_test_work_is_async ())
    fail_if (copy_reads_before_cpu_writes (GST_PINNED_TENSOR_FLAG_NONE),
        "the copy read the frame before the unordered CPU write: this test "
        "could not see the hazard");
}

GST_END_TEST;

static void
buffer_gone (gpointer data, GstMiniObject * where)
{
  *(gboolean *) data = TRUE;
}

/* The tensor holds the buffer exactly as long as it lives, and no more:
 * the application drops its buffer first, then the tensor. */
GST_START_TEST (test_export_lifetime)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *planes[2], *frame;
  gboolean gone = FALSE;

  pinned_test_device_init (&d);
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_NV12, 64, 48, 0);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (buffer), buffer_gone, &gone);

  planes[0] = gst_pinned_tensor_export_plane (buffer, &info, 0, NULL, 0, NULL);
  planes[1] = gst_pinned_tensor_export_plane (buffer, &info, 1, NULL, 0, NULL);
  fail_unless (planes[0] && planes[1]);
  gst_buffer_unref (buffer);

  gst_pinned_tensor_release (planes[1]);
  fail_if (gone, "the buffer went while a tensor of it lived");
  gst_pinned_tensor_release (planes[0]);
  fail_unless (gone, "the buffer outlived its tensors");

  /* A refused export holds nothing. */
  gone = FALSE;
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_I420, 64, 48, 0);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (buffer), buffer_gone, &gone);
  frame = gst_pinned_tensor_export_frame (buffer, &info, NULL, 0, NULL);
  fail_unless (frame == NULL);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 1);
  gst_buffer_unref (buffer);
  fail_unless (gone);

  pinned_test_device_clear (&d);
}

GST_END_TEST;

static void
check_export_refused (GstBuffer * buffer, const GstVideoInfo * info,
    gboolean frame, const gchar * phrase)
{
  GError *error = NULL;
  gpointer t = frame ?
      gst_pinned_tensor_export_frame (buffer, info, NULL, 0, &error) :
      gst_pinned_tensor_export_plane (buffer, info, 0, NULL, 0, &error);

  fail_unless (t == NULL, "%s was exported, where the export should have "
      "refused it ('%s')",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)), phrase);
  fail_unless (error != NULL);
  fail_unless (error->domain == GST_PINNED_TENSOR_ERROR);
  fail_unless (strstr (error->message, phrase) != NULL,
      "'%s' does not say '%s'", error->message, phrase);
  GST_INFO ("refused: %s", error->message);
  g_error_free (error);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buffer), 1);
}

GST_START_TEST (test_export_refusals)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 11, };

  pinned_test_device_init (&d);

  /* System memory. */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 16, 16);
  buffer = gst_buffer_new_allocate (NULL, info.size, NULL);
  check_export_refused (buffer, &info, TRUE, "memory:PinnedDevice");
  gst_buffer_unref (buffer);

  /* A pitch that is no whole number of 16-bit elements. */
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_GRAY16_LE, 5, 4, 0);
  gst_buffer_remove_all_memory (buffer);
  gst_buffer_append_memory (buffer, gst_allocator_alloc (d.device, 64, NULL));
  gst_buffer_remove_meta (buffer, (GstMeta *) gst_buffer_get_video_meta
      (buffer));
  gst_buffer_add_video_meta_full (buffer, 0, GST_VIDEO_FORMAT_GRAY16_LE, 5, 4,
      1, offset, stride);
  check_export_refused (buffer, &info, FALSE, "no whole number");
  gst_buffer_unref (buffer);

  /* Planes of different widths as one tensor. */
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_I420, 16, 16, 0);
  check_export_refused (buffer, &info, TRUE, "export each plane");
  gst_buffer_unref (buffer);

  /* NV12 of an odd width: its chroma rows are a pair longer. */
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_NV12, 17, 16, 0);
  check_export_refused (buffer, &info, TRUE, "export each plane");
  gst_buffer_unref (buffer);

  /* NV12 of an odd height: GstVideoInfo leaves a row between its planes. */
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_NV12, 16, 15, 0);
  check_export_refused (buffer, &info, TRUE, "export each plane");
  gst_buffer_unref (buffer);

  /* NV12 with rows of padding between its planes. */
  buffer = stacked_frame_with_gap (d.device, &info);
  check_export_refused (buffer, &info, TRUE, "export each plane");
  gst_buffer_unref (buffer);

  /* Formats without a tensor layout. */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_v210, 48, 4);
  buffer = gst_buffer_new ();
  gst_buffer_append_memory (buffer, gst_allocator_alloc (d.device, info.size,
          NULL));
  check_export_refused (buffer, &info, TRUE, "no tensor layout");
  gst_buffer_unref (buffer);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB16, 16, 4);
  buffer = gst_buffer_new ();
  gst_buffer_append_memory (buffer, gst_allocator_alloc (d.device, info.size,
          NULL));
  check_export_refused (buffer, &info, FALSE, "share bytes");
  gst_buffer_unref (buffer);

  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A frame of RGBA, @width x @height, whose rows are @stride bytes apart in
 * one memory of @size bytes: the GstVideoMeta says so, whatever the
 * memory holds. */
static GstBuffer *
rgba_frame_in (GstAllocator * allocator, GstVideoInfo * info, guint width,
    guint height, gint stride, gsize size)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride, };
  GstBuffer *buffer = gst_buffer_new ();

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_RGBA, width, height);
  gst_buffer_append_memory (buffer, gst_allocator_alloc (allocator, size,
          NULL));
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, width, height, 1, offset, strides);
  return buffer;
}

/* A plane whose last row ends past its memory: the consumer's kernel would
 * read (or write) past the allocation. The last row needs no padding: a
 * memory that ends right after its pixels is exported. */
GST_START_TEST (test_export_plane_past_memory)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  GError *error = NULL;
  /* 16 RGBA pixels a row, 16 bytes of padding: 3 rows and one row's
   * pixels. */
  const gsize exact = 3 * 80 + 16 * 4;

  pinned_test_device_init (&d);

  buffer = rgba_frame_in (d.device, &info, 16, 4, 80, exact);
  t = gst_pinned_tensor_export_plane (buffer, &info, 0, NULL, 0, &error);
  fail_unless (t != NULL, "a plane that fits its memory exactly was "
      "refused: %s", error ? error->message : "");
  gst_pinned_tensor_release (t);
  gst_buffer_unref (buffer);

  /* One byte short, as a plane and as a frame. */
  buffer = rgba_frame_in (d.device, &info, 16, 4, 80, exact - 1);
  check_export_refused (buffer, &info, FALSE, "does not lie in one memory");
  check_export_refused (buffer, &info, TRUE, "does not lie in one memory");
  gst_buffer_unref (buffer);

  /* The buffer is large enough, but in two memories: the tensor would run
   * from the first into whatever lies after it. */
  buffer = rgba_frame_in (d.device, &info, 16, 4, 80, 2 * 80);
  gst_buffer_append_memory (buffer, gst_allocator_alloc (d.device, 2 * 80,
          NULL));
  check_export_refused (buffer, &info, FALSE, "does not lie in one memory");
  gst_buffer_unref (buffer);

  /* NV12 whose chroma plane is cut short: the frame's last plane. */
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_NV12, 16, 16, 0);
  gst_buffer_resize (buffer, 0, info.size - 1);
  check_export_refused (buffer, &info, TRUE, "does not lie in one memory");
  gst_buffer_unref (buffer);

  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A pitch less than a row of the plane: the tensor's rows would overlap
 * (and a writing consumer write one row over the next). RGBA's pitch
 * here holds a row of single bytes, not of 4-byte pixels. */
GST_START_TEST (test_export_pitch_less_than_row)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 8, };

  pinned_test_device_init (&d);

  /* The memory holds the whole frame at its own pitch: only the meta's
   * pitch is wrong. */
  buffer = rgba_frame_in (d.device, &info, 16, 4, 32, 16 * 4 * 4);
  check_export_refused (buffer, &info, FALSE, "less than a row");
  check_export_refused (buffer, &info, TRUE, "less than a row");
  gst_buffer_unref (buffer);

  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_GRAY8, 16, 4, 0);
  gst_buffer_remove_meta (buffer, (GstMeta *) gst_buffer_get_video_meta
      (buffer));
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, 16, 4, 1, offset, stride);
  check_export_refused (buffer, &info, FALSE, "less than a row");
  gst_buffer_unref (buffer);

  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* ---- export: stream order ---------------------------------------------- */

/* A frame whose copy into the device is held back (the stand-in's copy
 * delay), read by a consumer on its own stream right after the export:
 * with the export's wait the consumer sees the finished frame; without it
 * (DLPack's stream -1) the old bytes. */
static gboolean
consumer_sees_writer (GstPinnedTensorFlags flags)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  cudaStream_t consumer = new_cuda_stream ();
  gpointer staging, result;
  gboolean complete;

  pinned_test_device_init (&d);
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_RGBA, 256, 128, 0);
  write_sync (mem_data (buffer), 0x00, info.size);

  pinned_test_set_copy_delay (DELAY_MS);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  staging = write_async (mem_data (buffer), 0x01, info.size,
      gst_pinned_stream_get_cuda_stream (d.stream));
  gst_pinned_context_pop (d.ctx);
  fail_unless (gst_pinned_buffer_record_fence (buffer, d.stream,
          GST_MAP_WRITE, NULL));
  pinned_test_reset ();

  t = gst_pinned_tensor_export_frame (buffer, &info, consumer, flags, NULL);
  fail_unless (t != NULL);
  /* The consumer's "kernel": it reads the whole tensor. */
  fail_unless (cudaHostAlloc (&result, info.size, cudaHostAllocDefault) == 0);
  fail_unless (cudaMemcpyAsync (result, t->dl_tensor.data, info.size,
          cudaMemcpyDeviceToHost, consumer) == 0);
  fail_unless (cudaStreamSynchronize (consumer) == 0);
  complete = all_bytes (result, info.size, 0x01);

  gst_pinned_tensor_release (t);
  fail_unless (cudaDeviceSynchronize () == 0);
  cudaFreeHost (result);
  cudaFreeHost (staging);
  gst_buffer_unref (buffer);
  cudaStreamDestroy (consumer);
  pinned_test_device_clear (&d);
  return complete;
}

GST_START_TEST (test_consumer_stream_waits_for_writer)
{
  if (!pinned_test_is_fake ())
    return;                     /* no way to hold back a copy on a GPU */
  fail_unless (consumer_sees_writer (GST_PINNED_TENSOR_FLAG_NONE),
      "the consumer's stream read the frame before its copy landed");
}

GST_END_TEST;

/* Control: without the wait the consumer reads the frame early. */
GST_START_TEST (test_consumer_without_wait_reads_early)
{
  if (!pinned_test_is_fake ())
    return;
  if (pinned_test_work_is_async ())
    fail_if (consumer_sees_writer (GST_PINNED_TENSOR_FLAG_NO_SYNC),
        "the unordered consumer did not race the held-back copy: this test "
        "could not see the hazard");
}

GST_END_TEST;

/* The consumer's kernel is held back and still reads when the tensor is
 * dropped; then the frame's memory is written again, as its pool's next
 * copy does (ordered after the memory's fences on the writer's stream).
 * With the fence recorded at release the kernel reads the old frame; with
 * none, the next frame. */
static gboolean
consumer_reads_before_reuse (GstPinnedTensorFlags flags, gboolean * idle)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  GstPinnedStream *consumer;
  cudaStream_t consumer_handle = new_cuda_stream ();
  gpointer staging, result;
  gboolean old;

  pinned_test_device_init (&d);
  consumer = gst_pinned_stream_new_wrapped (d.ctx, consumer_handle);
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_RGBP, 128, 64, 0);
  write_sync (mem_data (buffer), 0x01, info.size);

  t = gst_pinned_tensor_export_frame (buffer, &info, consumer_handle, flags,
      NULL);
  fail_unless (t != NULL);
  pinned_test_delay_stream (consumer, DELAY_MS);
  fail_unless (cudaHostAlloc (&result, info.size, cudaHostAllocDefault) == 0);
  fail_unless (cudaMemcpyAsync (result, t->dl_tensor.data, info.size,
          cudaMemcpyDeviceToHost, consumer_handle) == 0);
  gst_pinned_tensor_release (t);
  *idle = gst_pinned_buffer_is_idle (buffer, GST_MAP_WRITE);

  /* The next copy into the memory. */
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless (gst_pinned_buffer_sync_stream (buffer, d.stream, GST_MAP_WRITE,
          NULL));
  staging = write_async (mem_data (buffer), 0x02, info.size,
      gst_pinned_stream_get_cuda_stream (d.stream));
  gst_pinned_context_pop (d.ctx);
  fail_unless (gst_pinned_buffer_record_fence (buffer, d.stream,
          GST_MAP_WRITE, NULL));

  fail_unless (cudaDeviceSynchronize () == 0);
  old = all_bytes (result, info.size, 0x01);

  cudaFreeHost (result);
  cudaFreeHost (staging);
  gst_buffer_unref (buffer);
  gst_pinned_stream_unref (consumer);
  cudaStreamDestroy (consumer_handle);
  pinned_test_device_clear (&d);
  return old;
}

GST_START_TEST (test_release_fence_holds_next_copy)
{
  gboolean idle;

  fail_unless (consumer_reads_before_reuse (GST_PINNED_TENSOR_FLAG_NONE,
          &idle), "the next copy overwrote the frame while the consumer's "
      "kernel still read it");
  if (pinned_test_work_is_async ())
    fail_if (idle, "the frame was free for writing while its consumer "
        "read it");
}

GST_END_TEST;

/* Control: without a fence at release the next copy overwrites early. */
GST_START_TEST (test_release_without_fence_is_overwritten)
{
  gboolean idle;

  if (!pinned_test_is_fake ())
    return;                     /* a GPU might run the two in either order */
  fail_if (consumer_reads_before_reuse (GST_PINNED_TENSOR_FLAG_NO_SYNC,
          &idle), "the unfenced next copy did not race the held-back "
      "consumer: this test could not see the hazard");
  fail_unless (idle);
}

GST_END_TEST;

/* A consumer that writes: it waits for the frame's readers too, and its
 * fence at release becomes the frame's writer. */
GST_START_TEST (test_release_fence_of_writer)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *buffer;
  DLManagedTensor *t;
  GstPinnedFence *fence;
  GstPinnedStream *reader;
  cudaStream_t consumer = new_cuda_stream ();

  pinned_test_device_init (&d);
  buffer = new_frame (d.device, &info, GST_VIDEO_FORMAT_RGBA, 64, 16, 0);
  write_sync (mem_data (buffer), 0x01, info.size);

  /* A reader still running on another stream. */
  reader = gst_pinned_stream_new (d.ctx, NULL);
  pinned_test_delay_stream (reader, DELAY_MS);
  fail_unless (gst_pinned_buffer_record_fence (buffer, reader, GST_MAP_READ,
          NULL));

  t = gst_pinned_tensor_export_frame (buffer, &info, consumer,
      GST_PINNED_TENSOR_FLAG_WRITE, NULL);
  fail_unless (t != NULL);
  gst_pinned_tensor_release (t);

  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (buffer, 0));
  fail_unless (fence != NULL);
  fail_unless (gst_pinned_fence_get_stream_handle (fence) == consumer,
      "the writing consumer's fence is not the frame's writer");
  if (pinned_test_is_fake ()) {
    /* Long enough for a fence that did not wait to signal. */
    g_usleep (pinned_test_ms (50) * 1000);
    fail_if (gst_pinned_fence_is_signaled (fence),
        "the writer's fence did not wait for the held-back reader");
  }
  gst_pinned_fence_unref (fence);

  fail_unless (cudaDeviceSynchronize () == 0);
  gst_buffer_unref (buffer);
  gst_pinned_stream_unref (reader);
  cudaStreamDestroy (consumer);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The same through a pipeline: pinnedupload's device pool at its
 * smallest hands the frame to the next upload only after the consumer's
 * held-back kernel has read it. */
GST_START_TEST (test_release_fence_holds_pool)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload pool-size=1");
  GstVideoInfo info;
  GstBuffer *in, *out, *out2;
  DLManagedTensor *t;
  GstPinnedContext *ctx;
  GstPinnedStream *consumer;
  cudaStream_t consumer_handle = new_cuda_stream ();
  gpointer result;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_bytes (in, 0x01);
  out = pinned_test_push_and_pull (h, in);
  ctx = gst_pinned_buffer_get_context (out);
  consumer = gst_pinned_stream_new_wrapped (ctx, consumer_handle);

  t = gst_pinned_tensor_export_frame (out, &info, consumer_handle, 0, NULL);
  fail_unless (t != NULL);
  pinned_test_delay_stream (consumer, DELAY_MS);
  fail_unless (cudaHostAlloc (&result, info.size, cudaHostAllocDefault) == 0);
  fail_unless (cudaMemcpyAsync (result, t->dl_tensor.data,
          info.stride[0] * info.height, cudaMemcpyDeviceToHost,
          consumer_handle) == 0);
  gst_buffer_unref (out);
  gst_pinned_tensor_release (t);

  /* The next frames, into the same pool. */
  for (i = 0; i < 3; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_bytes (in, 0x02);
    out2 = pinned_test_push_and_pull (h, in);
    gst_buffer_unref (out2);
  }
  fail_unless (cudaStreamSynchronize (consumer_handle) == 0);
  fail_unless (all_bytes (result, info.stride[0] * info.height, 0x01),
      "the pool handed the frame to the next upload while its consumer "
      "still read it");

  cudaFreeHost (result);
  gst_pinned_stream_unref (consumer);
  cudaStreamDestroy (consumer_handle);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- import ------------------------------------------------------------ */

typedef struct
{
  DLManagedTensor managed;
  int64_t shape[3];
  int64_t strides[3];
  gsize size;
  gint *deleted;
  /* The test frees the data itself, after a sync. */
  gboolean keep_data;
} TestTensor;

static void
test_tensor_deleter (DLManagedTensor * managed)
{
  TestTensor *t = managed->manager_ctx;
  gint *deleted = t->deleted;

  if (!t->keep_data)
    fail_unless (cudaFree (t->managed.dl_tensor.data) == 0);
  g_free (t);
  /* Last: a test that waits for it (wait_deleted()) may end once it reads
   * it, and an assertion on this thread after the end writes to check's
   * closed log. */
  g_atomic_int_inc (deleted);
}

/* A CUDA tensor of @ndim dimensions, strides in elements (NULL: compact),
 * as an application's framework makes one. */
static TestTensor *
new_tensor (gint ndim, const int64_t * shape, const int64_t * strides,
    guint bits, gint * deleted)
{
  TestTensor *t = g_new0 (TestTensor, 1);
  gsize span = 1;
  gint i;

  for (i = 0; i < ndim; i++) {
    t->shape[i] = shape[i];
    t->strides[i] = strides ? strides[i] : 0;
  }
  if (strides == NULL) {
    int64_t step = 1;

    for (i = ndim - 1; i >= 0; i--) {
      t->strides[i] = step;
      step *= shape[i];
    }
  }
  for (i = 0; i < ndim; i++)
    span += (t->shape[i] - 1) * t->strides[i];
  t->size = span * (bits / 8);
  fail_unless (cudaMalloc (&t->managed.dl_tensor.data, t->size) == 0);
  t->managed.dl_tensor.device.device_type = kDLCUDA;
  t->managed.dl_tensor.device.device_id = 0;
  t->managed.dl_tensor.ndim = ndim;
  t->managed.dl_tensor.dtype.code = kDLUInt;
  t->managed.dl_tensor.dtype.bits = bits;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = t->strides;
  t->managed.manager_ctx = t;
  t->managed.deleter = test_tensor_deleter;
  t->deleted = deleted;
  return t;
}

/* Fills the tensor's bytes with a pattern of @seed, and returns them. */
static guint8 *
fill_tensor (TestTensor * t, guint32 seed)
{
  guint8 *bytes = g_malloc (t->size);
  gsize i;

  for (i = 0; i < t->size; i++)
    bytes[i] = (guint8) (i * 7 + seed + (i >> 8));
  fail_unless (cudaMemcpy (t->managed.dl_tensor.data, bytes, t->size,
          cudaMemcpyHostToDevice) == 0);
  return bytes;
}

/* pinneddownload of an imported frame, compared with the tensor's bytes
 * element by element. */
static void
check_import_download (GstBuffer * buffer, GstCaps * caps,
    const guint8 * bytes, const TestTensor * t, guint bits)
{
  GstHarness *h = gst_harness_new ("pinneddownload");
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *out;
  guint elem = bits / 8, p, y;
  GstCaps *sys;
  /* The download frees the tensor (its deleter) with the buffer. */
  const int64_t strides[3] = { t->strides[0], t->strides[1], t->strides[2] };
  gboolean chw = t->managed.dl_tensor.ndim == 3;

  fail_unless (gst_video_info_from_caps (&info, caps));
  sys = gst_video_info_to_caps (&info);
  gst_harness_set_caps (h, gst_caps_ref (caps), sys);
  out = pinned_test_push_and_pull (h, buffer);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    for (y = 0; y < (guint) GST_VIDEO_INFO_HEIGHT (&info); y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
          p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      gsize src;
      gsize row_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0) *
          GST_VIDEO_INFO_WIDTH (&info);

      if (chw && GST_VIDEO_INFO_N_PLANES (&info) > 1)
        src = (p * strides[0] + y * strides[1]) * elem;
      else
        src = y * strides[0] * elem;
      fail_unless (memcmp (row, bytes + src, row_bytes) == 0,
          "%s: plane %u row %u differs from the tensor",
          GST_VIDEO_INFO_NAME (&info), p, y);
    }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_import_shapes)
{
  static const struct
  {
    const gchar *format;
    gint ndim;
    int64_t shape[3];
    int64_t strides[3];         /* 0: compact */
    guint bits;
  } cases[] = {
    {"RGBA", 3, {17, 33, 4}, {33 * 4 + 12, 4, 1}, 8},
    {"BGRx", 3, {2, 1, 4}, {0,}, 8},
    {"RGB", 3, {9, 31, 3}, {0,}, 8},
    {"GRAY8", 2, {21, 13}, {16, 1}, 8},
    {"GRAY8", 3, {21, 13, 1}, {0,}, 8},
    {"GRAY16_LE", 2, {7, 5}, {8, 1}, 16},
    {"RGBP", 3, {3, 19, 37}, {0,}, 8},
    {"BGRP", 3, {3, 19, 37}, {19 * 40 + 8, 40, 1}, 8},
    /* [H, C, W] permuted to [C, H, W]: the rows of the planes
     * interleaved. */
    {"RGBP", 3, {3, 11, 16}, {16, 48, 1}, 8},
    {"Y444_16LE", 3, {3, 5, 7}, {0,}, 16},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint deleted = 0;
    TestTensor *t = new_tensor (cases[i].ndim, cases[i].shape,
        cases[i].strides[0] ? cases[i].strides : NULL, cases[i].bits,
        &deleted);
    guint8 *bytes = fill_tensor (t, i);
    gchar *desc = g_strdup_printf ("video/x-raw,format=%s,framerate=30/1",
        cases[i].format);
    GstCaps *caps = gst_caps_from_string (desc), *out_caps = NULL;
    GError *error = NULL;
    GstBuffer *buffer;
    GstVideoMeta *meta;
    GstStructure *s;
    gint w, h;

    buffer = gst_pinned_tensor_import (&t->managed, caps, NULL, NULL,
        &out_caps, &error);
    fail_unless (buffer != NULL, "%s: %s", desc, error ? error->message : "");
    fail_unless_equals_int (deleted, 0);
    fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (buffer,
                0)));
    fail_unless (mem_data (buffer) == t->managed.dl_tensor.data);
    s = gst_caps_get_structure (out_caps, 0);
    fail_unless (gst_caps_features_contains (gst_caps_get_features (out_caps,
                0), GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE));
    fail_unless (gst_structure_get_int (s, "width", &w));
    fail_unless (gst_structure_get_int (s, "height", &h));
    meta = gst_buffer_get_video_meta (buffer);
    fail_unless (meta != NULL);
    if (cases[i].ndim == 3 && strcmp (cases[i].format, "RGBP") != 0 &&
        strcmp (cases[i].format, "BGRP") != 0 &&
        strcmp (cases[i].format, "Y444_16LE") != 0) {
      fail_unless_equals_int (h, cases[i].shape[0]);
      fail_unless_equals_int (w, cases[i].shape[1]);
    } else if (cases[i].ndim == 3) {
      fail_unless_equals_int (h, cases[i].shape[1]);
      fail_unless_equals_int (w, cases[i].shape[2]);
      fail_unless_equals_int (meta->stride[1], t->strides[1] *
          cases[i].bits / 8);
      fail_unless_equals_int (meta->offset[1], t->strides[0] *
          cases[i].bits / 8);
    }
    fail_unless_equals_int (meta->stride[0], t->strides[cases[i].ndim == 3
            && meta->n_planes > 1 ? 1 : 0] * cases[i].bits / 8);

    check_import_download (buffer, out_caps, bytes, t, cases[i].bits);
    wait_deleted (&deleted);
    fail_unless_equals_int (deleted, 1);

    g_free (bytes);
    g_free (desc);
    gst_caps_unref (caps);
    gst_caps_unref (out_caps);
  }
}

GST_END_TEST;

/* On the thread that drops the last reference: the release thread's, for
 * the context of an imported buffer. */
static void
object_gone (gpointer data, GObject * where)
{
  g_atomic_int_set ((gint *) data, TRUE);
}

/* pinneddownload drops an imported buffer right after it enqueued the copy
 * that reads it: its streaming thread does not wait for that copy, and the
 * tensor's deleter runs only once the copy is done (stand-in: the copy held
 * back). */
GST_START_TEST (test_import_released_without_wait)
{
  const int64_t shape[3] = { 64, 96, 4 };
  gint deleted = 0;
  TestTensor *t;
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstCaps *out_caps = NULL;
  GstHarness *h;
  GstBuffer *buffer, *out;
  GstVideoInfo info;

  if (!pinned_test_is_fake ()) {
    gst_caps_unref (caps);
    return;
  }
  t = new_tensor (3, shape, NULL, 8, &deleted);
  buffer = gst_pinned_tensor_import (&t->managed, caps, NULL, NULL,
      &out_caps, NULL);
  fail_unless (buffer != NULL);
  fail_unless (gst_video_info_from_caps (&info, out_caps));

  h = gst_harness_new ("pinneddownload");
  g_object_set (h->element, "batch", 1, NULL);
  gst_harness_set_caps (h, out_caps, gst_video_info_to_caps (&info));
  fail_unless (pinned_test_set_copy_delay (pinned_test_ms (300)));
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);
  /* the copy is still held back: the tensor is not given back yet */
  fail_unless_equals_int (g_atomic_int_get (&deleted), 0);
  fail_unless_equals_uint64 (pinned_test_stat (h->element, "host-waits"), 0);

  out = gst_harness_pull (h);
  pinned_test_set_copy_delay (0);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
}

GST_END_TEST;

enum
{
  CPU_LOCKED,                   /* cudaHostAlloc'ed, as pin_memory() */
  CPU_HALF_LOCKED,              /* registered in its first half only */
  CPU_PAGEABLE
};

/* A kDLCPU tensor of @kind through pinnedupload: page-locked, it is
 * gst-pinned page-locked memory the copy reads directly (nothing staged)
 * and goes back once that copy, held back, is done; page-locked in part
 * only, or pageable, it is system memory the upload stages. Every byte
 * arrives. */
static void
upload_cpu_tensor (guint kind)
{
  const int64_t shape[3] = { 8, 256, 4 };
  const gsize size = 8 * 256 * 4;
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstCaps *out_caps = NULL;
  GError *error = NULL;
  GstHarness *h;
  GstBuffer *buffer, *out;
  GstMemory *mem;
  GstMapInfo map;
  GstVideoInfo info;
  gint deleted = 0;
  TestTensor *t;
  guint8 *data;
  gsize i;

  if (kind == CPU_LOCKED)
    fail_unless (cudaHostAlloc ((gpointer *) & data, size, 0) == 0);
  else
    fail_unless (posix_memalign ((gpointer *) & data, 4096, size) == 0);
  if (kind == CPU_HALF_LOCKED)
    fail_unless (cudaHostRegister (data, size / 2, 0) == 0);
  for (i = 0; i < size; i++)
    data[i] = i * 7 + kind;

  t = new_tensor (3, shape, NULL, 8, &deleted);
  fail_unless (cudaFree (t->managed.dl_tensor.data) == 0);
  t->keep_data = TRUE;
  t->managed.dl_tensor.data = data;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  buffer = gst_pinned_tensor_import (&t->managed, caps, NULL, NULL,
      &out_caps, &error);
  fail_unless (buffer != NULL, "%s", error ? error->message : "");
  mem = gst_buffer_peek_memory (buffer, 0);
  fail_unless_equals_int (gst_is_pinned_host_memory (mem), kind == CPU_LOCKED);
  fail_unless (kind == CPU_LOCKED || !gst_is_pinned_memory (mem),
      "a CPU tensor page-locked %s was taken as page-locked memory",
      kind == CPU_HALF_LOCKED ? "in its first half only" : "nowhere");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_PINNED_GPU));
  fail_unless (map.data == data && map.size == size);
  gst_memory_unmap (mem, &map);
  fail_if (gst_caps_features_contains (gst_caps_get_features (out_caps, 0),
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE));
  fail_unless (gst_video_info_from_caps (&info, out_caps));

  h = gst_harness_new ("pinnedupload");
  gst_harness_set_caps (h, out_caps, pinned_test_device_caps (&info));
  if (kind == CPU_LOCKED)
    fail_unless (pinned_test_set_copy_delay (DELAY_MS));
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);
  if (kind == CPU_LOCKED) {
    /* The copy still reads it: the tensor is not given back yet. */
    fail_unless_equals_int (g_atomic_int_get (&deleted), 0);
  }
  out = gst_harness_pull (h);
  pinned_test_set_copy_delay (0);
  fail_unless_equals_uint64 (pinned_test_stat (h->element, "staged"),
      kind == CPU_LOCKED ? 0 : 1);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, data, size) == 0,
      "the frame of the CPU tensor did not arrive as it was");
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);
  gst_harness_teardown (h);

  if (kind == CPU_HALF_LOCKED)
    fail_unless (cudaHostUnregister (data) == 0);
  if (kind == CPU_LOCKED)
    fail_unless (cudaFreeHost (data) == 0);
  else
    free (data);
  gst_caps_unref (caps);
}

GST_START_TEST (test_import_cpu_page_locked)
{
  if (pinned_test_is_fake ())
    upload_cpu_tensor (CPU_LOCKED);
}

GST_END_TEST;

GST_START_TEST (test_import_cpu_half_page_locked)
{
  if (pinned_test_is_fake ())
    upload_cpu_tensor (CPU_HALF_LOCKED);
}

GST_END_TEST;

GST_START_TEST (test_import_cpu_pageable)
{
  upload_cpu_tensor (CPU_PAGEABLE);
}

GST_END_TEST;

/* An import into the application's context holds it while the buffer
 * lives, and not after: no cycle through its allocator. */
GST_START_TEST (test_import_context_lifetime)
{
  const int64_t shape[3] = { 4, 8, 4 };
  gint deleted = 0;
  TestTensor *t = new_tensor (3, shape, NULL, 8, &deleted);
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  gint gone = FALSE;
  GstBuffer *buffer;

  fail_unless (ctx != NULL);
  g_object_weak_ref (G_OBJECT (ctx), object_gone, &gone);
  buffer = gst_pinned_tensor_import (&t->managed, caps, ctx, NULL, NULL, NULL);
  fail_unless (buffer != NULL);
  gst_object_unref (ctx);
  fail_if (g_atomic_int_get (&gone),
      "the context went while a buffer of it lived");
  gst_buffer_unref (buffer);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);
  /* The release thread drops the memory's context after the deleter. */
  wait_deleted (&gone);
  fail_unless (g_atomic_int_get (&gone),
      "the context outlived the imported buffer");
  gst_caps_unref (caps);
}

GST_END_TEST;

/* The producer's work is held back on its stream: the imported buffer's
 * writer is a fence of that stream, pinneddownload waits for it on the
 * GPU and brings back the finished frame. */
static gboolean
download_sees_producer (gboolean producer_stream)
{
  gint deleted = 0;
  const int64_t shape[3] = { 64, 96, 4 };
  TestTensor *t = new_tensor (3, shape, NULL, 8, &deleted);
  cudaStream_t producer = new_cuda_stream (), other = new_cuda_stream ();
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA"), *out_caps;
  GstHarness *h = gst_harness_new ("pinneddownload");
  GstPinnedFence *fence;
  GstBuffer *buffer, *out;
  gpointer staging, data = t->managed.dl_tensor.data;
  gboolean complete;

  /* Without the producer's fence the memory goes while it still writes. */
  t->keep_data = TRUE;
  write_sync (t->managed.dl_tensor.data, 0x00, t->size);
  pinned_test_set_copy_delay (DELAY_MS);
  staging = write_async (t->managed.dl_tensor.data, 0x01, t->size, producer);
  pinned_test_reset ();

  buffer = gst_pinned_tensor_import (&t->managed, caps, NULL,
      producer_stream ? producer : other, &out_caps, NULL);
  fail_unless (buffer != NULL);
  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (buffer, 0));
  fail_unless (fence != NULL);
  if (producer_stream) {
    fail_unless (gst_pinned_fence_get_stream_handle (fence) == producer);
    fail_if (gst_pinned_fence_is_signaled (fence));
  }
  gst_pinned_fence_unref (fence);

  gst_harness_set_caps (h, gst_caps_ref (out_caps),
      gst_caps_from_string ("video/x-raw,format=RGBA,width=96,height=64,"
          "framerate=0/1"));
  out = pinned_test_push_and_pull (h, buffer);
  complete = pinned_test_all_bytes (out, 0x01);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  fail_unless (cudaDeviceSynchronize () == 0);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);
  fail_unless (cudaFree (data) == 0);
  cudaFreeHost (staging);
  cudaStreamDestroy (producer);
  cudaStreamDestroy (other);
  gst_caps_unref (caps);
  gst_caps_unref (out_caps);
  return complete;
}

GST_START_TEST (test_import_records_producer_fence)
{
  if (!pinned_test_is_fake ())
    return;
  fail_unless (download_sees_producer (TRUE),
      "pinneddownload read the tensor before its producer wrote it");
}

GST_END_TEST;

/* Control: the fence of another stream does not order the download. */
GST_START_TEST (test_import_other_stream_reads_early)
{
  if (!pinned_test_is_fake ())
    return;
  if (pinned_test_work_is_async ())
    fail_if (download_sees_producer (FALSE),
        "the download did not race the held-back producer: this test could "
        "not see the hazard");
}

GST_END_TEST;

/* A TestTensor as DLPack 1.0's versioned tensor: its own deleter runs
 * the TestTensor's. */
static void
versioned_deleter (TestVersioned * v)
{
  TestTensor *t = v->manager_ctx;

  g_free (v);
  t->managed.deleter (&t->managed);
}

static TestVersioned *
versioned_of (TestTensor * t, guint32 major)
{
  TestVersioned *v = g_new0 (TestVersioned, 1);

  v->version.major = major;
  v->manager_ctx = t;
  v->deleter = versioned_deleter;
  v->flags = TEST_FLAG_READ_ONLY;
  v->dl_tensor = t->managed.dl_tensor;
  return v;
}

/* gst_pinned_tensor_import_full() of a versioned tensor: taken as the
 * 0.6 one is, its deleter run once the buffer goes; a major version of
 * another layout refused, its deleter run at once. */
GST_START_TEST (test_import_versioned)
{
  const int64_t hwc[3] = { 8, 16, 4 };
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstCaps *out_caps = NULL;
  GError *error = NULL;
  GstBuffer *buffer;
  gint deleted = 0;
  TestTensor *t;

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  buffer = gst_pinned_tensor_import_full (versioned_of (t, 1),
      GST_PINNED_TENSOR_FLAG_VERSIONED, caps, NULL, NULL, &out_caps, &error);
  fail_unless (buffer != NULL, "%s", error ? error->message : "");
  fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (buffer,
              0)));
  fail_unless_equals_int (deleted, 0);
  gst_buffer_unref (buffer);
  gst_caps_unref (out_caps);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  buffer = gst_pinned_tensor_import_full (versioned_of (t, 2),
      GST_PINNED_TENSOR_FLAG_VERSIONED, caps, NULL, NULL, NULL, &error);
  fail_unless (buffer == NULL);
  fail_unless (error && strstr (error->message, "DLPack 2.0"));
  g_clear_error (&error);
  fail_unless_equals_int (deleted, 2);
  gst_caps_unref (caps);
}

GST_END_TEST;

static void
check_import_refused (TestTensor * t, gint * deleted, const gchar * caps_str,
    const gchar * phrase)
{
  GstCaps *caps = caps_str ? gst_caps_from_string (caps_str) : NULL;
  GError *error = NULL;
  GstBuffer *buffer;
  gint before = *deleted;

  buffer = gst_pinned_tensor_import (&t->managed, caps, NULL, NULL, NULL,
      &error);
  fail_unless (buffer == NULL, "%s was taken", caps_str);
  fail_unless (error != NULL);
  fail_unless (strstr (error->message, phrase) != NULL,
      "'%s' does not say '%s'", error->message, phrase);
  GST_INFO ("refused: %s", error->message);
  fail_unless_equals_int (*deleted, before + 1);
  g_error_free (error);
  if (caps)
    gst_caps_unref (caps);
}

GST_START_TEST (test_import_refusals)
{
  const int64_t hwc[3] = { 8, 16, 4 }, hw3[3] = { 8, 16, 3 };
  const int64_t chw[3] = { 3, 8, 16 }, hw[2] = { 8, 16 };
  const int64_t gapped[3] = { 16 * 8, 8, 1 };
  gint deleted = 0;
  TestTensor *t;

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  t->managed.dl_tensor.dtype.code = kDLFloat;
  t->managed.dl_tensor.dtype.bits = 32;
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA", "uint8");

  t = new_tensor (3, hw3, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA",
      "4 elements a pixel");

  t = new_tensor (3, hwc, gapped, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA",
      "not contiguous");

  t = new_tensor (2, hw, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=NV12",
      "planes of different sizes");

  t = new_tensor (3, chw, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA",
      "elements a pixel");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=RGBP",
      "[C, H, W] tensor with C = 3");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  check_import_refused (t, &deleted,
      "video/x-raw,format=RGBA,width=17,height=8", "the caps say 17x8");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format={RGBA,BGRA}",
      "one format");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  check_import_refused (t, &deleted, "video/x-raw,format=v210",
      "no tensor layout");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  t->managed.dl_tensor.device.device_type = kDLOpenCL;
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA",
      "neither in CUDA device memory nor in CPU memory");

  /* A CPU tensor whose memory CUDA knows as device memory. */
  t = new_tensor (3, hwc, NULL, 8, &deleted);
  t->managed.dl_tensor.device.device_type = kDLCPU;
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA", "CUDA knows");

  t = new_tensor (3, hwc, NULL, 8, &deleted);
  t->strides[0] = -t->strides[0];
  check_import_refused (t, &deleted, "video/x-raw,format=RGBA",
      "positive strides");

  fail_unless_equals_int (deleted, 12);
}

GST_END_TEST;

/* A tensor whose data pointer is its allocation's start and whose elements
 * begin @byte_offset bytes further (DLPack's byte_offset, as a framework
 * hands out a view of a larger storage): the buffer holds the elements,
 * not the bytes before them. */
GST_START_TEST (test_import_byte_offset)
{
  const int64_t shape[3] = { 6, 10, 4 };
  const guint64 byte_offset = 3 * 256 + 40;
  gint deleted = 0;
  TestTensor *t = new_tensor (3, shape, NULL, 8, &deleted);
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstCaps *out_caps = NULL;
  GError *error = NULL;
  GstBuffer *buffer;
  guint8 *base, *bytes;

  /* The storage: a prefix of other bytes, then the tensor's. */
  fail_unless (cudaFree (t->managed.dl_tensor.data) == 0);
  fail_unless (cudaMalloc (&t->managed.dl_tensor.data,
          byte_offset + t->size) == 0);
  base = t->managed.dl_tensor.data;
  write_sync (base, 0xee, byte_offset + t->size);
  t->managed.dl_tensor.data = base + byte_offset;
  bytes = fill_tensor (t, 5);
  t->managed.dl_tensor.data = base;
  t->managed.dl_tensor.byte_offset = byte_offset;

  buffer = gst_pinned_tensor_import (&t->managed, caps, NULL, NULL,
      &out_caps, &error);
  fail_unless (buffer != NULL, "%s", error ? error->message : "");
  fail_unless (mem_data (buffer) == base + byte_offset,
      "the buffer's memory starts at %p, the tensor's elements at %p "
      "(data %p + byte_offset %" G_GUINT64_FORMAT ")", mem_data (buffer),
      base + byte_offset, base, byte_offset);
  /* What the elements downstream read: the tensor's elements. */
  check_import_download (buffer, out_caps, bytes, t, 8);
  wait_deleted (&deleted);
  fail_unless_equals_int (deleted, 1);

  g_free (bytes);
  gst_caps_unref (caps);
  gst_caps_unref (out_caps);
}

GST_END_TEST;

/* A tensor of another device than the pipeline's context: its pointer
 * means nothing there (the elements' copies would fail or touch another
 * allocation), so the import refuses it and gives it back at once. Into
 * its own device's context, or with no context named, it is taken. */
GST_START_TEST (test_import_other_device)
{
  const int64_t shape[3] = { 8, 16, 4 };
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstPinnedContext *ctx[2];
  gint n = 0, dev, i;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  if (n < 2) {
    fail_if (pinned_test_is_fake (), "the stand-in has %d device(s): the "
        "fake tests run with FAKECUDA_DEVICES=2", n);
    gst_caps_unref (caps);
    return;
  }
  ctx[0] = gst_pinned_context_new (0, NULL);
  ctx[1] = gst_pinned_context_new (1, NULL);
  fail_unless (ctx[0] != NULL && ctx[1] != NULL);

  for (dev = 0; dev < 2; dev++) {
    /* Into the other device's context, its own, none. */
    GstPinnedContext *into[3] = { ctx[1 - dev], ctx[dev], NULL };

    for (i = 0; i < 3; i++) {
      gint deleted = 0;
      GError *error = NULL;
      GstBuffer *buffer;
      TestTensor *t;
      gpointer data;
      gchar *phrase;

      /* In device @dev's memory, freed here in its context. */
      fail_unless (gst_pinned_context_push (ctx[dev], NULL));
      t = new_tensor (3, shape, NULL, 8, &deleted);
      gst_pinned_context_pop (ctx[dev]);
      t->managed.dl_tensor.device.device_id = dev;
      t->keep_data = TRUE;
      data = t->managed.dl_tensor.data;

      buffer = gst_pinned_tensor_import (&t->managed, caps, into[i], NULL,
          NULL, &error);
      if (i == 0) {
        fail_unless (buffer == NULL, "a tensor of device %d was taken into "
            "a context of device %d", dev, 1 - dev);
        fail_unless (error != NULL);
        phrase = g_strdup_printf ("the tensor is on CUDA device %d, the "
            "pipeline's context on device %d", dev, 1 - dev);
        fail_unless (strstr (error->message, phrase) != NULL,
            "'%s' does not say '%s'", error->message, phrase);
        g_free (phrase);
        g_clear_error (&error);
        fail_unless_equals_int (deleted, 1);
      } else {
        fail_unless (buffer != NULL, "%s", error ? error->message : "");
        fail_unless_equals_int (gst_pinned_context_get_device_id
            (gst_pinned_buffer_get_context (buffer)), dev);
        gst_buffer_unref (buffer);
        wait_deleted (&deleted);
        fail_unless_equals_int (deleted, 1);
      }

      fail_unless (gst_pinned_context_push (ctx[dev], NULL));
      fail_unless (cudaFree (data) == 0);
      gst_pinned_context_pop (ctx[dev]);
    }
  }
  gst_object_unref (ctx[0]);
  gst_object_unref (ctx[1]);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Export then import: a frame of pinnedupload goes through a tensor and
 * back into pinneddownload, the bytes unchanged. */
GST_START_TEST (test_export_import_round_trip)
{
  GstHarness *up = gst_harness_new ("pinnedupload");
  GstVideoInfo info;
  GstBuffer *in, *dev, *back, *out;
  GstCaps *caps, *out_caps = NULL;
  DLManagedTensor *t;
  GError *error = NULL;
  GstHarness *down;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 123, 45);
  gst_harness_set_caps (up, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));
  in = gst_harness_create_buffer (up, info.size);
  pinned_test_fill_frame (in, &info, 7);
  dev = pinned_test_push_and_pull (up, gst_buffer_ref (in));

  t = gst_pinned_tensor_export_frame (dev, &info, NULL, 0, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  gst_buffer_unref (dev);
  caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  back = gst_pinned_tensor_import (t, caps,
      gst_pinned_buffer_get_context (in), NULL, &out_caps, &error);
  fail_unless (back != NULL, "%s", error ? error->message : "");

  down = gst_harness_new ("pinneddownload");
  gst_harness_set_caps (down, out_caps, gst_video_info_to_caps (&info));
  out = pinned_test_push_and_pull (down, back);
  fail_unless (pinned_test_frames_equal (in, out, &info));

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  gst_harness_teardown (down);
  gst_harness_teardown (up);
}

GST_END_TEST;

#ifdef HAVE_CUDA_INTEROP
/* nvcodec's CUDA memory (cudaupload's): the tensor is on its device
 * pointers, through a view that holds the CUDA buffer until the tensor's
 * release. */
GST_START_TEST (test_export_cuda_memory)
{
  GstHarness *h;
  GstVideoInfo info;
  GstBuffer *in, *cuda;
  GstMapInfo map;
  DLManagedTensor *t;
  GError *error = NULL;
  cudaStream_t consumer;
  guint8 *result, *src;
  GstVideoFrame frame;
  guint y;
  gsize row;
  GstCudaContext *cuda_context;
  gint gone = FALSE;

  if (gst_element_factory_find ("cudaupload") == NULL) {
    fail_if (pinned_test_is_fake (), "cudaupload did not register on the "
        "stand-ins");
    return;
  }
  h = gst_harness_new ("cudaupload");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 100, 30);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=RGBA,"
          "width=100,height=30,framerate=0/1"));
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 3);
  cuda = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (cuda, 0)));

  /* A consumer of nvcodec's memory works in nvcodec's context, where its
   * pointers are valid (on 1.22 nvcodec makes a context of its own). */
  cuda_context = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (cuda,
          0))->context;
  fail_unless (gst_cuda_context_push (cuda_context));
  fail_unless (cudaStreamCreateWithFlags (&consumer,
          cudaStreamNonBlocking) == 0);
  t = gst_pinned_tensor_export_frame (cuda, &info, consumer, 0, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCUDA);
  fail_unless_equals_int64 (t->dl_tensor.shape[0], 30);
  fail_unless_equals_int64 (t->dl_tensor.shape[1], 100);
  fail_unless_equals_int64 (t->dl_tensor.shape[2], 4);
  fail_unless (gst_memory_map (gst_buffer_peek_memory (cuda, 0), &map,
          GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (t->dl_tensor.data == (gpointer) map.data,
      "the tensor is not on the CUDA memory's device pointer");
  gst_memory_unmap (gst_buffer_peek_memory (cuda, 0), &map);
  fail_unless (GST_MINI_OBJECT_REFCOUNT_VALUE (cuda) > 1,
      "the tensor does not hold the CUDA buffer");

  row = 100 * 4;
  fail_unless (cudaHostAlloc ((void **) &result, row * 30,
          cudaHostAllocDefault) == 0);
  fail_unless (cudaMemcpy2DAsync (result, row, t->dl_tensor.data,
          t->dl_tensor.strides[0], row, 30, cudaMemcpyDeviceToHost,
          consumer) == 0);
  fail_unless (cudaStreamSynchronize (consumer) == 0);
  fail_unless (gst_cuda_context_pop (NULL));
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  for (y = 0; y < 30; y++) {
    src = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    fail_unless (memcmp (result + y * row, src, row) == 0,
        "row %u of the tensor differs from the frame", y);
  }
  gst_video_frame_unmap (&frame);

  gst_pinned_tensor_release (t);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (cuda), 1);
  cudaFreeHost (result);
  fail_unless (gst_cuda_context_push (cuda_context));
  cudaStreamDestroy (consumer);
  gst_cuda_context_pop (NULL);
  /* Nothing of the export holds nvcodec's context afterwards. */
  cuda_context = gst_object_ref (GST_CUDA_MEMORY_CAST
      (gst_buffer_peek_memory (cuda, 0))->context);
  g_object_weak_ref (G_OBJECT (cuda_context), object_gone, &gone);
  gst_object_unref (cuda_context);
  gst_buffer_unref (cuda);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  fail_unless (g_atomic_int_get (&gone),
      "nvcodec's CUDA context outlived its pipeline");
}

GST_END_TEST;
#endif

static Suite *
tensor_suite (void)
{
  Suite *s = suite_create ("pinnedtensor");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_export_plane_shapes);
  tcase_add_test (tc, test_export_frame_shapes);
  tcase_add_test (tc, test_export_frame_stacked);
  tcase_add_test (tc, test_export_host);
  tcase_add_test (tc, test_export_versioned);
  tcase_add_test (tc, test_cpu_writer_waits_for_copies);
  tcase_add_test (tc, test_cpu_reader_export_leaves_copies_running);
  tcase_add_test (tc, test_export_lifetime);
#ifdef HAVE_CUDA_INTEROP
  tcase_add_test (tc, test_export_cuda_memory);
#endif
  tcase_add_test (tc, test_export_refusals);
  tcase_add_test (tc, test_export_plane_past_memory);
  tcase_add_test (tc, test_export_pitch_less_than_row);
  tcase_add_test (tc, test_consumer_stream_waits_for_writer);
  tcase_add_test (tc, test_consumer_without_wait_reads_early);
  tcase_add_test (tc, test_release_fence_holds_next_copy);
  tcase_add_test (tc, test_release_without_fence_is_overwritten);
  tcase_add_test (tc, test_release_fence_holds_pool);
  tcase_add_test (tc, test_release_fence_of_writer);
  tcase_add_test (tc, test_import_shapes);
  tcase_add_test (tc, test_import_context_lifetime);
  tcase_add_test (tc, test_import_released_without_wait);
  tcase_add_test (tc, test_import_records_producer_fence);
  tcase_add_test (tc, test_import_other_stream_reads_early);
  tcase_add_test (tc, test_import_refusals);
  tcase_add_test (tc, test_import_versioned);
  tcase_add_test (tc, test_import_cpu_page_locked);
  tcase_add_test (tc, test_import_cpu_half_page_locked);
  tcase_add_test (tc, test_import_cpu_pageable);
  tcase_add_test (tc, test_import_byte_offset);
  tcase_add_test (tc, test_import_other_device);
  tcase_add_test (tc, test_export_import_round_trip);
  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, tensor_suite);
}
