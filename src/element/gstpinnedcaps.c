/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Caps helpers of gst-pinned's elements. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/pinned/gstpinnedbasetransform.h"

/**
 * gst_pinned_caps_set_memory_feature:
 * @caps: (transfer none): caps
 * @feature: (nullable): a memory caps feature, %NULL for system memory
 *
 * Returns: (transfer full): a copy of @caps with every structure's
 *   features replaced by @feature; ANY caps stay ANY
 *
 * Since: 0.1
 */
GstCaps *
gst_pinned_caps_set_memory_feature (GstCaps * caps, const gchar * feature)
{
  GstCaps *ret;
  guint i, n;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  ret = gst_caps_copy (caps);
  if (gst_caps_is_any (ret))
    return ret;

  n = gst_caps_get_size (ret);
  for (i = 0; i < n;) {
    GstStructure *s = gst_caps_get_structure (ret, i);
    guint j;

    gst_caps_set_features (ret, i,
        gst_caps_features_new (feature ? feature :
            GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
    /* Structures that differed in their features only are now the same:
     * gst_caps_simplify() would merge them too, but costs milliseconds
     * on two equal lists of formats, at every caps query. */
    for (j = 0; j < i && !gst_structure_is_equal (s,
            gst_caps_get_structure (ret, j)); j++);
    if (j < i) {
      gst_caps_remove_structure (ret, i);
      n--;
    } else {
      i++;
    }
  }

  return gst_caps_simplify (ret);
}
