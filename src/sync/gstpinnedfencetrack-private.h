/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What a fence and its stream's track hold, for the fence's two files
 * only: gstpinnedfence.c keeps them, gstpinnedfencewait.c waits on them.
 * The rest of the library goes through gstpinnedfence-private.h. */

#pragma once

#include "sync/gstpinnedfence-private.h"

G_BEGIN_DECLS

/* Both files log as "pinnedfence". */
GST_DEBUG_CATEGORY_EXTERN (gst_pinned_fence_debug);

G_GNUC_INTERNAL
void                 gst_pinned_fence_init_debug    (void);

/* How far a stream's work is known signaled. The first fence recorded on
 * the stream makes it; its fences hold references, so that it outlives
 * the stream while they live (a GLib atomic refcounted box). */
#define GST_PINNED_FENCE_TRACK_RECENT 16

/* What a host waits on a stream for, by how long such waits last: the pool
 * gate (a buffer's copy), the pace (the stream's queue half drained), the
 * turn (the queue empty). */
typedef enum
{
  GST_PINNED_WAIT_GATE,
  GST_PINNED_WAIT_PACE,
  GST_PINNED_WAIT_TURN,
  GST_PINNED_WAIT_KINDS,
} GstPinnedWaitKind;

struct _GstPinnedFenceTrack
{
  /* Held across the record, so that the numbers follow the stream's order
   * even where several threads record on one stream. */
  GMutex lock;
  guint64 last_seq;
  /* The last GST_PINNED_FENCE_TRACK_RECENT fences, by seq % that: a gate
   * can wait for one further ahead (gst_pinned_fence_wait_gate()). */
  GstPinnedFence *recent[GST_PINNED_FENCE_TRACK_RECENT];

  /* Atomic: every fence up to this number has signaled, without error. */
  guint64 signaled_seq;
  /* Atomic: how long a gate of each kind waiting on this stream sleeps
   * before its first question (us), learnt from how the last such
   * questions came out: a kind's waits last about as long each time, the
   * kinds' not. */
  guint64 first_sleep_us[GST_PINNED_WAIT_KINDS];
  /* Atomic: the stream shares its copy engine with another stream
   * (gst_pinned_fence_wait_turn() was told so): a wait on it may wake late,
   * while the other streams keep the engine busy. */
  gint shared;
  /* Atomic: how far from the newest the pace asks, where the stream's work
   * keeps up with the host; 0 where it runs ahead
   * (gst_pinned_fence_wait_pace()).
   * A hint: a racing update costs a question at most. */
  guint pace_look;
  /* Atomic: the newest fence when the stream's queue was last seen empty
   * (a turn, or a turn found it so): the next turn is due
   * gst_pinned_fence_wait_turn()'s quantum of fences after it. */
  guint64 turn_seq;
};

struct _GstPinnedFence
{
  GstMiniObject parent;

  cudaEvent_t event;
  /* The stream the event was recorded on, and its unique id (a handle can
   * be reused by a later stream): a later fence of the same stream
   * supersedes this one, as a stream runs its work in order. */
  gpointer stream;
  guint64 stream_id;
  /* The stream's track, referenced, and the fence's number on it. */
  GstPinnedFenceTrack *track;
  guint64 seq;
  /* Held while the fence is in use; NULL while it waits in the pool. */
  struct _GstPinnedFencePool *pool;
  /* The next pooled fence, while this one waits in the pool. */
  GstPinnedFence *next_free;
  /* Set once the host saw the work signaled: later waits need no driver
   * call (a stream reusing a buffer whose last reader's fence the pool
   * gate already saw signaled enqueues no wait). */
  gint signaled;
  /* Recorded after a batch of frames: it stands for several buffers. */
  gboolean batch;
};

/* The host saw @fence's work signaled, without error. */
G_GNUC_INTERNAL
void                 gst_pinned_fence_set_signaled  (GstPinnedFence * fence);

/* @result of a question that found the work signaled (anything but
 * cudaErrorNotReady): remembered when it succeeded, else reported (failed
 * work must keep failing its users). */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_take_result   (GstPinnedFence * fence,
                                                     cudaError_t result,
                                                     GError ** error);

/* Whether events are made blocking-sync (GST_PINNED_FENCE_WAIT=block):
 * then a host wait sleeps in cudaEventSynchronize(), else it polls. */
G_GNUC_INTERNAL
gboolean             gst_pinned_fence_blocking_sync (void);

/* Counts a host wait of the process that asked @questions and took @ns. */
G_GNUC_INTERNAL
void                 gst_pinned_fence_count_host_wait (guint questions,
                                                       guint64 ns);

/* Whether the host knows that @fence's work signaled without error: it
 * saw that, or saw a later fence of the stream signal. No driver call. */
static inline gboolean
gst_pinned_fence_known_signaled (GstPinnedFence * fence)
{
  if (g_atomic_int_get (&fence->signaled))
    return TRUE;
  if (fence->track && fence->seq <=
      __atomic_load_n (&fence->track->signaled_seq, __ATOMIC_ACQUIRE)) {
    g_atomic_int_set (&fence->signaled, 1);
    return TRUE;
  }
  return FALSE;
}

G_END_DECLS
