/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedPageable, for the frame transfer. */

#pragma once

#include "memory/gstpinnedhostregistry-private.h"
#include "transfer/gstpinnedstager-private.h"
#include "gst/pinned/gstpinnedpageable.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
GstPinnedHostRegistry * gst_pinned_pageable_get_registry (GstPinnedPageable * self);

G_GNUC_INTERNAL
GstPinnedRegisterPolicy gst_pinned_pageable_get_policy   (GstPinnedPageable * self);

/* The stager, made on first use. */
G_GNUC_INTERNAL
GstPinnedStager *       gst_pinned_pageable_get_stager   (GstPinnedPageable * self);

/* Releases the held buffers whose copies are done, without waiting. */
G_GNUC_INTERNAL
void                    gst_pinned_pageable_release_done (GstPinnedPageable * self);

/* Keeps @buffer (a reference) until @fence has signalled: its memory is
 * page-locked but not gst-pinned memory, so no fence stops its owner from
 * writing or freeing it while the copy reads it. */
G_GNUC_INTERNAL
gboolean                gst_pinned_pageable_hold         (GstPinnedPageable * self,
                                                          GstBuffer * buffer,
                                                          GstPinnedFence * fence,
                                                          GError ** error);

G_GNUC_INTERNAL
void                    gst_pinned_pageable_count        (GstPinnedPageable * self,
                                                          GstPinnedPageablePath path);

G_END_DECLS
