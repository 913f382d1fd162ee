/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned-prelude.h>
#include <gst/pinned/gstpinnedstream.h>

G_BEGIN_DECLS

typedef struct _GstPinnedSpan GstPinnedSpan;

GST_PINNED_API
gboolean         gst_pinned_timeline_start     (const gchar * path,
                                                guint max_spans);

GST_PINNED_API
gboolean         gst_pinned_timeline_stop      (void);

GST_PINNED_API
gboolean         gst_pinned_timeline_flush     (void);

GST_PINNED_API
GstPinnedSpan *  gst_pinned_timeline_begin     (GstPinnedStream * stream,
                                                const gchar * track,
                                                const gchar * name);

GST_PINNED_API
void             gst_pinned_timeline_end       (GstPinnedSpan * span);

G_END_DECLS
