/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedContext. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedcontext.h"

G_BEGIN_DECLS

/* The context files and the element helpers (gstpinnedcontextutils.c)
 * log as "pinnedcontext"; GstPinnedContext's class init initialises it. */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_context_debug);

#ifdef HAVE_CUDA_INTEROP
/* A context whose work runs in the CUDA driver context @handle (a
 * CUcontext of @device_id) that someone else made; @owner (nullable) keeps
 * it alive and is held as long as the result. */
G_GNUC_INTERNAL
GstPinnedContext * gst_pinned_context_new_for_handle (gint device_id,
                                                       gpointer handle,
                                                       GObject * owner,
                                                       GError ** error);
#endif

G_END_DECLS
