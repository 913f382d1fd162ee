/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Helpers shared by the test suites. Each suite runs twice: against the
 * stand-in runtime (GST_PINNED_TEST_MODE=fake, suite 'fake') and against
 * the real one (GST_PINNED_TEST_MODE=gpu, suite 'gpu', skipped with exit
 * code 77 where there is no GPU). */

#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>

G_BEGIN_DECLS

#define PINNED_TEST_SKIP 77

/* Runs @suite in the mode the environment names; exits 77 for 'gpu' mode
 * without a usable device. */
int       pinned_test_main            (int argc, char **argv,
                                       Suite * (*make_suite) (void));

/* For programs that run no suite (the fuzz targets): gst_init(), finds
 * the stand-in and registers pinnedtestfilter, as pinned_test_main()
 * does; a failed assertion then aborts (a fuzzer's crash, its input
 * kept) instead of exiting. */
void      pinned_test_setup           (void);

gboolean  pinned_test_is_fake         (void);

/* @ms of wall-clock time for the holds and waits that must outlast the
 * test's own work: times GST_PINNED_TEST_TIME_SCALE (default 1), which
 * the valgrind test setup raises, since everything runs slower there. */
guint     pinned_test_ms              (guint ms);

/* Whether work enqueued on a stream may still run when the call that
 * enqueued it returns: not under a tool that finishes each copy and
 * kernel before the host goes on (compute-sanitizer's initcheck, which
 * checks each copy's bytes): GST_PINNED_TEST_SYNC_WORK set. A judgement
 * that something was still in flight holds only where this is TRUE. */
gboolean  pinned_test_work_is_async   (void);

/* Holds @stream's later work for @ms: the fake's pause, or a spin kernel on
 * a real GPU. */
void      pinned_test_delay_stream    (GstPinnedStream * stream, guint ms);

/* Fake only (FALSE on a GPU): copies enqueued from now on wait @ms. */
gboolean  pinned_test_set_copy_delay  (guint ms);

/* Fake only: make calls of @function fail. */
gboolean  pinned_test_fail            (const gchar * function, guint skip,
                                       guint count, gint cuda_error);

/* Fake only: the work that calls of @function enqueue fails when its stream
 * reaches it, and the error sticks to the device until
 * pinned_test_reset(). */
gboolean  pinned_test_fail_async      (const gchar * function, guint skip,
                                       guint count, gint cuda_error);

/* Whether the elements use cudaMemcpyBatchAsync: the runtime has it (12.8
 * and later; the stand-in is told otherwise by FAKECUDA_RUNTIME_VERSION)
 * and GST_PINNED_COPY_BATCH is not "single". Where not, a batch's copies
 * go as cudaMemcpyAsync calls. */
gboolean  pinned_test_batched_copies  (void);

/* Fake only: calls of @function so far (0 on a GPU). */
guint64   pinned_test_call_count      (const gchar * function);

/* Fake only: CUDA calls the calling thread made so far (0 on a GPU). */
guint64   pinned_test_thread_call_count (void);

/* Clears fake delays, injected failures and sticky errors. */
void      pinned_test_reset           (void);

/* For a leak check between runs in one process (a fuzzer's after each
 * input): no thread may be ending while it looks, since a thread's
 * thread-local data, which it frees as it ends, is reachable from nowhere
 * then. pinned_test_keep_pool_threads(), once, keeps GLib's idle pool
 * threads (GStreamer's streaming threads among them) instead of ending
 * them at GLib's own time; pinned_test_join_ended_threads(), after each
 * run, joins the stand-in's threads of destroyed streams. */
void      pinned_test_keep_pool_threads (void);
void      pinned_test_join_ended_threads (void);

/* Fills every plane's pixel bytes with pseudo-random data from @seed. */
void      pinned_test_fill_frame      (GstBuffer * buffer,
                                       const GstVideoInfo * info,
                                       guint32 seed);

/* gst_harness_push_and_pull(), but a push that fails fails the test at
 * once (the harness would wait a minute for a buffer that never comes). */
GstBuffer *pinned_test_push_and_pull  (GstHarness * h, GstBuffer * buffer);

/* Fills the whole buffer with @byte, through a map. */
void      pinned_test_fill_bytes      (GstBuffer * buffer, guint8 byte);

/* Rows of @plane and the bytes of a row that hold pixels. */
void      pinned_test_plane_geometry  (const GstVideoInfo * info,
                                       guint plane, guint * rows,
                                       guint * row_bytes);

/* TRUE when the pixel bytes of @a and @b agree, each read in its own
 * layout (GstVideoMeta or @info). Logs the first difference. */
gboolean  pinned_test_frames_equal    (GstBuffer * a, GstBuffer * b,
                                       const GstVideoInfo * info);

/* Pulls the frames of the appsinks "out" and, where @pipeline has one,
 * "ref" (a branch without gst-pinned) until both end: each frame of "out"
 * in the caps of the one beside it, equal to it in visible pixels (frames
 * larger than @look_all_up_to bytes every fifth only; 0: every frame).
 * @what names the case in failures. Returns the frames of "out". */
guint     pinned_test_pull_branches   (GstElement * pipeline,
                                       gsize look_all_up_to,
                                       const gchar * what);

/* TRUE when every byte of the buffer (mapped for READ) is @byte. */
gboolean  pinned_test_all_bytes       (GstBuffer * buffer, guint8 byte);

/* A frame in system memory with the layout of @info padded by @pad bytes
 * at the end of each row, with a GstVideoMeta, filled from @seed. */
GstBuffer *pinned_test_new_padded_frame (const GstVideoInfo * info,
                                         guint pad, guint32 seed);

/* A device for library-level tests: context (device 0), a stream, and
 * page-locked and device allocators. */
typedef struct
{
  GstPinnedContext *ctx;
  GstPinnedStream *stream;
  GstAllocator *host;
  GstAllocator *device;
} PinnedTestDevice;

void      pinned_test_device_init     (PinnedTestDevice * d);
void      pinned_test_device_clear    (PinnedTestDevice * d);

/* A buffer of @size bytes of pageable memory whose last byte is followed
 * by an inaccessible page, and whose bounds the stand-in knows: a copy that
 * reads or writes past its end fails (stand-in) or faults (GPU). */
GstBuffer *pinned_test_new_pageable   (gsize size);

/* The legacy default stream of @ctx's device, wrapped (for delays). */
GstPinnedStream *pinned_test_legacy_stream (GstPinnedContext * ctx);

/* Fake only: copies enqueued from now on land in @pieces pieces. */
gboolean  pinned_test_set_copy_pieces (guint pieces);

/* Fake only: the flags a fence's event was created with (0 on a GPU). */
guint     pinned_test_event_flags     (GstPinnedFence * fence);

/* "pinnedtestfilter": a GstPinnedFilter whose "kernel" is GPU work any
 * runtime has: a device-to-device copy of every plane, then a memset of the
 * first row of plane 0 to "mark"; with "in-place" only the memset; with
 * "delay-ms" the work first holds its stream that long, as a long kernel
 * would. Output: see pinned_test_marked_frame(). Registered by
 * pinned_test_main(). */
#define PINNED_TEST_FILTER "pinnedtestfilter"

/* What pinnedtestfilter makes of @in: a copy in system memory (layout of
 * @info) with the first row of plane 0 set to @mark. */
GstBuffer *pinned_test_marked_frame   (GstBuffer * in,
                                       const GstVideoInfo * info,
                                       guint8 mark);

/* The caps of @info in memory:PinnedDevice (transfer full). */
GstCaps  *pinned_test_device_caps     (const GstVideoInfo * info);

/* The GstPinnedBaseTransform named @name in @bin, or the element itself. */
GstPinnedBaseTransform *pinned_test_get_transform (GstElement * element,
                                                   const gchar * factory);

/* Fails unless @msg is an error message whose text contains @text (NULL:
 * any) and whose debug string contains each of the further strings, up to
 * NULL (the CUDA call and its error name, say). @msg stays the caller's. */
void      pinned_test_check_error       (GstMessage * msg,
                                         const gchar * text,
                                         ...) G_GNUC_NULL_TERMINATED;

/* The guint64 @field of @element's `stats`; fails the test where it has
 * none. */
guint64   pinned_test_stat              (GstElement * element,
                                         const gchar * field);

/* The ids of this process's threads named @name, every thread where %NULL
 * (/proc/self/task; a new thread takes its name once it runs). */
GPtrArray *pinned_test_threads          (const gchar * name);

G_END_DECLS
