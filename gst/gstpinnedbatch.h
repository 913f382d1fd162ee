/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/pinned/pinned.h>

#include "gstpinnedbatchcaps.h"

G_BEGIN_DECLS

#define GST_TYPE_PINNED_BATCH (gst_pinned_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstPinnedBatch, gst_pinned_batch, GST, PINNED_BATCH,
    GstAggregator);

GST_ELEMENT_REGISTER_DECLARE (pinnedbatch);

G_END_DECLS
