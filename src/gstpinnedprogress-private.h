/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A stream's progress word: see gstpinnedprogress.c. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedcontext.h"

G_BEGIN_DECLS

typedef struct _GstPinnedProgress GstPinnedProgress;

struct _GstPinnedProgress
{
  /* Written by the GPU, read by the host: the highest sequence number
   * whose work has finished on the stream. */
  volatile guint64 *word;
  /* Private to gstpinnedprogress.c from here. */
  gint refcount;
  GMutex lock;
  guint64 submitted;
  gboolean disabled;
  gpointer slab;
};

/* A word for a new stream of @context, or NULL where the GPU cannot write
 * host memory from a stream (no stream memory operations): fences then
 * ask their events. */
G_GNUC_INTERNAL
GstPinnedProgress *  gst_pinned_progress_new       (GstPinnedContext * context);

G_GNUC_INTERNAL
GstPinnedProgress *  gst_pinned_progress_ref       (GstPinnedProgress * progress);

G_GNUC_INTERNAL
void                 gst_pinned_progress_unref     (GstPinnedProgress * progress);

/* With the stream's context current: enqueues on @stream the write of the
 * next sequence number, after the work enqueued so far, and returns it; 0
 * where the word cannot be written (then only the event tells). The
 * caller holds @progress's lock from before this call until its event is
 * recorded too: numbers are enqueued in the order they grow. */
G_GNUC_INTERNAL
guint64              gst_pinned_progress_mark      (GstPinnedProgress * progress,
                                                    gpointer stream);

/* Whether the work before the mark @seq has finished, read from host
 * memory: no driver call. */
static inline gboolean
gst_pinned_progress_reached (GstPinnedProgress * progress, guint64 seq)
{
  return __atomic_load_n (progress->word, __ATOMIC_ACQUIRE) >= seq;
}

G_END_DECLS
