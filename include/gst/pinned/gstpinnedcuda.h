/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The ground floor of the library: the check every CUDA runtime call goes
 * through. It includes the CUDA runtime headers, so it stays out of
 * pinned.h and out of the introspection data, and it includes nothing of
 * gst-pinned: every other file builds on it. */

#pragma once

#include <gst/pinned/pinned-prelude.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

GST_PINNED_API
gboolean _gst_pinned_cuda_result (cudaError_t result,
                                  const gchar * call,
                                  GstDebugCategory * category,
                                  const gchar * file,
                                  const gchar * function,
                                  gint line,
                                  GError ** error);

GST_PINNED_API
const gchar * gst_pinned_cuda_driver_problem (cudaError_t result);

/**
 * gst_pinned_cuda_result:
 * @result: a CUDA runtime call, or the #cudaError_t it returned
 * @error: (out) (optional): where to put a #GError describing a failure
 *
 * Checks the result of one CUDA runtime call. A failure is logged in the
 * calling file's debug category with the call, file, line, the CUDA error
 * name and its description, and described in @error (domain
 * %GST_RESOURCE_ERROR) so that an element can turn it into a
 * GST_ELEMENT_ERROR with GST_PINNED_ELEMENT_ERROR(). When @result is the
 * call itself (`gst_pinned_cuda_result (cudaMalloc (&p, n), error)`), the
 * message names it. %cudaErrorNotReady is not logged as a failure.
 *
 * Every CUDA runtime call of gst-pinned goes through this macro.
 *
 * Returns: %TRUE when @result is %cudaSuccess
 *
 * Since: 0.1
 */
#define gst_pinned_cuda_result(result, error) \
  _gst_pinned_cuda_result ((result), #result, GST_CAT_DEFAULT, __FILE__, \
      GST_FUNCTION, __LINE__, (error))

G_END_DECLS
