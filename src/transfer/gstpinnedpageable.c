/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedpageable
 * @title: GstPinnedPageable
 * @short_description: fast copies of frames in pageable host memory
 *
 * A source that writes into the page-locked pool an upload offers is copied
 * at the link's rate as it is. One that does not (a camera's own buffers, a
 * decoder or file reader with buffers of its own, an application's
 * malloc()ed frames) hands over pageable memory, which the DMA engine
 * cannot read: CUDA then stages it itself, on the calling thread, at one
 * thread's memcpy rate. A #GstPinnedPageable, passed to
 * gst_pinned_transfer_video_frame_full(), chooses a faster way per memory:
 *
 * - memory that comes back (its owner recycles it) is page-locked once with
 *   cudaHostRegister() and copied directly from then on; the registration
 *   is dropped when the memory is freed. Registered memory makes the copy
 *   truly asynchronous, so the input buffer is kept (a reference) until its
 *   copy's fence has signalled: its owner can neither write nor free it
 *   while the DMA engine reads it. At most two such inputs are kept across
 *   frames (fewer when the owner's pool is that small, none for buffers of
 *   no pool), so an owner that waits for its buffers to come back never
 *   waits for ever; held inputs are released as their fences signal,
 *   checked without waiting at each frame, and all of them on
 *   gst_pinned_pageable_flush();
 * - memory seen once (a fresh buffer per frame) is staged: copied into
 *   page-locked buffers of our own by worker threads while the caller goes
 *   on, the DMA behind them on the stream (a host function waits for
 *   them); the input is kept until they are done. Fresh memory of more
 *   than 16 MiB, or with one thread, is copied in chunks by the calling
 *   thread and the workers, each chunk's DMA enqueued as soon as it lands;
 * - the way back, into pageable memory, is staged the same way.
 *
 * #GstPinnedPageable:mode forces one of the ways, for measurements and
 * tests.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "transfer/gstpinnedpageable-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "gst/pinned/gstpinnedfence.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_pageable_debug);
#define GST_CAT_DEFAULT gst_pinned_pageable_debug

#define DEFAULT_MODE GST_PINNED_PAGEABLE_AUTO
#define DEFAULT_THREADS 0
/* 4K RGBA is 33 MB a frame: eight of them and then some. */
#define DEFAULT_REGISTER_LIMIT (G_GUINT64_CONSTANT (1) << 30)
/* Inputs kept across frames when their pool does not limit it. */
#define MAX_HELD 2

typedef struct
{
  GstBuffer *buffer;
  GstPinnedFence *fence;
} Held;

struct _GstPinnedPageable
{
  GstObject parent;

  GstPinnedContext *context;
  GstPinnedPageableMode mode;
  guint n_threads;
  GstAllocator *staging_allocator;

  GstPinnedHostRegistry *registry;
  GstPinnedStager *stager;

  /* Inputs whose copies may still read them, oldest first. */
  GMutex lock;
  GQueue held;
  /* held.length, read without the lock on every frame */
  gint n_held;
  /* The last pool seen and its max-buffers, to size the above. */
  GstBufferPool *last_pool;
  guint last_pool_max;

  guint64 counts[GST_PINNED_PATH_LAST];
};

G_DEFINE_TYPE_WITH_CODE (GstPinnedPageable, gst_pinned_pageable,
    GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_pageable_debug, "pinnedpageable", 0,
        "gst-pinned pageable memory paths"));

GType
gst_pinned_pageable_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_PINNED_PAGEABLE_AUTO, "Register memory that comes back, stage the "
          "rest", "auto"},
    {GST_PINNED_PAGEABLE_REGISTER, "Page-lock pageable memory at first sight "
          "(cudaHostRegister)", "register"},
    {GST_PINNED_PAGEABLE_STAGE, "Copy through page-locked staging on several "
          "threads", "stage"},
    {GST_PINNED_PAGEABLE_DIRECT, "Hand pageable memory to CUDA as it is",
        "direct"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstPinnedPageableMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
held_release (Held * held)
{
  gst_pinned_fence_unref (held->fence);
  gst_buffer_unref (held->buffer);
  g_free (held);
}

static void
gst_pinned_pageable_finalize (GObject * object)
{
  GstPinnedPageable *self = GST_PINNED_PAGEABLE (object);

  gst_pinned_pageable_flush (self, NULL);
  if (self->stager)
    gst_pinned_stager_free (self->stager);
  gst_pinned_host_registry_unref (self->registry);
  gst_clear_object (&self->staging_allocator);
  gst_object_unref (self->context);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gst_pinned_pageable_parent_class)->finalize (object);
}

static void
gst_pinned_pageable_class_init (GstPinnedPageableClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->finalize = gst_pinned_pageable_finalize;
}

static void
gst_pinned_pageable_init (GstPinnedPageable * self)
{
  self->mode = DEFAULT_MODE;
  self->n_threads = DEFAULT_THREADS;
  g_mutex_init (&self->lock);
  g_queue_init (&self->held);
}

/**
 * gst_pinned_pageable_new:
 * @context: the device context of the copies
 *
 * Returns: (transfer full): a new #GstPinnedPageable in mode
 *   %GST_PINNED_PAGEABLE_AUTO, with automatic threads and a bound of 1 GiB
 *   of registered memory
 *
 * Since: 0.1
 */
GstPinnedPageable *
gst_pinned_pageable_new (GstPinnedContext * context)
{
  GstPinnedPageable *self;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_PINNED_PAGEABLE, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->registry = gst_pinned_host_registry_new (context,
      DEFAULT_REGISTER_LIMIT);

  return self;
}

/**
 * gst_pinned_pageable_set_mode:
 * @self: a #GstPinnedPageable
 * @mode: how pageable memory is copied from now on
 *
 * Since: 0.1
 */
void
gst_pinned_pageable_set_mode (GstPinnedPageable * self,
    GstPinnedPageableMode mode)
{
  g_return_if_fail (GST_IS_PINNED_PAGEABLE (self));

  self->mode = mode;
}

/**
 * gst_pinned_pageable_get_mode:
 * @self: a #GstPinnedPageable
 *
 * Returns: the mode
 *
 * Since: 0.1
 */
GstPinnedPageableMode
gst_pinned_pageable_get_mode (GstPinnedPageable * self)
{
  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), DEFAULT_MODE);

  return self->mode;
}

/**
 * gst_pinned_pageable_set_threads:
 * @self: a #GstPinnedPageable
 * @n_threads: threads that copy through staging, the calling one included;
 *   0 for one per core, at most 8 (where an upload stages fresh memory
 *   without waiting, a worker of its own takes each frame then)
 *
 * Since: 0.1
 */
void
gst_pinned_pageable_set_threads (GstPinnedPageable * self, guint n_threads)
{
  g_return_if_fail (GST_IS_PINNED_PAGEABLE (self));

  self->n_threads = n_threads;
  if (self->stager)
    gst_pinned_stager_set_threads (self->stager, n_threads);
}

/**
 * gst_pinned_pageable_get_threads:
 * @self: a #GstPinnedPageable
 *
 * Returns: the threads that copy through staging, the calling one included
 *   (the automatic count resolved)
 *
 * Since: 0.1
 */
guint
gst_pinned_pageable_get_threads (GstPinnedPageable * self)
{
  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), 0);

  return gst_pinned_stager_resolve_threads (self->n_threads);
}

/**
 * gst_pinned_pageable_get_running_threads:
 * @self: a #GstPinnedPageable
 *
 * Returns: the staging worker threads alive now; none before the first
 *   staged copy and after gst_pinned_pageable_flush()
 *
 * Since: 0.1
 */
guint
gst_pinned_pageable_get_running_threads (GstPinnedPageable * self)
{
  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), 0);

  return self->stager ? gst_pinned_stager_get_running_threads (self->stager) :
      0;
}

/**
 * gst_pinned_pageable_set_register_limit:
 * @self: a #GstPinnedPageable
 * @bytes: at most this much memory is kept registered at once
 *
 * Since: 0.1
 */
void
gst_pinned_pageable_set_register_limit (GstPinnedPageable * self, guint64 bytes)
{
  g_return_if_fail (GST_IS_PINNED_PAGEABLE (self));

  gst_pinned_host_registry_set_max_bytes (self->registry, bytes);
}

/**
 * gst_pinned_pageable_get_registered_bytes:
 * @self: a #GstPinnedPageable
 *
 * Returns: the bytes registered through @self whose memory still lives
 *
 * Since: 0.1
 */
guint64
gst_pinned_pageable_get_registered_bytes (GstPinnedPageable * self)
{
  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), 0);

  return gst_pinned_host_registry_get_bytes (self->registry);
}

/**
 * gst_pinned_pageable_set_staging_allocator:
 * @self: a #GstPinnedPageable
 * @allocator: a #GstPinnedHostAllocator for the staging buffers (its
 *   flags: write-combined memory suits staging for an upload)
 *
 * Since: 0.1
 */
void
gst_pinned_pageable_set_staging_allocator (GstPinnedPageable * self,
    GstAllocator * allocator)
{
  g_return_if_fail (GST_IS_PINNED_PAGEABLE (self));

  gst_object_replace ((GstObject **) & self->staging_allocator,
      GST_OBJECT (allocator));
  if (self->stager && allocator)
    gst_pinned_stager_set_allocator (self->stager, allocator);
}

/**
 * gst_pinned_pageable_get_n_held:
 * @self: a #GstPinnedPageable
 *
 * Returns: the input buffers kept until their copies are done
 *
 * Since: 0.1
 */
guint
gst_pinned_pageable_get_n_held (GstPinnedPageable * self)
{
  guint n;

  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), 0);

  g_mutex_lock (&self->lock);
  n = self->held.length;
  g_mutex_unlock (&self->lock);

  return n;
}

/**
 * gst_pinned_pageable_get_count:
 * @self: a #GstPinnedPageable
 * @path: a way of copying
 *
 * Returns: how many memories of host frames were copied that way
 *
 * Since: 0.1
 */
guint64
gst_pinned_pageable_get_count (GstPinnedPageable * self,
    GstPinnedPageablePath path)
{
  guint64 n;

  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), 0);
  g_return_val_if_fail (path < GST_PINNED_PATH_LAST, 0);

  g_mutex_lock (&self->lock);
  n = self->counts[path];
  g_mutex_unlock (&self->lock);

  return n;
}

/**
 * gst_pinned_pageable_get_stats:
 * @self: a #GstPinnedPageable
 *
 * What @self did so far, for applications and benchmarks: how many
 * memories went each way (`pinned` is not counted; `locked`, `registered`,
 * `staged`, `direct`: #guint64), the bytes registered now
 * (`registered-bytes`, #guint64), the staging threads, the calling one
 * included (`copy-threads`, #guint) and those running now
 * (`running-threads`, #guint), and the inputs kept until their copies are
 * done (`held`, #guint).
 *
 * Returns: (transfer full): a #GstStructure named `pinned-pageable-stats`
 *
 * Since: 0.1
 */
GstStructure *
gst_pinned_pageable_get_stats (GstPinnedPageable * self)
{
  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), NULL);

  return gst_structure_new ("pinned-pageable-stats",
      "locked", G_TYPE_UINT64, gst_pinned_pageable_get_count (self,
          GST_PINNED_PATH_LOCKED),
      "registered", G_TYPE_UINT64, gst_pinned_pageable_get_count (self,
          GST_PINNED_PATH_REGISTERED),
      "staged", G_TYPE_UINT64, gst_pinned_pageable_get_count (self,
          GST_PINNED_PATH_STAGED),
      "direct", G_TYPE_UINT64, gst_pinned_pageable_get_count (self,
          GST_PINNED_PATH_DIRECT),
      "registered-bytes", G_TYPE_UINT64,
      gst_pinned_pageable_get_registered_bytes (self),
      "copy-threads", G_TYPE_UINT, gst_pinned_pageable_get_threads (self),
      "running-threads", G_TYPE_UINT,
      gst_pinned_pageable_get_running_threads (self),
      "held", G_TYPE_UINT, gst_pinned_pageable_get_n_held (self), NULL);
}

/**
 * gst_pinned_pageable_flush:
 * @self: a #GstPinnedPageable
 * @error: (out) (optional): where to describe a failed wait
 *
 * Releases every kept input buffer once its copy is done (a host wait) and
 * joins the staging threads. For flushes and stop.
 *
 * Returns: %TRUE when every wait succeeded
 *
 * Since: 0.1
 */
gboolean
gst_pinned_pageable_flush (GstPinnedPageable * self, GError ** error)
{
  GQueue held = G_QUEUE_INIT;
  gboolean ok = TRUE;
  Held *h;

  g_return_val_if_fail (GST_IS_PINNED_PAGEABLE (self), FALSE);

  g_mutex_lock (&self->lock);
  held = self->held;
  g_queue_init (&self->held);
  g_atomic_int_set (&self->n_held, 0);
  self->last_pool = NULL;
  g_mutex_unlock (&self->lock);

  if (held.length)
    GST_DEBUG_OBJECT (self, "releasing %u inputs after their copies",
        held.length);
  while ((h = g_queue_pop_head (&held))) {
    /* Even after a failed wait: CUDA errors stick to the context, and the
     * buffer must go back to its owner at some point. */
    if (!gst_pinned_host_wait_for_hold (h->fence, ok ? error : NULL))
      ok = FALSE;
    held_release (h);
  }

  if (self->stager)
    gst_pinned_stager_stop (self->stager);

  return ok;
}

GstPinnedHostRegistry *
gst_pinned_pageable_get_registry (GstPinnedPageable * self)
{
  return self->registry;
}

GstPinnedRegisterPolicy
gst_pinned_pageable_get_policy (GstPinnedPageable * self)
{
  switch (self->mode) {
    case GST_PINNED_PAGEABLE_AUTO:
      return GST_PINNED_REGISTER_RECYCLED;
    case GST_PINNED_PAGEABLE_REGISTER:
      return GST_PINNED_REGISTER_ALWAYS;
    default:
      return GST_PINNED_REGISTER_NEVER;
  }
}

GstPinnedStager *
gst_pinned_pageable_get_stager (GstPinnedPageable * self)
{
  if (self->stager == NULL) {
    self->stager = gst_pinned_stager_new (self->context);
    gst_pinned_stager_set_threads (self->stager, self->n_threads);
    if (self->staging_allocator)
      gst_pinned_stager_set_allocator (self->stager, self->staging_allocator);
  }
  return self->stager;
}

void
gst_pinned_pageable_release_done (GstPinnedPageable * self)
{
  GQueue done = G_QUEUE_INIT;
  Held *h;

  /* Sources staged by threads that are done: freed here, by the thread
   * that streams, not by a worker (see gstpinnedstager.c). */
  if (self->stager)
    gst_pinned_stager_release_done (self->stager);
  if (g_atomic_int_get (&self->n_held) == 0)
    return;

  g_mutex_lock (&self->lock);
  /* One stream, in order: the first one still running ends the search. */
  while ((h = g_queue_peek_head (&self->held)) &&
      gst_pinned_fence_is_signaled (h->fence))
    g_queue_push_tail (&done, g_queue_pop_head (&self->held));
  g_atomic_int_set (&self->n_held, self->held.length);
  g_mutex_unlock (&self->lock);

  /* Outside the lock: a release can free memory and unregister it. */
  while ((h = g_queue_pop_head (&done)))
    held_release (h);
}

/* How many inputs of @buffer's pool may be kept across frames: a pool of
 * few buffers must keep one for its owner to fill and one spare. */
static guint
max_held (GstPinnedPageable * self, GstBuffer * buffer)
{
  GstBufferPool *pool = buffer->pool;

  if (pool == NULL)
    return 0;

  if (pool != self->last_pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    guint max = 0;

    gst_buffer_pool_config_get_params (config, NULL, NULL, NULL, &max);
    gst_structure_free (config);
    self->last_pool = pool;
    self->last_pool_max = max;
  }

  if (self->last_pool_max == 0)
    return MAX_HELD;
  return self->last_pool_max > 2 ? MIN (self->last_pool_max - 2, MAX_HELD) : 0;
}

gboolean
gst_pinned_pageable_hold (GstPinnedPageable * self, GstBuffer * buffer,
    GstPinnedFence * fence, GError ** error)
{
  GQueue excess = G_QUEUE_INIT;
  gboolean ok = TRUE;
  guint limit;
  Held *h;

  gst_pinned_pageable_release_done (self);

  h = g_new0 (Held, 1);
  h->buffer = gst_buffer_ref (buffer);
  h->fence = gst_pinned_fence_ref (fence);

  g_mutex_lock (&self->lock);
  limit = max_held (self, buffer);
  g_queue_push_tail (&self->held, h);
  while (self->held.length > limit)
    g_queue_push_tail (&excess, g_queue_pop_head (&self->held));
  g_atomic_int_set (&self->n_held, self->held.length);
  g_mutex_unlock (&self->lock);

  /* Backpressure: the owner needs these back before the next frame. */
  while ((h = g_queue_pop_head (&excess))) {
    if (!gst_pinned_host_wait_for_hold (h->fence, ok ? error : NULL))
      ok = FALSE;
    held_release (h);
  }

  return ok;
}

void
gst_pinned_pageable_count (GstPinnedPageable * self, GstPinnedPageablePath path)
{
  g_mutex_lock (&self->lock);
  self->counts[path]++;
  g_mutex_unlock (&self->lock);
}
