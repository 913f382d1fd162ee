/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The batch queue of a copy element: frames of gst-pinned memory whose
 * copies are only noted, then enqueued together in one call with one
 * fence; their outputs held until then and pushed in order; and the
 * timer thread that sends a partial batch on when the batch clock rings
 * it (gstpinnedbatchclock.c). Its lock is the timer's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedbatchqueue-private.h"
#include "element/gstpinnedbatchclock-private.h"
#include "gst/pinned/gstpinnedmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_batch_queue_debug);
#define GST_CAT_DEFAULT gst_pinned_batch_queue_debug

struct _GstPinnedBatchQueue
{
  GstBaseTransform *element;
  GstPinnedBatchQueuePush push;

  /* The streaming thread's: frames a batch (1: none), chosen at caps
   * time; the batch; the outputs whose copies it holds, and outputs whose
   * copies are enqueued, to push in order; the output that
   * gst_pinned_batch_queue_add() just batched. */
  guint frames;
  GstPinnedTransferBatch *pending;
  GQueue held;
  GQueue ready;
  GstBuffer *batched;

  /* The timer: a thread that pushes a partial batch whose first frame
   * came batch-timeout ago (@held_since, atomic, monotonic us; 0: none
   * held; each start later than the one before, @last_since), once the
   * clock's @watch rang it (@late: that start). */
  GThread *timer;
  GstPinnedBatchWatch *watch;
  GMutex lock;
  GCond cond;
  gboolean stop;
  gint64 late;
  gint64 held_since;
  gint64 last_since;
};

GstPinnedBatchQueue *
gst_pinned_batch_queue_new (GstBaseTransform * element,
    GstPinnedBatchQueuePush push)
{
  static gsize once = 0;
  GstPinnedBatchQueue *batch = g_new0 (GstPinnedBatchQueue, 1);

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_pinned_batch_queue_debug, "pinnedbatchqueue",
        0, "gst-pinned batches of copies");
    g_once_init_leave (&once, 1);
  }

  batch->element = element;
  batch->push = push;
  batch->frames = 1;
  g_queue_init (&batch->held);
  g_queue_init (&batch->ready);
  g_mutex_init (&batch->lock);
  g_cond_init (&batch->cond);
  return batch;
}

void
gst_pinned_batch_queue_free (GstPinnedBatchQueue * batch)
{
  gst_pinned_batch_queue_stop_timer (batch);
  gst_pinned_batch_queue_drop (batch);
  gst_pinned_transfer_batch_free (batch->pending);
  g_mutex_clear (&batch->lock);
  g_cond_clear (&batch->cond);
  g_free (batch);
}

guint
gst_pinned_batch_queue_get_frames (GstPinnedBatchQueue * batch)
{
  return batch->frames;
}

gboolean
gst_pinned_batch_queue_flush (GstPinnedBatchQueue * batch,
    GstPinnedStream * stream, GstPinnedStats * stats,
    GstPinnedContext * context, GError ** error)
{
  GstPinnedTransferReport report = { NULL, };
  guint frames;
  gboolean timed, ok;
  GstBuffer *buf;

  if (batch->pending == NULL ||
      (frames = gst_pinned_transfer_batch_get_frames (batch->pending)) == 0)
    return TRUE;

  timed = gst_pinned_stats_timer_begin (stats, context, &report.start,
      &report.end);
  ok = gst_pinned_transfer_batch_flush (batch->pending, stream, &report, error);
  gst_pinned_stats_timer_end (stats, timed && ok, frames);
  GST_PINNED_STAT_ADD (stats->batch_calls, report.batch_calls);

  __atomic_store_n (&batch->held_since, 0, __ATOMIC_SEQ_CST);
  while ((buf = g_queue_pop_head (&batch->held))) {
    if (ok)
      g_queue_push_tail (&batch->ready, buf);
    else
      gst_buffer_unref (buf);
  }
  return ok;
}

void
gst_pinned_batch_queue_drop (GstPinnedBatchQueue * batch)
{
  if (batch->pending)
    gst_pinned_transfer_batch_clear (batch->pending);
  g_queue_clear_full (&batch->held, (GDestroyNotify) gst_buffer_unref);
  g_queue_clear_full (&batch->ready, (GDestroyNotify) gst_buffer_unref);
  batch->batched = NULL;
  __atomic_store_n (&batch->held_since, 0, __ATOMIC_SEQ_CST);
}

GstBuffer *
gst_pinned_batch_queue_pop_ready (GstPinnedBatchQueue * batch)
{
  return g_queue_pop_head (&batch->ready);
}

/* The first frame of a batch is held: the clock counts from now. */
static void
batch_started (GstPinnedBatchQueue * batch)
{
  if (batch->watch == NULL)
    return;
  /* The clock rings each start once: no two alike. */
  batch->last_since = MAX (g_get_monotonic_time (), batch->last_since + 1);
  __atomic_store_n (&batch->held_since, batch->last_since, __ATOMIC_SEQ_CST);
  gst_pinned_batch_clock_started (batch->watch);
}

gboolean
gst_pinned_batch_queue_hold (GstPinnedBatchQueue * batch, GstBuffer ** outbuf)
{
  gboolean full = FALSE;

  if (outbuf == NULL) {
    /* No output: an error. */
  } else if (*outbuf != NULL && *outbuf == batch->batched) {
    /* Held until its batch is enqueued. */
    g_queue_push_tail (&batch->held, *outbuf);
    *outbuf = NULL;
    if (g_queue_get_length (&batch->held) == 1)
      batch_started (batch);
    full = gst_pinned_transfer_batch_get_frames (batch->pending) >=
        batch->frames || gst_pinned_transfer_batch_ends_block (batch->pending);
  } else if (*outbuf != NULL && !g_queue_is_empty (&batch->ready)) {
    /* A frame copied alone, behind the batch flushed before it. */
    g_queue_push_tail (&batch->ready, *outbuf);
    *outbuf = NULL;
  }
  batch->batched = NULL;
  return full;
}

/* Pushes the partial batch, where it is still the one that timed out,
 * with the stream lock (as the streaming thread would); the lock is only
 * tried, so that a stop that holds it never waits for this thread. The
 * streaming thread may hold it for long (blocked pushing the frames before
 * the batch into a paused sink): the tries back off to 20 ms apart. */
static void
batch_timed_out (GstPinnedBatchQueue * batch, gint64 since)
{
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (batch->element);
  gint64 backoff = 100;

  while (!GST_PAD_STREAM_TRYLOCK (sinkpad)) {
    gint64 until = g_get_monotonic_time () + backoff;

    backoff = MIN (backoff * 2, 20 * 1000);

    g_mutex_lock (&batch->lock);
    if (!batch->stop)
      g_cond_wait_until (&batch->cond, &batch->lock, until);
    if (batch->stop ||
        __atomic_load_n (&batch->held_since, __ATOMIC_SEQ_CST) != since) {
      g_mutex_unlock (&batch->lock);
      return;
    }
    g_mutex_unlock (&batch->lock);
  }
  if (__atomic_load_n (&batch->held_since, __ATOMIC_SEQ_CST) == since) {
    GST_LOG_OBJECT (batch->element, "batch timed out with %u frames",
        g_queue_get_length (&batch->held));
    batch->push (batch->element);
  }
  GST_PAD_STREAM_UNLOCK (sinkpad);
}

/* The clock's ring: the batch that started at @since is late. */
static void
batch_ring (gpointer data, gint64 since)
{
  GstPinnedBatchQueue *batch = data;

  g_mutex_lock (&batch->lock);
  batch->late = since;
  g_cond_signal (&batch->cond);
  g_mutex_unlock (&batch->lock);
}

static gpointer
batch_timer_loop (gpointer data)
{
  GstPinnedBatchQueue *batch = data;

  g_mutex_lock (&batch->lock);
  while (!batch->stop) {
    gint64 since = batch->late;

    if (since == 0) {
      g_cond_wait (&batch->cond, &batch->lock);
      continue;
    }
    batch->late = 0;
    g_mutex_unlock (&batch->lock);
    batch_timed_out (batch, since);
    g_mutex_lock (&batch->lock);
  }
  g_mutex_unlock (&batch->lock);

  return NULL;
}

void
gst_pinned_batch_queue_set_frames (GstPinnedBatchQueue * batch, guint frames,
    guint64 timeout_us)
{
  batch->frames = frames;
  if (batch->timer || timeout_us == 0 || frames < 2)
    return;

  batch->stop = FALSE;
  batch->late = 0;
  batch->timer = g_thread_new ("pinned-batch", batch_timer_loop, batch);
  batch->watch = gst_pinned_batch_clock_watch (&batch->held_since,
      (gint64) MIN (timeout_us, G_MAXINT64 / 2), batch_ring, batch);
}

void
gst_pinned_batch_queue_stop_timer (GstPinnedBatchQueue * batch)
{
  if (batch->timer == NULL)
    return;
  /* First the clock: no ring after it. */
  gst_pinned_batch_clock_unwatch (batch->watch);
  batch->watch = NULL;
  g_mutex_lock (&batch->lock);
  batch->stop = TRUE;
  g_cond_signal (&batch->cond);
  g_mutex_unlock (&batch->lock);
  g_thread_join (batch->timer);
  batch->timer = NULL;
}

gboolean
gst_pinned_batch_queue_add (GstPinnedBatchQueue * batch,
    GstPinnedStream * stream, const GstVideoInfo * info, GstBuffer * src,
    GstBuffer * outbuf, gboolean * added, guint64 * bytes, GError ** error)
{
  *added = FALSE;
  /* What a batch cannot take is copied at once, without mapping it twice. */
  if (batch->frames < 2 || stream == NULL ||
      !gst_pinned_transfer_batch_takes (src) ||
      !gst_pinned_transfer_batch_takes (outbuf))
    return TRUE;

  if (batch->pending == NULL)
    batch->pending = gst_pinned_transfer_batch_new ();
  if (!gst_pinned_transfer_batch_add (batch->pending, stream, info, src,
          outbuf, added, bytes, error))
    return FALSE;
  if (*added)
    batch->batched = outbuf;
  return TRUE;
}
