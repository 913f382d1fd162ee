/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * plugin-pinned:
 *
 * Host to CUDA device transfers from page-locked memory, with fences
 * instead of synchronisation.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/pinned/pinned.h>

#include "gstpinnedupload.h"
#include "gstpinneddownload.h"
#include "gstpinnedconvert.h"
#include "gstpinnedbusy.h"
#include "gstpinnedbatch.h"
#include "gstpinnedbatchpad.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  /* The library's base classes are documented with the plugin. Marked
   * here, not in their class_init: that also runs where GStreamer is not
   * initialised (the introspection scanner), and marking needs it. */
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_BASE_TRANSFORM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_COPY_TRANSFORM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_FILTER, 0);
  /* The enum of their device-alloc property, documented with its values
   * (as pageable-mode's, which the upload marks). */
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_DEVICE_ALLOC, 0);
  /* pinnedbatch's pads and enums */
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_BATCH_PAD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_BATCH_TYPE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_PINNED_BATCH_ORDER, 0);

  ret |= GST_ELEMENT_REGISTER (pinnedupload, plugin);
  ret |= GST_ELEMENT_REGISTER (pinneddownload, plugin);
  ret |= GST_ELEMENT_REGISTER (pinnedconvert, plugin);
  ret |= GST_ELEMENT_REGISTER (pinnedbusy, plugin);
  ret |= GST_ELEMENT_REGISTER (pinnedbatch, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, pinned,
    "Page-locked host and CUDA device memory transfers with fences",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
