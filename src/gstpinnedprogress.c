/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How far a stream got, in host memory.
 *
 * With each fence, the stream also writes the fence's sequence number into
 * a word of page-locked host memory (cuStreamWriteValue64, after the work
 * before it), and the host reads the word to see the fence signalled.
 * Asking CUDA instead (cudaEventQuery) costs little for work that has
 * finished, but 4 to 8 us of CPU for work still running (H100 host,
 * 2026-11-22), and a pool's gate asks about running work on most frames.
 * The event is recorded all the same: other streams wait for it, and
 * asking it is how a device error shows (failed work never writes its
 * number).
 *
 * The words live in slabs of ordinary memory, page-locked by registration
 * and kept for the life of the process: the host may read a word after its
 * CUDA context is gone, and work still queued may write it after its
 * stream is gone; a word returns to use only once its last number landed.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstpinnedprogress-private.h"
#include "gst/pinned/gstpinnedcontext.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_progress_debug, "pinnedprogress",
    "gst-pinned stream progress words");
#define GST_CAT_DEFAULT gst_pinned_progress_debug

/* One word a cache line: the GPU writes one while the host reads another. */
#define WORD_STRIDE 64
#define SLAB_BYTES 4096
#define SLAB_WORDS (SLAB_BYTES / WORD_STRIDE)

/* cuStreamWriteValue64, looked up through the runtime: the driver API is
 * not otherwise linked. The types are the driver's (CUresult, CUstream,
 * CUdeviceptr, cuuint64_t). */
typedef gint (*WriteValue64Func) (gpointer stream, guint64 address,
    guint64 value, guint flags);

typedef struct
{
  guint8 *mem;
  GstPinnedProgress words[SLAB_WORDS];
  gboolean in_use[SLAB_WORDS];
  /* The device address of each word, from cudaHostGetDevicePointer. */
  guint64 address[SLAB_WORDS];
} Slab;

static GMutex lock;
static GPtrArray *slabs;
static WriteValue64Func write_value64;

static gboolean
load_write_value (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    enum cudaDriverEntryPointQueryResult status;
    gpointer fn = NULL;
    cudaError_t result;

    result = cudaGetDriverEntryPointByVersion ("cuStreamWriteValue64", &fn,
        12000, cudaEnableDefault, &status);
    if (result == cudaSuccess && status == cudaDriverEntryPointSuccess)
      write_value64 = (WriteValue64Func) fn;
    else
      /* Not an error: fences ask their events instead. */
      cudaGetLastError ();
    GST_INFO ("cuStreamWriteValue64 %s", write_value64 ? "found" :
        "not found: fences ask their events");
    g_once_init_leave (&once, 1);
  }
  return write_value64 != NULL;
}

static Slab *
slab_new (void)
{
  Slab *slab = g_new0 (Slab, 1);
  guint i;

  slab->mem = g_aligned_alloc0 (1, SLAB_BYTES, SLAB_BYTES);
  for (i = 0; i < SLAB_WORDS; i++) {
    slab->words[i].word = (volatile guint64 *) (slab->mem + i * WORD_STRIDE);
    slab->words[i].slab = slab;
    g_mutex_init (&slab->words[i].lock);
  }
  return slab;
}

/* Page-locked and device-mapped in the current context: registered once
 * (portable: for every context), again if the context that registered it
 * is gone. */
static gboolean
slab_map_locked (Slab * slab)
{
  gpointer dptr;
  guint i;

  if (cudaHostGetDevicePointer (&dptr, slab->mem, 0) != cudaSuccess) {
    cudaGetLastError ();
    if (!gst_pinned_cuda_result (cudaHostRegister (slab->mem, SLAB_BYTES,
                cudaHostRegisterMapped | cudaHostRegisterPortable), NULL) ||
        !gst_pinned_cuda_result (cudaHostGetDevicePointer (&dptr, slab->mem,
                0), NULL))
      return FALSE;
  }
  for (i = 0; i < SLAB_WORDS; i++)
    slab->address[i] = (guint64) (guintptr) dptr + i * WORD_STRIDE;
  return TRUE;
}

GstPinnedProgress *
gst_pinned_progress_new (GstPinnedContext * context)
{
  GstPinnedProgress *progress = NULL;
  Slab *slab = NULL;
  guint s, i, index = 0;

  ensure_debug_category ();

  if (g_strcmp0 (g_getenv ("GST_PINNED_PROGRESS"), "events") == 0 ||
      !load_write_value ())
    return NULL;

  g_mutex_lock (&lock);
  if (slabs == NULL)
    slabs = g_ptr_array_new ();
  /* A free word whose last number has landed: nothing queued writes it. */
  for (s = 0; s < slabs->len && progress == NULL; s++) {
    Slab *candidate = g_ptr_array_index (slabs, s);

    for (i = 0; i < SLAB_WORDS && progress == NULL; i++) {
      GstPinnedProgress *word = &candidate->words[i];

      if (!candidate->in_use[i] && !word->disabled &&
          gst_pinned_progress_reached (word, word->submitted)) {
        slab = candidate;
        index = i;
        progress = word;
      }
    }
  }
  if (progress == NULL) {
    slab = slab_new ();
    g_ptr_array_add (slabs, slab);
    index = 0;
    progress = &slab->words[0];
  }

  if (!gst_pinned_context_push (context, NULL)) {
    progress = NULL;
  } else {
    if (!slab_map_locked (slab))
      progress = NULL;
    gst_pinned_context_pop (context);
  }
  if (progress) {
    slab->in_use[index] = TRUE;
    progress->refcount = 1;
  }
  g_mutex_unlock (&lock);

  GST_DEBUG ("progress word %p for a stream on device %d", progress,
      gst_pinned_context_get_device_id (context));
  return progress;
}

GstPinnedProgress *
gst_pinned_progress_ref (GstPinnedProgress * progress)
{
  g_atomic_int_inc (&progress->refcount);
  return progress;
}

void
gst_pinned_progress_unref (GstPinnedProgress * progress)
{
  Slab *slab = progress->slab;

  if (!g_atomic_int_dec_and_test (&progress->refcount))
    return;

  g_mutex_lock (&lock);
  slab->in_use[progress - slab->words] = FALSE;
  g_mutex_unlock (&lock);
}

guint64
gst_pinned_progress_mark (GstPinnedProgress * progress, gpointer stream)
{
  Slab *slab = progress->slab;
  guint64 seq = progress->submitted + 1;
  gint result;

  if (progress->disabled)
    return 0;

  result = write_value64 (stream, slab->address[progress - slab->words], seq,
      0);
  if (result != 0) {
    /* The event tells the same, at a higher cost; a device error shows
     * there too. */
    GST_WARNING ("cuStreamWriteValue64 failed (CUresult %d): this stream's "
        "fences ask their events", result);
    progress->disabled = TRUE;
    return 0;
  }
  progress->submitted = seq;
  return seq;
}
