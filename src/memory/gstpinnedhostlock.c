/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Host memory page-locked and unlocked the one way gst-pinned does it
 * (cudaHostAlloc() and cudaFreeHost(), cudaHostRegister() and
 * cudaHostUnregister()), and counted: the bytes page-locked in this
 * process now, which gst_pinned_host_memory_get_locked_bytes() reports. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "memory/gstpinnedhostlock-private.h"

/* Atomic: the bytes page-locked by gst-pinned in this process now. */
static gint64 locked_bytes;

static void
count_locked (gint64 bytes)
{
  __atomic_add_fetch (&locked_bytes, bytes, __ATOMIC_RELAXED);
}

gboolean
gst_pinned_host_lock_alloc (gpointer * data, gsize size, guint flags,
    GError ** error)
{
  if (!gst_pinned_cuda_result (cudaHostAlloc (data, size, flags), error))
    return FALSE;
  count_locked (size);
  return TRUE;
}

void
gst_pinned_host_lock_free (gpointer data, gsize size)
{
  gst_pinned_cuda_result (cudaFreeHost (data), NULL);
  count_locked (-(gint64) size);
}

gboolean
gst_pinned_host_lock_register (gpointer data, gsize size, guint flags,
    GError ** error)
{
  if (!gst_pinned_cuda_result (cudaHostRegister (data, size, flags), error))
    return FALSE;
  count_locked (size);
  return TRUE;
}

void
gst_pinned_host_lock_unregister (gpointer data, gsize size)
{
  gst_pinned_cuda_result (cudaHostUnregister (data), NULL);
  count_locked (-(gint64) size);
}

guint64
gst_pinned_host_lock_get_bytes (void)
{
  gint64 bytes = __atomic_load_n (&locked_bytes, __ATOMIC_RELAXED);

  return bytes > 0 ? (guint64) bytes : 0;
}
