/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Upstream that does not write into the page-locked pool offered to it:
 * telling its frames, and naming the element that makes them, for a
 * message that asks the user to move an element next to it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinnedupstream.h"

/* Host memory that is not gst-pinned memory: upstream did not write into
 * the offered pool. */
gboolean
gst_pinned_upstream_is_pageable (GstBuffer * inbuf)
{
  guint i, n = gst_buffer_n_memory (inbuf);

  for (i = 0; i < n; i++) {
    if (!gst_is_pinned_memory (gst_buffer_peek_memory (inbuf, i)))
      return TRUE;
  }
  return FALSE;
}

/* Elements that hand on the ALLOCATION query and the buffers as they are:
 * the element that wrote the frames is further up. */
static gboolean
passes_buffers_on (GstElement * element)
{
  GstElementFactory *factory = gst_element_get_factory (element);
  const gchar *name = factory ? GST_OBJECT_NAME (factory) : "";

  return g_str_equal (name, "queue") || g_str_equal (name, "queue2") ||
      g_str_equal (name, "capsfilter");
}

/* The element that sends the frames: the peer of the sink pad, seen
 * through ghost pads, queues and capsfilters (whose names go to @via). */
gchar *
gst_pinned_upstream_name (GstPad * sinkpad)
{
  GstPad *pad = gst_pad_get_peer (sinkpad);
  GString *via = g_string_new (NULL);
  gchar *name = NULL;
  guint hops;

  for (hops = 0; pad != NULL && name == NULL && hops < 32; hops++) {
    GstElement *parent;
    GstPad *next = NULL;

    if (GST_IS_GHOST_PAD (pad)) {
      /* A bin's source pad: the pad of the element inside. */
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
    } else if (GST_IS_PROXY_PAD (pad)) {
      /* Inside a bin: the bin's sink pad, and its peer outside. */
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));

      if (ghost) {
        next = gst_pad_get_peer (GST_PAD (ghost));
        gst_object_unref (ghost);
      }
    } else if ((parent = gst_pad_get_parent_element (pad)) == NULL) {
      name = g_strdup_printf ("the pad %s:%s", GST_DEBUG_PAD_NAME (pad));
    } else if (passes_buffers_on (parent)) {
      GstPad *sink = gst_element_get_static_pad (parent, "sink");

      g_string_append_printf (via, "%s%s", via->len ? ", " : "",
          GST_OBJECT_NAME (parent));
      if (sink) {
        next = gst_pad_get_peer (sink);
        gst_object_unref (sink);
      }
      gst_object_unref (parent);
    } else {
      name = g_strdup_printf ("%s (%s)", GST_OBJECT_NAME (parent),
          G_OBJECT_TYPE_NAME (parent));
      gst_object_unref (parent);
    }
    gst_object_unref (pad);
    pad = next;
  }
  gst_clear_object (&pad);

  if (name == NULL)
    name = g_strdup ("upstream");
  if (via->len)
    g_string_prepend (via, " through ");
  g_string_prepend (via, name);
  g_free (name);

  return g_string_free (via, FALSE);
}
