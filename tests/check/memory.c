/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The library under the elements: fences, fenced memory, streams, the
 * context, and the promises of the per-buffer path (no host waits, no event
 * creation per buffer). */

#include <string.h>
#include <cuda_runtime_api.h>
#include <time.h>

#include "pinnedtest.h"

#define DELAY_MS pinned_test_ms (200)

static GstPinnedContext *
open_context (void)
{
  GError *error = NULL;
  GstPinnedContext *ctx = gst_pinned_context_new (0, &error);

  fail_unless (ctx != NULL, "%s", error ? error->message : "");
  return ctx;
}

/* An allocator of somebody else's, for test_is_pinned_memory. */
typedef GstAllocator OtherAllocator;
typedef GstAllocatorClass OtherAllocatorClass;
GType other_allocator_get_type (void);
G_DEFINE_TYPE (OtherAllocator, other_allocator, GST_TYPE_ALLOCATOR);

static void
other_allocator_class_init (OtherAllocatorClass * klass)
{
}

static void
other_allocator_init (OtherAllocator * self)
{
}

/* gst_is_pinned_memory() tells gst-pinned's allocators by the address of
 * their mem_type: another allocator that calls its memory by the same
 * name is not taken for one of them. */
GST_START_TEST (test_is_pinned_memory)
{
  PinnedTestDevice d;
  GstAllocator *sysmem = gst_allocator_find (NULL), *other;
  gchar *name = g_strdup (GST_PINNED_HOST_MEMORY_TYPE_NAME);
  GstMemory *mem, foreign = { 0, };

  pinned_test_device_init (&d);

  mem = gst_allocator_alloc (d.host, 64, NULL);
  fail_unless (gst_is_pinned_memory (mem));
  gst_memory_unref (mem);
  mem = gst_allocator_alloc (d.device, 64, NULL);
  fail_unless (gst_is_pinned_memory (mem));
  gst_memory_unref (mem);
  mem = gst_allocator_alloc (sysmem, 64, NULL);
  fail_if (gst_is_pinned_memory (mem));
  gst_memory_unref (mem);

  /* Only the allocator of a memory is looked at. */
  other = g_object_new (other_allocator_get_type (), NULL);
  gst_object_ref_sink (other);
  other->mem_type = name;
  foreign.allocator = other;
  fail_unless (gst_memory_is_type (&foreign, name));
  fail_if (gst_is_pinned_memory (&foreign));

  gst_object_unref (other);
  gst_object_unref (sysmem);
  g_free (name);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* An active page-locked pool of @n buffers of @info's frames. */
static GstBufferPool *
active_host_pool (GstPinnedContext * ctx, const GstVideoInfo * info, guint n)
{
  GstBufferPool *pool = gst_pinned_host_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_buffer_pool_config_set_params (config, caps, info->size, n, n);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

GST_START_TEST (test_fences_are_recycled)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *stream = gst_pinned_stream_new (ctx, NULL);
  guint64 created = pinned_test_call_count ("cudaEventCreateWithFlags");
  GstPinnedFence *fence;
  guint i;

  for (i = 0; i < 100; i++) {
    fence = gst_pinned_stream_record_fence (stream, NULL);
    fail_unless (fence != NULL);
    fail_unless (gst_pinned_fence_wait (fence, NULL));
    fail_unless (gst_pinned_fence_is_signaled (fence));
    gst_pinned_fence_unref (fence);
  }
  /* One event per fence in use: the one waited on, and the stream's track
   * of its 16 newest fences. */
  if (pinned_test_is_fake ())
    fail_unless (pinned_test_call_count ("cudaEventCreateWithFlags") -
        created <= 17);

  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* A fence recorded behind a pause is not signalled until the stream gets
 * there; another stream waiting on it is held back too. */
GST_START_TEST (test_fence_orders_streams)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedStream *b = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *fa, *fb;

  pinned_test_delay_stream (a, DELAY_MS);
  fa = gst_pinned_stream_record_fence (a, NULL);
  fail_unless (gst_pinned_fence_wait_on_stream (fa, b, NULL));
  fb = gst_pinned_stream_record_fence (b, NULL);

  fail_if (gst_pinned_fence_is_signaled (fa));
  fail_if (gst_pinned_fence_is_signaled (fb));
  fail_unless (gst_pinned_fence_wait (fb, NULL));
  fail_unless (gst_pinned_fence_is_signaled (fa));

  gst_pinned_fence_unref (fa);
  gst_pinned_fence_unref (fb);
  gst_pinned_stream_unref (a);
  gst_pinned_stream_unref (b);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Work already on the same stream needs no cross-stream wait: no call
 * (counted on the stand-in), and the work stays ordered behind the fence
 * (on any runtime); another stream does wait. */
GST_START_TEST (test_same_stream_needs_no_wait)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedStream *b = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *fence, *later_a, *later_b;
  guint64 waits = pinned_test_call_count ("cudaStreamWaitEvent");

  pinned_test_delay_stream (a, DELAY_MS);
  fence = gst_pinned_stream_record_fence (a, NULL);
  fail_unless (gst_pinned_fence_get_stream_handle (fence) ==
      gst_pinned_stream_get_handle (a));

  fail_unless (gst_pinned_fence_wait_on_stream (fence, a, NULL));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent"),
        waits);
  fail_unless (gst_pinned_fence_wait_on_stream (fence, b, NULL));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent"),
        waits + 1);

  later_a = gst_pinned_stream_record_fence (a, NULL);
  later_b = gst_pinned_stream_record_fence (b, NULL);
  fail_if (gst_pinned_fence_is_signaled (later_a));
  fail_if (gst_pinned_fence_is_signaled (later_b));
  fail_unless (gst_pinned_fence_wait (later_a, NULL));
  fail_unless (gst_pinned_fence_wait (later_b, NULL));
  fail_unless (gst_pinned_fence_is_signaled (fence));

  gst_pinned_fence_unref (later_a);
  gst_pinned_fence_unref (later_b);
  gst_pinned_fence_unref (fence);
  gst_pinned_stream_unref (a);
  gst_pinned_stream_unref (b);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* A stream runs its work in order: once a later fence of a stream is seen
 * done, an earlier one is known done without a question to the driver.
 * Control: a fence of another stream, still held back, is asked about and
 * is not done. */
GST_START_TEST (test_later_fence_vouches_for_earlier)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedStream *b = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *early, *later, *other;
  guint64 queries;

  pinned_test_delay_stream (a, DELAY_MS);
  early = gst_pinned_stream_record_fence (a, NULL);
  pinned_test_delay_stream (a, DELAY_MS);
  later = gst_pinned_stream_record_fence (a, NULL);
  pinned_test_delay_stream (b, 4 * DELAY_MS);
  other = gst_pinned_stream_record_fence (b, NULL);

  fail_unless (gst_pinned_fence_wait (later, NULL));
  queries = pinned_test_call_count ("cudaEventQuery");
  fail_unless (gst_pinned_fence_is_signaled (early));
  fail_unless (gst_pinned_fence_wait (early, NULL));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaEventQuery"), queries);

  fail_if (gst_pinned_fence_is_signaled (other));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaEventQuery"),
        queries + 1);
  fail_unless (gst_pinned_fence_wait (other, NULL));

  gst_pinned_fence_unref (early);
  gst_pinned_fence_unref (later);
  gst_pinned_fence_unref (other);
  gst_pinned_stream_unref (a);
  gst_pinned_stream_unref (b);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Backpressure at the page-locked pool: its oldest buffer's copy still
 * runs. The gate then waits until all but the stream's newest copy are
 * done, so that the next buffers come without a question to the driver;
 * every buffer it hands out is idle. */
GST_START_TEST (test_pool_gate_waits_ahead)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstBuffer *bufs[6], *dev;
  guint64 queries;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  pool = active_host_pool (d.ctx, &info, G_N_ELEMENTS (bufs));
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);

  /* Six copies, one behind the other, each after a pause. */
  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    pinned_test_fill_frame (bufs[i], &info, i);
    pinned_test_delay_stream (d.stream, DELAY_MS / 4);
    fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, bufs[i],
            dev, NULL));
  }
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);

  /* The oldest comes back once every copy but the newest is done ... */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[0],
          NULL), GST_FLOW_OK);
  fail_unless (gst_pinned_buffer_is_idle (bufs[0], GST_MAP_READWRITE));
  queries = pinned_test_call_count ("cudaEventQuery");
  /* ... and the next four without a question. */
  for (i = 1; i < 5; i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    fail_unless (gst_pinned_buffer_is_idle (bufs[i], GST_MAP_READWRITE));
  }
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaEventQuery"), queries);
  for (i = 5; i < G_N_ELEMENTS (bufs); i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    fail_unless (gst_pinned_buffer_is_idle (bufs[i], GST_MAP_READWRITE));
  }

  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);
  gst_buffer_unref (dev);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A GPU writer (the download) takes the page-locked pool's buffers
 * without waiting for their last copy, which its stream orders; but its
 * stream is kept from running more than 14 copies ahead of the host. With
 * the stream held back, 14 copies into a pool of two buffers are enqueued
 * without a wait (the first still pending after them); from the 15th on,
 * the pool waits (the first is done after 18). */
GST_START_TEST (test_device_writer_paced)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstBufferPoolAcquireParams params = {
    .flags = GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE,
  };
  GstPinnedFence *oldest;
  GstBuffer *buf, *dev;
  guint round, i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);

  for (round = 0; round < 2; round++) {
    guint n = round ? 18 : 14;

    pool = active_host_pool (d.ctx, &info, 2);
    /* The pacing counts the stream's fences: a fresh stream each round. */
    gst_pinned_stream_unref (d.stream);
    d.stream = gst_pinned_stream_new (d.ctx, NULL);

    pinned_test_delay_stream (d.stream, DELAY_MS);
    oldest = NULL;
    for (i = 0; i < n; i++) {
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
              &params), GST_FLOW_OK);
      fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dev, buf,
              NULL));
      if (oldest == NULL)
        oldest = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
            gst_buffer_peek_memory (buf, 0));
      gst_buffer_unref (buf);
    }
    if (round == 0 && pinned_test_work_is_async ())
      fail_if (gst_pinned_fence_is_signaled (oldest),
          "14 copies ahead: the pool waited");
    else
      fail_unless (gst_pinned_fence_is_signaled (oldest),
          "18 copies ahead: the pool did not pace the stream");

    gst_pinned_fence_unref (oldest);
    fail_unless (gst_pinned_stream_synchronize (d.stream, NULL));
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);
  }

  gst_buffer_unref (dev);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A GPU writer's frame into a buffer of @pool (acquired as the download
 * does), copied from @dev and done before it returns. */
static void
download_done (GstBufferPool * pool, PinnedTestDevice * d,
    const GstVideoInfo * info, GstBuffer * dev)
{
  GstBufferPoolAcquireParams params = {
    .flags = GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE,
  };
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
          &params), GST_FLOW_OK);
  fail_unless (gst_pinned_transfer_video_frame (d->stream, info, dev, buf,
          NULL));
  gst_buffer_unref (buf);
  fail_unless (gst_pinned_stream_synchronize (d->stream, NULL));
}

/* Behind another gate a paced stream's work is done long before the pace
 * would wait (here: the stream finishes every copy before the next). The
 * pool then asks about the stream's near past once every few copies,
 * which vouches for the copies before it, instead of asking about the
 * fence 14 back at every copy. Fake only: counts. */
GST_START_TEST (test_pace_asks_rarely_behind_a_gate)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstBuffer *dev;
  guint64 asked = 0;
  guint i, n = 40;

  if (!pinned_test_is_fake ())
    return;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  pool = active_host_pool (d.ctx, &info, 2);

  for (i = 0; i < n; i++) {
    if (i == n / 2)
      asked = pinned_test_call_count ("cudaEventQuery");
    download_done (pool, &d, &info, dev);
  }
  asked = pinned_test_call_count ("cudaEventQuery") - asked;
  fail_unless (asked >= 1 && asked <= n / 2 / 4, "%" G_GUINT64_FORMAT
      " questions for %u copies", asked, n / 2);

  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_buffer_unref (dev);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A GPU writer takes the pool's buffers again after the stream that last
 * wrote them is gone (an element restarted with a new stream): the pace
 * finds that stream's track closed, keeping no fences, and hands the
 * buffer out without a wait. */
GST_START_TEST (test_pace_after_the_stream_is_gone)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstBufferPoolAcquireParams params = {
    .flags = GST_PINNED_BUFFER_POOL_ACQUIRE_FLAG_DEVICE_WRITE,
  };
  GstBuffer *buf, *dev;
  guint i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  pool = active_host_pool (d.ctx, &info, 2);

  /* More copies than the pace lets a stream run ahead, all done: the
   * pace has learnt to look near the newest. */
  for (i = 0; i < 20; i++) {
    download_done (pool, &d, &info, dev);
  }
  gst_pinned_stream_unref (d.stream);
  d.stream = gst_pinned_stream_new (d.ctx, NULL);

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
          &params), GST_FLOW_OK);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dev, buf,
          NULL));
  fail_unless (gst_pinned_buffer_wait (buf, GST_MAP_READ, NULL));
  gst_buffer_unref (buf);

  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_buffer_unref (dev);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A stream is told apart by its id, not its handle: the stand-in gives a
 * new stream the handle of one just destroyed (CUDA may too), and a fence
 * of the old stream, still pending, is waited for. */
GST_START_TEST (test_fence_of_a_destroyed_stream)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *old = gst_pinned_stream_new (ctx, NULL), *fresh;
  gpointer old_handle = gst_pinned_stream_get_handle (old);
  GstPinnedFence *fence, *after;
  gboolean pending;

  pinned_test_delay_stream (old, DELAY_MS);
  fence = gst_pinned_stream_record_fence (old, NULL);
  gst_pinned_stream_unref (old);

  fresh = gst_pinned_stream_new (ctx, NULL);
  if (pinned_test_is_fake ())
    fail_unless (gst_pinned_stream_get_handle (fresh) == old_handle);
  /* Destroying a stream does not wait for its work, but under
   * compute-sanitizer it does: then there is nothing left to wait for. */
  pending = !gst_pinned_fence_is_signaled (fence);
  if (pinned_test_is_fake ())
    fail_unless (pending);
  fail_unless (gst_pinned_fence_wait_on_stream (fence, fresh, NULL));
  after = gst_pinned_stream_record_fence (fresh, NULL);
  if (pending)
    fail_if (gst_pinned_fence_is_signaled (after),
        "the new stream took the old stream's fence for its own");
  fail_unless (gst_pinned_fence_wait (after, NULL));
  fail_unless (gst_pinned_fence_is_signaled (fence));

  gst_pinned_fence_unref (after);
  gst_pinned_fence_unref (fence);
  gst_pinned_stream_unref (fresh);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Fence events carry no timing, and a host that waits for one sleeps
 * between asks instead of spinning (or arming blocking-sync events, whose
 * waits cost CUDA's event handler thread), and asks less often the longer
 * it waits: over a 200 ms wait the waiting thread uses under 2 % of it in
 * CPU time (it used 11 % on an H100 machine when it asked every 64 us).
 * The process's count of host waits has it: one wait, its questions, its
 * time. */
static gdouble
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

GST_START_TEST (test_fence_event_flags)
{
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *fence;
  guint64 waits[2], questions[2], ns[2];
  gint64 t0;
  gdouble cpu0, cpu, wall, share;

  /* Under valgrind (a time scale above 1) each of the poll's wake-ups
   * costs tens of times more; spinning would still take all of it. On two
   * busy cores a sleeping wait's wake-ups cost above 2 %: 5 % still tells
   * it from asking every 64 us (11 %). */
  share = pinned_test_ms (1) > 1 ? 0.5 : 0.05;
  pinned_test_delay_stream (a, 200);
  fence = gst_pinned_stream_record_fence (a, NULL);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_event_flags (fence),
        cudaEventDisableTiming);

  gst_pinned_fence_get_host_waits (&waits[0], &questions[0], &ns[0]);
  t0 = g_get_monotonic_time ();
  cpu0 = thread_cpu_ms ();
  fail_unless (gst_pinned_fence_wait (fence, NULL));
  cpu = thread_cpu_ms () - cpu0;
  wall = (g_get_monotonic_time () - t0) / 1e3;
  gst_pinned_fence_get_host_waits (&waits[1], &questions[1], &ns[1]);
  fail_unless (wall >= 150, "the wait returned after %.1f ms", wall);
  fail_unless (cpu < share * wall, "waiting %.1f ms took %.1f ms of CPU",
      wall, cpu);
  fail_unless_equals_uint64 (waits[1] - waits[0], 1);
  /* Sleeps of 2, 4, ... 64 us, then a sixteenth of the wait so far. */
  fail_unless (questions[1] - questions[0] >= 8, "%" G_GUINT64_FORMAT
      " questions in %.1f ms", questions[1] - questions[0], wall);
  fail_unless (ns[1] - ns[0] >= 150 * GST_MSECOND &&
      ns[1] - ns[0] <= wall * GST_MSECOND, "%" G_GUINT64_FORMAT " ns counted "
      "in %.1f ms", ns[1] - ns[0], wall);

  gst_pinned_fence_unref (fence);
  gst_pinned_stream_unref (a);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Every event the fences create is destroyed: pooled ones when their
 * context goes, one still in use when its last user lets go (after the
 * context), over a library-level run and a whole pipeline's life. */
GST_START_TEST (test_events_balance)
{
  guint64 created = pinned_test_call_count ("cudaEventCreateWithFlags");
  guint64 destroyed = pinned_test_call_count ("cudaEventDestroy");
  GstPinnedContext *ctx = open_context ();
  GstPinnedStream *a = gst_pinned_stream_new (ctx, NULL);
  GstPinnedFence *kept, *pooled;
  GstHarness *h;
  GstVideoInfo info;
  gpointer weak;
  guint i;

  kept = gst_pinned_stream_record_fence (a, NULL);
  pooled = gst_pinned_stream_record_fence (a, NULL);
  gst_pinned_fence_unref (pooled);
  fail_unless (gst_pinned_stream_synchronize (a, NULL));
  weak = ctx;
  g_object_add_weak_pointer (G_OBJECT (ctx), &weak);
  gst_pinned_stream_unref (a);
  gst_object_unref (ctx);
  fail_unless (weak == NULL, "the context outlived its last user");
  gst_pinned_fence_unref (kept);

  h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  for (i = 0; i < 10; i++) {
    GstBuffer *in = gst_harness_create_buffer (h, info.size);

    gst_buffer_unref (pinned_test_push_and_pull (h, in));
  }
  weak = gst_pinned_base_transform_get_context (pinned_test_get_transform
      (h->element, "pinnedupload"));
  g_object_add_weak_pointer (G_OBJECT (weak), &weak);
  gst_harness_teardown (h);
  fail_unless (weak == NULL, "the pipeline's context outlived it");

  if (pinned_test_is_fake ()) {
    fail_unless (pinned_test_call_count ("cudaEventCreateWithFlags") > created);
    fail_unless_equals_int (pinned_test_call_count ("cudaEventDestroy") -
        destroyed, pinned_test_call_count ("cudaEventCreateWithFlags") -
        created);
  }
}

GST_END_TEST;

/* Freeing memory waits for the copy that still writes it. */
GST_START_TEST (test_free_waits_for_fences)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst;
  GstPinnedFence *fence;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 512, 512);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  dst = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_bytes (src, 0x3c);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (dst, 0));
  fail_unless (fence != NULL);
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_fence_is_signaled (fence));

  gst_buffer_unref (dst);
  gst_buffer_unref (src);
  fail_unless (gst_pinned_fence_is_signaled (fence),
      "memory was freed while a copy still wrote it");

  gst_pinned_fence_unref (fence);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Device memory: a GPU map yields the device pointer without waiting; a
 * CPU map goes through staging, waits for the writer and writes back. */
GST_START_TEST (test_device_memory_maps)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dev, *back;
  GstPinnedMemory *mem;
  GstMapInfo map;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 256);
  src = gst_buffer_new_allocate (d.host, info.size, NULL);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  back = gst_buffer_new_allocate (d.host, info.size, NULL);
  mem = (GstPinnedMemory *) gst_buffer_peek_memory (dev, 0);
  pinned_test_fill_bytes (src, 0x42);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dev,
          NULL));

  fail_unless (gst_buffer_map (dev, &map, GST_MAP_READ | GST_MAP_PINNED_GPU));
  fail_unless (map.data == mem->data);
  gst_buffer_unmap (dev, &map);
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (dev, GST_MAP_READ));

  /* CPU read: waits for the delayed copy, never the device pointer. */
  fail_unless (pinned_test_all_bytes (dev, 0x42));

  /* CPU write: lands on the device at unmap. */
  pinned_test_fill_bytes (dev, 0x17);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dev, back,
          NULL));
  fail_unless (pinned_test_all_bytes (back, 0x17));

  gst_buffer_unref (src);
  gst_buffer_unref (dev);
  gst_buffer_unref (back);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The page-locked bytes of the process are counted: an allocation while
 * it lives and while its allocator keeps it for reuse, huge pages at the
 * size they were page-locked, the staging of a CPU map of device memory
 * while that memory lives. */
GST_START_TEST (test_locked_bytes_counted)
{
  PinnedTestDevice d;
  GstAllocator *huge;
  GstMemory *mem;
  GstMapInfo map;
  guint64 before;

  pinned_test_device_init (&d);
  before = gst_pinned_host_memory_get_locked_bytes ();

  mem = gst_allocator_alloc (d.host, 1000 * 1000, NULL);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, mem->maxsize);
  /* Freed into its allocator's reuse cache: still page-locked. */
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000);

  /* Huge pages: page-locked whole, 2 MiB. */
  huge = gst_pinned_host_allocator_new_full (d.ctx,
      GST_PINNED_HOST_FLAGS_DEFAULT | GST_PINNED_HOST_HUGE_PAGES);
  mem = gst_allocator_alloc (huge, 1000 * 1000, NULL);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000 + 2 * 1024 * 1024);
  gst_memory_unref (mem);
  gst_object_unref (huge);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000);

  /* A CPU map of device memory stages it in page-locked memory, which
   * goes with the device memory. */
  mem = gst_allocator_alloc (d.device, 4096, NULL);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  gst_memory_unmap (mem, &map);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000 + mem->maxsize);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes () -
      before, 1000 * 1000);

  /* The allocator goes, its cache with it. */
  pinned_test_device_clear (&d);
  fail_unless_equals_uint64 (gst_pinned_host_memory_get_locked_bytes (),
      before);
}

GST_END_TEST;

/* A share carries the fences of the memory it was shared from. */
GST_START_TEST (test_shared_memory_keeps_fences)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst, *sub;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 256);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  dst = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_bytes (src, 0x99);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  sub = gst_buffer_copy_region (dst, GST_BUFFER_COPY_MEMORY, 1000, 5000);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (sub, 0)));
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (sub, GST_MAP_READ));
  fail_unless (pinned_test_all_bytes (sub, 0x99));

  gst_buffer_unref (sub);
  gst_buffer_unref (src);
  gst_buffer_unref (dst);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Page-locked memory of another allocator has no fences: the transfer
 * returns only once the copy no longer needs it. */
GST_START_TEST (test_foreign_pinned_source_is_waited_for)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst;
  GstMapInfo map;
  gpointer data;

  pinned_test_device_init (&d);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 512, 256);
  data = g_malloc (info.size);
  memset (data, 0x61, info.size);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaHostRegister (data, info.size,
          cudaHostRegisterDefault), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  src = gst_buffer_new_wrapped_full (0, data, info.size, 0, info.size, NULL,
      NULL);
  dst = gst_buffer_new_allocate (d.device, info.size, NULL);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL));
  fail_unless (gst_buffer_map (src, &map, GST_MAP_WRITE));
  memset (map.data, 0x00, map.size);
  gst_buffer_unmap (src, &map);
  fail_unless (pinned_test_all_bytes (dst, 0x61));

  gst_buffer_unref (src);
  gst_buffer_unref (dst);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaHostUnregister (data), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  g_free (data);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* Page-locked memory of another allocator as the destination: it has no
 * fences, so the transfer returns only once the copy into it landed,
 * whether CUDA allocated it (cudaHostAlloc) or registered it
 * (cudaHostRegister). */
GST_START_TEST (test_foreign_pinned_destination_is_waited_for)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  guint k;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 512, 256);

  for (k = 0; k < 2; k++) {
    GstBuffer *src, *dst;
    gpointer data = NULL;
    guint8 *p;
    gsize i;

    fail_unless (gst_pinned_context_push (d.ctx, NULL));
    if (k == 0) {
      fail_unless_equals_int (cudaHostAlloc (&data, info.size,
              cudaHostAllocPortable), cudaSuccess);
    } else {
      data = g_malloc (info.size);
      fail_unless_equals_int (cudaHostRegister (data, info.size,
              cudaHostRegisterDefault), cudaSuccess);
    }
    gst_pinned_context_pop (d.ctx);
    memset (data, 0x00, info.size);
    dst = gst_buffer_new_wrapped_full (0, data, info.size, 0, info.size, NULL,
        NULL);
    src = gst_buffer_new_allocate (d.device, info.size, NULL);
    pinned_test_fill_bytes (src, 0x6b);

    if (!pinned_test_set_copy_delay (DELAY_MS))
      pinned_test_delay_stream (d.stream, DELAY_MS);
    fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
            NULL));
    /* Read as its owner would: the bytes themselves, no map. */
    p = data;
    for (i = 0; i < info.size && p[i] == 0x6b; i++);
    fail_unless (i == info.size, "%s memory: byte %" G_GSIZE_FORMAT " is "
        "0x%02x when the transfer returned", k ? "registered" : "cudaHostAlloc",
        i, p[i]);
    pinned_test_reset ();

    gst_buffer_unref (src);
    gst_buffer_unref (dst);
    fail_unless (gst_pinned_context_push (d.ctx, NULL));
    if (k == 0) {
      fail_unless_equals_int (cudaFreeHost (data), cudaSuccess);
    } else {
      fail_unless_equals_int (cudaHostUnregister (data), cudaSuccess);
      g_free (data);
    }
    gst_pinned_context_pop (d.ctx);
  }
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* TRUE when @mem's bytes are @pattern[@start] onwards (read through a
 * CPU map). */
static gboolean
bytes_are (GstMemory * mem, const guint8 * pattern, gsize start, gsize size)
{
  GstMapInfo map;
  gboolean ok;

  fail_unless (mem != NULL);
  fail_unless_equals_int (gst_memory_get_sizes (mem, NULL, NULL), size);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  ok = map.size == size && memcmp (map.data, pattern + start, size) == 0;
  gst_memory_unmap (mem, &map);
  return ok;
}

/* gst_memory_copy() and gst_memory_share() of page-locked and of device
 * memory with an offset, and of a share (memory that starts at an offset
 * of its own), copy and show the right bytes. */
GST_START_TEST (test_copy_and_share_at_offsets)
{
  const gsize size = 8192;
  PinnedTestDevice d;
  guint8 *pattern = g_malloc (size);
  gsize i;
  guint k;

  pinned_test_device_init (&d);
  for (i = 0; i < size; i++)
    pattern[i] = (guint8) (i * 7 + i / 251);

  for (k = 0; k < 2; k++) {
    GstAllocator *allocator = k ? d.device : d.host;
    const gchar *kind = k ? "device" : "page-locked";
    GstMemory *mem = gst_allocator_alloc (allocator, size, NULL);
    GstMemory *sub, *m;
    GstMapInfo map;

    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
    memcpy (map.data, pattern, size);
    gst_memory_unmap (mem, &map);

    m = gst_memory_copy (mem, 100, 200);
    fail_unless (bytes_are (m, pattern, 100, 200), "%s: copy at 100", kind);
    gst_memory_unref (m);

    sub = gst_memory_share (mem, 1000, 3000);
    fail_unless (bytes_are (sub, pattern, 1000, 3000), "%s: share at 1000",
        kind);

    m = gst_memory_copy (sub, 0, -1);
    fail_unless (bytes_are (m, pattern, 1000, 3000), "%s: copy of a share",
        kind);
    gst_memory_unref (m);
    m = gst_memory_copy (sub, 50, 500);
    fail_unless (bytes_are (m, pattern, 1050, 500), "%s: copy at 50 of a "
        "share at 1000", kind);
    gst_memory_unref (m);
    m = gst_memory_share (sub, 50, 500);
    fail_unless (bytes_are (m, pattern, 1050, 500), "%s: share at 50 of a "
        "share at 1000", kind);
    gst_memory_unref (m);

    gst_memory_unref (sub);
    gst_memory_unref (mem);
  }
  g_free (pattern);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* push/pop leaves the calling thread on the device it chose. */
GST_START_TEST (test_context_push_pop_restores_device)
{
  GstPinnedContext *ctx;
  gint n = 0, dev = -1;
  GError *error = NULL;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  fail_unless (gst_pinned_context_new (n + 3, &error) == NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  g_clear_error (&error);
  if (n < 2)
    return;

  ctx = gst_pinned_context_new (0, NULL);
  fail_unless_equals_int (cudaSetDevice (1), cudaSuccess);
  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaGetDevice (&dev), cudaSuccess);
  fail_unless_equals_int (dev, 0);
  gst_pinned_context_pop (ctx);
  fail_unless_equals_int (cudaGetDevice (&dev), cudaSuccess);
  fail_unless_equals_int (dev, 1);
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* The per-buffer path: no host waits, and no events made per buffer. With
 * both streams held back, frames go through the pair and come out pushed
 * while every copy is still pending. */
GST_START_TEST (test_per_buffer_path_never_waits)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstVideoInfo info;
  GstPinnedStream *upload, *download;
  GstBuffer *in, *out[3];
  guint64 syncs, events;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 1280, 720);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  /* Warm up: pools allocated, and as many events made as the buffers of
   * all pools keep alive (each holds the fences of its last users). */
  for (i = 0; i < 32; i++) {
    in = gst_harness_create_buffer (h, info.size);
    gst_buffer_unref (pinned_test_push_and_pull (h, in));
  }

  /* Let the warm-up frames land: fewer frames than the pools hold are
   * then in flight, and a wait could only come from the per-buffer path,
   * not from backpressure. */
  upload = gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (h->element, "pinnedupload"));
  download = gst_pinned_base_transform_get_stream (pinned_test_get_transform
      (h->element, "pinneddownload"));
  fail_unless (gst_pinned_stream_synchronize (upload, NULL));
  fail_unless (gst_pinned_stream_synchronize (download, NULL));

  pinned_test_delay_stream (upload, DELAY_MS);
  syncs = pinned_test_call_count ("cudaEventSynchronize") +
      pinned_test_call_count ("cudaStreamSynchronize");
  events = pinned_test_call_count ("cudaEventCreateWithFlags");
  for (i = 0; i < G_N_ELEMENTS (out); i++) {
    in = gst_harness_create_buffer (h, info.size);
    out[i] = pinned_test_push_and_pull (h, in);
  }
  for (i = 0; i < G_N_ELEMENTS (out); i++)
    if (pinned_test_work_is_async ())
      fail_if (gst_pinned_buffer_is_idle (out[i], GST_MAP_READ),
          "frame %u was waited for before it was pushed", i);
  if (pinned_test_is_fake ()) {
    fail_unless_equals_int (pinned_test_call_count ("cudaEventSynchronize") +
        pinned_test_call_count ("cudaStreamSynchronize"), syncs);
    fail_unless_equals_int (pinned_test_call_count
        ("cudaEventCreateWithFlags"), events);
  }

  for (i = 0; i < G_N_ELEMENTS (out); i++)
    gst_buffer_unref (out[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A copy that fails on its stream, after the call returned: the fence
 * counts as signalled (finished: nothing left to wait for), but waiting on
 * it returns the CUDA error, and so do a CPU map and a pool's acquire,
 * instead of handing out a frame the copy never wrote. */
GST_START_TEST (test_failed_copy_fails_map)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstBuffer *src, *dst, *again = NULL;
  GstBufferPoolAcquireParams dontwait = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  GstPinnedFence *fence;
  GError *error = NULL;
  GstMapInfo map;

  if (!pinned_test_is_fake ())
    return;                     /* no failure on demand on a GPU */

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 64);
  pool = active_host_pool (d.ctx, &info, 1);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &dst, NULL),
      GST_FLOW_OK);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  pinned_test_fill_bytes (src, 0x3c);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  pinned_test_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL), "the failure showed before the stream got to the copy");
  fence = gst_pinned_memory_get_write_fence ((GstPinnedMemory *)
      gst_buffer_peek_memory (dst, 0));
  fail_unless (fence != NULL);

  fail_if (gst_pinned_fence_wait (fence, &error));
  fail_unless (error && strstr (error->message, "cudaErrorIllegalAddress"),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  /* Finished, if badly: a poll ends, and a wait would not block ... */
  fail_unless (gst_pinned_fence_is_signaled (fence));
  fail_unless (gst_pinned_buffer_is_idle (dst, GST_MAP_READ));
  /* ... but the CPU does not get the frame that never came. */
  fail_if (gst_pinned_buffer_wait (dst, GST_MAP_READ, &error));
  fail_unless (error != NULL);
  g_clear_error (&error);
  fail_if (gst_buffer_map (dst, &map, GST_MAP_READ),
      "a CPU map went ahead on a frame whose copy failed");

  /* Released, it is handed out again to be overwritten: what the failed
   * copy did no longer matters to a writer (the next CUDA call reports the
   * error). Written by the CPU, it reads back what was written. */
  gst_buffer_unref (dst);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &again,
          &dontwait), GST_FLOW_OK);
  pinned_test_fill_bytes (again, 0x5e);
  fail_unless (pinned_test_all_bytes (again, 0x5e));
  gst_buffer_unref (again);
  pinned_test_reset ();
  gst_pinned_fence_unref (fence);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE),
      "the pool lost a buffer");
  gst_object_unref (pool);
  gst_buffer_unref (src);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A map for READWRITE reads too: after a copy into the memory failed on
 * its stream it fails, as a map for READ does, instead of handing the
 * CPU the bytes the copy never wrote to modify; a map for WRITE only
 * goes on. */
GST_START_TEST (test_failed_copy_fails_readwrite_map)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *src, *dst;
  GError *error = NULL;
  GstMapInfo map;

  if (!pinned_test_is_fake ())
    return;                     /* no failure on demand on a GPU */

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 256, 64);
  src = gst_buffer_new_allocate (d.device, info.size, NULL);
  pinned_test_fill_bytes (src, 0x3c);
  dst = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_bytes (dst, 0x11);

  pinned_test_delay_stream (d.stream, DELAY_MS);
  pinned_test_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, src, dst,
          NULL), "the failure showed before the stream got to the copy");

  fail_if (gst_pinned_buffer_wait (dst, GST_MAP_READWRITE, &error),
      "a wait for READWRITE succeeded on a frame whose copy failed");
  fail_unless (error && strstr (error->message, "cudaErrorIllegalAddress"),
      "the READWRITE wait's error: %s", error ? error->message : "none");
  g_clear_error (&error);
  fail_if (gst_buffer_map (dst, &map, GST_MAP_READWRITE),
      "a CPU map for READWRITE went ahead on a frame whose copy failed");
  /* The writer alone overwrites: it goes on. */
  fail_unless (gst_buffer_map (dst, &map, GST_MAP_WRITE),
      "a CPU map for WRITE failed after a failed copy");
  gst_buffer_unmap (dst, &map);

  pinned_test_reset ();
  gst_buffer_unref (dst);
  gst_buffer_unref (src);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A copy on @stream that skips the fences. */
static void
raw_copy (GstPinnedStream * stream, GstBuffer * dst, GstBuffer * src,
    gsize size, enum cudaMemcpyKind kind)
{
  GstPinnedContext *ctx = gst_pinned_stream_get_context (stream);
  GstMemory *d = gst_buffer_peek_memory (dst, 0);
  GstMemory *s = gst_buffer_peek_memory (src, 0);

  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaMemcpyAsync (((GstPinnedMemory *) d)->data,
          ((GstPinnedMemory *) s)->data, size, kind,
          gst_pinned_stream_get_handle (stream)), cudaSuccess);
  gst_pinned_context_pop (ctx);
}

typedef struct
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstPinnedStream *s[3];
  GstBuffer *a, *b, *dev, *out[2];
} Readers;

/* A device buffer holding frame a, frame b to write it with, three more
 * streams and two buffers to read into. */
static void
readers_init (Readers * r)
{
  guint i;

  pinned_test_device_init (&r->d);
  gst_video_info_set_format (&r->info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  for (i = 0; i < 3; i++)
    r->s[i] = gst_pinned_stream_new (r->d.ctx, NULL);
  r->a = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  r->b = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  r->dev = gst_buffer_new_allocate (r->d.device, r->info.size, NULL);
  for (i = 0; i < 2; i++)
    r->out[i] = gst_buffer_new_allocate (r->d.host, r->info.size, NULL);
  pinned_test_fill_frame (r->a, &r->info, 11);
  pinned_test_fill_frame (r->b, &r->info, 12);
  fail_unless (gst_pinned_transfer_video_frame (r->d.stream, &r->info, r->a,
          r->dev, NULL));
  fail_unless (gst_pinned_stream_synchronize (r->d.stream, NULL));
}

static void
readers_clear (Readers * r)
{
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless (gst_pinned_stream_synchronize (r->s[i], NULL));
  gst_buffer_unref (r->a);
  gst_buffer_unref (r->b);
  gst_buffer_unref (r->dev);
  for (i = 0; i < 2; i++)
    gst_buffer_unref (r->out[i]);
  for (i = 0; i < 3; i++)
    gst_pinned_stream_unref (r->s[i]);
  pinned_test_device_clear (&r->d);
}

/* One buffer read on two streams, then written on a third: the writer
 * waits for both readers, the held-back one included. */
GST_START_TEST (test_readers_on_several_streams)
{
  Readers r;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
          r.out[0], NULL));
  fail_unless (gst_pinned_transfer_video_frame (r.s[1], &r.info, r.dev,
          r.out[1], NULL));
  fail_unless (gst_pinned_transfer_video_frame (r.s[2], &r.info, r.b, r.dev,
          NULL));

  fail_unless (pinned_test_frames_equal (r.a, r.out[0], &r.info),
      "the write did not wait for the first (held-back) reader");
  fail_unless (pinned_test_frames_equal (r.a, r.out[1], &r.info));
  fail_unless (pinned_test_frames_equal (r.b, r.dev, &r.info));
  readers_clear (&r);
}

GST_END_TEST;

/* Control: a write that waits for the last reader only lands before the
 * held-back first reader reads. */
GST_START_TEST (test_write_after_last_reader_only_corrupts)
{
  Readers r;
  GstPinnedFence *last;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
          r.out[0], NULL));
  fail_unless (gst_pinned_transfer_video_frame (r.s[1], &r.info, r.dev,
          r.out[1], NULL));
  last = gst_pinned_stream_record_fence (r.s[1], NULL);
  fail_unless (gst_pinned_fence_wait_on_stream (last, r.s[2], NULL));
  raw_copy (r.s[2], r.dev, r.b, r.info.size, cudaMemcpyHostToDevice);

  if (pinned_test_work_is_async ())
    fail_if (pinned_test_frames_equal (r.a, r.out[0], &r.info),
        "the write did not race the held-back reader");
  gst_pinned_fence_unref (last);
  readers_clear (&r);
}

GST_END_TEST;

/* Readers of one stream replace each other (a stream runs in order), and
 * a writer replaces writer and readers: the fences a write waits for stay
 * bounded by the streams involved, not the accesses. */
GST_START_TEST (test_fences_bounded_by_streams)
{
  Readers r;
  guint64 waits;
  guint i;

  readers_init (&r);
  for (i = 0; i < 10; i++)
    fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
            r.out[0], NULL));
  /* A write on another stream: one wait for the writer, one for the
   * last reader of r.s[0]. */
  waits = pinned_test_call_count ("cudaStreamWaitEvent");
  fail_unless (gst_pinned_buffer_sync_stream (r.dev, r.s[1], GST_MAP_WRITE,
          NULL));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent") -
        waits, 2);

  fail_unless (gst_pinned_transfer_video_frame (r.s[1], &r.info, r.b, r.dev,
          NULL));
  /* Written on r.s[1]: the next writer waits for that write alone. */
  waits = pinned_test_call_count ("cudaStreamWaitEvent");
  fail_unless (gst_pinned_transfer_video_frame (r.s[2], &r.info, r.a, r.dev,
          NULL));
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaStreamWaitEvent") -
        waits, 1);
  fail_unless (pinned_test_frames_equal (r.a, r.dev, &r.info));
  readers_clear (&r);
}

GST_END_TEST;

/* A write on one stream after a held-back write on another lands last. */
GST_START_TEST (test_write_after_write_on_another_stream)
{
  Readers r;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.b, r.dev,
          NULL));
  fail_unless (gst_pinned_transfer_video_frame (r.s[1], &r.info, r.a, r.dev,
          NULL));
  fail_unless (pinned_test_frames_equal (r.a, r.dev, &r.info),
      "the earlier, held-back write landed last");
  readers_clear (&r);
}

GST_END_TEST;

/* A CPU wait for WRITE clears the fences it waited for: they signalled,
 * and later checks need not ask again. */
GST_START_TEST (test_cpu_wait_clears_fences)
{
  Readers r;
  GstPinnedMemory *mem;
  GstPinnedFence *fence;

  readers_init (&r);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
          r.out[0], NULL));
  mem = (GstPinnedMemory *) gst_buffer_peek_memory (r.out[0], 0);
  fence = gst_pinned_memory_get_write_fence (mem);
  fail_unless (fence != NULL);
  gst_pinned_fence_unref (fence);
  fail_unless (gst_pinned_buffer_wait (r.out[0], GST_MAP_WRITE, NULL));
  fence = gst_pinned_memory_get_write_fence (mem);
  fail_unless (fence == NULL, "the fences outlived the wait");
  readers_clear (&r);
}

GST_END_TEST;

/* A CPU write of device memory lands (at unmap) only after the GPU reads
 * that were enqueued before it. */
GST_START_TEST (test_device_cpu_write_waits_for_readers)
{
  Readers r;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
          r.out[0], NULL));
  pinned_test_fill_bytes (r.dev, 0x55);
  fail_unless (pinned_test_frames_equal (r.a, r.out[0], &r.info),
      "the CPU write landed before the held-back read");
  fail_unless (pinned_test_all_bytes (r.dev, 0x55));
  readers_clear (&r);
}

GST_END_TEST;

/* gst_memory_copy() of device memory (a deep buffer copy) copies the frame
 * its held-back writer is still writing, and returns a complete copy. */
GST_START_TEST (test_device_memory_copy_waits_for_writer)
{
  Readers r;
  GstBuffer *copy;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.b, r.dev,
          NULL));
  copy = gst_buffer_copy_deep (r.dev);
  fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (copy, 0)));
  fail_unless (pinned_test_frames_equal (r.b, copy, &r.info),
      "the copy did not wait for the frame's writer");
  gst_buffer_unref (copy);
  readers_clear (&r);
}

GST_END_TEST;

/* The copy is done when gst_memory_copy() returns (it carries no fence):
 * a stream that reads it at once, with the legacy default stream (where
 * the copy runs) held back, reads the frame. */
GST_START_TEST (test_device_memory_copy_is_complete)
{
  Readers r;
  GstPinnedStream *legacy;
  GstBuffer *copy;

  readers_init (&r);
  legacy = pinned_test_legacy_stream (r.d.ctx);
  pinned_test_delay_stream (legacy, DELAY_MS);
  copy = gst_buffer_copy_deep (r.dev);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, copy,
          r.out[0], NULL));
  fail_unless (pinned_test_frames_equal (r.a, r.out[0], &r.info),
      "the copy was still running when gst_memory_copy() returned");
  gst_buffer_unref (copy);
  gst_pinned_stream_unref (legacy);
  readers_clear (&r);
}

GST_END_TEST;

/* A deep copy of page-locked memory waits for the copy that writes it. */
GST_START_TEST (test_host_memory_copy_waits_for_writer)
{
  Readers r;
  GstBuffer *copy;

  readers_init (&r);
  pinned_test_delay_stream (r.s[0], DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (r.s[0], &r.info, r.dev,
          r.out[0], NULL));
  copy = gst_buffer_copy_deep (r.out[0]);
  fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (copy, 0)));
  fail_unless (pinned_test_frames_equal (r.a, copy, &r.info),
      "the copy did not wait for the frame's writer");
  gst_buffer_unref (copy);
  readers_clear (&r);
}

GST_END_TEST;

/* The elements' streams are non-blocking: their work neither waits for
 * the legacy default stream nor holds it up. A frame goes through the
 * pair while the legacy stream is held back. */
GST_START_TEST (test_element_streams_are_non_blocking)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  const gchar *names[] = { "pinnedupload", "pinneddownload" };
  GstPinnedStream *legacy;
  GstPinnedFence *held;
  GstVideoInfo info;
  GstBuffer *in, *out;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_harness_create_buffer (h, info.size);
  gst_buffer_unref (pinned_test_push_and_pull (h, in));

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstPinnedStream *stream =
        gst_pinned_base_transform_get_stream (pinned_test_get_transform
        (h->element, names[i]));
    unsigned int flags = 0;

    fail_unless_equals_int (cudaStreamGetFlags (gst_pinned_stream_get_handle
            (stream), &flags), cudaSuccess);
    fail_unless (flags & cudaStreamNonBlocking, "%s: a blocking stream",
        names[i]);
  }

  legacy = pinned_test_legacy_stream (gst_pinned_base_transform_get_context
      (pinned_test_get_transform (h->element, "pinnedupload")));
  pinned_test_delay_stream (legacy, 2 * DELAY_MS);
  held = gst_pinned_stream_record_fence (legacy, NULL);
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 3);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (pinned_test_frames_equal (in, out, &info));
  fail_if (gst_pinned_fence_is_signaled (held),
      "the frame waited for the legacy default stream");

  fail_unless (gst_pinned_fence_wait (held, NULL));
  gst_pinned_fence_unref (held);
  gst_pinned_stream_unref (legacy);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A fence's event belongs to its stream's device, whatever device the
 * calling thread has current (an application thread may use another). */
GST_START_TEST (test_fences_on_the_context_device)
{
  GstPinnedContext *ctx;
  GstPinnedStream *stream;
  GstPinnedFence *fence;
  gint n = 0;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  if (n < 2)
    return;

  ctx = gst_pinned_context_new (1, NULL);
  stream = gst_pinned_stream_new (ctx, NULL);
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  fence = gst_pinned_stream_record_fence (stream, NULL);
  fail_unless (fence != NULL, "no fence on device 1 from a device 0 thread");
  fail_unless (gst_pinned_fence_wait (fence, NULL));

  gst_pinned_fence_unref (fence);
  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);
}

GST_END_TEST;

static Suite *
memory_suite (void)
{
  Suite *s = suite_create ("memory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* A failed test leaves no injected failure or poisoned device behind. */
  tcase_add_checked_fixture (tc, NULL, pinned_test_reset);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_fences_are_recycled);
  tcase_add_test (tc, test_is_pinned_memory);
  tcase_add_test (tc, test_fence_orders_streams);
  tcase_add_test (tc, test_same_stream_needs_no_wait);
  tcase_add_test (tc, test_later_fence_vouches_for_earlier);
  tcase_add_test (tc, test_pool_gate_waits_ahead);
  tcase_add_test (tc, test_device_writer_paced);
  tcase_add_test (tc, test_pace_asks_rarely_behind_a_gate);
  tcase_add_test (tc, test_pace_after_the_stream_is_gone);
  tcase_add_test (tc, test_fence_of_a_destroyed_stream);
  tcase_add_test (tc, test_fence_event_flags);
  tcase_add_test (tc, test_fences_on_the_context_device);
  tcase_add_test (tc, test_events_balance);
  tcase_add_test (tc, test_free_waits_for_fences);
  tcase_add_test (tc, test_device_memory_maps);
  tcase_add_test (tc, test_locked_bytes_counted);
  tcase_add_test (tc, test_shared_memory_keeps_fences);
  tcase_add_test (tc, test_foreign_pinned_source_is_waited_for);
  tcase_add_test (tc, test_context_push_pop_restores_device);
  tcase_add_test (tc, test_per_buffer_path_never_waits);
  tcase_add_test (tc, test_failed_copy_fails_map);
  tcase_add_test (tc, test_failed_copy_fails_readwrite_map);
  tcase_add_test (tc, test_readers_on_several_streams);
  tcase_add_test (tc, test_write_after_last_reader_only_corrupts);
  tcase_add_test (tc, test_fences_bounded_by_streams);
  tcase_add_test (tc, test_write_after_write_on_another_stream);
  tcase_add_test (tc, test_cpu_wait_clears_fences);
  tcase_add_test (tc, test_device_cpu_write_waits_for_readers);
  tcase_add_test (tc, test_device_memory_copy_waits_for_writer);
  tcase_add_test (tc, test_device_memory_copy_is_complete);
  tcase_add_test (tc, test_host_memory_copy_waits_for_writer);
  tcase_add_test (tc, test_foreign_pinned_destination_is_waited_for);
  tcase_add_test (tc, test_copy_and_share_at_offsets);
  tcase_add_test (tc, test_element_streams_are_non_blocking);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, memory_suite);
}
