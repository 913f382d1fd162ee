/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A sink pad of pinnedbatch: one stream's format, and each of its frames
 * on the GPU as a slot of the batch (see gstpinnedbatchpad.c). */

#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>

#include "gstpinnedbatchdevice.h"
#include "kernels/batch.h"

G_BEGIN_DECLS

#define GST_TYPE_PINNED_BATCH_PAD (gst_pinned_batch_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstPinnedBatchPad, gst_pinned_batch_pad, GST,
    PINNED_BATCH_PAD, GstAggregatorPad);

typedef enum
{
  GST_PINNED_BATCH_INPUT_SYSTEM,
  GST_PINNED_BATCH_INPUT_DEVICE,
  GST_PINNED_BATCH_INPUT_CUDA,
} GstPinnedBatchInput;

struct _GstPinnedBatchPad
{
  GstAggregatorPad parent;

  /* The aggregator's thread only (caps events are handled there). */
  GstVideoInfo info;
  gboolean has_info;
  GstPinnedBatchInput kind;
  /* YUV coefficients of the colorimetry; the rest of a slot per frame */
  PinnedBatchSlot proto;
  /* system memory in: the device frames it is copied into */
  GstBufferPool *upload_pool;
  guint index;
};

/* One frame of a batch. */
typedef struct
{
  GstPinnedBatchPad *pad;
  /* as it came */
  GstBuffer *buffer;
  /* what the kernel reads: the buffer, a view of it, or a copy */
  GstBuffer *gpu;
} GstPinnedBatchFrame;

void     gst_pinned_batch_pad_clear         (GstPinnedBatchPad * pad);

gboolean gst_pinned_batch_pad_set_caps      (GstPinnedBatchPad * pad,
                                             GstElement * element,
                                             GstCaps * caps);

gboolean gst_pinned_batch_pad_start         (GstPinnedBatchPad * pad,
                                             GstElement * element,
                                             GstPinnedContext * context,
                                             GstCaps * caps);

gboolean gst_pinned_batch_pad_offer_pool    (GstPinnedBatchPad * pad,
                                             GstQuery * query,
                                             GstCaps * caps,
                                             const GstVideoInfo * info,
                                             GstPinnedContext * context,
                                             guint size);

gboolean gst_pinned_batch_pad_prepare_frame (GstPinnedBatchFrame * fr,
                                             GstPinnedStream * stream,
                                             GstAllocator * device_allocator,
                                             PinnedBatchSlot * s,
                                             GError ** error);

gboolean gst_pinned_batch_pad_propose_allocation (GstPinnedBatchPad * pad,
                                                  GstQuery * query,
                                                  GstPinnedBatchDevice * device,
                                                  GstElement * element,
                                                  gint device_id,
                                                  guint size);

G_END_DECLS
