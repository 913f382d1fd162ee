/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal, ground floor: what every file of the library uses.
 * Nothing here is installed. Internal calls of one type are declared in
 * that type's own private header (gstpinnedstream-private.h, ...), so that
 * a file includes only the types below it. */

#pragma once

#include "gst/pinned/gstpinnedcuda.h"

G_BEGIN_DECLS

/* The function @init that initialises category @cat on first use. */
#define GST_PINNED_DEBUG_INIT_FUNC(scope, init, cat, name, description)   \
  scope void                                                              \
  init (void)                                                             \
  {                                                                       \
    static gsize once = 0;                                                \
    if (g_once_init_enter (&once)) {                                      \
      GST_DEBUG_CATEGORY_INIT (cat, name, 0, description);                \
      g_once_init_leave (&once, 1);                                       \
    }                                                                     \
  }

/* Each file logs into its own category; this defines it and a function that
 * initialises it on first use, for files without a class_init to do it. */
#define GST_PINNED_DEBUG_CATEGORY(cat, name, description)                 \
  GST_DEBUG_CATEGORY_STATIC (cat);                                        \
  GST_PINNED_DEBUG_INIT_FUNC (static, ensure_debug_category, cat, name,   \
      description)

/* A category that the files of one concept share (declared with
 * GST_DEBUG_CATEGORY_EXTERN and @init in their private header), so that
 * users' GST_DEBUG lines keep working where code moves between them. */
#define GST_PINNED_DEBUG_CATEGORY_SHARED(cat, name, description, init)    \
  GST_DEBUG_CATEGORY (cat);                                               \
  GST_PINNED_DEBUG_INIT_FUNC (, init, cat, name, description)

/* The value of the project's environment variable @name (GST_PINNED_...),
 * or %NULL where it is unset or empty (gstpinnedenv.c). */
G_GNUC_INTERNAL
const gchar *        gst_pinned_env_get             (const gchar * name);

/* What a variable's value (%NULL where unset or empty) sets. */
typedef gsize (*GstPinnedEnvParse) (const gchar * value);

/* Host memory page-locked and unlocked the one way gst-pinned does it,
 * counted for gst_pinned_host_memory_get_locked_bytes(): cudaHostAlloc()
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

/* Reads @name once for the life of the process: @cache, a static that is
 * 0 at first, keeps what @parse made of it. */
G_GNUC_INTERNAL
gsize                gst_pinned_env_once            (gsize * cache,
                                                     const gchar * name,
                                                     GstPinnedEnvParse parse);

G_END_DECLS
