/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/gstpinnedmemory.h>

G_BEGIN_DECLS

/**
 * GST_PINNED_HOST_MEMORY_TYPE_NAME:
 *
 * The name of the #GstAllocator of page-locked host memory.
 *
 * Since: 0.1
 */
#define GST_PINNED_HOST_MEMORY_TYPE_NAME "PinnedHostMemory"

#define GST_TYPE_PINNED_HOST_ALLOCATOR (gst_pinned_host_allocator_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedHostAllocator, gst_pinned_host_allocator, GST,
    PINNED_HOST_ALLOCATOR, GstPinnedAllocator);

GST_PINNED_API
GstAllocator *  gst_pinned_host_allocator_new    (GstPinnedContext * context);

GST_PINNED_API
gboolean        gst_is_pinned_host_memory        (GstMemory * mem);

G_END_DECLS
