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
 * Allocation flags (#GstPinnedHostFlags) choose the kind of page-locked
 * memory. The default is portable (usable from every device) and not
 * write-combined, so that sources and sinks read it at normal speed:
 *
 * - %GST_PINNED_HOST_WRITE_COMBINED: CPU writes bypass the caches and the
 *   DMA engine need not snoop them; CPU reads are very slow. Only for
 *   memory the CPU writes and never reads (an upload's staging).
 * - %GST_PINNED_HOST_MAPPED: also mapped into the device's address space;
 *   with unified addressing the host pointer is the device pointer, so a
 *   kernel can read the memory over the link without a copy.
 * - %GST_PINNED_HOST_HUGE_PAGES: anonymous memory backed by huge pages
 *   (hugetlbfs pages if the system reserved some, else transparent huge
 *   pages), page-locked with cudaHostRegister(): fewer translations for the
 *   IOMMU and the copy engines. Memory from cudaHostAlloc() never has huge
 *   pages (it is a mapping of the driver's device file). Write-combining
 *   does not apply.
 *
 * Freed memory of the allocator's most recent sizes is kept for the next
 * allocation of that size (a few buffers, bounded): page-locking is slower
 * than copying, and an element that copies buffers of a pool (a decoder
 * making a frame writable while it still references it) would otherwise
 * page-lock a new one per frame.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <errno.h>
#include <sys/mman.h>

#include "gstpinned-private.h"
#include "memory/gstpinnedmemory-private.h"
#include "memory/gstpinnedhostlock-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedhostmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_host_memory_debug);
#define GST_CAT_DEFAULT gst_pinned_host_memory_debug

#define HUGE_PAGE_SIZE (2 * 1024 * 1024)
/* Freed memory kept for reuse: a few buffers, not a whole pool's worth
 * when a large pool goes. */
#define CACHE_BUFFERS 4
#define CACHE_BYTES ((gsize) 256 << 20)

typedef struct
{
  gpointer data;
  gsize size;
} Cached;

struct _GstPinnedHostAllocator
{
  GstPinnedAllocator parent;

  GstPinnedHostFlags flags;

  GMutex lock;
  /* huge-page allocations: data -> mapped size, for munmap() */
  GHashTable *mappings;
  /* sizes of live allocations, to cache them when freed */
  GHashTable *sizes;
  GQueue cache;                 /* of Cached, most recently freed first */
  gsize cached_bytes;
};

/* Set around an allocation whose every byte is written at once (a copy):
 * no need to clear it. */
static __thread gboolean alloc_overwritten;

GType
gst_pinned_host_flags_get_type (void)
{
  static gsize type = 0;
  static const GFlagsValue values[] = {
    {GST_PINNED_HOST_PORTABLE, "Usable from every device", "portable"},
    {GST_PINNED_HOST_MAPPED, "Mapped into the device address space",
        "mapped"},
    {GST_PINNED_HOST_WRITE_COMBINED, "Write-combined (CPU reads are slow)",
        "write-combined"},
    {GST_PINNED_HOST_HUGE_PAGES, "Backed by huge pages", "huge-pages"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstPinnedHostFlags", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_pinned_host_allocator_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedHostAllocator, gst_pinned_host_allocator,
    GST_TYPE_PINNED_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_host_memory_debug, "pinnedhostmemory",
        0, "gst-pinned page-locked host memory"));

/* Anonymous memory on huge pages, page-locked by registration. */
static gboolean
alloc_huge (GstPinnedHostAllocator * self, gsize size, gpointer * data,
    GError ** error)
{
  gsize mapped = (size + HUGE_PAGE_SIZE - 1) / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE;
  guint flags = 0;
  guint8 *p;

  /* Reserved huge pages if there are any; else transparent huge pages on
   * a huge-page-aligned range. */
  p = mmap (NULL, mapped, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  if (p == MAP_FAILED) {
    guint8 *raw = mmap (NULL, mapped + HUGE_PAGE_SIZE, PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    gsize head;

    if (raw == MAP_FAILED) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          "cannot map %" G_GSIZE_FORMAT " bytes: %s", mapped,
          g_strerror (errno));
      return FALSE;
    }
    head = (HUGE_PAGE_SIZE - ((guintptr) raw % HUGE_PAGE_SIZE)) %
        HUGE_PAGE_SIZE;
    if (head)
      munmap (raw, head);
    munmap (raw + head + mapped, HUGE_PAGE_SIZE - head);
    p = raw + head;
#ifdef MADV_HUGEPAGE
    if (madvise (p, mapped, MADV_HUGEPAGE) != 0)
      GST_INFO_OBJECT (self, "no transparent huge pages: %s",
          g_strerror (errno));
#endif
  } else {
    GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes of hugetlbfs pages",
        mapped);
  }

  /* Touched before page-locking, so that the pages are there (and huge). */
  memset (p, 0, mapped);

  if (self->flags & GST_PINNED_HOST_PORTABLE)
    flags |= cudaHostRegisterPortable;
  if (self->flags & GST_PINNED_HOST_MAPPED)
    flags |= cudaHostRegisterMapped;
  if (!gst_pinned_host_lock_register (p, mapped, flags, error)) {
    munmap (p, mapped);
    return FALSE;
  }

  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->mappings, p, GSIZE_TO_POINTER (mapped));
  g_mutex_unlock (&self->lock);
  *data = p;
  return TRUE;
}

/* Frees @data, @size bytes from cudaHostAlloc() or huge pages. */
static void
free_now (GstPinnedHostAllocator * self, gpointer data, gsize size)
{
  gpointer mapped = NULL;

  g_mutex_lock (&self->lock);
  if (self->mappings)
    mapped = g_hash_table_lookup (self->mappings, data);
  if (mapped)
    g_hash_table_remove (self->mappings, data);
  g_mutex_unlock (&self->lock);

  if (mapped) {
    gst_pinned_host_lock_unregister (data, GPOINTER_TO_SIZE (mapped));
    munmap (data, GPOINTER_TO_SIZE (mapped));
  } else {
    gst_pinned_host_lock_free (data, size);
  }
}

static gpointer
take_cached (GstPinnedHostAllocator * self, gsize size)
{
  gpointer data = NULL;
  GList *l;

  g_mutex_lock (&self->lock);
  for (l = self->cache.head; l; l = l->next) {
    Cached *c = l->data;

    if (c->size == size) {
      data = c->data;
      self->cached_bytes -= c->size;
      g_queue_delete_link (&self->cache, l);
      g_free (c);
      break;
    }
  }
  if (data)
    g_hash_table_insert (self->sizes, data, GSIZE_TO_POINTER (size));
  g_mutex_unlock (&self->lock);

  return data;
}

static gboolean
gst_pinned_host_allocator_alloc_data (GstPinnedAllocator * allocator,
    gsize size, gpointer * data, GError ** error)
{
  GstPinnedHostAllocator *self = GST_PINNED_HOST_ALLOCATOR (allocator);
  guint flags = 0;

  *data = take_cached (self, size);
  if (*data) {
    GST_LOG_OBJECT (self, "reusing %" G_GSIZE_FORMAT " bytes at %p", size,
        *data);
  } else {
    if (self->flags & GST_PINNED_HOST_HUGE_PAGES) {
      if (!alloc_huge (self, size, data, error))
        return FALSE;
    } else {
      if (self->flags & GST_PINNED_HOST_PORTABLE)
        flags |= cudaHostAllocPortable;
      if (self->flags & GST_PINNED_HOST_MAPPED)
        flags |= cudaHostAllocMapped;
      if (self->flags & GST_PINNED_HOST_WRITE_COMBINED)
        flags |= cudaHostAllocWriteCombined;
      if (!gst_pinned_host_lock_alloc (data, size, flags, error))
        return FALSE;
    }
    g_mutex_lock (&self->lock);
    g_hash_table_insert (self->sizes, *data, GSIZE_TO_POINTER (size));
    g_mutex_unlock (&self->lock);
  }

  /* Row padding that no one writes reads as zero, as in fresh system
   * memory, not as whatever the pages held. Pools allocate up front, so
   * this is not per frame. */
  if (!alloc_overwritten)
    memset (*data, 0, size);
  return TRUE;
}

static void
gst_pinned_host_allocator_free_data (GstPinnedAllocator * allocator,
    gpointer data)
{
  GstPinnedHostAllocator *self = GST_PINNED_HOST_ALLOCATOR (allocator);
  Cached *c = NULL;
  gsize size;

  g_mutex_lock (&self->lock);
  size = GPOINTER_TO_SIZE (g_hash_table_lookup (self->sizes, data));
  g_hash_table_remove (self->sizes, data);
  if (size > 0 && size <= CACHE_BYTES) {
    c = g_new0 (Cached, 1);
    c->data = data;
    c->size = size;
    g_queue_push_head (&self->cache, c);
    self->cached_bytes += size;
    /* The oldest go first. */
    while (self->cache.length > CACHE_BUFFERS ||
        self->cached_bytes > CACHE_BYTES) {
      Cached *old = g_queue_pop_tail (&self->cache);

      self->cached_bytes -= old->size;
      g_mutex_unlock (&self->lock);
      free_now (self, old->data, old->size);
      g_free (old);
      g_mutex_lock (&self->lock);
    }
  }
  g_mutex_unlock (&self->lock);

  if (c == NULL)
    free_now (self, data, size);
}

static gpointer
gst_pinned_host_memory_map (GstMemory * memory, GstMapInfo * info,
    gsize maxsize)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GError *error = NULL;

  if (!gst_pinned_host_wait_for_map (mem, info->flags, &error)) {
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

  /* From the allocator's recently freed memory, mostly: a decoder that
   * copies every frame it outputs must not page-lock a new one each time. */
  alloc_overwritten = TRUE;
  copy = gst_allocator_alloc (memory->allocator, size, NULL);
  alloc_overwritten = FALSE;
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
gst_pinned_host_allocator_finalize (GObject * object)
{
  GstPinnedHostAllocator *self = GST_PINNED_HOST_ALLOCATOR (object);
  GstPinnedContext *context =
      gst_pinned_allocator_get_context (GST_PINNED_ALLOCATOR (self));
  Cached *c;

  if (self->cache.length && gst_pinned_context_push (context, NULL)) {
    while ((c = g_queue_pop_head (&self->cache))) {
      free_now (self, c->data, c->size);
      g_free (c);
    }
    gst_pinned_context_pop (context);
  }
  g_hash_table_unref (self->sizes);
  g_hash_table_unref (self->mappings);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_host_allocator_class_init (GstPinnedHostAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstPinnedAllocatorClass *pinned_class = GST_PINNED_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_pinned_host_allocator_finalize;
  pinned_class->alloc_data = gst_pinned_host_allocator_alloc_data;
  pinned_class->free_data = gst_pinned_host_allocator_free_data;
}

static void
gst_pinned_host_allocator_init (GstPinnedHostAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = gst_pinned_host_memory_type;
  allocator->mem_map_full = gst_pinned_host_memory_map;
  allocator->mem_unmap_full = gst_pinned_host_memory_unmap;
  allocator->mem_copy = gst_pinned_host_memory_copy;

  self->flags = GST_PINNED_HOST_FLAGS_DEFAULT;
  g_mutex_init (&self->lock);
  self->mappings = g_hash_table_new (NULL, NULL);
  self->sizes = g_hash_table_new (NULL, NULL);
  g_queue_init (&self->cache);
}

/**
 * gst_pinned_host_allocator_new:
 * @context: the device context
 *
 * Returns: (transfer full): a new allocator of page-locked host memory with
 *   %GST_PINNED_HOST_FLAGS_DEFAULT
 *
 * Since: 0.1
 */
GstAllocator *
gst_pinned_host_allocator_new (GstPinnedContext * context)
{
  return gst_pinned_host_allocator_new_full (context,
      GST_PINNED_HOST_FLAGS_DEFAULT);
}

/**
 * gst_pinned_host_allocator_new_full:
 * @context: the device context
 * @flags: the kind of page-locked memory
 *
 * Returns: (transfer full): a new allocator of page-locked host memory
 *
 * Since: 0.1
 */
GstAllocator *
gst_pinned_host_allocator_new_full (GstPinnedContext * context,
    GstPinnedHostFlags flags)
{
  GstPinnedHostAllocator *allocator;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  allocator = g_object_new (GST_TYPE_PINNED_HOST_ALLOCATOR, "context", context,
      NULL);
  gst_object_ref_sink (allocator);
  if ((flags & GST_PINNED_HOST_HUGE_PAGES) &&
      (flags & GST_PINNED_HOST_WRITE_COMBINED)) {
    GST_WARNING_OBJECT (allocator, "huge pages cannot be write-combined");
    flags &= ~GST_PINNED_HOST_WRITE_COMBINED;
  }
  allocator->flags = flags;

  return GST_ALLOCATOR_CAST (allocator);
}

/**
 * gst_pinned_host_allocator_get_flags:
 * @allocator: a #GstPinnedHostAllocator
 *
 * Returns: the kind of page-locked memory @allocator makes
 *
 * Since: 0.1
 */
GstPinnedHostFlags
gst_pinned_host_allocator_get_flags (GstPinnedHostAllocator * allocator)
{
  g_return_val_if_fail (GST_IS_PINNED_HOST_ALLOCATOR (allocator), 0);

  return allocator->flags;
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

/**
 * gst_pinned_host_memory_get_locked_bytes:
 *
 * How much host memory gst-pinned holds page-locked in this process now:
 * its page-locked allocations, in use or kept for reuse (the pools, the
 * staging of pageable frames, CPU maps of device memory), and the pageable
 * memory it registered. Page-locked memory cannot be swapped or moved,
 * so an application that runs many streams watches it, as PyTorch's
 * `torch.cuda.host_memory_stats()` reports its own.
 *
 * Returns: the bytes page-locked by gst-pinned in this process
 *
 * Since: 0.1
 */
guint64
gst_pinned_host_memory_get_locked_bytes (void)
{
  return gst_pinned_host_lock_get_bytes ();
}
