/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the elements take: the formats of their pad templates and the order
 * they prefer them in, and buffers that do not fit their caps (smaller
 * than the caps say, or a GstVideoMeta that reaches past the end), which
 * each direction refuses with an element error instead of copying out of
 * bounds or leaving the rest of the frame as it was. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/app/gstappsink.h>
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#endif

#include "pinnedtest.h"

/* @info's caps in gst-pinned device memory. */
/* The formats of a format list in caps, in order. */
static GPtrArray *
formats_of (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  const GValue *list =
      gst_structure_get_value (gst_caps_get_structure (caps, 0), "format");
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  guint i;

  fail_unless (GST_VALUE_HOLDS_LIST (list));
  for (i = 0; i < gst_value_list_get_size (list); i++)
    g_ptr_array_add (names,
        g_strdup (g_value_get_string (gst_value_list_get_value (list, i))));
  gst_caps_unref (caps);

  return names;
}

static gboolean
has_format (GPtrArray * names, const gchar * name)
{
  guint i;

  for (i = 0; i < names->len; i++) {
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return TRUE;
  }
  return FALSE;
}

/* The format list of the pad template's structure with @feature. */
static GPtrArray *
template_formats (const gchar * factory, const gchar * pad,
    const gchar * feature)
{
  GstElement *element = gst_element_factory_make (factory, NULL);
  GstPadTemplate *templ;
  GstCaps *caps;
  GPtrArray *names = NULL;
  guint i;

  fail_unless (element != NULL);
  templ = gst_element_get_pad_template (element, pad);
  caps = gst_pad_template_get_caps (templ);
  for (i = 0; i < gst_caps_get_size (caps) && names == NULL; i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCaps *one;
    gchar *str;

    if (!gst_caps_features_contains (f, feature))
      continue;
    one = gst_caps_new_full (gst_structure_copy (s), NULL);
    str = gst_caps_to_string (one);
    names = formats_of (str);
    g_free (str);
    gst_caps_unref (one);
  }
  fail_unless (names != NULL, "%s %s: no %s caps", factory, pad, feature);
  gst_caps_unref (caps);
  gst_object_unref (gst_object_ref_sink (element));

  return names;
}

static void
assert_same_list (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  guint i;

  fail_unless_equals_int (a->len, b->len);
  for (i = 0; i < a->len; i++)
    fail_unless_equals_string (g_ptr_array_index (a, i),
        g_ptr_array_index (b, i));
  GST_INFO ("%s: %u formats, as listed", what, a->len);
}

/* The templates are made of GST_PINNED_VIDEO_FORMATS, in its order: the
 * list the roundtrip suite tests format by format. */
GST_START_TEST (test_templates_use_the_list)
{
  GPtrArray *list = formats_of (GST_PINNED_VIDEO_CAPS);
  const struct
  {
    const gchar *factory, *pad, *feature;
  } pads[] = {
    {"pinnedupload", "sink", GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY},
    {"pinnedupload", "sink", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
    {"pinnedupload", "src", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
    {"pinneddownload", "sink", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
    {"pinneddownload", "sink", GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY},
    {"pinneddownload", "src", GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY},
    {"pinnedbusy", "sink", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
    {"pinnedbusy", "src", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pads); i++) {
    GPtrArray *names = template_formats (pads[i].factory, pads[i].pad,
        pads[i].feature);

    assert_same_list (names, list, pads[i].factory);
    g_ptr_array_unref (names);
  }
  g_ptr_array_unref (list);
}

GST_END_TEST;

/* The order: the common formats first, 8-bit YUV (I420 first, as
 * GStreamer's CUDA converter lists them), then 8-bit RGB, then more bits
 * per component, the paletted format last of them; then the rest in the
 * same order, the tiled layouts last. Together every raw format that
 * GstVideoInfo describes, each once. */
static guint
format_rank (const GstVideoFormatInfo * finfo)
{
  /* 0: 8-bit YUV, 1: 8-bit RGB, 2: 8-bit gray, 3: more bits, 4: tiled */
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    return 4;
  if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) > 8)
    return 3;
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo))
    return 2;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo))
    return 1;
  return 0;
}

GST_START_TEST (test_format_order)
{
  GPtrArray *list = formats_of (GST_PINNED_VIDEO_CAPS);
  GPtrArray *all = formats_of (GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL));
  guint i, rank, last_rank = 0, groups = 1, floor;

  fail_unless_equals_string (g_ptr_array_index (list, 0), "I420");
  for (i = 0; i < list->len; i++) {
    const GstVideoFormatInfo *finfo =
        gst_video_format_get_info (gst_video_format_from_string
        (g_ptr_array_index (list, i)));

    if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
      /* the end of the common formats */
      fail_unless_equals_int (groups, 1);
      groups++;
      last_rank = 0;
      continue;
    }
    rank = format_rank (finfo);
    fail_if (groups == 1 && rank == 4, "tiled %s among the common formats",
        GST_VIDEO_FORMAT_INFO_NAME (finfo));
    fail_unless (rank >= last_rank, "%s (%u) after a format of rank %u",
        GST_VIDEO_FORMAT_INFO_NAME (finfo), rank, last_rank);
    last_rank = rank;
  }
  fail_unless_equals_int (groups, 2);

  /* every raw format of GStreamer 1.22, once: newer headers know more
   * (their formats come after 1.22's last), which the elements leave out
   * wherever they were built */
  for (i = 0, floor = 0; i < all->len; i++) {
    if (gst_video_format_from_string (g_ptr_array_index (all, i)) >
        GST_VIDEO_FORMAT_NV12_10BE_8L128)
      continue;
    floor++;
    fail_unless (has_format (list, g_ptr_array_index (all, i)),
        "%s is not taken", (gchar *) g_ptr_array_index (all, i));
  }
  fail_unless_equals_int (list->len, floor);
  g_ptr_array_unref (all);
  g_ptr_array_unref (list);
}

GST_END_TEST;

/* What pinnedconvert takes and makes, and what GstCudaMemory holds, goes
 * up and down: each is in the list. */
GST_START_TEST (test_other_formats_are_listed)
{
  GPtrArray *list = formats_of (GST_PINNED_VIDEO_CAPS);
  GPtrArray *lists[3] = { NULL, };
  guint i, j;

  lists[0] = template_formats ("pinnedconvert", "sink",
      GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
  lists[1] = template_formats ("pinnedconvert", "src",
      GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
#ifdef HAVE_CUDA_INTEROP
  lists[2] = formats_of (GST_PINNED_CUDA_CAPS);
#endif
  for (i = 0; i < G_N_ELEMENTS (lists) && lists[i]; i++) {
    for (j = 0; j < lists[i]->len; j++)
      fail_unless (has_format (list, g_ptr_array_index (lists[i], j)),
          "%s is not in GST_PINNED_VIDEO_FORMATS",
          (gchar *) g_ptr_array_index (lists[i], j));
    g_ptr_array_unref (lists[i]);
  }
  g_ptr_array_unref (list);
}

GST_END_TEST;

/* Bus messages of a pipeline run until EOS or an error; the number of
 * buffers the appsink named "sink" received. */
static GstMessage *
run (const gchar * launch, guint * n_buffers, GstCaps ** sink_caps)
{
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;
  gint64 deadline;
  GstPad *pad;

  fail_unless (pipeline != NULL, "%s", launch);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* The appsink posts EOS once its samples are pulled. */
  *n_buffers = 0;
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  do {
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      (*n_buffers)++;
      gst_sample_unref (sample);
    }
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL || g_get_monotonic_time () < deadline,
        "%s: neither EOS nor an error", launch);
  } while (msg == NULL);
  if (sink_caps) {
    pad = gst_element_get_static_pad (sink, "sink");
    *sink_caps = gst_pad_get_current_caps (pad);
    gst_object_unref (pad);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return msg;
}

/* Without caps in between, the pair negotiates its first format. */
GST_START_TEST (test_negotiates_first_format)
{
  GstCaps *caps = NULL;
  GstMessage *msg;
  guint n;

  msg = run ("videotestsrc num-buffers=2 ! pinnedupload ! pinneddownload ! "
      "appsink name=sink sync=false", &n, &caps);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  fail_unless_equals_int (n, 2);
  fail_unless (caps != NULL);
  GST_INFO ("negotiated %" GST_PTR_FORMAT, caps);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "format"), "I420");
  gst_caps_unref (caps);
  gst_message_unref (msg);
}

GST_END_TEST;

static void
assert_format_error (GstMessage * msg, const gchar * factory,
    const gchar * part)
{
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
      error->message, debug);
  fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory
          (GST_ELEMENT (GST_MESSAGE_SRC (msg)))), factory);
  fail_unless (g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", error->message);
  fail_unless (strstr (error->message, part) != NULL, "message: %s",
      error->message);
  g_error_free (error);
  g_free (debug);
}

/* The pipeline: 64x64 frames that capssetter calls 1920x1080, from
 * a source that allocates its own memory. The upload refuses the first
 * and nothing reaches the sink: no frame of stale device memory. */
GST_START_TEST (test_upload_refuses_small_buffer)
{
  GstMessage *msg;
  guint n;

  msg = run ("videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,"
      "height=64 ! identity drop-allocation=true ! capssetter "
      "caps=video/x-raw,width=1920,height=1080 ! pinnedupload ! "
      "pinneddownload ! appsink name=sink sync=false", &n, NULL);
  assert_format_error (msg, "pinnedupload", "the input buffer holds 6144 "
      "bytes, but a 1920x1080 I420 frame of its caps needs 3110400");
  fail_unless_equals_int (n, 0);
  gst_message_unref (msg);
}

GST_END_TEST;

/* The same past the upload: device frames of 64x64 that capssetter calls
 * 1920x1080 reach the download, which refuses them. Its own page-locked
 * buffers would otherwise go out with what they held before. */
GST_START_TEST (test_download_refuses_small_buffer)
{
  GstMessage *msg;
  guint n;

  msg = run ("videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,"
      "height=64 ! pinnedupload ! capssetter caps=video/x-raw,width=1920,"
      "height=1080 ! pinneddownload ! appsink name=sink sync=false", &n, NULL);
  assert_format_error (msg, "pinneddownload", "of the input buffer");
  fail_unless_equals_int (n, 0);
  gst_message_unref (msg);
}

GST_END_TEST;

/* A frame whose GstVideoMeta puts plane @plane past the buffer's end. */
static GstBuffer *
with_bad_meta (GstBuffer * buf, const GstVideoInfo * info, guint plane)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    offset[p] = info->offset[p];
    stride[p] = info->stride[p];
  }
  offset[plane] += 64;
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offset,
      stride);
  return buf;
}

static GstBus *
watch_errors (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

/* A GstVideoMeta whose last plane reaches 64 bytes past the end of the
 * buffer, into the upload: refused, nothing pushed. */
GST_START_TEST (test_upload_refuses_meta_past_end)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstBus *bus = watch_errors (h);
  GstVideoInfo info;
  GstMessage *msg;
  GstBuffer *buf;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));
  buf = with_bad_meta (pinned_test_new_pageable (info.size), &info, 1);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  assert_format_error (msg, "pinnedupload", "plane 1 of the input buffer "
      "ends at byte 115264");
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A tiled frame moves as whole planes of tiles: a GstVideoMeta that only
 * moves a plane comes back bit-exact, packed; one with more tiles a row
 * (padding) would need tiles moved to be packed again: the download says
 * so instead of returning scrambled tiles. */
GST_START_TEST (test_tiles_not_moved)
{
  guint wider;

  for (wider = 0; wider < 2; wider++) {
    GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
    GstBus *bus = watch_errors (h);
    GstVideoInfo info, padded;
    GstVideoMeta *meta;
    GstBuffer *in, *out;
    GstMessage *msg;
    gsize offset[GST_VIDEO_MAX_PLANES];
    gint stride[GST_VIDEO_MAX_PLANES];
    guint p;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12_4L4, 320, 240);
    /* one more tile a row: the layout of a wider frame */
    gst_video_info_set_format (&padded, GST_VIDEO_FORMAT_NV12_4L4,
        wider ? 324 : 320, 240);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));

    in = pinned_test_new_pageable (padded.size + 4096);
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      offset[p] = padded.offset[p] + (p ? 4096 : 0);
      stride[p] = padded.stride[p];
    }
    meta = gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12_4L4, 320, 240, 2, offset, stride);
    fail_unless (meta != NULL);
    pinned_test_fill_frame (in, &info, 7 + wider);

    if (!wider) {
      out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (gst_buffer_get_video_meta (out) == NULL);
      fail_unless_equals_int (gst_buffer_get_size (out), info.size);
      fail_unless (pinned_test_frames_equal (in, out, &info));
      gst_buffer_unref (out);
    } else {
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_ERROR);
      fail_unless_equals_int (gst_harness_buffers_received (h), 0);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (msg != NULL);
      assert_format_error (msg, "pinneddownload", "cannot change the tiles "
          "of plane 0 of tiled format NV12_4L4");
      gst_message_unref (msg);
    }

    gst_buffer_unref (in);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The same for a device frame into the download, and for a device frame
 * smaller than its caps. */
GST_START_TEST (test_download_refuses_device_frame_that_does_not_fit)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 320, 240);

  for (i = 0; i < 2; i++) {
    GstHarness *h = gst_harness_new ("pinneddownload");
    GstBus *bus = watch_errors (h);
    GstMessage *msg;
    GstBuffer *buf;

    gst_harness_set_caps (h,
        pinned_test_device_caps (&info), gst_video_info_to_caps (&info));
    if (i == 0)
      buf = with_bad_meta (gst_buffer_new_allocate (d.device, info.size,
              NULL), &info, 2);
    else
      buf = gst_buffer_new_allocate (d.device, info.size / 2, NULL);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);

    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    assert_format_error (msg, "pinneddownload", i == 0 ?
        "plane 2 of the input buffer ends at byte 115264" :
        "the input buffer holds 57600 bytes, but a 320x240 I420 frame of its "
        "caps needs 115200");
    gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A GPU filter gets no frame mapped past its buffer: an error, not a
 * kernel on pointers out of bounds. */
GST_START_TEST (test_filter_refuses_device_frame_that_does_not_fit)
{
  PinnedTestDevice d;
  GstHarness *h = gst_harness_new ("pinnedbusy");
  GstBus *bus = watch_errors (h);
  GstVideoInfo info;
  GstMessage *msg;
  GstCaps *caps;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  caps = pinned_test_device_caps (&info);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  g_object_set (h->element, "busy-us", 0, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate
          (d.device, info.size - 1, NULL)), GST_FLOW_ERROR);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  assert_format_error (msg, "pinnedbusy", "the input buffer holds 12287 "
      "bytes, but a 64x48 RGBA frame of its caps needs 12288");
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A GstVideoMeta with the layout the caps give (offsets and strides as
 * GstVideoInfo computes them) on a buffer shorter than the frame: the
 * meta says nothing new about where the planes lie, but the buffer is
 * still too short. Each element refuses it as it refuses a short buffer
 * without meta, instead of reading past its end or leaving the rest of
 * the frame as the output buffer held it. */
GST_START_TEST (test_refuses_short_buffer_with_default_meta)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 320, 240);

  for (i = 0; i < 3; i++) {
    const gchar *factory = i == 0 ? "pinnedupload" : i == 1 ?
        "pinneddownload" : "pinnedbusy";
    GstHarness *h = gst_harness_new (factory);
    GstBus *bus = watch_errors (h);
    GstVideoMeta *meta;
    GstMessage *msg;
    GstBuffer *buf;
    guint p;

    if (i == 0) {
      gst_harness_set_caps (h, gst_video_info_to_caps (&info),
          pinned_test_device_caps (&info));
      buf = pinned_test_new_pageable (info.size - 64);
    } else {
      gst_harness_set_caps (h, pinned_test_device_caps (&info), i == 1 ?
          gst_video_info_to_caps (&info) : pinned_test_device_caps (&info));
      if (i == 2)
        g_object_set (h->element, "busy-us", 0, NULL);
      buf = gst_buffer_new_allocate (d.device, info.size - 64, NULL);
    }
    meta = gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_I420, 320, 240);
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      fail_unless (meta->offset[p] == info.offset[p] &&
          meta->stride[p] == info.stride[p],
          "plane %u of the meta is not the caps' layout", p);
    }

    fail_unless (gst_harness_push (h, buf) == GST_FLOW_ERROR,
        "%s took a buffer 64 bytes short of its frame, whose GstVideoMeta "
        "has the caps' layout", factory);
    fail_unless (gst_harness_buffers_received (h) == 0,
        "%s pushed a frame from a buffer 64 bytes short of it", factory);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s posted no error", factory);
    assert_format_error (msg, factory, "plane 2 of the input buffer ends at "
        "byte 115200");
    gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("formats");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_templates_use_the_list);
  tcase_add_test (tc, test_format_order);
  tcase_add_test (tc, test_other_formats_are_listed);
  tcase_add_test (tc, test_negotiates_first_format);
  tcase_add_test (tc, test_upload_refuses_small_buffer);
  tcase_add_test (tc, test_download_refuses_small_buffer);
  tcase_add_test (tc, test_upload_refuses_meta_past_end);
  tcase_add_test (tc, test_download_refuses_device_frame_that_does_not_fit);
  tcase_add_test (tc, test_filter_refuses_device_frame_that_does_not_fit);
  tcase_add_test (tc, test_refuses_short_buffer_with_default_meta);
  tcase_add_test (tc, test_tiles_not_moved);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, formats_suite);
}
