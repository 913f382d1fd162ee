/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The hazards of asynchronous copies, with the GPU work held back so that
 * the host (or another stream) races it:
 *
 * - the seed tutorial's two: a page-locked source written, or handed out
 *   again by its pool, while its upload still reads it; a download read,
 *   or handed out again, before its copy lands;
 * - their GPU-side twins: a device buffer written again (by the upload, a
 *   filter) before a later stage has read it; a device buffer read (by
 *   the download, a filter) before the work that writes it has run.
 *
 * Each test has a control that does the same access without the fence
 * wait (through a pointer kept from an earlier map, or a raw CUDA call
 * that skips the fences) and must come out wrong: it shows that the race
 * is real in this setup and that the fence wait is what avoids it.
 *
 * The delay is the stand-in's stream pause, or a spin kernel on a GPU (as
 * torch.cuda._sleep() in the seed). Where the copy itself is held back
 * (the stand-in's copy delay; on a GPU these tests have nothing to hold),
 * a fence recorded before its copy shows too. */

#include <string.h>
#include <cuda_runtime_api.h>
#include "pinnedtest.h"

#define DELAY_MS pinned_test_ms (300)
#define WIDTH 1024
#define HEIGHT 1024

static GstHarness *
new_upload (GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new ("pinnedupload");

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, WIDTH, HEIGHT);
  gst_harness_set_caps (h, gst_video_info_to_caps (info),
      pinned_test_device_caps (info));
  return h;
}

/* @launch from system memory to system memory, RGBA 640x480. */
static GstHarness *
new_chain (const gchar * launch, GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_RGBA, 640, 480);
  gst_harness_set_caps (h, gst_video_info_to_caps (info),
      gst_video_info_to_caps (info));
  return h;
}

static GstHarness *
new_roundtrip (GstVideoInfo * info, guint download_pool_size)
{
  gchar *launch = g_strdup_printf ("pinnedupload ! pinneddownload "
      "pool-size=%u", download_pool_size);
  GstHarness *h = new_chain (launch, info);

  g_free (launch);
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

  fail_unless (gst_is_pinned_memory (mem));
  return (guint8 *) ((GstPinnedMemory *) mem)->data + mem->offset;
}

/* A view of @buffer's page-locked bytes that skips the fences. */
static GstBuffer *
unfenced_view (GstBuffer * buffer, gsize size)
{
  return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
      raw_pointer (buffer), size, 0, size, NULL, NULL);
}

static guint64
host_waits (void)
{
  return pinned_test_call_count ("cudaEventSynchronize") +
      pinned_test_call_count ("cudaStreamSynchronize");
}

/* Host waits of the elements of @h's chain (their `stats`: every wait for
 * a fence of their streaming thread, the asking ones too), and the
 * synchronising calls of the whole process (stand-in only). */
static guint64
chain_host_waits (GstHarness * h)
{
  static const gchar *factories[] = { "pinnedupload", "pinneddownload" };
  guint64 n = host_waits ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstStructure *stats;
    guint64 v = 0;

    g_object_get (pinned_test_get_transform (h->element, factories[i]),
        "stats", &stats, NULL);
    fail_unless (gst_structure_get_uint64 (stats, "host-waits", &v));
    gst_structure_free (stats);
    n += v;
  }
  return n;
}

/* ---- the page-locked source of the upload ---------------------------- */

/* The source writes its page-locked buffer again while the upload still
 * reads it: the map waits for the copy. */
GST_START_TEST (test_upload_source_write_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBuffer *in, *out;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_bytes (in, 0x01);

  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));

  /* Pushed at once: the copy has not run yet. */
  if (pinned_test_work_is_async ()) {
    fail_if (gst_pinned_buffer_is_idle (in, GST_MAP_WRITE));
    fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));
  }

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
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  memset (ptr, 0x00, info.size);

  if (pinned_test_work_is_async ())
    fail_if (pinned_test_all_bytes (out, 0x01),
        "the unfenced write did not race the delayed copy: "
        "this suite could not see the hazard");

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The same with the copy itself held back, not the stream before it: a
 * fence recorded before its copy would be signalled at once. */
GST_START_TEST (test_upload_source_write_waits_for_copy_itself)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBuffer *in, *out, *in2, *out2;
  guint8 *ptr;

  if (!pinned_test_is_fake ())
    return;                     /* no way to hold back a copy on a GPU */

  in = gst_harness_create_buffer (h, info.size);
  in2 = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_bytes (in, 0x01);
  pinned_test_fill_bytes (in2, 0x01);
  ptr = raw_pointer (in2);

  pinned_test_set_copy_delay (DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  out2 = pinned_test_push_and_pull (h, gst_buffer_ref (in2));
  pinned_test_reset ();

  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (in, GST_MAP_WRITE));
  /* Control: without the wait the write lands in the copy. */
  memset (ptr, 0x00, info.size);
  pinned_test_fill_bytes (in, 0x00);

  fail_unless (pinned_test_all_bytes (out, 0x01),
      "the source's write raced its copy");
  if (pinned_test_work_is_async ())
    fail_if (pinned_test_all_bytes (out2, 0x01),
        "the unfenced write did not race the held-back copy");

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_buffer_unref (in2);
  gst_buffer_unref (out2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The offered pool of @h, configured for one buffer and active. */
static GstBufferPool *
offered_pool (GstHarness * h, const GstVideoInfo * info)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_query_unref (query);
  gst_caps_unref (caps);
  return pool;
}

/* The pool hands a released source buffer out again only once its copy is
 * done. */
GST_START_TEST (test_upload_pool_reuse_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBufferPool *pool = offered_pool (h, &info);
  GstBuffer *b1, *b2, *out1, *out2;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b1, NULL),
      GST_FLOW_OK);
  pinned_test_fill_bytes (b1, 0x11);
  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out1 = pinned_test_push_and_pull (h, gst_buffer_ref (b1));

  /* Released while its copy is still reading it ... */
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (b1, GST_MAP_WRITE));
  gst_buffer_unref (b1);

  /* ... and handed out again (one buffer: the same) only after the copy. */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b2, NULL),
      GST_FLOW_OK);
  fail_unless (gst_pinned_buffer_is_idle (b2, GST_MAP_READWRITE));
  pinned_test_fill_bytes (b2, 0x22);
  out2 = pinned_test_push_and_pull (h, b2);

  fail_unless (pinned_test_all_bytes (out1, 0x11));
  fail_unless (pinned_test_all_bytes (out2, 0x22));

  gst_buffer_unref (out1);
  gst_buffer_unref (out2);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Control: a buffer handed out at its release, before its copy ran, and
 * written by its next user, corrupts the frame being uploaded. */
GST_START_TEST (test_upload_pool_reuse_without_wait_corrupts)
{
  GstVideoInfo info;
  GstHarness *h = new_upload (&info);
  GstBufferPool *pool = offered_pool (h, &info);
  GstBuffer *b1, *out1;
  guint8 *ptr;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b1, NULL),
      GST_FLOW_OK);
  pinned_test_fill_bytes (b1, 0x11);
  ptr = raw_pointer (b1);
  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out1 = pinned_test_push_and_pull (h, b1);
  /* Released (the push took it); the next user writes at once. */
  memset (ptr, 0x22, info.size);

  if (pinned_test_work_is_async ())
    fail_if (pinned_test_all_bytes (out1, 0x11),
        "a write right after the release did not race the copy");

  gst_buffer_unref (out1);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the page-locked output of the download -------------------------- */

/* Downstream reads a download before the copy lands: the map waits. */
GST_START_TEST (test_download_map_waits_for_copy)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 4);
  GstBuffer *in, *out, *raw;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 1234);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ),
        "the download waited for its copy before pushing");

  /* Control: reading the bytes without the map's wait sees no frame. */
  raw = unfenced_view (out, info.size);
  if (pinned_test_work_is_async ())
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

/* The same with the copy itself held back, in pieces: a fence recorded
 * before the copy would let the map read a torn frame. */
GST_START_TEST (test_download_map_waits_for_copy_itself)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 4);
  GstBuffer *in, *out, *raw;

  if (!pinned_test_is_fake ())
    return;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 4321);
  /* Both copies held back, one after the other. */
  pinned_test_set_copy_delay (DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  pinned_test_reset ();
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));

  /* Control: half-way through, the unfenced bytes are torn or old. */
  g_usleep (DELAY_MS * 1000 / 2);
  raw = unfenced_view (out, info.size);
  fail_if (pinned_test_frames_equal (in, raw, &info),
      "the held-back copy had landed half-way through its delay");
  gst_buffer_unref (raw);

  fail_unless (pinned_test_frames_equal (in, out, &info),
      "the map did not wait for the copy itself");

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
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out->pool != NULL);
  pool = gst_object_ref (out->pool);
  if (pinned_test_work_is_async ())
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

/* The download's own pool hands it a buffer whose last copy still runs
 * without a host wait: the next copy into it is ordered behind that one on
 * the download's stream. Both frames come out right. */
GST_START_TEST (test_download_reuse_is_stream_ordered)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 1);
  GstBuffer *in1, *in2, *out1, *out2;
  GstStructure *stats = NULL;
  guint64 waits = 0;
  guint8 *reused;

  in1 = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in1, &info, 81);
  in2 = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in2, &info, 82);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  out1 = pinned_test_push_and_pull (h, gst_buffer_ref (in1));
  reused = raw_pointer (out1);
  /* Released unread; handed out again at once, its copy still held back. */
  gst_buffer_unref (out1);
  out2 = pinned_test_push_and_pull (h, gst_buffer_ref (in2));
  fail_unless (raw_pointer (out2) == reused);
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out2, GST_MAP_READ),
        "the download waited for the copy before it on the host");

  fail_unless (pinned_test_frames_equal (in2, out2, &info));
  g_object_get (pinned_test_get_transform (h->element, "pinneddownload"),
      "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "host-waits", &waits));
  fail_unless_equals_uint64 (waits, 0);

  gst_structure_free (stats);
  gst_buffer_unref (out2);
  gst_buffer_unref (in1);
  gst_buffer_unref (in2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Control: the buffer's bytes at its release, as a pool that did not
 * wait would hand them out, are not the frame yet. */
GST_START_TEST (test_download_reuse_without_wait_sees_no_frame)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 1);
  GstBuffer *in, *out, *raw;

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 78);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  raw = unfenced_view (out, info.size);
  /* Released by a downstream that does not map; the view outlives it. */
  gst_buffer_unref (out);
  if (pinned_test_work_is_async ())
    fail_if (pinned_test_frames_equal (in, raw, &info),
        "the copy had landed at the release: this suite could not see the "
        "hazard");

  gst_buffer_unref (raw);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- device buffers -------------------------------------------------- */

/* Device buffers are reused stream-ordered: with a device pool of two
 * buffers and the download held back, the upload writes a device buffer
 * again that the download has not read yet; the upload's stream waits for
 * the download's read (the host does not), and every frame comes out
 * right. */
GST_START_TEST (test_device_reuse_is_stream_ordered)
{
  GstVideoInfo info;
  GstHarness *h = new_chain ("pinnedupload pool-size=1 ! "
      "pinneddownload pool-size=8", &info);
  guint64 mallocs, waits;
  GstBuffer *in[6], *out[6];
  guint i;

  /* Warm up: the pools exist, the device pool has its two buffers. */
  in[0] = gst_harness_create_buffer (h, info.size);
  gst_buffer_unref (pinned_test_push_and_pull (h, in[0]));
  fail_unless (gst_pinned_stream_synchronize (stream_of (h->element,
              "pinneddownload"), NULL));
  mallocs = pinned_test_call_count ("cudaMalloc");
  waits = chain_host_waits (h);

  pinned_test_delay_stream (stream_of (h->element, "pinneddownload"), DELAY_MS);
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 500 + i);
    out[i] = pinned_test_push_and_pull (h, gst_buffer_ref (in[i]));
  }
  /* Nothing waited for the held-back download on the host (the elements
   * count their waits; the device pool hands its buffers out at once) ... */
  if (pinned_test_is_fake ())
    fail_unless (chain_host_waits (h) == waits, "the host waited %"
        G_GUINT64_FORMAT " times for the held-back pinneddownload",
        chain_host_waits (h) - waits);
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out[G_N_ELEMENTS (in) - 1],
            GST_MAP_READ));
  /* ... and six frames went through two device buffers. */
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaMalloc"), mallocs);

  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    fail_unless (pinned_test_frames_equal (in[i], out[i], &info),
        "frame %u was overwritten on the GPU before its download", i);
    gst_buffer_unref (in[i]);
    gst_buffer_unref (out[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two device buffers, @d holding frame @a, a page-locked @b to write it
 * with, a host buffer for the read. */
typedef struct
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstPinnedStream *reader, *writer;
  GstBuffer *a, *b, *dev, *out;
} Race;

static void
race_init (Race * r)
{
  pinned_test_device_init (&r->d);
  gst_video_info_set_format (&r->info, GST_VIDEO_FORMAT_RGBA, 640, 480);
  r->reader = gst_pinned_stream_new (r->d.ctx, NULL);
  r->writer = gst_pinned_stream_new (r->d.ctx, NULL);
  r->a = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  r->b = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  r->dev = gst_buffer_new_allocate (r->d.device, r->info.size, NULL);
  r->out = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  pinned_test_fill_frame (r->a, &r->info, 1);
  pinned_test_fill_frame (r->b, &r->info, 2);
}

static void
race_clear (Race * r)
{
  gst_buffer_unref (r->a);
  gst_buffer_unref (r->b);
  gst_buffer_unref (r->dev);
  gst_buffer_unref (r->out);
  gst_pinned_stream_unref (r->reader);
  gst_pinned_stream_unref (r->writer);
  pinned_test_device_clear (&r->d);
}

/* A copy on @stream that skips the fences: what an element would do that
 * forgot to wait. */
static void
raw_copy (GstPinnedStream * stream, GstBuffer * dst, GstBuffer * src,
    gsize size, enum cudaMemcpyKind kind)
{
  GstPinnedContext *ctx = gst_pinned_stream_get_context (stream);

  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaMemcpyAsync (raw_pointer (dst), raw_pointer (src),
          size, kind, gst_pinned_stream_get_handle (stream)), cudaSuccess);
  gst_pinned_context_pop (ctx);
}

/* Control of the device reuse hazards (the upload's device pool, a
 * filter's output pool, the upload overwriting a filter's input): a
 * write of a device buffer that does not wait for its held-back reader
 * lands before the read. */
GST_START_TEST (test_device_write_without_reader_wait_corrupts)
{
  Race r;

  race_init (&r);
  fail_unless (gst_pinned_transfer_video_frame (r.writer, &r.info, r.a, r.dev,
          NULL));
  fail_unless (gst_pinned_stream_synchronize (r.writer, NULL));

  pinned_test_delay_stream (r.reader, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.reader, &r.info, r.dev,
          r.out, NULL));
  raw_copy (r.writer, r.dev, r.b, r.info.size, cudaMemcpyHostToDevice);

  if (pinned_test_work_is_async ())
    fail_if (pinned_test_frames_equal (r.a, r.out, &r.info),
        "the unfenced write did not race the held-back read");
  fail_unless (gst_pinned_stream_synchronize (r.writer, NULL));
  race_clear (&r);
}

GST_END_TEST;

/* Control of the device read hazards (the download or a filter reading
 * a frame whose upload or kernel is held back): a read that does not wait
 * for the writer sees the frame before it lands. */
GST_START_TEST (test_device_read_without_writer_wait_sees_no_frame)
{
  Race r;

  race_init (&r);
  pinned_test_delay_stream (r.writer, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.writer, &r.info, r.a, r.dev,
          NULL));
  raw_copy (r.reader, r.out, r.dev, r.info.size, cudaMemcpyDeviceToHost);
  fail_unless (gst_pinned_stream_synchronize (r.reader, NULL));

  fail_if (pinned_test_frames_equal (r.a, r.out, &r.info),
      "the unfenced read saw the held-back write");
  fail_unless (gst_pinned_stream_synchronize (r.writer, NULL));
  race_clear (&r);
}

GST_END_TEST;

/* The download's stream waits for the upload's copy on the GPU: with the
 * upload held back and the download not, the frames still come out
 * right, and the host waited for neither. */
GST_START_TEST (test_download_waits_for_upload_on_gpu)
{
  GstVideoInfo info;
  GstHarness *h = new_roundtrip (&info, 4);
  GstBuffer *in, *out;
  guint64 waits;

  in = gst_harness_create_buffer (h, info.size);
  gst_buffer_unref (pinned_test_push_and_pull (h, in));
  waits = chain_host_waits (h);

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 99);
  pinned_test_delay_stream (stream_of (h->element, "pinnedupload"), DELAY_MS);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (chain_host_waits (h), waits);
  fail_unless (pinned_test_frames_equal (in, out, &info),
      "the download read the device frame before its upload");

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- a GPU filter between the copies ---------------------------------- */

static void
check_chain (GstHarness * h, const GstVideoInfo * info, guint n,
    const gchar * held, gboolean marked, guint32 seed)
{
  GstBuffer **in = g_new0 (GstBuffer *, n), **out = g_new0 (GstBuffer *, n);
  guint i;

  if (held)
    pinned_test_delay_stream (stream_of (h->element, held), DELAY_MS);
  for (i = 0; i < n; i++) {
    in[i] = gst_harness_create_buffer (h, info->size);
    pinned_test_fill_frame (in[i], info, seed + i);
    out[i] = pinned_test_push_and_pull (h, gst_buffer_ref (in[i]));
  }
  if (held && pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out[n - 1], GST_MAP_READ),
        "the host waited for the held-back %s", held);
  for (i = 0; i < n; i++) {
    GstBuffer *expected = marked ?
        pinned_test_marked_frame (in[i], info, 0x77) : gst_buffer_ref (in[i]);

    fail_unless (pinned_test_frames_equal (expected, out[i], info),
        "frame %u of %u is wrong with the %s held back", i, n,
        held ? held : "nothing");
    gst_buffer_unref (expected);
    gst_buffer_unref (in[i]);
    gst_buffer_unref (out[i]);
  }
  g_free (in);
  g_free (out);
}

/* The filter waits for the upload that writes its input (control:
 * test_device_read_without_writer_wait_sees_no_frame). */
GST_START_TEST (test_filter_waits_for_its_input)
{
  GstVideoInfo info;
  GstHarness *h = new_chain ("pinnedupload ! " PINNED_TEST_FILTER " ! "
      "pinneddownload", &info);

  check_chain (h, &info, 1, NULL, TRUE, 10);
  check_chain (h, &info, 2, "pinnedupload", TRUE, 20);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The download waits for the filter's work, in place or not, held back on
 * the filter's stream (control: test_device_read_without_writer_wait_...). */
GST_START_TEST (test_download_waits_for_filter)
{
  GstVideoInfo info;
  GstHarness *h = new_chain ("pinnedupload ! " PINNED_TEST_FILTER " ! "
      "pinneddownload", &info);

  check_chain (h, &info, 2, PINNED_TEST_FILTER, TRUE, 30);
  gst_harness_teardown (h);

  h = new_chain ("pinnedupload ! " PINNED_TEST_FILTER " in-place=true ! "
      "pinneddownload", &info);
  check_chain (h, &info, 2, PINNED_TEST_FILTER, TRUE, 40);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The filter's work itself takes long (its stream is held inside the
 * work, not before it): a fence recorded before the work would let the
 * download read too early. */
GST_START_TEST (test_download_waits_for_filter_work_itself)
{
  const gchar *filters[] = {
    PINNED_TEST_FILTER " delay-ms=300",
    PINNED_TEST_FILTER " delay-ms=300 in-place=true",
  };
  GstVideoInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (filters); i++) {
    gchar *launch = g_strdup_printf ("pinnedupload ! %s ! pinneddownload",
        filters[i]);
    GstHarness *h = new_chain (launch, &info);

    check_chain (h, &info, 2, NULL, TRUE, 50 + 10 * i);
    gst_harness_teardown (h);
    g_free (launch);
  }
}

GST_END_TEST;

/* The filter's output frames (two: pool-size 1) are written again only
 * after the held-back download read them; the upload's device frames
 * (two) only after the held-back filter read them (control:
 * test_device_write_without_reader_wait_corrupts). */
GST_START_TEST (test_filter_frames_reused_stream_ordered)
{
  GstVideoInfo info;
  GstHarness *h = new_chain ("pinnedupload pool-size=1 ! " PINNED_TEST_FILTER
      " pool-size=1 ! pinneddownload pool-size=8", &info);

  check_chain (h, &info, 1, NULL, TRUE, 60);
  check_chain (h, &info, 5, "pinneddownload", TRUE, 70);
  check_chain (h, &info, 5, PINNED_TEST_FILTER, TRUE, 80);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
hazards_suite (void)
{
  Suite *s = suite_create ("hazards");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* A failed test leaves no copy delay behind. */
  tcase_add_checked_fixture (tc, NULL, pinned_test_reset);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_upload_source_write_waits_for_copy);
  tcase_add_test (tc, test_upload_source_write_without_wait_corrupts);
  tcase_add_test (tc, test_upload_source_write_waits_for_copy_itself);
  tcase_add_test (tc, test_upload_pool_reuse_waits_for_copy);
  tcase_add_test (tc, test_upload_pool_reuse_without_wait_corrupts);
  tcase_add_test (tc, test_download_map_waits_for_copy);
  tcase_add_test (tc, test_download_map_waits_for_copy_itself);
  tcase_add_test (tc, test_download_unmapped_buffer_not_reused_early);
  tcase_add_test (tc, test_download_reuse_is_stream_ordered);
  tcase_add_test (tc, test_download_reuse_without_wait_sees_no_frame);
  tcase_add_test (tc, test_device_reuse_is_stream_ordered);
  tcase_add_test (tc, test_device_write_without_reader_wait_corrupts);
  tcase_add_test (tc, test_device_read_without_writer_wait_sees_no_frame);
  tcase_add_test (tc, test_download_waits_for_upload_on_gpu);
  tcase_add_test (tc, test_filter_waits_for_its_input);
  tcase_add_test (tc, test_download_waits_for_filter);
  tcase_add_test (tc, test_download_waits_for_filter_work_itself);
  tcase_add_test (tc, test_filter_frames_reused_stream_ordered);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, hazards_suite);
}
