/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned.h>

G_BEGIN_DECLS

#define GST_TYPE_PINNED_DOWNLOAD (gst_pinned_download_get_type ())
G_DECLARE_FINAL_TYPE (GstPinnedDownload, gst_pinned_download, GST,
    PINNED_DOWNLOAD, GstPinnedCopyTransform);

GST_ELEMENT_REGISTER_DECLARE (pinneddownload);

G_END_DECLS
