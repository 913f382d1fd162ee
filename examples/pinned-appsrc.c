/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* An application that makes its own frames and sends them to the GPU and
 * back:
 *
 *   appsrc ! pinnedupload ! pinneddownload ! appsink
 *
 * --mode pool (the fast way): the application writes each frame into a
 *   buffer of the page-locked pool pinnedupload offers, which it gets with
 *   gst_pinned_host_buffer_pool_from_peer(). The copy engine reads the
 *   frame where it was written, at the link's rate, and the pool hands a
 *   buffer out again only once its copy is done: the application never
 *   overwrites a frame that is still being copied, and never waits for a
 *   copy otherwise.
 * --mode malloc: the application's own malloc()ed frames (a ring of four,
 *   each reused once the pipeline lets go of it), wrapped in a buffer per
 *   push. pinnedupload copies them through page-locked staging on several
 *   threads (pageable-mode=auto).
 *
 * Every byte of frame n is a function of n and its position; the appsink
 * side checks one byte in 4 KiB of every frame and all of the last. Prints
 * frames/s, GB/s and the CPU cores the process used.
 *
 *   pinned-appsrc [--mode pool|malloc] [--frames N] [--width W] [--height H]
 */

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>

#define RING 4

typedef struct
{
  GstElement *appsrc;
  GstVideoInfo info;
  gboolean use_pool;
  guint frames;
  /* malloc mode: the application's frames and which are in the pipeline */
  GMutex lock;
  GCond cond;
  guint8 *ring[RING];
  gboolean busy[RING];
} App;

typedef struct
{
  App *app;
  guint slot;
} Slot;

static inline guint8
expected (guint64 frame, gsize i)
{
  return (guint8) (frame * 31 + i * 7 + (i >> 13));
}

/* The same, 8 KiB at a time so that the compiler vectorises it: within a
 * block only j * 7 changes (8192 * 7 is a multiple of 256). */
static void
write_frame (guint8 * data, gsize size, guint64 frame)
{
  gsize block, j;

  for (block = 0; block * 8192 < size; block++) {
    guint8 base = (guint8) (frame * 31 + block);
    guint8 *d = data + block * 8192;
    gsize n = MIN (8192, size - block * 8192);

    for (j = 0; j < n; j++)
      d[j] = (guint8) (base + j * 7);
  }
}

/* The pipeline let go of a frame of the ring: it may be written again. */
static void
slot_free (gpointer data)
{
  Slot *slot = data;

  g_mutex_lock (&slot->app->lock);
  slot->app->busy[slot->slot] = FALSE;
  g_cond_signal (&slot->app->cond);
  g_mutex_unlock (&slot->app->lock);
  g_free (slot);
}

static GstBuffer *
next_malloc_frame (App * app, guint64 n)
{
  Slot *slot = g_new0 (Slot, 1);
  guint i;

  slot->app = app;
  g_mutex_lock (&app->lock);
  for (;;) {
    for (i = 0; i < RING && app->busy[i]; i++);
    if (i < RING)
      break;
    g_cond_wait (&app->cond, &app->lock);
  }
  app->busy[i] = TRUE;
  g_mutex_unlock (&app->lock);

  slot->slot = i;
  write_frame (app->ring[i], app->info.size, n);
  return gst_buffer_new_wrapped_full (0, app->ring[i], app->info.size, 0,
      app->info.size, slot, slot_free);
}

static gpointer
produce (gpointer data)
{
  App *app = data;
  GstCaps *caps = gst_video_info_to_caps (&app->info);
  GstPad *pad = gst_element_get_static_pad (app->appsrc, "src");
  GstBufferPool *pool = NULL;
  guint64 n;

  if (app->use_pool) {
    /* The pool pinnedupload offers, configured and active. */
    pool = gst_pinned_host_buffer_pool_from_peer (pad, caps, RING);
    if (pool == NULL) {
      /* Asked again once: the upload may still be starting. */
      g_usleep (100000);
      pool = gst_pinned_host_buffer_pool_from_peer (pad, caps, RING);
    }
    if (pool == NULL) {
      g_printerr ("appsrc's peer offers no page-locked pool\n");
      gst_app_src_end_of_stream (GST_APP_SRC (app->appsrc));
      goto done;
    }
  }

  for (n = 0; n < app->frames; n++) {
    GstBuffer *buf;

    if (pool) {
      GstMapInfo map;

      /* Waits only while every buffer is still being copied. */
      if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
        break;
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      write_frame (map.data, app->info.size, n);
      gst_buffer_unmap (buf, &map);
    } else {
      buf = next_malloc_frame (app, n);
    }
    GST_BUFFER_OFFSET (buf) = n;
    GST_BUFFER_PTS (buf) = n * GST_SECOND / 30;
    if (gst_app_src_push_buffer (GST_APP_SRC (app->appsrc), buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (app->appsrc));

done:
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_object_unref (pad);
  gst_caps_unref (caps);
  return NULL;
}

static gboolean
check_frame (GstBuffer * buf, gsize size, gboolean all)
{
  GstMapInfo map;
  gboolean ok = TRUE;
  gsize i, step = all ? 1 : 4096;

  /* Mapping waits for the download's copy. */
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  for (i = 0; i < size && ok; i += step)
    ok = map.data[i] == expected (GST_BUFFER_OFFSET (buf), i);
  gst_buffer_unmap (buf, &map);
  return ok;
}

int
main (int argc, char **argv)
{
  gchar *mode = NULL;
  gint frames = 300, width = 3840, height = 2160;
  GOptionEntry entries[] = {
    {"mode", 0, 0, G_OPTION_ARG_STRING, &mode, "pool or malloc", "MODE"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames to send", "N"},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Width (RGBA)", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Height", "H"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- frames from an application "
      "to the GPU");
  GError *error = NULL;
  App app = { 0, };
  GstElement *pipeline, *sink;
  GstSample *sample;
  GThread *producer;
  struct rusage ru;
  gint64 start = 0, end = 0;
  guint received = 0, bad = 0, i;
  gdouble cpu;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  app.use_pool = g_strcmp0 (mode, "malloc") != 0;
  app.frames = frames;
  gst_video_info_set_format (&app.info, GST_VIDEO_FORMAT_RGBA, width, height);
  g_mutex_init (&app.lock);
  g_cond_init (&app.cond);
  for (i = 0; i < RING; i++)
    app.ring[i] = g_malloc (app.info.size);

  pipeline = gst_parse_launch ("appsrc name=src format=time block=true ! "
      "pinnedupload ! pinneddownload ! appsink name=sink sync=false", &error);
  if (pipeline == NULL) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  app.appsrc = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  {
    GstCaps *caps = gst_video_info_to_caps (&app.info);

    /* A small queue in appsrc: the application runs ahead by two frames. */
    g_object_set (app.appsrc, "caps", caps, "max-bytes",
        (guint64) (2 * app.info.size), NULL);
    gst_caps_unref (caps);
  }

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("cannot start the pipeline (no CUDA device?)\n");
    return 2;
  }
  producer = g_thread_new ("app", produce, &app);

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);

    if (received == 10) {
      start = g_get_monotonic_time ();
      getrusage (RUSAGE_SELF, &ru);
      cpu = -(ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    }
    if (!check_frame (buf, app.info.size, received + 1 == app.frames))
      bad++;
    received++;
    end = g_get_monotonic_time ();
    gst_sample_unref (sample);
  }
  getrusage (RUSAGE_SELF, &ru);
  cpu += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;

  g_thread_join (producer);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  if (received > 11) {
    gdouble s = (end - start) / 1e6;

    printf ("%s: %u frames of %dx%d RGBA, %.1f frames/s, %.2f GB/s each way, "
        "%.2f CPU cores (the application writing every frame included), "
        "check %s\n", app.use_pool ? "pool" : "malloc", received, width,
        height, (received - 11) / s, (received - 11) * app.info.size / s / 1e9,
        cpu / s, bad ? "WRONG" : "ok");
  } else {
    printf ("%s: only %u frames arrived\n", app.use_pool ? "pool" : "malloc",
        received);
  }

  gst_object_unref (sink);
  gst_object_unref (app.appsrc);
  gst_object_unref (pipeline);
  for (i = 0; i < RING; i++)
    g_free (app.ring[i]);
  g_free (mode);
  return received == app.frames && bad == 0 ? 0 : 1;
}
