/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The transfer benchmark. In one run on one machine it measures:
 *
 * 1. the in-run copy limit: page-locked cudaMemcpyAsync host to device,
 *    device to host, and both at once on two streams, timed with events
 *    after warm-up, median of several samples, at each frame size and at
 *    64 and 256 MiB;
 * 2. pinnedupload, pinneddownload and pinnedupload ! pinneddownload in real
 *    pipelines, fed by benchframesrc writing into the offered page-locked
 *    pool (and, for the pageable row, ignoring it);
 * 3. the peer: GStreamer's cudaupload, cudadownload and the round trip, with
 *    video/x-raw(memory:CUDAMemory) forced between them, on the same frames;
 * 4. with CUDA interop: pinnedupload into CUDA memory (the GStreamer 1.22
 *    push rule: each frame pushed once its copy is done) and pinneddownload
 *    from CUDA memory, against cudaupload and cudadownload; and decoding
 *    4K H.264 and H.265 clips (--clips) with nvh264dec/nvh265dec into
 *    pinneddownload, into cudadownload, and into system memory by the
 *    decoder itself;
 *
 * and prints, per row, frames/s, GB/s, the ratio to the in-run limit and to
 * the peer, CPU time per buffer and CPU cores (getrusage), median and spread
 * of the repeats. Every configuration's last frame is checked byte for byte.
 *
 * Rows for sources that ignore the offered pool: a source recycling its own
 * pageable buffers, a fresh pageable buffer per frame (with the source
 * alone and cudaupload on the same frames: the time each adds per frame),
 * an application pushing through appsrc (into the offered pool, or its own
 * malloc()ed frames), a download into a pool downstream proposes, and
 * huge-page pools. Rows that are not one pipeline, run only when named:
 * anatomy (where a pageable frame's time goes), api-costs (CPU time of each
 * CUDA call of the per-frame path), mapped (a kernel reading
 * mapped host memory against a copy), limit-hugepages (the rotating-buffer
 * limit by kind of page-locked memory), decoder-openh264 (needs --clip).
 *
 *   gst-pinned-bench [--sizes FMT:WxH,...] [--rows upload,...] [--repeats N]
 *                    [--duration-ms MS] [--warmup-ms MS] [--quick]
 *                    [--only] [--csv FILE] [--json FILE] [--clips DIR]
 *                    [--clip FILE.h264] [--pipeline LAUNCH]
 */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "benchutil.h"
#include "framesrc.h"
#include "extras.h"
#include "devices.h"

GST_DEBUG_CATEGORY_STATIC (bench_debug);
#define GST_CAT_DEFAULT bench_debug

#define MAX_REPEATS 16

typedef struct
{
  gchar *format;
  gint width, height;
  gsize size;                   /* bytes of a frame */
  /* in-run limits, GB/s */
  gdouble h2d, d2h, bidir;
} Config;

typedef enum
{
  DIR_UP,
  DIR_DOWN,
  DIR_BOTH,
} Direction;

typedef enum
{
  FEED_NONE,
  FEED_APP_POOL,                /* appsrc: into the offered pool */
  FEED_APP_MALLOC,              /* appsrc: the application's own frames */
} Feed;

typedef struct
{
  const gchar *name;
  const gchar *launch;          /* @CAPS@, @BUSY@: caps, kernel time (us) */
  BenchSourceMode mode;
  Direction dir;
  const gchar *peer;            /* the row this one is compared with */
  gboolean needs_nvcodec;
  gboolean fixed_seed;          /* imagefreeze renumbers offsets */
  Feed feed;
  /* The source alone: the time per frame this row adds over it is printed,
   * for sources whose own work dominates. */
  const gchar *base;
  /* Decode rows: the codec of the clip (@CLIP@, @PARSE@, @DEC@ in the
   * launch line); the frames are not the source's, nothing is checked. */
  const gchar *codec;
} Row;

/* Rows of the default run; the others run when named (--rows), or with
 * --rows all. */
static const gchar *default_rows[] = {
  "upload", "download", "roundtrip", "roundtrip-queue", "overlap",
  "overlap-serial", "peer-upload", "peer-download", "peer-roundtrip", NULL
};

static const Row rows[] = {
  {"upload", "benchframesrc name=src ! @CAPS@ ! pinnedupload @POOL@ ! "
        "fakesink name=sink sync=false", BENCH_SOURCE_POOL, DIR_UP,
      "peer-upload", FALSE, FALSE, FEED_NONE, "source-pool"},
  {"download", "benchframesrc name=src ! @CAPS@ ! pinneddownload @POOL@ ! "
        "fakesink name=sink sync=false", BENCH_SOURCE_DEVICE, DIR_DOWN,
      "peer-download", FALSE, FALSE},
  {"roundtrip", "benchframesrc name=src ! @CAPS@ ! pinnedupload @POOL@ ! "
        "pinneddownload @POOL@ ! fakesink name=sink sync=false",
        BENCH_SOURCE_POOL, DIR_BOTH, "peer-roundtrip", FALSE, FALSE, FEED_NONE,
      "source-pool"},
  /* The same with a streaming thread for each element. */
  {"roundtrip-queue", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "@POOL@ ! queue max-size-buffers=4 ! pinneddownload @POOL@ ! queue "
        "max-size-buffers=4 ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_BOTH, "peer-roundtrip", FALSE, FALSE},
  /* A source that ignores the offered pool and recycles 4 buffers of its
   * own: registered (auto), or forced through staging or CUDA. */
  {"upload-pageable-recycled", "benchframesrc name=src ! @CAPS@ ! "
        "pinnedupload ! fakesink name=sink sync=false", BENCH_SOURCE_PAGEABLE,
      DIR_UP, "peer-upload", FALSE, FALSE},
  {"upload-pageable-direct", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "pageable-mode=direct ! fakesink name=sink sync=false",
      BENCH_SOURCE_PAGEABLE, DIR_UP, "peer-upload", FALSE, FALSE},
  {"upload-pageable-stage", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "pageable-mode=stage ! fakesink name=sink sync=false",
      BENCH_SOURCE_PAGEABLE, DIR_UP, "peer-upload", FALSE, FALSE},
  /* A fresh buffer per frame, written by the source (a file reader). */
  {"upload-pageable-fresh", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "! fakesink name=sink sync=false", BENCH_SOURCE_FRESH, DIR_UP,
      "peer-upload-fresh", FALSE, FALSE, FEED_NONE, "source-fresh"},
  {"upload-pageable-fresh-wc", "benchframesrc name=src ! @CAPS@ ! "
        "pinnedupload write-combined=true ! fakesink name=sink sync=false",
        BENCH_SOURCE_FRESH, DIR_UP, "peer-upload-fresh", FALSE, FALSE,
      FEED_NONE, "source-fresh"},
  {"upload-pageable-fresh-direct", "benchframesrc name=src ! @CAPS@ ! "
        "pinnedupload pageable-mode=direct ! fakesink name=sink sync=false",
        BENCH_SOURCE_FRESH, DIR_UP, "peer-upload-fresh", FALSE, FALSE,
      FEED_NONE, "source-fresh"},
  {"source-fresh", "benchframesrc name=src ! @CAPS@ ! fakesink name=sink "
        "sync=false", BENCH_SOURCE_FRESH, DIR_UP, NULL, FALSE, FALSE},
  /* The source and sink alone, the source cycling its own pool (fakesink
   * offers none): what the pool path's rows cost the CPU beyond them is
   * the elements' own. */
  {"source-pool", "benchframesrc name=src ! @CAPS@ ! fakesink name=sink "
        "sync=false", BENCH_SOURCE_PAGEABLE, DIR_UP, NULL, FALSE, FALSE},
  /* Two pass-through base transforms between the same source and sink:
   * what GStreamer's per-buffer work for a pair of elements costs alone,
   * against the pair's own (tests/gpu/run.sh floor). */
  {"identity-pair", "benchframesrc name=src ! @CAPS@ ! identity ! identity ! "
        "fakesink name=sink sync=false", BENCH_SOURCE_PAGEABLE, DIR_UP, NULL,
      FALSE, FALSE, FEED_NONE, "source-pool"},
  /* An application pushing frames through appsrc. */
  {"appsrc-pool", "appsrc name=src ! @CAPS@ ! pinnedupload ! fakesink "
        "name=sink sync=false", BENCH_SOURCE_POOL, DIR_UP, "appsrc-malloc",
      FALSE, FALSE, FEED_APP_POOL},
  {"appsrc-malloc", "appsrc name=src ! @CAPS@ ! pinnedupload ! fakesink "
        "name=sink sync=false", BENCH_SOURCE_POOL, DIR_UP, NULL, FALSE, FALSE,
      FEED_APP_MALLOC},
  /* Downstream proposes a system-memory pool, and we copy into it. */
  {"download-pageable-stage", "benchframesrc name=src ! @CAPS@ ! "
        "pinneddownload pageable-mode=stage ! benchpoolsink name=sink",
      BENCH_SOURCE_DEVICE, DIR_DOWN, "peer-download", FALSE, FALSE},
  {"download-pageable-register", "benchframesrc name=src ! @CAPS@ ! "
        "pinneddownload pageable-mode=register ! benchpoolsink name=sink",
      BENCH_SOURCE_DEVICE, DIR_DOWN, "peer-download", FALSE, FALSE},
  {"download-pageable-direct", "benchframesrc name=src ! @CAPS@ ! "
        "pinneddownload pageable-mode=direct ! benchpoolsink name=sink",
      BENCH_SOURCE_DEVICE, DIR_DOWN, "peer-download", FALSE, FALSE},
  /* Page-locked pools backed by huge pages. */
  {"upload-hugepages", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "huge-pages=true @POOL@ ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_UP, "peer-upload", FALSE, FALSE},
  {"roundtrip-hugepages", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "huge-pages=true @POOL@ ! pinneddownload huge-pages=true @POOL@ ! "
        "fakesink name=sink sync=false", BENCH_SOURCE_POOL, DIR_BOTH,
      "peer-roundtrip", FALSE, FALSE},
  /* A kernel as long as a copy between the copies: on own streams the
   * three overlap, on the shared stream they take turns. */
  {"overlap", "benchframesrc name=src ! @CAPS@ ! pinnedupload @POOL@ ! "
        "pinnedbusy busy-us=@BUSY@ ! pinneddownload @POOL@ ! fakesink "
        "name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_BOTH, NULL, FALSE, FALSE},
  {"overlap-serial", "benchframesrc name=src ! @CAPS@ ! pinnedupload "
        "shared-stream=true ! pinnedbusy busy-us=@BUSY@ shared-stream=true ! "
        "pinneddownload shared-stream=true ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_BOTH, NULL, FALSE, FALSE},
  /* CUDA interop. Into CUDA memory, pushed once complete (1.22), and out
   * of one CUDA frame repeated (as peer-download). */
  {"cuda-upload", "benchframesrc name=src ! @CAPS@ ! pinnedupload @POOL@ ! "
        "video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_UP, "peer-upload", TRUE, FALSE},
  {"cuda-download", "benchframesrc name=src duration=1 ! @CAPS@ ! "
        "cudaupload ! video/x-raw(memory:CUDAMemory) ! imagefreeze ! "
        "pinneddownload @POOL@ ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_DOWN, "peer-download", TRUE, TRUE},
  /* Decoding a clip, looped. */
  {"decode-pinned", "multifilesrc location=@CLIP@ stop-index=0 loop=true ! "
        "@PARSE@ ! @DEC@ ! video/x-raw(memory:CUDAMemory) ! pinneddownload "
        "@POOL@ ! fakesink name=sink sync=false", BENCH_SOURCE_POOL, DIR_DOWN,
      "decode-system", TRUE, FALSE, FEED_NONE, NULL, "any"},
  {"decode-cudadownload", "multifilesrc location=@CLIP@ stop-index=0 "
        "loop=true ! @PARSE@ ! @DEC@ ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload ! video/x-raw ! fakesink name=sink sync=false",
        BENCH_SOURCE_POOL, DIR_DOWN, "decode-system", TRUE, FALSE, FEED_NONE,
      NULL, "any"},
  {"decode-system", "multifilesrc location=@CLIP@ stop-index=0 loop=true ! "
        "@PARSE@ ! @DEC@ ! video/x-raw ! fakesink name=sink sync=false",
        BENCH_SOURCE_POOL, DIR_DOWN, NULL, TRUE, FALSE, FEED_NONE, NULL,
      "any"},
  {"peer-upload", "benchframesrc name=src ! @CAPS@ ! cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false",
      BENCH_SOURCE_POOL, DIR_UP, NULL, TRUE, FALSE},
  {"peer-upload-fresh", "benchframesrc name=src ! @CAPS@ ! cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false",
        BENCH_SOURCE_FRESH, DIR_UP, NULL, TRUE, FALSE, FEED_NONE,
      "source-fresh"},
  /* Without the system memory caps after cudadownload, it negotiates
   * CUDA memory passthrough with fakesink and copies nothing. */
  {"peer-download", "benchframesrc name=src duration=1 ! @CAPS@ ! "
        "cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! imagefreeze ! cudadownload ! "
        "video/x-raw ! fakesink name=sink sync=false", BENCH_SOURCE_POOL,
      DIR_DOWN, NULL, TRUE, TRUE},
  {"peer-roundtrip", "benchframesrc name=src ! @CAPS@ ! cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! "
        "fakesink name=sink sync=false", BENCH_SOURCE_POOL, DIR_BOTH, NULL,
      TRUE, FALSE},
};

typedef struct
{
  gdouble fps[MAX_REPEATS];
  gdouble cpu_us[MAX_REPEATS];  /* CPU time per buffer */
  /* Of it in the kernel, and the process's voluntary context switches
   * (sleeps, waits) per buffer: what a wait costs shows there. */
  gdouble sys_us[MAX_REPEATS];
  gdouble switches[MAX_REPEATS];
  gdouble faults[MAX_REPEATS];  /* minor page faults per buffer */
  gdouble cores[MAX_REPEATS];
  /* The copy limit measured right before each repeat, in its direction,
   * and the one both ways (for the overlap rows' floor): the host's link
   * varies over a run, so each repeat is held against its own. */
  gdouble limit[MAX_REPEATS];
  gdouble limit_both[MAX_REPEATS];
  gdouble ratio[MAX_REPEATS];
  gdouble overlap[MAX_REPEATS];
  guint n;
  gboolean verified;
  gboolean skipped;
  gchar *note;
} Result;

/* Frames before the window opens, on top of the warm-up time: each buffer
 * of the source's pool is written on its first use, which must not be
 * measured. */
#define WARMUP_FRAMES 8

typedef struct
{
  /* set up by the runner */
  gint64 warmup_us;
  guint64 warmup_frames;
  gint64 duration_us;
  gsize frame_size;
  /* filled in by the sink probe */
  GMutex lock;
  gint64 first_us;
  gint64 start_us;
  gint64 end_us;
  guint64 frames;
  struct rusage ru_start, ru_end;
  GHashTable *threads_start, *threads_end;
  GstBuffer *last;
  gboolean done;
  GstElement *pipeline;
} Run;

static struct
{
  gchar *sizes;
  gchar *rows;
  gint repeats;
  gint duration_ms;
  gint warmup_ms;
  gboolean quick;
  gchar *csv;
  gchar *json;
  gchar *timeline;
  gint pool_size;
  gint batch;                   /* -1: the elements' default */
  gchar *device_alloc;          /* NULL: the elements' default */
  gint limit_rotate;
  gchar *clips;
  gchar *clip;
  gchar *pipeline;
  gboolean only;
  gint devices;
  gint streams;
  gboolean convert;
  gboolean bind_streams;
  gint bind_cpus;
  gchar *copy_props;
} opts = {
  NULL, NULL, 3, 600, 150, FALSE, NULL, NULL, NULL, 0, -1, NULL, 0, NULL,
  NULL, NULL, FALSE, 0, 0, FALSE
};

/* A clip for the decode rows: @codec-WxH.@codec in the clips folder. */
typedef struct
{
  const gchar *codec;
  const gchar *parse;
  const gchar *dec;
} Codec;

static const Codec codecs[] = {
  {"h264", "h264parse", "nvh264dec"},
  {"h265", "h265parse", "nvh265dec"},
};

/* The clip of a decode configuration (Config.format is the codec). */
static const Codec *
codec_of (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (codecs); i++) {
    if (g_strcmp0 (codecs[i].codec, name) == 0)
      return &codecs[i];
  }
  return NULL;
}

/* A thread's stat: tid -> "name ticks" in @data. */
static void
add_thread_ticks (const gchar * tid, gchar * stat, gpointer data)
{
  gchar *name, *end, **f;

  if (!(name = strchr (stat, '(')) || !(end = strrchr (stat, ')')))
    return;
  *end = '\0';
  /* After ") ": state, ppid, ... utime is field 14, stime 15. */
  f = g_strsplit (end + 2, " ", 16);
  if (g_strv_length (f) >= 14)
    g_hash_table_insert (data, g_strdup (tid), g_strdup_printf ("%s %"
            G_GINT64_FORMAT, name + 1, g_ascii_strtoll (f[11], NULL, 10)
            + g_ascii_strtoll (f[12], NULL, 10)));
  g_strfreev (f);
}

/* CPU ticks of each thread of the process, tid -> "name ticks", for
 * BENCH_THREADS=1: which thread spends the CPU time of a row. */
static GHashTable *
thread_ticks (void)
{
  GHashTable *t;

  if (!g_getenv ("BENCH_THREADS"))
    return NULL;
  t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  bench_each_thread ("stat", add_thread_ticks, t);
  return t;
}

static void
print_thread_ticks (GHashTable * start, GHashTable * end, gdouble wall)
{
  GHashTableIter it;
  gpointer tid, val;
  gdouble hz = sysconf (_SC_CLK_TCK);

  if (!start || !end)
    return;
  g_print ("                    threads (cores):");
  g_hash_table_iter_init (&it, end);
  while (g_hash_table_iter_next (&it, &tid, &val)) {
    const gchar *before = g_hash_table_lookup (start, tid);
    const gchar *sp = strrchr (val, ' ');
    gint64 d = g_ascii_strtoll (sp + 1, NULL, 10) -
        (before ? g_ascii_strtoll (strrchr (before, ' ') + 1, NULL, 10) : 0);

    if (d > 0)
      g_print (" %.*s %.2f;", (gint) (sp - (const gchar *) val),
          (const gchar *) val, d / hz / wall);
  }
  g_print ("\n");
}

static gdouble
sys_seconds (const struct rusage *ru)
{
  return ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

static gdouble
cpu_seconds (const struct rusage *ru)
{
  return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + sys_seconds (ru);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median (const gdouble * values, guint n)
{
  gdouble sorted[MAX_REPEATS];

  if (n == 0)
    return 0;
  memcpy (sorted, values, n * sizeof (gdouble));
  qsort (sorted, n, sizeof (gdouble), cmp_double);
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static gdouble
spread (const gdouble * values, guint n)
{
  gdouble lo = G_MAXDOUBLE, hi = 0, m = median (values, n);
  guint i;

  for (i = 0; i < n; i++) {
    lo = MIN (lo, values[i]);
    hi = MAX (hi, values[i]);
  }
  return m > 0 ? (hi - lo) / m : 0;
}

/* ----------------------------------------------------------------------- */
/* The in-run limit */

typedef struct
{
  gpointer host_a, host_b, dev_a, dev_b;
  cudaStream_t s1, s2;
  cudaEvent_t start, stop, joined;
  gsize capacity;
} LimitBench;

static void
limit_bench_init (LimitBench * lb, gsize capacity)
{
  memset (lb, 0, sizeof (*lb));
  lb->capacity = capacity;
  CHECK (cudaHostAlloc (&lb->host_a, capacity, cudaHostAllocPortable));
  CHECK (cudaHostAlloc (&lb->host_b, capacity, cudaHostAllocPortable));
  CHECK (cudaMalloc (&lb->dev_a, capacity));
  CHECK (cudaMalloc (&lb->dev_b, capacity));
  memset (lb->host_a, 0x5a, capacity);
  CHECK (cudaStreamCreateWithFlags (&lb->s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&lb->s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&lb->start));
  CHECK (cudaEventCreate (&lb->stop));
  CHECK (cudaEventCreateWithFlags (&lb->joined, cudaEventDisableTiming));
}

static void
limit_bench_clear (LimitBench * lb)
{
  CHECK (cudaEventDestroy (lb->start));
  CHECK (cudaEventDestroy (lb->stop));
  CHECK (cudaEventDestroy (lb->joined));
  CHECK (cudaStreamDestroy (lb->s1));
  CHECK (cudaStreamDestroy (lb->s2));
  CHECK (cudaFree (lb->dev_a));
  CHECK (cudaFree (lb->dev_b));
  CHECK (cudaFreeHost (lb->host_a));
  CHECK (cudaFreeHost (lb->host_b));
}

/* GB/s of @n back-to-back copies of @size bytes in direction @dir. */
static gdouble
limit_sample (LimitBench * lb, gsize size, guint n, Direction dir)
{
  gfloat ms = 0;
  guint i;

  CHECK (cudaEventRecord (lb->start, lb->s1));
  CHECK (cudaStreamWaitEvent (lb->s2, lb->start, 0));
  for (i = 0; i < n; i++) {
    if (dir != DIR_DOWN)
      CHECK (cudaMemcpyAsync (lb->dev_a, lb->host_a, size,
              cudaMemcpyHostToDevice, lb->s1));
    if (dir != DIR_UP)
      CHECK (cudaMemcpyAsync (lb->host_b, lb->dev_b, size,
              cudaMemcpyDeviceToHost, dir == DIR_BOTH ? lb->s2 : lb->s1));
  }
  CHECK (cudaEventRecord (lb->joined, lb->s2));
  CHECK (cudaStreamWaitEvent (lb->s1, lb->joined, 0));
  CHECK (cudaEventRecord (lb->stop, lb->s1));
  CHECK (cudaEventSynchronize (lb->stop));
  CHECK (cudaEventElapsedTime (&ms, lb->start, lb->stop));

  return (dir == DIR_BOTH ? 2.0 : 1.0) * size * n / (ms / 1e3) / 1e9;
}

static gdouble
limit_median (LimitBench * lb, gsize size, Direction dir)
{
  gdouble samples[7];
  guint n = CLAMP ((256u << 20) / MAX (size, 1), 4, 4000), i;

  if (opts.quick)
    n = MIN (n, 16);
  limit_sample (lb, size, 3, dir);      /* warm-up */
  for (i = 0; i < G_N_ELEMENTS (samples); i++)
    samples[i] = limit_sample (lb, size, n, dir);
  return median (samples, G_N_ELEMENTS (samples));
}

/* The limit when each copy uses the next of @n frame-sized buffers, as a
 * stream of frames does, instead of the same one. */
static void
print_rotating_limit (gsize size, guint n)
{
  gpointer host[32], dev[32];
  cudaStream_t s1, s2;
  cudaEvent_t start, stop, joined;
  gdouble results[3][5];
  guint i, k, d;
  guint copies = CLAMP ((512u << 20) / size, 8, 512);

  n = CLAMP (n, 1, 16);
  for (i = 0; i < 2 * n; i++) {
    CHECK (cudaHostAlloc (&host[i], size, cudaHostAllocPortable));
    CHECK (cudaMalloc (&dev[i], size));
    memset (host[i], i, size);
  }
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  CHECK (cudaEventCreateWithFlags (&joined, cudaEventDisableTiming));
  for (d = 0; d < 3; d++) {
    for (k = 0; k < 5; k++) {
      gfloat ms = 0;

      CHECK (cudaEventRecord (start, s1));
      CHECK (cudaStreamWaitEvent (s2, start, 0));
      for (i = 0; i < copies; i++) {
        if (d != DIR_DOWN)
          CHECK (cudaMemcpyAsync (dev[i % n], host[i % n], size,
                  cudaMemcpyHostToDevice, s1));
        if (d != DIR_UP)
          CHECK (cudaMemcpyAsync (host[n + i % n], dev[n + i % n], size,
                  cudaMemcpyDeviceToHost, d == DIR_BOTH ? s2 : s1));
      }
      CHECK (cudaEventRecord (joined, s2));
      CHECK (cudaStreamWaitEvent (s1, joined, 0));
      CHECK (cudaEventRecord (stop, s1));
      CHECK (cudaEventSynchronize (stop));
      CHECK (cudaEventElapsedTime (&ms, start, stop));
      results[d][k] = (d == DIR_BOTH ? 2.0 : 1.0) * size * copies /
          (ms / 1e3) / 1e9;
    }
  }
  g_print ("limit rotating over %u buffers of %" G_GSIZE_FORMAT " bytes each "
      "way (GB/s): H2D %.1f D2H %.1f both %.1f\n", n, size,
      median (results[0], 5), median (results[1], 5), median (results[2], 5));
  CHECK (cudaEventDestroy (start));
  CHECK (cudaEventDestroy (stop));
  CHECK (cudaEventDestroy (joined));
  CHECK (cudaStreamDestroy (s1));
  CHECK (cudaStreamDestroy (s2));
  for (i = 0; i < 2 * n; i++) {
    CHECK (cudaFreeHost (host[i]));
    CHECK (cudaFree (dev[i]));
  }
}

/* A short limit measurement next to a pipeline run: median of 3 samples of
 * about 64 MiB each. */
static gdouble
limit_adjacent (LimitBench * lb, gsize size, Direction dir)
{
  gdouble samples[3];
  guint n = CLAMP ((64u << 20) / MAX (size, 1), 2, 1000), i;

  if (opts.quick)
    n = MIN (n, 4);
  for (i = 0; i < G_N_ELEMENTS (samples); i++)
    samples[i] = limit_sample (lb, size, n, dir);
  return median (samples, G_N_ELEMENTS (samples));
}

static void
measure_limits (Config * c, LimitBench * lb)
{
  c->h2d = limit_median (lb, c->size, DIR_UP);
  c->d2h = limit_median (lb, c->size, DIR_DOWN);
  c->bidir = limit_median (lb, c->size, DIR_BOTH);
}

/* ----------------------------------------------------------------------- */
/* Pipelines */

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&run->lock);
  if (run->done) {
    g_mutex_unlock (&run->lock);
    return GST_PAD_PROBE_DROP;
  }
  if (run->first_us == 0)
    run->first_us = now;

  if (run->start_us == 0) {
    if (++run->warmup_frames >= WARMUP_FRAMES &&
        now - run->first_us >= run->warmup_us) {
      run->start_us = now;
      getrusage (RUSAGE_SELF, &run->ru_start);
      run->threads_start = thread_ticks ();
    }
  } else {
    run->frames++;
    if (now - run->start_us >= run->duration_us) {
      /* The window ends when this frame's copy has landed. */
      gst_pinned_buffer_wait (buf, GST_MAP_READ, NULL);
      run->end_us = g_get_monotonic_time ();
      getrusage (RUSAGE_SELF, &run->ru_end);
      run->threads_end = thread_ticks ();
      run->last = gst_buffer_ref (buf);
      run->done = TRUE;
      gst_element_post_message (run->pipeline,
          gst_message_new_application (GST_OBJECT (run->pipeline),
              gst_structure_new_empty ("bench-done")));
    }
  }
  g_mutex_unlock (&run->lock);

  return GST_PAD_PROBE_OK;
}

/* The kernel time of the overlap rows: one frame's copy at the in-run
 * limit. */
static guint
busy_us (const Config * c)
{
  return c->h2d > 0 && isfinite (c->h2d) ?
      (guint) (c->size / (c->h2d * 1e3) + 0.5) : 0;
}

/* The overlap rows' floor: a frame's kernel or its copy both ways at the
 * limit @both, the longer; 0 where neither was measured. */
static gdouble
overlap_floor (const Config * c, gdouble both)
{
  gdouble copy = both > 0 && isfinite (both) ? c->size / (both / 2 * 1e3) : 0;

  return MAX (busy_us (c), copy);
}

static gchar *
replace_all (gchar * str, const gchar * what, const gchar * with)
{
  gchar **parts = g_strsplit (str, what, -1);
  gchar *ret = g_strjoinv (with, parts);

  g_strfreev (parts);
  g_free (str);
  return ret;
}

/* @POOL@: the options of our elements given on the command line. */
static gchar *
pool_options (void)
{
  GString *s = g_string_new (NULL);

  if (opts.pool_size)
    g_string_append_printf (s, "pool-size=%d ", opts.pool_size);
  if (opts.batch >= 0)
    g_string_append_printf (s, "batch=%d ", opts.batch);
  if (opts.device_alloc)
    g_string_append_printf (s, "device-alloc=%s", opts.device_alloc);
  return g_string_free (s, FALSE);
}

static gchar *
make_launch (const Config * c, const Row * row, const gchar * caps)
{
  gchar *busy = g_strdup_printf ("%u", busy_us (c));
  gchar *pool = pool_options ();
  gchar **a = g_strsplit (row->launch, "@CAPS@", -1);
  gchar *tmp = g_strjoinv (caps, a);
  gchar **b = g_strsplit (tmp, "@BUSY@", -1);
  gchar *tmp2 = g_strjoinv (busy, b);
  gchar **d = g_strsplit (tmp2, "@POOL@", -1);
  gchar *ret = g_strjoinv (pool, d);

  if (row->codec) {
    const Codec *codec = codec_of (c->format);
    gchar *clip = g_strdup_printf ("%s/%s-%dx%d.%s", opts.clips, c->format,
        c->width, c->height, c->format);

    ret = replace_all (ret, "@CLIP@", clip);
    ret = replace_all (ret, "@PARSE@", codec->parse);
    ret = replace_all (ret, "@DEC@", codec->dec);
    g_free (clip);
  }

  g_strfreev (a);
  g_strfreev (b);
  g_strfreev (d);
  g_free (tmp);
  g_free (tmp2);
  g_free (busy);
  g_free (pool);
  return ret;
}

static gchar *
config_caps (const Config * c, const Row * row)
{
  return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,"
      "framerate=30/1", row->mode == BENCH_SOURCE_DEVICE ?
      "(memory:PinnedDevice)" : "", c->format, c->width, c->height);
}

/* ----------------------------------------------------------------------- */
/* An application feeding appsrc */

#define APP_SLOTS 4

typedef struct
{
  GstElement *appsrc;
  GstVideoInfo info;
  Feed feed;
  gint stop;
  GThread *thread;
  /* FEED_APP_MALLOC: the application's own frames, reused once the
   * pipeline lets go of them */
  GMutex lock;
  GCond cond;
  guint8 *slots[APP_SLOTS];
  gboolean busy[APP_SLOTS];
} Feeder;

typedef struct
{
  Feeder *feeder;
  guint slot;
} SlotRef;

static void
slot_free (gpointer data)
{
  SlotRef *ref = data;

  g_mutex_lock (&ref->feeder->lock);
  ref->feeder->busy[ref->slot] = FALSE;
  g_cond_signal (&ref->feeder->cond);
  g_mutex_unlock (&ref->feeder->lock);
  g_free (ref);
}

static gint
wait_slot (Feeder * f)
{
  gint slot = -1;
  guint i;

  g_mutex_lock (&f->lock);
  while (slot < 0 && !g_atomic_int_get (&f->stop)) {
    for (i = 0; i < APP_SLOTS && slot < 0; i++) {
      if (!f->busy[i])
        slot = i;
    }
    if (slot < 0)
      g_cond_wait_until (&f->cond, &f->lock, g_get_monotonic_time () +
          100 * G_TIME_SPAN_MILLISECOND);
  }
  if (slot >= 0)
    f->busy[slot] = TRUE;
  g_mutex_unlock (&f->lock);
  return slot;
}

static gpointer
feeder_thread (gpointer data)
{
  Feeder *f = data;
  GstPad *pad = gst_element_get_static_pad (f->appsrc, "src");
  GstCaps *caps = gst_video_info_to_caps (&f->info);
  GstClockTime duration = gst_util_uint64_scale_int (GST_SECOND,
      MAX (f->info.fps_d, 1), MAX (f->info.fps_n, 1));
  GstBufferPool *pool = NULL;
  guint64 seed = 0;

  /* The page-locked pool pinnedupload offers, for the frames the
   * application writes. */
  if (f->feed == FEED_APP_POOL) {
    pool = gst_pinned_host_buffer_pool_from_peer (pad, caps, 4);
    if (pool == NULL) {
      /* Asked again once: the upload may still be starting. */
      g_usleep (100000);
      pool = gst_pinned_host_buffer_pool_from_peer (pad, caps, 4);
    }
    if (pool == NULL)
      GST_ERROR ("appsrc's peer offers no page-locked pool");
  }

  while (!g_atomic_int_get (&f->stop) && (pool || f->feed != FEED_APP_POOL)) {
    GstBuffer *buf = NULL;
    GstMapInfo map;

    seed++;
    if (pool) {
      if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
        break;
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      bench_fill (map.data, f->info.size, seed);
      gst_buffer_unmap (buf, &map);
    } else {
      gint slot = wait_slot (f);
      SlotRef *ref;

      if (slot < 0)
        break;
      bench_fill (f->slots[slot], f->info.size, seed);
      ref = g_new0 (SlotRef, 1);
      ref->feeder = f;
      ref->slot = slot;
      buf = gst_buffer_new_wrapped_full (0, f->slots[slot], f->info.size, 0,
          f->info.size, ref, slot_free);
    }
    GST_BUFFER_OFFSET (buf) = seed;
    GST_BUFFER_PTS (buf) = (seed - 1) * duration;
    GST_BUFFER_DURATION (buf) = duration;
    if (gst_app_src_push_buffer (GST_APP_SRC (f->appsrc), buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (f->appsrc));

  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return NULL;
}

static Feeder *
feeder_new (GstElement * appsrc, const gchar * caps_str, Feed feed)
{
  Feeder *f = g_new0 (Feeder, 1);
  GstCaps *caps = gst_caps_from_string (caps_str);
  guint i;

  f->appsrc = gst_object_ref (appsrc);
  f->feed = feed;
  gst_video_info_from_caps (&f->info, caps);
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  if (feed == FEED_APP_MALLOC) {
    for (i = 0; i < APP_SLOTS; i++)
      f->slots[i] = g_malloc (f->info.size);
  }
  g_object_set (appsrc, "caps", caps, "format", GST_FORMAT_TIME, "block",
      TRUE, "max-bytes", (guint64) (2 * f->info.size), NULL);
  gst_caps_unref (caps);
  return f;
}

static void
feeder_start (Feeder * f)
{
  f->thread = g_thread_new ("app", feeder_thread, f);
}

/* The pipeline is stopped first: that releases a feeder blocked in a push
 * or an acquire. */
static void
feeder_free (Feeder * f)
{
  guint i;

  g_atomic_int_set (&f->stop, 1);
  if (f->thread)
    g_thread_join (f->thread);
  for (i = 0; i < APP_SLOTS; i++)
    g_free (f->slots[i]);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
  gst_object_unref (f->appsrc);
  g_free (f);
}

/* One run of one row; FALSE with a note when it could not run. */
static gboolean
run_once (const Config * c, const Row * row, Result * res)
{
  Feeder *feeder = NULL;
  gchar *caps_str = config_caps (c, row);
  gchar *launch = make_launch (c, row, caps_str);
  GError *error = NULL;
  GstElement *pipeline, *src, *sink;
  GstCaps *caps;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  Run run = { 0, };
  gboolean ok = FALSE;

  pipeline = gst_parse_launch (launch, &error);
  if (pipeline == NULL) {
    res->note = g_strdup_printf ("cannot build: %s", error->message);
    g_clear_error (&error);
    goto out;
  }

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  if (src && row->feed != FEED_NONE) {
    feeder = feeder_new (src, caps_str, row->feed);
    gst_object_unref (src);
  } else if (src) {
    caps = gst_caps_from_string (caps_str);
    g_object_set (src, "caps", caps, "mode", row->mode, NULL);
    if (!row->fixed_seed)
      g_object_set (src, "duration", (guint64) (opts.duration_ms +
              opts.warmup_ms) * 10 * GST_MSECOND, NULL);
    gst_caps_unref (caps);
    gst_object_unref (src);
  }

  g_mutex_init (&run.lock);
  run.warmup_us = (gint64) opts.warmup_ms * 1000;
  run.duration_us = (gint64) opts.duration_ms * 1000;
  run.pipeline = pipeline;
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, &run, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (feeder)
    feeder_start (feeder);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_APPLICATION);
  if (msg == NULL || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_APPLICATION) {
    gchar *debug = NULL;

    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &error, &debug);
    if (debug && strstr (debug, "not-negotiated"))
      res->note = g_strdup ("format not supported");
    else
      res->note = g_strdup_printf ("%s: %s", msg == NULL ? "timeout" :
          GST_MESSAGE_TYPE_NAME (msg), error ? error->message : "ended early");
    GST_ERROR ("%s: %s (%s)", launch, res->note, debug ? debug : "");
    g_clear_error (&error);
    g_free (debug);
  } else {
    gdouble wall = (run.end_us - run.start_us) / 1e6;
    gdouble cpu = cpu_seconds (&run.ru_end) - cpu_seconds (&run.ru_start);

    res->fps[res->n] = run.frames / wall;
    res->cpu_us[res->n] = cpu / run.frames * 1e6;
    res->sys_us[res->n] = (sys_seconds (&run.ru_end) -
        sys_seconds (&run.ru_start)) / run.frames * 1e6;
    res->switches[res->n] = (gdouble) (run.ru_end.ru_nvcsw -
        run.ru_start.ru_nvcsw) / run.frames;
    res->faults[res->n] = (gdouble) (run.ru_end.ru_minflt -
        run.ru_start.ru_minflt) / run.frames;
    res->cores[res->n] = cpu / wall;
    res->n++;
    print_thread_ticks (run.threads_start, run.threads_end, wall);
    ok = TRUE;
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);

  if (feeder)
    g_atomic_int_set (&feeder->stop, 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (feeder)
    feeder_free (feeder);
  if (ok && row->codec) {
    /* A decoder's frames: tests/gpu (step interop) checks them. */
    res->verified = TRUE;
  } else if (ok && run.last) {
    GstVideoInfo info;
    GstCaps *frame_caps = gst_caps_from_string (caps_str);

    gst_video_info_from_caps (&info, frame_caps);
    gst_caps_unref (frame_caps);
    res->verified = bench_frame_verify (run.last, &info, row->fixed_seed ? 1 :
        GST_BUFFER_OFFSET (run.last));
    if (!res->verified)
      res->note = g_strdup ("OUTPUT WRONG");
  }
  gst_clear_buffer (&run.last);
  gst_object_unref (pipeline);
  g_mutex_clear (&run.lock);
  if (run.threads_start)
    g_hash_table_unref (run.threads_start);
  if (run.threads_end)
    g_hash_table_unref (run.threads_end);

out:
  g_free (launch);
  g_free (caps_str);
  return ok;
}

/* ----------------------------------------------------------------------- */
/* Output */

static const Row *find_row (const gchar * name);

/* What a row adds over its base, per frame: the difference, or "n/a" and
 * why where the base took more (a row is its base and more, so that is
 * noise or a base that did not do what the row's source does). */
static gchar *
added_figure (gdouble row, gdouble base, gint digits)
{
  if (row >= base)
    return g_strdup_printf ("%.*f", digits, row - base);
  return g_strdup_printf ("n/a (alone %.*f > row %.*f)", digits, base,
      digits, row);
}

/* For sources whose own work dominates (a fresh buffer written per frame):
 * the time and CPU this row adds per frame over the source alone, and the
 * time the peer adds. On the pool path: the elements' own CPU. FALSE where
 * the source alone faulted in more pages a frame than the row: then it did
 * not make its frames as the row's source did, and the figures above it
 * mean nothing. */
static gboolean
print_added (const Config * c, const Row * row, Result * results)
{
  const Row *base = find_row (row->base);
  const Row *peer = row->peer ? find_row (row->peer) : NULL;
  Result *res = &results[row - rows], *base_res;
  gdouble fps = median (res->fps, res->n);
  gdouble base_fps, added, faults, base_faults, pages, slack;
  gchar *time, *cpu, *sys, *sleeps;
  gboolean ok = TRUE;

  if (base == NULL || fps <= 0)
    return TRUE;
  base_res = &results[base - rows];
  base_fps = median (base_res->fps, base_res->n);
  if (base_res->n == 0 || base_fps <= 0) {
    g_print ("%-6s %-10s   adds n/a to the source alone (%s did not run)\n",
        "", "", base->name);
    return TRUE;
  }
  added = 1e6 / fps - 1e6 / base_fps;
  time = added_figure (1e6 / fps, 1e6 / base_fps, 0);
  cpu = added_figure (median (res->cpu_us, res->n),
      median (base_res->cpu_us, base_res->n), 1);
  sys = added_figure (median (res->sys_us, res->n),
      median (base_res->sys_us, base_res->n), 1);
  sleeps = added_figure (median (res->switches, res->n),
      median (base_res->switches, base_res->n), 2);
  faults = median (res->faults, res->n);
  base_faults = median (base_res->faults, base_res->n);
  g_print ("%-6s %-10s   adds %s us/frame to the source alone (%.0f "
      "us/frame, %.0f page faults a frame; this row %.0f), %s us of CPU (%s "
      "in the kernel, %s sleeps)", "", "", time, 1e6 / base_fps, base_faults,
      faults, cpu, sys, sleeps);
  if (peer && results[peer - rows].n > 0) {
    gdouble peer_fps = median (results[peer - rows].fps,
        results[peer - rows].n);
    gdouble peer_added = 1e6 / peer_fps - 1e6 / base_fps;

    if (peer_added < 0)
      g_print ("; %s adds n/a (alone %.0f > %s %.0f us/frame)", peer->name,
          1e6 / base_fps, peer->name, 1e6 / peer_fps);
    else if (added < 0.5)
      g_print ("; %s adds %.0f: x less n/a (this row adds %s)", peer->name,
          peer_added, added < 0 ? "n/a" : "under 1 us");
    else
      g_print ("; %s adds %.0f: %.2fx less", peer->name, peer_added,
          peer_added / added);
  }
  g_print ("\n");

  /* A frame's pages, a quarter of them at least, and some for the rest of
   * the process. */
  pages = (gdouble) c->size / sysconf (_SC_PAGESIZE);
  slack = MAX (pages / 4, 64);
  if (base_faults > faults + slack) {
    g_print ("%-6s %-10s   WRONG BASE: %s faulted in %.0f pages a frame, "
        "this row %.0f: it does not make its frames as this row's source "
        "does\n", "", "", base->name, base_faults, faults);
    ok = FALSE;
  }
  g_free (time);
  g_free (cpu);
  g_free (sys);
  g_free (sleeps);
  return ok;
}

static gdouble
bytes_per_frame (const Config * c, const Row * row)
{
  return row->dir == DIR_BOTH ? 2.0 * c->size : c->size;
}

static gdouble
limit_for (const Config * c, const Row * row)
{
  switch (row->dir) {
    case DIR_UP:
      return c->h2d;
    case DIR_DOWN:
      return c->d2h;
    default:
      return c->bidir;
  }
}

static gboolean
is_overlap (const Row * row)
{
  return g_str_has_prefix (row->name, "overlap");
}

static const Row *
find_row (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    if (g_strcmp0 (rows[i].name, name) == 0)
      return &rows[i];
  }
  return NULL;
}

static gboolean
name_selected (const gchar * name)
{
  gchar **names;
  gboolean found;

  if (opts.rows == NULL)
    return g_strv_contains (default_rows, name);
  if (g_strcmp0 (opts.rows, "all") == 0)
    return TRUE;
  names = g_strsplit (opts.rows, ",", -1);
  found = g_strv_contains ((const gchar * const *) names, name);
  g_strfreev (names);
  return found;
}

static gboolean
row_selected (const Row * row)
{
  return name_selected (row->name);
}

/* Selected, or the peer or base of a selected row. */
static gboolean
row_needed (const Row * row)
{
  guint i;

  if (row_selected (row))
    return TRUE;
  if (opts.only)
    return FALSE;
  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    if (row_selected (&rows[i]) && (g_strcmp0 (rows[i].peer, row->name) == 0
            || g_strcmp0 (rows[i].base, row->name) == 0))
      return TRUE;
  }
  return FALSE;
}

static GPtrArray *
parse_sizes (void)
{
  const gchar *defaults = opts.quick ? "GRAY8:320x240,RGBA:640x480" :
      "GRAY8:320x240,NV12:1280x720,I420:1920x1080,NV12:1920x1080,"
      "RGBA:1920x1080,NV12:3840x2160,I420:3840x2160,RGBA:3840x2160,"
      "NV12:7680x4320,RGBA:7680x4320";
  gchar **items = g_strsplit (opts.sizes ? opts.sizes : defaults, ",", -1);
  GPtrArray *configs = g_ptr_array_new ();
  guint i;

  for (i = 0; items[i]; i++) {
    Config *c = g_new0 (Config, 1);
    gchar fmt[32];
    GstVideoInfo info;

    if (sscanf (items[i], "%31[^:]:%dx%d", fmt, &c->width, &c->height) != 3)
      g_error ("bad size %s", items[i]);
    c->format = g_strdup (fmt);
    /* A codec (h264:3840x2160): the decode rows, frames of NV12. */
    gst_video_info_set_format (&info, codec_of (fmt) ? GST_VIDEO_FORMAT_NV12 :
        gst_video_format_from_string (fmt), c->width, c->height);
    c->size = info.size;
    g_ptr_array_add (configs, c);
  }
  g_strfreev (items);
  return configs;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &opts.sizes,
        "Frame sizes, FORMAT:WxH,...", NULL},
    {"rows", 0, 0, G_OPTION_ARG_STRING, &opts.rows, "Rows to run", NULL},
    {"repeats", 0, 0, G_OPTION_ARG_INT, &opts.repeats, "Runs per row", NULL},
    {"duration-ms", 0, 0, G_OPTION_ARG_INT, &opts.duration_ms,
        "Measured time per run", NULL},
    {"warmup-ms", 0, 0, G_OPTION_ARG_INT, &opts.warmup_ms,
        "Unmeasured time per run", NULL},
    {"quick", 0, 0, G_OPTION_ARG_NONE, &opts.quick, "Small and short", NULL},
    {"only", 0, 0, G_OPTION_ARG_NONE, &opts.only,
          "Only the rows named, not their peers and bases (for a profiler); "
          "with --devices, only the one-process run",
        NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opts.csv, "Write CSV here", NULL},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &opts.json, "Write JSON here",
        NULL},
    {"pool-size", 0, 0, G_OPTION_ARG_INT, &opts.pool_size,
        "pool-size of our elements (default: theirs)", "N"},
    {"batch", 0, 0, G_OPTION_ARG_INT, &opts.batch,
        "batch of our elements (default: theirs, 0: automatic)", "N"},
    {"device-alloc", 0, 0, G_OPTION_ARG_STRING, &opts.device_alloc,
          "device-alloc of our elements (default: theirs; stream-ordered)",
        "MODE"},
    {"limit-rotate", 0, 0, G_OPTION_ARG_INT, &opts.limit_rotate,
        "Also measure the limit with copies rotating over N frame-sized "
          "buffers each way, as a stream of frames does", "N"},
    {"clips", 0, 0, G_OPTION_ARG_FILENAME, &opts.clips,
        "Folder of the decode rows' clips, CODEC-WxH.CODEC, for sizes "
          "CODEC:WxH (default tests/media/bench, made by "
          "tests/media/make-clips.sh)", "DIR"},
    {"pipeline", 0, 0, G_OPTION_ARG_STRING, &opts.pipeline,
          "Only run this launch line to its end and print one line: frames, "
          "ms per frame from the 10th on at the sink named sink, median "
          "us in the element named el, CPU cores, el's pageable-stats",
        "LAUNCH"},
    {"clip", 0, 0, G_OPTION_ARG_FILENAME, &opts.clip,
        "H.264 clip for the decoder-openh264 row (default "
          ".clips/4k-i420.h264)", "FILE"},
    {"devices", 0, 0, G_OPTION_ARG_INT, &opts.devices,
        "Only the many-GPU run: raw copies both ways on N GPUs at once, "
          "then round trips of the first size spread over them in this "
          "process and in one process per GPU, against that limit", "N"},
    {"streams", 0, 0, G_OPTION_ARG_INT, &opts.streams,
        "With --devices: round trips in this process, spread over the GPUs "
          "(default one a GPU)", "M"},
    {"convert", 0, 0, G_OPTION_ARG_NONE, &opts.convert,
        "With --devices: pinnedconvert to RGBA between the copies", NULL},
    {"bind-streams", 0, 0, G_OPTION_ARG_NONE, &opts.bind_streams,
        "With --devices: each stream's thread on its GPU's share of the "
          "CPUs (the GPU's own where the host has several NUMA nodes)", NULL},
    {"bind-cpus", 0, 0, G_OPTION_ARG_INT, &opts.bind_cpus,
        "With --devices: as --bind-streams, on the first K CPUs of each "
          "GPU's share", "K"},
    {"copy-props", 0, 0, G_OPTION_ARG_STRING, &opts.copy_props,
        "With --devices: properties of pinnedupload and pinneddownload "
          "(e.g. \"batch=1\")", "PROPS"},
    {"timeline", 0, 0, G_OPTION_ARG_FILENAME, &opts.timeline,
        "Record the overlap rows of the last size as GPU timelines: "
          "PREFIX-overlap.json and PREFIX-serial.json", "PREFIX"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- gst-pinned benchmark");
  GError *error = NULL;
  GPtrArray *configs;
  GString *csv, *json;
  struct cudaDeviceProp props;
  LimitBench lb;
  gsize biggest = 64u << 20;
  gboolean have_nvcodec, all_verified = TRUE;
  gdouble big_h2d, big_d2h, big_bidir, huge_h2d, huge_d2h, huge_bidir;
  gchar *date;
  guint i, r;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  g_option_context_free (ctx);
  if (opts.quick) {
    opts.repeats = MIN (opts.repeats, 1);
    opts.duration_ms = MIN (opts.duration_ms, 200);
    opts.warmup_ms = MIN (opts.warmup_ms, 50);
  }
  opts.repeats = CLAMP (opts.repeats, 1, MAX_REPEATS);
  if (opts.clips == NULL)
    opts.clips = g_strdup ("tests/media/bench");
  GST_DEBUG_CATEGORY_INIT (bench_debug, "pinnedbench", 0, "benchmark");
  bench_frame_src_register ();
  bench_pool_sink_register ();

  if (opts.pipeline) {
    BenchPipelineResult pr;
    gboolean ok = bench_extras_pipeline (opts.pipeline, &pr);
    gchar *stats = pr.stats ? gst_structure_to_string (pr.stats) : NULL;

    g_print ("frames=%u period_ms=%.3f inside_us=%.1f cores=%.3f "
        "steady_cores=%.3f faults=%.0f frame_bytes=%" G_GSIZE_FORMAT
        " ok=%d stats=%s\n", pr.frames, pr.period_ms, pr.inside_us, pr.cores,
        pr.steady_cores, pr.faults, pr.frame_size, ok, stats ? stats : "none");
    g_free (stats);
    if (pr.stats)
      gst_structure_free (pr.stats);
    return ok ? 0 : 1;
  }

  if (opts.devices > 0) {
    Config *c;
    BenchDevices b = { 0, };
    gboolean ok;

    configs = parse_sizes ();
    c = g_ptr_array_index (configs, 0);
    b.devices = opts.devices;
    b.streams = opts.streams > 0 ? opts.streams : opts.devices;
    b.format = c->format;
    b.width = c->width;
    b.height = c->height;
    b.seconds = opts.duration_ms / 1e3;
    b.convert = opts.convert;
    b.bind = opts.bind_streams || opts.bind_cpus > 0;
    b.bind_cpus = MAX (opts.bind_cpus, 0);
    b.props = opts.copy_props;
    /* --only: the one-process row alone, for comparing builds. */
    b.self = opts.only ? NULL : argv[0];
    ok = bench_devices_run (&b);
    g_print ("\nall outputs checked: %s\n", ok ? "yes" : "NO");
    return ok ? 0 : 1;
  }

  CHECK (cudaGetDeviceProperties (&props, 0));
  have_nvcodec = gst_registry_check_feature_version (gst_registry_get (),
      "cudaupload", 1, 0, 0);
  date = g_date_time_format_iso8601 (g_date_time_new_now_utc ());

  configs = parse_sizes ();
  for (i = 0; i < configs->len; i++)
    biggest = MAX (biggest, ((Config *) g_ptr_array_index (configs, i))->size);

  /* 1. The in-run limit, after half a second of copies both ways: an idle
   * link and GPU come up to speed over the first tens of milliseconds,
   * which would otherwise land in the first size's figures. */
  limit_bench_init (&lb, MAX (biggest, 256u << 20));
  {
    gint64 until = g_get_monotonic_time () + (opts.quick ? 50 : 500) * 1000;

    while (g_get_monotonic_time () < until)
      limit_sample (&lb, 64u << 20, 4, DIR_BOTH);
  }
  for (i = 0; i < configs->len; i++)
    measure_limits (g_ptr_array_index (configs, i), &lb);
  big_h2d = limit_median (&lb, 64u << 20, DIR_UP);
  big_d2h = limit_median (&lb, 64u << 20, DIR_DOWN);
  big_bidir = limit_median (&lb, 64u << 20, DIR_BOTH);
  huge_h2d = limit_median (&lb, 256u << 20, DIR_UP);
  huge_d2h = limit_median (&lb, 256u << 20, DIR_DOWN);
  huge_bidir = limit_median (&lb, 256u << 20, DIR_BOTH);

  g_print ("gst-pinned benchmark, %s, %s\n", props.name, date);
  g_print ("in-run limit, page-locked cudaMemcpyAsync (GB/s): "
      "64 MiB H2D %.1f D2H %.1f both %.1f; 256 MiB H2D %.1f D2H %.1f "
      "both %.1f\n", big_h2d, big_d2h, big_bidir, huge_h2d, huge_d2h,
      huge_bidir);
  if (opts.limit_rotate > 0) {
    for (i = 0; i < configs->len; i++) {
      Config *c = g_ptr_array_index (configs, i);

      g_print ("limit with one buffer each way for %" G_GSIZE_FORMAT
          " bytes (GB/s): H2D %.1f D2H %.1f both %.1f\n", c->size,
          limit_median (&lb, c->size, DIR_UP),
          limit_median (&lb, c->size, DIR_DOWN),
          limit_median (&lb, c->size, DIR_BOTH));
      print_rotating_limit (c->size, opts.limit_rotate);
    }
  }
  if (!have_nvcodec)
    g_print ("nvcodec (cudaupload/cudadownload) is not available: the peer "
        "rows are skipped\n");

  csv = g_string_new ("format,width,height,frame_bytes,row,frames_per_s,"
      "gb_per_s,limit_gb_per_s,ratio_limit,ratio_peer,cpu_us_per_buffer,"
      "cpu_cores,spread,repeats,verified,period_us,overlap_floor_us,"
      "sys_us_per_buffer,switches_per_buffer,note\n");
  json = g_string_new (NULL);
  g_string_append_printf (json, "{\n  \"device\": \"%s\",\n  \"date\": \"%s\","
      "\n  \"limit_64MiB\": {\"h2d\": %.2f, \"d2h\": %.2f, \"both\": %.2f},"
      "\n  \"limit_256MiB\": {\"h2d\": %.2f, \"d2h\": %.2f, \"both\": %.2f},"
      "\n  \"source\": \"benchframesrc: writes each buffer of the offered "
      "pool once, then cycles them\",\n  \"rows\": [\n", props.name, date,
      big_h2d, big_d2h, big_bidir, huge_h2d, huge_d2h, huge_bidir);

  g_print ("\n%-6s %-10s %-28s %9s %7s %7s %6s %6s %8s %6s %6s %s\n",
      "format", "size", "row", "frames/s", "GB/s", "limit", "/limit",
      "/peer", "cpu us/f", "cores", "spread", "check");

  for (i = 0; i < configs->len; i++) {
    Config *c = g_ptr_array_index (configs, i);
    Result results[G_N_ELEMENTS (rows)];

    memset (results, 0, sizeof (results));
    /* Peers first, so that each of our rows can name its ratio. */
    for (r = G_N_ELEMENTS (rows); r-- > 0;) {
      const Row *row = &rows[r];
      Result *res = &results[r];
      guint k;

      if ((row->codec != NULL) != (codec_of (c->format) != NULL)) {
        res->skipped = TRUE;
        continue;
      }
      if (!row_needed (row) && !(row->codec && opts.rows &&
              strstr (opts.rows, "decode") &&
              g_str_has_prefix (row->name, "decode-"))) {
        res->skipped = TRUE;
        continue;
      }
      if (row->needs_nvcodec && !have_nvcodec) {
        res->skipped = TRUE;
        res->note = g_strdup ("no nvcodec");
        continue;
      }
      if (row->codec && !gst_registry_check_feature_version
          (gst_registry_get (), codec_of (c->format)->dec, 1, 0, 0)) {
        res->skipped = TRUE;
        res->note = g_strdup_printf ("no %s", codec_of (c->format)->dec);
        continue;
      }
      if (row->codec) {
        gchar *clip = g_strdup_printf ("%s/%s-%dx%d.%s", opts.clips,
            c->format, c->width, c->height, c->format);

        if (!g_file_test (clip, G_FILE_TEST_EXISTS)) {
          res->skipped = TRUE;
          res->note = g_strdup_printf ("no clip %s", clip);
        }
        g_free (clip);
        if (res->skipped)
          continue;
      }
      for (k = 0; k < (guint) opts.repeats; k++) {
        gdouble limit = limit_adjacent (&lb, c->size, row->dir);
        gdouble both = row->dir == DIR_BOTH ? limit :
            limit_adjacent (&lb, c->size, DIR_BOTH);

        if (!run_once (c, row, res))
          break;
        res->limit[res->n - 1] = limit;
        res->limit_both[res->n - 1] = both;
        /* 0 where there is nothing to divide by: printed n/a. */
        res->ratio[res->n - 1] = limit > 0 && isfinite (limit) ?
            res->fps[res->n - 1] * bytes_per_frame (c, row) / 1e9 / limit : 0;
        res->overlap[res->n - 1] = overlap_floor (c, both) > 0 ?
            1e6 / res->fps[res->n - 1] / overlap_floor (c, both) : 0;
      }
    }

    for (r = 0; r < G_N_ELEMENTS (rows); r++) {
      const Row *row = &rows[r];
      Result *res = &results[r];
      const Row *peer = row->peer ? find_row (row->peer) : NULL;
      Result *peer_res = peer ? &results[peer - rows] : NULL;
      gdouble fps = median (res->fps, res->n);
      gdouble gbps = fps * bytes_per_frame (c, row) / 1e9;
      gdouble limit = res->n ? median (res->limit, res->n) : limit_for (c, row);
      gdouble ratio = median (res->ratio, res->n);
      gdouble peer_fps = peer_res ? median (peer_res->fps, peer_res->n) : 0;
      gchar *size = g_strdup_printf ("%dx%d", c->width, c->height);
      gchar peer_ratio[16] = "-";
      gchar limit_ratio[16] = "n/a";
      gdouble overlap = median (res->overlap, res->n);
      gdouble floor_us = is_overlap (row) && overlap > 0 ? 1e6 / fps /
          overlap : 0;

      if (res->skipped && res->note == NULL) {
        g_free (size);
        continue;
      }
      if (peer_fps > 0)
        g_snprintf (peer_ratio, sizeof (peer_ratio), "%.2f", fps / peer_fps);
      if (res->n == 0 || ratio > 0)
        g_snprintf (limit_ratio, sizeof (limit_ratio), "%.3f", ratio);
      if (res->n > 0 && !res->verified)
        all_verified = FALSE;

      g_print ("%-6s %-10s %-28s %9.1f %7.2f %7.2f %6s %6s %8.1f %6.3f "
          "%6.3f %s\n", c->format, size, row->name, fps, gbps, limit,
          limit_ratio, peer_ratio,
          median (res->cpu_us, res->n), median (res->cores, res->n),
          spread (res->fps, res->n), res->n == 0 ? (res->note ? res->note :
              "not run") : res->verified ? "ok" : "WRONG");

      g_string_append_printf (csv, "%s,%d,%d,%" G_GSIZE_FORMAT ",%s,%.2f,%.3f,"
          "%.3f,%.4f,%.3f,%.2f,%.4f,%.4f,%u,%s,%.1f,%.1f,%.2f,%.3f,%s\n",
          c->format,
          c->width, c->height, c->size, row->name, fps, gbps, limit,
          ratio, peer_fps > 0 ? fps / peer_fps : 0,
          median (res->cpu_us, res->n), median (res->cores, res->n),
          spread (res->fps, res->n), res->n, res->verified ? "yes" : "no",
          fps > 0 ? 1e6 / fps : 0, floor_us,
          median (res->sys_us, res->n), median (res->switches, res->n),
          res->note ? res->note : "");
      g_string_append_printf (json, "    {\"format\": \"%s\", \"width\": %d, "
          "\"height\": %d, \"frame_bytes\": %" G_GSIZE_FORMAT ", \"row\": "
          "\"%s\", \"frames_per_s\": %.2f, \"gb_per_s\": %.3f, "
          "\"limit_gb_per_s\": %.3f, \"limit_h2d\": %.3f, \"limit_d2h\": %.3f, "
          "\"limit_both\": %.3f, \"ratio_limit\": %.4f, \"ratio_peer\": %.3f, "
          "\"cpu_us_per_buffer\": %.2f, \"cpu_cores\": %.4f, \"spread\": %.4f, "
          "\"repeats\": %u, \"verified\": %s, \"period_us\": %.1f, "
          "\"overlap_floor_us\": %.1f},\n", c->format, c->width,
          c->height, c->size, row->name, fps, gbps, limit, c->h2d, c->d2h,
          c->bidir, ratio,
          peer_fps > 0 ? fps / peer_fps : 0, median (res->cpu_us, res->n),
          median (res->cores, res->n), spread (res->fps, res->n), res->n,
          res->verified ? "true" : "false", fps > 0 ? 1e6 / fps : 0, floor_us);
      g_free (size);
      if (row->base && res->n > 0 && g_strcmp0 (row->base, row->name) &&
          !print_added (c, row, results))
        all_verified = FALSE;
      if (res->n > 0 && ratio <= 0)
        g_print ("%-6s %-10s   /limit n/a: no in-run limit measured (%.2f "
            "GB/s)\n", "", "", limit);
      if (is_overlap (row) && res->n > 0 && overlap > 0)
        g_print ("%-6s %-10s   frame period %.0f us = %.2f x max(kernel %u us, "
            "copy both ways %.0f us)\n", "", "", 1e6 / fps, overlap,
            busy_us (c), overlap_floor (c, median (res->limit_both, res->n)));
      else if (is_overlap (row) && res->n > 0)
        g_print ("%-6s %-10s   frame period %.0f us = n/a x max(kernel %u us, "
            "copy both ways): no kernel time, no limit both ways measured\n",
            "", "", 1e6 / fps, busy_us (c));
      g_free (res->note);
    }
  }

  /* The GPU timelines of the overlap rows, for the last size. */
  if (opts.timeline && configs->len > 0) {
    Config *c = g_ptr_array_index (configs, configs->len - 1);
    const gchar *names[] = { "overlap", "overlap-serial" };
    const gchar *suffix[] = { "overlap", "serial" };

    for (r = 0; r < G_N_ELEMENTS (names); r++) {
      gchar *path = g_strdup_printf ("%s-%s.json", opts.timeline, suffix[r]);
      Result res = { 0, };

      gst_pinned_timeline_start (path, 3 * 400);
      run_once (c, find_row (names[r]), &res);
      gst_pinned_timeline_stop ();
      g_print ("timeline of %s %dx%d %s: %s\n", c->format, c->width,
          c->height, names[r], path);
      g_free (res.note);
      g_free (path);
    }
  }
  limit_bench_clear (&lb);

  /* Rows that are not one pipeline, when named. */
  if (opts.rows && configs->len > 0) {
    Config *c = g_ptr_array_index (configs, configs->len - 1);
    GstVideoInfo info;

    gst_video_info_set_format (&info, gst_video_format_from_string
        (c->format), c->width, c->height);
    g_print ("\n");
    if (name_selected ("anatomy") && !bench_extras_anatomy (c->size,
            info.stride[0]))
      all_verified = FALSE;
    if (name_selected ("api-costs") && !bench_extras_api_costs ())
      all_verified = FALSE;
    if (name_selected ("mapped") && !bench_extras_mapped ())
      all_verified = FALSE;
    if (name_selected ("limit-hugepages") && !bench_extras_hugepages (c->size,
            MAX (opts.limit_rotate, 4)))
      all_verified = FALSE;
    if (name_selected ("decoder-openh264") && !bench_extras_decoder
        (opts.clip ? opts.clip : ".clips/4k-i420.h264"))
      all_verified = FALSE;
  }

  if (json->str[json->len - 2] == ',')
    g_string_truncate (json, json->len - 2);
  g_string_append (json, "\n  ]\n}\n");

  if (opts.csv && !g_file_set_contents (opts.csv, csv->str, -1, &error))
    g_error ("%s", error->message);
  if (opts.json && !g_file_set_contents (opts.json, json->str, -1, &error))
    g_error ("%s", error->message);

  g_print ("\nall outputs checked: %s\n", all_verified ? "yes" : "NO");
  g_string_free (csv, TRUE);
  g_string_free (json, TRUE);
  return all_verified ? 0 : 1;
}
