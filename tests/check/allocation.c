/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The ALLOCATION query: what pinnedupload offers upstream and what each
 * element decides downstream. */

#include <cuda_runtime_api.h>

#include "pinnedtest.h"

#define NV12_CAPS "video/x-raw,format=NV12,width=320,height=240,framerate=30/1"
#define DEVICE_CAPS(c) "video/x-raw(memory:PinnedDevice)," c

static GstQuery *
run_allocation_query (GstHarness * h, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_caps_unref (caps);
  return query;
}

GST_START_TEST (test_upload_offers_pinned_pool)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstQuery *query;
  GstVideoInfo info;
  GstCaps *caps;
  guint size, min, max;

  gst_harness_set_caps_str (h, NV12_CAPS, DEVICE_CAPS
      ("format=NV12,width=320,height=240,framerate=30/1"));
  caps = gst_caps_from_string (NV12_CAPS);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);

  query = run_allocation_query (h, NV12_CAPS);

  /* One page-locked pool of frame-sized buffers, four allocated up front. */
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  fail_unless (GST_IS_PINNED_HOST_BUFFER_POOL (pool));
  fail_unless_equals_int (size, info.size);
  fail_unless_equals_int (min, 4);
  fail_unless_equals_int (max, 0);
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_META));
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT));

  /* Sources that allocate themselves get the page-locked allocator. */
  fail_unless (gst_query_get_n_allocation_params (query) >= 1);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  fail_unless (GST_IS_PINNED_HOST_ALLOCATOR (allocator));

  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));

  gst_object_unref (allocator);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A source configures the offered pool with alignment, as a decoder with
 * padded surfaces would: buffers are page-locked, allocated at activation,
 * and their layout follows the alignment. */
GST_START_TEST (test_upload_pool_alignment_and_preallocation)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstBufferPool *pool = NULL;
  GstVideoAlignment align;
  GstStructure *config;
  GstVideoInfo info, aligned;
  GstVideoMeta *meta;
  GstBuffer *buf;
  GstQuery *query;
  GstCaps *caps;
  guint64 allocs_before, locked_before;
  guint size, min, max, p;

  gst_harness_set_caps_str (h, NV12_CAPS, DEVICE_CAPS
      ("format=NV12,width=320,height=240,framerate=30/1"));
  query = run_allocation_query (h, NV12_CAPS);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));

  gst_video_alignment_reset (&align);
  align.padding_right = 13;
  align.padding_bottom = 3;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_buffer_pool_config_set_video_alignment (config, &align);
  fail_unless (gst_buffer_pool_set_config (pool, config));

  /* The minimum in one block: one page-locking call. */
  fail_unless (min > 1);
  allocs_before = pinned_test_call_count ("cudaHostAlloc");
  locked_before = gst_pinned_host_memory_get_locked_bytes ();
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless (gst_pinned_host_memory_get_locked_bytes () - locked_before >=
      (guint64) min * size);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") -
        allocs_before, 1);

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf, 0)));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") -
        allocs_before, 1);

  aligned = info;
  fail_unless (gst_video_info_align (&aligned, &align));
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    fail_unless_equals_int (meta->stride[p], aligned.stride[p]);
    fail_unless_equals_int (meta->offset[p], aligned.offset[p]);
  }
  fail_unless (meta->stride[0] > info.stride[0]);

  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_upload_pool_follows_caps)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  const gchar *caps_str =
      "video/x-raw,format=I420,width=1921,height=1081,framerate=30/1";
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstQuery *query;
  GstCaps *caps;
  guint size;

  g_object_set (h->element, "pool-size", 7, NULL);
  gst_harness_set_caps_str (h, caps_str, DEVICE_CAPS
      ("format=I420,width=1921,height=1081,framerate=30/1"));
  caps = gst_caps_from_string (caps_str);
  fail_unless (gst_video_info_from_caps (&info, caps));

  query = run_allocation_query (h, caps_str);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
  fail_unless_equals_int (size, info.size);
  gst_query_unref (query);
  gst_object_unref (pool);

  query = run_allocation_query (h, caps_str);
  gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &size, NULL);
  /* the min is the pool-size property */
  fail_unless_equals_int (size, 7);
  gst_query_unref (query);

  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Device memory in: passthrough, and the query goes on downstream, which
 * answers it (here with a meta only it proposes), not pinnedupload. */
GST_START_TEST (test_upload_passthrough_forwards_query)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstQuery *query;
  const gchar *caps =
      DEVICE_CAPS ("format=NV12,width=320,height=240,framerate=30/1");

  gst_harness_add_propose_allocation_meta (h,
      GST_VIDEO_AFFINE_TRANSFORMATION_META_API_TYPE, NULL);
  gst_harness_set_caps_str (h, caps, caps);
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  query = run_allocation_query (h, caps);
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_AFFINE_TRANSFORMATION_META_API_TYPE, NULL),
      "downstream's answer did not come back");
  for (guint i = 0; i < gst_query_get_n_allocation_pools (query); i++) {
    GstBufferPool *pool = NULL;

    gst_query_parse_nth_allocation_pool (query, i, &pool, NULL, NULL, NULL);
    fail_if (pool && GST_IS_PINNED_HOST_BUFFER_POOL (pool));
    gst_clear_object (&pool);
  }
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* After the upload answered, another upstream (the application's appsrc,
 * whose own query came first) configures and activates the pool offered:
 * what a slow host shows when that happens between this query's answer and
 * its configuration. Once only. */
static GstPadProbeReturn
take_offered_pool (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool **taken = user_data;
  GstStructure *config;
  GstCaps *caps = NULL;
  guint size;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION || *taken ||
      gst_query_get_n_allocation_pools (query) == 0)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  gst_query_parse_nth_allocation_pool (query, 0, taken, &size, NULL, NULL);
  config = gst_buffer_pool_get_config (*taken);
  gst_buffer_pool_config_set_params (config, caps, size, 2, 0);
  fail_unless (gst_buffer_pool_set_config (*taken, config));
  fail_unless (gst_buffer_pool_set_active (*taken, TRUE));
  return GST_PAD_PROBE_OK;
}

/* gst_pinned_host_buffer_pool_from_peer() gets a page-locked pool of its
 * own when another upstream took the one offered to it first. */
GST_START_TEST (test_pool_from_peer_when_the_offer_was_taken)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstPad *pad = gst_element_get_static_pad (h->element, "sink");
  GstCaps *caps = gst_caps_from_string (NV12_CAPS);
  GstBufferPool *taken = NULL, *pool;

  gst_harness_set_caps_str (h, NV12_CAPS, DEVICE_CAPS
      ("format=NV12,width=320,height=240,framerate=30/1"));
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, take_offered_pool, &taken, NULL);

  pool = gst_pinned_host_buffer_pool_from_peer (h->srcpad, caps, 4);
  fail_unless (taken != NULL, "the probe did not take the offered pool");
  fail_unless (pool != NULL, "no pool when another upstream took the offer");
  fail_unless (pool != taken);
  fail_unless (GST_IS_PINNED_HOST_BUFFER_POOL (pool));
  fail_unless (gst_buffer_pool_is_active (pool));

  gst_buffer_pool_set_active (pool, FALSE);
  gst_buffer_pool_set_active (taken, FALSE);
  gst_object_unref (pool);
  gst_object_unref (taken);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A pool taken from pinnedupload before its caps are set holds two of the
 * batches its frames will take, so that a source fills one while the one
 * before it is copied (control: batch=1, pool-size alone). */
static guint
pool_min_before_caps (guint batch)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstCaps *caps = gst_caps_from_string (NV12_CAPS);
  GstBufferPool *pool;
  GstStructure *config;
  guint min = 0;

  g_object_set (h->element, "batch", batch, NULL);
  pool = gst_pinned_host_buffer_pool_from_peer (h->srcpad, caps, 1);
  fail_unless (pool != NULL, "no page-locked pool before the caps");
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_params (config, NULL, NULL, &min,
          NULL));
  gst_structure_free (config);

  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return min;
}

GST_START_TEST (test_pool_before_caps_holds_two_batches)
{
  guint pool_size = 0;
  GstElement *upload = gst_element_factory_make ("pinnedupload", NULL);

  g_object_get (upload, "pool-size", &pool_size, NULL);
  gst_object_unref (upload);

  fail_unless_equals_int (pool_min_before_caps (1), pool_size);
  fail_unless_equals_int (pool_min_before_caps (8), 16);
}

GST_END_TEST;

/* Upload outputs device memory with a GstVideoMeta from its device pool. */
GST_START_TEST (test_upload_outputs_device_memory)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstBuffer *in, *out;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (NV12_CAPS);
  GstMapInfo map;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  gst_harness_set_caps_str (h, NV12_CAPS, DEVICE_CAPS
      ("format=NV12,width=320,height=240,framerate=30/1"));

  in = gst_harness_create_buffer (h, info.size);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (in, 0)));
  pinned_test_fill_frame (in, &info, 1);
  gst_buffer_ref (in);
  out = pinned_test_push_and_pull (h, in);

  fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (out, 0)));
  fail_unless (gst_buffer_get_video_meta (out) != NULL);

  /* The GPU map hands out the device pointer, a CPU map never does. */
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ | GST_MAP_PINNED_GPU));
  fail_unless (map.data ==
      ((GstPinnedMemory *) gst_buffer_peek_memory (out, 0))->data);
  gst_buffer_unmap (out, &map);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_if (map.data ==
      ((GstPinnedMemory *) gst_buffer_peek_memory (out, 0))->data);
  gst_buffer_unmap (out, &map);

  fail_unless (pinned_test_frames_equal (in, out, &info));

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBuffer *
download_one (gboolean downstream_meta)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstBuffer *in, *out;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (NV12_CAPS);

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  if (downstream_meta)
    gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE, NULL);
  gst_harness_set_caps_str (h, NV12_CAPS, NV12_CAPS);

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 2);
  out = pinned_test_push_and_pull (h, in);
  gst_harness_teardown (h);

  return out;
}

/* Download outputs its own page-locked buffers, with a GstVideoMeta only
 * where downstream takes one. */
GST_START_TEST (test_download_outputs_pinned_memory)
{
  GstBuffer *out;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);

  out = download_one (TRUE);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (out, 0)));
  fail_unless (gst_buffer_get_video_meta (out) != NULL);
  gst_buffer_unref (out);

  out = download_one (FALSE);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (out, 0)));
  fail_unless (gst_buffer_get_video_meta (out) == NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), info.size);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* Downstream proposes a pool of @data's type (a plain GstBufferPool or
 * GstVideoBufferPool: system memory) in its answer to the ALLOCATION
 * query. */
static GstPadProbeReturn
propose_plain_pool (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool;
  GstCaps *caps;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (caps && gst_video_info_from_caps (&vinfo, caps));
  pool = g_object_new (GPOINTER_TO_SIZE (data), NULL);
  gst_query_add_allocation_pool (query, pool, vinfo.size, 2, 0);
  gst_object_unref (pool);
  return GST_PAD_PROBE_OK;
}

/* pageable-mode=auto: a plain system-memory pool downstream proposes is
 * no better than the download's own page-locked pool, which it keeps (a
 * copy into other memory would be staged and synchronous). The control:
 * pageable-mode=stage takes the pool downstream proposes. */
GST_START_TEST (test_download_keeps_own_pool_over_plain_pool)
{
  const GType types[] = { GST_TYPE_BUFFER_POOL, GST_TYPE_VIDEO_BUFFER_POOL };
  guint t, k;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    for (k = 0; k < 2; k++) {
      GstHarness *h = gst_harness_new_parse (k ? "pinnedupload ! "
          "pinneddownload pageable-mode=stage" : "pinnedupload ! "
          "pinneddownload pageable-mode=auto");
      GstCaps *caps = gst_caps_from_string (NV12_CAPS);
      GstBuffer *in, *out;
      GstVideoInfo info;

      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_caps_unref (caps);
      gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
          propose_plain_pool, GSIZE_TO_POINTER (types[t]), NULL);
      gst_harness_set_caps_str (h, NV12_CAPS, NV12_CAPS);

      in = gst_harness_create_buffer (h, info.size);
      pinned_test_fill_frame (in, &info, 3);
      out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (pinned_test_frames_equal (in, out, &info));
      if (k == 0)
        fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (out,
                    0)), "pageable-mode=auto copied into downstream's %s",
            g_type_name (types[t]));
      else
        fail_if (gst_is_pinned_memory (gst_buffer_peek_memory (out, 0)),
            "control: pageable-mode=stage kept its own pool over a %s",
            g_type_name (types[t]));
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* How many buffers each pool holds once the pipeline runs, and that
 * streaming allocates no more: the upload offers pool-size page-locked
 * buffers and keeps twice as many device frames, a filter twice its
 * pool-size, the download pool-size page-locked buffers; each pool's in
 * one allocation (page-locked and device bytes counted). */
GST_START_TEST (test_pool_sizes)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload pool-size=3 ! "
      PINNED_TEST_FILTER " pool-size=2 ! pinneddownload pool-size=5");
  guint64 mallocs = pinned_test_call_count ("cudaMalloc");
  guint64 host_allocs = pinned_test_call_count ("cudaHostAlloc");
  guint64 locked = gst_pinned_host_memory_get_locked_bytes ();
  size_t device_free, device_free_before = 0, total;
  GstBuffer *in, *out;
  GstStructure *config;
  GstVideoInfo info;
  guint min, max, i;

  if (pinned_test_is_fake ())
    fail_unless (cudaMemGetInfo (&device_free_before, &total) == cudaSuccess);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_harness_create_buffer (h, info.size);
  out = pinned_test_push_and_pull (h, in);

  fail_unless (out->pool != NULL);
  config = gst_buffer_pool_get_config (out->pool);
  fail_unless (gst_buffer_pool_config_get_params (config, NULL, NULL, &min,
          &max));
  fail_unless_equals_int (min, 5);
  gst_structure_free (config);
  /* 320x240 NV12 frames are a multiple of 256 bytes: no gaps. */
  fail_unless_equals_int (gst_pinned_host_memory_get_locked_bytes () - locked,
      (3 + 5) * info.size);
  if (pinned_test_is_fake ()) {
    /* The stand-in's device holds what is allocated, no more. */
    fail_unless (cudaMemGetInfo (&device_free, &total) == cudaSuccess);
    fail_unless_equals_uint64 (device_free_before - device_free,
        (2 * 3 + 2 * 2) * info.size);
    fail_unless_equals_int (pinned_test_call_count ("cudaMalloc") - mallocs, 2);
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") -
        host_allocs, 2);
  }
  mallocs = pinned_test_call_count ("cudaMalloc");
  host_allocs = pinned_test_call_count ("cudaHostAlloc");
  gst_buffer_unref (out);

  for (i = 0; i < 20; i++) {
    in = gst_harness_create_buffer (h, info.size);
    gst_buffer_unref (pinned_test_push_and_pull (h, in));
  }
  fail_unless_equals_int (pinned_test_call_count ("cudaMalloc"), mallocs);
  fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc"),
      host_allocs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream asks for @data buffers in its answer to the ALLOCATION query
 * (no pool of its own): as a sink that keeps its last frame asks for two,
 * it holds all but one of them while the next is written. */
static GstPadProbeReturn
ask_min_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstVideoInfo vinfo;
  GstCaps *caps;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (caps && gst_video_info_from_caps (&vinfo, caps));
  gst_query_add_allocation_pool (query, NULL, vinfo.size,
      GPOINTER_TO_UINT (data), 0);
  return GST_PAD_PROBE_OK;
}

/* The download's pool allocates up front as many buffers as downstream
 * asks for, more than its pool-size here, and a batch's worth more where
 * it fills batches: while frames stream and downstream holds all of them
 * but the one it gets next, nothing more is page-locked (cudaHostAlloc
 * runs at a fraction of the copies' speed and would stall the stream). */
GST_START_TEST (test_download_pool_takes_downstream_min)
{
  const struct
  {
    const gchar *download;
    guint asked, min;
  } rounds[] = {
    {"pinneddownload pool-size=2 batch=1", 7, 7},
    /* Batches of four, each pushed when full: 9 + 4 - 1. */
    {"pinneddownload pool-size=2 batch=4 batch-timeout=0", 9, 12},
  };
  guint r;

  for (r = 0; r < G_N_ELEMENTS (rounds); r++) {
    gchar *launch = g_strdup_printf ("pinnedupload ! %s", rounds[r].download);
    GstHarness *h = gst_harness_new_parse (launch);
    guint asked = rounds[r].asked;
    GQueue held = G_QUEUE_INIT;
    guint64 host_allocs, locked;
    GstBuffer *in, *out;
    GstStructure *config;
    GstVideoInfo info;
    guint min, i;

    gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
        ask_min_buffers, GUINT_TO_POINTER (asked), NULL);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));
    /* The first frame activates the pools. */
    in = gst_harness_create_buffer (h, info.size);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    host_allocs = pinned_test_call_count ("cudaHostAlloc");
    locked = gst_pinned_host_memory_get_locked_bytes ();

    for (i = 0; i < 32; i++) {
      in = gst_harness_create_buffer (h, info.size);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      while ((out = gst_harness_try_pull (h)))
        g_queue_push_tail (&held, out);
      while (held.length > asked - 1)
        gst_buffer_unref (g_queue_pop_head (&held));
    }
    host_allocs = pinned_test_call_count ("cudaHostAlloc") - host_allocs;
    locked = gst_pinned_host_memory_get_locked_bytes () - locked;
    fail_unless (host_allocs == 0 && locked == 0, "%s: %" G_GUINT64_FORMAT
        " cudaHostAlloc calls (%" G_GUINT64_FORMAT " bytes) while streaming "
        "with downstream holding %u buffers", rounds[r].download,
        host_allocs, locked, asked - 1);

    out = g_queue_peek_tail (&held);
    fail_unless (out != NULL && out->pool != NULL);
    config = gst_buffer_pool_get_config (out->pool);
    fail_unless (gst_buffer_pool_config_get_params (config, NULL, NULL, &min,
            NULL));
    gst_structure_free (config);
    fail_unless_equals_int (min, rounds[r].min);

    g_queue_clear_full (&held, (GDestroyNotify) gst_buffer_unref);
    gst_harness_teardown (h);
    g_free (launch);
  }
}

GST_END_TEST;

/* device-alloc=stream-ordered: the upload's and a filter's device frames
 * come from cudaMallocAsync on the element's stream and go back with
 * cudaFreeAsync (never cudaMalloc / cudaFree), the frames bit-exact; on the
 * stand-in a stream-ordered free whose memory queued work still touches
 * aborts. The default allocates with cudaMalloc. */
GST_START_TEST (test_device_alloc_stream_ordered)
{
  guint ordered;

  for (ordered = 0; ordered < 2; ordered++) {
    const gchar *mode = ordered ? "stream-ordered" : "default";
    gchar *launch = g_strdup_printf ("pinnedupload pool-size=3 "
        "device-alloc=%s ! " PINNED_TEST_FILTER " pool-size=2 "
        "device-alloc=%s ! pinneddownload", mode, mode);
    GstHarness *h = gst_harness_new_parse (launch);
    guint64 mallocs = pinned_test_call_count ("cudaMalloc");
    guint64 async_mallocs = pinned_test_call_count ("cudaMallocAsync");
    guint64 frees = pinned_test_call_count ("cudaFree");
    guint64 async_frees = pinned_test_call_count ("cudaFreeAsync");
    GstVideoInfo info;
    GstBuffer *in, *out;
    guint i;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 322, 242);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));
    for (i = 0; i < 12; i++) {
      in = gst_harness_create_buffer (h, info.size);
      gst_buffer_unref (pinned_test_push_and_pull (h, in));
    }
    gst_harness_teardown (h);

    /* the frames themselves, through the upload's pool */
    h = gst_harness_new_parse (ordered ? "pinnedupload "
        "device-alloc=stream-ordered ! pinneddownload" :
        "pinnedupload ! pinneddownload");
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));
    for (i = 0; i < 12; i++) {
      in = gst_harness_create_buffer (h, info.size);
      pinned_test_fill_frame (in, &info, 40 + i);
      out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (pinned_test_frames_equal (in, out, &info), "%s: frame %u",
          mode, i);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);

    if (pinned_test_is_fake ()) {
      /* one block each: the upload's 2 x 3 device frames, the filter's
       * 2 x 2; then the pair's upload's 2 x 4 */
      fail_unless_equals_int (pinned_test_call_count ("cudaMallocAsync") -
          async_mallocs, ordered ? 3 : 0);
      fail_unless_equals_int (pinned_test_call_count ("cudaMalloc") - mallocs,
          ordered ? 0 : 3);
      fail_unless_equals_int (pinned_test_call_count ("cudaFreeAsync") -
          async_frees, ordered ? 3 : 0);
      fail_unless_equals_int (pinned_test_call_count ("cudaFree") - frees,
          ordered ? 0 : 3);
    }
    g_free (launch);
  }
}

GST_END_TEST;

/* A pool configured with another allocator (the system one, as an
 * element that configures a pool it was given might) still hands out its
 * own memory, or refuses the configuration. */
static void
check_pool_allocator (GstBufferPool * pool, gboolean device)
{
  GstVideoInfo info;
  GstCaps *caps;
  GstStructure *config;
  GstAllocator *sysmem = gst_allocator_find (NULL);
  GstBuffer *buf;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 64);
  caps = gst_video_info_to_caps (&info);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
  gst_buffer_pool_config_set_allocator (config, sysmem, NULL);
  gst_object_unref (sysmem);
  if (gst_buffer_pool_set_config (pool, config)) {
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
        GST_FLOW_OK);
    if (device)
      fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (buf,
                  0)), "the device pool handed out other memory");
    else
      fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf,
                  0)), "the page-locked pool handed out other memory");
    gst_buffer_unref (buf);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  }
  gst_caps_unref (caps);
  gst_object_unref (pool);
}

GST_START_TEST (test_pools_keep_their_allocator)
{
  PinnedTestDevice d;

  pinned_test_device_init (&d);
  check_pool_allocator (gst_pinned_host_buffer_pool_new (d.ctx), FALSE);
  check_pool_allocator (gst_pinned_device_buffer_pool_new (d.ctx), TRUE);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Page-locked memory starts zeroed, as fresh system memory does (row
 * padding nobody writes reads as zero); the stand-in's is not. */
GST_START_TEST (test_host_memory_starts_zeroed)
{
  PinnedTestDevice d;
  GstBuffer *buf;

  pinned_test_device_init (&d);
  buf = gst_buffer_new_allocate (d.host, 100000, NULL);
  fail_unless (pinned_test_all_bytes (buf, 0));
  gst_buffer_unref (buf);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Device memory too: the padding of a frame no one writes downloads as
 * zero, never as what an earlier allocation left there (fresh device
 * memory is not zero on a GPU, nor on the stand-in). */
GST_START_TEST (test_device_memory_starts_zeroed)
{
  PinnedTestDevice d;
  GstAllocator *ordered;
  GstBuffer *buf;
  guint i;

  pinned_test_device_init (&d);
  ordered = gst_pinned_device_allocator_new_stream_ordered (d.ctx, d.stream);
  for (i = 0; i < 2; i++) {
    GstAllocator *allocator = i == 0 ? d.device : ordered;

    buf = gst_buffer_new_allocate (allocator, 100000, NULL);
    fail_unless (pinned_test_all_bytes (buf, 0),
        "%s device memory does not start zeroed",
        i == 0 ? "cudaMalloc'd" : "stream-ordered");
    gst_buffer_unref (buf);
  }
  gst_object_unref (ordered);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static Suite *
allocation_suite (void)
{
  Suite *s = suite_create ("allocation");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_upload_offers_pinned_pool);
  tcase_add_test (tc, test_upload_pool_alignment_and_preallocation);
  tcase_add_test (tc, test_upload_pool_follows_caps);
  tcase_add_test (tc, test_pool_from_peer_when_the_offer_was_taken);
  tcase_add_test (tc, test_pool_before_caps_holds_two_batches);
  tcase_add_test (tc, test_upload_passthrough_forwards_query);
  tcase_add_test (tc, test_upload_outputs_device_memory);
  tcase_add_test (tc, test_download_outputs_pinned_memory);
  tcase_add_test (tc, test_download_keeps_own_pool_over_plain_pool);
  tcase_add_test (tc, test_pool_sizes);
  tcase_add_test (tc, test_download_pool_takes_downstream_min);
  tcase_add_test (tc, test_device_alloc_stream_ordered);
  tcase_add_test (tc, test_pools_keep_their_allocator);
  tcase_add_test (tc, test_host_memory_starts_zeroed);
  tcase_add_test (tc, test_device_memory_starts_zeroed);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, allocation_suite);
}
