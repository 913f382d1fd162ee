/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-pinnedupload
 * @title: pinnedupload
 * @see_also: pinneddownload
 *
 * Uploads raw video from system memory to CUDA device memory
 * (`video/x-raw(memory:PinnedDevice)`), asynchronously.
 *
 * pinnedupload offers upstream a pool of page-locked (pinned) buffers in the
 * ALLOCATION query, so that a source writes each frame straight into memory
 * the DMA engine reads at the link's full rate. Per frame it enqueues one
 * cudaMemcpyAsync() per memory on its own CUDA stream, records a fence and
 * pushes the device buffer at once: nothing waits on the host. The fence
 * keeps the frame safe: the source cannot write the page-locked buffer again
 * while the copy still reads it, and whoever uses the device buffer waits
 * for the copy on its own stream.
 *
 * Input that is not page-locked (an upstream that ignores the pool) takes
 * the fastest way #GstPinnedUpload:pageable-mode allows: memory that comes
 * back (the upstream recycles its buffers) is page-locked once and copied
 * directly; memory seen once is copied through page-locked staging by
 * #GstPinnedUpload:copy-threads threads while the element goes on, the
 * DMA behind them on its stream. Input already in device memory passes
 * through. The device buffer keeps the input's layout (offsets and
 * strides, in its #GstVideoMeta).
 *
 * In builds with CUDA interop, pinnedupload also outputs
 * `video/x-raw(memory:CUDAMemory)` for GStreamer's nvcodec elements
 * (cudadownload, cudaconvert, the encoders), in the CUDA context the
 * pipeline shares with them, from downstream's CUDA buffer pool or one of
 * its own. Its own device memory comes first in the caps. With GStreamer
 * 1.22, CUDA memory must be complete when pushed: pinnedupload then pushes
 * each frame once its copy is done, from a task of its own, while the next
 * frames' copies run (up to pool-size frames in flight). Where CUDA memory
 * carries a stream (1.24 and later), the frame carries the copy instead and
 * is pushed at once.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! pinneddownload ! autovideosink
 * ]| Uploads NV12 frames to the GPU and brings them back.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=RGBA,width=3840,height=2160 ! pinnedupload device-id=0 ! fakesink
 * ]| Uploads 4K RGBA frames to CUDA device 0.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! nvh264enc ! h264parse ! mp4mux ! filesink location=out.mp4
 * ]| Feeds an NVENC encoder from page-locked buffers.
 * |[
 * gst-launch-1.0 multifilesrc location=frame%d.rgba loop=true ! rawvideoparse format=rgba width=3840 height=2160 ! pinnedupload copy-threads=8 ! fakesink
 * ]| A fresh pageable buffer per frame, staged on seven threads while the
 * streaming thread goes on.
 * |[
 * GST_DEBUG=pinnedupload:2 gst-launch-1.0 -v videotestsrc num-buffers=100 ! identity drop-allocation=true ! pinnedupload ! fakesink
 * ]| identity keeps videotestsrc from the offered pool: pinnedupload says so
 * once, naming it, and `-v` prints the element's stats at the end of the
 * stream (pageable-buffers=100).
 *
 * Input that is not in gst-pinned page-locked memory is said once per caps
 * in a warning of the `pinnedupload` debug category that names the element
 * upstream (seen through ghost pads, queues and capsfilters), and counted
 * in #GstPinnedBaseTransform:stats (`pageable-buffers`).
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedupload.h"
#include "gstpinnedupstream.h"
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#define CUDA_SRC_CAPS ";" GST_PINNED_CUDA_CAPS
#else
#define CUDA_SRC_CAPS
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_upload_debug);
#define GST_CAT_DEFAULT gst_pinned_upload_debug

#define DEFAULT_WRITE_COMBINED FALSE

struct _GstPinnedUpload
{
  GstPinnedCopyTransform parent;

  /* Page-locked pool offered upstream; kept while its caps hold, since
   * page-locking is slow. */
  GstBufferPool *upstream_pool;
  /* Device pool the frames are copied into. */
  GstBufferPool *device_pool;
  gsize device_size;

  /* CUDA memory out: the view of the frame being made, and the window
   * that pushes frames once complete (GStreamer 1.22) or holds the views
   * until their copies are done (1.24). */
  gboolean cuda_out;
  GstBuffer *view;
  gboolean attached;
  GstPinnedWindow *window;
  /* Said once per caps: upstream does not write into the offered pool */
  gboolean told_pageable;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_PINNED_VIDEO_CAPS ";" GST_PINNED_DEVICE_VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_PINNED_DEVICE_VIDEO_CAPS CUDA_SRC_CAPS));

#define gst_pinned_upload_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedUpload, gst_pinned_upload,
    GST_TYPE_PINNED_COPY_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_upload_debug, "pinnedupload", 0,
        "Upload to CUDA device memory"));
GST_ELEMENT_REGISTER_DEFINE (pinnedupload, "pinnedupload", GST_RANK_NONE,
    GST_TYPE_PINNED_UPLOAD);

static void
clear_pool (GstBufferPool ** pool)
{
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_clear_object (pool);
  }
}

static void
clear_window (GstPinnedUpload * self)
{
  if (self->window) {
    gst_pinned_window_stop (self->window);
    gst_clear_object (&self->window);
  }
}

static gboolean
gst_pinned_upload_stop (GstBaseTransform * trans)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);

  clear_window (self);
  gst_clear_buffer (&self->view);
  self->cuda_out = FALSE;
  clear_pool (&self->upstream_pool);
  clear_pool (&self->device_pool);
  self->device_size = 0;

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

/* The window's task pushes on the source pad: it stops before the pads
 * are deactivated. */
static GstStateChangeReturn
gst_pinned_upload_change_state (GstElement * element, GstStateChange transition)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (element);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && self->window)
    gst_pinned_window_stop (self->window);

  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static GstCaps *
gst_pinned_upload_caps (GstPinnedCopyTransform * copy,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *ret;

  if (direction == GST_PAD_SINK) {
    /* System memory is uploaded; device memory passes through. Our own
     * device memory first: CUDA memory only for those who take nothing
     * else (it costs a pool of another library, and on 1.22 a host wait
     * per frame off the streaming thread). */
    ret = gst_pinned_caps_set_memory_feature (caps,
        GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
#ifdef HAVE_CUDA_INTEROP
    ret = gst_caps_merge (ret, gst_pinned_cuda_caps (caps));
#endif
  } else {
    GstCaps *sysmem = gst_pinned_caps_set_memory_feature (caps, NULL);

    ret = gst_caps_merge (gst_caps_copy (caps), sysmem);
  }

  return ret;
}

/* Upstream gets the formats in our order, not in its own: GstBaseTransform
 * keeps the order of the querier's filter, and a source that can make
 * anything (videotestsrc lists 16-bit formats first) would then pick the
 * first of its list that we take instead of a common 8-bit one. */
static gboolean
query_caps_in_our_order (GstBaseTransform * trans, GstQuery * query)
{
  GstQuery *unfiltered = gst_query_new_caps (NULL);
  GstCaps *filter = NULL, *caps = NULL, *ret;
  gboolean ok;

  gst_query_parse_caps (query, &filter);
  ok = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, GST_PAD_SINK,
      unfiltered);
  if (ok) {
    gst_query_parse_caps_result (unfiltered, &caps);
    ret = gst_caps_intersect_full (caps, filter, GST_CAPS_INTERSECT_FIRST);
    gst_query_set_caps_result (query, ret);
    gst_caps_unref (ret);
  }
  gst_query_unref (unfiltered);

  return ok;
}

static gboolean
gst_pinned_upload_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);
  GstPinnedContext *context =
      gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM (self));
  GstAllocationParams params;
  GstAllocator *allocator = NULL;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;
  guint pool_size;

  /* Passthrough: the base class forwards the query downstream. */
  if (decide_query == NULL)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  if (context == NULL)
    return TRUE;

  /* The caps may come after this query: the batch its frames will take. */
  pool_size = gst_pinned_copy_transform_get_pool_size_for
      (GST_PINNED_COPY_TRANSFORM (self), &info);

  /* An active pool cannot be reconfigured by the next upstream: offer it
   * again only while it is idle and its caps still hold. */
  if (self->upstream_pool) {
    GstCaps *pool_caps = NULL;

    config = gst_buffer_pool_get_config (self->upstream_pool);
    gst_buffer_pool_config_get_params (config, &pool_caps, NULL, NULL, NULL);
    if (gst_buffer_pool_is_active (self->upstream_pool) || pool_caps == NULL
        || !gst_caps_is_equal (pool_caps, caps))
      gst_clear_object (&self->upstream_pool);
    gst_structure_free (config);
  }

  if (self->upstream_pool == NULL) {
    self->upstream_pool = gst_pinned_copy_transform_new_host_pool
        (GST_PINNED_COPY_TRANSFORM (self), caps, info.size, pool_size, FALSE);
    if (self->upstream_pool == NULL) {
      GST_WARNING_OBJECT (self, "cannot configure page-locked pool");
      return TRUE;
    }
    GST_DEBUG_OBJECT (self, "offering page-locked pool %" GST_PTR_FORMAT
        " of %u buffers of %" G_GSIZE_FORMAT " bytes", self->upstream_pool,
        pool_size, info.size);
  }

  config = gst_buffer_pool_get_config (self->upstream_pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, &params);
  gst_query_add_allocation_pool (query, self->upstream_pool, info.size,
      pool_size, 0);
  if (allocator)
    gst_query_add_allocation_param (query, allocator, &params);
  gst_structure_free (config);

  return TRUE;
}

/* GstBaseTransform answers an ALLOCATION query only once caps are
 * negotiated, but some upstreams ask earlier: imagefreeze forwards its
 * upstream's query before it sends caps on. Those would then allocate
 * pageable memory for good. The query carries the caps, and system memory
 * in means no passthrough: offer the page-locked pool all the same. */
static gboolean
gst_pinned_upload_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCaps *caps = NULL;

  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_query_parse_caps (query, &caps);
    if (caps)
      return query_caps_in_our_order (trans, query);
  }

  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) ==
      GST_QUERY_ALLOCATION && !gst_pad_has_current_caps (trans->sinkpad)) {
    gst_query_parse_allocation (query, &caps, NULL);
    if (caps && gst_caps_is_fixed (caps) && gst_caps_features_is_equal
        (gst_caps_get_features (caps, 0),
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) {
      GST_DEBUG_OBJECT (trans, "ALLOCATION query before caps, answering");
      return gst_pinned_base_transform_open_device (GST_PINNED_BASE_TRANSFORM
          (trans)) && gst_pinned_upload_propose_allocation (trans, query,
          query);
    }
  }

  /* Upstream's serialized queries (a drain) come after the frames it sent
   * before them, as serialized events do: the window pushes those first. */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query) &&
      GST_PINNED_UPLOAD (trans)->window)
    gst_pinned_window_drain (GST_PINNED_UPLOAD (trans)->window);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

#ifdef HAVE_CUDA_INTEROP
/* CUDA memory out: downstream's CUDA pool if it is of our CUDA context,
 * else one of our own. */
static gboolean
decide_cuda_allocation (GstPinnedUpload * self, GstQuery * query,
    GstCaps * caps, guint min)
{
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (self);
  GstPinnedContext *context = gst_pinned_base_transform_get_context (base);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = 0, max = 0;

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, &max);
    if (!gst_pinned_cuda_buffer_pool_is_usable (pool, context))
      gst_clear_object (&pool);
  }
  min = MAX (min, 2 * gst_pinned_base_transform_get_pool_size (base));

  /* The base class (metas, allocator) decides without the pools: it would
   * set a CUDA pool's config once more, and a pool compares a new config
   * with the one it has, where the CUDA stream that 1.24 puts in it has no
   * comparison (GStreamer-CRITICAL, and a refusal if the pool is active). */
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation
      (GST_BASE_TRANSFORM (self), query)) {
    gst_clear_object (&pool);
    return FALSE;
  }

  if (pool) {
    GST_DEBUG_OBJECT (self, "using downstream's %" GST_PTR_FORMAT, pool);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, 0, min, max);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config))
      gst_clear_object (&pool);
  }
  if (pool == NULL)
    pool = gst_pinned_cuda_buffer_pool_new (context, caps, min);
  if (pool == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot configure a CUDA buffer pool"), ("caps %" GST_PTR_FORMAT,
            caps));
    return FALSE;
  }

  /* The pool tells the size of its buffers: the driver chose the pitch. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);

  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate CUDA memory"), ("pool %" GST_PTR_FORMAT, pool));
    gst_object_unref (pool);
    return FALSE;
  }
  gst_query_add_allocation_pool (query, pool, size, min, max);

  clear_pool (&self->device_pool);
  self->device_pool = pool;
  self->device_size = size;
  self->cuda_out = TRUE;

  if (self->window == NULL)
    self->window = gst_pinned_window_new (GST_BASE_TRANSFORM_SRC_PAD (self),
        gst_pinned_base_transform_get_pool_size (base));

  return TRUE;
}
#endif

static gboolean
gst_pinned_upload_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);
  GstCaps *caps;
  GstVideoInfo info;
  guint size = 0, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  /* Frames of the former allocation leave first. */
  if (self->window)
    gst_pinned_window_drain (self->window);
  self->cuda_out = FALSE;
#ifdef HAVE_CUDA_INTEROP
  if (gst_pinned_caps_is_cuda (caps))
    return decide_cuda_allocation (self, query, caps, 0);
#endif

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, &size, &min, &max);

  /* Twice as many device frames as page-locked ones: a device buffer is
   * written again only after its last downstream GPU stage (a filter, a
   * download, each on its own engine) is done with it, and with too few in
   * flight the upload's stream waits for them (upload ! busy kernel !
   * download ran slower than its longest stage with as many device frames
   * as page-locked ones). */
  min = MAX (min, 2 * gst_pinned_base_transform_get_pool_size
      (GST_PINNED_BASE_TRANSFORM (self)));

  clear_pool (&self->device_pool);
  self->device_size = MAX (size, info.size);
  self->device_pool = gst_pinned_base_transform_make_device_pool
      (GST_PINNED_BASE_TRANSFORM (self), caps, self->device_size, min);
  if (self->device_pool == NULL)
    return FALSE;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, self->device_pool,
        self->device_size, min, 0);
  else
    gst_query_add_allocation_pool (query, self->device_pool,
        self->device_size, min, 0);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* The device frame keeps the input's layout, so that each input memory is
 * one copy; the layout needs as many bytes as the input has. */
static GstFlowReturn
gst_pinned_upload_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);
  gsize need = gst_buffer_get_size (inbuf);
  GstFlowReturn ret;

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
        (trans, inbuf, outbuf);

  if (self->device_pool == NULL)
    return GST_FLOW_NOT_NEGOTIATED;

  /* CUDA memory has its own layout: the copy fits the frame into it. */
  if (!self->cuda_out && need > self->device_size) {
    GstStructure *config = gst_buffer_pool_get_config (self->device_pool);
    GstCaps *caps = NULL;
    guint min = 0;

    gst_buffer_pool_config_get_params (config, &caps, NULL, &min, NULL);
    gst_caps_ref (caps);
    gst_structure_free (config);

    GST_INFO_OBJECT (self, "input of %" G_GSIZE_FORMAT " bytes needs a larger "
        "device pool than %" G_GSIZE_FORMAT, need, self->device_size);
    clear_pool (&self->device_pool);
    self->device_size = need;
    self->device_pool = gst_pinned_base_transform_make_device_pool
        (GST_PINNED_BASE_TRANSFORM (self), caps, need, min);
    gst_caps_unref (caps);
    if (self->device_pool == NULL)
      return GST_FLOW_ERROR;
  }

  ret = gst_buffer_pool_acquire_buffer (self->device_pool, outbuf, NULL);
  if (ret != GST_FLOW_OK)
    return ret;

  /* The default implementation, which this replaces, does this too. */
  if (!GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, inbuf,
          *outbuf))
    GST_WARNING_OBJECT (self, "could not copy metadata");

  return GST_FLOW_OK;
}

static void
set_layout (GstBuffer * outbuf, GstBuffer * inbuf, const GstVideoInfo * info)
{
  GstVideoMeta *in_meta = gst_buffer_get_video_meta (inbuf);
  GstVideoMeta *out_meta = gst_buffer_get_video_meta (outbuf);
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    out_meta->offset[p] = in_meta ? in_meta->offset[p] : info->offset[p];
    out_meta->stride[p] = in_meta ? in_meta->stride[p] : info->stride[p];
  }
}

#ifdef HAVE_CUDA_INTEROP
/* After the copy: the frame carries it (1.24) or generate_output() hands
 * it to the window. */
static gboolean
keep_cuda_view (GstPinnedUpload * self, GstBuffer * outbuf, GstBuffer * view,
    GError ** error)
{
  gboolean ok = gst_pinned_cuda_buffer_attach (outbuf, view, &self->attached,
      error);

  gst_clear_buffer (&self->view);
  self->view = view;
  return ok;
}
#endif
/* The difference between the link's rate and the staging rate, which the
 * user can fix by moving the element: said once per caps, counted in the
 * stats (pageable-buffers). */
static void
tell_pageable (GstPinnedUpload * self)
{
  gchar *upstream =
      gst_pinned_upstream_name (GST_BASE_TRANSFORM_SINK_PAD (self));

  GST_WARNING_OBJECT (self, "%s does not write its frames into the "
      "page-locked pool this element offers: they are copied from pageable "
      "memory, slower than from the pool (pageable-mode says how). Put "
      "pinnedupload directly after the element that makes the frames, with "
      "nothing between them that allocates buffers of its own; the stats "
      "property counts such frames (pageable-buffers)", upstream);
  g_free (upstream);
}

static gboolean
gst_pinned_upload_set_info (GstPinnedBaseTransform * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GST_PINNED_UPLOAD (base)->told_pageable = FALSE;

  return TRUE;
}

/* CUDA memory out: a view of the output frame, in its own layout, to copy
 * into. Other output keeps the input's layout. */
static gboolean
gst_pinned_upload_prepare (GstPinnedCopyTransform * copy, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBuffer ** src, GstBuffer ** dst)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (copy);
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (copy);

#ifdef HAVE_CUDA_INTEROP
  if (self->cuda_out && (*dst = gst_pinned_copy_transform_wrap_cuda (copy,
              outbuf, gst_pinned_base_transform_get_out_info (base),
              GST_MAP_WRITE)) == NULL)
    return FALSE;
#endif
  if (*dst == outbuf)
    set_layout (outbuf, inbuf, gst_pinned_base_transform_get_in_info (base));

  if (!self->told_pageable && gst_pinned_upstream_is_pageable (inbuf)) {
    self->told_pageable = TRUE;
    tell_pageable (self);
  }
  return TRUE;
}

/* A view of CUDA memory was copied into at once: its fence goes with it. */
static gboolean
gst_pinned_upload_finish (GstPinnedCopyTransform * copy, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBuffer * src, GstBuffer * dst, gboolean ok,
    GError ** error)
{
#ifdef HAVE_CUDA_INTEROP
  if (dst != outbuf) {
    if (ok)
      ok = keep_cuda_view (GST_PINNED_UPLOAD (copy), outbuf, dst, error);
    else
      gst_buffer_unref (dst);
  }
#endif
  return ok;
}

/* CUDA memory out. GStreamer 1.22's elements read it at push time: the
 * window pushes each frame once its copy is done, from its own task, while
 * this thread goes on with the next ones. Memory that carries the copy
 * (1.24) is pushed at once; the window only holds the view until then. */
static GstFlowReturn
gst_pinned_upload_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);
  GstFlowReturn ret;
  GstBuffer *view;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
  view = g_steal_pointer (&self->view);
  if (view == NULL)
    return ret;
  if (ret != GST_FLOW_OK || *outbuf == NULL) {
    gst_buffer_unref (view);
    return ret;
  }

  if (self->attached)
    return gst_pinned_window_push (self->window, NULL, view);

  ret = gst_pinned_window_push (self->window, *outbuf, view);
  *outbuf = NULL;
  return ret;
}

static gboolean
gst_pinned_upload_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);
  GstEventType type = GST_EVENT_TYPE (event);
  gboolean ret;

  /* Held inputs go back upstream, whose pool may be flushing; at the end
   * of the stream too, where no next frame gives them back. */
  if (type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_EOS)
    gst_pinned_copy_transform_flush_pageable (GST_PINNED_COPY_TRANSFORM (self));

  if (self->window == NULL)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);

  /* Buffers and serialized events leave in order. */
  if (GST_EVENT_IS_SERIALIZED (event) && type != GST_EVENT_FLUSH_STOP)
    gst_pinned_window_drain (self->window);

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);

  if (type == GST_EVENT_FLUSH_START)
    gst_pinned_window_set_flushing (self->window, TRUE);
  else if (type == GST_EVENT_FLUSH_STOP)
    gst_pinned_window_set_flushing (self->window, FALSE);

  return ret;
}

static void
gst_pinned_upload_finalize (GObject * object)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (object);

  clear_window (self);
  gst_clear_buffer (&self->view);
  clear_pool (&self->upstream_pool);
  clear_pool (&self->device_pool);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_upload_class_init (GstPinnedUploadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstPinnedCopyTransformClass *copy_class =
      GST_PINNED_COPY_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_pinned_upload_finalize;
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_change_state);

  /**
   * GstPinnedUpload:pageable-mode:
   *
   * How input in pageable memory (an upstream that does not write into the
   * offered page-locked pool) is copied: `auto` page-locks memory that
   * comes back (cudaHostRegister, once per memory, dropped when the memory
   * is freed) and stages the rest on #GstPinnedUpload:copy-threads
   * threads; the others force one way.
   *
   * Since: 0.1
   */

  /**
   * GstPinnedUpload:copy-threads:
   *
   * Threads that copy pageable input into page-locked staging, the
   * streaming thread included; 0 for one per core, at most 8. Staging
   * trades CPU cores for speed: one thread copies at one core's rate. The
   * streaming thread hands a frame to the others and goes on (a host
   * function on the stream waits for them before the DMA); with 0, fresh
   * frames (memory of no pool) go to a worker of their own: more threads
   * slowed a source of fresh frames more than they saved. Fresh memory of
   * more than 16 MiB, and all with one thread or GST_PINNED_STAGING=wait,
   * is staged with the streaming thread taking part and waiting.
   *
   * Since: 0.1
   */
  gst_pinned_copy_transform_class_install_pageable (copy_class,
      "How input in pageable memory is copied (auto: register memory that "
      "comes back, stage the rest)",
      "Threads that stage pageable input, the streaming one included "
      "(0: one per core, at most 8; fresh frames then go to one of their "
      "own)");

  /**
   * GstPinnedUpload:pageable-stats:
   *
   * How pageable input went since the element started (see
   * gst_pinned_pageable_get_stats()): memories registered, staged, copied
   * directly, the staging threads; %NULL before the first frame.
   *
   * Deprecated: the same fields are in #GstPinnedBaseTransform:stats, of
   * every element.
   *
   * Since: 0.1
   */
  gst_pinned_copy_transform_class_install_property (copy_class,
      GST_PINNED_COPY_PROP_PAGEABLE_STATS, g_param_spec_boxed ("pageable-stats",
          "Pageable stats", "Deprecated: the same fields are in stats",
          GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_DEPRECATED | G_PARAM_STATIC_STRINGS));

  /**
   * GstPinnedUpload:write-combined:
   *
   * The page-locked memory offered upstream (and the staging memory) is
   * write-combined: CPU writes bypass the caches, CPU reads are very slow.
   * Only for sources that never read their output (a decoder reads its
   * reference frames).
   *
   * Since: 0.1
   */
  gst_pinned_copy_transform_class_install_property (copy_class,
      GST_PINNED_COPY_PROP_WRITE_COMBINED,
      g_param_spec_boolean ("write-combined", "Write-combined",
          "Offer write-combined page-locked memory (CPU reads of it are very "
          "slow)", DEFAULT_WRITE_COMBINED,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));

  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_PAGEABLE_MODE, 0);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Pinned CUDA upload", "Filter/Video/Hardware",
      "Uploads video to CUDA device memory from page-locked buffers, "
      "asynchronously", "gst-pinned developers");

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_pinned_upload_stop);
  GST_PINNED_BASE_TRANSFORM_CLASS (klass)->set_info =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_set_info);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_pinned_upload_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_pinned_upload_query);
  copy_class->span = "H2D copy";
  copy_class->failure = "Could not upload a frame";
  copy_class->caps = GST_DEBUG_FUNCPTR (gst_pinned_upload_caps);
  copy_class->prepare = GST_DEBUG_FUNCPTR (gst_pinned_upload_prepare);
  copy_class->finish = GST_DEBUG_FUNCPTR (gst_pinned_upload_finish);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_prepare_output_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_generate_output);
}

static void
gst_pinned_upload_init (GstPinnedUpload * self)
{
}
