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
 * stick (a faulting kernel drops the device's queued work), pageable
 * copies are bounds-checked, held-back copies land in pieces, freeing
 * memory that queued work still uses is caught, so is unmapping registered
 * pages, device pointers are valid in their own context only, and the
 * driver counts primary retains. */

#include <glib.h>
#include <glib/gstdio.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "fakecuda.h"

#define DELAY_US 300000

/* Reads that race the stand-in's copy on purpose (what an unfenced reader
 * sees): ThreadSanitizer's annotations leave them out, and only them; the
 * copy's writes and every later access are still checked. */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreReadsBegin (const char *file, int line);
void AnnotateIgnoreReadsEnd (const char *file, int line);
#define RACY_READS_BEGIN() AnnotateIgnoreReadsBegin (__FILE__, __LINE__)
#define RACY_READS_END() AnnotateIgnoreReadsEnd (__FILE__, __LINE__)
#else
#define RACY_READS_BEGIN() G_STMT_START { } G_STMT_END
#define RACY_READS_END() G_STMT_START { } G_STMT_END
#endif

static void
assert_cuda_at (cudaError_t result, cudaError_t expected, int line)
{
  if (result != expected)
    g_error ("line %d: %s where %s was expected", line,
        cudaGetErrorName (result), cudaGetErrorName (expected));
}

#define assert_cuda(result, expected) \
  assert_cuda_at ((result), (expected), __LINE__)

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

static void CUDART_CB
note_ran (void *data)
{
  g_atomic_int_set ((gint *) data, 1);
}

/* A destroyed stream's thread runs its queued work, then ends: the join
 * the fuzz targets call before a leak check returns only after it has. */
static void
test_join_waits_for_ending_streams (void)
{
  cudaStream_t s;
  gint ran = 0;

  assert_cuda (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (fakecuda_stream_sleep (s, DELAY_US), cudaSuccess);
  assert_cuda (cudaLaunchHostFunc (s, note_ran, &ran), cudaSuccess);
  assert_cuda (cudaStreamDestroy (s), cudaSuccess);
  g_assert_cmpint (g_atomic_int_get (&ran), ==, 0);
  fakecuda_join_ended_streams ();
  g_assert_cmpint (g_atomic_int_get (&ran), ==, 1);
}

/* A copy that fails when its stream gets there: the call succeeds, the
 * failure shows at the next query or synchronization, the copy moves no
 * byte, and the error sticks to the device until reset. */
static void
test_deferred_sticky_error (void)
{
  cudaStream_t stream;
  cudaEvent_t before = new_event (), after = new_event ();
  guint8 *host, *dev;
  gsize size = 4096;

  assert_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaHostAlloc ((void **) &host, size, 0), cudaSuccess);
  assert_cuda (cudaMalloc ((void **) &dev, size), cudaSuccess);
  memset (host, 0x11, size);
  assert_cuda (cudaMemcpy (dev, host, size, cudaMemcpyHostToDevice),
      cudaSuccess);
  memset (host, 0x22, size);
  cudaGetLastError ();

  fakecuda_fail_async ("cudaMemcpyAsync", 0, 1, cudaErrorIllegalAddress);
  assert_cuda (fakecuda_stream_sleep (stream, DELAY_US / 2), cudaSuccess);
  assert_cuda (cudaEventRecord (before, stream), cudaSuccess);
  assert_cuda (cudaMemcpyAsync (dev, host, size, cudaMemcpyHostToDevice,
          stream), cudaSuccess);
  assert_cuda (cudaEventRecord (after, stream), cudaSuccess);
  /* Not reached yet: nothing to report. */
  assert_cuda (cudaEventQuery (after), cudaErrorNotReady);
  assert_cuda (cudaGetLastError (), cudaSuccess);

  assert_cuda (cudaEventSynchronize (after), cudaErrorIllegalAddress);
  /* Sticky: every later call reports it, an earlier event's query too. */
  assert_cuda (cudaEventQuery (before), cudaErrorIllegalAddress);
  assert_cuda (cudaStreamSynchronize (stream), cudaErrorIllegalAddress);
  assert_cuda (cudaMalloc ((void **) &dev, size), cudaErrorIllegalAddress);
  assert_cuda (cudaGetLastError (), cudaErrorIllegalAddress);
  assert_cuda (cudaGetLastError (), cudaErrorIllegalAddress);

  fakecuda_reset ();
  assert_cuda (cudaGetLastError (), cudaSuccess);
  /* The failed copy moved nothing. */
  memset (host, 0, size);
  assert_cuda (cudaMemcpy (host, dev, size, cudaMemcpyDeviceToHost),
      cudaSuccess);
  g_assert_cmpuint (host[0], ==, 0x11);
  g_assert_cmpuint (host[size - 1], ==, 0x11);

  assert_cuda (cudaFree (dev), cudaSuccess);
  assert_cuda (cudaFreeHost (host), cudaSuccess);
  assert_cuda (cudaStreamDestroy (stream), cudaSuccess);
  cudaEventDestroy (before);
  cudaEventDestroy (after);
}

/* On a poisoned device calls that release still release (and say why they
 * might not have), so that teardown after a failure leaks nothing. */
static void
test_release_on_poisoned_device (void)
{
  cudaStream_t stream;
  cudaEvent_t ev = new_event ();
  void *dev, *host;
  guint64 frees = fakecuda_call_count ("cudaFree");

  assert_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaMalloc (&dev, 256), cudaSuccess);
  assert_cuda (cudaHostAlloc (&host, 256, 0), cudaSuccess);
  fakecuda_fail_async ("cudaMemsetAsync", 0, 1, cudaErrorLaunchFailure);
  assert_cuda (cudaMemsetAsync (dev, 0, 256, stream), cudaSuccess);
  assert_cuda (cudaStreamSynchronize (stream), cudaErrorLaunchFailure);

  assert_cuda (cudaFree (dev), cudaErrorLaunchFailure);
  assert_cuda (cudaFreeHost (host), cudaErrorLaunchFailure);
  assert_cuda (cudaEventDestroy (ev), cudaErrorLaunchFailure);
  assert_cuda (cudaStreamDestroy (stream), cudaErrorLaunchFailure);
  fakecuda_reset ();
  /* Released indeed: a second free finds nothing. */
  assert_cuda (cudaFree (dev), cudaErrorInvalidValue);
  assert_cuda (cudaFreeHost (host), cudaErrorInvalidValue);
  g_assert_cmpuint (fakecuda_call_count ("cudaFree") - frees, ==, 2);
}

/* nvcc's registration of a kernel, which the selftest makes by hand. */
void __cudaRegisterFunction (void **handle, const char *hostFun,
    char *deviceFun, const char *deviceName, int thread_limit, uint3 * tid,
    uint3 * bid, dim3 * bDim, dim3 * gDim, int *wSize);

static gint kernels_run;

/* Host stubs: launched by address, as nvcc's launch code does. */
static void
fault_stub (void)
{
}

static void
count_stub (void)
{
}

static void *
bind_nothing (void **args, dim3 grid, dim3 block)
{
  /* A closure all the same: the stand-in frees it, run or dropped. */
  return g_malloc0 (16);
}

static void
fault_run (void *closure)
{
  fakecuda_kernel_fault (cudaErrorIllegalAddress);
}

static void
count_run (void *closure)
{
  g_atomic_int_inc (&kernels_run);
}

static void
register_kernel (void (*stub) (void), const gchar * name, FakecudaKernelRun run)
{
  __cudaRegisterFunction (NULL, (const char *) stub, (char *) name, name, -1,
      NULL, NULL, NULL, NULL, NULL);
  fakecuda_register_kernel (name, bind_nothing, run);
}

static cudaError_t
launch (void (*stub) (void), cudaStream_t stream)
{
  dim3 one = { 1, 1, 1 };

  return cudaLaunchKernel ((const void *) stub, one, one, NULL, 0, stream);
}

/* A kernel that faults: as on a GPU whose context the fault killed, the
 * work queued before it on another stream never runs (a copy moves no
 * byte, a kernel is not run), the error shows at the next synchronization
 * and sticks; freeing memory that the dropped work touched is no misuse
 * (it waits for the work to drain) and returns the error. */
static void
test_kernel_fault_drops_queued_work (void)
{
  cudaStream_t faulting, other;
  cudaEvent_t ev = new_event ();
  guint8 *host, *dev, check[256];

  register_kernel (fault_stub, "selftest_fault", fault_run);
  register_kernel (count_stub, "selftest_count", count_run);
  assert_cuda (cudaStreamCreateWithFlags (&faulting, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaStreamCreateWithFlags (&other, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaHostAlloc ((void **) &host, sizeof (check), 0), cudaSuccess);
  assert_cuda (cudaMalloc ((void **) &dev, sizeof (check)), cudaSuccess);
  memset (host, 0x11, sizeof (check));
  assert_cuda (cudaMemcpy (dev, host, sizeof (check),
          cudaMemcpyHostToDevice), cudaSuccess);
  memset (host, 0x55, sizeof (check));
  cudaGetLastError ();

  /* Queued before the fault, behind a pause: */
  assert_cuda (fakecuda_stream_sleep (other, DELAY_US), cudaSuccess);
  assert_cuda (cudaMemcpyAsync (dev, host, sizeof (check),
          cudaMemcpyHostToDevice, other), cudaSuccess);
  assert_cuda (launch (count_stub, other), cudaSuccess);
  assert_cuda (cudaEventRecord (ev, other), cudaSuccess);
  /* A kernel that runs fine first: emulations run. Held back a little, so
   * that the launches return before the fault (else the launch's own
   * error check may already see it, as on a GPU). */
  assert_cuda (fakecuda_stream_sleep (faulting, DELAY_US / 3), cudaSuccess);
  assert_cuda (launch (count_stub, faulting), cudaSuccess);
  assert_cuda (launch (fault_stub, faulting), cudaSuccess);
  assert_cuda (cudaGetLastError (), cudaSuccess);

  assert_cuda (cudaStreamSynchronize (faulting), cudaErrorIllegalAddress);
  g_assert_cmpint (g_atomic_int_get (&kernels_run), ==, 1);
  /* The copy is still queued: its memory may go all the same. */
  assert_cuda (cudaEventQuery (ev), cudaErrorIllegalAddress);
  assert_cuda (cudaFreeHost (host), cudaErrorIllegalAddress);
  assert_cuda (launch (count_stub, faulting), cudaErrorIllegalAddress);
  assert_cuda (cudaStreamSynchronize (other), cudaErrorIllegalAddress);
  g_assert_cmpint (g_atomic_int_get (&kernels_run), ==, 1);
  assert_cuda (cudaGetLastError (), cudaErrorIllegalAddress);

  fakecuda_reset ();
  assert_cuda (cudaGetLastError (), cudaSuccess);
  assert_cuda (cudaMemcpy (check, dev, sizeof (check),
          cudaMemcpyDeviceToHost), cudaSuccess);
  g_assert_cmpuint (check[0], ==, 0x11);
  g_assert_cmpuint (check[sizeof (check) - 1], ==, 0x11);

  assert_cuda (cudaFree (dev), cudaSuccess);
  assert_cuda (cudaStreamDestroy (faulting), cudaSuccess);
  assert_cuda (cudaStreamDestroy (other), cudaSuccess);
  cudaEventDestroy (ev);
}

/* A pageable buffer of known size: copies that run past its end fail,
 * in either direction, 1D and 2D, and it cannot be registered past its
 * end. */
static void
test_pageable_bounds (void)
{
  gsize size = 1000;
  guint8 *pageable = g_malloc (size + 64);
  void *dev;

  assert_cuda (cudaMalloc (&dev, 2 * size), cudaSuccess);
  memset (pageable, 0x33, size + 64);
  fakecuda_track_host_range (pageable, size);

  assert_cuda (cudaMemcpy (dev, pageable, size, cudaMemcpyHostToDevice),
      cudaSuccess);
  assert_cuda (cudaMemcpy (dev, pageable, size + 1, cudaMemcpyHostToDevice),
      cudaErrorInvalidValue);
  assert_cuda (cudaMemcpy (pageable + 1, dev, size, cudaMemcpyDeviceToHost),
      cudaErrorInvalidValue);
  /* 10 rows of 90 bytes 100 apart end at byte 990: inside. 11 rows: not. */
  assert_cuda (cudaMemcpy2D (dev, 90, pageable, 100, 90, 10,
          cudaMemcpyHostToDevice), cudaSuccess);
  assert_cuda (cudaMemcpy2D (pageable, 100, dev, 90, 90, 11,
          cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_cuda (cudaHostRegister (pageable, size + 1, 0), cudaErrorInvalidValue);
  assert_cuda (cudaHostRegister (pageable, size, 0), cudaSuccess);
  assert_cuda (cudaHostUnregister (pageable), cudaSuccess);
  cudaGetLastError ();

  fakecuda_untrack_host_range (pageable);
  /* Untracked, the same over-read goes unnoticed, as on CUDA. */
  assert_cuda (cudaMemcpy (dev, pageable, size + 1, cudaMemcpyHostToDevice),
      cudaSuccess);
  assert_cuda (cudaFree (dev), cudaSuccess);
  g_free (pageable);
}

/* Memory registered in place is page-locked within the registration only:
 * a DMA that runs past its end fails, a copy between two host buffers (a
 * CPU copy) reads on into the caller's memory. */
static void
test_registered_in_part (void)
{
  gsize page = 4096;
  guint8 *buffer = g_malloc0 (3 * page), *out = g_malloc0 (page);
  guint8 *inner = buffer + page;
  void *dev;

  assert_cuda (cudaMalloc (&dev, page), cudaSuccess);
  memset (buffer, 0x44, 3 * page);
  assert_cuda (cudaHostRegister (inner, page, 0), cudaSuccess);

  assert_cuda (cudaMemcpy (dev, inner + page / 2, page,
          cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  assert_cuda (cudaMemcpy2D (out, 64, inner + page - 64, 128, 64, 8,
          cudaMemcpyHostToHost), cudaSuccess);
  g_assert_cmpint (out[0], ==, 0x44);
  g_assert_cmpint (out[7 * 64 + 63], ==, 0x44);

  assert_cuda (cudaHostUnregister (inner), cudaSuccess);
  cudaGetLastError ();
  assert_cuda (cudaFree (dev), cudaSuccess);
  g_free (out);
  g_free (buffer);
}

/* A held-back copy lands in pieces: polling the destination sees part of
 * the new bytes before all of them. */
static void
test_held_back_copy_lands_in_pieces (void)
{
  cudaStream_t stream;
  gsize size = 1 << 20, i, changed;
  guint8 *src, *dst;
  gboolean torn = FALSE;
  gint64 end;

  assert_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaHostAlloc ((void **) &src, size, 0), cudaSuccess);
  assert_cuda (cudaHostAlloc ((void **) &dst, size, 0), cudaSuccess);
  memset (src, 0x44, size);
  memset (dst, 0x00, size);

  fakecuda_set_copy_delay (4 * DELAY_US);
  assert_cuda (cudaMemcpyAsync (dst, src, size, cudaMemcpyHostToHost,
          stream), cudaSuccess);
  fakecuda_reset ();

  end = g_get_monotonic_time () + 8 * DELAY_US;
  do {
    /* Racing the copy on purpose: this is what an unfenced reader sees. */
    RACY_READS_BEGIN ();
    for (i = 0, changed = 0; i < size; i += 4096)
      changed += ((volatile guint8 *) dst)[i] == 0x44;
    RACY_READS_END ();
    torn |= changed > 0 && changed < size / 4096;
    g_usleep (5000);
  } while (changed < size / 4096 && g_get_monotonic_time () < end);
  g_assert_true (torn);
  assert_cuda (cudaStreamSynchronize (stream), cudaSuccess);
  g_assert_cmpuint (dst[size - 1], ==, 0x44);

  assert_cuda (cudaFreeHost (src), cudaSuccess);
  assert_cuda (cudaFreeHost (dst), cudaSuccess);
  assert_cuda (cudaStreamDestroy (stream), cudaSuccess);
}

/* cudaFree() does not synchronize the device (CUDA's does)... */
static void
test_free_does_not_synchronize (void)
{
  cudaStream_t stream;
  cudaEvent_t ev = new_event ();
  void *dev;
  gint64 start;

  assert_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaMalloc (&dev, 256), cudaSuccess);
  assert_cuda (fakecuda_stream_sleep (stream, DELAY_US), cudaSuccess);
  assert_cuda (cudaEventRecord (ev, stream), cudaSuccess);
  start = g_get_monotonic_time ();
  assert_cuda (cudaFree (dev), cudaSuccess);
  g_assert_cmpint (g_get_monotonic_time () - start, <, DELAY_US / 2);
  assert_cuda (cudaEventQuery (ev), cudaErrorNotReady);
  assert_cuda (cudaStreamSynchronize (stream), cudaSuccess);
  assert_cuda (cudaStreamDestroy (stream), cudaSuccess);
  cudaEventDestroy (ev);
}

/* ... and freeing memory that queued work still touches stops the
 * process with a message, rather than working by the grace of CUDA's
 * synchronization. */
static void
test_free_in_use_is_caught (void)
{
  if (g_test_subprocess ()) {
    cudaStream_t stream;
    void *dev, *host;

    cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
    cudaMalloc (&dev, 256);
    cudaHostAlloc (&host, 256, 0);
    fakecuda_stream_sleep (stream, DELAY_US);
    cudaMemcpyAsync (host, dev, 256, cudaMemcpyDeviceToHost, stream);
    cudaFreeHost (host);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*cudaFreeHost (*) while 1 queued operation(s) "
      "still use the memory*");
}

/* Pages registered with cudaHostRegister() are unregistered before they
 * are unmapped: CUDA keeps them page-locked past the mapping, and copies
 * at those addresses then use them, not what is mapped there later. The
 * stand-in stops the process at such an munmap(), here GLib's (a library
 * whose call names libc's munmap, as libgstallocators' fd memory does);
 * unregistered first, the mapping goes as any. */
#ifdef FAKECUDA_CATCH_MUNMAP
static GMappedFile *
map_file_of (gsize size)
{
  gchar *path = NULL, *zeros = g_malloc0 (size);
  GMappedFile *file;
  gint fd;

  fd = g_file_open_tmp ("fakecuda-XXXXXX", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, zeros, size), ==, (gssize) size);
  close (fd);
  file = g_mapped_file_new (path, TRUE, NULL);
  g_assert_nonnull (file);
  g_unlink (path);
  g_free (path);
  g_free (zeros);
  return file;
}
#endif

static void
test_unmap_registered_is_caught (void)
{
#ifdef FAKECUDA_CATCH_MUNMAP
  gsize size = 64 * 1024;
  GMappedFile *file;

  if (g_test_subprocess ()) {
    file = map_file_of (size);
    cudaHostRegister (g_mapped_file_get_contents (file), size,
        cudaHostRegisterPortable);
    g_mapped_file_unref (file);
    return;
  }

  file = map_file_of (size);
  assert_cuda (cudaHostRegister (g_mapped_file_get_contents (file), size,
          cudaHostRegisterPortable), cudaSuccess);
  assert_cuda (cudaHostUnregister (g_mapped_file_get_contents (file)),
      cudaSuccess);
  g_mapped_file_unref (file);

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*munmap (*, 65536) of pages registered with "
      "cudaHostRegister (*, 65536)*");
#else
  g_test_skip ("munmap() is not caught on this architecture");
#endif
}

static void
test_event_flags (void)
{
  cudaEvent_t ev;

  assert_cuda (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming |
          cudaEventBlockingSync), cudaSuccess);
  g_assert_cmpuint (fakecuda_event_flags (ev), ==, cudaEventDisableTiming |
      cudaEventBlockingSync);
  cudaEventDestroy (ev);
}

/* A device pointer is valid in the context that allocated it only: a copy
 * that names it in another context of the same device fails (as kernels
 * would fault there), and succeeds back in its own. */
static void
test_pointers_valid_in_their_context (void)
{
  void *mine, *other, *host;

  assert_cuda (cudaMalloc (&mine, 256), cudaSuccess);
  assert_cuda (cudaHostAlloc (&host, 256, 0), cudaSuccess);
  fakecuda_make_current_context (0, 0x1234);
  assert_cuda (cudaMalloc (&other, 256), cudaSuccess);
  assert_cuda (cudaMemcpy (host, other, 256, cudaMemcpyDeviceToHost),
      cudaSuccess);
  assert_cuda (cudaMemcpy (host, mine, 256, cudaMemcpyDeviceToHost),
      cudaErrorInvalidValue);
  assert_cuda (cudaMemcpy (other, mine, 256, cudaMemcpyDeviceToDevice),
      cudaErrorInvalidValue);
  fakecuda_make_current (0);
  assert_cuda (cudaMemcpy (host, other, 256, cudaMemcpyDeviceToHost),
      cudaErrorInvalidValue);
  assert_cuda (cudaMemcpy (host, mine, 256, cudaMemcpyDeviceToHost),
      cudaSuccess);
  fakecuda_make_current_context (0, 0x1234);
  assert_cuda (cudaFree (other), cudaSuccess);
  fakecuda_make_current (0);
  assert_cuda (cudaFree (mine), cudaSuccess);
  assert_cuda (cudaFreeHost (host), cudaSuccess);
}

/* The driver stand-in (libcuda.so.1, opened as libgstcuda opens it)
 * counts the retains of a device's primary context: each release takes
 * one back, and a release without a retain fails, as in CUDA, so that a
 * test can see them balance. */
static void
test_driver_primary_retains_counted (void)
{
  gpointer driver = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int (*init) (unsigned int);
  int (*retain) (void **, int);
  int (*release) (int);
  int (*retained) (int);
  void *ctx = NULL, *again = NULL;

  g_assert_nonnull (driver);
  init = dlsym (driver, "cuInit");
  retain = dlsym (driver, "cuDevicePrimaryCtxRetain");
  release = dlsym (driver, "cuDevicePrimaryCtxRelease_v2");
  retained = dlsym (driver, "fakecuda_driver_primary_retained");
  g_assert_true (init && retain && release && retained);

  g_assert_cmpint (init (0), ==, 0);
  g_assert_cmpint (retained (1), ==, 0);
  g_assert_cmpint (retain (&ctx, 1), ==, 0);
  g_assert_cmpint (retain (&again, 1), ==, 0);
  g_assert_true (ctx == again);
  g_assert_cmpint (retained (1), ==, 2);
  g_assert_cmpint (retained (0), ==, 0);
  g_assert_cmpint (release (1), ==, 0);
  g_assert_cmpint (retained (1), ==, 1);
  g_assert_cmpint (release (1), ==, 0);
  g_assert_cmpint (retained (1), ==, 0);
  /* CUDA_ERROR_INVALID_CONTEXT */
  g_assert_cmpint (release (1), ==, 201);
  g_assert_cmpint (retained (1), ==, 0);
  /* Left loaded, as libgstcuda leaves it: unloading it would lose the
   * state cuInit made (memcheck counts that as a leak). */
}

/* The driver calls newer libgstcuda loads (1.24: events; 1.26: plain
 * copies and memsets): a 16-bit memset of a pitched area, taken back row
 * by row through cuMemcpyDtoHAsync after an event, lands where it should
 * and nowhere else; so does an 8-bit one without a stream. */
static void
test_driver_copies_and_memsets (void)
{
  gpointer driver = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int (*init) (unsigned int);
  int (*retain) (void **, int);
  int (*push) (void *);
  int (*pop) (void **);
  int (*release) (int);
  int (*alloc) (unsigned long long *, size_t);
  int (*free_dev) (unsigned long long);
  int (*htod) (unsigned long long, const void *, size_t);
  int (*memset16) (unsigned long long, size_t, unsigned short, size_t,
      size_t, void *);
  int (*memset8) (unsigned long long, size_t, unsigned char, size_t, size_t);
  int (*dtoh) (void *, unsigned long long, size_t, void *);
  int (*dtoh_sync) (void *, unsigned long long, size_t);
  int (*event_create) (void **, unsigned int);
  int (*event_record) (void *, void *);
  int (*event_sync) (void *);
  int (*event_destroy) (void *);
  void *ctx = NULL, *event = NULL, *popped = NULL;
  unsigned long long dev = 0;
  guint16 host[4][8];
  guint8 zeros[4 * 16] = { 0 };
  cudaStream_t s;
  guint x, y;

  g_assert_nonnull (driver);
  init = dlsym (driver, "cuInit");
  retain = dlsym (driver, "cuDevicePrimaryCtxRetain");
  push = dlsym (driver, "cuCtxPushCurrent_v2");
  pop = dlsym (driver, "cuCtxPopCurrent_v2");
  release = dlsym (driver, "cuDevicePrimaryCtxRelease_v2");
  alloc = dlsym (driver, "cuMemAlloc_v2");
  free_dev = dlsym (driver, "cuMemFree_v2");
  htod = dlsym (driver, "cuMemcpyHtoD_v2");
  memset16 = dlsym (driver, "cuMemsetD2D16Async");
  memset8 = dlsym (driver, "cuMemsetD2D8_v2");
  dtoh = dlsym (driver, "cuMemcpyDtoHAsync_v2");
  dtoh_sync = dlsym (driver, "cuMemcpyDtoH_v2");
  event_create = dlsym (driver, "cuEventCreate");
  event_record = dlsym (driver, "cuEventRecord");
  event_sync = dlsym (driver, "cuEventSynchronize");
  event_destroy = dlsym (driver, "cuEventDestroy_v2");
  g_assert_true (init && retain && push && pop && release && alloc &&
      free_dev && htod && memset16 && memset8 && dtoh && dtoh_sync &&
      event_create && event_record && event_sync && event_destroy);

  g_assert_cmpint (init (0), ==, 0);
  g_assert_cmpint (retain (&ctx, 0), ==, 0);
  g_assert_cmpint (push (ctx), ==, 0);
  assert_cuda (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking),
      cudaSuccess);
  /* four rows of a 16-byte pitch, zeroed; three 16-bit values a row set */
  g_assert_cmpint (alloc (&dev, sizeof (zeros)), ==, 0);
  g_assert_cmpint (htod (dev, zeros, sizeof (zeros)), ==, 0);
  /* held back: the event must wait for the memset and the copies */
  assert_cuda (fakecuda_stream_sleep (s, 20000), cudaSuccess);
  g_assert_cmpint (memset16 (dev + 2, 16, 0xbeef, 3, 4, s), ==, 0);
  for (y = 0; y < 4; y++)
    g_assert_cmpint (dtoh (host[y], dev + y * 16, 16, s), ==, 0);
  g_assert_cmpint (event_create (&event, 0), ==, 0);
  g_assert_cmpint (event_record (event, s), ==, 0);
  g_assert_cmpint (event_sync (event), ==, 0);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 8; x++)
      g_assert_cmpuint (host[y][x], ==, x >= 1 && x <= 3 ? 0xbeef : 0);
  /* a memset whose rows are wider than the pitch is refused */
  g_assert_cmpint (memset16 (dev, 4, 0, 3, 2, s), ==, 1);
  /* a byte value, without a stream: on the legacy default stream, which
   * the synchronous copy after it waits for */
  g_assert_cmpint (memset8 (dev + 16 + 8, 16, 0x5a, 4, 2), ==, 0);
  g_assert_cmpint (dtoh_sync (host, dev, sizeof (host)), ==, 0);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 8; x++)
      g_assert_cmpuint (host[y][x], ==, (y == 1 || y == 2) && x >= 4 &&
          x <= 5 ? 0x5a5a : x >= 1 && x <= 3 ? 0xbeef : 0);

  g_assert_cmpint (event_destroy (event), ==, 0);
  g_assert_cmpint (free_dev (dev), ==, 0);
  assert_cuda (cudaStreamDestroy (s), cudaSuccess);
  g_assert_cmpint (pop (&popped), ==, 0);
  g_assert_true (popped == ctx);
  g_assert_cmpint (release (0), ==, 0);
}

/* CUDA_MEMCPY2D, as cuda.h declares it (which the stand-in's tests do
 * not include, as the driver stand-in does not). */
typedef struct
{
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  unsigned long long srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  unsigned long long dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} Memcpy2D;

#define MEMORYTYPE_HOST 1
#define MEMORYTYPE_DEVICE 2
#define MEMORYTYPE_ARRAY 3

/* A 2D copy host -> device -> host through the driver's cuMemcpy2D comes
 * back bit-exact, rows padded differently on each side, the padding left
 * alone; the same through cuMemcpy2DAsync into page-locked memory lands
 * only when its stream gets there, which an event recorded behind it and
 * synchronized waits for. The copies follow the memory types they are
 * given: a device pointer given as host memory, or a CUDA array, fails. */
static void
test_driver_event_and_copy_2d (void)
{
  gpointer driver = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int (*init) (unsigned int);
  int (*retain) (void **, int);
  int (*push) (void *);
  int (*pop) (void **);
  int (*release) (int);
  int (*alloc_pitch) (unsigned long long *, size_t *, size_t, size_t,
      unsigned int);
  int (*free_dev) (unsigned long long);
  int (*alloc_host) (void **, size_t);
  int (*free_host) (void *);
  int (*copy_2d) (const Memcpy2D *);
  int (*copy_2d_async) (const Memcpy2D *, void *);
  int (*stream_create) (void **, unsigned int);
  int (*stream_destroy) (void *);
  int (*event_create) (void **, unsigned int);
  int (*event_record) (void *, void *);
  int (*event_sync) (void *);
  int (*event_destroy) (void *);
  enum
  { W = 100, H = 6, SPITCH = 128, BPITCH = 104 };
  guint8 src[H * SPITCH], back[H * BPITCH], *pinned = NULL;
  void *ctx = NULL, *popped = NULL, *event = NULL, *stream = NULL;
  unsigned long long dev = 0;
  size_t dpitch = 0;
  Memcpy2D up = { 0 }, down = { 0 }, bad;
  guint i, y;

  g_assert_nonnull (driver);
  init = dlsym (driver, "cuInit");
  retain = dlsym (driver, "cuDevicePrimaryCtxRetain");
  push = dlsym (driver, "cuCtxPushCurrent_v2");
  pop = dlsym (driver, "cuCtxPopCurrent_v2");
  release = dlsym (driver, "cuDevicePrimaryCtxRelease_v2");
  alloc_pitch = dlsym (driver, "cuMemAllocPitch_v2");
  free_dev = dlsym (driver, "cuMemFree_v2");
  alloc_host = dlsym (driver, "cuMemAllocHost_v2");
  free_host = dlsym (driver, "cuMemFreeHost");
  copy_2d = dlsym (driver, "cuMemcpy2D_v2");
  copy_2d_async = dlsym (driver, "cuMemcpy2DAsync_v2");
  stream_create = dlsym (driver, "cuStreamCreate");
  stream_destroy = dlsym (driver, "cuStreamDestroy_v2");
  event_create = dlsym (driver, "cuEventCreate");
  event_record = dlsym (driver, "cuEventRecord");
  event_sync = dlsym (driver, "cuEventSynchronize");
  event_destroy = dlsym (driver, "cuEventDestroy_v2");
  g_assert_true (init && retain && push && pop && release && alloc_pitch &&
      free_dev && alloc_host && free_host && copy_2d && copy_2d_async &&
      stream_create && stream_destroy && event_create && event_record &&
      event_sync && event_destroy);

  g_assert_cmpint (init (0), ==, 0);
  g_assert_cmpint (retain (&ctx, 0), ==, 0);
  g_assert_cmpint (push (ctx), ==, 0);

  /* every byte of each row differs from its neighbours' and the rows' */
  for (i = 0; i < sizeof (src); i++)
    src[i] = i % SPITCH < W ? (guint8) (i * 31 + i / SPITCH * 7 + 1) : 0xee;
  memset (back, 0x55, sizeof (back));
  g_assert_cmpint (alloc_pitch (&dev, &dpitch, W, H, 4), ==, 0);
  g_assert_cmpuint (dpitch, >=, W);

  up.srcMemoryType = MEMORYTYPE_HOST;
  up.srcHost = src;
  up.srcPitch = SPITCH;
  up.dstMemoryType = MEMORYTYPE_DEVICE;
  up.dstDevice = dev;
  up.dstPitch = dpitch;
  up.WidthInBytes = W;
  up.Height = H;
  down.srcMemoryType = MEMORYTYPE_DEVICE;
  down.srcDevice = dev;
  down.srcPitch = dpitch;
  down.dstMemoryType = MEMORYTYPE_HOST;
  down.dstHost = back;
  down.dstPitch = BPITCH;
  down.WidthInBytes = W;
  down.Height = H;
  g_assert_cmpint (copy_2d (&up), ==, 0);
  g_assert_cmpint (copy_2d (&down), ==, 0);
  for (y = 0; y < H; y++) {
    g_assert_cmpmem (back + y * BPITCH, W, src + y * SPITCH, W);
    for (i = W; i < BPITCH; i++)
      g_assert_cmpuint (back[y * BPITCH + i], ==, 0x55);
  }

  /* into page-locked memory, held back: done once the event is */
  g_assert_cmpint (alloc_host ((void **) &pinned, sizeof (back)), ==, 0);
  memset (pinned, 0, sizeof (back));
  g_assert_cmpint (stream_create (&stream, 1), ==, 0);
  g_assert_cmpint (event_create (&event, 0), ==, 0);
  assert_cuda (fakecuda_stream_sleep (stream, DELAY_US), cudaSuccess);
  down.dstHost = pinned;
  g_assert_cmpint (copy_2d_async (&down, stream), ==, 0);
  g_assert_cmpint (event_record (event, stream), ==, 0);
  /* the runtime's event: the same object */
  assert_cuda (cudaEventQuery (event), cudaErrorNotReady);
  g_assert_cmpuint (((volatile guint8 *) pinned)[0], ==, 0);
  g_assert_cmpint (event_sync (event), ==, 0);
  assert_cuda (cudaEventQuery (event), cudaSuccess);
  for (y = 0; y < H; y++)
    g_assert_cmpmem (pinned + y * BPITCH, W, src + y * SPITCH, W);

  /* the memory types are the caller's word, checked */
  bad = down;
  bad.srcMemoryType = MEMORYTYPE_HOST;
  bad.srcHost = (const void *) (guintptr) dev;
  /* CUDA_ERROR_INVALID_VALUE */
  g_assert_cmpint (copy_2d (&bad), ==, 1);
  bad = down;
  bad.srcMemoryType = MEMORYTYPE_ARRAY;
  /* CUDA_ERROR_NOT_SUPPORTED */
  g_assert_cmpint (copy_2d (&bad), ==, 801);
  /* an event for other processes must not keep timings:
   * CUDA_ERROR_INVALID_VALUE */
  g_assert_cmpint (event_create (&popped, 4), ==, 1);

  g_assert_cmpint (event_destroy (event), ==, 0);
  g_assert_cmpint (stream_destroy (stream), ==, 0);
  g_assert_cmpint (free_host (pinned), ==, 0);
  g_assert_cmpint (free_dev (dev), ==, 0);
  g_assert_cmpint (pop (&popped), ==, 0);
  g_assert_true (popped == ctx);
  g_assert_cmpint (release (0), ==, 0);
}

/* Stream-ordered allocation: memory from cudaMallocAsync is used by the
 * stream's later work; cudaFreeAsync gives it back when the stream gets
 * there (work before it still runs on it), and work enqueued after the
 * free cannot use it, as in CUDA. */
static void
test_stream_ordered_allocation (void)
{
  cudaStream_t s;
  guint8 *dev, *host;
  gsize size = 4096;

  assert_cuda (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking),
      cudaSuccess);
  assert_cuda (cudaHostAlloc ((void **) &host, size, cudaHostAllocDefault),
      cudaSuccess);
  assert_cuda (cudaMallocAsync ((void **) &dev, size, s), cudaSuccess);
  assert_cuda (cudaMemsetAsync (dev, 0x5a, size, s), cudaSuccess);
  /* held back: the copy out and the free run later, in order */
  assert_cuda (fakecuda_stream_sleep (s, 20000), cudaSuccess);
  assert_cuda (cudaMemcpyAsync (host, dev, size, cudaMemcpyDeviceToHost, s),
      cudaSuccess);
  assert_cuda (cudaFreeAsync (dev, s), cudaSuccess);
  /* freed in stream order: not usable by work enqueued after the free */
  assert_cuda (cudaMemsetAsync (dev, 0, size, s), cudaErrorInvalidValue);
  assert_cuda (cudaStreamSynchronize (s), cudaSuccess);
  g_assert_cmpint (host[0], ==, 0x5a);
  g_assert_cmpint (host[size - 1], ==, 0x5a);
  /* a second free is an error */
  assert_cuda (cudaFreeAsync (dev, s), cudaErrorInvalidValue);
  assert_cuda (cudaFreeHost (host), cudaSuccess);
  assert_cuda (cudaStreamDestroy (s), cudaSuccess);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (fakecuda_version (), >, 0);

  g_test_add_func ("/fakecuda/driver-copies-and-memsets",
      test_driver_copies_and_memsets);
  g_test_add_func ("/fakecuda/driver-event-and-copy-2d",
      test_driver_event_and_copy_2d);
  g_test_add_func ("/fakecuda/legacy-stream-is-async",
      test_legacy_stream_is_async);
  g_test_add_func ("/fakecuda/legacy-stream-and-blocking-streams",
      test_legacy_stream_and_blocking_streams);
  g_test_add_func ("/fakecuda/stream-handles-are-reused",
      test_stream_handles_are_reused);
  g_test_add_func ("/fakecuda/join-waits-for-ending-streams",
      test_join_waits_for_ending_streams);
  g_test_add_func ("/fakecuda/deferred-sticky-error",
      test_deferred_sticky_error);
  g_test_add_func ("/fakecuda/release-on-poisoned-device",
      test_release_on_poisoned_device);
  g_test_add_func ("/fakecuda/kernel-fault-drops-queued-work",
      test_kernel_fault_drops_queued_work);
  g_test_add_func ("/fakecuda/pageable-bounds", test_pageable_bounds);
  g_test_add_func ("/fakecuda/registered-in-part", test_registered_in_part);
  g_test_add_func ("/fakecuda/held-back-copy-lands-in-pieces",
      test_held_back_copy_lands_in_pieces);
  g_test_add_func ("/fakecuda/free-does-not-synchronize",
      test_free_does_not_synchronize);
  g_test_add_func ("/fakecuda/free-in-use-is-caught",
      test_free_in_use_is_caught);
  g_test_add_func ("/fakecuda/unmap-registered-is-caught",
      test_unmap_registered_is_caught);
  g_test_add_func ("/fakecuda/event-flags", test_event_flags);
  g_test_add_func ("/fakecuda/pointers-valid-in-their-context",
      test_pointers_valid_in_their_context);
  g_test_add_func ("/fakecuda/driver-primary-retains-counted",
      test_driver_primary_retains_counted);
  g_test_add_func ("/fakecuda/stream-ordered-allocation",
      test_stream_ordered_allocation);

  return g_test_run ();
}
