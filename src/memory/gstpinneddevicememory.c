/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinneddevicememory
 * @title: GstPinnedDeviceAllocator
 * @short_description: CUDA device memory
 *
 * Device memory from cudaMalloc(), or stream-ordered from cudaMallocAsync()
 * (gst_pinned_device_allocator_new_stream_ordered()), with the same write
 * and read fences as page-locked memory. Map it with %GST_MAP_PINNED_GPU to get the device
 * pointer. A plain CPU map never returns the device pointer: it copies the
 * memory into page-locked staging after waiting for its writer, and a
 * mapping for WRITE copies the staging back on unmap. That path is slow and
 * meant for tests and tools; pipelines use `pinneddownload`.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "memory/gstpinnedmemory-private.h"
#include "memory/gstpinnedhostlock-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_device_memory_debug);
#define GST_CAT_DEFAULT gst_pinned_device_memory_debug

struct _GstPinnedDeviceAllocator
{
  GstPinnedAllocator parent;

  /* Set: stream-ordered allocation on it */
  GstPinnedStream *stream;
};

/* The CPU view of a device memory, made on its first CPU map. */
typedef struct
{
  GMutex lock;
  gpointer data;
  gsize size;
  guint maps;
} Staging;

static GQuark staging_quark;
static GMutex staging_create_lock;

#define gst_pinned_device_allocator_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedDeviceAllocator, gst_pinned_device_allocator,
    GST_TYPE_PINNED_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_device_memory_debug,
        "pinneddevicememory", 0, "gst-pinned CUDA device memory"));

GType
gst_pinned_device_alloc_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_PINNED_DEVICE_ALLOC_DEFAULT, "cudaMalloc and cudaFree", "default"},
    {GST_PINNED_DEVICE_ALLOC_STREAM_ORDERED, "cudaMallocAsync and "
          "cudaFreeAsync on the element's stream, from the device's memory "
          "pool", "stream-ordered"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstPinnedDeviceAlloc", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Zeroed once, as page-locked memory is: row padding and bytes past a
 * frame that no one writes read as zero, not as what an earlier
 * allocation left. Stream-ordered memory is ready for the allocating
 * stream's later work only: the stream is waited for once, so that any
 * stream, and the CPU's staging copies, may use it; plain memory's
 * memset is waited for on the legacy default stream. Pools allocate when
 * activated, before their frames flow. */
static gboolean
gst_pinned_device_allocator_alloc_data (GstPinnedAllocator * allocator,
    gsize size, gpointer * data, GError ** error)
{
  GstPinnedDeviceAllocator *self = GST_PINNED_DEVICE_ALLOCATOR (allocator);
  cudaStream_t stream = NULL;

  if (self->stream == NULL) {
    if (!gst_pinned_cuda_result (cudaMalloc (data, size), error))
      return FALSE;
  } else {
    stream = gst_pinned_stream_get_cuda_stream (self->stream);
    if (!gst_pinned_cuda_result (cudaMallocAsync (data, size, stream), error))
      return FALSE;
  }

  if (gst_pinned_cuda_result (cudaMemsetAsync (*data, 0, size, stream), error)
      && gst_pinned_cuda_result (cudaStreamSynchronize (stream), error))
    return TRUE;

  if (self->stream == NULL)
    gst_pinned_cuda_result (cudaFree (*data), NULL);
  else
    gst_pinned_cuda_result (cudaFreeAsync (*data, stream), NULL);
  *data = NULL;
  return FALSE;
}

/* Every fence of the memory has signalled: freed in the stream's order,
 * without the device-wide synchronization of cudaFree(). */
static void
gst_pinned_device_allocator_free_data (GstPinnedAllocator * allocator,
    gpointer data)
{
  GstPinnedDeviceAllocator *self = GST_PINNED_DEVICE_ALLOCATOR (allocator);

  if (self->stream == NULL)
    gst_pinned_cuda_result (cudaFree (data), NULL);
  else
    gst_pinned_cuda_result (cudaFreeAsync (data,
            gst_pinned_stream_get_cuda_stream (self->stream)), NULL);
}

static void
gst_pinned_device_allocator_finalize (GObject * object)
{
  GstPinnedDeviceAllocator *self = GST_PINNED_DEVICE_ALLOCATOR (object);

  if (self->stream)
    gst_pinned_stream_unref (self->stream);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
staging_free (Staging * staging)
{
  if (staging->data) {
    gst_pinned_host_lock_free (staging->data, staging->size);
  }
  g_mutex_clear (&staging->lock);
  g_free (staging);
}

static Staging *
get_staging (GstPinnedMemory * mem, GError ** error)
{
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (mem);
  Staging *staging;

  g_mutex_lock (&staging_create_lock);
  staging = gst_mini_object_get_qdata (obj, staging_quark);
  if (staging == NULL) {
    staging = g_new0 (Staging, 1);
    g_mutex_init (&staging->lock);
    if (!gst_pinned_context_push (mem->context, error)) {
      staging_free (staging);
      staging = NULL;
    } else {
      staging->size = mem->mem.maxsize;
      if (!gst_pinned_host_lock_alloc (&staging->data, staging->size,
              cudaHostAllocPortable, error)) {
        staging->data = NULL;
        staging_free (staging);
        staging = NULL;
      }
      gst_pinned_context_pop (mem->context);
    }
    if (staging)
      gst_mini_object_set_qdata (obj, staging_quark, staging,
          (GDestroyNotify) staging_free);
  }
  g_mutex_unlock (&staging_create_lock);

  return staging;
}

static gpointer
gst_pinned_device_memory_map (GstMemory * memory, GstMapInfo * info,
    gsize maxsize)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GError *error = NULL;
  Staging *staging;
  gpointer ret = NULL;

  if (info->flags & GST_MAP_PINNED_GPU)
    return mem->data;

  staging = get_staging (mem, &error);
  if (staging == NULL)
    goto failed;

  g_mutex_lock (&staging->lock);
  if (staging->maps == 0) {
    /* A CPU write lands at unmap: GPU readers must be done by then too. */
    if (!gst_pinned_host_wait_for_map (mem, info->flags, &error)
        || !gst_pinned_context_push (mem->context, &error)) {
      g_mutex_unlock (&staging->lock);
      goto failed;
    }
    if (!gst_pinned_cuda_result (cudaMemcpy (staging->data, mem->data,
                memory->maxsize, cudaMemcpyDeviceToHost), &error)) {
      gst_pinned_context_pop (mem->context);
      g_mutex_unlock (&staging->lock);
      goto failed;
    }
    gst_pinned_context_pop (mem->context);
  }
  staging->maps++;
  ret = staging->data;
  g_mutex_unlock (&staging->lock);

  return ret;

failed:
  GST_ERROR ("cannot map device memory %p for the CPU: %s", mem,
      error ? error->message : "unknown");
  g_clear_error (&error);
  return NULL;
}

static void
gst_pinned_device_memory_unmap (GstMemory * memory, GstMapInfo * info)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  Staging *staging;

  if (info->flags & GST_MAP_PINNED_GPU)
    return;

  staging = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      staging_quark);
  g_return_if_fail (staging != NULL);

  g_mutex_lock (&staging->lock);
  /* From page-locked memory this copy is synchronous with the host, so that
   * GPU work enqueued after the unmap sees it. */
  if ((info->flags & GST_MAP_WRITE) &&
      gst_pinned_context_push (mem->context, NULL)) {
    gst_pinned_cuda_result (cudaMemcpy (mem->data, staging->data,
            memory->maxsize, cudaMemcpyHostToDevice), NULL);
    gst_pinned_context_pop (mem->context);
  }
  staging->maps--;
  g_mutex_unlock (&staging->lock);
}

static GstMemory *
gst_pinned_device_memory_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GstPinnedMemory *copy;
  gboolean ok;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;

  copy = (GstPinnedMemory *) gst_allocator_alloc (memory->allocator, size,
      NULL);
  if (copy == NULL)
    return NULL;

  /* Rare path: copy on the legacy stream and wait, so that the copy is
   * complete for any later user. */
  if (!gst_pinned_host_wait_for_clone (mem, NULL) ||
      !gst_pinned_context_push (mem->context, NULL)) {
    gst_memory_unref (GST_MEMORY_CAST (copy));
    return NULL;
  }
  ok = gst_pinned_cuda_result (cudaMemcpyAsync (copy->data,
          (guint8 *) mem->data + memory->offset + offset, size,
          cudaMemcpyDeviceToDevice, NULL), NULL) &&
      gst_pinned_cuda_result (cudaStreamSynchronize (NULL), NULL);
  gst_pinned_context_pop (mem->context);

  if (!ok) {
    gst_memory_unref (GST_MEMORY_CAST (copy));
    return NULL;
  }

  return GST_MEMORY_CAST (copy);
}

static void
gst_pinned_device_allocator_class_init (GstPinnedDeviceAllocatorClass * klass)
{
  GstPinnedAllocatorClass *pinned_class = GST_PINNED_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gst_pinned_device_allocator_finalize;
  pinned_class->alloc_data = gst_pinned_device_allocator_alloc_data;
  pinned_class->free_data = gst_pinned_device_allocator_free_data;

  staging_quark = g_quark_from_static_string ("GstPinnedDeviceStaging");
}

static void
gst_pinned_device_allocator_init (GstPinnedDeviceAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = gst_pinned_device_memory_type;
  allocator->mem_map_full = gst_pinned_device_memory_map;
  allocator->mem_unmap_full = gst_pinned_device_memory_unmap;
  allocator->mem_copy = gst_pinned_device_memory_copy;

  /* Elements that know nothing of device memory must not pick it. */
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/**
 * gst_pinned_device_allocator_new:
 * @context: the device context
 *
 * Returns: (transfer full): a new allocator of device memory on the device
 *   of @context
 *
 * Since: 0.1
 */
GstAllocator *
gst_pinned_device_allocator_new (GstPinnedContext * context)
{
  GstAllocator *allocator;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  allocator = g_object_new (GST_TYPE_PINNED_DEVICE_ALLOCATOR,
      "context", context, NULL);
  gst_object_ref_sink (allocator);

  return allocator;
}

/**
 * gst_pinned_device_allocator_new_stream_ordered:
 * @context: the device context
 * @stream: the stream that allocates and frees, of @context
 *
 * An allocator of device memory from the device's memory pool, allocated
 * (cudaMallocAsync()) and freed (cudaFreeAsync()) in @stream's order:
 * freeing does not synchronize the device as cudaFree() does. A new
 * allocation waits for @stream once, so that its memory is ready for any
 * stream.
 *
 * Returns: (transfer full): a new allocator of device memory on the device
 *   of @context
 *
 * Since: 0.1
 */
GstAllocator *
gst_pinned_device_allocator_new_stream_ordered (GstPinnedContext * context,
    GstPinnedStream * stream)
{
  GstPinnedDeviceAllocator *self;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);
  g_return_val_if_fail (stream != NULL, NULL);

  self = GST_PINNED_DEVICE_ALLOCATOR (gst_pinned_device_allocator_new
      (context));
  self->stream = gst_pinned_stream_ref (stream);

  return GST_ALLOCATOR_CAST (self);
}

/**
 * gst_is_pinned_device_memory:
 * @mem: (nullable): a #GstMemory
 *
 * Returns: %TRUE when @mem is device memory of gst-pinned
 *
 * Since: 0.1
 */
gboolean
gst_is_pinned_device_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL &&
      GST_IS_PINNED_DEVICE_ALLOCATOR (mem->allocator);
}
