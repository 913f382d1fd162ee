/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's caps: its tensor's element type and channel order, the
 * pads' caps and a batch's (see gstpinnedbatchcaps.c). */

#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

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

const gchar *gst_pinned_batch_caps_type_name (GstPinnedBatchType type);

gsize        gst_pinned_batch_caps_type_size (GstPinnedBatchType type);

GstCaps *    gst_pinned_batch_caps_sink      (void);

GstCaps *    gst_pinned_batch_caps_src       (void);

GstCaps *    gst_pinned_batch_caps_new       (guint n,
                                              gint width,
                                              gint height,
                                              GstPinnedBatchType type,
                                              GstPinnedBatchOrder order);

gboolean gst_pinned_batch_caps_get_size      (GstCaps * caps,
                                              gint * batch,
                                              gint * width,
                                              gint * height);

void     gst_pinned_batch_caps_add_templates (GstElementClass * klass,
                                              GType pad_type);

G_END_DECLS
