/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch: many streams into one [N, 3, H, W] tensor.
 *
 * Each slot is checked against a CPU reference written here in double
 * precision, independently of the kernel's fixed point (bilinear with
 * half-pixel centres, YUV to RGB from Kr and Kb, normalisation): uint8
 * exact for unscaled RGB, within one level otherwise. On the stand-in the
 * kernel runs as the CPU emulation of tests/common/kernelemu.c (its own
 * function, gst/kernels/batch.h), reading the slot table the element
 * copied to device memory; on a GPU the real kernel runs. */

#include <math.h>
#include <string.h>
#include <gst/app/gstappsink.h>
#include "pinnedtest.h"
#include "kernelemu.h"

typedef struct
{
  gint width, height;
  gboolean letterbox;
  guint pad_value;
  /* uint8, float16, float32 */
  const gchar *type;
  gboolean bgr;
  gdouble mean[3], std[3];
} Settings;

static const Settings plain_u8 = { 64, 48, FALSE, 114, "uint8", FALSE,
  {0, 0, 0}, {1, 1, 1}
};

/* ---- the reference ----------------------------------------------------- */

static gdouble
sample (GstVideoFrame * f, gint comp, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, comp) +
      (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) +
      (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);

  if (GST_VIDEO_FORMAT_INFO_DEPTH (f->info.finfo, comp) > 8)
    return (p[0] | (p[1] << 8)) / 256.0;
  return p[0];
}

static void
source_rgb (GstVideoFrame * f, gint x, gint y, gdouble rgb[3])
{
  const GstVideoInfo *info = &f->info;
  gint c;

  if (GST_VIDEO_INFO_IS_RGB (info)) {
    for (c = 0; c < 3; c++)
      rgb[c] = sample (f, c, x, y);
  } else {
    GstVideoColorMatrix matrix = info->colorimetry.matrix;
    gboolean full = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    gdouble kr, kb, kg, Y, U, V;

    if (!gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb))
      gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
    kg = 1 - kr - kb;
    Y = sample (f, 0, x, y);
    U = sample (f, 1, x / 2, y / 2) - 128;
    V = sample (f, 2, x / 2, y / 2) - 128;
    if (!full) {
      Y = (Y - 16) * 255 / 219;
      U *= 255.0 / 224;
      V *= 255.0 / 224;
    }
    rgb[0] = Y + 2 * (1 - kr) * V;
    rgb[1] = Y - 2 * kb * (1 - kb) / kg * U - 2 * kr * (1 - kr) / kg * V;
    rgb[2] = Y + 2 * (1 - kb) * U;
    for (c = 0; c < 3; c++)
      rgb[c] = CLAMP (rgb[c], 0, 255);
  }
}

/* Where a frame of @sw x @sh goes in the plane: x, y, width, height. */
static void
expected_rect (const Settings * s, gint sw, gint sh, gint r[4])
{
  if (s->letterbox) {
    gdouble scale = MIN ((gdouble) s->width / sw, (gdouble) s->height / sh);

    r[2] = (gint) floor (sw * scale + 0.5);
    r[3] = (gint) floor (sh * scale + 0.5);
    r[0] = (s->width - r[2]) / 2;
    r[1] = (s->height - r[3]) / 2;
  } else {
    r[0] = r[1] = 0;
    r[2] = s->width;
    r[3] = s->height;
  }
}

static gdouble
position (gint d, gint n, gint src, gint * lo, gint * hi)
{
  gdouble q = CLAMP ((d + 0.5) * src / n - 0.5, 0, src - 1);

  *lo = (gint) floor (q);
  *hi = MIN (*lo + 1, src - 1);
  return q - *lo;
}

/* Levels 0..255 of a slot's three planes (in output order) for @frame
 * (system memory, or NULL for an empty slot). */
static gdouble *
reference_slot (GstBuffer * frame, const GstVideoInfo * info,
    const Settings * s)
{
  gsize plane = (gsize) s->width * s->height;
  gdouble *out = g_new (gdouble, 3 * plane);
  GstVideoFrame f;
  gint r[4] = { 0, 0, 0, 0 };
  gint X, Y, c;

  if (frame) {
    fail_unless (gst_video_frame_map (&f, info, frame, GST_MAP_READ));
    expected_rect (s, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        r);
  }

  for (Y = 0; Y < s->height; Y++)
    for (X = 0; X < s->width; X++) {
      gdouble rgb[3], a[3], b[3], d[3], e[3];

      if (frame == NULL || X < r[0] || Y < r[1] || X >= r[0] + r[2] ||
          Y >= r[1] + r[3]) {
        rgb[0] = rgb[1] = rgb[2] = s->pad_value;
      } else {
        gint x0, x1, y0, y1;
        gdouble fx = position (X - r[0], r[2], GST_VIDEO_INFO_WIDTH (info),
            &x0, &x1);
        gdouble fy = position (Y - r[1], r[3], GST_VIDEO_INFO_HEIGHT (info),
            &y0, &y1);

        source_rgb (&f, x0, y0, a);
        source_rgb (&f, x1, y0, b);
        source_rgb (&f, x0, y1, d);
        source_rgb (&f, x1, y1, e);
        for (c = 0; c < 3; c++)
          rgb[c] = (a[c] * (1 - fx) + b[c] * fx) * (1 - fy) +
              (d[c] * (1 - fx) + e[c] * fx) * fy;
      }
      for (c = 0; c < 3; c++)
        out[c * plane + (gsize) Y * s->width + X] = rgb[s->bgr ? 2 - c : c];
    }

  if (frame)
    gst_video_frame_unmap (&f);
  return out;
}

static gfloat
half_to_float (guint16 h)
{
  guint32 sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  gfloat v;

  if (exp == 0)
    v = ldexpf ((gfloat) mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = ldexpf ((gfloat) (mant | 0x400), (gint) exp - 25);
  return sign ? -v : v;
}

/* The tensor's element of @slot, plane @c, pixel @i, as a double. */
static gdouble
element_at (const guint8 * data, const Settings * s, guint slot, gint c,
    gsize i)
{
  gsize plane = (gsize) s->width * s->height;
  gsize at = ((gsize) slot * 3 + c) * plane + i;

  if (!strcmp (s->type, "uint8"))
    return data[at];
  if (!strcmp (s->type, "float16"))
    return half_to_float (((const guint16 *) data)[at]);
  return ((const gfloat *) data)[at];
}

/* Fails unless slot @slot of @batch matches the reference for @frame
 * (NULL: empty); @exact for a uint8 copy that must be exact. */
static void
check_slot (GstBuffer * batch, guint slot, GstBuffer * frame,
    const GstVideoInfo * info, const Settings * s, gboolean exact,
    const gchar * what)
{
  gdouble *ref = reference_slot (frame, info, s);
  gsize plane = (gsize) s->width * s->height, i;
  gboolean u8 = !strcmp (s->type, "uint8");
  gdouble worst = 0;
  GstMapInfo map;
  gint c;

  fail_unless (gst_buffer_map (batch, &map, GST_MAP_READ));
  for (c = 0; c < 3; c++) {
    gint colour = s->bgr ? 2 - c : c;

    for (i = 0; i < plane; i++) {
      gdouble got = element_at (map.data, s, slot, c, i);
      gdouble level = ref[c * plane + i], want, diff;

      if (u8) {
        want = floor (level + 0.5);
        diff = fabs (got - want);
        /* within one level; exact where nothing is interpolated */
        fail_unless (diff <= (exact ? 0 : 1), "%s: slot %u channel %d "
            "pixel (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "): %g, not %g",
            what, slot, c, i % s->width, i / s->width, got, want);
      } else {
        gdouble tol;

        want = (level / 255 - s->mean[colour]) / s->std[colour];
        tol = 1.0 / 255 / s->std[colour] + 2e-3 * fabs (want);
        diff = fabs (got - want);
        fail_unless (diff <= tol, "%s: slot %u channel %d pixel (%"
            G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "): %g, not %g", what, slot,
            c, i % s->width, i / s->width, got, want);
      }
      worst = MAX (worst, diff);
    }
  }
  gst_buffer_unmap (batch, &map);
  GST_DEBUG ("%s: slot %u within %g", what, slot, worst);
  g_free (ref);
}

/* ---- a batcher with harnessed pads ------------------------------------- */

typedef struct
{
  GstElement *element;
  GstBus *bus;
  GstHarness *h[8];
  guint n;
} Batcher;

static void
batcher_init (Batcher * b, const Settings * s, guint n_pads,
    GstPinnedContext * context)
{
  guint i;

  memset (b, 0, sizeof (*b));
  b->element = gst_element_factory_make ("pinnedbatch", NULL);
  fail_unless (b->element != NULL);
  gst_util_set_object_arg (G_OBJECT (b->element), "type", s->type);
  gst_util_set_object_arg (G_OBJECT (b->element), "channel-order",
      s->bgr ? "BGR" : "RGB");
  g_object_set (b->element, "width", s->width, "height", s->height,
      "letterbox", s->letterbox, "pad-value", s->pad_value, NULL);
  if (strcmp (s->type, "uint8")) {
    gchar *mean = g_strdup_printf ("<%g, %g, %g>", s->mean[0], s->mean[1],
        s->mean[2]);
    gchar *std = g_strdup_printf ("<%g, %g, %g>", s->std[0], s->std[1],
        s->std[2]);

    gst_util_set_object_arg (G_OBJECT (b->element), "mean", mean);
    gst_util_set_object_arg (G_OBJECT (b->element), "std", std);
    g_free (mean);
    g_free (std);
  }
  b->bus = gst_bus_new ();
  gst_element_set_bus (b->element, b->bus);
  if (context) {
    GstContext *c = gst_context_new_pinned_context (context);

    gst_element_set_context (b->element, c);
    gst_context_unref (c);
  }
  for (i = 0; i < n_pads; i++)
    b->h[i] = gst_harness_new_with_element (b->element, "sink_%u",
        i == 0 ? "src" : NULL);
  b->n = n_pads;
}

static void
batcher_clear (Batcher * b)
{
  gint i;

  /* the one with the source pad last: it stops the element */
  for (i = b->n - 1; i >= 0; i--)
    if (b->h[i])
      gst_harness_teardown (b->h[i]);
  gst_element_set_bus (b->element, NULL);
  gst_object_unref (b->bus);
  gst_object_unref (b->element);
}

static GstCaps *
video_caps (const gchar * format, gint w, gint h, const gchar * feature)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);

  if (feature)
    gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  return caps;
}

/* A system memory frame of @info with content from @seed, from @h's pool
 * (the page-locked pool the pad offered), or pageable without @h. */
static GstBuffer *
new_frame (GstHarness * h, const GstVideoInfo * info, guint32 seed,
    GstClockTime pts)
{
  GstBuffer *buf = h ? gst_harness_create_buffer (h, info->size) :
      gst_buffer_new_allocate (NULL, info->size, NULL);

  pinned_test_fill_frame (buf, info, seed);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static gint
caps_int (GstHarness * h, const gchar * field)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  gint v = -1;

  fail_unless (caps != NULL);
  gst_structure_get_int (gst_caps_get_structure (caps, 0), field, &v);
  gst_caps_unref (caps);
  return v;
}

/* Pushes a frame of @info (seed @seed + pad) on each pad of @b that @mask
 * names; returns them (system memory) in @in. */
static void
push_frames (Batcher * b, const GstVideoInfo * info, guint mask,
    GstBuffer ** in, guint32 seed, GstClockTime pts)
{
  guint i;

  for (i = 0; i < b->n; i++) {
    in[i] = NULL;
    if (!(mask & (1 << i)) || b->h[i] == NULL)
      continue;
    in[i] = new_frame (b->h[i], info, seed + i, pts);
    fail_unless_equals_int (gst_harness_push (b->h[i],
            gst_buffer_ref (in[i])), GST_FLOW_OK);
  }
}

static void
clear_frames (GstBuffer ** in, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    gst_clear_buffer (&in[i]);
}

/* ---- tests ------------------------------------------------------------- */

static const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB",
  "xBGR", "RGB", "BGR", "RGBP", "BGRP", "NV12", "NV21", "I420", "YV12",
  "P010_10LE", "P016_LE"
};

static gboolean
is_rgb (const gchar * format)
{
  const GstVideoFormatInfo *f =
      gst_video_format_get_info (gst_video_format_from_string (format));

  return GST_VIDEO_FORMAT_INFO_IS_RGB (f);
}

/* Two streams of one format into one batch; the frames in system memory
 * through the pads' page-locked pools. */
static void
check_format (const gchar * format, gint w0, gint h0, gint w1, gint h1,
    const Settings * s)
{
  Batcher b;
  GstVideoInfo info[2];
  GstBuffer *in[2], *out;
  GstPinnedBatchMeta *meta;
  gchar *what;
  gint sizes[2][2] = { {w0, h0}, {w1, h1} };
  guint i;

  batcher_init (&b, s, 2, NULL);
  for (i = 0; i < 2; i++) {
    GstCaps *caps = video_caps (format, sizes[i][0], sizes[i][1], NULL);

    fail_unless (gst_video_info_from_caps (&info[i], caps));
    gst_harness_set_src_caps (b.h[i], caps);
  }
  for (i = 0; i < 2; i++) {
    in[i] = new_frame (b.h[i], &info[i], 17 * i + w0 + h1, i * GST_SECOND);
    /* the source wrote into the page-locked pool the pad offered */
    fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (in[i],
                0)), "%s: the pad offered no page-locked pool", format);
    fail_unless_equals_int (gst_harness_push (b.h[i], gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL, "%s: no batch", format);
  fail_unless_equals_int (gst_buffer_get_size (out), 2 * 3 * s->width *
      s->height * (!strcmp (s->type, "uint8") ? 1 :
          !strcmp (s->type, "float16") ? 2 : 4));
  fail_unless (gst_is_pinned_device_memory (gst_buffer_peek_memory (out, 0)));
  meta = gst_buffer_get_pinned_batch_meta (out);
  fail_unless (meta != NULL && meta->n_slots == 2);

  for (i = 0; i < 2; i++) {
    gboolean unscaled = sizes[i][0] == s->width && sizes[i][1] == s->height;

    what = g_strdup_printf ("%s %dx%d -> %s %dx%d%s", format, sizes[i][0],
        sizes[i][1], s->type, s->width, s->height, s->letterbox ?
        " letterboxed" : "");
    check_slot (out, i, in[i], &info[i], s, unscaled && is_rgb (format) &&
        !strcmp (s->type, "uint8"), what);
    fail_if (meta->slots[i].empty);
    fail_unless_equals_int (meta->slots[i].pad_index, i);
    fail_unless_equals_int (meta->slots[i].source_width, sizes[i][0]);
    fail_unless_equals_uint64 (meta->slots[i].pts, i * GST_SECOND);
    g_free (what);
    gst_buffer_unref (in[i]);
  }
  gst_buffer_unref (out);
  batcher_clear (&b);
}

GST_START_TEST (test_unscaled_copies)
{
  guint i;

  /* uint8, the plane the frames' size: RGB exact, YUV within a level */
  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    check_format (formats[i], 64, 48, 64, 48, &plain_u8);
}

GST_END_TEST;

GST_START_TEST (test_scaled_odd_sizes)
{
  Settings s = plain_u8;
  guint i;

  /* stretched down and up, from odd sizes, into an odd plane */
  s.width = 37;
  s.height = 29;
  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    check_format (formats[i], 317, 239, 21, 15, &s);
}

GST_END_TEST;

GST_START_TEST (test_letterbox)
{
  Settings s = plain_u8;
  guint i;

  /* wide and tall frames: bars at the top and bottom, at the sides */
  s.letterbox = TRUE;
  s.pad_value = 77;
  s.bgr = TRUE;
  for (i = 0; i < G_N_ELEMENTS (formats); i += 3)
    check_format (formats[i], 101, 33, 19, 57, &s);
}

GST_END_TEST;

GST_START_TEST (test_normalised)
{
  Settings s16 = { 40, 40, TRUE, 114, "float16", FALSE,
    {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}
  };
  Settings s32 = { 33, 20, FALSE, 0, "float32", TRUE,
    {0.5, 0.25, 0}, {0.5, 2, 1}
  };

  check_format ("NV12", 64, 48, 40, 40, &s16);
  check_format ("RGBA", 71, 13, 40, 40, &s16);
  check_format ("P010_10LE", 66, 50, 33, 20, &s32);
  check_format ("BGRx", 33, 20, 17, 9, &s32);
}

GST_END_TEST;

GST_START_TEST (test_meta_maps_back)
{
  Settings s = plain_u8;
  Batcher b;
  GstVideoInfo info[2];
  GstBuffer *in[2], *out, *copy;
  GstPinnedBatchMeta *meta, *copied;
  gint sizes[2][2] = { {160, 90}, {30, 50}
  };
  guint i;

  s.width = s.height = 64;
  s.letterbox = TRUE;
  batcher_init (&b, &s, 2, NULL);
  for (i = 0; i < 2; i++) {
    GstCaps *caps = video_caps ("I420", sizes[i][0], sizes[i][1], NULL);

    fail_unless (gst_video_info_from_caps (&info[i], caps));
    gst_harness_set_src_caps (b.h[i], caps);
    in[i] = new_frame (b.h[i], &info[i], i, (i + 3) * GST_MSECOND);
    fail_unless_equals_int (gst_harness_push (b.h[i], in[i]), GST_FLOW_OK);
  }
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  meta = gst_buffer_get_pinned_batch_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_pinned_batch_meta_get_n_slots (meta), 2);
  fail_unless (gst_pinned_batch_meta_get_slot (meta, 2) == NULL);

  for (i = 0; i < 2; i++) {
    GstPinnedBatchSlot *slot = gst_pinned_batch_meta_get_slot (meta, i);
    gchar *name = g_strdup_printf ("sink_%u", i);
    gdouble sx, sy, tx, ty;
    gint r[4];

    expected_rect (&s, sizes[i][0], sizes[i][1], r);
    fail_unless_equals_int (slot->index, i);
    fail_unless_equals_string (slot->pad_name, name);
    fail_unless_equals_uint64 (slot->pts, (i + 3) * GST_MSECOND);
    fail_unless_equals_uint64 (slot->running_time, (i + 3) * GST_MSECOND);
    fail_unless_equals_int (slot->x, r[0]);
    fail_unless_equals_int (slot->y, r[1]);
    fail_unless_equals_int (slot->width, r[2]);
    fail_unless_equals_int (slot->height, r[3]);
    fail_unless_equals_int (slot->source_height, sizes[i][1]);

    /* the frame's rectangle is the whole frame, exactly */
    fail_unless (gst_pinned_batch_slot_to_source (slot, r[0], r[1], &sx, &sy));
    fail_unless (sx == 0 && sy == 0, "%g %g", sx, sy);
    fail_unless (gst_pinned_batch_slot_to_source (slot, r[0] + r[2],
            r[1] + r[3], &sx, &sy));
    fail_unless (sx == sizes[i][0] && sy == sizes[i][1], "%g %g", sx, sy);
    /* a box's corner there and back */
    fail_unless (gst_pinned_batch_slot_from_source (slot, 12.5, 7, &tx, &ty));
    fail_unless (gst_pinned_batch_slot_to_source (slot, tx, ty, &sx, &sy));
    fail_unless (fabs (sx - 12.5) < 1e-9 && fabs (sy - 7) < 1e-9);
    g_free (name);
  }

  /* a copy of the batch carries its slots */
  copy = gst_buffer_copy (out);
  copied = gst_buffer_get_pinned_batch_meta (copy);
  fail_unless (copied != NULL && copied != meta && copied->n_slots == 2);
  fail_unless_equals_int (copied->slots[1].width, meta->slots[1].width);
  gst_buffer_unref (copy);
  gst_buffer_unref (out);
  batcher_clear (&b);
}

GST_END_TEST;

static gboolean
got_eos (GstHarness * h, guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  GstEvent *ev;

  while (g_get_monotonic_time () < end) {
    while ((ev = gst_harness_try_pull_event (h))) {
      gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

      gst_event_unref (ev);
      if (eos)
        return TRUE;
    }
    g_usleep (1000);
  }
  return FALSE;
}

GST_START_TEST (test_eos_of_one_stream)
{
  Settings s = plain_u8;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *in[2], *out;
  GstPinnedBatchMeta *meta;
  guint i, k;

  batcher_init (&b, &s, 2, NULL);
  for (i = 0; i < 2; i++) {
    GstCaps *caps = video_caps ("NV12", 64, 48, NULL);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (b.h[i], caps);
  }
  push_frames (&b, &info, 3, in, 1, 0);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  check_slot (out, 1, in[1], &info, &s, FALSE, "both");
  gst_buffer_unref (out);
  clear_frames (in, 2);

  /* sink_1 ends: sink_0 goes on, its slot empty */
  fail_unless (gst_harness_push_event (b.h[1], gst_event_new_eos ()));
  for (k = 0; k < 3; k++) {
    push_frames (&b, &info, 1, in, 10 + k, (k + 1) * GST_SECOND / 30);
    out = gst_harness_pull (b.h[0]);
    fail_unless (out != NULL, "no batch after one stream ended");
    meta = gst_buffer_get_pinned_batch_meta (out);
    fail_if (meta->slots[0].empty);
    fail_unless (meta->slots[1].empty);
    check_slot (out, 0, in[0], &info, &s, FALSE, "after EOS of sink_1");
    check_slot (out, 1, NULL, &info, &s, TRUE, "the ended stream's slot");
    gst_buffer_unref (out);
    clear_frames (in, 2);
  }
  fail_if (got_eos (b.h[0], 50), "EOS before every stream ended");
  fail_unless (gst_harness_push_event (b.h[0], gst_event_new_eos ()));
  fail_unless (got_eos (b.h[0], 5000), "no EOS once every stream ended");
  batcher_clear (&b);
}

GST_END_TEST;

GST_START_TEST (test_pads_while_playing)
{
  Settings s = plain_u8;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *in[3], *out;
  GstPinnedBatchMeta *meta;
  guint i;

  batcher_init (&b, &s, 2, NULL);
  for (i = 0; i < 2; i++) {
    GstCaps *caps = video_caps ("RGBA", 64, 48, NULL);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (b.h[i], caps);
  }
  push_frames (&b, &info, 3, in, 1, 0);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  fail_unless_equals_int (caps_int (b.h[0], "batch"), 2);
  gst_buffer_unref (out);
  clear_frames (in, 2);

  /* a third stream while playing: batches of three */
  b.h[2] = gst_harness_new_with_element (b.element, "sink_%u", NULL);
  b.n = 3;
  gst_harness_set_src_caps (b.h[2], video_caps ("RGBA", 64, 48, NULL));
  push_frames (&b, &info, 7, in, 20, GST_SECOND);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  fail_unless_equals_int (caps_int (b.h[0], "batch"), 3);
  meta = gst_buffer_get_pinned_batch_meta (out);
  fail_unless_equals_int (meta->n_slots, 3);
  for (i = 0; i < 3; i++) {
    fail_unless_equals_int (meta->slots[i].pad_index, i);
    check_slot (out, i, in[i], &info, &s, TRUE, "three streams");
  }
  gst_buffer_unref (out);
  clear_frames (in, 3);

  /* the second goes: batches of two, sink_0 and sink_2 */
  gst_harness_teardown (b.h[1]);
  b.h[1] = NULL;
  push_frames (&b, &info, 5, in, 30, 2 * GST_SECOND);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  fail_unless_equals_int (caps_int (b.h[0], "batch"), 2);
  meta = gst_buffer_get_pinned_batch_meta (out);
  fail_unless_equals_int (meta->n_slots, 2);
  fail_unless_equals_int (meta->slots[1].pad_index, 2);
  check_slot (out, 0, in[0], &info, &s, TRUE, "sink_0 after sink_1 left");
  check_slot (out, 1, in[2], &info, &s, TRUE, "sink_2 after sink_1 left");
  gst_buffer_unref (out);
  clear_frames (in, 3);
  batcher_clear (&b);
}

GST_END_TEST;

/* Fewer slots than pads: the pads take turns, no frame is dropped. */
GST_START_TEST (test_more_pads_than_slots)
{
  Settings s = plain_u8;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *in[3], *out;
  GstPinnedBatchMeta *meta;
  guint seen[3] = { 0, 0, 0 };
  guint i, k;

  batcher_init (&b, &s, 3, NULL);
  g_object_set (b.element, "batch-size", 2, NULL);
  for (i = 0; i < 3; i++) {
    GstCaps *caps = video_caps ("BGRx", 64, 48, NULL);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (b.h[i], caps);
  }
  /* every pad fed again once its frame is taken: in three batches of
   * two, each pad's turn comes twice */
  push_frames (&b, &info, 7, in, 1, 0);
  clear_frames (in, 3);
  for (k = 0; k < 3; k++) {
    guint taken = 0;

    out = gst_harness_pull (b.h[0]);
    fail_unless (out != NULL);
    meta = gst_buffer_get_pinned_batch_meta (out);
    fail_unless_equals_int (meta->n_slots, 2);
    for (i = 0; i < 2; i++) {
      fail_if (meta->slots[i].empty);
      seen[meta->slots[i].pad_index]++;
      taken |= 1 << meta->slots[i].pad_index;
    }
    gst_buffer_unref (out);
    push_frames (&b, &info, taken, in, 5 + k, (k + 1) * GST_SECOND);
    clear_frames (in, 3);
  }
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (seen[i], 2);
  batcher_clear (&b);
}

GST_END_TEST;

/* Device memory in: the kernel waits on the GPU for the frames' writer,
 * the host waits for nothing, and the frames go back to their writers
 * only after the kernel (their readers' fence). */
GST_START_TEST (test_fences)
{
  Settings s = plain_u8;
  PinnedTestDevice d;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *sys[2], *dev[2], *out;
  GError *error = NULL;
  gint64 start;
  guint i;

  pinned_test_device_init (&d);
  batcher_init (&b, &s, 2, d.ctx);
  for (i = 0; i < 2; i++) {
    GstCaps *caps = video_caps ("I420", 64, 48,
        GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (b.h[i], caps);
  }
  /* the frames' copies wait behind a hold on the writer's stream */
  pinned_test_delay_stream (d.stream, pinned_test_ms (400));
  for (i = 0; i < 2; i++) {
    sys[i] = new_frame (NULL, &info, 40 + i, 0);
    dev[i] = gst_buffer_new_allocate (d.device, info.size, NULL);
    fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, sys[i],
            dev[i], &error), "%s", error ? error->message : "");
  }
  start = g_get_monotonic_time ();
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (b.h[i],
            gst_buffer_ref (dev[i])), GST_FLOW_OK);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  fail_unless (g_get_monotonic_time () - start < pinned_test_ms (300) * 1000,
      "the batch waited on the host for its inputs");
  /* the kernel has not run: the inputs are still read, the batch written */
  for (i = 0; i < 2; i++)
    if (pinned_test_work_is_async ())
      fail_if (gst_pinned_buffer_is_idle (dev[i], GST_MAP_WRITE),
          "input %u is free to be written before the kernel read it", i);
  if (pinned_test_work_is_async ())
    fail_if (gst_pinned_buffer_is_idle (out, GST_MAP_READ));
  /* a map waits for the batch: the frames as the held copies wrote them */
  for (i = 0; i < 2; i++)
    check_slot (out, i, sys[i], &info, &s, FALSE, "device memory in");
  for (i = 0; i < 2; i++)
    fail_unless (gst_pinned_buffer_is_idle (dev[i], GST_MAP_WRITE));

  gst_buffer_unref (out);
  clear_frames (sys, 2);
  clear_frames (dev, 2);
  batcher_clear (&b);
  pinned_test_device_clear (&d);
}

GST_END_TEST;

static GstMessage *
pop_error (Batcher * b)
{
  return gst_bus_timed_pop_filtered (b->bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
}

GST_START_TEST (test_refusals)
{
  Settings s = plain_u8;
  PinnedTestDevice d;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *buf;
  GstCaps *caps;
  GstMessage *msg;
  GstSegment segment;

  /* interlaced video: an element error, and the stream goes no further */
  batcher_init (&b, &s, 1, NULL);
  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,height=48,"
      "framerate=30/1,interlace-mode=interleaved");
  gst_pad_push_event (b.h[0]->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (b.h[0]->srcpad, gst_event_new_segment (&segment));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_harness_push (b.h[0], gst_buffer_new_allocate (NULL, info.size, NULL));
  msg = pop_error (&b);
  pinned_test_check_error (msg, "Cannot batch the input of sink_0",
      "interlaced", NULL);
  gst_message_unref (msg);
  batcher_clear (&b);

  /* a frame shorter than its caps say, in device memory */
  pinned_test_device_init (&d);
  batcher_init (&b, &s, 1, d.ctx);
  gst_harness_set_src_caps (b.h[0], video_caps ("RGBA", 64, 48,
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  buf = gst_buffer_new_allocate (d.device, info.size / 2, NULL);
  gst_harness_push (b.h[0], buf);
  msg = pop_error (&b);
  pinned_test_check_error (msg, "Could not make a batch",
      "does not lie in one piece", NULL);
  gst_message_unref (msg);
  batcher_clear (&b);
  pinned_test_device_clear (&d);

  /* downstream that takes other batches */
  batcher_init (&b, &s, 1, NULL);
  gst_harness_set_sink_caps (b.h[0], gst_caps_from_string
      ("other/x-pinned-batch(memory:PinnedDevice),width=320"));
  gst_harness_set_src_caps (b.h[0], video_caps ("RGBA", 64, 48, NULL));
  gst_harness_push (b.h[0], new_frame (b.h[0], &info, 1, 0));
  msg = pop_error (&b);
  pinned_test_check_error (msg, "Downstream does not take the batch", NULL);
  gst_message_unref (msg);
  batcher_clear (&b);
}

GST_END_TEST;

/* Live sources: a stream that sends nothing does not hold the others
 * back: after `timeout`, the batch goes with its slot empty. */
GST_START_TEST (test_partial_batch_on_timeout)
{
  GstElement *pipeline = gst_parse_launch ("pinnedbatch name=b width=32 "
      "height=24 type=uint8 letterbox=false timeout=20000000 ! "
      "appsink name=out sync=false "
      "videotestsrc is-live=true num-buffers=5 pattern=white ! "
      "video/x-raw,format=RGBA,width=32,height=24,framerate=30/1 ! queue ! "
      "b.sink_0 "
      "appsrc name=quiet is-live=true format=time "
      "caps=video/x-raw,format=NV12,width=32,height=24,framerate=30/1 ! "
      "queue ! b.sink_1", NULL);
  GstElement *sink, *b;
  guint64 batches;
  guint k;

  fail_unless (pipeline != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (k = 0; k < 4; k++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        5 * GST_SECOND);
    GstBuffer *out;
    GstPinnedBatchMeta *meta;
    GstMapInfo map;

    fail_unless (sample != NULL, "batch %u did not come", k);
    out = gst_sample_get_buffer (sample);
    meta = gst_buffer_get_pinned_batch_meta (out);
    fail_unless (meta != NULL && meta->n_slots == 2);
    fail_if (meta->slots[0].empty);
    fail_unless (meta->slots[1].empty);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    /* white, then the empty slot's pad-value */
    fail_unless_equals_int (map.data[5], 255);
    fail_unless_equals_int (map.data[3 * 32 * 24 + 5], 114);
    gst_buffer_unmap (out, &map);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* every batch went on timeout, its second slot empty */
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  batches = pinned_test_stat (b, "buffers");
  fail_unless (batches >= 4, "%" G_GUINT64_FORMAT " batches", batches);
  fail_unless_equals_uint64 (pinned_test_stat (b, "timeout-batches"), batches);
  fail_unless_equals_uint64 (pinned_test_stat (b, "empty-slots"), batches);
  fail_unless_equals_uint64 (pinned_test_stat (b, "frames"), batches);
  gst_object_unref (b);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Frames a source allocated itself, not from the offered pool. */
GST_START_TEST (test_pageable_input)
{
  Settings s = plain_u8;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *in, *out;

  batcher_init (&b, &s, 1, NULL);
  gst_harness_set_src_caps (b.h[0], video_caps ("NV21", 64, 48, NULL));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV21, 64, 48);
  in = new_frame (NULL, &info, 9, 0);
  fail_if (gst_is_pinned_memory (gst_buffer_peek_memory (in, 0)));
  fail_unless_equals_int (gst_harness_push (b.h[0], gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (b.h[0]);
  fail_unless (out != NULL);
  check_slot (out, 0, in, &info, &s, FALSE, "pageable NV21");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  batcher_clear (&b);
}

GST_END_TEST;

/* `stats`: what was pushed and pulled, and no host wait on the streaming
 * threads: the aggregator's, which makes the batches (the inputs' writers
 * held back on the GPU, then system memory copied in), and the sink pads'
 * (here the test's thread). */
GST_START_TEST (test_stats_no_host_wait)
{
  Settings s = plain_u8;
  PinnedTestDevice d;
  Batcher b;
  GstVideoInfo info;
  GstBuffer *sys, *dev[4], *out;
  GstMapInfo map;
  GError *error = NULL;
  guint i, k;

  /* device memory in, each round's writers behind a hold */
  pinned_test_device_init (&d);
  batcher_init (&b, &s, 2, d.ctx);
  for (i = 0; i < 2; i++)
    gst_harness_set_src_caps (b.h[i], video_caps ("I420", 64, 48,
            GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  for (k = 0; k < 2; k++) {
    pinned_test_delay_stream (d.stream, pinned_test_ms (200));
    for (i = 0; i < 2; i++) {
      sys = new_frame (NULL, &info, 40 + i, k * GST_SECOND / 30);
      /* kept: the last unref of memory not from a pool waits for its
       * readers */
      dev[2 * k + i] = gst_buffer_new_allocate (d.device, info.size, NULL);
      fail_unless (gst_pinned_transfer_video_frame (d.stream, &info, sys,
              dev[2 * k + i], &error), "%s", error ? error->message : "");
      GST_BUFFER_PTS (dev[2 * k + i]) = GST_BUFFER_PTS (sys);
      fail_unless_equals_int (gst_harness_push (b.h[i],
              gst_buffer_ref (dev[2 * k + i])), GST_FLOW_OK);
      gst_buffer_unref (sys);
    }
    out = gst_harness_pull (b.h[0]);
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "host-waits"), 0);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "host-wait-time"), 0);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "buffers"), 2);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "frames"), 4);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "empty-slots"), 0);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "copies"), 0);
  batcher_clear (&b);
  clear_frames (dev, 4);
  pinned_test_device_clear (&d);

  /* system memory in: the offered page-locked pool's and pageable */
  batcher_init (&b, &s, 2, NULL);
  for (i = 0; i < 2; i++)
    gst_harness_set_src_caps (b.h[i], video_caps ("NV12", 64, 48, NULL));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  for (k = 0; k < 3; k++) {
    for (i = 0; i < 2; i++)
      fail_unless_equals_int (gst_harness_push (b.h[i], new_frame (i ? NULL :
                  b.h[i], &info, 7 + i, k * GST_SECOND / 30)), GST_FLOW_OK);
    out = gst_harness_pull (b.h[0]);
    fail_unless (out != NULL);
    /* the batch written: the first one's timing read */
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "host-waits"), 0);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "buffers"), 3);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "frames"), 6);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "copies"), 6);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "bytes"),
      6 * info.size);
  /* the first batch timed, its time a frame of its two */
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "gpu-samples"), 2);
  fail_unless_equals_uint64 (pinned_test_stat (b.element, "timeout-batches"),
      0);
  batcher_clear (&b);
}

GST_END_TEST;

static Suite *
batcher_suite (void)
{
  Suite *s = suite_create ("batcher");
  TCase *tc = tcase_create ("general");

  pinned_test_emulate_kernels ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_unscaled_copies);
  tcase_add_test (tc, test_scaled_odd_sizes);
  tcase_add_test (tc, test_letterbox);
  tcase_add_test (tc, test_normalised);
  tcase_add_test (tc, test_meta_maps_back);
  tcase_add_test (tc, test_eos_of_one_stream);
  tcase_add_test (tc, test_pads_while_playing);
  tcase_add_test (tc, test_more_pads_than_slots);
  tcase_add_test (tc, test_fences);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_partial_batch_on_timeout);
  tcase_add_test (tc, test_pageable_input);
  tcase_add_test (tc, test_stats_no_host_wait);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, batcher_suite);
}
