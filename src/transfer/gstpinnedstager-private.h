/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: copies between pageable host memory and the device
 * through page-locked staging memory of our own, the CPU side on several
 * threads, overlapped with the DMA chunk by chunk. */

#pragma once

#include "gstpinned-private.h"
#include "gst/pinned/gstpinnedstream.h"
#include "gst/pinned/gstpinnedfence.h"

G_BEGIN_DECLS

typedef struct _GstPinnedStager GstPinnedStager;

G_GNUC_INTERNAL
GstPinnedStager * gst_pinned_stager_new          (GstPinnedContext * context);

/* Joins the threads and frees the staging memory (after its copies). */
G_GNUC_INTERNAL
void              gst_pinned_stager_free         (GstPinnedStager * stager);

/* The thread count @n_threads (0: automatic) stands for. */
G_GNUC_INTERNAL
guint             gst_pinned_stager_resolve_threads (guint n_threads);

/* 0: as many as the machine has cores, at most 8. The calling thread is
 * one of them. */
G_GNUC_INTERNAL
void              gst_pinned_stager_set_threads  (GstPinnedStager * stager,
                                                  guint n_threads);

G_GNUC_INTERNAL
guint             gst_pinned_stager_get_threads  (GstPinnedStager * stager);

/* Threads now running (0 after gst_pinned_stager_stop()). */
G_GNUC_INTERNAL
guint             gst_pinned_stager_get_running_threads (GstPinnedStager * stager);

/* Staging memory comes from @allocator (a GstPinnedHostAllocator, whose
 * flags it takes: write-combined suits the upload side). */
G_GNUC_INTERNAL
void              gst_pinned_stager_set_allocator (GstPinnedStager * stager,
                                                   GstAllocator * allocator);

/* Joins the worker threads and gives back every source they copied; the
 * next copy starts them again. */
G_GNUC_INTERNAL
void              gst_pinned_stager_stop         (GstPinnedStager * stager);

/* Gives back the sources that detached copies are done with (a buffer of
 * no pool waits for this, on the calling thread). Without waiting. */
G_GNUC_INTERNAL
void              gst_pinned_stager_release_done (GstPinnedStager * stager);

/* Reserves @bytes of staging memory for the copies of one frame; waits
 * only when every staging buffer is still read or written by an earlier
 * frame's copies. */
G_GNUC_INTERNAL
gboolean          gst_pinned_stager_begin        (GstPinnedStager * stager,
                                                  gsize bytes,
                                                  GError ** error);

/* Host to device: copies @size bytes of @src (inside @map, a memory of
 * @owner) into staging and enqueues its DMA to @dst on @stream. Where
 * there are threads and several chunks (and @owner has a pool, or its
 * memory is at most 16 MiB), the threads copy detached: the call returns
 * at once, @owner is kept until they are done (one of no pool until
 * gst_pinned_stager_release_done() or _stop() after that), and the DMA
 * waits for them on @stream. Else the calling thread copies too and each
 * chunk's DMA is enqueued as soon as the chunk has landed. */
G_GNUC_INTERNAL
gboolean          gst_pinned_stager_upload       (GstPinnedStager * stager,
                                                  GstPinnedStream * stream,
                                                  gpointer dst,
                                                  const guint8 * src,
                                                  gsize size,
                                                  const GstMapInfo * map,
                                                  GstBuffer * owner,
                                                  GError ** error);

/* Copies the memory of @map (of @owner) into staging and returns the
 * page-locked copy, for copies that change the layout, enqueued on
 * @stream after this call: they read it once the threads are done (as in
 * gst_pinned_stager_upload()). */
G_GNUC_INTERNAL
const guint8 *    gst_pinned_stager_stage        (GstPinnedStager * stager,
                                                  GstPinnedStream * stream,
                                                  const GstMapInfo * map,
                                                  GstBuffer * owner,
                                                  GError ** error);

/* Device to host: enqueues the DMA of @size bytes of @src into staging
 * chunk by chunk on @stream, and copies each chunk into @dst on the
 * threads as soon as its DMA has landed. Returns when @dst holds them. */
G_GNUC_INTERNAL
gboolean          gst_pinned_stager_download     (GstPinnedStager * stager,
                                                  GstPinnedStream * stream,
                                                  guint8 * dst,
                                                  gconstpointer src,
                                                  gsize size,
                                                  GError ** error);

/* Staging memory for the caller's own DMA (a 2D copy): @size bytes,
 * page-locked. */
G_GNUC_INTERNAL
guint8 *          gst_pinned_stager_reserve      (GstPinnedStager * stager,
                                                  gsize size,
                                                  GError ** error);

/* Copies @rows rows of @width bytes from page-locked @staging to pageable
 * @dst on the threads; the caller has waited for the DMA that wrote
 * @staging. */
G_GNUC_INTERNAL
void              gst_pinned_stager_copy_out     (GstPinnedStager * stager,
                                                  guint8 * dst,
                                                  gsize dpitch,
                                                  const guint8 * staging,
                                                  gsize spitch,
                                                  gsize width,
                                                  guint rows);

/* @fence follows every copy of the frame: the staging memory used since
 * gst_pinned_stager_begin() is not written again before it signals.
 * @fence may be NULL when the frame failed (the memory is then waited for
 * on its next use through a fence recorded now, if any). */
G_GNUC_INTERNAL
void              gst_pinned_stager_finish       (GstPinnedStager * stager,
                                                  GstPinnedFence * fence);

G_END_DECLS
