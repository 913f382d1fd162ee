/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The one result helper of every CUDA runtime call: a cudaError_t as a
 * GError of GStreamer's resource domain, with the call's name and, for a
 * machine without a usable driver, what to do about it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

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

/**
 * gst_pinned_cuda_driver_problem:
 * @result: an error of a CUDA runtime call
 *
 * CUDA reports a machine without any NVIDIA driver and one whose driver is
 * too old for the runtime with the same error,
 * %cudaErrorInsufficientDriver. This tells them apart (the runtime reports
 * driver version 0 when it finds no driver at all) and says what a user
 * can do about either.
 *
 * Returns: (nullable): a sentence for the user, or %NULL when @result is no
 *   driver problem
 *
 * Since: 0.1
 */
const gchar *
gst_pinned_cuda_driver_problem (cudaError_t result)
{
  int driver = 0;

  switch (result) {
    case cudaErrorInsufficientDriver:
      /* Reports 0, with success, when no driver library can be loaded. */
      if (cudaDriverGetVersion (&driver) != cudaSuccess || driver == 0)
        return "No NVIDIA driver was found (libcuda.so.1 cannot be loaded): "
            "install the NVIDIA driver, or run on a machine with an NVIDIA "
            "GPU";
      return "The NVIDIA driver is older than the CUDA runtime gst-pinned "
          "was built with: update the driver";
    case cudaErrorNoDevice:
      return "The NVIDIA driver found no CUDA device";
    default:
      return NULL;
  }
}

/* "cudaMalloc (&p, n)" -> "cudaMalloc"; an expression that is no call
 * (a variable holding a result) names none. */
static gchar *
call_name (const gchar * call)
{
  gsize len = strcspn (call, " (");

  if (call[len] == '\0')
    return NULL;
  return g_strndup (call, len);
}

gboolean
_gst_pinned_cuda_result (cudaError_t result, const gchar * call,
    GstDebugCategory * category, const gchar * file, const gchar * function,
    gint line, GError ** error)
{
  const gchar *name, *text, *problem;
  gchar *what;

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

  what = call_name (call);
#ifndef GST_DISABLE_GST_DEBUG
  gst_debug_log (category, GST_LEVEL_ERROR, file, function, line, NULL,
      "%s failed: %s (%d): %s", what ? what : "CUDA call", name, (gint) result,
      text);
#endif

  if (error != NULL && *error == NULL) {
    problem = gst_pinned_cuda_driver_problem (result);
    g_set_error (error, GST_RESOURCE_ERROR, resource_error_from_cuda (result),
        "%s%s%s failed: %s (%d): %s (%s:%d, %s)", problem ? problem : "",
        problem ? ". " : "", what ? what : "CUDA call", name, (gint) result,
        text, file, line, function);
  }
  g_free (what);

  return FALSE;
}
