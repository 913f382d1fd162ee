/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The element errors of gst-pinned's elements: the words for the user
 * (what failed, what to do about it: a device that reports an error left
 * by earlier GPU work means a restart) with the CUDA detail in the debug
 * string, and the one call that posts a frame's failure. They take the
 * element, its stream and its context, never the base class, whose
 * methods (gst_pinned_base_transform_error_text()) call them. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnederror-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_pinned_error_debug);
#define GST_CAT_DEFAULT gst_pinned_error_debug

/* The category of the CUDA calls that word a message */
static void
ensure_debug_category (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_pinned_error_debug, "pinnederror", 0,
        "gst-pinned element errors");
    g_once_init_leave (&once, 1);
  }
}

/* The element message when no device opens: what the user can do about it
 * (install or update the driver, pick an existing device-id). The failure
 * itself, with its call, is in the debug string; this second query only
 * words the message, like gst_pinned_cuda_driver_problem()'s own. */
static gchar *
device_text (gint device_id)
{
  gint n_devices = 0;
  cudaError_t result;
  const gchar *problem;

  ensure_debug_category ();
  result = cudaGetDeviceCount (&n_devices);
  gst_pinned_cuda_result (result, NULL);
  problem = gst_pinned_cuda_driver_problem (result);

  if (problem != NULL)
    return g_strdup_printf ("No usable CUDA device. %s", problem);
  if (device_id < 0)
    return g_strdup ("No usable CUDA device");
  if (result == cudaSuccess && device_id >= n_devices)
    return g_strdup_printf ("device-id is %d, but this machine has %d CUDA "
        "device%s (numbered from 0)", device_id, n_devices,
        n_devices == 1 ? "" : "s");

  return g_strdup_printf ("The CUDA device of device-id %d is not usable",
      device_id);
}

/**
 * gst_pinned_error_post_device:
 * @element: the element whose device does not open
 * @device_id: the device it asked for (-1: any)
 * @error: (inout) (transfer full): why it does not open, with the CUDA
 *   detail; cleared
 *
 * Posts an element error that says what the user can do (install or update
 * the driver, pick an existing device-id), with @error's detail in the
 * debug string, as gst-pinned's elements do when no device opens.
 *
 * Since: 0.2
 */
void
gst_pinned_error_post_device (GstElement * element, gint device_id,
    GError ** error)
{
  gchar *text = device_text (device_id);

  GST_PINNED_ELEMENT_ERROR (element, *error, text);
  g_free (text);
  g_clear_error (error);
}

/* Errors after which CUDA cannot use the device in this process any more:
 * the CUDA documentation says of each that "the process must be
 * terminated and relaunched". Every later call reports them. */
static gboolean
is_sticky_error (cudaError_t result)
{
  switch (result) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return TRUE;
    default:
      return FALSE;
  }
}

/* The error earlier GPU work left on the device, cudaSuccess if none: the
 * element's stream reports it (it is asked only after a failure). */
static cudaError_t
device_error (GstPinnedStream * stream, GstPinnedContext * context)
{
  cudaError_t result;

  ensure_debug_category ();
  if (stream == NULL || !gst_pinned_context_push (context, NULL))
    return cudaSuccess;
  result = cudaStreamQuery (gst_pinned_stream_get_cuda_stream (stream));
  _gst_pinned_cuda_result (result, "cudaStreamQuery", GST_CAT_DEFAULT,
      __FILE__, GST_FUNCTION, __LINE__, NULL);
  gst_pinned_context_pop (context);

  return is_sticky_error (result) ? result : cudaSuccess;
}

gchar *
gst_pinned_error_frame_text (GstPinnedStream * stream,
    GstPinnedContext * context, const GError * error, const gchar * what)
{
  cudaError_t result;

  result = device_error (stream, context);
  if (result != cudaSuccess)
    return g_strdup_printf ("%s: the GPU reported an error in earlier work "
        "(%s: %s). CUDA cannot use the device in this process any more: "
        "restart the application", what, cudaGetErrorName (result),
        cudaGetErrorString (result));

  if (error && g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT))
    return g_strdup_printf ("%s: %s", what, error->message);

  return g_strdup (what);
}

void
gst_pinned_error_post_frame (GstElement * element, GstPinnedStream * stream,
    GstPinnedContext * context, GError ** error, const gchar * what)
{
  gchar *text = gst_pinned_error_frame_text (stream, context, *error, what);

  GST_PINNED_ELEMENT_ERROR (element, *error, text);
  g_free (text);
  g_clear_error (error);
}
