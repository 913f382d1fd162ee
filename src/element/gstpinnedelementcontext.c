/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Which device context a gst-pinned element joins, and when: at start,
 * upstream's CUDA context where its input may be CUDA memory, else its
 * device-id's or a neighbour's (of either type); at caps time, upstream's
 * for CUDA input; and its answers to the asks of its neighbours and of
 * the application, for both context types. How a context is found and
 * shared (queries, messages, the lock) is gstpinnedcontextutils.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "element/gstpinnedelementcontext-private.h"
#ifdef HAVE_CUDA_INTEROP
#include "interop/gstpinnedcudacontext-private.h"
#include "gst/pinned/gstpinnedcudamemory.h"
#endif

void
gst_pinned_element_context_set (GstElement * element, GstContext * context,
    gint device_id, GstPinnedContext ** pinned)
{
  gst_pinned_handle_set_context (element, context, device_id, pinned);
#ifdef HAVE_CUDA_INTEROP
  gst_pinned_cuda_handle_set_context (element, context, device_id, pinned);
#endif
}

gboolean
gst_pinned_element_context_query (GstElement * element, GstQuery * query,
    GstPinnedContext * pinned)
{
  if (gst_pinned_handle_context_query (element, query, pinned))
    return TRUE;
#ifdef HAVE_CUDA_INTEROP
  if (gst_pinned_cuda_handle_context_query (element, query, pinned))
    return TRUE;
#endif
  return FALSE;
}

/* Shared or new; with CUDA interop, nvcodec's contexts take part. */
gboolean
gst_pinned_element_context_ensure (GstElement * element, gint device_id,
    GstPinnedContext ** pinned, GError ** error)
{
#ifdef HAVE_CUDA_INTEROP
  return gst_pinned_cuda_ensure_element_context (element, device_id, pinned,
      error);
#else
  return gst_pinned_ensure_element_context (element, device_id, pinned, error);
#endif
}

#ifdef HAVE_CUDA_INTEROP
/* Whether the sink pad's template takes CUDA memory. */
static gboolean
takes_cuda_input (GstBaseTransform * element)
{
  GstCaps *caps =
      gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (element));
  gboolean ret = gst_pinned_caps_is_cuda (caps);

  gst_caps_unref (caps);
  return ret;
}
#endif

gboolean
gst_pinned_element_context_find_at_start (GstBaseTransform * element,
    gint device_id, GstPinnedContext ** pinned)
{
#ifdef HAVE_CUDA_INTEROP
  /* Where the input may be CUDA memory, upstream's context before any
   * other: downstream may have another (an element with a device-id that
   * takes the frames to another GPU), in which the input's pointers are
   * not valid. */
  if (takes_cuda_input (element) &&
      gst_pinned_cuda_find_upstream_context (GST_ELEMENT (element), pinned))
    return TRUE;
#endif
  if (device_id != GST_PINNED_DEVICE_ID_ANY ||
      gst_pinned_find_element_context (GST_ELEMENT (element),
          GST_PINNED_DEVICE_ID_ANY, pinned))
    return TRUE;
#ifdef HAVE_CUDA_INTEROP
  /* An nvcodec neighbour that opened its device at NULL to READY (decoders
   * do) has a context by now: join it. */
  if (gst_pinned_cuda_find_element_context (GST_ELEMENT (element), FALSE,
          pinned))
    return TRUE;
#endif
  return FALSE;
}

void
gst_pinned_element_context_find_for_caps (GstElement * element,
    GstCaps * incaps, GstPinnedContext ** pinned)
{
#ifdef HAVE_CUDA_INTEROP
  /* CUDA memory in: its device pointers are valid in upstream's context
   * only, so that one comes first. */
  if (*pinned == NULL && gst_pinned_caps_is_cuda (incaps))
    gst_pinned_cuda_find_upstream_context (element, pinned);
#endif
}
