/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* libFuzzer target: what comes from outside into the elements. The input
 * bytes make caps (a format of GST_PINNED_VIDEO_FORMATS, a small size), an
 * optional GstVideoMeta (planes, offsets and strides of any value: past
 * the end, overlapping, "negative"), a buffer of memories of the sizes
 * and kinds the input names (page-locked, device memory of either device,
 * pageable with a guard page, malloc'd, page-locked of another owner,
 * shares at an offset) and how they are pushed: through pinnedupload !
 * pinneddownload, with pinnedbusy between, or into pinneddownload or
 * pinnedbusy alone, in a GstHarness on the stand-in, in batches or one at
 * a time, in each pageable mode. Each push must either give a frame whose
 * visible pixels are the input's, or return an error flow with an element
 * error that says why; anything else aborts (a crash, for libFuzzer):
 * a frame that differs, a frame lost, an error flow without a message.
 * Sanitizer reports and GLib criticals (G_DEBUG=fatal-criticals) are
 * crashes of their own. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "pinnedtest.h"

/* Frames stay small: an iteration is a few copies, not megabytes. */
#define MAX_WIDTH 64
#define MAX_HEIGHT 48
#define MAX_MEMORIES 5
#define MAX_BYTES (1 << 20)

typedef struct
{
  const guint8 *data;
  gsize size;
} Input;

static guint8
take_u8 (Input * in)
{
  guint8 v = 0;

  if (in->size > 0) {
    v = in->data[0];
    in->data++;
    in->size--;
  }
  return v;
}

static guint16
take_u16 (Input * in)
{
  return take_u8 (in) | (take_u8 (in) << 8);
}

static guint32
take_u32 (Input * in)
{
  return take_u16 (in) | ((guint32) take_u16 (in) << 16);
}

static guint64
take_u64 (Input * in)
{
  return take_u32 (in) | ((guint64) take_u32 (in) << 32);
}

enum
{
  VARIANT_PAIR,                 /* pinnedupload ! pinneddownload */
  VARIANT_PAIR_FILTER,          /* ... with pinnedbusy between */
  VARIANT_DOWNLOAD,             /* device frames into pinneddownload */
  VARIANT_FILTER,               /* device frames into pinnedbusy */
  N_VARIANTS
};

enum
{
  KIND_PAGE_LOCKED,
  KIND_DEVICE,
  KIND_DEVICE_OTHER,            /* device memory of the other device */
  KIND_PAGEABLE,                /* ends at a guard page, bounds known */
  KIND_MALLOC,                  /* exact size: AddressSanitizer's bounds */
  KIND_FOREIGN_LOCKED,          /* cudaHostAlloc'd, ours to free */
  N_KINDS,
};

static GPtrArray *formats;
static GstPinnedContext *contexts[2];
static GstAllocator *host_allocator, *device_allocators[2];

/* The cached harness: reused while its description stays. */
static GstHarness *harness;
static GstBus *harness_bus;
static gchar *harness_key;

static void
init_formats (void)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format="
      GST_PINNED_VIDEO_FORMATS);
  const GValue *list =
      gst_structure_get_value (gst_caps_get_structure (caps, 0), "format");
  guint i;

  formats = g_ptr_array_new ();
  for (i = 0; i < gst_value_list_get_size (list); i++)
    g_ptr_array_add (formats, (gpointer) g_intern_string (g_value_get_string
            (gst_value_list_get_value (list, i))));
  gst_caps_unref (caps);
}

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  GError *error = NULL;
  guint d;

  /* Every buffer here is real: a copy past any of its allocations is an
   * element's mistake, a crash (the stand-in would only fail it). */
  g_setenv ("FAKECUDA_BOUNDS", "abort", FALSE);
  pinned_test_setup ();
  pinned_test_keep_pool_threads ();
  if (!pinned_test_is_fake ()) {
    fprintf (stderr, "fuzz-layout runs on the stand-in: put its folder on "
        "LD_LIBRARY_PATH (tests/fuzz/run.sh does)\n");
    abort ();
  }
  init_formats ();
  for (d = 0; d < 2; d++) {
    contexts[d] = gst_pinned_context_new (d, &error);
    if (contexts[d] == NULL) {
      fprintf (stderr, "no context on device %u: %s (FAKECUDA_DEVICES=2)\n",
          d, error->message);
      abort ();
    }
    device_allocators[d] = gst_pinned_device_allocator_new (contexts[d]);
  }
  host_allocator = gst_pinned_host_allocator_new (contexts[0]);
  return 0;
}

static void
free_host (gpointer data)
{
  if (cudaFreeHost (data) != cudaSuccess)
    abort ();
}

/* A memory of @kind of @size bytes (at least one). */
static GstMemory *
new_memory (guint kind, gsize size)
{
  GstMemory *mem = NULL;
  GstBuffer *buf;
  gpointer p;

  switch (kind) {
    case KIND_PAGE_LOCKED:
      mem = gst_allocator_alloc (host_allocator, size, NULL);
      break;
    case KIND_DEVICE:
    case KIND_DEVICE_OTHER:
      mem = gst_allocator_alloc (device_allocators[kind == KIND_DEVICE_OTHER],
          size, NULL);
      break;
    case KIND_PAGEABLE:
      buf = pinned_test_new_pageable (size);
      mem = gst_buffer_get_memory (buf, 0);
      gst_buffer_unref (buf);
      break;
    case KIND_MALLOC:
      p = g_malloc (size);
      mem = gst_memory_new_wrapped (0, p, size, 0, size, p, g_free);
      break;
    case KIND_FOREIGN_LOCKED:
      if (cudaHostAlloc (&p, size, cudaHostAllocDefault) != cudaSuccess)
        abort ();
      mem = gst_memory_new_wrapped (0, p, size, 0, size, p, free_host);
      break;
  }
  if (mem == NULL) {
    fprintf (stderr, "cannot allocate %zu bytes of memory kind %u\n", size,
        kind);
    abort ();
  }
  return mem;
}

/* xorshift32 from *@x, a word at a time: megabytes stay fast. */
/* Fills @words with the xorshift sequence of @x. Left out of the
 * coverage and address checks: its loop is the fuzzer's own, and costs
 * an input more than the elements' code where it is instrumented. */
__attribute__((no_sanitize ("coverage", "address")))
     static void fill_words (guint32 * words, gsize n, guint32 * x)
{
  gsize i;

  for (i = 0; i < n; i++) {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    words[i] = *x;
  }
}

static void
fill_memory (GstMemory * mem, guint32 * x)
{
  guint32 words[4096];
  GstMapInfo map;
  gsize i, n;

  if (!gst_memory_map (mem, &map, GST_MAP_WRITE))
    abort ();
  for (i = 0; i < map.size; i += n) {
    n = MIN (sizeof (words), map.size - i);
    fill_words (words, (n + 3) / 4, x);
    memcpy (map.data + i, words, n);
  }
  gst_memory_unmap (mem, &map);
}

/* The extent the meta's planes reach, as the elements count rows and row
 * bytes, clamped to what a fuzzed buffer may hold. */
static gsize
meta_extent (const GstVideoInfo * info, const gsize * offset,
    const gint * stride, guint n_planes)
{
  gsize end = 0;
  guint p;

  for (p = 0; p < MIN (n_planes, GST_VIDEO_INFO_N_PLANES (info)); p++) {
    gint64 e = (gint64) MIN (offset[p], (gsize) MAX_BYTES) +
        (gint64) stride[p] * (GST_VIDEO_INFO_COMP_HEIGHT (info, p) - 1) +
        ABS ((gint64) stride[p]);

    end = MAX (end, (gsize) CLAMP (e, 0, MAX_BYTES));
  }
  return end;
}

static void
drop_harness (void)
{
  if (harness == NULL)
    return;
  gst_element_set_bus (harness->element, NULL);
  gst_harness_teardown (harness);
  gst_bus_set_flushing (harness_bus, TRUE);
  gst_object_unref (harness_bus);
  harness = NULL;
  harness_bus = NULL;
  g_clear_pointer (&harness_key, g_free);
}

static GstCaps *
caps_of (const GstVideoInfo * info, gboolean device)
{
  return device ? pinned_test_device_caps (info) :
      gst_video_info_to_caps (info);
}

/* The harness of @variant for @info, reused where the last one was the
 * same. */
static GstHarness *
get_harness (guint variant, const GstVideoInfo * info, gboolean meta_down,
    guint batch, guint mode)
{
  static const gchar *const modes[] = { "auto", "register", "stage",
    "direct"
  };
  GstCaps *caps = gst_video_info_to_caps (info);
  gchar *caps_str = gst_caps_to_string (caps);
  gchar *key = g_strdup_printf ("%u %u %u %u %s", variant, meta_down, batch,
      mode, caps_str);
  gchar *desc;

  gst_caps_unref (caps);
  g_free (caps_str);
  if (harness && strcmp (key, harness_key) == 0) {
    g_free (key);
    return harness;
  }
  drop_harness ();

  switch (variant) {
    case VARIANT_PAIR:
      desc = g_strdup_printf ("pinnedupload batch=%u pageable-mode=%s ! "
          "pinneddownload batch=%u pageable-mode=%s", batch, modes[mode],
          batch, modes[mode]);
      break;
    case VARIANT_PAIR_FILTER:
      desc = g_strdup_printf ("pinnedupload batch=%u pageable-mode=%s ! "
          "pinnedbusy busy-us=0 ! pinneddownload batch=%u pageable-mode=%s",
          batch, modes[mode], batch, modes[mode]);
      break;
    case VARIANT_DOWNLOAD:
      desc = g_strdup_printf ("pinneddownload batch=%u pageable-mode=%s",
          batch, modes[mode]);
      break;
    default:
      desc = g_strdup ("pinnedbusy busy-us=0");
      break;
  }
  harness = gst_harness_new_parse (desc);
  g_free (desc);
  harness_key = key;
  harness_bus = gst_bus_new ();
  gst_element_set_bus (harness->element, harness_bus);
  if (meta_down)
    gst_harness_add_propose_allocation_meta (harness, GST_VIDEO_META_API_TYPE,
        NULL);
  gst_harness_set_caps (harness, caps_of (info, variant >= VARIANT_DOWNLOAD),
      caps_of (info, variant == VARIANT_FILTER));
  return harness;
}

/* The element error that an error flow must come with (@msg, where it was
 * taken from the bus already). */
static void
expect_error (GstFlowReturn ret, GstMessage * msg)
{
  GError *error = NULL;
  gchar *debug = NULL;

  if (msg == NULL)
    msg = gst_bus_pop_filtered (harness_bus, GST_MESSAGE_ERROR);
  if (msg == NULL) {
    fprintf (stderr, "push returned %s without an element error\n",
        gst_flow_get_name (ret));
    abort ();
  }
  gst_message_parse_error (msg, &error, &debug);
  if (error == NULL || error->message == NULL || error->message[0] == '\0') {
    fprintf (stderr, "an element error without a message\n");
    abort ();
  }
  if (g_getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "%s: %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        error->message, debug);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
}

static const guint batches[] = { 1, 1, 2, 4 };

static int
fuzz_one (const guint8 * data, gsize size)
{
  Input in = { data, size };
  GstVideoInfo info;
  GstVideoFormat format, meta_format;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize sizes[MAX_MEMORIES], total, pos;
  gint delta;
  guint width, height, flags, variant, batch, mode, repeat, n_mem, i, p;
  guint meta_n_planes = 0, meta_width, meta_height, pushed = 0;
  gboolean has_meta, meta_down;
  GstFlowReturn ret = GST_FLOW_OK;
  GstMessage *late = NULL;
  GstBuffer *buf, *ref;
  guint32 x;

  format = gst_video_format_from_string (g_ptr_array_index (formats,
          take_u8 (&in) % formats->len));
  width = 1 + take_u8 (&in) % MAX_WIDTH;
  height = 1 + take_u8 (&in) % MAX_HEIGHT;
  if (!gst_video_info_set_format (&info, format, width, height))
    return 0;
  flags = take_u8 (&in);
  variant = flags % N_VARIANTS;
  has_meta = flags & 4;
  meta_down = flags & 8;
  batch = batches[(flags >> 4) & 3];
  mode = (flags >> 6) & 3;
  if (variant == VARIANT_FILTER)
    batch = 1;
  repeat = 1 + take_u8 (&in) % 3;

  /* The meta: the caps' layout moved, or any values. */
  meta_format = format;
  meta_width = width;
  meta_height = height;
  if (has_meta) {
    guint m = take_u8 (&in);

    meta_n_planes = m & 0x80 ? (m & 0x3f) % (GST_VIDEO_MAX_PLANES + 1) :
        GST_VIDEO_INFO_N_PLANES (&info);
    if (m & 0x40) {
      meta_format = gst_video_format_from_string (g_ptr_array_index (formats,
              take_u8 (&in) % formats->len));
      meta_width = take_u8 (&in);
      meta_height = take_u8 (&in);
    }
    for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
      guint how = take_u8 (&in);

      offset[p] = info.offset[p];
      stride[p] = info.stride[p];
      switch (how % 6) {
        case 0:
          break;
        case 1:                /* moved and padded */
          offset[p] += take_u16 (&in);
          stride[p] += (gint8) take_u8 (&in);
          break;
        case 2:                /* anything */
          offset[p] = take_u64 (&in);
          stride[p] = take_u32 (&in);
          break;
        case 3:                /* over the plane before */
          offset[p] = p ? offset[p - 1] + (gint8) take_u8 (&in) : 0;
          break;
        case 4:                /* rows over each other, or backwards */
          stride[p] = (gint8) take_u8 (&in);
          break;
        case 5:                /* a small offset past 4 GiB */
          offset[p] = ((gsize) 1 << 32) + take_u16 (&in);
          break;
      }
    }
  }

  /* The buffer's size: the frame's or what the meta reaches, give or
   * take, cut into memories. */
  total = has_meta ? meta_extent (&info, offset, stride, meta_n_planes) :
      info.size;
  delta = (gint16) take_u16 (&in) / 64;
  total = CLAMP ((gint64) total + delta, 1, MAX_BYTES);
  n_mem = 1 + take_u8 (&in) % MAX_MEMORIES;
  {
    guint weights[MAX_MEMORIES], sum = 0;

    for (i = 0; i < n_mem; i++)
      sum += weights[i] = 1 + take_u8 (&in);
    pos = 0;
    for (i = 0; i < n_mem; i++) {
      sizes[i] = i + 1 < n_mem ? total * weights[i] / sum : total - pos;
      pos += sizes[i];
    }
  }

  x = take_u32 (&in) | 1;
  buf = gst_buffer_new ();
  for (i = 0; i < n_mem; i++) {
    guint k = take_u8 (&in);
    guint kind = (k & 0x7f) % N_KINDS;
    GstMemory *mem;

    if (sizes[i] == 0)
      continue;
    if (k & 0x80) {
      /* A share at an offset of a larger memory. */
      guint at = take_u8 (&in);
      GstMemory *parent = new_memory (kind, sizes[i] + at + 16);

      fill_memory (parent, &x);
      mem = gst_memory_share (parent, at, sizes[i]);
      gst_memory_unref (parent);
    } else {
      mem = new_memory (kind, sizes[i]);
      fill_memory (mem, &x);
    }
    gst_buffer_append_memory (buf, mem);
  }
  /* What the frame is compared with: its bytes in one memory, under the
   * same meta. GStreamer maps a plane of a meta in the memory where it
   * starts only, so a plane across memories is read from a copy. */
  ref = gst_buffer_new_allocate (NULL, gst_buffer_get_size (buf), NULL);
  {
    GstMapInfo map;

    if (!gst_buffer_map (ref, &map, GST_MAP_WRITE))
      abort ();
    gst_buffer_extract (buf, 0, map.data, map.size);
    gst_buffer_unmap (ref, &map);
  }
  if (has_meta) {
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        meta_format, meta_width, meta_height, meta_n_planes, offset, stride);
    gst_buffer_add_video_meta_full (ref, GST_VIDEO_FRAME_FLAG_NONE,
        meta_format, meta_width, meta_height, meta_n_planes, offset, stride);
  }

  get_harness (variant, &info, meta_down, batch, mode);
  if (g_getenv ("FUZZ_VERBOSE")) {
    fprintf (stderr, "%s: %s %ux%u, %zu bytes in %u memories (%s), %s, "
        "%u times\n", harness_key, gst_video_format_to_string (format), width,
        height, gst_buffer_get_size (buf), gst_buffer_n_memory (buf),
        gst_memory_get_sizes (gst_buffer_peek_memory (buf, 0), NULL, NULL) ?
        gst_buffer_peek_memory (buf, 0)->allocator->mem_type : "",
        has_meta ? "meta" : "no meta", repeat);
  }

  for (i = 0; i < repeat && ret == GST_FLOW_OK; i++) {
    ret = gst_harness_push (harness, gst_buffer_ref (buf));
    if (ret == GST_FLOW_OK)
      pushed++;
  }
  /* A partial batch leaves before a serialized event. */
  if (ret == GST_FLOW_OK && batch > 1)
    gst_harness_push_event (harness,
        gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
            gst_structure_new_empty ("fuzz-flush")));

  /* Every frame pushed comes out, unless a later one failed (a batch's
   * frames go with it), or the batch that held it failed when the event
   * pushed it (an element error, though the push returned OK); whatever
   * comes out is the input. */
  for (i = 0;; i++) {
    GstBuffer *out = gst_harness_try_pull (harness);
    gint64 end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;

    while (out == NULL && ret == GST_FLOW_OK && i < pushed &&
        g_get_monotonic_time () < end) {
      if (batch > 1 &&
          (late = gst_bus_pop_filtered (harness_bus, GST_MESSAGE_ERROR)))
        break;
      g_usleep (1000);
      out = gst_harness_try_pull (harness);
    }
    if (late) {
      ret = GST_FLOW_ERROR;
      break;
    }
    if (out == NULL && ret == GST_FLOW_OK && i < pushed) {
      fprintf (stderr, "frame %u of %u pushed did not come out\n", i, pushed);
      abort ();
    }
    if (out == NULL)
      break;
    if (!pinned_test_frames_equal (ref, out, &info)) {
      fprintf (stderr, "frame %u of %s %ux%u differs from its input\n", i,
          gst_video_format_to_string (format), width, height);
      abort ();
    }
    gst_buffer_unref (out);
  }

  if (g_getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "%u pushed, %s\n", pushed, gst_flow_get_name (ret));
  if (ret != GST_FLOW_OK) {
    expect_error (ret, late);
    drop_harness ();
  } else if (gst_bus_have_pending (harness_bus)) {
    GstMessage *msg = gst_bus_pop_filtered (harness_bus, GST_MESSAGE_ERROR);

    if (msg) {
      fprintf (stderr, "an element error after frames that went through\n");
      abort ();
    }
  }
  gst_buffer_unref (ref);
  gst_buffer_unref (buf);
  return 0;
}

int LLVMFuzzerTestOneInput (const guint8 * data, gsize size);

/* Before libFuzzer looks for leaks: no thread of the input still ending. */
int
LLVMFuzzerTestOneInput (const guint8 * data, gsize size)
{
  fuzz_one (data, size);
  pinned_test_join_ended_threads ();
  return 0;
}
