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
 *   pinned-appsink [frames]
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

/* The same sum on the CPU, from a system memory copy of the pattern. */
static guint64
cpu_sum (guint frames)
{
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=RGBA,width=%d,height=%d ! appsink name=sink",
      frames, WIDTH, HEIGHT);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstSample *sample;
  guint64 sum = 0;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
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
        sum += (77 * row[4 * x] + 150 * row[4 * x + 1] +
            29 * row[4 * x + 2]) >> 8;
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (launch);
  return sum;
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
  guint n = 0;
  gint64 start;
  guint64 expected;

  gst_init (&argc, &argv);
  pipeline = gst_parse_launch (launch, &error);
  if (pipeline == NULL) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  start = g_get_monotonic_time ();

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    gpointer data;
    gint pitch;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    if (stream == NULL) {
      /* The app's own stream, on the pipeline's device. */
      context = gst_object_ref (gst_pinned_buffer_get_context (buf));
      gst_pinned_context_push (context, NULL);
      gst_pinned_cuda_result (cudaStreamCreateWithFlags (&cuda_stream,
              cudaStreamNonBlocking), NULL);
      gst_pinned_cuda_result (cudaMalloc ((void **) &sum, sizeof (*sum)), NULL);
      gst_pinned_cuda_result (cudaMemsetAsync (sum, 0, sizeof (*sum),
              cuda_stream), NULL);
      gst_pinned_context_pop (context);
      stream = gst_pinned_stream_new_wrapped (context, cuda_stream);
    }

    gst_pinned_buffer_get_plane (buf, &info, 0, &data, &pitch);
    gst_pinned_context_push (context, NULL);
    /* GPU-side wait for the upload's copy of this frame. */
    gst_pinned_buffer_sync_stream (buf, stream, GST_MAP_READ, NULL);
    gst_pinned_cuda_result ((cudaError_t) brightness_launch (data, pitch,
            WIDTH, HEIGHT, sum, cuda_stream), NULL);
    /* The upload may write this device buffer again only after this. */
    gst_pinned_buffer_record_fence (buf, stream, GST_MAP_READ, NULL);
    gst_pinned_context_pop (context);

    gst_sample_unref (sample);
    n++;
  }

  /* The only host wait: for the result. */
  if (stream) {
    gst_pinned_context_push (context, NULL);
    gst_pinned_cuda_result (cudaMemcpyAsync (&host_sum, sum, sizeof (*sum),
            cudaMemcpyDeviceToHost, cuda_stream), NULL);
    gst_pinned_stream_synchronize (stream, NULL);
    gst_pinned_context_pop (context);
  }
  g_print ("%u frames in %.2f s (%.1f frames/s), mean luma %.3f\n", n,
      (g_get_monotonic_time () - start) / 1e6,
      n / ((g_get_monotonic_time () - start) / 1e6),
      n ? (gdouble) host_sum / n / WIDTH / HEIGHT : 0);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  expected = cpu_sum (frames);
  g_print ("CPU sum %" G_GUINT64_FORMAT ", GPU sum %llu: %s\n", expected,
      host_sum, expected == host_sum ? "same" : "DIFFERENT");

  if (stream) {
    gst_pinned_stream_unref (stream);
    gst_pinned_context_push (context, NULL);
    cudaFree (sum);
    cudaStreamDestroy (cuda_stream);
    gst_pinned_context_pop (context);
    gst_object_unref (context);
  }
  g_free (launch);
  return expected == host_sum && n == frames ? 0 : 1;
}
