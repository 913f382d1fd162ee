/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Library-internal: the staging job, for the stager (gstpinnedstager.c)
 * only. */

#pragma once

#include "gstpinned-private.h"
#include "sync/gstpinnedfence-private.h"

G_BEGIN_DECLS

typedef enum
{
  /* Host to host. */
  GST_PINNED_STAGING_JOB_COPY,
  /* The same once the chunk's fence signals. */
  GST_PINNED_STAGING_JOB_COPY_AFTER_FENCE,
} GstPinnedStagingJobType;

/* One copy cut in chunks; threads claim chunks until none is left. */
typedef struct _GstPinnedStagingJob
{
  gint refcount;
  GstPinnedStagingJobType type;
  guint8 *dst;
  const guint8 *src;
  gsize size;
  gsize chunk;
  /* Rows of a 2D copy (0 for 1D): a chunk is a band of rows. */
  guint rows;
  gsize dpitch, spitch, width;
  guint n_chunks;
  gint next;                    /* atomic: the next chunk to claim */
  GAsyncQueue *done;            /* chunk index + 1, as each lands */
  /* GST_PINNED_STAGING_JOB_COPY_AFTER_FENCE: one per chunk. */
  GstPinnedFence **fences;
  GstPinnedContext *context;

  /* Detached: the caller does not wait. The source's buffer and a map of
   * its memory are kept until the last chunk has landed (@owner: atomic,
   * taken by whoever releases it). */
  gboolean detached;
  GstBuffer *owner;
  GstMapInfo map;
  gboolean pooled;              /* @owner goes back from the worker */
  gint landed;                  /* atomic */
  GMutex lock;
  GCond cond;
  gboolean finished;
} GstPinnedStagingJob;

/* A job of @size bytes from @src to @dst in chunks of @chunk; @detached:
 * the caller does not wait for it (gst_pinned_staging_job_join()). */
G_GNUC_INTERNAL
GstPinnedStagingJob *gst_pinned_staging_job_new (GstPinnedStagingJobType type,
                                                 guint8 * dst,
                                                 const guint8 * src,
                                                 gsize size,
                                                 gsize chunk,
                                                 gboolean detached,
                                                 GstPinnedContext * context);

G_GNUC_INTERNAL
GstPinnedStagingJob *gst_pinned_staging_job_ref (GstPinnedStagingJob * job);

G_GNUC_INTERNAL
void     gst_pinned_staging_job_unref      (GstPinnedStagingJob * job);

/* Where chunk @k of a 1D job lies. */
G_GNUC_INTERNAL
void     gst_pinned_staging_job_chunk      (GstPinnedStagingJob * job,
                                            guint k,
                                            gsize * offset,
                                            gsize * len);

/* Copies chunk @k; FALSE when its fence failed (the bytes are not there). */
G_GNUC_INTERNAL
gboolean gst_pinned_staging_job_copy_chunk (GstPinnedStagingJob * job,
                                            guint k);

/* Gives a detached job's source back, once. */
G_GNUC_INTERNAL
void     gst_pinned_staging_job_release    (GstPinnedStagingJob * job);

/* Whether every chunk of a detached job has landed. */
G_GNUC_INTERNAL
gboolean gst_pinned_staging_job_finished   (GstPinnedStagingJob * job);

/* Blocks until every chunk of a detached job has landed. */
G_GNUC_INTERNAL
void     gst_pinned_staging_job_join       (GstPinnedStagingJob * job);

/* The host function before a detached job's DMA (cudaLaunchHostFunc()):
 * joins the job and drops the reference it was given; calls no CUDA. */
G_GNUC_INTERNAL
void CUDART_CB gst_pinned_staging_job_join_on_stream (void *data);

/* A worker's function (gst_pinned_workers_new()): claims and copies
 * chunks of the job it was given until none is left, then drops that
 * reference. */
G_GNUC_INTERNAL
void     gst_pinned_staging_job_work_func  (gpointer data,
                                            gpointer user_data);

G_END_DECLS
