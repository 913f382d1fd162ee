/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How elements find, share and adopt their device context through
 * GstContext (queries to the neighbours, NEED_CONTEXT and HAVE_CONTEXT
 * messages to the application): `gst.pinned.context`, and with CUDA
 * interop nvcodec's `gst.cuda.context`, as GStreamer keeps such helpers
 * apart from the objects (gstcudautils.c, gstglutils.c). One lock for
 * both types, held while an element looks, so that the elements of a
 * pipeline that start together share one device context. The context
 * objects are gstpinnedcontext.c and gstpinnedcudacontext.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sync/gstpinnedcontext-private.h"
#ifdef HAVE_CUDA_INTEROP
#include <gst/cuda/gstcudautils.h>

#include "interop/gstpinnedcudacontext-private.h"
#endif

/* Recursive: an element's set_context() handler, which finding calls,
 * adopts what it is given through the helpers below. */
static GRecMutex lock;

/**
 * gst_context_new_pinned_context:
 * @pinned_context: a #GstPinnedContext
 *
 * Returns: (transfer full): a persistent #GstContext of type
 *   %GST_PINNED_CONTEXT_TYPE carrying @pinned_context
 *
 * Since: 0.1
 */
GstContext *
gst_context_new_pinned_context (GstPinnedContext * pinned_context)
{
  GstContext *context;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (pinned_context), NULL);

  context = gst_context_new (GST_PINNED_CONTEXT_TYPE, TRUE);
  gst_structure_set (gst_context_writable_structure (context),
      "context", GST_TYPE_PINNED_CONTEXT, pinned_context,
      "device-id", G_TYPE_INT,
      gst_pinned_context_get_device_id (pinned_context), NULL);

  return context;
}

/**
 * gst_context_get_pinned_context:
 * @context: a #GstContext
 * @pinned_context: (out) (transfer full): the #GstPinnedContext it carries
 *
 * Returns: %TRUE when @context is of type %GST_PINNED_CONTEXT_TYPE and
 *   carries a #GstPinnedContext
 *
 * Since: 0.1
 */
gboolean
gst_context_get_pinned_context (GstContext * context,
    GstPinnedContext ** pinned_context)
{
  const GstStructure *s;

  g_return_val_if_fail (GST_IS_CONTEXT (context), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_PINNED_CONTEXT_TYPE) != 0)
    return FALSE;

  s = gst_context_get_structure (context);
  return gst_structure_get (s, "context", GST_TYPE_PINNED_CONTEXT,
      pinned_context, NULL) && *pinned_context != NULL;
}

/**
 * gst_pinned_handle_set_context:
 * @element: the element whose GstElementClass.set_context() was called
 * @context: (nullable): the #GstContext given to it
 * @device_id: the element's device-id, or %GST_PINNED_DEVICE_ID_ANY
 * @pinned_context: (inout) (transfer full): the element's context
 *
 * Takes the #GstPinnedContext of @context when the element has none yet and
 * the device matches @device_id.
 *
 * Returns: %TRUE when @pinned_context was set from @context
 *
 * Since: 0.1
 */
gboolean
gst_pinned_handle_set_context (GstElement * element, GstContext * context,
    gint device_id, GstPinnedContext ** pinned_context)
{
  GstPinnedContext *other = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  if (context == NULL || *pinned_context != NULL)
    return FALSE;

  if (!gst_context_get_pinned_context (context, &other))
    return FALSE;

  if (device_id != GST_PINNED_DEVICE_ID_ANY
      && gst_pinned_context_get_device_id (other) != device_id) {
    GST_CAT_DEBUG_OBJECT (gst_pinned_context_debug, element,
        "ignoring context of device %d, want %d",
        gst_pinned_context_get_device_id (other), device_id);
    gst_object_unref (other);
    return FALSE;
  }

  GST_CAT_DEBUG_OBJECT (gst_pinned_context_debug, element,
      "using shared context of device %d",
      gst_pinned_context_get_device_id (other));
  *pinned_context = other;
  return TRUE;
}

/**
 * gst_pinned_handle_context_query:
 * @element: the element that received @query
 * @query: a #GST_QUERY_CONTEXT
 * @pinned_context: (nullable): the element's context
 *
 * Answers a neighbour's context query with @pinned_context.
 *
 * Returns: %TRUE when @query was answered
 *
 * Since: 0.1
 */
gboolean
gst_pinned_handle_context_query (GstElement * element, GstQuery * query,
    GstPinnedContext * pinned_context)
{
  const gchar *type;
  GstContext *context;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || pinned_context == NULL)
    return FALSE;

  if (!gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_PINNED_CONTEXT_TYPE) != 0)
    return FALSE;

  context = gst_context_new_pinned_context (pinned_context);
  gst_query_set_context (query, context);
  gst_context_unref (context);

  GST_CAT_DEBUG_OBJECT (gst_pinned_context_debug, element,
      "answered context query with device %d",
      gst_pinned_context_get_device_id (pinned_context));
  return TRUE;
}

static gboolean
query_pads (GstElement * element, GstIterator * it, GstQuery * query)
{
  GValue item = G_VALUE_INIT;
  gboolean answered = FALSE, done = FALSE;

  while (!done && !answered) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:
        answered = gst_pad_peer_query (g_value_get_object (&item), query);
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);

  return answered;
}

/* Asks the peers of @element's pads, downstream first (as GstContext
 * documents) or upstream first; TRUE when one answered @query. */
static gboolean
query_neighbours (GstElement * element, GstQuery * query,
    gboolean upstream_first)
{
  if (upstream_first)
    return query_pads (element, gst_element_iterate_sink_pads (element), query)
        || query_pads (element, gst_element_iterate_src_pads (element), query);

  return query_pads (element, gst_element_iterate_src_pads (element), query) ||
      query_pads (element, gst_element_iterate_sink_pads (element), query);
}

/* The context a peer answered @query with reaches the element through
 * gst_element_set_context(), whose handler takes it or not (another
 * device). Takes @query; returns whether a peer had one. */
static gboolean
take_answer (GstElement * element, GstQuery * query, gboolean answered)
{
  GstContext *context = NULL;

  if (answered) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_element_set_context (element, context);
  }
  gst_query_unref (query);

  return context != NULL;
}

/* Asks the neighbours for a context of @type. */
static gboolean
ask_neighbours (GstElement * element, const gchar * type,
    gboolean upstream_first)
{
  GstQuery *query = gst_query_new_context (type);

  return take_answer (element, query,
      query_neighbours (element, query, upstream_first));
}

/* Then the application: the order GstContext documents. */
static void
ask_application (GstElement * element, const gchar * type)
{
  gst_element_post_message (element,
      gst_message_new_need_context (GST_OBJECT_CAST (element), type));
}

/**
 * gst_pinned_find_element_context:
 * @element: the element that needs a device
 * @device_id: its device-id, or %GST_PINNED_DEVICE_ID_ANY
 * @pinned_context: (inout) (transfer full): the element's context
 *
 * Looks for a #GstPinnedContext of the right device at the neighbours and
 * the application, creating none.
 *
 * Returns: %TRUE when @pinned_context is set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_find_element_context (GstElement * element, gint device_id,
    GstPinnedContext ** pinned_context)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  g_type_ensure (GST_TYPE_PINNED_CONTEXT);

  g_rec_mutex_lock (&lock);
  if (*pinned_context == NULL &&
      !ask_neighbours (element, GST_PINNED_CONTEXT_TYPE, FALSE))
    ask_application (element, GST_PINNED_CONTEXT_TYPE);
  g_rec_mutex_unlock (&lock);

  return *pinned_context != NULL;
}

/**
 * gst_pinned_ensure_element_context:
 * @element: the element that needs a device
 * @device_id: its device-id, or %GST_PINNED_DEVICE_ID_ANY
 * @pinned_context: (inout) (transfer full): the element's context
 * @error: (out) (optional): why no device could be opened
 *
 * Makes sure @pinned_context is set: shared from a neighbour or the
 * application if one has a context of the right device, else newly created
 * and announced to the pipeline with #GST_MESSAGE_HAVE_CONTEXT.
 *
 * Returns: %TRUE when @pinned_context is set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_ensure_element_context (GstElement * element, gint device_id,
    GstPinnedContext ** pinned_context, GError ** error)
{
  GstContext *context;
  GstPinnedContext *created;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  g_rec_mutex_lock (&lock);
  if (gst_pinned_find_element_context (element, device_id, pinned_context)) {
    g_rec_mutex_unlock (&lock);
    return TRUE;
  }

  created = gst_pinned_context_new (device_id, error);
  if (created == NULL) {
    g_rec_mutex_unlock (&lock);
    return FALSE;
  }

  context = gst_context_new_pinned_context (created);
  /* Through set_context, so that the element stores it as shared ones. */
  gst_element_set_context (element, context);
  if (*pinned_context == NULL)
    *pinned_context = gst_object_ref (created);
  gst_object_unref (created);

  GST_CAT_INFO_OBJECT (gst_pinned_context_debug, element,
      "created context for device %d",
      gst_pinned_context_get_device_id (*pinned_context));
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT_CAST (element), context));
  g_rec_mutex_unlock (&lock);

  return TRUE;
}

#ifdef HAVE_CUDA_INTEROP
/**
 * gst_pinned_cuda_handle_set_context:
 * @element: the element whose GstElementClass.set_context() was called
 * @context: (nullable): the #GstContext given to it
 * @device_id: the element's device-id, or %GST_PINNED_DEVICE_ID_ANY
 * @pinned_context: (inout) (transfer full): the element's context
 *
 * Adopts the #GstCudaContext of a `gst.cuda.context` @context when the
 * element has no context yet and the device matches @device_id.
 *
 * Returns: %TRUE when @pinned_context was set from @context
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_handle_set_context (GstElement * element,
    GstContext * context, gint device_id, GstPinnedContext ** pinned_context)
{
  GstCudaContext *cuda = NULL;
  GstPinnedContext *adopted;
  GError *error = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  if (context == NULL || *pinned_context != NULL ||
      g_strcmp0 (gst_context_get_context_type (context),
          GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;

  gst_pinned_cuda_context_init_debug ();
  if (!gst_cuda_handle_set_context (element, context, device_id, &cuda) ||
      cuda == NULL) {
    GST_CAT_DEBUG_OBJECT (gst_pinned_cuda_context_debug, element,
        "CUDA context of another device, ignored");
    return FALSE;
  }

  adopted = gst_pinned_context_new_from_cuda_context (cuda, &error);
  gst_object_unref (cuda);
  if (adopted == NULL) {
    GST_CAT_WARNING_OBJECT (gst_pinned_cuda_context_debug, element,
        "cannot use the pipeline's CUDA context: %s", error->message);
    g_clear_error (&error);
    return FALSE;
  }

  GST_CAT_DEBUG_OBJECT (gst_pinned_cuda_context_debug, element,
      "using the pipeline's CUDA context, device %d",
      gst_pinned_context_get_device_id (adopted));
  *pinned_context = adopted;
  return TRUE;
}

/**
 * gst_pinned_cuda_handle_context_query:
 * @element: the element that received @query
 * @query: a #GST_QUERY_CONTEXT
 * @pinned_context: (nullable): the element's context
 *
 * Answers a neighbour's `gst.cuda.context` query with the #GstCudaContext
 * of @pinned_context.
 *
 * Returns: %TRUE when @query was answered
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_handle_context_query (GstElement * element, GstQuery * query,
    GstPinnedContext * pinned_context)
{
  GstCudaContext *cuda;
  const gchar *type;
  gboolean ret;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || pinned_context == NULL ||
      !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;

  cuda = gst_pinned_context_get_cuda_context (pinned_context);
  if (cuda == NULL)
    return FALSE;

  ret = gst_cuda_handle_context_query (element, query, cuda);
  GST_CAT_DEBUG_OBJECT (gst_pinned_cuda_context_debug, element,
      "answered CUDA context query with %" GST_PTR_FORMAT, cuda);
  gst_object_unref (cuda);

  return ret;
}

/**
 * gst_pinned_cuda_find_element_context:
 * @element: the element that needs a device
 * @upstream_first: ask upstream before downstream (for an element whose
 *   input is CUDA memory: its context is upstream's)
 * @pinned_context: (inout) (transfer full): the element's context
 *
 * Looks for a `gst.cuda.context` at the neighbours, then at the
 * application (#GST_MESSAGE_NEED_CONTEXT); one that is found reaches the
 * element through gst_element_set_context(), whose handler adopts it with
 * gst_pinned_cuda_handle_set_context(). Creates none.
 *
 * Returns: %TRUE when @pinned_context is set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_find_element_context (GstElement * element,
    gboolean upstream_first, GstPinnedContext ** pinned_context)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  gst_pinned_cuda_context_init_debug ();
  g_rec_mutex_lock (&lock);
  if (*pinned_context == NULL) {
    /* Unlike ours, asked for where a neighbour's was another device's. */
    ask_neighbours (element, GST_CUDA_CONTEXT_TYPE, upstream_first);
    if (*pinned_context == NULL)
      ask_application (element, GST_CUDA_CONTEXT_TYPE);
  }
  g_rec_mutex_unlock (&lock);

  return *pinned_context != NULL;
}

/* Asks upstream only for a context of @type. */
static gboolean
ask_upstream (GstElement * element, const gchar * type)
{
  GstQuery *query = gst_query_new_context (type);

  return take_answer (element, query, query_pads (element,
          gst_element_iterate_sink_pads (element), query));
}

/* A `gst.pinned.context`, then a `gst.cuda.context`, of upstream only:
 * the device pointers of CUDA memory are valid in upstream's context
 * alone, so an element whose input may be CUDA memory asks here before
 * anything else (downstream, the application, a device of its own). */
gboolean
gst_pinned_cuda_find_upstream_context (GstElement * element,
    GstPinnedContext ** pinned_context)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  g_type_ensure (GST_TYPE_PINNED_CONTEXT);
  gst_pinned_cuda_context_init_debug ();
  g_rec_mutex_lock (&lock);
  if (*pinned_context == NULL)
    ask_upstream (element, GST_PINNED_CONTEXT_TYPE);
  if (*pinned_context == NULL)
    ask_upstream (element, GST_CUDA_CONTEXT_TYPE);
  g_rec_mutex_unlock (&lock);

  return *pinned_context != NULL;
}

/**
 * gst_pinned_cuda_ensure_element_context:
 * @element: the element that needs a device
 * @device_id: its device-id, or %GST_PINNED_DEVICE_ID_ANY
 * @pinned_context: (inout) (transfer full): the element's context
 * @error: (out) (optional): why no device could be opened
 *
 * gst_pinned_ensure_element_context() that also takes part in
 * `gst.cuda.context`: it takes a `gst.pinned.context` of the neighbours or
 * the application, else a `gst.cuda.context` of theirs, and only then
 * opens the device. A context it opens is announced as both types, so that
 * gst-pinned and nvcodec elements started later join it.
 *
 * Returns: %TRUE when @pinned_context is set
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_ensure_element_context (GstElement * element, gint device_id,
    GstPinnedContext ** pinned_context, GError ** error)
{
  GstCudaContext *cuda;
  GstContext *context;
  gboolean ok = TRUE;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (pinned_context != NULL, FALSE);

  gst_pinned_cuda_context_init_debug ();
  g_rec_mutex_lock (&lock);
  if (*pinned_context == NULL &&
      !gst_pinned_find_element_context (element, device_id, pinned_context) &&
      !gst_pinned_cuda_find_element_context (element, FALSE, pinned_context)) {
    ok = gst_pinned_ensure_element_context (element, device_id,
        pinned_context, error);
    cuda = ok ? gst_pinned_context_get_cuda_context (*pinned_context) : NULL;
    if (cuda) {
      context = gst_context_new_cuda_context (cuda);
      gst_element_set_context (element, context);
      GST_CAT_INFO_OBJECT (gst_pinned_cuda_context_debug, element,
          "announcing %" GST_PTR_FORMAT, cuda);
      gst_element_post_message (element,
          gst_message_new_have_context (GST_OBJECT_CAST (element), context));
      gst_object_unref (cuda);
    }
  }
  g_rec_mutex_unlock (&lock);

  return ok;
}
#endif
