/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A staging job: one copy between host memories cut in chunks, which
 * worker threads (the stager's, gst_pinned_staging_job_work_func()) and
 * the calling thread claim until none is left; a detached one is waited
 * for by a host function on the stream, and keeps its source until its
 * last chunk has landed. The stager (gstpinnedstager.c) makes the jobs and
 * owns the threads. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "transfer/gstpinnedstagingjob-private.h"
#include "memory/gstpinnedhostwait-private.h"

GstPinnedStagingJob *
gst_pinned_staging_job_new (GstPinnedStagingJobType type, guint8 * dst,
    const guint8 * src, gsize size, gsize chunk, gboolean detached,
    GstPinnedContext * context)
{
  GstPinnedStagingJob *job = g_new0 (GstPinnedStagingJob, 1);

  job->refcount = 1;
  job->type = type;
  job->dst = dst;
  job->src = src;
  job->size = size;
  job->chunk = chunk;
  job->n_chunks = (guint) ((size + job->chunk - 1) / job->chunk);
  /* The caller of a job it waits for takes each landed chunk from here; a
   * detached job's workers tell its cond instead. */
  job->detached = detached;
  if (!detached)
    job->done = g_async_queue_new ();
  job->context = context;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);

  return job;
}

GstPinnedStagingJob *
gst_pinned_staging_job_ref (GstPinnedStagingJob * job)
{
  g_atomic_int_inc (&job->refcount);
  return job;
}

void
gst_pinned_staging_job_unref (GstPinnedStagingJob * job)
{
  guint i;

  if (!g_atomic_int_dec_and_test (&job->refcount))
    return;

  if (job->fences) {
    for (i = 0; i < job->n_chunks; i++)
      gst_clear_pinned_fence (&job->fences[i]);
    g_free (job->fences);
  }
  if (job->done)
    g_async_queue_unref (job->done);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

void
gst_pinned_staging_job_chunk (GstPinnedStagingJob * job, guint k,
    gsize * offset, gsize * len)
{
  *offset = (gsize) k *job->chunk;
  *len = MIN (job->chunk, job->size - *offset);
}

/* Copies chunk @k; FALSE when its fence failed (the bytes are not there). */
gboolean
gst_pinned_staging_job_copy_chunk (GstPinnedStagingJob * job, guint k)
{
  gsize offset, len, r, first, last;
  gboolean ok = TRUE;

  if (job->type == GST_PINNED_STAGING_JOB_COPY_AFTER_FENCE)
    ok = gst_pinned_host_wait_for_copy_out (job->fences[k], NULL);
  if (!ok)
    return FALSE;

  if (job->rows == 0) {
    gst_pinned_staging_job_chunk (job, k, &offset, &len);
    memcpy (job->dst + offset, job->src + offset, len);
    return TRUE;
  }

  first = (gsize) k *job->chunk;
  last = MIN (first + job->chunk, job->rows);
  for (r = first; r < last; r++)
    memcpy (job->dst + r * job->dpitch, job->src + r * job->spitch, job->width);
  return TRUE;
}

/* Gives a detached job's source back, once. */
void
gst_pinned_staging_job_release (GstPinnedStagingJob * job)
{
  GstBuffer *owner = __atomic_exchange_n (&job->owner, NULL, __ATOMIC_ACQ_REL);

  if (owner == NULL)
    return;
  gst_memory_unmap (job->map.memory, &job->map);
  gst_buffer_unref (owner);
}

gboolean
gst_pinned_staging_job_finished (GstPinnedStagingJob * job)
{
  return __atomic_load_n (&job->finished, __ATOMIC_ACQUIRE);
}

/* A detached job's chunk has landed; after the last, the job's waiters
 * wake (the DMA goes). A pool's buffer then goes back at once (a small
 * pool must not wait for our next frame); other sources wait for the
 * calling thread. */
static void
job_landed (GstPinnedStagingJob * job)
{
  if (g_atomic_int_add (&job->landed, 1) + 1 < (gint) job->n_chunks)
    return;

  g_mutex_lock (&job->lock);
  __atomic_store_n (&job->finished, TRUE, __ATOMIC_RELEASE);
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
  if (job->pooled)
    gst_pinned_staging_job_release (job);
}

/* Blocks until every chunk of detached @job has landed. */
void
gst_pinned_staging_job_join (GstPinnedStagingJob * job)
{
  g_mutex_lock (&job->lock);
  while (!job->finished)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
}

/* The host function before a detached job's DMA: it calls no CUDA. */
void CUDART_CB
gst_pinned_staging_job_join_on_stream (void *data)
{
  GstPinnedStagingJob *job = data;

  gst_pinned_staging_job_join (job);
  gst_pinned_staging_job_unref (job);
}

/* Claims and copies chunks until none is left; each landed chunk is
 * announced with its index + 1, a failed one with G_MAXUINT (a detached
 * job's copies cannot fail). */
static void
job_work (GstPinnedStagingJob * job)
{
  guint k;

  while ((k = (guint) g_atomic_int_add (&job->next, 1)) < job->n_chunks) {
    gboolean ok = gst_pinned_staging_job_copy_chunk (job, k);

    if (job->detached)
      job_landed (job);
    else
      g_async_queue_push (job->done, GUINT_TO_POINTER (ok ? k + 1 : G_MAXUINT));
  }
}

void
gst_pinned_staging_job_work_func (gpointer data, gpointer user_data)
{
  GstPinnedStagingJob *job = data;

  /* Fence waits need the device current. */
  if (job->type == GST_PINNED_STAGING_JOB_COPY_AFTER_FENCE &&
      gst_pinned_context_push (job->context, NULL)) {
    job_work (job);
    gst_pinned_context_pop (job->context);
  } else {
    job_work (job);
  }
  gst_pinned_staging_job_unref (job);
}
