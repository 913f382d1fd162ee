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

/**
 * GstPinnedHostFlags:
 * @GST_PINNED_HOST_PORTABLE: usable from every CUDA device
 * @GST_PINNED_HOST_MAPPED: mapped into the device address space (with
 *   unified addressing, the host pointer is the device pointer)
 * @GST_PINNED_HOST_WRITE_COMBINED: write-combined: CPU writes bypass the
 *   caches, CPU reads are very slow
 * @GST_PINNED_HOST_HUGE_PAGES: backed by huge pages, page-locked with
 *   cudaHostRegister()
 *
 * The kind of page-locked memory a #GstPinnedHostAllocator makes.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_HOST_PORTABLE = (1 << 0),
  GST_PINNED_HOST_MAPPED = (1 << 1),
  GST_PINNED_HOST_WRITE_COMBINED = (1 << 2),
  GST_PINNED_HOST_HUGE_PAGES = (1 << 3),
} GstPinnedHostFlags;

/**
 * GST_PINNED_HOST_FLAGS_DEFAULT:
 *
 * Portable, nothing else.
 *
 * Since: 0.1
 */
#define GST_PINNED_HOST_FLAGS_DEFAULT GST_PINNED_HOST_PORTABLE

#define GST_TYPE_PINNED_HOST_FLAGS (gst_pinned_host_flags_get_type ())
GST_PINNED_API
GType           gst_pinned_host_flags_get_type   (void);

#define GST_TYPE_PINNED_HOST_ALLOCATOR (gst_pinned_host_allocator_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedHostAllocator, gst_pinned_host_allocator, GST,
    PINNED_HOST_ALLOCATOR, GstPinnedAllocator);

GST_PINNED_API
GstAllocator *  gst_pinned_host_allocator_new    (GstPinnedContext * context);

GST_PINNED_API
GstAllocator *  gst_pinned_host_allocator_new_full (GstPinnedContext * context,
                                                    GstPinnedHostFlags flags);

GST_PINNED_API
GstPinnedHostFlags gst_pinned_host_allocator_get_flags (GstPinnedHostAllocator * allocator);

GST_PINNED_API
gboolean        gst_is_pinned_host_memory        (GstMemory * mem);

GST_PINNED_API
guint64         gst_pinned_host_memory_get_locked_bytes (void);

G_END_DECLS
