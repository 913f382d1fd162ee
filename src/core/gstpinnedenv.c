/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The project's environment variables (GST_PINNED_*), read in one way:
 * unset and empty mean the same, the default. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "core/gstpinnedenv-private.h"

const gchar *
gst_pinned_env_get (const gchar * name)
{
  const gchar *value = g_getenv (name);

  return value && *value ? value : NULL;
}

gsize
gst_pinned_env_once (gsize * cache, const gchar * name, GstPinnedEnvParse parse)
{
  /* 0 is "not read yet" to g_once_init_enter(): keep the answer + 1. */
  if (g_once_init_enter (cache))
    g_once_init_leave (cache, parse (gst_pinned_env_get (name)) + 1);
  return *cache - 1;
}
