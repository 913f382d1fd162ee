/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal calls of the copy list: the transfer's files only. */

#pragma once

#include "gstpinned-private.h"

G_BEGIN_DECLS

/* The copies noted for one call to the GPU, with the reserved blocks their
 * ends lie in. */
typedef struct _GstPinnedCopyList GstPinnedCopyList;

G_GNUC_INTERNAL
GstPinnedCopyList *gst_pinned_copy_list_new    (void);

G_GNUC_INTERNAL
void     gst_pinned_copy_list_free             (GstPinnedCopyList * list);

G_GNUC_INTERNAL
guint    gst_pinned_copy_list_get_length       (GstPinnedCopyList * list);

/* Drops the copies from the @n-th on (0: all). */
G_GNUC_INTERNAL
void     gst_pinned_copy_list_set_length       (GstPinnedCopyList * list,
                                                guint n);

/* Notes a copy of @len bytes from @src to @dst. */
G_GNUC_INTERNAL
void     gst_pinned_copy_list_note             (GstPinnedCopyList * list,
                                                gpointer dst,
                                                gconstpointer src,
                                                gsize len,
                                                enum cudaMemcpyKind kind);

/* Marks the copies from @first on as lying in @src_block and @dst_block
 * (the reserved blocks of their ends, or NULL): only copies within the
 * same blocks join. */
G_GNUC_INTERNAL
void     gst_pinned_copy_list_tag_blocks       (GstPinnedCopyList * list,
                                                guint first,
                                                GstMemory * src_block,
                                                GstMemory * dst_block);

/* Joins each copy that continues the one before it on both sides within
 * the same blocks (a copy must not span two allocations); returns the
 * number of copies left. */
G_GNUC_INTERNAL
guint    gst_pinned_copy_list_join             (GstPinnedCopyList * list);

/* Enqueues the first @n copies on @handle in stream order, after the waits
 * enqueued for each frame: one call where the runtime has it, counted in
 * @batch_calls, else one copy each. */
G_GNUC_INTERNAL
gboolean gst_pinned_copy_list_enqueue          (GstPinnedCopyList * list,
                                                guint n,
                                                cudaStream_t handle,
                                                guint * batch_calls,
                                                GError ** error);

G_END_DECLS
