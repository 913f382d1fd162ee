/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The fences of one gst-pinned memory (its GstPinnedMemoryPrivate): the
 * writer and the readers of the GPU work on it, how a stream or the host
 * waits for those an access must follow, and how new work joins them (a
 * read joins the readers, replacing its own stream's; a write replaces
 * writer and readers). The memory (gstpinnedmemory.c) and its allocator
 * keep one each; shares use their parent's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedmemoryfences-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_pinned_memory_debug);
#define GST_CAT_DEFAULT gst_pinned_memory_debug

/* Shares hand their fences to the memory they were shared from (as
 * fence_owner() in gstpinnedmemory.c). */
GstPinnedMemoryPrivate *
gst_pinned_memory_fences_of (GstPinnedMemory * mem)
{
  return (mem->mem.parent ? (GstPinnedMemory *) mem->mem.parent : mem)->priv;
}

void
gst_pinned_memory_fences_init (GstPinnedMemoryPrivate * priv)
{
  g_mutex_init (&priv->lock);
  priv->readers =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gst_pinned_fence_unref);
}

void
gst_pinned_memory_fences_clear (GstPinnedMemoryPrivate * priv)
{
  gst_clear_pinned_fence (&priv->writer);
  g_ptr_array_unref (priv->readers);
  g_mutex_clear (&priv->lock);
}

/* The fences an access must come after, referenced. Most memories have a
 * writer and a reader or two: those fit on the stack. */
#define STACK_FENCES 8

typedef struct
{
  GstPinnedFence *stack[STACK_FENCES];
  GstPinnedFence **fences;
  guint n;
  gboolean has_writer;          /* fences[0] is the writer's */
} FenceList;

static void
collect_fences (GstPinnedMemoryPrivate * priv, GstMapFlags access,
    FenceList * list)
{
  guint i, max;

  g_mutex_lock (&priv->lock);
  max = 1 + ((access & GST_MAP_WRITE) ? priv->readers->len : 0);
  list->fences = max <= STACK_FENCES ? list->stack :
      g_new (GstPinnedFence *, max);
  list->n = 0;
  list->has_writer = priv->writer != NULL;
  if (priv->writer)
    list->fences[list->n++] = gst_pinned_fence_ref (priv->writer);
  if (access & GST_MAP_WRITE) {
    for (i = 0; i < priv->readers->len; i++)
      list->fences[list->n++] =
          gst_pinned_fence_ref (g_ptr_array_index (priv->readers, i));
  }
  g_mutex_unlock (&priv->lock);
}

static void
fence_list_clear (FenceList * list)
{
  guint i;

  for (i = 0; i < list->n; i++)
    gst_pinned_fence_unref (list->fences[i]);
  if (list->fences != list->stack)
    g_free (list->fences);
  list->n = 0;
}

/* Drops fences that were found signalled, so that their events return to
 * the pool early and later checks cost nothing. */
static void
forget_fences (GstPinnedMemoryPrivate * priv, FenceList * list)
{
  guint i;

  g_mutex_lock (&priv->lock);
  for (i = 0; i < list->n; i++) {
    if (priv->writer == list->fences[i])
      gst_clear_pinned_fence (&priv->writer);
    else
      g_ptr_array_remove_fast (priv->readers, list->fences[i]);
  }
  g_mutex_unlock (&priv->lock);
}

gboolean
gst_pinned_memory_fences_sync_stream (GstPinnedMemoryPrivate * priv,
    GstMapFlags access, GstPinnedStream * stream, GError ** error)
{
  FenceList list;
  gboolean ret = TRUE;
  guint i;

  collect_fences (priv, access, &list);
  for (i = 0; i < list.n && ret; i++)
    ret = gst_pinned_fence_wait_on_stream (list.fences[i], stream, error);
  fence_list_clear (&list);

  return ret;
}

void
gst_pinned_memory_fences_add (GstPinnedMemoryPrivate * priv,
    GstPinnedFence * fence, GstMapFlags access)
{
  guint64 stream_id;
  guint i;

  stream_id = gst_pinned_fence_get_stream_id (fence);

  g_mutex_lock (&priv->lock);
  if (access & GST_MAP_WRITE) {
    gst_clear_pinned_fence (&priv->writer);
    priv->writer = gst_pinned_fence_ref (fence);
    g_ptr_array_set_size (priv->readers, 0);
  } else {
    for (i = 0; i < priv->readers->len; i++) {
      GstPinnedFence *reader = g_ptr_array_index (priv->readers, i);

      if (gst_pinned_fence_get_stream_id (reader) == stream_id) {
        g_ptr_array_remove_index_fast (priv->readers, i);
        break;
      }
    }
    g_ptr_array_add (priv->readers, gst_pinned_fence_ref (fence));
  }
  g_mutex_unlock (&priv->lock);
}

gboolean
gst_pinned_memory_fences_wait (GstPinnedMemoryPrivate * priv, gpointer mem,
    GstMapFlags access, gboolean gate, GError ** error)
{
  FenceList list;
  gboolean ret = TRUE;
  guint i;

  collect_fences (priv, access, &list);
  for (i = 0; i < list.n && ret; i++) {
    GError *failure = NULL;

    /* Finished work costs no wait (and no second question). */
    if (gate ? gst_pinned_fence_wait_gate (list.fences[i], &failure) :
        gst_pinned_fence_wait (list.fences[i], &failure))
      continue;

    /* Failed work (a device error: it will never run). Reading what the
     * failed writer should have written fails, rather than hand the CPU
     * bytes the copy never filled; an access that overwrites, or that
     * only had to wait for a reader, can go on: what the failed work did
     * no longer matters to it. */
    if (i == 0 && list.has_writer && (access & GST_MAP_READ)) {
      g_propagate_error (error, failure);
      ret = FALSE;
    } else {
      GST_DEBUG ("memory %p: fence of failed work, no longer needed: %s",
          mem, failure->message);
      g_clear_error (&failure);
    }
  }
  if (ret && list.n > 0)
    forget_fences (priv, &list);
  fence_list_clear (&list);

  return ret;
}

gboolean
gst_pinned_memory_fences_is_idle (GstPinnedMemoryPrivate * priv,
    GstMapFlags access)
{
  FenceList list;
  gboolean idle = TRUE;
  guint i;

  collect_fences (priv, access, &list);
  for (i = 0; i < list.n && idle; i++)
    idle = gst_pinned_fence_is_signaled (list.fences[i]);
  fence_list_clear (&list);

  return idle;
}

GstPinnedFence *
gst_pinned_memory_fences_get_writer (GstPinnedMemoryPrivate * priv)
{
  GstPinnedFence *fence = NULL;

  g_mutex_lock (&priv->lock);
  if (priv->writer)
    fence = gst_pinned_fence_ref (priv->writer);
  g_mutex_unlock (&priv->lock);

  return fence;
}
