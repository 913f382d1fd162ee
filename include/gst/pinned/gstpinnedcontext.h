/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/pinned/pinned-prelude.h>

G_BEGIN_DECLS

/**
 * GST_PINNED_CONTEXT_TYPE:
 *
 * The #GstContext type that carries a #GstPinnedContext between the elements
 * of a pipeline, and from an application to a pipeline.
 *
 * Since: 0.1
 */
#define GST_PINNED_CONTEXT_TYPE "gst.pinned.context"

/**
 * GST_PINNED_DEVICE_ID_ANY:
 *
 * A device-id that takes the device of a neighbouring element's context, or
 * the current CUDA device when there is none.
 *
 * Since: 0.1
 */
#define GST_PINNED_DEVICE_ID_ANY (-1)

#define GST_TYPE_PINNED_CONTEXT (gst_pinned_context_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedContext, gst_pinned_context, GST,
    PINNED_CONTEXT, GstObject);

GST_PINNED_API
GstPinnedContext * gst_pinned_context_new              (gint device_id,
                                                         GError ** error);

GST_PINNED_API
gint               gst_pinned_context_get_device_id    (GstPinnedContext * context);

GST_PINNED_API
const gchar *      gst_pinned_context_get_device_name  (GstPinnedContext * context);

GST_PINNED_API
gpointer           gst_pinned_context_get_handle       (GstPinnedContext * context);

GST_PINNED_API
gboolean           gst_pinned_context_push             (GstPinnedContext * context,
                                                         GError ** error);

GST_PINNED_API
void               gst_pinned_context_pop              (GstPinnedContext * context);

GST_PINNED_API
GstContext *       gst_context_new_pinned_context      (GstPinnedContext * pinned_context);

GST_PINNED_API
gboolean           gst_context_get_pinned_context      (GstContext * context,
                                                         GstPinnedContext ** pinned_context);

GST_PINNED_API
gboolean           gst_pinned_find_element_context     (GstElement * element,
                                                         gint device_id,
                                                         GstPinnedContext ** pinned_context);

GST_PINNED_API
gboolean           gst_pinned_ensure_element_context   (GstElement * element,
                                                         gint device_id,
                                                         GstPinnedContext ** pinned_context,
                                                         GError ** error);

GST_PINNED_API
gboolean           gst_pinned_handle_set_context       (GstElement * element,
                                                         GstContext * context,
                                                         gint device_id,
                                                         GstPinnedContext ** pinned_context);

GST_PINNED_API
gboolean           gst_pinned_handle_context_query     (GstElement * element,
                                                         GstQuery * query,
                                                         GstPinnedContext * pinned_context);

/**
 * GST_PINNED_ELEMENT_ERROR:
 * @element: the #GstElement posting the error
 * @error: a #GError from a gst-pinned call (domain %GST_RESOURCE_ERROR)
 * @text: the message for the user, a string
 *
 * Posts an error message on @element's bus: @text for the user, and the CUDA
 * detail that @error carries (call, error name and description, file and
 * line) as the debug string.
 *
 * Since: 0.1
 */
#define GST_PINNED_ELEMENT_ERROR(element, error, text) G_STMT_START {      \
  GError *_pinned_err = (error);                                          \
  gst_element_message_full (GST_ELEMENT (element), GST_MESSAGE_ERROR,     \
      _pinned_err ? _pinned_err->domain : GST_RESOURCE_ERROR,             \
      _pinned_err ? _pinned_err->code : GST_RESOURCE_ERROR_FAILED,        \
      g_strdup (text),                                                     \
      g_strdup (_pinned_err ? _pinned_err->message : "unknown failure"),  \
      __FILE__, GST_FUNCTION, __LINE__);                                   \
} G_STMT_END

G_END_DECLS
