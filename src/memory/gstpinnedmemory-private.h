/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of GstPinnedMemory. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedmemory.h"

G_BEGIN_DECLS

/* The mem_type strings of gst-pinned's allocators: gst_is_pinned_memory()
 * compares a memory's allocator's mem_type with them (an address, not the
 * text) before it falls back to a type check. */
G_GNUC_INTERNAL extern const gchar gst_pinned_host_memory_type[];
G_GNUC_INTERNAL extern const gchar gst_pinned_device_memory_type[];

/* Wrapped storage (@mem of gst_pinned_allocator_wrap() with a notify):
 * when @mem is freed while GPU work on it still runs, its notify is called
 * on a release thread once that work is done, not after a wait on the
 * thread that frees it. For storage whose owner may take it back from any
 * thread (an application's tensor). */
G_GNUC_INTERNAL
void                 gst_pinned_memory_release_later (GstPinnedMemory * mem);

/* Allocates one block for the next @n allocations of at most @maxsize
 * bytes (prefix and padding included) of @allocator: each is a piece of
 * it, 256-byte aligned, with fences of its own, and the block is freed
 * with the last of them. A buffer pool reserves its buffers when it
 * starts: one allocation instead of @n, and frames whose buffers lie next
 * to each other in both pools of a transfer go to the GPU as one copy.
 * Replaces an earlier reservation. */
G_GNUC_INTERNAL
gboolean             gst_pinned_allocator_reserve (GstPinnedAllocator * allocator,
                                                    guint n,
                                                    gsize maxsize,
                                                    GError ** error);

/* Ends the reservation: later allocations have storage of their own. The
 * block lives on while its pieces do; one no allocation took is freed. */
G_GNUC_INTERNAL
void                 gst_pinned_allocator_unreserve (GstPinnedAllocator * allocator);

/* The reserved block @mem is a piece of (not referenced), or NULL */
G_GNUC_INTERNAL
GstMemory *          gst_pinned_memory_get_block (GstPinnedMemory * mem);

/* Whether @mem is the last piece of its block */
G_GNUC_INTERNAL
gboolean             gst_pinned_memory_ends_block (GstPinnedMemory * mem);

G_END_DECLS
