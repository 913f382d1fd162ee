/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinned
 * @title: gst-pinned
 * @short_description: page-locked host memory, CUDA device memory and fences
 *
 * The library behind the `pinned` plugin. Include this header and link
 * `gstpinned-1.0` (pkg-config name). CUDA-facing helpers, which need the CUDA
 * runtime headers, are in `<gst/pinned/gstpinnedcuda.h>`.
 */

#pragma once

#include <gst/pinned/pinned-prelude.h>
#include <gst/pinned/gstpinnedcontext.h>
#include <gst/pinned/gstpinnedstream.h>
#include <gst/pinned/gstpinnedfence.h>
#include <gst/pinned/gstpinnedmemory.h>
#include <gst/pinned/gstpinnedhostmemory.h>
#include <gst/pinned/gstpinneddevicememory.h>
#include <gst/pinned/gstpinnedbufferpool.h>
#include <gst/pinned/gstpinnedbuffer.h>
#include <gst/pinned/gstpinnedtimeline.h>
#include <gst/pinned/gstpinnedpageable.h>
#include <gst/pinned/gstpinnedtransfer.h>
#include <gst/pinned/gstpinnedwindow.h>
#include <gst/pinned/gstpinnedformats.h>
#include <gst/pinned/gstpinnedbasetransform.h>
#include <gst/pinned/gstpinnedcopytransform.h>
#include <gst/pinned/gstpinnedfilter.h>
#include <gst/pinned/gstpinnederror.h>
#include <gst/pinned/gstpinnedbatchmeta.h>

