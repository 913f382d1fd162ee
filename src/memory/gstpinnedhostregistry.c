/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The registration cache. A source that ignores the page-locked pool but
 * recycles its own buffers (its own pool, a camera's ring) hands the same
 * GstMemory over again and again: page-locking it once with
 * cudaHostRegister() lets every later copy read it at the link's rate,
 * asynchronously, without staging. Memory seen once (a fresh buffer per
 * frame) is never registered: page-locking is slower than copying the
 * frame.
 *
 * What is known of a memory is kept on the memory itself (qdata of its
 * root, which shares keep alive), so that
 * - each memory is asked about (cudaPointerGetAttributes()) once in its
 *   life, not per frame;
 * - a registration lives exactly as long as the memory: its destroy notify
 *   unregisters when the memory is freed, before its bytes go back to
 *   their allocator. Whoever copies from registered memory holds the buffer
 *   until the copy's fence has signalled, so the memory cannot be freed,
 *   nor its owner write it again, while the DMA engine reads it.
 *
 * Only the page-aligned interior of a memory is registered: page-locking
 * works on whole pages, and two memories of one heap can share a page at
 * their ends (a second registration of that page would fail). The partial
 * pages at the ends, at most a page each, are copied through CUDA's own
 * staging.
 *
 * A registry bounds the bytes it keeps registered; a registration keeps its
 * registry (and the device context) alive until it is dropped. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>

#include "memory/gstpinnedhostregistry-private.h"
#include "memory/gstpinnedhostlock-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_host_registry_debug,
    "pinnedhostregistry", "gst-pinned registration of upstream memory");
#define GST_CAT_DEFAULT gst_pinned_host_registry_debug

/* Below this, registering costs more than it saves. */
#define MIN_REGISTER_BYTES (64 * 1024)

struct _GstPinnedHostRegistry
{
  gint refcount;
  GstPinnedContext *context;
  /* Under the state lock: registrations are dropped from any thread. */
  gsize max_bytes;
  gsize bytes;
};

typedef struct
{
  GstPinnedHostRegistry *registry;
  guint8 *start;
  gsize size;
} Registration;

/* The other states of a memory, without storage. */
static const gchar state_seen[] = "seen";       /* pageable, seen once */
static const gchar state_foreign[] = "foreign"; /* page-locked by another */
static const gchar state_refused[] = "refused"; /* registration failed */

static GQuark state_quark;
/* Held while a memory's state changes: two elements may look at the same
 * memory at once (a tee). */
static GMutex state_lock;

GstPinnedHostRegistry *
gst_pinned_host_registry_new (GstPinnedContext * context, gsize max_bytes)
{
  GstPinnedHostRegistry *registry;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  ensure_debug_category ();

  registry = g_new0 (GstPinnedHostRegistry, 1);
  registry->refcount = 1;
  registry->context = gst_object_ref (context);
  registry->max_bytes = max_bytes;

  return registry;
}

GstPinnedHostRegistry *
gst_pinned_host_registry_ref (GstPinnedHostRegistry * registry)
{
  g_atomic_int_inc (&registry->refcount);
  return registry;
}

void
gst_pinned_host_registry_unref (GstPinnedHostRegistry * registry)
{
  if (!g_atomic_int_dec_and_test (&registry->refcount))
    return;

  gst_object_unref (registry->context);
  g_free (registry);
}

void
gst_pinned_host_registry_set_max_bytes (GstPinnedHostRegistry * registry,
    gsize max_bytes)
{
  g_mutex_lock (&state_lock);
  registry->max_bytes = max_bytes;
  g_mutex_unlock (&state_lock);
}

gsize
gst_pinned_host_registry_get_bytes (GstPinnedHostRegistry * registry)
{
  gsize bytes;

  g_mutex_lock (&state_lock);
  bytes = registry->bytes;
  g_mutex_unlock (&state_lock);

  return bytes;
}

/* The memory is being freed: every copy that read it has finished (its
 * reader held the buffer until then). */
static void
registration_drop (Registration * reg)
{
  GstPinnedContext *context = reg->registry->context;

  GST_LOG ("unregistering %" G_GSIZE_FORMAT " bytes at %p", reg->size,
      reg->start);
  if (gst_pinned_context_push (context, NULL)) {
    gst_pinned_host_lock_unregister (reg->start, reg->size);
    gst_pinned_context_pop (context);
  }
  g_mutex_lock (&state_lock);
  reg->registry->bytes -= reg->size;
  g_mutex_unlock (&state_lock);
  gst_pinned_host_registry_unref (reg->registry);
  g_free (reg);
}

static GstMemory *
root_of (GstMemory * mem)
{
  while (mem->parent)
    mem = mem->parent;
  return mem;
}

/* Page-locks the page-aligned interior of @root's allocation, which starts
 * at @base. Called with the state lock held. */
static Registration *
try_register (GstPinnedHostRegistry * registry, GstMemory * root, guint8 * base)
{
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr first = ((guintptr) base + page - 1) & ~(page - 1);
  guintptr last = ((guintptr) base + root->maxsize) & ~(page - 1);
  Registration *reg;
  GError *error = NULL;
  gsize size;
  gboolean ok;

  if (last <= first || last - first < MIN_REGISTER_BYTES)
    return NULL;
  size = last - first;

  /* The memory of a file descriptor (dmabuf) is mapped only while it is
   * mapped: a registration would outlive the mapping. */
  if (root->allocator && root->allocator->mem_type &&
      (g_str_equal (root->allocator->mem_type, "dmabuf") ||
          g_str_equal (root->allocator->mem_type, "fd")))
    return NULL;

  if (registry->bytes + size > registry->max_bytes) {
    GST_DEBUG ("not registering %" G_GSIZE_FORMAT " bytes: %" G_GSIZE_FORMAT
        " of at most %" G_GSIZE_FORMAT " registered", size, registry->bytes,
        registry->max_bytes);
    return NULL;
  }

  if (!gst_pinned_context_push (registry->context, &error)) {
    g_clear_error (&error);
    return NULL;
  }
  ok = gst_pinned_host_lock_register ((gpointer) first, size,
      cudaHostRegisterPortable, &error);
  gst_pinned_context_pop (registry->context);
  if (!ok) {
    GST_INFO ("memory %p cannot be page-locked, staging it instead: %s",
        root, error->message);
    g_clear_error (&error);
    gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (root), state_quark,
        (gpointer) state_refused, NULL);
    return NULL;
  }

  reg = g_new0 (Registration, 1);
  reg->registry = gst_pinned_host_registry_ref (registry);
  reg->start = (guint8 *) first;
  reg->size = size;
  registry->bytes += size;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (root), state_quark, reg,
      (GDestroyNotify) registration_drop);
  GST_DEBUG ("registered %" G_GSIZE_FORMAT " bytes at %p of memory %p", size,
      reg->start, root);

  return reg;
}

GstPinnedHostKind
gst_pinned_host_registry_classify (GstPinnedHostRegistry * registry,
    GstMemory * mem, const guint8 * data, gsize size,
    GstPinnedRegisterPolicy policy, const guint8 ** locked, gsize * locked_size)
{
  GstMemory *root = root_of (mem);
  /* Where the allocation starts: map pointers are offset by mem->offset,
   * and shares keep their parent's base. */
  guint8 *base = (guint8 *) data - mem->offset;
  struct cudaPointerAttributes attr;
  GstPinnedHostKind kind = GST_PINNED_HOST_PAGEABLE;
  Registration *reg = NULL;
  gpointer state;

  ensure_debug_category ();

  g_mutex_lock (&state_lock);
  if (state_quark == 0)
    state_quark = g_quark_from_static_string ("GstPinnedHostState");

  state = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (root), state_quark);

  if (state == NULL) {
    /* First sight: ask CUDA, once in the memory's life; both ends, since
     * memory page-locked in part only cannot be copied as page-locked. */
    if (gst_pinned_cuda_result (cudaPointerGetAttributes (&attr, data), NULL)
        && attr.type == cudaMemoryTypeHost && size > 0 &&
        gst_pinned_cuda_result (cudaPointerGetAttributes (&attr,
                data + size - 1), NULL) && attr.type == cudaMemoryTypeHost) {
      state = (gpointer) state_foreign;
    } else {
      if (registry && policy == GST_PINNED_REGISTER_ALWAYS)
        reg = try_register (registry, root, base);
      state = reg ? (gpointer) reg : (gpointer) state_seen;
    }
    if (reg == NULL)
      gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (root), state_quark,
          state, NULL);
  } else if (state == state_seen && registry &&
      policy != GST_PINNED_REGISTER_NEVER) {
    /* It came back: its owner recycles it. */
    reg = try_register (registry, root, base);
    if (reg)
      state = reg;
  }
  g_mutex_unlock (&state_lock);

  if (state == state_foreign) {
    kind = GST_PINNED_HOST_FOREIGN_LOCKED;
    *locked = data;
    *locked_size = size;
  } else if (state != state_seen && state != state_refused) {
    const guint8 *start, *end;

    reg = state;
    start = MAX (data, reg->start);
    end = MIN (data + size, reg->start + reg->size);
    kind = GST_PINNED_HOST_REGISTERED;
    *locked = start;
    *locked_size = end > start ? end - start : 0;
  }

  return kind;
}
