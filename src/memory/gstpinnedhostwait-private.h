/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: when the host waits for the GPU, one call per
 * situation (gstpinnedhostwait.c; docs/design.md, "When the host waits"). */

#pragma once

#include "sync/gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedmemory.h"

G_BEGIN_DECLS

/* A CPU map of @mem (page-locked or device memory) with @flags: none for
 * %GST_MAP_PINNED_GPU; else the writer (READ), the writer and the readers
 * (WRITE). %FALSE only for a read of what failed work should have
 * written. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_map   (GstPinnedMemory * mem,
                                                     GstMapFlags flags,
                                                     GError ** error);

/* gst_memory_copy() of device memory @mem, made on the legacy stream,
 * which nothing orders after our streams: its writer. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_clone (GstPinnedMemory * mem,
                                                     GError ** error);

/* An application's explicit wait (gst_pinned_memory_wait(),
 * gst_pinned_buffer_wait()) for @access on @mem. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_caller (GstPinnedMemory * mem,
                                                      GstMapFlags access,
                                                      GError ** error);

/* A pool's gate: @mem handed out to be written by the CPU. The writer and
 * the readers, waited for as a gate (gst_pinned_fence_wait_gate()): under
 * backpressure past @mem's own fences, so that the next buffers of the
 * pool are free without a wait. Failed work does not matter to it. */
G_GNUC_INTERNAL
void                 gst_pinned_host_wait_for_reuse (GstPinnedMemory * mem);

/* A pool's buffer @mem handed to a GPU writer on the stream that last
 * wrote it: no wait for that write (the stream orders it), but that
 * stream kept from running far ahead of the host
 * (gst_pinned_fence_wait_pace()). */
G_GNUC_INTERNAL
void                 gst_pinned_host_wait_for_pace  (GstPinnedMemory * mem);

/* A frame's copy on @stream from a side on the device (@src_device) or the
 * host to the other: where another stream copies that way too
 * (gst_pinned_stream_note_lane(), which this notes), @stream's turn at the
 * copy engine (gst_pinned_fence_wait_turn()). None between sides alike. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_turn  (GstPinnedStream * stream,
                                                     gboolean src_device,
                                                     gboolean dst_device,
                                                     gsize frame_bytes,
                                                     GError ** error);

/* A copy from (@src_unfenced) or into (@dst_unfenced) page-locked memory
 * that does not carry our fences: @fence, the copy's, before the transfer
 * returns, so that the memory's owner may reuse it. None when neither
 * side is, or without @fence. The caller decides which sides count (a
 * pageable source is held instead: gst_pinned_host_wait_for_hold()). */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_unfenced (GstPinnedFence * fence,
                                                        gboolean src_unfenced,
                                                        gboolean dst_unfenced,
                                                        GError ** error);

/* Registered pageable input held past its limit, or at a flush: @fence,
 * the held input's copy, so that its owner gets it back. Which input and
 * when is the hold list's (gstpinnedpageable.c). */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_hold  (GstPinnedFence * fence,
                                                     GError ** error);

/* A staged copy out of the device: @fence, the DMA's into staging, before
 * the CPU copies the bytes out. Which copies wait (a job's type, its
 * chunks) is the stager's (gstpinnedstager.c, gstpinnedstagingjob.c). */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_copy_out (GstPinnedFence * fence,
                                                        GError ** error);

/* Every staging buffer in flight: @mem, the oldest, before it is written
 * again (its writer and readers). When all are in flight is the
 * stager's (gst_pinned_stager_begin()). */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_staging (GstPinnedMemory * mem,
                                                       GError ** error);

/* CUDA memory pushed where GStreamer (1.22) gives it no stream: @mem's
 * writer and readers, on the window's task (gstpinnedwindow.c), before
 * the frame is pushed. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_wait_for_push  (GstPinnedMemory * mem,
                                                     GError ** error);

/* @mem freed (by its allocator, or on the release thread): every fence of
 * it, since the copy engine may still read or write it. Whether the
 * release thread takes it instead is the allocator's
 * (gst_pinned_memory_release_later()). */
G_GNUC_INTERNAL
void                 gst_pinned_host_wait_for_free  (GstPinnedMemory * mem);

G_END_DECLS
