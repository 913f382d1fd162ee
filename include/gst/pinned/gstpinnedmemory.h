/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned-prelude.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedstream.h>
#include <gst/pinned/gstpinnedfence.h>

G_BEGIN_DECLS

/**
 * GST_MAP_PINNED_GPU:
 *
 * Map flag for GPU access ordered on a stream: the map does not wait on the
 * host and returns an address the GPU can use (the device pointer of device
 * memory, the page-locked pointer of host memory). The caller orders its
 * work with gst_pinned_memory_sync_stream() before enqueuing it and
 * publishes it with gst_pinned_memory_add_fence() afterwards.
 *
 * Since: 0.1
 */
#define GST_MAP_PINNED_GPU ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

typedef struct _GstPinnedMemory GstPinnedMemory;
typedef struct _GstPinnedMemoryPrivate GstPinnedMemoryPrivate;

/**
 * GstPinnedMemory:
 * @context: the device context the memory belongs to
 * @data: the start of the allocation: a page-locked host pointer for host
 *   memory, a device pointer for device memory. Never dereference it on the
 *   CPU without mapping: mapping is what waits for the GPU.
 *
 * Memory whose GPU accesses are tracked with fences: the fence of the last
 * copy or kernel that writes it and the fences of those that read it.
 *
 * Since: 0.1
 */
struct _GstPinnedMemory
{
  GstMemory mem;

  /*< public >*/
  GstPinnedContext *context;
  gpointer data;

  /*< private >*/
  GstPinnedMemoryPrivate *priv;
  gpointer _gst_reserved[GST_PADDING];
};

#define GST_TYPE_PINNED_ALLOCATOR (gst_pinned_allocator_get_type ())
GST_PINNED_API
G_DECLARE_DERIVABLE_TYPE (GstPinnedAllocator, gst_pinned_allocator, GST,
    PINNED_ALLOCATOR, GstAllocator);

/**
 * GstPinnedAllocatorClass:
 * @alloc_data: allocate @size bytes of backing storage
 * @free_data: release backing storage; every fence of it has signalled
 *
 * Since: 0.1
 */
struct _GstPinnedAllocatorClass
{
  GstAllocatorClass parent_class;

  gboolean (*alloc_data) (GstPinnedAllocator * allocator,
                          gsize size,
                          gpointer * data,
                          GError ** error);
  void     (*free_data)  (GstPinnedAllocator * allocator,
                          gpointer data);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_PINNED_API
GstPinnedContext * gst_pinned_allocator_get_context (GstPinnedAllocator * allocator);

GST_PINNED_API
GstMemory *     gst_pinned_allocator_alloc_full   (GstPinnedAllocator * allocator,
                                                    gsize size,
                                                    GstAllocationParams * params,
                                                    GError ** error);

GST_PINNED_API
GstMemory *     gst_pinned_allocator_wrap         (GstPinnedAllocator * allocator,
                                                    gpointer data,
                                                    gsize maxsize,
                                                    gsize offset,
                                                    gsize size,
                                                    gpointer user_data,
                                                    GDestroyNotify notify);

GST_PINNED_API
gboolean        gst_pinned_allocator_take_error   (GstPinnedAllocator * allocator,
                                                    GError ** error);

GST_PINNED_API
gboolean        gst_is_pinned_memory              (GstMemory * mem);

GST_PINNED_API
gboolean        gst_pinned_memory_sync_stream     (GstPinnedMemory * mem,
                                                    GstPinnedStream * stream,
                                                    GstMapFlags access,
                                                    GError ** error);

GST_PINNED_API
void            gst_pinned_memory_add_fence       (GstPinnedMemory * mem,
                                                    GstPinnedFence * fence,
                                                    GstMapFlags access);

GST_PINNED_API
gboolean        gst_pinned_memory_wait            (GstPinnedMemory * mem,
                                                    GstMapFlags access,
                                                    GError ** error);

GST_PINNED_API
gboolean        gst_pinned_memory_is_idle         (GstPinnedMemory * mem,
                                                    GstMapFlags access);

GST_PINNED_API
GstPinnedFence * gst_pinned_memory_get_write_fence (GstPinnedMemory * mem);

G_END_DECLS
