/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedwindow
 * @title: GstPinnedWindow
 * @short_description: frames whose GPU work is in flight, let go in order
 *
 * A window holds up to a few buffers whose GPU work (a copy into them, a
 * copy or kernel that reads them) was enqueued but may still run, and lets
 * each go, in order, once the fences of its `fenced` buffer have signalled:
 *
 * - Given a buffer to push, it pushes it on the window's pad from a task of
 *   its own: a buffer reaches downstream only complete. This is for
 *   consumers that cannot wait for a fence, such as GStreamer 1.22's
 *   nvcodec elements, which read CUDA memory at push time. The streaming
 *   thread does not wait: it enqueues frame N + 1's copy while the task
 *   waits for frame N's, so the copy engine stays busy, and it blocks only
 *   when @size frames are in flight.
 * - Given none, it only holds the fenced buffer (say an input that a copy
 *   still reads, so that its pool does not hand it out again before the
 *   copy is done) and drops it from the task as soon as its work is done.
 *
 * An element drains the window before it forwards a serialized event (so
 * that buffers and events stay in order), flushes it on FLUSH_START and
 * stops it before its pads are deactivated.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedwindow.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_window_debug);
#define GST_CAT_DEFAULT gst_pinned_window_debug

typedef struct
{
  GstBuffer *buffer;
  GstBuffer *fenced;
} Entry;

struct _GstPinnedWindow
{
  GstObject parent;

  GstPad *pad;
  guint size;

  GMutex lock;
  GCond cond;
  GQueue entries;
  /* The task took an entry and has not pushed it yet. */
  gboolean busy;
  gboolean flushing;
  GstFlowReturn last_ret;

  GstTask *task;
  GRecMutex task_lock;
};

#define gst_pinned_window_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedWindow, gst_pinned_window, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_window_debug, "pinnedwindow", 0,
        "gst-pinned in-flight window"));

static void
entry_free (Entry * entry)
{
  /* Dropping the fenced buffer waits for its GPU work, if any is left. */
  gst_clear_buffer (&entry->fenced);
  gst_clear_buffer (&entry->buffer);
  g_free (entry);
}

/* The frame's GPU work, each of its memories' (as gst_pinned_buffer_wait()
 * for READWRITE), before it is pushed. */
static gboolean
wait_for_push (GstBuffer * buffer, GError ** error)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_pinned_memory (mem) &&
        !gst_pinned_host_wait_for_push ((GstPinnedMemory *) mem, error))
      return FALSE;
  }
  return TRUE;
}

static void
gst_pinned_window_loop (GstPinnedWindow * self)
{
  GError *error = NULL;
  GstElement *parent;
  GstFlowReturn ret;
  Entry *entry;

  g_mutex_lock (&self->lock);
  while (g_queue_is_empty (&self->entries) && !self->flushing)
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing) {
    /* Under the lock, as the task's other state changes: a push after the
     * flush starts it again, a stop is not undone. */
    if (gst_task_get_state (self->task) == GST_TASK_STARTED)
      gst_task_pause (self->task);
    g_mutex_unlock (&self->lock);
    return;
  }
  entry = g_queue_pop_head (&self->entries);
  self->busy = TRUE;
  g_mutex_unlock (&self->lock);

  /* The host waits here, not the streaming thread. */
  if (wait_for_push (entry->fenced, &error)) {
    gst_clear_buffer (&entry->fenced);
    /* A flush came while the frame's copy ran: the frame is from before
     * it, dropped as the queued ones were. set_flushing (FALSE) waits for
     * this, so that no such frame follows a flush. */
    g_mutex_lock (&self->lock);
    if (self->flushing)
      gst_clear_buffer (&entry->buffer);
    g_mutex_unlock (&self->lock);
    if (entry->buffer) {
      GST_LOG_OBJECT (self, "pushing %" GST_PTR_FORMAT, entry->buffer);
      ret = gst_pad_push (self->pad, g_steal_pointer (&entry->buffer));
    } else {
      ret = GST_FLOW_OK;
    }
  } else {
    GST_ERROR_OBJECT (self, "waiting for a frame's GPU work failed: %s",
        error->message);
    parent = self->pad ? gst_pad_get_parent_element (self->pad) : NULL;
    if (parent) {
      GST_PINNED_ELEMENT_ERROR (parent, error, "GPU work on a frame failed");
      gst_object_unref (parent);
    }
    g_clear_error (&error);
    ret = GST_FLOW_ERROR;
  }
  entry_free (entry);

  g_mutex_lock (&self->lock);
  self->busy = FALSE;
  if (ret != GST_FLOW_OK) {
    /* Upstream learns it from its next push; a flush clears it. */
    GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
    if (self->last_ret == GST_FLOW_OK)
      self->last_ret = ret;
    if (gst_task_get_state (self->task) == GST_TASK_STARTED)
      gst_task_pause (self->task);
  }
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/**
 * gst_pinned_window_new:
 * @pad: (nullable): the source pad to push on, or %NULL for a window that
 *   only holds buffers
 * @size: how many buffers may be in flight, at least 1
 *
 * Returns: (transfer full): a new #GstPinnedWindow
 *
 * Since: 0.1
 */
GstPinnedWindow *
gst_pinned_window_new (GstPad * pad, guint size)
{
  GstPinnedWindow *self;

  g_return_val_if_fail (pad == NULL || GST_IS_PAD (pad), NULL);
  g_return_val_if_fail (size > 0, NULL);

  self = g_object_new (GST_TYPE_PINNED_WINDOW, NULL);
  gst_object_ref_sink (self);
  self->size = size;
  self->pad = pad ? gst_object_ref (pad) : NULL;
  self->task = gst_task_new ((GstTaskFunction) gst_pinned_window_loop, self,
      NULL);
  gst_task_set_lock (self->task, &self->task_lock);

  return self;
}

/**
 * gst_pinned_window_push:
 * @window: a #GstPinnedWindow
 * @buffer: (transfer full) (nullable): what to push on the window's pad
 *   once @fenced is idle, or %NULL to only hold @fenced until then
 * @fenced: (transfer full): the buffer whose fences tell when the GPU work
 *   is done (@buffer itself, or a gst-pinned view of it)
 *
 * Adds a frame to the window; blocks while the window is full.
 *
 * Returns: %GST_FLOW_OK, %GST_FLOW_FLUSHING while flushing, or the flow
 *   return of an earlier push downstream that failed
 *
 * Since: 0.1
 */
GstFlowReturn
gst_pinned_window_push (GstPinnedWindow * self, GstBuffer * buffer,
    GstBuffer * fenced)
{
  GstFlowReturn ret = GST_FLOW_OK;
  Entry *entry;

  g_return_val_if_fail (GST_IS_PINNED_WINDOW (self), GST_FLOW_ERROR);
  g_return_val_if_fail (GST_IS_BUFFER (fenced), GST_FLOW_ERROR);
  g_return_val_if_fail (buffer == NULL || self->pad != NULL, GST_FLOW_ERROR);

  entry = g_new0 (Entry, 1);
  entry->buffer = buffer;
  entry->fenced = fenced;

  g_mutex_lock (&self->lock);
  while (!self->flushing && self->last_ret == GST_FLOW_OK &&
      self->entries.length + (self->busy ? 1 : 0) >= self->size)
    g_cond_wait (&self->cond, &self->lock);

  if (self->flushing)
    ret = GST_FLOW_FLUSHING;
  else if (self->last_ret != GST_FLOW_OK)
    ret = self->last_ret;

  if (ret == GST_FLOW_OK) {
    g_queue_push_tail (&self->entries, entry);
    entry = NULL;
    g_cond_broadcast (&self->cond);
    if (gst_task_get_state (self->task) != GST_TASK_STARTED)
      gst_task_start (self->task);
  }
  g_mutex_unlock (&self->lock);

  if (entry) {
    GST_DEBUG_OBJECT (self, "not taken: %s", gst_flow_get_name (ret));
    entry_free (entry);
  }

  return ret;
}

/**
 * gst_pinned_window_drain:
 * @window: a #GstPinnedWindow
 *
 * Blocks until every buffer of the window is pushed or, if only held,
 * dropped once its work is done.
 *
 * Returns: %GST_FLOW_OK, %GST_FLOW_FLUSHING, or the flow return of a push
 *   downstream that failed
 *
 * Since: 0.1
 */
GstFlowReturn
gst_pinned_window_drain (GstPinnedWindow * self)
{
  GstFlowReturn ret;

  g_return_val_if_fail (GST_IS_PINNED_WINDOW (self), GST_FLOW_ERROR);

  g_mutex_lock (&self->lock);
  while (!self->flushing && self->last_ret == GST_FLOW_OK &&
      (!g_queue_is_empty (&self->entries) || self->busy))
    g_cond_wait (&self->cond, &self->lock);
  ret = self->flushing ? GST_FLOW_FLUSHING : self->last_ret;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * gst_pinned_window_set_flushing:
 * @window: a #GstPinnedWindow
 * @flushing: %TRUE on FLUSH_START, %FALSE on FLUSH_STOP
 *
 * Flushing drops the buffers of the window (their GPU work finishes
 * first), the one its task has taken too, makes gst_pinned_window_push()
 * refuse new ones and wakes up a push that waits. Ending it waits until
 * the task has dropped the buffer it took, and clears an earlier flow
 * error.
 *
 * Since: 0.1
 */
void
gst_pinned_window_set_flushing (GstPinnedWindow * self, gboolean flushing)
{
  GQueue dropped = G_QUEUE_INIT;

  g_return_if_fail (GST_IS_PINNED_WINDOW (self));

  g_mutex_lock (&self->lock);
  /* The frame the task took before the flush is dropped, not pushed after
   * it. */
  while (!flushing && self->flushing && self->busy)
    g_cond_wait (&self->cond, &self->lock);
  self->flushing = flushing;
  if (flushing) {
    dropped = self->entries;
    g_queue_init (&self->entries);
  } else {
    self->last_ret = GST_FLOW_OK;
  }
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  if (dropped.length)
    GST_DEBUG_OBJECT (self, "dropping %u buffers", dropped.length);
  g_queue_clear_full (&dropped, (GDestroyNotify) entry_free);
}

/**
 * gst_pinned_window_stop:
 * @window: a #GstPinnedWindow
 *
 * Flushes the window and stops its task, waiting for it to end. Call it
 * before the pad is deactivated, from another thread than the task's.
 *
 * Since: 0.1
 */
void
gst_pinned_window_stop (GstPinnedWindow * self)
{
  g_return_if_fail (GST_IS_PINNED_WINDOW (self));

  gst_pinned_window_set_flushing (self, TRUE);
  g_mutex_lock (&self->lock);
  gst_task_stop (self->task);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  gst_task_join (self->task);
}

/**
 * gst_pinned_window_get_pending:
 * @window: a #GstPinnedWindow
 *
 * Returns: how many buffers the window holds now (pushed ones excluded)
 *
 * Since: 0.1
 */
guint
gst_pinned_window_get_pending (GstPinnedWindow * self)
{
  guint n;

  g_return_val_if_fail (GST_IS_PINNED_WINDOW (self), 0);

  g_mutex_lock (&self->lock);
  n = self->entries.length + (self->busy ? 1 : 0);
  g_mutex_unlock (&self->lock);

  return n;
}

static void
gst_pinned_window_dispose (GObject * object)
{
  GstPinnedWindow *self = GST_PINNED_WINDOW (object);

  if (self->task) {
    gst_pinned_window_stop (self);
    gst_clear_object (&self->task);
  }
  gst_clear_object (&self->pad);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_pinned_window_finalize (GObject * object)
{
  GstPinnedWindow *self = GST_PINNED_WINDOW (object);

  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_rec_mutex_clear (&self->task_lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_window_class_init (GstPinnedWindowClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->dispose = gst_pinned_window_dispose;
  gobject_class->finalize = gst_pinned_window_finalize;
}

static void
gst_pinned_window_init (GstPinnedWindow * self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->entries);
  g_rec_mutex_init (&self->task_lock);
  self->last_ret = GST_FLOW_OK;
}
