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

G_BEGIN_DECLS

#define GST_TYPE_PINNED_BATCH (gst_pinned_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstPinnedBatch, gst_pinned_batch, GST, PINNED_BATCH,
    GstAggregator);

/**
 * GstPinnedBatchType:
 * @GST_PINNED_BATCH_TYPE_UINT8: 8-bit levels, 0..255, not normalised
 * @GST_PINNED_BATCH_TYPE_FLOAT16: IEEE half, normalised
 * @GST_PINNED_BATCH_TYPE_FLOAT32: IEEE single, normalised
 *
 * The element type of pinnedbatch's tensor.
 *
 * Since: 0.2
 */
typedef enum
{
  GST_PINNED_BATCH_TYPE_UINT8,
  GST_PINNED_BATCH_TYPE_FLOAT16,
  GST_PINNED_BATCH_TYPE_FLOAT32,
} GstPinnedBatchType;

/**
 * GstPinnedBatchOrder:
 * @GST_PINNED_BATCH_ORDER_RGB: channel 0 red, 1 green, 2 blue
 * @GST_PINNED_BATCH_ORDER_BGR: channel 0 blue, 1 green, 2 red
 *
 * The order of pinnedbatch's channels.
 *
 * Since: 0.2
 */
typedef enum
{
  GST_PINNED_BATCH_ORDER_RGB,
  GST_PINNED_BATCH_ORDER_BGR,
} GstPinnedBatchOrder;

#define GST_TYPE_PINNED_BATCH_TYPE (gst_pinned_batch_type_get_type ())
#define GST_TYPE_PINNED_BATCH_ORDER (gst_pinned_batch_order_get_type ())
GType gst_pinned_batch_type_get_type (void);
GType gst_pinned_batch_order_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (pinnedbatch);

G_END_DECLS
