/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Frames in pageable memory: the ways pinnedupload's pageable-mode chooses
 * (registration of memory that comes back, threaded staging, CUDA's own
 * staging) each give every frame bit-exact, for odd sizes and strides,
 * fresh and recycled sources, one or several memories; a registration
 * lives exactly as long as its memory and never ends while a copy reads
 * it (a hazard test with its control); the staging threads are joined on
 * flush and stop; a source whose buffers change between frames leaves no
 * registration behind; the library's download into pageable memory is
 * staged bit-exact too. */

/* memfd_create() */
#define _GNU_SOURCE

#include <string.h>
#include <dlfcn.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>
#include <gst/allocators/gstfdmemory.h>
#include <gst/allocators/gstdmabuf.h>
#include "pinnedtest.h"

#define N_FRAMES 6
#define DELAY_MS pinned_test_ms (150)

static const gchar *modes[] = { "auto", "register", "stage", "direct" };

static const struct
{
  GstVideoFormat format;
  gint width, height;
} confs[] = {
  {GST_VIDEO_FORMAT_I420, 641, 479},    /* planar, odd: chroma rounds up */
  {GST_VIDEO_FORMAT_NV12, 1920, 1080},
  {GST_VIDEO_FORMAT_RGBA, 333, 211},
  {GST_VIDEO_FORMAT_YUY2, 317, 239},
  {GST_VIDEO_FORMAT_v210, 1281, 17},
  {GST_VIDEO_FORMAT_GRAY8, 7, 5},       /* too small to register */
};

typedef enum
{
  SOURCE_FRESH,                 /* a new malloc()ed buffer per frame */
  SOURCE_FRESH_PADDED,          /* the same with padded strides */
  SOURCE_RECYCLED,              /* a system-memory pool of 3, padded */
  SOURCE_PLANES,                /* each plane its own fresh memory */
  SOURCE_LAST
} Source;

static const gchar *source_names[] = {
  "fresh", "fresh-padded", "recycled", "planes"
};

static GstBufferPool *
new_sysmem_pool (const GstVideoInfo * info, guint n, guint pad)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstCaps *caps = gst_video_info_to_caps (info);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoAlignment align;
  GstVideoInfo padded = *info;

  gst_video_alignment_reset (&align);
  align.padding_right = pad;
  gst_video_info_align (&padded, &align);
  gst_buffer_pool_config_set_params (config, caps, padded.size, n, n);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_buffer_pool_config_set_video_alignment (config, &align);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);

  return pool;
}

/* Each plane in a memory of its own, with a GstVideoMeta. */
static GstBuffer *
new_planes_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize offset[GST_VIDEO_MAX_PLANES];
  guint p, n = GST_VIDEO_INFO_N_PLANES (info);
  gsize pos = 0;

  for (p = 0; p < n; p++) {
    gsize end = p + 1 < n ? info->offset[p + 1] : info->size;
    gsize size = end - info->offset[p];

    gst_buffer_append_memory (buf, gst_allocator_alloc (NULL, size, NULL));
    offset[p] = pos;
    pos += size;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, offset, (gint *) info->stride);
  pinned_test_fill_frame (buf, info, seed);
  return buf;
}

static GstBuffer *
make_input (Source source, const GstVideoInfo * info, GstBufferPool * pool,
    guint32 seed)
{
  GstBuffer *buf = NULL;

  switch (source) {
    case SOURCE_FRESH:
      buf = gst_buffer_new_allocate (NULL, info->size, NULL);
      pinned_test_fill_frame (buf, info, seed);
      break;
    case SOURCE_FRESH_PADDED:
      buf = pinned_test_new_padded_frame (info, 13, seed);
      break;
    case SOURCE_RECYCLED:
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
              NULL), GST_FLOW_OK);
      pinned_test_fill_frame (buf, info, seed);
      break;
    case SOURCE_PLANES:
      buf = new_planes_frame (info, seed);
      break;
    default:
      g_assert_not_reached ();
  }
  fail_if (gst_is_pinned_memory (gst_buffer_peek_memory (buf, 0)));
  return buf;
}

static GstHarness *
new_pair (const gchar * mode, const gchar * extra, const GstVideoInfo * info)
{
  gchar *launch = g_strdup_printf ("pinnedupload name=up pageable-mode=%s %s "
      "! pinneddownload", mode, extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (launch);
  GstCaps *caps = gst_video_info_to_caps (info);

  g_free (launch);
  gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE, NULL);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

static GstStructure *
stats_of (GstHarness * h)
{
  GstElement *up = gst_harness_find_element (h, "pinnedupload");
  GstStructure *stats = NULL;

  g_object_get (up, "pageable-stats", &stats, NULL);
  gst_object_unref (up);
  return stats;
}

static guint64
stat (GstHarness * h, const gchar * field)
{
  GstStructure *stats = stats_of (h);
  guint64 v = 0;
  guint u;

  /* None before the first frame. */
  if (stats == NULL)
    return 0;
  if (!gst_structure_get_uint64 (stats, field, &v)) {
    fail_unless (gst_structure_get_uint (stats, field, &u));
    v = u;
  }
  gst_structure_free (stats);
  return v;
}

static GstPinnedStream *
upload_stream (GstHarness * h)
{
  GstElement *up = gst_harness_find_element (h, "pinnedupload");
  GstPinnedStream *stream =
      gst_pinned_base_transform_get_stream (GST_PINNED_BASE_TRANSFORM (up));

  gst_object_unref (up);
  fail_unless (stream != NULL);
  return stream;
}

static void
check_mode (const gchar * mode, Source source, guint c)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool = NULL;
  guint i;
  gboolean small;

  gst_video_info_set_format (&info, confs[c].format, confs[c].width,
      confs[c].height);
  /* Below what is worth registering (64 KiB). */
  small = info.size < 128 * 1024;
  h = new_pair (mode, "copy-threads=3", &info);
  if (source == SOURCE_RECYCLED)
    pool = new_sysmem_pool (&info, 3, 5);

  for (i = 0; i < N_FRAMES; i++) {
    guint32 seed = g_str_hash (mode) + source * 77 + c * 1000 + i;
    GstBuffer *in = make_input (source, &info, pool, seed);
    GstBuffer *ref = gst_buffer_copy_deep (in);
    GstBuffer *out;

    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    fail_unless (pinned_test_frames_equal (ref, out, &info),
        "%s %s %s %dx%d frame %u differs", mode, source_names[source],
        gst_video_format_to_string (confs[c].format), confs[c].width,
        confs[c].height, i);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);
  }

  /* The way each mode takes. */
  if (g_str_equal (mode, "direct")) {
    fail_unless (stat (h, "direct") > 0);
    fail_unless_equals_int (stat (h, "staged") + stat (h, "registered"), 0);
  } else if (g_str_equal (mode, "stage")) {
    fail_unless (stat (h, "staged") > 0);
    fail_unless_equals_int (stat (h, "direct") + stat (h, "registered"), 0);
  } else if (g_str_equal (mode, "register")) {
    fail_unless_equals_int (stat (h, "direct"), 0);
    if (!small)
      fail_unless (stat (h, "registered") > 0);
  } else {
    fail_unless_equals_int (stat (h, "direct"), 0);
    /* Fresh memory is never registered; memory that comes back is. */
    if (source != SOURCE_RECYCLED || small) {
      fail_unless_equals_int (stat (h, "registered"), 0);
    } else {
      fail_unless (stat (h, "registered") > 0);
    }
  }

  gst_harness_teardown (h);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
}

GST_START_TEST (test_modes_bitexact)
{
  guint m = __i__ / SOURCE_LAST, s = __i__ % SOURCE_LAST, c;

  for (c = 0; c < G_N_ELEMENTS (confs); c++)
    check_mode (modes[m], s, c);
}

GST_END_TEST;

/* Pushes N_FRAMES frames of @source through @h, the upload's copies held
 * back before each but the first, so that the next frame's input is taken
 * while the earlier copies have not read theirs; every frame must arrive as
 * it was. */
static void
check_copies_held_back (GstHarness * h, Source source, GstBufferPool * pool,
    const GstVideoInfo * info, guint32 seed, const gchar * what)
{
  GstBuffer *refs[N_FRAMES], *outs[N_FRAMES];
  guint i;

  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *in;

    if (i > 0)
      pinned_test_delay_stream (upload_stream (h), DELAY_MS / 3);
    in = make_input (source, info, pool, seed + i);
    refs[i] = gst_buffer_copy_deep (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    outs[i] = gst_harness_pull (h);
  }

  for (i = 0; i < N_FRAMES; i++) {
    fail_unless (pinned_test_frames_equal (refs[i], outs[i], info),
        "frame %u: %s", i, what);
    gst_buffer_unref (refs[i]);
    gst_buffer_unref (outs[i]);
  }
}

/* A recycling source's buffers are kept until their copies are done: the
 * source cannot get a buffer back from its pool, and write it, while the
 * DMA engine still reads it. Copies are held back, the source refills
 * buffers as soon as its pool hands them out, and every frame must still
 * arrive as it was. */
GST_START_TEST (test_registered_source_not_reused_early)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  h = new_pair ("register", NULL, &info);
  pool = new_sysmem_pool (&info, 3, 0);

  check_copies_held_back (h, SOURCE_RECYCLED, pool, &info, 500,
      "overwritten while it was copied");
  fail_unless (stat (h, "registered") > 0);

  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_END_TEST;

/* A staging buffer is written again only once the copy that reads it is
 * done: with copies held back, the next frames are staged while the
 * earlier copies have not read theirs yet, and every frame must still
 * arrive as it was. */
GST_START_TEST (test_staging_buffer_not_reused_early)
{
  GstVideoInfo info;
  GstHarness *h;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  h = new_pair ("stage", NULL, &info);

  check_copies_held_back (h, SOURCE_FRESH, NULL, &info, 700,
      "its staging buffer was written again while it was copied");
  fail_unless (stat (h, "staged") >= N_FRAMES);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Control: registered memory really is read late. A registered source
 * written right after its copy was enqueued on a held-back stream arrives
 * with the later content: holding the input is what keeps frames right. */
GST_START_TEST (test_registered_copy_reads_late_control)
{
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *dst, *back;
  GstMapInfo map;
  guint8 *data;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  data = g_malloc (info.size);
  memset (data, 0x11, info.size);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaHostRegister (data, info.size,
          cudaHostRegisterDefault), cudaSuccess);
  dst = gst_buffer_new_allocate (d.device, info.size, NULL);
  fail_unless (gst_buffer_map (dst, &map, GST_MAP_WRITE | GST_MAP_PINNED_GPU));

  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless_equals_int (cudaMemcpyAsync (map.data, data, info.size,
          cudaMemcpyHostToDevice, gst_pinned_stream_get_cuda_stream
          (d.stream)), cudaSuccess);
  gst_buffer_unmap (dst, &map);
  gst_pinned_buffer_record_fence (dst, d.stream, GST_MAP_WRITE, NULL);
  /* No hold, no wait: the owner writes at once. */
  memset (data, 0x22, info.size);

  back = gst_buffer_new_allocate (d.host, info.size, NULL);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dst, back,
          NULL));
  fail_unless (pinned_test_all_bytes (back, 0x22),
      "the control copy read the source at once: the hazard test proves "
      "nothing");

  gst_buffer_unref (back);
  gst_buffer_unref (dst);
  fail_unless_equals_int (cudaHostUnregister (data), cudaSuccess);
  gst_pinned_context_pop (d.ctx);
  g_free (data);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static void
flush (GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
}

/* Data after a flush needs a segment again. */
static void
push_segment (GstHarness * h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* Pushes one frame of each of the pool's three buffers (register mode:
 * three registrations, each the memory's whole pages: its size less at
 * most a partial page at each end, which depend on where it lies).
 * Returns the bytes they registered together. */
static guint64
register_three (GstHarness * h, GstBufferPool * pool, const GstVideoInfo * info)
{
  guint64 before = stat (h, "registered-bytes"), three;
  guint i;

  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_input (SOURCE_RECYCLED,
            info, pool, 900 + i));

    gst_buffer_unref (out);
  }
  three = stat (h, "registered-bytes") - before;
  fail_unless (three >= 3 * (info->size - 2 * 4096) && three <= 3 * info->size,
      "%" G_GUINT64_FORMAT " bytes registered for three buffers of %"
      G_GSIZE_FORMAT, three, info->size);
  return three;
}

/* A registration goes with its memory: it is dropped when the memory is
 * freed, and a memory whose copy still runs is neither freed nor
 * unregistered before the copy is done. */
GST_START_TEST (test_registration_lives_with_memory)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool;
  GstBuffer *out;
  guint64 unregistered, three, locked;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  h = new_pair ("register", NULL, &info);

  /* Idle memory freed: unregistered at once, and no longer counted as
   * page-locked. */
  pool = new_sysmem_pool (&info, 3, 0);
  unregistered = pinned_test_call_count ("cudaHostUnregister");
  three = register_three (h, pool, &info);
  fail_unless_equals_int (stat (h, "registered-bytes"), three);
  locked = gst_pinned_host_memory_get_locked_bytes ();
  fail_unless (locked >= three);
  flush (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  fail_unless_equals_int (stat (h, "registered-bytes"), 0);
  fail_unless_equals_uint64 (locked - gst_pinned_host_memory_get_locked_bytes
      (), three);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostUnregister") -
        unregistered, 3);

  /* A copy held back, then the source goes away (its pool frees its
   * buffers once the last is back). */
  push_segment (h);
  pool = new_sysmem_pool (&info, 3, 0);
  unregistered = pinned_test_call_count ("cudaHostUnregister");
  three = register_three (h, pool, &info);
  pinned_test_delay_stream (upload_stream (h), DELAY_MS);
  fail_unless_equals_int (gst_harness_push (h, make_input (SOURCE_RECYCLED,
              &info, pool, 903)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);

  /* The buffer being copied is kept, so nothing is freed yet. */
  fail_unless_equals_int (stat (h, "held"), 1);
  fail_unless_equals_int (stat (h, "registered-bytes"), three);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostUnregister"),
        unregistered);

  /* Its copy done, it goes back; the pool frees all three. */
  flush (h);
  fail_unless_equals_int (stat (h, "held"), 0);
  fail_unless_equals_int (stat (h, "registered-bytes"), 0);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostUnregister") -
        unregistered, 3);
  fail_unless (pinned_test_all_bytes (out, 0) == FALSE);
  gst_buffer_unref (out);

  gst_harness_teardown (h);
}

GST_END_TEST;

static guint
count_threads (void)
{
  GPtrArray *tids = pinned_test_threads (NULL);
  guint n = tids->len;

  g_ptr_array_unref (tids);
  return n;
}

/* The names of this process's threads, for a failure's message. */
static gchar *
thread_names (void)
{
  GPtrArray *tids = pinned_test_threads (NULL);
  GString *names = g_string_new (NULL);
  guint i;

  for (i = 0; i < tids->len; i++) {
    gchar *path = g_build_filename ("/proc/self/task",
        (gchar *) g_ptr_array_index (tids, i), "comm", NULL);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL))
      g_string_append_printf (names, "%s%s", i ? ", " : "", g_strchomp (comm));
    g_free (comm);
    g_free (path);
  }
  g_ptr_array_unref (tids);
  return g_string_free (names, FALSE);
}

/* Threads of earlier tests (the stand-in's streams) may still be exiting:
 * the count once it held for a while. */
static guint
count_threads_settled (void)
{
  guint n = count_threads (), last = G_MAXUINT, i;

  for (i = 0; i < 100 && n != last; i++) {
    g_usleep (20000);
    last = n;
    n = count_threads ();
  }
  return n;
}

/* Threads that end take a while to be gone (long under valgrind): TRUE
 * once the process is down to @n threads, FALSE if it is not within a few
 * seconds. */
static gboolean
threads_down_to (guint n)
{
  gint64 end = g_get_monotonic_time () + pinned_test_ms (2000) * 1000;

  while (count_threads () > n) {
    if (g_get_monotonic_time () > end)
      return FALSE;
    g_usleep (10000);
  }
  return TRUE;
}

/* The staging threads run while frames are staged and are joined on a
 * flush and at stop. */
GST_START_TEST (test_staging_threads_joined)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *out;
  guint before, i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 1920, 1080);
  before = count_threads_settled ();
  h = new_pair ("stage", "copy-threads=4", &info);

  for (i = 0; i < 2; i++) {
    out = gst_harness_push_and_pull (h, make_input (SOURCE_FRESH, &info,
            NULL, i));
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (stat (h, "copy-threads"), 4);
  fail_unless_equals_int (stat (h, "running-threads"), 3);

  flush (h);
  fail_unless_equals_int (stat (h, "running-threads"), 0);
  push_segment (h);

  out = gst_harness_push_and_pull (h, make_input (SOURCE_FRESH, &info, NULL,
          7));
  gst_buffer_unref (out);
  fail_unless_equals_int (stat (h, "running-threads"), 3);

  gst_harness_teardown (h);
  /* Stop joined them: the process is back to its threads (with the
   * stand-in only: a real runtime may start threads of its own). GLib
   * keeps the threads of a freed pool, idle, for later pools (since 2.80
   * every one of them): ended first, as they run nothing of ours. */
  g_thread_pool_stop_unused_threads ();
  if (pinned_test_is_fake () && !threads_down_to (before)) {
    gchar *names = thread_names ();

    fail ("%u threads where %u were before: %s", count_threads (), before,
        names);
    g_free (names);
  }
}

GST_END_TEST;

/* A flush (as stop) returns only once the staging threads are done: no
 * worker touches the context afterwards (it would be a freed one after a
 * stop). A download staged on eight threads hands each worker a task
 * that pushes the context first, and the caller copies what the workers
 * have not taken: tasks may still be queued when the download returns.
 * Threads that keep every CPU busy meanwhile make the workers start late,
 * which opens that window. After the flush, no context is pushed any more
 * (counted by the driver stand-in; fake only). */
static gint spinning;

static gpointer
spin (gpointer data)
{
  while (g_atomic_int_get (&spinning));
  return NULL;
}

GST_START_TEST (test_staging_workers_done_when_flush_returns)
{
  gpointer driver = NULL;
  guint64 (*calls) (const char *) = NULL;
  PinnedTestDevice d;
  GstVideoInfo info;
  GstBuffer *host, *dev, *dst;
  guint round, i, n_spinners = 2 * g_get_num_processors ();
  GThread **spinners;

  if (pinned_test_is_fake ())
    driver = dlopen ("libcuda.so.1", RTLD_LAZY);
  if (driver)
    calls = dlsym (driver, "fakecuda_driver_call_count");
  if (calls == NULL) {
    g_print ("not the driver stand-in: context pushes not counted\n");
    if (driver)
      dlclose (driver);
    return;
  }

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 1920, 1080);
  host = gst_buffer_new_allocate (d.host, info.size, NULL);
  pinned_test_fill_frame (host, &info, 77);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, host, dev,
          NULL));
  dst = gst_buffer_new_allocate (NULL, info.size, NULL);

  g_atomic_int_set (&spinning, 1);
  spinners = g_new (GThread *, n_spinners);
  for (i = 0; i < n_spinners; i++)
    spinners[i] = g_thread_new ("spin", spin, NULL);
  for (round = 0; round < 20; round++) {
    GstPinnedPageable *pageable = gst_pinned_pageable_new (d.ctx);
    guint64 pushes;

    gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_STAGE);
    gst_pinned_pageable_set_threads (pageable, 8);
    fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info, dev,
            dst, pageable, NULL));
    fail_unless (gst_pinned_pageable_flush (pageable, NULL));
    pushes = calls ("cuCtxPushCurrent_v2");
    g_usleep (pinned_test_ms (20) * 1000);
    fail_unless (calls ("cuCtxPushCurrent_v2") == pushes, "round %u: a "
        "staging worker pushed the context after the flush returned", round);
    gst_object_unref (pageable);
  }
  g_atomic_int_set (&spinning, 0);
  for (i = 0; i < n_spinners; i++)
    g_thread_join (spinners[i]);
  g_free (spinners);
  fail_unless (pinned_test_frames_equal (host, dst, &info));

  gst_buffer_unref (dst);
  gst_buffer_unref (dev);
  gst_buffer_unref (host);
  pinned_test_device_clear (&d);
  dlclose (driver);
}

GST_END_TEST;

/* A fresh frame's memory, poisoned as it is freed: a copy that reads it
 * after its release reads the poison. Counts the releases, and those on
 * another thread than @fresh_thread. */
static gint fresh_released;
static gint fresh_released_elsewhere;
static GThread *fresh_thread;

static void
poison_and_free (gpointer data)
{
  GstMapInfo *map = data;

  memset (map->data, 0xa5, map->size);
  g_free (map->data);
  g_free (map);
  if (g_thread_self () != fresh_thread)
    g_atomic_int_inc (&fresh_released_elsewhere);
  g_atomic_int_inc (&fresh_released);
}

static GstBuffer *
new_poisoned_frame (const GstVideoInfo * info, guint32 seed)
{
  GstMapInfo *keep = g_new0 (GstMapInfo, 1);
  GstBuffer *buf;

  keep->size = info->size;
  keep->data = g_malloc (info->size);
  buf = gst_buffer_new_wrapped_full (0, keep->data, keep->size, 0,
      keep->size, keep, poison_and_free);
  pinned_test_fill_frame (buf, info, seed);
  return buf;
}

static void
reset_released (void)
{
  g_atomic_int_set (&fresh_released, 0);
  g_atomic_int_set (&fresh_released_elsewhere, 0);
  fresh_thread = g_thread_self ();
}

/* Staging threads copy a fresh frame while the upload goes on (detached):
 * the frame's memory must live until they are done, and the DMA from
 * staging must follow them. Fresh NV12 4K frames (12 MB: the threads copy
 * for milliseconds) are handed over for good and poisoned as they are
 * released; each must arrive as it was, and each is released once, by
 * the thread that streams (here the test's, where a source's own frees
 * are), not before the next frame (the first is still kept when its output
 * is out), at the latest at the end of the stream. With the stream running
 * freely, a DMA that did not wait for the threads would read staging before
 * they wrote it. */
GST_START_TEST (test_fresh_source_kept_until_staged)
{
  GstBuffer *refs[N_FRAMES], *outs[N_FRAMES];
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 3840, 2160);
  h = new_pair ("stage", "copy-threads=3", &info);
  reset_released ();

  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *in = new_poisoned_frame (&info, 900 + i);

    refs[i] = gst_buffer_copy_deep (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    outs[i] = gst_harness_pull (h);
    if (i == 0)
      fail_unless_equals_int (g_atomic_int_get (&fresh_released), 0);
  }
  for (i = 0; i < N_FRAMES; i++) {
    fail_unless (pinned_test_frames_equal (refs[i], outs[i], &info),
        "frame %u: staged from released memory, or copied before it was "
        "staged", i);
    gst_buffer_unref (refs[i]);
    gst_buffer_unref (outs[i]);
  }
  fail_unless_equals_int (stat (h, "staged"), N_FRAMES);
  /* Earlier frames' sources went back at later frames, the last ones at
   * the end of the stream. */
  fail_unless (g_atomic_int_get (&fresh_released) > 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (g_atomic_int_get (&fresh_released), N_FRAMES);
  fail_unless_equals_int (g_atomic_int_get (&fresh_released_elsewhere), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* A fresh frame of more than 16 MiB (4K RGBA) is staged with the
 * streaming thread waiting, not detached (kept past its source's next
 * frame, its memory made that frame's pages come 4 KiB at a time): its
 * source is released by the time its output is out, and it arrives as it
 * was. */
GST_START_TEST (test_large_fresh_frame_staged_waiting)
{
  GstVideoInfo info;
  GstBuffer *in, *ref, *out;
  GstHarness *h;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 3840, 2160);
  h = new_pair ("stage", "copy-threads=3", &info);
  reset_released ();

  in = new_poisoned_frame (&info, 950);
  ref = gst_buffer_copy_deep (in);
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (g_atomic_int_get (&fresh_released), 1);
  fail_unless (pinned_test_frames_equal (ref, out, &info));
  fail_unless_equals_int (stat (h, "staged"), 1);

  gst_buffer_unref (out);
  gst_buffer_unref (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Where the host function before a detached staging's DMA cannot be
 * enqueued, the upload fails with an element error naming the call, does
 * not hang, and the source still goes back once. */
GST_START_TEST (test_detached_staging_failure)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  if (!pinned_test_is_fake ())
    return;                     /* failures on demand: stand-in only */

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 3840, 2160);
  h = new_pair ("stage", "copy-threads=3", &info);
  gst_element_set_bus (h->element, bus);
  reset_released ();

  gst_buffer_unref (gst_harness_push_and_pull (h, new_poisoned_frame (&info,
              70)));
  pinned_test_fail ("cudaLaunchHostFunc", 0, 1, cudaErrorLaunchFailure);
  fail_unless_equals_int (gst_harness_push (h, new_poisoned_frame (&info,
              71)), GST_FLOW_ERROR);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  pinned_test_check_error (msg, "Could not upload a frame",
      "cudaLaunchHostFunc", "cudaErrorLaunchFailure", NULL);
  gst_message_unref (msg);

  pinned_test_reset ();
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  fail_unless_equals_int (g_atomic_int_get (&fresh_released), 2);
}

GST_END_TEST;

/* A source whose first read by a staging worker stalls: its pages are
 * inaccessible, and the fault's handler (on the worker) sleeps for
 * @stall_ms before it opens them, so that the memcpy goes on. Counts the
 * stalls that ended. */
static guint8 *stall_base;
static gsize stall_size;
static guint stall_ms;
static gint stalls_ended;
static struct sigaction stall_old_action;

static void
stall_on_fault (int sig, siginfo_t * si, void *context)
{
  guint8 *addr = si->si_addr;
  struct timespec pause = { stall_ms / 1000, (stall_ms % 1000) * 1000000 };

  if (addr < stall_base || addr >= stall_base + stall_size) {
    /* A real fault: it faults again with the handler before. */
    sigaction (SIGSEGV, &stall_old_action, NULL);
    return;
  }
  nanosleep (&pause, NULL);
  mprotect (stall_base, stall_size, PROT_READ | PROT_WRITE);
  g_atomic_int_inc (&stalls_ended);
}

static void
unmap_stalled (gpointer data)
{
  munmap (data, stall_size);
}

/* A frame of @info whose workers stall, filled from @seed. */
static GstBuffer *
new_stalling_frame (const GstVideoInfo * info, guint32 seed, guint ms)
{
  struct sigaction action = { 0 };
  GstBuffer *buf;

  stall_size = info->size;
  stall_ms = ms;
  g_atomic_int_set (&stalls_ended, 0);
  stall_base = mmap (NULL, stall_size, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fail_unless (stall_base != MAP_FAILED);
  buf = gst_buffer_new_wrapped_full (0, stall_base, stall_size, 0,
      stall_size, stall_base, unmap_stalled);
  pinned_test_fill_frame (buf, info, seed);
  fail_unless (mprotect (stall_base, stall_size, PROT_NONE) == 0);

  action.sa_sigaction = stall_on_fault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset (&action.sa_mask);
  fail_unless (sigaction (SIGSEGV, &action, &stall_old_action) == 0);
  return buf;
}

/* A frame that fails before it has a fence (its DMA from staging cannot be
 * enqueued, after its staging workers were started) orders nothing after
 * its workers: it must not hand its staging buffer on until they are done.
 * Its workers stall on their first read; the next frame (small: the
 * calling thread stages it) reuses the staging buffer, its DMA held back
 * past the stall, and must arrive as it was, not with the failed frame's
 * bytes written over it. */
GST_START_TEST (test_failed_frame_staging_waits_for_workers)
{
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  GstVideoInfo info, next_info;
  GstBuffer *failing, *dev, *next, *ref, *next_dev, *back;
  GError *error = NULL;
  gint ended_at_failure;

  if (!pinned_test_is_fake ())
    return;                     /* failures on demand: stand-in only */

  pinned_test_device_init (&d);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_STAGE);
  gst_pinned_pageable_set_threads (pageable, 3);
  /* 1 MiB: several chunks, staged detached; 64 KiB: one chunk, staged by
   * the calling thread at the start of the same staging buffer. */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 1024);
  gst_video_info_set_format (&next_info, GST_VIDEO_FORMAT_GRAY8, 256, 256);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  next_dev = gst_buffer_new_allocate (d.device, next_info.size, NULL);
  back = gst_buffer_new_allocate (d.host, next_info.size, NULL);

  failing = new_stalling_frame (&info, 61, DELAY_MS);
  /* The first cudaMemcpyAsync is the DMA behind the workers' host
   * function; the fence after it cannot be recorded either (a frame that
   * failed with none: a failed frame whose earlier copies were enqueued is
   * fenced by them). */
  pinned_test_fail ("cudaMemcpyAsync", 0, 1, cudaErrorInvalidValue);
  pinned_test_fail ("cudaEventRecord", 0, 1, cudaErrorInvalidValue);
  fail_if (gst_pinned_transfer_video_frame_full (d.stream, &info, failing,
          dev, pageable, &error));
  ended_at_failure = g_atomic_int_get (&stalls_ended);
  fail_unless (error != NULL && strstr (error->message, "cudaMemcpyAsync"),
      "the frame did not fail at its DMA: %s", error ? error->message : "");
  g_clear_error (&error);
  pinned_test_reset ();

  next = gst_buffer_new_allocate (NULL, next_info.size, NULL);
  pinned_test_fill_frame (next, &next_info, 62);
  ref = gst_buffer_copy_deep (next);
  pinned_test_delay_stream (d.stream, 2 * DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &next_info,
          next, next_dev, pageable, NULL));
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &next_info,
          next_dev, back, NULL));
  fail_unless (pinned_test_frames_equal (ref, back, &next_info),
      "the next frame's staging buffer was written by the staging workers "
      "of the frame that failed before it");
  fail_unless (ended_at_failure > 0, "the failed frame returned while its "
      "staging workers were still copying into its staging buffer");
  fail_unless_equals_int (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_STAGED), 1);

  gst_object_unref (pageable);
  sigaction (SIGSEGV, &stall_old_action, NULL);
  gst_buffer_unref (failing);
  gst_buffer_unref (next);
  gst_buffer_unref (ref);
  gst_buffer_unref (back);
  gst_buffer_unref (next_dev);
  gst_buffer_unref (dev);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A source's pool buffer staged by threads goes back to its pool as soon
 * as they are done, not at the next frame: a source with a pool of one
 * waits for it before it makes that frame. */
GST_START_TEST (test_staged_pool_buffer_back_at_once)
{
  GstBufferPoolAcquireParams params = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  GstVideoInfo info;
  GstBufferPool *pool;
  GstHarness *h;
  GstBuffer *in, *out;
  GstFlowReturn ret;
  gint64 until;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 3840, 2160);
  h = new_pair ("stage", "copy-threads=3", &info);
  pool = new_sysmem_pool (&info, 1, 0);

  out = gst_harness_push_and_pull (h, make_input (SOURCE_RECYCLED, &info,
          pool, 31));
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((ret = gst_buffer_pool_acquire_buffer (pool, &in, &params)) ==
      GST_FLOW_EOS && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  fail_unless_equals_int (stat (h, "staged"), 1);

  pinned_test_fill_frame (in, &info, 32);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_END_TEST;

/* A source whose buffers change between frames: each frame's memory is
 * new (and often at the address of the last one, freed), or its pool is
 * replaced now and then. Every frame arrives as it was, and no
 * registration outlives its memory. */
GST_START_TEST (test_changing_buffers)
{
  const gchar *mode = __i__ ? "auto" : "register";
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool = NULL;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 640, 360);
  h = new_pair (mode, NULL, &info);

  for (i = 0; i < 16; i++) {
    GstBuffer *in, *ref, *out;

    if (i % 4 == 0) {
      if (pool) {
        gst_buffer_pool_set_active (pool, FALSE);
        gst_object_unref (pool);
      }
      pool = new_sysmem_pool (&info, 2, i % 8 ? 8 : 0);
    }
    in = make_input (i % 4 == 3 ? SOURCE_FRESH : SOURCE_RECYCLED, &info, pool,
        4000 + i);
    ref = gst_buffer_copy_deep (in);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (pinned_test_frames_equal (ref, out, &info),
        "%s: frame %u differs", mode, i);
    gst_buffer_unref (ref);
    gst_buffer_unref (out);
  }
  flush (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);

  fail_unless (stat (h, "registered") > 0);
  fail_unless_equals_int (stat (h, "registered-bytes"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Memory of a file descriptor without GST_FD_MEMORY_FLAG_KEEP_MAPPED (as
 * dmabufs) is mapped only while it is mapped: each map maps the file
 * anew, its last unmap unmaps it. Pages registered then would stay
 * page-locked past their mapping (CUDA keeps them, and copies at those
 * addresses use them, whatever is mapped there later). The allocator's
 * unmap is wrapped: no part of the mapping may be page-locked when it is
 * unmapped. */
static GstMemoryMapFunction fd_map;
static GstMemoryUnmapFunction fd_unmap;
static GQuark fd_address_quark;
static gchar *fd_case;
static gint fd_unmaps;

static gpointer
fd_map_noting (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  gpointer data = fd_map (mem, maxsize, flags);

  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), fd_address_quark,
      data, NULL);
  return data;
}

static gboolean
page_locked (const guint8 * p)
{
  struct cudaPointerAttributes attr;

  return cudaPointerGetAttributes (&attr, p) == cudaSuccess &&
      attr.type == cudaMemoryTypeHost;
}

static void
fd_unmap_checking (GstMemory * mem)
{
  const guint8 *data = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      fd_address_quark);

  fail_if (page_locked (data) || page_locked (data + mem->maxsize / 2),
      "%s: memory of a file descriptor unmapped while page-locked "
      "(cudaHostRegister): its pages stay locked past their mapping", fd_case);
  g_atomic_int_inc (&fd_unmaps);
  fd_unmap (mem);
}

/* Frames in two memories of memfds (fd memory, and dmabuf memory, whose
 * allocator takes any fd it can map), each pushed again and again (memory
 * that comes back, which auto mode registers where it may; register mode
 * at first sight): never registered, staged, and every frame arrives as
 * it was. */
GST_START_TEST (test_fd_memory_not_registered)
{
  const gchar *mode = __i__ % 2 ? "register" : "auto";
  gboolean dmabuf = __i__ / 2;
  GstAllocator *fd_allocator = dmabuf ? gst_dmabuf_allocator_new () :
      gst_fd_allocator_new ();
  GstMemory *mems[2];
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  fd_case = g_strdup_printf ("%s, %s memory", mode, dmabuf ? "dmabuf" : "fd");
  /* A memfd is no dmabuf: its maps cannot sync it. */
  if (dmabuf)
    gst_debug_set_threshold_for_name ("dmabuf", GST_LEVEL_ERROR);
  fd_map = fd_allocator->mem_map;
  fd_unmap = fd_allocator->mem_unmap;
  fd_allocator->mem_map = fd_map_noting;
  fd_allocator->mem_unmap = fd_unmap_checking;
  fd_address_quark = g_quark_from_static_string ("pinned-test-fd-address");
  g_atomic_int_set (&fd_unmaps, 0);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  h = new_pair (mode, "copy-threads=3", &info);
  for (i = 0; i < G_N_ELEMENTS (mems); i++) {
    gint fd = memfd_create ("pinned-test-frame", MFD_CLOEXEC);

    fail_unless (fd >= 0 && ftruncate (fd, info.size) == 0);
    mems[i] = dmabuf ? gst_dmabuf_allocator_alloc (fd_allocator, fd,
        info.size) : gst_fd_allocator_alloc (fd_allocator, fd, info.size,
        GST_FD_MEMORY_FLAG_NONE);
    fail_unless (mems[i] != NULL);
  }

  for (i = 0; i < N_FRAMES; i++) {
    GstMemory *mem = mems[i % G_N_ELEMENTS (mems)];
    GstBuffer *ref = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstBuffer *in = gst_buffer_new (), *out;
    GstMapInfo map;

    /* Written through the file: the memory stays unmapped. */
    pinned_test_fill_frame (ref, &info, 300 + i);
    fail_unless (gst_buffer_map (ref, &map, GST_MAP_READ));
    fail_unless_equals_int (pwrite (gst_fd_memory_get_fd (mem), map.data,
            map.size, 0), map.size);
    gst_buffer_unmap (ref, &map);
    gst_buffer_append_memory (in, gst_memory_ref (mem));

    out = pinned_test_push_and_pull (h, in);
    fail_unless (pinned_test_frames_equal (ref, out, &info),
        "%s: frame %u differs", fd_case, i);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (g_atomic_int_get (&fd_unmaps) >= N_FRAMES);
  fail_unless_equals_int (stat (h, "registered"), 0);
  fail_unless_equals_int (stat (h, "staged"), N_FRAMES);

  gst_harness_teardown (h);
  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    gst_memory_unref (mems[i]);
  gst_object_unref (fd_allocator);
  gst_debug_unset_threshold_for_name ("dmabuf");
  g_free (fd_case);
}

GST_END_TEST;

/* The library's download into pageable memory, staged: the same layout
 * (chunks copied out as their DMA lands) and another one (pitched copy
 * into staging, rows copied out), into fresh and registered memory. */
GST_START_TEST (test_download_into_pageable)
{
  static const GstPinnedPageableMode dl_modes[] = {
    GST_PINNED_PAGEABLE_STAGE, GST_PINNED_PAGEABLE_REGISTER,
    GST_PINNED_PAGEABLE_DIRECT, GST_PINNED_PAGEABLE_AUTO,
  };
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  guint c, m, pad;

  pinned_test_device_init (&d);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_threads (pageable, 3);

  for (m = 0; m < G_N_ELEMENTS (dl_modes); m++) {
    gst_pinned_pageable_set_mode (pageable, dl_modes[m]);
    for (c = 0; c < G_N_ELEMENTS (confs); c++) {
      for (pad = 0; pad < 2; pad++) {
        GstVideoInfo info;
        GstBuffer *host, *dev, *dst;

        gst_video_info_set_format (&info, confs[c].format, confs[c].width,
            confs[c].height);
        host = gst_buffer_new_allocate (d.host, info.size, NULL);
        pinned_test_fill_frame (host, &info, c * 31 + m);
        dev = gst_buffer_new_allocate (d.device, info.size, NULL);
        fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, host,
                dev, NULL));
        dst = pad ? pinned_test_new_padded_frame (&info, 9, 1) :
            gst_buffer_new_allocate (NULL, info.size, NULL);
        /* Twice: the second time the memory has been seen before. */
        fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info,
                dev, dst, pageable, NULL));
        fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info,
                dev, dst, pageable, NULL));
        fail_unless (pinned_test_frames_equal (host, dst, &info),
            "mode %d %s %dx%d pad %u", dl_modes[m],
            gst_video_format_to_string (confs[c].format), confs[c].width,
            confs[c].height, pad);
        gst_buffer_unref (dst);
        gst_buffer_unref (dev);
        gst_buffer_unref (host);
      }
    }
  }
  fail_unless (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_STAGED) > 0);
  fail_unless (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_REGISTERED) > 0);
  fail_unless (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_DIRECT) > 0);
  fail_unless_equals_int (gst_pinned_pageable_get_registered_bytes
      (pageable), 0);

  fail_unless (gst_pinned_pageable_flush (pageable, NULL));
  fail_unless_equals_int (gst_pinned_pageable_get_running_threads (pageable),
      0);
  gst_object_unref (pageable);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The download into pageable memory, with the copy held back (on the
 * stand-in it lands in pieces over its delay): when the transfer returns,
 * the destination holds the new frame, not the one it held before nor a
 * torn mix of both. Staged in the same layout (chunks copied out after
 * their DMA), pitched through staging (copied out after the DMA into the
 * block), and registered (the copy waited for: its memory has no
 * fences). The destinations: fresh memory, padded rows, and a frame of
 * whole pages that starts on a page (registered whole: no partial page at
 * either end, whose copy would be synchronous anyway). */
GST_START_TEST (test_download_into_pageable_held_back)
{
  static const GstPinnedPageableMode dl_modes[] = {
    GST_PINNED_PAGEABLE_STAGE, GST_PINNED_PAGEABLE_REGISTER,
    GST_PINNED_PAGEABLE_AUTO,
  };
  static const gchar *dst_names[] = { "fresh", "padded", "page-aligned" };
  GstAllocationParams page = { 0, 4095, 0, 0 };
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  guint m, k;

  pinned_test_device_init (&d);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_threads (pageable, 3);

  for (m = 0; m < G_N_ELEMENTS (dl_modes); m++) {
    gst_pinned_pageable_set_mode (pageable, dl_modes[m]);
    for (k = 0; k < G_N_ELEMENTS (dst_names); k++) {
      GstVideoInfo info;
      GstBuffer *host[2], *dev[2], *dst;
      guint i;

      /* 3 MiB: whole pages. */
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 1024, 768);
      for (i = 0; i < 2; i++) {
        host[i] = gst_buffer_new_allocate (d.host, info.size, NULL);
        pinned_test_fill_frame (host[i], &info, 40 + 3 * m + k + 11 * i);
        dev[i] = gst_buffer_new_allocate (d.device, info.size, NULL);
        fail_unless (gst_pinned_transfer_video_frame (d.stream, &info,
                host[i], dev[i], NULL));
      }
      fail_unless (gst_pinned_stream_synchronize (d.stream, NULL));
      if (k == 1)
        dst = pinned_test_new_padded_frame (&info, 64, 1);
      else
        dst = gst_buffer_new_allocate (NULL, info.size, k == 2 ? &page : NULL);

      fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info,
              dev[0], dst, pageable, NULL));
      fail_unless (pinned_test_frames_equal (host[0], dst, &info));

      if (!pinned_test_set_copy_delay (DELAY_MS))
        pinned_test_delay_stream (d.stream, DELAY_MS);
      fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info,
              dev[1], dst, pageable, NULL));
      pinned_test_reset ();
      fail_unless (pinned_test_frames_equal (host[1], dst, &info),
          "mode %d, %s destination: it did not hold the new frame when the "
          "transfer returned", dl_modes[m], dst_names[k]);

      gst_buffer_unref (dst);
      for (i = 0; i < 2; i++) {
        gst_buffer_unref (dev[i]);
        gst_buffer_unref (host[i]);
      }
    }
  }
  fail_unless (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_STAGED) > 0);
  fail_unless (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_REGISTERED) > 0);

  fail_unless (gst_pinned_pageable_flush (pageable, NULL));
  gst_object_unref (pageable);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static const GstPinnedHostFlags flag_sets[] = {
  GST_PINNED_HOST_FLAGS_DEFAULT,
  0,
  GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED,
  GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_WRITE_COMBINED,
  GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_HUGE_PAGES,
  GST_PINNED_HOST_MAPPED | GST_PINNED_HOST_HUGE_PAGES,
  /* write-combining does not apply to huge pages: dropped */
  GST_PINNED_HOST_WRITE_COMBINED | GST_PINNED_HOST_HUGE_PAGES,
};

static guint
cuda_alloc_flags (GstPinnedHostFlags flags)
{
  return ((flags & GST_PINNED_HOST_PORTABLE) ? cudaHostAllocPortable : 0) |
      ((flags & GST_PINNED_HOST_MAPPED) ? cudaHostAllocMapped : 0) |
      ((flags & GST_PINNED_HOST_WRITE_COMBINED) ?
      cudaHostAllocWriteCombined : 0);
}

/* Each kind of page-locked memory is what it says, zeroed, page-locked,
 * and copied bit-exact both ways. */
GST_START_TEST (test_host_flags)
{
  GstPinnedHostFlags want = flag_sets[__i__];
  GstPinnedHostFlags got;
  PinnedTestDevice d;
  GstAllocator *allocator;
  GstVideoInfo info;
  GstBuffer *host, *dev, *back;
  GstMapInfo map;
  struct cudaPointerAttributes attr;
  guint64 registered = pinned_test_call_count ("cudaHostRegister");
  guint64 unregistered = pinned_test_call_count ("cudaHostUnregister");
  guint cuda_flags = 0;
  gsize i;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 1281, 721);
  allocator = gst_pinned_host_allocator_new_full (d.ctx, want);
  got = gst_pinned_host_allocator_get_flags (GST_PINNED_HOST_ALLOCATOR
      (allocator));
  if (want & GST_PINNED_HOST_HUGE_PAGES)
    want &= ~GST_PINNED_HOST_WRITE_COMBINED;
  fail_unless_equals_int (got, want);

  host = gst_buffer_new_allocate (allocator, info.size, NULL);
  fail_unless (host != NULL);
  fail_unless (gst_buffer_map (host, &map, GST_MAP_READ));
  for (i = 0; i < map.size && map.data[i] == 0; i++);
  fail_unless_equals_int (i, map.size);
  fail_unless (gst_pinned_context_push (d.ctx, NULL));
  fail_unless_equals_int (cudaPointerGetAttributes (&attr, map.data),
      cudaSuccess);
  fail_unless_equals_int (attr.type, cudaMemoryTypeHost);
  if (want & GST_PINNED_HOST_HUGE_PAGES) {
    fail_unless_equals_int ((guintptr) map.data % (2 * 1024 * 1024), 0);
    if (pinned_test_is_fake ())
      fail_unless_equals_int (pinned_test_call_count ("cudaHostRegister") -
          registered, 1);
  } else {
    fail_unless_equals_int (cudaHostGetFlags (&cuda_flags, map.data),
        cudaSuccess);
    fail_unless_equals_int (cuda_flags & ~cudaHostAllocMapped,
        cuda_alloc_flags (want) & ~cudaHostAllocMapped);
    if (want & GST_PINNED_HOST_MAPPED)
      fail_unless (cuda_flags & cudaHostAllocMapped);
  }
  gst_pinned_context_pop (d.ctx);
  gst_buffer_unmap (host, &map);

  pinned_test_fill_frame (host, &info, 77 + __i__);
  dev = gst_buffer_new_allocate (d.device, info.size, NULL);
  back = gst_buffer_new_allocate (allocator, info.size, NULL);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, host, dev,
          NULL));
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dev, back,
          NULL));
  fail_unless (pinned_test_frames_equal (host, back, &info));

  gst_buffer_unref (back);
  gst_buffer_unref (dev);
  gst_buffer_unref (host);
  gst_object_unref (allocator);
  /* Huge pages are unregistered when freed (at the latest with their
   * allocator, which keeps a few freed buffers for reuse). */
  if (pinned_test_is_fake () && (want & GST_PINNED_HOST_HUGE_PAGES))
    fail_unless_equals_int (pinned_test_call_count ("cudaHostUnregister") -
        unregistered, 2);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The element properties reach the pool offered upstream, and frames
 * arrive bit-exact. */
GST_START_TEST (test_element_flags)
{
  static const gchar *props[] = {
    "", "portable=false", "mapped=true", "write-combined=true",
    "huge-pages=true",
  };
  static const GstPinnedHostFlags expect[] = {
    GST_PINNED_HOST_PORTABLE, 0,
    GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_MAPPED,
    GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_WRITE_COMBINED,
    GST_PINNED_HOST_PORTABLE | GST_PINNED_HOST_HUGE_PAGES,
  };
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *ref, *out;
  GstMemory *mem;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 1279, 719);
  h = new_pair ("auto", props[__i__], &info);
  for (i = 0; i < 3; i++) {
    in = gst_harness_create_buffer (h, info.size);
    mem = gst_buffer_peek_memory (in, 0);
    fail_unless (gst_is_pinned_host_memory (mem));
    fail_unless_equals_int (gst_pinned_host_allocator_get_flags
        (GST_PINNED_HOST_ALLOCATOR (mem->allocator)), expect[__i__]);
    pinned_test_fill_frame (in, &info, 300 + i);
    ref = gst_buffer_copy_deep (in);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (pinned_test_frames_equal (ref, out, &info), "%s",
        props[__i__]);
    gst_buffer_unref (ref);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A copy of page-locked memory (a decoder making its output writable)
 * reuses freed page-locked memory instead of page-locking a new one per
 * frame; memory reused for a plain allocation reads as zero. */
GST_START_TEST (test_copies_reuse_memory)
{
  PinnedTestDevice d;
  GstMemory *mem, *copy;
  GstMapInfo map;
  guint64 allocs;
  guint i;
  gsize k;

  pinned_test_device_init (&d);
  mem = gst_allocator_alloc (d.host, 1 << 20, NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  for (k = 0; k < map.size; k++)
    map.data[k] = k * 7 + 1;
  gst_memory_unmap (mem, &map);

  allocs = pinned_test_call_count ("cudaHostAlloc");
  for (i = 0; i < 5; i++) {
    copy = gst_memory_copy (mem, 0, -1);
    fail_unless (gst_is_pinned_host_memory (copy));
    fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
    for (k = 0; k < map.size && map.data[k] == (guint8) (k * 7 + 1); k++);
    fail_unless_equals_int (k, map.size);
    gst_memory_unmap (copy, &map);
    gst_memory_unref (copy);
  }
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") - allocs,
        1);

  /* The freed copy comes back for a plain allocation: cleared. */
  copy = gst_allocator_alloc (d.host, 1 << 20, NULL);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  for (k = 0; k < map.size && map.data[k] == 0; k++);
  fail_unless_equals_int (k, map.size);
  gst_memory_unmap (copy, &map);
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count ("cudaHostAlloc") - allocs,
        1);

  gst_memory_unref (copy);
  gst_memory_unref (mem);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* The per-frame path of the pair, from the offered pool: one copy per
 * element, one or two cross-stream waits (the download on the upload's
 * copy; the upload's copy into a device buffer on the download's last read
 * of it, unless the host already knows that read done: the download's
 * pool does not wait for its copies, it only paces its stream), no event
 * made, nothing asked about memory. Fake only: counts. */
GST_START_TEST (test_pair_calls_per_frame)
{
  static const gchar *calls[] = {
    "cudaMemcpyAsync", "cudaStreamWaitEvent", "cudaEventRecord",
    "cudaEventCreateWithFlags", "cudaPointerGetAttributes",
    "cudaHostRegister", "cudaMemcpy2DAsync",
  };
  guint64 before[G_N_ELEMENTS (calls)], waits;
  GstVideoInfo info;
  GstHarness *h;
  guint i, k, n = 20;

  if (!pinned_test_is_fake ())
    return;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 640, 360);
  h = new_pair ("auto", NULL, &info);
  for (i = 0; i < 2 * n; i++) {
    GstBuffer *out;

    if (i == n) {
      for (k = 0; k < G_N_ELEMENTS (calls); k++)
        before[k] = pinned_test_call_count (calls[k]);
    }
    out = gst_harness_push_and_pull (h, gst_harness_create_buffer (h,
            info.size));
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (pinned_test_call_count ("cudaMemcpyAsync") -
      before[0], 2 * n);
  waits = pinned_test_call_count ("cudaStreamWaitEvent") - before[1];
  fail_unless (waits >= n && waits <= 2 * n, "%" G_GUINT64_FORMAT
      " cross-stream waits for %u frames", waits, n);
  fail_unless_equals_int (pinned_test_call_count ("cudaEventRecord") -
      before[2], 2 * n);
  for (k = 3; k < G_N_ELEMENTS (calls); k++)
    fail_unless_equals_int (pinned_test_call_count (calls[k]) - before[k], 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A recycling pageable source's memories are asked about once each, not
 * once per frame. */
GST_START_TEST (test_memory_asked_once)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool;
  guint64 asked;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 640, 360);
  h = new_pair ("stage", NULL, &info);
  pool = new_sysmem_pool (&info, 3, 0);
  asked = pinned_test_call_count ("cudaPointerGetAttributes");
  for (i = 0; i < 12; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        make_input (SOURCE_RECYCLED, &info, pool, i));

    gst_buffer_unref (out);
  }
  if (pinned_test_is_fake ())
    fail_unless_equals_int (pinned_test_call_count
        ("cudaPointerGetAttributes") - asked, 3);
  fail_unless_equals_int (stat (h, "staged"), 12);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_END_TEST;

/* Registration stops at the byte bound; what does not fit is staged. */
GST_START_TEST (test_register_limit)
{
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  GstVideoInfo info;
  GstBuffer *src[3], *dst;
  guint i, k;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_REGISTER);
  gst_pinned_pageable_set_register_limit (pageable, info.size * 3 / 2);
  dst = gst_buffer_new_allocate (d.device, info.size, NULL);

  for (i = 0; i < 3; i++) {
    src[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    pinned_test_fill_frame (src[i], &info, 70 + i);
  }
  for (k = 0; k < 2; k++) {
    for (i = 0; i < 3; i++) {
      GstBuffer *back = gst_buffer_new_allocate (d.host, info.size, NULL);

      fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info,
              src[i], dst, pageable, NULL));
      fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dst,
              back, NULL));
      fail_unless (pinned_test_frames_equal (src[i], back, &info));
      gst_buffer_unref (back);
    }
  }
  fail_unless (gst_pinned_pageable_get_registered_bytes (pageable) <=
      info.size * 3 / 2);
  fail_unless (gst_pinned_pageable_get_registered_bytes (pageable) > 0);
  fail_unless_equals_int (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_REGISTERED), 2);
  fail_unless_equals_int (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_STAGED), 4);

  for (i = 0; i < 3; i++)
    gst_buffer_unref (src[i]);
  gst_buffer_unref (dst);
  fail_unless (gst_pinned_pageable_flush (pageable, NULL));
  fail_unless_equals_int (gst_pinned_pageable_get_registered_bytes
      (pageable), 0);
  gst_object_unref (pageable);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A registered buffer of no pool (an application's own, pushed again) is
 * not kept: the transfer returns once its copy is done, so its owner may
 * write it at once. */
GST_START_TEST (test_unpooled_registered_not_kept)
{
  PinnedTestDevice d;
  GstPinnedPageable *pageable;
  GstVideoInfo info;
  GstBuffer *src, *dst, *back;

  pinned_test_device_init (&d);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  pageable = gst_pinned_pageable_new (d.ctx);
  gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_REGISTER);
  src = gst_buffer_new_allocate (NULL, info.size, NULL);
  dst = gst_buffer_new_allocate (d.device, info.size, NULL);
  back = gst_buffer_new_allocate (d.host, info.size, NULL);

  pinned_test_fill_bytes (src, 0x33);
  pinned_test_delay_stream (d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame_full (d.stream, &info, src,
          dst, pageable, NULL));
  fail_unless_equals_int (gst_pinned_pageable_get_count (pageable,
          GST_PINNED_PATH_REGISTERED), 1);
  fail_unless_equals_int (gst_pinned_pageable_get_n_held (pageable), 0);
  /* The owner writes its buffer again right away. */
  pinned_test_fill_bytes (src, 0x44);
  fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, dst, back,
          NULL));
  fail_unless (pinned_test_all_bytes (back, 0x33),
      "the copy read the owner's next frame");

  gst_buffer_unref (back);
  gst_buffer_unref (dst);
  gst_buffer_unref (src);
  gst_object_unref (pageable);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

/* A source with a pool of two buffers gets one back for every frame, even
 * while copies are held back: the upload keeps none of them across
 * frames. */
GST_START_TEST (test_small_pool_not_starved)
{
  GstBufferPoolAcquireParams params = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  GstVideoInfo info;
  GstHarness *h;
  GstBufferPool *pool;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1024, 512);
  h = new_pair ("register", NULL, &info);
  pool = new_sysmem_pool (&info, 2, 0);
  for (i = 0; i < 6; i++) {
    GstBuffer *in = NULL, *out;

    if (i > 0)
      pinned_test_delay_stream (upload_stream (h), 30);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &in,
            &params), GST_FLOW_OK);
    pinned_test_fill_frame (in, &info, 800 + i);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    gst_buffer_unref (out);
  }
  fail_unless (stat (h, "registered") > 0);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_END_TEST;

static Suite *
pageable_suite (void)
{
  Suite *s = suite_create ("pageable");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_modes_bitexact, 0,
      G_N_ELEMENTS (modes) * SOURCE_LAST);
  tcase_add_test (tc, test_registered_source_not_reused_early);
  tcase_add_test (tc, test_registered_copy_reads_late_control);
  tcase_add_test (tc, test_staging_buffer_not_reused_early);
  tcase_add_test (tc, test_registration_lives_with_memory);
  tcase_add_test (tc, test_staging_threads_joined);
  tcase_add_test (tc, test_staging_workers_done_when_flush_returns);
  tcase_add_test (tc, test_fresh_source_kept_until_staged);
  tcase_add_test (tc, test_staged_pool_buffer_back_at_once);
  tcase_add_test (tc, test_large_fresh_frame_staged_waiting);
  tcase_add_test (tc, test_detached_staging_failure);
  tcase_add_test (tc, test_failed_frame_staging_waits_for_workers);
  tcase_add_loop_test (tc, test_changing_buffers, 0, 2);
  tcase_add_loop_test (tc, test_fd_memory_not_registered, 0, 4);
  tcase_add_test (tc, test_download_into_pageable);
  tcase_add_test (tc, test_download_into_pageable_held_back);
  tcase_add_loop_test (tc, test_host_flags, 0, G_N_ELEMENTS (flag_sets));
  tcase_add_loop_test (tc, test_element_flags, 0, 5);
  tcase_add_test (tc, test_copies_reuse_memory);
  tcase_add_test (tc, test_pair_calls_per_frame);
  tcase_add_test (tc, test_memory_asked_once);
  tcase_add_test (tc, test_register_limit);
  tcase_add_test (tc, test_unpooled_registered_not_kept);
  tcase_add_test (tc, test_small_pool_not_starved);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, pageable_suite);
}
