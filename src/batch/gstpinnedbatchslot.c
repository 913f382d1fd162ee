/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* One slot of a #GstPinnedBatchMeta as a boxed type: its copy, and the
 * mapping between tensor-plane positions and its source frame's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/pinned/gstpinnedbatchmeta.h"

G_DEFINE_BOXED_TYPE (GstPinnedBatchSlot, gst_pinned_batch_slot,
    gst_pinned_batch_slot_copy, gst_pinned_batch_slot_free);

/**
 * gst_pinned_batch_slot_copy:
 * @slot: a #GstPinnedBatchSlot
 *
 * Returns: (transfer full): a copy of @slot
 *
 * Since: 0.2
 */
GstPinnedBatchSlot *
gst_pinned_batch_slot_copy (const GstPinnedBatchSlot * slot)
{
  g_return_val_if_fail (slot != NULL, NULL);

  /* pad_name is interned: the copy shares it */
  return g_memdup2 (slot, sizeof (GstPinnedBatchSlot));
}

/**
 * gst_pinned_batch_slot_free:
 * @slot: a #GstPinnedBatchSlot from gst_pinned_batch_slot_copy()
 *
 * Since: 0.2
 */
void
gst_pinned_batch_slot_free (GstPinnedBatchSlot * slot)
{
  g_free (slot);
}

/**
 * gst_pinned_batch_slot_to_source:
 * @slot: a #GstPinnedBatchSlot
 * @x: a horizontal position in the tensor plane, in pixels
 * @y: a vertical position in the tensor plane, in pixels
 * @source_x: (out): where @x lies in the source frame, in its pixels
 * @source_y: (out): where @y lies in the source frame
 *
 * Maps a point of the tensor (a box's corner, found by a model) back onto
 * the slot's frame: positions are edges, so the slot's rectangle maps onto
 * 0..source_width and 0..source_height exactly. A point outside the
 * rectangle (in the letterbox's padding) maps outside the frame.
 *
 * Returns: %FALSE for an empty slot (@source_x and @source_y are then 0)
 *
 * Since: 0.2
 */
gboolean
gst_pinned_batch_slot_to_source (const GstPinnedBatchSlot * slot, gdouble x,
    gdouble y, gdouble * source_x, gdouble * source_y)
{
  g_return_val_if_fail (slot != NULL, FALSE);
  g_return_val_if_fail (source_x != NULL && source_y != NULL, FALSE);

  *source_x = *source_y = 0;
  if (slot->empty || slot->width <= 0 || slot->height <= 0)
    return FALSE;
  *source_x = (x - slot->x) * slot->source_width / slot->width;
  *source_y = (y - slot->y) * slot->source_height / slot->height;
  return TRUE;
}

/**
 * gst_pinned_batch_slot_from_source:
 * @slot: a #GstPinnedBatchSlot
 * @source_x: a horizontal position in the source frame, in its pixels
 * @source_y: a vertical position in the source frame
 * @x: (out): where @source_x lies in the tensor plane
 * @y: (out): where @source_y lies in the tensor plane
 *
 * The inverse of gst_pinned_batch_slot_to_source().
 *
 * Returns: %FALSE for an empty slot (@x and @y are then 0)
 *
 * Since: 0.2
 */
gboolean
gst_pinned_batch_slot_from_source (const GstPinnedBatchSlot * slot,
    gdouble source_x, gdouble source_y, gdouble * x, gdouble * y)
{
  g_return_val_if_fail (slot != NULL, FALSE);
  g_return_val_if_fail (x != NULL && y != NULL, FALSE);

  *x = *y = 0;
  if (slot->empty || slot->source_width <= 0 || slot->source_height <= 0)
    return FALSE;
  *x = slot->x + source_x * slot->width / slot->source_width;
  *y = slot->y + source_y * slot->height / slot->source_height;
  return TRUE;
}
