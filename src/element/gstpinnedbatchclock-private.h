/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The process's batch clock: one thread that watches every element's
 * partial batch and rings the element only when its batch is late. */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

typedef struct _GstPinnedBatchWatch GstPinnedBatchWatch;

/* Called by the clock, under its lock, once for the batch that started at
 * @since (monotonic us) and is now batch-timeout old: it must not block. */
typedef void (*GstPinnedBatchQueueRing) (gpointer data, gint64 since);

/* Watches *@since (atomic; monotonic us when the current batch started, 0:
 * none) and rings @ring once @timeout_us after each start. */
G_GNUC_INTERNAL
GstPinnedBatchWatch * gst_pinned_batch_clock_watch   (const gint64 * since,
                                                      gint64 timeout_us,
                                                      GstPinnedBatchQueueRing ring,
                                                      gpointer data);

/* A batch started (*since was just set): wakes the clock where it idles. */
G_GNUC_INTERNAL
void                  gst_pinned_batch_clock_started (GstPinnedBatchWatch * watch);

/* Stops watching: no ring is running or comes after it returns. */
G_GNUC_INTERNAL
void                  gst_pinned_batch_clock_unwatch (GstPinnedBatchWatch * watch);

G_END_DECLS
