/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned.h>

G_BEGIN_DECLS

/* Whether @inbuf has host memory that is not gst-pinned memory */
G_GNUC_INTERNAL
gboolean gst_pinned_upstream_is_pageable (GstBuffer * inbuf);

/* The element that sends @sinkpad's frames, as "name (Type)", seen through
 * ghost pads, queues and capsfilters (" through queue0, ..."). */
G_GNUC_INTERNAL
gchar *  gst_pinned_upstream_name        (GstPad * sinkpad);

G_END_DECLS
