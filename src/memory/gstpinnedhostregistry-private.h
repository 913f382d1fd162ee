/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: what kind of host memory a foreign GstMemory is, and
 * the registration cache that page-locks upstream memory that comes back. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedcontext.h"

G_BEGIN_DECLS

typedef struct _GstPinnedHostRegistry GstPinnedHostRegistry;

/* How a copy may use a host memory that is not gst-pinned memory. */
typedef enum
{
  /* Pageable: only through staging (ours or CUDA's). */
  GST_PINNED_HOST_PAGEABLE,
  /* Page-locked by another owner (cudaHostAlloc, a registration of the
   * application's): the whole memory is DMA-able, but nothing tells its
   * owner when a copy is done with it. */
  GST_PINNED_HOST_FOREIGN_LOCKED,
  /* Registered by a registry: the page-aligned interior
   * [locked, locked + locked_size) is DMA-able; the partial pages at the
   * ends are not. */
  GST_PINNED_HOST_REGISTERED,
} GstPinnedHostKind;

/* When to page-lock pageable memory. */
typedef enum
{
  /* Never: only classify. */
  GST_PINNED_REGISTER_NEVER,
  /* Memory seen before: its owner recycles it. */
  GST_PINNED_REGISTER_RECYCLED,
  /* At first sight. */
  GST_PINNED_REGISTER_ALWAYS,
} GstPinnedRegisterPolicy;

G_GNUC_INTERNAL
GstPinnedHostRegistry * gst_pinned_host_registry_new   (GstPinnedContext * context,
                                                        gsize max_bytes);

G_GNUC_INTERNAL
GstPinnedHostRegistry * gst_pinned_host_registry_ref   (GstPinnedHostRegistry * registry);

G_GNUC_INTERNAL
void                    gst_pinned_host_registry_unref (GstPinnedHostRegistry * registry);

G_GNUC_INTERNAL
void                    gst_pinned_host_registry_set_max_bytes (GstPinnedHostRegistry * registry,
                                                        gsize max_bytes);

/* Bytes registered by @registry and not yet unregistered. */
G_GNUC_INTERNAL
gsize                   gst_pinned_host_registry_get_bytes (GstPinnedHostRegistry * registry);

/* Classifies @mem, mapped at @data (gst_memory_map()'s pointer), for a
 * copy; @registry may be NULL (classify only). The answer is kept on the
 * memory (its root, for shares), so that a memory is queried once in its
 * life. Registration follows @policy and the registry's byte bound; it
 * lasts as long as the memory: it is dropped when the memory is freed. For
 * GST_PINNED_HOST_REGISTERED, @locked and @locked_size give the
 * page-locked part of [data, data + size). */
G_GNUC_INTERNAL
GstPinnedHostKind       gst_pinned_host_registry_classify (GstPinnedHostRegistry * registry,
                                                        GstMemory * mem,
                                                        const guint8 * data,
                                                        gsize size,
                                                        GstPinnedRegisterPolicy policy,
                                                        const guint8 ** locked,
                                                        gsize * locked_size);

G_END_DECLS
