/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The state of one frame's copies, for the transfer's own files only:
 * gstpinnedtransfer.c (one frame), gstpinnedmemorykind.c (the kinds of
 * memory it meets), gstpinnedcopylist.c (copies noted for one call) and
 * gstpinnedtransferbatch.c (frames copied together).
 * The rest of the library goes through gstpinnedtransfer-private.h. */

#pragma once

#include "transfer/gstpinnedtransfer-private.h"
#include "sync/gstpinnedfence-private.h"
#include "transfer/gstpinnedcopylist-private.h"

G_BEGIN_DECLS

/* The transfer's files log as "pinnedtransfer". */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_transfer_debug);

G_GNUC_INTERNAL
void     gst_pinned_transfer_init_debug   (void);

#define GST_PINNED_TRANSFER_MAX_MEMORIES 16

typedef struct _GstPinnedMemoryKind GstPinnedMemoryKind;
typedef struct _GstPinnedTransferSide GstPinnedTransferSide;
typedef struct _GstPinnedTransferState GstPinnedTransferState;

/* One side of a transfer, its memories mapped for the duration of the
 * enqueue. */
struct _GstPinnedTransferSide
{
  GstBuffer *buffer;
  guint n_mem;
  GstMapInfo map[GST_PINNED_TRANSFER_MAX_MEMORIES];
  gsize start[GST_PINNED_TRANSFER_MAX_MEMORIES];
  const GstPinnedMemoryKind *kind[GST_PINNED_TRANSFER_MAX_MEMORIES];
  /* A registered memory's page-locked part of the map. */
  const guint8 *locked[GST_PINNED_TRANSFER_MAX_MEMORIES];
  gsize locked_size[GST_PINNED_TRANSFER_MAX_MEMORIES];
  /* Page-locked memory without fences: CUDA copies it asynchronously, and
   * nothing tells its owner when. */
  gboolean unfenced;
  /* Host memory that is not ours (pageable or not). */
  gboolean foreign;
  gint offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
};

/* The state of one frame's transfer. */
struct _GstPinnedTransferState
{
  GstPinnedStream *stream;
  cudaStream_t handle;
  const GstVideoInfo *info;
  GstPinnedPageable *pageable;
  GstPinnedPageableMode mode;
  GstPinnedStager *stager;      /* once staging is reserved */
  GstPinnedTransferReport *report;      /* nullable */
  guint64 bytes;
  /* Set: the copies are noted there (a batch's), not enqueued. */
  GstPinnedCopyList *copies;
  GstPinnedTransferSide in, out;
};

/* Copies @len bytes from @s to @d, one end in memory @i of @side (of this
 * kind, on the host), the other on the device; @upload: @s is the host
 * end. */
typedef gboolean (*GstPinnedMemoryKindCopy) (GstPinnedTransferState * t,
                                             GstPinnedTransferSide * side,
                                             guint i,
                                             guint8 * d,
                                             const guint8 * s,
                                             gsize len,
                                             gboolean upload,
                                             GError ** error);

/* What a kind of memory is to a frame's copy: one row of the table in
 * gstpinnedmemorykind.c. */
struct _GstPinnedMemoryKind
{
  const gchar *name;
  /* Recognises the kind before mapping (gst-pinned memory), or NULL: the
   * kind is the host registry's answer @host for a mapped memory. */
  gboolean (*claims) (GstMemory * mem);
  GstPinnedHostKind host;
  /* Added to the map flags: gst-pinned memory is mapped for the GPU,
   * without a host wait (the stream waits). */
  GstMapFlags map_flags;
  /* Device memory: the other end of a host kind's copy. */
  gboolean device;
  /* gst-pinned memory: its fences tell its later users when a copy is
   * done with it, a batch may take it, and the statistics count it not. */
  gboolean own;
  /* Page-locked without fences: the transfer waits for the copy, or holds
   * the memory, itself. */
  gboolean unfenced;
  /* Goes through our staging (where pageable mode stages): in a copy of
   * the same layout, in a pitched one. */
  gboolean staged_whole;
  gboolean staged_pitched;
  /* How the statistics count it (where it is not our own). */
  GstPinnedPageablePath path;
  /* The copy between it and the device (host kinds). */
  GstPinnedMemoryKindCopy copy;
};

/* gstpinnedmemorykind.c */

/* Whether @mem is of a kind that is our own (gst-pinned memory), told
 * without mapping it. */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_is_own    (GstMemory * mem);

/* Maps @buffer's memories for @access and tells each one's kind. */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_map_side     (GstPinnedTransferState * t,
                                              GstPinnedTransferSide * side,
                                              GstBuffer * buffer,
                                              GstMapFlags access,
                                              GError ** error);

G_GNUC_INTERNAL
void     gst_pinned_memory_kind_unmap_side   (GstPinnedTransferSide * side);

/* Whether every memory of @side is our own (what a batch takes). */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_side_is_own  (GstPinnedTransferSide * side);

/* Counts the way each memory of @side that is not ours went. */
G_GNUC_INTERNAL
void     gst_pinned_memory_kind_count_side   (GstPinnedTransferState * t,
                                              GstPinnedTransferSide * side);

/* The staging bytes @side's memories need, in a @pitched copy or one of
 * the same layout; @other is the other side. */
G_GNUC_INTERNAL
gsize    gst_pinned_memory_kind_side_staging (GstPinnedTransferSide * side,
                                              GstPinnedTransferSide * other,
                                              gboolean pitched);

/* Whether pageable host memory goes through our staging, not CUDA's own
 * (GST_PINNED_PAGEABLE_DIRECT). */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_uses_our_staging (GstPinnedTransferState * t);

G_GNUC_INTERNAL
enum cudaMemcpyKind gst_pinned_memory_kind_copy_kind (gboolean src_device,
                                                      gboolean dst_device);

/* Enqueues one copy of @len bytes on the stream (or notes it in the
 * batch); the DMA engine takes host memory as it is. */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_enqueue_copy (GstPinnedTransferState * t,
                                              guint8 * d,
                                              gboolean d_device,
                                              const guint8 * s,
                                              gboolean s_device,
                                              gsize len,
                                              GError ** error);

/* One piece: bytes [@s, @s + @len) of source memory @i to @d in
 * destination memory @j, the way their kinds copy. */
G_GNUC_INTERNAL
gboolean gst_pinned_memory_kind_copy_piece   (GstPinnedTransferState * t,
                                              guint i,
                                              guint j,
                                              guint8 * d,
                                              const guint8 * s,
                                              gsize len,
                                              GError ** error);

/* gstpinnedtransfer.c */

/* Sets @t up for @src to @dst on @stream, pushes the stream's context
 * and maps both sides; on failure nothing is left mapped or pushed. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_begin        (GstPinnedTransferState * t,
                                           GstPinnedStream * stream,
                                           const GstVideoInfo * info,
                                           GstBuffer * src,
                                           GstBuffer * dst,
                                           GstPinnedPageable * pageable,
                                           GstPinnedCopyList * copies,
                                           GError ** error);

/* Unmaps both sides and pops the stream's context. */
G_GNUC_INTERNAL
void     gst_pinned_transfer_end          (GstPinnedTransferState * t);

/* Whether both sides lay the frame out alike (offsets and strides). */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_same_layout  (const GstVideoInfo * info,
                                           GstPinnedTransferSide * src,
                                           GstPinnedTransferSide * dst);

/* Same layout: copies the bytes as they lie, one copy per piece of
 * memory. */
G_GNUC_INTERNAL
gboolean gst_pinned_transfer_copy_whole   (GstPinnedTransferState * t,
                                           GError ** error);

G_END_DECLS
