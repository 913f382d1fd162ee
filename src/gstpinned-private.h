/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal declarations: nothing here is installed. */

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

/* Events are created once and recycled: creating one per buffer costs a
 * driver call and shows on the per-buffer path. */
typedef struct _GstPinnedFencePool GstPinnedFencePool;

G_GNUC_INTERNAL
GstPinnedFencePool * gst_pinned_fence_pool_new     (gint device_id);

G_GNUC_INTERNAL
void                 gst_pinned_fence_pool_close   (GstPinnedFencePool * pool);

G_GNUC_INTERNAL
GstPinnedFence *     gst_pinned_fence_pool_acquire (GstPinnedFencePool * pool,
                                                    GError ** error);

G_GNUC_INTERNAL
GstPinnedFencePool * gst_pinned_context_get_fence_pool (GstPinnedContext * context);

G_GNUC_INTERNAL
gboolean             gst_pinned_fence_record       (GstPinnedFence * fence,
                                                    GstPinnedStream * stream,
                                                    GError ** error);

G_GNUC_INTERNAL
guint64              gst_pinned_fence_get_stream_id (GstPinnedFence * fence);

/* One stream per device that elements with shared-stream=true use: their
 * work serialises, the baseline the overlap of own streams is measured
 * against. Made on first use, kept for the life of the process. */
G_GNUC_INTERNAL
GstPinnedStream *    gst_pinned_stream_get_shared  (GstPinnedContext * context,
                                                    GError ** error);

/* Unique for the life of the process, unlike a cudaStream_t. */
G_GNUC_INTERNAL
guint64              gst_pinned_stream_get_id      (GstPinnedStream * stream);

G_END_DECLS
