/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/pinned/gstpinnedcuda.h"

static GstResourceError
resource_error_from_cuda (cudaError_t result)
{
  switch (result) {
    case cudaErrorMemoryAllocation:
      return GST_RESOURCE_ERROR_NO_SPACE_LEFT;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return GST_RESOURCE_ERROR_NOT_FOUND;
    case cudaErrorInvalidDevice:
      return GST_RESOURCE_ERROR_SETTINGS;
    default:
      return GST_RESOURCE_ERROR_FAILED;
  }
}

gboolean
_gst_pinned_cuda_result (cudaError_t result, GstDebugCategory * category,
    const gchar * file, const gchar * function, gint line, GError ** error)
{
  const gchar *name, *text;

  if (result == cudaSuccess)
    return TRUE;

  name = cudaGetErrorName (result);
  text = cudaGetErrorString (result);

  /* A query that finds work still running is no failure. */
  if (result == cudaErrorNotReady) {
    gst_debug_log (category, GST_LEVEL_LOG, file, function, line, NULL,
        "CUDA: %s", name);
    return FALSE;
  }
#ifndef GST_DISABLE_GST_DEBUG
  gst_debug_log (category, GST_LEVEL_ERROR, file, function, line, NULL,
      "CUDA call failed: %s (%d): %s", name, (gint) result, text);
#endif

  if (error != NULL && *error == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, resource_error_from_cuda (result),
        "CUDA error %s (%d): %s (%s:%d, %s)", name, (gint) result, text,
        file, line, function);
  }

  return FALSE;
}
