/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal, ground floor, CUDA interop builds only: the few CUDA
 * driver calls gst-pinned makes itself, to run its work in a driver context
 * (a device's primary context, or one that GStreamer's nvcodec elements
 * made). They go through libgstcuda's loader, which opens libcuda.so.1;
 * the two the loader does not wrap are looked up in that library. */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

/* Loads the driver (once) and initialises it. FALSE where there is no
 * driver library or no device: gst-pinned then makes its contexts the
 * runtime's way, as without CUDA interop. */
G_GNUC_INTERNAL
gboolean   gst_pinned_driver_load            (GError ** error);

G_GNUC_INTERNAL
gboolean   gst_pinned_driver_retain_primary  (gint device,
                                              gpointer * cu_context,
                                              GError ** error);

G_GNUC_INTERNAL
void       gst_pinned_driver_release_primary (gint device);

/* Makes @cu_context current on the calling thread, on top of what was. */
G_GNUC_INTERNAL
gboolean   gst_pinned_driver_push            (gpointer cu_context,
                                              GError ** error);

G_GNUC_INTERNAL
void       gst_pinned_driver_pop             (void);

G_END_DECLS
