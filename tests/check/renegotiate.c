/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Renegotiation: a stream whose format and size change every few frames,
 * from 33x17 to 4K, goes through the elements without a refusal, every
 * frame bit-exact and in its own caps: behind a tee (beside a plain
 * branch) and without one, batched and frame by frame, with a GPU filter
 * between, into CUDA memory. Each case runs its control first (identity in
 * place of ours), which must pass too. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pinnedtest.h"

#define FRAMES_PER_CAPS 15

/* All of them GstCudaMemory can hold too. */
static const gchar *formats[] = {
  "I420", "NV12", "RGBA", "YUY2", "P010_10LE", "BGRx", "UYVY", "Y444",
};

typedef struct
{
  gint width, height;
} Size;

/* The sizes users run on a GPU; smaller ones on the stand-in, whose copies
 * are the CPU's. */
static const Size gpu_sizes[] = {
  {33, 17}, {1920, 1080}, {640, 480}, {3840, 2160}, {1279, 719}, {2, 2},
}, fake_sizes[] = {
  {33, 17}, {320, 240}, {64, 48}, {641, 361}, {127, 73}, {2, 2},
};

#define N_SIZES G_N_ELEMENTS (gpu_sizes)

typedef struct
{
  GstElement *capsfilter;
  guint frames, changes, n_caps;
} Changer;

static GstCaps *
caps_number (guint i)
{
  guint f = i % G_N_ELEMENTS (formats), round = i / G_N_ELEMENTS (formats);
  const Size *size = &(pinned_test_is_fake ()? fake_sizes : gpu_sizes)
      [(round + f) % N_SIZES];

  /* The format changes each time, the size nearly each time; 48 changes
   * make every pair of format and size. */
  return gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, formats[f],
      "width", G_TYPE_INT, size->width, "height", G_TYPE_INT, size->height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

/* Every FRAMES_PER_CAPS frames out of the source, the capsfilter gets the
 * next caps: the source renegotiates before its next frame, while the
 * branches still work on the frames before. */
static GstPadProbeReturn
change_caps (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Changer *changer = data;

  if (++changer->frames % FRAMES_PER_CAPS == 0 &&
      changer->changes + 1 < changer->n_caps) {
    GstCaps *caps = caps_number (++changer->changes);

    g_object_set (changer->capsfilter, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

/* @pair goes where the elements under test go, in a pipeline whose source
 * changes caps every FRAMES_PER_CAPS frames; with @tee, beside a plain
 * branch whose frames are the reference. */
static void
run_case (const gchar * pair, gboolean tee, guint n_caps)
{
  GstCaps *caps = caps_number (0);
  gchar *caps_str = gst_caps_to_string (caps);
  guint expected = n_caps * FRAMES_PER_CAPS;
  gchar *launch;
  GstElement *pipeline, *src;
  Changer changer = { NULL, 0, 0, n_caps };
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;

  if (tee)
    launch =
        g_strdup_printf ("videotestsrc name=src num-buffers=%u pattern=ball ! "
        "capsfilter name=cf caps=\"%s\" ! tee name=t "
        "t. ! queue ! appsink name=ref sync=false "
        "t. ! queue ! %s ! appsink name=out sync=false", expected, caps_str,
        pair);
  else
    launch =
        g_strdup_printf ("videotestsrc name=src num-buffers=%u pattern=ball ! "
        "capsfilter name=cf caps=\"%s\" ! %s ! appsink name=out sync=false",
        expected, caps_str, pair);
  pipeline = gst_parse_launch (launch, NULL);
  fail_unless (pipeline != NULL, "%s", launch);

  changer.capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, change_caps, &changer,
      NULL);
  gst_object_unref (pad);

  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* pixels: every frame up to 4 MiB, of larger ones every fifth */
  fail_unless_equals_int (pinned_test_pull_branches (pipeline, 4 << 20,
          launch), expected);

  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: %s (%s)", launch, error->message, debug);
  }
  gst_message_unref (msg);
  fail_unless_equals_int (changer.changes + 1, n_caps);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (changer.capsfilter);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_free (caps_str);
  g_free (launch);
}

/* Each case after its control, which must pass the same way. */
static void
run_with_control (const gchar * pair, gboolean tee)
{
  /* every format with every size on a GPU; fewer under memcheck */
  guint n_caps = pinned_test_ms (1) > 1 ? 8 : G_N_ELEMENTS (formats) * N_SIZES;

  run_case ("identity ! identity", tee, n_caps);
  run_case (pair, tee, n_caps);
}

GST_START_TEST (test_tee_batched)
{
  run_with_control ("pinnedupload ! pinneddownload", TRUE);
}

GST_END_TEST;

GST_START_TEST (test_tee_frame_by_frame)
{
  run_with_control ("pinnedupload batch=1 ! pinneddownload batch=1", TRUE);
}

GST_END_TEST;

GST_START_TEST (test_tee_filter_between)
{
  run_with_control ("pinnedupload ! pinnedbusy busy-us=200 ! pinneddownload",
      TRUE);
}

GST_END_TEST;

GST_START_TEST (test_no_tee)
{
  run_with_control ("pinnedupload ! pinneddownload", FALSE);
}

GST_END_TEST;

#ifdef HAVE_CUDA_INTEROP
GST_START_TEST (test_tee_cuda_memory)
{
  run_with_control ("pinnedupload ! video/x-raw(memory:CUDAMemory) ! "
      "pinneddownload", TRUE);
}

GST_END_TEST;
#endif

static Suite *
renegotiate_suite (void)
{
  Suite *s = suite_create ("renegotiate");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_tee_batched);
  tcase_add_test (tc, test_tee_frame_by_frame);
  tcase_add_test (tc, test_tee_filter_between);
  tcase_add_test (tc, test_no_tee);
#ifdef HAVE_CUDA_INTEROP
  tcase_add_test (tc, test_tee_cuda_memory);
#endif

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, renegotiate_suite);
}
