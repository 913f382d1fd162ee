/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include <gst/app/gstappsink.h>

#include <gst/pinned/gstpinnedcuda.h>
#include "pinnedtest.h"

/* In delay.cu: a kernel that spins on the GPU's global timer. */
int pinned_test_spin (void *stream, unsigned long long ns);

static gboolean fake_loaded;
static gboolean abort_on_failure;

typedef int (*VersionFunc) (void);
typedef void (*ResetFunc) (void);
typedef void (*SetDelayFunc) (guint64);
typedef cudaError_t (*StreamSleepFunc) (cudaStream_t, guint64);
typedef void (*FailFunc) (const char *, unsigned, unsigned, cudaError_t);
typedef guint64 (*CountFunc) (const char *);
typedef void (*PiecesFunc) (unsigned);
typedef unsigned int (*EventFlagsFunc) (cudaEvent_t);
typedef void (*TrackFunc) (const void *, size_t);
typedef void (*UntrackFunc) (const void *);

static void register_test_filter (void);

static gpointer
fake_symbol (const gchar * name)
{
  return fake_loaded ? dlsym (RTLD_DEFAULT, name) : NULL;
}

/* Every test runs in this process (below), and a failed assertion leaves
 * its test's pipeline and threads behind: the next test's task cleanup
 * (GST_END_TEST) then waits for them forever, and check, which prints the
 * failures at the end, never prints this one. So the first failure is
 * printed at once, as check would print it, and ends the run. These two
 * replace check's own for the test's code. */
static const gchar *current_test = "?";

void
tcase_fn_start (const char *fname, const char *file, int line)
{
  static void (*real) (const char *, const char *, int);

  if (real == NULL)
    real = dlsym (RTLD_NEXT, "tcase_fn_start");
  current_test = fname;
  if (real)
    real (fname, file, line);
}

/* A check that passes tells check where the test got to, which needs a
 * running suite: programs without one (pinned_test_setup()) skip it. */
void
_mark_point (const char *file, int line)
{
  static void (*real) (const char *, int);

  if (abort_on_failure)
    return;
  if (real == NULL)
    real = dlsym (RTLD_NEXT, "_mark_point");
  if (real)
    real (file, line);
}

void
_ck_assert_failed (const char *file, int line, const char *expr, ...)
{
  const char *msg;
  va_list ap;

  fflush (NULL);
  printf ("%s:%d:F:%s:0: ", file, line, current_test);
  va_start (ap, expr);
  msg = va_arg (ap, const char *);
  if (msg)
    vprintf (msg, ap);
  else
    fputs (expr, stdout);
  va_end (ap);
  printf ("\n");
  fflush (NULL);
  if (abort_on_failure)
    abort ();
  _exit (1);
}

void
pinned_test_setup (void)
{
  fake_loaded = dlsym (RTLD_DEFAULT, "fakecuda_version") != NULL;
  abort_on_failure = TRUE;
  gst_init (NULL, NULL);
  register_test_filter ();
}

int
pinned_test_main (int argc, char **argv, Suite * (*make_suite) (void))
{
  gboolean want_fake = g_strcmp0 (g_getenv ("GST_PINNED_TEST_MODE"), "gpu");
  Suite *suite;
  gint n_devices = 0, failed;

  /* CUDA's state does not survive fork(): run every test in one process. */
  g_setenv ("CK_FORK", "no", TRUE);

  fake_loaded = dlsym (RTLD_DEFAULT, "fakecuda_version") != NULL;
  if (want_fake && !fake_loaded) {
    g_printerr ("fake mode, but the real CUDA runtime is loaded: "
        "LD_LIBRARY_PATH must name the stand-in's folder\n");
    return 1;
  }
  if (!want_fake && fake_loaded) {
    g_printerr ("gpu mode, but the stand-in CUDA runtime is loaded\n");
    return 1;
  }
  if (!want_fake && (cudaGetDeviceCount (&n_devices) != cudaSuccess
          || n_devices == 0)) {
    g_print ("SKIP: no CUDA device (%s)\n",
        cudaGetErrorString (cudaGetLastError ()));
    return PINNED_TEST_SKIP;
  }

  gst_check_init (&argc, &argv);
  register_test_filter ();
  suite = make_suite ();
  failed = gst_check_run_suite (suite, want_fake ? "fake" : "gpu", argv[0]);

  /* A failed test (run in this process) can leave a pipeline's threads
   * behind, which gst_deinit() at exit would wait for forever: report the
   * failure now instead of hanging until the test's timeout. */
  if (failed != 0) {
    fflush (NULL);
    _exit (1);
  }
  return 0;
}

gboolean
pinned_test_is_fake (void)
{
  return fake_loaded;
}

gboolean
pinned_test_work_is_async (void)
{
  return g_getenv ("GST_PINNED_TEST_SYNC_WORK") == NULL;
}

guint
pinned_test_ms (guint ms)
{
  static guint scale;

  if (scale == 0) {
    const gchar *env = g_getenv ("GST_PINNED_TEST_TIME_SCALE");

    scale = env ? MAX (g_ascii_strtoull (env, NULL, 10), 1) : 1;
  }
  return ms * scale;
}

/* Holds @handle's later work for @ms; the caller made its device current. */
static void
delay_handle (gpointer handle, guint ms)
{
  StreamSleepFunc sleep_func = fake_symbol ("fakecuda_stream_sleep");

  if (sleep_func) {
    fail_unless_equals_int (sleep_func (handle, (guint64) ms * 1000),
        cudaSuccess);
  } else {
    fail_unless_equals_int (pinned_test_spin (handle,
            (unsigned long long) ms * 1000000), cudaSuccess);
  }
}

void
pinned_test_delay_stream (GstPinnedStream * stream, guint ms)
{
  GstPinnedContext *context = gst_pinned_stream_get_context (stream);

  fail_unless (gst_pinned_context_push (context, NULL));
  delay_handle (gst_pinned_stream_get_handle (stream), ms);
  gst_pinned_context_pop (context);
}

gboolean
pinned_test_set_copy_delay (guint ms)
{
  SetDelayFunc func = fake_symbol ("fakecuda_set_copy_delay");

  if (func == NULL)
    return FALSE;
  func ((guint64) ms * 1000);
  return TRUE;
}

gboolean
pinned_test_fail (const gchar * function, guint skip, guint count,
    gint cuda_error)
{
  FailFunc func = fake_symbol ("fakecuda_fail");

  if (func == NULL)
    return FALSE;
  func (function, skip, count, (cudaError_t) cuda_error);
  return TRUE;
}

gboolean
pinned_test_fail_async (const gchar * function, guint skip, guint count,
    gint cuda_error)
{
  FailFunc func = fake_symbol ("fakecuda_fail_async");

  if (func == NULL)
    return FALSE;
  func (function, skip, count, (cudaError_t) cuda_error);
  return TRUE;
}

guint64
pinned_test_thread_call_count (void)
{
  guint64 (*func) (void) = fake_symbol ("fakecuda_thread_call_count");

  return func ? func () : 0;
}

gboolean
pinned_test_batched_copies (void)
{
  int version = 0;

  return cudaRuntimeGetVersion (&version) == cudaSuccess && version >= 12080
      && g_strcmp0 (g_getenv ("GST_PINNED_COPY_BATCH"), "single") != 0;
}

guint64
pinned_test_call_count (const gchar * function)
{
  CountFunc func = fake_symbol ("fakecuda_call_count");

  return func ? func (function) : 0;
}

gboolean
pinned_test_set_copy_pieces (guint pieces)
{
  PiecesFunc func = fake_symbol ("fakecuda_set_copy_pieces");

  if (func == NULL)
    return FALSE;
  func (pieces);
  return TRUE;
}

guint
pinned_test_event_flags (GstPinnedFence * fence)
{
  EventFlagsFunc func = fake_symbol ("fakecuda_event_flags");

  return func ? func (gst_pinned_fence_get_cuda_event (fence)) : 0;
}

void
pinned_test_reset (void)
{
  ResetFunc func = fake_symbol ("fakecuda_reset");

  if (func)
    func ();
}

void
pinned_test_keep_pool_threads (void)
{
  g_thread_pool_set_max_unused_threads (-1);
  g_thread_pool_set_max_idle_time (0);
}

void
pinned_test_join_ended_threads (void)
{
  void (*func) (void) = fake_symbol ("fakecuda_join_ended_streams");

  if (func)
    func ();
}

/* Bytes of a row that hold pixels: the end of the last component of the
 * last pixel; the packings without a pixel stride fill whole groups. */
static guint
pixel_row_bytes (const GstVideoInfo * info, guint plane, guint stride)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint i, end = 0;

  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_v210)
    return (GST_VIDEO_INFO_WIDTH (info) + 5) / 6 * 16;

  gst_video_format_info_component (finfo, plane, comp);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    gint c = comp[i];
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    guint bytes, width;

    if (pstride <= 0)
      return stride;
    bytes = (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) +
        GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) + 7) / 8;
    bytes = MIN (bytes, (guint) pstride);
    width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    end = MAX (end, GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c) +
        (width - 1) * pstride + bytes);
  }
  return end ? end : stride;
}

/* Rows of a plane and the bytes of a row that hold pixels (the palette of
 * paletted formats is one row of 1024 bytes; a plane of tiles is one row of
 * all its tiles: its stride counts tiles). */
void
pinned_test_plane_geometry (const GstVideoInfo * info, guint plane,
    guint * rows, guint * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GstVideoInfo packed;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1) {
    *rows = 1;
    *row_bytes = 256 * 4;
    return;
  }
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);

    *rows = 1;
    *row_bytes = GST_VIDEO_TILE_X_TILES (stride) *
        GST_VIDEO_TILE_Y_TILES (stride) *
        GST_VIDEO_FORMAT_INFO_TILE_SIZE (finfo, plane);
    return;
  }

  gst_video_info_set_format (&packed, GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  gst_video_format_info_component (finfo, plane, comp);
  *rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
      GST_VIDEO_INFO_HEIGHT (info));
  *row_bytes = pixel_row_bytes (info, plane,
      GST_VIDEO_INFO_PLANE_STRIDE (&packed, plane));
}

void
pinned_test_fill_frame (GstBuffer * buffer, const GstVideoInfo * info,
    guint32 seed)
{
  GstVideoFrame frame;
  GRand *rand = g_rand_new_with_seed (seed);
  guint p, r, i;

  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rows, row_bytes;
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

    pinned_test_plane_geometry (info, p, &rows, &row_bytes);
    for (r = 0; r < rows; r++) {
      guint8 *row = data + (gsize) r * stride;

      for (i = 0; i + 4 <= row_bytes; i += 4) {
        guint32 v = g_rand_int (rand);
        memcpy (row + i, &v, 4);
      }
      for (; i < row_bytes; i++)
        row[i] = g_rand_int (rand) & 0xff;
    }
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);
}

GstBuffer *
pinned_test_push_and_pull (GstHarness * h, GstBuffer * buffer)
{
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);
  return gst_harness_pull (h);
}

void
pinned_test_fill_bytes (GstBuffer * buffer, guint8 byte)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  memset (map.data, byte, map.size);
  gst_buffer_unmap (buffer, &map);
}

gboolean
pinned_test_all_bytes (GstBuffer * buffer, guint8 byte)
{
  GstMapInfo map;
  gsize i;
  gboolean ok = TRUE;

  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  for (i = 0; i < map.size && ok; i++)
    ok = map.data[i] == byte;
  gst_buffer_unmap (buffer, &map);

  return ok;
}

/* Compares the bytes of one row that belong to pixels: component by
 * component where the format has a pixel stride (a row of odd-width 4:2:2
 * has a hole where the missing pixel's luma would be), the whole pixel
 * part of the row otherwise. Returns the first differing byte or -1. */
static gint
compare_row (const GstVideoInfo * info, guint plane, const guint8 * a,
    const guint8 * b, guint row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint i, x, k;

  gst_video_format_info_component (finfo, plane, comp);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    if (GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[i]) <= 0 ||
        (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1))
      break;
  }
  if (comp[0] < 0 || (i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0) ||
      GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    for (k = 0; k < row_bytes; k++) {
      if (a[k] != b[k])
        return k;
    }
    return -1;
  }

  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    gint c = comp[i];
    guint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    guint bytes = MIN ((GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) +
            GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) + 7) / 8, pstride);
    guint offset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);

    for (x = 0; x < (guint) GST_VIDEO_INFO_COMP_WIDTH (info, c); x++) {
      for (k = offset + x * pstride; k < offset + x * pstride + bytes; k++) {
        if (a[k] != b[k])
          return k;
      }
    }
  }
  return -1;
}

gboolean
pinned_test_frames_equal (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info)
{
  GstVideoFrame fa, fb;
  gboolean equal = TRUE;
  guint p, r;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa) && equal; p++) {
    guint rows, row_bytes;

    pinned_test_plane_geometry (info, p, &rows, &row_bytes);
    for (r = 0; r < rows && equal; r++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      gint i = compare_row (info, p, ra, rb, row_bytes);

      if (i >= 0) {
        GST_WARNING ("%s %dx%d: plane %u row %u byte %d differs: "
            "%02x != %02x", GST_VIDEO_INFO_NAME (info),
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), p, r,
            i, ra[i], rb[i]);
        equal = FALSE;
      }
    }
  }

  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
  return equal;
}

guint
pinned_test_pull_branches (GstElement * pipeline, gsize look_all_up_to,
    const gchar * what)
{
  GstElement *ref = gst_bin_get_by_name (GST_BIN (pipeline), "ref");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  guint n = 0;

  fail_unless (out != NULL, "%s: no appsink named out", what);
  for (;;) {
    GstSample *b = gst_app_sink_pull_sample (GST_APP_SINK (out));
    GstSample *a = ref ? gst_app_sink_pull_sample (GST_APP_SINK (ref)) : NULL;
    GstVideoInfo info;

    if (b == NULL) {
      fail_unless (a == NULL, "%s: frame %u only on the plain branch", what, n);
      break;
    }
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (b)));
    if (a) {
      gboolean look = look_all_up_to == 0 || info.size <= look_all_up_to ||
          n % 5 == 0;

      fail_unless (gst_caps_is_equal (gst_sample_get_caps (a),
              gst_sample_get_caps (b)), "%s: frame %u in %" GST_PTR_FORMAT
          " after the pair, %" GST_PTR_FORMAT " beside it", what, n,
          gst_sample_get_caps (b), gst_sample_get_caps (a));
      fail_unless (!look || pinned_test_frames_equal (gst_sample_get_buffer
              (a), gst_sample_get_buffer (b), &info), "%s: frame %u (%s "
          "%dx%d) differs", what, n, GST_VIDEO_INFO_NAME (&info),
          GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
      gst_sample_unref (a);
    } else {
      fail_if (ref != NULL, "%s: frame %u only after the pair", what, n);
      fail_unless (gst_buffer_get_size (gst_sample_get_buffer (b)) >=
          info.size);
    }
    gst_sample_unref (b);
    n++;
  }

  if (ref)
    gst_object_unref (ref);
  gst_object_unref (out);
  return n;
}

GstBuffer *
pinned_test_new_padded_frame (const GstVideoInfo * info, guint pad,
    guint32 seed)
{
  GstVideoInfo padded = *info;
  GstVideoAlignment align;
  GstBuffer *buffer;

  gst_video_alignment_reset (&align);
  align.padding_right = pad;
  fail_unless (gst_video_info_align (&padded, &align));

  buffer = pinned_test_new_pageable (padded.size);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      padded.offset, padded.stride);
  pinned_test_fill_frame (buffer, info, seed);

  return buffer;
}

void
pinned_test_device_init (PinnedTestDevice * d)
{
  GError *error = NULL;

  d->ctx = gst_pinned_context_new (0, &error);
  fail_unless (d->ctx != NULL, "%s", error ? error->message : "");
  d->stream = gst_pinned_stream_new (d->ctx, NULL);
  fail_unless (d->stream != NULL);
  d->host = gst_pinned_host_allocator_new (d->ctx);
  d->device = gst_pinned_device_allocator_new (d->ctx);
}

void
pinned_test_device_clear (PinnedTestDevice * d)
{
  gst_object_unref (d->device);
  gst_object_unref (d->host);
  gst_pinned_stream_unref (d->stream);
  gst_object_unref (d->ctx);
}

GstPinnedBaseTransform *
pinned_test_get_transform (GstElement * element, const gchar * factory)
{
  GstElement *found = NULL;
  GstElementFactory *f;

  if (GST_IS_BIN (element)) {
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (element));
    GValue item = G_VALUE_INIT;

    while (found == NULL && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
      GstElement *child = g_value_get_object (&item);

      f = gst_element_get_factory (child);
      if (f && g_strcmp0 (GST_OBJECT_NAME (f), factory) == 0)
        found = child;
      g_value_reset (&item);
    }
    g_value_unset (&item);
    gst_iterator_free (it);
  } else {
    found = element;
  }

  fail_unless (found != NULL);
  return GST_PINNED_BASE_TRANSFORM (found);
}

GstPinnedStream *
pinned_test_legacy_stream (GstPinnedContext * ctx)
{
  return gst_pinned_stream_new_wrapped (ctx, NULL);
}

/* ---- pageable memory that ends at a guard page ------------------------ */

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* maxsize bytes, an inaccessible page after */
  guint8 *map_base;             /* of the whole mapping; NULL for a share */
  gsize map_size;
} GuardedMemory;

typedef struct
{
  GstAllocator parent;
} GuardedAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GuardedAllocatorClass;

static GType guarded_allocator_get_type (void);
G_DEFINE_TYPE (GuardedAllocator, guarded_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
guarded_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  gsize page = sysconf (_SC_PAGESIZE);
  gsize maxsize = size + params->prefix + params->padding;
  GuardedMemory *mem = g_new0 (GuardedMemory, 1);
  TrackFunc track = fake_symbol ("fakecuda_track_host_range");
  guint8 *guard;

  mem->map_size = (maxsize + params->align + page - 1) / page * page + page;
  mem->map_base = mmap (NULL, mem->map_size, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert (mem->map_base != MAP_FAILED);
  guard = mem->map_base + mem->map_size - page;
  g_assert (mprotect (guard, page, PROT_NONE) == 0);
  /* As close to the guard page as the alignment allows. */
  mem->data = (guint8 *) ((guintptr) (guard - maxsize) &
      ~(guintptr) params->align);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  if (track)
    track (mem->data, maxsize);
  return GST_MEMORY_CAST (mem);
}

static void
guarded_free (GstAllocator * allocator, GstMemory * memory)
{
  GuardedMemory *mem = (GuardedMemory *) memory;
  UntrackFunc untrack = fake_symbol ("fakecuda_untrack_host_range");

  if (mem->map_base) {
    if (untrack)
      untrack (mem->data);
    munmap (mem->map_base, mem->map_size);
  }
  g_free (mem);
}

static gpointer
guarded_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GuardedMemory *) memory)->data;
}

static void
guarded_unmap (GstMemory * memory)
{
}

static GstMemory *
guarded_share (GstMemory * memory, gssize offset, gssize size)
{
  GuardedMemory *root = (GuardedMemory *) (memory->parent ? memory->parent :
      memory);
  GuardedMemory *sub = g_new0 (GuardedMemory, 1);

  if (size == -1)
    size = memory->size - offset;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, GST_MEMORY_CAST (root), memory->maxsize,
      memory->align, memory->offset + offset, size);
  sub->data = root->data;
  return GST_MEMORY_CAST (sub);
}

static void
guarded_allocator_class_init (GuardedAllocatorClass * klass)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = guarded_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = guarded_free;
}

static void
guarded_allocator_init (GuardedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = "PinnedTestPageable";
  allocator->mem_map = guarded_map;
  allocator->mem_unmap = guarded_unmap;
  allocator->mem_share = guarded_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstBuffer *
pinned_test_new_pageable (gsize size)
{
  static GstAllocator *allocator;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *a = g_object_new (guarded_allocator_get_type (), NULL);

    gst_object_ref_sink (a);
    g_once_init_leave (&allocator, a);
  }
  return gst_buffer_new_allocate (allocator, size, NULL);
}

/* ---- pinnedtestfilter ------------------------------------------------- */

typedef struct
{
  GstPinnedFilter parent;
  guint mark;
  gboolean in_place;
  guint delay_ms;
} PinnedTestFilter;

typedef struct
{
  GstPinnedFilterClass parent_class;
} PinnedTestFilterClass;

enum
{
  PROP_0,
  PROP_MARK,
  PROP_IN_PLACE,
  PROP_DELAY_MS,
};

static GType pinned_test_filter_get_type (void);
G_DEFINE_TYPE (PinnedTestFilter, pinned_test_filter, GST_TYPE_PINNED_FILTER);

static guint
plane_height (GstVideoFrame * frame, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (frame->info.finfo, plane, comp);
  return GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
}

/* The "kernel" takes @delay_ms before it writes anything. */
static void
filter_delay (PinnedTestFilter * self, gpointer stream)
{
  if (self->delay_ms)
    delay_handle (stream, self->delay_ms);
}

static gboolean
mark_first_row (PinnedTestFilter * self, GstVideoFrame * frame,
    gpointer stream, GError ** error)
{
  return gst_pinned_cuda_result (cudaMemsetAsync (GST_VIDEO_FRAME_PLANE_DATA
          (frame, 0), self->mark, GST_VIDEO_FRAME_COMP_WIDTH (frame, 0) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0), (cudaStream_t) stream),
      error);
}

static gboolean
pinned_test_filter_filter (GstPinnedFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out, gpointer stream, GError ** error)
{
  guint p;

  filter_delay ((PinnedTestFilter *) filter, stream);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    gint width = MIN (GST_VIDEO_FRAME_PLANE_STRIDE (in, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (out, p));

    if (!gst_pinned_cuda_result (cudaMemcpy2DAsync
            (GST_VIDEO_FRAME_PLANE_DATA (out, p),
                GST_VIDEO_FRAME_PLANE_STRIDE (out, p),
                GST_VIDEO_FRAME_PLANE_DATA (in, p),
                GST_VIDEO_FRAME_PLANE_STRIDE (in, p), width, plane_height (in,
                    p), cudaMemcpyDeviceToDevice, (cudaStream_t) stream),
            error))
      return FALSE;
  }
  return mark_first_row ((PinnedTestFilter *) filter, out, stream, error);
}

static gboolean
pinned_test_filter_filter_ip (GstPinnedFilter * filter, GstVideoFrame * frame,
    gpointer stream, GError ** error)
{
  filter_delay ((PinnedTestFilter *) filter, stream);
  return mark_first_row ((PinnedTestFilter *) filter, frame, stream, error);
}

static gboolean
pinned_test_filter_set_info (GstPinnedBaseTransform * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  PinnedTestFilter *self = (PinnedTestFilter *) base;

  if (!GST_PINNED_BASE_TRANSFORM_CLASS (pinned_test_filter_parent_class)
      ->set_info (base, incaps, in_info, outcaps, out_info))
    return FALSE;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (base), self->in_place);
  return TRUE;
}

static void
pinned_test_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PinnedTestFilter *self = (PinnedTestFilter *) object;

  switch (prop_id) {
    case PROP_MARK:
      self->mark = g_value_get_uint (value);
      break;
    case PROP_IN_PLACE:
      self->in_place = g_value_get_boolean (value);
      break;
    case PROP_DELAY_MS:
      self->delay_ms = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
pinned_test_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  PinnedTestFilter *self = (PinnedTestFilter *) object;

  switch (prop_id) {
    case PROP_MARK:
      g_value_set_uint (value, self->mark);
      break;
    case PROP_IN_PLACE:
      g_value_set_boolean (value, self->in_place);
      break;
    case PROP_DELAY_MS:
      g_value_set_uint (value, self->delay_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
pinned_test_filter_class_init (PinnedTestFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstPinnedFilterClass *filter_class = GST_PINNED_FILTER_CLASS (klass);
  GstCaps *caps =
      gst_caps_from_string (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
      (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, GST_VIDEO_FORMATS_ALL));

  gobject_class->set_property = pinned_test_filter_set_property;
  gobject_class->get_property = pinned_test_filter_get_property;
  g_object_class_install_property (gobject_class, PROP_MARK,
      g_param_spec_uint ("mark", "Mark", "Byte written over the first row",
          0, 255, 0x77, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_IN_PLACE,
      g_param_spec_boolean ("in-place", "In place", "Only mark, in place",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DELAY_MS,
      g_param_spec_uint ("delay-ms", "Delay", "How long the work takes, "
          "before it writes", 0, 10000, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class, "Pinned test filter",
      "Filter/Video/Hardware", "Copies and marks frames on the GPU (tests)",
      "gst-pinned developers");

  filter_class->filter = pinned_test_filter_filter;
  filter_class->filter_ip = pinned_test_filter_filter_ip;
  GST_PINNED_BASE_TRANSFORM_CLASS (klass)->set_info =
      pinned_test_filter_set_info;
}

static void
pinned_test_filter_init (PinnedTestFilter * self)
{
  self->mark = 0x77;
}

static void
register_test_filter (void)
{
  gst_element_register (NULL, PINNED_TEST_FILTER, GST_RANK_NONE,
      pinned_test_filter_get_type ());
}

GstCaps *
pinned_test_device_caps (const GstVideoInfo * info)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  GstCaps *device = gst_pinned_caps_set_memory_feature (caps,
      GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);

  gst_caps_unref (caps);
  return device;
}

GstBuffer *
pinned_test_marked_frame (GstBuffer * in, const GstVideoInfo * info,
    guint8 mark)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame fin, fout;

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&fout, &fin));
  memset (GST_VIDEO_FRAME_PLANE_DATA (&fout, 0), mark,
      GST_VIDEO_FRAME_COMP_WIDTH (&fout, 0) *
      GST_VIDEO_FRAME_COMP_PSTRIDE (&fout, 0));
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  return out;
}

void
pinned_test_check_error (GstMessage * msg, const gchar * text, ...)
{
  GError *error = NULL;
  gchar *debug = NULL;
  const gchar *part;
  va_list parts;

  fail_unless (msg != NULL, "no error message");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (text == NULL || strstr (error->message, text) != NULL,
      "message: %s (expected: %s)", error->message, text);
  va_start (parts, text);
  while ((part = va_arg (parts, const gchar *)) != NULL)
      fail_unless (debug && strstr (debug, part) != NULL, "debug: %s "
        "(expected: %s)", debug, part);
  va_end (parts);
  g_error_free (error);
  g_free (debug);
}

guint64
pinned_test_stat (GstElement * element, const gchar * field)
{
  GstStructure *stats = NULL;
  guint64 v = 0;

  g_object_get (element, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_get_uint64 (stats, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, stats);
  gst_structure_free (stats);
  return v;
}

GPtrArray *
pinned_test_threads (const gchar * name)
{
  GPtrArray *tids = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;

  fail_unless (dir != NULL, "no /proc/self/task");
  while ((tid = g_dir_read_name (dir))) {
    gchar *path = g_build_filename ("/proc/self/task", tid, "comm", NULL);
    gchar *comm = NULL;

    if (name == NULL || (g_file_get_contents (path, &comm, NULL, NULL) &&
            strcmp (g_strchomp (comm), name) == 0))
      g_ptr_array_add (tids, g_strdup (tid));
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  return tids;
}
