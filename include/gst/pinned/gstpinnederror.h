/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Element errors in gst-pinned's words, for elements that are no
 * GstPinnedBaseTransform (pinnedbatch, an application's own). */

#pragma once

#include <gst/gst.h>
#include <gst/pinned/pinned-prelude.h>

G_BEGIN_DECLS

GST_PINNED_API
void gst_pinned_error_post_device (GstElement * element,
                                   gint device_id,
                                   GError ** error);

G_END_DECLS
