/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Frames copied in batches (GstPinnedCopyTransform:batch): held until the
 * batch is full or its timeout, then one copy call and one fence for all
 * of them, pushed in order; a partial batch before serialized events and
 * queries, none after a flush; the fence guards every frame of the
 * batch. */

#include <string.h>
#include <cuda_runtime_api.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include "pinnedtest.h"

#define DELAY_MS pinned_test_ms (300)

/* Upload and download with batches of @batch that wait up to @timeout_us
 * for their last frame, from and to system memory; the harness offers its
 * buffers from the upload's page-locked pool. @download_pool: the
 * download's pool-size (0: its default). */
static GstHarness *
new_pair_pooled (GstVideoInfo * info, const gchar * format, gint width,
    gint height, guint timeout_us, guint download_pool, guint batch)
{
  gchar *launch = g_strdup_printf ("pinnedupload batch=%u batch-timeout=%u ! "
      "pinneddownload batch=%u batch-timeout=%u pool-size=%u", batch,
      timeout_us, batch, timeout_us, download_pool ? download_pool : 4);
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *caps;

  g_free (launch);
  gst_video_info_set_format (info, gst_video_format_from_string (format),
      width, height);
  caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", format, width, height);
  gst_harness_set_caps_str (h, caps, caps);
  g_free (caps);
  return h;
}

static GstHarness *
new_pair_full (GstVideoInfo * info, const gchar * format, gint width,
    gint height, guint timeout_us)
{
  return new_pair_pooled (info, format, width, height, timeout_us, 0, 4);
}

/* A second's timeout: the tests see what a batch holds before it. */
static GstHarness *
new_pair (GstVideoInfo * info, const gchar * format, gint width, gint height)
{
  return new_pair_full (info, format, width, height, G_USEC_PER_SEC);
}

static GstBuffer *
new_frame (GstHarness * h, const GstVideoInfo * info, guint seed)
{
  GstBuffer *buf = gst_harness_create_buffer (h, info->size);

  fail_unless (gst_is_pinned_memory (gst_buffer_peek_memory (buf, 0)),
      "the harness did not use the offered pool");
  pinned_test_fill_frame (buf, info, seed);
  GST_BUFFER_PTS (buf) = seed * GST_MSECOND;
  return buf;
}

/* Pushes frames @seed0 .. @seed0 + @n - 1, keeping a reference to each in
 * @in. */
static void
push_frames (GstHarness * h, const GstVideoInfo * info, guint seed0, guint n,
    GstBuffer ** in)
{
  guint i;

  for (i = 0; i < n; i++) {
    in[i] = new_frame (h, info, seed0 + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
}

static void
pull_and_check (GstHarness * h, const GstVideoInfo * info, GstBuffer ** in,
    guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_try_pull (h);

    fail_unless (out != NULL, "frame %u of %u did not come", i, n);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
    fail_unless (pinned_test_frames_equal (in[i], out, info),
        "frame %u differs", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
}

/* Pushes frame @seed (kept in @waiting) and takes every output that has
 * come, each bit-exact to the oldest frame waiting. The output of frame
 * @keep and its input go to @kept (output, input) instead of being
 * dropped; @keep 0: none. */
static void
push_one_take_ready (GstHarness * h, const GstVideoInfo * info, guint seed,
    GQueue * waiting, guint keep, GstBuffer ** kept)
{
  GstBuffer *in = new_frame (h, info, seed), *out;

  g_queue_push_tail (waiting, in);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  while ((out = gst_harness_try_pull (h))) {
    guint frame;

    in = g_queue_pop_head (waiting);
    frame = GST_BUFFER_PTS (in) / GST_MSECOND;
    fail_unless (pinned_test_frames_equal (in, out, info),
        "frame %u differs", frame);
    if (keep != 0 && frame == keep) {
      kept[0] = out;
      kept[1] = in;
      continue;
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
}

static guint64
stat_of (GstHarness * h, const gchar * factory, const gchar * field)
{
  return pinned_test_stat (GST_ELEMENT (pinned_test_get_transform
          (h->element, factory)), field);
}

/* Odd sizes, three formats: nothing comes before the batch is full, then
 * the four frames in order, bit-exact. */
GST_START_TEST (test_batch_held_until_full)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } sizes[] = { {"NV12", 66, 50}, {"RGBA", 97, 31}, {"I420", 1920, 1080} };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    GstVideoInfo info;
    GstHarness *h = new_pair (&info, sizes[k].format, sizes[k].width,
        sizes[k].height);
    GstBuffer *in[8];

    push_frames (h, &info, 1, 3, in);
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
    push_frames (h, &info, 4, 1, in + 3);
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
    pull_and_check (h, &info, in, 4);

    push_frames (h, &info, 5, 4, in);
    pull_and_check (h, &info, in, 4);

    fail_unless_equals_uint64 (stat_of (h, "pinnedupload", "buffers"), 8);
    fail_unless_equals_uint64 (stat_of (h, "pinneddownload", "copies"), 8);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* End of stream, and a serialized event, push a partial batch first. */
GST_START_TEST (test_batch_partial_before_events)
{
  GstVideoInfo info;
  GstHarness *h = new_pair (&info, "NV12", 66, 50);
  GstBuffer *in[4];
  GstEvent *event;

  push_frames (h, &info, 1, 2, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty ("x-test-marker"))));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  pull_and_check (h, &info, in, 2);

  push_frames (h, &info, 3, 3, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check (h, &info, in, 3);

  /* The marker and the end of stream came after the frames before them. */
  while ((event = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
    gst_event_unref (event);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush drops the held frames: after it, only the new ones come. */
GST_START_TEST (test_batch_dropped_on_flush)
{
  GstVideoInfo info;
  GstHarness *h = new_pair (&info, "NV12", 66, 50);
  GstBuffer *in[4], *stale[3];
  GstSegment segment;
  guint i;

  push_frames (h, &info, 1, 3, stale);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  push_frames (h, &info, 10, 4, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  pull_and_check (h, &info, in, 4);

  for (i = 0; i < 3; i++)
    gst_buffer_unref (stale[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* One copy call and one fence a batch: sixteen frames up and down cost
 * eight cudaMemcpyBatchAsync calls (where the runtime has none, a
 * cudaMemcpyAsync a joined copy: fewer than a copy a frame); the
 * download's stream waits once for the upload's fence of a batch, not once
 * a frame (the control: one at a time, a copy and a wait a frame). */
GST_START_TEST (test_batch_one_call_one_wait)
{
  const guint batch[] = { 4, 1 };
  guint64 batch_calls[2], copies[2], waits[2], counted[2];
  guint k;

  if (!pinned_test_is_fake ())
    return;

  for (k = 0; k < 2; k++) {
    gchar *launch = g_strdup_printf ("pinnedupload batch=%u batch-timeout=%u "
        "! pinneddownload batch=%u batch-timeout=%u", batch[k],
        (guint) G_USEC_PER_SEC, batch[k], (guint) G_USEC_PER_SEC);
    GstHarness *h = gst_harness_new_parse (launch);
    GstVideoInfo info;
    GstBuffer *in[16];

    g_free (launch);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    gst_harness_set_caps_str (h, "video/x-raw,format=NV12,width=64,height=48,"
        "framerate=30/1", "video/x-raw,format=NV12,width=64,height=48,"
        "framerate=30/1");
    /* Warm: pools made, first frames timed. */
    push_frames (h, &info, 1, 8, in);
    pull_and_check (h, &info, in, 8);

    batch_calls[k] = pinned_test_call_count ("cudaMemcpyBatchAsync");
    copies[k] = pinned_test_call_count ("cudaMemcpyAsync");
    waits[k] = pinned_test_call_count ("cudaStreamWaitEvent");
    push_frames (h, &info, 9, 16, in);
    pull_and_check (h, &info, in, 16);
    batch_calls[k] = pinned_test_call_count ("cudaMemcpyBatchAsync") -
        batch_calls[k];
    copies[k] = pinned_test_call_count ("cudaMemcpyAsync") - copies[k];
    waits[k] = pinned_test_call_count ("cudaStreamWaitEvent") - waits[k];
    /* Since the start: the warm frames' batches too. */
    counted[k] = stat_of (h, "pinnedupload", "batch-calls") +
        stat_of (h, "pinneddownload", "batch-calls");
    gst_harness_teardown (h);
  }

  /* The stats count the batch calls. */
  if (pinned_test_batched_copies ()) {
    fail_unless_equals_uint64 (batch_calls[0], 8);
    fail_unless_equals_uint64 (copies[0], 0);
    fail_unless_equals_uint64 (counted[0], 12);
  } else {
    fail_unless_equals_uint64 (batch_calls[0], 0);
    fail_unless (copies[0] >= 8 && copies[0] < 32, "%" G_GUINT64_FORMAT
        " copies for 4 batches each way", copies[0]);
    fail_unless_equals_uint64 (counted[0], 0);
  }
  fail_unless_equals_uint64 (counted[1], 0);
  fail_unless (waits[0] <= 8, "%" G_GUINT64_FORMAT " waits for 4 batches "
      "each way", waits[0]);
  /* Control */
  fail_unless_equals_uint64 (batch_calls[1], 0);
  fail_unless_equals_uint64 (copies[1], 32);
  fail_unless (waits[1] >= 16, "%" G_GUINT64_FORMAT " waits for 16 frames",
      waits[1]);
}

GST_END_TEST;

/* Frames whose buffers lie next to each other in both pools (each pool's
 * minimum is one block) go as one copy: a batch of four 64x48 NV12 frames
 * (4608 bytes, a multiple of the pieces' 256-byte alignment) is one copy
 * each way. A batch ends where a frame's buffer ends its block: with a
 * download pool of ten against sixteen device frames, the download's
 * batches end there too (seven batches for 24 frames, each one copy). The
 * control: 66x50 frames (4950 bytes) leave gaps between the pieces, four
 * copies a batch. Batches of sixteen (pools of 32): sixteen frames a
 * copy. Every frame bit-exact; frames pushed one at a time, each output
 * taken as it comes. Where the runtime has no batch call, each copy is a
 * cudaMemcpyAsync. */
GST_START_TEST (test_batch_adjacent_frames_one_copy)
{
  const struct
  {
    gint width, height;
    guint download_pool, batch;
    guint64 calls, copies;
  } cases[] = {
    {64, 48, 0, 4, 12, 12}, {64, 48, 10, 4, 13, 13}, {66, 50, 0, 4, 12, 48},
    /* The largest batch: many streams a GPU's (docs/guide.md). */
    {64, 48, 0, 16, 12, 12}
  };
  guint k, i;

  if (!pinned_test_is_fake ())
    return;

  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstVideoInfo info;
    GstHarness *h = new_pair_pooled (&info, "NV12", cases[k].width,
        cases[k].height, G_USEC_PER_SEC, cases[k].download_pool,
        cases[k].batch);
    guint64 calls, copies, plain;
    GQueue waiting = G_QUEUE_INIT;

    calls = pinned_test_call_count ("cudaMemcpyBatchAsync");
    copies = pinned_test_call_count ("cudaMemcpyBatchAsync:copy");
    plain = pinned_test_call_count ("cudaMemcpyAsync");
    /* Six batches each way. */
    for (i = 0; i < 6 * cases[k].batch; i++)
      push_one_take_ready (h, &info, 1 + i, &waiting, 0, NULL);
    fail_unless (g_queue_is_empty (&waiting), "case %u: %u frames held", k,
        g_queue_get_length (&waiting));
    calls = pinned_test_call_count ("cudaMemcpyBatchAsync") - calls;
    copies = pinned_test_call_count ("cudaMemcpyBatchAsync:copy") - copies;
    plain = pinned_test_call_count ("cudaMemcpyAsync") - plain;
    if (pinned_test_batched_copies ()) {
      fail_unless_equals_uint64 (calls, cases[k].calls);
      fail_unless_equals_uint64 (copies, cases[k].copies);
      fail_unless_equals_uint64 (plain, 0);
    } else {
      fail_unless_equals_uint64 (calls, 0);
      fail_unless_equals_uint64 (plain, cases[k].copies);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A batch joins a copy into the one before only where its destination
 * continues too. An output held downstream leaves a gap in its pool's
 * order: later batches of the download find their sources (the device
 * pool's pieces) adjacent but their destinations not. A join across the
 * gap would write the next frame into the held buffer: every frame
 * bit-exact, the held one last. */
GST_START_TEST (test_batch_join_skips_held_buffer)
{
  GstVideoInfo info;
  GstHarness *h = new_pair_pooled (&info, "NV12", 64, 48, G_USEC_PER_SEC, 0,
      4);
  GQueue waiting = G_QUEUE_INIT;
  GstBuffer *held[2] = { NULL, NULL };
  guint i;

  for (i = 0; i < 40; i++)
    push_one_take_ready (h, &info, 1 + i, &waiting, 3, held);
  fail_unless (g_queue_is_empty (&waiting), "%u frames held",
      g_queue_get_length (&waiting));
  fail_unless (held[0] != NULL);
  fail_unless (pinned_test_frames_equal (held[1], held[0], &info),
      "the held output was written over");
  gst_buffer_unref (held[0]);
  gst_buffer_unref (held[1]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The batch's one fence guards each of its frames: pushed before the copy
 * ran, every output's map waits for it, and every input stays busy (its
 * pool does not hand it out for writing) until then. */
GST_START_TEST (test_batch_fence_guards_every_frame)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in[4], *out[4];
  guint i;

  if (!pinned_test_is_fake ())
    return;

  h = new_pair (&info, "RGBA", 320, 240);
  pinned_test_set_copy_delay (DELAY_MS);
  push_frames (h, &info, 1, 4, in);
  for (i = 0; i < 4; i++) {
    out[i] = gst_harness_try_pull (h);
    fail_unless (out[i] != NULL);
  }
  pinned_test_reset ();
  for (i = 0; i < 4 && pinned_test_work_is_async (); i++) {
    fail_if (gst_pinned_buffer_is_idle (in[i], GST_MAP_WRITE),
        "input %u is free while the copy reads it", i);
    fail_if (gst_pinned_buffer_is_idle (out[i], GST_MAP_READ),
        "output %u was pushed after its copy, or without a fence", i);
  }
  for (i = 0; i < 4; i++) {
    fail_unless (pinned_test_frames_equal (in[i], out[i], &info),
        "the map of frame %u did not wait for the batch", i);
    gst_buffer_unref (out[i]);
    gst_buffer_unref (in[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A batch's copies wait on the GPU for the readers of the device buffers
 * they write: with the download held back, the upload reuses device
 * buffers it has not read yet (sixteen frames through eight), and every
 * frame comes out right. */
GST_START_TEST (test_batch_device_reuse_is_stream_ordered)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload pool-size=1 batch=2 "
      "batch-timeout=1000000 ! pinneddownload pool-size=16 batch=2 "
      "batch-timeout=1000000");
  GstPinnedBaseTransform *down;
  GstVideoInfo info;
  GstBuffer *in[16], *out[16];
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 640, 480);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  down = pinned_test_get_transform (h->element, "pinneddownload");

  /* Warm: the pools are made. */
  push_frames (h, &info, 1, 2, in);
  pull_and_check (h, &info, in, 2);
  fail_unless (gst_pinned_stream_synchronize
      (gst_pinned_base_transform_get_stream (down), NULL));

  pinned_test_delay_stream (gst_pinned_base_transform_get_stream (down),
      DELAY_MS);
  push_frames (h, &info, 600, 16, in);
  for (i = 0; i < 16; i++) {
    out[i] = gst_harness_pull (h);
    fail_unless (out[i] != NULL);
  }
  for (i = 0; i < 16; i++) {
    fail_unless (pinned_test_frames_equal (in[i], out[i], &info),
        "frame %u was overwritten on the GPU before its download", i);
    gst_buffer_unref (in[i]);
    gst_buffer_unref (out[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The pools hold two batches: one filling, one being copied. */
GST_START_TEST (test_batch_pools_hold_two)
{
  GstVideoInfo info;
  GstHarness *h = new_pair (&info, "NV12", 66, 50);
  GstPinnedBaseTransform *up =
      pinned_test_get_transform (h->element, "pinnedupload");
  GstBuffer *in[4];

  push_frames (h, &info, 1, 4, in);
  pull_and_check (h, &info, in, 4);
  fail_unless_equals_int (gst_pinned_base_transform_get_batch (up), 4);
  fail_unless_equals_int (gst_pinned_base_transform_get_pool_size (up), 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A pad that answers every query as before but LATENCY, which it fails. */
static GstPadQueryFunction answer_query;

static gboolean
no_latency_answer (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    return FALSE;
  return answer_query (pad, parent, query);
}

/* The batch videotestsrc (not live) frames get, where the upstream's
 * answer to the LATENCY query does not reach pinnedupload when @no_answer. */
static guint
auto_batch_of_videotestsrc (gboolean no_answer)
{
  GstElement *pipeline, *up, *sink;
  GstSample *sample;
  guint n = 0, batch;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=7 ! "
      "capsfilter name=caps caps=video/x-raw,format=NV12,width=64,height=48 "
      "! pinnedupload name=up ! pinneddownload ! appsink name=sink", NULL);
  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (no_answer) {
    GstElement *caps = gst_bin_get_by_name (GST_BIN (pipeline), "caps");
    GstPad *pad = gst_element_get_static_pad (caps, "src");

    answer_query = GST_PAD_QUERYFUNC (pad);
    gst_pad_set_query_function (pad, no_latency_answer);
    gst_object_unref (pad);
    gst_object_unref (caps);
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    n++;
    gst_sample_unref (sample);
  }
  batch = gst_pinned_base_transform_get_batch (GST_PINNED_BASE_TRANSFORM (up));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (n, 7);

  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (pipeline);
  return batch;
}

/* batch=0 chooses: a live source (the harness says it is live) gets no
 * batches; frames from a source that is not live, up to 8 MiB, get 4; an
 * upstream that does not answer the LATENCY query is taken as live (its
 * frames are not held for the next ones). */
GST_START_TEST (test_batch_auto)
{
  GstVideoInfo info;
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstBuffer *in[1];

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_harness_set_caps_str (h, "video/x-raw,format=NV12,width=64,height=48,"
      "framerate=30/1", "video/x-raw,format=NV12,width=64,height=48,"
      "framerate=30/1");
  push_frames (h, &info, 1, 1, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 1);
  pull_and_check (h, &info, in, 1);
  fail_unless_equals_int (gst_pinned_base_transform_get_batch
      (pinned_test_get_transform (h->element, "pinnedupload")), 1);
  gst_harness_teardown (h);

  fail_unless_equals_int (auto_batch_of_videotestsrc (FALSE), 4);
  fail_unless_equals_int (auto_batch_of_videotestsrc (TRUE), 1);
}

GST_END_TEST;

/* The page-locked pool @src's peer offers: only its frames batch. */
static GstBufferPool *
offered_pool (GstElement * src)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,"
      "height=48,framerate=30/1");
  GstBufferPool *pool = gst_pinned_host_buffer_pool_from_peer (pad, caps, 4);

  fail_unless (pool != NULL);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return pool;
}

/* Pushes one NV12 64x48 frame of @pool into @src and waits up to @ms for a
 * sample at @sink: the ms it took, -1 if none came. */
static gint64
one_frame_ms (GstBufferPool * pool, GstElement * src, GstElement * sink,
    guint ms)
{
  GstBuffer *buf = NULL;
  GstSample *sample;
  gint64 start;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  start = g_get_monotonic_time ();
  gst_buffer_memset (buf, 0, 0x80, gst_buffer_get_size (buf));
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
      GST_FLOW_OK);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      (GstClockTime) ms * GST_MSECOND);
  if (sample == NULL)
    return -1;
  gst_sample_unref (sample);
  return (g_get_monotonic_time () - start) / 1000;
}

/* The first frame after a start, which negotiation may send on alone. */
static void
first_frame (GstBufferPool * pool, GstElement * src, GstElement * sink)
{
  GstSample *sample;

  one_frame_ms (pool, src, sink, pinned_test_ms (2000));
  /* and, if it was held, its later arrival */
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0);
  if (sample)
    gst_sample_unref (sample);
}

/* Stopping an element stops its batch timer: a batch-timeout changed
 * while it is stopped holds from the next start. The longest timeout (1 s)
 * holds a partial batch; after a stop, 1 ms lets it go well before 1 s
 * (judged where times are not scaled: memcheck's are). */
GST_START_TEST (test_batch_timeout_changed_while_stopped)
{
  GstElement *pipeline = gst_parse_launch ("appsrc name=src format=time "
      "caps=video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! "
      "pinnedupload name=up batch=4 batch-timeout=1000000 ! "
      "pinneddownload batch=1 ! appsink name=sink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  GstBufferPool *pool;
  gint64 ms;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  pool = offered_pool (src);
  first_frame (pool, src, sink);
  ms = one_frame_ms (pool, src, sink, 300);
  fail_unless (ms < 0, "a partial batch went on after %" G_GINT64_FORMAT
      " ms, before its second", ms);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pool);

  g_object_set (up, "batch-timeout", (guint64) 1000, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  pool = offered_pool (src);
  first_frame (pool, src, sink);
  ms = one_frame_ms (pool, src, sink, pinned_test_ms (5000));
  fail_unless (ms >= 0, "the partial batch did not come");
  if (pinned_test_ms (1) == 1)
    fail_unless (ms < 700, "the partial batch waited %" G_GINT64_FORMAT
        " ms: the timeout of before the stop", ms);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pool);

  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A partial batch goes on after batch-timeout without its last frame: an
 * application that pushes a frame and waits for it gets it. The control:
 * with no timeout, it stays held. */
GST_START_TEST (test_batch_timeout_pushes_partial)
{
  GstVideoInfo info;
  GstHarness *h = new_pair_full (&info, "NV12", 66, 50, 1000);
  GstBuffer *in[2], *out;
  guint i;

  push_frames (h, &info, 1, 2, in);
  for (i = 0; i < 2; i++) {
    /* Waits up to a minute. */
    out = gst_harness_pull (h);
    fail_unless (out != NULL, "the partial batch did not come");
    fail_unless (pinned_test_frames_equal (in[i], out, &info));
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  gst_harness_teardown (h);

  /* Control */
  h = new_pair_full (&info, "NV12", 66, 50, 0);
  push_frames (h, &info, 1, 2, in);
  g_usleep (100 * 1000);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_buffer_unref (in[0]);
  gst_buffer_unref (in[1]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Waits up to a second for @n threads named @name: a new thread takes its
 * name once it runs. */
static void
wait_threads_named (const gchar * name, guint n)
{
  guint i, found = 0;

  for (i = 0; i < 100 && found < n; i++) {
    GPtrArray *tids = pinned_test_threads (name);

    found = tids->len;
    g_ptr_array_unref (tids);
    if (found < n)
      g_usleep (10 * 1000);
  }
}

/* The number after @key in /proc/self/task/@tid/@file; 0 where the
 * thread has gone. */
static guint64
thread_value (const gchar * tid, const gchar * file, const gchar * key)
{
  gchar *path = g_build_filename ("/proc/self/task", tid, file, NULL);
  gchar *text = NULL, *at;
  guint64 n = 0;

  if (g_file_get_contents (path, &text, NULL, NULL) &&
      (at = strstr (text, key)))
    n = g_ascii_strtoull (at + strlen (key), NULL, 10);
  g_free (text);
  g_free (path);
  return n;
}

/* How many times this process's threads named @name went to sleep and
 * woke (their voluntary context switches, summed); @threads: how many. */
static guint64
thread_sleeps (const gchar * name, guint * threads)
{
  GPtrArray *tids = pinned_test_threads (name);
  guint64 sum = 0;
  guint i;

  for (i = 0; i < tids->len; i++)
    sum += thread_value (g_ptr_array_index (tids, i), "status",
        "voluntary_ctxt_switches:");
  *threads = tids->len;
  g_ptr_array_unref (tids);
  return sum;
}

static gint clock_looks;

/* Counts the batch clock's looks (clock_look()'s LOG line). */
static void
count_looks (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  if (level == GST_LEVEL_LOG && g_strcmp0 (function, "clock_look") == 0)
    g_atomic_int_inc (&clock_looks);
}

/* Batches that fill in time never wake their elements' timers: one batch
 * clock looks for the whole process, its wake-ups bounded by the rounds of
 * batches, not by how many elements batch (a timer an element woke at
 * each deadline: about one wake-up a timeout each). The control: a
 * partial batch still goes on, rung by the clock. */
#define SLEEP_PAIRS 8
GST_START_TEST (test_batch_timers_sleep_while_batches_fill)
{
  const guint rounds = 30;
  guint timeout_us = pinned_test_ms (50) * 1000;
  GstHarness *h[SLEEP_PAIRS];
  GstVideoInfo info;
  GstBuffer *in[4];
  guint64 timers0, clocks0, timers1, clocks1;
  guint i, r, n_timers, n_clocks, n_before;

  thread_sleeps ("pinned-batch", &n_before);
  for (i = 0; i < SLEEP_PAIRS; i++) {
    h[i] = new_pair_full (&info, "NV12", 66, 50, timeout_us);
    push_frames (h[i], &info, 1, 4, in);
    pull_and_check (h[i], &info, in, 4);
  }
  wait_threads_named ("pinned-batch", n_before + 2 * SLEEP_PAIRS);
  wait_threads_named ("pinned-clock", 1);
  timers0 = thread_sleeps ("pinned-batch", &n_timers);
  clocks0 = thread_sleeps ("pinned-clock", &n_clocks);
  fail_unless_equals_int (n_timers, n_before + 2 * SLEEP_PAIRS);
  fail_unless_equals_int (n_clocks, 1);

  for (r = 0; r < rounds; r++) {
    for (i = 0; i < SLEEP_PAIRS; i++) {
      push_frames (h[i], &info, 4 * r, 4, in);
      pull_and_check (h[i], &info, in, 4);
    }
    g_usleep (pinned_test_ms (10) * 1000);
  }
  timers1 = thread_sleeps ("pinned-batch", &n_timers);
  clocks1 = thread_sleeps ("pinned-clock", &n_clocks);
  GST_INFO ("%u rounds of %u pairs: the timers woke %" G_GUINT64_FORMAT
      " times, the clock %" G_GUINT64_FORMAT, rounds, SLEEP_PAIRS,
      timers1 - timers0, clocks1 - clocks0);
  /* One stray a timer at most: a batch that did not fill in 50 ms. */
  fail_unless (timers1 - timers0 <= 2 * SLEEP_PAIRS,
      "the elements' timers woke %" G_GUINT64_FORMAT " times",
      timers1 - timers0);
  /* Where the host is slow (times scaled), batches stay partial for
   * several ticks. */
  fail_unless (pinned_test_ms (1) > 1 || clocks1 - clocks0 <= 4 * rounds,
      "the clock woke %" G_GUINT64_FORMAT " times in %u rounds",
      clocks1 - clocks0, rounds);

  /* Control */
  push_frames (h[0], &info, 1000, 2, in);
  for (i = 0; i < 2; i++) {
    GstBuffer *out = gst_harness_pull (h[0]);

    fail_unless (out != NULL, "the partial batch did not come");
    fail_unless (pinned_test_frames_equal (in[i], out, &info));
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  for (i = 0; i < SLEEP_PAIRS; i++)
    gst_harness_teardown (h[i]);
  /* The clock's thread goes with the last element that batches. */
  thread_sleeps ("pinned-clock", &n_clocks);
  fail_unless_equals_int (n_clocks, n_before > 0 ? 1 : 0);
}

GST_END_TEST;

/* The clock sleeps until the next deadline however near it is: partial
 * batches of two pairs, started 0.4 ms apart (within a tick), cost it at
 * most three looks for each wake-up and round (about two a wake-up), not
 * the time between them spent looking again and again (its looks counted
 * through its LOG lines). */
GST_START_TEST (test_batch_clock_sleeps_between_deadlines)
{
  const guint rounds = 20;
  GstHarness *h[2];
  GstVideoInfo info;
  GstBuffer *in[2];
  guint64 woke;
  guint i, r, n, looks;

  /* The log functions change only while no clock thread runs: GStreamer
   * reads their list without a lock, and frees the entry of one removed
   * (ThreadSanitizer saw the clock's LOG line read a freed entry). */
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_looks, NULL, NULL);
  for (i = 0; i < 2; i++)
    h[i] = new_pair_full (&info, "NV12", 66, 50, 10 * 1000);
  wait_threads_named ("pinned-clock", 1);
  gst_debug_set_threshold_for_name ("pinnedbatchclock", GST_LEVEL_LOG);
  g_atomic_int_set (&clock_looks, 0);
  woke = thread_sleeps ("pinned-clock", &n);
  for (r = 0; r < rounds; r++) {
    for (i = 0; i < 2; i++) {
      push_frames (h[i], &info, r, 1, &in[i]);
      g_usleep (400);
    }
    for (i = 0; i < 2; i++) {
      /* After both elements' timeouts. */
      GstBuffer *out = gst_harness_pull (h[i]);

      fail_unless (out != NULL, "the partial batch did not come");
      fail_unless (pinned_test_frames_equal (in[i], out, &info));
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
  }
  woke = thread_sleeps ("pinned-clock", &n) - woke;
  looks = g_atomic_int_get (&clock_looks);
  gst_debug_unset_threshold_for_name ("pinnedbatchclock");
  /* The clock's thread is joined with the last pair. */
  for (i = 0; i < 2; i++)
    gst_harness_teardown (h[i]);
  gst_debug_remove_log_function (count_looks);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  GST_INFO ("%u rounds: the clock woke %" G_GUINT64_FORMAT " times and "
      "looked %u times", rounds, woke, looks);
  fail_unless_equals_int (n, 1);
  fail_unless (looks <= 3 * (woke + rounds), "the clock looked %u times in "
      "%" G_GUINT64_FORMAT " wake-ups", looks, woke);
}

GST_END_TEST;

/* A failed batch copy is an element error with the CUDA detail. */
GST_START_TEST (test_batch_copy_fails)
{
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;

  pinned_test_fail (pinned_test_batched_copies ()? "cudaMemcpyBatchAsync" :
      "cudaMemcpyAsync", 1, 1, cudaErrorLaunchFailure);
  pipeline = gst_parse_launch ("videotestsrc num-buffers=20 ! "
      "video/x-raw,format=NV12,width=66,height=50 ! pinnedupload batch=4 ! "
      "pinneddownload batch=4 ! fakesink", NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  pinned_test_reset ();

  pinned_test_check_error (msg, "Could not copy a batch",
      "cudaErrorLaunchFailure", NULL);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The order that frames, events and queries reach the harness's sink
 * pad: 'B' a buffer, 'C' caps, 'E' end of stream. */
static GstPadProbeReturn
record_order (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GString *order = data;
  gchar c = 0;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    c = 'B';
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS)
    c = 'C';
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    c = 'E';
  if (c) {
    GST_OBJECT_LOCK (pad);
    g_string_append_c (order, c);
    GST_OBJECT_UNLOCK (pad);
  }
  return GST_PAD_PROBE_OK;
}

static gchar *
order_seen (GstHarness * h, GString * order)
{
  gchar *seen;

  GST_OBJECT_LOCK (h->sinkpad);
  seen = g_strdup (order->str);
  GST_OBJECT_UNLOCK (h->sinkpad);
  return seen;
}

/* A frame that cannot be batched (pageable memory into the upload) goes
 * out after the frames of the batch before it, never before them: the
 * timestamps never run backwards. The download copies each frame alone,
 * so that the order it gets is the order it passes on. */
GST_START_TEST (test_batch_unbatched_frame_after_batch)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload batch=4 "
      "batch-timeout=1000000 ! pinneddownload batch=1");
  GstVideoInfo info;
  GstBuffer *in[3];
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 66, 50);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));

  push_frames (h, &info, 1, 2, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  in[2] = pinned_test_new_pageable (info.size);
  pinned_test_fill_frame (in[2], &info, 3);
  GST_BUFFER_PTS (in[2]) = 3 * GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[2])),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
    fail_unless (pinned_test_frames_equal (in[i], out, &info),
        "frame %u differs", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream's serialized queries come after the frames it sent before
 * them: a drain query meets a partial batch in both elements and returns
 * only once its frames went on; an allocation query, the upload's. */
GST_START_TEST (test_batch_partial_before_queries)
{
  GstVideoInfo info;
  GstHarness *h = new_pair (&info, "NV12", 66, 50);
  GstCaps *caps = gst_video_info_to_caps (&info);
  GstQuery *query;
  GstBuffer *in[4];

  push_frames (h, &info, 1, 2, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  query = gst_query_new_drain ();
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_unref (query);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  pull_and_check (h, &info, in, 2);

  /* The upload answers the allocation query itself: its own frames go
   * on first (the download, which the query does not reach, holds them
   * until the end of stream). */
  push_frames (h, &info, 3, 3, in);
  fail_unless_equals_uint64 (stat_of (h, "pinnedupload", "buffers"), 2);
  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_unref (query);
  fail_unless_equals_uint64 (stat_of (h, "pinnedupload", "buffers"), 5);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check (h, &info, in, 3);

  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A caps change meets a partial batch: its frames go out first, with the
 * old caps and right, then the new caps (and their allocation query),
 * then the new frames, right in their own size. The same again, with
 * the whole batch of the new size, and an end of stream last. */
GST_START_TEST (test_batch_caps_change_after_partial_batch)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload batch=4 "
      "batch-timeout=1000000 ! pinneddownload batch=4 batch-timeout=1000000");
  GString *order = g_string_new (NULL);
  GstVideoInfo a, b;
  GstBuffer *in[4];
  gchar *seen;

  gst_video_info_set_format (&a, GST_VIDEO_FORMAT_NV12, 66, 50);
  gst_video_info_set_format (&b, GST_VIDEO_FORMAT_NV12, 98, 62);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12");
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&a));
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_order, order, NULL);

  push_frames (h, &a, 1, 2, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&b));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  pull_and_check (h, &a, in, 2);

  push_frames (h, &b, 3, 4, in);
  pull_and_check (h, &b, in, 4);
  push_frames (h, &b, 7, 2, in);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&a));
  pull_and_check (h, &b, in, 2);
  push_frames (h, &a, 9, 1, in);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check (h, &a, in, 1);

  seen = order_seen (h, order);
  fail_unless_equals_string (seen, "BBCBBBBBBCBE");
  g_free (seen);
  g_string_free (order, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream asks for a renegotiation (a RECONFIGURE event: new sink
 * caps, the same format) while both elements hold a partial batch: the
 * elements decide their allocation again, and every frame still comes,
 * in order and right. */
GST_START_TEST (test_batch_reconfigure_with_partial_batch)
{
  GstVideoInfo info;
  GstHarness *h = new_pair (&info, "NV12", 66, 50);
  GstBuffer *in[8];

  push_frames (h, &info, 1, 2, in);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12,width=66,"
      "height=50,framerate=30/1");
  push_frames (h, &info, 3, 6, in + 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check (h, &info, in, 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The GPU time of a timed batch is divided over its frames: with each
 * copy held back DELAY, a batch of four takes about four times that, and
 * a frame about DELAY. */
GST_START_TEST (test_batch_gpu_time_per_frame)
{
  const guint delay_ms = pinned_test_ms (20);
  GstVideoInfo info;
  GstHarness *h;
  const gchar *names[] = { "pinnedupload", "pinneddownload" };
  GstBuffer *in[8];
  guint i;

  if (!pinned_test_is_fake ())
    return;

  /* Frames with gaps between their buffers: a copy each in the batch. */
  h = new_pair (&info, "NV12", 66, 50);
  pinned_test_set_copy_delay (delay_ms);
  push_frames (h, &info, 1, 8, in);
  pull_and_check (h, &info, in, 8);
  pinned_test_reset ();

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    guint64 samples = stat_of (h, names[i], "gpu-samples");
    guint64 per_frame = stat_of (h, names[i], "gpu-time-per-frame");

    /* The first batch is timed: its four frames. */
    fail_unless_equals_uint64 (samples, 4);
    fail_unless (per_frame >= delay_ms * GST_MSECOND &&
        per_frame < 2 * delay_ms * GST_MSECOND, "%s: %" G_GUINT64_FORMAT
        " ns a frame for copies of %u ms each", names[i], per_frame, delay_ms);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
batch_suite (void)
{
  Suite *s = suite_create ("batch");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_batch_held_until_full);
  tcase_add_test (tc, test_batch_partial_before_events);
  tcase_add_test (tc, test_batch_dropped_on_flush);
  tcase_add_test (tc, test_batch_one_call_one_wait);
  tcase_add_test (tc, test_batch_adjacent_frames_one_copy);
  tcase_add_test (tc, test_batch_join_skips_held_buffer);
  tcase_add_test (tc, test_batch_fence_guards_every_frame);
  tcase_add_test (tc, test_batch_device_reuse_is_stream_ordered);
  tcase_add_test (tc, test_batch_pools_hold_two);
  tcase_add_test (tc, test_batch_auto);
  tcase_add_test (tc, test_batch_timeout_pushes_partial);
  tcase_add_test (tc, test_batch_timeout_changed_while_stopped);
  tcase_add_test (tc, test_batch_timers_sleep_while_batches_fill);
  tcase_add_test (tc, test_batch_clock_sleeps_between_deadlines);
  tcase_add_test (tc, test_batch_copy_fails);
  tcase_add_test (tc, test_batch_unbatched_frame_after_batch);
  tcase_add_test (tc, test_batch_partial_before_queries);
  tcase_add_test (tc, test_batch_caps_change_after_partial_batch);
  tcase_add_test (tc, test_batch_reconfigure_with_partial_batch);
  tcase_add_test (tc, test_batch_gpu_time_per_frame);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, batch_suite);
}
