/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A sink pad of pinnedbatch: the format of its stream (the kernel's
 * description of a frame: kind, steps, YUV coefficients), the page-locked
 * pool it offers upstream of system memory and the device frames that
 * memory is copied into, and each frame on the GPU as a slot. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudamemory.h>
#endif

#include "gstpinnedbatchpad.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_batch_pad_debug);
#define GST_CAT_DEFAULT gst_pinned_batch_pad_debug

G_DEFINE_TYPE_WITH_CODE (GstPinnedBatchPad, gst_pinned_batch_pad,
    GST_TYPE_AGGREGATOR_PAD,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_batch_pad_debug, "pinnedbatch", 0,
        "many streams into one tensor on the GPU"));

void
gst_pinned_batch_pad_clear (GstPinnedBatchPad * pad)
{
  if (pad->upload_pool) {
    gst_buffer_pool_set_active (pad->upload_pool, FALSE);
    gst_clear_object (&pad->upload_pool);
  }
  pad->has_info = FALSE;
}

static void
gst_pinned_batch_pad_finalize (GObject * object)
{
  gst_pinned_batch_pad_clear (GST_PINNED_BATCH_PAD (object));

  G_OBJECT_CLASS (gst_pinned_batch_pad_parent_class)->finalize (object);
}

static void
gst_pinned_batch_pad_constructed (GObject * object)
{
  GstPinnedBatchPad *pad = GST_PINNED_BATCH_PAD (object);
  const gchar *name;

  G_OBJECT_CLASS (gst_pinned_batch_pad_parent_class)->constructed (object);

  name = GST_OBJECT_NAME (pad);
  if (name && g_str_has_prefix (name, "sink_"))
    pad->index = (guint) g_ascii_strtoull (name + 5, NULL, 10);
}

static void
gst_pinned_batch_pad_class_init (GstPinnedBatchPadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_pinned_batch_pad_constructed;
  gobject_class->finalize = gst_pinned_batch_pad_finalize;
}

static void
gst_pinned_batch_pad_init (GstPinnedBatchPad * pad)
{
  gst_video_info_init (&pad->info);
}

static gint32
fixed (gdouble v)
{
  return (gint32) (v * (1 << PINNED_BATCH_COEF_SHIFT) + (v < 0 ? -0.5 : 0.5));
}

/* What a pad's frames are; FALSE with @error for a format the kernel
 * does not read. */
static gboolean
describe_input (GstPinnedBatchPad * pad, GError ** error)
{
  const GstVideoFormatInfo *finfo = pad->info.finfo;
  PinnedBatchSlot *s = &pad->proto;
  guint i;

  memset (s, 0, sizeof (*s));
  if (GST_VIDEO_INFO_INTERLACE_MODE (&pad->info) !=
      GST_VIDEO_INTERLACE_MODE_PROGRESSIVE) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "interlaced video (%s) is not batched: deinterlace it first",
        gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
            (&pad->info)));
    return FALSE;
  }

  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) &&
      GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1) == 1 &&
      GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1) == 1 &&
      GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo) == 3) {
    GstVideoColorimetry c = pad->info.colorimetry;
    gboolean full = c.range == GST_VIDEO_COLOR_RANGE_0_255;
    gdouble kr, kb, kg, ys, cs;

    s->kind = PINNED_BATCH_KIND_YUV420;
    if (!gst_video_color_matrix_get_Kr_Kb (c.matrix, &kr, &kb))
      gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
    kg = 1.0 - kr - kb;
    ys = full ? 1.0 : 255.0 / 219.0;
    cs = full ? 1.0 : 255.0 / 224.0;
    s->y_offset = full ? 0 : 16;
    s->y_scale = fixed (ys);
    s->r_v = fixed (cs * 2.0 * (1.0 - kr));
    s->g_u = fixed (cs * 2.0 * kb * (1.0 - kb) / kg);
    s->g_v = fixed (cs * 2.0 * kr * (1.0 - kr) / kg);
    s->b_u = fixed (cs * 2.0 * (1.0 - kb));
  } else if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) &&
      GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 8) {
    s->kind = PINNED_BATCH_KIND_RGB;
  } else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "%s is not batched: 4:2:0 YUV or 8-bit RGB only",
        GST_VIDEO_INFO_NAME (&pad->info));
    return FALSE;
  }

  /* Y, U, V and R, G, B are components 0, 1, 2 alike */
  for (i = 0; i < 3; i++)
    s->step[i] = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, i);
  s->sample_bytes = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) > 8 ? 2 : 1;
  s->width = GST_VIDEO_INFO_WIDTH (&pad->info);
  s->height = GST_VIDEO_INFO_HEIGHT (&pad->info);
  return TRUE;
}

/* The pad's format from its caps; FALSE, with an error posted on
 * @element, for caps the kernel does not read. */
gboolean
gst_pinned_batch_pad_set_caps (GstPinnedBatchPad * pad, GstElement * element,
    GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  GError *error = NULL;

  gst_pinned_batch_pad_clear (pad);
  if (!gst_video_info_from_caps (&pad->info, caps)) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("Cannot batch the input of %s",
            GST_PAD_NAME (pad)), ("caps %" GST_PTR_FORMAT " are not raw video",
            caps));
    return FALSE;
  }
  if (!describe_input (pad, &error)) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("Cannot batch the input of %s",
            GST_PAD_NAME (pad)), ("%s", error->message));
    g_clear_error (&error);
    return FALSE;
  }

  if (f && gst_caps_features_contains (f,
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE))
    pad->kind = GST_PINNED_BATCH_INPUT_DEVICE;
#ifdef HAVE_CUDA_INTEROP
  else if (f && gst_caps_features_contains (f,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    pad->kind = GST_PINNED_BATCH_INPUT_CUDA;
#endif
  else
    pad->kind = GST_PINNED_BATCH_INPUT_SYSTEM;
  return TRUE;
}

/* The pad takes frames from now on: system memory gets the device frames
 * it is copied into. */
gboolean
gst_pinned_batch_pad_start (GstPinnedBatchPad * pad, GstElement * element,
    GstPinnedContext * context, GstCaps * caps)
{
  GError *error = NULL;
  GstStructure *config;
  GstCaps *device_caps;

  if (pad->kind == GST_PINNED_BATCH_INPUT_SYSTEM) {
    /* the device frames system memory is copied into */
    device_caps = gst_pinned_caps_set_memory_feature (caps,
        GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
    pad->upload_pool = gst_pinned_device_buffer_pool_new (context);
    config = gst_buffer_pool_get_config (pad->upload_pool);
    gst_buffer_pool_config_set_params (config, device_caps,
        pad->info.size, 2, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_caps_unref (device_caps);
    if (!gst_buffer_pool_set_config (pad->upload_pool, config) ||
        !gst_buffer_pool_set_active (pad->upload_pool, TRUE)) {
      gst_pinned_buffer_pool_take_error (pad->upload_pool, &error);
      GST_PINNED_ELEMENT_ERROR (element, error,
          "Could not allocate CUDA device memory");
      g_clear_error (&error);
      gst_pinned_batch_pad_clear (pad);
      return FALSE;
    }
  }

  pad->has_info = TRUE;
  GST_INFO_OBJECT (pad, "%s %dx%d in %s memory",
      GST_VIDEO_INFO_NAME (&pad->info), GST_VIDEO_INFO_WIDTH (&pad->info),
      GST_VIDEO_INFO_HEIGHT (&pad->info),
      pad->kind == GST_PINNED_BATCH_INPUT_DEVICE ? "device" : pad->kind ==
      GST_PINNED_BATCH_INPUT_CUDA ? "CUDA" : "system");
  return TRUE;
}

/* System memory in: a page-locked pool upstream, as pinnedupload offers,
 * so that a source writes each frame where the copy engine reads it. */
gboolean
gst_pinned_batch_pad_offer_pool (GstPinnedBatchPad * pad, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, GstPinnedContext * context,
    guint size)
{
  GstAllocationParams params;
  GstAllocator *allocator = NULL;
  GstBufferPool *pool;
  GstStructure *config;

  pool = gst_pinned_host_buffer_pool_new (context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info->size, size, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (pad, "cannot configure a page-locked pool");
    gst_object_unref (pool);
    return TRUE;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, &params);
  gst_query_add_allocation_pool (query, pool, info->size, size, 0);
  if (allocator)
    gst_query_add_allocation_param (query, allocator, &params);
  gst_structure_free (config);
  gst_object_unref (pool);
  GST_DEBUG_OBJECT (pad, "offering a page-locked pool of %u buffers", size);
  return TRUE;
}

/* Every plane of @buffer in one gst-pinned memory: the kernel gets its
 * address and reads it whole. */
static gboolean
check_planes (GstBuffer * buffer, const GstVideoInfo * info, GError ** error)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  guint p, idx, length;
  gsize skip;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize offset = meta ? meta->offset[p] :
        GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    gint stride = meta ? meta->stride[p] :
        GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    gint rows, row_bytes;
    gsize extent;

    gst_video_format_info_component (finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
        GST_VIDEO_INFO_HEIGHT (info));
    row_bytes = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comp[0],
        GST_VIDEO_INFO_WIDTH (info)) * GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo,
        comp[0]);
    if (stride < row_bytes) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u's stride %d is below its row of %d bytes", p, stride,
          row_bytes);
      return FALSE;
    }
    extent = (gsize) stride *(rows - 1) + row_bytes;
    if (!gst_buffer_find_memory (buffer, offset, extent, &idx, &length,
            &skip) || length != 1 ||
        !gst_is_pinned_memory (gst_buffer_peek_memory (buffer, idx))) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of a frame does not lie in one piece of gst-pinned "
          "memory (%" G_GSIZE_FORMAT " bytes at %" G_GSIZE_FORMAT " of a "
          "buffer of %" G_GSIZE_FORMAT ")", p, extent, offset,
          gst_buffer_get_size (buffer));
      return FALSE;
    }
  }
  return TRUE;
}

/* The frame on the GPU and its slot (but where it goes in the plane),
 * with @stream ordered after its writer. */
gboolean
gst_pinned_batch_pad_prepare_frame (GstPinnedBatchFrame * fr,
    GstPinnedStream * stream, GstAllocator * device_allocator,
    PinnedBatchSlot * s, GError ** error)
{
  GstPinnedBatchPad *pad = fr->pad;
  const GstVideoInfo *info = &pad->info;
  guint i;

  switch (pad->kind) {
    case GST_PINNED_BATCH_INPUT_DEVICE:
      fr->gpu = gst_buffer_ref (fr->buffer);
      break;
#ifdef HAVE_CUDA_INTEROP
    case GST_PINNED_BATCH_INPUT_CUDA:
      fr->gpu = gst_pinned_cuda_buffer_wrap (fr->buffer, info,
          device_allocator, GST_MAP_READ, error);
      if (fr->gpu == NULL)
        return FALSE;
      break;
#endif
    default:
      if (gst_buffer_pool_acquire_buffer (pad->upload_pool, &fr->gpu,
              NULL) != GST_FLOW_OK) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
            "no device frame to copy %s's frame into", GST_PAD_NAME (pad));
        return FALSE;
      }
      /* on the element's stream: the kernel comes after it */
      if (!gst_pinned_transfer_video_frame (stream, info, fr->buffer,
              fr->gpu, error))
        return FALSE;
      break;
  }

  if (!check_planes (fr->gpu, info, error) ||
      !gst_pinned_buffer_sync_stream (fr->gpu, stream, GST_MAP_READ, error))
    return FALSE;

  *s = pad->proto;
  for (i = 0; i < 3; i++) {
    guint plane = GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, i);
    gpointer data;
    gint stride;

    if (!gst_pinned_buffer_get_plane (fr->gpu, info, plane, &data, &stride)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "plane %u of %s's frame is not in gst-pinned memory", plane,
          GST_PAD_NAME (pad));
      return FALSE;
    }
    s->chan[i] = (const uint8_t *) data +
        GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, i);
    s->pitch[i] = stride;
  }
  return TRUE;
}

/* The ALLOCATION query of @pad: system memory in gets the pad's
 * page-locked pool of @size buffers on @device (opened for @element's
 * @device_id where it is not yet), device memory in takes frames of any
 * layout. */
gboolean
gst_pinned_batch_pad_propose_allocation (GstPinnedBatchPad * pad,
    GstQuery * query, GstPinnedBatchDevice * device, GstElement * element,
    gint device_id, guint size)
{
  GstCapsFeatures *f;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  f = gst_caps_get_features (caps, 0);
  if (f && !gst_caps_features_is_equal (f,
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return TRUE;
  if (!gst_pinned_batch_device_open (device, element, device_id, TRUE))
    return FALSE;

  return gst_pinned_batch_pad_offer_pool (pad, query, caps, &info,
      device->context, size);
}
