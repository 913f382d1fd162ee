/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedfence
 * @title: GstPinnedFence
 * @short_description: a point on a CUDA stream that others can wait for
 *
 * A fence is a CUDA event recorded on a stream after work was enqueued.
 * The host waits for it with gst_pinned_fence_wait() (the event is created
 * with %cudaEventBlockingSync, so the waiting thread sleeps instead of
 * spinning), another stream with gst_pinned_fence_wait_on_stream() (no host
 * wait at all), and gst_pinned_fence_is_signaled() asks without waiting.
 *
 * Fences are recycled: when the last reference goes, the event returns to
 * its device's pool and is recorded again later, so steady-state streaming
 * creates no events.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_fence_debug, "pinnedfence",
    "gst-pinned fences");
#define GST_CAT_DEFAULT gst_pinned_fence_debug

struct _GstPinnedFence
{
  GstMiniObject parent;

  cudaEvent_t event;
  /* The stream the event was recorded on, and its unique id (a handle can
   * be reused by a later stream): a later fence of the same stream
   * supersedes this one, as a stream runs its work in order. */
  gpointer stream;
  guint64 stream_id;
  /* Held while the fence is in use; NULL while it waits in the pool. */
  GstPinnedFencePool *pool;
};

struct _GstPinnedFencePool
{
  gint refcount;
  gint device_id;

  GMutex lock;
  GQueue free;
  gboolean closed;
  guint n_created;
};

GST_DEFINE_MINI_OBJECT_TYPE (GstPinnedFence, gst_pinned_fence);

static GstPinnedFencePool *
fence_pool_ref (GstPinnedFencePool * pool)
{
  g_atomic_int_inc (&pool->refcount);
  return pool;
}

static void
fence_pool_unref (GstPinnedFencePool * pool)
{
  if (!g_atomic_int_dec_and_test (&pool->refcount))
    return;

  g_assert (g_queue_is_empty (&pool->free));
  g_mutex_clear (&pool->lock);
  g_free (pool);
}

static gboolean
gst_pinned_fence_dispose (GstPinnedFence * fence)
{
  GstPinnedFencePool *pool = fence->pool;
  gboolean recycled = FALSE;

  fence->pool = NULL;
  fence->stream = NULL;
  fence->stream_id = 0;
  if (pool == NULL)
    return TRUE;

  g_mutex_lock (&pool->lock);
  if (!pool->closed) {
    /* The pool's reference keeps it alive until it is acquired again. */
    gst_mini_object_ref (GST_MINI_OBJECT_CAST (fence));
    g_queue_push_head (&pool->free, fence);
    recycled = TRUE;
  }
  g_mutex_unlock (&pool->lock);
  fence_pool_unref (pool);

  return !recycled;
}

static void
gst_pinned_fence_free (GstPinnedFence * fence)
{
  ensure_debug_category ();
  gst_pinned_cuda_result (cudaEventDestroy (fence->event), NULL);
  g_free (fence);
}

GstPinnedFencePool *
gst_pinned_fence_pool_new (gint device_id)
{
  GstPinnedFencePool *pool = g_new0 (GstPinnedFencePool, 1);

  pool->refcount = 1;
  pool->device_id = device_id;
  g_mutex_init (&pool->lock);
  g_queue_init (&pool->free);

  return pool;
}

/* The context is going: pooled fences die now, fences in use when they are
 * released. */
void
gst_pinned_fence_pool_close (GstPinnedFencePool * pool)
{
  GQueue free_fences = G_QUEUE_INIT;
  GstPinnedFence *fence;

  ensure_debug_category ();

  g_mutex_lock (&pool->lock);
  pool->closed = TRUE;
  free_fences = pool->free;
  g_queue_init (&pool->free);
  g_mutex_unlock (&pool->lock);

  GST_DEBUG ("closing fence pool of device %d: %u events created, %u pooled",
      pool->device_id, pool->n_created, free_fences.length);

  while ((fence = g_queue_pop_head (&free_fences)))
    gst_mini_object_unref (GST_MINI_OBJECT_CAST (fence));

  fence_pool_unref (pool);
}

GstPinnedFence *
gst_pinned_fence_pool_acquire (GstPinnedFencePool * pool, GError ** error)
{
  GstPinnedFence *fence;
  cudaEvent_t event;
  gint prev = -1;
  gboolean ok;

  ensure_debug_category ();

  g_mutex_lock (&pool->lock);
  fence = g_queue_pop_head (&pool->free);
  g_mutex_unlock (&pool->lock);

  if (fence == NULL) {
    /* Events belong to the device that is current when they are made. */
    if (!gst_pinned_cuda_result (cudaGetDevice (&prev), error))
      return NULL;
    if (prev != pool->device_id &&
        !gst_pinned_cuda_result (cudaSetDevice (pool->device_id), error))
      return NULL;
    ok = gst_pinned_cuda_result (cudaEventCreateWithFlags (&event,
            cudaEventDisableTiming | cudaEventBlockingSync), error);
    if (prev != pool->device_id)
      gst_pinned_cuda_result (cudaSetDevice (prev), NULL);
    if (!ok)
      return NULL;

    fence = g_new0 (GstPinnedFence, 1);
    gst_mini_object_init (GST_MINI_OBJECT_CAST (fence), 0,
        GST_TYPE_PINNED_FENCE, NULL,
        (GstMiniObjectDisposeFunction) gst_pinned_fence_dispose,
        (GstMiniObjectFreeFunction) gst_pinned_fence_free);
    fence->event = event;

    g_mutex_lock (&pool->lock);
    pool->n_created++;
    g_mutex_unlock (&pool->lock);
    GST_LOG ("created event %p on device %d", event, pool->device_id);
  }

  fence->pool = fence_pool_ref (pool);
  return fence;
}

gboolean
gst_pinned_fence_record (GstPinnedFence * fence, GstPinnedStream * stream,
    GError ** error)
{
  ensure_debug_category ();

  if (!gst_pinned_cuda_result (cudaEventRecord (fence->event,
              gst_pinned_stream_get_cuda_stream (stream)), error))
    return FALSE;

  fence->stream = gst_pinned_stream_get_handle (stream);
  fence->stream_id = gst_pinned_stream_get_id (stream);
  return TRUE;
}

guint64
gst_pinned_fence_get_stream_id (GstPinnedFence * fence)
{
  return fence->stream_id;
}

/**
 * gst_pinned_fence_is_signaled:
 * @fence: a #GstPinnedFence
 *
 * Asks whether the work before @fence has finished, without waiting.
 *
 * Returns: %TRUE when it has (or when the device reported an error, which
 *   the next call on the stream reports again)
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_is_signaled (GstPinnedFence * fence)
{
  cudaError_t result;

  g_return_val_if_fail (fence != NULL, TRUE);

  ensure_debug_category ();

  result = cudaEventQuery (fence->event);
  if (result == cudaErrorNotReady)
    return FALSE;

  gst_pinned_cuda_result (result, NULL);
  return TRUE;
}

/**
 * gst_pinned_fence_wait:
 * @fence: a #GstPinnedFence
 * @error: (out) (optional): where to describe a failure
 *
 * Blocks the calling thread, sleeping, until the work before @fence has
 * finished.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_wait (GstPinnedFence * fence, GError ** error)
{
  g_return_val_if_fail (fence != NULL, FALSE);

  ensure_debug_category ();

  GST_TRACE ("host wait on event %p", fence->event);
  return gst_pinned_cuda_result (cudaEventSynchronize (fence->event), error);
}

/**
 * gst_pinned_fence_wait_on_stream:
 * @fence: a #GstPinnedFence
 * @stream: a #GstPinnedStream
 * @error: (out) (optional): where to describe a failure
 *
 * Makes the work enqueued on @stream after this call wait for @fence. The
 * host does not wait.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_wait_on_stream (GstPinnedFence * fence,
    GstPinnedStream * stream, GError ** error)
{
  g_return_val_if_fail (fence != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  ensure_debug_category ();

  /* Work already ordered on the same stream needs no wait. */
  if (fence->stream_id == gst_pinned_stream_get_id (stream))
    return TRUE;

  return gst_pinned_cuda_result (cudaStreamWaitEvent ((cudaStream_t)
          gst_pinned_stream_get_handle (stream), fence->event, 0), error);
}

/**
 * gst_pinned_fence_get_handle:
 * @fence: a #GstPinnedFence
 *
 * Returns: (transfer none): the `cudaEvent_t` of @fence; it stays valid
 *   while the caller holds @fence
 *
 * Since: 0.1
 */
gpointer
gst_pinned_fence_get_handle (GstPinnedFence * fence)
{
  g_return_val_if_fail (fence != NULL, NULL);

  return fence->event;
}

/**
 * gst_pinned_fence_get_stream_handle:
 * @fence: a #GstPinnedFence
 *
 * Returns: (transfer none): the `cudaStream_t` @fence was recorded on
 *
 * Since: 0.1
 */
gpointer
gst_pinned_fence_get_stream_handle (GstPinnedFence * fence)
{
  g_return_val_if_fail (fence != NULL, NULL);

  return fence->stream;
}
