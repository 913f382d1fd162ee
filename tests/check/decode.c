/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GPU only (NVDEC): the committed H.264 clip (tests/media, 320x240, 30
 * frames, constrained baseline) decoded on the GPU by nvh264dec and by
 * nvh264sldec into CUDA memory and downloaded by pinneddownload is
 * bit-exact against the CPU decode of openh264dec (H.264 decoding is
 * exact); nvh264dec ! pinnedconvert ! pinneddownload is bit-exact against
 * the CPU reference conversion of the CPU decode. */

#include <string.h>
#include <gst/app/gstappsink.h>
#include "pinnedtest.h"
#include "convertref.h"

#define FRAMES 30

static gchar *
clip_path (void)
{
  const gchar *dir = g_getenv ("GST_PINNED_TEST_MEDIA");

  fail_unless (dir != NULL, "GST_PINNED_TEST_MEDIA is not set");
  return g_build_filename (dir, "h264-320x240.h264", NULL);
}

/* Every frame of @tail (after the parsed clip) from an appsink. */
static GPtrArray *
decode (const gchar * tail, GstVideoInfo * info)
{
  gchar *clip = clip_path ();
  gchar *launch = g_strdup_printf ("filesrc location=%s ! h264parse ! %s ! "
      "appsink name=sink sync=false", clip, tail);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *sink;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *sample;
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s: %s", launch, error ? error->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    if (frames->len == 0)
      fail_unless (gst_video_info_from_caps (info,
              gst_sample_get_caps (sample)));
    g_ptr_array_add (frames, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: %s (%s)", launch, error->message, debug);
  }
  gst_object_unref (bus);
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "%s: no EOS", launch);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (launch);
  g_free (clip);
  return frames;
}

/* NV12 from the GPU against I420 from the CPU: the same samples. */
static gboolean
nv12_equals_i420 (GstBuffer * nv12, const GstVideoInfo * nv12_info,
    GstBuffer * i420, const GstVideoInfo * i420_info, guint index)
{
  GstVideoFrame a, b;
  gboolean equal = TRUE;
  gint x, y, w = GST_VIDEO_INFO_WIDTH (nv12_info);
  gint h = GST_VIDEO_INFO_HEIGHT (nv12_info);

  fail_unless (gst_video_frame_map (&a, nv12_info, nv12, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, i420_info, i420, GST_MAP_READ));
  for (y = 0; y < h && equal; y++) {
    const guint8 *ya = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0);
    const guint8 *yb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0);

    if (memcmp (ya, yb, w) != 0) {
      GST_WARNING ("frame %u: luma row %d differs", index, y);
      equal = FALSE;
    }
  }
  for (y = 0; y < (h + 1) / 2 && equal; y++) {
    const guint8 *uv = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 1);
    const guint8 *u = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 1);
    const guint8 *v = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 2) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 2);

    for (x = 0; x < (w + 1) / 2 && equal; x++) {
      if (uv[2 * x] != u[x] || uv[2 * x + 1] != v[x]) {
        GST_WARNING ("frame %u: chroma (%d, %d) differs", index, x, y);
        equal = FALSE;
      }
    }
  }
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
  return equal;
}

static void
check_gpu_decoder (const gchar * decoder)
{
  GstVideoInfo cpu_info, gpu_info;
  GPtrArray *cpu, *gpu;
  gchar *tail;
  guint i;

  if (gst_element_factory_find (decoder) == NULL) {
    g_print ("no %s: not checked\n", decoder);
    return;
  }
  cpu = decode ("openh264dec ! video/x-raw,format=I420", &cpu_info);
  tail = g_strdup_printf ("%s ! video/x-raw(memory:CUDAMemory) ! "
      "pinneddownload ! video/x-raw,format=NV12", decoder);
  gpu = decode (tail, &gpu_info);

  fail_unless_equals_int (cpu->len, FRAMES);
  fail_unless_equals_int (gpu->len, FRAMES);
  for (i = 0; i < FRAMES; i++)
    fail_unless (nv12_equals_i420 (g_ptr_array_index (gpu, i), &gpu_info,
            g_ptr_array_index (cpu, i), &cpu_info, i),
        "%s ! pinneddownload: frame %u differs from openh264dec's", decoder, i);
  g_print ("%s ! pinneddownload: %u frames bit-exact with openh264dec\n",
      decoder, FRAMES);

  g_ptr_array_unref (cpu);
  g_ptr_array_unref (gpu);
  g_free (tail);
}

GST_START_TEST (test_nvh264dec_bit_exact)
{
  check_gpu_decoder ("nvh264dec");
}

GST_END_TEST;

GST_START_TEST (test_nvh264sldec_bit_exact)
{
  check_gpu_decoder ("nvh264sldec");
}

GST_END_TEST;

/* ---- pinnedconvert on the decoder's CUDA memory ----------------------- */

GST_START_TEST (test_nvh264dec_convert_matches_reference)
{
  GstVideoInfo cpu_info, nv12_info, rgba_info, in_info;
  GPtrArray *cpu, *nv12, *rgba;
  guint i;

  cpu = decode ("openh264dec ! video/x-raw,format=I420", &cpu_info);
  /* The colorimetry pinnedconvert reads: that of the decoder's output. */
  nv12 = decode ("nvh264dec ! video/x-raw(memory:CUDAMemory) ! "
      "pinneddownload ! video/x-raw,format=NV12", &nv12_info);
  rgba = decode ("nvh264dec ! video/x-raw(memory:CUDAMemory) ! "
      "pinnedconvert ! video/x-raw(memory:PinnedDevice),format=RGBA ! "
      "pinneddownload", &rgba_info);
  in_info = cpu_info;
  in_info.colorimetry = nv12_info.colorimetry;

  fail_unless_equals_int (rgba->len, FRAMES);
  for (i = 0; i < FRAMES; i++) {
    GstBuffer *expect = pinned_test_reference_convert (g_ptr_array_index (cpu,
            i), &in_info, &rgba_info);

    fail_unless (pinned_test_frames_equal (expect, g_ptr_array_index (rgba,
                i), &rgba_info),
        "nvh264dec ! pinnedconvert: frame %u differs from the CPU reference",
        i);
    gst_buffer_unref (expect);
  }
  g_print ("nvh264dec ! pinnedconvert ! pinneddownload: %u RGBA frames "
      "bit-exact with the CPU reference\n", FRAMES);

  g_ptr_array_unref (cpu);
  g_ptr_array_unref (nv12);
  g_ptr_array_unref (rgba);
}

GST_END_TEST;

static Suite *
decode_suite (void)
{
  Suite *s = suite_create ("decode");
  TCase *tc = tcase_create ("decode");
  const gchar *need[] = { "nvh264dec", "openh264dec", "h264parse" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (need); i++) {
    if (gst_element_factory_find (need[i]) == NULL) {
      g_print ("SKIP: no %s\n", need[i]);
      exit (PINNED_TEST_SKIP);
    }
  }

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nvh264dec_bit_exact);
  tcase_add_test (tc, test_nvh264sldec_bit_exact);
  tcase_add_test (tc, test_nvh264dec_convert_matches_reference);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, decode_suite);
}
