/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What a user can see of a running pipeline: every element's `stats`
 * (buffers, copies, bytes, GPU time of the work per frame, host waits,
 * input that was not in the offered page-locked pool) and pinnedupload's
 * warning, once per caps, that names the upstream element that does not
 * write into its pool. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>

#include "pinnedtest.h"

#define MS (1000 * 1000)

/* ---- helpers -------------------------------------------------------- */

/* @element's `stats`, checked to be gst-pinned's. */
static GstStructure *
stats_of (GstElement * element)
{
  GstStructure *stats = NULL;

  g_object_get (element, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_has_name (stats, "application/x-pinned-stats"));
  return stats;
}

static GstElement *
find (GstHarness * h, const gchar * factory)
{
  return GST_ELEMENT (pinned_test_get_transform (h->element, factory));
}

/* A chain whose frames come from the offered pool (@pooled) or from
 * pageable memory; the last output is mapped (and without a filter,
 * compared), so that every copy is done when this returns. */
static GstHarness *
run_pair (const gchar * launch, const GstVideoInfo * info, guint n,
    gboolean pooled)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *in, *out = NULL;
  guint i;

  gst_harness_set_caps (h, gst_video_info_to_caps (info),
      gst_video_info_to_caps (info));
  for (i = 0; i < n; i++) {
    in = pooled ? gst_harness_create_buffer (h, info->size) :
        pinned_test_new_pageable (info->size);
    fail_unless_equals_int (gst_is_pinned_host_memory (gst_buffer_peek_memory
            (in, 0)), pooled);
    pinned_test_fill_frame (in, info, i);
    gst_clear_buffer (&out);
    out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
    if (i + 1 == n && strstr (launch, PINNED_TEST_FILTER) == NULL)
      fail_unless (pinned_test_frames_equal (in, out, info));
    else if (i + 1 == n)
      fail_unless (!pinned_test_all_bytes (out, 0xAB));
    gst_buffer_unref (in);
  }
  gst_buffer_unref (out);

  return h;
}

/* ---- stats ---------------------------------------------------------- */

/* N frames from the pool: every element counts N buffers, N copies of the
 * frame's bytes, no pageable input; the first frame and every 16th are
 * timed, and on the stand-in each copy takes at least its delay. */
GST_START_TEST (test_stats_after_n_frames)
{
  const guint n = 20;
  GstVideoInfo info;
  GstHarness *h;
  const gchar *names[] = { "pinnedupload", "pinneddownload" };
  guint i;

  pinned_test_set_copy_delay (2);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  h = run_pair ("pinnedupload ! pinneddownload", &info, n, TRUE);
  pinned_test_reset ();

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *el = find (h, names[i]);
    GstStructure *stats = stats_of (el);

    GST_INFO ("%s: %" GST_PTR_FORMAT, names[i], stats);
    gst_structure_free (stats);
    fail_unless_equals_uint64 (pinned_test_stat (el, "buffers"), n);
    fail_unless_equals_uint64 (pinned_test_stat (el, "copies"), n);
    fail_unless_equals_uint64 (pinned_test_stat (el, "bytes"),
        (guint64) n * info.size);
    fail_unless_equals_uint64 (pinned_test_stat (el, "pageable-buffers"), 0);
    fail_unless_equals_uint64 (pinned_test_stat (el, "gpu-samples"), 2);
    if (pinned_test_is_fake ())
      fail_unless (pinned_test_stat (el, "gpu-time-per-frame") >= 2 * MS, "%"
          G_GUINT64_FORMAT " ns", pinned_test_stat (el, "gpu-time-per-frame"));
    else
      fail_unless (pinned_test_stat (el, "gpu-time-per-frame") > 0);
    fail_unless (pinned_test_stat (el, "gpu-time-sampled") >=
        2 * pinned_test_stat (el, "gpu-time-per-frame"));
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames in pageable memory: counted as such in the upload, with the way
 * each memory went, which the pageable-stats detail agrees with. */
GST_START_TEST (test_stats_pageable_input)
{
  const guint n = 6;
  GstVideoInfo info;
  GstHarness *h;
  GstElement *up, *down;
  GstStructure *detail = NULL;
  const gchar *paths[] = { "locked", "registered", "staged", "direct" };
  guint64 sum = 0, v;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  h = run_pair ("pinnedupload ! pinneddownload", &info, n, FALSE);
  up = find (h, "pinnedupload");
  down = find (h, "pinneddownload");

  fail_unless_equals_uint64 (pinned_test_stat (up, "buffers"), n);
  fail_unless_equals_uint64 (pinned_test_stat (up, "pageable-buffers"), n);
  g_object_get (up, "pageable-stats", &detail, NULL);
  fail_unless (detail != NULL);
  for (i = 0; i < G_N_ELEMENTS (paths); i++) {
    fail_unless (gst_structure_get_uint64 (detail, paths[i], &v));
    fail_unless_equals_uint64 (pinned_test_stat (up, paths[i]), v);
    sum += v;
  }
  gst_structure_free (detail);
  /* One memory per frame. */
  fail_unless_equals_uint64 (sum, n);
  detail = stats_of (up);
  fail_unless (gst_structure_has_field (detail, "copy-threads"));
  gst_structure_free (detail);
  /* The download's output is its own pool. */
  fail_unless_equals_uint64 (pinned_test_stat (down, "pageable-buffers"), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* The GPU time is the work's own: the upload's stream held 300 ms before
 * the first frame's copy, which the download's stream waits for on the GPU;
 * neither counts that in its copy's time. */
GST_START_TEST (test_stats_gpu_time_is_the_work)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstElement *up, *down;
  GstVideoInfo info;
  GstBuffer *in, *out;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  up = find (h, "pinnedupload");
  down = find (h, "pinneddownload");
  /* The elements opened their device at caps time: the stream exists. */
  pinned_test_delay_stream (gst_pinned_base_transform_get_stream
      (GST_PINNED_BASE_TRANSFORM (up)), 300);

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 1);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (pinned_test_frames_equal (in, out, &info));

  fail_unless_equals_uint64 (pinned_test_stat (up, "gpu-samples"), 1);
  fail_unless_equals_uint64 (pinned_test_stat (down, "gpu-samples"), 1);
  GST_INFO ("upload %" G_GUINT64_FORMAT " ns, download %" G_GUINT64_FORMAT
      " ns", pinned_test_stat (up, "gpu-time-per-frame"),
      pinned_test_stat (down, "gpu-time-per-frame"));
  fail_unless (pinned_test_stat (up, "gpu-time-per-frame") < 100 * MS);
  fail_unless (pinned_test_stat (down, "gpu-time-per-frame") < 100 * MS);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The statistics, stop and the next timed frame read the GPU time of a
 * frame whose work may still run: they ask the timer's end event first,
 * and never provoke cudaEventElapsedTime's "not ready", which
 * compute-sanitizer reports as an error. Every frame is timed here, so the
 * second frame reads the first's timer. Control: the work was still held
 * when they read it (no sample yet; on the stand-in, the end event
 * answered "not ready" to a question). */
GST_START_TEST (test_stats_read_while_work_runs)
{
  GstHarness *h;
  GstElement *up;
  GstVideoInfo info;
  GstBuffer *in;
  guint i;

  /* Read as the element opens its stream. */
  g_setenv ("GST_PINNED_GPU_TIMING", "1", TRUE);
  h = gst_harness_new_parse ("pinnedupload batch=1");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));
  up = find (h, "pinnedupload");
  pinned_test_delay_stream (gst_pinned_base_transform_get_stream
      (GST_PINNED_BASE_TRANSFORM (up)), pinned_test_ms (300));

  for (i = 0; i < 2; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, i);
    gst_buffer_unref (pinned_test_push_and_pull (h, in));
  }

  fail_unless_equals_uint64 (pinned_test_stat (up, "gpu-samples"), 0);
  gst_harness_teardown (h);
  g_unsetenv ("GST_PINNED_GPU_TIMING");
  if (pinned_test_is_fake ())
    fail_unless (pinned_test_call_count ("cudaEventQuery:not-ready") > 0,
        "no timer was read while its work was held: this test saw nothing");
  fail_unless_equals_uint64 (pinned_test_call_count
      ("cudaEventElapsedTime:not-ready"), 0);
}

GST_END_TEST;

/* Adds a plain system-memory pool to the harness sink's answer. */
static GstPadProbeReturn
offer_system_pool (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;

  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (gst_video_info_from_caps (&vinfo, caps));
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, vinfo.size, 2, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_query_add_allocation_pool (query, pool, vinfo.size, 2, 0);
  gst_object_unref (pool);

  return GST_PAD_PROBE_OK;
}

/* The download's own page-locked buffer comes back while its copy still
 * runs (a sink that drops without mapping): the next copy into it is
 * ordered on the download's stream, and no element waits on the host. A
 * download into downstream's system memory waits for each staged copy,
 * which its stats show; the upload never waits. */
GST_START_TEST (test_stats_host_waits)
{
  GstHarness *h;
  GstElement *up, *down;
  GstVideoInfo info;
  guint i, own;

  if (!pinned_test_is_fake ())
    return;                     /* the copy's length is the stand-in's */

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  for (own = 0; own < 2; own++) {
    h = gst_harness_new_parse (own ?
        "pinnedupload ! pinneddownload pool-size=1" :
        "pinnedupload ! pinneddownload pageable-mode=stage");
    if (!own)
      gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
          GST_PAD_PROBE_TYPE_PULL, offer_system_pool, NULL, NULL);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&info));
    up = find (h, "pinnedupload");
    down = find (h, "pinneddownload");
    pinned_test_set_copy_delay (50);
    for (i = 0; i < 2; i++)
      gst_buffer_unref (pinned_test_push_and_pull (h,
              gst_harness_create_buffer (h, info.size)));
    pinned_test_reset ();

    if (own) {
      fail_unless_equals_uint64 (pinned_test_stat (down, "host-waits"), 0);
      fail_unless_equals_uint64 (pinned_test_stat (down,
              "host-wait-questions"), 0);
      fail_unless_equals_uint64 (pinned_test_stat (down, "host-wait-time"), 0);
    } else {
      guint64 waits = pinned_test_stat (down, "host-waits");
      guint64 questions = pinned_test_stat (down, "host-wait-questions");

      fail_unless (waits >= 1);
      /* A wait of 20 ms or more asks after sleeps of 2, 4, ... 64 us, then
       * a sixteenth of the time so far: more than eight times. */
      fail_unless (questions >= 8 * waits, "%" G_GUINT64_FORMAT " questions "
          "in %" G_GUINT64_FORMAT " waits", questions, waits);
      fail_unless (pinned_test_stat (down, "host-wait-time") >= 20 * MS,
          "%" G_GUINT64_FORMAT " ns", pinned_test_stat (down,
              "host-wait-time"));
    }
    fail_unless_equals_uint64 (pinned_test_stat (up, "host-waits"), 0);
    fail_unless_equals_uint64 (pinned_test_stat (up, "host-wait-questions"), 0);
    fail_unless_equals_uint64 (pinned_test_stat (up, "host-wait-time"), 0);

    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A filter counts its buffers and times its kernel (here a test filter's
 * work that holds its stream 20 ms). */
GST_START_TEST (test_stats_filter)
{
  GstVideoInfo info;
  GstHarness *h;
  GstElement *filter;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 32, 16);
  h = run_pair ("pinnedupload ! " PINNED_TEST_FILTER " delay-ms=20 ! "
      "pinneddownload", &info, 3, TRUE);
  filter = find (h, PINNED_TEST_FILTER);

  fail_unless_equals_uint64 (pinned_test_stat (filter, "buffers"), 3);
  fail_unless_equals_uint64 (pinned_test_stat (filter, "copies"), 0);
  fail_unless_equals_uint64 (pinned_test_stat (filter, "gpu-samples"), 1);
  fail_unless (pinned_test_stat (filter, "gpu-time-per-frame") >= 15 * MS, "%"
      G_GUINT64_FORMAT " ns", pinned_test_stat (filter, "gpu-time-per-frame"));

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Kept after stop, counted from zero again after the next start: after
 * the preroll, the one frame that reached the sink (frames one at a time:
 * a batch would take its four). (Values are asserted once the pipeline is
 * down: a running one left behind would hang the suite's teardown.) */
GST_START_TEST (test_stats_kept_until_restart)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! pinnedupload name=up "
      "batch=1 ! pinneddownload batch=1 ! fakesink", NULL);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  guint64 before, at_eos, stopped, restarted;

  before = pinned_test_stat (up, "buffers");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  at_eos = pinned_test_stat (up, "buffers");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  stopped = pinned_test_stat (up, "buffers");
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND);
  restarted = pinned_test_stat (up, "buffers");
  gst_element_set_state (pipeline, GST_STATE_NULL);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless_equals_uint64 (before, 0);
  fail_unless_equals_uint64 (at_eos, 5);
  fail_unless_equals_uint64 (stopped, 5);
  fail_unless_equals_uint64 (restarted, 1);

  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (up);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static void
count_notify (GObject * object, GParamSpec * pspec, guint * count)
{
  (*count)++;
}

/* Notified at the end of the stream, for `gst-launch-1.0 -v`. */
GST_START_TEST (test_stats_notified_at_eos)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstVideoInfo info;
  guint count = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));
  g_signal_connect (h->element, "notify::stats", G_CALLBACK (count_notify),
      &count);
  gst_buffer_unref (pinned_test_push_and_pull (h, gst_harness_create_buffer (h,
              info.size)));
  fail_unless_equals_int (count, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (count, 1);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the warning ------------------------------------------------------ */

/* What the default log function prints, on stderr, while a test runs:
 * read back from a file (adding a log function of our own would leak the
 * list of log functions it replaces, which GStreamer never frees). */
typedef struct
{
  gint saved;
  gint fd;
  gchar *path;
  gchar *text;
} Log;

static Log the_log = { -1, -1, NULL, NULL };

static void
log_start (Log * log)
{
  fail_unless (log->path == NULL);
  log->fd = g_file_open_tmp ("pinned-stats-XXXXXX.log", &log->path, NULL);
  fail_unless (log->fd >= 0);
  gst_debug_set_threshold_for_name ("pinnedupload", GST_LEVEL_WARNING);
  log->saved = dup (2);
  dup2 (log->fd, 2);
}

/* The warnings so far. */
static const gchar *
log_read (Log * log)
{
  fsync (2);
  g_free (log->text);
  log->text = NULL;
  fail_unless (g_file_get_contents (log->path, &log->text, NULL, NULL));
  return log->text;
}

static void
log_stop (Log * log)
{
  if (log->path == NULL)
    return;
  dup2 (log->saved, 2);
  close (log->saved);
  close (log->fd);
  g_unlink (log->path);
  g_clear_pointer (&log->path, g_free);
  g_clear_pointer (&log->text, g_free);
}

static void
teardown (void)
{
  log_stop (&the_log);
  pinned_test_reset ();
}

#define POOL_WARNING "does not write its frames into the page-locked pool"

/* Warnings that upstream does not write into the offered pool. */
static guint
pool_warnings (Log * log)
{
  const gchar *p = log_read (log);
  guint n = 0;

  while ((p = strstr (p, POOL_WARNING))) {
    n++;
    p++;
  }
  return n;
}

/* The line of the last such warning. */
static gchar *
last_warning (Log * log)
{
  const gchar *text = log_read (log), *p, *last = NULL;

  for (p = text; (p = strstr (p, POOL_WARNING)); p++)
    last = p;
  fail_unless (last != NULL);
  while (last > text && last[-1] != '\n')
    last--;
  return g_strndup (last, strcspn (last, "\n"));
}

/* A source that writes into memory of its own (the ALLOCATION query
 * dropped on the way): one warning for the whole stream, naming the
 * element before the queue, outside the bins, and every frame counted. */
GST_START_TEST (test_warning_names_upstream_once)
{
  GstElement *pipeline, *up;
  GstBus *bus;
  GstMessage *msg;
  Log *log = &the_log;
  gchar *line;
  guint n;

  log_start (log);
  /* Each in a bin of its own: seen through both kinds of ghost pad. */
  pipeline = gst_parse_launch ("( videotestsrc num-buffers=8 ! "
      "video/x-raw,format=I420,width=64,height=48 ! identity name=dropper "
      "drop-allocation=true ) ! ( queue name=q ! pinnedupload name=up ) ! "
      "pinneddownload ! fakesink", NULL);
  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  n = pool_warnings (log);
  line = last_warning (log);
  log_stop (log);
  GST_INFO ("warning: %s", line);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless_equals_int (n, 1);
  fail_unless (strstr (line, " dropper (GstIdentity) through q does not "
          "write") != NULL, "%s", line);
  fail_unless_equals_uint64 (pinned_test_stat (up, "pageable-buffers"), 8);

  g_free (line);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (up);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Frames from the offered pool: no warning. Pageable ones: one per caps. */
GST_START_TEST (test_warning_once_per_caps)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstVideoInfo info;
  guint i, w;
  Log *log = &the_log;
  gchar *line;

  log_start (log);
  for (w = 64; w <= 128; w += 64) {
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, 48);
    gst_harness_set_caps (h, gst_video_info_to_caps (&info),
        pinned_test_device_caps (&info));
    for (i = 0; i < 3; i++)
      gst_buffer_unref (pinned_test_push_and_pull (h,
              gst_harness_create_buffer (h, info.size)));
    fail_unless_equals_int (pool_warnings (log), w / 64 - 1);
    for (i = 0; i < 3; i++)
      gst_buffer_unref (pinned_test_push_and_pull (h,
              pinned_test_new_pageable (info.size)));
    fail_unless_equals_int (pool_warnings (log), w / 64);
  }
  /* No element upstream of a harness: its pad is named. */
  line = last_warning (log);
  log_stop (log);
  fail_unless (strstr (line, "the pad ") != NULL, "%s", line);
  fail_unless_equals_uint64 (pinned_test_stat (h->element, "pageable-buffers"),
      6);
  g_free (line);

  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
stats_suite (void)
{
  Suite *s = suite_create ("stats");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, NULL, teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_stats_after_n_frames);
  tcase_add_test (tc, test_stats_pageable_input);
  tcase_add_test (tc, test_stats_gpu_time_is_the_work);
  tcase_add_test (tc, test_stats_read_while_work_runs);
  tcase_add_test (tc, test_stats_host_waits);
  tcase_add_test (tc, test_stats_filter);
  tcase_add_test (tc, test_stats_kept_until_restart);
  tcase_add_test (tc, test_stats_notified_at_eos);
  tcase_add_test (tc, test_warning_names_upstream_once);
  tcase_add_test (tc, test_warning_once_per_caps);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, stats_suite);
}
