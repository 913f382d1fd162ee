/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedStream. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedstream.h"

G_BEGIN_DECLS

/* One stream per device (per CUDA driver context, with CUDA interop) that
 * elements with shared-stream=true use: their work serialises, the
 * baseline the overlap of own streams is measured against. Made on first
 * use, kept for the life of the process. */
G_GNUC_INTERNAL
GstPinnedStream *    gst_pinned_stream_get_shared  (GstPinnedContext * context,
                                                    GError ** error);

/* Unique for the life of the process, unlike a cudaStream_t. */
G_GNUC_INTERNAL
guint64              gst_pinned_stream_get_id      (GstPinnedStream * stream);

/* What a stream's fences know of it: their order and how far its work is
 * known signaled. gstpinnedfence.c makes it with the stream's first fence;
 * the stream only keeps it, and closes it when it goes, so that streams
 * need nothing of fences. */
typedef struct _GstPinnedFenceTrack GstPinnedFenceTrack;

/* The stream's track, or %NULL before its first fence. */
G_GNUC_INTERNAL
GstPinnedFenceTrack *gst_pinned_stream_get_track   (GstPinnedStream * stream);

/* Gives @stream @track, to be closed with @close when the stream goes.
 * Returns the stream's track: @track, or the one another thread gave it
 * first (@track is closed then). */
G_GNUC_INTERNAL
GstPinnedFenceTrack *gst_pinned_stream_set_track   (GstPinnedStream * stream,
                                                    GstPinnedFenceTrack * track,
                                                    GDestroyNotify close);

/* Whether the work enqueued on @stream from now on already waits for fence
 * @seq of the stream of id @id: a wait for that fence or a later one of
 * that stream was enqueued on it (a stream runs its work in order, so its
 * later fence stands for its earlier ones). One stream is remembered, the
 * last one waited for. */
G_GNUC_INTERNAL
gboolean             gst_pinned_stream_has_waited  (GstPinnedStream * stream,
                                                    guint64 id,
                                                    guint64 seq);

/* Remembers that a wait for fence @seq of stream @id was enqueued on
 * @stream. */
G_GNUC_INTERNAL
void                 gst_pinned_stream_set_waited  (GstPinnedStream * stream,
                                                    guint64 id,
                                                    guint64 seq);

/* The way a stream's copies go, which picks the copy engine they use. */
typedef enum
{
  GST_PINNED_LANE_NONE,
  GST_PINNED_LANE_TO_DEVICE,
  GST_PINNED_LANE_TO_HOST,
} GstPinnedLane;

/* Notes a copy of @stream's going @lane (its first copy decides the way
 * it goes), before each frame's copies. Returns whether another stream of
 * this process copied the same way on the same device lately (in the last
 * 100 ms, or between two of @stream's last 64 copies): then
 * @stream takes its turn (gst_pinned_fence_wait_turn()). */
G_GNUC_INTERNAL
gboolean             gst_pinned_stream_note_lane   (GstPinnedStream * stream,
                                                    GstPinnedLane lane);

G_END_DECLS
