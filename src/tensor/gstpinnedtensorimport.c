/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A tensor of the application's as a buffer: gst_pinned_tensor_import(),
 * its caps from the tensor's shape, and the producer's fence (the way back
 * of gstpinnedtensor.c). CUDA tensors become gst-pinned device memory, CPU
 * tensors in page-locked memory gst-pinned page-locked memory that the
 * copy engine reads directly, other CPU tensors system memory that an
 * upload stages. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tensor/gstpinnedtensor-private.h"
#include "transfer/gstpinnedlayout-private.h"
#include "memory/gstpinnedmemory-private.h"
#include "gst/pinned/gstpinnedbuffer.h"
#include "gst/pinned/gstpinneddevicememory.h"
#include "gst/pinned/gstpinnedhostmemory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_tensor_import_debug,
    "pinnedtensor", "gst-pinned DLPack tensors");
#define GST_CAT_DEFAULT gst_pinned_tensor_import_debug

static void
imported_release (gpointer data)
{
  DLManagedTensor *managed = data;

  GST_LOG ("buffer memory freed: deleter of tensor %p", managed);
  if (managed->deleter)
    managed->deleter (managed);
}

static void
imported_release_versioned (gpointer data)
{
  GstPinnedDLVersioned *versioned = data;

  GST_LOG ("buffer memory freed: deleter of versioned tensor %p", versioned);
  if (versioned->deleter)
    versioned->deleter (versioned);
}

/* Races are harmless: a string's quark is always the same. */
static GQuark
import_allocator_quark (gboolean host)
{
  static GQuark quarks[2];

  if (quarks[host] == 0)
    quarks[host] = g_quark_from_static_string (host ?
        "gst-pinned-tensor-import-host-allocator" :
        "gst-pinned-tensor-import-allocator");
  return quarks[host];
}

/* One context per device for imports that name none, and one allocator
 * of each kind (device, page-locked host) per context (kept on the
 * context). */
static GstAllocator *
import_allocator (GstPinnedContext ** context, gint device_id, gboolean host,
    GError ** error)
{
  static GMutex lock;
  static GstPinnedContext *contexts[64];
  GstAllocator *allocator;
  GWeakRef *ref;

  g_mutex_lock (&lock);
  if (*context == NULL) {
    if (device_id < 0 || device_id >= (gint) G_N_ELEMENTS (contexts)) {
      g_mutex_unlock (&lock);
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_MEMORY, "the tensor is on CUDA device %d, "
          "which does not exist", device_id);
      return NULL;
    }
    if (contexts[device_id] == NULL)
      contexts[device_id] = gst_pinned_context_new (device_id, error);
    if (contexts[device_id] == NULL) {
      g_mutex_unlock (&lock);
      return NULL;
    }
    *context = contexts[device_id];
  }
  /* Known weakly: the allocator holds the context. */
  ref = g_object_get_qdata (G_OBJECT (*context), import_allocator_quark (host));
  allocator = ref ? g_weak_ref_get (ref) : NULL;
  if (allocator == NULL) {
    allocator = host ? gst_pinned_host_allocator_new (*context) :
        gst_pinned_device_allocator_new (*context);
    if (ref == NULL) {
      ref = g_new0 (GWeakRef, 1);
      g_object_set_qdata_full (G_OBJECT (*context),
          import_allocator_quark (host), ref,
          (GDestroyNotify) gst_pinned_tensor_weak_ref_free);
    }
    g_weak_ref_set (ref, allocator);
  }
  g_mutex_unlock (&lock);
  return allocator;
}

/* The caps of the buffer: the app's with the tensor's size and our
 * memory, one format. */
static GstCaps *
import_caps (GstCaps * caps, const DLTensor * t, gboolean device,
    GstVideoInfo * info, guint * elem, PlaneShape * plane, gboolean * planar,
    GError ** error)
{
  GstStructure *s;
  const gchar *format_name;
  GstVideoFormat format;
  const GstVideoFormatInfo *finfo;
  GstCaps *out;
  guint n_planes, p;
  gint width, height, w, h;

  if (caps == NULL || gst_caps_get_size (caps) != 1 ||
      !gst_structure_has_name ((s = gst_caps_get_structure (caps, 0)),
          "video/x-raw") ||
      (format_name = gst_structure_get_string (s, "format")) == NULL) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the caps must be video/x-raw with "
        "one format (as in video/x-raw,format=RGBA); the tensor's shape "
        "gives width and height");
    return NULL;
  }
  format = gst_video_format_from_string (format_name);
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "unknown video format '%s'",
        format_name);
    return NULL;
  }
  finfo = gst_video_format_get_info (format);
  if (!gst_pinned_tensor_format_element (finfo, elem, error))
    return NULL;

  /* Which layout the format takes, and the size the shape gives. */
  n_planes = GST_VIDEO_FORMAT_INFO_N_PLANES (finfo);
  *planar = n_planes > 1;
  if (*planar) {
    for (p = 0; p < finfo->n_components; p++) {
      if (finfo->w_sub[p] != 0 || finfo->h_sub[p] != 0 ||
          finfo->n_planes != finfo->n_components) {
        g_set_error (error, GST_PINNED_TENSOR_ERROR,
            GST_PINNED_TENSOR_ERROR_LAYOUT, "%s has planes of different "
            "sizes or with several components: one tensor cannot hold a "
            "frame of it; name a format of one plane (RGBA, BGRx, GRAY8, "
            "...) or of equal planes (RGBP, BGRP, Y444, GBR)", format_name);
        return NULL;
      }
    }
    if (t->ndim != 3 || t->shape[0] != n_planes) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "%s takes a [C, H, W] tensor with "
          "C = %u, this one has %d dimensions%s", format_name, n_planes,
          t->ndim, t->ndim == 3 ? " and another C" : "");
      return NULL;
    }
    h = t->shape[1];
    w = t->shape[2];
  } else {
    if (t->ndim != 2 && t->ndim != 3) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "%s takes an [H, W, C] tensor, "
          "this one has %d dimensions", format_name, t->ndim);
      return NULL;
    }
    h = t->shape[0];
    w = t->shape[1];
  }
  /* Every dimension, as int64_t: w and h are its low bits only. */
  for (p = 0; p < (guint) t->ndim; p++) {
    if (t->shape[p] < 1 || t->shape[p] > G_MAXINT) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor is empty or too large");
      return NULL;
    }
  }

  width = w;
  height = h;
  if ((gst_structure_get_int (s, "width", &width) && width != w) ||
      (gst_structure_get_int (s, "height", &height) && height != h)) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the caps say %dx%d, the tensor's "
        "shape %dx%d", width, height, w, h);
    return NULL;
  }

  out = gst_caps_copy (caps);
  gst_caps_set_simple (out, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      NULL);
  s = gst_caps_get_structure (out, 0);
  if (!gst_structure_has_field (s, "framerate"))
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  if (device)
    gst_caps_set_features (out, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, NULL));
  if (!gst_caps_is_fixed (out) || !gst_video_info_from_caps (info, out)) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the caps %" GST_PTR_FORMAT " do not "
        "describe one video format", caps);
    gst_caps_unref (out);
    return NULL;
  }
  /* Complete, as appsrc's downstream expects them (colorimetry, aspect). */
  gst_caps_unref (out);
  out = gst_video_info_to_caps (info);
  if (device)
    gst_caps_set_features (out, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, NULL));
  gst_pinned_tensor_plane_shape (info, 0, *elem, plane);
  return out;
}

/* The tensor's strides in elements (DLPack 0.6: NULL is compact). A
 * dimension of size 1 has no stride to speak of (producers leave any value
 * there): it takes the compact one. Its shape was checked (1 to G_MAXINT
 * each): the steps, products of two, do not overflow. */
static void
tensor_strides (const DLTensor * t, int64_t strides[3])
{
  gint d;
  int64_t step = 1;

  for (d = t->ndim - 1; d >= 0; d--) {
    strides[d] = t->strides && t->shape[d] > 1 ? t->strides[d] : step;
    if (d > 0)
      step *= t->shape[d];
  }
}

/* What CUDA says the @span bytes at @data are: cudaMemoryTypeHost where
 * both ends are page-locked (cudaHostAlloc'ed or registered, by anyone in
 * the process; a tensor that runs past its page-locked allocation cannot
 * be read as one), cudaMemoryTypeDevice (or Managed) where its start is
 * CUDA's, else cudaMemoryTypeUnregistered: pageable. */
static enum cudaMemoryType
host_memory_type (const guint8 * data, guint64 span)
{
  struct cudaPointerAttributes attr;

  if (!gst_pinned_cuda_result (cudaPointerGetAttributes (&attr, data), NULL))
    return cudaMemoryTypeUnregistered;
  if (attr.type != cudaMemoryTypeHost)
    return attr.type;
  if (!gst_pinned_cuda_result (cudaPointerGetAttributes (&attr,
              data + span - 1), NULL) || attr.type != cudaMemoryTypeHost)
    return cudaMemoryTypeUnregistered;
  return cudaMemoryTypeHost;
}

/* The memory of an imported tensor: device memory for a CUDA tensor,
 * page-locked or system memory for a CPU one (@fenced: whether its fences
 * order its users). */
static GstMemory *
import_memory (GstPinnedContext ** context, const DLTensor * t, gboolean host,
    guint64 span, gpointer owner, GDestroyNotify release, gboolean * fenced,
    GError ** error)
{
  guint8 *data = (guint8 *) t->data + t->byte_offset;
  GstAllocator *allocator;
  GstMemory *mem;
  gboolean locked;

  allocator = import_allocator (context,
      t->device.device_type == kDLCPU ? 0 : t->device.device_id, host, error);
  if (allocator == NULL)
    return NULL;
  locked = !host;
  if (host) {
    enum cudaMemoryType type;

    if (!gst_pinned_context_push (*context, error)) {
      gst_object_unref (allocator);
      return NULL;
    }
    type = host_memory_type (data, span);
    gst_pinned_context_pop (*context);
    if (type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_MEMORY, "the tensor says it is CPU memory "
          "(DLPack device type %d), but CUDA knows %p as %s memory",
          t->device.device_type, data, type == cudaMemoryTypeDevice ?
          "device" : "managed");
      gst_object_unref (allocator);
      return NULL;
    }
    locked = type == cudaMemoryTypeHost;
  }
  *fenced = locked;
  if (!locked) {
    /* Pageable: what an upload stages, and lets go when its workers are
     * done. */
    gst_object_unref (allocator);
    GST_DEBUG ("tensor at %p is pageable: system memory", data);
    return gst_memory_new_wrapped (0, data, span, 0, span, owner, release);
  }
  mem = gst_pinned_allocator_wrap (GST_PINNED_ALLOCATOR (allocator), data,
      span, 0, span, owner, release);
  /* Dropped right after a copy of it is enqueued (pinnedupload,
   * pinneddownload): the tensor goes back once that copy is done, without
   * a wait there. */
  gst_pinned_memory_release_later ((GstPinnedMemory *) mem);
  gst_object_unref (allocator);
  return mem;
}

/* gst_pinned_tensor_import_full() of the DLTensor @t, whose @owner goes
 * back through @release. */
static GstBuffer *
import_tensor (DLTensor * t, gpointer owner, GDestroyNotify release,
    GstCaps * caps, GstPinnedContext * context, gpointer stream,
    GstCaps ** out_caps, GError ** error)
{
  GstVideoInfo info;
  PlaneShape plane;
  GstPinnedStream *wrapped;
  GstPinnedFence *fence;
  GstMemory *mem;
  GstBuffer *buffer;
  GstCaps *caps_out = NULL;
  int64_t strides[3];
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
  gint pitches[GST_VIDEO_MAX_PLANES] = { 0, };
  gint layout_offsets[GST_VIDEO_MAX_PLANES];
  GError *fit = NULL;
  guint64 span;
  guint elem, p, n_planes;
  gboolean planar, host, fenced = FALSE;
  gint d;

  ensure_debug_category ();

  host = t->device.device_type == kDLCPU ||
      t->device.device_type == kDLCUDAHost;
  if (!host && t->device.device_type != kDLCUDA) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_MEMORY, "the tensor is neither in CUDA "
        "device memory nor in CPU memory (DLPack device type %d, not "
        "kDLCUDA, kDLCPU or kDLCUDAHost): copy it to the GPU or the CPU "
        "first", t->device.device_type);
    goto failed;
  }
  if (!host && context && gst_pinned_context_get_device_id (context) !=
      t->device.device_id) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_MEMORY, "the tensor is on CUDA device %d, "
        "the pipeline's context on device %d", t->device.device_id,
        gst_pinned_context_get_device_id (context));
    goto failed;
  }
  if (t->data == NULL || t->shape == NULL) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor has no data");
    goto failed;
  }

  caps_out = import_caps (caps, t, !host, &info, &elem, &plane, &planar, error);
  if (caps_out == NULL)
    goto failed;
  if (t->dtype.code != kDLUInt || t->dtype.bits != elem * 8 ||
      t->dtype.lanes != 1) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "%s takes uint%u elements, the "
        "tensor's are of DLPack type code %u, %u bits, %u lanes (uint8 is "
        "code 1, 8 bits)", GST_VIDEO_INFO_NAME (&info), elem * 8,
        t->dtype.code, t->dtype.bits, t->dtype.lanes);
    goto failed;
  }

  /* The bytes it spans, from strides bounded first: each term is less
   * than 2^62, and what follows computes with strides of a frame. */
  tensor_strides (t, strides);
  span = 1;
  for (d = 0; d < t->ndim; d++) {
    if (strides[d] <= 0 || strides[d] > G_MAXINT) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "dimension %d of the tensor has a "
          "stride of %" G_GINT64_FORMAT ": frames need positive strides "
          "of at most %d elements (make it contiguous)", d,
          (gint64) strides[d], G_MAXINT);
      goto failed;
    }
    span += (guint64) (t->shape[d] - 1) * strides[d];
  }
  if (span > G_MAXINT / elem) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor spans %" G_GUINT64_FORMAT
        " elements of %u bytes, more than the %d bytes of a frame", span,
        elem, G_MAXINT);
    goto failed;
  }
  span *= elem;

  n_planes = GST_VIDEO_INFO_N_PLANES (&info);
  if (planar) {
    /* [C, H, W]: rows of contiguous elements; planes apart, or rows of
     * the planes interleaved ([H, C, W] permuted). */
    if ((t->shape[2] > 1 && strides[2] != 1) || strides[1] < t->shape[2] ||
        strides[0] < t->shape[2] || !(strides[0] >= t->shape[1] * strides[1]
            || strides[1] >= t->shape[0] * strides[0])) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "the [C, H, W] tensor's strides "
          "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
          ") are no planes of contiguous rows: make it contiguous",
          (gint64) strides[0], (gint64) strides[1], (gint64) strides[2]);
      goto failed;
    }
    for (p = 0; p < n_planes; p++) {
      offsets[p] = p * strides[0] * elem;
      pitches[p] = strides[1] * elem;
    }
  } else {
    guint channels = t->ndim == 3 ? t->shape[2] : 1;

    if (channels != plane.channels) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "%s has %u elements a pixel, the "
          "tensor's last dimension %u", GST_VIDEO_INFO_NAME (&info),
          plane.channels, channels);
      goto failed;
    }
    if ((t->ndim == 3 && channels > 1 && strides[2] != 1) ||
        (t->shape[1] > 1 && strides[1] != channels) ||
        strides[0] < (int64_t) t->shape[1] * channels) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "the [H, W, C] tensor's rows are "
          "not contiguous (strides %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
          "): make it contiguous", (gint64) strides[0], (gint64) strides[1]);
      goto failed;
    }
    pitches[0] = strides[0] * elem;
  }
  if ((guint64) pitches[0] > G_MAXINT / 2) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor's rows are too far apart");
    goto failed;
  }

  /* The frame of the caps in the tensor's bytes, as each element that
   * takes the buffer checks it: a row of the format can need more than
   * the tensor's row (YUY2 of an odd width: three pairs of pixels in a
   * row of five). */
  for (p = 0; p < n_planes; p++)
    layout_offsets[p] = offsets[p];
  if (!gst_pinned_layout_fits (&info, layout_offsets, pitches, TRUE, span,
          "imported", &fit)) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor does not hold the %s "
        "frame of its shape: %s", GST_VIDEO_INFO_NAME (&info), fit->message);
    g_error_free (fit);
    goto failed;
  }

  /* Its elements within the address space: an offset that wraps past its
   * end names no memory (and the pointer sum would be undefined). */
  if (t->byte_offset > UINTPTR_MAX - (guintptr) t->data ||
      span > UINTPTR_MAX - (guintptr) t->data - t->byte_offset) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor's byte_offset %"
        G_GUINT64_FORMAT " takes its %" G_GUINT64_FORMAT " bytes at %p past "
        "the end of the address space", (guint64) t->byte_offset, span,
        t->data);
    goto failed;
  }

  mem = import_memory (&context, t, host, span, owner, release, &fenced, error);
  if (mem == NULL)
    goto failed;
  buffer = gst_buffer_new ();
  gst_buffer_append_memory (buffer, mem);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), n_planes, offsets, pitches);

  /* The producer's work: the writer that readers downstream wait for. A
   * CPU tensor has one only where the caller names its stream (an
   * asynchronous copy into it); pageable memory carries no fence, so its
   * producer is waited for here. */
  if (!host || stream) {
    gboolean ok = FALSE;

    wrapped = gst_pinned_stream_new_wrapped (context,
        stream ? stream : (gpointer) cudaStreamLegacy);
    fence = NULL;
    if (gst_pinned_context_push (context, error)) {
      if (fenced)
        ok = (fence = gst_pinned_stream_record_fence (wrapped, error)) != NULL;
      else
        ok = gst_pinned_stream_synchronize (wrapped, error);
      gst_pinned_context_pop (context);
    }
    gst_pinned_stream_unref (wrapped);
    if (!ok) {
      gst_caps_unref (caps_out);
      /* Its memory's release runs the deleter. */
      gst_buffer_unref (buffer);
      return NULL;
    }
    if (fence) {
      gst_pinned_buffer_add_fence (buffer, fence, GST_MAP_WRITE);
      gst_pinned_fence_unref (fence);
    }
  }

  GST_LOG ("tensor %p as %" GST_PTR_FORMAT ", %" G_GUINT64_FORMAT " bytes, "
      "pitch %d, %s", owner, buffer, span, pitches[0], !host ? "device" :
      fenced ? "page-locked" : "pageable");

  if (out_caps)
    *out_caps = caps_out;
  else
    gst_caps_unref (caps_out);
  return buffer;

failed:
  GST_DEBUG ("refused tensor %p: %s", owner, error && *error ?
      (*error)->message : "");
  if (caps_out)
    gst_caps_unref (caps_out);
  release (owner);
  return NULL;
}

/**
 * gst_pinned_tensor_import:
 * @tensor: a `DLManagedTensor *`, which the call takes: a frame, `[H, W,
 *   C]` (or `[H, W]` for one component) for a format of one plane, `[C,
 *   H, W]` for a planar format of equal planes; rows may be padded,
 *   elements of a row must be contiguous
 * @caps: `video/x-raw` naming the format (`video/x-raw,format=RGBA`); width
 *   and height, when given, must be the tensor's; framerate and colorimetry
 *   are kept
 * @context: (nullable): the device context of the elements that will take
 *   the buffer (see gst_context_new_pinned_context()), or %NULL for one of
 *   the tensor's device
 * @stream: (nullable): the `cudaStream_t` the tensor was produced on
 *   (%NULL: the legacy default stream for a CUDA tensor, the CPU for a CPU
 *   tensor)
 * @out_caps: (out) (optional) (transfer full): the buffer's caps, for
 *   appsrc: `video/x-raw(memory:PinnedDevice)` for a CUDA tensor,
 *   `video/x-raw` for a CPU tensor, with the tensor's width and height
 * @error: (out) (optional): why the tensor does not fit the caps
 *
 * gst_pinned_tensor_import_full() of a DLPack 0.6 tensor.
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
GstBuffer *
gst_pinned_tensor_import (gpointer tensor, GstCaps * caps,
    GstPinnedContext * context, gpointer stream, GstCaps ** out_caps,
    GError ** error)
{
  return gst_pinned_tensor_import_full (tensor, GST_PINNED_TENSOR_FLAG_NONE,
      caps, context, stream, out_caps, error);
}

/**
 * gst_pinned_tensor_import_full:
 * @tensor: a `DLManagedTensor *`, or with %GST_PINNED_TENSOR_FLAG_VERSIONED
 *   a `DLManagedTensorVersioned *`, which the call takes; its shape as in
 *   gst_pinned_tensor_import()
 * @flags: #GstPinnedTensorFlags: %GST_PINNED_TENSOR_FLAG_VERSIONED or none
 * @caps: `video/x-raw` naming the format, as in gst_pinned_tensor_import()
 * @context: (nullable): the device context of the elements that will take
 *   the buffer, or %NULL for one of the tensor's device (device 0 for a
 *   CPU tensor)
 * @stream: (nullable): the `cudaStream_t` the tensor was produced on
 *   (%NULL: the legacy default stream for a CUDA tensor, the CPU for a CPU
 *   tensor)
 * @out_caps: (out) (optional) (transfer full): the buffer's caps, as in
 *   gst_pinned_tensor_import()
 * @error: (out) (optional): why the tensor does not fit the caps
 *
 * Wraps @tensor's memory, without a copy, as a buffer with a #GstVideoMeta
 * of its strides:
 *
 * - a CUDA tensor (`kDLCUDA`) as gst-pinned device memory whose writer
 *   fence is recorded on @stream: pinneddownload, GPU filters and nvcodec
 *   encoders wait for the producer's work on the GPU;
 * - a CPU tensor (`kDLCPU`, `kDLCUDAHost`) in page-locked memory (allocated
 *   with cudaHostAlloc() or registered, by anyone: PyTorch's pinned
 *   tensors) as gst-pinned page-locked memory: pinnedupload's copy engine
 *   reads it directly, without staging; with @stream, the writer fence is
 *   recorded there (an asynchronous copy into the tensor);
 * - another CPU tensor as system memory, which pinnedupload stages.
 *
 * The tensor's deleter runs when the buffer's memory is freed, after the
 * elements' GPU work on it (the copies that read a page-locked tensor).
 * The tensor is taken in every case: on failure its deleter runs at once.
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL with @error set
 *
 * Since: 0.2
 */
GstBuffer *
gst_pinned_tensor_import_full (gpointer tensor, GstPinnedTensorFlags flags,
    GstCaps * caps, GstPinnedContext * context, gpointer stream,
    GstCaps ** out_caps, GError ** error)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  if (flags & GST_PINNED_TENSOR_FLAG_VERSIONED) {
    GstPinnedDLVersioned *versioned = tensor;

    if (versioned->version.major != GST_PINNED_DLPACK_MAJOR) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "the tensor is of DLPack %u.%u, "
          "this library reads DLPack 1.x", versioned->version.major,
          versioned->version.minor);
      imported_release_versioned (versioned);
      return NULL;
    }
    return import_tensor (&versioned->dl_tensor, versioned,
        imported_release_versioned, caps, context, stream, out_caps, error);
  }
  return import_tensor (&((DLManagedTensor *) tensor)->dl_tensor, tensor,
      imported_release, caps, context, stream, out_caps, error);
}
