/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: the project's environment variables
 * (gstpinnedenv.c). */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

/* The value of the project's environment variable @name (GST_PINNED_...),
 * or %NULL where it is unset or empty (gstpinnedenv.c). */
G_GNUC_INTERNAL
const gchar *        gst_pinned_env_get             (const gchar * name);

/* What a variable's value (%NULL where unset or empty) sets. */
typedef gsize (*GstPinnedEnvParse) (const gchar * value);

/* Reads @name once for the life of the process: @cache, a static that is
 * 0 at first, keeps what @parse made of it. */
G_GNUC_INTERNAL
gsize                gst_pinned_env_once            (gsize * cache,
                                                     const gchar * name,
                                                     GstPinnedEnvParse parse);

G_END_DECLS
