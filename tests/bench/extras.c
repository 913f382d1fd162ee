/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "benchutil.h"
#include "extras.h"

GST_DEBUG_CATEGORY_STATIC (extras_debug);
#define GST_CAT_DEFAULT extras_debug

/* In readkernel.cu */
int bench_read (const void *data, size_t size, unsigned long long *sum,
    void *stream);

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (extras_debug, "pinnedbenchextras", 0,
        "benchmark extras");
    g_once_init_leave (&once, 1);
  }
}

static gdouble
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median_of (gdouble * v, guint n)
{
  if (n == 0)
    return 0;
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ----------------------------------------------------------------------- */
/* Anatomy of a pageable frame */

#define ANATOMY_N 12

typedef struct
{
  gdouble v[ANATOMY_N];
  guint n;
} Samples;

static void
add (Samples * s, gdouble ms)
{
  if (s->n < ANATOMY_N)
    s->v[s->n++] = ms;
}

static gdouble
med (Samples * s)
{
  return median_of (s->v, s->n);
}

static guint8 *
fresh (gsize size, guint i, Samples * touch)
{
  gdouble t0 = now_ms ();
  guint8 *p = malloc (size);

  /* Written by its producer, as a file reader or a decoder does. */
  memset (p, (int) i, size);
  add (touch, now_ms () - t0);
  return p;
}

/* Time of the library's transfer of one frame of @src (until its copy
 * has landed), per thread count and mode. */
static gdouble
library_copy (GstPinnedStream * stream, GstPinnedPageable * pageable,
    const GstVideoInfo * info, GstBuffer * src, GstBuffer * dst)
{
  gdouble t0 = now_ms ();

  if (!gst_pinned_transfer_video_frame_full (stream, info, src, dst,
          pageable, NULL))
    g_error ("transfer failed");
  gst_pinned_buffer_wait (dst, GST_MAP_READ, NULL);
  return now_ms () - t0;
}

gboolean
bench_extras_anatomy (gsize size, guint row_bytes)
{
  static const guint threads[] = { 1, 2, 4, 8, 12, 16 };
  GstPinnedContext *ctx;
  GstPinnedStream *stream;
  GstAllocator *dev_alloc;
  GstVideoInfo info;
  GstBuffer *dst, *recycled;
  cudaStream_t s;
  guint8 *dev, *pinned, *host;
  guint rows = size / row_bytes, i, k;
  Samples call1 = { {0}, 0 }, copy_recycled = { {0}, 0 }, touch = { {0}, 0 };
  Samples call_fresh = { {0}, 0 }, copy_fresh = { {0}, 0 };
  Samples copy_2d = { {0}, 0 }, free_fresh = { {0}, 0 };
  Samples reg = { {0}, 0 }, reg_copy = { {0}, 0 }, unreg = { {0}, 0 };
  Samples staged1 = { {0}, 0 };
  gboolean ok = TRUE;

  init_debug ();
  ctx = gst_pinned_context_new (0, NULL);
  stream = gst_pinned_stream_new (ctx, NULL);
  s = gst_pinned_stream_get_cuda_stream (stream);
  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaMalloc ((void **) &dev, size));
  CHECK (cudaHostAlloc ((void **) &pinned, size, cudaHostAllocPortable));

  /* a. recycled pageable memory, 1D */
  host = malloc (size);
  memset (host, 1, size);
  for (i = 0; i < ANATOMY_N; i++) {
    gdouble t0 = now_ms (), t1;

    CHECK (cudaMemcpyAsync (dev, host, size, cudaMemcpyHostToDevice, s));
    t1 = now_ms ();
    CHECK (cudaStreamSynchronize (s));
    add (&call1, t1 - t0);
    add (&copy_recycled, now_ms () - t0);
  }

  /* b. fresh pageable memory, 1D: the new pages are the difference */
  for (i = 0; i < ANATOMY_N; i++) {
    guint8 *p = fresh (size, i, &touch);
    gdouble t0 = now_ms (), t1;

    CHECK (cudaMemcpyAsync (dev, p, size, cudaMemcpyHostToDevice, s));
    t1 = now_ms ();
    CHECK (cudaStreamSynchronize (s));
    add (&call_fresh, t1 - t0);
    add (&copy_fresh, now_ms () - t0);
    t0 = now_ms ();
    free (p);
    add (&free_fresh, now_ms () - t0);
  }

  /* c. fresh, pitched (one row at a time in CUDA's staging) */
  for (i = 0; i < ANATOMY_N; i++) {
    guint8 *p = fresh (size, i, &touch);
    gdouble t0 = now_ms ();

    CHECK (cudaMemcpy2DAsync (dev, row_bytes, p, row_bytes, row_bytes, rows,
            cudaMemcpyHostToDevice, s));
    CHECK (cudaStreamSynchronize (s));
    add (&copy_2d, now_ms () - t0);
    free (p);
  }

  /* d. fresh, registered for one copy */
  for (i = 0; i < ANATOMY_N; i++) {
    guint8 *p = fresh (size, i, &touch);
    gdouble t0 = now_ms (), t1, t2;

    CHECK (cudaHostRegister (p, size, cudaHostRegisterPortable));
    t1 = now_ms ();
    CHECK (cudaMemcpyAsync (dev, p, size, cudaMemcpyHostToDevice, s));
    CHECK (cudaStreamSynchronize (s));
    t2 = now_ms ();
    CHECK (cudaHostUnregister (p));
    add (&reg, t1 - t0);
    add (&reg_copy, t2 - t1);
    add (&unreg, now_ms () - t2);
    free (p);
  }

  /* e. fresh, staged by hand on one thread, 4 MiB at a time */
  for (i = 0; i < ANATOMY_N; i++) {
    guint8 *p = fresh (size, i, &touch);
    gdouble t0 = now_ms ();
    gsize off;

    for (off = 0; off < size; off += 4u << 20) {
      gsize n = MIN (4u << 20, size - off);

      memcpy (pinned + off, p + off, n);
      CHECK (cudaMemcpyAsync (dev + off, pinned + off, n,
              cudaMemcpyHostToDevice, s));
    }
    CHECK (cudaStreamSynchronize (s));
    add (&staged1, now_ms () - t0);
    free (p);
  }
  gst_pinned_context_pop (ctx);

  g_print ("anatomy of one frame of %" G_GSIZE_FORMAT " bytes (%u rows of %u) "
      "in pageable memory, median of %u (ms):\n", size, rows, row_bytes,
      ANATOMY_N);
  g_print ("  recycled pageable, cudaMemcpyAsync: %.2f (call returns after "
      "%.2f)\n", med (&copy_recycled), med (&call1));
  g_print ("  fresh pageable (malloc + write: %.2f, free: %.2f), "
      "cudaMemcpyAsync: %.2f (call returns after %.2f)\n", med (&touch),
      med (&free_fresh), med (&copy_fresh), med (&call_fresh));
  g_print ("  fresh pageable, cudaMemcpy2DAsync row by row: %.2f\n",
      med (&copy_2d));
  g_print ("  fresh, cudaHostRegister %.2f + copy %.2f + cudaHostUnregister "
      "%.2f\n", med (&reg), med (&reg_copy), med (&unreg));
  g_print ("  fresh, staged by hand on 1 thread (4 MiB chunks): %.2f\n",
      med (&staged1));

  /* f. the library: fresh buffers staged with N threads, recycled ones
   * registered, and the direct path for both */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, row_bytes, rows);
  dev_alloc = gst_pinned_device_allocator_new (ctx);
  dst = gst_buffer_new_allocate (dev_alloc, info.size, NULL);
  recycled = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (recycled, 0, 3, info.size);

  for (k = 0; k < G_N_ELEMENTS (threads) + 3; k++) {
    GstPinnedPageable *pageable = gst_pinned_pageable_new (ctx);
    Samples t = { {0}, 0 };
    gdouble cpu0 = bench_cpu_seconds (), wall0 = now_ms (), cores;
    const gchar *what;
    gchar *label, *rate;

    if (k < G_N_ELEMENTS (threads)) {
      gst_pinned_pageable_set_mode (pageable, GST_PINNED_PAGEABLE_STAGE);
      gst_pinned_pageable_set_threads (pageable, threads[k]);
    } else {
      gst_pinned_pageable_set_mode (pageable, k == G_N_ELEMENTS (threads) ?
          GST_PINNED_PAGEABLE_DIRECT : GST_PINNED_PAGEABLE_AUTO);
    }
    /* Warm-up: staging buffers are page-locked on first use, registration
     * happens on the second sight. */
    for (i = 0; i < ANATOMY_N + 2; i++) {
      GstBuffer *src;
      gdouble ms;

      if (k == G_N_ELEMENTS (threads) + 2 ||
          (k == G_N_ELEMENTS (threads) && i % 2)) {
        src = gst_buffer_ref (recycled);
      } else {
        src = gst_buffer_new_allocate (NULL, info.size, NULL);
        gst_buffer_memset (src, 0, i, info.size);
      }
      ms = library_copy (stream, pageable, &info, src, dst);
      if (i >= 2)
        add (&t, ms);
      gst_buffer_unref (src);
    }
    cores = (bench_cpu_seconds () - cpu0) / ((now_ms () - wall0) / 1e3);
    if (k < G_N_ELEMENTS (threads)) {
      what = "fresh, library staging";
      label = g_strdup_printf ("%u threads", threads[k]);
    } else if (k == G_N_ELEMENTS (threads)) {
      what = "fresh and recycled, library direct";
      label = g_strdup ("");
    } else if (k == G_N_ELEMENTS (threads) + 1) {
      what = "fresh, library auto";
      label = g_strdup_printf ("(staged %" G_GUINT64_FORMAT ")",
          gst_pinned_pageable_get_count (pageable, GST_PINNED_PATH_STAGED));
    } else {
      what = "recycled, library auto";
      label = g_strdup_printf ("(registered %" G_GUINT64_FORMAT ")",
          gst_pinned_pageable_get_count (pageable, GST_PINNED_PATH_REGISTERED));
    }
    rate = med (&t) > 0 ? g_strdup_printf ("%.1f GB/s", size / (med (&t) /
            1e3) / 1e9) : g_strdup ("GB/s n/a: no time measured");
    g_print ("  %s %s: %.2f (%s, %.2f cores incl. writing fresh frames)\n",
        what, label, med (&t), rate, cores);
    g_free (rate);
    g_free (label);
    gst_pinned_pageable_flush (pageable, NULL);
    gst_object_unref (pageable);
  }

  /* The frame must have arrived: the last one was the recycled buffer. */
  {
    GstAllocator *host_alloc = gst_pinned_host_allocator_new (ctx);
    GstBuffer *back = gst_buffer_new_allocate (host_alloc, info.size, NULL);
    GstMapInfo map;
    gsize j;

    gst_pinned_transfer_video_frame (stream, &info, dst, back, NULL);
    gst_buffer_map (back, &map, GST_MAP_READ);
    for (j = 0; j < map.size && map.data[j] == 3; j++);
    ok = j == map.size;
    gst_buffer_unmap (back, &map);
    gst_buffer_unref (back);
    gst_object_unref (host_alloc);
  }
  g_print ("  check: %s\n", ok ? "ok" : "WRONG");

  gst_buffer_unref (recycled);
  gst_buffer_unref (dst);
  gst_object_unref (dev_alloc);
  free (host);
  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaFree (dev));
  CHECK (cudaFreeHost (pinned));
  gst_pinned_context_pop (ctx);
  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);

  return ok;
}

/* ----------------------------------------------------------------------- */
/* What one runtime call costs the calling thread */

static gdouble
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

gboolean
bench_extras_api_costs (void)
{
  const guint n = 20000;
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  cudaStream_t s1, s2;
  cudaEvent_t ev, done;
  guint8 *host, *dev;
  struct cudaPointerAttributes attr;
  gdouble t0, c[10];
  gint device;
  guint i;

  init_debug ();
  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming |
          cudaEventBlockingSync));
  CHECK (cudaEventCreateWithFlags (&done, cudaEventDisableTiming |
          cudaEventBlockingSync));
  CHECK (cudaHostAlloc ((void **) &host, 1 << 20, cudaHostAllocPortable));
  CHECK (cudaMalloc ((void **) &dev, 1 << 20));
  CHECK (cudaEventRecord (done, s2));
  CHECK (cudaEventSynchronize (done));

#define MEASURE(k, call) G_STMT_START {                                   \
    t0 = thread_cpu_us ();                                                \
    for (i = 0; i < n; i++)                                               \
      call;                                                               \
    c[k] = (thread_cpu_us () - t0) / n;                                   \
    CHECK (cudaStreamSynchronize (s1));                                   \
  } G_STMT_END

  MEASURE (0, CHECK (cudaGetDevice (&device)));
  MEASURE (1, CHECK (cudaSetDevice (device)));
  MEASURE (2, CHECK (cudaEventRecord (ev, s1)));
  MEASURE (3, CHECK (cudaStreamWaitEvent (s1, done, 0)));
  MEASURE (4, CHECK (cudaEventQuery (done)));
  MEASURE (5, CHECK (cudaMemcpyAsync (dev, host, 4096,
              cudaMemcpyHostToDevice, s1)));
  MEASURE (6, CHECK (cudaPointerGetAttributes (&attr, host)));
  /* A copy, its fence, a wait for it on another stream and a query: one
   * element's frame. */
  MEASURE (7, G_STMT_START {
        CHECK (cudaMemcpyAsync (dev, host, 4096, cudaMemcpyHostToDevice, s1));
        CHECK (cudaEventRecord (ev, s1));
        CHECK (cudaStreamWaitEvent (s2, ev, 0));
      } G_STMT_END);
  /* A host wait that sleeps (blocking sync) on a copy just enqueued. */
  t0 = thread_cpu_us ();
  for (i = 0; i < n / 20; i++) {
    CHECK (cudaMemcpyAsync (dev, host, 4096, cudaMemcpyHostToDevice, s1));
    CHECK (cudaEventRecord (ev, s1));
    CHECK (cudaEventSynchronize (ev));
  }
  c[8] = (thread_cpu_us () - t0) / (n / 20) - c[5] - c[2];
#undef MEASURE

  /* Frame-sized copies: does the driver's CPU time grow with the size of
   * a page-locked copy (descriptors per chunk or page)? Each call on an
   * idle stream, its CPU time alone. */
  g_print ("CPU time of one cudaMemcpyAsync by size, page-locked (us):");
  for (i = 0; i < 3; i++) {
    static const gsize sizes[] = { 1 << 20, 3110400, 33177600 };
    gsize size = sizes[i];
    guint8 *h, *d;
    gdouble up = 0, down = 0;
    guint k, reps = 50;

    CHECK (cudaHostAlloc ((void **) &h, size, cudaHostAllocPortable));
    CHECK (cudaMalloc ((void **) &d, size));
    for (k = 0; k < reps; k++) {
      t0 = thread_cpu_us ();
      CHECK (cudaMemcpyAsync (d, h, size, cudaMemcpyHostToDevice, s1));
      up += thread_cpu_us () - t0;
      CHECK (cudaStreamSynchronize (s1));
      t0 = thread_cpu_us ();
      CHECK (cudaMemcpyAsync (h, d, size, cudaMemcpyDeviceToHost, s1));
      down += thread_cpu_us () - t0;
      CHECK (cudaStreamSynchronize (s1));
    }
    g_print (" %" G_GSIZE_FORMAT " bytes H2D %.2f D2H %.2f;", size,
        up / reps, down / reps);
    CHECK (cudaFree (d));
    CHECK (cudaFreeHost (h));
  }
  g_print ("\n");

  g_print ("CPU time of the calling thread per runtime call (us):\n");
  g_print ("  cudaGetDevice %.3f, cudaSetDevice (same) %.3f, "
      "cudaEventRecord %.3f, cudaStreamWaitEvent (done) %.3f, "
      "cudaEventQuery (done) %.3f\n", c[0], c[1], c[2], c[3], c[4]);
  g_print ("  cudaMemcpyAsync 4 KiB page-locked %.3f, "
      "cudaPointerGetAttributes %.3f, copy + record + wait on another "
      "stream %.3f, cudaEventSynchronize on a copy (sleeping) %.3f\n",
      c[5], c[6], c[7], c[8]);
  g_print ("  the pair's calls per frame (2 copies, 2 records, 1 stream "
      "wait, 1 query, 4 cudaGetDevice): %.1f us\n",
      2 * c[5] + 2 * c[2] + c[3] + c[4] + 4 * c[0]);

  CHECK (cudaFree (dev));
  CHECK (cudaFreeHost (host));
  CHECK (cudaEventDestroy (ev));
  CHECK (cudaEventDestroy (done));
  CHECK (cudaStreamDestroy (s1));
  CHECK (cudaStreamDestroy (s2));
  gst_pinned_context_pop (ctx);
  gst_object_unref (ctx);
  return TRUE;
}

/* ----------------------------------------------------------------------- */
/* Mapped memory: read in place or copy first */

gboolean
bench_extras_mapped (void)
{
  static const struct
  {
    const gchar *name;
    gsize size;
  } sizes[] = {
    {"GRAY8 320x240", 320 * 240},
    {"NV12 1280x720", 1280 * 720 * 3 / 2},
    {"NV12 1920x1080", 1920 * 1080 * 3 / 2},
    {"RGBA 3840x2160", 3840 * 2160 * 4},
  };
  GstPinnedContext *ctx;
  GstAllocator *alloc;
  cudaStream_t s;
  cudaEvent_t start, stop;
  unsigned long long *sum, got;
  gboolean ok = TRUE;
  guint k;

  init_debug ();
  ctx = gst_pinned_context_new (0, NULL);
  alloc = gst_pinned_host_allocator_new_full (ctx, GST_PINNED_HOST_PORTABLE |
      GST_PINNED_HOST_MAPPED);
  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  CHECK (cudaMalloc ((void **) &sum, sizeof (*sum)));

  g_print ("mapped page-locked memory: a kernel reading each byte of a frame "
      "once (us per frame)\n");
  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    gsize size = sizes[k].size / 16 * 16, j;
    guint n = CLAMP ((guint) ((256u << 20) / size), 20, 2000), i, v;
    GstMemory *mem = gst_allocator_alloc (alloc, size, NULL);
    unsigned long long expect = 0;
    gdouble us[3];
    gchar *ratio;
    GstMapInfo map;
    guint8 *dev;

    gst_memory_map (mem, &map, GST_MAP_READWRITE | GST_MAP_PINNED_GPU);
    for (j = 0; j < size; j++) {
      map.data[j] = (guint8) (j * 13 + k);
      expect += map.data[j];
    }
    CHECK (cudaMalloc ((void **) &dev, size));

    /* 0: copy then read on the device; 1: read mapped host memory in place
     * (with unified addressing the host pointer is the device pointer);
     * 2: read on the device alone, for reference. */
    for (v = 0; v < 3; v++) {
      gfloat ms = 0;

      CHECK (cudaMemsetAsync (sum, 0, sizeof (*sum), s));
      bench_read (v == 1 ? map.data : dev, size, sum, s);       /* warm-up */
      CHECK (cudaMemsetAsync (sum, 0, sizeof (*sum), s));
      CHECK (cudaEventRecord (start, s));
      for (i = 0; i < n; i++) {
        if (v == 0)
          CHECK (cudaMemcpyAsync (dev, map.data, size, cudaMemcpyHostToDevice,
                  s));
        CHECK (bench_read (v == 1 ? map.data : dev, size, sum, s));
      }
      CHECK (cudaEventRecord (stop, s));
      CHECK (cudaEventSynchronize (stop));
      CHECK (cudaEventElapsedTime (&ms, start, stop));
      CHECK (cudaMemcpy (&got, sum, sizeof (got), cudaMemcpyDeviceToHost));
      us[v] = ms * 1e3 / n;
      if (got != expect * n && v < 2) {
        g_print ("  %s variant %u: sum %llu, expected %llu\n", sizes[k].name,
            v, got, expect * n);
        ok = FALSE;
      }
    }
    ratio = us[0] > 0 ? g_strdup_printf ("%.2fx", us[1] / us[0]) :
        g_strdup ("n/a: the copy took no time");
    g_print ("  %-15s %9" G_GSIZE_FORMAT " bytes: copy + kernel %8.1f, "
        "zero-copy kernel %8.1f (%s), kernel on device alone %7.1f: "
        "zero copy %s\n", sizes[k].name, size, us[0], us[1], ratio,
        us[2], us[1] < us[0] ? "wins" : "loses");
    g_free (ratio);

    CHECK (cudaFree (dev));
    gst_memory_unmap (mem, &map);
    gst_memory_unref (mem);
  }
  g_print ("  check: %s\n", ok ? "ok" : "WRONG");

  CHECK (cudaFree (sum));
  CHECK (cudaEventDestroy (start));
  CHECK (cudaEventDestroy (stop));
  CHECK (cudaStreamDestroy (s));
  gst_pinned_context_pop (ctx);
  gst_object_unref (alloc);
  gst_object_unref (ctx);

  return ok;
}

/* ----------------------------------------------------------------------- */
/* Huge pages: the rotating-buffer limit */

static guint64
anon_huge_kb (void)
{
  gchar *contents = NULL;
  guint64 kb = 0;
  gchar **lines, **l;

  if (!g_file_get_contents ("/proc/self/smaps_rollup", &contents, NULL, NULL))
    return 0;
  lines = g_strsplit (contents, "\n", -1);
  for (l = lines; *l; l++) {
    if (g_str_has_prefix (*l, "AnonHugePages:"))
      kb = g_ascii_strtoull (*l + strlen ("AnonHugePages:"), NULL, 10);
  }
  g_strfreev (lines);
  g_free (contents);
  return kb;
}

/* GB/s of copies rotating over @n buffers each way: 0 H2D, 1 D2H, 2 both. */
static gdouble
rotating (guint8 ** host, guint8 ** dev, guint n, gsize size, guint dir,
    cudaStream_t s1, cudaStream_t s2, cudaEvent_t start, cudaEvent_t stop,
    cudaEvent_t joined)
{
  guint copies = CLAMP ((guint) ((512u << 20) / size), 8, 512), i, k;
  gdouble samples[5];

  for (k = 0; k < 5; k++) {
    gfloat ms = 0;

    CHECK (cudaEventRecord (start, s1));
    CHECK (cudaStreamWaitEvent (s2, start, 0));
    for (i = 0; i < copies; i++) {
      if (dir != 1)
        CHECK (cudaMemcpyAsync (dev[i % n], host[i % n], size,
                cudaMemcpyHostToDevice, s1));
      if (dir != 0)
        CHECK (cudaMemcpyAsync (host[n + i % n], dev[n + i % n], size,
                cudaMemcpyDeviceToHost, dir == 2 ? s2 : s1));
    }
    CHECK (cudaEventRecord (joined, s2));
    CHECK (cudaStreamWaitEvent (s1, joined, 0));
    CHECK (cudaEventRecord (stop, s1));
    CHECK (cudaEventSynchronize (stop));
    CHECK (cudaEventElapsedTime (&ms, start, stop));
    samples[k] = (dir == 2 ? 2.0 : 1.0) * size * copies / (ms / 1e3) / 1e9;
  }
  return median_of (samples, 5);
}

gboolean
bench_extras_hugepages (gsize size, guint n)
{
  GstPinnedContext *ctx;
  cudaStream_t s1, s2;
  cudaEvent_t start, stop, joined;
  guint kind, i;

  init_debug ();
  n = CLAMP (n, 1, 16);
  ctx = gst_pinned_context_new (0, NULL);
  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  CHECK (cudaEventCreateWithFlags (&joined, cudaEventDisableTiming));

  g_print ("limit rotating over %u buffers of %" G_GSIZE_FORMAT " bytes each "
      "way, by page-locked memory (GB/s):\n", n, size);
  for (kind = 0; kind < 2; kind++) {
    GstAllocator *alloc = gst_pinned_host_allocator_new_full (ctx,
        GST_PINNED_HOST_PORTABLE | (kind ? GST_PINNED_HOST_HUGE_PAGES : 0));
    GstMemory *mem[32];
    GstMapInfo map[32];
    guint8 *host[32], *dev[32];
    guint64 huge_before = anon_huge_kb (), huge_after;
    gchar *huge;
    gdouble gbps[3];
    guint d;

    for (i = 0; i < 2 * n; i++) {
      mem[i] = gst_allocator_alloc (alloc, size, NULL);
      gst_memory_map (mem[i], &map[i], GST_MAP_READWRITE | GST_MAP_PINNED_GPU);
      host[i] = map[i].data;
      memset (host[i], i, size);
      CHECK (cudaMalloc ((void **) &dev[i], size));
    }
    for (d = 0; d < 3; d++)
      gbps[d] = rotating (host, dev, n, size, d, s1, s2, start, stop, joined);
    huge_after = anon_huge_kb ();
    /* The process's huge pages can also have shrunk meanwhile. */
    huge = huge_after >= huge_before ? g_strdup_printf ("%" G_GUINT64_FORMAT,
        (huge_after - huge_before) / 1024) : g_strdup_printf ("n/a (the "
        "process's fell by %" G_GUINT64_FORMAT ")",
        (huge_before - huge_after) / 1024);
    g_print ("  %-34s H2D %.1f D2H %.1f both %.1f (huge pages: %s MiB of %"
        G_GSIZE_FORMAT ")\n", kind ? "anonymous, huge pages, registered" :
        "cudaHostAlloc", gbps[0], gbps[1], gbps[2], huge, 2 * n * size >> 20);
    g_free (huge);
    for (i = 0; i < 2 * n; i++) {
      gst_memory_unmap (mem[i], &map[i]);
      gst_memory_unref (mem[i]);
      CHECK (cudaFree (dev[i]));
    }
    gst_object_unref (alloc);
  }

  CHECK (cudaEventDestroy (start));
  CHECK (cudaEventDestroy (stop));
  CHECK (cudaEventDestroy (joined));
  CHECK (cudaStreamDestroy (s1));
  CHECK (cudaStreamDestroy (s2));
  gst_pinned_context_pop (ctx);
  gst_object_unref (ctx);

  return TRUE;
}

/* ----------------------------------------------------------------------- */
/* A CPU decoder feeding the upload */

typedef struct
{
  GMutex lock;
  GQueue entered;               /* times a buffer entered the element */
  GArray *inside;               /* us each buffer spent in it */
  GArray *arrivals;             /* ms of each buffer at the sink */
  gsize frame_size;
  /* The process's CPU seconds and the time (ms) at the 10th frame: the
   * steady state's cores leave the start-up out. */
  gdouble cpu_at_10, ms_at_10;
} Probe;

static GstPadProbeReturn
enter_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  gint64 *t = g_new (gint64, 1);

  *t = g_get_monotonic_time ();
  g_mutex_lock (&p->lock);
  g_queue_push_tail (&p->entered, t);
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
leave_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  gint64 *t;

  g_mutex_lock (&p->lock);
  t = g_queue_pop_head (&p->entered);
  if (t) {
    gdouble us = (gdouble) (g_get_monotonic_time () - *t);

    g_array_append_val (p->inside, us);
    g_free (t);
  }
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  gdouble ms = now_ms ();

  g_mutex_lock (&p->lock);
  g_array_append_val (p->arrivals, ms);
  if (p->arrivals->len == 10) {
    p->cpu_at_10 = bench_cpu_seconds ();
    p->ms_at_10 = ms;
  }
  if (p->frame_size == 0)
    p->frame_size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * pipeline, const gchar * name, const gchar * pad_name,
    GstPadProbeCallback cb, Probe * p)
{
  GstElement *el = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad;

  if (el == NULL)
    return;
  pad = gst_element_get_static_pad (el, pad_name);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, cb, p, NULL);
  gst_object_unref (pad);
  gst_object_unref (el);
}

/* The copy limit for @size bytes now: page-locked host to device. */
static gdouble
copy_us (gsize size)
{
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  cudaStream_t s;
  cudaEvent_t start, stop;
  guint8 *host, *dev;
  gfloat ms = 0;
  guint i, n = 20;

  gst_pinned_context_push (ctx, NULL);
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  CHECK (cudaHostAlloc ((void **) &host, size, cudaHostAllocPortable));
  CHECK (cudaMalloc ((void **) &dev, size));
  memset (host, 1, size);
  CHECK (cudaMemcpyAsync (dev, host, size, cudaMemcpyHostToDevice, s));
  CHECK (cudaEventRecord (start, s));
  for (i = 0; i < n; i++)
    CHECK (cudaMemcpyAsync (dev, host, size, cudaMemcpyHostToDevice, s));
  CHECK (cudaEventRecord (stop, s));
  CHECK (cudaEventSynchronize (stop));
  CHECK (cudaEventElapsedTime (&ms, start, stop));
  CHECK (cudaFree (dev));
  CHECK (cudaFreeHost (host));
  CHECK (cudaEventDestroy (start));
  CHECK (cudaEventDestroy (stop));
  CHECK (cudaStreamDestroy (s));
  gst_pinned_context_pop (ctx);
  gst_object_unref (ctx);

  return ms * 1e3 / n;
}

/* Runs @launch to its end: an element named el is timed from its sink to
 * its source pad, the sink named sink counts frames. */
gboolean
bench_extras_pipeline (const gchar * launch, BenchPipelineResult * r)
{
  GstElement *pipeline, *el;
  GstMessage *msg;
  GstBus *bus;
  GError *error = NULL;
  Probe p = { 0, };
  gdouble cpu0, wall0;
  guint64 faults0;
  gboolean ok;

  init_debug ();
  memset (r, 0, sizeof (*r));
  pipeline = gst_parse_launch (launch, &error);
  if (pipeline == NULL) {
    g_print ("cannot build %s: %s\n", launch, error->message);
    g_clear_error (&error);
    return FALSE;
  }
  g_mutex_init (&p.lock);
  g_queue_init (&p.entered);
  p.inside = g_array_new (FALSE, FALSE, sizeof (gdouble));
  p.arrivals = g_array_new (FALSE, FALSE, sizeof (gdouble));
  add_probe (pipeline, "el", "sink", enter_probe, &p);
  add_probe (pipeline, "el", "src", leave_probe, &p);
  add_probe (pipeline, "sink", "sink", sink_probe, &p);

  cpu0 = bench_cpu_seconds ();
  faults0 = bench_minor_faults ();
  wall0 = now_ms ();
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 240 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r->cores = (bench_cpu_seconds () - cpu0) / ((now_ms () - wall0) / 1e3);
  if (p.ms_at_10 > 0 && now_ms () > p.ms_at_10)
    r->steady_cores = (bench_cpu_seconds () - p.cpu_at_10) /
        ((now_ms () - p.ms_at_10) / 1e3);
  r->faults = bench_minor_faults () - faults0;
  ok = msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    g_print ("error: %s (%s)\n", error->message, debug);
    g_clear_error (&error);
    g_free (debug);
  }
  gst_clear_message (&msg);

  /* What the upload did with its input, before it stops. */
  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  if (el && g_object_class_find_property (G_OBJECT_GET_CLASS (el),
          "pageable-stats"))
    g_object_get (el, "pageable-stats", &r->stats, NULL);
  gst_clear_object (&el);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  r->frames = p.arrivals->len;
  r->faults /= MAX (r->frames, 1);
  if (r->frames > 12) {
    gdouble *a = (gdouble *) p.arrivals->data;

    r->period_ms = (a[r->frames - 1] - a[9]) / (r->frames - 10);
  }
  if (p.inside->len > 10)
    r->inside_us = median_of ((gdouble *) p.inside->data + 9,
        p.inside->len - 9);
  r->frame_size = p.frame_size;

  g_array_unref (p.inside);
  g_array_unref (p.arrivals);
  g_queue_clear_full (&p.entered, g_free);
  g_mutex_clear (&p.lock);

  return ok;
}

gboolean
bench_extras_decoder (const gchar * clip)
{
  static const struct
  {
    const gchar *name;
    const gchar *tail;
    gboolean nvcodec;
  } variants[] = {
    {"decoder alone", "", FALSE},
    {"pinnedupload", "pinnedupload name=el ! ", FALSE},
    {"pinnedupload pool-size=8", "pinnedupload name=el pool-size=8 ! ", FALSE},
    {"cudaupload", "cudaupload name=el ! video/x-raw(memory:CUDAMemory) ! ",
        TRUE},
  };
  gdouble period0 = 0, copy = 0;
  gboolean have_nvcodec = gst_registry_check_feature_version
      (gst_registry_get (), "cudaupload", 1, 0, 0);
  guint v;

  init_debug ();
  if (clip == NULL || !g_file_test (clip, G_FILE_TEST_EXISTS)) {
    g_print ("decoder-openh264: no clip (%s): make one with "
        "tests/bench/make-clip.sh\n", clip ? clip : "none given");
    return TRUE;
  }
  if (!gst_registry_check_feature_version (gst_registry_get (), "openh264dec",
          1, 0, 0)) {
    g_print ("decoder-openh264: openh264dec is not available\n");
    return TRUE;
  }

  g_print ("decoder-openh264, %s (steady state: from the 10th frame on):\n",
      clip);
  for (v = 0; v < G_N_ELEMENTS (variants); v++) {
    BenchPipelineResult r;
    gchar *added;
    gchar *launch;

    if (variants[v].nvcodec && !have_nvcodec) {
      g_print ("  %-26s (no nvcodec)\n", variants[v].name);
      continue;
    }
    launch = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "openh264dec ! %sfakesink name=sink sync=false", clip,
        variants[v].tail);
    if (!bench_extras_pipeline (launch, &r))
      g_print ("  %-26s did not finish\n", variants[v].name);
    g_free (launch);
    if (v == 0)
      period0 = r.period_ms;
    if (copy == 0 && r.frame_size)
      copy = copy_us (r.frame_size);
    /* What this way adds to the decoder alone (the first). */
    if (v == 0)
      added = g_strdup ("+0.00");
    else if (period0 <= 0)
      added = g_strdup ("n/a: the decoder alone did not finish");
    else if (r.period_ms < period0)
      added = g_strdup_printf ("n/a: alone %.2f > this %.2f", period0,
          r.period_ms);
    else
      added = g_strdup_printf ("+%.2f", r.period_ms - period0);
    g_print ("  %-26s %u frames, %.2f ms/frame (%s over the decoder "
        "alone), in the element %.0f us/frame median, %.2f cores\n",
        variants[v].name, r.frames, r.period_ms, added, r.inside_us, r.cores);
    g_free (added);
    if (v > 0 && copy > 0)
      g_print ("  %-26s in the element = %.2f x one page-locked copy of the "
          "frame (%.0f us at the link's rate now)\n", "", r.inside_us / copy,
          copy);
    if (r.stats) {
      gchar *str = gst_structure_to_string (r.stats);

      g_print ("  %-26s %s\n", "", str);
      g_free (str);
      gst_structure_free (r.stats);
    }
  }

  return TRUE;
}
