/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedupload ! pinneddownload returns every frame bit-exact: every raw
 * format (planar, semi-planar, packed, tiled, 8 to 16 bits), odd sizes,
 * with the source writing into the offered page-locked pool or not, with
 * padded strides, and for downstreams with and without GstVideoMeta. */

#include "pinnedtest.h"

/* Every format the elements take, from the list their pad templates are
 * made of (GST_PINNED_VIDEO_FORMATS): planar, semi-planar and packed YUV
 * and RGB, gray, paletted, tiled, 8 to 16 bits per component. */
static GArray *
pinned_formats (void)
{
  GstCaps *caps = gst_caps_from_string (GST_PINNED_VIDEO_CAPS);
  const GValue *list =
      gst_structure_get_value (gst_caps_get_structure (caps, 0), "format");
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  guint i;

  for (i = 0; i < gst_value_list_get_size (list); i++) {
    GstVideoFormat f = gst_video_format_from_string (g_value_get_string
        (gst_value_list_get_value (list, i)));

    fail_if (f == GST_VIDEO_FORMAT_UNKNOWN);
    g_array_append_val (formats, f);
  }
  gst_caps_unref (caps);

  return formats;
}

static const struct
{
  gint width, height;
} sizes[] = {
  {320, 240},
  {317, 239},                   /* odd: chroma rounds up */
  {1, 1},
  {641, 3},
};

typedef enum
{
  SOURCE_POOL,                  /* acquired from the offered pinned pool */
  SOURCE_POOL_PADDED,           /* offered pool, with alignment padding */
  SOURCE_PAGEABLE,              /* plain system memory, upstream ignored us */
  SOURCE_PAGEABLE_PADDED,       /* system memory with padded strides */
  SOURCE_LAST
} Source;

static const gchar *source_names[] = {
  "pool", "pool-padded", "pageable", "pageable-padded"
};

static GstBuffer *
make_input (GstHarness * h, const GstVideoInfo * info, GstCaps * caps,
    Source source, guint32 seed)
{
  GstBuffer *buf = NULL;

  switch (source) {
    case SOURCE_POOL:
      buf = gst_harness_create_buffer (h, info->size);
      fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf, 0)));
      pinned_test_fill_frame (buf, info, seed);
      break;
    case SOURCE_POOL_PADDED:{
      GstQuery *query = gst_query_new_allocation (caps, TRUE);
      GstBufferPool *pool = NULL;
      GstStructure *config;
      GstVideoAlignment align;
      guint size;

      fail_unless (gst_pad_peer_query (h->srcpad, query));
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
      gst_video_alignment_reset (&align);
      align.padding_right = 7;
      align.padding_left = 2;
      align.padding_bottom = 1;
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, size, 1, 0);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
      gst_buffer_pool_config_set_video_alignment (config, &align);
      fail_unless (gst_buffer_pool_set_config (pool, config));
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
              NULL), GST_FLOW_OK);
      fail_unless (gst_is_pinned_host_memory (gst_buffer_peek_memory (buf, 0)));
      pinned_test_fill_frame (buf, info, seed);
      /* The pool lives on while its buffer does. */
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      gst_query_unref (query);
      break;
    }
    case SOURCE_PAGEABLE:
      /* Exactly the frame's size, a guard page behind: an over-read of
       * the upstream buffer fails (stand-in) or faults (GPU). */
      buf = pinned_test_new_pageable (info->size);
      pinned_test_fill_frame (buf, info, seed);
      break;
    case SOURCE_PAGEABLE_PADDED:
      buf = pinned_test_new_padded_frame (info, 5, seed);
      break;
    default:
      g_assert_not_reached ();
  }

  return buf;
}

static void
check_roundtrip (GstVideoFormat format, gint width, gint height,
    Source source, gboolean downstream_meta)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *in, *out;
  GstFlowReturn ret;
  guint i;

  gst_video_info_set_format (&info, format, width, height);
  caps = gst_video_info_to_caps (&info);
  if (downstream_meta)
    gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE, NULL);
  gst_harness_set_caps (h, gst_caps_ref (caps), gst_caps_ref (caps));

  for (i = 0; i < 3; i++) {
    in = make_input (h, &info, caps, source, g_str_hash (source_names[source])
        + format * 1000 + width + i);
    ret = gst_harness_push (h, gst_buffer_ref (in));
    fail_unless (ret == GST_FLOW_OK, "%s %dx%d from %s, downstream %s meta: "
        "pushed %s", gst_video_format_to_string (format), width, height,
        source_names[source], downstream_meta ? "with" : "without",
        gst_flow_get_name (ret));
    out = gst_harness_pull (h);
    fail_unless (out != NULL);

    if (!downstream_meta) {
      /* Packed for a downstream that cannot take a GstVideoMeta. */
      fail_unless (gst_buffer_get_video_meta (out) == NULL);
      fail_unless_equals_int (gst_buffer_get_size (out), info.size);
    }
    fail_unless (pinned_test_frames_equal (in, out, &info),
        "%s %dx%d from %s, downstream %s meta: output differs",
        gst_video_format_to_string (format), width, height,
        source_names[source], downstream_meta ? "with" : "without");

    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }

  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

/* Every format at every size, from every source. Under memcheck (a slow
 * run) the formats after the common ones, which take the same code paths,
 * go at one odd size, without padding. */
GST_START_TEST (test_roundtrip_bit_exact)
{
  GArray *formats = pinned_formats ();
  gboolean slow = pinned_test_ms (1) > 1, common = TRUE;
  guint f, s, src, meta;

  for (f = 0; f < formats->len; f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      if (!common && slow && s != 1)
        continue;
      for (src = 0; src < SOURCE_LAST; src++) {
        for (meta = 0; meta < 2; meta++) {
          GstVideoFormat format = g_array_index (formats, GstVideoFormat, f);

          /* Padding adds tiles to a tiled plane: the download's own
           * layout would need tiles moved, not bytes (the transfer refuses
           * it: test_tiles_not_moved). And memcheck's short list. */
          if ((GST_VIDEO_FORMAT_INFO_IS_TILED (gst_video_format_get_info
                      (format)) || (!common && slow))
              && (src == SOURCE_POOL_PADDED || src == SOURCE_PAGEABLE_PADDED))
            continue;
          check_roundtrip (format, sizes[s].width, sizes[s].height, src, meta);
        }
      }
    }
    /* the paletted format ends the common ones */
    if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (gst_video_format_get_info
            (g_array_index (formats, GstVideoFormat, f))))
      common = FALSE;
  }
  g_array_unref (formats);
}

GST_END_TEST;

/* The device frame keeps the input's layout: the padded strides of the
 * input are in the device buffer's GstVideoMeta. */
GST_START_TEST (test_upload_preserves_layout)
{
  GstHarness *h = gst_harness_new ("pinnedupload");
  GstVideoInfo info;
  GstVideoMeta *in_meta, *out_meta;
  GstBuffer *in, *out;
  guint p;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 318, 240);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      pinned_test_device_caps (&info));

  in = pinned_test_new_padded_frame (&info, 64, 99);
  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  in_meta = gst_buffer_get_video_meta (in);
  out_meta = gst_buffer_get_video_meta (out);
  fail_unless (out_meta != NULL);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    fail_unless_equals_int (out_meta->stride[p], in_meta->stride[p]);
    fail_unless_equals_int (out_meta->offset[p], in_meta->offset[p]);
  }
  fail_unless (pinned_test_frames_equal (in, out, &info));

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer of several memories (one per plane) is copied memory by memory. */
GST_START_TEST (test_upload_multi_memory_input)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! pinneddownload");
  GstVideoInfo info;
  GstBuffer *in, *whole, *out;
  GstMapInfo map;
  guint p;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 322, 242);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));

  whole = gst_buffer_new_allocate (NULL, info.size, NULL);
  pinned_test_fill_frame (whole, &info, 7);
  /* Each plane in pageable memory of its exact size: a copy that reads
   * past one memory is caught. */
  fail_unless (gst_buffer_map (whole, &map, GST_MAP_READ));
  in = gst_buffer_new ();
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gsize start = info.offset[p];
    gsize end = p + 1 < GST_VIDEO_INFO_N_PLANES (&info) ?
        info.offset[p + 1] : info.size;

    GstBuffer *part = pinned_test_new_pageable (end - start);

    gst_buffer_fill (part, 0, map.data + start, end - start);
    gst_buffer_append_memory (in, gst_buffer_get_memory (part, 0));
    gst_buffer_unref (part);
  }
  gst_buffer_unmap (whole, &map);
  fail_unless_equals_int (gst_buffer_n_memory (in), 2);

  out = pinned_test_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (pinned_test_frames_equal (whole, out, &info));

  gst_buffer_unref (whole);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The frames videotestsrc makes, in every format it makes, through the
 * pair beside a branch without it: the same visible pixels (videotestsrc
 * leaves row padding unwritten). On a GPU at the sizes users run, 4K
 * included; on the stand-in at the small odd ones. */
static void
check_videotestsrc (GstVideoFormat format, gint width, gint height)
{
  const gchar *name = gst_video_format_to_string (format);
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 pattern=ball "
      "! video/x-raw,format=%s,width=%d,height=%d ! tee name=t "
      "t. ! queue ! appsink name=ref sync=false "
      "t. ! queue ! pinnedupload ! pinneddownload ! appsink name=out "
      "sync=false", name, width, height);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  gchar *what = g_strdup_printf ("%s %dx%d", name, width, height);

  fail_unless (pipeline != NULL, "%s", launch);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: refused", what);
  fail_unless_equals_int (pinned_test_pull_branches (pipeline, 0, what), 2);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_free (what);
  g_free (launch);
}

GST_START_TEST (test_videotestsrc_every_format)
{
  static const struct
  {
    gint width, height;
  } gpu_sizes[] = {
    {1920, 1080}, {1917, 1079}, {33, 17}, {3840, 2160}, {2, 2},
  }, fake_sizes[] = {
    {33, 17}, {2, 2}, {319, 181},
  };
  GArray *formats = pinned_formats ();
  gboolean fake = pinned_test_is_fake ();
  guint n_sizes = fake ? G_N_ELEMENTS (fake_sizes) : G_N_ELEMENTS (gpu_sizes);
  guint f, s;

  for (f = 0; f < formats->len; f++) {
    for (s = 0; s < n_sizes; s++)
      check_videotestsrc (g_array_index (formats, GstVideoFormat, f),
          fake ? fake_sizes[s].width : gpu_sizes[s].width,
          fake ? fake_sizes[s].height : gpu_sizes[s].height);
  }
  g_array_unref (formats);
}

GST_END_TEST;

static Suite *
roundtrip_suite (void)
{
  Suite *s = suite_create ("roundtrip");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_roundtrip_bit_exact);
  tcase_add_test (tc, test_upload_preserves_layout);
  tcase_add_test (tc, test_upload_multi_memory_input);
  /* pipelines of every format: memcheck adds nothing to the harness runs
   * above but hours */
  if (pinned_test_ms (1) == 1)
    tcase_add_test (tc, test_videotestsrc_every_format);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, roundtrip_suite);
}
