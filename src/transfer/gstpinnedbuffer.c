/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedbuffer
 * @title: Buffers and fences
 * @short_description: order GPU work on a buffer's memories
 *
 * The buffer-level form of the #GstPinnedMemory fence rules, for code that
 * runs its own kernels on gst-pinned buffers: an application that pulls
 * device buffers from an appsink, or a filter. The pattern, with no host
 * wait anywhere:
 *
 * |[<!-- language="C" -->
 *   gpointer src_ptr, dst_ptr;
 *   gint src_pitch, dst_pitch;
 *
 *   gst_pinned_buffer_get_plane (inbuf, &info, 0, &src_ptr, &src_pitch);
 *   gst_pinned_buffer_get_plane (outbuf, &info, 0, &dst_ptr, &dst_pitch);
 *   // my stream waits for the copy that wrote inbuf, and for whoever last
 *   // read or wrote outbuf
 *   gst_pinned_buffer_sync_stream (inbuf, stream, GST_MAP_READ, NULL);
 *   gst_pinned_buffer_sync_stream (outbuf, stream, GST_MAP_WRITE, NULL);
 *   my_kernel<<<grid, block, 0, gst_pinned_stream_get_cuda_stream (stream)>>>
 *       (src_ptr, src_pitch, dst_ptr, dst_pitch);
 *   // publish: later readers of outbuf wait for the kernel, later writers
 *   // of inbuf too
 *   fence = gst_pinned_stream_record_fence (stream, NULL);
 *   gst_pinned_buffer_add_fence (inbuf, fence, GST_MAP_READ);
 *   gst_pinned_buffer_add_fence (outbuf, fence, GST_MAP_WRITE);
 *   gst_pinned_fence_unref (fence);
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedbuffer.h"

/**
 * gst_pinned_buffer_sync_stream:
 * @buffer: a #GstBuffer
 * @stream: the stream about to access @buffer
 * @access: %GST_MAP_READ, %GST_MAP_WRITE or both
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_memory_sync_stream() for each gst-pinned memory of @buffer;
 * other memories have no fences and are skipped.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_sync_stream (GstBuffer * buffer, GstPinnedStream * stream,
    GstMapFlags access, GError ** error)
{
  guint i, n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);

  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem) &&
        !gst_pinned_memory_sync_stream ((GstPinnedMemory *) mem, stream,
            access, error))
      return FALSE;
  }

  return TRUE;
}

/**
 * gst_pinned_buffer_add_fence:
 * @buffer: a #GstBuffer
 * @fence: a fence recorded after GPU work on @buffer
 * @access: how that work accessed @buffer
 *
 * gst_pinned_memory_add_fence() for each gst-pinned memory of @buffer.
 *
 * Since: 0.1
 */
void
gst_pinned_buffer_add_fence (GstBuffer * buffer, GstPinnedFence * fence,
    GstMapFlags access)
{
  guint i, n;

  g_return_if_fail (GST_IS_BUFFER (buffer));

  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem))
      gst_pinned_memory_add_fence ((GstPinnedMemory *) mem, fence, access);
  }
}

/**
 * gst_pinned_buffer_record_fence:
 * @buffer: a #GstBuffer
 * @stream: the stream the work on @buffer was enqueued on
 * @access: how that work accessed @buffer
 * @error: (out) (optional): where to describe a failure
 *
 * Records a fence on @stream and adds it to @buffer.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_record_fence (GstBuffer * buffer, GstPinnedStream * stream,
    GstMapFlags access, GError ** error)
{
  GstPinnedFence *fence;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);

  fence = gst_pinned_stream_record_fence (stream, error);
  if (fence == NULL)
    return FALSE;

  gst_pinned_buffer_add_fence (buffer, fence, access);
  gst_pinned_fence_unref (fence);

  return TRUE;
}

/**
 * gst_pinned_buffer_wait:
 * @buffer: a #GstBuffer
 * @access: as for gst_pinned_memory_wait()
 * @error: (out) (optional): where to describe a failure
 *
 * Blocks until the CPU may access every memory of @buffer as @access says.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_wait (GstBuffer * buffer, GstMapFlags access, GError ** error)
{
  guint i, n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);

  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem) &&
        !gst_pinned_host_wait_for_caller ((GstPinnedMemory *) mem, access,
            error))
      return FALSE;
  }

  return TRUE;
}

/**
 * gst_pinned_buffer_is_idle:
 * @buffer: a #GstBuffer
 * @access: as for gst_pinned_memory_wait()
 *
 * Returns: %TRUE when gst_pinned_buffer_wait() would not block
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_is_idle (GstBuffer * buffer, GstMapFlags access)
{
  guint i, n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), TRUE);

  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem) &&
        !gst_pinned_memory_is_idle ((GstPinnedMemory *) mem, access))
      return FALSE;
  }

  return TRUE;
}

/**
 * gst_pinned_buffer_get_context:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the device context of @buffer's
 *   first gst-pinned memory, or %NULL when it has none
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_buffer_get_context (GstBuffer * buffer)
{
  guint i, n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem))
      return ((GstPinnedMemory *) mem)->context;
  }
  return NULL;
}

/**
 * gst_pinned_buffer_get_plane:
 * @buffer: a #GstBuffer of gst-pinned memory
 * @info: the video info of @buffer, for the layout when it has no
 *   #GstVideoMeta
 * @plane: a plane index
 * @data: (out): the GPU address of the plane's first byte: a device pointer
 *   for device memory, the page-locked pointer for host memory
 * @stride: (out) (optional): the plane's stride (pitch) in bytes
 *
 * Finds a plane for GPU work without waiting: order the work with
 * gst_pinned_buffer_sync_stream() and publish it with
 * gst_pinned_buffer_add_fence(). The address stays valid while the caller
 * holds @buffer.
 *
 * Returns: %TRUE when the plane exists and lies in gst-pinned memory
 *
 * Since: 0.1
 */
gboolean
gst_pinned_buffer_get_plane (GstBuffer * buffer, const GstVideoInfo * info,
    guint plane, gpointer * data, gint * stride)
{
  GstVideoMeta *meta;
  GstPinnedMemory *mem;
  gsize offset, skip;
  guint idx, length;
  gint plane_stride;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  if (plane >= GST_VIDEO_INFO_N_PLANES (info))
    return FALSE;

  meta = gst_buffer_get_video_meta (buffer);
  if (meta) {
    offset = meta->offset[plane];
    plane_stride = meta->stride[plane];
  } else {
    offset = GST_VIDEO_INFO_PLANE_OFFSET (info, plane);
    plane_stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
  }

  if (!gst_buffer_find_memory (buffer, offset, 1, &idx, &length, &skip))
    return FALSE;

  mem = (GstPinnedMemory *) gst_buffer_peek_memory (buffer, idx);
  if (!gst_is_pinned_memory (GST_MEMORY_CAST (mem)))
    return FALSE;

  *data = (guint8 *) mem->data + mem->mem.offset + skip;
  if (stride)
    *stride = plane_stride;

  return TRUE;
}
