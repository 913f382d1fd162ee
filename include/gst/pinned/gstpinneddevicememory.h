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
 * GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE:
 *
 * The caps feature of video in gst-pinned's CUDA device memory, as in
 * `video/x-raw(memory:PinnedDevice), format=NV12`.
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE "memory:PinnedDevice"

/**
 * GST_PINNED_DEVICE_MEMORY_TYPE_NAME:
 *
 * The name of the #GstAllocator of device memory.
 *
 * Since: 0.1
 */
#define GST_PINNED_DEVICE_MEMORY_TYPE_NAME "PinnedDeviceMemory"

#define GST_TYPE_PINNED_DEVICE_ALLOCATOR (gst_pinned_device_allocator_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedDeviceAllocator, gst_pinned_device_allocator,
    GST, PINNED_DEVICE_ALLOCATOR, GstPinnedAllocator);

/**
 * GstPinnedDeviceAlloc:
 * @GST_PINNED_DEVICE_ALLOC_DEFAULT: cudaMalloc() and cudaFree()
 * @GST_PINNED_DEVICE_ALLOC_STREAM_ORDERED: cudaMallocAsync() and
 *   cudaFreeAsync() on a stream, from the device's memory pool: no
 *   device-wide synchronization when memory is freed
 *
 * How device memory is allocated.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_DEVICE_ALLOC_DEFAULT,
  GST_PINNED_DEVICE_ALLOC_STREAM_ORDERED,
} GstPinnedDeviceAlloc;

#define GST_TYPE_PINNED_DEVICE_ALLOC (gst_pinned_device_alloc_get_type ())
GST_PINNED_API
GType           gst_pinned_device_alloc_get_type (void);

GST_PINNED_API
GstAllocator *  gst_pinned_device_allocator_new  (GstPinnedContext * context);

GST_PINNED_API
GstAllocator *  gst_pinned_device_allocator_new_stream_ordered
                                                 (GstPinnedContext * context,
                                                  GstPinnedStream * stream);

GST_PINNED_API
gboolean        gst_is_pinned_device_memory      (GstMemory * mem);

G_END_DECLS
