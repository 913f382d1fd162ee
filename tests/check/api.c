/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The public functions that applications call but no element path
 * depends on: what each must report, asserted against the CUDA runtime's
 * own answer where there is one (docs/testing.md, "The public API,
 * function by function", names the test of every other function). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>
#include <cuda_runtime_api.h>

#include <gst/pinned/gstpinnedcuda.h>

#include "pinnedtest.h"

static void
teardown (void)
{
  pinned_test_reset ();
}

static GstStructure *
host_pool_config (GstBufferPool * pool, const GstVideoInfo * info)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_buffer_pool_config_set_params (config, caps, info->size, 2, 2);
  gst_caps_unref (caps);
  return config;
}

/* The flags a configuration names, and those its options add, are the
 * kind of page-locked memory its buffers get (cudaHostGetFlags). */
GST_START_TEST (test_host_pool_flags_reach_memory)
{
  PinnedTestDevice d;
  GstBufferPool *pool;
  GstStructure *config;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GstVideoInfo info;
  guint cuda_flags = 0;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 16);
  pool = gst_pinned_host_buffer_pool_new (d.ctx);

  config = host_pool_config (pool, &info);
  fail_unless_equals_int (gst_pinned_host_buffer_pool_config_get_flags
      (config), GST_PINNED_HOST_FLAGS_DEFAULT);
  gst_pinned_host_buffer_pool_config_set_flags (config,
      GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED);
  fail_unless_equals_int (gst_pinned_host_buffer_pool_config_get_flags
      (config), GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_PINNED_WRITE_COMBINED);
  fail_unless_equals_int (gst_pinned_host_buffer_pool_config_get_flags
      (config), GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED |
      GST_PINNED_HOST_WRITE_COMBINED);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf, 0)));
  fail_unless_equals_int (gst_pinned_host_allocator_get_flags
      (GST_PINNED_HOST_ALLOCATOR (gst_buffer_peek_memory (buf, 0)->allocator)),
      GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED |
      GST_PINNED_HOST_WRITE_COMBINED);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (cudaHostGetFlags (&cuda_flags, map.data),
      cudaSuccess);
  gst_buffer_unmap (buf, &map);
  fail_unless (cuda_flags & cudaHostAllocPortable, "not portable: 0x%x",
      cuda_flags);
  fail_unless (cuda_flags & cudaHostAllocMapped, "not mapped: 0x%x",
      cuda_flags);
  fail_unless (cuda_flags & cudaHostAllocWriteCombined,
      "not write-combined: 0x%x", cuda_flags);

  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A pool names the context its memory lives in, and says why its last
 * allocation failed, once. */
GST_START_TEST (test_pool_context_and_error)
{
  PinnedTestDevice d;
  GstBufferPool *host, *device, *plain;
  GError *error = NULL;
  GstVideoInfo info;
  GstMemory *mem;

  pinned_test_device_init (&d);
  host = gst_pinned_host_buffer_pool_new (d.ctx);
  device = gst_pinned_device_buffer_pool_new (d.ctx);
  plain = gst_buffer_pool_new ();
  fail_unless (gst_pinned_buffer_pool_get_context (host) == d.ctx);
  fail_unless (gst_pinned_buffer_pool_get_context (device) == d.ctx);
  fail_unless (gst_pinned_buffer_pool_get_context (plain) == NULL);
  fail_unless (gst_pinned_allocator_get_context (GST_PINNED_ALLOCATOR
          (d.host)) == d.ctx);
  fail_unless (gst_pinned_allocator_get_context (GST_PINNED_ALLOCATOR
          (d.device)) == d.ctx);
  fail_if (gst_pinned_buffer_pool_take_error (host, &error));
  fail_if (gst_pinned_buffer_pool_take_error (plain, &error));

  if (pinned_test_is_fake ()) {
    /* Every allocation fails: the pool cannot start, and says why. */
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 16);
    fail_unless (gst_buffer_pool_set_config (host, host_pool_config (host,
                &info)));
    pinned_test_fail ("cudaHostAlloc", 0, G_MAXINT, cudaErrorMemoryAllocation);
    fail_if (gst_buffer_pool_set_active (host, TRUE));
    fail_unless (gst_pinned_buffer_pool_take_error (host, &error),
        "the pool did not keep why its allocation failed");
    fail_unless (error != NULL);
    fail_unless (strstr (error->message, "cudaHostAlloc") != NULL &&
        strstr (error->message, "cudaErrorMemoryAllocation") != NULL,
        "the error does not name the call and its CUDA error: %s",
        error->message);
    g_clear_error (&error);
    fail_if (gst_pinned_buffer_pool_take_error (host, &error),
        "the error was given twice");

    /* The same from the allocator itself. */
    pinned_test_fail ("cudaMalloc", 0, G_MAXINT, cudaErrorMemoryAllocation);
    mem = gst_allocator_alloc (d.device, 4096, NULL);
    fail_unless (mem == NULL);
    fail_unless (gst_pinned_allocator_take_error (GST_PINNED_ALLOCATOR
            (d.device), &error));
    fail_unless (strstr (error->message, "cudaMalloc") != NULL,
        "the error does not name the call: %s", error->message);
    g_clear_error (&error);
    fail_if (gst_pinned_allocator_take_error (GST_PINNED_ALLOCATOR
            (d.device), NULL));
    pinned_test_reset ();
  }

  gst_object_unref (plain);
  gst_object_unref (device);
  gst_object_unref (host);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A fence's handles are the CUDA event and stream it was recorded with:
 * the event is pending while the stream is held, complete after it. */
GST_START_TEST (test_fence_handles_are_cuda_objects)
{
  PinnedTestDevice d;
  GstPinnedFence *fence;
  cudaEvent_t event;

  pinned_test_device_init (&d);
  pinned_test_delay_stream (d.stream, pinned_test_ms (200));
  fence = gst_pinned_stream_record_fence (d.stream, NULL);
  fail_unless (fence != NULL);
  fail_unless (gst_pinned_fence_get_stream_handle (fence) ==
      gst_pinned_stream_get_handle (d.stream));

  event = gst_pinned_fence_get_handle (fence);
  fail_unless (event != NULL);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaEventQuery (event), cudaErrorNotReady);
  fail_unless_equals_int (cudaEventSynchronize (event), cudaSuccess);
  fail_unless_equals_int (cudaEventQuery (event), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  fail_unless (gst_pinned_fence_is_signaled (fence));

  gst_pinned_fence_unref (fence);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A plane's GPU address: the memory's pointer plus its offset (a share),
 * plus where the plane starts in it; FALSE past the planes and outside
 * gst-pinned memory. */
GST_START_TEST (test_buffer_get_plane)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *whole, *buf, *plain;
  GstMemory *mem, *luma, *chroma;
  gpointer data = NULL;
  gint stride = 0;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize luma_size;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 66, 34);
  luma_size = GST_VIDEO_INFO_PLANE_OFFSET (&info, 1);

  /* The default layout, one memory. */
  whole = gst_buffer_new_allocate (d.device, info.size, NULL);
  mem = gst_buffer_peek_memory (whole, 0);
  fail_unless (gst_pinned_buffer_get_plane (whole, &info, 1, &data, &stride));
  fail_unless (data == (guint8 *) ((GstPinnedMemory *) mem)->data + luma_size);
  fail_unless_equals_int (stride, GST_VIDEO_INFO_PLANE_STRIDE (&info, 1));
  fail_if (gst_pinned_buffer_get_plane (whole, &info, 2, &data, NULL),
      "NV12 has no third plane");

  /* Each plane a share of the block, at its own offset, with a meta of
   * padded strides: the chroma's address is the second memory's. */
  luma = gst_memory_share (mem, 0, luma_size);
  chroma = gst_memory_share (mem, luma_size, info.size - luma_size);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, luma);
  gst_buffer_append_memory (buf, chroma);
  offsets[1] = luma_size;
  strides[0] = strides[1] = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV12, 66, 34, 2, offsets, strides);
  fail_unless (gst_pinned_buffer_get_plane (buf, &info, 1, &data, &stride));
  fail_unless (data == (guint8 *) ((GstPinnedMemory *) chroma)->data +
      chroma->offset, "the plane's address leaves out its memory's offset");
  fail_unless (gst_pinned_buffer_get_plane (buf, &info, 0, &data, NULL));
  fail_unless (data == ((GstPinnedMemory *) luma)->data);

  /* System memory is no plane for GPU work. */
  plain = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_if (gst_pinned_buffer_get_plane (plain, &info, 0, &data, NULL));

  gst_buffer_unref (plain);
  gst_buffer_unref (buf);
  gst_buffer_unref (whole);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The device's name is the runtime's. */
GST_START_TEST (test_context_device_name)
{
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  struct cudaDeviceProp prop;

  fail_unless (ctx != NULL);
  fail_unless_equals_int (cudaGetDeviceProperties (&prop, 0), cudaSuccess);
  fail_unless_equals_string (gst_pinned_context_get_device_name (ctx),
      prop.name);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* What the driver's errors mean for a user, and no sentence for others. */
GST_START_TEST (test_cuda_driver_problem)
{
  const gchar *text;

  text = gst_pinned_cuda_driver_problem (cudaErrorNoDevice);
  fail_unless (text != NULL && strstr (text, "no CUDA device") != NULL);
  /* A driver is loaded (the stand-in's or the GPU's): older than the
   * runtime, so update it. */
  text = gst_pinned_cuda_driver_problem (cudaErrorInsufficientDriver);
  fail_unless (text != NULL && strstr (text, "update the driver") != NULL,
      "%s", GST_STR_NULL (text));
  fail_unless (gst_pinned_cuda_driver_problem (cudaErrorInvalidValue) == NULL);
  fail_unless (gst_pinned_cuda_driver_problem (cudaErrorMemoryAllocation) ==
      NULL);
}

GST_END_TEST;

/* A pageable helper reports what it was set to, and its statistics are
 * its getters'. */
GST_START_TEST (test_pageable_settings_and_stats)
{
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  GstStructure *stats;
  guint threads = 0, running = 99;
  guint64 staged = 99;

  pinned_test_device_init (&d);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_STAGE);
  fail_unless_equals_int (gst_pinned_pageable_get_mode (pageable),
      GST_PINNED_PAGEABLE_STAGE);
  gst_pinned_pageable_set_threads (pageable, 3);
  fail_unless_equals_int (gst_pinned_pageable_get_threads (pageable), 3);
  /* 0: one a core, at most eight. */
  gst_pinned_pageable_set_threads (pageable, 0);
  fail_unless (gst_pinned_pageable_get_threads (pageable) >= 1 &&
      gst_pinned_pageable_get_threads (pageable) <= 8);
  fail_unless (gst_pinned_pageable_get_threads (pageable) <=
      MAX (g_get_num_processors (), 1));

  stats = gst_pinned_pageable_get_stats (pageable);
  fail_unless (gst_structure_get_uint (stats, "copy-threads", &threads));
  fail_unless_equals_int (threads, gst_pinned_pageable_get_threads (pageable));
  fail_unless (gst_structure_get_uint (stats, "running-threads", &running));
  fail_unless_equals_int (running, 0);
  fail_unless (gst_structure_get_uint64 (stats, "staged", &staged));
  fail_unless_equals_int (staged, 0);
  gst_structure_free (stats);

  gst_object_unref (pageable);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static gint
count (const gchar * text, const gchar * what)
{
  gint n = 0;

  while ((text = strstr (text, what))) {
    n++;
    text += strlen (what);
  }
  return n;
}

/* A flush writes the spans so far and the timeline goes on; stop writes
 * the rest. */
GST_START_TEST (test_timeline_flush)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "pinned-api-timeline.json",
      NULL);
  PinnedTestDevice d;
  GstPinnedSpan *span;
  gchar *json = NULL;

  pinned_test_device_init (&d);
  fail_if (gst_pinned_timeline_flush (), "a flush without a timeline wrote");
  fail_unless (gst_pinned_timeline_start (path, 0));
  span = gst_pinned_timeline_begin (d.stream, "api", "first");
  fail_unless (span != NULL);
  gst_pinned_timeline_end (span);
  fail_unless (gst_pinned_stream_synchronize (d.stream, NULL));
  fail_unless (gst_pinned_timeline_flush ());
  fail_unless (g_file_get_contents (path, &json, NULL, NULL));
  fail_unless_equals_int (count (json, "\"first\""), 1);
  g_clear_pointer (&json, g_free);

  span = gst_pinned_timeline_begin (d.stream, "api", "second");
  fail_unless (span != NULL, "the flush ended the timeline");
  gst_pinned_timeline_end (span);
  fail_unless (gst_pinned_stream_synchronize (d.stream, NULL));
  fail_unless (gst_pinned_timeline_stop ());
  fail_unless (g_file_get_contents (path, &json, NULL, NULL));
  fail_unless_equals_int (count (json, "\"first\""), 1);
  fail_unless_equals_int (count (json, "\"second\""), 1);

  g_free (json);
  g_unlink (path);
  g_free (path);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static GstFlowReturn
collect_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GQueue *got = g_object_get_data (G_OBJECT (pad), "got");

  g_queue_push_tail (got, buffer);
  return GST_FLOW_OK;
}

/* A window counts the frames it holds back, the one its task has taken
 * too, and a drain leaves none. */
GST_START_TEST (test_window_pending)
{
  PinnedTestDevice d;
  GstPad *src = gst_pad_new ("src", GST_PAD_SRC);
  GstPad *sink = gst_pad_new ("sink", GST_PAD_SINK);
  GQueue got = G_QUEUE_INIT;
  GstPinnedWindow *window;
  GstBuffer *dev;
  GstSegment segment;
  guint i;

  pinned_test_device_init (&d);
  g_object_set_data (G_OBJECT (sink), "got", &got);
  gst_pad_set_chain_function (sink, collect_chain);
  fail_unless_equals_int (gst_pad_link (src, sink), GST_PAD_LINK_OK);
  gst_pad_set_active (sink, TRUE);
  gst_pad_set_active (src, TRUE);
  gst_pad_push_event (src, gst_event_new_stream_start ("api"));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (src, gst_event_new_segment (&segment));

  window = gst_pinned_window_new (src, 4);
  fail_unless_equals_int (gst_pinned_window_get_pending (window), 0);

  /* Two frames whose copies the stream holds back. */
  pinned_test_delay_stream (d.stream, pinned_test_ms (300));
  for (i = 0; i < 2; i++) {
    dev = gst_buffer_new_allocate (d.device, 4096, NULL);
    fail_unless (gst_pinned_buffer_record_fence (dev, d.stream,
            GST_MAP_WRITE, NULL));
    fail_unless_equals_int (gst_pinned_window_push (window, dev,
            gst_buffer_ref (dev)), GST_FLOW_OK);
  }
  /* The task has taken the first frame and waits for its fence meanwhile:
   * still pending. */
  g_usleep (pinned_test_ms (50) * 1000);
  if (pinned_test_work_is_async ()) {
    fail_unless_equals_int (gst_pinned_window_get_pending (window), 2);
    fail_unless_equals_int (got.length, 0);
  }

  fail_unless_equals_int (gst_pinned_window_drain (window), GST_FLOW_OK);
  fail_unless_equals_int (gst_pinned_window_get_pending (window), 0);
  fail_unless_equals_int (got.length, 2);

  gst_pinned_window_stop (window);
  gst_object_unref (window);
  g_queue_clear_full (&got, (GDestroyNotify) gst_buffer_unref);
  gst_pad_set_active (src, FALSE);
  gst_pad_set_active (sink, FALSE);
  gst_object_unref (src);
  gst_object_unref (sink);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The page-locked pool hands out the least recently released buffer: the
 * one whose copy most likely finished, so it waits only when every buffer
 * is busy. */
GST_START_TEST (test_host_pool_least_recently_released)
{
  PinnedTestDevice d;
  GstBufferPool *pool;
  GstBuffer *buf[3], *got;
  GstVideoInfo info;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 16);
  pool = gst_pinned_host_buffer_pool_new (d.ctx);
  {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    GstCaps *caps = gst_video_info_to_caps (&info);

    gst_buffer_pool_config_set_params (config, caps, info.size, 3, 3);
    gst_caps_unref (caps);
    fail_unless (gst_buffer_pool_set_config (pool, config));
  }
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf[i],
            NULL), GST_FLOW_OK);
  /* Released 1, 2, 0: handed out again in that order. */
  gst_buffer_unref (buf[1]);
  gst_buffer_unref (buf[2]);
  gst_buffer_unref (buf[0]);
  for (i = 0; i < 3; i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &got, NULL),
        GST_FLOW_OK);
    fail_unless (got == buf[(i + 1) % 3], "acquire %u: not the least "
        "recently released buffer", i);
    buf[(i + 1) % 3] = got;
  }
  for (i = 0; i < 3; i++)
    gst_buffer_unref (buf[i]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static Suite *
api_suite (void)
{
  Suite *s = suite_create ("api");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, NULL, teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_host_pool_flags_reach_memory);
  tcase_add_test (tc, test_pool_context_and_error);
  tcase_add_test (tc, test_fence_handles_are_cuda_objects);
  tcase_add_test (tc, test_buffer_get_plane);
  tcase_add_test (tc, test_context_device_name);
  tcase_add_test (tc, test_cuda_driver_problem);
  tcase_add_test (tc, test_pageable_settings_and_stats);
  tcase_add_test (tc, test_timeline_flush);
  tcase_add_test (tc, test_window_pending);
  tcase_add_test (tc, test_host_pool_least_recently_released);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, api_suite);
}
