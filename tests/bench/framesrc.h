/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A source for the benchmark that is never the bottleneck: it writes each
 * buffer of its pool once, then pushes the same buffers over and over, for
 * a given time. Modes:
 *   pool      the pool downstream offers (pinnedupload's page-locked one,
 *             or cudaupload's system-memory one)
 *   pageable  a system-memory pool of its own: upstream ignores the offer
 *   device    device frames (caps with memory:PinnedDevice) from a device
 *             pool of its own, for benchmarking a download alone
 *   fresh     a new system-memory buffer per frame (a file reader, a
 *             decoder with buffers of its own), written each frame, its
 *             bytes a block an earlier frame gave back (as malloc() reuses
 *             freed memory): the same cost whatever holds the frames
 * Each buffer carries in its offset the seed of its content, so that a sink
 * can check what arrived (bench_expected_byte()). */

#pragma once

#include <string.h>
#include <gst/base/gstbasesrc.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define BENCH_TYPE_FRAME_SRC (bench_frame_src_get_type ())
G_DECLARE_FINAL_TYPE (BenchFrameSrc, bench_frame_src, BENCH, FRAME_SRC,
    GstBaseSrc);

typedef enum
{
  BENCH_SOURCE_POOL,
  BENCH_SOURCE_PAGEABLE,
  BENCH_SOURCE_DEVICE,
  BENCH_SOURCE_FRESH,
} BenchSourceMode;

void    bench_frame_src_register  (void);

/* benchpoolsink: a sink that proposes a system-memory video pool of its
 * own upstream, as a display or device sink does. */
void    bench_pool_sink_register  (void);

gboolean bench_frame_verify       (GstBuffer * buf,
                                   const GstVideoInfo * info,
                                   guint64 seed);

/* The content of a frame: byte i of seed s. */
static inline guint8
bench_expected_byte (guint64 seed, gsize index)
{
  return (guint8) (seed * 131 + index * 7 + (index >> 12));
}

/* The same, at the speed of memory, as a file reader or a decoder writes
 * its frames (a loop over the bytes, which the compiler does not vectorise
 * here, wrote about a byte a cycle: the source, not the upload, then set
 * every fresh row's rate). 4096 * 7 is a multiple of 256, so a 4 KiB block
 * is one 256-byte row, starting at its own base, sixteen times. */
static inline void
bench_fill (guint8 * data, gsize size, guint64 seed)
{
  guint8 row[256];
  gsize block, off, j;

  for (block = 0; block * 4096 < size; block++) {
    guint8 base = (guint8) (seed * 131 + block);
    guint8 *d = data + block * 4096;
    gsize n = MIN (4096, size - block * 4096);

    for (j = 0; j < 256; j++)
      row[j] = (guint8) (base + j * 7);
    for (off = 0; off + 256 <= n; off += 256)
      memcpy (d + off, row, 256);
    memcpy (d + off, row, n - off);
  }
}

G_END_DECLS
