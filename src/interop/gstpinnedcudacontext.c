/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedcudacontext
 * @title: GstCudaContext interop
 * @short_description: one CUDA context with GStreamer's nvcodec elements
 *
 * GStreamer's NVIDIA elements (nvh264dec, nvh265dec, cudaupload,
 * cudadownload, cudaconvert, the encoders) share a #GstCudaContext through
 * #GstContext of type `gst.cuda.context`. gst-pinned elements take part in
 * it next to their own `gst.pinned.context`, in both directions:
 *
 * - When an nvcodec element made its context first, gst-pinned adopts it:
 *   gst_pinned_context_new_from_cuda_context() makes a #GstPinnedContext
 *   whose pushes make that CUDA context current, so that gst-pinned's
 *   streams, events, allocations and copies live in it and its device
 *   pointers are valid for them.
 * - When gst-pinned is first, it wraps the device's primary context (the
 *   one the CUDA runtime and most CUDA libraries use) in a #GstCudaContext
 *   (gst_pinned_context_get_cuda_context()), answers `gst.cuda.context`
 *   queries with it and announces it, so that nvcodec elements join it.
 *
 * Only in builds with the cuda-interop option. The calls here are those of
 * GStreamer 1.22's libgstcuda-1.0, which every later version keeps.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudautils.h>

#include "interop/gstpinnedcudacontext-private.h"
#include "interop/gstpinneddriver-private.h"

GST_PINNED_DEBUG_CATEGORY_SHARED (gst_pinned_cuda_context_debug,
    "pinnedcudacontext", "gst-pinned GstCudaContext interop",
    gst_pinned_cuda_context_init_debug);
#define GST_CAT_DEFAULT gst_pinned_cuda_context_debug

/* On a GstPinnedContext: its GstCudaContext (adopted, or the wrapper of its
 * primary context), held. On a GstCudaContext: a weak reference back, so
 * that adopting it again gives the same GstPinnedContext. */
static GQuark cuda_quark;
static GQuark pinned_quark;
/* Guards those links (elements find contexts under the lock of
 * gstpinnedcontextutils.c). */
static GRecMutex lock;

static void
init_once (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    gst_pinned_cuda_context_init_debug ();
    cuda_quark = g_quark_from_static_string ("GstPinnedCudaContext");
    pinned_quark = g_quark_from_static_string ("GstPinnedCudaContextPinned");
    g_once_init_leave (&once, 1);
  }
}

static void
weak_ref_free (GWeakRef * ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

/* Called with the lock held. */
static void
link_contexts (GstPinnedContext * pinned, GstCudaContext * cuda)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, pinned);
  g_object_set_qdata_full (G_OBJECT (cuda), pinned_quark, ref,
      (GDestroyNotify) weak_ref_free);
  g_object_set_qdata_full (G_OBJECT (pinned), cuda_quark,
      gst_object_ref (cuda), gst_object_unref);
}

/**
 * gst_pinned_context_new_from_cuda_context:
 * @cuda_context: a #GstCudaContext, made by an nvcodec element or by the
 *   application
 * @error: (out) (optional): why it cannot be used
 *
 * Adopts @cuda_context: gst_pinned_context_push() of the result makes its
 * CUDA context current, so that gst-pinned works in it. The result holds
 * @cuda_context. Adopting the same #GstCudaContext again, while the result
 * lives, gives the same #GstPinnedContext.
 *
 * Returns: (transfer full) (nullable): the #GstPinnedContext of
 *   @cuda_context
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_context_new_from_cuda_context (GstCudaContext * cuda_context,
    GError ** error)
{
  GstPinnedContext *pinned = NULL;
  GWeakRef *ref;
  guint device_id = 0;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (cuda_context), NULL);

  init_once ();
  if (!gst_pinned_driver_load (error))
    return NULL;

  g_rec_mutex_lock (&lock);
  ref = g_object_get_qdata (G_OBJECT (cuda_context), pinned_quark);
  if (ref)
    pinned = g_weak_ref_get (ref);

  if (pinned == NULL) {
    g_object_get (cuda_context, "cuda-device-id", &device_id, NULL);
    pinned = gst_pinned_context_new_for_handle (device_id,
        gst_cuda_context_get_handle (cuda_context), G_OBJECT (cuda_context),
        error);
    if (pinned) {
      link_contexts (pinned, cuda_context);
      GST_INFO ("adopted %" GST_PTR_FORMAT " (device %u) as %" GST_PTR_FORMAT,
          cuda_context, device_id, pinned);
    }
  }
  g_rec_mutex_unlock (&lock);

  return pinned;
}

static void
wrapper_gone (gpointer device, GObject * wrapper)
{
  GST_DEBUG ("wrapper of the primary context of device %d gone",
      GPOINTER_TO_INT (device));
  gst_pinned_driver_release_primary (GPOINTER_TO_INT (device));
}

/**
 * gst_pinned_context_get_cuda_context:
 * @context: a #GstPinnedContext
 *
 * The #GstCudaContext that nvcodec elements use to share @context's CUDA
 * context: the one @context adopted, or else a wrapper of the device's
 * primary context, made on first use (it holds the primary context until
 * its last reference goes).
 *
 * Returns: (transfer full) (nullable): the #GstCudaContext, or %NULL where
 *   @context has no CUDA driver context (no driver library)
 *
 * Since: 0.1
 */
GstCudaContext *
gst_pinned_context_get_cuda_context (GstPinnedContext * context)
{
  GstCudaContext *cuda;
  gpointer handle, retained;
  gint device_id;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  init_once ();
  handle = gst_pinned_context_get_handle (context);
  if (handle == NULL)
    return NULL;

  g_rec_mutex_lock (&lock);
  cuda = g_object_get_qdata (G_OBJECT (context), cuda_quark);
  if (cuda == NULL) {
    /* Not adopted, so the context holds the primary context: the wrapper
     * takes its own reference to it, as it may outlive @context in an
     * nvcodec element. */
    device_id = gst_pinned_context_get_device_id (context);
    if (gst_pinned_driver_retain_primary (device_id, &retained, NULL)) {
      cuda = retained == handle ?
          gst_cuda_context_new_wrapped (handle, device_id) : NULL;
      if (cuda) {
        g_object_weak_ref (G_OBJECT (cuda), wrapper_gone,
            GINT_TO_POINTER (device_id));
        link_contexts (context, cuda);
        /* The qdata holds it now. */
        gst_object_unref (cuda);
        GST_INFO ("wrapped primary context %p of device %d in %"
            GST_PTR_FORMAT, handle, device_id, cuda);
      } else {
        gst_pinned_driver_release_primary (device_id);
      }
    }
  }
  if (cuda)
    gst_object_ref (cuda);
  g_rec_mutex_unlock (&lock);

  return cuda;
}
