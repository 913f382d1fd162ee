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
 * The host waits for it with gst_pinned_fence_wait(), which asks the event
 * and sleeps between asks (it never spins), another stream with
 * gst_pinned_fence_wait_on_stream() (no host wait at all), and
 * gst_pinned_fence_is_signaled() asks without waiting.
 *
 * Fences are recycled: when the last reference goes, the event returns to
 * its device's pool and is recorded again later, so steady-state streaming
 * creates no events.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedfence-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_fence_debug, "pinnedfence",
    "gst-pinned fences");
#define GST_CAT_DEFAULT gst_pinned_fence_debug

/* Events are created once and recycled, one pool per context: creating one
 * per buffer costs a driver call and shows on the per-buffer path. */
typedef struct
{
  gint refcount;
  gint device_id;

  GMutex lock;
  /* Pooled fences, linked through their next_free: a list node per
   * recycling would cost an allocation per fence. */
  GstPinnedFence *free;
  guint n_free;
  gboolean closed;
  guint n_created;
} FencePool;

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
  FencePool *pool;
  /* The next pooled fence, while this one waits in the pool. */
  GstPinnedFence *next_free;
  /* Set once the host saw the work done: later waits need no driver
   * call (a stream reusing a buffer whose last reader's fence the pool
   * gate already saw signalled enqueues no wait). */
  gint signaled;
};

GST_DEFINE_MINI_OBJECT_TYPE (GstPinnedFence, gst_pinned_fence);

/* The host waits of each thread, counted where they all happen, for the
 * elements' statistics: one thread's own, so no lock or atomics. */
static _Thread_local guint64 thread_waits;
static _Thread_local guint64 thread_wait_ns;

static FencePool *
fence_pool_ref (FencePool * pool)
{
  g_atomic_int_inc (&pool->refcount);
  return pool;
}

static void
fence_pool_unref (FencePool * pool)
{
  if (!g_atomic_int_dec_and_test (&pool->refcount))
    return;

  g_assert (pool->free == NULL);
  g_mutex_clear (&pool->lock);
  g_free (pool);
}

static gboolean
gst_pinned_fence_dispose (GstPinnedFence * fence)
{
  FencePool *pool = fence->pool;
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
    fence->next_free = pool->free;
    pool->free = fence;
    pool->n_free++;
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

/* The context is going: pooled fences die now, fences in use when they are
 * released. */
static void
fence_pool_close (FencePool * pool)
{
  GstPinnedFence *fence, *next;
  guint n_free;

  ensure_debug_category ();

  g_mutex_lock (&pool->lock);
  pool->closed = TRUE;
  fence = pool->free;
  n_free = pool->n_free;
  pool->free = NULL;
  pool->n_free = 0;
  g_mutex_unlock (&pool->lock);

  GST_DEBUG ("closing fence pool of device %d: %u events created, %u pooled",
      pool->device_id, pool->n_created, n_free);

  for (; fence != NULL; fence = next) {
    next = fence->next_free;
    fence->next_free = NULL;
    gst_mini_object_unref (GST_MINI_OBJECT_CAST (fence));
  }

  fence_pool_unref (pool);
}

/* The context's pool, made on first use and closed with the context, which
 * itself knows nothing of fences. */
static FencePool *
fence_pool_get (GstPinnedContext * context)
{
  static GQuark quark;
  static GMutex lock;
  FencePool *pool;

  g_mutex_lock (&lock);
  if (quark == 0)
    quark = g_quark_from_static_string ("GstPinnedFencePool");
  pool = g_object_get_qdata (G_OBJECT (context), quark);
  if (pool == NULL) {
    pool = g_new0 (FencePool, 1);
    pool->refcount = 1;
    pool->device_id = gst_pinned_context_get_device_id (context);
    g_mutex_init (&pool->lock);
    g_object_set_qdata_full (G_OBJECT (context), quark, pool,
        (GDestroyNotify) fence_pool_close);
  }
  g_mutex_unlock (&lock);

  return pool;
}

/* How a host waits for a fence. By default the events are plain ones and
 * the host asks (cudaEventQuery) and sleeps between asks, 2 us at first,
 * doubling to 64 us. Blocking-sync events (cudaEventSynchronize sleeps
 * until CUDA's event handler thread wakes it) cost that thread 20 to 45 us
 * of CPU per frame and wake the waiter late: on an H200, NV12 1920x1080 up
 * and back ran at 0.77-0.96 of the link with 45-76 us of CPU per frame, and
 * at 1.01 with 29 us asking (docs/performance.md). GST_PINNED_FENCE_WAIT=
 * block brings blocking-sync events back, for comparison. */
enum
{
  WAIT_POLL,
  WAIT_BLOCK,
};

#define POLL_FIRST_US 2
#define POLL_MAX_US 64

static gint
wait_mode (void)
{
  static gsize mode = 0;

  if (g_once_init_enter (&mode)) {
    gsize m = g_strcmp0 (g_getenv ("GST_PINNED_FENCE_WAIT"), "block") == 0 ?
        WAIT_BLOCK : WAIT_POLL;

    g_once_init_leave (&mode, m + 1);
  }
  return (gint) mode - 1;
}

static GstPinnedFence *
fence_acquire (GstPinnedContext * context, GError ** error)
{
  FencePool *pool = fence_pool_get (context);
  GstPinnedFence *fence;
  cudaEvent_t event;
  gboolean ok;

  g_mutex_lock (&pool->lock);
  fence = pool->free;
  if (fence != NULL) {
    pool->free = fence->next_free;
    pool->n_free--;
    fence->next_free = NULL;
  }
  g_mutex_unlock (&pool->lock);

  if (fence == NULL) {
    /* Events belong to the device that is current when they are made. */
    if (!gst_pinned_context_push (context, error))
      return NULL;
    ok = gst_pinned_cuda_result (cudaEventCreateWithFlags (&event,
            cudaEventDisableTiming | (wait_mode () == WAIT_BLOCK ?
                cudaEventBlockingSync : 0)), error);
    gst_pinned_context_pop (context);
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

/**
 * gst_pinned_stream_record_fence:
 * @stream: a #GstPinnedStream
 * @error: (out) (optional): where to describe a failure
 *
 * Records a fence after the work enqueued on @stream so far.
 *
 * Returns: (transfer full) (nullable): the fence
 *
 * Since: 0.1
 */
GstPinnedFence *
gst_pinned_stream_record_fence (GstPinnedStream * stream, GError ** error)
{
  GstPinnedContext *context;
  GstPinnedFence *fence;
  gboolean ok;

  g_return_val_if_fail (stream != NULL, NULL);

  ensure_debug_category ();

  context = gst_pinned_stream_get_context (stream);
  fence = fence_acquire (context, error);
  if (fence == NULL)
    return NULL;

  if (!gst_pinned_context_push (context, error)) {
    gst_pinned_fence_unref (fence);
    return NULL;
  }
  ok = gst_pinned_cuda_result (cudaEventRecord (fence->event,
          gst_pinned_stream_get_cuda_stream (stream)), error);
  gst_pinned_context_pop (context);

  if (!ok) {
    gst_pinned_fence_unref (fence);
    return NULL;
  }

  fence->stream = gst_pinned_stream_get_handle (stream);
  fence->stream_id = gst_pinned_stream_get_id (stream);
  g_atomic_int_set (&fence->signaled, 0);
  return fence;
}

guint64
gst_pinned_fence_get_stream_id (GstPinnedFence * fence)
{
  return fence->stream_id;
}

gboolean
gst_pinned_fence_query (GstPinnedFence * fence, gboolean * signaled,
    GError ** error)
{
  cudaError_t result;

  ensure_debug_category ();

  if (g_atomic_int_get (&fence->signaled)) {
    *signaled = TRUE;
    return TRUE;
  }

  result = cudaEventQuery (fence->event);
  *signaled = result != cudaErrorNotReady;
  if (result == cudaErrorNotReady)
    return TRUE;
  /* Only success is remembered: failed work must keep failing its users. */
  if (result == cudaSuccess)
    g_atomic_int_set (&fence->signaled, 1);
  return _gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
      __FILE__, GST_FUNCTION, __LINE__, error);
}

/**
 * gst_pinned_fence_is_signaled:
 * @fence: a #GstPinnedFence
 *
 * Asks whether the work before @fence has finished, without waiting.
 *
 * Work that failed has finished too: a poll ends, and gst_pinned_fence_wait()
 * would not block but return the error. So %TRUE does not mean that the
 * work succeeded: before touching what it wrote, get the result from
 * gst_pinned_fence_wait() (as mapping gst-pinned memory does).
 *
 * Returns: %TRUE when the work has finished, or failed
 *
 * Since: 0.1
 */
gboolean
gst_pinned_fence_is_signaled (GstPinnedFence * fence)
{
  gboolean signaled;

  g_return_val_if_fail (fence != NULL, TRUE);

  gst_pinned_fence_query (fence, &signaled, NULL);
  return signaled;
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
  GstClockTime start;
  cudaError_t result;
  gboolean ok;

  g_return_val_if_fail (fence != NULL, FALSE);

  ensure_debug_category ();

  if (g_atomic_int_get (&fence->signaled))
    return TRUE;
  /* Finished work: one question, and no wait. */
  if ((result = cudaEventQuery (fence->event)) != cudaErrorNotReady) {
    ok = _gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
        __FILE__, GST_FUNCTION, __LINE__, error);
    if (ok)
      g_atomic_int_set (&fence->signaled, 1);
    return ok;
  }

  GST_TRACE ("host wait on event %p", fence->event);
  start = gst_util_get_timestamp ();
  if (wait_mode () == WAIT_POLL) {
    gulong sleep_us = POLL_FIRST_US;

    /* Running work: each question costs the host microseconds (more than
     * one about finished work), so sleep before the next. */
    do {
      g_usleep (sleep_us);
      sleep_us = MIN (sleep_us * 2, POLL_MAX_US);
    } while ((result = cudaEventQuery (fence->event)) == cudaErrorNotReady);
    ok = _gst_pinned_cuda_result (result, "cudaEventQuery", GST_CAT_DEFAULT,
        __FILE__, GST_FUNCTION, __LINE__, error);
  } else {
    ok = gst_pinned_cuda_result (cudaEventSynchronize (fence->event), error);
  }
  thread_waits++;
  thread_wait_ns += gst_util_get_timestamp () - start;
  if (!ok)
    return FALSE;
  g_atomic_int_set (&fence->signaled, 1);
  return TRUE;
}

void
gst_pinned_fence_get_thread_waits (guint64 * waits, guint64 * ns)
{
  *waits = thread_waits;
  *ns = thread_wait_ns;
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

  /* Work already ordered on the same stream, or seen done, needs no
   * wait. */
  if (fence->stream_id == gst_pinned_stream_get_id (stream) ||
      g_atomic_int_get (&fence->signaled))
    return TRUE;

  return gst_pinned_cuda_result (cudaStreamWaitEvent
      (gst_pinned_stream_get_cuda_stream (stream), fence->event, 0), error);
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
