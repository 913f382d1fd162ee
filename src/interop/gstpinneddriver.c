/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The CUDA driver context around our runtime calls, with cuda-interop:
 * nvcodec's context made current (pushed and popped) where the elements
 * share it, and the device's primary context retained where they wrap it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gmodule.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>

#include "interop/gstpinneddriver-private.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_driver_debug, "pinneddriver",
    "gst-pinned CUDA driver calls");
#define GST_CAT_DEFAULT gst_pinned_driver_debug

/* Not wrapped by libgstcuda 1.22: looked up in libcuda.so.1 itself. */
typedef CUresult (*PrimaryRetainFunc) (CUcontext * ctx, CUdevice dev);
typedef CUresult (*PrimaryReleaseFunc) (CUdevice dev);

static PrimaryRetainFunc primary_retain;
static PrimaryReleaseFunc primary_release;
static gboolean loaded;
static gchar *load_failure;

#define driver_result(result, error) \
  _driver_result ((result), #result, __FILE__, GST_FUNCTION, __LINE__, (error))

static gboolean
_driver_result (CUresult result, const gchar * call, const gchar * file,
    const gchar * function, gint line, GError ** error)
{
  const gchar *name = NULL, *text = NULL;
  gchar *what;

  if (result == CUDA_SUCCESS)
    return TRUE;

  CuGetErrorName (result, &name);
  CuGetErrorString (result, &text);
  what = g_strndup (call, strcspn (call, " ("));
  gst_debug_log (GST_CAT_DEFAULT, GST_LEVEL_ERROR, file, function, line, NULL,
      "%s failed: %s (%d): %s", what, GST_STR_NULL (name), (gint) result,
      GST_STR_NULL (text));
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "%s failed: %s (%d): %s (%s:%d, %s)", what, GST_STR_NULL (name),
      (gint) result, GST_STR_NULL (text), file, line, function);
  g_free (what);

  return FALSE;
}

gboolean
gst_pinned_driver_load (GError ** error)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GModule *module;
    CUresult result;

    ensure_debug_category ();
    /* libgstcuda's loader: one vtable of driver calls per process, shared
     * with nvcodec. Opening libcuda.so.1 again only takes a reference. */
    if (!gst_cuda_load_library ()) {
      load_failure = g_strdup ("the CUDA driver library (libcuda.so.1) "
          "could not be loaded");
    } else if ((result = CuInit (0)) != CUDA_SUCCESS) {
      load_failure = g_strdup_printf ("cuInit failed (%d)", (gint) result);
    } else if (!(module = g_module_open ("libcuda.so.1",
                G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL))) {
      load_failure = g_strdup (g_module_error ());
    } else if (!g_module_symbol (module, "cuDevicePrimaryCtxRetain",
            (gpointer *) & primary_retain) ||
        (!g_module_symbol (module, "cuDevicePrimaryCtxRelease_v2",
                (gpointer *) & primary_release) &&
            !g_module_symbol (module, "cuDevicePrimaryCtxRelease",
                (gpointer *) & primary_release))) {
      load_failure = g_strdup (g_module_error ());
      g_module_close (module);
    } else {
      /* Kept open for the life of the process, as libgstcuda keeps it. */
      loaded = TRUE;
    }

    if (loaded)
      GST_INFO ("CUDA driver loaded");
    else
      GST_INFO ("no CUDA driver: %s", load_failure);
    g_once_init_leave (&once, 1);
  }

  if (!loaded)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s", load_failure);

  return loaded;
}

gboolean
gst_pinned_driver_retain_primary (gint device, gpointer * cu_context,
    GError ** error)
{
  CUcontext ctx = NULL;
  CUdevice dev;

  if (!gst_pinned_driver_load (error) ||
      !driver_result (CuDeviceGet (&dev, device), error) ||
      !driver_result (primary_retain (&ctx, dev), error))
    return FALSE;

  GST_DEBUG ("retained primary context %p of device %d", ctx, device);
  *cu_context = ctx;
  return TRUE;
}

void
gst_pinned_driver_release_primary (gint device)
{
  CUdevice dev;

  if (driver_result (CuDeviceGet (&dev, device), NULL))
    driver_result (primary_release (dev), NULL);
}

gboolean
gst_pinned_driver_push (gpointer cu_context, GError ** error)
{
  return driver_result (CuCtxPushCurrent ((CUcontext) cu_context), error);
}

void
gst_pinned_driver_pop (void)
{
  CUcontext ctx;

  driver_result (CuCtxPopCurrent (&ctx), NULL);
}
