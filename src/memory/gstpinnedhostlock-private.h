/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: host memory page-locked and unlocked, counted
 * (gstpinnedhostlock.c). */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

/* Host memory page-locked and unlocked the one way gst-pinned does it,
 * counted (gst_pinned_host_lock_get_bytes()): cudaHostAlloc()
 * and cudaFreeHost() of @size bytes; cudaHostRegister() of @size bytes
 * that are there and cudaHostUnregister(). The caller made a context
 * current. */
G_GNUC_INTERNAL
gboolean             gst_pinned_host_lock_alloc     (gpointer * data,
                                                     gsize size,
                                                     guint flags,
                                                     GError ** error);

G_GNUC_INTERNAL
void                 gst_pinned_host_lock_free      (gpointer data,
                                                     gsize size);

G_GNUC_INTERNAL
gboolean             gst_pinned_host_lock_register  (gpointer data,
                                                     gsize size,
                                                     guint flags,
                                                     GError ** error);

G_GNUC_INTERNAL
void                 gst_pinned_host_lock_unregister (gpointer data,
                                                     gsize size);

/* The bytes page-locked through these calls in this process now (see
 * gst_pinned_host_memory_get_locked_bytes()). */
G_GNUC_INTERNAL
guint64              gst_pinned_host_lock_get_bytes (void);

G_END_DECLS
