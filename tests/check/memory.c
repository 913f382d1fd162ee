/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The library under the elements: fences, fenced memory, streams, the
 * context, and the promises of the per-buffer path (no host waits, no event
 * creation per buffer). */

#include <string.h>
#include <cuda_runtime_api.h>
#include "pinnedtest.h"

#define DELAY_MS 200

static GstPinnedContext *
open_context (void)
{
  GError *error = NULL;
  GstPinnedContext *ctx = gst_pinned_context_new (0, &error);

  fail_unless (ctx != NULL, "%s", error ? error->message : "");
  return ctx;
}

GST_START_TEST (test_fences_are_recycled)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *stream = gst_pinned_stream_new (ctx, NULL);
  guint64 created = pinned_test_call_count ("cudaEventCreateWithFlags");
  GstPinnedFence *fence;
  guint i;

  for (i = 0; i < 100; i++) {
    fence = gst_pinned_stream_record_fence (stream, NULL);
    fail_unless (fence != NULL);
    fail_unless (gst_pinned_fence_wait (fence, NULL));
    fail_unless (gst_pinned_fence_is_signaled (fence));
    gst_pinned_fence_unref (fence);
  }
  if (pinned_test_is_fake ())
    fail_unless (pinned_test_call_count ("cudaEventCreateWithFlags") -
        created <= 1);

  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* A fence recorded behind a pause is not signalled until the stream gets
 * there; another stream waiting on it is held back too. */
GST_START_TEST (test_fence_orders_streams)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedStream *b = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *fa, *fb;

  pinned_test_delay_stream (a, DELAY_MS);
  fa = gst_pinned_stream_record_fence (a, NULL);
  fail_unless (gst_pinned_fence_wait_on_stream (fa, b, NULL));
  fb = gst_pinned_stream_record_fence (b, NULL);

  fail_if (gst_pinned_fence_is_signaled (fa));
  fail_if (gst_pinned_fence_is_signaled (fb));
  fail_unless (gst_pinned_fence_wait (fb, NULL));
  fail_unless (gst_pinned_fence_is_signaled (fa));

  gst_pinned_fence_unref (fa);
  gst_pinned_fence_unref (fb);
  gst_pinned_stream_unref (a);
  gst_pinned_stream_unref (b);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Work already on the same stream needs no cross-stream wait. */
GST_START_TEST (test_same_stream_needs_no_wait)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedStream *b = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *fence = gst_pinned_stream_record_fence (a, NULL);
  guint64 waits;

  if (pinned_test_is_fake ()) {
    waits = pinned_test_call_count ("cudaStreamWaitEvent");
    fail_unless (gst_pinned_fence_wait_on_stream (fence, a, NULL));
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent"),
        waits);
    fail_unless (gst_pinned_fence_wait_on_stream (fence, b, NULL));
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent"),
        waits + 1);
  }

  gst_pinned_fence_unref (fence);
  gst_pinned_stream_unref (a);
  gst_pinned_stream_unref (b);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Freeing memory waits for the copy that still writes it. */
GST_START_TEST (test_free_waits_for_fences)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst;
  GstPinnedFence *fence;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 512, 512);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  dst = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_bytes (src, 0x3c);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (dst, 0));
  fail_unless (fence != NULL);
  fail_if (gst_pinned_fence_is_signaled (fence));

  gst_buffer_unref (dst);
  gst_buffer_unref (src);
  fail_unless (gst_pinned_fence_is_signaled (fence),
      "memory was freed while a copy still wrote it");

  gst_pinned_fence_unref (fence);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Device memory: a GPU map yields the device pointer without waiting; a
 * CPU map goes through staging, waits for the writer and writes back. */
GST_START_TEST (test_device_memory_maps)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dev, *back;
  GstPinnedMemory *mem;
  GstMapInfo map;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 256);
  src = gst_buffer_new_allocate (d.host, info.size, NULL);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  back = gst_buffer_new_allocate (d.host, info.size, NULL);
  mem = (GstPinnedMemory *) gst_buffer_peek_memory (dev, 0);
  pinned_test_fill_bytes (src, 0x42);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dev,
          NULL));

  fail_unless (gst_buffer_map (dev, &map, GST_MAP_READ | GST_MAP_PINNED_GPU));
  fail_unless (map.data == mem->data);
  gst_buffer_unmap (dev, &map);
  fail_if (gst_pinned_buffer_is_idle (dev, GST_MAP_READ));

  /* CPU read: waits for the delayed copy, never the device pointer. */
  fail_unless (pinned_test_all_bytes (dev, 0x42));

  /* CPU write: lands on the device at unmap. */
  pinned_test_fill_bytes (dev, 0x17);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dev, back,
          NULL));
  fail_unless (pinned_test_all_bytes (back, 0x17));

  gst_buffer_unref (src);
  gst_buffer_unref (dev);
  gst_buffer_unref (back);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A share carries the fences of the memory it was shared from. */
GST_START_TEST (test_shared_memory_keeps_fences)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst, *sub;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 256);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  dst = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_bytes (src, 0x99);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  sub = gst_buffer_copy_region (dst, GST_BUFFER_COPY_MEMORY, 1000, 5000);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (sub, 0)));
  fail_if (gst_pinned_buffer_is_idle (sub, GST_MAP_READ));
  fail_unless (pinned_test_all_bytes (sub, 0x99));

  gst_buffer_unref (sub);
  gst_buffer_unref (src);
  gst_buffer_unref (dst);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Page-locked memory of another allocator has no fences: the transfer
 * returns only once the copy no longer needs it. */
GST_START_TEST (test_foreign_pinned_source_is_waited_for)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst;
  GstMapInfo map;
  gpointer data;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 512, 256);
  data = g_malloc (info.size);
  memset (data, 0x61, info.size);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaHostRegister (data, info.size,
          cudaHostRegisterDefault), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  src = gst_buffer_new_wrapped_full (0, data, info.size, 0, info.size, NULL,
      NULL);
  dst = gst_buffer_new_allocate (d.device, info.size, NULL);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  fail_unless (gst_buffer_map (src, &map, GST_MAP_WRITE));
  memset (map.data, 0x00, map.size);
  gst_buffer_unmap (src, &map);
  fail_unless (pinned_test_all_bytes (dst, 0x61));

  gst_buffer_unref (src);
  gst_buffer_unref (dst);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaHostUnregister (data), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  g_free (data);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* push/pop leaves the calling thread on the device it chose. */
GST_START_TEST (test_context_push_pop_restores_device)
{
  GstPinnedContext *ctx;
  gint n = 0, dev = -1;
  GError *error = NULL;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  fail_unless (gst_pinned_context_new (n + 3, &error) == NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  g_clear_error (&error);
  if (n < 2)
    return;

  ctx = gst_pinned_context_new (0, NULL);
  fail_unless_equals_int (cudaSetDevice (1), cudaSuccess);
  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaGetDevice (&dev), cudaSuccess);
  fail_unless_equals_int (dev, 0);
  gst_pinned_context_pop (ctx);
  fail_unless_equals_int (cudaGetDevice (&dev), cudaSuccess);
  fail_unless_equals_int (dev, 1);
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* The per-buffer path: no host waits, and no events made per buffer. With
 * both streams held back, frames go through the pair and come out pushed
 * while every copy is still pending. */
GST_START_TEST (test_per_buffer_path_never_waits)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstVideoInfo info;
  GstPinnedStream *upload, *download;
  GstBuffer *in, *out[3];
  guint64 syncs, events;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 1280, 720);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  /* Warm up: pools allocated, and as many events made as the buffers of
   * all pools keep alive (each holds the fences of its last users). */
  for (i = 0; i < 32; i++) {
    in = gst_harness_create_buffer (h, info.size);
    gst_buffer_unref (gst_harness_push_and_pull (h, in));
  }

  /* Let the warm-up frames land: fewer frames than the pools hold are
   * then in flight, and a wait could only come from the per-buffer path,
   * not from backpressure. */
  upload = gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (h->element, "pinnedupload"));
  download = gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (h->element, "pinneddownload"));
  fail_unless (gst_pinned_stream_synchronize (upload, NULL));
  fail_unless (gst_pinned_stream_synchronize (download, NULL));

  pinned_test_delay_stream (upload, DELAY_MS);
  syncs = pinned_test_call_count ("cudaEventSynchronize") +
      pinned_test_call_count ("cudaStreamSynchronize");
  events = pinned_test_call_count ("cudaEventCreateWithFlags");
  for (i = 0; i < G_N_ELEMENTS (out); i++) {
    in = gst_harness_create_buffer (h, info.size);
    out[i] = gst_harness_push_and_pull (h, in);
  }
  for (i = 0; i < G_N_ELEMENTS (out); i++)
    fail_if (gst_pinned_buffer_is_idle (out[i], GST_MAP_READ),
        "frame %u was waited for before it was pushed", i);
  if (pinned_test_is_fake ()) {
    fail_unless_equals_int (pinned_test_call_count ("cudaEventSynchronize") +
        pinned_test_call_count ("cudaStreamSynchronize"), syncs);
    fail_unless_equals_int (pinned_test_call_count
        ("cudaEventCreateWithFlags"), events);
  }

  for (i = 0; i < G_N_ELEMENTS (out); i++)
    gst_buffer_unref (out[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A copy that fails on its stream, after the call returned: the fence
 * counts as signalled (finished: nothing left to wait for), but waiting on
 * it returns the CUDA error, and so do a CPU map and a pool's acquire,
 * instead of handing out a frame the copy never wrote. */
GST_START_TEST (test_failed_copy_fails_map_and_acquire)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstBuffer *src, *dst, *again = NULL;
  GstPinnedFence *fence;
  GError *error = NULL;
  GstMapInfo map;

  if (!pinned_test_is_fake ())
    return;                     /* no failure on demand on a GPU */

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 64);
  caps = gst_video_info_to_caps (&info);
  pool = gst_pinned_host_buffer_pool_new (d.ctx);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &dst, NULL),
      GST_FLOW_OK);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  pinned_test_fill_bytes (src, 0x3c);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  pinned_test_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL), "the failure showed before the stream got to the copy");
  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (dst, 0));
  fail_unless (fence != NULL);

  fail_if (gst_pinned_fence_wait (fence, &error));
  fail_unless (error && strstr (error->message, "cudaErrorIllegalAddress"),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  /* Finished, if badly: a poll ends, and a wait would not block ... */
  fail_unless (gst_pinned_fence_is_signaled (fence));
  fail_unless (gst_pinned_buffer_is_idle (dst, GST_MAP_READ));
  /* ... but the CPU does not get the frame that never came. */
  fail_if (gst_pinned_buffer_wait (dst, GST_MAP_READ, &error));
  fail_unless (error != NULL);
  g_clear_error (&error);
  fail_if (gst_buffer_map (dst, &map, GST_MAP_READ),
      "a CPU map went ahead on a frame whose copy failed");

  /* Released, it is not handed out again either ... */
  gst_buffer_unref (dst);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &again,
          NULL), GST_FLOW_ERROR);
  fail_unless (again == NULL);

  /* ... but stays the pool's: once the device is usable again, it is. */
  pinned_test_reset ();
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &again,
          NULL), GST_FLOW_OK);
  gst_buffer_unref (again);
  gst_pinned_fence_unref (fence);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE),
      "the pool lost a buffer");
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_buffer_unref (src);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static Suite *
memory_suite (void)
{
  Suite *s = suite_create ("memory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_fences_are_recycled);
  tcase_add_test (tc, test_fence_orders_streams);
  tcase_add_test (tc, test_same_stream_needs_no_wait);
  tcase_add_test (tc, test_free_waits_for_fences);
  tcase_add_test (tc, test_device_memory_maps);
  tcase_add_test (tc, test_shared_memory_keeps_fences);
  tcase_add_test (tc, test_foreign_pinned_source_is_waited_for);
  tcase_add_test (tc, test_context_push_pop_restores_device);
  tcase_add_test (tc, test_per_buffer_path_never_waits);
  tcase_add_test (tc, test_failed_copy_fails_map_and_acquire);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, memory_suite);
}
