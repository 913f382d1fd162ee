/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How a host waits for a fence, and another stream (no host wait, the
 * stream waits on the GPU): the poll (it asks and sleeps, never
 * spins), the pool gate (it waits for a later fence of the stream where it
 * must wait at all), the pace (a stream runs at most a few fences ahead of
 * the host), the turn (a stream that shares its copy engine lets its queue
 * run empty every few frames), how long each kind sleeps first (learnt per
 * stream; coarser where the stream shares its engine) and the timer slack
 * their sleeps need. The fence object is gstpinnedfence.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbatchqueue-private.h"
#include "sync/gstpinnedfencetrack-private.h"
#include "core/gstpinnedenv-private.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

#define GST_CAT_DEFAULT gst_pinned_fence_debug

#define POLL_FIRST_US 2
#define POLL_MAX_US 64
/* A long wait asks less often: late by a sixteenth of its length at most
 * (each wake-up costs the host, and a long wait that asked at the shortest
 * step asked thousands of times). */
#define POLL_TAIL 16
/* Where the stream shares its copy engine, late by half of it: the other
 * streams keep the engine busy meanwhile, and many streams' long waits
 * asked many times each (docs/performance.md). GST_PINNED_SHARED_TAIL
 * sets it, for measurements. */
#define DEFAULT_SHARED_TAIL 2

static gsize
parse_shared_tail (const gchar * value)
{
  gsize n = value ? g_ascii_strtoull (value, NULL, 10) : DEFAULT_SHARED_TAIL;

  return CLAMP (n, 1, POLL_TAIL);
}

/* How far a wait on @fence may wake late, as a part of its length so far. */
static guint
poll_tail (GstPinnedFence * fence)
{
  static gsize tail = 0;

  if (fence->track == NULL || !g_atomic_int_get (&fence->track->shared))
    return POLL_TAIL;
  return gst_pinned_env_once (&tail, "GST_PINNED_SHARED_TAIL",
      parse_shared_tail);
}

/* The host waits of each thread, counted where they all happen, for the
 * elements' statistics: one thread's own, so no lock or atomics. */
static _Thread_local GstPinnedThreadWaits thread_waits;

/* A sleep of 2 us lasts the thread's timer slack longer, the kernel's
 * default 50 us, as long as a frame's copy: a gate that means to wake
 * right after the copy it waits for needs a slack of 1 us. The thread
 * keeps it once set: saving and restoring it around each wait cost three
 * system calls a wait, where only sleeps become more precise. */
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

/* Sleeps and asks until @fence's running work has signaled. A question about
 * running work costs the host microseconds (more than one about signaled
 * work), so each comes after a sleep: @first_us, then @step_us, doubling
 * up to 64 us; @precise sleeps with a tight timer slack. Counts one host
 * wait, and in *@questions how many questions it asked, in *@took_us how
 * long it took. */
static gboolean
wait_running (GstPinnedFence * fence, gulong first_us, gulong step_us,
    gboolean precise, guint * questions, guint64 * took_us, GError ** error)
{
  GstClockTime start, took;
  cudaError_t result;
  gboolean ok;
  guint n = 0, tail;

  GST_TRACE ("host wait on event %p", fence->event);
  start = gst_util_get_timestamp ();
  if (!gst_pinned_fence_blocking_sync ()) {
    gulong sleep_us = MAX (first_us, POLL_FIRST_US);

    if (precise)
      slack_tighten ();
    tail = poll_tail (fence);
    do {
      g_usleep (sleep_us);
      sleep_us = step_us;
      /* The clock is read only once the steps are long. */
      step_us *= 2;
      if (step_us > POLL_MAX_US)
        step_us = MIN (step_us, MAX (POLL_MAX_US,
                (gst_util_get_timestamp () - start) / (tail * GST_USECOND)));
      n++;
    } while ((result = cudaEventQuery (fence->event)) == cudaErrorNotReady);
    ok = _gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
        __FILE__, GST_FUNCTION, __LINE__, error);
  } else {
    ok = gst_pinned_cuda_result (cudaEventSynchronize (fence->event), error);
    n = 1;
  }
  took = gst_util_get_timestamp () - start;
  thread_waits.waits++;
  thread_waits.questions += n;
  thread_waits.ns += took;
  gst_pinned_fence_count_host_wait (n, took);
  if (questions)
    *questions = n;
  if (took_us)
    *took_us = took / GST_USECOND;
  if (ok)
    gst_pinned_fence_set_signaled (fence);
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

  gst_pinned_fence_init_debug ();

  if (gst_pinned_fence_known_signaled (fence))
    return TRUE;
  /* Signaled work: one question, and no wait. */
  if ((result = cudaEventQuery (fence->event)) != cudaErrorNotReady)
    return gst_pinned_fence_take_result (fence, result, error);

  return wait_running (fence, POLL_FIRST_US, 2 * POLL_FIRST_US, FALSE, NULL,
      NULL, error);
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

  gst_pinned_fence_init_debug ();

  /* Work already ordered on the same stream, or seen signaled, needs no
   * wait; nor does a fence behind one of its stream that @stream already
   * waits for (the frames of a batch share one fence). */
  if (fence->stream_id == gst_pinned_stream_get_id (stream) ||
      gst_pinned_fence_known_signaled (fence))
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

/* How many of a stream's newest fences a gate leaves running: the GPU's
 * work queued when the host goes on. One: a frame's copy lasts longer
 * than the gate's wake-up and the next frame's work take, and leaving two
 * saved the host less (docs/performance.md). GST_PINNED_GATE_LEAVE sets
 * it, for measurements. */
#define DEFAULT_GATE_LEAVE 1
/* A gate's first sleep, at most: where the stream shares its copy engine
 * its waits last about as long as the other streams' copies take, ten
 * milliseconds and more. */
#define GATE_FIRST_MAX_US 4000
#define SHARED_FIRST_MAX_US 32000

static gsize
parse_gate_leave (const gchar * value)
{
  gsize n = value ? g_ascii_strtoull (value, NULL, 10) : DEFAULT_GATE_LEAVE;

  return MIN (n, GST_PINNED_FENCE_TRACK_RECENT);
}

static guint
gate_leave (void)
{
  static gsize leave = 0;

  return gst_pinned_env_once (&leave, "GST_PINNED_GATE_LEAVE",
      parse_gate_leave);
}

/* The fence of @track that a gate waiting for @fence waits for instead:
 * the newest but @leave, when that is later than @fence. */
static GstPinnedFence *
gate_target (GstPinnedFenceTrack * track, GstPinnedFence * fence, guint leave)
{
  GstPinnedFence *target = NULL;

  if (leave >= GST_PINNED_FENCE_TRACK_RECENT)
    return NULL;

  g_mutex_lock (&track->lock);
  if (track->last_seq > fence->seq + leave) {
    target =
        track->recent[(track->last_seq -
            leave) % GST_PINNED_FENCE_TRACK_RECENT];
    if (target)
      gst_pinned_fence_ref (target);
  }
  g_mutex_unlock (&track->lock);

  return target;
}

/* Under steady backpressure a kind's waits last about as long each time.
 * Its first sleep follows how its last wait went: shorter after one
 * question (the sleep may have been too long), longer after more (a
 * question more, microseconds); where the stream shares its engine, just
 * under that wait's length (those waits last as long as the other streams'
 * copies, ten milliseconds and more, and a late wake-up costs nothing). */
static guint64
learn_first_sleep (guint64 sleep_us, guint questions, guint64 took_us,
    gboolean shared)
{
  if (questions == 1)
    return sleep_us - sleep_us / 8;
  if (shared)
    return MAX (sleep_us + POLL_FIRST_US, took_us - took_us / 8);
  return sleep_us + MAX (sleep_us / 16, POLL_FIRST_US);
}

/* gate_wait() once a question found @fence's work running. */
static gboolean
gate_wait_running (GstPinnedFence * fence, guint leave,
    GstPinnedWaitKind kind, GError ** error)
{
  GstPinnedFenceTrack *track = fence->track;
  GstPinnedFence *target = NULL;
  guint64 sleep_us, took_us;
  guint questions;
  gboolean ok, shared;

  /* A batch's fence that is itself the newest but @leave, or newer: the
   * next buffers wait for it too, and the gate waits as for a later one
   * (the plain poll slept 1.5 times a frame there); so does a wait for the
   * newest (the turn), which comes every frame, and any wait on a stream
   * that shares its engine, whose waits last about as long each time. */
  shared = track && g_atomic_int_get (&track->shared);
  if (track && (target = gate_target (track, fence, leave)) == NULL &&
      (fence->batch || leave == 0 || shared))
    target = gst_pinned_fence_ref (fence);
  if (track == NULL || target == NULL)
    return wait_running (fence, POLL_FIRST_US, 2 * POLL_FIRST_US, FALSE,
        NULL, NULL, error);

  sleep_us = __atomic_load_n (&track->first_sleep_us[kind], __ATOMIC_RELAXED);
  sleep_us = CLAMP (sleep_us, POLL_FIRST_US,
      shared ? SHARED_FIRST_MAX_US : GATE_FIRST_MAX_US);
  ok = wait_running (target, sleep_us, MAX (POLL_FIRST_US, sleep_us / 8),
      TRUE, &questions, &took_us, NULL);
  __atomic_store_n (&track->first_sleep_us[kind],
      learn_first_sleep (sleep_us, questions, took_us, shared),
      __ATOMIC_RELAXED);
  gst_pinned_fence_unref (target);

  /* The later fence's success vouches for @fence; after a failure @fence
   * gives its own answer. */
  return (ok && gst_pinned_fence_known_signaled (fence)) ||
      gst_pinned_fence_wait (fence, error);
}

static gboolean
gate_wait (GstPinnedFence * fence, guint leave, GstPinnedWaitKind kind,
    GError ** error)
{
  cudaError_t result;

  gst_pinned_fence_init_debug ();

  if (gst_pinned_fence_known_signaled (fence))
    return TRUE;
  if ((result = cudaEventQuery (fence->event)) != cudaErrorNotReady)
    return gst_pinned_fence_take_result (fence, result, error);
  return gate_wait_running (fence, leave, kind, error);
}

gboolean
gst_pinned_fence_wait_gate (GstPinnedFence * fence, GError ** error)
{
  return gate_wait (fence, gate_leave (), GST_PINNED_WAIT_GATE, error);
}

/* How many fences a paced stream may run ahead of the host: more than
 * another gate lets it (a download behind an upload runs at most the
 * upload's pool and its device pool ahead: 4 + 8 by default), so that
 * there it finds that fence long signaled. When it must wait, it waits until
 * half of that is left: a wait that drained the stream would starve the
 * link, another stream's too. */
#define PACE_AHEAD 14

/* Behind another gate the stream's work has signaled long before PACE_AHEAD,
 * and asking about the fence that far back costs a question every frame
 * (more host CPU than a cross-stream wait). There the pace asks about a
 * fence nearer the newest instead, which vouches for the next frames too:
 * its distance from the newest is learnt, one more after each question
 * that found that fence's work still running, from PACE_LOOK_FIRST up to
 * PACE_LOOK_MAX (a download behind an upload runs several copies behind
 * the host). */
#define PACE_LOOK_FIRST 3
#define PACE_LOOK_MAX (PACE_AHEAD - 2)

gboolean
gst_pinned_fence_wait_pace (GstPinnedFence * fence, GError ** error)
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
    behind =
        track->recent[(track->last_seq -
            PACE_AHEAD) % GST_PINNED_FENCE_TRACK_RECENT];
  if (behind && gst_pinned_fence_known_signaled (behind)) {
    behind = NULL;
  } else if (behind &&
      (lag = __atomic_load_n (&track->pace_look, __ATOMIC_RELAXED)) > 0) {
    look =
        track->recent[(track->last_seq - lag) % GST_PINNED_FENCE_TRACK_RECENT];
  }
  if (behind)
    gst_pinned_fence_ref (behind);
  if (look)
    gst_pinned_fence_ref (look);
  g_mutex_unlock (&track->lock);

  if (behind == NULL)
    return TRUE;

  gst_pinned_fence_init_debug ();
  if (look) {
    result = cudaEventQuery (look->event);
    if (result == cudaSuccess) {
      gst_pinned_fence_set_signaled (look);
    } else {
      __atomic_store_n (&track->pace_look, MIN (lag + 1, PACE_LOOK_MAX),
          __ATOMIC_RELAXED);
    }
    gst_pinned_fence_unref (look);
  }

  if (gst_pinned_fence_known_signaled (behind)) {
    ok = TRUE;
  } else if ((result = cudaEventQuery (behind->event)) != cudaErrorNotReady) {
    /* Signaled without a wait: the stream is behind another gate; look
     * nearer the newest next time. */
    ok = gst_pinned_fence_take_result (behind, result, error);
    if (ok && __atomic_load_n (&track->pace_look, __ATOMIC_RELAXED) == 0)
      __atomic_store_n (&track->pace_look, PACE_LOOK_FIRST, __ATOMIC_RELAXED);
  } else {
    /* The stream runs ahead: it is paced, and no look helps. */
    __atomic_store_n (&track->pace_look, 0, __ATOMIC_RELAXED);
    ok = gate_wait_running (behind, PACE_AHEAD / 2, GST_PINNED_WAIT_PACE,
        error);
  }

  gst_pinned_fence_unref (behind);
  return ok;
}

/* How many fences a stream that shares its copy engine records between
 * turns: the queue runs empty at least that often, and the engine goes
 * round the streams with work a quantum each. One turn per fence cost a
 * host wait per frame, much of the process's CPU with many small streams;
 * a quantum of four saved CPU there but cost some with a few large frames
 * (docs/notes/2026-11-26-turn-quantum.md). So frames too large to batch
 * (over GST_PINNED_BATCH_AUTO_MAX_BYTES) take a turn every fence: their
 * copies last long enough that a wait a frame is few wake-ups.
 * GST_PINNED_TURN_EVERY sets one quantum for every frame size, for
 * measurements. */
#define DEFAULT_TURN_EVERY 4

/* 0: not set. */
static gsize
parse_turn_every (const gchar * value)
{
  gsize n = value ? g_ascii_strtoull (value, NULL, 10) : 0;

  return n ? CLAMP (n, 1, GST_PINNED_FENCE_TRACK_RECENT) : 0;
}

static guint
turn_every (gsize frame_bytes)
{
  static gsize every = 0;
  guint set = gst_pinned_env_once (&every, "GST_PINNED_TURN_EVERY",
      parse_turn_every);

  if (set)
    return set;
  return frame_bytes > GST_PINNED_BATCH_AUTO_MAX_BYTES ? 1 : DEFAULT_TURN_EVERY;
}

/* Within one CUDA context the GPU gives a copy engine to a stream until its
 * queue runs empty: a stream that always has a copy queued keeps it, and
 * another stream that copies the same way on the device waits (of two
 * round trips in one process, one all but starved). A host that refills its stream's queue just before it runs empty
 * never waits at a gate or the pace, so where a stream shares its engine
 * (@shared: the caller asks gst_pinned_stream_note_lane()), a frame
 * whose stream recorded a quantum of fences (turn_every()) since its queue
 * was last seen empty first waits for them all: the queue runs empty, the
 * engine goes to the next stream with work, and the other streams keep it
 * busy while this host wakes. The stream's waits of every kind may wake
 * later while it shares (poll_tail()). */
gboolean
gst_pinned_fence_wait_turn (GstPinnedStream * stream, gboolean shared,
    gsize frame_bytes, GError ** error)
{
  GstPinnedFenceTrack *track;
  GstPinnedFence *newest = NULL;
  guint64 last;
  gboolean ok;

  if ((track = gst_pinned_stream_get_track (stream)) == NULL)
    return TRUE;
  if (g_atomic_int_get (&track->shared) != shared)
    g_atomic_int_set (&track->shared, shared);
  if (!shared)
    return TRUE;

  g_mutex_lock (&track->lock);
  last = track->last_seq;
  if (last > 0)
    newest = track->recent[last % GST_PINNED_FENCE_TRACK_RECENT];
  if (newest && gst_pinned_fence_known_signaled (newest)) {
    /* Empty already: the quantum counts from here. */
    __atomic_store_n (&track->turn_seq, last, __ATOMIC_RELAXED);
    newest = NULL;
  } else if (newest && last < __atomic_load_n (&track->turn_seq,
          __ATOMIC_RELAXED) + turn_every (frame_bytes)) {
    newest = NULL;
  }
  if (newest)
    gst_pinned_fence_ref (newest);
  g_mutex_unlock (&track->lock);

  if (newest == NULL)
    return TRUE;
  thread_waits.turns++;
  ok = gate_wait (newest, 0, GST_PINNED_WAIT_TURN, error);
  __atomic_store_n (&track->turn_seq, last, __ATOMIC_RELAXED);
  gst_pinned_fence_unref (newest);
  return ok;
}

void
gst_pinned_fence_wait_get_thread_waits (GstPinnedThreadWaits * waits)
{
  *waits = thread_waits;
}
