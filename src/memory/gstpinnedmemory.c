/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedmemory
 * @title: GstPinnedMemory
 * @short_description: memory that knows which GPU work touches it
 *
 * Every #GstPinnedMemory, page-locked host memory or device memory, carries
 * the fence of the last GPU copy or kernel that writes it and the fences of
 * those that read it. The rules:
 *
 * - GPU work that reads the memory first makes its stream wait for the
 *   writer, GPU work that writes it for the writer and every reader
 *   (gst_pinned_memory_sync_stream(): no host wait), and afterwards records
 *   a fence (gst_pinned_memory_add_fence()). A new writer's fence replaces
 *   the old writer and the readers, which it was ordered after.
 * - The CPU maps for READ after the writer's fence, for WRITE after the
 *   writer's and the readers' fences (gst_pinned_memory_wait()). A page-locked
 *   source of an asynchronous copy is thus never written while the copy
 *   still reads it, and a copy's destination never read before it lands.
 * - Freeing waits for every fence: the DMA engine never touches freed
 *   memory. Wrapped storage whose owner asked for it
 *   (gst_pinned_memory_release_later()) goes back on a thread of its own
 *   once its fences signal, so that the thread that drops the memory (a
 *   streaming thread, right after it enqueued a copy of it) does not wait.
 *
 * A fence of a stream supersedes that stream's older fences: a stream runs
 * its work in order. The readers of a memory are thus bounded by the number
 * of streams that read it.
 *
 * A pool may reserve its buffers in one block
 * (gst_pinned_allocator_reserve()): each is then a piece of that block,
 * with fences of its own, and the block is freed with its last piece.
 * Frames whose pieces lie next to each other on both sides of a transfer
 * go to the GPU as one copy.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sync/gstpinnedfence-private.h"
#include "memory/gstpinnedmemory-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "memory/gstpinnedmemoryfences-private.h"
/* For the names of the two kinds only (gst_is_pinned_memory()). */
#include "gst/pinned/gstpinneddevicememory.h"
#include "gst/pinned/gstpinnedhostmemory.h"

GST_DEBUG_CATEGORY (gst_pinned_memory_debug);
#define GST_CAT_DEFAULT gst_pinned_memory_debug

const gchar gst_pinned_host_memory_type[] = GST_PINNED_HOST_MEMORY_TYPE_NAME;
const gchar gst_pinned_device_memory_type[] =
    GST_PINNED_DEVICE_MEMORY_TYPE_NAME;

typedef struct
{
  GstPinnedMemory mem;
  GstPinnedMemoryPrivate priv;
  /* Wrapped storage (gst_pinned_allocator_wrap()): its owner's release,
   * instead of the allocator's free_data. */
  gpointer user_data;
  GDestroyNotify notify;
  /* Its owner's release waits on the release thread, not on the caller. */
  gboolean release_later;
  /* A piece of a reserved block: the block, referenced. */
  GstMemory *block;
} GstPinnedMemoryImpl;

/* Pieces of one block still to hand out (gst_pinned_allocator_reserve()). */
typedef struct
{
  GstMemory *block;
  gsize stride;                 /* a piece's size, 256-byte aligned */
  guint next, n;
} Reservation;

typedef struct
{
  GstPinnedContext *context;

  /* Why the last allocation through gst_allocator_alloc() failed: buffer
   * pools allocate that way and report only GST_FLOW_ERROR. */
  GMutex lock;
  GError *last_error;
  Reservation reservation;
} GstPinnedAllocatorPrivate;

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

#define gst_pinned_allocator_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstPinnedAllocator, gst_pinned_allocator,
    GST_TYPE_ALLOCATOR, G_ADD_PRIVATE (GstPinnedAllocator);
    GST_DEBUG_CATEGORY_INIT (gst_pinned_memory_debug, "pinnedmemory", 0,
        "gst-pinned fenced memory"));

/* Shares hand their fences to the memory they were shared from. */
static inline GstPinnedMemory *
fence_owner (GstPinnedMemory * mem)
{
  return mem->mem.parent ? (GstPinnedMemory *) mem->mem.parent : mem;
}

/**
 * gst_pinned_memory_sync_stream:
 * @mem: a #GstPinnedMemory
 * @stream: the stream that is about to access @mem
 * @access: %GST_MAP_READ, %GST_MAP_WRITE or both
 * @error: (out) (optional): where to describe a failure
 *
 * Makes the work enqueued on @stream after this call wait for the GPU work
 * that @access must follow: the writer for reading; the writer and the
 * readers for writing. The host does not wait.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_memory_sync_stream (GstPinnedMemory * mem, GstPinnedStream * stream,
    GstMapFlags access, GError ** error)
{
  g_return_val_if_fail (gst_is_pinned_memory (GST_MEMORY_CAST (mem)), FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  return gst_pinned_memory_fences_sync_stream (fence_owner (mem)->priv,
      access, stream, error);
}

/**
 * gst_pinned_memory_add_fence:
 * @mem: a #GstPinnedMemory
 * @fence: a fence recorded after GPU work that accesses @mem
 * @access: how that work accesses @mem
 *
 * Publishes GPU work on @mem. For %GST_MAP_WRITE @fence becomes the writer
 * and replaces the readers: the work was ordered after them with
 * gst_pinned_memory_sync_stream(). For %GST_MAP_READ @fence joins the
 * readers, replacing an older reader of the same stream.
 *
 * Since: 0.1
 */
void
gst_pinned_memory_add_fence (GstPinnedMemory * mem, GstPinnedFence * fence,
    GstMapFlags access)
{
  g_return_if_fail (gst_is_pinned_memory (GST_MEMORY_CAST (mem)));
  g_return_if_fail (fence != NULL);

  gst_pinned_memory_fences_add (fence_owner (mem)->priv, fence, access);
}

/**
 * gst_pinned_memory_wait:
 * @mem: a #GstPinnedMemory
 * @access: the CPU access to wait for: %GST_MAP_READ waits for the writer,
 *   %GST_MAP_WRITE for the writer and the readers
 * @error: (out) (optional): where to describe a failure
 *
 * Blocks until the CPU may access @mem as @access says. Mapping does this
 * by itself; this is for code that holds a pointer across maps.
 *
 * Returns: %TRUE on success; %FALSE only for a read (@access with
 *   %GST_MAP_READ) of what GPU work that failed on the device should have
 *   written. A write alone does not care what failed work did.
 *
 * Since: 0.1
 */
gboolean
gst_pinned_memory_wait (GstPinnedMemory * mem, GstMapFlags access,
    GError ** error)
{
  g_return_val_if_fail (gst_is_pinned_memory (GST_MEMORY_CAST (mem)), FALSE);

  return gst_pinned_host_wait_for_caller (mem, access, error);
}

/**
 * gst_pinned_memory_is_idle:
 * @mem: a #GstPinnedMemory
 * @access: as for gst_pinned_memory_wait()
 *
 * Returns: %TRUE when gst_pinned_memory_wait() would not block
 *
 * Since: 0.1
 */
gboolean
gst_pinned_memory_is_idle (GstPinnedMemory * mem, GstMapFlags access)
{
  g_return_val_if_fail (gst_is_pinned_memory (GST_MEMORY_CAST (mem)), TRUE);

  return gst_pinned_memory_fences_is_idle (fence_owner (mem)->priv, access);
}

/**
 * gst_pinned_memory_get_write_fence:
 * @mem: a #GstPinnedMemory
 *
 * Returns: (transfer full) (nullable): the fence of the GPU work that last
 *   wrote @mem, if any is known
 *
 * Since: 0.1
 */
GstPinnedFence *
gst_pinned_memory_get_write_fence (GstPinnedMemory * mem)
{
  g_return_val_if_fail (gst_is_pinned_memory (GST_MEMORY_CAST (mem)), NULL);

  return gst_pinned_memory_fences_get_writer (fence_owner (mem)->priv);
}

/**
 * gst_is_pinned_memory:
 * @mem: (nullable): a #GstMemory
 *
 * Returns: %TRUE when @mem is gst-pinned host or device memory
 *
 * Since: 0.1
 */
gboolean
gst_is_pinned_memory (GstMemory * mem)
{
  const gchar *type;

  if (mem == NULL || mem->allocator == NULL)
    return FALSE;

  /* Asked several times per buffer by every element: our allocators are
   * told by the address of their mem_type, cheaper than a type check. */
  type = mem->allocator->mem_type;
  return type == gst_pinned_host_memory_type ||
      type == gst_pinned_device_memory_type ||
      GST_IS_PINNED_ALLOCATOR (mem->allocator);
}

/**
 * gst_pinned_allocator_get_context:
 * @allocator: a #GstPinnedAllocator
 *
 * Returns: (transfer none): the device context of @allocator
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_allocator_get_context (GstPinnedAllocator * allocator)
{
  GstPinnedAllocatorPrivate *priv;

  g_return_val_if_fail (GST_IS_PINNED_ALLOCATOR (allocator), NULL);

  priv = gst_pinned_allocator_get_instance_private (allocator);
  return priv->context;
}

static GstPinnedMemoryImpl *
memory_new (GstPinnedAllocator * allocator, gpointer data, GstMemoryFlags flags,
    gsize maxsize, gsize align, gsize offset, gsize size)
{
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (allocator);
  GstPinnedMemoryImpl *impl = g_new0 (GstPinnedMemoryImpl, 1);

  gst_memory_init (GST_MEMORY_CAST (impl), flags,
      GST_ALLOCATOR_CAST (allocator), NULL, maxsize, align, offset, size);
  impl->mem.context = gst_object_ref (priv->context);
  impl->mem.data = data;
  impl->mem.priv = &impl->priv;
  gst_pinned_memory_fences_init (&impl->priv);

  return impl;
}

/* A piece's share of its block: CUDA's 256-byte alignment, as a buffer
 * of its own would have. */
static gsize
piece_stride (gsize maxsize)
{
  return GST_ROUND_UP_N (maxsize, 256);
}

/* The reservation's next piece, where one is left and @maxsize fits. */
static GstPinnedMemoryImpl *
take_piece (GstPinnedAllocator * allocator, gsize maxsize,
    GstAllocationParams * params, gsize size)
{
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (allocator);
  Reservation *r = &priv->reservation;
  GstPinnedMemoryImpl *impl;
  GstMemory *block = NULL;
  guint8 *data = NULL;

  g_mutex_lock (&priv->lock);
  if (r->block && r->next < r->n && maxsize <= r->stride) {
    block = gst_memory_ref (r->block);
    data = (guint8 *) ((GstPinnedMemory *) block)->data + r->next * r->stride;
    r->next++;
  }
  g_mutex_unlock (&priv->lock);
  if (block == NULL)
    return NULL;

  impl = memory_new (allocator, data, params->flags, maxsize, params->align,
      params->prefix, size);
  impl->block = block;
  GST_LOG_OBJECT (allocator, "piece of %" G_GSIZE_FORMAT " bytes at %p",
      maxsize, data);

  return impl;
}

/**
 * gst_pinned_allocator_alloc_full:
 * @allocator: a #GstPinnedAllocator
 * @size: the usable size
 * @params: (nullable): prefix, padding and flags
 * @error: (out) (optional): why the allocation failed (the CUDA error)
 *
 * Like gst_allocator_alloc(), with the reason of a failure.
 *
 * Returns: (transfer full) (nullable): a new #GstPinnedMemory
 *
 * Since: 0.1
 */
GstMemory *
gst_pinned_allocator_alloc_full (GstPinnedAllocator * allocator, gsize size,
    GstAllocationParams * params, GError ** error)
{
  GstPinnedAllocatorClass *klass = GST_PINNED_ALLOCATOR_GET_CLASS (allocator);
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (allocator);
  GstAllocationParams defaults;
  GstPinnedMemoryImpl *impl;
  gpointer data = NULL;
  gsize maxsize;
  gboolean ok;

  if (params == NULL) {
    gst_allocation_params_init (&defaults);
    params = &defaults;
  }

  /* cudaMalloc aligns to 256 bytes, cudaHostAlloc to a page. */
  if (params->align > 255)
    GST_WARNING_OBJECT (allocator, "alignment %" G_GSIZE_FORMAT
        " exceeds what CUDA guarantees (256)", params->align + 1);

  maxsize = size + params->prefix + params->padding;

  impl = take_piece (allocator, maxsize, params, size);
  if (impl)
    return GST_MEMORY_CAST (impl);

  if (!gst_pinned_context_push (priv->context, error))
    return NULL;
  ok = klass->alloc_data (allocator, maxsize, &data, error);
  gst_pinned_context_pop (priv->context);
  if (!ok)
    return NULL;

  GST_LOG_OBJECT (allocator, "allocated %" G_GSIZE_FORMAT " bytes at %p",
      maxsize, data);

  return GST_MEMORY_CAST (memory_new (allocator, data, params->flags, maxsize,
          params->align, params->prefix, size));
}

gboolean
gst_pinned_allocator_reserve (GstPinnedAllocator * allocator, guint n,
    gsize maxsize, GError ** error)
{
  GstPinnedAllocatorPrivate *priv;
  gsize stride = piece_stride (maxsize);
  GstMemory *block;

  g_return_val_if_fail (GST_IS_PINNED_ALLOCATOR (allocator), FALSE);
  g_return_val_if_fail (n > 0 && maxsize > 0, FALSE);

  block = gst_pinned_allocator_alloc_full (allocator, n * stride, NULL, error);
  if (block == NULL)
    return FALSE;

  gst_pinned_allocator_unreserve (allocator);
  priv = gst_pinned_allocator_get_instance_private (allocator);
  g_mutex_lock (&priv->lock);
  priv->reservation.block = block;
  priv->reservation.stride = stride;
  priv->reservation.next = 0;
  priv->reservation.n = n;
  g_mutex_unlock (&priv->lock);

  GST_DEBUG_OBJECT (allocator, "reserved %u pieces of %" G_GSIZE_FORMAT
      " bytes", n, stride);

  return TRUE;
}

void
gst_pinned_allocator_unreserve (GstPinnedAllocator * allocator)
{
  GstPinnedAllocatorPrivate *priv;
  GstMemory *block;

  g_return_if_fail (GST_IS_PINNED_ALLOCATOR (allocator));

  priv = gst_pinned_allocator_get_instance_private (allocator);
  g_mutex_lock (&priv->lock);
  block = priv->reservation.block;
  memset (&priv->reservation, 0, sizeof (priv->reservation));
  g_mutex_unlock (&priv->lock);

  if (block)
    gst_memory_unref (block);
}

/**
 * gst_pinned_allocator_wrap:
 * @allocator: a #GstPinnedAllocator
 * @data: storage of the kind @allocator allocates (a device pointer for a
 *   #GstPinnedDeviceAllocator), on the device of its context
 * @maxsize: the size of the storage
 * @offset: where the memory starts in it
 * @size: the usable size from @offset
 * @user_data: (nullable): passed to @notify
 * @notify: (nullable): called once every fence of the memory has
 *   signalled and it is freed; the storage stays the caller's
 *
 * Makes a #GstPinnedMemory of storage that someone else allocated (another
 * library's device memory, an application's tensor), so that the fence
 * rules and the transfers of gst-pinned apply to it. @notify is where its
 * owner gets it back: never before the GPU work of gst-pinned on it is
 * done.
 *
 * Returns: (transfer full): a new #GstPinnedMemory
 *
 * Since: 0.1
 */
GstMemory *
gst_pinned_allocator_wrap (GstPinnedAllocator * allocator, gpointer data,
    gsize maxsize, gsize offset, gsize size, gpointer user_data,
    GDestroyNotify notify)
{
  GstPinnedMemoryImpl *impl;

  g_return_val_if_fail (GST_IS_PINNED_ALLOCATOR (allocator), NULL);
  g_return_val_if_fail (offset + size <= maxsize, NULL);

  impl = memory_new (allocator, data, 0, maxsize, 0, offset, size);
  impl->user_data = user_data;
  impl->notify = notify;

  GST_LOG_OBJECT (allocator, "wrapped %" G_GSIZE_FORMAT " bytes at %p",
      maxsize, data);

  return GST_MEMORY_CAST (impl);
}

static GstMemory *
gst_pinned_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstPinnedAllocator *self = GST_PINNED_ALLOCATOR (allocator);
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (self);
  GError *error = NULL;
  GstMemory *mem;

  mem = gst_pinned_allocator_alloc_full (self, size, params, &error);
  if (mem == NULL) {
    g_mutex_lock (&priv->lock);
    g_clear_error (&priv->last_error);
    priv->last_error = error;
    g_mutex_unlock (&priv->lock);
  }

  return mem;
}

/**
 * gst_pinned_allocator_take_error:
 * @allocator: a #GstPinnedAllocator
 * @error: (out) (optional): the error
 *
 * Takes the reason of the last failed gst_allocator_alloc() on @allocator,
 * for the error message of an element whose buffer pool failed.
 *
 * Returns: %TRUE when there was one
 *
 * Since: 0.1
 */
gboolean
gst_pinned_allocator_take_error (GstPinnedAllocator * allocator,
    GError ** error)
{
  GstPinnedAllocatorPrivate *priv;
  GError *last;

  g_return_val_if_fail (GST_IS_PINNED_ALLOCATOR (allocator), FALSE);

  priv = gst_pinned_allocator_get_instance_private (allocator);
  g_mutex_lock (&priv->lock);
  last = priv->last_error;
  priv->last_error = NULL;
  g_mutex_unlock (&priv->lock);

  if (last == NULL)
    return FALSE;
  if (error)
    g_propagate_error (error, last);
  else
    g_error_free (last);
  return TRUE;
}

static void
memory_finish (GstPinnedMemoryImpl * impl)
{
  gst_pinned_memory_fences_clear (&impl->priv);
  gst_object_unref (impl->mem.context);
  g_free (impl);
}

/* The release thread: wrapped storage back to its owner once the copy
 * engines are done with it. */
static void
release_when_idle (gpointer data, gpointer unused)
{
  GstPinnedMemoryImpl *impl = data;
  /* The free that handed it over took a reference for this thread. */
  GstAllocator *allocator = GST_MEMORY_CAST (impl)->allocator;

  gst_pinned_host_wait_for_free (&impl->mem);
  GST_LOG ("releasing wrapped storage %p", impl->mem.data);
  impl->notify (impl->user_data);
  memory_finish (impl);
  gst_object_unref (allocator);
}

static gpointer
release_pool_new (gpointer unused)
{
  return g_thread_pool_new (release_when_idle, NULL, 1, FALSE, NULL);
}

static void
gst_pinned_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  static GOnce release_pool = G_ONCE_INIT;
  GstPinnedAllocatorClass *klass = GST_PINNED_ALLOCATOR_GET_CLASS (allocator);
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GstPinnedMemoryImpl *impl = (GstPinnedMemoryImpl *) mem;

  if (memory->parent != NULL) {
    gst_object_unref (mem->context);
    g_free (impl);
    return;
  }

  if (impl->notify && impl->release_later &&
      !gst_pinned_memory_is_idle (mem, GST_MAP_READWRITE)) {
    /* GstMemory drops its allocator when this returns. */
    gst_object_ref (allocator);
    g_thread_pool_push (g_once (&release_pool, release_pool_new, NULL), impl,
        NULL);
    return;
  }

  /* The copy engine may still read or write it. */
  gst_pinned_host_wait_for_free (mem);

  if (impl->block) {
    gst_memory_unref (impl->block);
  } else if (impl->notify) {
    impl->notify (impl->user_data);
  } else if (gst_pinned_context_push (mem->context, NULL)) {
    klass->free_data (GST_PINNED_ALLOCATOR (allocator), mem->data);
    gst_pinned_context_pop (mem->context);
  }
  memory_finish (impl);
}

GstMemory *
gst_pinned_memory_get_block (GstPinnedMemory * mem)
{
  return ((GstPinnedMemoryImpl *) fence_owner (mem))->block;
}

gboolean
gst_pinned_memory_ends_block (GstPinnedMemory * mem)
{
  GstMemory *owner = GST_MEMORY_CAST (fence_owner (mem));
  GstMemory *block = gst_pinned_memory_get_block (mem);

  return block != NULL &&
      (guint8 *) ((GstPinnedMemory *) owner)->data +
      piece_stride (owner->maxsize) >=
      (guint8 *) ((GstPinnedMemory *) block)->data + block->maxsize;
}

void
gst_pinned_memory_release_later (GstPinnedMemory * mem)
{
  GstPinnedMemoryImpl *impl = (GstPinnedMemoryImpl *) mem;

  g_return_if_fail (GST_MEMORY_CAST (mem)->parent == NULL);
  impl->release_later = TRUE;
}

static GstMemory *
gst_pinned_allocator_share (GstMemory * memory, gssize offset, gssize size)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GstPinnedMemory *owner = fence_owner (mem);
  GstPinnedMemoryImpl *sub;

  if (size == -1)
    size = memory->size - offset;

  sub = g_new0 (GstPinnedMemoryImpl, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (owner) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, GST_MEMORY_CAST (owner), memory->maxsize,
      memory->align, memory->offset + offset, size);
  sub->mem.context = gst_object_ref (mem->context);
  sub->mem.data = owner->data;
  sub->mem.priv = NULL;

  return GST_MEMORY_CAST (sub);
}

static gboolean
gst_pinned_allocator_is_span (GstMemory * mem1, GstMemory * mem2,
    gsize * offset)
{
  return FALSE;
}

static void
gst_pinned_allocator_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (GST_PINNED_ALLOCATOR (object));

  switch (prop_id) {
    case PROP_CONTEXT:
      priv->context = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_allocator_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (GST_PINNED_ALLOCATOR (object));

  switch (prop_id) {
    case PROP_CONTEXT:
      g_value_set_object (value, priv->context);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_allocator_finalize (GObject * object)
{
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (GST_PINNED_ALLOCATOR (object));

  gst_clear_object (&priv->context);
  g_clear_error (&priv->last_error);
  g_mutex_clear (&priv->lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_allocator_class_init (GstPinnedAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->set_property = gst_pinned_allocator_set_property;
  gobject_class->get_property = gst_pinned_allocator_get_property;
  gobject_class->finalize = gst_pinned_allocator_finalize;

  allocator_class->alloc = gst_pinned_allocator_alloc;
  allocator_class->free = gst_pinned_allocator_free;

  properties[PROP_CONTEXT] =
      g_param_spec_object ("context", "Context", "The device context",
      GST_TYPE_PINNED_CONTEXT,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);
}

static void
gst_pinned_allocator_init (GstPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);
  GstPinnedAllocatorPrivate *priv =
      gst_pinned_allocator_get_instance_private (self);

  g_mutex_init (&priv->lock);

  allocator->mem_share = gst_pinned_allocator_share;
  allocator->mem_is_span = gst_pinned_allocator_is_span;
}
