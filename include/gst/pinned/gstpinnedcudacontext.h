/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* CUDA interop, the context: one CUDA context shared with GStreamer's
 * nvcodec elements (GstCudaContext of libgstcuda-1.0). Only in builds with
 * the cuda-interop option; it includes libgstcuda's headers, so it is not
 * in pinned.h nor in the introspection data. */

#pragma once

#include <gst/pinned/gstpinnedcontext.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

GST_PINNED_API
GstPinnedContext * gst_pinned_context_new_from_cuda_context (GstCudaContext * cuda_context,
                                                             GError ** error);

GST_PINNED_API
GstCudaContext *   gst_pinned_context_get_cuda_context      (GstPinnedContext * context);

GST_PINNED_API
gboolean           gst_pinned_cuda_handle_set_context       (GstElement * element,
                                                             GstContext * context,
                                                             gint device_id,
                                                             GstPinnedContext ** pinned_context);

GST_PINNED_API
gboolean           gst_pinned_cuda_handle_context_query     (GstElement * element,
                                                             GstQuery * query,
                                                             GstPinnedContext * pinned_context);

GST_PINNED_API
gboolean           gst_pinned_cuda_find_element_context     (GstElement * element,
                                                             gboolean upstream_first,
                                                             GstPinnedContext ** pinned_context);

GST_PINNED_API
gboolean           gst_pinned_cuda_ensure_element_context   (GstElement * element,
                                                             gint device_id,
                                                             GstPinnedContext ** pinned_context,
                                                             GError ** error);

G_END_DECLS
