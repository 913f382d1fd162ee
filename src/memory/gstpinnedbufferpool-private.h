/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: the two buffer pools' layout and their common part
 * (gstpinnedpool.c), for the pools' files. */

#pragma once

#include "memory/gstpinnedmemory-private.h"
#include "gst/pinned/gstpinnedbufferpool.h"

G_BEGIN_DECLS

/* The pools' shared category, "pinnedbufferpool". */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_buffer_pool_debug);

G_GNUC_INTERNAL
void     gst_pinned_pool_init_debug (void);

struct _GstPinnedHostBufferPool
{
  GstVideoBufferPool parent;

  GstPinnedContext *context;
  GstAllocator *allocator;
};

struct _GstPinnedDeviceBufferPool
{
  GstVideoBufferPool parent;

  GstPinnedContext *context;
  GstAllocator *allocator;
};

/* Whoever configures the pool may name another allocator: the pool's own
 * (@own) always wins; then @video_pool_class's set_config(). */
G_GNUC_INTERNAL
gboolean gst_pinned_pool_set_config_with_allocator (GstBufferPool * pool,
                                                    GstStructure * config,
                                                    GstAllocator * own,
                                                    GstBufferPoolClass * video_pool_class);

/* Starts @pool with its minimum of buffers in one block of @allocator;
 * where that block cannot be had, each buffer has its own allocation. */
G_GNUC_INTERNAL
gboolean gst_pinned_pool_start_reserved (GstBufferPool * pool,
                                         GstAllocator * allocator,
                                         GstBufferPoolClass * video_pool_class);

G_END_DECLS
