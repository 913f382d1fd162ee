/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedFence. */

#pragma once

#include "sync/gstpinnedstream-private.h"
#include "gst/pinned/gstpinnedfence.h"

G_BEGIN_DECLS

/* gst_pinned_stream_record_fence() for a caller that made the stream's
 * context current (gst_pinned_context_push()): the copy paths record
 * inside their own push, a driver call pair less per copy. */
G_GNUC_INTERNAL
GstPinnedFence      *gst_pinned_fence_record_current (GstPinnedStream * stream,
                                                      GError ** error);

/* Marks @fence as recorded after a batch of frames: the pool gate waits
 * for it as for a later fence where it is itself the newest. */
G_GNUC_INTERNAL
void                 gst_pinned_fence_set_batch     (GstPinnedFence * fence);

/* The id of the stream the fence was recorded on (see
 * gst_pinned_stream_get_id()). */
G_GNUC_INTERNAL
guint64              gst_pinned_fence_get_stream_id (GstPinnedFence * fence);

/* Asks without waiting whether the work before @fence has signaled:
 * %FALSE, with @error set, when the device reported a failure, else %TRUE
 * and *@signaled. */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_query         (GstPinnedFence * fence,
                                                     gboolean * signaled,
                                                     GError ** error);

/* gst_pinned_fence_wait() for a pool's gate: the caller is about to reuse
 * memory that @fence's work still touches, and waits for more than
 * @fence when it must wait at all (see gstpinnedfencewait.c). */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_wait_gate     (GstPinnedFence * fence,
                                                     GError ** error);

/* Keeps the stream of @fence from running more than a few fences ahead of
 * the host: waits, as a gate does, for its fence that many before its
 * newest, unless that one is known signaled. */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_wait_pace     (GstPinnedFence * fence,
                                                     GError ** error);

/* Before each copy of a frame of @frame_bytes between host and device:
 * where @stream shares its copy engine (@shared: what
 * gst_pinned_stream_note_lane() said), waits until its copies so far are
 * done where its turn is due, so that each stream takes the engine in turn
 * (see gstpinnedstream.c); its waits may wake later while it shares. */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_wait_turn     (GstPinnedStream * stream,
                                                     gboolean shared,
                                                     gsize frame_bytes,
                                                     GError ** error);

/* The calling thread's host waits for fences so far: how many, the
 * questions they asked, how long they took in all (ns), and how many of its
 * frames waited for their turn at a shared copy engine
 * (gst_pinned_fence_wait_turn()). */
typedef struct
{
  guint64 waits;
  guint64 questions;
  guint64 ns;
  guint64 turns;
} GstPinnedThreadWaits;

G_GNUC_INTERNAL
void                 gst_pinned_fence_wait_get_thread_waits
                                         (GstPinnedThreadWaits * waits);

G_END_DECLS
