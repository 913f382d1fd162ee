/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-pinneddownload
 * @title: pinneddownload
 * @see_also: pinnedupload
 *
 * Downloads raw video from CUDA device memory
 * (`video/x-raw(memory:PinnedDevice)`, and, in builds with CUDA interop,
 * `video/x-raw(memory:CUDAMemory)` of GStreamer's nvcodec elements) to
 * system memory, asynchronously.
 *
 * Per frame, pinneddownload makes its own CUDA stream wait for the copy or
 * kernel that wrote the device frame (on the GPU, not the host), enqueues
 * the copy into a buffer of its own page-locked pool, records a fence and
 * pushes the buffer at once. Downstream that maps the buffer waits for the
 * copy there (sync-on-map); downstream that never maps it (fakesink) cannot
 * make the pool hand it out again before the copy is done.
 *
 * When downstream accepts #GstVideoMeta, buffers carry it; otherwise they
 * are packed in the default layout, whatever the layout of the device frame.
 * System memory input passes through.
 *
 * CUDA memory (a decoder's output, say) is read in its own layout, in the
 * CUDA context the pipeline shares with the nvcodec elements; the input
 * buffer is held until its copy is done, so that its pool does not hand it
 * out to the decoder again before. Caps prefer CUDA memory, then
 * gst-pinned's device memory, then system memory.
 *
 * pinneddownload outputs from its own page-locked pool, except where
 * downstream proposes a pool of memory of its own (a sink's shared or
 * device memory, not a plain system-memory pool), or where
 * #GstPinnedDownload:pageable-mode names a way: then it copies into
 * downstream's buffers, registering those that come back and staging the
 * others out on #GstPinnedDownload:copy-threads threads; frames are then
 * complete when pushed, so the host waits for each copy.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=1279,height=719 ! pinnedupload ! pinneddownload ! checksumsink
 * ]| Round trip through the GPU; the checksums match those of the frames
 * without the pair.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! pinnedupload ! pinneddownload pool-size=8 ! queue ! autovideosink
 * ]| Up to eight downloaded frames in flight.
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! pinneddownload ! videoconvert ! autovideosink
 * ]| Decodes on the GPU and downloads the frames from nvh264dec's CUDA
 * memory into page-locked buffers.
 * |[
 * gst-launch-1.0 videotestsrc ! pinnedupload ! pinneddownload pageable-mode=stage copy-threads=8 ! videoconvert ! xvimagesink
 * ]| Into the buffers videoconvert proposes, staged out on eight threads.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinneddownload.h"
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#define CUDA_SINK_CAPS GST_PINNED_CUDA_CAPS ";"
#else
#define CUDA_SINK_CAPS
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_download_debug);
#define GST_CAT_DEFAULT gst_pinned_download_debug


struct _GstPinnedDownload
{
  GstPinnedCopyTransform parent;

  /* CUDA memory in: views of the input, held until their copies are done */
  GstPinnedWindow *held;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_PINNED_VIDEO_CAPS));

/* Device memory in: CUDA memory first (see transform_caps) */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (CUDA_SINK_CAPS GST_PINNED_DEVICE_VIDEO_CAPS ";"
        GST_PINNED_VIDEO_CAPS));

#define gst_pinned_download_parent_class parent_class
G_DEFINE_TYPE (GstPinnedDownload, gst_pinned_download,
    GST_TYPE_PINNED_COPY_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (pinneddownload, "pinneddownload", GST_RANK_NONE,
    GST_TYPE_PINNED_DOWNLOAD);

static GstCaps *
gst_pinned_download_caps (GstPinnedCopyTransform * copy,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *ret;

  if (direction == GST_PAD_SINK) {
    ret = gst_pinned_caps_set_memory_feature (caps, NULL);
  } else {
    /* Prefer device memory upstream: system memory only passes through.
     * CUDA memory first, so that a decoder that offers it and system
     * memory outputs device memory. */
    ret = gst_pinned_caps_set_memory_feature (caps,
        GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
#ifdef HAVE_CUDA_INTEROP
    ret = gst_caps_merge (gst_pinned_cuda_caps (caps), ret);
#endif
    ret = gst_caps_merge (ret, gst_caps_copy (caps));
  }

  return ret;
}

static gboolean
gst_pinned_download_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (decide_query == NULL)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);

  /* Device frames of any layout are welcome: the copy packs them. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* A plain system-memory pool is no better than ours; a pool of its own
 * kind (shared memory of a display, a device's buffers) saves downstream
 * a copy of its own. */
static gboolean
use_downstream_pool (GstPinnedDownload * self, GstBufferPool * pool)
{
  GstPinnedPageableMode mode;
  GType type = G_OBJECT_TYPE (pool);

  if (GST_IS_PINNED_HOST_BUFFER_POOL (pool))
    return FALSE;

  g_object_get (self, "pageable-mode", &mode, NULL);

  if (mode != GST_PINNED_PAGEABLE_AUTO)
    return TRUE;
  return type != GST_TYPE_BUFFER_POOL && type != GST_TYPE_VIDEO_BUFFER_POOL;
}

static gboolean
gst_pinned_download_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstPinnedDownload *self = GST_PINNED_DOWNLOAD (trans);
  GstBufferPool *pool;
  GstCaps *caps;
  GstVideoInfo info;
  GError *error = NULL;
  guint min = 0, pool_size;
  gboolean video_meta;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  pool_size = gst_pinned_base_transform_get_pool_size
      (GST_PINNED_BASE_TRANSFORM (self));

  /* Our own page-locked pool, unless downstream's memory is its own or we
   * are told to: a copy into other memory waits on the host. Honour
   * downstream's wish for more buffers. */
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, NULL);
    if (pool && use_downstream_pool (self, pool)) {
      GST_INFO_OBJECT (self, "copying into downstream's %" GST_PTR_FORMAT,
          pool);
      gst_object_unref (pool);
      return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation
          (trans, query);
    }
    gst_clear_object (&pool);
  }
  /* Downstream's minimum counts the one buffer it gets next; a batch fills
   * that many before any goes. */
  if (min > 0)
    min += gst_pinned_base_transform_get_batch (GST_PINNED_BASE_TRANSFORM
        (self)) - 1;
  min = MAX (min, pool_size);

  /* Buffers carry GstVideoMeta where downstream takes it. */
  video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
      NULL);
  pool = gst_pinned_copy_transform_new_host_pool (GST_PINNED_COPY_TRANSFORM
      (self), caps, info.size, min, video_meta);
  if (pool == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot configure the page-locked buffer pool"), (NULL));
    return FALSE;
  }

  /* Activate here, so that a failed cudaHostAlloc reports its CUDA error. */
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    gst_pinned_buffer_pool_take_error (pool, &error);
    GST_PINNED_ELEMENT_ERROR (self, error,
        "Could not allocate page-locked host memory");
    g_clear_error (&error);
    gst_object_unref (pool);
    return FALSE;
  }

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, min, 0);
  else
    gst_query_add_allocation_pool (query, pool, info.size, min, 0);
  gst_object_unref (pool);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* CUDA memory in: a view of it, which the window holds until its copy is
 * done (then its pool may hand it out again). */
static gboolean
gst_pinned_download_prepare (GstPinnedCopyTransform * copy, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBuffer ** src, GstBuffer ** dst)
{
#ifdef HAVE_CUDA_INTEROP
  GstPinnedDownload *self = GST_PINNED_DOWNLOAD (copy);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (copy);

  if (!gst_pinned_is_cuda_buffer (inbuf))
    return TRUE;
  if (self->held == NULL)
    self->held = gst_pinned_window_new (NULL,
        2 * gst_pinned_base_transform_get_pool_size (base));
  *src = gst_pinned_copy_transform_wrap_cuda (copy, inbuf,
      gst_pinned_base_transform_get_in_info (base), GST_MAP_READ);
  return *src != NULL;
#else
  return TRUE;
#endif
}

static gboolean
gst_pinned_download_finish (GstPinnedCopyTransform * copy, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBuffer * src, GstBuffer * dst, gboolean ok,
    GError ** error)
{
  if (src != inbuf)
    gst_pinned_window_push (GST_PINNED_DOWNLOAD (copy)->held, NULL, src);

  return ok;
}

/* Our pool's buffers are written by the copy alone, which the stream
 * orders after their last copy: the pool need not wait for that on the
 * host (mapping them still waits for this one). */
static GstFlowReturn
gst_pinned_download_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstBufferPoolAcquireParams params = {
    .flags = GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE,
  };
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  GstBufferPool *pool = NULL;
  GstFlowReturn ret;

  if (!gst_base_transform_is_passthrough (trans))
    pool = gst_base_transform_get_buffer_pool (trans);
  if (pool == NULL || !GST_IS_PINNED_HOST_BUFFER_POOL (pool) ||
      !gst_buffer_pool_is_active (pool)) {
    gst_clear_object (&pool);
    return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
        (trans, inbuf, outbuf);
  }

  ret = gst_buffer_pool_acquire_buffer (pool, outbuf, &params);
  gst_object_unref (pool);
  if (ret != GST_FLOW_OK)
    return ret;

  if (klass->copy_metadata && !klass->copy_metadata (trans, inbuf, *outbuf))
    GST_ELEMENT_WARNING (trans, STREAM, NOT_IMPLEMENTED,
        ("could not copy metadata"), (NULL));

  return GST_FLOW_OK;
}

static gboolean
gst_pinned_download_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstPinnedDownload *self = GST_PINNED_DOWNLOAD (trans);

  /* Upstream may wait for its buffers at EOS (a decoder draining). */
  if (self->held && GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    gst_pinned_window_drain (self->held);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_pinned_download_stop (GstBaseTransform * trans)
{
  GstPinnedDownload *self = GST_PINNED_DOWNLOAD (trans);

  if (self->held) {
    gst_pinned_window_drain (self->held);
    gst_pinned_window_stop (self->held);
    gst_clear_object (&self->held);
  }

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static void
gst_pinned_download_finalize (GObject * object)
{
  gst_clear_object (&GST_PINNED_DOWNLOAD (object)->held);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_download_class_init (GstPinnedDownloadClass * klass)
{
  GstPinnedCopyTransformClass *copy_class =
      GST_PINNED_COPY_TRANSFORM_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_pinned_download_debug, "pinneddownload", 0,
      "Download from CUDA device memory");

  G_OBJECT_CLASS (klass)->finalize = gst_pinned_download_finalize;

  /**
   * GstPinnedDownload:pageable-mode:
   *
   * `auto` outputs from the element's page-locked pool unless downstream
   * proposes a pool of memory of its own (not a plain system-memory one);
   * `register`, `stage` and `direct` copy into the buffers of any pool
   * downstream proposes, in that way (registering recycled ones, staging
   * out on #GstPinnedDownload:copy-threads threads, or through CUDA). Into
   * such buffers the host waits for each copy.
   *
   * Since: 0.1
   */

  /**
   * GstPinnedDownload:copy-threads:
   *
   * Threads that copy frames out of page-locked staging into downstream's
   * buffers, the streaming thread included; 0 for one per core, at most 8.
   *
   * Since: 0.1
   */
  gst_pinned_copy_transform_class_install_pageable (copy_class,
      "When and how to copy into downstream's own buffers (auto: only into "
      "a pool of downstream's own kind; register or stage them)",
      "Threads that stage frames out into downstream's buffers, the "
      "streaming one included (0: one per core, at most 8)");

  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA download", "Filter/Video/Hardware",
      "Downloads video from CUDA device memory into page-locked buffers, "
      "asynchronously", "gst-pinned developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_download_propose_allocation);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_download_stop);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_download_decide_allocation);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_pinned_download_sink_event);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_pinned_download_prepare_output_buffer);

  /* The direction: device to host. */
  copy_class->span = "D2H copy";
  copy_class->failure = "Could not download a frame";
  copy_class->caps = GST_DEBUG_FUNCPTR (gst_pinned_download_caps);
  copy_class->prepare = GST_DEBUG_FUNCPTR (gst_pinned_download_prepare);
  copy_class->finish = GST_DEBUG_FUNCPTR (gst_pinned_download_finish);
}

static void
gst_pinned_download_init (GstPinnedDownload * self)
{
}
