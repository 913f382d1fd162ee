/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's device (see gstpinnedbatchdevice.c). */

#pragma once

#include <gst/gst.h>
#include <gst/pinned/pinned.h>

G_BEGIN_DECLS

/* The context, the element's stream and its allocators: all set or none. */
typedef struct
{
  GstPinnedContext *context;
  GstPinnedStream *stream;
  GstAllocator *host_allocator;
  GstAllocator *device_allocator;
} GstPinnedBatchDevice;

gboolean gst_pinned_batch_device_open         (GstPinnedBatchDevice * self,
                                               GstElement * element,
                                               gint device_id,
                                               gboolean report);

void     gst_pinned_batch_device_close        (GstPinnedBatchDevice * self);

gboolean gst_pinned_batch_device_handle_query (GstPinnedBatchDevice * self,
                                               GstElement * element,
                                               GstQuery * query);

void     gst_pinned_batch_device_set_context  (GstPinnedBatchDevice * self,
                                               GstElement * element,
                                               GstContext * context,
                                               gint device_id);

GstBufferPool * gst_pinned_batch_device_new_pool (GstPinnedBatchDevice * self,
                                                 GstElement * element,
                                                 gsize size,
                                                 guint n);

G_END_DECLS
