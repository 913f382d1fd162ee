/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Churn: many pipeline lifetimes in one process, each a seeded random
 * shape run for a random number of frames and torn down at a random
 * point, one at a time and several at once in threads; every frame that
 * comes out is checked against its source, and the process's resources
 * must come back to what they were after a warm-up.
 *
 * A lifetime: appsrc (frames in the page-locked pool pinnedupload offers,
 * fresh pageable frames, padded pageable frames with a GstVideoMeta, or a
 * plain pool of system memory whose frames come back) ! pinnedupload
 * (batch, batch-timeout, pool-size, pageable-mode, copy-threads,
 * device-alloc, device-id drawn) ! nothing, pinnedbusy or pinnedconvert !
 * pinneddownload ! appsink; some with queues between, some with a tee in
 * device memory before two downloads (and half of them an appsink of the
 * device frames too), some with a tee after the download.
 * Each frame that reaches an appsink is compared with what its source was
 * (visible pixels; pinnedconvert's output with the CPU reference) and must
 * come after the frame before it. Where DLPack is built, some lifetimes
 * export an output as a tensor (gst_pinned_tensor_export_frame) read by a
 * consumer stream that is held back, and release it only after the
 * pipeline is gone; the consumer's bytes must be the frame's.
 *
 * The end of a lifetime, drawn: end of stream (every frame out, in
 * order); set to NULL mid-stream with frames and batches in flight; a
 * flushing seek, more frames and end of stream (every frame after the seek
 * out); set to NULL while another thread seeks; set to NULL from another
 * thread while frames are pushed.
 *
 * GST_PINNED_CHURN_LIFETIMES: lifetimes after the warm-up (default 300; 30
 * under memcheck; the warm-up is a tenth as many, 20 to 200 lifetimes).
 * GST_PINNED_CHURN_SEED: the plan's seed (default 45).
 * GST_PINNED_CHURN_THREADS: at most this many lifetimes at once (default
 * 6). The figures are printed after the warm-up, every tenth of the run and
 * at the end; where they did not come back and GST_TRACERS names the leaks
 * tracer, so is every object it sees alive. */

#include <malloc.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#ifdef PINNED_CHURN_DLPACK
#include <dlpack/dlpack.h>
#include <gst/pinned/gstpinnedtensor.h>
#endif
#include "pinnedtest.h"
#include "convertref.h"
#include "kernelemu.h"

#define FRAME_DURATION (GST_SECOND / 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)

/* ---- what a process holds ---------------------------------------------- */

typedef struct
{
  guint64 rss;                  /* resident bytes, after malloc_trim() */
  guint64 locked;               /* page-locked bytes */
  guint64 device;               /* device bytes in use, every device */
  guint threads;
  guint fds;
} Resources;

/* Resident memory may end up to this much above its warm-up value.
 * Page-locked bytes, device bytes on the stand-in (which counts every
 * allocation exactly), threads and descriptors must come back exactly.
 *
 * Resident memory: read after malloc_trim(), glibc's thresholds fixed
 * (test_churn), it is live memory and what allocators keep for reuse:
 * partly used pages of the malloc arenas (up to 8 a core, each one's
 * fragments where its threads last freed), GSlice's magazines and slabs
 * (GLib before 2.76), the caches GStreamer and GLib grow with use (caps,
 * quarks, type data). CI runs (300 lifetimes after 30 of warm-up, seeds
 * 1, 2, 3 and 45) ended 0.1 to 1.5 MiB above the warm-up. 8 MiB is over
 * five times that, and a leak of 840 bytes a lifetime over 10,000
 * lifetimes, of 28 KiB over the CI run's 300: any frame, pool or pipeline
 * that stayed.
 *
 * Device bytes on a GPU: cudaMemGetInfo() counts the whole device in the
 * 2 MiB pages the driver maps, and the driver's own allocations for the
 * process (stream and event resources, the memory pool of stream-ordered
 * allocations, trimmed before each reading) grow in such pages and stay:
 * 8 pages. A pool of device frames left behind by every 2,000th lifetime
 * is over it. (No other process may use the device meanwhile.) */
#define RSS_NOISE (8 * MIB)
#define GPU_DEVICE_NOISE (16 * MIB)

static guint64
rss_bytes (void)
{
  gchar *statm = NULL;
  guint64 size = 0, resident = 0;

  fail_unless (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
  fail_unless (sscanf (statm, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
          &size, &resident) == 2);
  g_free (statm);
  return resident * sysconf (_SC_PAGESIZE);
}

static guint
count_fds (void)
{
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  fail_unless (dir != NULL);
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

static gint n_devices;

typedef cudaError_t (*DefaultPoolFunc) (cudaMemPool_t *, int);
typedef cudaError_t (*TrimFunc) (cudaMemPool_t, size_t);

static guint64
device_bytes (void)
{
  /* Looked up: the stand-in has no memory pools (and needs no trim). */
  DefaultPoolFunc default_pool = dlsym (RTLD_DEFAULT,
      "cudaDeviceGetDefaultMemPool");
  TrimFunc trim = dlsym (RTLD_DEFAULT, "cudaMemPoolTrimTo");
  guint64 used = 0;
  gint d;

  for (d = 0; d < n_devices; d++) {
    size_t free_bytes = 0, total = 0;

    fail_unless_equals_int (cudaSetDevice (d), cudaSuccess);
    if (!pinned_test_is_fake ()) {
      cudaMemPool_t pool;

      fail_unless_equals_int (cudaDeviceSynchronize (), cudaSuccess);
      if (default_pool && trim && default_pool (&pool, d) == cudaSuccess)
        trim (pool, 0);
    }
    fail_unless_equals_int (cudaMemGetInfo (&free_bytes, &total), cudaSuccess);
    used += total - free_bytes;
  }
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  return used;
}

static void
read_exact (Resources * r)
{
  GPtrArray *threads;

  r->locked = gst_pinned_host_memory_get_locked_bytes ();
  r->device = device_bytes ();
  threads = pinned_test_threads (NULL);
  r->threads = threads->len;
  g_ptr_array_unref (threads);
  r->fds = count_fds ();
}

static gboolean
exact_equal (const Resources * a, const Resources * b)
{
  return a->locked == b->locked && a->device == b->device &&
      a->threads == b->threads && a->fds == b->fds;
}

/* Reads the resources once they have settled: equal to @target where one
 * is given, else unchanged, for a second of readings; up to 10 s (times
 * the time scale). An idle thread of GLib's shared pools (GStreamer's
 * tasks, the release thread) waits half a second for more work, then up
 * to 15 s as an unused thread on purpose: unused ones are stopped before
 * each reading. The last frames' memory may go back on other threads (the
 * release thread): hence the wait. */
static void
read_settled (Resources * r, const Resources * target)
{
  Resources last;
  gint64 end = g_get_monotonic_time () + (gint64) pinned_test_ms (10000) * 1000;
  guint same = 0;

  read_exact (&last);
  for (;;) {
    g_thread_pool_stop_unused_threads ();
    g_usleep (100 * 1000);
    read_exact (r);
    if (target ? exact_equal (r, target) : exact_equal (r, &last))
      same++;
    else
      same = 0;
    if (same >= 10 || g_get_monotonic_time () > end)
      break;
    last = *r;
  }
  malloc_trim (0);
  r->rss = rss_bytes ();
}

static void
print_resources (const gchar * when, const Resources * r)
{
  g_print ("churn: %-22s rss %8.2f MiB  page-locked %10" G_GUINT64_FORMAT
      " B  device %10" G_GUINT64_FORMAT " B  threads %3u  fds %3u\n", when,
      r->rss / (double) MIB, r->locked, r->device, r->threads, r->fds);
}

/* ---- one lifetime ------------------------------------------------------ */

typedef enum
{
  SRC_OFFERED_POOL,             /* pinnedupload's page-locked pool */
  SRC_FRESH,                    /* a new pageable frame each time: staged */
  SRC_PADDED,                   /* the same, padded rows and a GstVideoMeta */
  SRC_RECYCLED,                 /* a pool of system memory: registered */
  N_SOURCES
} Source;

static const gchar *source_names[] = { "offered-pool", "fresh-pageable",
  "padded-pageable", "recycled-system"
};

typedef enum
{
  MID_NONE,
  MID_BUSY,
  MID_CONVERT,
} Middle;

typedef enum
{
  SHAPE_LINE,
  SHAPE_QUEUES,
  SHAPE_TEE_DEVICE,             /* tee in device memory, two downloads, and
                                 * in half of them device frames out too */
  SHAPE_TEE_OUT,                /* tee after the download, two appsinks */
  N_SHAPES
} Shape;

typedef enum
{
  END_EOS,
  END_MID_STREAM,
  END_SEEK_THEN_EOS,
  END_DURING_SEEK,
  END_NULL_FROM_THREAD,
  N_ENDS
} Ending;

static const gchar *end_names[] = { "eos", "null-mid-stream",
  "seek-then-eos", "null-during-seek", "null-from-thread"
};

typedef struct _Lifetime Lifetime;

/* What the run did, for its summary (atomic). */
static gint count_ends[N_ENDS], count_grouped, count_pushed, count_out,
    count_in_flight, count_tensors, count_device_tensors;

typedef struct
{
  Lifetime *lt;
  guint id;
  guint n_out;
  gint64 last;                  /* index of the frame before, -1 */
  guint n_after_seek;           /* frames out of index seek_at or later */
  /* The frame exported as a tensor, and its consumer. */
  gpointer tensor;
  cudaStream_t consumer;
  gpointer consumer_copy;       /* device memory the consumer copied into */
  guint8 *snapshot;             /* the tensor's bytes, read at export */
  gsize span;
} Branch;

struct _Lifetime
{
  guint index;
  guint32 seed;
  gchar *desc;
  GstVideoInfo in_info, out_info;
  Source source;
  Middle middle;
  Ending ending;
  guint pad;                    /* row padding of padded frames */
  guint n_frames;               /* to push */
  guint pushed;
  guint seek_at;                /* seek after this many frames */
  guint stop_delay_us;          /* teardown this long after the pushes */
  gboolean tensor;
  guint tensor_at;              /* export the first frame of this index on */
  guint consumer_delay_ms;

  GstElement *pipeline, *src;
  GstBufferPool *pool;
  Branch branches[3];
  guint n_branches;
  gint stopping;                /* atomic: the pipeline is being stopped */
};

static guint32
frame_seed (Lifetime * lt, guint i)
{
  return lt->seed * 2654435761u + i * 40503u + 1;
}

static const gchar *plain_formats[] = { "I420", "NV12", "NV21", "YV12",
  "RGBA", "BGRx", "RGB", "GRAY8", "GRAY16_LE", "YUY2", "UYVY", "I420_10LE",
  "P010_10LE", "Y444", "v210"
};

static const gchar *convert_in[] = { "NV12", "NV21", "I420", "YV12" };

static const gchar *convert_out[] = { "RGBA", "BGRx", "ARGB", "xBGR", "RGBP",
  "BGRP"
};

static const gchar *colorimetries[] = { "bt601", "bt709", "bt2020",
  "1:4:7:1"
};

/* Small sizes first: they are drawn more often. */
static const gint sizes[][2] = { {2, 2}, {16, 16}, {33, 17}, {64, 48},
{66, 50}, {127, 73}, {160, 90}, {320, 240}, {319, 181}, {641, 361},
{1280, 720}, {1917, 1079}, {1920, 1080}
};

#define N_SMALL_SIZES 10

static const gchar *
pick (GRand * r, const gchar ** list, guint n)
{
  return list[g_rand_int_range (r, 0, n)];
}

static void
pick_size (GRand * r, gint * w, gint * h)
{
  /* Large frames on a GPU only, one lifetime in eight. */
  guint n = pinned_test_is_fake () || g_rand_int_range (r, 0, 8) ?
      N_SMALL_SIZES : G_N_ELEMENTS (sizes);
  /* Two draws, the smaller kept: mostly small frames. */
  guint i = MIN (g_rand_int_range (r, 0, n), g_rand_int_range (r, 0, n));

  *w = sizes[i][0];
  *h = sizes[i][1];
}

/* The properties of a copy element, drawn; where @upload, its own. */
static void
append_copy_props (GString * s, GRand * r, gboolean upload)
{
  static const guint batches[] = { 0, 0, 1, 2, 4, 8 };
  static const guint pools[] = { 0, 0, 2, 3, 8 };
  static const gint timeouts[] = { -1, -1, 0, 200, 5000 };
  static const gchar *modes[] = { "auto", "auto", "stage", "register",
    "direct"
  };
  guint batch = batches[g_rand_int_range (r, 0, G_N_ELEMENTS (batches))];
  guint pool = pools[g_rand_int_range (r, 0, G_N_ELEMENTS (pools))];
  gint timeout = timeouts[g_rand_int_range (r, 0, G_N_ELEMENTS (timeouts))];

  if (batch)
    g_string_append_printf (s, " batch=%u", batch);
  if (timeout >= 0)
    g_string_append_printf (s, " batch-timeout=%d", timeout);
  if (pool)
    g_string_append_printf (s, " pool-size=%u", pool);
  if (g_rand_int_range (r, 0, 4) == 0)
    g_string_append (s, " device-alloc=stream-ordered");
  if (upload) {
    const gchar *mode = pick (r, modes, G_N_ELEMENTS (modes));

    if (strcmp (mode, "auto") != 0)
      g_string_append_printf (s, " pageable-mode=%s", mode);
    if (g_rand_int_range (r, 0, 2))
      g_string_append_printf (s, " copy-threads=%d",
          g_rand_int_range (r, 1, 4));
    if (n_devices > 1 && g_rand_int_range (r, 0, 3) == 0)
      g_string_append_printf (s, " device-id=%d",
          g_rand_int_range (r, 0, n_devices));
  }
}

/* Draws the lifetime: its shape, frames and end. */
static void
plan_lifetime (Lifetime * lt)
{
  GRand *r = g_rand_new_with_seed (lt->seed);
  GString *s = g_string_new (NULL);
  Shape shape = g_rand_int_range (r, 0, N_SHAPES);
  gchar *out_caps = NULL;
  gint w, h;
  guint b;

  lt->source = g_rand_int_range (r, 0, N_SOURCES);
  lt->middle = g_rand_int_range (r, 0, 3);
  pick_size (r, &w, &h);
  if (lt->middle == MID_CONVERT) {
    const gchar *in = pick (r, convert_in, G_N_ELEMENTS (convert_in));
    const gchar *out = pick (r, convert_out, G_N_ELEMENTS (convert_out));

    gst_video_info_set_format (&lt->in_info, gst_video_format_from_string
        (in), w, h);
    fail_unless (gst_video_colorimetry_from_string (&lt->in_info.colorimetry,
            pick (r, colorimetries, G_N_ELEMENTS (colorimetries))));
    gst_video_info_set_format (&lt->out_info, gst_video_format_from_string
        (out), w, h);
    out_caps = g_strdup_printf (" ! video/x-raw(memory:PinnedDevice),"
        "format=%s", out);
  } else {
    gst_video_info_set_format (&lt->in_info, gst_video_format_from_string
        (pick (r, plain_formats, G_N_ELEMENTS (plain_formats))), w, h);
    lt->out_info = lt->in_info;
  }
  lt->pad = g_rand_int_range (r, 1, 64);
  lt->n_frames = g_rand_int_range (r, 1, 25);
  lt->ending = g_rand_int_range (r, 0, N_ENDS);
  lt->seek_at = g_rand_int_range (r, 0, lt->n_frames + 1);
  lt->stop_delay_us = g_rand_int_range (r, 0, 3000);
#ifdef PINNED_CHURN_DLPACK
  lt->tensor = g_rand_int_range (r, 0, 3) == 0;
#endif
  lt->tensor_at = g_rand_int_range (r, 0, lt->n_frames);
  lt->consumer_delay_ms = g_rand_int_range (r, 0, 6);

  g_string_append (s, "appsrc name=src ! ");
  if (shape == SHAPE_QUEUES)
    g_string_append (s, "queue ! ");
  g_string_append (s, "pinnedupload");
  append_copy_props (s, r, TRUE);
  if (shape == SHAPE_QUEUES)
    g_string_append (s, " ! queue");
  if (lt->middle == MID_BUSY)
    g_string_append_printf (s, " ! pinnedbusy busy-us=%d",
        g_rand_int_range (r, 0, 400));
  else if (lt->middle == MID_CONVERT)
    g_string_append_printf (s, " ! pinnedconvert%s", out_caps);
  lt->n_branches = shape == SHAPE_TEE_DEVICE || shape == SHAPE_TEE_OUT ? 2 : 1;
  if (shape == SHAPE_TEE_DEVICE) {
    g_string_append (s, " ! tee name=t");
    for (b = 0; b < 2; b++) {
      g_string_append (s, " t. ! queue ! pinneddownload");
      append_copy_props (s, r, FALSE);
      g_string_append_printf (s, " ! appsink name=out%u", b);
    }
    /* The upload's (or the filter's) device frames themselves: read
     * through a CPU map, exported as device tensors. */
    if (g_rand_int_range (r, 0, 2)) {
      g_string_append (s, " t. ! queue ! appsink name=out2");
      lt->n_branches = 3;
    }
  } else {
    if (shape == SHAPE_QUEUES)
      g_string_append (s, " ! queue");
    g_string_append (s, " ! pinneddownload");
    append_copy_props (s, r, FALSE);
    if (shape == SHAPE_TEE_OUT)
      g_string_append (s, " ! tee name=t t. ! queue ! appsink name=out0 "
          "t. ! queue ! appsink name=out1");
    else if (shape == SHAPE_QUEUES)
      g_string_append (s, " ! queue ! appsink name=out0");
    else
      g_string_append (s, " ! appsink name=out0");
  }

  lt->desc = g_strdup_printf ("lifetime %u (seed %u): %s %s %dx%d, %u frames "
      "from %s (pad %u), end %s (seek at %u, %u us)%s: %s", lt->index,
      lt->seed, GST_VIDEO_INFO_NAME (&lt->in_info),
      lt->middle == MID_CONVERT ? GST_VIDEO_INFO_NAME (&lt->out_info) : "",
      w, h, lt->n_frames, source_names[lt->source], lt->pad,
      end_names[lt->ending], lt->seek_at, lt->stop_delay_us,
      lt->tensor ? ", tensor" : "", s->str);
  lt->pipeline = gst_parse_launch (s->str, NULL);
  fail_unless (lt->pipeline != NULL, "%s: not a pipeline", lt->desc);
  g_string_free (s, TRUE);
  g_free (out_caps);
  g_rand_free (r);
}

/* What frame @i of @lt must come out as, in system memory. */
static GstBuffer *
expected_frame (Lifetime * lt, guint i)
{
  GstBuffer *in = gst_buffer_new_allocate (NULL, lt->in_info.size, NULL);
  GstBuffer *out;

  pinned_test_fill_frame (in, &lt->in_info, frame_seed (lt, i));
  if (lt->middle != MID_CONVERT)
    return in;
  out = pinned_test_reference_convert (in, &lt->in_info, &lt->out_info);
  gst_buffer_unref (in);
  return out;
}

#ifdef PINNED_CHURN_DLPACK
/* Bytes from the tensor's first element to its last. */
static gsize
tensor_span (DLTensor * t)
{
  gsize span = 1;
  gint d;

  for (d = 0; d < t->ndim; d++)
    span += (gsize) (t->shape[d] - 1) * (gsize) t->strides[d];
  return span * (t->dtype.bits / 8);
}

/* Exports @buffer (an output of the download, in page-locked memory, or a
 * device frame before it) for a consumer stream that copies it into device
 * memory, held back @lt's consumer delay: the copy is still in flight when
 * the pipeline goes. */
static void
export_tensor (Branch * br, GstBuffer * buffer, const GstVideoInfo * info)
{
  Lifetime *lt = br->lt;
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  GstPinnedContext *ctx;
  GstPinnedStream *wrapped;
  DLManagedTensor *t;
  GError *error = NULL;
  GstMapInfo map;
  guint8 *data, *start;
  gint prev = 0;

  if (gst_buffer_n_memory (buffer) != 1 || !gst_is_pinned_memory (mem))
    return;
  ctx = gst_pinned_buffer_get_context (buffer);
  fail_unless (ctx != NULL);
  fail_unless_equals_int (cudaGetDevice (&prev), cudaSuccess);
  fail_unless_equals_int (cudaSetDevice (gst_pinned_context_get_device_id
          (ctx)), cudaSuccess);
  fail_unless_equals_int (cudaStreamCreateWithFlags (&br->consumer,
          cudaStreamNonBlocking), cudaSuccess);

  t = gst_pinned_tensor_export_frame (buffer, info, br->consumer, 0, &error);
  if (t == NULL && g_error_matches (error, GST_PINNED_TENSOR_ERROR,
          GST_PINNED_TENSOR_ERROR_LAYOUT)) {
    /* A frame of planes that no one tensor holds: its first plane. */
    g_clear_error (&error);
    t = gst_pinned_tensor_export_plane (buffer, info, 0, br->consumer, 0,
        &error);
  }
  if (t == NULL) {
    fail_unless (g_error_matches (error, GST_PINNED_TENSOR_ERROR,
            GST_PINNED_TENSOR_ERROR_LAYOUT), "%s: export: %s", lt->desc,
        error->message);
    g_clear_error (&error);
    cudaStreamDestroy (br->consumer);
    br->consumer = NULL;
    cudaSetDevice (prev);
    return;
  }
  br->tensor = t;
  g_atomic_int_inc (&count_tensors);
  if (gst_is_pinned_device_memory (mem))
    g_atomic_int_inc (&count_device_tensors);
  data = (guint8 *) t->dl_tensor.data + t->dl_tensor.byte_offset;
  br->span = tensor_span (&t->dl_tensor);

  /* The bytes as the CPU reads them now (the map waits for the copy; of
   * device memory it is a copy of its own). */
  start = (guint8 *) ((GstPinnedMemory *) mem)->data + mem->offset;
  fail_unless (data >= start && data + br->span <= start + mem->size,
      "%s: the tensor is not in the frame's memory", lt->desc);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  br->snapshot = g_memdup2 (map.data + (data - start), br->span);
  gst_memory_unmap (mem, &map);

  /* The consumer: held back, then reading the tensor. */
  wrapped = gst_pinned_stream_new_wrapped (ctx, br->consumer);
  pinned_test_delay_stream (wrapped, lt->consumer_delay_ms);
  gst_pinned_stream_unref (wrapped);
  fail_unless_equals_int (cudaMalloc (&br->consumer_copy, br->span),
      cudaSuccess);
  fail_unless_equals_int (cudaMemcpyAsync (br->consumer_copy, data, br->span,
          cudaMemcpyDefault, br->consumer), cudaSuccess);
  fail_unless_equals_int (cudaSetDevice (prev), cudaSuccess);
}

/* The byte of @t's elements where @a and @b differ first, -1: none (the
 * padding between rows is no element: never written, it is not looked
 * at). */
static gssize
tensor_elements_differ (DLTensor * t, const guint8 * a, const guint8 * b)
{
  gint64 shape[3] = { 1, 1, 1 }, strides[3] = { 0, 0, 0 };
  gsize esize = t->dtype.bits / 8;
  gint64 i, j, k;
  gint d;

  fail_unless (t->ndim >= 1 && t->ndim <= 3);
  for (d = 0; d < t->ndim; d++) {
    shape[d] = t->shape[d];
    strides[d] = t->strides[d];
  }
  for (i = 0; i < shape[0]; i++)
    for (j = 0; j < shape[1]; j++)
      for (k = 0; k < shape[2]; k++) {
        gsize at = (i * strides[0] + j * strides[1] + k * strides[2]) * esize;

        if (memcmp (a + at, b + at, esize) != 0)
          return at;
      }
  return -1;
}

/* After the teardown: releases the tensor while its consumer may still
 * read, then checks what the consumer read. */
static void
release_tensor (Branch * br)
{
  DLManagedTensor *t = br->tensor;
  DLTensor dl;
  gint64 shape[3], strides[3];
  guint8 *read;
  gssize at;

  if (t == NULL)
    return;
  /* The tensor's description goes with it. */
  dl = t->dl_tensor;
  memcpy (shape, dl.shape, dl.ndim * sizeof (gint64));
  memcpy (strides, dl.strides, dl.ndim * sizeof (gint64));
  dl.shape = shape;
  dl.strides = strides;
  gst_pinned_tensor_release (t);
  br->tensor = NULL;

  fail_unless_equals_int (cudaStreamSynchronize (br->consumer), cudaSuccess);
  read = g_malloc (br->span);
  fail_unless_equals_int (cudaMemcpy (read, br->consumer_copy, br->span,
          cudaMemcpyDefault), cudaSuccess);
  at = tensor_elements_differ (&dl, read, br->snapshot);
  fail_unless (at < 0, "%s: out%u: the tensor's consumer read other bytes "
      "than the frame's (byte %" G_GSSIZE_FORMAT " of the tensor)",
      br->lt->desc, br->id, at);
  g_free (read);
  g_free (br->snapshot);
  br->snapshot = NULL;
  fail_unless_equals_int (cudaFree (br->consumer_copy), cudaSuccess);
  fail_unless_equals_int (cudaStreamDestroy (br->consumer), cudaSuccess);
  br->consumer = NULL;
}
#endif

/* Every frame that comes out: the frame its PTS names, after the one
 * before it. On the streaming thread. */
static GstFlowReturn
new_sample (GstAppSink * sink, gpointer user_data)
{
  Branch *br = user_data;
  Lifetime *lt = br->lt;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buffer, *expected;
  GstVideoInfo info;
  guint64 index;

  fail_unless (sample != NULL);
  buffer = gst_sample_get_buffer (sample);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  fail_unless (GST_VIDEO_INFO_FORMAT (&info) ==
      GST_VIDEO_INFO_FORMAT (&lt->out_info) &&
      info.width == lt->out_info.width && info.height == lt->out_info.height,
      "%s: out%u: caps %" GST_PTR_FORMAT, lt->desc, br->id,
      gst_sample_get_caps (sample));
  fail_unless (GST_BUFFER_PTS_IS_VALID (buffer));
  index = GST_BUFFER_PTS (buffer) / FRAME_DURATION;
  fail_unless (index < lt->n_frames && (gint64) index > br->last,
      "%s: out%u: frame %" G_GUINT64_FORMAT " after frame %" G_GINT64_FORMAT,
      lt->desc, br->id, index, br->last);

  expected = expected_frame (lt, index);
  fail_unless (pinned_test_frames_equal (expected, buffer, &info),
      "%s: out%u: frame %" G_GUINT64_FORMAT " differs", lt->desc, br->id,
      index);
  gst_buffer_unref (expected);
  br->last = index;
  br->n_out++;
  if (index >= lt->seek_at)
    br->n_after_seek++;

#ifdef PINNED_CHURN_DLPACK
  if (lt->tensor && br->tensor == NULL && br->consumer == NULL &&
      index >= lt->tensor_at)
    export_tensor (br, buffer, &info);
#endif
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static gboolean
seek_data (GstAppSrc * src, guint64 offset, gpointer user_data)
{
  return TRUE;
}

static void
setup_elements (Lifetime * lt)
{
  GstAppSrcCallbacks src_callbacks = { NULL, NULL, seek_data };
  GstAppSinkCallbacks sink_callbacks = { NULL, NULL, new_sample };
  GstCaps *caps = gst_video_info_to_caps (&lt->in_info);
  guint b;

  lt->src = gst_bin_get_by_name (GST_BIN (lt->pipeline), "src");
  g_object_set (lt->src, "caps", caps, "format", GST_FORMAT_TIME,
      "stream-type", GST_APP_STREAM_TYPE_SEEKABLE, "max-bytes",
      (guint64) 0, NULL);
  gst_app_src_set_callbacks (GST_APP_SRC (lt->src), &src_callbacks, lt, NULL);
  gst_caps_unref (caps);

  for (b = 0; b < lt->n_branches; b++) {
    gchar *name = g_strdup_printf ("out%u", b);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (lt->pipeline), name);
    Branch *br = &lt->branches[b];

    fail_unless (sink != NULL);
    br->lt = lt;
    br->id = b;
    br->last = -1;
    g_object_set (sink, "sync", FALSE, "enable-last-sample", FALSE, NULL);
    gst_app_sink_set_callbacks (GST_APP_SINK (sink), &sink_callbacks, br, NULL);
    gst_object_unref (sink);
    g_free (name);
  }
}

static void
make_source_pool (Lifetime * lt)
{
  GstCaps *caps = gst_video_info_to_caps (&lt->in_info);
  gint64 end = g_get_monotonic_time () + (gint64) pinned_test_ms (5000) * 1000;

  if (lt->source == SRC_OFFERED_POOL) {
    GstPad *pad = gst_element_get_static_pad (lt->src, "src");

    /* Once the upload has its caps (the source's streaming thread
     * negotiates them). */
    while ((lt->pool = gst_pinned_host_buffer_pool_from_peer (pad, caps,
                0)) == NULL && g_get_monotonic_time () < end)
      g_usleep (1000);
    fail_unless (lt->pool != NULL, "%s: no page-locked pool offered", lt->desc);
    gst_object_unref (pad);
  } else if (lt->source == SRC_RECYCLED) {
    GstStructure *config;

    lt->pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (lt->pool);
    gst_buffer_pool_config_set_params (config, caps, lt->in_info.size, 3, 6);
    fail_unless (gst_buffer_pool_set_config (lt->pool, config));
    fail_unless (gst_buffer_pool_set_active (lt->pool, TRUE));
  }
  gst_caps_unref (caps);
}

/* A buffer of @lt's pool, once one is free; NULL once the pipeline is
 * being stopped. */
static GstBuffer *
acquire (Lifetime * lt, guint i)
{
  GstBufferPoolAcquireParams params = { 0, };
  gint64 end = g_get_monotonic_time () + (gint64) pinned_test_ms (30000) * 1000;
  GstBuffer *buffer = NULL;
  GstFlowReturn ret;

  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  while ((ret = gst_buffer_pool_acquire_buffer (lt->pool, &buffer,
              &params)) != GST_FLOW_OK) {
    /* Where the pipeline is being stopped its pool may be flushing. */
    if (g_atomic_int_get (&lt->stopping))
      return NULL;
    if (ret != GST_FLOW_EOS)
      break;
    fail_unless (g_get_monotonic_time () < end, "%s: frame %u: no buffer "
        "of the source's pool came back in %u ms", lt->desc, i,
        pinned_test_ms (30000));
    g_usleep (200);
  }
  fail_unless (ret == GST_FLOW_OK, "%s: frame %u: the source's pool: %s "
      "(stopping %d)", lt->desc, i, gst_flow_get_name (ret),
      g_atomic_int_get (&lt->stopping));
  return buffer;
}

static GstBuffer *
make_frame (Lifetime * lt, guint i)
{
  GstBuffer *buffer;

  switch (lt->source) {
    case SRC_OFFERED_POOL:
    case SRC_RECYCLED:
      buffer = acquire (lt, i);
      if (buffer == NULL)
        return NULL;
      pinned_test_fill_frame (buffer, &lt->in_info, frame_seed (lt, i));
      break;
    case SRC_FRESH:
      buffer = pinned_test_new_pageable (lt->in_info.size);
      pinned_test_fill_frame (buffer, &lt->in_info, frame_seed (lt, i));
      break;
    default:
      buffer = pinned_test_new_padded_frame (&lt->in_info, lt->pad,
          frame_seed (lt, i));
      break;
  }
  GST_BUFFER_PTS (buffer) = i * FRAME_DURATION;
  GST_BUFFER_DURATION (buffer) = FRAME_DURATION;
  return buffer;
}

/* Pushes frames @from to @to; FALSE where the source stopped taking them
 * (allowed only while another thread stops the pipeline). */
static gboolean
push_frames (Lifetime * lt, guint from, guint to)
{
  guint i;

  for (i = from; i < to; i++) {
    GstBuffer *buffer = make_frame (lt, i);
    GstFlowReturn ret;

    if (buffer == NULL)
      return FALSE;
    ret = gst_app_src_push_buffer (GST_APP_SRC (lt->src), buffer);
    if (ret == GST_FLOW_OK)
      lt->pushed++;
    if (ret != GST_FLOW_OK) {
      fail_unless (g_atomic_int_get (&lt->stopping), "%s: frame %u: push "
          "returned %s", lt->desc, i, gst_flow_get_name (ret));
      return FALSE;
    }
  }
  return TRUE;
}

static gpointer
stop_thread (gpointer data)
{
  Lifetime *lt = data;

  g_usleep (lt->stop_delay_us);
  g_atomic_int_set (&lt->stopping, 1);
  gst_element_set_state (lt->pipeline, GST_STATE_NULL);
  return NULL;
}

static gpointer
seek_thread (gpointer data)
{
  Lifetime *lt = data;

  gst_element_seek_simple (lt->pipeline, GST_FORMAT_TIME,
      GST_SEEK_FLAG_FLUSH, 0);
  return NULL;
}

static void
seek (Lifetime * lt)
{
  fail_unless (gst_element_seek_simple (lt->pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0), "%s: the seek failed", lt->desc);
}

/* Ends the stream and waits for it to come out of every branch. */
static void
finish (Lifetime * lt, GstBus * bus)
{
  GstMessage *msg;

  fail_unless_equals_int (gst_app_src_end_of_stream (GST_APP_SRC (lt->src)),
      GST_FLOW_OK);
  msg = gst_bus_timed_pop_filtered (bus, pinned_test_ms (60000) *
      GST_MSECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: no end of stream in 60 s", lt->desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: error from %s: %s (%s)", lt->desc, GST_OBJECT_NAME
        (GST_MESSAGE_SRC (msg)), error->message, debug);
  }
  gst_message_unref (msg);
}

static void
run_lifetime (guint index, guint32 seed)
{
  Lifetime *lt = g_new0 (Lifetime, 1);
  GstBus *bus;
  GstMessage *msg;
  GThread *thread = NULL;
  guint b;

  lt->index = index;
  lt->seed = seed;
  plan_lifetime (lt);
  setup_elements (lt);
  bus = gst_element_get_bus (lt->pipeline);

  fail_if (gst_element_set_state (lt->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s: could not start", lt->desc);
  make_source_pool (lt);

  switch (lt->ending) {
    case END_EOS:
      push_frames (lt, 0, lt->n_frames);
      finish (lt, bus);
      break;
    case END_MID_STREAM:
      push_frames (lt, 0, lt->n_frames);
      g_usleep (lt->stop_delay_us);
      break;
    case END_SEEK_THEN_EOS:
      push_frames (lt, 0, lt->seek_at);
      seek (lt);
      push_frames (lt, lt->seek_at, lt->n_frames);
      finish (lt, bus);
      break;
    case END_DURING_SEEK:
      push_frames (lt, 0, lt->seek_at);
      thread = g_thread_new ("churn-seek", seek_thread, lt);
      g_usleep (lt->stop_delay_us / 4);
      break;
    case END_NULL_FROM_THREAD:
      thread = g_thread_new ("churn-stop", stop_thread, lt);
      push_frames (lt, 0, lt->n_frames);
      break;
    default:
      g_assert_not_reached ();
  }

  g_atomic_int_set (&lt->stopping, 1);
  fail_unless_equals_int (gst_element_set_state (lt->pipeline,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  if (thread)
    g_thread_join (thread);

  g_atomic_int_inc (&count_ends[lt->ending]);
  g_atomic_int_add (&count_pushed, lt->pushed);
  for (b = 0; b < lt->n_branches; b++) {
    g_atomic_int_add (&count_out, lt->branches[b].n_out);
    /* Pushed and neither out nor dropped by a flush: in flight when the
     * pipeline went (its input queue, batches, copies, queues). */
    if (lt->ending == END_MID_STREAM || lt->ending == END_NULL_FROM_THREAD)
      g_atomic_int_add (&count_in_flight, lt->pushed - lt->branches[b].n_out);
  }
  if (lt->ending == END_EOS || lt->ending == END_SEEK_THEN_EOS) {
    for (b = 0; b < lt->n_branches; b++) {
      Branch *br = &lt->branches[b];

      if (lt->ending == END_EOS)
        fail_unless (br->n_out == lt->n_frames, "%s: out%u: %u frames of %u "
            "came out", lt->desc, b, br->n_out, lt->n_frames);
      else
        fail_unless (br->n_after_seek == lt->n_frames - lt->seek_at,
            "%s: out%u: %u frames of the %u after the seek came out",
            lt->desc, b, br->n_after_seek, lt->n_frames - lt->seek_at);
    }
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: error from %s: %s (%s)", lt->desc, GST_OBJECT_NAME
        (GST_MESSAGE_SRC (msg)), error->message, debug);
  }
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);

  /* Gone: the pipeline, then the source's pool, then the tensors. */
  gst_object_unref (lt->src);
  gst_object_unref (lt->pipeline);
  if (lt->pool) {
    fail_unless (gst_buffer_pool_set_active (lt->pool, FALSE));
    gst_object_unref (lt->pool);
  }
#ifdef PINNED_CHURN_DLPACK
  for (b = 0; b < lt->n_branches; b++)
    release_tensor (&lt->branches[b]);
#endif
  g_free (lt->desc);
  g_free (lt);
}

/* ---- the run ----------------------------------------------------------- */

static guint32 master_seed;
static gint next_index;

static guint32
lifetime_seed (guint index)
{
  return master_seed * 1000003u + index * 7919u + 17;
}

static gpointer
lifetime_thread (gpointer data)
{
  guint index = GPOINTER_TO_UINT (data);

  run_lifetime (index, lifetime_seed (index));
  return NULL;
}

/* @n lifetimes from @plan: runs of one at a time, and of 2 to @max_k at
 * once, each in its own thread. */
static void
run_lifetimes (guint n, guint max_k, GRand * plan, guint report_every,
    guint total, gint64 start)
{
  guint done = 0;

  while (done < n) {
    guint k = 1, j;

    if (max_k > 1 && g_rand_int_range (plan, 0, 3) == 0)
      k = MIN ((guint) g_rand_int_range (plan, 2, max_k + 1), n - done);
    if (k == 1) {
      guint index = next_index++;

      run_lifetime (index, lifetime_seed (index));
    } else {
      GThread *threads[64];

      count_grouped += k;
      for (j = 0; j < k; j++)
        threads[j] = g_thread_new ("churn", lifetime_thread,
            GUINT_TO_POINTER (next_index++));
      for (j = 0; j < k; j++)
        g_thread_join (threads[j]);
    }

    for (j = 0; j < k; j++) {
      done++;
      if (report_every && done % report_every == 0 && done < n) {
        Resources r;
        gchar *when = g_strdup_printf ("%u/%u (%.0f s)", done, total,
            (g_get_monotonic_time () - start) / 1e6);

        read_settled (&r, NULL);
        print_resources (when, &r);
        g_free (when);
      }
    }
  }
}

static guint
env_uint (const gchar * name, guint fallback)
{
  const gchar *v = g_getenv (name);

  return v && *v ? (guint) g_ascii_strtoull (v, NULL, 10) : fallback;
}

/* Which threads there are, by name, where their count did not come back. */
static void
print_thread_names (void)
{
  GPtrArray *tids = pinned_test_threads (NULL);
  guint i;

  for (i = 0; i < tids->len; i++) {
    gchar *path = g_build_filename ("/proc/self/task", tids->pdata[i],
        "comm", NULL);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL))
      g_print ("churn: thread %s %s", (gchar *) tids->pdata[i], comm);
    g_free (comm);
    g_free (path);
  }
  g_ptr_array_unref (tids);
}

/* What the leaks tracer, where GST_TRACERS names it, sees alive: each
 * object of its filters (say GstBufferPool) with its references, and of a
 * pool its configuration, which names the lifetimes it can be of. (Its
 * creation stacks, stack-traces-flags=full, are no help here: unwinding
 * opens each library's file for good, and so adds descriptors.) */
static void
print_live_objects (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;

  for (l = tracers; l; l = l->next) {
    GstStructure *info = NULL;
    const GValue *list;
    guint i;

    if (g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer") != 0)
      continue;
    g_signal_emit_by_name (l->data, "get-live-objects", &info);
    list = info ? gst_structure_get_value (info, "live-objects-list") : NULL;
    for (i = 0; list && i < gst_value_list_get_size (list); i++) {
      const GstStructure *o =
          gst_value_get_structure (gst_value_list_get_value (list, i));
      const GValue *object = gst_structure_get_value (o, "object");
      gpointer p = object ? g_value_peek_pointer (object) : NULL;
      gchar *config = NULL;
      guint refs = 0;

      gst_structure_get_uint (o, "ref-count", &refs);
      if (p && GST_IS_BUFFER_POOL (p)) {
        GstStructure *c = gst_buffer_pool_get_config (GST_BUFFER_POOL (p));

        config = gst_structure_to_string (c);
        gst_structure_free (c);
      }
      g_print ("churn: alive: %s %p, %u refs%s%s%s\n",
          object ? G_VALUE_TYPE_NAME (object) : "?", p, refs,
          p && GST_IS_BUFFER_POOL (p) && gst_buffer_pool_is_active (p) ?
          ", active" : "", config ? ", " : "", config ? config : "");
      g_free (config);
    }
    if (info)
      gst_structure_free (info);
  }
  g_list_free_full (tracers, gst_object_unref);
}

static void CUDART_CB
host_func_nop (void *data)
{
}

GST_START_TEST (test_churn)
{
  gboolean memcheck = pinned_test_ms (1) > 1;
  guint lifetimes = env_uint ("GST_PINNED_CHURN_LIFETIMES", memcheck ? 30 :
      300);
  guint max_k = MIN (env_uint ("GST_PINNED_CHURN_THREADS", 6), 64);
  guint warmup = CLAMP (lifetimes / 10, 20, 200);
  Resources before, after;
  gint64 start;
  GRand *plan;
  gint d;

  /* Fixed thresholds: glibc would otherwise raise its mmap threshold to
   * the largest block freed (up to 32 MiB) and keep twice that at the top
   * of each of its arenas (up to 8 a core), in resident memory that no
   * malloc_trim() gives back: 200 lifetimes grew it by 165 MiB while 2.9
   * MB were in use. With these, blocks of 128 KiB and more are mapped and
   * unmapped, heaps are trimmed, and resident memory is what is live. */
  mallopt (M_MMAP_THRESHOLD, 128 * 1024);
  mallopt (M_TRIM_THRESHOLD, 128 * 1024);
  master_seed = env_uint ("GST_PINNED_CHURN_SEED", 45);
  fail_unless_equals_int (cudaGetDeviceCount (&n_devices), cudaSuccess);
  /* What each device makes on first use and keeps (its context; the
   * stand-in's worker of the legacy stream, which a lifetime may be the
   * first to use on the second device) is made before the warm-up. */
  for (d = 0; d < n_devices; d++) {
    GPtrArray *t0, *t1;

    fail_unless_equals_int (cudaSetDevice (d), cudaSuccess);
    fail_unless_equals_int (cudaStreamSynchronize (0), cudaSuccess);
    /* The driver runs host functions (a detached staging job's) on a
     * thread it starts at a context's first one and keeps; started from
     * a streaming thread, it would carry that thread's name. */
    t0 = pinned_test_threads (NULL);
    fail_unless_equals_int (cudaLaunchHostFunc (0, host_func_nop, NULL),
        cudaSuccess);
    fail_unless_equals_int (cudaStreamSynchronize (0), cudaSuccess);
    t1 = pinned_test_threads (NULL);
    g_print ("churn: device %d: %u threads before its first host function, "
        "%u after\n", d, t0->len, t1->len);
    g_ptr_array_unref (t0);
    g_ptr_array_unref (t1);
  }
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  plan = g_rand_new_with_seed (master_seed);
  g_print ("churn: %s, seed %u, %u lifetimes after %u of warm-up, up to %u "
      "at once, %d device(s)\n", pinned_test_is_fake ()? "stand-in" : "GPU",
      master_seed, lifetimes, warmup, max_k, n_devices);

  start = g_get_monotonic_time ();
  run_lifetimes (warmup, max_k, plan, 0, 0, start);
  read_settled (&before, NULL);
  print_resources ("after warm-up", &before);

  start = g_get_monotonic_time ();
  run_lifetimes (lifetimes, max_k, plan, MAX (lifetimes / 10, 1), lifetimes,
      start);
  read_settled (&after, &before);
  print_resources ("at the end", &after);
  g_print ("churn: %u lifetimes in %.1f s\n", lifetimes,
      (g_get_monotonic_time () - start) / 1e6);
  g_print ("churn: with the warm-up: %d alone, %d in groups at once; ends: "
      "%d %s, %d %s, %d %s, %d %s, %d %s; %d frames pushed, %d out and "
      "checked, %d in flight at a teardown to NULL; %d tensors exported "
      "(%d of device frames) and checked after the teardown\n",
      warmup + lifetimes - count_grouped, count_grouped,
      count_ends[0], end_names[0], count_ends[1], end_names[1],
      count_ends[2], end_names[2], count_ends[3], end_names[3],
      count_ends[4], end_names[4], count_pushed, count_out, count_in_flight,
      count_tensors, count_device_tensors);

  if (!exact_equal (&after, &before))
    print_live_objects ();
  fail_unless (after.locked == before.locked, "page-locked bytes: %"
      G_GUINT64_FORMAT " after the warm-up, %" G_GUINT64_FORMAT " at the end",
      before.locked, after.locked);
  if (pinned_test_is_fake ())
    fail_unless (after.device == before.device, "device bytes: %"
        G_GUINT64_FORMAT " after the warm-up, %" G_GUINT64_FORMAT " at the "
        "end", before.device, after.device);
  else
    fail_unless (after.device <= before.device + GPU_DEVICE_NOISE,
        "device bytes: %" G_GUINT64_FORMAT " after the warm-up, %"
        G_GUINT64_FORMAT " at the end (more than %" G_GUINT64_FORMAT
        " MiB more)", before.device, after.device, GPU_DEVICE_NOISE / MIB);
  if (after.threads != before.threads)
    print_thread_names ();
  fail_unless (after.threads == before.threads, "threads: %u after the "
      "warm-up, %u at the end", before.threads, after.threads);
  fail_unless (after.fds == before.fds, "descriptors: %u after the warm-up, "
      "%u at the end", before.fds, after.fds);
  /* Under memcheck resident memory is valgrind's: its shadow memory and
   * its queue of freed blocks (--freelist-vol) grow it, while its own leak
   * check covers the heap. */
  if (!memcheck)
    fail_unless (after.rss <= before.rss + RSS_NOISE, "resident memory: %"
        G_GUINT64_FORMAT " bytes after the warm-up, %" G_GUINT64_FORMAT
        " at the end (more than %" G_GUINT64_FORMAT " MiB more)", before.rss,
        after.rss, RSS_NOISE / MIB);
  g_rand_free (plan);
}

GST_END_TEST;

static Suite *
churn_suite (void)
{
  Suite *s = suite_create ("churn");
  TCase *tc = tcase_create ("general");

  pinned_test_emulate_kernels ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 0);
  tcase_add_test (tc, test_churn);
  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, churn_suite);
}
