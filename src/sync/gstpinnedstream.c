/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedstream
 * @title: GstPinnedStream
 * @short_description: an element's own CUDA stream
 *
 * Every gst-pinned element enqueues its copies and kernels on its own
 * non-blocking stream: work on it neither waits for nor blocks the legacy
 * default stream, and other elements' streams wait for it through fences.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sync/gstpinnedstream-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_stream_debug, "pinnedstream",
    "gst-pinned CUDA streams");
#define GST_CAT_DEFAULT gst_pinned_stream_debug

struct _GstPinnedStream
{
  GstMiniObject parent;

  GstPinnedContext *context;
  cudaStream_t handle;
  guint64 id;
  /* What its fences know of it (gstpinnedfence.c makes it with the first
   * fence), and how it goes with the stream. */
  GstPinnedFenceTrack *track;
  GDestroyNotify track_close;
  /* A wrapped stream belongs to its creator, who destroys it. */
  gboolean wrapped;
  /* The latest fence of another stream that a wait was enqueued for (its
   * stream's id and number): the work enqueued here since waits for that
   * stream's earlier fences too. */
  GMutex wait_lock;
  guint64 waited_id;
  guint64 waited_seq;
  /* Atomic: the way its copies go (GstPinnedLane), set by the first. */
  gint lane;
  gint lane_device;
  /* Atomic: when it last saw another stream's copy in its lane (us); when
   * it last noted a copy, how many, and how many when it last saw another
   * stream's copy come since its own last one. */
  gint64 other_us;
  gint64 note_us;
  guint64 notes;
  guint64 other_note;
};

static guint64 next_stream_id = 1;

/* Within one CUDA context the GPU does not share a copy engine fairly
 * between streams: a stream whose queue never runs empty keeps it. Streams
 * that share one take turns (gst_pinned_fence_wait_turn()). A lane (a
 * device's engine one way) is shared for a stream while another stream of
 * the process copied that way lately: in the last LANE_QUIET_US, or between
 * two of the stream's copies among its last LANE_QUIET_NOTES. An idle or
 * paused pipeline does not make a streaming one wait for long, and a
 * neighbour whose copy waits for the stream's next turn still counts
 * however long the stream's copies and host waits take: its host waits for
 * that copy and notes nothing meanwhile (with long copies the stream slept
 * longer than LANE_QUIET_US between bursts of copies, the lane went quiet
 * by time, and the neighbour's copy never ran). LANE_QUIET_NOTES is four of the largest
 * quanta of batched frames (a fence stands for up to four). Each lane
 * keeps the last copier's id and time; both are hints, so a racing pair of
 * them costs one turn too many or too few. */
#define LANE_DEVICES 64
#define LANE_QUIET_US (100 * 1000)
#define LANE_QUIET_NOTES 64
static guint64 lane_last_id[LANE_DEVICES][2];
static gint64 lane_last_us[LANE_DEVICES][2];

GST_DEFINE_MINI_OBJECT_TYPE (GstPinnedStream, gst_pinned_stream);

/* A stream that goes was its lane's last copier: the next copier of the
 * lane does not take turns with it. */
static void
lane_leave (GstPinnedStream * stream)
{
  gint lane = g_atomic_int_get (&stream->lane);
  guint64 id = stream->id;

  if (lane != GST_PINNED_LANE_NONE &&
      __atomic_compare_exchange_n (&lane_last_id[stream->lane_device][lane -
              1], &id, 0, FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    __atomic_store_n (&lane_last_us[stream->lane_device][lane - 1], 0,
        __ATOMIC_RELAXED);
}

static void
gst_pinned_stream_free (GstPinnedStream * stream)
{
  /* Returns at once; work still queued completes, then the stream goes. */
  if (!stream->wrapped && gst_pinned_context_push (stream->context, NULL)) {
    gst_pinned_cuda_result (cudaStreamDestroy (stream->handle), NULL);
    gst_pinned_context_pop (stream->context);
  }
  if (stream->track)
    stream->track_close (stream->track);
  lane_leave (stream);
  gst_object_unref (stream->context);
  g_mutex_clear (&stream->wait_lock);
  g_free (stream);
}

static GstPinnedStream *
stream_new (GstPinnedContext * context, cudaStream_t handle, gboolean wrapped)
{
  GstPinnedStream *stream = g_new0 (GstPinnedStream, 1);

  gst_mini_object_init (GST_MINI_OBJECT_CAST (stream), 0,
      GST_TYPE_PINNED_STREAM, NULL, NULL,
      (GstMiniObjectFreeFunction) gst_pinned_stream_free);
  stream->context = gst_object_ref (context);
  stream->handle = handle;
  stream->wrapped = wrapped;
  stream->id = __atomic_fetch_add (&next_stream_id, 1, __ATOMIC_RELAXED);
  g_mutex_init (&stream->wait_lock);

  return stream;
}

/**
 * gst_pinned_stream_new:
 * @context: the device to create the stream on
 * @error: (out) (optional): where to describe a failure
 *
 * Returns: (transfer full) (nullable): a new non-blocking stream
 *
 * Since: 0.1
 */
GstPinnedStream *
gst_pinned_stream_new (GstPinnedContext * context, GError ** error)
{
  GstPinnedStream *stream;
  cudaStream_t handle;
  gboolean ok;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  ensure_debug_category ();

  if (!gst_pinned_context_push (context, error))
    return NULL;
  ok = gst_pinned_cuda_result (cudaStreamCreateWithFlags (&handle,
          cudaStreamNonBlocking), error);
  gst_pinned_context_pop (context);
  if (!ok)
    return NULL;

  stream = stream_new (context, handle, FALSE);

  GST_DEBUG ("created stream %p on device %d", handle,
      gst_pinned_context_get_device_id (context));

  return stream;
}

/**
 * gst_pinned_stream_new_wrapped:
 * @context: the device of @handle
 * @handle: a `cudaStream_t` the caller created on that device, and destroys
 *   after the last reference to the result is gone
 *
 * Wraps an application's stream (one of PyTorch's, say), so that the
 * fence API can order work on it.
 *
 * Returns: (transfer full): a #GstPinnedStream for @handle
 *
 * Since: 0.1
 */
GstPinnedStream *
gst_pinned_stream_new_wrapped (GstPinnedContext * context, gpointer handle)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  return stream_new (context, (cudaStream_t) handle, TRUE);
}

GstPinnedStream *
gst_pinned_stream_get_shared (GstPinnedContext * context, GError ** error)
{
  static GMutex lock;
  static GHashTable *shared;
  /* One per CUDA context: a stream is valid in its own only. Without a
   * driver context, the device's primary context is the device's. */
  gpointer key = gst_pinned_context_get_handle (context);
  GstPinnedStream *stream;

  if (key == NULL)
    key = GINT_TO_POINTER (gst_pinned_context_get_device_id (context));

  g_mutex_lock (&lock);
  if (shared == NULL)
    shared = g_hash_table_new (NULL, NULL);
  stream = g_hash_table_lookup (shared, key);
  if (stream == NULL) {
    stream = gst_pinned_stream_new (context, error);
    if (stream)
      g_hash_table_insert (shared, key, stream);
  }
  if (stream)
    gst_pinned_stream_ref (stream);
  g_mutex_unlock (&lock);

  return stream;
}

/**
 * gst_pinned_stream_get_handle:
 * @stream: a #GstPinnedStream
 *
 * Returns: (transfer none): the `cudaStream_t` of @stream, valid while the
 *   caller holds @stream
 *
 * Since: 0.1
 */
gpointer
gst_pinned_stream_get_handle (GstPinnedStream * stream)
{
  g_return_val_if_fail (stream != NULL, NULL);

  return stream->handle;
}

guint64
gst_pinned_stream_get_id (GstPinnedStream * stream)
{
  return stream->id;
}

GstPinnedFenceTrack *
gst_pinned_stream_get_track (GstPinnedStream * stream)
{
  return g_atomic_pointer_get (&stream->track);
}

GstPinnedFenceTrack *
gst_pinned_stream_set_track (GstPinnedStream * stream,
    GstPinnedFenceTrack * track, GDestroyNotify close)
{
  GstPinnedFenceTrack *kept = NULL;

  if (!__atomic_compare_exchange_n (&stream->track, &kept, track, FALSE,
          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    close (track);
    return kept;
  }
  /* Read only when the stream goes, after every user let go of it. */
  stream->track_close = close;
  return track;
}

/**
 * gst_pinned_stream_get_context:
 * @stream: a #GstPinnedStream
 *
 * Returns: (transfer none): the device context of @stream
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_stream_get_context (GstPinnedStream * stream)
{
  g_return_val_if_fail (stream != NULL, NULL);

  return stream->context;
}

/**
 * gst_pinned_stream_synchronize:
 * @stream: a #GstPinnedStream
 * @error: (out) (optional): where to describe a failure
 *
 * Blocks until all work enqueued on @stream has finished. Not for the
 * per-buffer path: wait on fences there.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_stream_synchronize (GstPinnedStream * stream, GError ** error)
{
  g_return_val_if_fail (stream != NULL, FALSE);

  ensure_debug_category ();

  return gst_pinned_cuda_result (cudaStreamSynchronize (stream->handle), error);
}

gboolean
gst_pinned_stream_has_waited (GstPinnedStream * stream, guint64 id, guint64 seq)
{
  gboolean waited;

  g_mutex_lock (&stream->wait_lock);
  waited = stream->waited_id == id && stream->waited_seq >= seq;
  g_mutex_unlock (&stream->wait_lock);

  return waited;
}

void
gst_pinned_stream_set_waited (GstPinnedStream * stream, guint64 id, guint64 seq)
{
  g_mutex_lock (&stream->wait_lock);
  if (stream->waited_id != id || stream->waited_seq < seq) {
    stream->waited_id = id;
    stream->waited_seq = seq;
  }
  g_mutex_unlock (&stream->wait_lock);
}

gboolean
gst_pinned_stream_note_lane (GstPinnedStream * stream, GstPinnedLane lane)
{
  gint device, way;
  gint64 now, other, last;
  guint64 notes, seen;

  if (lane == GST_PINNED_LANE_NONE)
    return FALSE;
  /* Several elements may copy on one stream (shared-stream): the first
   * copy's way is the stream's. */
  if (g_atomic_int_get (&stream->lane) == GST_PINNED_LANE_NONE) {
    device = gst_pinned_context_get_device_id (stream->context);
    if (device < 0 || device >= LANE_DEVICES)
      return FALSE;
    stream->lane_device = device;
    g_atomic_int_compare_and_exchange (&stream->lane, GST_PINNED_LANE_NONE,
        lane);
  }
  device = stream->lane_device;
  way = g_atomic_int_get (&stream->lane) - 1;
  now = g_get_monotonic_time ();
  notes = __atomic_add_fetch (&stream->notes, 1, __ATOMIC_RELAXED);
  last = __atomic_exchange_n (&stream->note_us, now, __ATOMIC_RELAXED);
  if (__atomic_load_n (&lane_last_id[device][way], __ATOMIC_RELAXED) !=
      stream->id) {
    other = __atomic_load_n (&lane_last_us[device][way], __ATOMIC_RELAXED);
    __atomic_store_n (&stream->other_us, other, __ATOMIC_RELAXED);
    /* Between this stream's copies: it counts for the next ones too. */
    if (last > 0 && other > last)
      __atomic_store_n (&stream->other_note, notes, __ATOMIC_RELAXED);
  }
  __atomic_store_n (&lane_last_id[device][way], stream->id, __ATOMIC_RELAXED);
  __atomic_store_n (&lane_last_us[device][way], now, __ATOMIC_RELAXED);

  other = __atomic_load_n (&stream->other_us, __ATOMIC_RELAXED);
  seen = __atomic_load_n (&stream->other_note, __ATOMIC_RELAXED);
  return (other > 0 && now - other < LANE_QUIET_US) ||
      (seen > 0 && notes - seen < LANE_QUIET_NOTES);
}
