/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The process's batch clock: one thread that watches every element's
 * partial batch and rings the element only when its batch is late. Each
 * element's timer, waking at its batches' deadlines, cost wake-ups even
 * where the batches had filled in time (about 1.5 a frame at 64 round
 * trips); the clock wakes at most once a tick however many elements
 * batch, and the elements' timers sleep until a ring. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbatchclock-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_batch_clock_debug, "pinnedbatchclock",
    "gst-pinned batch clock");
#define GST_CAT_DEFAULT gst_pinned_batch_clock_debug

/* The clock looks at most every tick: half the shortest batch-timeout
 * watched, within these bounds. A late batch rings up to a tick late. */
#define MAX_TICK_US 500
#define MIN_TICK_US 50

struct _GstPinnedBatchWatch
{
  const gint64 *since;
  gint64 timeout_us;
  GstPinnedBatchQueueRing ring;
  gpointer data;
  /* The clock's: the start it rang for. */
  gint64 rung;
};

/* The lock orders the watches and the thread; @wake_at (atomic) is when
 * the clock will look next (G_MAXINT64: it idles until a start). The
 * thread runs while anything is watched: each thread has a generation, so
 * that one that is leaving never outlives its successor's start. */
static struct
{
  GMutex lock;
  GCond cond;
  GPtrArray *watches;
  GThread *thread;
  guint generation;
  gint64 wake_at;
} the_clock;

/* Rings every watch whose batch is late; returns the earliest deadline of
 * the others (0: none pending) and in @tick how often to look. */
static gint64
clock_look (gint64 * tick)
{
  gint64 now = g_get_monotonic_time (), next = 0;
  guint i;

  *tick = MAX_TICK_US;
  for (i = 0; i < the_clock.watches->len; i++) {
    GstPinnedBatchWatch *w = g_ptr_array_index (the_clock.watches, i);
    gint64 since = __atomic_load_n (w->since, __ATOMIC_SEQ_CST);
    gint64 deadline = since + w->timeout_us;

    *tick = MIN (*tick, MAX (w->timeout_us / 2, MIN_TICK_US));
    if (since == 0 || since == w->rung)
      continue;
    if (deadline <= now) {
      w->rung = since;
      w->ring (w->data, since);
    } else if (next == 0 || deadline < next) {
      next = deadline;
    }
  }
  GST_LOG ("looked at %u batches, next deadline in %" G_GINT64_FORMAT " us",
      the_clock.watches->len, next ? next - now : -1);
  return next;
}

static gpointer
clock_loop (gpointer data)
{
  guint generation = GPOINTER_TO_UINT (data);
  gboolean quiet = FALSE;

  g_mutex_lock (&the_clock.lock);
  while (the_clock.generation == generation) {
    gint64 tick, first = clock_look (&tick), next, wake;

    if (first != 0) {
      quiet = FALSE;
      wake = MAX (first, g_get_monotonic_time () + tick);
    } else if (!quiet) {
      /* Idle only after a tick without a batch: while frames stream, the
       * next batch starts right after a flush, and waking the clock for
       * each would cost a system call a batch. */
      quiet = TRUE;
      wake = g_get_monotonic_time () + tick;
    } else {
      wake = G_MAXINT64;
    }
    __atomic_store_n (&the_clock.wake_at, wake, __ATOMIC_SEQ_CST);
    /* Then look again: a start that did not see @wake_at yet is seen here
     * (it sets its time, then reads @wake_at), where its deadline comes
     * before the one the clock sleeps for. */
    next = clock_look (&tick);
    if (next != 0 && next < wake && (first == 0 || next < first))
      continue;
    if (wake == G_MAXINT64)
      g_cond_wait (&the_clock.cond, &the_clock.lock);
    else
      g_cond_wait_until (&the_clock.cond, &the_clock.lock, wake);
  }
  g_mutex_unlock (&the_clock.lock);

  return NULL;
}

GstPinnedBatchWatch *
gst_pinned_batch_clock_watch (const gint64 * since, gint64 timeout_us,
    GstPinnedBatchQueueRing ring, gpointer data)
{
  GstPinnedBatchWatch *watch = g_new0 (GstPinnedBatchWatch, 1);

  ensure_debug_category ();
  watch->since = since;
  watch->timeout_us = timeout_us;
  watch->ring = ring;
  watch->data = data;

  g_mutex_lock (&the_clock.lock);
  if (the_clock.watches == NULL)
    the_clock.watches = g_ptr_array_new ();
  g_ptr_array_add (the_clock.watches, watch);
  if (the_clock.thread == NULL) {
    the_clock.generation++;
    the_clock.thread = g_thread_new ("pinned-clock", clock_loop,
        GUINT_TO_POINTER (the_clock.generation));
    GST_DEBUG ("started, watching %p", watch);
  }
  /* Its tick may be shorter than the one the clock sleeps. */
  g_cond_signal (&the_clock.cond);
  g_mutex_unlock (&the_clock.lock);

  return watch;
}

void
gst_pinned_batch_clock_started (GstPinnedBatchWatch * watch)
{
  gint64 deadline = __atomic_load_n (watch->since, __ATOMIC_SEQ_CST) +
      watch->timeout_us;

  if (deadline >= __atomic_load_n (&the_clock.wake_at, __ATOMIC_SEQ_CST))
    return;
  g_mutex_lock (&the_clock.lock);
  g_cond_signal (&the_clock.cond);
  g_mutex_unlock (&the_clock.lock);
}

void
gst_pinned_batch_clock_unwatch (GstPinnedBatchWatch * watch)
{
  GThread *thread = NULL;

  if (watch == NULL)
    return;

  g_mutex_lock (&the_clock.lock);
  g_ptr_array_remove_fast (the_clock.watches, watch);
  if (the_clock.watches->len == 0) {
    /* The last: the thread goes, so that none outlives the elements. */
    thread = the_clock.thread;
    the_clock.thread = NULL;
    the_clock.generation++;
    g_cond_broadcast (&the_clock.cond);
  }
  g_mutex_unlock (&the_clock.lock);

  if (thread) {
    g_thread_join (thread);
    GST_DEBUG ("stopped");
  }
  g_free (watch);
}
