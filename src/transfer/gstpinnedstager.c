/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Threaded staging. A frame in pageable memory reaches the DMA engine only
 * through page-locked memory. CUDA's own staging copies it on the calling
 * thread, a few MB at a time, at one thread's memcpy rate (several threads
 * copy several times as fast); and a pitched copy from
 * pageable memory is staged row by row. Here the frame is cut in chunks
 * that worker threads (core/gstpinnedworkers.c) and the calling thread
 * copy into a page-locked staging buffer of our own, and each chunk's
 * DMA is enqueued as soon as it has landed, so the CPU copy of chunk
 * k + 1 overlaps the DMA of chunk k. The way back (device to pageable
 * memory) is the mirror: each chunk's DMA into staging is followed by a
 * fence, and the threads copy a chunk out as soon as its fence has
 * signalled.
 *
 * Staging buffers are reused under the fence rules: a frame's copies
 * publish one fence on the staging memory they used, and the next frame
 * that needs the buffer waits for it (mostly long done). They are
 * allocated when first needed (page-locking is slower than copying: the
 * first frames of a pageable source pay it once) and sized for the
 * largest frame seen.
 *
 * An upload does not wait for its threads where it has them (detached
 * staging): the threads copy the frame while the caller goes on, a host
 * function on the stream waits for them, and the DMA from staging follows
 * it in stream order. A fresh frame's CPU copy then overlaps the source's
 * next frame instead of adding to it. The frame's buffer is kept, mapped,
 * until its last chunk has landed; then a pool's buffer goes back from the
 * worker, and memory of no pool (fresh) on the calling thread at its next
 * frame (or when the staging stops: a flush, the end of the stream), where
 * the source's own frees are. Large fresh memory is staged as before,
 * waited for (FRESH_DETACH_MAX).
 *
 * Only the calling thread calls CUDA, except for the download's fence
 * waits, which the threads do on the chunk they are about to copy, and a
 * worker's release of a pool's buffer (a release may call CUDA, which the
 * host function may not). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "transfer/gstpinnedstager-private.h"
#include "transfer/gstpinnedstagingjob-private.h"
#include "memory/gstpinnedhostwait-private.h"
#include "sync/gstpinnedfence-private.h"
#include "core/gstpinnedenv-private.h"
#include "core/gstpinnedworkers-private.h"
#include "gst/pinned/gstpinnedhostmemory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_staging_debug, "pinnedstaging",
    "gst-pinned threaded staging");
#define GST_CAT_DEFAULT gst_pinned_staging_debug

/* Memory bandwidth of a host is reached well before 8 threads copy. */
#define MAX_AUTO_THREADS 8
/* A fresh frame (memory of no pool) staged detached goes to a worker of
 * its own where the count is automatic: the copy is off the streaming
 * thread either way, and more threads on fresh frames slowed their source
 * more than they saved (docs/notes/2026-11-26-fresh-frames.md). A pool's
 * buffer goes to every worker. */
#define FRESH_AUTO_WORKERS 1
/* Fresh memory above this is staged with the caller waiting. A fresh 4K
 * RGBA frame kept past its source's next frame, as detached staging keeps
 * it, made that frame's pages come 4 KiB at a time, a page fault each,
 * and the frame slower than waited for; smaller fresh frames gained or
 * lost nothing (docs/notes/2026-11-26-fresh-frames.md). */
#define FRESH_DETACH_MAX (16 * 1024 * 1024)
/* Enough chunks for the threads to share the work evenly, big enough that
 * a DMA per chunk costs nothing next to it. */
#define MIN_CHUNK (256 * 1024)
#define MAX_CHUNK (4 * 1024 * 1024)
#define CHUNKS_PER_THREAD 4
/* Staging buffers: one per frame in flight. */
#define MAX_BLOCKS 4
#define BLOCK_ROUND (1024 * 1024)

typedef struct
{
  GstMemory *mem;
  GstMapInfo map;
  guint8 *data;
  gsize size;
} Block;

struct _GstPinnedStager
{
  GstPinnedContext *context;
  GstAllocator *allocator;
  guint n_threads;              /* resolved */
  gboolean auto_threads;        /* n_threads was 0 */

  /* Set and cleared by the copying thread, read by others under the
   * lock. */
  GMutex lock;
  GstPinnedWorkers *workers;
  /* FRESH_AUTO_WORKERS for fresh frames, made when needed */
  GstPinnedWorkers *fresh_workers;

  /* Blocks not used by the current frame, least recently used first. */
  GQueue free;
  guint n_blocks;
  /* The current frame's block and how much of it is taken. */
  Block *current;
  gsize used;
  /* Under the lock: detached jobs whose source is still kept, oldest
   * first; those from @frame_detached on are the current frame's.
   * @n_detached: their number, read without the lock every frame. */
  GPtrArray *detached;
  guint frame_detached;
  gint n_detached;
};

GstPinnedStager *
gst_pinned_stager_new (GstPinnedContext * context)
{
  GstPinnedStager *stager;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);

  ensure_debug_category ();

  stager = g_new0 (GstPinnedStager, 1);
  stager->context = gst_object_ref (context);
  stager->allocator = gst_pinned_host_allocator_new (context);
  g_mutex_init (&stager->lock);
  g_queue_init (&stager->free);
  stager->detached = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_pinned_staging_job_unref);
  gst_pinned_stager_set_threads (stager, 0);

  return stager;
}

static void
block_free (Block * block)
{
  /* Freeing waits for the copies that still read or write it. */
  gst_memory_unmap (block->mem, &block->map);
  gst_memory_unref (block->mem);
  g_free (block);
}

static void
drop_blocks (GstPinnedStager * stager)
{
  Block *block;

  while ((block = g_queue_pop_head (&stager->free)))
    block_free (block);
  if (stager->current) {
    block_free (stager->current);
    stager->current = NULL;
  }
  stager->n_blocks = 0;
}

/* Gives back the sources of the detached jobs that are done; with @all,
 * of every job, waiting for it (after the threads were joined: at once). */
static void
release_sources (GstPinnedStager * stager, gboolean all)
{
  guint i = 0;

  if (g_atomic_int_get (&stager->n_detached) == 0)
    return;

  g_mutex_lock (&stager->lock);
  while (i < stager->detached->len) {
    GstPinnedStagingJob *job = g_ptr_array_index (stager->detached, i);

    if (all)
      gst_pinned_staging_job_join (job);
    if (!gst_pinned_staging_job_finished (job)) {
      i++;
      continue;
    }
    gst_pinned_staging_job_release (job);
    g_ptr_array_remove_index (stager->detached, i);
    if (i < stager->frame_detached)
      stager->frame_detached--;
  }
  g_atomic_int_set (&stager->n_detached, stager->detached->len);
  g_mutex_unlock (&stager->lock);
}

void
gst_pinned_stager_release_done (GstPinnedStager * stager)
{
  release_sources (stager, FALSE);
}

static void
workers_join (GstPinnedWorkers * workers)
{
  if (workers == NULL)
    return;
  GST_DEBUG ("joining %u staging threads", gst_pinned_workers_get_n (workers));
  gst_pinned_workers_free (workers);
}

void
gst_pinned_stager_stop (GstPinnedStager * stager)
{
  GstPinnedWorkers *workers, *fresh_workers;

  g_mutex_lock (&stager->lock);
  workers = stager->workers;
  fresh_workers = stager->fresh_workers;
  stager->workers = stager->fresh_workers = NULL;
  g_mutex_unlock (&stager->lock);

  workers_join (workers);
  workers_join (fresh_workers);
  release_sources (stager, TRUE);
}

void
gst_pinned_stager_free (GstPinnedStager * stager)
{
  gst_pinned_stager_stop (stager);
  drop_blocks (stager);
  g_ptr_array_unref (stager->detached);
  gst_object_unref (stager->allocator);
  gst_object_unref (stager->context);
  g_mutex_clear (&stager->lock);
  g_free (stager);
}

guint
gst_pinned_stager_resolve_threads (guint n_threads)
{
  return n_threads ? n_threads : CLAMP (g_get_num_processors (), 1,
      MAX_AUTO_THREADS);
}

void
gst_pinned_stager_set_threads (GstPinnedStager * stager, guint n_threads)
{
  gboolean automatic = n_threads == 0;

  n_threads = gst_pinned_stager_resolve_threads (n_threads);
  if (n_threads != stager->n_threads || automatic != stager->auto_threads)
    gst_pinned_stager_stop (stager);
  stager->n_threads = n_threads;
  stager->auto_threads = automatic;
}

guint
gst_pinned_stager_get_threads (GstPinnedStager * stager)
{
  return stager->n_threads;
}

guint
gst_pinned_stager_get_running_threads (GstPinnedStager * stager)
{
  guint n;

  g_mutex_lock (&stager->lock);
  n = stager->workers ? gst_pinned_workers_get_n (stager->workers) : 0;
  n += stager->fresh_workers ?
      gst_pinned_workers_get_n (stager->fresh_workers) : 0;
  g_mutex_unlock (&stager->lock);

  return n;
}

void
gst_pinned_stager_set_allocator (GstPinnedStager * stager,
    GstAllocator * allocator)
{
  g_return_if_fail (GST_IS_PINNED_HOST_ALLOCATOR (allocator));

  if (allocator == stager->allocator)
    return;
  gst_object_replace ((GstObject **) & stager->allocator,
      GST_OBJECT (allocator));
  /* Blocks of the old kind go as they come back idle. */
  drop_blocks (stager);
}

static Block *
block_new (GstPinnedStager * stager, gsize size, GError ** error)
{
  Block *block;
  GstMemory *mem;

  size = (size + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
  mem = gst_pinned_allocator_alloc_full (GST_PINNED_ALLOCATOR
      (stager->allocator), size, NULL, error);
  if (mem == NULL)
    return NULL;
  /* Mapped for the GPU once for its life: the fences, not maps, order
   * its uses. */
  block = g_new0 (Block, 1);
  if (!gst_memory_map (mem, &block->map,
          GST_MAP_READWRITE | GST_MAP_PINNED_GPU)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot map staging memory");
    gst_memory_unref (mem);
    g_free (block);
    return NULL;
  }
  block->mem = mem;
  block->data = block->map.data;
  block->size = size;
  stager->n_blocks++;
  GST_INFO ("staging buffer %u of %" G_GSIZE_FORMAT " bytes", stager->n_blocks,
      size);

  return block;
}

gboolean
gst_pinned_stager_begin (GstPinnedStager * stager, gsize bytes, GError ** error)
{
  Block *block = NULL;
  GList *l;

  g_return_val_if_fail (stager->current == NULL, FALSE);

  stager->used = 0;
  if (bytes == 0)
    return TRUE;

  /* The least recently used block that is big enough and idle; else a new
   * one while there are few; else wait for the oldest. */
  for (l = stager->free.head; l; l = l->next) {
    Block *b = l->data;

    if (b->size >= bytes && gst_pinned_memory_is_idle ((GstPinnedMemory *)
            b->mem, GST_MAP_WRITE)) {
      block = b;
      g_queue_delete_link (&stager->free, l);
      break;
    }
  }

  if (block == NULL && stager->n_blocks >= MAX_BLOCKS) {
    /* Too small ones go; else the oldest is waited for. */
    for (l = stager->free.head; l; l = l->next) {
      Block *b = l->data;

      if (b->size < bytes) {
        g_queue_delete_link (&stager->free, l);
        block_free (b);
        stager->n_blocks--;
        break;
      }
    }
  }

  if (block == NULL && stager->n_blocks < MAX_BLOCKS) {
    block = block_new (stager, bytes, error);
    if (block == NULL)
      return FALSE;
  }

  if (block == NULL) {
    block = g_queue_pop_head (&stager->free);
    g_assert (block != NULL && block->size >= bytes);
    GST_LOG ("every staging buffer in flight, waiting for the oldest");
    if (!gst_pinned_host_wait_for_staging ((GstPinnedMemory *) block->mem,
            error)) {
      g_queue_push_head (&stager->free, block);
      return FALSE;
    }
  }

  stager->current = block;
  return TRUE;
}

guint8 *
gst_pinned_stager_reserve (GstPinnedStager * stager, gsize size,
    GError ** error)
{
  guint8 *data;

  /* Cache-line aligned pieces. */
  size = (size + 63) & ~(gsize) 63;
  if (stager->current == NULL || stager->used + size > stager->current->size) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "staging: %" G_GSIZE_FORMAT " bytes more than reserved", size);
    return NULL;
  }
  data = stager->current->data + stager->used;
  stager->used += size;
  return data;
}

/* Makes *@workers with @n threads of its own: they live until stopped, no
 * start-up per frame, and are joined when stopped. */
static void
ensure_workers (GstPinnedStager * stager, GstPinnedWorkers ** workers, guint n)
{
  if (*workers || n == 0)
    return;

  g_mutex_lock (&stager->lock);
  *workers = gst_pinned_workers_new ("pinned-staging", n,
      gst_pinned_staging_job_work_func);
  g_mutex_unlock (&stager->lock);
  GST_INFO ("staging with %u of %u workers%s",
      *workers ? gst_pinned_workers_get_n (*workers) : 0, n,
      workers == &stager->fresh_workers ? " for fresh frames" : "");
}

/* The workers @job goes to, and how many of them at most. */
static GstPinnedWorkers *
job_workers (GstPinnedStager * stager, GstPinnedStagingJob * job, guint * n)
{
  if (job->detached && !job->pooled && stager->auto_threads &&
      stager->n_threads > 1) {
    *n = FRESH_AUTO_WORKERS;
    ensure_workers (stager, &stager->fresh_workers, *n);
    return stager->fresh_workers;
  }
  *n = stager->n_threads - 1;
  ensure_workers (stager, &stager->workers, *n);
  return stager->workers;
}

/* The chunk a copy of @size bytes is cut in. */
static gsize
chunk_for (GstPinnedStager * stager, gsize size)
{
  gsize chunk = size / (stager->n_threads * CHUNKS_PER_THREAD);

  chunk = CLAMP (chunk, MIN_CHUNK, MAX_CHUNK);
  return (chunk + 4095) & ~(gsize) 4095;
}

static GstPinnedStagingJob *
job_new (GstPinnedStager * stager, GstPinnedStagingJobType type, guint8 * dst,
    const guint8 * src, gsize size, gboolean detached)
{
  return gst_pinned_staging_job_new (type, dst, src, size,
      chunk_for (stager, size), detached, stager->context);
}

/* Hands the job to as many workers as it has chunks for (but the one the
 * calling thread copies, unless the job is detached); FALSE where no
 * worker took it. */
static gboolean
job_start (GstPinnedStager * stager, GstPinnedStagingJob * job)
{
  guint i, n, own = job->detached ? 0 : 1;
  GstPinnedWorkers *workers;

  if (job->n_chunks <= own || (workers = job_workers (stager, job, &n)) == NULL)
    return FALSE;
  n = MIN (gst_pinned_workers_get_n (workers), job->n_chunks - own);
  for (i = 0; i < n; i++)
    gst_pinned_workers_push (workers, gst_pinned_staging_job_ref (job));
  return n > 0;
}

/* Whether uploads stage detached: GST_PINNED_STAGING=wait makes the caller
 * wait for its threads, as before detached staging, for comparison. */
static gsize
parse_staging_detaches (const gchar * value)
{
  return g_strcmp0 (value, "wait") != 0;
}

static gboolean
staging_detaches (void)
{
  static gsize detaches = 0;

  return gst_pinned_env_once (&detaches, "GST_PINNED_STAGING",
      parse_staging_detaches);
}

/* Starts copying @size bytes of @src (inside @map, a memory of @owner) into
 * @staging on the workers alone, and enqueues on @stream a host function
 * that waits for them: the copies enqueued after it read the staged bytes.
 * *@detached says whether it did; where that does not pay (one chunk, no
 * workers) the caller copies itself. FALSE where the host function could
 * not be enqueued (the job was waited for). */
static gboolean
stage_detached (GstPinnedStager * stager, GstPinnedStream * stream,
    guint8 * staging, const guint8 * src, gsize size, const GstMapInfo * map,
    GstBuffer * owner, gboolean * detached, GError ** error)
{
  GstPinnedStagingJob *job;
  gboolean ok = TRUE;

  *detached = FALSE;
  /* One chunk is copied at once by the caller. */
  if (!staging_detaches () || stager->n_threads <= 1 ||
      size <= chunk_for (stager, size) ||
      (owner->pool == NULL && map->size > FRESH_DETACH_MAX))
    return TRUE;
  job = job_new (stager, GST_PINNED_STAGING_JOB_COPY, staging, src, size, TRUE);
  if (!gst_memory_map (map->memory, &job->map, GST_MAP_READ)) {
    gst_pinned_staging_job_unref (job);
    return TRUE;
  }
  job->src = job->map.data + (src - map->data);
  job->owner = gst_buffer_ref (owner);
  job->pooled = owner->pool != NULL;
  if (!job_start (stager, job)) {
    /* No worker to be had: the caller copies. */
    gst_pinned_staging_job_release (job);
    gst_pinned_staging_job_unref (job);
    return TRUE;
  }
  /* Released from there; a frame that fails later waits for it at its
   * finish. */
  g_mutex_lock (&stager->lock);
  g_ptr_array_add (stager->detached, gst_pinned_staging_job_ref (job));
  g_atomic_int_set (&stager->n_detached, stager->detached->len);
  g_mutex_unlock (&stager->lock);

  if (!gst_pinned_cuda_result (cudaLaunchHostFunc
          (gst_pinned_stream_get_cuda_stream (stream),
              gst_pinned_staging_job_join_on_stream,
              gst_pinned_staging_job_ref (job)), error)) {
    gst_pinned_staging_job_unref (job);
    gst_pinned_staging_job_join (job);
    ok = FALSE;
  }
  gst_pinned_staging_job_unref (job);
  *detached = ok;
  return ok;
}

/* Runs the job with the workers; @landed is called in this thread for each
 * chunk as it lands. */
static gboolean
job_run (GstPinnedStager * stager, GstPinnedStagingJob * job,
    gboolean (*landed) (GstPinnedStagingJob * job, guint k, gpointer data,
        GError ** error), gpointer data, GError ** error)
{
  guint completed = 0, k;
  gboolean ok = TRUE;

  job_start (stager, job);

  while (completed < job->n_chunks) {
    gpointer idx = g_async_queue_try_pop (job->done);

    if (idx == NULL) {
      /* Nothing landed: copy a chunk ourselves, or wait. */
      k = (guint) g_atomic_int_add (&job->next, 1);
      if (k < job->n_chunks)
        idx =
            GUINT_TO_POINTER (gst_pinned_staging_job_copy_chunk (job,
                k) ? k + 1 : G_MAXUINT);
      else
        idx = g_async_queue_pop (job->done);
    }
    completed++;

    if (GPOINTER_TO_UINT (idx) == G_MAXUINT) {
      if (ok)
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
            "staging: a copy into staging memory failed");
      ok = FALSE;
    } else if (ok && landed) {
      ok = landed (job, GPOINTER_TO_UINT (idx) - 1, data, error);
    }
  }

  return ok;
}

typedef struct
{
  GstPinnedStream *stream;
  guint8 *device;
} UploadData;

static gboolean
upload_landed (GstPinnedStagingJob * job, guint k, gpointer data,
    GError ** error)
{
  UploadData *up = data;
  gsize offset, len;

  gst_pinned_staging_job_chunk (job, k, &offset, &len);
  return gst_pinned_cuda_result (cudaMemcpyAsync (up->device + offset,
          job->dst + offset, len, cudaMemcpyHostToDevice,
          gst_pinned_stream_get_cuda_stream (up->stream)), error);
}

gboolean
gst_pinned_stager_upload (GstPinnedStager * stager, GstPinnedStream * stream,
    gpointer dst, const guint8 * src, gsize size, const GstMapInfo * map,
    GstBuffer * owner, GError ** error)
{
  UploadData up = { stream, dst };
  guint8 *staging;
  gboolean detached;
  GstPinnedStagingJob *job;
  gboolean ok;

  staging = gst_pinned_stager_reserve (stager, size, error);
  if (staging == NULL)
    return FALSE;

  /* One DMA behind the host function. */
  if (!stage_detached (stager, stream, staging, src, size, map, owner,
          &detached, error))
    return FALSE;
  if (detached)
    return gst_pinned_cuda_result (cudaMemcpyAsync (dst, staging, size,
            cudaMemcpyHostToDevice,
            gst_pinned_stream_get_cuda_stream (stream)), error);

  job =
      job_new (stager, GST_PINNED_STAGING_JOB_COPY, staging, src, size, FALSE);
  ok = job_run (stager, job, upload_landed, &up, error);
  gst_pinned_staging_job_unref (job);

  return ok;
}

const guint8 *
gst_pinned_stager_stage (GstPinnedStager * stager, GstPinnedStream * stream,
    const GstMapInfo * map, GstBuffer * owner, GError ** error)
{
  const guint8 *src = map->data;
  gsize size = map->size;
  guint8 *staging;
  gboolean detached;
  GstPinnedStagingJob *job;
  gboolean ok;

  staging = gst_pinned_stager_reserve (stager, size, error);
  if (staging == NULL)
    return NULL;
  if (!stage_detached (stager, stream, staging, src, size, map, owner,
          &detached, error))
    return NULL;
  if (detached)
    return staging;

  job =
      job_new (stager, GST_PINNED_STAGING_JOB_COPY, staging, src, size, FALSE);
  ok = job_run (stager, job, NULL, NULL, error);
  gst_pinned_staging_job_unref (job);

  return ok ? staging : NULL;
}

void
gst_pinned_stager_copy_out (GstPinnedStager * stager, guint8 * dst,
    gsize dpitch, const guint8 * staging, gsize spitch, gsize width, guint rows)
{
  GstPinnedStagingJob *job =
      job_new (stager, GST_PINNED_STAGING_JOB_COPY, dst, staging,
      (gsize) rows * width,
      FALSE);

  /* Bands of rows about as big as the chunks of a 1D copy. */
  job->rows = rows;
  job->dpitch = dpitch;
  job->spitch = spitch;
  job->width = width;
  job->chunk = MAX (job->chunk / MAX (width, 1), 1);
  job->n_chunks = (guint) ((rows + job->chunk - 1) / job->chunk);

  job_run (stager, job, NULL, NULL, NULL);
  gst_pinned_staging_job_unref (job);
}

gboolean
gst_pinned_stager_download (GstPinnedStager * stager, GstPinnedStream * stream,
    guint8 * dst, gconstpointer src, gsize size, GError ** error)
{
  cudaStream_t handle = gst_pinned_stream_get_cuda_stream (stream);
  guint8 *staging;
  GstPinnedStagingJob *job;
  gboolean ok = TRUE;
  guint k;

  staging = gst_pinned_stager_reserve (stager, size, error);
  if (staging == NULL)
    return FALSE;

  job =
      job_new (stager, GST_PINNED_STAGING_JOB_COPY_AFTER_FENCE, dst, staging,
      size, FALSE);
  job->fences = g_new0 (GstPinnedFence *, job->n_chunks);

  /* All the DMA first: the copy engine runs ahead of the threads. */
  for (k = 0; k < job->n_chunks && ok; k++) {
    gsize offset, len;

    gst_pinned_staging_job_chunk (job, k, &offset, &len);
    ok = gst_pinned_cuda_result (cudaMemcpyAsync (staging + offset,
            (const guint8 *) src + offset, len, cudaMemcpyDeviceToHost,
            handle), error) &&
        (job->fences[k] = gst_pinned_stream_record_fence (stream,
            error)) != NULL;
  }

  if (ok)
    ok = job_run (stager, job, NULL, NULL, error);
  gst_pinned_staging_job_unref (job);

  return ok;
}

void
gst_pinned_stager_finish (GstPinnedStager * stager, GstPinnedFence * fence)
{
  Block *block = stager->current;
  guint i;

  /* Without a fence nothing orders the staging memory's next use after
   * the frame's detached copies into it: they are waited for. */
  g_mutex_lock (&stager->lock);
  for (i = stager->frame_detached; fence == NULL && i < stager->detached->len;
      i++)
    gst_pinned_staging_job_join (g_ptr_array_index (stager->detached, i));
  stager->frame_detached = stager->detached->len;
  g_mutex_unlock (&stager->lock);

  if (block == NULL)
    return;

  if (fence)
    gst_pinned_memory_add_fence ((GstPinnedMemory *) block->mem, fence,
        GST_MAP_WRITE);
  g_queue_push_tail (&stager->free, block);
  stager->current = NULL;
  stager->used = 0;
}
