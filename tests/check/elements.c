/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What users meet of each element: the message after GPU work failed on
 * the device (a kernel that faulted makes every later CUDA call fail, so
 * the element that meets it says so, rather than that its own frame could
 * not be copied), and the pool-size of an in-place filter, which sizes a
 * pool only where the filter has one. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <cuda_runtime_api.h>

#include "pinnedtest.h"

static GstBus *
watch_errors (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

/* The device's work fails where its stream gets to it, as a faulting
 * kernel's would: every later call on the device reports the error. */
static void
poison_device (PinnedTestDevice * d)
{
  GstBuffer *host = gst_buffer_new_allocate (d->host, 4096, NULL);
  GstBuffer *dev = gst_buffer_new_allocate (d->device, 4096, NULL);
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 4096, 1);
  pinned_test_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  /* The copy may fail before its fence is recorded: then the transfer
   * fails too. */
  gst_pinned_transfer_video_frame (d->stream, &info, host, dev, NULL);
  fail_unless (gst_pinned_context_push (d->ctx, NULL));
  fail_unless_equals_int (cudaStreamSynchronize
      (gst_pinned_stream_get_cuda_stream (d->stream)), cudaErrorIllegalAddress);
  gst_pinned_context_pop (d->ctx);
  gst_buffer_unref (dev);
  gst_buffer_unref (host);
}

static void
assert_message (GstBus * bus, const gchar * factory, const gchar * text,
    gboolean earlier_work)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
      error->message, debug);
  fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory
          (GST_ELEMENT (GST_MESSAGE_SRC (msg)))), factory);
  fail_unless (g_str_has_prefix (error->message, text), "%s", error->message);
  if (earlier_work) {
    fail_unless (strstr (error->message, "the GPU reported an error in "
            "earlier work (cudaErrorIllegalAddress") != NULL, "%s",
        error->message);
    fail_unless (strstr (error->message, "restart the application") != NULL);
  } else {
    fail_unless_equals_string (error->message, text);
  }
  fail_unless (debug && strstr (debug, "cudaErrorIllegalAddress"), "%s", debug);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
}

typedef enum
{
  POISONED,                     /* the device, by earlier work */
  FAILED_CALL,                  /* one call, the device fine */
} Failure;

/* @factory works on one frame, then after @failure fails the next. */
static void
check_failure (const gchar * factory, const gchar * text, Failure failure)
{
  GstHarness *h = gst_harness_new (factory);
  GstBus *bus = watch_errors (h);
  PinnedTestDevice d;
  GstVideoInfo info;
  GstCaps *sys, *dev;
  GstBuffer *in[2];
  gboolean upload = strcmp (factory, "pinnedupload") == 0;
  gboolean download = strcmp (factory, "pinneddownload") == 0;
  guint i;

  /* The busy kernel's launch is checked with cudaGetLastError(), which
   * would also return an earlier case's failed call of this thread. */
  cudaGetLastError ();
  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  sys = gst_video_info_to_caps (&info);
  dev = gst_pinned_caps_set_memory_feature (sys,
      GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
  gst_harness_set_caps (h, gst_caps_ref (upload ? sys : dev),
      gst_caps_ref (download ? sys : dev));
  if (!upload && !download)
    g_object_set (h->element, "busy-us", 10, NULL);
  /* Made before the device fails: nothing can be allocated after. */
  for (i = 0; i < 2; i++)
    in[i] = upload ? gst_harness_create_buffer (h, info.size) :
        gst_buffer_new_allocate (d.device, info.size, NULL);

  gst_buffer_unref (pinned_test_push_and_pull (h, in[0]));
  if (failure == POISONED)
    poison_device (&d);
  else
    pinned_test_fail (upload || download ? "cudaMemcpyAsync" :
        "launch:pinned_busy_kernel", 0, 1, cudaErrorIllegalAddress);
  fail_unless_equals_int (gst_harness_push (h, in[1]), GST_FLOW_ERROR);
  assert_message (bus, factory, text, failure == POISONED);

  pinned_test_reset ();
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_caps_unref (sys);
  gst_caps_unref (dev);
  pinned_test_device_clear (&d);
}

/* After earlier GPU work failed on the device, each element says so, and
 * that the application must restart. */
GST_START_TEST (test_device_error_of_earlier_work)
{
  if (!pinned_test_is_fake ())
    return;                     /* the device stays unusable: stand-in only */

  check_failure ("pinnedupload", "Could not upload a frame", POISONED);
  check_failure ("pinneddownload", "Could not download a frame", POISONED);
  check_failure ("pinnedbusy", "GPU filter failed", POISONED);
}

GST_END_TEST;

/* A call of its own that fails, on a device that still works, is not
 * blamed on earlier work, whatever its error. */
GST_START_TEST (test_own_call_failure)
{
  if (!pinned_test_is_fake ())
    return;

  check_failure ("pinnedupload", "Could not upload a frame", FAILED_CALL);
  check_failure ("pinneddownload", "Could not download a frame", FAILED_CALL);
  check_failure ("pinnedbusy", "GPU filter failed", FAILED_CALL);
}

GST_END_TEST;

/* pinnedbusy works on gst-pinned device memory in place: no pool, whatever
 * its pool-size. */
GST_START_TEST (test_in_place_filter_has_no_pool)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinnedbusy "
      "pool-size=3 busy-us=0 ! pinneddownload");
  GstElement *busy = GST_ELEMENT (pinned_test_get_transform (h->element,
          "pinnedbusy"));
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  gst_buffer_unref (pinned_test_push_and_pull (h, gst_harness_create_buffer (h,
              info.size)));
  fail_unless (gst_base_transform_is_in_place (GST_BASE_TRANSFORM (busy)));
  fail_unless (gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (busy))
      == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

#ifdef HAVE_CUDA_INTEROP
/* nvcodec's CUDA memory goes back to its pool unchanged: pinnedbusy works
 * on a copy, in a pool of twice its pool-size, and counts the copies. */
GST_START_TEST (test_in_place_filter_pool_for_cuda_memory)
{
  GstElement *pipeline, *busy;
  GstBufferPool *pool;
  GstStructure *config;
  GstMessage *msg;
  GstBus *bus;
  guint min = 0;
  guint64 copies = 0;

  if (gst_element_factory_find ("cudaupload") == NULL) {
    fail_if (pinned_test_is_fake (), "no cudaupload on the stand-ins");
    return;
  }

  pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! pinnedbusy name=busy pool-size=3 "
      "busy-us=0 ! pinneddownload ! fakesink", NULL);
  busy = gst_bin_get_by_name (GST_BIN (pipeline), "busy");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  pool = gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (busy));
  if (pool) {
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_params (config, NULL, NULL, &min, NULL);
    gst_structure_free (config);
    gst_object_unref (pool);
  }
  copies = pinned_test_stat (busy, "copies");
  gst_element_set_state (pipeline, GST_STATE_NULL);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless (pool != NULL);
  fail_unless_equals_int (min, 6);
  fail_unless_equals_uint64 (copies, 3);

  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (busy);
  gst_object_unref (pipeline);
}

GST_END_TEST;
#endif

static Suite *
elements_suite (void)
{
  Suite *s = suite_create ("elements");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  /* A failed test leaves no injected failure or poisoned device behind. */
  tcase_add_checked_fixture (tc, NULL, pinned_test_reset);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_device_error_of_earlier_work);
  tcase_add_test (tc, test_own_call_failure);
  tcase_add_test (tc, test_in_place_filter_has_no_pool);
#ifdef HAVE_CUDA_INTEROP
  tcase_add_test (tc, test_in_place_filter_pool_for_cuda_memory);
#endif

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, elements_suite);
}
