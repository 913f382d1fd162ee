/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* An application that runs its own CUDA kernel on the frames of a
 * pipeline, without ever waiting on the host for the GPU:
 *
 *   videotestsrc ! video/x-raw,format=RGBA ! pinnedupload ! appsink
 *
 * For each frame: its stream waits (on the GPU) for the upload's copy,
 * its kernel reads the frame, and a fence on the buffer tells pinnedupload
 * not to overwrite that device buffer until the kernel has read it. Then it
 * drops the frame at once. It synchronises once, at the end, to read the
 * result, and checks it against the same sum computed on the CPU.
 *
 * It also shows what an application checks: the state change, and errors
 * on the bus while it waits for samples (an element that fails posts an
 * error and the appsink never sees the end of the stream), so that without
 * a usable GPU it says why and exits at once.
 *
 *   pinned-appsink [frames]        exit status 0: sums agree; 1: otherwise
 */

#include <stdio.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

int brightness_launch (const void *rgba, int pitch, int width, int height,
    unsigned long long *sum, void *stream);

#define WIDTH 1920
#define HEIGHT 1080

static void
print_error (GstMessage * msg)
{
  GError *error = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &error, &debug);
  g_printerr ("pinned-appsink: %s: %s\n", GST_OBJECT_NAME (msg->src),
      error->message);
  if (debug)
    g_printerr ("  detail: %s\n", debug);
  g_error_free (error);
  g_free (debug);
}

/* Prints the error the pipeline posted; TRUE when there was one. */
static gboolean
pop_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  gst_object_unref (bus);
  if (msg == NULL)
    return FALSE;
  print_error (msg);
  gst_message_unref (msg);
  return TRUE;
}

static gboolean
start (GstElement * pipeline)
{
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE)
    return TRUE;
  if (!pop_error (pipeline))
    g_printerr ("pinned-appsink: the pipeline did not start\n");
  return FALSE;
}

/* The next sample, or NULL at the end of the stream or after an error
 * (then *failed is set and the error printed). Waits in short steps and
 * looks at the bus in between: an error elsewhere ends the wait. */
static GstSample *
pull (GstElement * pipeline, GstAppSink * sink, gboolean * failed)
{
  GstSample *sample = NULL;

  while (sample == NULL && !*failed && !gst_app_sink_is_eos (sink)) {
    sample = gst_app_sink_try_pull_sample (sink, 100 * GST_MSECOND);
    if (sample == NULL)
      *failed = pop_error (pipeline);
  }
  return sample;
}

static void
cuda_failed (const gchar * what, GError * error)
{
  g_printerr ("pinned-appsink: %s: %s\n", what,
      error ? error->message : "failed");
  g_clear_error (&error);
}

/* The same sum on the CPU, from a system memory copy of the pattern. */
static gboolean
cpu_sum (guint frames, guint64 * sum)
{
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=RGBA,width=%d,height=%d ! appsink name=sink",
      frames, WIDTH, HEIGHT);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gboolean failed = !start (pipeline);
  GstSample *sample;

  *sum = 0;
  while ((sample = pull (pipeline, GST_APP_SINK (sink), &failed))) {
    GstVideoFrame frame;
    GstVideoInfo info;
    gint x, y;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
        GST_MAP_READ);
    for (y = 0; y < HEIGHT; y++) {
      const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
      for (x = 0; x < WIDTH; x++)
        *sum += (77 * row[4 * x] + 150 * row[4 * x + 1] +
            29 * row[4 * x + 2]) >> 8;
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (launch);
  return !failed;
}

/* The app's own stream and device counter, on the pipeline's device. */
static gboolean
setup_device (GstPinnedContext * context, cudaStream_t * cuda_stream,
    unsigned long long **sum, GstPinnedStream ** stream)
{
  GError *error = NULL;

  if (!gst_pinned_context_push (context, &error)) {
    cuda_failed ("cannot use the pipeline's CUDA device", error);
    return FALSE;
  }
  if (!gst_pinned_cuda_result (cudaStreamCreateWithFlags (cuda_stream,
              cudaStreamNonBlocking), &error) ||
      !gst_pinned_cuda_result (cudaMalloc ((void **) sum, sizeof (**sum)),
          &error) ||
      !gst_pinned_cuda_result (cudaMemsetAsync (*sum, 0, sizeof (**sum),
              *cuda_stream), &error)) {
    gst_pinned_context_pop (context);
    cuda_failed ("cannot set up the application's CUDA stream", error);
    return FALSE;
  }
  gst_pinned_context_pop (context);
  *stream = gst_pinned_stream_new_wrapped (context, *cuda_stream);
  return TRUE;
}

/* Enqueues the kernel on one frame, ordered after the upload's copy and
 * before the upload's next write of this device buffer. */
static gboolean
sum_frame (GstBuffer * buf, const GstVideoInfo * info,
    GstPinnedContext * context, GstPinnedStream * stream,
    cudaStream_t cuda_stream, unsigned long long *sum)
{
  GError *error = NULL;
  gpointer data;
  gint pitch;
  gboolean ok;

  if (!gst_pinned_buffer_get_plane (buf, info, 0, &data, &pitch)) {
    g_printerr ("pinned-appsink: a frame is not in gst-pinned memory\n");
    return FALSE;
  }
  if (!gst_pinned_context_push (context, &error)) {
    cuda_failed ("cannot use the pipeline's CUDA device", error);
    return FALSE;
  }
  /* GPU-side wait for the upload's copy of this frame. */
  ok = gst_pinned_buffer_sync_stream (buf, stream, GST_MAP_READ, &error) &&
      gst_pinned_cuda_result ((cudaError_t) brightness_launch (data, pitch,
          WIDTH, HEIGHT, sum, cuda_stream), &error) &&
      /* The upload may write this device buffer again only after this. */
      gst_pinned_buffer_record_fence (buf, stream, GST_MAP_READ, &error);
  gst_pinned_context_pop (context);
  if (!ok)
    cuda_failed ("GPU work on a frame failed", error);
  return ok;
}

int
main (int argc, char **argv)
{
  guint frames = argc > 1 ? atoi (argv[1]) : 300;
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=RGBA,width=%d,height=%d ! pinnedupload ! "
      "appsink name=sink max-buffers=4 sync=false", frames, WIDTH, HEIGHT);
  GstPinnedStream *stream = NULL;
  GstPinnedContext *context = NULL;
  GstElement *pipeline, *sink;
  unsigned long long *sum = NULL, host_sum = 0;
  cudaStream_t cuda_stream = NULL;
  GstSample *sample;
  GError *error = NULL;
  gboolean failed;
  guint n = 0;
  gint64 start_time;
  guint64 expected = 0;
  gdouble seconds;

  gst_init (&argc, &argv);
  pipeline = gst_parse_launch (launch, &error);
  g_free (launch);
  if (pipeline == NULL) {
    g_printerr ("pinned-appsink: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  failed = !start (pipeline);
  start_time = g_get_monotonic_time ();

  while ((sample = pull (pipeline, GST_APP_SINK (sink), &failed))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    if (stream == NULL) {
      context = gst_pinned_buffer_get_context (buf);
      if (context == NULL) {
        g_printerr ("pinned-appsink: a frame is not in gst-pinned memory\n");
        failed = TRUE;
      } else {
        gst_object_ref (context);
        failed = !setup_device (context, &cuda_stream, &sum, &stream);
      }
    }
    if (!failed)
      failed = !sum_frame (buf, &info, context, stream, cuda_stream, sum);
    gst_sample_unref (sample);
    if (failed)
      break;
    n++;
  }

  /* The only host wait: for the result. */
  if (stream && !failed) {
    failed = !gst_pinned_context_push (context, &error);
    if (!failed) {
      failed = !gst_pinned_cuda_result (cudaMemcpyAsync (&host_sum, sum,
              sizeof (*sum), cudaMemcpyDeviceToHost, cuda_stream), &error) ||
          !gst_pinned_stream_synchronize (stream, &error);
      gst_pinned_context_pop (context);
    }
    if (failed)
      cuda_failed ("cannot read the result", error);
  }
  seconds = (g_get_monotonic_time () - start_time) / 1e6;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  if (!failed) {
    g_print ("%u frames in %.2f s (%.1f frames/s), mean luma %.3f\n", n,
        seconds, n / seconds, n ? (gdouble) host_sum / n / WIDTH / HEIGHT : 0);
    failed = !cpu_sum (frames, &expected);
  }
  if (!failed)
    g_print ("CPU sum %" G_GUINT64_FORMAT ", GPU sum %llu: %s\n", expected,
        host_sum, expected == host_sum ? "same" : "DIFFERENT");

  if (stream) {
    gst_pinned_stream_unref (stream);
    if (gst_pinned_context_push (context, NULL)) {
      gst_pinned_cuda_result (cudaFree (sum), NULL);
      gst_pinned_cuda_result (cudaStreamDestroy (cuda_stream), NULL);
      gst_pinned_context_pop (context);
    }
  }
  if (context)
    gst_object_unref (context);

  return !failed && expected == host_sum && n == frames ? 0 : 1;
}
