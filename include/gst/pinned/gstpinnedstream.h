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
#include <gst/pinned/gstpinnedcontext.h>

G_BEGIN_DECLS

typedef struct _GstPinnedStream GstPinnedStream;

#define GST_TYPE_PINNED_STREAM (gst_pinned_stream_get_type ())
GST_PINNED_API
GType              gst_pinned_stream_get_type     (void);

GST_PINNED_API
GstPinnedStream *  gst_pinned_stream_new          (GstPinnedContext * context,
                                                   GError ** error);

GST_PINNED_API
GstPinnedStream *  gst_pinned_stream_new_wrapped  (GstPinnedContext * context,
                                                   gpointer handle);

GST_PINNED_API
gpointer           gst_pinned_stream_get_handle   (GstPinnedStream * stream);

GST_PINNED_API
GstPinnedContext * gst_pinned_stream_get_context  (GstPinnedStream * stream);

GST_PINNED_API
gboolean           gst_pinned_stream_synchronize  (GstPinnedStream * stream,
                                                   GError ** error);

/**
 * gst_pinned_stream_get_cuda_stream:
 * @stream: a #GstPinnedStream
 *
 * The `cudaStream_t` of @stream, for code that includes the CUDA runtime
 * headers (a macro, so that this header does not need them).
 *
 * Since: 0.1
 */
#define gst_pinned_stream_get_cuda_stream(stream) \
  ((cudaStream_t) gst_pinned_stream_get_handle (stream))

/**
 * gst_pinned_stream_ref:
 * @stream: a #GstPinnedStream
 *
 * Returns: (transfer full): @stream
 *
 * Since: 0.1
 */
static inline GstPinnedStream *
gst_pinned_stream_ref (GstPinnedStream * stream)
{
  return (GstPinnedStream *) gst_mini_object_ref ((GstMiniObject *) stream);
}

/**
 * gst_pinned_stream_unref:
 * @stream: (transfer full): a #GstPinnedStream
 *
 * Since: 0.1
 */
static inline void
gst_pinned_stream_unref (GstPinnedStream * stream)
{
  gst_mini_object_unref ((GstMiniObject *) stream);
}

static inline void
gst_clear_pinned_stream (GstPinnedStream ** stream_ptr)
{
  gst_clear_mini_object ((GstMiniObject **) stream_ptr);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstPinnedStream, gst_pinned_stream_unref)

G_END_DECLS
