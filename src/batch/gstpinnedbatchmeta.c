/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedbatchmeta
 * @title: GstPinnedBatchMeta
 * @short_description: what each slot of a pinnedbatch tensor holds
 *
 * pinnedbatch puts frames of many streams into one [N, C, H, W] tensor;
 * its meta tells, per slot, which pad the frame came from, its
 * timestamps, its size and where it lies in the tensor plane, so that a
 * box the model finds maps back onto its frame
 * (gst_pinned_batch_slot_to_source()). In Python:
 *
 * |[<!-- language="Python" -->
 *   meta = GstPinned.buffer_get_pinned_batch_meta(buf)
 *   for i in range(meta.get_n_slots()):
 *       slot = meta.get_slot(i)
 *       ok, sx, sy = slot.to_source(x, y)
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gst/pinned/gstpinnedbatchmeta.h"

/**
 * gst_pinned_batch_meta_api_get_type:
 *
 * Returns: the API type of #GstPinnedBatchMeta
 *
 * Since: 0.2
 */
GType
gst_pinned_batch_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstPinnedBatchMetaAPI", tags);

    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
batch_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstPinnedBatchMeta *bmeta = (GstPinnedBatchMeta *) meta;

  bmeta->n_slots = 0;
  bmeta->slots = NULL;
  return TRUE;
}

static void
batch_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  g_free (((GstPinnedBatchMeta *) meta)->slots);
}

/* A copy of the buffer holds the same tensor: the same slots. */
static gboolean
batch_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstPinnedBatchMeta *src = (GstPinnedBatchMeta *) meta, *dst;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  dst = gst_buffer_add_pinned_batch_meta (dest, src->n_slots);
  if (dst == NULL)
    return FALSE;
  memcpy (dst->slots, src->slots, src->n_slots * sizeof (GstPinnedBatchSlot));
  return TRUE;
}

/**
 * gst_pinned_batch_meta_get_info:
 *
 * Returns: the #GstMetaInfo of #GstPinnedBatchMeta
 *
 * Since: 0.2
 */
const GstMetaInfo *
gst_pinned_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i;

    i = gst_meta_register (GST_PINNED_BATCH_META_API_TYPE,
        "GstPinnedBatchMeta", sizeof (GstPinnedBatchMeta), batch_meta_init,
        batch_meta_free, batch_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

/**
 * gst_buffer_add_pinned_batch_meta:
 * @buffer: a writable #GstBuffer
 * @n_slots: how many slots the batch has
 *
 * Adds a #GstPinnedBatchMeta of @n_slots slots, each empty, with its
 * index set.
 *
 * Returns: (transfer none): the meta
 *
 * Since: 0.2
 */
GstPinnedBatchMeta *
gst_buffer_add_pinned_batch_meta (GstBuffer * buffer, guint n_slots)
{
  GstPinnedBatchMeta *meta;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  meta = (GstPinnedBatchMeta *) gst_buffer_add_meta (buffer,
      GST_PINNED_BATCH_META_INFO, NULL);
  if (meta == NULL)
    return NULL;
  meta->n_slots = n_slots;
  meta->slots = g_new0 (GstPinnedBatchSlot, n_slots);
  for (i = 0; i < n_slots; i++) {
    meta->slots[i].index = i;
    meta->slots[i].empty = TRUE;
    meta->slots[i].pts = GST_CLOCK_TIME_NONE;
    meta->slots[i].running_time = GST_CLOCK_TIME_NONE;
  }
  return meta;
}

/**
 * gst_buffer_get_pinned_batch_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): @buffer's #GstPinnedBatchMeta
 *
 * Since: 0.2
 */
GstPinnedBatchMeta *
gst_buffer_get_pinned_batch_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstPinnedBatchMeta *) gst_buffer_get_meta (buffer,
      GST_PINNED_BATCH_META_API_TYPE);
}

/**
 * gst_pinned_batch_meta_get_n_slots:
 * @meta: a #GstPinnedBatchMeta
 *
 * Returns: how many slots the batch has
 *
 * Since: 0.2
 */
guint
gst_pinned_batch_meta_get_n_slots (GstPinnedBatchMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);

  return meta->n_slots;
}

/**
 * gst_pinned_batch_meta_get_slot:
 * @meta: a #GstPinnedBatchMeta
 * @index: a slot index, below gst_pinned_batch_meta_get_n_slots()
 *
 * Returns: (transfer none) (nullable): the slot, valid while @meta's buffer
 *   is
 *
 * Since: 0.2
 */
GstPinnedBatchSlot *
gst_pinned_batch_meta_get_slot (GstPinnedBatchMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= meta->n_slots)
    return NULL;
  return &meta->slots[index];
}
