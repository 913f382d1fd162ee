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
 * A stream runs its work in order, so a fence seen done vouches for the
 * stream's earlier fences: each stream keeps a track of its fences'
 * numbers and of how far its work is known done, and a fence behind that
 * point needs no driver call at all. A failure on the device is sticky (every
 * later question answers it), so a later fence's success also means that
 * the earlier work succeeded.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedfence-private.h"

#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

GST_PINNED_DEBUG_CATEGORY (gst_pinned_fence_debug, "pinnedfence",
    "gst-pinned fences");
#define GST_CAT_DEFAULT gst_pinned_fence_debug

/* Events are created once and recycled, one pool per context: creating one
 * per buffer costs a driver call and shows on the per-buffer path. */
/* In a GLib atomic refcounted box (g_atomic_rc_box_new0()). */
typedef struct
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

/* How far a stream's work is known done. The stream makes it; its fences
 * hold references, so that it outlives the stream while they live (a GLib
 * atomic refcounted box, as the fence pool). */
#define TRACK_RECENT 16

struct _GstPinnedFenceTrack
{
  /* Held across the record, so that the numbers follow the stream's order
   * even where several threads record on one stream. */
  GMutex lock;
  guint64 last_seq;
  /* The last TRACK_RECENT fences, by seq % TRACK_RECENT: a gate can wait
   * for one further ahead (gst_pinned_fence_wait_gate()). */
  GstPinnedFence *recent[TRACK_RECENT];

  /* Atomic: every fence up to this number has finished, without error. */
  guint64 done;
  /* Atomic: how long a gate waiting on this stream sleeps before its first
   * question (us), learnt from how the last such questions came out. */
  guint64 gate_sleep_us;
  /* Atomic: how far from the newest the pace asks, where the stream's work
   * keeps up with the host; 0 where it runs ahead (gst_pinned_fence_pace()).
   * A hint: a racing update costs a question at most. */
  guint pace_look;
};

struct _GstPinnedFence
{
  GstMiniObject parent;

  cudaEvent_t event;
  /* The stream the event was recorded on, and its unique id (a handle can
   * be reused by a later stream): a later fence of the same stream
   * supersedes this one, as a stream runs its work in order. */
  gpointer stream;
  guint64 stream_id;
  /* The stream's track, referenced, and the fence's number on it. */
  GstPinnedFenceTrack *track;
  guint64 seq;
  /* Held while the fence is in use; NULL while it waits in the pool. */
  FencePool *pool;
  /* The next pooled fence, while this one waits in the pool. */
  GstPinnedFence *next_free;
  /* Set once the host saw the work done: later waits need no driver
   * call (a stream reusing a buffer whose last reader's fence the pool
   * gate already saw signalled enqueues no wait). */
  gint signaled;
  /* Recorded after a batch of frames: it stands for several buffers. */
  gboolean batch;
};

GST_DEFINE_MINI_OBJECT_TYPE (GstPinnedFence, gst_pinned_fence);

/* The host waits of each thread, counted where they all happen, for the
 * elements' statistics: one thread's own, so no lock or atomics. */
static _Thread_local guint64 thread_waits;
static _Thread_local guint64 thread_wait_ns;

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

GstPinnedFenceTrack *
gst_pinned_fence_track_new (void)
{
  GstPinnedFenceTrack *track = g_atomic_rc_box_new0 (GstPinnedFenceTrack);

  g_mutex_init (&track->lock);
  return track;
}

/* The stream goes: its recent fences go back to their pool when their
 * other holders let go, the track when the last fence does. */
void
gst_pinned_fence_track_close (GstPinnedFenceTrack * track)
{
  GstPinnedFence *recent[TRACK_RECENT];
  guint i;

  g_mutex_lock (&track->lock);
  memcpy (recent, track->recent, sizeof (recent));
  memset (track->recent, 0, sizeof (track->recent));
  g_mutex_unlock (&track->lock);

  for (i = 0; i < TRACK_RECENT; i++) {
    if (recent[i])
      gst_mini_object_unref (GST_MINI_OBJECT_CAST (recent[i]));
  }
  track_unref (track);
}

/* Work up to @seq finished without error. */
static void
track_set_done (GstPinnedFenceTrack * track, guint64 seq)
{
  guint64 done = __atomic_load_n (&track->done, __ATOMIC_RELAXED);

  while (done < seq && !__atomic_compare_exchange_n (&track->done, &done,
          seq, TRUE, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* The host saw @fence's work done, without error. */
static void
fence_set_signaled (GstPinnedFence * fence)
{
  g_atomic_int_set (&fence->signaled, 1);
  if (fence->track)
    track_set_done (fence->track, fence->seq);
}

/* Whether the host knows that @fence's work finished without error: it
 * saw that, or saw a later fence of the stream finish. No driver call. */
static inline gboolean
fence_known_done (GstPinnedFence * fence)
{
  if (g_atomic_int_get (&fence->signaled))
    return TRUE;
  if (fence->track && fence->seq <=
      __atomic_load_n (&fence->track->done, __ATOMIC_ACQUIRE)) {
    g_atomic_int_set (&fence->signaled, 1);
    return TRUE;
  }
  return FALSE;
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
  ensure_debug_category ();
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

  ensure_debug_category ();

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
 * itself knows nothing of fences. */
static FencePool *
fence_pool_get (GstPinnedContext * context)
{
  static GQuark quark;
  static GMutex lock;
  FencePool *pool;

  g_mutex_lock (&lock);
  if (quark == 0)
    quark = g_quark_from_static_string ("GstPinnedFencePool");
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

/* How a host waits for a fence. By default the events are plain ones and
 * the host asks (cudaEventQuery) and sleeps between asks, 2 us at first,
 * doubling to 64 us (or a sixteenth of the wait so far). Blocking-sync
 * events (cudaEventSynchronize sleeps until CUDA's event handler thread
 * wakes it) cost that thread 20 to 45 us of CPU per frame and wake the
 * waiter late: on an H200, NV12 1920x1080 up and back ran at 0.77-0.96 of
 * the link with 45-76 us of CPU per frame, and at 1.01 with 29 us asking
 * (docs/performance.md). GST_PINNED_FENCE_WAIT=block brings blocking-sync
 * events back, for comparison. */
enum
{
  WAIT_POLL,
  WAIT_BLOCK,
};

#define POLL_FIRST_US 2
#define POLL_MAX_US 64

static gint
wait_mode (void)
{
  static gsize mode = 0;

  if (g_once_init_enter (&mode)) {
    gsize m = g_strcmp0 (g_getenv ("GST_PINNED_FENCE_WAIT"), "block") == 0 ?
        WAIT_BLOCK : WAIT_POLL;

    g_once_init_leave (&mode, m + 1);
  }
  return (gint) mode - 1;
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
            cudaEventDisableTiming | (wait_mode () == WAIT_BLOCK ?
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
  fence = gst_pinned_stream_record_fence_current (stream, error);
  gst_pinned_context_pop (context);

  return fence;
}

GstPinnedFence *
gst_pinned_stream_record_fence_current (GstPinnedStream * stream,
    GError ** error)
{
  GstPinnedFenceTrack *track;
  GstPinnedFence *fence, *old = NULL;
  gboolean ok;

  ensure_debug_category ();

  track = gst_pinned_stream_get_track (stream);
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

    slot = fence->seq % TRACK_RECENT;
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

/* @result of a question that found the work finished: remembered when it
 * succeeded, else reported (failed work must keep failing its users). */
static gboolean
fence_finished (GstPinnedFence * fence, cudaError_t result, GError ** error)
{
  if (!_gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
          __FILE__, GST_FUNCTION, __LINE__, error))
    return FALSE;
  fence_set_signaled (fence);
  return TRUE;
}

gboolean
gst_pinned_fence_query (GstPinnedFence * fence, gboolean * signaled,
    GError ** error)
{
  cudaError_t result;

  ensure_debug_category ();

  if (fence_known_done (fence)) {
    *signaled = TRUE;
    return TRUE;
  }

  result = cudaEventQuery (fence->event);
  *signaled = result != cudaErrorNotReady;
  if (result == cudaErrorNotReady)
    return TRUE;
  return fence_finished (fence, result, error);
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

/* A sleep of 2 us takes 50 to 60 us where the thread's timer slack is the
 * kernel's default (50 us), about a frame's copy at 1080p: a gate that
 * means to wake right after the copy it waits for needs a slack of 1 us.
 * The thread keeps it once set: saving and restoring it around each wait
 * cost three system calls a wait, about one and a half a frame of the
 * round trip, where only sleeps become more precise. */
#define PRECISE_SLACK_NS 1000

static void
slack_tighten (void)
{
#ifdef PR_SET_TIMERSLACK
  static __thread gboolean tight;

  if (tight)
    return;
  tight = TRUE;
  if (prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0) > PRECISE_SLACK_NS)
    prctl (PR_SET_TIMERSLACK, (unsigned long) PRECISE_SLACK_NS, 0, 0, 0);
#endif
}

/* Sleeps and asks until @fence's running work is done. A question about
 * running work costs the host microseconds (more than one about finished
 * work), so each comes after a sleep: @first_us, then @step_us, doubling
 * up to 64 us; @precise sleeps with a tight timer slack. Counts one host
 * wait, and in *@questions how many questions it asked. */
static gboolean
wait_running (GstPinnedFence * fence, gulong first_us, gulong step_us,
    gboolean precise, guint * questions, GError ** error)
{
  GstClockTime start;
  cudaError_t result;
  gboolean ok;
  guint n = 0;

  GST_TRACE ("host wait on event %p", fence->event);
  start = gst_util_get_timestamp ();
  if (wait_mode () == WAIT_POLL) {
    gulong sleep_us = MAX (first_us, POLL_FIRST_US);

    if (precise)
      slack_tighten ();
    do {
      g_usleep (sleep_us);
      sleep_us = step_us;
      /* A long wait asks less often: late by a sixteenth of its length at
       * most (each wake-up costs the host 5 to 12 us on a virtual machine:
       * a 200 ms wait asked 3,000 times). The clock is read only then. */
      step_us *= 2;
      if (step_us > POLL_MAX_US)
        step_us = MIN (step_us, MAX (POLL_MAX_US,
                (gst_util_get_timestamp () - start) / (16 * GST_USECOND)));
      n++;
    } while ((result = cudaEventQuery (fence->event)) == cudaErrorNotReady);
    ok = _gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
        __FILE__, GST_FUNCTION, __LINE__, error);
  } else {
    ok = gst_pinned_cuda_result (cudaEventSynchronize (fence->event), error);
    n = 1;
  }
  thread_waits++;
  thread_wait_ns += gst_util_get_timestamp () - start;
  if (questions)
    *questions = n;
  if (ok)
    fence_set_signaled (fence);
  return ok;
}

/**
 * gst_pinned_fence_wait:
 * @fence: a #GstPinnedFence
 * @error: (out) (optional): where to describe a failure
 *
 * Blocks the calling thread, sleeping, until the work before @fence has
 * finished.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_wait (GstPinnedFence * fence, GError ** error)
{
  cudaError_t result;

  g_return_val_if_fail (fence != NULL, FALSE);

  ensure_debug_category ();

  if (fence_known_done (fence))
    return TRUE;
  /* Finished work: one question, and no wait. */
  if ((result = cudaEventQuery (fence->event)) != cudaErrorNotReady)
    return fence_finished (fence, result, error);

  return wait_running (fence, POLL_FIRST_US, 2 * POLL_FIRST_US, FALSE, NULL,
      error);
}

/* How many of a stream's newest fences a gate leaves running: the GPU's
 * work queued when the host goes on. One: a copy of a 1080p frame lasts
 * about 60 us, more than the gate's wake-up and the next frame's work
 * take, and leaving two saved the host less (docs/performance.md).
 * GST_PINNED_GATE_LEAVE sets it, for measurements. */
#define DEFAULT_GATE_LEAVE 1
#define GATE_FIRST_MAX_US 4000

static guint
gate_leave (void)
{
  static gsize leave = 0;

  if (g_once_init_enter (&leave)) {
    const gchar *env = g_getenv ("GST_PINNED_GATE_LEAVE");
    gsize n = env ? g_ascii_strtoull (env, NULL, 10) : DEFAULT_GATE_LEAVE;

    g_once_init_leave (&leave, MIN (n, TRACK_RECENT) + 1);
  }
  return (guint) leave - 1;
}

/* The fence of @track that a gate waiting for @fence waits for instead:
 * the newest but @leave, when that is later than @fence. */
static GstPinnedFence *
gate_target (GstPinnedFenceTrack * track, GstPinnedFence * fence, guint leave)
{
  GstPinnedFence *target = NULL;

  if (leave >= TRACK_RECENT)
    return NULL;

  g_mutex_lock (&track->lock);
  if (track->last_seq > fence->seq + leave) {
    target = track->recent[(track->last_seq - leave) % TRACK_RECENT];
    if (target)
      gst_pinned_fence_ref (target);
  }
  g_mutex_unlock (&track->lock);

  return target;
}

/* gate_wait() once a question found @fence's work running. */
static gboolean
gate_wait_running (GstPinnedFence * fence, guint leave, GError ** error)
{
  GstPinnedFenceTrack *track = fence->track;
  GstPinnedFence *target = NULL;
  guint64 sleep_us;
  guint questions;
  gboolean ok;

  /* A batch's fence that is itself the newest but @leave, or newer: the
   * next buffers wait for it too, and the gate waits as for a later one
   * (the plain poll slept 1.5 times a frame there). */
  if (track && (target = gate_target (track, fence, leave)) == NULL &&
      fence->batch)
    target = gst_pinned_fence_ref (fence);
  if (track == NULL || target == NULL)
    return wait_running (fence, POLL_FIRST_US, 2 * POLL_FIRST_US, FALSE,
        NULL, error);

  /* Under steady backpressure such waits last about as long each time.
   * The first sleep follows how its question came out: shorter after
   * finished work (the sleep may have been too long), longer after
   * running work (a question more, microseconds). */
  sleep_us = __atomic_load_n (&track->gate_sleep_us, __ATOMIC_RELAXED);
  sleep_us = CLAMP (sleep_us, POLL_FIRST_US, GATE_FIRST_MAX_US);
  ok = wait_running (target, sleep_us, MAX (POLL_FIRST_US, sleep_us / 8),
      TRUE, &questions, NULL);
  sleep_us = questions == 1 ? sleep_us - sleep_us / 8 :
      sleep_us + MAX (sleep_us / 16, POLL_FIRST_US);
  __atomic_store_n (&track->gate_sleep_us, sleep_us, __ATOMIC_RELAXED);
  gst_pinned_fence_unref (target);

  /* The later fence's success vouches for @fence; after a failure @fence
   * gives its own answer. */
  return (ok && fence_known_done (fence)) ||
      gst_pinned_fence_wait (fence, error);
}

static gboolean
gate_wait (GstPinnedFence * fence, guint leave, GError ** error)
{
  cudaError_t result;

  ensure_debug_category ();

  if (fence_known_done (fence))
    return TRUE;
  if ((result = cudaEventQuery (fence->event)) != cudaErrorNotReady)
    return fence_finished (fence, result, error);
  return gate_wait_running (fence, leave, error);
}

gboolean
gst_pinned_fence_wait_gate (GstPinnedFence * fence, GError ** error)
{
  return gate_wait (fence, gate_leave (), error);
}

/* How many fences a paced stream may run ahead of the host: more than
 * another gate lets it (a download behind an upload runs at most the
 * upload's pool and its device pool ahead: 4 + 8 by default), so that
 * there it finds that fence long done. When it must wait, it waits until
 * half of that is left: a wait that drained the stream would starve the
 * link, another stream's too. */
#define PACE_AHEAD 14

/* Behind another gate the stream's work is done long before PACE_AHEAD,
 * and asking about the fence that far back costs a question every frame
 * (about 1.4 us of host CPU each in the round trip, more than a
 * cross-stream wait). There the pace asks about a fence nearer the newest
 * instead, which vouches for the next frames too: its distance from the
 * newest is learnt, one more after each question that found that fence's
 * work still running, from PACE_LOOK_FIRST up to PACE_LOOK_MAX (a download
 * behind an upload on an H100 ran about 7 copies behind the host). */
#define PACE_LOOK_FIRST 3
#define PACE_LOOK_MAX (PACE_AHEAD - 2)

gboolean
gst_pinned_fence_pace (GstPinnedFence * fence, GError ** error)
{
  GstPinnedFenceTrack *track = fence->track;
  GstPinnedFence *behind = NULL, *look = NULL;
  cudaError_t result;
  gboolean ok = TRUE;
  guint lag;

  if (track == NULL)
    return TRUE;

  g_mutex_lock (&track->lock);
  /* A closed track (its stream is gone) keeps no fences. */
  if (track->last_seq > PACE_AHEAD)
    behind = track->recent[(track->last_seq - PACE_AHEAD) % TRACK_RECENT];
  if (behind && fence_known_done (behind)) {
    behind = NULL;
  } else if (behind &&
      (lag = __atomic_load_n (&track->pace_look, __ATOMIC_RELAXED)) > 0) {
    look = track->recent[(track->last_seq - lag) % TRACK_RECENT];
  }
  if (behind)
    gst_pinned_fence_ref (behind);
  if (look)
    gst_pinned_fence_ref (look);
  g_mutex_unlock (&track->lock);

  if (behind == NULL)
    return TRUE;

  ensure_debug_category ();
  if (look) {
    result = cudaEventQuery (look->event);
    if (result == cudaSuccess) {
      fence_set_signaled (look);
    } else {
      __atomic_store_n (&track->pace_look, MIN (lag + 1, PACE_LOOK_MAX),
          __ATOMIC_RELAXED);
    }
    gst_pinned_fence_unref (look);
  }

  if (fence_known_done (behind)) {
    ok = TRUE;
  } else if ((result = cudaEventQuery (behind->event)) != cudaErrorNotReady) {
    /* Done without a wait: the stream is behind another gate; look
     * nearer the newest next time. */
    ok = fence_finished (behind, result, error);
    if (ok && __atomic_load_n (&track->pace_look, __ATOMIC_RELAXED) == 0)
      __atomic_store_n (&track->pace_look, PACE_LOOK_FIRST, __ATOMIC_RELAXED);
  } else {
    /* The stream runs ahead: it is paced, and no look helps. */
    __atomic_store_n (&track->pace_look, 0, __ATOMIC_RELAXED);
    ok = gate_wait_running (behind, PACE_AHEAD / 2, error);
  }

  gst_pinned_fence_unref (behind);
  return ok;
}

void
gst_pinned_fence_get_thread_waits (guint64 * waits, guint64 * ns)
{
  *waits = thread_waits;
  *ns = thread_wait_ns;
}

/**
 * gst_pinned_fence_wait_on_stream:
 * @fence: a #GstPinnedFence
 * @stream: a #GstPinnedStream
 * @error: (out) (optional): where to describe a failure
 *
 * Makes the work enqueued on @stream after this call wait for @fence. The
 * host does not wait.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_wait_on_stream (GstPinnedFence * fence,
    GstPinnedStream * stream, GError ** error)
{
  g_return_val_if_fail (fence != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  ensure_debug_category ();

  /* Work already ordered on the same stream, or seen done, needs no
   * wait; nor does a fence behind one of its stream that @stream already
   * waits for (the frames of a batch share one fence). */
  if (fence->stream_id == gst_pinned_stream_get_id (stream) ||
      fence_known_done (fence))
    return TRUE;
  if (fence->track && gst_pinned_stream_has_waited (stream, fence->stream_id,
          fence->seq))
    return TRUE;

  if (!gst_pinned_cuda_result (cudaStreamWaitEvent
          (gst_pinned_stream_get_cuda_stream (stream), fence->event, 0), error))
    return FALSE;
  if (fence->track)
    gst_pinned_stream_set_waited (stream, fence->stream_id, fence->seq);
  return TRUE;
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
