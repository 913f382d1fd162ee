/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What both gst-pinned buffer pools do alike (gstpinnedhostbufferpool.c,
 * gstpinneddevicebufferpool.c): their own allocator wins over the one a
 * configuration names, and they start with their minimum of buffers in
 * one reserved block. Their debug category, "pinnedbufferpool". */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedbufferpool-private.h"

GST_PINNED_DEBUG_CATEGORY_SHARED (gst_pinned_buffer_pool_debug,
    "pinnedbufferpool", "gst-pinned buffer pools", gst_pinned_pool_init_debug);
#define GST_CAT_DEFAULT gst_pinned_buffer_pool_debug

/* Whoever configures the pool may name another allocator (or none, as
 * GstBaseSrc does with the allocation query's first one): the pool's own
 * allocator is the point of the pool, so it always wins. */
gboolean
gst_pinned_pool_set_config_with_allocator (GstBufferPool * pool,
    GstStructure * config, GstAllocator * own,
    GstBufferPoolClass * video_pool_class)
{
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  if (!gst_buffer_pool_config_get_allocator (config, &allocator, &params))
    gst_allocation_params_init (&params);

  if (allocator != own) {
    GST_DEBUG_OBJECT (pool, "using own allocator instead of %" GST_PTR_FORMAT,
        allocator);
    gst_buffer_pool_config_set_allocator (config, own, &params);
  }

  return video_pool_class->set_config (pool, config);
}

/* Starts @pool with its minimum of buffers in one block of @allocator;
 * where that block cannot be had, each buffer has its own allocation. */
gboolean
gst_pinned_pool_start_reserved (GstBufferPool * pool, GstAllocator * allocator,
    GstBufferPoolClass * video_pool_class)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocationParams params;
  guint size = 0, min = 0;
  GError *error = NULL;
  gboolean ret;

  gst_buffer_pool_config_get_params (config, NULL, &size, &min, NULL);
  if (!gst_buffer_pool_config_get_allocator (config, NULL, &params))
    gst_allocation_params_init (&params);
  gst_structure_free (config);

  if (min > 1 && size > 0 &&
      !gst_pinned_allocator_reserve (GST_PINNED_ALLOCATOR (allocator), min,
          size + params.prefix + params.padding, &error)) {
    GST_INFO_OBJECT (pool, "no block for %u buffers, one allocation each: %s",
        min, error->message);
    g_clear_error (&error);
  }
  ret = video_pool_class->start (pool);
  gst_pinned_allocator_unreserve (GST_PINNED_ALLOCATOR (allocator));

  return ret;
}
