/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The host side of pinnedbatch's kernel (gst/kernels/batch.cu): where
 * each frame goes in the tensor plane (the slot's geometry), the ring of
 * slot tables the kernel reads (page-locked, copied to the device on the
 * stream), and its one launch per batch with one fence after it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "gstpinnedbatchkernel.h"

/* Where the frame goes in the tensor plane. */
void
gst_pinned_batch_kernel_place (PinnedBatchSlot * s, gint W, gint H,
    gboolean letterbox)
{
  if (!letterbox) {
    s->x = s->y = 0;
    s->w = W;
    s->h = H;
    return;
  }
  /* the larger side fills the tensor; the other is rounded */
  if ((gint64) s->width * H >= (gint64) s->height * W) {
    s->w = W;
    s->h = MAX (1, (gint) (((gint64) s->height * W * 2 + s->width) /
            (2 * s->width)));
  } else {
    s->h = H;
    s->w = MAX (1, (gint) (((gint64) s->width * H * 2 + s->height) /
            (2 * s->height)));
  }
  s->x = (W - s->w) / 2;
  s->y = (H - s->h) / 2;
}

void
gst_pinned_batch_kernel_clear (GstPinnedBatchKernel * self)
{
  guint i;

  for (i = 0; i < GST_PINNED_BATCH_KERNEL_TABLES; i++) {
    if (self->host_table[i])
      gst_memory_unref (self->host_table[i]);
    if (self->device_table[i])
      gst_memory_unref (self->device_table[i]);
    self->host_table[i] = self->device_table[i] = NULL;
  }
  self->table_slots = 0;
}

/* Slot tables for @n slots. */
static gboolean
ensure_tables (GstPinnedBatchKernel * self, GstAllocator * host_allocator,
    GstAllocator * device_allocator, guint n, GError ** error)
{
  gsize bytes = n * sizeof (PinnedBatchSlot);
  guint i;

  if (self->table_slots >= n)
    return TRUE;
  gst_pinned_batch_kernel_clear (self);
  for (i = 0; i < GST_PINNED_BATCH_KERNEL_TABLES; i++) {
    self->host_table[i] = gst_pinned_allocator_alloc_full (GST_PINNED_ALLOCATOR
        (host_allocator), bytes, NULL, error);
    if (self->host_table[i] == NULL)
      return FALSE;
    self->device_table[i] =
        gst_pinned_allocator_alloc_full (GST_PINNED_ALLOCATOR
        (device_allocator), bytes, NULL, error);
    if (self->device_table[i] == NULL)
      return FALSE;
  }
  self->table_slots = n;
  return TRUE;
}

/* The batch's kernel on @stream, after its slot table (@p without its
 * slots and output, which are set here); one fence for all of it. */
gboolean
gst_pinned_batch_kernel_run (GstPinnedBatchKernel * self,
    GstAllocator * host_allocator, GstAllocator * device_allocator,
    GstPinnedStream * stream, PinnedBatchParams * p,
    const PinnedBatchSlot * slots, GstBuffer * out, GstPinnedFence ** fence,
    GError ** error)
{
  guint t = self->next_table++ % GST_PINNED_BATCH_KERNEL_TABLES;
  gsize bytes = p->batch * sizeof (PinnedBatchSlot);
  GstMemory *mem = gst_buffer_peek_memory (out, 0);
  GstMapInfo map;
  GstPinnedMemory *host, *dev;

  if (!ensure_tables (self, host_allocator, device_allocator, p->batch, error))
    return FALSE;
  host = (GstPinnedMemory *) self->host_table[t];
  dev = (GstPinnedMemory *) self->device_table[t];

  /* A CPU write waits for the batch that read this table last. */
  if (!gst_memory_map (GST_MEMORY_CAST (host), &map, GST_MAP_WRITE)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot write the slot table");
    return FALSE;
  }
  memcpy (map.data, slots, bytes);
  gst_memory_unmap (GST_MEMORY_CAST (host), &map);

  p->slots = (const PinnedBatchSlot *) dev->data;
  /* the pool's buffers are one device allocation each */
  p->out = (guint8 *) ((GstPinnedMemory *) mem)->data + mem->offset;

  if (!gst_pinned_cuda_result (cudaMemcpyAsync (dev->data, host->data, bytes,
              cudaMemcpyHostToDevice,
              gst_pinned_stream_get_cuda_stream (stream)), error))
    return FALSE;
  if (!gst_pinned_cuda_result ((cudaError_t) pinned_batch_launch (p,
              gst_pinned_stream_get_handle (stream)), error))
    return FALSE;

  *fence = gst_pinned_stream_record_fence (stream, error);
  if (*fence == NULL)
    return FALSE;
  gst_pinned_memory_add_fence (host, *fence, GST_MAP_READ);
  gst_pinned_memory_add_fence (dev, *fence, GST_MAP_READ);
  return TRUE;
}

/* The kernel's parameters: a batch of @batch slots of @width x @height,
 * @type, the colours in @order, (v / 255 - mean) / std as v * scale +
 * bias. */
void
gst_pinned_batch_kernel_params (PinnedBatchParams * p, guint batch,
    gint width, gint height, GstPinnedBatchType type,
    GstPinnedBatchOrder order, const gdouble * mean, const gdouble * std,
    guint pad_value)
{
  static const gint orders[2][3] = { {0, 1, 2}, {2, 1, 0} };
  gint c;

  p->pad_value = pad_value;
  p->batch = batch;
  p->width = width;
  p->height = height;
  p->type = type == GST_PINNED_BATCH_TYPE_UINT8 ? PINNED_BATCH_UINT8 :
      type == GST_PINNED_BATCH_TYPE_FLOAT16 ? PINNED_BATCH_FLOAT16 :
      PINNED_BATCH_FLOAT32;
  for (c = 0; c < 3; c++) {
    gint colour = orders[order][c];

    p->order[c] = colour;
    p->scale[c] = (gfloat) (1.0 / (255.0 * std[colour]));
    p->bias[c] = (gfloat) (-mean[colour] / std[colour]);
  }
}

/* @value, a GstValueArray, holds the three values of @v (R, G, B: a
 * normalisation's mean or std). */
void
gst_pinned_batch_kernel_set_triple (GValue * value, const gdouble * v)
{
  GValue item = G_VALUE_INIT;
  guint i;

  g_value_init (&item, G_TYPE_DOUBLE);
  for (i = 0; i < 3; i++) {
    g_value_set_double (&item, v[i]);
    gst_value_array_append_value (value, &item);
  }
  g_value_unset (&item);
}

/* Reads three numbers (R, G, B) of @value into @v, each above 0 where
 * @positive; warns naming @object's property @what and keeps @v
 * otherwise. */
gboolean
gst_pinned_batch_kernel_get_triple (GstObject * object, const GValue * value,
    gdouble * v, gboolean positive, const gchar * what)
{
  gdouble tmp[3];
  guint i;

  if (gst_value_array_get_size (value) != 3) {
    g_warning ("%s: %s takes 3 values (R, G, B), not %u",
        GST_OBJECT_NAME (object), what, gst_value_array_get_size (value));
    return FALSE;
  }
  for (i = 0; i < 3; i++) {
    const GValue *item = gst_value_array_get_value (value, i);

    if (G_VALUE_HOLDS_DOUBLE (item))
      tmp[i] = g_value_get_double (item);
    else if (G_VALUE_HOLDS_INT (item))
      tmp[i] = g_value_get_int (item);
    else {
      g_warning ("%s: %s takes numbers", GST_OBJECT_NAME (object), what);
      return FALSE;
    }
    if (positive && !(tmp[i] > 0)) {
      g_warning ("%s: %s must be above 0", GST_OBJECT_NAME (object), what);
      return FALSE;
    }
  }
  memcpy (v, tmp, sizeof (tmp));
  return TRUE;
}
