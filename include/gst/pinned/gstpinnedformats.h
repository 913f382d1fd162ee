/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/video/video.h>
#include <gst/pinned/gstpinneddevicememory.h>

G_BEGIN_DECLS

/**
 * GST_PINNED_VIDEO_FORMATS:
 *
 * The raw video formats gst-pinned's elements take and make: every format
 * GStreamer 1.22 describes with #GstVideoInfo (a transfer moves bytes, plane
 * by plane, so any layout goes up and down as it is), in the order the
 * elements prefer them. First the common ones: 8-bit YUV (I420 first, as
 * GStreamer's CUDA converter orders its own), 8-bit RGB, gray, more bits
 * per component, the paletted format; they hold every format
 * #GstCudaMemory can hold (see `GST_PINNED_CUDA_FORMATS`) and those of
 * pinnedconvert. Then the rest in the same order, the tiled layouts last.
 * Each is tested bit-exact through `pinnedupload ! pinneddownload` (the
 * `roundtrip` test suite reads this list).
 *
 * Since: 0.1
 */
#define GST_PINNED_VIDEO_FORMATS "{ I420, YV12, NV12, NV21, Y42B, NV16, " \
    "Y444, YUY2, UYVY, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, " \
    "RGB, BGR, RGBP, BGRP, GBR, GBRA, GRAY8, P010_10LE, P016_LE, " \
    "I420_10LE, I422_10LE, I422_12LE, Y444_16LE, v210, BGR10A2_LE, " \
    "RGB10A2_LE, GRAY16_LE, RGB8P, " \
    "VUYA, AYUV, A420, AV12, NV24, IYU2, v308, NV61, VYUY, YVYU, Y41B, " \
    "IYU1, YVU9, YUV9, RGB16, BGR16, RGB15, BGR15, ABGR64_LE, BGRA64_LE, " \
    "AYUV64, ARGB64_LE, ARGB64, RGBA64_LE, ABGR64_BE, BGRA64_BE, " \
    "ARGB64_BE, RGBA64_BE, GBRA_12LE, GBRA_12BE, Y412_LE, Y412_BE, " \
    "A444_10LE, GBRA_10LE, A444_10BE, GBRA_10BE, A422_10LE, A422_10BE, " \
    "A420_10LE, A420_10BE, Y410, Y444_16BE, v216, P016_BE, Y444_12LE, " \
    "GBR_12LE, Y444_12BE, GBR_12BE, I422_12BE, Y212_LE, Y212_BE, " \
    "I420_12LE, I420_12BE, P012_LE, P012_BE, Y444_10LE, GBR_10LE, " \
    "Y444_10BE, GBR_10BE, r210, I422_10BE, NV16_10LE32, Y210, UYVP, " \
    "I420_10BE, NV12_10LE32, NV12_10LE40, P010_10BE, GRAY16_BE, " \
    "GRAY10_LE32, NV12_10BE_8L128, NV12_8L128, NV12_64Z32, NV12_4L4, " \
    "NV12_32L32, NV12_16L32S }"

/**
 * GST_PINNED_VIDEO_CAPS:
 *
 * `video/x-raw` (system memory) in the formats of
 * %GST_PINNED_VIDEO_FORMATS, for pad templates.
 *
 * Since: 0.1
 */
#define GST_PINNED_VIDEO_CAPS GST_VIDEO_CAPS_MAKE (GST_PINNED_VIDEO_FORMATS)

/**
 * GST_PINNED_DEVICE_VIDEO_CAPS:
 *
 * `video/x-raw(memory:PinnedDevice)` in the formats of
 * %GST_PINNED_VIDEO_FORMATS, for pad templates.
 *
 * Since: 0.1
 */
#define GST_PINNED_DEVICE_VIDEO_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE, GST_PINNED_VIDEO_FORMATS)

G_END_DECLS
