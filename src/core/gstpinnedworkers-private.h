/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: worker threads that are joined when freed
 * (gstpinnedworkers.c). */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

typedef struct _GstPinnedWorkers GstPinnedWorkers;

/* Starts @n threads named @name that call @func (item, NULL) for each item
 * pushed, in the order pushed; %NULL where none could be started. */
G_GNUC_INTERNAL
GstPinnedWorkers *   gst_pinned_workers_new         (const gchar * name,
                                                     guint n,
                                                     GFunc func);

G_GNUC_INTERNAL
void                 gst_pinned_workers_push        (GstPinnedWorkers * workers,
                                                     gpointer item);

/* How many threads were started. */
G_GNUC_INTERNAL
guint                gst_pinned_workers_get_n       (GstPinnedWorkers * workers);

/* Lets the threads finish every item pushed, joins them and frees
 * @workers: when it returns, no thread of theirs exists. */
G_GNUC_INTERNAL
void                 gst_pinned_workers_free        (GstPinnedWorkers * workers);

G_END_DECLS
