/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/gstpinnedbuffer.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_WINDOW (gst_pinned_window_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedWindow, gst_pinned_window, GST, PINNED_WINDOW,
    GstObject);

GST_PINNED_API
GstPinnedWindow * gst_pinned_window_new          (GstPad * pad,
                                                  guint size);

GST_PINNED_API
GstFlowReturn     gst_pinned_window_push         (GstPinnedWindow * window,
                                                  GstBuffer * buffer,
                                                  GstBuffer * fenced);

GST_PINNED_API
GstFlowReturn     gst_pinned_window_drain        (GstPinnedWindow * window);

GST_PINNED_API
void              gst_pinned_window_set_flushing (GstPinnedWindow * window,
                                                  gboolean flushing);

GST_PINNED_API
void              gst_pinned_window_stop         (GstPinnedWindow * window);

GST_PINNED_API
guint             gst_pinned_window_get_pending  (GstPinnedWindow * window);

G_END_DECLS
