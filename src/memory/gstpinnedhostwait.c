/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* When the host waits for the GPU: one function per situation, each with
 * the condition under which the host must wait and the kind of wait
 * (gstpinnedfencewait.c says how a wait is done). The GPU cannot take any
 * of them over: the CPU itself reads or writes the memory (a map, a
 * pool's buffer for a CPU writer, a staged copy out, a staging buffer
 * written again), an owner outside our fences takes memory back (memory
 * without our fences, held pageable input, a free), a consumer has no
 * stream to order on (an application's wait, CUDA memory pushed on 1.22),
 * or the host is all that keeps a stream from running ahead (the pace of
 * a GPU writer, the turn at a shared copy engine). Where the condition is
 * a caller's bookkeeping (which input is held, which staging buffer is
 * oldest), the caller keeps it and calls here for the wait. The table
 * "When the host waits" in docs/design.md names each caller. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedhostwait-private.h"
#include "memory/gstpinnedmemoryfences-private.h"

/* The host waits for the fences an access to @mem must follow, as a
 * pool's gate where @gate; %FALSE only for a read of what failed work
 * should have written. */
static gboolean
wait_access (GstPinnedMemory * mem, GstMapFlags access, gboolean gate,
    GError ** error)
{
  return gst_pinned_memory_fences_wait (gst_pinned_memory_fences_of (mem),
      mem, access, gate, error);
}

gboolean
gst_pinned_host_wait_for_map (GstPinnedMemory * mem, GstMapFlags flags,
    GError ** error)
{
  /* The GPU's own map: whoever uses the pointer orders its stream. */
  if (flags & GST_MAP_PINNED_GPU)
    return TRUE;
  return wait_access (mem, flags & GST_MAP_READWRITE, FALSE, error);
}

gboolean
gst_pinned_host_wait_for_clone (GstPinnedMemory * mem, GError ** error)
{
  return wait_access (mem, GST_MAP_READ, FALSE, error);
}

gboolean
gst_pinned_host_wait_for_caller (GstPinnedMemory * mem, GstMapFlags access,
    GError ** error)
{
  return wait_access (mem, access, FALSE, error);
}

void
gst_pinned_host_wait_for_reuse (GstPinnedMemory * mem)
{
  wait_access (mem, GST_MAP_WRITE, TRUE, NULL);
}

void
gst_pinned_host_wait_for_pace (GstPinnedMemory * mem)
{
  GstPinnedFence *writer =
      gst_pinned_memory_fences_get_writer (gst_pinned_memory_fences_of (mem));

  if (writer) {
    gst_pinned_fence_wait_pace (writer, NULL);
    gst_pinned_fence_unref (writer);
  }
}

gboolean
gst_pinned_host_wait_for_turn (GstPinnedStream * stream, gboolean src_device,
    gboolean dst_device, gsize frame_bytes, GError ** error)
{
  /* Host to host, device to device: no engine between host and device. */
  if (src_device == dst_device)
    return TRUE;
  return gst_pinned_fence_wait_turn (stream,
      gst_pinned_stream_note_lane (stream, dst_device ?
          GST_PINNED_LANE_TO_DEVICE : GST_PINNED_LANE_TO_HOST),
      frame_bytes, error);
}

gboolean
gst_pinned_host_wait_for_unfenced (GstPinnedFence * fence,
    gboolean src_unfenced, gboolean dst_unfenced, GError ** error)
{
  if (fence == NULL || !(src_unfenced || dst_unfenced))
    return TRUE;
  return gst_pinned_fence_wait (fence, error);
}

gboolean
gst_pinned_host_wait_for_hold (GstPinnedFence * fence, GError ** error)
{
  return gst_pinned_fence_wait (fence, error);
}

gboolean
gst_pinned_host_wait_for_copy_out (GstPinnedFence * fence, GError ** error)
{
  return gst_pinned_fence_wait (fence, error);
}

gboolean
gst_pinned_host_wait_for_staging (GstPinnedMemory * mem, GError ** error)
{
  return wait_access (mem, GST_MAP_WRITE, FALSE, error);
}

gboolean
gst_pinned_host_wait_for_push (GstPinnedMemory * mem, GError ** error)
{
  return wait_access (mem, GST_MAP_READWRITE, FALSE, error);
}

void
gst_pinned_host_wait_for_free (GstPinnedMemory * mem)
{
  wait_access (mem, GST_MAP_READWRITE, FALSE, NULL);
}
