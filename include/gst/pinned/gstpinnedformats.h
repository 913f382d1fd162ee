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
 * The raw video formats gst-pinned's elements take and make, in the order
 * they prefer them: the common 8-bit YUV formats, then 8-bit RGB, gray,
 * then more bits per component, as GStreamer's CUDA converter orders its
 * own. It holds every format #GstCudaMemory can hold (see
 * `GST_PINNED_CUDA_FORMATS`) and those of pinnedconvert. Each is tested
 * bit-exact through `pinnedupload ! pinneddownload` (the `roundtrip` test
 * suite reads this list); tiled formats are not in it.
 *
 * Since: 0.1
 */
#define GST_PINNED_VIDEO_FORMATS "{ I420, YV12, NV12, NV21, Y42B, NV16, " \
    "Y444, YUY2, UYVY, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, " \
    "RGB, BGR, RGBP, BGRP, GBR, GBRA, GRAY8, P010_10LE, P016_LE, " \
    "I420_10LE, I422_10LE, I422_12LE, Y444_16LE, v210, BGR10A2_LE, " \
    "RGB10A2_LE, GRAY16_LE, RGB8P }"

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
