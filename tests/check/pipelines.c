/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Real pipelines: videotestsrc writes into the page-locked pool that
 * pinnedupload offers, and videotestsrc ! pinnedupload ! pinneddownload
 * gives the same frames as videotestsrc alone, bit for bit, with and
 * without queues (several streaming threads). */

#include <string.h>
#include <gst/app/gstappsink.h>
#include "pinnedtest.h"

#define N_FRAMES 4

static const gchar *confs[] = {
  "format=I420,width=1279,height=719",
  "format=NV12,width=1920,height=1080",
  "format=RGBA,width=640,height=480",
  /* even: videotestsrc leaves the chroma of an odd last pixel unwritten */
  "format=YUY2,width=334,height=211",
  "format=P010_10LE,width=1280,height=720",
  "format=v210,width=1280,height=720",
  "format=GRAY8,width=799,height=601",
  "format=Y444,width=321,height=243",
  "format=I420_10LE,width=641,height=479",
  "format=BGRx,width=3840,height=2160",
};

static gint pinned_buffers;

static GstPadProbeReturn
count_pinned (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf, 0)))
    g_atomic_int_inc (&pinned_buffers);
  return GST_PAD_PROBE_OK;
}

/* Runs @launch (ending in an appsink named sink) to EOS; returns copies of
 * the frames, mapped (and so waited for) in the appsink's thread. */
static GPtrArray *
run_collect (const gchar * launch, GstVideoInfo * info)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func (
      (GDestroyNotify) gst_buffer_unref);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *sink, *upload;
  GstSample *sample;

  fail_unless (pipeline != NULL, "%s: %s", launch, error ? error->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  upload = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  if (upload) {
    GstPad *pad = gst_element_get_static_pad (upload, "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_pinned, NULL,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (upload);
  }

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMapInfo map;

    fail_unless (gst_video_info_from_caps (info, gst_sample_get_caps (sample)));
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (frames, gst_buffer_new_memdup (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "%s: no EOS", launch);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

static void
compare_pipelines (const gchar * conf, const gchar * pattern,
    gboolean queues, gboolean freeze)
{
  gchar *ref_launch, *pair_launch;
  gchar *src = freeze ?
      g_strdup_printf ("videotestsrc num-buffers=1 pattern=%s ! video/x-raw,%s "
      "! imagefreeze num-buffers=%d", pattern, conf, N_FRAMES) :
      g_strdup_printf ("videotestsrc num-buffers=%d pattern=%s ! "
      "video/x-raw,%s", N_FRAMES, pattern, conf);
  GPtrArray *ref, *pair;
  GstVideoInfo info;
  guint i;

  ref_launch = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  pair_launch = g_strdup_printf ("%s %s ! pinnedupload name=up %s ! "
      "pinneddownload %s ! appsink name=sink sync=false", src,
      queues ? "! queue" : "", queues ? "! queue" : "",
      queues ? "! queue" : "");
  g_free (src);

  g_atomic_int_set (&pinned_buffers, 0);
  ref = run_collect (ref_launch, &info);
  pair = run_collect (pair_launch, &info);

  fail_unless_equals_int (ref->len, N_FRAMES);
  fail_unless_equals_int (pair->len, N_FRAMES);
  /* Pixels, not row padding: videotestsrc never writes that. */
  for (i = 0; i < N_FRAMES; i++)
    fail_unless (pinned_test_frames_equal (g_ptr_array_index (ref, i),
            g_ptr_array_index (pair, i), &info), "%s: frame %u differs",
        pair_launch, i);
  /* The source wrote every frame straight into page-locked memory. */
  fail_unless_equals_int (g_atomic_int_get (&pinned_buffers), N_FRAMES);

  g_ptr_array_unref (ref);
  g_ptr_array_unref (pair);
  g_free (ref_launch);
  g_free (pair_launch);
}

GST_START_TEST (test_pipelines_bit_exact)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (confs); i++)
    compare_pipelines (confs[i], i % 2 ? "ball" : "smpte", FALSE, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_pipelines_with_queues_bit_exact)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (confs); i++)
    compare_pipelines (confs[i], "pinwheel", TRUE, FALSE);
}

GST_END_TEST;

/* imagefreeze forwards its upstream's ALLOCATION query before it has sent
 * caps on: pinnedupload still offers its page-locked pool, and every frame
 * it receives is page-locked. */
GST_START_TEST (test_early_allocation_query_gets_pinned_pool)
{
  compare_pipelines ("format=NV12,width=1280,height=720", "smpte", FALSE, TRUE);
  compare_pipelines ("format=RGBA,width=641,height=479", "ball", TRUE, TRUE);
}

GST_END_TEST;

static Suite *
pipelines_suite (void)
{
  Suite *s = suite_create ("pipelines");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_pipelines_bit_exact);
  tcase_add_test (tc, test_pipelines_with_queues_bit_exact);
  tcase_add_test (tc, test_early_allocation_query_gets_pinned_pool);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, pipelines_suite);
}
