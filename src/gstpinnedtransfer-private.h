/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of the frame transfer: what the base class of the
 * elements needs to keep its statistics. */

#pragma once

#include "gstpinnedpageable-private.h"
#include "gst/pinned/gstpinnedtransfer.h"

G_BEGIN_DECLS

/* What one transfer did, and the timing events to record around its
 * copies. */
typedef struct
{
  /* In: when set, recorded on the stream after its waits for the buffers'
   * earlier users and after the copies, so that they time the copies. */
  cudaEvent_t start;
  cudaEvent_t end;

  /* Out: the bytes the copies moved, and the host memories that were no
   * gst-pinned memory, by the way they went (GST_PINNED_PATH_PINNED stays
   * 0). */
  guint64 bytes;
  guint paths[GST_PINNED_PATH_LAST];
} GstPinnedTransferReport;

/* gst_pinned_transfer_video_frame_full(), filling @report. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_video_frame_report (GstPinnedStream * stream,
                                                 const GstVideoInfo * info,
                                                 GstBuffer * src,
                                                 GstBuffer * dst,
                                                 GstPinnedPageable * pageable,
                                                 GstPinnedTransferReport * report,
                                                 GError ** error);

/* Whether the frame of @info, laid out as @buffer's GstVideoMeta (or @info)
 * says, lies within @buffer; @what names the buffer in the error. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_check_layout       (GstBuffer * buffer,
                                                 const GstVideoInfo * info,
                                                 const gchar * what,
                                                 GError ** error);

G_END_DECLS
