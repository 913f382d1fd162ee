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
#include <string.h>
#include <cuda_runtime_api.h>

#include "pinnedtest.h"

/* In delay.cu: a kernel that spins on the GPU's global timer. */
int pinned_test_spin (void *stream, unsigned long long ns);

static gboolean fake_loaded;

typedef int (*VersionFunc) (void);
typedef void (*ResetFunc) (void);
typedef void (*SetDelayFunc) (guint64);
typedef cudaError_t (*StreamSleepFunc) (cudaStream_t, guint64);
typedef void (*FailFunc) (const char *, unsigned, unsigned, cudaError_t);
typedef guint64 (*CountFunc) (const char *);

static gpointer
fake_symbol (const gchar * name)
{
  return fake_loaded ? dlsym (RTLD_DEFAULT, name) : NULL;
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
  suite = make_suite ();
  failed = gst_check_run_suite (suite, want_fake ? "fake" : "gpu", argv[0]);

  return failed == 0 ? 0 : 1;
}

gboolean
pinned_test_is_fake (void)
{
  return fake_loaded;
}

void
pinned_test_delay_stream (GstPinnedStream * stream, guint ms)
{
  StreamSleepFunc sleep_func = fake_symbol ("fakecuda_stream_sleep");
  GstPinnedContext *context = gst_pinned_stream_get_context (stream);

  if (sleep_func) {
    fail_unless_equals_int (sleep_func (gst_pinned_stream_get_handle (stream),
            (guint64) ms * 1000), cudaSuccess);
    return;
  }

  fail_unless (gst_pinned_context_push (context, NULL));
  fail_unless_equals_int (pinned_test_spin (gst_pinned_stream_get_handle
          (stream), (unsigned long long) ms * 1000000), cudaSuccess);
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
pinned_test_call_count (const gchar * function)
{
  CountFunc func = fake_symbol ("fakecuda_call_count");

  return func ? func (function) : 0;
}

void
pinned_test_reset (void)
{
  ResetFunc func = fake_symbol ("fakecuda_reset");

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
 * paletted formats is one row of 1024 bytes). */
static void
plane_geometry (const GstVideoInfo * info, guint plane, guint * rows,
    guint * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GstVideoInfo packed;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1) {
    *rows = 1;
    *row_bytes = 256 * 4;
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

    plane_geometry (info, p, &rows, &row_bytes);
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
  if (comp[0] < 0 || (i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0)) {
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

    plane_geometry (info, p, &rows, &row_bytes);
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

  buffer = gst_buffer_new_allocate (NULL, padded.size, NULL);
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
