/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned-prelude.h>

G_BEGIN_DECLS

/**
 * GST_PINNED_BATCH_CAPS_NAME:
 *
 * The media type of pinnedbatch's output: a [batch, channels, height,
 * width] tensor in `memory:PinnedDevice` (see the element).
 *
 * Since: 0.2
 */
#define GST_PINNED_BATCH_CAPS_NAME "other/x-pinned-batch"

/**
 * GstPinnedBatchSlot:
 * @index: the slot's place in the batch
 * @empty: %TRUE when no frame is in the slot (it holds pad-value only)
 * @pad_index: the number of the sink pad the frame came in on (sink_%u)
 * @pad_name: (nullable): that pad's name
 * @pts: the frame's presentation timestamp, as it came
 * @running_time: the frame's running time on its pad
 * @source_width: the frame's width in pixels
 * @source_height: the frame's height in pixels
 * @x: left edge of the frame's rectangle in the tensor plane
 * @y: top edge of that rectangle
 * @width: width of that rectangle (the frame scaled)
 * @height: height of that rectangle
 *
 * One slot of a batch. Tensor coordinates (tx, ty), in pixels of the
 * tensor plane, map to the source frame as
 * sx = (tx - x) * source_width / width, sy = (ty - y) * source_height /
 * height (gst_pinned_batch_slot_to_source()).
 *
 * Since: 0.2
 */
typedef struct
{
  guint index;
  gboolean empty;
  guint pad_index;
  const gchar *pad_name;
  GstClockTime pts;
  GstClockTime running_time;
  gint source_width;
  gint source_height;
  gint x;
  gint y;
  gint width;
  gint height;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstPinnedBatchSlot;

#define GST_TYPE_PINNED_BATCH_SLOT (gst_pinned_batch_slot_get_type ())
GST_PINNED_API
GType                gst_pinned_batch_slot_get_type     (void);

GST_PINNED_API
GstPinnedBatchSlot * gst_pinned_batch_slot_copy         (const GstPinnedBatchSlot * slot);

GST_PINNED_API
void                 gst_pinned_batch_slot_free         (GstPinnedBatchSlot * slot);

GST_PINNED_API
gboolean             gst_pinned_batch_slot_to_source    (const GstPinnedBatchSlot * slot,
                                                         gdouble x,
                                                         gdouble y,
                                                         gdouble * source_x,
                                                         gdouble * source_y);

GST_PINNED_API
gboolean             gst_pinned_batch_slot_from_source  (const GstPinnedBatchSlot * slot,
                                                         gdouble source_x,
                                                         gdouble source_y,
                                                         gdouble * x,
                                                         gdouble * y);

typedef struct _GstPinnedBatchMeta GstPinnedBatchMeta;

/**
 * GstPinnedBatchMeta:
 * @meta: the parent #GstMeta
 * @n_slots: how many slots the batch has
 * @slots: (array length=n_slots): the slots, in tensor order
 *
 * What each slot of a pinnedbatch tensor holds.
 *
 * Since: 0.2
 */
struct _GstPinnedBatchMeta
{
  GstMeta meta;
  guint n_slots;
  GstPinnedBatchSlot *slots;
};

#define GST_PINNED_BATCH_META_API_TYPE (gst_pinned_batch_meta_api_get_type ())
#define GST_PINNED_BATCH_META_INFO (gst_pinned_batch_meta_get_info ())

GST_PINNED_API
GType                gst_pinned_batch_meta_api_get_type (void);

GST_PINNED_API
const GstMetaInfo *  gst_pinned_batch_meta_get_info     (void);

GST_PINNED_API
GstPinnedBatchMeta * gst_buffer_add_pinned_batch_meta   (GstBuffer * buffer,
                                                         guint n_slots);

GST_PINNED_API
GstPinnedBatchMeta * gst_buffer_get_pinned_batch_meta   (GstBuffer * buffer);

GST_PINNED_API
guint                gst_pinned_batch_meta_get_n_slots  (GstPinnedBatchMeta * meta);

GST_PINNED_API
GstPinnedBatchSlot * gst_pinned_batch_meta_get_slot     (GstPinnedBatchMeta * meta,
                                                         guint index);

G_END_DECLS
