/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: which device context an element of the base class
 * joins, and when (gstpinnedelementcontext.c). */

#pragma once

#include <gst/base/gstbasetransform.h>
#include "gst/pinned/gstpinnedcontext.h"

G_BEGIN_DECLS

/* GstElement.set_context(): takes @context where it is a device context
 * (either type) for @device_id, into *@pinned. */
G_GNUC_INTERNAL
void     gst_pinned_element_context_set      (GstElement * element,
                                              GstContext * context,
                                              gint device_id,
                                              GstPinnedContext ** pinned);

/* Answers a context query with @pinned (either type); FALSE where it
 * does not. */
G_GNUC_INTERNAL
gboolean gst_pinned_element_context_query    (GstElement * element,
                                              GstQuery * query,
                                              GstPinnedContext * pinned);

/* Finds a context to share or makes one, into *@pinned. */
G_GNUC_INTERNAL
gboolean gst_pinned_element_context_ensure   (GstElement * element,
                                              gint device_id,
                                              GstPinnedContext ** pinned,
                                              GError ** error);

/* At start: whether the element opens its device now (with *@pinned set
 * where it joins a context found); FALSE: at caps time. */
G_GNUC_INTERNAL
gboolean gst_pinned_element_context_find_at_start (GstBaseTransform * element,
                                                   gint device_id,
                                                   GstPinnedContext ** pinned);

/* At caps time, before the device opens: upstream's context for CUDA
 * memory in @incaps, where *@pinned is not set yet. */
G_GNUC_INTERNAL
void     gst_pinned_element_context_find_for_caps (GstElement * element,
                                                   GstCaps * incaps,
                                                   GstPinnedContext ** pinned);

G_END_DECLS
