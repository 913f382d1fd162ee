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
 * directly; memory seen once is copied through page-locked staging on
 * #GstPinnedUpload:copy-threads threads, overlapped with the DMA. Input
 * already in device memory passes through. The device buffer keeps the
 * input's layout (offsets and strides, in its #GstVideoMeta).
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
 * ]| A fresh pageable buffer per frame, staged on eight threads.
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
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#define CUDA_SRC_CAPS ";" GST_PINNED_CUDA_CAPS
#else
#define CUDA_SRC_CAPS
#endif

GST_DEBUG_CATEGORY_STATIC (gst_pinned_upload_debug);
#define GST_CAT_DEFAULT gst_pinned_upload_debug

#define DEFAULT_PAGEABLE_MODE GST_PINNED_PAGEABLE_AUTO
#define DEFAULT_COPY_THREADS 0
#define DEFAULT_WRITE_COMBINED FALSE
#define DEFAULT_PORTABLE TRUE
#define DEFAULT_MAPPED FALSE
#define DEFAULT_HUGE_PAGES FALSE

enum
{
  PROP_0,
  PROP_PAGEABLE_MODE,
  PROP_COPY_THREADS,
  PROP_PAGEABLE_STATS,
  PROP_WRITE_COMBINED,
  PROP_PORTABLE,
  PROP_MAPPED,
  PROP_HUGE_PAGES,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

struct _GstPinnedUpload
{
  GstPinnedBaseTransform parent;

  /* Page-locked pool offered upstream; kept while its caps hold, since
   * page-locking is slow. */
  GstBufferPool *upstream_pool;
  /* Device pool the frames are copied into. */
  GstBufferPool *device_pool;
  gsize device_size;

  /* CUDA memory out: the pool, the allocator of the views the copies
   * write, the view of the frame being made, and the window that pushes
   * frames once complete (GStreamer 1.22) or holds the views until their
   * copies are done (1.24). */
  gboolean cuda_out;
  GstAllocator *view_allocator;
  GstBuffer *view;
  gboolean attached;
  GstPinnedWindow *window;
  /* Input in pageable memory: properties, and what is kept between frames
   * (made with the device) */
  GstPinnedPageableMode pageable_mode;
  guint copy_threads;
  GstPinnedPageable *pageable;
  /* The kind of page-locked memory offered and staged into */
  GstPinnedHostFlags host_flags;
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
    GST_TYPE_PINNED_BASE_TRANSFORM,
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

static void
clear_pageable (GstPinnedUpload * self)
{
  GstPinnedPageable *pageable;

  GST_OBJECT_LOCK (self);
  pageable = self->pageable;
  self->pageable = NULL;
  GST_OBJECT_UNLOCK (self);

  if (pageable) {
    /* Held inputs go back upstream, staging threads are joined. */
    gst_pinned_pageable_flush (pageable, NULL);
    gst_object_unref (pageable);
  }
}

static gboolean
gst_pinned_upload_stop (GstBaseTransform * trans)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (trans);

  clear_window (self);
  gst_clear_buffer (&self->view);
  gst_clear_object (&self->view_allocator);
  self->cuda_out = FALSE;
  clear_pageable (self);
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
gst_pinned_upload_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
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

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = tmp;
  }

  GST_DEBUG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);

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

  pool_size = gst_pinned_base_transform_get_pool_size
      (GST_PINNED_BASE_TRANSFORM (self));

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
    self->upstream_pool = gst_pinned_host_buffer_pool_new (context);
    config = gst_buffer_pool_get_config (self->upstream_pool);
    gst_buffer_pool_config_set_params (config, caps, info.size, pool_size, 0);
    GST_OBJECT_LOCK (self);
    gst_pinned_host_buffer_pool_config_set_flags (config, self->host_flags);
    GST_OBJECT_UNLOCK (self);
    if (!gst_buffer_pool_set_config (self->upstream_pool, config)) {
      GST_WARNING_OBJECT (self, "cannot configure page-locked pool");
      gst_clear_object (&self->upstream_pool);
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

  if (self->view_allocator == NULL)
    self->view_allocator = gst_pinned_device_allocator_new (context);
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
   * flight the upload's stream waits for them. Measured on the H100:
   * upload ! busy kernel ! download ran 13 % over the longest stage with
   * 4 device frames. */
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
/* A gst-pinned view of the CUDA output frame, in its own layout, to copy
 * into; NULL after an error message. */
static GstBuffer *
view_of_cuda_output (GstPinnedUpload * self, GstBuffer * outbuf)
{
  GError *error = NULL;
  GstBuffer *view;

  view = gst_pinned_cuda_buffer_wrap (outbuf,
      gst_pinned_base_transform_get_out_info (GST_PINNED_BASE_TRANSFORM
          (self)), self->view_allocator, GST_MAP_WRITE, &error);
  if (view == NULL) {
    GST_PINNED_ELEMENT_ERROR (self, error, "Cannot write the CUDA memory");
    g_clear_error (&error);
  }
  return view;
}

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
/* Host memory that is not gst-pinned memory: upstream did not write into
 * the offered pool. */
static gboolean
is_pageable_input (GstBuffer * inbuf)
{
  guint i, n = gst_buffer_n_memory (inbuf);

  for (i = 0; i < n; i++) {
    if (!gst_is_pinned_memory (gst_buffer_peek_memory (inbuf, i)))
      return TRUE;
  }
  return FALSE;
}

/* Elements that hand on the ALLOCATION query and the buffers as they are:
 * the element that wrote the frames is further up. */
static gboolean
passes_buffers_on (GstElement * element)
{
  GstElementFactory *factory = gst_element_get_factory (element);
  const gchar *name = factory ? GST_OBJECT_NAME (factory) : "";

  return g_str_equal (name, "queue") || g_str_equal (name, "queue2") ||
      g_str_equal (name, "capsfilter");
}

/* The element that sends the frames: the peer of the sink pad, seen
 * through ghost pads, queues and capsfilters (whose names go to @via). */
static gchar *
upstream_name (GstPinnedUpload * self)
{
  GstPad *pad = gst_pad_get_peer (GST_BASE_TRANSFORM_SINK_PAD (self));
  GString *via = g_string_new (NULL);
  gchar *name = NULL;
  guint hops;

  for (hops = 0; pad != NULL && name == NULL && hops < 32; hops++) {
    GstElement *parent;
    GstPad *next = NULL;

    if (GST_IS_GHOST_PAD (pad)) {
      /* A bin's source pad: the pad of the element inside. */
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
    } else if (GST_IS_PROXY_PAD (pad)) {
      /* Inside a bin: the bin's sink pad, and its peer outside. */
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));

      if (ghost) {
        next = gst_pad_get_peer (GST_PAD (ghost));
        gst_object_unref (ghost);
      }
    } else if ((parent = gst_pad_get_parent_element (pad)) == NULL) {
      name = g_strdup_printf ("the pad %s:%s", GST_DEBUG_PAD_NAME (pad));
    } else if (passes_buffers_on (parent)) {
      GstPad *sink = gst_element_get_static_pad (parent, "sink");

      g_string_append_printf (via, "%s%s", via->len ? ", " : "",
          GST_OBJECT_NAME (parent));
      if (sink) {
        next = gst_pad_get_peer (sink);
        gst_object_unref (sink);
      }
      gst_object_unref (parent);
    } else {
      name = g_strdup_printf ("%s (%s)", GST_OBJECT_NAME (parent),
          G_OBJECT_TYPE_NAME (parent));
      gst_object_unref (parent);
    }
    gst_object_unref (pad);
    pad = next;
  }
  gst_clear_object (&pad);

  if (name == NULL)
    name = g_strdup ("upstream");
  if (via->len)
    g_string_prepend (via, " through ");
  g_string_prepend (via, name);
  g_free (name);

  return g_string_free (via, FALSE);
}

/* The difference between the link's rate and the staging rate, which the
 * user can fix by moving the element: said once per caps, counted in the
 * stats (pageable-buffers). */
static void
tell_pageable (GstPinnedUpload * self)
{
  gchar *upstream = upstream_name (self);

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

/* Made with the first frame, in the streaming thread. */
static GstPinnedPageable *
ensure_pageable (GstPinnedUpload * self)
{
  GstPinnedPageable *pageable;
  GstAllocator *allocator;

  if (self->pageable)
    return self->pageable;

  pageable = gst_pinned_pageable_new (gst_pinned_base_transform_get_context
      (GST_PINNED_BASE_TRANSFORM (self)));
  GST_OBJECT_LOCK (self);
  gst_pinned_pageable_set_mode (pageable, self->pageable_mode);
  gst_pinned_pageable_set_threads (pageable, self->copy_threads);
  /* Staging is written by the CPU and read by the DMA engine: the same
   * kind as the pool offered upstream (write-combined if asked for). */
  allocator = gst_pinned_host_allocator_new_full
      (gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
          (self)), self->host_flags);
  gst_pinned_pageable_set_staging_allocator (pageable, allocator);
  gst_object_unref (allocator);
  self->pageable = pageable;
  GST_OBJECT_UNLOCK (self);

  return pageable;
}

static GstFlowReturn
gst_pinned_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstPinnedBaseTransform *base = GST_PINNED_BASE_TRANSFORM (trans);
  const GstVideoInfo *info = gst_pinned_base_transform_get_in_info (base);
  GstBuffer *dst = outbuf;
  GError *error = NULL;
  GstPinnedSpan *span;
  gboolean ok;

#ifdef HAVE_CUDA_INTEROP
  if (GST_PINNED_UPLOAD (trans)->cuda_out &&
      (dst = view_of_cuda_output (GST_PINNED_UPLOAD (trans), outbuf)) == NULL)
    return GST_FLOW_ERROR;
#endif
  if (dst == outbuf)
    set_layout (outbuf, inbuf, info);

  if (!GST_PINNED_UPLOAD (trans)->told_pageable && is_pageable_input (inbuf)) {
    GST_PINNED_UPLOAD (trans)->told_pageable = TRUE;
    tell_pageable (GST_PINNED_UPLOAD (trans));
  }

  span = gst_pinned_base_transform_begin_span (base, "H2D copy");
  /* A view of CUDA memory is copied at once: its fence goes with it. */
  if (dst == outbuf)
    ok = gst_pinned_base_transform_transfer_output (base, inbuf, outbuf,
        ensure_pageable (GST_PINNED_UPLOAD (trans)), &error);
  else
    ok = gst_pinned_base_transform_transfer (base, inbuf, dst,
        ensure_pageable (GST_PINNED_UPLOAD (trans)), &error);
  gst_pinned_timeline_end (span);

#ifdef HAVE_CUDA_INTEROP
  if (dst != outbuf) {
    if (ok)
      ok = keep_cuda_view (GST_PINNED_UPLOAD (trans), outbuf, dst, &error);
    else
      gst_buffer_unref (dst);
  }
#endif

  if (!ok) {
    gchar *text = gst_pinned_base_transform_error_text (base, error,
        "Could not upload a frame");

    GST_PINNED_ELEMENT_ERROR (trans, error, text);
    g_free (text);
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }

  return GST_FLOW_OK;
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

  /* Held inputs go back upstream, whose pool may be flushing. */
  if (type == GST_EVENT_FLUSH_STOP && self->pageable)
    gst_pinned_pageable_flush (self->pageable, NULL);

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
set_flag (GstPinnedUpload * self, GstPinnedHostFlags flag, gboolean on)
{
  if (on)
    self->host_flags |= flag;
  else
    self->host_flags &= ~flag;
}

static void
gst_pinned_upload_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PAGEABLE_MODE:
      self->pageable_mode = g_value_get_enum (value);
      break;
    case PROP_COPY_THREADS:
      self->copy_threads = g_value_get_uint (value);
      break;
    case PROP_WRITE_COMBINED:
      set_flag (self, GST_PINNED_HOST_WRITE_COMBINED,
          g_value_get_boolean (value));
      break;
    case PROP_PORTABLE:
      set_flag (self, GST_PINNED_HOST_PORTABLE, g_value_get_boolean (value));
      break;
    case PROP_MAPPED:
      set_flag (self, GST_PINNED_HOST_MAPPED, g_value_get_boolean (value));
      break;
    case PROP_HUGE_PAGES:
      set_flag (self, GST_PINNED_HOST_HUGE_PAGES, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_pinned_upload_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (object);
  GstPinnedPageable *pageable = NULL;

  if (prop_id == PROP_PAGEABLE_STATS) {
    GST_OBJECT_LOCK (self);
    if (self->pageable)
      pageable = gst_object_ref (self->pageable);
    GST_OBJECT_UNLOCK (self);
    g_value_take_boxed (value, pageable ?
        gst_pinned_pageable_get_stats (pageable) : NULL);
    gst_clear_object (&pageable);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PAGEABLE_MODE:
      g_value_set_enum (value, self->pageable_mode);
      break;
    case PROP_COPY_THREADS:
      g_value_set_uint (value, self->copy_threads);
      break;
    case PROP_WRITE_COMBINED:
      g_value_set_boolean (value,
          !!(self->host_flags & GST_PINNED_HOST_WRITE_COMBINED));
      break;
    case PROP_PORTABLE:
      g_value_set_boolean (value,
          !!(self->host_flags & GST_PINNED_HOST_PORTABLE));
      break;
    case PROP_MAPPED:
      g_value_set_boolean (value,
          !!(self->host_flags & GST_PINNED_HOST_MAPPED));
      break;
    case PROP_HUGE_PAGES:
      g_value_set_boolean (value,
          !!(self->host_flags & GST_PINNED_HOST_HUGE_PAGES));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_pinned_upload_finalize (GObject * object)
{
  GstPinnedUpload *self = GST_PINNED_UPLOAD (object);

  clear_window (self);
  gst_clear_buffer (&self->view);
  gst_clear_object (&self->view_allocator);
  clear_pageable (self);
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

  gobject_class->set_property = gst_pinned_upload_set_property;
  gobject_class->get_property = gst_pinned_upload_get_property;
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
  properties[PROP_PAGEABLE_MODE] =
      g_param_spec_enum ("pageable-mode", "Pageable mode",
      "How input in pageable memory is copied (auto: register memory that "
      "comes back, stage the rest)", GST_TYPE_PINNED_PAGEABLE_MODE,
      DEFAULT_PAGEABLE_MODE,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedUpload:copy-threads:
   *
   * Threads that copy pageable input into page-locked staging, the
   * streaming thread included; 0 for one per core, at most 8. Staging
   * trades CPU cores for speed: one thread copies about 7 GB/s.
   *
   * Since: 0.1
   */
  properties[PROP_COPY_THREADS] =
      g_param_spec_uint ("copy-threads", "Copy threads",
      "Threads that stage pageable input, the streaming one included "
      "(0: one per core, at most 8)", 0, 64, DEFAULT_COPY_THREADS,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

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
  properties[PROP_PAGEABLE_STATS] =
      g_param_spec_boxed ("pageable-stats", "Pageable stats",
      "Deprecated: the same fields are in stats", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_DEPRECATED | G_PARAM_STATIC_STRINGS);

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
  properties[PROP_WRITE_COMBINED] =
      g_param_spec_boolean ("write-combined", "Write-combined",
      "Offer write-combined page-locked memory (CPU reads of it are very "
      "slow)", DEFAULT_WRITE_COMBINED,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedUpload:portable:
   *
   * The page-locked memory is usable from every CUDA device, not only this
   * element's.
   *
   * Since: 0.1
   */
  properties[PROP_PORTABLE] =
      g_param_spec_boolean ("portable", "Portable",
      "Page-locked memory usable from every CUDA device", DEFAULT_PORTABLE,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedUpload:mapped:
   *
   * The page-locked memory offered upstream is also mapped into the
   * device's address space, so that GPU code can read it in place.
   *
   * Since: 0.1
   */
  properties[PROP_MAPPED] =
      g_param_spec_boolean ("mapped", "Mapped",
      "Page-locked memory mapped into the device address space",
      DEFAULT_MAPPED,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);

  /**
   * GstPinnedUpload:huge-pages:
   *
   * The page-locked memory is backed by huge pages (reserved ones, else
   * transparent huge pages) and page-locked by registration: fewer address
   * translations for the copy engine. Never write-combined.
   *
   * Since: 0.1
   */
  properties[PROP_HUGE_PAGES] =
      g_param_spec_boolean ("huge-pages", "Huge pages",
      "Page-locked memory backed by huge pages", DEFAULT_HUGE_PAGES,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);
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
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_transform_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_pinned_upload_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_pinned_upload_generate_output);
}

static void
gst_pinned_upload_init (GstPinnedUpload * self)
{
  self->pageable_mode = DEFAULT_PAGEABLE_MODE;
  self->copy_threads = DEFAULT_COPY_THREADS;
  self->host_flags = GST_PINNED_HOST_FLAGS_DEFAULT;
}
