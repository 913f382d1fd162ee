/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The CPU reference of pinnedconvert, shared by the suites that check it
 * (filters, decode). */

#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

/* What pinnedconvert makes of @in, a 4:2:0 YUV frame in the layout of
 * @in_info, in the RGB format of @out_info (system memory): the kernel's
 * own fixed-point function (gst/kernels/convert.h) pixel by pixel, with
 * the coefficients of @in_info's colorimetry (an unknown matrix is taken
 * as BT.601, as pinnedconvert takes it). */
GstBuffer *pinned_test_reference_convert (GstBuffer * in,
                                          const GstVideoInfo * in_info,
                                          const GstVideoInfo * out_info);

G_END_DECLS
