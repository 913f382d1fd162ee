/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The two hazards of the seed tutorial, with the copies held back so that
 * the host races them: a page-locked source written or reused while its
 * upload still reads it, and a download read before it lands. Each test
 * also does the same access without the fence wait (through a pointer kept
 * from an earlier map) and shows that the data then comes out wrong: the
 * fence wait is what makes the difference.
 *
 * The delay is the stand-in's stream pause, or a spin kernel on a GPU (as
 * torch.cuda._sleep() in the seed). */

#include <string.h>
#include "pinnedtest.h"

#define DELAY_MS 300
#define WIDTH 1024
#define HEIGHT 1024

static GstHarness *
new_upload (GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new ("pinnedupload");

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, WIDTH, HEIGHT);
  gst_harness_set_caps (h, gst_video_info_to_caps (info),
      gst_pinned_caps_set_memory_feature (gst_video_info_to_caps (info),
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE));
  return h;
}

static GstPinnedStream *
stream_of (GstElement * element, const gchar * factory)
{
  GstPinnedStream *stream =
      gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (element, factory));

  fail_unless (stream != NULL);
  return stream;
}

static guint8 *
raw_pointer (GstBuffer * buffer)
{
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);

  fail_unless (gst_is_pinned_host_memory (mem));
  return (guint8 *) ((GstPinnedMemory *) mem)->data + mem->offset;
}

/* Hazard 1: the source writes its page-locked buffer again while the upload
 * still reads it. */
GST_START_TEST (test_upload_source_write_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBuffer *in, *out;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_bytes (in, 0x01);

  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));

  /* Pushed at once: the copy has not run yet. */
  fail_if (gst_pinned_buffer_is_idle (in, GST_MAP_WRITE));
  fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));

  /* The source writes the next frame: the map waits for the copy. */
  pinned_test_fill_bytes (in, 0x00);
  fail_unless (pinned_test_all_bytes (out, 0x01),
      "the upload saw the source's next frame");

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Control: the same write without the fence wait corrupts the upload. */
GST_START_TEST (test_upload_source_write_without_wait_corrupts)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBuffer *in, *out;
  guint8 *ptr;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_bytes (in, 0x01);
  ptr = raw_pointer (in);

  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  memset (ptr, 0x00, info.size);

  fail_if (pinned_test_all_bytes (out, 0x01),
      "the unfenced write did not race the delayed copy: "
      "this suite could not see the hazard");

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Hazard 1, reuse: the pool hands a released source buffer out again only
 * once its copy is done. */
GST_START_TEST (test_upload_pool_reuse_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstCaps *caps = gst_video_info_to_caps (&info);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstBuffer *b1, *b2, *out1, *out2;
  guint size;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b1, NULL),
      GST_FLOW_OK);
  pinned_test_fill_bytes (b1, 0x11);
  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out1 = gst_harness_push_and_pull (h, gst_buffer_ref (b1));

  /* Released while its copy is still reading it ... */
  fail_if (gst_pinned_buffer_is_idle (b1, GST_MAP_WRITE));
  gst_buffer_unref (b1);

  /* ... and handed out again (one buffer: the same) only after the copy. */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b2, NULL),
      GST_FLOW_OK);
  fail_unless (gst_pinned_buffer_is_idle (b2, GST_MAP_READWRITE));
  pinned_test_fill_bytes (b2, 0x22);
  out2 = gst_harness_push_and_pull (h, b2);

  fail_unless (pinned_test_all_bytes (out1, 0x11));
  fail_unless (pinned_test_all_bytes (out2, 0x22));

  gst_buffer_unref (out1);
  gst_buffer_unref (out2);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstHarness *
new_roundtrip (GstVideoInfo * info, guint download_pool_size)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstElement *download =
      GST_ELEMENT (pinned_test_get_transform (h->element, "pinneddownload"));

  g_object_set (download, "pool-size", download_pool_size, NULL);
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_RGBA, 640, 480);
  gst_harness_set_caps (h, gst_video_info_to_caps (info),
      gst_video_info_to_caps (info));
  return h;
}

/* Hazard 2: downstream reads a download before the copy lands. */
GST_START_TEST (test_download_map_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 4);
  GstBuffer *in, *out, *raw;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 1234);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ),
      "the download waited for its copy before pushing");

  /* Control: reading the bytes without the map's wait sees no frame. */
  raw = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
      raw_pointer (out), info.size, 0, info.size, NULL, NULL);
  fail_if (pinned_test_frames_equal (in, raw, &info),
      "the frame was there before its copy ran: this suite could not see "
      "the hazard");
  gst_buffer_unref (raw);

  /* Mapping waits for the copy (sync-on-map). */
  fail_unless (pinned_test_frames_equal (in, out, &info));

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A downstream that never maps (fakesink) releases the buffer while the
 * copy into it runs: the pool does not hand it out before the copy ends. */
GST_START_TEST (test_download_unmapped_buffer_not_reused_early)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 1);
  GstBuffer *in, *out, *again;
  GstBufferPool *pool;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 77);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out->pool != NULL);
  pool = gst_object_ref (out->pool);
  fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));
  gst_buffer_unref (out);

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &again, NULL),
      GST_FLOW_OK);
  fail_unless (gst_pinned_buffer_is_idle (again, GST_MAP_READWRITE),
      "the pool handed out a buffer whose copy was still running");
  fail_unless (pinned_test_frames_equal (in, again, &info));

  gst_buffer_unref (again);
  gst_object_unref (pool);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Device buffers are reused stream-ordered: with the download held back,
 * the upload writes a device buffer again that the download has not read
 * yet; its stream waits for the download's read (the host does not), and
 * every frame comes out right. */
GST_START_TEST (test_device_reuse_is_stream_ordered)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 8);
  GstBuffer *in[6], *out[6];
  guint i;

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 500 + i);
    out[i] = gst_harness_push_and_pull (h, gst_buffer_ref (in[i]));
  }
  /* Nothing waited for the held-back download on the host. */
  fail_if (gst_pinned_buffer_is_idle (out[G_N_ELEMENTS (in) - 1],
          GST_MAP_READ));

  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    fail_unless (pinned_test_frames_equal (in[i], out[i], &info),
        "frame %u was overwritten on the GPU before its download", i);
    gst_buffer_unref (in[i]);
    gst_buffer_unref (out[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
hazards_suite (void)
{
  Suite *s = suite_create ("hazards");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_upload_source_write_waits_for_copy);
  tcase_add_test (tc, test_upload_source_write_without_wait_corrupts);
  tcase_add_test (tc, test_upload_pool_reuse_waits_for_copy);
  tcase_add_test (tc, test_download_map_waits_for_copy);
  tcase_add_test (tc, test_download_unmapped_buffer_not_reused_early);
  tcase_add_test (tc, test_device_reuse_is_stream_ordered);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, hazards_suite);
}
