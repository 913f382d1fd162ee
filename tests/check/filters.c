/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The shipped GPU filters and their base class.
 *
 * pinnedconvert's output is checked bit for bit against a CPU reference
 * (the fixed-point function of kernels/convert.h, with coefficients derived
 * here from Kr and Kb), and against GStreamer's own videoconvert on flat
 * colours, which checks the matrices independently. On the stand-in
 * runtime the kernels run as CPU emulations registered below: that checks
 * what the elements hand their kernels (pointers, pitches, channels,
 * coefficients) and their fences; on a GPU the real kernels run. */

#include <glib/gstdio.h>
#include <string.h>
#include <gst/app/gstappsink.h>
#include "pinnedtest.h"
#include <cuda_runtime_api.h>
#include "convertref.h"
#include "kernelemu.h"

static const gchar *in_formats[] = { "NV12", "NV21", "I420", "YV12" };

static const gchar *out_formats[] = { "RGBA", "BGRx", "ARGB", "xBGR", "RGBP",
  "BGRP"
};

static const gchar *colorimetries[] = { "bt601", "bt709", "bt2020",
  "1:4:7:1"                     /* full range BT.601 (jpeg) */
};

/* ---- tests ------------------------------------------------------------ */

static void
check_convert (const gchar * in_format, const gchar * out_format,
    const gchar * colorimetry, gint width, gint height)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinnedconvert ! "
      "pinneddownload");
  gchar *in_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "colorimetry=%s,framerate=30/1", in_format, width, height, colorimetry);
  gchar *out_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", out_format, width, height);
  GstCaps *in_caps = gst_caps_from_string (in_str);
  GstCaps *out_caps = gst_caps_from_string (out_str);
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out, *expect;

  fail_unless (gst_video_info_from_caps (&in_info, in_caps));
  fail_unless (gst_video_info_from_caps (&out_info, out_caps));
  gst_harness_set_caps (h, in_caps, out_caps);

  in = gst_harness_create_buffer (h, in_info.size);
  pinned_test_fill_frame (in, &in_info, width * 7 + height);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s -> %s: no output", in_str, out_format);
  expect = pinned_test_reference_convert (in, &in_info, &out_info);
  fail_unless (pinned_test_frames_equal (expect, out, &out_info),
      "%s -> %s differs from the reference", in_str, out_format);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_buffer_unref (expect);
  g_free (in_str);
  g_free (out_str);
  gst_harness_teardown (h);
}

GST_START_TEST (test_convert_matches_reference)
{
  guint i, o, c;

  for (i = 0; i < G_N_ELEMENTS (in_formats); i++)
    for (o = 0; o < G_N_ELEMENTS (out_formats); o++)
      for (c = 0; c < G_N_ELEMENTS (colorimetries); c++) {
        check_convert (in_formats[i], out_formats[o], colorimetries[c], 64, 48);
        check_convert (in_formats[i], out_formats[o], colorimetries[c], 317,
            239);
      }
}

GST_END_TEST;

static GstBuffer *
pull_one (const gchar * launch)
{
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstSample *sample;
  GstBuffer *buf;

  fail_unless (pipeline && sink);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL, "%s: no frame", launch);
  buf = gst_buffer_ref (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return buf;
}

/* The largest difference between pinnedconvert and videoconvert for a
 * flat colour, pinnedconvert reading the input as @ours, videoconvert as
 * @ref. */
static gint
max_difference (guint32 colour, const gchar * ours, const gchar * ref)
{
  gchar *src_fmt = g_strdup_printf ("videotestsrc num-buffers=1 "
      "pattern=solid-color foreground-color=0x%08x ! video/x-raw,"
      "format=NV12,width=64,height=32,colorimetry=%%s", colour);
  gchar *src_ours = g_strdup_printf (src_fmt, ours);
  gchar *src_ref = g_strdup_printf (src_fmt, ref);
  gchar *ref_launch = g_strdup_printf ("%s ! videoconvert ! video/x-raw,"
      "format=RGBA ! appsink name=sink", src_ref);
  gchar *ours_launch = g_strdup_printf ("%s ! pinnedupload ! pinnedconvert ! "
      "video/x-raw(memory:PinnedDevice),format=RGBA ! pinneddownload ! "
      "appsink name=sink", src_ours);
  GstBuffer *a = pull_one (ref_launch), *b = pull_one (ours_launch);
  GstMapInfo ma, mb;
  gint diff = 0;
  guint i;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_int (ma.size, mb.size);
  for (i = 0; i < ma.size; i++)
    diff = MAX (diff, ABS ((gint) ma.data[i] - (gint) mb.data[i]));
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  g_free (src_fmt);
  g_free (src_ours);
  g_free (src_ref);
  g_free (ref_launch);
  g_free (ours_launch);

  return diff;
}

/* An independent check of the matrices and ranges: GStreamer's videoconvert
 * and pinnedconvert agree on flat colours within videoconvert's rounding
 * (its fixed-point fast path lands up to 5 levels off: white at 253, grey
 * 0x80 at 126, where pinnedconvert gives 255 and 128). A wrong matrix is
 * further off than that, as the control at the end shows. */
#define VIDEOCONVERT_TOLERANCE 6

static const guint32 flat_colours[] = { 0xffff0000, 0xff00ff00, 0xff0000ff,
  0xff808080, 0xff3080c0, 0xffffffff, 0xff000000, 0xffc04020
};

/* Like max_difference() for BT.709, but pinnedconvert gets the frame
 * labelled BT.601. */
static gint
mislabelled_difference (guint32 colour)
{
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=1 "
      "pattern=solid-color foreground-color=0x%08x ! video/x-raw,format=NV12,"
      "width=64,height=32,colorimetry=bt709", colour);
  gchar *yuv_launch = g_strdup_printf ("%s ! appsink name=sink", src);
  gchar *ref_launch = g_strdup_printf ("%s ! videoconvert ! video/x-raw,"
      "format=RGBA ! appsink name=sink", src);
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinnedconvert ! "
      "pinneddownload");
  GstBuffer *yuv = pull_one (yuv_launch), *ref = pull_one (ref_launch), *out;
  GstMapInfo ma, mb;
  gint diff = 0;
  guint i;

  gst_harness_set_caps_str (h, "video/x-raw,format=NV12,width=64,height=32,"
      "colorimetry=bt601,framerate=30/1", "video/x-raw,format=RGBA,width=64,"
      "height=32,framerate=30/1");
  out = gst_harness_push_and_pull (h, gst_buffer_copy_deep (yuv));
  fail_unless (gst_buffer_map (ref, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &mb, GST_MAP_READ));
  for (i = 0; i < MIN (ma.size, mb.size); i++)
    diff = MAX (diff, ABS ((gint) ma.data[i] - (gint) mb.data[i]));
  gst_buffer_unmap (ref, &ma);
  gst_buffer_unmap (out, &mb);

  gst_buffer_unref (yuv);
  gst_buffer_unref (ref);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (src);
  g_free (yuv_launch);
  g_free (ref_launch);
  return diff;
}

GST_START_TEST (test_convert_agrees_with_videoconvert)
{
  gint wrong = 0;
  guint c, m;

  for (m = 0; m < G_N_ELEMENTS (colorimetries); m++) {
    for (c = 0; c < G_N_ELEMENTS (flat_colours); c++) {
      gint diff = max_difference (flat_colours[c], colorimetries[m],
          colorimetries[m]);

      fail_unless (diff <= VIDEOCONVERT_TOLERANCE, "%s, colour 0x%08x: %d "
          "levels from videoconvert", colorimetries[m], flat_colours[c], diff);
    }
  }

  /* Control: BT.709 frames that pinnedconvert is told are BT.601. */
  for (c = 0; c < G_N_ELEMENTS (flat_colours); c++)
    wrong = MAX (wrong, mislabelled_difference (flat_colours[c]));
  fail_unless (wrong > VIDEOCONVERT_TOLERANCE, "a wrong matrix stays within "
      "the tolerance (%d): the check cannot see it", wrong);
}

GST_END_TEST;

GST_START_TEST (test_convert_needs_device_memory)
{
  GstHarness *h = gst_harness_new ("pinnedconvert");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,"
      "height=48,framerate=30/1");

  /* system memory in: the caps are refused */
  fail_if (gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The busy filter works in place, once per frame, leaves the frame as it
 * is, and the download after it waits for its kernel on the GPU, not the
 * host. */
GST_START_TEST (test_busy_in_place_and_ordered)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "pinnedbusy busy-us=200000 ! pinneddownload");
  guint64 launches = pinned_test_call_count ("launch:pinned_busy_kernel");
  GstVideoInfo info;
  GstBuffer *in[3], *out[3];
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 40 + i);
    out[i] = gst_harness_push_and_pull (h, gst_buffer_ref (in[i]));
  }
  /* Pushed while the kernels (0.6 s in all) still run. */
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out[G_N_ELEMENTS (in) - 1],
            GST_MAP_READ));
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    fail_unless (pinned_test_frames_equal (in[i], out[i], &info));
    gst_buffer_unref (in[i]);
    gst_buffer_unref (out[i]);
  }
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count
        ("launch:pinned_busy_kernel") - launches, G_N_ELEMENTS (in));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* With shared-stream, the three elements use one stream. */
GST_START_TEST (test_shared_stream)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload shared-stream=true ! "
      "pinnedbusy busy-us=10 shared-stream=true ! pinneddownload "
      "shared-stream=true");
  GstVideoInfo info;
  GstBuffer *in, *out;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 64);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 5);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (pinned_test_frames_equal (in, out, &info));
  fail_unless (gst_pinned_base_transform_get_stream (pinned_test_get_transform
          (h->element, "pinnedupload")) ==
      gst_pinned_base_transform_get_stream (pinned_test_get_transform
          (h->element, "pinneddownload")));
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static guint
count (const gchar * haystack, const gchar * needle)
{
  guint n = 0;

  while ((haystack = strstr (haystack, needle))) {
    n++;
    haystack += strlen (needle);
  }
  return n;
}

/* The GPU timeline: one track per element, one span per element and
 * frame, written when the timeline stops. */
GST_START_TEST (test_timeline)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "pinned-timeline.json",
      NULL);
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinnedbusy "
      "busy-us=100 ! pinneddownload");
  GstPinnedContext *ctx;
  GstPinnedStream *stream;
  GstVideoInfo info;
  gchar *json = NULL;
  guint i;

  fail_unless (gst_pinned_timeline_start (path, 0));
  fail_if (gst_pinned_timeline_start (path, 0), "a second timeline started");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 64);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  for (i = 0; i < 5; i++) {
    GstBuffer *in = gst_harness_create_buffer (h, info.size);

    gst_buffer_unref (gst_harness_push_and_pull (h, in));
  }
  gst_harness_teardown (h);
  fail_unless (gst_pinned_timeline_stop ());

  fail_unless (g_file_get_contents (path, &json, NULL, NULL));
  fail_unless_equals_int (count (json, "\"thread_name\""), 3);
  fail_unless_equals_int (count (json, "\"ph\": \"X\""), 15);
  fail_unless_equals_int (count (json, "\"H2D copy\""), 5);
  fail_unless_equals_int (count (json, "\"kernel\""), 5);
  fail_unless_equals_int (count (json, "\"D2H copy\""), 5);
  /* Stopped: no more spans. */
  ctx = gst_pinned_context_new (0, NULL);
  stream = gst_pinned_stream_new (ctx, NULL);
  fail_unless (gst_pinned_timeline_begin (stream, "x", "y") == NULL);
  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);

  g_free (json);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* Device memory holding @ref's frame @AT_OFFSET bytes into its
 * allocation, between bytes of 0xee (as many after as a frame at twice
 * the offset needs: a pointer with the offset counted twice reads them,
 * not another allocation): a region of a buffer
 * (gst_buffer_copy_region(), no GstVideoMeta) when @share_of_share is
 * FALSE, else a share of a share (gst_memory_share() twice) with a
 * GstVideoMeta of the caps' layout, which GstVideoFrame maps by range. */
#define AT_OFFSET 4096

static GstBuffer *
device_frame_at_offset (PinnedTestDevice * d, GstBuffer * ref,
    const GstVideoInfo * info, gboolean share_of_share)
{
  GstBuffer *whole = gst_buffer_new_allocate (d->device,
      2 * AT_OFFSET + info->size, NULL);
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless (gst_buffer_map (whole, &map, GST_MAP_WRITE));
  memset (map.data, 0xee, map.size);
  fail_unless_equals_int (gst_buffer_extract (ref, 0, map.data + AT_OFFSET,
          info->size), info->size);
  gst_buffer_unmap (whole, &map);

  if (!share_of_share) {
    buf = gst_buffer_copy_region (whole, GST_BUFFER_COPY_MEMORY, AT_OFFSET,
        info->size);
  } else {
    GstMemory *first = gst_memory_share (gst_buffer_peek_memory (whole, 0),
        AT_OFFSET - 1000, -1);

    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, gst_memory_share (first, 1000, info->size));
    gst_memory_unref (first);
    gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info));
  }
  gst_buffer_unref (whole);
  fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
  fail_unless_equals_int (gst_buffer_peek_memory (buf, 0)->offset, AT_OFFSET);
  return buf;
}

/* A filter's input whose memory starts inside its allocation (a region
 * or share of a buffer, as gst_buffer_copy_region() makes): the kernel
 * gets each plane at the allocation's base + the memory's offset + the
 * plane's offset, never the allocation's start or an offset counted
 * twice. Checked by the output bytes of the test filter (a copy of each
 * plane, then a mark) and of pinnedconvert (against its reference). */
GST_START_TEST (test_filter_input_at_memory_offset)
{
  PinnedTestDevice d;
  GstVideoInfo info, rgba;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_video_info_set_format (&rgba, GST_VIDEO_FORMAT_RGBA, 64, 48);

  for (i = 0; i < 4; i++) {
    gboolean convert = i >= 2, share_of_share = i % 2;
    const gchar *what = share_of_share ? "a share of a share, with meta" :
        "a region";
    GstHarness *h = gst_harness_new (convert ? "pinnedconvert" :
        PINNED_TEST_FILTER);
    GstBuffer *ref, *in, *out, *expect;

    gst_harness_set_caps (h, pinned_test_device_caps (&info),
        pinned_test_device_caps (convert ? &rgba : &info));
    ref = gst_buffer_new_allocate (NULL, info.size, NULL);
    pinned_test_fill_frame (ref, &info, 60 + i);
    in = device_frame_at_offset (&d, ref, &info, share_of_share);

    fail_unless (gst_harness_push (h, in) == GST_FLOW_OK,
        "%s: %s failed on its input", what, convert ? "pinnedconvert" :
        PINNED_TEST_FILTER);
    out = gst_harness_pull (h);
    expect = convert ? pinned_test_reference_convert (ref, &info, &rgba) :
        pinned_test_marked_frame (ref, &info, 0x77);
    fail_unless (pinned_test_frames_equal (expect, out, convert ? &rgba :
            &info), "%s: the output of %s is not its input's frame", what,
        convert ? "pinnedconvert" : PINNED_TEST_FILTER);

    gst_buffer_unref (expect);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);
    gst_harness_teardown (h);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static Suite *
filters_suite (void)
{
  Suite *s = suite_create ("filters");
  TCase *tc = tcase_create ("general");

  pinned_test_emulate_kernels ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_convert_matches_reference);
  tcase_add_test (tc, test_convert_agrees_with_videoconvert);
  tcase_add_test (tc, test_convert_needs_device_memory);
  tcase_add_test (tc, test_busy_in_place_and_ordered);
  tcase_add_test (tc, test_shared_stream);
  tcase_add_test (tc, test_timeline);
  tcase_add_test (tc, test_filter_input_at_memory_offset);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, filters_suite);
}
