/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* pinnedbatch's device: its CUDA context (shared with the pipeline's
 * elements through GstContext, gst-pinned's or nvcodec's), the element's
 * stream and its allocators, opened and closed together. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>
#ifdef HAVE_CUDA_INTEROP
#include <gst/pinned/gstpinnedcudacontext.h>
#endif

#include "gstpinnedbatchdevice.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_batch_device_debug);
#define GST_CAT_DEFAULT gst_pinned_batch_device_debug

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_pinned_batch_device_debug, "pinnedbatch", 0,
        "many streams into one tensor on the GPU");
    g_once_init_leave (&done, 1);
  }
}

/* The context (shared or new, announced) and the element's stream; posts
 * an error where there is none and @report. */
gboolean
gst_pinned_batch_device_open (GstPinnedBatchDevice * self,
    GstElement * element, gint device_id, gboolean report)
{
  GError *error = NULL;
  gboolean ok;

  if (self->stream)
    return TRUE;

  init_debug ();
#ifdef HAVE_CUDA_INTEROP
  ok = gst_pinned_cuda_ensure_element_context (element, device_id,
      &self->context, &error);
#else
  ok = gst_pinned_ensure_element_context (element, device_id,
      &self->context, &error);
#endif
  if (!ok && !report) {
    g_clear_error (&error);
    return FALSE;
  }
  if (!ok) {
    if (error == NULL)
      g_set_error (&error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
          "No CUDA device found");
    gst_pinned_error_post_device (element, device_id, &error);
    return FALSE;
  }

  self->stream = gst_pinned_stream_new (self->context, &error);
  if (self->stream == NULL) {
    GST_PINNED_ELEMENT_ERROR (element, error, "Could not create a CUDA stream");
    g_clear_error (&error);
    return FALSE;
  }
  self->host_allocator = gst_pinned_host_allocator_new (self->context);
  self->device_allocator = gst_pinned_device_allocator_new (self->context);

  GST_INFO_OBJECT (element, "using CUDA device %d (%s)",
      gst_pinned_context_get_device_id (self->context),
      gst_pinned_context_get_device_name (self->context));
  return TRUE;
}

void
gst_pinned_batch_device_close (GstPinnedBatchDevice * self)
{
  gst_clear_object (&self->host_allocator);
  gst_clear_object (&self->device_allocator);
  gst_clear_pinned_stream (&self->stream);
  gst_clear_object (&self->context);
}

gboolean
gst_pinned_batch_device_handle_query (GstPinnedBatchDevice * self,
    GstElement * element, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  if (gst_pinned_handle_context_query (element, query, self->context))
    return TRUE;
#ifdef HAVE_CUDA_INTEROP
  if (gst_pinned_cuda_handle_context_query (element, query, self->context))
    return TRUE;
#endif
  return FALSE;
}

void
gst_pinned_batch_device_set_context (GstPinnedBatchDevice * self,
    GstElement * element, GstContext * context, gint device_id)
{
  gst_pinned_handle_set_context (element, context, device_id, &self->context);
#ifdef HAVE_CUDA_INTEROP
  gst_pinned_cuda_handle_set_context (element, context, device_id,
      &self->context);
#endif
}

/* The output's pool: @n buffers of @size bytes of device memory, active;
 * %NULL after an element error of @element where it cannot be had. */
GstBufferPool *
gst_pinned_batch_device_new_pool (GstPinnedBatchDevice * self,
    GstElement * element, gsize size, guint n)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GError *error = NULL;

  gst_buffer_pool_config_set_params (config, NULL, size, n, n);
  gst_buffer_pool_config_set_allocator (config, self->device_allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_pinned_allocator_take_error (GST_PINNED_ALLOCATOR
        (self->device_allocator), &error);
    GST_PINNED_ELEMENT_ERROR (element, error,
        "Could not allocate CUDA device memory for the batches");
    g_clear_error (&error);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}
