/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's statistics (see gstpinnedbatchstats.c). */

#pragma once

#include <gst/gst.h>
#include "element/gstpinnedstats-private.h"
#include "gstpinnedbatchdevice.h"
#include "gstpinnedbatchpad.h"

G_BEGIN_DECLS

GParamSpec * gst_pinned_batch_stats_param_spec  (void);

/* Records the timing event before a batch's kernel if this batch is
 * timed; TRUE then. */
gboolean     gst_pinned_batch_stats_time_begin  (GstPinnedStats * stats,
                                                 GstPinnedBatchDevice * device,
                                                 cudaEvent_t * end);

/* The event after the kernel (@launched) of @frames frames */
void         gst_pinned_batch_stats_time_end    (GstPinnedStats * stats,
                                                 GstPinnedBatchDevice * device,
                                                 gboolean timed,
                                                 cudaEvent_t end,
                                                 gboolean launched,
                                                 guint frames);

/* A batch pushed: its @n slots' frames, on @timeout or not */
void         gst_pinned_batch_stats_add_batch   (GstPinnedStats * stats,
                                                 const GstPinnedBatchFrame * frames,
                                                 guint n,
                                                 gboolean timeout);

G_END_DECLS
