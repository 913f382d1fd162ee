/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedfence
 * @title: GstPinnedFence
 * @short_description: a point on a CUDA stream that others can wait for
 *
 * A fence is a CUDA event recorded on a stream after work was enqueued.
 * The host waits for it with gst_pinned_fence_wait(), which asks the event
 * and sleeps between asks (it never spins), another stream with
 * gst_pinned_fence_wait_on_stream() (no host wait at all), and
 * gst_pinned_fence_is_signaled() asks without waiting.
 *
 * Fences are recycled: when the last reference goes, the event returns to
 * its device's pool and is recorded again later, so steady-state streaming
 * creates no events.
 *
 * A stream runs its work in order, so a fence seen signaled vouches for
 * the stream's earlier fences: each stream keeps a track of its fences'
 * numbers and of how far its work is known signaled, and a fence behind
 * that point needs no driver call at all. A failure on the device is
 * sticky (every later question answers it), so a later fence's success
 * also means that the earlier work succeeded.
 */

/* This file: the fence object, its event pool, the per-stream tracks, the
 * kind of event (polled or blocking-sync) and the process's count of host
 * waits. How the host or another stream waits for one is
 * gstpinnedfencewait.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sync/gstpinnedfencetrack-private.h"
#include "core/gstpinnedenv-private.h"

#include <string.h>

GST_PINNED_DEBUG_CATEGORY_SHARED (gst_pinned_fence_debug, "pinnedfence",
    "gst-pinned fences", gst_pinned_fence_init_debug);
#define GST_CAT_DEFAULT gst_pinned_fence_debug

/* Events are created once and recycled, one pool per context: creating one
 * per buffer costs a driver call and shows on the per-buffer path. */
/* In a GLib atomic refcounted box (g_atomic_rc_box_new0()). */
typedef struct _GstPinnedFencePool
{
  gint device_id;

  GMutex lock;
  /* Pooled fences, linked through their next_free: a list node per
   * recycling would cost an allocation per fence. */
  GstPinnedFence *free;
  guint n_free;
  gboolean closed;
  guint n_created;
} FencePool;

GST_DEFINE_MINI_OBJECT_TYPE (GstPinnedFence, gst_pinned_fence);

/* How a host waits for a fence. By default the events are plain ones and
 * the host asks (cudaEventQuery) and sleeps between asks (see
 * gstpinnedfencewait.c). Blocking-sync events (cudaEventSynchronize sleeps
 * until CUDA's event handler thread wakes it) cost that thread CPU every
 * frame and wake the waiter late, so that a round trip fell short of the
 * link where asking reached it (docs/design.md, "When the host waits").
 * GST_PINNED_FENCE_WAIT=block brings blocking-sync events back, for
 * comparison. */
enum
{
  WAIT_POLL,
  WAIT_BLOCK,
};

static gsize
parse_wait_mode (const gchar * value)
{
  return g_strcmp0 (value, "block") == 0 ? WAIT_BLOCK : WAIT_POLL;
}

static gint
wait_mode (void)
{
  static gsize mode = 0;

  return gst_pinned_env_once (&mode, "GST_PINNED_FENCE_WAIT", parse_wait_mode);
}

gboolean
gst_pinned_fence_blocking_sync (void)
{
  return wait_mode () == WAIT_BLOCK;
}

static void
fence_pool_clear (FencePool * pool)
{
  g_assert (pool->free == NULL);
  g_mutex_clear (&pool->lock);
}

static void
fence_pool_unref (FencePool * pool)
{
  g_atomic_rc_box_release_full (pool, (GDestroyNotify) fence_pool_clear);
}

static void
track_clear (GstPinnedFenceTrack * track)
{
  g_mutex_clear (&track->lock);
}

static void
track_unref (GstPinnedFenceTrack * track)
{
  g_atomic_rc_box_release_full (track, (GDestroyNotify) track_clear);
}

/* The stream goes: its recent fences go back to their pool when their
 * other holders let go, the track when the last fence does. */
static void
track_close (GstPinnedFenceTrack * track)
{
  GstPinnedFence *recent[GST_PINNED_FENCE_TRACK_RECENT];
  guint i;

  g_mutex_lock (&track->lock);
  memcpy (recent, track->recent, sizeof (recent));
  memset (track->recent, 0, sizeof (track->recent));
  g_mutex_unlock (&track->lock);

  for (i = 0; i < GST_PINNED_FENCE_TRACK_RECENT; i++) {
    if (recent[i])
      gst_mini_object_unref (GST_MINI_OBJECT_CAST (recent[i]));
  }
  track_unref (track);
}

/* The stream's track: made with its first fence, as the stream itself
 * knows nothing of fences (it only keeps the track, and closes it). */
static GstPinnedFenceTrack *
track_get (GstPinnedStream * stream)
{
  GstPinnedFenceTrack *track = gst_pinned_stream_get_track (stream);

  if (G_LIKELY (track))
    return track;

  track = g_atomic_rc_box_new0 (GstPinnedFenceTrack);
  g_mutex_init (&track->lock);
  return gst_pinned_stream_set_track (stream, track,
      (GDestroyNotify) track_close);
}

/* Work up to @seq signaled without error. */
static void
track_set_signaled (GstPinnedFenceTrack * track, guint64 seq)
{
  guint64 signaled = __atomic_load_n (&track->signaled_seq, __ATOMIC_RELAXED);

  while (signaled < seq && !__atomic_compare_exchange_n (&track->signaled_seq,
          &signaled, seq, TRUE, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

void
gst_pinned_fence_set_signaled (GstPinnedFence * fence)
{
  g_atomic_int_set (&fence->signaled, 1);
  if (fence->track)
    track_set_signaled (fence->track, fence->seq);
}

static gboolean
gst_pinned_fence_dispose (GstPinnedFence * fence)
{
  FencePool *pool = fence->pool;
  gboolean recycled = FALSE;

  fence->pool = NULL;
  fence->stream = NULL;
  fence->stream_id = 0;
  fence->seq = 0;
  fence->batch = FALSE;
  if (fence->track) {
    track_unref (fence->track);
    fence->track = NULL;
  }
  if (pool == NULL)
    return TRUE;

  g_mutex_lock (&pool->lock);
  if (!pool->closed) {
    /* The pool's reference keeps it alive until it is acquired again. */
    gst_mini_object_ref (GST_MINI_OBJECT_CAST (fence));
    fence->next_free = pool->free;
    pool->free = fence;
    pool->n_free++;
    recycled = TRUE;
  }
  g_mutex_unlock (&pool->lock);
  fence_pool_unref (pool);

  return !recycled;
}

static void
gst_pinned_fence_free (GstPinnedFence * fence)
{
  gst_pinned_fence_init_debug ();
  gst_pinned_cuda_result (cudaEventDestroy (fence->event), NULL);
  g_free (fence);
}

/* The context is going: pooled fences die now, fences in use when they are
 * released. */
static void
fence_pool_close (FencePool * pool)
{
  GstPinnedFence *fence, *next;
  guint n_free;

  gst_pinned_fence_init_debug ();

  g_mutex_lock (&pool->lock);
  pool->closed = TRUE;
  fence = pool->free;
  n_free = pool->n_free;
  pool->free = NULL;
  pool->n_free = 0;
  g_mutex_unlock (&pool->lock);

  GST_DEBUG ("closing fence pool of device %d: %u events created, %u pooled",
      pool->device_id, pool->n_created, n_free);

  for (; fence != NULL; fence = next) {
    next = fence->next_free;
    fence->next_free = NULL;
    gst_mini_object_unref (GST_MINI_OBJECT_CAST (fence));
  }

  fence_pool_unref (pool);
}

/* The context's pool, made on first use and closed with the context, which
 * itself knows nothing of fences. Found without the global lock once made
 * (qdata reads are thread-safe): every fence of every device asks. */
static FencePool *
fence_pool_get (GstPinnedContext * context)
{
  static gsize quark_once = 0;
  static GQuark quark;
  static GMutex lock;
  FencePool *pool;

  if (g_once_init_enter (&quark_once)) {
    quark = g_quark_from_static_string ("GstPinnedFencePool");
    g_once_init_leave (&quark_once, 1);
  }
  pool = g_object_get_qdata (G_OBJECT (context), quark);
  if (pool != NULL)
    return pool;

  g_mutex_lock (&lock);
  pool = g_object_get_qdata (G_OBJECT (context), quark);
  if (pool == NULL) {
    pool = g_atomic_rc_box_new0 (FencePool);
    pool->device_id = gst_pinned_context_get_device_id (context);
    g_mutex_init (&pool->lock);
    g_object_set_qdata_full (G_OBJECT (context), quark, pool,
        (GDestroyNotify) fence_pool_close);
  }
  g_mutex_unlock (&lock);

  return pool;
}

static GstPinnedFence *
fence_acquire (GstPinnedContext * context, GError ** error)
{
  FencePool *pool = fence_pool_get (context);
  GstPinnedFence *fence;
  cudaEvent_t event;
  gboolean ok;

  g_mutex_lock (&pool->lock);
  fence = pool->free;
  if (fence != NULL) {
    pool->free = fence->next_free;
    pool->n_free--;
    fence->next_free = NULL;
  }
  g_mutex_unlock (&pool->lock);

  if (fence == NULL) {
    /* Events belong to the device that is current when they are made. */
    if (!gst_pinned_context_push (context, error))
      return NULL;
    ok = gst_pinned_cuda_result (cudaEventCreateWithFlags (&event,
            cudaEventDisableTiming | (gst_pinned_fence_blocking_sync ()?
                cudaEventBlockingSync : 0)), error);
    gst_pinned_context_pop (context);
    if (!ok)
      return NULL;

    fence = g_new0 (GstPinnedFence, 1);
    gst_mini_object_init (GST_MINI_OBJECT_CAST (fence), 0,
        GST_TYPE_PINNED_FENCE, NULL,
        (GstMiniObjectDisposeFunction) gst_pinned_fence_dispose,
        (GstMiniObjectFreeFunction) gst_pinned_fence_free);
    fence->event = event;

    g_mutex_lock (&pool->lock);
    pool->n_created++;
    g_mutex_unlock (&pool->lock);
    GST_LOG ("created event %p on device %d", event, pool->device_id);
  }

  fence->pool = g_atomic_rc_box_acquire (pool);
  return fence;
}

/**
 * gst_pinned_stream_record_fence:
 * @stream: a #GstPinnedStream
 * @error: (out) (optional): where to describe a failure
 *
 * Records a fence after the work enqueued on @stream so far.
 *
 * Returns: (transfer full) (nullable): the fence
 *
 * Since: 0.1
 */
GstPinnedFence *
gst_pinned_stream_record_fence (GstPinnedStream * stream, GError ** error)
{
  GstPinnedContext *context;
  GstPinnedFence *fence;

  g_return_val_if_fail (stream != NULL, NULL);

  context = gst_pinned_stream_get_context (stream);
  if (!gst_pinned_context_push (context, error))
    return NULL;
  fence = gst_pinned_fence_record_current (stream, error);
  gst_pinned_context_pop (context);

  return fence;
}

GstPinnedFence *
gst_pinned_fence_record_current (GstPinnedStream * stream, GError ** error)
{
  GstPinnedFenceTrack *track;
  GstPinnedFence *fence, *old = NULL;
  gboolean ok;

  gst_pinned_fence_init_debug ();

  track = track_get (stream);
  fence = fence_acquire (gst_pinned_stream_get_context (stream), error);
  if (fence == NULL)
    return NULL;

  g_mutex_lock (&track->lock);
  ok = gst_pinned_cuda_result (cudaEventRecord (fence->event,
          gst_pinned_stream_get_cuda_stream (stream)), error);
  if (ok) {
    guint slot;

    fence->stream = gst_pinned_stream_get_handle (stream);
    fence->stream_id = gst_pinned_stream_get_id (stream);
    fence->track = g_atomic_rc_box_acquire (track);
    fence->seq = ++track->last_seq;
    g_atomic_int_set (&fence->signaled, 0);

    slot = fence->seq % GST_PINNED_FENCE_TRACK_RECENT;
    old = track->recent[slot];
    track->recent[slot] = gst_pinned_fence_ref (fence);
  }
  g_mutex_unlock (&track->lock);

  if (old)
    gst_pinned_fence_unref (old);
  if (!ok) {
    gst_pinned_fence_unref (fence);
    return NULL;
  }

  return fence;
}

void
gst_pinned_fence_set_batch (GstPinnedFence * fence)
{
  fence->batch = TRUE;
}

guint64
gst_pinned_fence_get_stream_id (GstPinnedFence * fence)
{
  return fence->stream_id;
}

gboolean
gst_pinned_fence_take_result (GstPinnedFence * fence, cudaError_t result,
    GError ** error)
{
  if (!_gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
          __FILE__, GST_FUNCTION, __LINE__, error))
    return FALSE;
  gst_pinned_fence_set_signaled (fence);
  return TRUE;
}

gboolean
gst_pinned_fence_query (GstPinnedFence * fence, gboolean * signaled,
    GError ** error)
{
  cudaError_t result;

  gst_pinned_fence_init_debug ();

  if (gst_pinned_fence_known_signaled (fence)) {
    *signaled = TRUE;
    return TRUE;
  }

  result = cudaEventQuery (fence->event);
  *signaled = result != cudaErrorNotReady;
  if (result == cudaErrorNotReady)
    return TRUE;
  return gst_pinned_fence_take_result (fence, result, error);
}

/**
 * gst_pinned_fence_is_signaled:
 * @fence: a #GstPinnedFence
 *
 * Asks whether the work before @fence has finished, without waiting.
 *
 * Work that failed has finished too: a poll ends, and gst_pinned_fence_wait()
 * would not block but return the error. So %TRUE does not mean that the
 * work succeeded: before touching what it wrote, get the result from
 * gst_pinned_fence_wait() (as mapping gst-pinned memory does).
 *
 * Returns: %TRUE when the work has finished, or failed
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_is_signaled (GstPinnedFence * fence)
{
  gboolean signaled;

  g_return_val_if_fail (fence != NULL, TRUE);

  gst_pinned_fence_query (fence, &signaled, NULL);
  return signaled;
}

/* The process's host waits (gstpinnedfencewait.c counts each), with the
 * questions they asked (atomic): the waits outside the elements too (a
 * source's pool acquire, an application's map). */
static guint64 process_waits;
static guint64 process_questions;
static guint64 process_wait_ns;

void
gst_pinned_fence_count_host_wait (guint questions, guint64 ns)
{
  __atomic_add_fetch (&process_waits, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&process_questions, questions, __ATOMIC_RELAXED);
  __atomic_add_fetch (&process_wait_ns, ns, __ATOMIC_RELAXED);
}

/**
 * gst_pinned_fence_get_host_waits:
 * @waits: (out) (optional): how many times a host thread waited for GPU work
 * @questions: (out) (optional): how many times those waits asked the
 *   driver whether the work was done (each after a sleep)
 * @ns: (out) (optional): how long they waited in all, in nanoseconds
 *
 * The host waits for fences of this process so far, in every thread: the
 * elements' (their `stats` count their own), a source's taking a buffer
 * from a pool whose copy still reads it, an application's CPU map. A wait
 * sleeps and asks, so each question costs the host a wake-up and a driver
 * call: with many streams that is where much of the CPU goes
 * (docs/performance.md).
 *
 * Since: 0.1
 */
void
gst_pinned_fence_get_host_waits (guint64 * waits, guint64 * questions,
    guint64 * ns)
{
  if (waits)
    *waits = __atomic_load_n (&process_waits, __ATOMIC_RELAXED);
  if (questions)
    *questions = __atomic_load_n (&process_questions, __ATOMIC_RELAXED);
  if (ns)
    *ns = __atomic_load_n (&process_wait_ns, __ATOMIC_RELAXED);
}

/**
 * gst_pinned_fence_get_handle:
 * @fence: a #GstPinnedFence
 *
 * Returns: (transfer none): the `cudaEvent_t` of @fence; it stays valid
 *   while the caller holds @fence
 *
 * Since: 0.1
 */
gpointer
gst_pinned_fence_get_handle (GstPinnedFence * fence)
{
  g_return_val_if_fail (fence != NULL, NULL);

  return fence->event;
}

/**
 * gst_pinned_fence_get_stream_handle:
 * @fence: a #GstPinnedFence
 *
 * Returns: (transfer none): the `cudaStream_t` @fence was recorded on
 *
 * Since: 0.1
 */
gpointer
gst_pinned_fence_get_stream_handle (GstPinnedFence * fence)
{
  g_return_val_if_fail (fence != NULL, NULL);

  return fence->stream;
}
