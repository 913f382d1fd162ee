/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: the element errors of gst-pinned's elements
 * (gstpinnederror.c). */

#pragma once

#include "sync/gstpinnedstream-private.h"
#include "gst/pinned/gstpinnedcontext.h"
#include "gst/pinned/gstpinnederror.h"

G_BEGIN_DECLS

/* The element message for a frame that failed (see
 * gst_pinned_base_transform_error_text()): asks @stream (of @context, both
 * nullable) whether the device reports an error of earlier work. */
G_GNUC_INTERNAL
gchar *  gst_pinned_error_frame_text  (GstPinnedStream * stream,
                                       GstPinnedContext * context,
                                       const GError * error,
                                       const gchar * what);

/* Posts the failure of a frame's GPU work as an element error of @element:
 * @what and what the user can do, with the CUDA detail of *@error, which
 * it clears. */
G_GNUC_INTERNAL
void     gst_pinned_error_post_frame  (GstElement * element,
                                       GstPinnedStream * stream,
                                       GstPinnedContext * context,
                                       GError ** error,
                                       const gchar * what);

G_END_DECLS
