/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: the fences of one gst-pinned memory
 * (gstpinnedmemoryfences.c), for the memory and its allocator. */

#pragma once

#include "sync/gstpinnedfence-private.h"
#include "gst/pinned/gstpinnedmemory.h"

G_BEGIN_DECLS

/* Embedded in the memory's allocation (its allocator's
 * GstPinnedMemoryImpl); only gstpinnedmemoryfences.c reads it. */
struct _GstPinnedMemoryPrivate
{
  GMutex lock;
  GstPinnedFence *writer;
  GPtrArray *readers;
};

/* The fences of @mem: its own, or for a share its parent's. */
G_GNUC_INTERNAL
GstPinnedMemoryPrivate *gst_pinned_memory_fences_of (GstPinnedMemory * mem);

/* The memory's own (not a share's), as its allocator makes it. */
G_GNUC_INTERNAL
void     gst_pinned_memory_fences_init        (GstPinnedMemoryPrivate * priv);

G_GNUC_INTERNAL
void     gst_pinned_memory_fences_clear       (GstPinnedMemoryPrivate * priv);

/* gst_pinned_memory_sync_stream() */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_fences_sync_stream (GstPinnedMemoryPrivate * priv,
                                               GstMapFlags access,
                                               GstPinnedStream * stream,
                                               GError ** error);

/* gst_pinned_memory_add_fence() */
G_GNUC_INTERNAL
void     gst_pinned_memory_fences_add         (GstPinnedMemoryPrivate * priv,
                                               GstPinnedFence * fence,
                                               GstMapFlags access);

/* The host waits for the fences @access must follow, as a pool's gate
 * where @gate (gst_pinned_fence_wait_gate()), and forgets them once seen
 * signaled; %FALSE only for a read of what failed work should have
 * written. @mem names the memory in the log. */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_fences_wait        (GstPinnedMemoryPrivate * priv,
                                               gpointer mem,
                                               GstMapFlags access,
                                               gboolean gate,
                                               GError ** error);

/* gst_pinned_memory_is_idle() */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_fences_is_idle     (GstPinnedMemoryPrivate * priv,
                                               GstMapFlags access);

/* The writer's fence, referenced, or NULL. */
G_GNUC_INTERNAL
GstPinnedFence *gst_pinned_memory_fences_get_writer (GstPinnedMemoryPrivate * priv);

G_END_DECLS
