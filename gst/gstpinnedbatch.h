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
#include "gstpinnedbatchdevice.h"
#include "gstpinnedbatchkernel.h"
#include "gstpinnedbatchstats.h"

G_BEGIN_DECLS

#define GST_TYPE_PINNED_BATCH (gst_pinned_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstPinnedBatch, gst_pinned_batch, GST, PINNED_BATCH,
    GstAggregator);

struct _GstPinnedBatch
{
  GstAggregator parent;

  /* properties, under the object lock */
  guint batch_size;
  gint width;
  gint height;
  gboolean letterbox;
  guint pad_value;
  GstPinnedBatchType type;
  GstPinnedBatchOrder order;
  gdouble mean[3];
  gdouble std[3];
  gint device_id;
  guint pool_size;

  /* the device, from NULL to READY on */
  GstPinnedBatchDevice device;

  /* negotiated, the aggregator's thread */
  guint n;
  gint out_width;
  gint out_height;
  GstPinnedBatchType out_type;
  GstBufferPool *pool;
  gsize out_size;
  guint next_pad;
  guint64 batches;

  /* the slot tables */
  GstPinnedBatchKernel kernel;

  /* CUDA memory in: views held until the kernels that read them are done */
  GstPinnedWindow *held;

  /* atomics, and the GPU timer */
  GstPinnedStats stats;
};

GST_ELEMENT_REGISTER_DECLARE (pinnedbatch);

G_END_DECLS
