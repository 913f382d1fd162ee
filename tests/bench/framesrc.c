/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <string.h>
#include <gst/base/gstbasesink.h>
#include <gst/pinned/pinned.h>

#include "framesrc.h"

GST_DEBUG_CATEGORY_STATIC (bench_frame_src_debug);
#define GST_CAT_DEFAULT bench_frame_src_debug

enum
{
  PROP_0,
  PROP_CAPS,
  PROP_MODE,
  PROP_DURATION,
  PROP_POOL_SIZE,
};

typedef struct _FreshBlocks FreshBlocks;

struct _BenchFrameSrc
{
  GstBaseSrc parent;

  GstCaps *caps;
  BenchSourceMode mode;
  guint64 duration_ns;
  guint pool_size;

  GstVideoInfo info;
  GstPinnedContext *context;
  FreshBlocks *fresh;
  guint64 n_seeds;
  guint64 n_frames;
  gint64 start_us;
};

static GQuark seed_quark;

/* The bytes of fresh frames. Each frame is a new buffer with new memory
 * (memory the upload has never seen: it stages it), its bytes a block an
 * earlier frame gave back, as malloc() reuses freed memory in a process
 * that has run a while. Taken from malloc() each frame, a 4K RGBA frame
 * (33 MB) cost what glibc's arena of the streaming thread made of it: the
 * same pages again, or a new 64 MiB heap faulted in page by page every
 * other frame when an earlier pipeline on that pooled thread had left the
 * arena's heap part full, which made the source alone slower than the
 * upload after it (issue 44). Here the cost of a frame is the same
 * whatever ran before and however long downstream holds the frames: once
 * as many blocks exist as frames are out at once, none is made. */
#define FRESH_MAX_FREE 8

struct _FreshBlocks
{
  gint refcount;                /* the source's, and one per block out */
  GMutex lock;
  gsize size;
  GSList *free;                 /* of FreshBlock, the last given back first */
  guint n_free;
};

typedef struct
{
  FreshBlocks *blocks;
  gpointer data;
} FreshBlock;

static FreshBlocks *
fresh_blocks_new (gsize size)
{
  FreshBlocks *b = g_new0 (FreshBlocks, 1);

  b->refcount = 1;
  g_mutex_init (&b->lock);
  b->size = size;
  return b;
}

static void
fresh_block_free (gpointer data)
{
  FreshBlock *block = data;

  g_free (block->data);
  g_free (block);
}

static void
fresh_blocks_unref (FreshBlocks * b)
{
  if (!g_atomic_int_dec_and_test (&b->refcount))
    return;
  g_slist_free_full (b->free, fresh_block_free);
  g_mutex_clear (&b->lock);
  g_free (b);
}

static FreshBlock *
fresh_block_take (FreshBlocks * b)
{
  FreshBlock *block = NULL;

  g_mutex_lock (&b->lock);
  if (b->free) {
    block = b->free->data;
    b->free = g_slist_delete_link (b->free, b->free);
    b->n_free--;
  }
  g_mutex_unlock (&b->lock);
  if (block == NULL) {
    block = g_new0 (FreshBlock, 1);
    block->blocks = b;
    block->data = g_malloc (b->size);
  }
  g_atomic_int_inc (&b->refcount);
  return block;
}

/* A frame's memory is freed: its block goes back. */
static void
fresh_block_give_back (gpointer data)
{
  FreshBlock *block = data;
  FreshBlocks *b = block->blocks;

  g_mutex_lock (&b->lock);
  if (b->n_free < FRESH_MAX_FREE) {
    b->free = g_slist_prepend (b->free, block);
    b->n_free++;
    block = NULL;
  }
  g_mutex_unlock (&b->lock);
  if (block)
    fresh_block_free (block);
  fresh_blocks_unref (b);
}

G_DEFINE_TYPE (BenchFrameSrc, bench_frame_src, GST_TYPE_BASE_SRC);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
bench_frame_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (object);

  switch (prop_id) {
    case PROP_CAPS:
      gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
      break;
    case PROP_MODE:
      self->mode = g_value_get_int (value);
      break;
    case PROP_DURATION:
      self->duration_ns = g_value_get_uint64 (value);
      break;
    case PROP_POOL_SIZE:
      self->pool_size = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static GstCaps *
bench_frame_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);
  GstCaps *caps = self->caps ? gst_caps_ref (self->caps) : gst_caps_new_any ();

  if (filter) {
    GstCaps *tmp = gst_caps_intersect (filter, caps);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
bench_frame_src_set_caps (GstBaseSrc * src, GstCaps * caps)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);

  return gst_video_info_from_caps (&self->info, caps);
}

static gboolean
bench_frame_src_decide_allocation (GstBaseSrc * src, GstQuery * query)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *caps;
  guint size, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  size = self->info.size;

  if (self->mode == BENCH_SOURCE_FRESH) {
    /* Nothing from downstream: a new system-memory buffer per frame. */
    while (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    while (gst_query_get_n_allocation_params (query) > 0)
      gst_query_remove_nth_allocation_param (query, 0);
    return TRUE;
  }

  if (self->mode == BENCH_SOURCE_POOL) {
    /* Take what downstream offers, with enough buffers to cycle. */
    if (gst_query_get_n_allocation_pools (query) > 0) {
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
      min = MAX (min, self->pool_size);
      gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
      gst_object_unref (pool);
    } else {
      GST_WARNING_OBJECT (self, "downstream offers no pool");
    }
    return GST_BASE_SRC_CLASS (bench_frame_src_parent_class)->decide_allocation
        (src, query);
  }

  if (self->mode == BENCH_SOURCE_DEVICE) {
    if (!gst_pinned_ensure_element_context (GST_ELEMENT (self), -1,
            &self->context, NULL))
      return FALSE;
    pool = gst_pinned_device_buffer_pool_new (self->context);
  } else {
    pool = gst_video_buffer_pool_new ();
  }

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, self->pool_size, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_set_config (pool, config);
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, pool, size, self->pool_size, 0);
  gst_object_unref (pool);

  return TRUE;
}

static gboolean
bench_frame_src_start (GstBaseSrc * src)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);

  self->n_seeds = 0;
  self->n_frames = 0;
  self->start_us = 0;
  return TRUE;
}

static gboolean
bench_frame_src_stop (GstBaseSrc * src)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);

  gst_clear_object (&self->context);
  g_clear_pointer (&self->fresh, fresh_blocks_unref);
  return TRUE;
}

static gboolean
bench_frame_src_query (GstBaseSrc * src, GstQuery * query)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);

  if (gst_pinned_handle_context_query (GST_ELEMENT (self), query,
          self->context))
    return TRUE;
  return GST_BASE_SRC_CLASS (bench_frame_src_parent_class)->query (src, query);
}

static GstFlowReturn
bench_frame_src_alloc (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** buf)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);
  FreshBlock *block;

  if (self->mode != BENCH_SOURCE_FRESH)
    return GST_BASE_SRC_CLASS (bench_frame_src_parent_class)->alloc (src,
        offset, size, buf);

  /* As a file reader or a decoder with buffers of its own: memory the
   * upload has never seen, its bytes from a block an earlier frame gave
   * back (FreshBlocks). */
  if (self->fresh && self->fresh->size != self->info.size)
    g_clear_pointer (&self->fresh, fresh_blocks_unref);
  if (self->fresh == NULL)
    self->fresh = fresh_blocks_new (self->info.size);
  block = fresh_block_take (self->fresh);
  *buf = gst_buffer_new_wrapped_full (0, block->data, self->info.size, 0,
      self->info.size, block, fresh_block_give_back);
  gst_buffer_add_video_meta_full (*buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info), GST_VIDEO_INFO_N_PLANES
      (&self->info), self->info.offset, self->info.stride);
  return GST_FLOW_OK;
}

static GstFlowReturn
bench_frame_src_fill (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer * buf)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (src);
  GstClockTime duration = gst_util_uint64_scale_int (GST_SECOND,
      MAX (self->info.fps_d, 1), MAX (self->info.fps_n, 1));
  gpointer seed_data;
  guint64 seed;
  gint64 now = g_get_monotonic_time ();

  if (self->start_us == 0)
    self->start_us = now;
  else if ((guint64) (now - self->start_us) * 1000 >= self->duration_ns)
    return GST_FLOW_EOS;

  /* Content is written once per buffer; after that the buffer only cycles.
   * Fresh buffers are written every time. */
  seed_data = self->mode == BENCH_SOURCE_FRESH ? NULL :
      gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (buf), seed_quark);
  if (seed_data == NULL) {
    GstMapInfo map;

    seed = ++self->n_seeds;
    if (!gst_buffer_map (buf, &map, GST_MAP_WRITE))
      return GST_FLOW_ERROR;
    bench_fill (map.data, map.size, seed);
    gst_buffer_unmap (buf, &map);
    gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (buf), seed_quark,
        GSIZE_TO_POINTER (seed), NULL);
  } else {
    seed = GPOINTER_TO_SIZE (seed_data);
  }

  GST_BUFFER_OFFSET (buf) = seed;
  GST_BUFFER_PTS (buf) = self->n_frames * duration;
  GST_BUFFER_DURATION (buf) = duration;
  self->n_frames++;

  return GST_FLOW_OK;
}

static void
bench_frame_src_finalize (GObject * object)
{
  BenchFrameSrc *self = BENCH_FRAME_SRC (object);

  gst_clear_caps (&self->caps);
  g_clear_pointer (&self->fresh, fresh_blocks_unref);
  G_OBJECT_CLASS (bench_frame_src_parent_class)->finalize (object);
}

static void
bench_frame_src_class_init (BenchFrameSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *src_class = GST_BASE_SRC_CLASS (klass);

  gobject_class->set_property = bench_frame_src_set_property;
  gobject_class->finalize = bench_frame_src_finalize;

  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps", "Caps to push", GST_TYPE_CAPS,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_int ("mode", "Mode", "BenchSourceMode", 0, 3, 0,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DURATION,
      g_param_spec_uint64 ("duration", "Duration", "Push for this long (ns)",
          0, G_MAXUINT64, GST_SECOND,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_POOL_SIZE,
      g_param_spec_uint ("pool-size", "Pool size", "Buffers to cycle", 1, 64,
          4, G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Benchmark source",
      "Source/Video", "Pushes reused frames", "gst-pinned developers");

  src_class->get_caps = bench_frame_src_get_caps;
  src_class->set_caps = bench_frame_src_set_caps;
  src_class->decide_allocation = bench_frame_src_decide_allocation;
  src_class->start = bench_frame_src_start;
  src_class->stop = bench_frame_src_stop;
  src_class->query = bench_frame_src_query;
  src_class->alloc = bench_frame_src_alloc;
  src_class->fill = bench_frame_src_fill;

  seed_quark = g_quark_from_static_string ("bench-seed");
  GST_DEBUG_CATEGORY_INIT (bench_frame_src_debug, "benchframesrc", 0,
      "benchmark source");
}

static void
bench_frame_src_init (BenchFrameSrc * self)
{
  self->duration_ns = GST_SECOND;
  self->pool_size = 4;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

void
bench_frame_src_register (void)
{
  gst_element_register (NULL, "benchframesrc", GST_RANK_NONE,
      BENCH_TYPE_FRAME_SRC);
}

/* ----------------------------------------------------------------------- */

#define BENCH_TYPE_POOL_SINK (bench_pool_sink_get_type ())
G_DECLARE_FINAL_TYPE (BenchPoolSink, bench_pool_sink, BENCH, POOL_SINK,
    GstBaseSink);

struct _BenchPoolSink
{
  GstBaseSink parent;
};

G_DEFINE_TYPE (BenchPoolSink, bench_pool_sink, GST_TYPE_BASE_SINK);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw"));

static gboolean
bench_pool_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 4, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_set_config (pool, config);
  gst_query_add_allocation_pool (query, pool, info.size, 4, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_object_unref (pool);

  return TRUE;
}

static GstFlowReturn
bench_pool_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  return GST_FLOW_OK;
}

static void
bench_pool_sink_class_init (BenchPoolSinkClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "Benchmark pool sink",
      "Sink/Video", "Proposes a system-memory pool", "gst-pinned developers");
  sink_class->propose_allocation = bench_pool_sink_propose_allocation;
  sink_class->render = bench_pool_sink_render;
}

static void
bench_pool_sink_init (BenchPoolSink * self)
{
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

void
bench_pool_sink_register (void)
{
  gst_element_register (NULL, "benchpoolsink", GST_RANK_NONE,
      BENCH_TYPE_POOL_SINK);
}

/* Checks a frame against the source's content, plane by plane: the source
 * wrote its frames in the default layout, and an output may have another
 * (nvcodec's pitched CUDA memory, for one). */
gboolean
bench_frame_verify (GstBuffer * buf, const GstVideoInfo * info, guint64 seed)
{
  GstVideoFrame frame;
  gboolean ok = TRUE;
  guint p, r, i;

  if (!gst_video_frame_map (&frame, info, buf, GST_MAP_READ))
    return FALSE;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame) && ok; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint n_rows, row_bytes;

    gst_video_format_info_component (info->finfo, p, comp);
    n_rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    for (r = 0; r < n_rows && ok; r++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
          p) + (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      gsize src = info->offset[p] + (gsize) r * info->stride[p];

      for (i = 0; i < row_bytes && ok; i++)
        ok = row[i] == bench_expected_byte (seed, src + i);
      if (!ok)
        GST_ERROR ("plane %u row %u byte %u differs", p, r, i - 1);
    }
  }
  gst_video_frame_unmap (&frame);

  return ok;
}
