/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The stand-in's own model, through the CUDA runtime API, where it is less
 * kind than a simpler stand-in would be: the legacy default stream runs
 * asynchronously, stream handles are reused, failures can surface later and
 * stick, pageable copies are bounds-checked, held-back copies land in
 * pieces, and freeing memory that queued work still uses is caught. */

#include <glib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "fakecuda.h"

#define DELAY_US 200000

static void
assert_cuda (cudaError_t result, cudaError_t expected)
{
  if (result != expected)
    g_error ("%s where %s was expected", cudaGetErrorName (result),
        cudaGetErrorName (expected));
}

static cudaEvent_t
new_event (void)
{
  cudaEvent_t ev;

  assert_cuda (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming),
      cudaSuccess);
  return ev;
}

/* Polls @ev for up to @usec: TRUE once it completes. */
static gboolean
completes_within (cudaEvent_t ev, gint64 usec)
{
  gint64 end = g_get_monotonic_time () + usec;

  do {
    cudaError_t r = cudaEventQuery (ev);

    if (r == cudaSuccess)
      return TRUE;
    assert_cuda (r, cudaErrorNotReady);
    g_usleep (1000);
  } while (g_get_monotonic_time () < end);
  return FALSE;
}

/* Work on the legacy default stream runs later, in order, like any
 * stream's: an event recorded behind it is not complete at once. */
static void
test_legacy_stream_is_async (void)
{
  cudaEvent_t ev = new_event ();
  gint64 start = g_get_monotonic_time ();

  assert_cuda (fakecuda_stream_sleep (NULL, DELAY_US), cudaSuccess);
  assert_cuda (cudaEventRecord (ev, NULL), cudaSuccess);
  /* The calls returned at once ... */
  g_assert_cmpint (g_get_monotonic_time () - start, <, DELAY_US / 2);
  /* ... and the event completes only after the pause. */
  assert_cuda (cudaEventQuery (ev), cudaErrorNotReady);
  assert_cuda (cudaStreamQuery (NULL), cudaErrorNotReady);
  assert_cuda (cudaStreamSynchronize (cudaStreamLegacy), cudaSuccess);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, DELAY_US);
  assert_cuda (cudaEventQuery (ev), cudaSuccess);
  assert_cuda (cudaStreamQuery (NULL), cudaSuccess);
  assert_cuda (cudaEventDestroy (ev), cudaSuccess);
}

/* The legacy stream waits for blocking streams and they for it; a
 * non-blocking stream does neither. */
static void
test_legacy_stream_and_blocking_streams (void)
{
  cudaStream_t blocking, nonblocking;
  cudaEvent_t on_blocking = new_event (), on_legacy = new_event ();
  cudaEvent_t on_nonblocking = new_event ();
  unsigned int flags = 7;

  assert_cuda (cudaStreamCreate (&blocking), cudaSuccess);
  assert_cuda (cudaStreamCreateWithFlags (&nonblocking,
          cudaStreamNonBlocking), cudaSuccess);
  assert_cuda (cudaStreamGetFlags (blocking, &flags), cudaSuccess);
  g_assert_cmpuint (flags, ==, cudaStreamDefault);
  assert_cuda (cudaStreamGetFlags (nonblocking, &flags), cudaSuccess);
  g_assert_cmpuint (flags, ==, cudaStreamNonBlocking);

  /* Legacy work after a blocking stream's pause waits for it. */
  assert_cuda (fakecuda_stream_sleep (blocking, DELAY_US), cudaSuccess);
  assert_cuda (cudaEventRecord (on_blocking, blocking), cudaSuccess);
  assert_cuda (cudaEventRecord (on_legacy, NULL), cudaSuccess);
  g_assert_false (completes_within (on_legacy, DELAY_US / 2));
  assert_cuda (cudaEventSynchronize (on_legacy), cudaSuccess);
  assert_cuda (cudaEventQuery (on_blocking), cudaSuccess);

  /* Blocking work after a legacy pause waits for it, non-blocking work
   * does not. */
  assert_cuda (fakecuda_stream_sleep (NULL, DELAY_US), cudaSuccess);
  assert_cuda (cudaEventRecord (on_nonblocking, nonblocking), cudaSuccess);
  assert_cuda (cudaEventRecord (on_blocking, blocking), cudaSuccess);
  g_assert_true (completes_within (on_nonblocking, DELAY_US / 2));
  assert_cuda (cudaEventQuery (on_blocking), cudaErrorNotReady);
  assert_cuda (cudaDeviceSynchronize (), cudaSuccess);
  assert_cuda (cudaEventQuery (on_blocking), cudaSuccess);

  assert_cuda (cudaStreamDestroy (blocking), cudaSuccess);
  assert_cuda (cudaStreamDestroy (nonblocking), cudaSuccess);
  cudaEventDestroy (on_blocking);
  cudaEventDestroy (on_legacy);
  cudaEventDestroy (on_nonblocking);
}

/* A destroyed stream's handle comes back for the next stream, while the
 * old stream's queued work still runs: a handle does not name a stream. */
static void
test_stream_handles_are_reused (void)
{
  cudaStream_t first, second;
  cudaEvent_t old = new_event (), fresh = new_event ();

  assert_cuda (cudaStreamCreateWithFlags (&first, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (fakecuda_stream_sleep (first, DELAY_US), cudaSuccess);
  assert_cuda (cudaEventRecord (old, first), cudaSuccess);
  assert_cuda (cudaStreamDestroy (first), cudaSuccess);
  assert_cuda (cudaEventRecord (old, first), cudaErrorInvalidResourceHandle);

  assert_cuda (cudaStreamCreateWithFlags (&second, cudaStreamNonBlocking),
      cudaSuccess);
  g_assert_true (second == first);
  /* A new stream: nothing of the old one's queue is ahead of it. */
  assert_cuda (cudaEventRecord (fresh, second), cudaSuccess);
  g_assert_true (completes_within (fresh, DELAY_US / 2));
  assert_cuda (cudaEventQuery (old), cudaErrorNotReady);
  assert_cuda (cudaEventSynchronize (old), cudaSuccess);

  assert_cuda (cudaStreamDestroy (second), cudaSuccess);
  cudaEventDestroy (old);
  cudaEventDestroy (fresh);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (fakecuda_version (), >, 0);

  g_test_add_func ("/fakecuda/legacy-stream-is-async",
      test_legacy_stream_is_async);
  g_test_add_func ("/fakecuda/legacy-stream-and-blocking-streams",
      test_legacy_stream_and_blocking_streams);
  g_test_add_func ("/fakecuda/stream-handles-are-reused",
      test_stream_handles_are_reused);

  return g_test_run ();
}
