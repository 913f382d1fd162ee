/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedcontext
 * @title: GstPinnedContext
 * @short_description: the CUDA device of a pipeline
 *
 * A #GstPinnedContext names one CUDA device. Elements find it through #GstContext, so that
 * `pinnedupload` and `pinneddownload` in one pipeline use the same device:
 * an element asks its neighbours (a #GST_QUERY_CONTEXT downstream, then
 * upstream), then the application (#GST_MESSAGE_NEED_CONTEXT), and only then
 * creates one and announces it (#GST_MESSAGE_HAVE_CONTEXT).
 *
 * An application picks the device for a whole pipeline with
 * gst_element_set_context() and gst_context_new_pinned_context().
 *
 * Where gst-pinned is built with CUDA interop (and a CUDA driver is
 * present), a context also holds a CUDA driver context: the device's
 * primary context, or the context of GStreamer's nvcodec elements that it
 * adopted (see gstpinnedcudacontext.h). gst_pinned_context_push() makes
 * that context current, so that every CUDA runtime call of gst-pinned
 * (streams, events, allocations, copies, kernels) runs in it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sync/gstpinnedcontext-private.h"
#ifdef HAVE_CUDA_INTEROP
#include "interop/gstpinneddriver-private.h"
#endif

GST_DEBUG_CATEGORY (gst_pinned_context_debug);
#define GST_CAT_DEFAULT gst_pinned_context_debug

/* Devices made current by gst_pinned_context_push(), so that pop restores
 * what the calling thread had: an application thread may use another
 * device for its own work. */
#define MAX_PUSH_DEPTH 16
static __thread gint push_stack[MAX_PUSH_DEPTH];
static __thread guint push_depth;

struct _GstPinnedContext
{
  GstObject parent;

  gint device_id;
  gchar *device_name;

  /* The CUDA driver context the work runs in (CUcontext), NULL where the
   * runtime picks the device's primary context (built without CUDA
   * interop, or no driver). */
  gpointer handle;
  /* We retained the device's primary context as @handle. */
  gboolean primary;
  /* What keeps an adopted @handle alive (nvcodec's GstCudaContext). */
  GObject *owner;
};

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_DEVICE_NAME,
  PROP_LAST
};

static GParamSpec *properties[PROP_LAST];

#define gst_pinned_context_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstPinnedContext, gst_pinned_context, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_pinned_context_debug, "pinnedcontext", 0,
        "gst-pinned device context"));

static void
gst_pinned_context_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPinnedContext *self = GST_PINNED_CONTEXT (object);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_pinned_context_finalize (GObject * object)
{
  GstPinnedContext *self = GST_PINNED_CONTEXT (object);

  GST_DEBUG_OBJECT (self, "finalize, device %d", self->device_id);

#ifdef HAVE_CUDA_INTEROP
  if (self->primary)
    gst_pinned_driver_release_primary (self->device_id);
#endif
  g_clear_object (&self->owner);
  g_free (self->device_name);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_pinned_context_class_init (GstPinnedContextClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->get_property = gst_pinned_context_get_property;
  gobject_class->finalize = gst_pinned_context_finalize;

  properties[PROP_DEVICE_ID] =
      g_param_spec_int ("device-id", "Device ID", "CUDA device index",
      0, G_MAXINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEVICE_NAME] =
      g_param_spec_string ("device-name", "Device name", "CUDA device name",
      NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, PROP_LAST, properties);
}

static void
gst_pinned_context_init (GstPinnedContext * self)
{
}

static gboolean
check_device (gint * device_id, GError ** error)
{
  gint n_devices = 0;

  if (!gst_pinned_cuda_result (cudaGetDeviceCount (&n_devices), error))
    return FALSE;

  if (n_devices <= 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "No CUDA device found");
    return FALSE;
  }

  if (*device_id == GST_PINNED_DEVICE_ID_ANY) {
    if (!gst_pinned_cuda_result (cudaGetDevice (device_id), error))
      return FALSE;
  }

  if (*device_id < 0 || *device_id >= n_devices) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "CUDA device-id %d does not exist: %d device(s) found", *device_id,
        n_devices);
    return FALSE;
  }

  return TRUE;
}

static GstPinnedContext *
context_new (gint device_id, const struct cudaDeviceProp *props)
{
  GstPinnedContext *self = g_object_new (GST_TYPE_PINNED_CONTEXT, NULL);

  gst_object_ref_sink (self);
  self->device_id = device_id;
  self->device_name = g_strndup (props->name, sizeof (props->name));

  return self;
}

static GstPinnedContext *
context_open (gint device_id, GError ** error)
{
  GstPinnedContext *self;
  struct cudaDeviceProp props;
  gint prev = -1;

  if (!check_device (&device_id, error))
    return NULL;

#ifdef HAVE_CUDA_INTEROP
  /* With a driver, hold the primary context and make it current around
   * every call: a context that nvcodec elements can share, and pushes and
   * pops that nest with theirs. Retaining it initialises it, so that a
   * device that cannot be used fails here, at start. */
  if (gst_pinned_driver_load (NULL)) {
    gpointer handle;

    if (!gst_pinned_cuda_result (cudaGetDeviceProperties (&props, device_id),
            error) ||
        !gst_pinned_driver_retain_primary (device_id, &handle, error))
      return NULL;

    self = context_new (device_id, &props);
    self->handle = handle;
    self->primary = TRUE;
    GST_INFO_OBJECT (self, "opened CUDA device %d: %s, primary context %p",
        device_id, self->device_name, handle);
    return self;
  }
#endif

  /* cudaSetDevice initialises the device's primary context, so that a
   * device that cannot be used fails here, at start, not on a buffer. */
  if (!gst_pinned_cuda_result (cudaGetDevice (&prev), error) ||
      !gst_pinned_cuda_result (cudaSetDevice (device_id), error) ||
      !gst_pinned_cuda_result (cudaGetDeviceProperties (&props, device_id),
          error)) {
    if (prev >= 0)
      cudaSetDevice (prev);
    return NULL;
  }
  if (prev != device_id)
    gst_pinned_cuda_result (cudaSetDevice (prev), NULL);

  self = context_new (device_id, &props);

  GST_INFO_OBJECT (self, "opened CUDA device %d: %s", device_id,
      self->device_name);

  return self;
}

typedef struct
{
  gint device_id;
  GstPinnedContext *context;
  GError *error;
} OpenJob;

static gpointer
open_thread (gpointer data)
{
  OpenJob *job = data;

  job->context = context_open (job->device_id, &job->error);
  return NULL;
}

/**
 * gst_pinned_context_new:
 * @device_id: a CUDA device index, or %GST_PINNED_DEVICE_ID_ANY for the
 *   calling thread's current device
 * @error: (out) (optional): where to describe why the device is unusable
 *
 * Opens a CUDA device: its primary context, the one the CUDA runtime uses.
 * The calls that open it run on a short-lived thread of their own, so that
 * the driver's start-up allocations stay out of the calling thread's malloc
 * arena (a streaming thread's, where a source allocates its frames).
 *
 * Returns: (transfer full) (nullable): a new #GstPinnedContext, or %NULL
 *   when there is no CUDA device, @device_id is out of range, or the device
 *   cannot be initialised.
 *
 * Since: 0.1
 */
GstPinnedContext *
gst_pinned_context_new (gint device_id, GError ** error)
{
  OpenJob job = { device_id, NULL, NULL };
  GThread *thread;

  /* The class init creates the debug category this function logs to. */
  g_type_ensure (GST_TYPE_PINNED_CONTEXT);

  /* The calling thread's device, asked here: it is that thread's. */
  if (device_id == GST_PINNED_DEVICE_ID_ANY &&
      !gst_pinned_cuda_result (cudaGetDevice (&job.device_id), error))
    return NULL;

  /* Opening a device, the CUDA driver allocates about 12 MB of host memory
   * in the calling thread's malloc arena. An element without a device-id
   * opens it at caps time, on the streaming thread, whose arena then had
   * too little room left for a source's frames: multifilesrc !
   * rawvideoparse at 4K allocates two 33 MB blocks a frame, and glibc
   * mapped a fresh heap for them each frame (docs/sources.md). A thread of
   * its own keeps them out of the caller's arena. */
  thread = g_thread_try_new ("pinned-open", open_thread, &job, NULL);
  if (thread)
    g_thread_join (thread);
  else
    job.context = context_open (job.device_id, &job.error);

  if (job.error)
    g_propagate_error (error, job.error);
  return job.context;
}

#ifdef HAVE_CUDA_INTEROP
GstPinnedContext *
gst_pinned_context_new_for_handle (gint device_id, gpointer handle,
    GObject * owner, GError ** error)
{
  GstPinnedContext *self;
  struct cudaDeviceProp props;
  gint current = -1;
  gboolean ok;

  g_type_ensure (GST_TYPE_PINNED_CONTEXT);
  g_return_val_if_fail (handle != NULL, NULL);

  if (!check_device (&device_id, error) ||
      !gst_pinned_cuda_result (cudaGetDeviceProperties (&props, device_id),
          error))
    return NULL;

  /* The runtime works in the context that is current: check that it sees
   * this one's device there. */
  if (!gst_pinned_driver_push (handle, error))
    return NULL;
  ok = gst_pinned_cuda_result (cudaGetDevice (&current), error);
  gst_pinned_driver_pop ();
  if (!ok)
    return NULL;
  if (current != device_id) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "CUDA context %p is said to be of device %d, but the CUDA runtime "
        "finds device %d in it", handle, device_id, current);
    return NULL;
  }

  self = context_new (device_id, &props);
  self->handle = handle;
  self->owner = owner ? g_object_ref (owner) : NULL;

  GST_INFO_OBJECT (self, "adopted CUDA context %p of device %d: %s", handle,
      device_id, self->device_name);

  return self;
}
#endif

/**
 * gst_pinned_context_get_handle:
 * @context: a #GstPinnedContext
 *
 * The CUDA driver context (a `CUcontext`) that gst_pinned_context_push()
 * makes current, for code that mixes gst-pinned with the CUDA driver API or
 * with GStreamer's nvcodec elements.
 *
 * Returns: (transfer none) (nullable): the `CUcontext`, or %NULL where
 *   gst-pinned leaves the choice to the CUDA runtime (the device's primary
 *   context): built without CUDA interop, or no driver library found
 *
 * Since: 0.1
 */
gpointer
gst_pinned_context_get_handle (GstPinnedContext * context)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  return context->handle;
}

/**
 * gst_pinned_context_get_device_id:
 * @context: a #GstPinnedContext
 *
 * Returns: the CUDA device index of @context
 *
 * Since: 0.1
 */
gint
gst_pinned_context_get_device_id (GstPinnedContext * context)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), -1);

  return context->device_id;
}

/**
 * gst_pinned_context_get_device_name:
 * @context: a #GstPinnedContext
 *
 * Returns: (transfer none): the name of the CUDA device of @context
 *
 * Since: 0.1
 */
const gchar *
gst_pinned_context_get_device_name (GstPinnedContext * context)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  return context->device_name;
}

/**
 * gst_pinned_context_push:
 * @context: a #GstPinnedContext
 * @error: (out) (optional): where to describe a failure
 *
 * Makes the device of @context current on the calling thread (its CUDA
 * driver context, where it has one), remembering what was current for
 * gst_pinned_context_pop(). Calls nest.
 *
 * Returns: %TRUE on success; on failure nothing is pushed
 *
 * Since: 0.1
 */
gboolean
gst_pinned_context_push (GstPinnedContext * context, GError ** error)
{
  gint prev = -1;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), FALSE);

#ifdef HAVE_CUDA_INTEROP
  if (context->handle)
    return gst_pinned_driver_push (context->handle, error);
#endif

  g_return_val_if_fail (push_depth < MAX_PUSH_DEPTH, FALSE);

  if (!gst_pinned_cuda_result (cudaGetDevice (&prev), error))
    return FALSE;
  if (prev != context->device_id &&
      !gst_pinned_cuda_result (cudaSetDevice (context->device_id), error))
    return FALSE;

  push_stack[push_depth++] = prev;
  return TRUE;
}

/**
 * gst_pinned_context_pop:
 * @context: the #GstPinnedContext of the matching gst_pinned_context_push()
 *
 * Restores the device that was current before the matching push.
 *
 * Since: 0.1
 */
void
gst_pinned_context_pop (GstPinnedContext * context)
{
  gint prev;

#ifdef HAVE_CUDA_INTEROP
  if (context->handle) {
    gst_pinned_driver_pop ();
    return;
  }
#endif

  g_return_if_fail (push_depth > 0);

  prev = push_stack[--push_depth];
  if (prev >= 0 && prev != context->device_id)
    gst_pinned_cuda_result (cudaSetDevice (prev), NULL);
}
