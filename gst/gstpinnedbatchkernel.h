/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The host side of pinnedbatch's kernel (gstpinnedbatchkernel.c). */

#pragma once

#include <gst/gst.h>
#include <gst/pinned/pinned.h>

#include "gstpinnedbatchcaps.h"
#include "kernels/batch.h"

G_BEGIN_DECLS

/* Slot tables in flight: one is written again only after the batch that
 * read it is done, which is long past at this depth. */
#define GST_PINNED_BATCH_KERNEL_TABLES 8

/* The slot tables: page-locked and device copies. */
typedef struct
{
  GstMemory *host_table[GST_PINNED_BATCH_KERNEL_TABLES];
  GstMemory *device_table[GST_PINNED_BATCH_KERNEL_TABLES];
  guint table_slots;
  guint next_table;
} GstPinnedBatchKernel;

void     gst_pinned_batch_kernel_place (PinnedBatchSlot * s,
                                        gint W,
                                        gint H,
                                        gboolean letterbox);

void     gst_pinned_batch_kernel_clear (GstPinnedBatchKernel * self);

gboolean gst_pinned_batch_kernel_run   (GstPinnedBatchKernel * self,
                                        GstAllocator * host_allocator,
                                        GstAllocator * device_allocator,
                                        GstPinnedStream * stream,
                                        PinnedBatchParams * p,
                                        const PinnedBatchSlot * slots,
                                        GstBuffer * out,
                                        GstPinnedFence ** fence,
                                        GError ** error);

void     gst_pinned_batch_kernel_params (PinnedBatchParams * p,
                                         guint batch,
                                         gint width,
                                         gint height,
                                         GstPinnedBatchType type,
                                         GstPinnedBatchOrder order,
                                         const gdouble * mean,
                                         const gdouble * std,
                                         guint pad_value);

void     gst_pinned_batch_kernel_set_triple (GValue * value,
                                             const gdouble * v);

gboolean gst_pinned_batch_kernel_get_triple (GstObject * object,
                                             const GValue * value,
                                             gdouble * v,
                                             gboolean positive,
                                             const gchar * what);

G_END_DECLS
