/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The CUDA-facing part of the API: it includes the CUDA runtime headers, so
 * it stays out of pinned.h and out of the introspection data. */

#pragma once

#include <gst/pinned/pinned.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

GST_PINNED_API
gboolean _gst_pinned_cuda_result (cudaError_t result,
                                  GstDebugCategory * category,
                                  const gchar * file,
                                  const gchar * function,
                                  gint line,
                                  GError ** error);

/**
 * gst_pinned_cuda_result:
 * @result: the #cudaError_t a CUDA runtime call returned
 * @error: (out) (optional): where to put a #GError describing a failure
 *
 * Checks the result of one CUDA runtime call. A failure is logged in the
 * calling file's debug category with file, line, the CUDA error name and its
 * description, and described in @error (domain %GST_RESOURCE_ERROR) so that
 * an element can turn it into a GST_ELEMENT_ERROR with
 * GST_PINNED_ELEMENT_ERROR(). %cudaErrorNotReady is not logged as a failure.
 *
 * Every CUDA runtime call of gst-pinned goes through this macro.
 *
 * Returns: %TRUE when @result is %cudaSuccess
 *
 * Since: 0.1
 */
#define gst_pinned_cuda_result(result, error) \
  _gst_pinned_cuda_result ((result), GST_CAT_DEFAULT, __FILE__, GST_FUNCTION, \
      __LINE__, (error))

/**
 * gst_pinned_stream_get_cuda_stream:
 * @stream: a #GstPinnedStream
 *
 * Returns: the CUDA stream of @stream
 *
 * Since: 0.1
 */
static inline cudaStream_t
gst_pinned_stream_get_cuda_stream (GstPinnedStream * stream)
{
  return (cudaStream_t) gst_pinned_stream_get_handle (stream);
}

/**
 * gst_pinned_fence_get_cuda_event:
 * @fence: a #GstPinnedFence
 *
 * Returns: the CUDA event of @fence
 *
 * Since: 0.1
 */
static inline cudaEvent_t
gst_pinned_fence_get_cuda_event (GstPinnedFence * fence)
{
  return (cudaEvent_t) gst_pinned_fence_get_handle (fence);
}

G_END_DECLS
