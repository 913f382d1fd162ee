/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* CUDA interop, the memory: GstCudaMemory of libgstcuda-1.0 in and out of
 * gst-pinned's transfers and filters. Only in builds with the cuda-interop
 * option; not in pinned.h nor in the introspection data. */

#pragma once

#include <gst/video/video.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedmemory.h>
#include <gst/cuda/gstcudamemory.h>

G_BEGIN_DECLS

/**
 * GST_PINNED_CUDA_FORMATS:
 *
 * The video formats that #GstCudaMemory can hold: libgstcuda 1.22 lays out
 * these, and aborts on any other.
 *
 * Since: 0.1
 */
#define GST_PINNED_CUDA_FORMATS "{ I420, YV12, I420_10LE, Y42B, I422_10LE, " \
    "I422_12LE, NV12, NV21, P010_10LE, P016_LE, Y444, Y444_16LE, RGBP, BGRP, " \
    "GBR, GBRA, BGRA, RGBA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, BGR10A2_LE, " \
    "RGB10A2_LE, YUY2, UYVY }"

/**
 * GST_PINNED_CUDA_CAPS:
 *
 * `video/x-raw(memory:CUDAMemory)` in the formats of
 * %GST_PINNED_CUDA_FORMATS, for pad templates.
 *
 * Since: 0.1
 */
#define GST_PINNED_CUDA_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_PINNED_CUDA_FORMATS)

GST_PINNED_API
GstCaps *       gst_pinned_cuda_caps                 (GstCaps * caps);

GST_PINNED_API
gboolean        gst_pinned_caps_is_cuda              (GstCaps * caps);

GST_PINNED_API
gboolean        gst_pinned_is_cuda_buffer            (GstBuffer * buffer);

GST_PINNED_API
GstBuffer *     gst_pinned_cuda_buffer_wrap          (GstBuffer * buffer,
                                                      const GstVideoInfo * info,
                                                      GstAllocator * allocator,
                                                      GstMapFlags access,
                                                      GError ** error);

GST_PINNED_API
gboolean        gst_pinned_cuda_buffer_attach        (GstBuffer * buffer,
                                                      GstBuffer * wrapped,
                                                      gboolean * attached,
                                                      GError ** error);

GST_PINNED_API
gboolean        gst_pinned_cuda_has_streams          (void);

GST_PINNED_API
GstBufferPool * gst_pinned_cuda_buffer_pool_new      (GstPinnedContext * context,
                                                      GstCaps * caps,
                                                      guint min_buffers);

GST_PINNED_API
gboolean        gst_pinned_cuda_buffer_pool_is_usable (GstBufferPool * pool,
                                                       GstPinnedContext * context);

G_END_DECLS
