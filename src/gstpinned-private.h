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

/* Each file logs into its own category; this defines it and a function that
 * initialises it on first use, for files without a class_init to do it. */
#define GST_PINNED_DEBUG_CATEGORY(cat, name, description)                 \
  GST_DEBUG_CATEGORY_STATIC (cat);                                        \
  static void                                                             \
  ensure_debug_category (void)                                            \
  {                                                                       \
    static gsize once = 0;                                                \
    if (g_once_init_enter (&once)) {                                      \
      GST_DEBUG_CATEGORY_INIT (cat, name, 0, description);                \
      g_once_init_leave (&once, 1);                                       \
    }                                                                     \
  }

G_END_DECLS
