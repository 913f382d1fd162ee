/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal side of the GstCudaContext interop (cuda-interop
 * builds only). */

#pragma once

#include "sync/gstpinnedcontext-private.h"
#include "gst/pinned/gstpinnedcudacontext.h"

G_BEGIN_DECLS

/* gstpinnedcudacontext.c and the element helpers (gstpinnedcontextutils.c)
 * log as "pinnedcudacontext". */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_cuda_context_debug);

G_GNUC_INTERNAL
void               gst_pinned_cuda_context_init_debug (void);

/* For an element whose input may be CUDA memory: upstream's context
 * (gstpinnedcontextutils.c). */
G_GNUC_INTERNAL
gboolean           gst_pinned_cuda_find_upstream_context (GstElement * element,
                                                          GstPinnedContext ** pinned_context);

G_END_DECLS
