/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedbasetransform
 * @title: GstPinnedBaseTransform
 * @short_description: base class of gst-pinned's elements
 *
 * Owns what every gst-pinned element needs: the `device-id` property, the
 * #GstPinnedContext (shared with the pipeline through #GstContext, opened in
 * GstBaseTransform.start()), the element's own non-blocking stream, and the
 * negotiated video infos. A device that cannot be used fails the state
 * change with a resource error that carries the CUDA error.
 *
 * In builds with CUDA interop the context is also shared with GStreamer's
 * nvcodec elements through `gst.cuda.context` (see
 * gst_pinned_cuda_ensure_element_context()): the base class answers and
 * asks for both context types.
 *
 * It also keeps the element's statistics, the read-only `stats` property:
 * counters the streaming thread adds to with atomics (no lock per buffer),
 * the host waits of that thread, and the GPU time of every Nth frame's
 * copy or kernel, from a pair of timing events the element records on its
 * stream (never waited for: they are read N frames later, or when the
 * statistics are read).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedbasetransform-private.h"
#include "gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedbufferpool.h"
#include "gst/pinned/gstpinneddevicememory.h"
#ifdef HAVE_CUDA_INTEROP
#include "gst/pinned/gstpinnedcudacontext.h"
#include "gst/pinned/gstpinnedcudamemory.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_base_transform_debug);
#define GST_CAT_DEFAULT gst_pinned_base_transform_debug

#define DEFAULT_DEVICE_ID GST_PINNED_DEVICE_ID_ANY
#define DEFAULT_SHARED_STREAM FALSE
#define DEFAULT_DEVICE_ALLOC GST_PINNED_DEVICE_ALLOC_DEFAULT
#define DEFAULT_POOL_SIZE 4
/* A partial batch goes after this long without its last frame: an
 * application that pushes a frame and waits for it gets it. */
#define DEFAULT_BATCH_TIMEOUT_US 1000
/* Every how many frames the GPU work is timed */
#define DEFAULT_TIMING_INTERVAL 16

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_SHARED_STREAM,
  PROP_POOL_SIZE,
  PROP_BATCH_TIMEOUT,
  PROP_DEVICE_ALLOC,
  PROP_STATS,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

/* Counted by the streaming thread with relaxed atomics, read by anyone: a
 * reader sees each counter whole, if not all of them at one instant. */
typedef struct
{
  guint64 buffers;
  guint64 copies;
  guint64 bytes;
  guint64 pageable_buffers;
  guint64 paths[GST_PINNED_PATH_LAST];
  guint64 host_waits;
  guint64 host_wait_ns;
  guint64 gpu_samples;
  guint64 gpu_ns;
} Stats;

#define STAT_ADD(field, n) __atomic_fetch_add (&(field), (n), __ATOMIC_RELAXED)
#define STAT_GET(field) __atomic_load_n (&(field), __ATOMIC_RELAXED)

/* The GPU time of one frame's work in N: a pair of timing events, recorded
 * around the work, read when the next frame is due to be timed (or the
 * statistics are read), never waited for. */
typedef struct
{
  GMutex lock;                  /* for @pending and @failed: timed frames
                                 * and readers only */
  cudaEvent_t start;
  cudaEvent_t end;
  gboolean pending;             /* recorded, not read yet */
  gboolean failed;
  guint frames;                 /* frames the pending timing covers */
  guint since;                  /* frames since the last timed one: the
                                 * streaming thread's */
} Timer;

typedef struct
{
  gint device_id;
  gboolean shared_stream;
  guint pool_size;
  guint64 batch_timeout_us;     /* the properties */
  GstPinnedDeviceAlloc device_alloc;
  GstPinnedContext *context;
  GstPinnedStream *stream;
  GstVideoInfo in_info;
  GstVideoInfo out_info;

  Stats stats;
  Timer timer;
  /* The last one given to gst_pinned_base_transform_transfer(), for its
   * gauges in the statistics; under the object lock. */
  GstPinnedPageable *pageable;

  /* Batching, the streaming thread's: frames a batch (1: none), chosen at
   * caps time; the batch; the outputs whose copies it holds, and outputs
   * whose copies are enqueued, to push in order; the output that
   * gst_pinned_base_transform_transfer_output() just batched. */
  guint batch_frames;
  GstPinnedTransferBatch *pending;
  GQueue held;
  GQueue ready;
  GstBuffer *batched;

  /* The batch's timer: a thread that pushes a partial batch whose first
   * frame came @batch_timeout_us ago (@held_since, monotonic us; 0: none
   * held). It waits until that time, so the streaming thread only wakes
   * it from idle (@timer_idle). */
  GThread *batch_timer;
  GMutex batch_lock;
  GCond batch_cond;
  gboolean batch_timer_stop;
  gint timer_idle;
  gint64 held_since;
  gint64 held_timeout_us;
} GstPinnedBaseTransformPrivate;

#define gst_pinned_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstPinnedBaseTransform,
    gst_pinned_base_transform, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstPinnedBaseTransform);
    GST_DEBUG_CATEGORY_INIT (gst_pinned_base_transform_debug,
        "pinnedbasetransform", 0, "gst-pinned base transform"));

/* Unchecked: the vfuncs and the public calls (after their own check) pass
 * our instances only, and a checked cast costs a type lookup, several per
 * frame. */
#define GET_PRIV(self) \
    ((GstPinnedBaseTransformPrivate *) \
    gst_pinned_base_transform_get_instance_private ( \
        (GstPinnedBaseTransform *) (self)))

static void
gst_pinned_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      priv->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_SHARED_STREAM:
      GST_OBJECT_LOCK (object);
      priv->shared_stream = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_POOL_SIZE:
      GST_OBJECT_LOCK (object);
      priv->pool_size = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_BATCH_TIMEOUT:
      GST_OBJECT_LOCK (object);
      priv->batch_timeout_us = g_value_get_uint64 (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_DEVICE_ALLOC:
      GST_OBJECT_LOCK (object);
      priv->device_alloc = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static GstStructure *get_stats (GstPinnedBaseTransform * self);

static void
gst_pinned_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  switch (prop_id) {
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (GST_PINNED_BASE_TRANSFORM
              (object)));
      break;
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      g_value_set_int (value, priv->device_id);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_SHARED_STREAM:
      GST_OBJECT_LOCK (object);
      g_value_set_boolean (value, priv->shared_stream);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_POOL_SIZE:
      GST_OBJECT_LOCK (object);
      g_value_set_uint (value, priv->pool_size);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_BATCH_TIMEOUT:
      GST_OBJECT_LOCK (object);
      g_value_set_uint64 (value, priv->batch_timeout_us);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_DEVICE_ALLOC:
      GST_OBJECT_LOCK (object);
      g_value_set_enum (value, priv->device_alloc);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (element);
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (element);

  gst_pinned_handle_set_context (element, context, device_id, &priv->context);
#ifdef HAVE_CUDA_INTEROP
  gst_pinned_cuda_handle_set_context (element, context, device_id,
      &priv->context);
#endif

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gint
get_device_id (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  return device_id;
}

/* Shared or new; with CUDA interop, nvcodec's contexts take part. */
static gboolean
ensure_context (GstPinnedBaseTransform * self, gint device_id, GError ** error)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

#ifdef HAVE_CUDA_INTEROP
  return gst_pinned_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
      &priv->context, error);
#else
  return gst_pinned_ensure_element_context (GST_ELEMENT (self), device_id,
      &priv->context, error);
#endif
}

/* The element message when no device opens: what the user can do about it
 * (install or update the driver, pick an existing device-id). The failure
 * itself, with its call, is in the debug string; this second query only
 * words the message, like gst_pinned_cuda_driver_problem()'s own. */
static gchar *
device_error_text (gint device_id)
{
  gint n_devices = 0;
  cudaError_t result = cudaGetDeviceCount (&n_devices);
  const gchar *problem;

  gst_pinned_cuda_result (result, NULL);
  problem = gst_pinned_cuda_driver_problem (result);

  if (problem != NULL)
    return g_strdup_printf ("No usable CUDA device. %s", problem);
  if (device_id < 0)
    return g_strdup ("No usable CUDA device");
  if (result == cudaSuccess && device_id >= n_devices)
    return g_strdup_printf ("device-id is %d, but this machine has %d CUDA "
        "device%s (numbered from 0)", device_id, n_devices,
        n_devices == 1 ? "" : "s");

  return g_strdup_printf ("The CUDA device of device-id %d is not usable",
      device_id);
}

/* How often frames are timed: every DEFAULT_TIMING_INTERVAL frames, or as
 * GST_PINNED_GPU_TIMING says (0: never, 1: every frame). */
static guint
timing_interval (void)
{
  static gsize once = 0;
  static guint interval;

  if (g_once_init_enter (&once)) {
    const gchar *env = g_getenv ("GST_PINNED_GPU_TIMING");

    interval = env && *env ? (guint) g_ascii_strtoull (env, NULL, 10) :
        DEFAULT_TIMING_INTERVAL;
    g_once_init_leave (&once, 1);
  }
  return interval;
}

/* Timing events (unlike fences, whose events have no timing, which makes
 * waiting on them cheaper), made once with the stream. Without them the
 * element just times nothing. */
static void
timer_open (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  Timer *timer = &priv->timer;

  if (timing_interval () == 0 || timer->start != NULL ||
      !gst_pinned_context_push (priv->context, NULL))
    return;
  if (!gst_pinned_cuda_result (cudaEventCreateWithFlags (&timer->start,
              cudaEventDefault), NULL) ||
      !gst_pinned_cuda_result (cudaEventCreateWithFlags (&timer->end,
              cudaEventDefault), NULL)) {
    if (timer->start)
      gst_pinned_cuda_result (cudaEventDestroy (timer->start), NULL);
    timer->start = timer->end = NULL;
  }
  gst_pinned_context_pop (priv->context);
  /* The first frame is timed. */
  timer->since = timing_interval () - 1;
}

static void
timer_close (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  Timer *timer = &priv->timer;

  if (timer->start == NULL)
    return;
  if (gst_pinned_context_push (priv->context, NULL)) {
    gst_pinned_cuda_result (cudaEventDestroy (timer->start), NULL);
    gst_pinned_cuda_result (cudaEventDestroy (timer->end), NULL);
    gst_pinned_context_pop (priv->context);
  }
  g_mutex_lock (&timer->lock);
  timer->start = timer->end = NULL;
  timer->pending = FALSE;
  g_mutex_unlock (&timer->lock);
}

/* Adds the pending frame's GPU time if its work is done; never waits.
 * cudaEventElapsedTime answers cudaErrorNotReady while the work runs: on
 * the per-buffer path, where the frame timed an interval ago is done but
 * in a long queue, a question first would only cost the host another
 * driver call. Where the work may well run (@ask: the statistics, stop)
 * it is asked first, as compute-sanitizer counts that answer an error. */
static void
timer_read_locked (GstPinnedBaseTransform * self, gboolean ask)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  Timer *timer = &priv->timer;
  cudaError_t result = cudaSuccess;
  gfloat ms = 0;

  if (!timer->pending || !gst_pinned_context_push (priv->context, NULL))
    return;
  if (ask)
    result = cudaEventQuery (timer->end);
  if (result == cudaSuccess)
    result = cudaEventElapsedTime (&ms, timer->start, timer->end);
  gst_pinned_context_pop (priv->context);

  if (result == cudaErrorNotReady)
    return;
  timer->pending = FALSE;
  if (!_gst_pinned_cuda_result (result, "cudaEventElapsedTime",
          GST_CAT_DEFAULT, __FILE__, GST_FUNCTION, __LINE__, NULL)) {
    /* A device error: the element reports it; time no more. */
    timer->failed = TRUE;
    return;
  }
  STAT_ADD (priv->stats.gpu_ns, (guint64) (ms * 1e6 + 0.5));
  STAT_ADD (priv->stats.gpu_samples, MAX (timer->frames, 1));
}

gboolean
gst_pinned_base_transform_timer_begin (GstPinnedBaseTransform * self,
    cudaEvent_t * start, cudaEvent_t * end)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  Timer *timer = &priv->timer;
  gboolean ok;

  if (timer->start == NULL || ++timer->since < timing_interval ())
    return FALSE;

  timer->since = 0;
  g_mutex_lock (&timer->lock);
  timer_read_locked (self, FALSE);
  /* Still running N frames later (a long queue): skip this one. */
  ok = !timer->pending && !timer->failed;
  g_mutex_unlock (&timer->lock);
  if (!ok)
    return FALSE;

  *start = timer->start;
  *end = timer->end;
  return TRUE;
}

static void
timer_end_frames (GstPinnedBaseTransform * self, gboolean recorded,
    guint frames)
{
  Timer *timer = &GET_PRIV (self)->timer;

  if (!recorded)
    return;
  g_mutex_lock (&timer->lock);
  timer->pending = TRUE;
  timer->frames = frames;
  g_mutex_unlock (&timer->lock);
}

void
gst_pinned_base_transform_timer_end (GstPinnedBaseTransform * self,
    gboolean recorded)
{
  timer_end_frames (self, recorded, 1);
}

static void
stats_reset (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  guint i;

  __atomic_store_n (&priv->stats.buffers, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.copies, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.bytes, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.pageable_buffers, 0, __ATOMIC_RELAXED);
  for (i = 0; i < GST_PINNED_PATH_LAST; i++)
    __atomic_store_n (&priv->stats.paths[i], 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.host_waits, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.host_wait_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.gpu_samples, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->stats.gpu_ns, 0, __ATOMIC_RELAXED);
  g_mutex_lock (&priv->timer.lock);
  priv->timer.failed = FALSE;
  g_mutex_unlock (&priv->timer.lock);
}

static void
set_pageable (GstPinnedBaseTransform * self, GstPinnedPageable * pageable)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  gst_object_replace ((GstObject **) & priv->pageable, (GstObject *) pageable);
  GST_OBJECT_UNLOCK (self);
}

static GstStructure *
get_stats (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPinnedPageable *pageable = NULL;
  GstStructure *s;
  guint64 samples, gpu_ns;

  g_mutex_lock (&priv->timer.lock);
  timer_read_locked (self, TRUE);
  g_mutex_unlock (&priv->timer.lock);

  samples = STAT_GET (priv->stats.gpu_samples);
  gpu_ns = STAT_GET (priv->stats.gpu_ns);
  s = gst_structure_new ("application/x-pinned-stats",
      "buffers", G_TYPE_UINT64, STAT_GET (priv->stats.buffers),
      "copies", G_TYPE_UINT64, STAT_GET (priv->stats.copies),
      "bytes", G_TYPE_UINT64, STAT_GET (priv->stats.bytes),
      "gpu-samples", G_TYPE_UINT64, samples,
      "gpu-time-sampled", G_TYPE_UINT64, gpu_ns,
      "gpu-time-per-frame", G_TYPE_UINT64, samples ? gpu_ns / samples : 0,
      "host-waits", G_TYPE_UINT64, STAT_GET (priv->stats.host_waits),
      "host-wait-time", G_TYPE_UINT64, STAT_GET (priv->stats.host_wait_ns),
      "pageable-buffers", G_TYPE_UINT64,
      STAT_GET (priv->stats.pageable_buffers),
      "locked", G_TYPE_UINT64,
      STAT_GET (priv->stats.paths[GST_PINNED_PATH_LOCKED]),
      "registered", G_TYPE_UINT64,
      STAT_GET (priv->stats.paths[GST_PINNED_PATH_REGISTERED]),
      "staged", G_TYPE_UINT64,
      STAT_GET (priv->stats.paths[GST_PINNED_PATH_STAGED]),
      "direct", G_TYPE_UINT64,
      STAT_GET (priv->stats.paths[GST_PINNED_PATH_DIRECT]), NULL);

  GST_OBJECT_LOCK (self);
  if (priv->pageable)
    pageable = gst_object_ref (priv->pageable);
  GST_OBJECT_UNLOCK (self);
  if (pageable) {
    gst_structure_set (s,
        "registered-bytes", G_TYPE_UINT64,
        gst_pinned_pageable_get_registered_bytes (pageable),
        "copy-threads", G_TYPE_UINT, gst_pinned_pageable_get_threads (pageable),
        "running-threads", G_TYPE_UINT,
        gst_pinned_pageable_get_running_threads (pageable),
        "held", G_TYPE_UINT, gst_pinned_pageable_get_n_held (pageable), NULL);
    gst_object_unref (pageable);
  }

  return s;
}

static gboolean
transfer (GstPinnedBaseTransform * self, GstBuffer * src, GstBuffer * dst,
    GstPinnedPageable * pageable, gboolean timed, GError ** error)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPinnedTransferReport report = { NULL, };
  guint64 pageable_memories = 0;
  gboolean ok;
  guint i;

  if (priv->stream == NULL) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the element has no device yet");
    return FALSE;
  }
  if (pageable != priv->pageable)
    set_pageable (self, pageable);

  timed = timed && gst_pinned_base_transform_timer_begin (self, &report.start,
      &report.end);
  ok = gst_pinned_transfer_video_frame_report (priv->stream, &priv->in_info,
      src, dst, pageable, &report, error);
  gst_pinned_base_transform_timer_end (self, timed && ok);
  if (!ok)
    return FALSE;

  STAT_ADD (priv->stats.copies, 1);
  STAT_ADD (priv->stats.bytes, report.bytes);
  for (i = 0; i < GST_PINNED_PATH_LAST; i++) {
    if (report.paths[i] > 0) {
      STAT_ADD (priv->stats.paths[i], report.paths[i]);
      pageable_memories += report.paths[i];
    }
  }
  if (pageable_memories > 0)
    STAT_ADD (priv->stats.pageable_buffers, 1);

  return TRUE;
}

/**
 * gst_pinned_base_transform_transfer:
 * @self: a #GstPinnedBaseTransform with an open device
 * @src: the frame to copy, in the negotiated input format
 * @dst: the buffer to copy it into
 * @pageable: (nullable): how to copy host memory that is not gst-pinned
 *   memory (see gst_pinned_transfer_video_frame_full())
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_transfer_video_frame_full() on the element's stream with its
 * input video info, counted in the element's `stats`: a copy, its bytes,
 * host memory that was not gst-pinned memory (by the way it went), and
 * for every Nth frame the copies' time on the GPU.
 *
 * Returns: %TRUE when the copies were enqueued
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_transfer (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * dst, GstPinnedPageable * pageable,
    GError ** error)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (dst), FALSE);

  return transfer (self, src, dst, pageable, TRUE, error);
}

gboolean
gst_pinned_base_transform_copy_frame (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * dst, GError ** error)
{
  return transfer (self, src, dst, NULL, FALSE, error);
}

/* Enqueues the batch's copies; its outputs can go then, after those
 * before them. */
static gboolean
flush_batch (GstPinnedBaseTransform * self, GError ** error)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPinnedTransferReport report = { NULL, };
  guint frames;
  gboolean timed, ok;
  GstBuffer *buf;

  if (priv->pending == NULL ||
      (frames = gst_pinned_transfer_batch_get_frames (priv->pending)) == 0)
    return TRUE;

  timed = gst_pinned_base_transform_timer_begin (self, &report.start,
      &report.end);
  ok = gst_pinned_transfer_batch_flush (priv->pending, priv->stream, &report,
      error);
  timer_end_frames (self, timed && ok, frames);

  __atomic_store_n (&priv->held_since, 0, __ATOMIC_SEQ_CST);
  while ((buf = g_queue_pop_head (&priv->held))) {
    if (ok)
      g_queue_push_tail (&priv->ready, buf);
    else
      gst_buffer_unref (buf);
  }
  return ok;
}

/* Frames held or ready are dropped (a flush, a stop). */
static void
drop_batch (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->pending)
    gst_pinned_transfer_batch_clear (priv->pending);
  g_queue_clear_full (&priv->held, (GDestroyNotify) gst_buffer_unref);
  g_queue_clear_full (&priv->ready, (GDestroyNotify) gst_buffer_unref);
  priv->batched = NULL;
  __atomic_store_n (&priv->held_since, 0, __ATOMIC_SEQ_CST);
}

/* Before a serialized event or query goes on: every frame before it is
 * pushed. */
static GstFlowReturn
push_batch (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstBuffer *buf;

  if (!flush_batch (self, &error)) {
    gchar *text = gst_pinned_base_transform_error_text (self, error,
        "Could not copy a batch of frames");

    GST_PINNED_ELEMENT_ERROR (self, error, text);
    g_free (text);
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  while ((buf = g_queue_pop_head (&priv->ready))) {
    STAT_ADD (priv->stats.buffers, 1);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
    else
      gst_buffer_unref (buf);
  }
  return ret;
}

/* The first frame of a batch is held: the timer counts from now. */
static void
batch_started (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->batch_timer == NULL)
    return;
  /* Then the idle flag: the timer sets it before it looks (Dekker). */
  __atomic_store_n (&priv->held_since, g_get_monotonic_time (),
      __ATOMIC_SEQ_CST);
  if (__atomic_load_n (&priv->timer_idle, __ATOMIC_SEQ_CST)) {
    g_mutex_lock (&priv->batch_lock);
    g_cond_signal (&priv->batch_cond);
    g_mutex_unlock (&priv->batch_lock);
  }
}

/* Pushes the partial batch, where it is still the one that timed out,
 * with the stream lock (as the streaming thread would); the lock is only
 * tried, so that a stop that holds it never waits for this thread. The
 * streaming thread may hold it for long (blocked pushing the frames before
 * the batch into a paused sink): the tries back off to 20 ms apart. */
static void
batch_timed_out (GstPinnedBaseTransform * self, gint64 since)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (self);
  gint64 backoff = 100;

  while (!GST_PAD_STREAM_TRYLOCK (sinkpad)) {
    gint64 until = g_get_monotonic_time () + backoff;

    backoff = MIN (backoff * 2, 20 * 1000);

    g_mutex_lock (&priv->batch_lock);
    if (!priv->batch_timer_stop)
      g_cond_wait_until (&priv->batch_cond, &priv->batch_lock, until);
    if (priv->batch_timer_stop ||
        __atomic_load_n (&priv->held_since, __ATOMIC_SEQ_CST) != since) {
      g_mutex_unlock (&priv->batch_lock);
      return;
    }
    g_mutex_unlock (&priv->batch_lock);
  }
  if (__atomic_load_n (&priv->held_since, __ATOMIC_SEQ_CST) == since) {
    GST_LOG_OBJECT (self, "batch timed out with %u frames",
        g_queue_get_length (&priv->held));
    push_batch (self);
  }
  GST_PAD_STREAM_UNLOCK (sinkpad);
}

static gpointer
batch_timer_loop (gpointer data)
{
  GstPinnedBaseTransform *self = data;
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean quiet = FALSE;

  g_mutex_lock (&priv->batch_lock);
  while (!priv->batch_timer_stop) {
    gint64 since, deadline;

    /* Idle only after a whole timeout without a batch: while frames
     * stream, the next batch starts right after a flush, and waking the
     * timer for each would cost a system call a batch. */
    if (quiet)
      __atomic_store_n (&priv->timer_idle, 1, __ATOMIC_SEQ_CST);
    since = __atomic_load_n (&priv->held_since, __ATOMIC_SEQ_CST);
    if (since == 0 && quiet) {
      g_cond_wait (&priv->batch_cond, &priv->batch_lock);
      __atomic_store_n (&priv->timer_idle, 0, __ATOMIC_SEQ_CST);
      quiet = FALSE;
      continue;
    }
    __atomic_store_n (&priv->timer_idle, 0, __ATOMIC_SEQ_CST);
    if (since == 0) {
      quiet = TRUE;
      g_cond_wait_until (&priv->batch_cond, &priv->batch_lock,
          g_get_monotonic_time () + priv->held_timeout_us);
      continue;
    }
    quiet = FALSE;
    deadline = since + priv->held_timeout_us;
    if (g_get_monotonic_time () < deadline) {
      /* A later batch moves the deadline: looked at again then. */
      g_cond_wait_until (&priv->batch_cond, &priv->batch_lock, deadline);
      continue;
    }
    g_mutex_unlock (&priv->batch_lock);
    batch_timed_out (self, since);
    g_mutex_lock (&priv->batch_lock);
  }
  g_mutex_unlock (&priv->batch_lock);

  return NULL;
}

static void
batch_timer_start (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  guint64 timeout;

  GST_OBJECT_LOCK (self);
  timeout = priv->batch_timeout_us;
  GST_OBJECT_UNLOCK (self);
  if (priv->batch_timer || timeout == 0 || priv->batch_frames < 2)
    return;

  priv->held_timeout_us = (gint64) MIN (timeout, G_MAXINT64 / 2);
  priv->batch_timer_stop = FALSE;
  priv->batch_timer = g_thread_new ("pinned-batch", batch_timer_loop, self);
}

static void
batch_timer_stop (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->batch_timer == NULL)
    return;
  g_mutex_lock (&priv->batch_lock);
  priv->batch_timer_stop = TRUE;
  g_cond_signal (&priv->batch_cond);
  g_mutex_unlock (&priv->batch_lock);
  g_thread_join (priv->batch_timer);
  priv->batch_timer = NULL;
}

/* Our memory only: what a batch can take (anything else is copied at once,
 * without mapping it twice). */
static gboolean
all_ours (GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    if (!gst_is_pinned_memory (gst_buffer_peek_memory (buffer, i)))
      return FALSE;
  }
  return n > 0;
}

/**
 * gst_pinned_base_transform_transfer_output:
 * @self: a #GstPinnedBaseTransform with an open device
 * @src: the frame to copy, in the negotiated input format
 * @outbuf: the output buffer of the frame being transformed, to copy into
 * @pageable: (nullable): as for gst_pinned_base_transform_transfer()
 * @error: (out) (optional): where to describe a failure
 *
 * gst_pinned_base_transform_transfer() into the buffer that the element's
 * transform pushes. Where the element batches frames
 * (#GstPinnedCopyTransform:batch) and both buffers are gst-pinned memory
 * in the same layout, the copy is only noted: the base class enqueues the
 * copies of a batch in one call, with one fence, and pushes its outputs
 * then, in order; it pushes a partial batch before any serialized event
 * or query (end of stream, caps, drain, allocation) and drops it on a
 * flush. Other frames are copied at once, after the batch before them.
 *
 * Returns: %TRUE when the copies were enqueued or noted
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_transfer_output (GstPinnedBaseTransform * self,
    GstBuffer * src, GstBuffer * outbuf, GstPinnedPageable * pageable,
    GError ** error)
{
  GstPinnedBaseTransformPrivate *priv;
  gboolean added = FALSE;
  guint64 bytes = 0;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  priv = GET_PRIV (self);
  if (priv->batch_frames > 1 && priv->stream && all_ours (src) &&
      all_ours (outbuf)) {
    if (priv->pending == NULL)
      priv->pending = gst_pinned_transfer_batch_new ();
    if (!gst_pinned_transfer_batch_add (priv->pending, priv->stream,
            &priv->in_info, src, outbuf, &added, &bytes, error))
      return FALSE;
    if (added) {
      STAT_ADD (priv->stats.copies, 1);
      STAT_ADD (priv->stats.bytes, bytes);
      priv->batched = outbuf;
      return TRUE;
    }
  }
  /* In order: the batch's copies before this frame's (a frame in another
   * layout, or in memory that is not ours, such as pageable input). */
  if (!flush_batch (self, error))
    return FALSE;

  return transfer (self, src, outbuf, pageable, TRUE, error);
}

/**
 * gst_pinned_base_transform_get_batch:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: how many frames the element copies together, as chosen when
 *   the caps were set (1: each alone)
 *
 * Since: 0.1
 */
guint
gst_pinned_base_transform_get_batch (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), 1);

  return MAX (GET_PRIV (self)->batch_frames, 1);
}

/* Every buffer, and the host waits of the streaming thread while it made
 * it (a pool whose buffers' copies still run, a map): the fences count
 * them per thread. */
static GstFlowReturn
gst_pinned_base_transform_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);
  guint64 waits, ns, waits_after, ns_after;
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;

  /* The base class asks again after each push: a flushed batch's outputs
   * go one a call. */
  if ((*outbuf = g_queue_pop_head (&priv->ready))) {
    STAT_ADD (priv->stats.buffers, 1);
    return GST_FLOW_OK;
  }

  gst_pinned_fence_get_thread_waits (&waits, &ns);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
  gst_pinned_fence_get_thread_waits (&waits_after, &ns_after);

  if (waits_after != waits) {
    STAT_ADD (priv->stats.host_waits, waits_after - waits);
    STAT_ADD (priv->stats.host_wait_ns, ns_after - ns);
  }

  if (ret == GST_FLOW_OK && *outbuf != NULL && *outbuf == priv->batched) {
    /* Held until its batch is enqueued. */
    g_queue_push_tail (&priv->held, *outbuf);
    *outbuf = NULL;
    if (g_queue_get_length (&priv->held) == 1)
      batch_started (self);
    if (gst_pinned_transfer_batch_get_frames (priv->pending) >=
        priv->batch_frames && !flush_batch (self, &error)) {
      gchar *text = gst_pinned_base_transform_error_text (self, error,
          "Could not copy a batch of frames");

      GST_PINNED_ELEMENT_ERROR (self, error, text);
      g_free (text);
      g_clear_error (&error);
      ret = GST_FLOW_ERROR;
    }
  } else if (ret == GST_FLOW_OK && *outbuf != NULL &&
      !g_queue_is_empty (&priv->ready)) {
    /* A frame copied alone, behind the batch flushed before it. */
    g_queue_push_tail (&priv->ready, *outbuf);
    *outbuf = NULL;
  }
  priv->batched = NULL;

  if (ret == GST_FLOW_OK && *outbuf == NULL)
    *outbuf = g_queue_pop_head (&priv->ready);
  if (ret == GST_FLOW_OK && *outbuf != NULL)
    STAT_ADD (priv->stats.buffers, 1);

  return ret;
}

/**
 * gst_pinned_base_transform_open_device:
 * @self: a #GstPinnedBaseTransform
 *
 * Opens the element's device (shared or new) and stream, if that has not
 * happened yet; the base class does it at caps time, a subclass that needs
 * the device earlier calls this. Posts an error message on failure.
 *
 * Returns: %TRUE when the context and the stream are set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_base_transform_open_device (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GError *error = NULL;
  gint device_id = get_device_id (self);
  gboolean shared;

  if (priv->stream)
    return TRUE;

  GST_OBJECT_LOCK (self);
  shared = priv->shared_stream;
  GST_OBJECT_UNLOCK (self);

  if (!ensure_context (self, device_id, &error)) {
    gchar *text = device_error_text (device_id);

    GST_PINNED_ELEMENT_ERROR (self, error, text);
    g_free (text);
    g_clear_error (&error);
    return FALSE;
  }

  priv->stream = shared ?
      gst_pinned_stream_get_shared (priv->context, &error) :
      gst_pinned_stream_new (priv->context, &error);
  if (priv->stream == NULL) {
    GST_PINNED_ELEMENT_ERROR (self, error, "Could not create a CUDA stream");
    g_clear_error (&error);
    return FALSE;
  }

  GST_INFO_OBJECT (self, "using CUDA device %d (%s)",
      gst_pinned_context_get_device_id (priv->context),
      gst_pinned_context_get_device_name (priv->context));

  timer_open (self);

  return TRUE;
}

/* An element with a device-id opens its device now. One without takes its
 * neighbours' device, and those that start after it (state changes run
 * from the sinks up) announce theirs only then: it opens at caps time,
 * and here only checks that a device exists, to fail early if none. */
static gboolean
gst_pinned_base_transform_start (GstBaseTransform * trans)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  GError *error = NULL;
  gint n_devices = 0;

  stats_reset (self);

  if (get_device_id (self) != GST_PINNED_DEVICE_ID_ANY ||
      gst_pinned_find_element_context (GST_ELEMENT (self),
          GST_PINNED_DEVICE_ID_ANY, &priv->context))
    return gst_pinned_base_transform_open_device (self);
#ifdef HAVE_CUDA_INTEROP
  /* An nvcodec neighbour that opened its device at NULL to READY (decoders
   * do) has a context by now: join it. */
  if (gst_pinned_cuda_find_element_context (GST_ELEMENT (self), FALSE,
          &priv->context))
    return gst_pinned_base_transform_open_device (self);
#endif

  if (!gst_pinned_cuda_result (cudaGetDeviceCount (&n_devices), &error) ||
      n_devices <= 0) {
    gchar *text = device_error_text (GST_PINNED_DEVICE_ID_ANY);

    if (error == NULL)
      g_set_error (&error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
          "No CUDA device found");
    GST_PINNED_ELEMENT_ERROR (self, error, text);
    g_free (text);
    g_clear_error (&error);
    return FALSE;
  }

  return TRUE;
}

static gboolean
gst_pinned_base_transform_stop (GstBaseTransform * trans)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  /* Counted so far: the statistics keep it until the next start. */
  g_mutex_lock (&priv->timer.lock);
  timer_read_locked (GST_PINNED_BASE_TRANSFORM (trans), TRUE);
  g_mutex_unlock (&priv->timer.lock);
  timer_close (GST_PINNED_BASE_TRANSFORM (trans));
  set_pageable (GST_PINNED_BASE_TRANSFORM (trans), NULL);
  batch_timer_stop (GST_PINNED_BASE_TRANSFORM (trans));
  drop_batch (GST_PINNED_BASE_TRANSFORM (trans));

  /* Work still queued runs on: every memory it touches waits for its
   * fences before it is freed. */
  gst_clear_pinned_stream (&priv->stream);
  gst_pinned_timeline_flush ();
  gst_clear_object (&priv->context);
  gst_video_info_init (&priv->in_info);
  gst_video_info_init (&priv->out_info);

  return TRUE;
}

static gboolean
gst_pinned_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_pinned_handle_context_query (GST_ELEMENT (trans), query,
          priv->context))
    return TRUE;
#ifdef HAVE_CUDA_INTEROP
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_pinned_cuda_handle_context_query (GST_ELEMENT (trans), query,
          priv->context))
    return TRUE;
#endif
  /* Upstream's serialized queries (drain, allocation) come after the
   * frames it sent. */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query) &&
      push_batch (GST_PINNED_BASE_TRANSFORM (trans)) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (trans, "pushing the batch before %s failed",
        GST_QUERY_TYPE_NAME (query));

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* The statistics are notified at the end of the stream, so that
 * `gst-launch-1.0 -v` prints them. */
static gboolean
gst_pinned_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);

  /* A batch's frames go before the events that follow them, and not at
   * all after a flush. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    drop_batch (self);
  else if (GST_EVENT_IS_SERIALIZED (event) && push_batch (self) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "pushing the batch before %s failed",
        GST_EVENT_TYPE_NAME (event));

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    g_object_notify_by_pspec (G_OBJECT (trans), properties[PROP_STATS]);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Frames a batch, chosen by a copy element at caps time (1: none). */
void
gst_pinned_base_transform_set_batch (GstPinnedBaseTransform * self,
    guint frames)
{
  GET_PRIV (self)->batch_frames = frames;
  batch_timer_start (self);
}

static gboolean
gst_pinned_base_transform_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstPinnedBaseTransform *self = GST_PINNED_BASE_TRANSFORM (trans);
  GstPinnedBaseTransformClass *klass =
      GST_PINNED_BASE_TRANSFORM_GET_CLASS (self);
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (trans);

  /* A renegotiation that downstream asked for (RECONFIGURE) comes here
   * before the next frame, not after a serialized event: the frames of a
   * partial batch go first, under the caps they were made for. */
  if (push_batch (self) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "pushing the batch before new caps failed");

#ifdef HAVE_CUDA_INTEROP
  /* CUDA memory in: its device pointers are valid in upstream's context
   * only, so that one comes first. */
  if (priv->context == NULL && gst_pinned_caps_is_cuda (incaps))
    gst_pinned_cuda_find_element_context (GST_ELEMENT (self), TRUE,
        &priv->context);
#endif
  if (!gst_pinned_base_transform_open_device (self))
    return FALSE;

  if (!gst_video_info_from_caps (&priv->in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_WARNING_OBJECT (self, "cannot parse caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  if (klass->set_info)
    return klass->set_info (self, incaps, &priv->in_info, outcaps,
        &priv->out_info);

  return TRUE;
}

static void
gst_pinned_base_transform_finalize (GObject * object)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (object);

  batch_timer_stop (GST_PINNED_BASE_TRANSFORM (object));
  drop_batch (GST_PINNED_BASE_TRANSFORM (object));
  gst_pinned_transfer_batch_free (priv->pending);
  g_mutex_clear (&priv->batch_lock);
  g_cond_clear (&priv->batch_cond);
  timer_close (GST_PINNED_BASE_TRANSFORM (object));
  gst_clear_object (&priv->pageable);
  gst_clear_pinned_stream (&priv->stream);
  gst_clear_object (&priv->context);
  g_mutex_clear (&priv->timer.lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_base_transform_class_init (GstPinnedBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_pinned_base_transform_set_property;
  gobject_class->get_property = gst_pinned_base_transform_get_property;
  gobject_class->finalize = gst_pinned_base_transform_finalize;

  /**
   * GstPinnedBaseTransform:device-id:
   *
   * The CUDA device to use. -1 takes the device of a neighbouring
   * gst-pinned element or of a context the application set, else the
   * current CUDA device (device 0 unless the thread chose another).
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ID] =
      g_param_spec_int ("device-id", "Device ID",
      "CUDA device index (-1: the pipeline's device, else the current one)",
      -1, G_MAXINT, DEFAULT_DEVICE_ID,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:shared-stream:
   *
   * Enqueue on the device's one shared stream instead of the element's own.
   * Every element that does so serialises with the others: a copy then
   * cannot overlap a kernel. For comparison and debugging.
   *
   * Since: 0.1
   */
  /**
   * GstPinnedBaseTransform:device-alloc:
   *
   * How the element's pools of device frames allocate: `default`
   * (cudaMalloc) or `stream-ordered` (cudaMallocAsync on the element's
   * stream, from the device's memory pool, and cudaFreeAsync: freeing a
   * pool does not synchronize the device as cudaFree does). The pools
   * allocate when activated either way; the frames are the same.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ALLOC] =
      g_param_spec_enum ("device-alloc", "Device allocation",
      "How the element's device frames are allocated: cudaMalloc, or "
      "stream-ordered (cudaMallocAsync on its stream, freed without a "
      "device-wide synchronization)", GST_TYPE_PINNED_DEVICE_ALLOC,
      DEFAULT_DEVICE_ALLOC,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  properties[PROP_SHARED_STREAM] =
      g_param_spec_boolean ("shared-stream", "Shared stream",
      "Use the device's one shared CUDA stream instead of an own one "
      "(serialises with other elements that do; for comparison)",
      DEFAULT_SHARED_STREAM,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:pool-size:
   *
   * How many frames can be in flight through the element: the buffers its
   * pools allocate when activated. pinnedupload offers a page-locked pool of
   * this many buffers upstream and keeps twice as many device frames;
   * pinneddownload outputs from a page-locked pool of this many; a filter
   * keeps twice as many output frames. A filter that works in place
   * (pinnedbusy) has no pool for gst-pinned device memory; it has one for
   * nvcodec's CUDA memory, which it works on in a copy. When they are all
   * in flight, the element waits for the oldest: backpressure.
   *
   * Since: 0.1
   */
  properties[PROP_POOL_SIZE] =
      g_param_spec_uint ("pool-size", "Pool size",
      "Frames in flight: buffers the element's pools allocate up front "
      "(an in-place filter has none for gst-pinned device memory)", 1, 64,
      DEFAULT_POOL_SIZE,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:batch-timeout:
   *
   * How long a batch waits for its last frame, in microseconds, after its
   * first came: then the frames it has go on (an application that pushes
   * a frame and waits for the result gets it this much later). 0 waits
   * until the batch is full or a serialized event comes.
   *
   * Since: 0.1
   */
  properties[PROP_BATCH_TIMEOUT] =
      g_param_spec_uint64 ("batch-timeout", "Batch timeout",
      "Microseconds a batch waits for its last frame before its frames go "
      "on (0: until it is full)", 0, G_USEC_PER_SEC,
      DEFAULT_BATCH_TIMEOUT_US,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedBaseTransform:stats:
   *
   * What the element did since it last started (it keeps the values after
   * it stops), as a #GstStructure named `application/x-pinned-stats`:
   *
   * * `buffers` (#guint64): buffers the element pushed (or passed through)
   * * `copies` (#guint64): frames it copied between host and device (a
   *   filter: a copy of nvcodec's CUDA memory before an in-place kernel)
   * * `bytes` (#guint64): the bytes those copies moved
   * * `gpu-samples` (#guint64): frames whose GPU work (the copies, or a
   *   filter's kernel) was timed: the first, then every 16th (the
   *   environment variable `GST_PINNED_GPU_TIMING` sets N; 0 times none)
   * * `gpu-time-sampled` (#guint64): their GPU time in all, in ns, from
   *   timing events around the work, after the stream's waits for earlier
   *   work
   * * `gpu-time-per-frame` (#guint64): the mean, in ns (0 before the first
   *   sample is read)
   * * `host-waits` (#guint64), `host-wait-time` (#guint64, ns): how often,
   *   and how long in all, the element's streaming thread waited on the
   *   host for GPU work (a pool whose oldest buffer's copy still ran, a copy
   *   into memory without fences)
   * * `pageable-buffers` (#guint64): frames with host memory that was not
   *   gst-pinned page-locked memory (pinnedupload: upstream did not write
   *   into the offered pool), and their memories by the way they went:
   *   `locked` (page-locked by another owner), `registered` (page-locked
   *   here), `staged` (through page-locked staging), `direct` (through
   *   CUDA's own staging), each #guint64
   * * while pinnedupload or pinneddownload has copied such memory, until it
   *   stops: `registered-bytes` (#guint64), `copy-threads` (#guint),
   *   `running-threads` (#guint), `held` (#guint), as in
   *   gst_pinned_pageable_get_stats()
   *
   * Counters are added to with atomic operations; no lock is taken per
   * buffer. The property is notified at the end of the stream:
   * `gst-launch-1.0 -v` prints it then.
   *
   * Since: 0.1
   */
  properties[PROP_STATS] =
      g_param_spec_boxed ("stats", "Statistics",
      "What the element did since it started: buffers, copies, bytes, GPU "
      "time per frame, host waits, pageable input (see the documentation)",
      /* not GST_TYPE_STRUCTURE, which gst_init() sets: the introspection
       * scanner makes this class without it */
      gst_structure_get_type (), G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_set_context);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_pinned_base_transform_query);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_set_caps);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_generate_output);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_pinned_base_transform_sink_event);
}

static void
gst_pinned_base_transform_init (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);

  priv->device_id = DEFAULT_DEVICE_ID;
  priv->pool_size = DEFAULT_POOL_SIZE;
  priv->device_alloc = DEFAULT_DEVICE_ALLOC;
  priv->batch_timeout_us = DEFAULT_BATCH_TIMEOUT_US;
  priv->batch_frames = 1;
  g_mutex_init (&priv->batch_lock);
  g_cond_init (&priv->batch_cond);
  g_queue_init (&priv->held);
  g_queue_init (&priv->ready);
  g_mutex_init (&priv->timer.lock);
  gst_video_info_init (&priv->in_info);
  gst_video_info_init (&priv->out_info);
}

/**
 * gst_pinned_base_transform_get_context:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none) (nullable): the element's device context, set
 *   between start and stop
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_base_transform_get_context (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return GET_PRIV (self)->context;
}

/**
 * gst_pinned_base_transform_get_pool_size:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: how many buffers each of the element's pools holds: its
 *   #GstPinnedBaseTransform:pool-size, or twice its batch (see
 *   gst_pinned_base_transform_get_batch()) where that is more
 *
 * Since: 0.1
 */
guint
gst_pinned_base_transform_get_pool_size (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv;
  guint pool_size;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), 0);

  priv = GET_PRIV (self);
  GST_OBJECT_LOCK (self);
  pool_size = priv->pool_size;
  GST_OBJECT_UNLOCK (self);

  /* One batch held, the one before it copied. */
  if (priv->batch_frames > 1)
    pool_size = MAX (pool_size, 2 * priv->batch_frames);
  return pool_size;
}

/**
 * gst_pinned_base_transform_get_stream:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none) (nullable): the element's own stream, set between
 *   start and stop
 *
 * Since: 0.1
 */
GstPinnedStream *
gst_pinned_base_transform_get_stream (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return GET_PRIV (self)->stream;
}

/**
 * gst_pinned_base_transform_get_in_info:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none): the video info of the negotiated input caps
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_pinned_base_transform_get_in_info (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return &GET_PRIV (self)->in_info;
}

/**
 * gst_pinned_base_transform_get_out_info:
 * @self: a #GstPinnedBaseTransform
 *
 * Returns: (transfer none): the video info of the negotiated output caps
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_pinned_base_transform_get_out_info (GstPinnedBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);

  return &GET_PRIV (self)->out_info;
}

/**
 * gst_pinned_base_transform_make_device_pool:
 * @self: a #GstPinnedBaseTransform with an open device
 * @caps: the caps of the frames
 * @size: the size of a buffer
 * @min_buffers: how many to allocate when activated
 *
 * Makes, configures (with %GST_BUFFER_POOL_OPTION_VIDEO_META) and activates
 * a pool of device memory. Activation allocates, so that a failed
 * cudaMalloc() is reported here, as an error message with its CUDA error.
 *
 * Returns: (transfer full) (nullable): an active pool, or %NULL after an
 *   error message was posted
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_base_transform_make_device_pool (GstPinnedBaseTransform * self,
    GstCaps * caps, gsize size, guint min_buffers)
{
  GstPinnedBaseTransformPrivate *priv;
  GstBufferPool *pool;
  GstStructure *config;
  GError *error = NULL;
  gboolean stream_ordered;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  priv = GET_PRIV (self);
  g_return_val_if_fail (priv->context != NULL, NULL);

  GST_OBJECT_LOCK (self);
  stream_ordered = priv->device_alloc == GST_PINNED_DEVICE_ALLOC_STREAM_ORDERED;
  GST_OBJECT_UNLOCK (self);
  if (stream_ordered && priv->stream)
    pool = gst_pinned_device_buffer_pool_new_stream_ordered (priv->context,
        priv->stream);
  else
    pool = gst_pinned_device_buffer_pool_new (priv->context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot configure the device buffer pool"), (NULL));
    gst_object_unref (pool);
    return NULL;
  }

  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    gst_pinned_buffer_pool_take_error (pool, &error);
    GST_PINNED_ELEMENT_ERROR (self, error,
        "Could not allocate CUDA device memory");
    g_clear_error (&error);
    gst_object_unref (pool);
    return NULL;
  }

  return pool;
}

/**
 * gst_pinned_base_transform_begin_span: (skip)
 * @self: a #GstPinnedBaseTransform with an open device
 * @what: what the element is about to enqueue
 *
 * Starts a span of the GPU timeline on the element's stream and track.
 *
 * Returns: (transfer full) (nullable): see gst_pinned_timeline_begin()
 *
 * Since: 0.1
 */
GstPinnedSpan *
gst_pinned_base_transform_begin_span (GstPinnedBaseTransform * self,
    const gchar * what)
{
  GstPinnedBaseTransformPrivate *priv;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  priv = GET_PRIV (self);
  if (priv->stream == NULL)
    return NULL;

  return gst_pinned_timeline_begin (priv->stream, GST_OBJECT_NAME (self), what);
}

/* Errors after which CUDA cannot use the device in this process any more:
 * the CUDA documentation says of each that "the process must be
 * terminated and relaunched". Every later call reports them. */
static gboolean
is_sticky_error (cudaError_t result)
{
  switch (result) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return TRUE;
    default:
      return FALSE;
  }
}

/* The error earlier GPU work left on the device, cudaSuccess if none: the
 * element's stream reports it (it is asked only after a failure). */
static cudaError_t
device_error (GstPinnedBaseTransform * self)
{
  GstPinnedBaseTransformPrivate *priv = GET_PRIV (self);
  cudaError_t result;

  if (priv->stream == NULL || !gst_pinned_context_push (priv->context, NULL))
    return cudaSuccess;
  result = cudaStreamQuery (gst_pinned_stream_get_cuda_stream (priv->stream));
  _gst_pinned_cuda_result (result, "cudaStreamQuery", GST_CAT_DEFAULT,
      __FILE__, GST_FUNCTION, __LINE__, NULL);
  gst_pinned_context_pop (priv->context);

  return is_sticky_error (result) ? result : cudaSuccess;
}

/**
 * gst_pinned_base_transform_error_text:
 * @self: a #GstPinnedBaseTransform
 * @error: (nullable): why a frame failed
 * @what: the element's message for the failure ("Could not upload a
 *   frame")
 *
 * Words the element message for a frame that failed, so that the user
 * learns what to do: where the device reports an error left by earlier GPU
 * work (a kernel that faulted, of this element or another, makes every
 * later CUDA call fail), it says so and that the application must
 * restart; a buffer that does not fit its caps (%GST_STREAM_ERROR_FORMAT)
 * is described after @what; anything else is @what. The CUDA detail stays
 * in @error, for the debug string.
 *
 * Returns: (transfer full): the message
 *
 * Since: 0.1
 */
gchar *
gst_pinned_base_transform_error_text (GstPinnedBaseTransform * self,
    const GError * error, const gchar * what)
{
  cudaError_t result;

  g_return_val_if_fail (GST_IS_PINNED_BASE_TRANSFORM (self), NULL);
  g_return_val_if_fail (what != NULL, NULL);

  result = device_error (self);
  if (result != cudaSuccess)
    return g_strdup_printf ("%s: the GPU reported an error in earlier work "
        "(%s: %s). CUDA cannot use the device in this process any more: "
        "restart the application", what, cudaGetErrorName (result),
        cudaGetErrorString (result));

  if (error && g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT))
    return g_strdup_printf ("%s: %s", what, error->message);

  return g_strdup (what);
}

/**
 * gst_pinned_caps_set_memory_feature:
 * @caps: (transfer none): caps
 * @feature: (nullable): a memory caps feature, %NULL for system memory
 *
 * Returns: (transfer full): a copy of @caps with every structure's
 *   features replaced by @feature; ANY caps stay ANY
 *
 * Since: 0.1
 */
GstCaps *
gst_pinned_caps_set_memory_feature (GstCaps * caps, const gchar * feature)
{
  GstCaps *ret;
  guint i, n;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  ret = gst_caps_copy (caps);
  if (gst_caps_is_any (ret))
    return ret;

  n = gst_caps_get_size (ret);
  for (i = 0; i < n; i++) {
    gst_caps_set_features (ret, i,
        gst_caps_features_new (feature ? feature :
            GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
  }

  return gst_caps_simplify (ret);
}
