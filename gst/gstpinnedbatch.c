/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-pinnedbatch
 * @title: pinnedbatch
 * @see_also: pinnedupload, pinnedconvert, #GstPinnedBatchMeta
 *
 * Puts frames of many video streams into one tensor for one model call:
 * each batch is a [N, 3, height, width] tensor in CUDA device memory
 * (`memory:PinnedDevice`), each of its N slots a frame scaled (bilinear;
 * with `letterbox`, keeping its aspect ratio and padded with `pad-value`),
 * converted to RGB or BGR (`channel-order`), planar, as `uint8` levels or
 * as `float16` or `float32` normalised: (level / 255 - mean) / std, with
 * `mean` and `std` on the 0..1 scale, in R, G, B order (torchvision's
 * constants as they are). One kernel launch makes the whole batch.
 *
 * Sink pads (`sink_%u`, requested, also while playing) take raw video of
 * any size in gst-pinned device memory, nvcodec's CUDA memory or system
 * memory (copied through a page-locked pool it offers upstream): 4:2:0 YUV
 * (NV12, NV21, I420, YV12, P010_10LE, P016_LE) and 8-bit RGB. A batch
 * takes a frame from each pad (the pads take turns where there are more
 * than `batch-size`), goes out when each has one or has ended, and with
 * live sources `timeout` late, partial; no frame is dropped. A
 * #GstPinnedBatchMeta says per slot which frame it holds and where, and
 * the caps what the tensor is (`other/x-pinned-batch`, `layout=NCHW`,
 * contiguous): [the guide](guide.md#many-streams-into-one-batch).
 *
 * Nothing waits on the host: the kernel waits on the GPU for each input's
 * writer, and its fence is the inputs' reader ([design](design.md));
 * `stats` counts the batches, their frames and empty slots, the kernel's
 * GPU time and any host wait of the element's streaming threads.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 pinnedbatch name=b type=float16 ! fakesink \
 *     videotestsrc ! video/x-raw,width=1280,height=720 ! b.sink_0 \
 *     videotestsrc pattern=ball ! video/x-raw,width=640,height=480 ! b.sink_1
 * ]| Two streams of system memory into 2×3×640×640 float16 batches.
 * |[
 * gst-launch-1.0 pinnedbatch name=b width=224 height=224 letterbox=false \
 *     mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>" ! fakesink \
 *     filesrc location=a.mp4 ! qtdemux ! h264parse ! nvh264dec ! b. \
 *     filesrc location=b.mp4 ! qtdemux ! h264parse ! nvh264dec ! b.
 * ]| Two decoders' CUDA memory into ImageNet-normalised float32.
 *
 * Since: 0.2
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudacontext.h>
#include <gst/pinned/gstpinnedcudamemory.h>
#endif

#include "gstpinnedbatch.h"
#include "gstpinnedbatchcaps.h"
#include "gstpinnedbatchframes.h"
#include "gstpinnedbatchpad.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_batch_debug);
#define GST_CAT_DEFAULT gst_pinned_batch_debug

#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 640
#define DEFAULT_LETTERBOX TRUE
#define DEFAULT_PAD_VALUE 114
#define DEFAULT_TYPE GST_PINNED_BATCH_TYPE_FLOAT32
#define DEFAULT_ORDER GST_PINNED_BATCH_ORDER_RGB
#define DEFAULT_TIMEOUT 0
#define DEFAULT_DEVICE_ID GST_PINNED_DEVICE_ID_ANY
#define DEFAULT_POOL_SIZE 4

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_LETTERBOX,
  PROP_PAD_VALUE,
  PROP_TYPE,
  PROP_CHANNEL_ORDER,
  PROP_MEAN,
  PROP_STD,
  PROP_TIMEOUT,
  PROP_DEVICE_ID,
  PROP_POOL_SIZE,
  PROP_STATS,
  N_PROPERTIES
};

static GParamSpec *properties[N_PROPERTIES];

#define gst_pinned_batch_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedBatch, gst_pinned_batch,
    GST_TYPE_AGGREGATOR,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_batch_debug, "pinnedbatch", 0,
        "many streams into one tensor on the GPU"));
GST_ELEMENT_REGISTER_DEFINE (pinnedbatch, "pinnedbatch", GST_RANK_NONE,
    GST_TYPE_PINNED_BATCH);

/* ---- the device -------------------------------------------------------- */

static gint
get_device_id (GstPinnedBatch * self)
{
  gint id;

  GST_OBJECT_LOCK (self);
  id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  return id;
}

static gboolean
open_device_full (GstPinnedBatch * self, gboolean report)
{
  return gst_pinned_batch_device_open (&self->device, GST_ELEMENT (self),
      get_device_id (self), report);
}

static gboolean
open_device (GstPinnedBatch * self)
{
  return open_device_full (self, TRUE);
}

static void
clear_pool (GstPinnedBatch * self)
{
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
}

static void
close_device (GstPinnedBatch * self)
{
  gst_pinned_batch_frames_drop_held (&self->held);
  clear_pool (self);
  /* freeing waits for the fences of the work queued on them */
  gst_pinned_batch_kernel_clear (&self->kernel);
  gst_pinned_batch_device_close (&self->device);
}

/* ---- properties -------------------------------------------------------- */

static void
gst_pinned_batch_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      break;
    case PROP_WIDTH:
      self->width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_int (value);
      break;
    case PROP_LETTERBOX:
      self->letterbox = g_value_get_boolean (value);
      break;
    case PROP_PAD_VALUE:
      self->pad_value = g_value_get_uint (value);
      break;
    case PROP_TYPE:
      self->type = g_value_get_enum (value);
      break;
    case PROP_CHANNEL_ORDER:
      self->order = g_value_get_enum (value);
      break;
    case PROP_MEAN:
      gst_pinned_batch_kernel_get_triple (GST_OBJECT (self), value, self->mean,
          FALSE, "mean");
      break;
    case PROP_STD:
      gst_pinned_batch_kernel_get_triple (GST_OBJECT (self), value, self->std,
          TRUE, "std");
      break;
    case PROP_TIMEOUT:
      GST_OBJECT_UNLOCK (self);
      /* the aggregator's latency: how long a live batch waits */
      g_object_set (self, "latency", g_value_get_uint64 (value), NULL);
      GST_OBJECT_LOCK (self);
      break;
    case PROP_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_POOL_SIZE:
      self->pool_size = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);

  /* Batch size and shape: new caps for the next batch. */
  if (prop_id != PROP_TIMEOUT && prop_id != PROP_DEVICE_ID)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
}

static void
gst_pinned_batch_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (object);
  guint64 latency;

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_pinned_stats_to_batch_structure
        (&self->stats, self->device.context));
    return;
  }
  if (prop_id == PROP_TIMEOUT) {
    g_object_get (self, "latency", &latency, NULL);
    g_value_set_uint64 (value, latency);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      break;
    case PROP_WIDTH:
      g_value_set_int (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, self->height);
      break;
    case PROP_LETTERBOX:
      g_value_set_boolean (value, self->letterbox);
      break;
    case PROP_PAD_VALUE:
      g_value_set_uint (value, self->pad_value);
      break;
    case PROP_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, self->order);
      break;
    case PROP_MEAN:
      gst_pinned_batch_kernel_set_triple (value, self->mean);
      break;
    case PROP_STD:
      gst_pinned_batch_kernel_set_triple (value, self->std);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_POOL_SIZE:
      g_value_set_uint (value, self->pool_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- negotiation ------------------------------------------------------- */

static GstCaps *
batch_caps (GstPinnedBatch * self)
{
  GstPinnedBatchType type;
  GstPinnedBatchOrder order;
  gint width, height;
  guint n;

  /* batch-size 0: a slot a sink pad */
  GST_OBJECT_LOCK (self);
  n = self->batch_size ? self->batch_size :
      MAX (1, GST_ELEMENT (self)->numsinkpads);
  width = self->width;
  height = self->height;
  type = self->type;
  order = self->order;
  GST_OBJECT_UNLOCK (self);
  return gst_pinned_batch_caps_new (n, width, height, type, order);
}

static GstFlowReturn
gst_pinned_batch_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstCaps *ours = batch_caps (GST_PINNED_BATCH (agg));

  *ret = gst_caps_intersect (ours, caps);
  if (gst_caps_is_empty (*ret)) {
    GST_ELEMENT_ERROR (agg, CORE, NEGOTIATION, ("Downstream does not take "
            "the batch"), ("ours %" GST_PTR_FORMAT ", downstream's %"
            GST_PTR_FORMAT, ours, caps));
    gst_caps_unref (ours);
    gst_clear_caps (ret);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (ours);
  return GST_FLOW_OK;
}

static gboolean
gst_pinned_batch_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  gint n = 0, w = 0, h = 0;

  if (!gst_pinned_batch_caps_get_size (caps, &n, &w, &h))
    return FALSE;

  self->n = n;
  self->out_width = w;
  self->out_height = h;
  GST_OBJECT_LOCK (self);
  self->out_type = self->type;
  GST_OBJECT_UNLOCK (self);
  self->out_size =
      gst_pinned_batch_caps_type_size (self->out_type) * 3 * n * w * h;
  GST_INFO_OBJECT (self, "batches of %d, %dx%d %s: %" G_GSIZE_FORMAT " bytes",
      n, w, h, gst_pinned_batch_caps_type_name (self->out_type),
      self->out_size);
  return TRUE;
}

/* The output's pool: device memory, enough buffers that a model holds a
 * batch (or more) while the next fills; acquiring waits when downstream
 * holds them all. */
static gboolean
gst_pinned_batch_decide_allocation (GstAggregator * agg, GstQuery * query)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  guint size;

  if (!open_device (self))
    return FALSE;

  clear_pool (self);
  GST_OBJECT_LOCK (self);
  size = self->pool_size;
  GST_OBJECT_UNLOCK (self);

  self->pool = gst_pinned_batch_device_new_pool (&self->device,
      GST_ELEMENT (self), self->out_size, size);
  if (self->pool == NULL)
    return FALSE;

  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, self->pool, self->out_size, size, size);
  return TRUE;
}

/* ---- input ------------------------------------------------------------- */

static gboolean
pad_set_caps (GstPinnedBatch * self, GstPinnedBatchPad * pad, GstCaps * caps)
{
  return gst_pinned_batch_pad_set_caps (pad, GST_ELEMENT (self), caps) &&
      open_device (self) &&
      gst_pinned_batch_pad_start (pad, GST_ELEMENT (self), self->device.context,
      caps);
}

static gboolean
gst_pinned_batch_sink_event (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstEvent * event)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  GstPinnedThreadWaits waits;
  GstCaps *caps;
  gboolean ok = TRUE;

  gst_pinned_stats_get_thread_waits (&waits);
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    ok = pad_set_caps (self, GST_PINNED_BATCH_PAD (aggpad), caps);
  }
  gst_pinned_stats_add_waits (&self->stats, &waits);
  if (!ok) {
    gst_event_unref (event);
    return FALSE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, aggpad, event);
}

static gboolean
gst_pinned_batch_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  if (gst_pinned_batch_device_handle_query (&GST_PINNED_BATCH (agg)->device,
          GST_ELEMENT (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

static gboolean
gst_pinned_batch_src_query (GstAggregator * agg, GstQuery * query)
{
  if (gst_pinned_batch_device_handle_query (&GST_PINNED_BATCH (agg)->device,
          GST_ELEMENT (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

static void
gst_pinned_batch_set_context (GstElement * element, GstContext * context)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (element);
  gint device_id = get_device_id (self);

  gst_pinned_batch_device_set_context (&self->device, element, context,
      device_id);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_pinned_batch_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstQuery * decide_query, GstQuery * query)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  GstPinnedThreadWaits waits;
  gboolean ok;
  guint size;

  GST_OBJECT_LOCK (self);
  size = self->pool_size;
  GST_OBJECT_UNLOCK (self);
  gst_pinned_stats_get_thread_waits (&waits);
  ok = gst_pinned_batch_pad_propose_allocation (GST_PINNED_BATCH_PAD
      (aggpad), query, &self->device, GST_ELEMENT (self),
      get_device_id (self), size);
  gst_pinned_stats_add_waits (&self->stats, &waits);
  return ok;
}

/* ---- pads come and go -------------------------------------------------- */

static GstPad *
gst_pinned_batch_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstPad *pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element,
      templ, name, caps);

  /* With batch-size 0, a batch has a slot a pad. */
  if (pad)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
  return pad;
}

static void
gst_pinned_batch_release_pad (GstElement * element, GstPad * pad)
{
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
  gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
}

/* ---- a batch ----------------------------------------------------------- */

static GstClockTime
gst_pinned_batch_get_next_time (GstAggregator * agg)
{
  return gst_pinned_batch_frames_next_time (agg);
}

/* The batch's kernel: its parameters from the properties. */
static gboolean
run_kernel (GstPinnedBatch * self, PinnedBatchSlot * slots, guint taken,
    GstBuffer * out, GstPinnedFence ** fence, GError ** error)
{
  PinnedBatchParams p = { 0, };
  gdouble mean[3], std[3];
  GstPinnedBatchOrder order;
  guint pad_value;
  cudaEvent_t end = NULL;
  gboolean timed, ok;

  GST_OBJECT_LOCK (self);
  pad_value = self->pad_value;
  order = self->order;
  memcpy (mean, self->mean, sizeof (mean));
  memcpy (std, self->std, sizeof (std));
  GST_OBJECT_UNLOCK (self);

  gst_pinned_batch_kernel_params (&p, self->n, self->out_width,
      self->out_height, self->out_type, order, mean, std, pad_value);
  timed = gst_pinned_batch_stats_time_begin (&self->stats, &self->device, &end);
  ok = gst_pinned_batch_kernel_run (&self->kernel,
      self->device.host_allocator, self->device.device_allocator,
      self->device.stream, &p, slots, out, fence, error);
  gst_pinned_batch_stats_time_end (&self->stats, &self->device, timed, end,
      ok, taken);
  return ok;
}

static GstFlowReturn
make_batch (GstAggregator * agg, gboolean timeout)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  GstFlowReturn ret = GST_FLOW_OK;
  GPtrArray *pads;
  GstPinnedBatchFrame *frames = NULL;
  PinnedBatchSlot *slots = NULL;
  GstPinnedFence *fence = NULL;
  GstBuffer *out = NULL;
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GError *error = NULL;
  gboolean letterbox, pushed_context = FALSE;
  guint taken = 0;
  GList *l;

  if (self->n == 0 || self->pool == NULL)
    return GST_FLOW_NOT_NEGOTIATED;

  GST_OBJECT_LOCK (self);
  letterbox = self->letterbox;
  pads = g_ptr_array_new_with_free_func (gst_object_unref);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    g_ptr_array_add (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (self);

  frames = g_new0 (GstPinnedBatchFrame, self->n);
  slots = g_new0 (PinnedBatchSlot, self->n);

  ret = gst_pinned_batch_frames_take (pads, self->n, &self->next_pad, frames,
      &taken);
  if (ret != GST_FLOW_OK || taken == 0)
    goto done;

  ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
  if (ret != GST_FLOW_OK)
    goto done;

  if (!gst_pinned_context_push (self->device.context, &error))
    goto failed;
  pushed_context = TRUE;

  if (!gst_pinned_batch_frames_prepare (frames, slots, self->n,
          self->device.stream, self->device.device_allocator, self->out_width,
          self->out_height, letterbox, &error))
    goto failed;
  if (!gst_pinned_buffer_sync_stream (out, self->device.stream, GST_MAP_WRITE,
          &error) || !run_kernel (self, slots, taken, out, &fence, &error))
    goto failed;
  gst_pinned_context_pop (self->device.context);
  pushed_context = FALSE;

  /* The batch is the kernel's; each input goes back now and is written
   * again only after the kernel (its readers' fence). */
  gst_pinned_buffer_add_fence (out, fence, GST_MAP_WRITE);
  pts = gst_pinned_batch_frames_finish (frames, slots, self->n, out, fence);
  GST_BUFFER_PTS (out) = pts;
  GST_BUFFER_OFFSET (out) = self->batches++;
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_OBJECT_LOCK (self);
    GST_AGGREGATOR_PAD (agg->srcpad)->segment.position = pts;
    GST_OBJECT_UNLOCK (self);
  }
  GST_LOG_OBJECT (self, "batch %" G_GUINT64_FORMAT ": %u of %u slots%s",
      self->batches - 1, taken, self->n, timeout ? " (timeout)" : "");
  gst_pinned_batch_stats_add_batch (&self->stats, frames, self->n, timeout);
  ret = gst_aggregator_finish_buffer (agg, out);
  out = NULL;
  goto done;

failed:
  if (pushed_context)
    gst_pinned_context_pop (self->device.context);
  GST_PINNED_ELEMENT_ERROR (self, error, "Could not make a batch");
  g_clear_error (&error);
  ret = GST_FLOW_ERROR;

done:
  gst_clear_pinned_fence (&fence);
  gst_clear_buffer (&out);
  if (frames)
    gst_pinned_batch_frames_release (frames, self->n, &self->held);
  g_free (frames);
  g_free (slots);
  g_ptr_array_unref (pads);
  return ret;
}

/* A batch, and the host waits of the aggregator's thread making it */
static GstFlowReturn
gst_pinned_batch_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  GstPinnedThreadWaits waits;
  GstFlowReturn ret;

  gst_pinned_stats_get_thread_waits (&waits);
  ret = make_batch (agg, timeout);
  gst_pinned_stats_add_waits (&self->stats, &waits);
  if (ret == GST_FLOW_EOS)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATS]);
  return ret;
}

/* ---- states ------------------------------------------------------------ */

static gboolean
gst_pinned_batch_start (GstAggregator * agg)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);

  self->next_pad = 0;
  self->batches = 0;
  self->kernel.next_table = 0;
  gst_pinned_stats_reset (&self->stats);
  if (!open_device (self))
    return FALSE;
  gst_pinned_stats_timer_open (&self->stats, self->device.context);
  return TRUE;
}

static gboolean
gst_pinned_batch_stop (GstAggregator * agg)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (agg);
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    gst_pinned_batch_pad_clear (l->data);
  GST_OBJECT_UNLOCK (self);
  self->n = 0;
  gst_pinned_stats_timer_read (&self->stats, self->device.context);
  gst_pinned_stats_timer_close (&self->stats, self->device.context);
  close_device (self);
  return TRUE;
}

static GstStateChangeReturn
gst_pinned_batch_change_state (GstElement * element, GstStateChange transition)
{
  GstPinnedBatch *self = GST_PINNED_BATCH (element);

  /* The device before upstream's decoders open theirs (at NULL to READY,
   * after their downstream): they then share its CUDA context, in which
   * their frames' pointers are valid for the kernel. Without a device,
   * start() fails and says why, as the other elements do. */
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    open_device_full (self, FALSE);

  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* ---- class ------------------------------------------------------------- */

static void
gst_pinned_batch_finalize (GObject * object)
{
  close_device (GST_PINNED_BATCH (object));
  gst_pinned_stats_clear (&GST_PINNED_BATCH (object)->stats);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_batch_class_init (GstPinnedBatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_pinned_batch_set_property;
  gobject_class->get_property = gst_pinned_batch_get_property;
  gobject_class->finalize = gst_pinned_batch_finalize;

  properties[PROP_BATCH_SIZE] = g_param_spec_uint ("batch-size", "Batch size",
      "Slots in a batch (0: one per sink pad)", 0, G_MAXINT,
      DEFAULT_BATCH_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_WIDTH] = g_param_spec_int ("width", "Width",
      "Width of the tensor's planes", 1, 32767, DEFAULT_WIDTH,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_HEIGHT] = g_param_spec_int ("height", "Height",
      "Height of the tensor's planes", 1, 32767, DEFAULT_HEIGHT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_LETTERBOX] = g_param_spec_boolean ("letterbox", "Letterbox",
      "Keep each frame's aspect ratio, padding with pad-value (else stretch "
      "it to the plane)", DEFAULT_LETTERBOX,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_PAD_VALUE] = g_param_spec_uint ("pad-value", "Pad value",
      "Level (0..255, before normalisation) of the letterbox's padding and "
      "of empty slots", 0, 255, DEFAULT_PAD_VALUE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_TYPE] = g_param_spec_enum ("type", "Type",
      "Element type of the tensor", GST_TYPE_PINNED_BATCH_TYPE, DEFAULT_TYPE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_CHANNEL_ORDER] = g_param_spec_enum ("channel-order",
      "Channel order", "Order of the tensor's channels",
      GST_TYPE_PINNED_BATCH_ORDER, DEFAULT_ORDER,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_MEAN] = gst_param_spec_array ("mean", "Mean",
      "Float types: mean of R, G, B on the 0..1 scale, subtracted: "
      "(level / 255 - mean) / std", g_param_spec_double ("mean-value",
          "Mean value", "One channel's mean", -G_MAXDOUBLE, G_MAXDOUBLE, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_STD] = gst_param_spec_array ("std", "Standard deviation",
      "Float types: standard deviation of R, G, B on the 0..1 scale, "
      "divided by", g_param_spec_double ("std-value", "Std value",
          "One channel's standard deviation", G_MINDOUBLE, G_MAXDOUBLE, 1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Live sources: how long (ns) after the oldest waiting frame's running "
      "time, beyond upstream's latency, a partial batch goes out (the "
      "aggregator's latency)", 0, G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEVICE_ID] = g_param_spec_int ("device-id", "Device ID",
      "CUDA device to use (-1: the pipeline's, or device 0)", -1, G_MAXINT,
      DEFAULT_DEVICE_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  properties[PROP_POOL_SIZE] = g_param_spec_uint ("pool-size", "Pool size",
      "Batches in flight: a model may hold pool-size - 1 while the next "
      "fills; also the page-locked buffers offered upstream of system "
      "memory pads", 2, 64, DEFAULT_POOL_SIZE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  properties[PROP_STATS] = gst_pinned_batch_stats_param_spec ();
  g_object_class_install_properties (gobject_class, N_PROPERTIES, properties);

  gst_pinned_batch_caps_add_templates (element_class,
      GST_TYPE_PINNED_BATCH_PAD);

  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA batcher", "Filter/Converter/Video/Scaler/Hardware",
      "Scales and converts frames of many streams into one [N, C, H, W] "
      "tensor in CUDA device memory", "gst-pinned developers");

  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_pinned_batch_release_pad);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_pinned_batch_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_change_state);

  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_pinned_batch_aggregate);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_pinned_batch_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_batch_stop);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_pinned_batch_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_pinned_batch_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_pinned_batch_src_query);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_propose_allocation);
  agg_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_decide_allocation);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_update_src_caps);
  agg_class->negotiated_src_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_batch_negotiated_src_caps);
  agg_class->get_next_time = GST_DEBUG_FUNCPTR (gst_pinned_batch_get_next_time);
}

static void
gst_pinned_batch_init (GstPinnedBatch * self)
{
  guint i;

  self->batch_size = DEFAULT_BATCH_SIZE;
  self->width = DEFAULT_WIDTH;
  self->height = DEFAULT_HEIGHT;
  self->letterbox = DEFAULT_LETTERBOX;
  self->pad_value = DEFAULT_PAD_VALUE;
  self->type = DEFAULT_TYPE;
  self->order = DEFAULT_ORDER;
  self->device_id = DEFAULT_DEVICE_ID;
  self->pool_size = DEFAULT_POOL_SIZE;
  gst_pinned_stats_init (&self->stats);
  for (i = 0; i < 3; i++) {
    self->mean[i] = 0;
    self->std[i] = 1;
  }
}
