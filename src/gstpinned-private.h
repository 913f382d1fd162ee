/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal, ground floor: what every file of the library uses,
 * its debug categories. Nothing here is installed. Internal calls of one
 * family are declared in that family's own private header
 * (core/gstpinnedenv-private.h, sync/gstpinnedstream-private.h, ...), so
 * that a file includes only the families below it. */

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

G_END_DECLS
