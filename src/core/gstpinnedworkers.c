/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Worker threads joined when freed. A GThreadPool's threads end after
 * g_thread_pool_free() has returned (or, since GLib 2.80, stay on as
 * GLib's idle threads): an element's threads would outlive it, and
 * whoever counts a process's threads, or checks its memory for leaks
 * while one of them is still ending, sees them. These end before
 * gst_pinned_workers_free() returns. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "core/gstpinnedworkers-private.h"

struct _GstPinnedWorkers
{
  GAsyncQueue *queue;
  GFunc func;
  GThread **threads;
  guint n;
};

static gpointer
worker_loop (gpointer data)
{
  GstPinnedWorkers *workers = data;

  for (;;) {
    gpointer item = g_async_queue_pop (workers->queue);

    /* The workers themselves are the stop mark, one a thread. */
    if (item == workers)
      return NULL;
    workers->func (item, NULL);
  }
}

GstPinnedWorkers *
gst_pinned_workers_new (const gchar * name, guint n, GFunc func)
{
  GstPinnedWorkers *workers = g_new0 (GstPinnedWorkers, 1);
  guint i;

  workers->queue = g_async_queue_new ();
  workers->func = func;
  workers->threads = g_new0 (GThread *, n);
  /* As many as the system gives: the caller asks how many. */
  for (i = 0; i < n; i++) {
    workers->threads[i] = g_thread_try_new (name, worker_loop, workers, NULL);
    if (workers->threads[i] == NULL)
      break;
    workers->n++;
  }
  if (workers->n == 0) {
    gst_pinned_workers_free (workers);
    return NULL;
  }
  return workers;
}

void
gst_pinned_workers_push (GstPinnedWorkers * workers, gpointer item)
{
  g_async_queue_push (workers->queue, item);
}

guint
gst_pinned_workers_get_n (GstPinnedWorkers * workers)
{
  return workers->n;
}

void
gst_pinned_workers_free (GstPinnedWorkers * workers)
{
  guint i;

  /* Behind every item pushed before: each is done first. */
  for (i = 0; i < workers->n; i++)
    g_async_queue_push (workers->queue, workers);
  for (i = 0; i < workers->n; i++)
    g_thread_join (workers->threads[i]);
  g_async_queue_unref (workers->queue);
  g_free (workers->threads);
  g_free (workers);
}
