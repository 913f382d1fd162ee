/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Streaming life: EOS and teardown with copies in flight, flushing, state
 * changes up and down, caps changes, errors (no device, bad device-id,
 * failed allocations and copies) and device sharing through GstContext. */

#include <cuda_runtime_api.h>
#include "pinnedtest.h"

#define DELAY_MS pinned_test_ms (200)

static GstHarness *
new_roundtrip (GstVideoInfo * info, GstVideoFormat format, gint w, gint h)
{
  GstHarness *harness = gst_harness_new_parse ("pinnedupload ! pinneddownload");

  gst_video_info_set_format (info, format, w, h);
  gst_harness_set_caps (harness, gst_video_info_to_caps (info),
      gst_video_info_to_caps (info));
  return harness;
}

static GstPinnedStream *
stream_of (GstHarness * h, const gchar * factory)
{
  return gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (h->element, factory));
}

GST_START_TEST (test_eos_with_copies_in_flight)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, GST_VIDEO_FORMAT_NV12, 640, 360);
  GstBuffer *in[5], *out;
  GstEvent *event;
  guint i;

  pinned_test_delay_stream (stream_of (h, "pinnedupload"), DELAY_MS);
  pinned_test_delay_stream (stream_of (h, "pinneddownload"), DELAY_MS);
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    out = gst_harness_pull (h);
    fail_unless (pinned_test_frames_equal (in[i], out, &info));
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  while ((event = gst_harness_try_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;

    gst_event_unref (event);
    if (eos)
      break;
  }
  fail_unless (event != NULL, "no EOS after the frames");

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Stopping with copies queued leaks nothing and frees nothing a copy still
 * touches: freeing waits for the fences. */
GST_START_TEST (test_teardown_with_copies_in_flight)
{
  guint64 mallocs = pinned_test_call_count ("cudaMalloc");
  guint64 frees = pinned_test_call_count ("cudaFree");
  guint64 host_allocs = pinned_test_call_count ("cudaHostAlloc");
  guint64 host_frees = pinned_test_call_count ("cudaFreeHost");
  guint64 streams = pinned_test_call_count ("cudaStreamCreateWithFlags");
  guint64 stream_ends = pinned_test_call_count ("cudaStreamDestroy");
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, GST_VIDEO_FORMAT_I420, 1280, 720);
  guint i;

  pinned_test_delay_stream (stream_of (h, "pinnedupload"), DELAY_MS);
  for (i = 0; i < 3; i++) {
    GstBuffer *in = gst_harness_create_buffer (h, info.size);

    pinned_test_fill_frame (in, &info, i);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  gst_harness_teardown (h);

  if (pinned_test_is_fake ()) {
    fail_unless (pinned_test_call_count ("cudaMalloc") > mallocs);
    fail_unless_equals_int (pinned_test_call_count ("cudaMalloc") - mallocs,
        pinned_test_call_count ("cudaFree") - frees);
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") -
        host_allocs, pinned_test_call_count ("cudaFreeHost") - host_frees);
    fail_unless (pinned_test_call_count ("cudaStreamCreateWithFlags") >
        streams);
    fail_unless_equals_int (pinned_test_call_count
        ("cudaStreamCreateWithFlags") - streams,
        pinned_test_call_count ("cudaStreamDestroy") - stream_ends);
  }
}

GST_END_TEST;

GST_START_TEST (test_flush_with_copies_in_flight)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstSegment segment;
  GstBuffer *in, *out;
  guint i;

  pinned_test_delay_stream (stream_of (h, "pinnedupload"), DELAY_MS);
  for (i = 0; i < 3; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, i);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  /* What was pushed before the flush is dropped by the harness' user. */
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);

  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (i = 0; i < 3; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, 100 + i);
    out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (pinned_test_frames_equal (in, out, &info));
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }

  gst_harness_teardown (h);
}

GST_END_TEST;

static void
restart_stream (GstHarness * h, GstCaps * caps)
{
  gchar *id = g_strdup_printf ("restart-%p", caps);

  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start (id)));
  gst_harness_set_sink_caps (h, gst_caps_ref (caps));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  g_free (id);
}

/* READY and back tears down and rebuilds the device, stream and pools;
 * caps changes rebuild the pools. Frames stay right throughout. */
GST_START_TEST (test_state_and_caps_changes)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  const struct
  {
    GstVideoFormat format;
    gint w, h;
  } confs[] = {
    {GST_VIDEO_FORMAT_NV12, 320, 240},
    {GST_VIDEO_FORMAT_NV12, 640, 480},
    {GST_VIDEO_FORMAT_I420_10LE, 333, 111},
    {GST_VIDEO_FORMAT_RGBA, 64, 64},
  };
  guint c, round, i;

  for (round = 0; round < 3; round++) {
    for (c = 0; c < G_N_ELEMENTS (confs); c++) {
      GstVideoInfo info;
      GstCaps *caps;

      gst_video_info_set_format (&info, confs[c].format, confs[c].w,
          confs[c].h);
      caps = gst_video_info_to_caps (&info);
      if (round == 0 && c == 0)
        gst_harness_set_caps (h, gst_caps_ref (caps), gst_caps_ref (caps));
      else
        restart_stream (h, caps);

      for (i = 0; i < 2; i++) {
        GstBuffer *in = gst_harness_create_buffer (h, info.size);
        GstBuffer *out;

        pinned_test_fill_frame (in, &info, round * 100 + c * 10 + i);
        out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
        fail_unless (out != NULL);
        fail_unless (pinned_test_frames_equal (in, out, &info));
        gst_buffer_unref (in);
        gst_buffer_unref (out);
      }
      gst_caps_unref (caps);
    }

    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    fail_unless (gst_pinned_base_transform_get_stream
        (pinned_test_get_transform (h->element, "pinnedupload")) == NULL);
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  }

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Runs @launch until an error or EOS, returns that message. */
static GstMessage *
run_pipeline (const gchar * launch, GstElement ** pipeline_out)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s: %s", launch, error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gst_object_unref (bus);

  if (pipeline_out && msg) {
    *pipeline_out = pipeline;
  } else {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
  fail_unless (msg != NULL, "%s: neither error nor EOS", launch);
  return msg;
}

static void
assert_error (GstMessage * msg, const gchar * source_factory, gint code,
    const gchar * text_part, const gchar * debug_part)
{
  GError *error = NULL;
  gchar *debug = NULL;
  GstElementFactory *factory;

  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("error: %s (%s)", error->message, debug);
  factory = gst_element_get_factory (GST_ELEMENT (GST_MESSAGE_SRC (msg)));
  fail_unless_equals_string (GST_OBJECT_NAME (factory), source_factory);
  fail_unless (error->domain == GST_RESOURCE_ERROR, "domain %s",
      g_quark_to_string (error->domain));
  fail_unless_equals_int (error->code, code);
  fail_unless (strstr (error->message, text_part) != NULL, "message: %s",
      error->message);
  fail_unless (debug && strstr (debug, debug_part) != NULL, "debug: %s", debug);
  g_error_free (error);
  g_free (debug);
}

GST_START_TEST (test_error_no_device)
{
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;                     /* a GPU machine has a device */

  pinned_test_fail ("cudaGetDeviceCount", 0, 100, cudaErrorNoDevice);
  msg = run_pipeline ("videotestsrc num-buffers=2 ! pinnedupload ! "
      "pinneddownload ! fakesink", NULL);
  pinned_test_reset ();
  assert_error (msg, "pinneddownload", GST_RESOURCE_ERROR_NOT_FOUND,
      "No usable CUDA device", "cudaErrorNoDevice");
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_error_bad_device_id)
{
  GstMessage *msg = run_pipeline ("videotestsrc num-buffers=2 ! "
      "pinnedupload device-id=57 ! fakesink", NULL);

  assert_error (msg, "pinnedupload", GST_RESOURCE_ERROR_SETTINGS,
      "device-id", "device-id 57 does not exist");
  gst_message_unref (msg);
}

GST_END_TEST;

/* The CUDA driver allocates megabytes of host memory in the thread that
 * opens a device; an element may open it on the streaming thread, whose
 * malloc arena a source's frames live in (docs/sources.md). Opening runs
 * its CUDA calls on a thread of its own; a device-id of "any" still means
 * the caller's current device; an error still reaches the caller. */
GST_START_TEST (test_device_opens_off_the_calling_thread)
{
  GstPinnedContext *ctx;
  GError *error = NULL;
  guint64 calls;

  if (!pinned_test_is_fake ())
    return;

  calls = pinned_test_thread_call_count ();
  ctx = gst_pinned_context_new (0, NULL);
  fail_unless (ctx != NULL);
  fail_unless_equals_int (gst_pinned_context_get_device_id (ctx), 0);
  fail_unless_equals_int (pinned_test_thread_call_count (), calls);
  gst_object_unref (ctx);

  ctx = gst_pinned_context_new (GST_PINNED_DEVICE_ID_ANY, NULL);
  fail_unless (ctx != NULL);
  fail_unless_equals_int (gst_pinned_context_get_device_id (ctx), 0);
  gst_object_unref (ctx);

  fail_unless (gst_pinned_context_new (57, &error) == NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  g_clear_error (&error);
}

GST_END_TEST;

GST_START_TEST (test_error_device_allocation)
{
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;

  /* Every allocation: a pool whose block fails allocates each buffer. */
  pinned_test_fail ("cudaMalloc", 0, G_MAXINT, cudaErrorMemoryAllocation);
  msg = run_pipeline ("videotestsrc num-buffers=2 ! pinnedupload ! "
      "pinneddownload ! fakesink", NULL);
  pinned_test_reset ();
  assert_error (msg, "pinnedupload", GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      "Could not allocate CUDA device memory", "cudaErrorMemoryAllocation");
  gst_message_unref (msg);
}

GST_END_TEST;

/* A pool whose block cannot be had (device memory too fragmented for one
 * range, say) allocates each buffer: the frames flow. */
GST_START_TEST (test_device_block_falls_back)
{
  GstMessage *msg;
  guint64 before;

  if (!pinned_test_is_fake ())
    return;

  before = pinned_test_call_count ("cudaMalloc");
  pinned_test_fail ("cudaMalloc", 0, 1, cudaErrorMemoryAllocation);
  msg = run_pipeline ("videotestsrc num-buffers=4 ! pinnedupload ! "
      "pinneddownload ! fakesink", NULL);
  pinned_test_reset ();
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  /* The failed block and at least two buffers of their own. */
  fail_unless (pinned_test_call_count ("cudaMalloc") - before >= 3);
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_error_host_allocation)
{
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;

  /* The download's pool is the first page-locked pool to allocate; every
   * allocation fails, its block's and each buffer's. */
  pinned_test_fail ("cudaHostAlloc", 0, G_MAXINT, cudaErrorMemoryAllocation);
  msg = run_pipeline ("videotestsrc num-buffers=2 ! pinnedupload ! "
      "pinneddownload ! fakesink", NULL);
  pinned_test_reset ();
  assert_error (msg, "pinneddownload", GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      "Could not allocate page-locked host memory",
      "cudaErrorMemoryAllocation");
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_error_copy_fails)
{
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;

  pinned_test_fail ("cudaMemcpyAsync", 3, 1, cudaErrorLaunchFailure);
  msg = run_pipeline ("videotestsrc num-buffers=10 ! pinnedupload batch=1 ! "
      "pinneddownload batch=1 ! fakesink", NULL);
  pinned_test_reset ();
  pinned_test_check_error (msg, "Could not", "cudaErrorLaunchFailure", NULL);
  gst_message_unref (msg);
}

GST_END_TEST;

/* The error message @h's elements posted on @bus. */
static GstMessage *
pop_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  fail_unless (msg != NULL, "no error message");
  return msg;
}

static GstBus *
watch_errors (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

/* A copy that fails at its call: the element whose copy it is stops with
 * an element error that names the CUDA error, the upload as well as the
 * download. */
GST_START_TEST (test_error_each_element_reports_its_copy)
{
  const struct
  {
    guint skip;
    const gchar *element, *text;
  } cases[] = {
    {0, "pinnedupload", "Could not upload a frame"},
    {1, "pinneddownload", "Could not download a frame"},
  };
  guint i;

  if (!pinned_test_is_fake ())
    return;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
    GstBus *bus = watch_errors (h);
    GstVideoInfo info;
    GstMessage *msg;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));
    /* Same layout on both sides: each element's copy is one
     * cudaMemcpyAsync, the upload's first. */
    pinned_test_fail ("cudaMemcpyAsync", cases[i].skip, 1,
        cudaErrorLaunchFailure);
    fail_unless_equals_int (gst_harness_push (h, gst_harness_create_buffer (h,
                info.size)), GST_FLOW_ERROR);
    pinned_test_reset ();

    msg = pop_error (bus);
    assert_error (msg, cases[i].element, GST_RESOURCE_ERROR_FAILED,
        cases[i].text, "cudaErrorLaunchFailure");
    gst_message_unref (msg);
    fail_unless (gst_harness_try_pull (h) == NULL, "a frame came out");
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A copy that fails when its stream gets there, after the upload pushed
 * its frame: the frame's download cannot be mapped (no garbage reaches
 * the CPU), and the next frame stops the pipeline with an element error
 * that names the CUDA error. */
GST_START_TEST (test_error_copy_fails_later)
{
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMessage *msg;
  GstMapInfo map;

  if (!pinned_test_is_fake ())
    return;

  h = new_roundtrip (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  bus = watch_errors (h);
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 1);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (pinned_test_frames_equal (in, out, &info));
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* The upload's copy of the next frame fails when its held-back stream
   * gets there: after the pair has enqueued its work and pushed. */
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 2);
  pinned_test_delay_stream (stream_of (h, "pinnedupload"), DELAY_MS);
  pinned_test_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_if (gst_buffer_map (out, &map, GST_MAP_READ),
      "the download of a frame whose upload failed could be read");
  gst_buffer_unref (out);

  fail_unless_equals_int (gst_harness_push (h, gst_harness_create_buffer (h,
              info.size)), GST_FLOW_ERROR);
  msg = pop_error (bus);
  pinned_test_check_error (msg, NULL, "cudaErrorIllegalAddress", NULL);
  gst_message_unref (msg);

  pinned_test_reset ();
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstPinnedContext *
context_of (GstElement * pipeline, const gchar * factory)
{
  return gst_pinned_base_transform_get_context (pinned_test_get_transform
      (pipeline, factory));
}

/* The context of @factory in @pipeline, referenced (stopping clears it). */
static GstPinnedContext *
take_context (GstElement * pipeline, const gchar * factory)
{
  GstPinnedContext *ctx = context_of (pipeline, factory);

  return ctx ? gst_object_ref (ctx) : NULL;
}

/* Stops @pipeline before anything is asserted: a failed test that left it
 * running would hang the process (its threads outlive the test). */
static void
stop_pipeline (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static void
check_shared_device (const gchar * launch, gint device_id)
{
  GstElement *pipeline;
  GstMessage *msg = run_pipeline (launch, &pipeline);
  GstMessageType type = GST_MESSAGE_TYPE (msg);
  GstPinnedContext *up = take_context (pipeline, "pinnedupload");
  GstPinnedContext *down = take_context (pipeline, "pinneddownload");

  stop_pipeline (pipeline);
  gst_message_unref (msg);
  fail_unless_equals_int (type, GST_MESSAGE_EOS);
  fail_unless (up != NULL && up == down, "%s: the pair has two contexts",
      launch);
  fail_unless_equals_int (gst_pinned_context_get_device_id (up), device_id);
  gst_clear_object (&up);
  gst_clear_object (&down);
}

/* One context for the pair, whichever element names the device. */
GST_START_TEST (test_pair_shares_context)
{
  gint n_devices = 0;

  check_shared_device ("videotestsrc num-buffers=3 ! pinnedupload ! "
      "pinneddownload ! fakesink", 0);

  fail_unless_equals_int (cudaGetDeviceCount (&n_devices), cudaSuccess);
  if (n_devices < 2)
    return;
  check_shared_device ("videotestsrc num-buffers=3 ! pinnedupload device-id=1 "
      "! pinneddownload ! fakesink", 1);
  check_shared_device ("videotestsrc num-buffers=3 ! pinnedupload ! "
      "pinneddownload device-id=1 ! fakesink", 1);
}

GST_END_TEST;

/* An application picks the device for the pipeline with a GstContext. */
GST_START_TEST (test_application_context)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "pinnedupload ! pinneddownload ! fakesink", NULL);
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  GstPinnedContext *up, *down;
  GstContext *context;
  GstMessage *msg;
  GstBus *bus;

  fail_unless (ctx != NULL);
  context = gst_context_new_pinned_context (ctx);
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  up = take_context (pipeline, "pinnedupload");
  down = take_context (pipeline, "pinneddownload");
  stop_pipeline (pipeline);
  gst_object_unref (bus);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless (up == ctx);
  fail_unless (down == ctx);
  gst_message_unref (msg);
  gst_clear_object (&up);
  gst_clear_object (&down);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* An element with a device-id takes no context of another device, not
 * even the application's. */
GST_START_TEST (test_device_id_beats_other_context)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "pinnedupload device-id=1 ! fakesink", NULL);
  GstPinnedContext *ctx, *up;
  GstContext *context;
  GstMessage *msg;
  GstBus *bus;
  gint n = 0;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  if (n < 2) {
    gst_object_unref (pipeline);
    return;
  }

  ctx = gst_pinned_context_new (0, NULL);
  context = gst_context_new_pinned_context (ctx);
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  up = take_context (pipeline, "pinnedupload");
  stop_pipeline (pipeline);
  gst_object_unref (bus);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless_equals_int (gst_pinned_context_get_device_id (up), 1);
  gst_message_unref (msg);
  gst_object_unref (up);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* An element without device-id takes its neighbour's context, asked
 * through a CONTEXT query: here the two are linked outside any bin, which
 * would otherwise hand a context around. */
GST_START_TEST (test_context_from_neighbour)
{
  GstElement *up = gst_element_factory_make ("pinnedupload", NULL);
  GstElement *down = gst_element_factory_make ("pinneddownload", NULL);
  GstPad *src = gst_element_get_static_pad (up, "src");
  GstPad *sink = gst_element_get_static_pad (down, "sink");
  gint n = 0;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  g_object_set (down, "device-id", n - 1, NULL);
  fail_unless_equals_int (gst_pad_link (src, sink), GST_PAD_LINK_OK);
  fail_unless_equals_int (gst_element_set_state (down, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (up, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (context_of (up, "pinnedupload") != NULL,
      "the upload did not find its neighbour's context");
  fail_unless (context_of (up, "pinnedupload") == context_of (down,
          "pinneddownload"));

  gst_element_set_state (up, GST_STATE_NULL);
  gst_element_set_state (down, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (down);
}

GST_END_TEST;

/* The context of the element named @name in @pipeline, referenced. */
static GstPinnedContext *
take_context_of (GstElement * pipeline, const gchar * name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPinnedContext *ctx;

  fail_unless (element != NULL);
  ctx = gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
      (element));
  gst_object_unref (element);
  return ctx ? gst_object_ref (ctx) : NULL;
}

/* A context an element opens is announced to the pipeline (HAVE_CONTEXT),
 * which hands it to elements that are not its neighbours: here two
 * branches that share no link, so that no CONTEXT query reaches from one
 * to the other. Without device-id, the first element to open a device
 * (at caps time) creates the context, and every other one, in either
 * branch, runs in it. */
GST_START_TEST (test_context_shared_across_branches)
{
  GstElement *pipeline;
  GstMessage *msg = run_pipeline ("videotestsrc num-buffers=3 ! "
      "pinnedupload name=alone ! identity ! queue ! fakesink "
      "videotestsrc num-buffers=3 ! pinnedupload name=up ! "
      "pinneddownload name=down ! fakesink", &pipeline);
  GstPinnedContext *alone = take_context_of (pipeline, "alone");
  GstPinnedContext *up = take_context_of (pipeline, "up");
  GstPinnedContext *down = take_context_of (pipeline, "down");

  stop_pipeline (pipeline);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  fail_unless (alone != NULL && up != NULL && down != NULL);
  fail_unless (up == down, "the linked pair has two contexts");
  fail_unless (up == alone, "the branches run in two contexts: the one "
      "opened first was not announced to the pipeline");
  gst_message_unref (msg);
  gst_object_unref (alone);
  gst_object_unref (up);
  gst_object_unref (down);
}

GST_END_TEST;

static Suite *
lifecycle_suite (void)
{
  Suite *s = suite_create ("lifecycle");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* A failed test leaves no injected failure or poisoned device behind. */
  tcase_add_checked_fixture (tc, NULL, pinned_test_reset);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_eos_with_copies_in_flight);
  tcase_add_test (tc, test_teardown_with_copies_in_flight);
  tcase_add_test (tc, test_flush_with_copies_in_flight);
  tcase_add_test (tc, test_state_and_caps_changes);
  tcase_add_test (tc, test_error_no_device);
  tcase_add_test (tc, test_error_bad_device_id);
  tcase_add_test (tc, test_device_opens_off_the_calling_thread);
  tcase_add_test (tc, test_error_device_allocation);
  tcase_add_test (tc, test_device_block_falls_back);
  tcase_add_test (tc, test_error_host_allocation);
  tcase_add_test (tc, test_error_copy_fails);
  tcase_add_test (tc, test_error_each_element_reports_its_copy);
  tcase_add_test (tc, test_error_copy_fails_later);
  tcase_add_test (tc, test_pair_shares_context);
  tcase_add_test (tc, test_application_context);
  tcase_add_test (tc, test_device_id_beats_other_context);
  tcase_add_test (tc, test_context_from_neighbour);
  tcase_add_test (tc, test_context_shared_across_branches);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, lifecycle_suite);
}
