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
#include <gst/pinned/gstpinnedstream.h>

G_BEGIN_DECLS

typedef struct _GstPinnedFence GstPinnedFence;

#define GST_TYPE_PINNED_FENCE (gst_pinned_fence_get_type ())
GST_PINNED_API
GType            gst_pinned_fence_get_type        (void);

GST_PINNED_API
GstPinnedFence * gst_pinned_stream_record_fence   (GstPinnedStream * stream,
                                                   GError ** error);

GST_PINNED_API
gboolean         gst_pinned_fence_is_signaled     (GstPinnedFence * fence);

GST_PINNED_API
gboolean         gst_pinned_fence_wait            (GstPinnedFence * fence,
                                                   GError ** error);

GST_PINNED_API
gboolean         gst_pinned_fence_wait_on_stream  (GstPinnedFence * fence,
                                                   GstPinnedStream * stream,
                                                   GError ** error);

GST_PINNED_API
void             gst_pinned_fence_get_host_waits  (guint64 * waits,
                                                   guint64 * questions,
                                                   guint64 * ns);

GST_PINNED_API
gpointer         gst_pinned_fence_get_handle      (GstPinnedFence * fence);

GST_PINNED_API
gpointer         gst_pinned_fence_get_stream_handle (GstPinnedFence * fence);

/**
 * gst_pinned_fence_get_cuda_event:
 * @fence: a #GstPinnedFence
 *
 * The `cudaEvent_t` of @fence, for code that includes the CUDA runtime
 * headers (a macro, so that this header does not need them).
 *
 * Since: 0.1
 */
#define gst_pinned_fence_get_cuda_event(fence) \
  ((cudaEvent_t) gst_pinned_fence_get_handle (fence))

/**
 * gst_pinned_fence_ref:
 * @fence: a #GstPinnedFence
 *
 * Returns: (transfer full): @fence
 *
 * Since: 0.1
 */
static inline GstPinnedFence *
gst_pinned_fence_ref (GstPinnedFence * fence)
{
  return (GstPinnedFence *) gst_mini_object_ref ((GstMiniObject *) fence);
}

/**
 * gst_pinned_fence_unref:
 * @fence: (transfer full): a #GstPinnedFence
 *
 * Since: 0.1
 */
static inline void
gst_pinned_fence_unref (GstPinnedFence * fence)
{
  gst_mini_object_unref ((GstMiniObject *) fence);
}

static inline void
gst_clear_pinned_fence (GstPinnedFence ** fence_ptr)
{
  gst_clear_mini_object ((GstMiniObject **) fence_ptr);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstPinnedFence, gst_pinned_fence_unref)

G_END_DECLS
