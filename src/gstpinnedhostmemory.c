/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedhostmemory
 * @title: GstPinnedHostAllocator
 * @short_description: page-locked host memory
 *
 * Host memory from cudaHostAlloc(): the DMA engines read and write it
 * directly, so copies from it run at the link's rate and
 * cudaMemcpyAsync() on it returns at once. The price is that the copy runs
 * later, while the CPU goes on: mapping waits for the fences (for READ, the
 * copy that writes it; for WRITE, also the copies that read it), so that
 * the CPU neither sees a frame before it lands nor overwrites one that is
 * still being uploaded.
 *
 * The memory is portable (usable from every device) and not
 * write-combined: sources and sinks read it at normal speed.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedhostmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_host_memory_debug);
#define GST_CAT_DEFAULT gst_pinned_host_memory_debug

struct _GstPinnedHostAllocator
{
  GstPinnedAllocator parent;
};

#define gst_pinned_host_allocator_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedHostAllocator, gst_pinned_host_allocator,
    GST_TYPE_PINNED_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_host_memory_debug, "pinnedhostmemory",
        0, "gst-pinned page-locked host memory"));

static gboolean
gst_pinned_host_allocator_alloc_data (GstPinnedAllocator * allocator,
    gsize size, gpointer * data, GError ** error)
{
  if (!gst_pinned_cuda_result (cudaHostAlloc (data, size,
              cudaHostAllocPortable), error))
    return FALSE;

  /* Once per allocation (pools allocate up front): row padding that no one
   * writes reads as zero, as in fresh system memory, not as whatever the
   * driver's page-locked pages held. */
  memset (*data, 0, size);
  return TRUE;
}

static void
gst_pinned_host_allocator_free_data (GstPinnedAllocator * allocator,
    gpointer data)
{
  gst_pinned_cuda_result (cudaFreeHost (data), NULL);
}

static gpointer
gst_pinned_host_memory_map (GstMemory * memory, GstMapInfo * info,
    gsize maxsize)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GError *error = NULL;

  if (!(info->flags & GST_MAP_PINNED_GPU) &&
      !gst_pinned_memory_wait (mem, info->flags & GST_MAP_READWRITE, &error)) {
    GST_ERROR ("cannot map %p: %s", mem, error->message);
    g_clear_error (&error);
    return NULL;
  }

  return mem->data;
}

static void
gst_pinned_host_memory_unmap (GstMemory * memory, GstMapInfo * info)
{
}

static GstMemory *
gst_pinned_host_memory_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstMemory *copy;
  GstMapInfo src, dst;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;

  copy = gst_allocator_alloc (memory->allocator, size, NULL);
  if (copy == NULL)
    return NULL;

  if (!gst_memory_map (memory, &src, GST_MAP_READ)) {
    gst_memory_unref (copy);
    return NULL;
  }
  if (!gst_memory_map (copy, &dst, GST_MAP_WRITE)) {
    gst_memory_unmap (memory, &src);
    gst_memory_unref (copy);
    return NULL;
  }
  memcpy (dst.data, src.data + offset, size);
  gst_memory_unmap (copy, &dst);
  gst_memory_unmap (memory, &src);

  return copy;
}

static void
gst_pinned_host_allocator_class_init (GstPinnedHostAllocatorClass * klass)
{
  GstPinnedAllocatorClass *pinned_class = GST_PINNED_ALLOCATOR_CLASS (klass);

  pinned_class->alloc_data = gst_pinned_host_allocator_alloc_data;
  pinned_class->free_data = gst_pinned_host_allocator_free_data;
}

static void
gst_pinned_host_allocator_init (GstPinnedHostAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_PINNED_HOST_MEMORY_TYPE_NAME;
  allocator->mem_map_full = gst_pinned_host_memory_map;
  allocator->mem_unmap_full = gst_pinned_host_memory_unmap;
  allocator->mem_copy = gst_pinned_host_memory_copy;
}

/**
 * gst_pinned_host_allocator_new:
 * @context: the device context
 *
 * Returns: (transfer full): a new allocator of page-locked host memory
 *
 * Since: 0.1
 */
GstAllocator *
gst_pinned_host_allocator_new (GstPinnedContext * context)
{
  GstAllocator *allocator;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  allocator = g_object_new (GST_TYPE_PINNED_HOST_ALLOCATOR, "context", context,
      NULL);
  gst_object_ref_sink (allocator);

  return allocator;
}

/**
 * gst_is_pinned_host_memory:
 * @mem: (nullable): a #GstMemory
 *
 * Returns: %TRUE when @mem is page-locked host memory of gst-pinned
 *
 * Since: 0.1
 */
gboolean
gst_is_pinned_host_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL &&
      GST_IS_PINNED_HOST_ALLOCATOR (mem->allocator);
}
