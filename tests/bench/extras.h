/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Benchmark rows that are not one pipeline against the link: each prints
 * its own lines (and says what they mean) and returns FALSE when a check
 * of its output failed. */

#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Where the time of one frame in pageable memory goes, step by step:
 * recycled and fresh memory, 1D and pitched copies, registration, staging
 * by hand and through the library with several thread counts. */
gboolean bench_extras_anatomy    (gsize size, guint row_bytes);

/* CPU time of one call of each CUDA runtime call the per-frame path makes,
 * and their sum for one frame of upload ! download. */
gboolean bench_extras_api_costs  (void);

/* A kernel that reads a frame: from device memory after a copy, or in
 * place from mapped page-locked memory (zero copy). */
gboolean bench_extras_mapped     (void);

/* The copy limit rotating over @n buffers each way, page-locked by
 * cudaHostAlloc() and backed by huge pages. */
gboolean bench_extras_hugepages  (gsize size, guint n);

typedef struct
{
  guint frames;
  gdouble period_ms;            /* per frame, from the 10th on */
  gdouble inside_us;            /* median time in the element named el */
  gdouble cores;                /* whole run, start-up included */
  gdouble steady_cores;         /* from the 10th frame on */
  gdouble faults;               /* minor page faults a frame, whole run */
  gsize frame_size;
  GstStructure *stats;          /* el's pageable-stats, if it has them */
} BenchPipelineResult;

/* Runs a launch line to its end; the element named el is timed, the sink
 * named sink counts. */
gboolean bench_extras_pipeline   (const gchar * launch,
                                  BenchPipelineResult * result);

/* A CPU decoder feeding pinnedupload (and cudaupload): the time the upload
 * adds per frame against one page-locked copy of the frame. */
gboolean bench_extras_decoder    (const gchar * clip);

G_END_DECLS
