/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A batch's frames (see gstpinnedbatchframes.c). */

#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/pinned/pinned.h>

#include "gstpinnedbatchpad.h"

G_BEGIN_DECLS

GstClockTime  gst_pinned_batch_frames_next_time (GstAggregator * agg);

GstFlowReturn gst_pinned_batch_frames_take      (GPtrArray * pads,
                                                 guint n,
                                                 guint * next_pad,
                                                 GstPinnedBatchFrame * frames,
                                                 guint * n_taken);

gboolean      gst_pinned_batch_frames_prepare   (GstPinnedBatchFrame * frames,
                                                 PinnedBatchSlot * slots,
                                                 guint n,
                                                 GstPinnedStream * stream,
                                                 GstAllocator * device_allocator,
                                                 gint width,
                                                 gint height,
                                                 gboolean letterbox,
                                                 GError ** error);

GstClockTime  gst_pinned_batch_frames_finish    (GstPinnedBatchFrame * frames,
                                                 const PinnedBatchSlot * slots,
                                                 guint n,
                                                 GstBuffer * out,
                                                 GstPinnedFence * fence);

void          gst_pinned_batch_frames_release   (GstPinnedBatchFrame * frames,
                                                 guint n,
                                                 GstPinnedWindow ** held);

void          gst_pinned_batch_frames_drop_held (GstPinnedWindow ** held);

G_END_DECLS
