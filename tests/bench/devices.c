/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Many GPUs and many streams at once (gst-pinned-bench --devices N): the
 * raw concurrent limit (page-locked copies both ways on every GPU at the
 * same time, the frame's bytes, buffers rotating as a stream's do), then
 * round trips spread over the GPUs in this process, and one process per
 * GPU (this program's --pipeline mode as children), each against that
 * limit in the same run; and against the limit with as many buffers
 * rotating on each GPU as its streams' pools hold, where that is more. */

#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

#include "benchutil.h"
#include "devices.h"
#include "framesrc.h"

GST_DEBUG_CATEGORY_STATIC (devices_debug);
#define GST_CAT_DEFAULT devices_debug

#define ROTATE 4
/* Frames a stream passes before its rate counts: the pools are made and
 * written once at the start. */
#define WARMUP_FRAMES 16

static gdouble
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* The process's resident memory, MiB: page-locked pools are resident. */
static gdouble
resident_mib (void)
{
  gchar *status = NULL, *line;
  gdouble kib = 0;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL) &&
      (line = strstr (status, "VmRSS:")))
    kib = g_ascii_strtod (line + 6, NULL);
  g_free (status);
  return kib / 1024;
}

/* A thread's status: its voluntary context switches added to its name's
 * (less trailing digits) in @data. */
static void
add_thread_sleeps (const gchar * tid, gchar * status, gpointer data)
{
  const gchar *key = "\nvoluntary_ctxt_switches:";
  gchar *name, *line;
  guint64 n;

  if (!g_str_has_prefix (status, "Name:") || !(line = strstr (status, key)))
    return;
  n = g_ascii_strtoull (line + strlen (key), NULL, 10);
  name = g_strstrip (g_strndup (status + 5, strcspn (status + 5, "\n")));
  g_strchomp (g_strdelimit (name, "0123456789", ' '));
  n += GPOINTER_TO_SIZE (g_hash_table_lookup (data, name));
  g_hash_table_replace (data, name, GSIZE_TO_POINTER (n));
}

/* The voluntary context switches (sleeps) of the process's threads now,
 * summed by thread name: which threads sleep. */
static GHashTable *
thread_sleeps (void)
{
  GHashTable *sleeps = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);

  bench_each_thread ("status", add_thread_sleeps, sleeps);
  return sleeps;
}

/* Prints each thread name's sleeps a frame between @before and @after. */
static void
thread_sleeps_print (GHashTable * before, GHashTable * after, guint64 frames)
{
  GHashTableIter it;
  gpointer name, n;

  g_hash_table_iter_init (&it, after);
  while (g_hash_table_iter_next (&it, &name, &n)) {
    gsize was = GPOINTER_TO_SIZE (g_hash_table_lookup (before, name));
    gsize now = GPOINTER_TO_SIZE (n);

    if (now > was)
      g_print ("devices: sleeps a frame of threads \"%s\": %.3f\n",
          (const gchar *) name, (now - was) / (gdouble) MAX (frames, 1));
  }
}

/* ---- the raw concurrent limit ------------------------------------------ */

/* A sysfs attribute of @device's PCI function, or NULL. */
static gchar *
device_pci_attribute (guint device, const gchar * name)
{
  gchar bus[32], *lower, *path, *text = NULL;

  if (cudaDeviceGetPCIBusId (bus, sizeof (bus), device) != cudaSuccess)
    return NULL;
  lower = g_ascii_strdown (bus, -1);
  path = g_strdup_printf ("/sys/bus/pci/devices/%s/%s", lower, name);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = NULL;
  g_free (path);
  g_free (lower);
  return text;
}

/* The CPUs next to @device (sysfs local_cpulist of its PCI function) and
 * its NUMA node; FALSE where the host does not say. */
static gboolean
device_local_cpus (guint device, cpu_set_t * set, gint * node)
{
  gchar *text, **ranges;
  gboolean ok = FALSE;
  guint i;

  CPU_ZERO (set);
  *node = -1;
  if ((text = device_pci_attribute (device, "numa_node")))
    *node = atoi (text);
  g_free (text);
  if ((text = device_pci_attribute (device, "local_cpulist"))) {
    ranges = g_strsplit (g_strstrip (text), ",", -1);
    for (i = 0; ranges[i]; i++) {
      guint lo = 0, hi = 0, c;

      if (sscanf (ranges[i], "%u-%u", &lo, &hi) == 1)
        hi = lo;
      for (c = lo; c <= hi && c < CPU_SETSIZE; c++)
        CPU_SET (c, set);
    }
    g_strfreev (ranges);
    ok = CPU_COUNT (set) > 0;
  }
  g_free (text);
  return ok;
}

typedef struct
{
  gboolean bind;                /* on the GPU's own CPUs, memory there too */
  guint device;
  guint rotate;                 /* buffers each way */
  gsize size;
  gdouble seconds;
  gint *ready;
  gint *go;
  guint64 bytes;
  gdouble elapsed;
} Copier;

/* Copies both ways on @c->device, @c->rotate buffers each way, until its
 * time is up; counts the bytes moved. */
static gpointer
copier_thread (gpointer data)
{
  Copier *c = data;
  guint rotate = c->rotate;
  gpointer *host = g_new0 (gpointer, 2 * rotate);
  gpointer *dev = g_new0 (gpointer, 2 * rotate);
  cudaStream_t up, down;
  gdouble start;
  guint i = 0, k;

  if (c->bind) {
    cpu_set_t set;
    gint node;

    /* Page-locked pages come from the node of the thread that asks. */
    if (device_local_cpus (c->device, &set, &node))
      sched_setaffinity (0, sizeof (set), &set);
  }
  CHECK (cudaSetDevice (c->device));
  for (k = 0; k < 2 * rotate; k++) {
    CHECK (cudaHostAlloc (&host[k], c->size, cudaHostAllocPortable));
    CHECK (cudaMalloc (&dev[k], c->size));
    memset (host[k], k, c->size);
  }
  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));

  g_atomic_int_inc (c->ready);
  while (!g_atomic_int_get (c->go))
    g_usleep (100);
  start = now_s ();
  while (now_s () - start < c->seconds) {
    /* A few frames' copies queued at a time, as a pipeline keeps them. */
    for (k = 0; k < 8; k++, i++) {
      CHECK (cudaMemcpyAsync (dev[i % rotate], host[i % rotate], c->size,
              cudaMemcpyHostToDevice, up));
      CHECK (cudaMemcpyAsync (host[rotate + i % rotate],
              dev[rotate + i % rotate], c->size, cudaMemcpyDeviceToHost, down));
    }
    CHECK (cudaStreamSynchronize (up));
    CHECK (cudaStreamSynchronize (down));
    c->bytes += 2 * 8 * (guint64) c->size;
  }
  c->elapsed = now_s () - start;

  CHECK (cudaStreamDestroy (up));
  CHECK (cudaStreamDestroy (down));
  for (k = 0; k < 2 * rotate; k++) {
    CHECK (cudaFreeHost (host[k]));
    CHECK (cudaFree (dev[k]));
  }
  g_free (host);
  g_free (dev);
  return NULL;
}

/* GB/s both ways on devices @first .. @first + @n - 1 at once, summed,
 * @rotate buffers each way on each. */
static gdouble
concurrent_limit (guint first, guint n, gsize size, guint rotate,
    gdouble seconds, gboolean bind)
{
  Copier *copiers = g_new0 (Copier, n);
  GThread **threads = g_new0 (GThread *, n);
  gint go = 0, ready = 0;
  gdouble gbps = 0;
  guint d;

  for (d = 0; d < n; d++) {
    copiers[d].device = first + d;
    copiers[d].size = size;
    copiers[d].rotate = rotate;
    copiers[d].seconds = seconds;
    copiers[d].go = &go;
    copiers[d].ready = &ready;
    copiers[d].bind = bind;
    threads[d] = g_thread_new ("copier", copier_thread, &copiers[d]);
  }
  /* Every copier has its buffers before any starts. */
  while (g_atomic_int_get (&ready) < (gint) n)
    g_usleep (1000);
  g_atomic_int_set (&go, 1);
  for (d = 0; d < n; d++) {
    g_thread_join (threads[d]);
    gbps += copiers[d].bytes / MAX (copiers[d].elapsed, 1e-9) / 1e9;
  }
  g_free (threads);
  g_free (copiers);
  return gbps;
}

/* ---- round trips in this process --------------------------------------- */

/* Keeps the first @keep CPUs of @set (all of them where @keep is 0). */
static void
cpus_keep_first (cpu_set_t * set, guint keep)
{
  guint i, k = 0;

  for (i = 0; i < CPU_SETSIZE && keep > 0; i++) {
    if (CPU_ISSET (i, set) && k++ >= keep)
      CPU_CLR (i, set);
  }
}

/* --bind-streams: the CPUs of @device's share among @n GPUs: its own where
 * the host has several NUMA nodes, else an even share of the process's
 * CPUs, the GPUs' shares apart (the driver's state of a context then stays
 * in fewer CPUs' caches); --bind-cpus K keeps the share's first K. */
static void
device_share_cpus (guint device, guint n, guint keep, cpu_set_t * set)
{
  cpu_set_t all;
  guint i, k = 0, count, lo, hi;
  gint node;

  if (sched_getaffinity (0, sizeof (all), &all) != 0)
    CPU_ZERO (&all);
  if (device_local_cpus (device, set, &node) &&
      CPU_COUNT (set) < CPU_COUNT (&all)) {
    cpus_keep_first (set, keep);
    return;
  }
  count = CPU_COUNT (&all);
  lo = device * count / n;
  /* At least one CPU a GPU, where there are fewer CPUs than GPUs. */
  hi = MAX ((device + 1) * count / n, lo + 1);
  CPU_ZERO (set);
  for (i = 0; i < CPU_SETSIZE; i++) {
    if (!CPU_ISSET (i, &all))
      continue;
    if (k >= lo && k < hi)
      CPU_SET (i, set);
    k++;
  }
  cpus_keep_first (set, keep);
}

typedef struct
{
  GstElement *pipeline;
  guint device;
  cpu_set_t cpus;               /* where its streaming thread runs, bound */
  gint frames;                  /* atomic */
  gint tid;                     /* the thread that carries its frames */
  gdouble first_at;             /* first frame at the sink, s */
  /* After the measured window (atomic): 1 asks the probe for the next
   * frame, which it keeps in @last and says so with 3 (2: taking it). */
  gint keep;
  GstBuffer *last;
} Stream;

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;

  if (g_atomic_int_add (&s->frames, 1) == 0) {
    s->first_at = now_s ();
    g_atomic_int_set (&s->tid, (gint) syscall (SYS_gettid));
  }
  /* No lock and no reference a frame while the rate is measured. */
  if (g_atomic_int_get (&s->keep) == 1 &&
      g_atomic_int_compare_and_exchange (&s->keep, 1, 2)) {
    s->last = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
    g_atomic_int_set (&s->keep, 3);
  }
  return GST_PAD_PROBE_OK;
}

/* A streaming thread as it enters its loop (the source's: no queue splits
 * the stream) goes to the stream's CPUs: the way an application binds its
 * threads, in its bus's sync handler. */
static GstBusSyncReply
bind_on_enter (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Stream *s = user_data;
  GstStreamStatusType type;
  GstElement *owner;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_STREAM_STATUS)
    return GST_BUS_PASS;
  gst_message_parse_stream_status (msg, &type, &owner);
  if (type == GST_STREAM_STATUS_TYPE_ENTER &&
      sched_setaffinity (0, sizeof (s->cpus), &s->cpus) != 0)
    g_printerr ("devices: cannot bind stream of device %u\n", s->device);
  return GST_BUS_PASS;
}

static gchar *
stream_launch (const BenchDevices * b, guint device, gboolean convert,
    gdouble seconds)
{
  const gchar *props = b->props ? b->props : "";

  return g_strdup_printf ("benchframesrc name=src duration=%" G_GUINT64_FORMAT
      " caps=\"video/x-raw,format=%s,width=%d,height=%d,framerate=30/1\" ! "
      "pinnedupload name=up device-id=%u %s ! %s "
      "pinneddownload name=down device-id=%u %s ! "
      "fakesink name=sink sync=false",
      (guint64) (seconds * GST_SECOND), b->format, b->width, b->height,
      device, props, convert ? "pinnedconvert ! "
      "video/x-raw(memory:PinnedDevice),format=RGBA !" : "", device, props);
}

static Stream *
stream_new (const BenchDevices * b, guint device, guint n, gdouble seconds)
{
  Stream *s = g_new0 (Stream, 1);
  gchar *launch = stream_launch (b, device, b->convert, seconds);
  GError *error = NULL;
  GstElement *sink;
  GstPad *pad;

  s->device = device;
  s->pipeline = gst_parse_launch (launch, &error);
  if (s->pipeline == NULL)
    g_error ("cannot build %s: %s", launch, error->message);
  g_free (launch);
  sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, s, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (b->bind) {
    GstBus *bus = gst_element_get_bus (s->pipeline);

    device_share_cpus (device, n, b->bind_cpus, &s->cpus);
    gst_bus_set_sync_handler (bus, bind_on_enter, s, NULL);
    gst_object_unref (bus);
  }
  return s;
}

/* How many buffers the stream's upload pools hold (its download's
 * output pool holds as many). */
static guint
stream_pool_buffers (Stream * s)
{
  GstElement *up = gst_bin_get_by_name (GST_BIN (s->pipeline), "up");
  guint n = 0;

  if (up) {
    n = gst_pinned_base_transform_get_pool_size (GST_PINNED_BASE_TRANSFORM
        (up));
    gst_object_unref (up);
  }
  return n;
}

static void
stream_free (Stream * s)
{
  gst_element_set_state (s->pipeline, GST_STATE_NULL);
  gst_object_unref (s->pipeline);
  gst_clear_buffer (&s->last);
  g_free (s);
}

/* The first error any stream posted, or NULL. */
static gchar *
streams_error (Stream ** streams, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (streams[i]->pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    gchar *what = NULL;

    if (msg) {
      GError *error = NULL;

      gst_message_parse_error (msg, &error, NULL);
      what = g_strdup_printf ("stream %u (device %u): %s", i,
          streams[i]->device, error->message);
      g_error_free (error);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
    if (what)
      return what;
  }
  return NULL;
}

/* The frames of all streams so far; each stream's in @each if given. */
static guint64
frames_now (Stream ** streams, guint n, guint * each)
{
  guint64 total = 0;
  guint i;

  for (i = 0; i < n; i++) {
    guint f = g_atomic_int_get (&streams[i]->frames);

    total += f;
    if (each)
      each[i] = f;
  }
  return total;
}

/* Host waits so far: the process's (all threads), and the copy elements'
 * own ([0] the uploads', [1] the downloads'), summed over the streams. */
typedef struct
{
  guint64 waits, questions, ns;
  guint64 own_waits[2], own_questions[2], turns;
} Waits;

static void
waits_now (Stream ** streams, guint n, Waits * w)
{
  static const gchar *names[] = { "up", "down" };
  guint i, k;

  memset (w, 0, sizeof (*w));
  gst_pinned_fence_get_host_waits (&w->waits, &w->questions, &w->ns);
  for (i = 0; i < n; i++) {
    for (k = 0; k < G_N_ELEMENTS (names); k++) {
      GstElement *el = gst_bin_get_by_name (GST_BIN (streams[i]->pipeline),
          names[k]);
      GstStructure *stats = NULL;
      guint64 v;

      g_object_get (el, "stats", &stats, NULL);
      if (stats && gst_structure_get_uint64 (stats, "host-waits", &v))
        w->own_waits[k] += v;
      if (stats && gst_structure_get_uint64 (stats, "host-wait-questions", &v))
        w->own_questions[k] += v;
      if (stats && k == 0 && gst_structure_get_uint64 (stats, "turns", &v))
        w->turns += v;
      if (stats)
        gst_structure_free (stats);
      gst_object_unref (el);
    }
  }
}

/* @b less @a a frame, and a wait. */
static void
waits_result (const Waits * a, const Waits * b, guint64 frames,
    BenchDevicesResult * r)
{
  frames = MAX (frames, 1);
  r->waits = (gdouble) (b->waits - a->waits) / frames;
  r->questions = (gdouble) (b->questions - a->questions) /
      MAX (b->waits - a->waits, 1);
  r->wait_us = (b->ns - a->ns) / 1e3 / frames;
  r->up_waits = (gdouble) (b->own_waits[0] - a->own_waits[0]) / frames;
  r->up_questions = (gdouble) (b->own_questions[0] - a->own_questions[0]) /
      MAX (b->own_waits[0] - a->own_waits[0], 1);
  r->down_waits = (gdouble) (b->own_waits[1] - a->own_waits[1]) / frames;
  r->down_questions = (gdouble) (b->own_questions[1] - a->own_questions[1]) /
      MAX (b->own_waits[1] - a->own_waits[1], 1);
  r->turns = (gdouble) (b->turns - a->turns) / frames;
}

/* A stream that stopped: $BENCH_STALL_COMMAND (%p: this process) shows
 * where its threads are, e.g. a debugger's backtraces. */
static void
report_stall (void)
{
  const gchar *command = g_getenv ("BENCH_STALL_COMMAND");
  gchar *line, *out = NULL, *pid;
  gchar **parts;

  if (command == NULL)
    return;
  pid = g_strdup_printf ("%d", (gint) getpid ());
  parts = g_strsplit (command, "%p", -1);
  line = g_strjoinv (pid, parts);
  g_spawn_command_line_sync (line, &out, NULL, NULL, NULL);
  g_print ("devices: %s:\n%s\n", line, out ? out : "(no output)");
  g_free (out);
  g_free (line);
  g_strfreev (parts);
  g_free (pid);
}

/* With --bind-streams or --bind-cpus: whether the thread that carries each
 * stream's frames runs on that stream's CPUs (bound as it entered its
 * loop). */
static gboolean
streams_bound (Stream ** streams, guint n)
{
  guint i, off = 0;

  for (i = 0; i < n; i++) {
    cpu_set_t now;
    gint tid = g_atomic_int_get (&streams[i]->tid);

    if (tid == 0 || sched_getaffinity (tid, sizeof (now), &now) != 0 ||
        !CPU_EQUAL (&now, &streams[i]->cpus))
      off++;
  }
  if (off)
    g_print ("devices: %u of %u streams' threads not on their CPUs\n", off, n);
  return off == 0;
}

/* The process's threads between @u0 and @u1 (RUSAGE_SELF sums them), a
 * frame of @frames: where the CPU a frame goes beside the driver's calls
 * (a sleep and its wake-up cost several µs on a virtual machine). */
static void
rusage_result (const struct rusage *u0, const struct rusage *u1,
    guint64 frames, BenchDevicesResult * r)
{
  gdouble n = MAX (frames, 1);

  r->sys_us = ((u1->ru_stime.tv_sec - u0->ru_stime.tv_sec) * 1e6 +
      (u1->ru_stime.tv_usec - u0->ru_stime.tv_usec)) / n;
  r->sleeps = (u1->ru_nvcsw - u0->ru_nvcsw) / n;
  r->preempted = (u1->ru_nivcsw - u0->ru_nivcsw) / n;
}

/* Round trips of @b->streams streams over @n devices in this process:
 * aggregate GB/s both ways, CPU per frame, time to the first frame of the
 * last stream, and whether each stream's last frame is the source's. */
static gboolean
in_process (const BenchDevices * b, guint n, const GstVideoInfo * info,
    BenchDevicesResult * r)
{
  Stream **streams = g_new0 (Stream *, b->streams);
  /* Each source runs past the warm-up (at most a minute), the window and
   * the checks. */
  gdouble t0, t1, c0, c1, started, run = b->seconds + 90;
  gdouble rss0 = resident_mib ();
  guint64 locked0 = gst_pinned_host_memory_get_locked_bytes ();
  guint64 f0, f1;
  gchar *error = NULL;
  gboolean ok = TRUE;
  guint i;

  memset (r, 0, sizeof (*r));
  started = now_s ();
  for (i = 0; i < b->streams; i++) {
    streams[i] = stream_new (b, i % n, n, run);
    if (b->bind && i < n)
      g_print ("devices: streams of GPU %u to be bound to %d CPUs\n", i,
          CPU_COUNT (&streams[i]->cpus));
    gst_element_set_state (streams[i]->pipeline, GST_STATE_PLAYING);
  }
  /* Every stream past its warm-up. */
  for (;;) {
    guint warm = 0;

    for (i = 0; i < b->streams; i++)
      warm += g_atomic_int_get (&streams[i]->frames) >= WARMUP_FRAMES;
    if (warm == b->streams || (error = streams_error (streams, b->streams)))
      break;
    if (now_s () - started > 60) {
      error = g_strdup_printf ("%u of %u streams started in a minute", warm,
          b->streams);
      break;
    }
    g_usleep (1000);
  }
  for (i = 0; i < b->streams; i++)
    r->startup_s = MAX (r->startup_s, streams[i]->first_at - started);
  r->resident_mib = resident_mib () - rss0;
  /* Signed: either can have fallen since. */
  r->locked_mib = ((gdouble) gst_pinned_host_memory_get_locked_bytes () -
      (gdouble) locked0) / (1024.0 * 1024.0);
  r->pool_buffers = stream_pool_buffers (streams[0]);

  if (error == NULL) {
    guint *each0 = g_new0 (guint, b->streams);
    guint *each1 = g_new0 (guint, b->streams);
    Waits w0, w1;
    struct rusage u0, u1;
    GHashTable *named0, *named1;

    waits_now (streams, b->streams, &w0);
    named0 = thread_sleeps ();
    getrusage (RUSAGE_SELF, &u0);
    t0 = now_s ();
    c0 = bench_cpu_seconds ();
    f0 = frames_now (streams, b->streams, each0);
    bench_sampler_window (TRUE);
    g_usleep (b->seconds * G_USEC_PER_SEC);
    bench_sampler_window (FALSE);
    f1 = frames_now (streams, b->streams, each1);
    c1 = bench_cpu_seconds ();
    t1 = now_s ();
    getrusage (RUSAGE_SELF, &u1);
    named1 = thread_sleeps ();
    thread_sleeps_print (named0, named1, f1 - f0);
    g_hash_table_unref (named0);
    g_hash_table_unref (named1);
    waits_now (streams, b->streams, &w1);
    waits_result (&w0, &w1, f1 - f0, r);
    rusage_result (&u0, &u1, f1 - f0, r);
    error = streams_error (streams, b->streams);
    if (error == NULL && b->bind && !streams_bound (streams, b->streams))
      error = g_strdup ("streams not bound");
    r->frames_per_s = (f1 - f0) / (t1 - t0);
    r->gb_per_s = r->frames_per_s * b->frame_bytes / 1e9;
    r->cpu_us = (c1 - c0) / MAX (f1 - f0, 1) * 1e6;
    r->slowest = G_MAXDOUBLE;
    for (i = 0; i < b->streams; i++) {
      gdouble rate = (each1[i] - each0[i]) / (t1 - t0);

      r->slowest = MIN (r->slowest, rate);
      r->fastest = MAX (r->fastest, rate);
      if (each1[i] == each0[i])
        g_print ("devices: stream %u (device %u) passed no frame in the "
            "window (%u before it)\n", i, streams[i]->device, each0[i]);
    }
    g_free (each0);
    g_free (each1);
  }
  if (error) {
    g_print ("devices: %s\n", error);
    g_free (error);
    ok = FALSE;
  }
  /* Each stream's next frame against the source (pinnedconvert's frames
   * are not the source's: checked by its tests). */
  for (i = 0; i < b->streams && ok && !b->convert; i++)
    g_atomic_int_set (&streams[i]->keep, 1);
  for (i = 0; i < b->streams && ok && !b->convert; i++) {
    gdouble until = now_s () + 5;

    while (g_atomic_int_get (&streams[i]->keep) != 3 && now_s () < until)
      g_usleep (1000);
    if (g_atomic_int_get (&streams[i]->keep) != 3) {
      g_print ("devices: stream %u gave no frame to check (%d frames)\n", i,
          g_atomic_int_get (&streams[i]->frames));
      report_stall ();
      ok = FALSE;
    } else if (!bench_frame_verify (streams[i]->last, info,
            GST_BUFFER_OFFSET (streams[i]->last))) {
      ok = FALSE;
    }
  }
  r->verified = ok;
  for (i = 0; i < b->streams; i++)
    stream_free (streams[i]);
  g_free (streams);
  return ok;
}

/* ---- one process per GPU ----------------------------------------------- */

/* One stream in one child process per device, all at once: each child's
 * --pipeline line gives its period and cores; the aggregate is the sum of
 * the children's rates. */
static gboolean
per_process (const BenchDevices * b, guint n, BenchDevicesResult * r)
{
  GSubprocess **children = g_new0 (GSubprocess *, n);
  gboolean ok = TRUE;
  guint d;

  memset (r, 0, sizeof (*r));
  for (d = 0; d < n; d++) {
    gchar *launch = stream_launch (b, d, b->convert, b->seconds + 1);
    GError *error = NULL;

    children[d] = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
        b->self, "--pipeline", launch, NULL);
    if (children[d] == NULL)
      g_error ("cannot start %s: %s", b->self, error->message);
    g_free (launch);
  }
  for (d = 0; d < n; d++) {
    gchar *out = NULL;
    guint frames = 0;
    gdouble period_ms = 0, cores = 0;
    const gchar *line;

    g_subprocess_communicate_utf8 (children[d], NULL, NULL, &out, NULL, NULL);
    line = out ? strstr (out, "frames=") : NULL;
    /* The steady state's cores: a child's start-up is not a frame's. */
    if (line == NULL || sscanf (line, "frames=%u period_ms=%lf inside_us=%*f "
            "cores=%*f steady_cores=%lf", &frames, &period_ms, &cores) != 3 ||
        period_ms <= 0 || !g_subprocess_get_successful (children[d])) {
      g_print ("devices: the child on device %u failed: %s\n", d,
          out ? out : "no output");
      ok = FALSE;
    } else {
      r->frames_per_s += 1e3 / period_ms;
      r->cpu_us += cores * period_ms * 1e3;
    }
    g_free (out);
    g_object_unref (children[d]);
  }
  r->gb_per_s = r->frames_per_s * b->frame_bytes / 1e9;
  r->cpu_us /= MAX (n, 1);
  r->verified = ok;
  g_free (children);
  return ok;
}

/* ---- the report -------------------------------------------------------- */

/* @same: the limit with as many buffers rotating as the streams' pools
 * hold on each GPU, or 0 where that is not more than ROTATE. */
static void
print_result (const gchar * what, guint n, guint streams,
    const BenchDevicesResult * r, gdouble limit, gdouble same, gboolean convert)
{
  gchar *memory = r->startup_s > 0 ? g_strdup_printf ("start %.2f s  "
      "resident %+.0f MiB (page-locked %+.0f)", r->startup_s,
      r->resident_mib, r->locked_mib) : g_strdup ("");
  gchar *of_limit = limit > 0 ? g_strdup_printf ("%.3f", r->gb_per_s /
      limit) : g_strdup ("n/a (no limit measured)");

  g_print ("%-12s %2u GPUs %3u streams%s %10.1f frames/s %7.2f GB/s  %s "
      "of the limit  %6.1f us CPU a frame  %s  %s\n", what, n, streams,
      convert ? " (convert)" : "", r->frames_per_s, r->gb_per_s, of_limit,
      r->cpu_us, memory, !r->verified ? "WRONG" : convert ? "ran" : "ok");
  g_free (of_limit);
  if (same > 0)
    g_print ("%-12s %.3f of the limit with the streams' buffers rotating\n",
        "", r->gb_per_s / same);
  if (r->fastest > 0)
    g_print ("%-12s a stream: slowest %.1f frames/s, fastest %.1f\n", "",
        r->slowest, r->fastest);
  if (r->fastest > 0)
    g_print ("%-12s host waits a frame: %.3f (%.2f questions each), %.1f us "
        "waited a frame; the uploads' own %.3f (%.2f each; turns %.3f), the "
        "downloads' own %.3f (%.2f each)\n", "", r->waits, r->questions,
        r->wait_us, r->up_waits, r->up_questions, r->turns, r->down_waits,
        r->down_questions);
  if (r->fastest > 0)
    g_print ("%-12s the threads a frame: %.3f sleeps, %.3f preempted, %.1f us "
        "of the CPU in the kernel\n", "", r->sleeps, r->preempted, r->sys_us);
  g_free (memory);
}

/* The limit again with @rotate buffers each way on each GPU, as many as
 * the streams' pools rotate there, where that is more than ROTATE (the
 * host's IOMMU and caches may tell many buffers from few); else 0. */
static gdouble
limit_with_buffers (guint n, gsize size, guint rotate, gdouble seconds)
{
  gdouble limit, bound;

  if (rotate <= ROTATE)
    return 0;
  limit = concurrent_limit (0, n, size, rotate, seconds, FALSE);
  bound = concurrent_limit (0, n, size, rotate, seconds, TRUE);
  g_print ("devices: %u buffers rotating each way on each GPU (its streams' "
      "pools): all %u at once %.1f GB/s; each copier on its GPU's CPUs "
      "%.1f GB/s\n", rotate, n, limit, bound);
  return MAX (limit, bound);
}

gboolean
bench_devices_run (BenchDevices * b)
{
  GstVideoInfo info, out;
  gint count = 0;
  gdouble alone, limit, bound, same;
  BenchDevicesResult r;
  gboolean ok = TRUE;
  guint n, d, pool;

  GST_DEBUG_CATEGORY_INIT (devices_debug, "pinnedbenchdevices", 0,
      "benchmark, many GPUs");
  CHECK (cudaGetDeviceCount (&count));
  n = MIN (b->devices, (guint) count);
  if (n < b->devices)
    g_print ("devices: %u asked for, %d here: %u\n", b->devices, count, n);
  gst_video_info_set_format (&info, gst_video_format_from_string (b->format),
      b->width, b->height);
  gst_video_info_set_format (&out, b->convert ? GST_VIDEO_FORMAT_RGBA :
      GST_VIDEO_INFO_FORMAT (&info), b->width, b->height);
  b->frame_bytes = info.size + out.size;

  for (d = 0; d < n; d++) {
    cpu_set_t set;
    gint node;

    if (device_local_cpus (d, &set, &node))
      g_print ("devices: GPU %u: NUMA node %d, %d CPUs next to it\n", d,
          node, CPU_COUNT (&set));
  }
  alone = concurrent_limit (0, 1, info.size, ROTATE, b->seconds / 2, FALSE);
  limit = concurrent_limit (0, n, info.size, ROTATE, b->seconds, FALSE);
  bound = concurrent_limit (0, n, info.size, ROTATE, b->seconds, TRUE);
  g_print ("devices: %s %dx%d, %" G_GSIZE_FORMAT " bytes a frame; raw "
      "page-locked copies both ways, %u buffers rotating: GPU 0 alone "
      "%.1f GB/s, all %u at once %.1f GB/s (%.1f each); each copier on its "
      "GPU's CPUs %.1f GB/s\n", b->format, b->width, b->height, info.size,
      ROTATE, alone, n, limit, limit / n, bound);
  /* The limit is the better of the two placements. */
  limit = MAX (limit, bound);

  ok &= in_process (b, n, &info, &r);
  pool = r.pool_buffers;
  same = limit_with_buffers (n, info.size, pool * ((b->streams + n - 1) / n),
      b->seconds);
  print_result ("one-process", n, b->streams, &r, limit, same, b->convert);
  if (b->self) {
    ok &= per_process (b, n, &r);
    same = limit_with_buffers (n, info.size, pool, b->seconds);
    print_result ("per-process", n, n, &r, limit, same, b->convert);
  }
  return ok;
}
