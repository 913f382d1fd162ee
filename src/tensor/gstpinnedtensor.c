/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedtensor
 * @title: DLPack tensors
 * @short_description: frames as tensors of PyTorch, CuPy, NumPy and back,
 *   without a copy
 *
 * A frame in gst-pinned device memory, in nvcodec's CUDA memory or in
 * gst-pinned page-locked host memory becomes DLPack tensors on the same
 * memory (`DLManagedTensor *` of DLPack 0.6, or with
 * %GST_PINNED_TENSOR_FLAG_VERSIONED `DLManagedTensorVersioned *` of DLPack
 * 1.x, read-only unless exported for writing; passed as gpointer):
 *
 * - gst_pinned_tensor_export_plane(): one tensor per plane, `[H, W]` for a
 *   plane of one component, `[H, W, C]` for a plane of several (packed RGB,
 *   the UV plane of NV12);
 * - gst_pinned_tensor_export_frame(): one tensor for the whole frame,
 *   `[H, W, C]` for a format of one plane, `[C, H, W]` for a planar format
 *   whose planes are equal and evenly spaced in one memory (RGBP and BGRP
 *   of pinnedconvert, Y444, GBR), `[rows, W]` for planes of rows of one
 *   length one after the other (NV12 as `[H * 3 / 2, W]`).
 *
 * The element type is the format's: `uint8` for 8-bit formats, `uint16`
 * for 10 to 16 bits in 16-bit words. Strides are in elements, from the
 * frame's real pitch. The device is `kDLCUDA` with the memory's device id,
 * or `kDLCUDAHost` for page-locked memory (`kDLCPU` on request, for NumPy).
 * The tensor holds the buffer until its deleter runs; a `kDLCPU` tensor
 * also holds its memory mapped, for writing with
 * %GST_PINNED_TENSOR_FLAG_WRITE: the map waits for the copies that still
 * read the memory (or write it), as every CPU writer of page-locked memory
 * does.
 *
 * Stream order, both ways, without a host wait:
 *
 * - export with the consumer's stream: the stream waits on the GPU for the
 *   work that wrote the frame; when the deleter runs, a fence recorded on
 *   that stream joins the frame's readers, so that its pool does not hand
 *   the memory to the next copy before the consumer's kernels, which may
 *   still run then, are done;
 * - import with the producer's stream: gst_pinned_tensor_import() wraps an
 *   application's CUDA tensor as a buffer of gst-pinned device memory and
 *   records the buffer's writer fence on that stream, so that the elements
 *   downstream wait for the producer on the GPU; a CPU tensor in
 *   page-locked memory (PyTorch's pinned tensors) becomes page-locked
 *   memory that pinnedupload copies directly, another CPU tensor system
 *   memory that it stages. The tensor's deleter runs when the memory is
 *   freed, after the elements' work on it.
 *
 * Only in builds with the dlpack option.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tensor/gstpinnedtensor-private.h"
#include "memory/gstpinnedmemory-private.h"
#include "gst/pinned/gstpinnedbuffer.h"
#include "gst/pinned/gstpinnedbatchmeta.h"
#include "gst/pinned/gstpinneddevicememory.h"
#include "gst/pinned/gstpinnedhostmemory.h"
#ifdef HAVE_CUDA_INTEROP
#include "gst/pinned/gstpinnedcudamemory.h"
#include "gst/pinned/gstpinnedcudacontext.h"
#endif

GST_PINNED_DEBUG_CATEGORY (gst_pinned_tensor_debug, "pinnedtensor",
    "gst-pinned DLPack tensors");
#define GST_CAT_DEFAULT gst_pinned_tensor_debug

typedef struct
{
  DLManagedTensor managed;
  /* What a consumer of DLPack 1.x gets: the same tensor, versioned. */
  GstPinnedDLVersioned versioned;
  /* up to [N, C, H, W], a batch of pinnedbatch */
  int64_t shape[4];
  int64_t strides[4];
  /* Held until the deleter: our memory (or a view of CUDA memory). */
  GstBuffer *buffer;
  /* The consumer's stream, for the fence at release; NULL: none. */
  GstPinnedStream *stream;
  GstMapFlags access;
  /* A CPU consumer's view: the memory mapped while it lives. */
  GstMemory *mapped;
  GstMapInfo map;
} Exported;

static void
exported_deleter (DLManagedTensor * managed)
{
  Exported *self = managed->manager_ctx;
  GError *error = NULL;

  if (self->stream) {
    GstPinnedContext *context = gst_pinned_stream_get_context (self->stream);
    gboolean fenced = FALSE;

    /* The consumer's kernels may still read: later writers of the
     * memory (its pool's next copy) wait for them on the GPU. */
    if (gst_pinned_context_push (context, &error)) {
      fenced = gst_pinned_buffer_record_fence (self->buffer, self->stream,
          (self->access & GST_MAP_WRITE) ? GST_MAP_WRITE : GST_MAP_READ,
          &error);
      if (!fenced) {
        /* No fence: wait for the consumer's stream here rather than hand
         * the memory back while it may still read. */
        GST_WARNING ("no fence at the release of tensor %p: %s; waiting "
            "for the consumer's stream", managed, error->message);
        gst_pinned_stream_synchronize (self->stream, NULL);
      }
      gst_pinned_context_pop (context);
    } else {
      GST_WARNING ("no fence at the release of tensor %p: %s", managed,
          error->message);
    }
    g_clear_error (&error);
    gst_pinned_stream_unref (self->stream);
  }
  if (self->mapped)
    gst_memory_unmap (self->mapped, &self->map);
  GST_LOG ("released tensor %p of %" GST_PTR_FORMAT, managed, self->buffer);
  gst_buffer_unref (self->buffer);
  g_free (self);
}

static void
versioned_deleter (GstPinnedDLVersioned * versioned)
{
  Exported *self = versioned->manager_ctx;

  exported_deleter (&self->managed);
}

/* The memory of @buffer that holds @offset, and where in it. */
static GstMemory *
find_memory (GstBuffer * buffer, gsize offset, guint * idx, gsize * skip)
{
  guint length;

  if (!gst_buffer_find_memory (buffer, offset, 1, idx, &length, skip))
    return NULL;
  return gst_buffer_peek_memory (buffer, *idx);
}

#ifdef HAVE_CUDA_INTEROP
/* Races are harmless: a string's quark is always the same. */
static GQuark
view_allocator_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("gst-pinned-tensor-view-allocator");
  return quark;
}

/* A view of nvcodec's CUDA memory in our device memory, whose fences the
 * export and the release use; the view holds the CUDA buffer until the
 * GPU work on it is done. One allocator per CUDA context while views of
 * it live (their memories hold it); the CUDA context knows it weakly, as
 * the allocator holds the CUDA context through its GstPinnedContext. */
static GstBuffer *
cuda_view (GstBuffer * buffer, const GstVideoInfo * info, GstMapFlags access,
    GError ** error)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer,
          0));
  GstCudaContext *cuda_context = cmem->context;
  GstAllocator *allocator = NULL;
  GWeakRef *ref;
  static GMutex lock;

  g_mutex_lock (&lock);
  ref = g_object_get_qdata (G_OBJECT (cuda_context), view_allocator_quark ());
  if (ref)
    allocator = g_weak_ref_get (ref);
  if (allocator == NULL) {
    GstPinnedContext *context =
        gst_pinned_context_new_from_cuda_context (cuda_context, error);

    if (context == NULL) {
      g_mutex_unlock (&lock);
      return NULL;
    }
    allocator = gst_pinned_device_allocator_new (context);
    gst_object_unref (context);
    if (ref == NULL) {
      ref = g_new0 (GWeakRef, 1);
      g_object_set_qdata_full (G_OBJECT (cuda_context),
          view_allocator_quark (), ref,
          (GDestroyNotify) gst_pinned_tensor_weak_ref_free);
    }
    g_weak_ref_set (ref, allocator);
  }
  g_mutex_unlock (&lock);

  buffer = gst_pinned_cuda_buffer_wrap (buffer, info, allocator, access, error);
  gst_object_unref (allocator);
  return buffer;
}
#endif

/* Our memory of @buffer (a view for CUDA memory), referenced. */
static GstBuffer *
exportable_buffer (GstBuffer * buffer, const GstVideoInfo * info,
    GstMapFlags access, GError ** error)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) == 0) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_MEMORY, "the buffer has no memory");
    return NULL;
  }
  mem = gst_buffer_peek_memory (buffer, 0);
  if (gst_is_pinned_memory (mem))
    return gst_buffer_ref (buffer);
#ifdef HAVE_CUDA_INTEROP
  if (gst_pinned_is_cuda_buffer (buffer))
    return cuda_view (buffer, info, access, error);
#endif
  g_set_error (error, GST_PINNED_TENSOR_ERROR, GST_PINNED_TENSOR_ERROR_MEMORY,
      "the frame is in %s memory, which no tensor can share: export frames "
      "of memory:PinnedDevice (after pinnedupload or pinnedconvert), of "
      "memory:CUDAMemory, or of pinneddownload's page-locked memory",
      mem->allocator ? mem->allocator->mem_type : "unknown");
  return NULL;
}

/* The byte offset and stride of @plane in @buffer. */
static void
plane_layout (GstBuffer * buffer, const GstVideoInfo * info, guint plane,
    gsize * offset, gint * stride)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  if (meta) {
    *offset = meta->offset[plane];
    *stride = meta->stride[plane];
  } else {
    *offset = GST_VIDEO_INFO_PLANE_OFFSET (info, plane);
    *stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
  }
}

/* Where @plane starts, for the device: checks that it lies in @buffer's
 * memory (@mem_idx, the same for every plane of a frame tensor). */
static gboolean
plane_address (GstBuffer * buffer, const GstVideoInfo * info, guint plane,
    const PlaneShape * shape, guint elem, guint8 ** data, gint * stride,
    guint * mem_idx, GError ** error)
{
  GstPinnedMemory *mem;
  gsize offset, skip;
  guint idx;

  plane_layout (buffer, info, plane, &offset, stride);
  if (*stride <= 0 || *stride % elem != 0) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "plane %u of the %s frame has a "
        "pitch of %d bytes, which is no whole number of its %u-byte "
        "elements: a tensor's strides count elements", plane,
        GST_VIDEO_INFO_NAME (info), *stride, elem);
    return FALSE;
  }
  if ((guint64) shape->width * shape->channels * elem > (guint) * stride) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "plane %u of the %s frame has a "
        "pitch of %d bytes, less than a row of %u pixels", plane,
        GST_VIDEO_INFO_NAME (info), *stride, shape->width);
    return FALSE;
  }
  mem = (GstPinnedMemory *) find_memory (buffer, offset, &idx, &skip);
  if (mem == NULL || skip + (gsize) (shape->height - 1) * *stride +
      (gsize) shape->width * shape->channels * elem > mem->mem.size) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "plane %u of the %s frame does not "
        "lie in one memory of the buffer", plane, GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  if (*mem_idx != G_MAXUINT && *mem_idx != idx) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the planes of the %s frame lie in "
        "different memories: export each plane on its own",
        GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  *mem_idx = idx;
  *data = (guint8 *) mem->data + mem->mem.offset + skip;
  return TRUE;
}

static gboolean
set_device (Exported * self, GstPinnedMemory * mem, GstPinnedTensorFlags flags,
    GError ** error)
{
  DLDevice *device = &self->managed.dl_tensor.device;

  device->device_id = gst_pinned_context_get_device_id (mem->context);
  if (gst_is_pinned_device_memory (GST_MEMORY_CAST (mem))) {
    device->device_type = kDLCUDA;
  } else if (gst_is_pinned_host_memory (GST_MEMORY_CAST (mem))) {
    device->device_type = (flags & GST_PINNED_TENSOR_FLAG_HOST_AS_CPU) ?
        kDLCPU : kDLCUDAHost;
    if (device->device_type == kDLCPU)
      device->device_id = 0;
  } else {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_MEMORY, "memory of %s is neither gst-pinned "
        "device nor page-locked memory",
        mem->mem.allocator ? mem->mem.allocator->mem_type : "unknown");
    return FALSE;
  }
  return TRUE;
}

/* Orders the consumer after the frame's writer (after its readers too
 * when it writes), and keeps its stream for the fence at release. A CPU
 * consumer holds @mem mapped instead: the map of page-locked memory waits
 * for the GPU work on it, and a write map keeps it from other writers. */
static gboolean
order_consumer (Exported * self, GstMemory * mem, gpointer stream,
    GstPinnedTensorFlags flags, GError ** error)
{
  GstPinnedContext *context = ((GstPinnedMemory *) mem)->context;
  gboolean ok;

  if (self->managed.dl_tensor.device.device_type == kDLCPU) {
    if (!gst_memory_map (mem, &self->map, self->access)) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_MEMORY, "cannot map the frame's memory "
          "for %s: %s", (self->access & GST_MAP_WRITE) ? "writing" :
          "reading", (self->access & GST_MAP_WRITE) ? "another buffer "
          "shares it, it is read-only, or a copy into it failed" :
          "a copy into it failed");
      return FALSE;
    }
    self->mapped = mem;
    return TRUE;
  }
  if (flags & GST_PINNED_TENSOR_FLAG_NO_SYNC)
    return TRUE;

  self->stream = gst_pinned_stream_new_wrapped (context,
      stream ? stream : (gpointer) cudaStreamLegacy);
  if (!gst_pinned_context_push (context, error))
    return FALSE;
  ok = gst_pinned_buffer_sync_stream (self->buffer, self->stream,
      self->access, error);
  gst_pinned_context_pop (context);
  return ok;
}

/* The tensor the caller gets: DLPack 0.6's, or 1.x's versioned one,
 * read-only unless the consumer writes. */
static gpointer
exported_finish (Exported * self, GstPinnedTensorFlags flags)
{
  GstPinnedDLVersioned *versioned = &self->versioned;

  if (!(flags & GST_PINNED_TENSOR_FLAG_VERSIONED))
    return &self->managed;
  versioned->version.major = GST_PINNED_DLPACK_MAJOR;
  versioned->version.minor = GST_PINNED_DLPACK_MINOR;
  versioned->manager_ctx = self;
  versioned->deleter = versioned_deleter;
  versioned->flags = (self->access & GST_MAP_WRITE) ? 0 :
      GST_PINNED_DLPACK_FLAG_READ_ONLY;
  versioned->dl_tensor = self->managed.dl_tensor;
  return versioned;
}

static Exported *
exported_new (GstBuffer * buffer, GstPinnedTensorFlags flags)
{
  Exported *self = g_new0 (Exported, 1);

  self->managed.manager_ctx = self;
  self->managed.deleter = exported_deleter;
  self->managed.dl_tensor.shape = self->shape;
  self->managed.dl_tensor.strides = self->strides;
  self->buffer = buffer;
  self->access = (flags & GST_PINNED_TENSOR_FLAG_WRITE) ?
      GST_MAP_READWRITE : GST_MAP_READ;
  return self;
}

/* Fails an export whose tensor is half made: its buffer goes, no fence. */
static gpointer
export_failed (Exported * self)
{
  gst_clear_pinned_stream (&self->stream);
  if (self->mapped)
    gst_memory_unmap (self->mapped, &self->map);
  gst_buffer_unref (self->buffer);
  g_free (self);
  return NULL;
}

static gboolean
export_setup (GstBuffer ** buffer, const GstVideoInfo * info,
    GstPinnedTensorFlags flags, guint * elem, GError ** error)
{
  ensure_debug_category ();

  if (!gst_pinned_tensor_format_element (info->finfo, elem, error))
    return FALSE;
  *buffer = exportable_buffer (*buffer, info, (flags &
          GST_PINNED_TENSOR_FLAG_WRITE) ? GST_MAP_READWRITE : GST_MAP_READ,
      error);
  return *buffer != NULL;
}

/* One plane as a tensor (gst_pinned_tensor_export_plane()). */
static Exported *
export_plane (GstBuffer * buffer, const GstVideoInfo * info, guint plane,
    gpointer stream, GstPinnedTensorFlags flags, GError ** error)
{
  Exported *self;
  DLTensor *t;
  PlaneShape shape;
  guint8 *data;
  guint elem, mem_idx = G_MAXUINT;
  gint stride;

  if (plane >= GST_VIDEO_INFO_N_PLANES (info)) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "%s has %u planes, not %u",
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info), plane + 1);
    return NULL;
  }
  if (!export_setup (&buffer, info, flags, &elem, error))
    return NULL;

  self = exported_new (buffer, flags);
  t = &self->managed.dl_tensor;
  gst_pinned_tensor_plane_shape (info, plane, elem, &shape);
  if (!plane_address (buffer, info, plane, &shape, elem, &data, &stride,
          &mem_idx, error))
    return export_failed (self);

  t->data = data;
  t->byte_offset = 0;
  gst_pinned_tensor_set_dtype (&t->dtype, elem);
  t->ndim = shape.channels > 1 ? 3 : 2;
  self->shape[0] = shape.height;
  self->shape[1] = shape.width;
  self->shape[2] = shape.channels;
  self->strides[0] = stride / elem;
  self->strides[1] = shape.channels;
  self->strides[2] = 1;

  if (!set_device (self, (GstPinnedMemory *) gst_buffer_peek_memory (buffer,
              mem_idx), flags, error) ||
      !order_consumer (self, gst_buffer_peek_memory (buffer, mem_idx), stream,
          flags, error))
    return export_failed (self);

  GST_LOG ("plane %u of %" GST_PTR_FORMAT " as tensor %p: [%u, %u, %u] "
      "uint%u, pitch %d", plane, buffer, &self->managed, shape.height,
      shape.width, shape.channels, elem * 8, stride);
  return self;
}

/**
 * gst_pinned_tensor_export_plane:
 * @buffer: a frame in gst-pinned device or page-locked memory, or in
 *   nvcodec's CUDA memory
 * @info: the frame's video info (the layout where it has no #GstVideoMeta)
 * @plane: the plane to export
 * @stream: (nullable): the `cudaStream_t` the consumer reads the tensor on
 *   (%NULL: the legacy default stream)
 * @flags: #GstPinnedTensorFlags
 * @error: (out) (optional): why the plane cannot be a tensor
 *
 * Exports @plane of @buffer as a DLPack tensor on the same memory: `[H, W]`
 * for a plane of one component, `[H, W, C]` for a plane of several,
 * `uint8` or `uint16`, strides from the plane's pitch. @stream waits on
 * the GPU for the work that wrote the frame; when the tensor's deleter
 * runs, a fence recorded on @stream joins the frame's readers. The tensor
 * holds @buffer until then.
 *
 * Returns: (transfer full) (nullable): a `DLManagedTensor *` (with
 *   %GST_PINNED_TENSOR_FLAG_VERSIONED a `DLManagedTensorVersioned *`), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
gpointer
gst_pinned_tensor_export_plane (GstBuffer * buffer, const GstVideoInfo * info,
    guint plane, gpointer stream, GstPinnedTensorFlags flags, GError ** error)
{
  Exported *self;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL && info->finfo != NULL, NULL);

  self = export_plane (buffer, info, plane, stream, flags, error);
  return self ? exported_finish (self, flags) : NULL;
}

/* Where each plane of a frame tensor starts, its pitch and shape, all in
 * one memory (@mem_idx) and of one pitch. */
static gboolean
frame_planes (GstBuffer * buffer, const GstVideoInfo * info, guint elem,
    guint8 ** data, gint * stride, PlaneShape * shapes, guint * mem_idx,
    GError ** error)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint pitch;

    gst_pinned_tensor_plane_shape (info, p, elem, &shapes[p]);
    if (!plane_address (buffer, info, p, &shapes[p], elem, &data[p], &pitch,
            mem_idx, error))
      return FALSE;
    if (p == 0)
      *stride = pitch;
    if (pitch != *stride) {
      g_set_error (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT, "the planes of the %s frame have "
          "different pitches (%d, %d): export each plane",
          GST_VIDEO_INFO_NAME (info), *stride, pitch);
      return FALSE;
    }
  }
  return TRUE;
}

/* Planes of one component each, of one size, evenly spaced (RGBP, Y444):
 * [C, H, W]. */
static gboolean
set_planar (Exported * self, const GstVideoInfo * info, guint elem,
    guint8 ** data, gint stride, const PlaneShape * shapes)
{
  guint p, n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gint64 spacing = data[1] - data[0];

  for (p = 0; p < n_planes; p++) {
    if (shapes[p].channels != 1 || shapes[p].width != shapes[0].width ||
        shapes[p].height != shapes[0].height)
      return FALSE;
    if (p > 0 && (spacing <= 0 || data[p] - data[p - 1] != spacing ||
            spacing % elem != 0))
      return FALSE;
  }
  self->managed.dl_tensor.ndim = 3;
  self->shape[0] = n_planes;
  self->shape[1] = shapes[0].height;
  self->shape[2] = shapes[0].width;
  self->strides[0] = spacing / elem;
  self->strides[1] = stride / elem;
  self->strides[2] = 1;
  return TRUE;
}

/* Planes whose rows hold the same elements, each right after the one
 * before (NV12, NV21, NV16, P010: the luma rows, then the rows of chroma
 * pairs): [rows, W], the layout OpenCV and NVIDIA's decoders give NV12. */
static gboolean
set_stacked (Exported * self, const GstVideoInfo * info, guint elem,
    guint8 ** data, gint stride, const PlaneShape * shapes)
{
  guint p, rows = 0, row = shapes[0].width * shapes[0].channels;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (shapes[p].width * shapes[p].channels != row)
      return FALSE;
    if (p > 0 && data[p] != data[p - 1] + (gsize) stride * shapes[p - 1].height)
      return FALSE;
    rows += shapes[p].height;
  }
  self->managed.dl_tensor.ndim = 2;
  self->shape[0] = rows;
  self->shape[1] = row;
  self->strides[0] = stride / elem;
  self->strides[1] = 1;
  return TRUE;
}

/**
 * gst_pinned_tensor_export_frame:
 * @buffer: a frame in gst-pinned device or page-locked memory, or in
 *   nvcodec's CUDA memory
 * @info: the frame's video info (the layout where it has no #GstVideoMeta)
 * @stream: (nullable): the `cudaStream_t` the consumer reads the tensor on
 *   (%NULL: the legacy default stream)
 * @flags: #GstPinnedTensorFlags
 * @error: (out) (optional): why the frame cannot be one tensor
 *
 * Exports the whole frame as one DLPack tensor: `[H, W, C]` for a format
 * of one plane (`C` is 1 for gray); `[C, H, W]` for a planar format whose
 * planes have one component each, the same size and pitch, and lie evenly
 * spaced in one memory (RGBP and BGRP as pinnedconvert makes them, Y444,
 * GBR); `[H + chroma rows, W]` for planes whose rows are equally long and
 * follow each other without a gap (NV12, NV21, NV16, P010_10LE of an even
 * width: `[H * 3 / 2, W]` for NV12, as OpenCV and NVIDIA's decoders hand
 * it out). Other layouts (I420: planes of different widths; planes with
 * rows of padding between them) are refused: export their planes with
 * gst_pinned_tensor_export_plane(). Stream order and lifetime as there.
 *
 * Returns: (transfer full) (nullable): a `DLManagedTensor *` (with
 *   %GST_PINNED_TENSOR_FLAG_VERSIONED a `DLManagedTensorVersioned *`), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
gpointer
gst_pinned_tensor_export_frame (GstBuffer * buffer, const GstVideoInfo * info,
    gpointer stream, GstPinnedTensorFlags flags, GError ** error)
{
  Exported *self;
  DLTensor *t;
  PlaneShape shapes[GST_VIDEO_MAX_PLANES] = { {0,}, };
  guint8 *data[GST_VIDEO_MAX_PLANES] = { NULL, };
  GstPinnedMemory *mem;
  guint elem, mem_idx = G_MAXUINT;
  gint stride = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL && info->finfo != NULL, NULL);

  if (GST_VIDEO_INFO_N_PLANES (info) == 1) {
    self = export_plane (buffer, info, 0, stream, flags, error);
    if (self == NULL)
      return NULL;
    /* Always [H, W, C], gray too. */
    t = &self->managed.dl_tensor;
    if (t->ndim == 2) {
      t->ndim = 3;
      t->shape[2] = 1;
      t->strides[2] = 1;
    }
    return exported_finish (self, flags);
  }

  if (!export_setup (&buffer, info, flags, &elem, error))
    return NULL;
  self = exported_new (buffer, flags);
  t = &self->managed.dl_tensor;

  if (!frame_planes (buffer, info, elem, data, &stride, shapes, &mem_idx,
          error))
    return export_failed (self);
  if (!set_planar (self, info, elem, data, stride, shapes) &&
      !set_stacked (self, info, elem, data, stride, shapes)) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "the planes of the %s frame are "
        "neither equal planes evenly spaced ([C, H, W]) nor rows of one "
        "length one after the other ([rows, W]): export each plane "
        "(gst_pinned_tensor_export_plane)", GST_VIDEO_INFO_NAME (info));
    return export_failed (self);
  }
  t->data = data[0];
  t->byte_offset = 0;
  gst_pinned_tensor_set_dtype (&t->dtype, elem);

  mem = (GstPinnedMemory *) gst_buffer_peek_memory (buffer, mem_idx);
  if (!set_device (self, mem, flags, error) ||
      !order_consumer (self, GST_MEMORY_CAST (mem), stream, flags, error))
    return export_failed (self);

  GST_LOG ("%" GST_PTR_FORMAT " as a tensor %p of %d dimensions, [%"
      G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", ...] uint%u, pitch %d", buffer,
      &self->managed, t->ndim, self->shape[0], self->shape[1], elem * 8,
      stride);
  return exported_finish (self, flags);
}

/**
 * gst_pinned_tensor_export_batch:
 * @buffer: a batch of pinnedbatch, in gst-pinned device memory
 * @caps: its caps (#GST_PINNED_BATCH_CAPS_NAME: batch, channels, height,
 *   width, type)
 * @stream: (nullable): the `cudaStream_t` the consumer reads the tensor on
 *   (%NULL: the legacy default stream)
 * @flags: #GstPinnedTensorFlags
 * @error: (out) (optional): why the buffer cannot be that tensor
 *
 * Exports a batch as one DLPack tensor: `[N, C, H, W]`, contiguous, of
 * its caps' type (`uint8`, `float16` or `float32`). Stream order and
 * lifetime as gst_pinned_tensor_export_plane().
 *
 * Returns: (transfer full) (nullable): a `DLManagedTensor *`, or %NULL
 *   with @error set
 *
 * Since: 0.2
 */
gpointer
gst_pinned_tensor_export_batch (GstBuffer * buffer, GstCaps * caps,
    gpointer stream, GstPinnedTensorFlags flags, GError ** error)
{
  GstStructure *s;
  const gchar *type;
  GstMemory *mem;
  Exported *self;
  DLTensor *t;
  gint dims[4] = { 0, 0, 0, 0 };
  guint8 code, bits;
  gsize need;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);
  ensure_debug_category ();

  s = gst_caps_get_structure (caps, 0);
  type = gst_structure_get_string (s, "type");
  if (!gst_structure_has_name (s, GST_PINNED_BATCH_CAPS_NAME) ||
      !gst_structure_get_int (s, "batch", &dims[0]) ||
      !gst_structure_get_int (s, "channels", &dims[1]) ||
      !gst_structure_get_int (s, "height", &dims[2]) ||
      !gst_structure_get_int (s, "width", &dims[3]) || type == NULL) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_LAYOUT, "not the fixed caps of a batch (%s): "
        "%" GST_PTR_FORMAT, GST_PINNED_BATCH_CAPS_NAME, caps);
    return NULL;
  }
  code = g_str_equal (type, "uint8") ? kDLUInt : kDLFloat;
  bits = g_str_equal (type, "uint8") ? 8 : g_str_equal (type, "float16") ?
      16 : 32;
  need = (gsize) dims[0] * dims[1] * dims[2] * dims[3] * (bits / 8);
  mem = gst_buffer_n_memory (buffer) == 1 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  if (mem == NULL || !gst_is_pinned_memory (mem) || mem->size < need) {
    g_set_error (error, GST_PINNED_TENSOR_ERROR,
        GST_PINNED_TENSOR_ERROR_MEMORY, "a batch is one gst-pinned memory of "
        "%" G_GSIZE_FORMAT " bytes: this buffer has %u memories of %"
        G_GSIZE_FORMAT " bytes", need, gst_buffer_n_memory (buffer),
        gst_buffer_get_size (buffer));
    return NULL;
  }

  self = exported_new (gst_buffer_ref (buffer), flags);
  t = &self->managed.dl_tensor;
  t->data = (guint8 *) ((GstPinnedMemory *) mem)->data + mem->offset;
  t->byte_offset = 0;
  t->ndim = 4;
  t->dtype.code = code;
  t->dtype.bits = bits;
  t->dtype.lanes = 1;
  self->shape[0] = dims[0];
  self->shape[1] = dims[1];
  self->shape[2] = dims[2];
  self->shape[3] = dims[3];
  self->strides[3] = 1;
  self->strides[2] = dims[3];
  self->strides[1] = (int64_t) dims[2] * dims[3];
  self->strides[0] = (int64_t) dims[1] * dims[2] * dims[3];

  if (!set_device (self, (GstPinnedMemory *) mem, flags, error) ||
      !order_consumer (self, mem, stream, flags, error))
    return export_failed (self);

  GST_LOG ("batch %" GST_PTR_FORMAT " as tensor %p: [%d, %d, %d, %d] %s",
      buffer, &self->managed, dims[0], dims[1], dims[2], dims[3], type);
  return exported_finish (self, flags);
}
