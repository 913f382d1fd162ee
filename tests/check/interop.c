/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* CUDA interop with GStreamer's own nvcodec elements (cudaupload,
 * cudadownload of gst-plugins-bad), which run here on the stand-ins of the
 * CUDA runtime and driver ('fake') or on a GPU ('gpu'):
 *
 * - frames through CUDAMemory are bit-exact both ways, odd sizes and
 *   several formats (visible pixels: row padding is never written);
 * - one CUDA context: nvcodec's adopted when it came first, ours (the
 *   primary context) joined by nvcodec when we came first, both
 *   directions; another device is a clear error;
 * - the GStreamer 1.22 push rule: a consumer that reads CUDA memory at push
 *   time on its own stream sees the finished frame although the copy is
 *   held back, and the streaming thread did not wait for it; control: the
 *   same frame pushed at once comes out wrong;
 * - a CUDA input is held until its copy is done (its pool does not hand it
 *   out before);
 * - GPU filters take CUDA memory (pinnedconvert against the CPU reference,
 *   in-place pinnedbusy on a copy). */

#include <dlfcn.h>
#include <gmodule.h>
#include <string.h>
#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/pinned/gstpinnedcudacontext.h>
#include <gst/pinned/gstpinnedcudamemory.h>
#include "pinnedtest.h"
#include "kernelemu.h"
#include <cuda_runtime_api.h>

#define DELAY_MS pinned_test_ms (300)

typedef struct
{
  const gchar *format;
  gint width, height;
} Conf;

static const Conf confs[] = {
  {"NV12", 320, 240},
  {"NV12", 1279, 719},
  {"I420", 333, 211},
  {"RGBA", 7, 5},
  {"BGRx", 641, 479},
  {"Y444", 321, 243},
  {"P010_10LE", 1280, 720},
  /* Even: nvcodec's own copies drop the last byte pair of an odd-width
   * YUY2 row (they copy width * 2 bytes). */
  {"YUY2", 334, 211},
  {"I420_10LE", 641, 479},
};

/* ---- helpers ---------------------------------------------------------- */

static GstCaps *
caps_of (const Conf * c, GstVideoInfo * info)
{
  gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", c->format, c->width, c->height);
  GstCaps *caps = gst_caps_from_string (s);

  fail_unless (gst_video_info_from_caps (info, caps));
  g_free (s);
  return caps;
}

static GstCaps *
cuda_caps_of (const GstVideoInfo * info)
{
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

/* Pushes @n random frames of @c through @chain, checks that each comes out
 * with the same visible pixels. */
static void
check_chain (const gchar * chain, const Conf * c, guint n)
{
  GstHarness *h = gst_harness_new_parse (chain);
  GstVideoInfo info;
  GstBuffer *in, *out;
  guint i;

  gst_harness_set_caps (h, caps_of (c, &info), caps_of (c, &info));
  for (i = 0; i < n; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, c->width * 31 + c->height + i);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL, "%s, %s %dx%d: no frame", chain, c->format,
        c->width, c->height);
    fail_unless (pinned_test_frames_equal (in, out, &info),
        "%s, %s %dx%d: frame %u differs", chain, c->format, c->width,
        c->height, i);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

static GstElement *
element_of (GstHarness * h, const gchar * factory)
{
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  GstElement *found = NULL;

  if (!GST_IS_BIN (h->element))
    return h->element;
  it = gst_bin_iterate_recurse (GST_BIN (h->element));
  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    GstElementFactory *f = gst_element_get_factory (e);

    if (f && g_strcmp0 (GST_OBJECT_NAME (f), factory) == 0)
      found = e;
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);

  fail_unless (found != NULL, "no %s", factory);
  return found;
}

static GstPinnedContext *
context_of (GstHarness * h, const gchar * factory)
{
  GstPinnedContext *ctx =
      gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
      (element_of (h, factory)));

  fail_unless (ctx != NULL);
  return ctx;
}

/* The GstCudaContext of the CUDA memory that crosses @pad. */
static GstPadProbeReturn
remember_cuda_context (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstCudaContext **ctx = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  if (*ctx == NULL && gst_is_cuda_memory (mem))
    *ctx = gst_object_ref (GST_CUDA_MEMORY_CAST (mem)->context);
  return GST_PAD_PROBE_OK;
}

static void
watch_cuda_memory (GstElement * element, const gchar * pad_name,
    GstCudaContext ** slot)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);

  *slot = NULL;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, remember_cuda_context,
      slot, NULL);
  gst_object_unref (pad);
}

/* The GstCudaContext that @element answers a neighbour's query with. */
static GstCudaContext *
answered_cuda_context (GstElement * element, const gchar * pad_name)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstCudaContext *cuda = NULL;
  GstContext *context = NULL;

  if (gst_pad_query (pad, query)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, NULL);
  }
  gst_query_unref (query);
  gst_object_unref (pad);

  return cuda;
}

/* The last device: 1 on the stand-in (two devices), so that a default
 * context (device 0) would show; 0 on a machine with one GPU. */
static gint
last_device (void)
{
  gint n = 0;

  fail_unless_equals_int (cudaGetDeviceCount (&n), cudaSuccess);
  return n - 1;
}

static guint
cuda_device_of (GstCudaContext * ctx)
{
  guint device = 0;

  g_object_get (ctx, "cuda-device-id", &device, NULL);
  return device;
}

static void
push_one (GstHarness * h, const Conf * c, GstVideoInfo * info)
{
  GstBuffer *in, *out;

  gst_harness_set_caps (h, caps_of (c, info), caps_of (c, info));
  in = gst_harness_create_buffer (h, info->size);
  pinned_test_fill_frame (in, info, 7);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (pinned_test_frames_equal (in, out, info));
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

/* ---- frames through CUDA memory -------------------------------------- */

GST_START_TEST (test_cuda_memory_into_pinneddownload)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (confs); i++)
    check_chain ("cudaupload ! video/x-raw(memory:CUDAMemory) ! "
        "pinneddownload", &confs[i], 3);
}

GST_END_TEST;

GST_START_TEST (test_pinnedupload_into_cuda_memory)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (confs); i++)
    check_chain ("pinnedupload ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload ! capsfilter caps=video/x-raw", &confs[i], 3);
}

GST_END_TEST;

/* nvcodec's CUDA memory is copied through views, one frame at a time: it
 * is not batched, from a source that is not live either. As whole
 * pipelines, these also run the allocation as GstBaseTransform decides it
 * (with 1.24's streams, suite interop-streams: a CUDA pool configured
 * twice compares its stream, which GStreamer cannot). */
GST_START_TEST (test_cuda_memory_not_batched)
{
  const gchar *launches[] = {
    "videotestsrc num-buffers=6 ! video/x-raw,format=NV12,width=64,height=48 "
        "! cudaupload ! video/x-raw(memory:CUDAMemory) ! pinneddownload "
        "name=el ! fakesink",
    "videotestsrc num-buffers=6 ! video/x-raw,format=NV12,width=64,height=48 "
        "! pinnedupload name=el ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload ! fakesink",
    /* Control: system memory both ways batches. */
    "videotestsrc num-buffers=6 ! video/x-raw,format=NV12,width=64,height=48 "
        "! pinnedupload name=el ! pinneddownload ! fakesink",
  };
  const guint expected[] = { 1, 1, 4 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (launches); i++) {
    GstElement *pipeline = gst_parse_launch (launches[i], NULL);
    GstElement *el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    guint batch;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    batch = gst_pinned_base_transform_get_batch (GST_PINNED_BASE_TRANSFORM
        (el));
    gst_element_set_state (pipeline, GST_STATE_NULL);

    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "%s did not end", launches[i]);
    fail_unless_equals_int (batch, expected[i]);
    gst_message_unref (msg);
    gst_object_unref (bus);
    gst_object_unref (el);
    gst_object_unref (pipeline);
  }
}

GST_END_TEST;

/* Through both, and through our device memory in between. */
GST_START_TEST (test_cuda_memory_both_ways)
{
  check_chain ("pinnedupload ! video/x-raw(memory:CUDAMemory) ! cudadownload "
      "! video/x-raw ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "pinneddownload", &confs[1], 4);
  check_chain ("cudaupload ! video/x-raw(memory:CUDAMemory) ! pinneddownload "
      "! pinnedupload ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw", &confs[2], 4);
}

GST_END_TEST;

/* The caps: CUDA memory first on pinneddownload's sink, our device memory
 * first on pinnedupload's source; with CUDAMemory on both sides of a pair
 * negotiated by itself. */
GST_START_TEST (test_caps_preference)
{
  GstElement *down = gst_element_factory_make ("pinneddownload", NULL);
  GstElement *up = gst_element_factory_make ("pinnedupload", NULL);
  GstPad *sink = gst_element_get_static_pad (down, "sink");
  GstPad *src = gst_element_get_static_pad (up, "src");
  GstCaps *caps;

  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);

  caps = gst_pad_query_caps (src, NULL);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE), "%" GST_PTR_FORMAT, caps);
  fail_unless (gst_pinned_caps_is_cuda (caps));
  gst_caps_unref (caps);

  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (down);
  gst_object_unref (up);
}

GST_END_TEST;

/* ---- one CUDA context ------------------------------------------------- */

/* nvcodec first: cudaupload made a context at its start (after ours, but
 * pinneddownload opens its device at caps time): adopted. */
GST_START_TEST (test_context_adopted_download)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! pinneddownload");
  GstCudaContext *seen, *ours;
  GstPinnedContext *ctx;
  GstVideoInfo info;

  watch_cuda_memory (element_of (h, "pinneddownload"), "sink", &seen);
  push_one (h, &confs[0], &info);

  ctx = context_of (h, "pinneddownload");
  fail_unless (seen != NULL);
  fail_unless (gst_pinned_context_get_handle (ctx) ==
      gst_cuda_context_get_handle (seen),
      "pinneddownload works in another CUDA context than cudaupload");
  ours = gst_pinned_context_get_cuda_context (ctx);
  fail_unless (ours == seen, "the context was not adopted");

  gst_object_unref (ours);
  gst_object_unref (seen);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Links @a's src pad to @b's sink pad, outside any bin. */
static gboolean
link_alone (GstElement * a, GstElement * b)
{
  GstPad *src = gst_element_get_static_pad (a, "src");
  GstPad *sink = gst_element_get_static_pad (b, "sink");
  gboolean ok = gst_pad_link (src, sink) == GST_PAD_LINK_OK;

  gst_object_unref (src);
  gst_object_unref (sink);
  return ok;
}

/* The same, with the two linked outside any bin (whose context cache
 * would hand cudaupload's announcement on): the only route is the
 * download's gst.cuda.context query to its neighbour, at caps time. */
GST_START_TEST (test_context_adopted_from_neighbour_alone)
{
  GstElement *up = gst_object_ref_sink (gst_element_factory_make
      ("cudaupload", NULL));
  GstElement *filter = gst_object_ref_sink (gst_element_factory_make
      ("capsfilter", NULL));
  GstElement *down = gst_object_ref_sink (gst_element_factory_make
      ("pinneddownload", NULL));
  GstHarness *hdown, *hup;
  GstCudaContext *seen, *ours;
  GstVideoInfo info;
  GstCaps *caps = caps_of (&confs[0], &info), *cuda_caps;
  GstBuffer *in, *out;
  GstPinnedContext *ctx;

  cuda_caps = cuda_caps_of (&info);
  g_object_set (filter, "caps", cuda_caps, NULL);
  gst_caps_unref (cuda_caps);
  fail_unless (link_alone (up, filter) && link_alone (filter, down));
  watch_cuda_memory (down, "sink", &seen);
  hdown = gst_harness_new_with_element (down, NULL, "src");
  gst_harness_set_sink_caps (hdown, gst_caps_ref (caps));
  fail_unless_equals_int (gst_element_set_state (filter, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  hup = gst_harness_new_with_element (up, "sink", NULL);
  gst_harness_set_src_caps (hup, gst_caps_ref (caps));

  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  pinned_test_fill_frame (in, &info, 5);
  fail_unless_equals_int (gst_harness_push (hup, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hdown);
  fail_unless (out != NULL);
  fail_unless (pinned_test_frames_equal (in, out, &info));

  ctx = gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
      (down));
  fail_unless (ctx != NULL && seen != NULL);
  ours = gst_pinned_context_get_cuda_context (ctx);
  fail_unless (ours == seen, "pinneddownload did not adopt its neighbour's "
      "CUDA context");

  gst_object_unref (ours);
  gst_object_unref (seen);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hup);
  gst_element_set_state (filter, GST_STATE_NULL);
  gst_harness_teardown (hdown);
  gst_caps_unref (caps);
  gst_object_unref (up);
  gst_object_unref (filter);
  gst_object_unref (down);
}

GST_END_TEST;

/* We first: pinneddownload with a device-id opens its device at start,
 * before cudaupload, and announces the primary context; cudaupload joins
 * it. */
GST_START_TEST (test_context_joined_download)
{
  gint device = last_device ();
  gchar *chain = g_strdup_printf ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! pinneddownload device-id=%d", device);
  GstHarness *h = gst_harness_new_parse (chain);
  GstCudaContext *seen, *ours, *answered;
  GstPinnedContext *ctx;
  GstVideoInfo info;

  g_free (chain);
  watch_cuda_memory (element_of (h, "pinneddownload"), "sink", &seen);
  push_one (h, &confs[2], &info);

  ctx = context_of (h, "pinneddownload");
  fail_unless_equals_int (gst_pinned_context_get_device_id (ctx), device);
  ours = gst_pinned_context_get_cuda_context (ctx);
  fail_unless (seen != NULL && ours != NULL);
  fail_unless (seen == ours, "cudaupload did not join our context");
  fail_unless_equals_int (cuda_device_of (seen), device);

  /* Neighbours that ask get it too (an announcement reaches only those
   * that ask the pipeline after it). */
  answered = answered_cuda_context (element_of (h, "pinneddownload"), "src");
  fail_unless (answered == ours, "pinneddownload does not answer CUDA "
      "context queries");

  gst_object_unref (answered);
  gst_object_unref (ours);
  gst_object_unref (seen);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A context we open is announced as a gst.cuda.context too (for nvcodec
 * elements that ask the pipeline, not a neighbour), and neighbours that
 * ask get it. */
GST_START_TEST (test_context_announced_and_answered)
{
  gint device = last_device ();
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=NV12,width=64,height=32 ! "
      "pinnedupload name=up device-id=%d ! fakesink", device);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstCudaContext *announced = NULL, *answered, *ours;
  GstMessage *msg;
  GstContext *context;

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  while ((msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
              GST_MESSAGE_HAVE_CONTEXT | GST_MESSAGE_ASYNC_DONE |
              GST_MESSAGE_ERROR))) {
    gboolean done = GST_MESSAGE_TYPE (msg) != GST_MESSAGE_HAVE_CONTEXT;

    if (!done) {
      gst_message_parse_have_context (msg, &context);
      if (g_strcmp0 (gst_context_get_context_type (context),
              GST_CUDA_CONTEXT_TYPE) == 0 && announced == NULL)
        gst_structure_get (gst_context_get_structure (context),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &announced, NULL);
      gst_context_unref (context);
    }
    gst_message_unref (msg);
    if (done)
      break;
  }

  ours = gst_pinned_context_get_cuda_context
      (gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM (up)));
  fail_unless (ours != NULL);
  fail_unless (announced == ours, "no gst.cuda.context announced");
  fail_unless_equals_int (cuda_device_of (ours), device);
  answered = answered_cuda_context (up, "src");
  fail_unless (answered == ours, "pinnedupload does not answer CUDA context "
      "queries");

  gst_object_unref (answered);
  gst_object_unref (announced);
  gst_object_unref (ours);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (up);
  gst_object_unref (pipeline);
  g_free (launch);
}

GST_END_TEST;

/* A context we open reaches nvcodec elements that are not our neighbours
 * through the pipeline, which keeps what was announced (have-context):
 * here a branch of its own, added to the running pipeline as decodebin
 * adds a decoder, with cudaupload, which would otherwise open a context of
 * its own on device 0. */
GST_START_TEST (test_context_announced_to_other_branch)
{
  gint device = last_device ();
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=NV12,width=64,height=32 ! "
      "pinnedupload name=up device-id=%d ! fakesink", device);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *src = gst_element_factory_make ("videotestsrc", NULL);
  GstElement *cu = gst_element_factory_make ("cudaupload", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstCudaContext *ours, *theirs;

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);

  gst_bin_add_many (GST_BIN (pipeline), src, cu, sink, NULL);
  fail_unless (gst_element_link_many (src, cu, sink, NULL));
  fail_unless (gst_element_sync_state_with_parent (sink));
  fail_unless (gst_element_sync_state_with_parent (cu));

  ours = gst_pinned_context_get_cuda_context
      (gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM (up)));
  theirs = answered_cuda_context (cu, "src");
  fail_unless (ours != NULL && theirs != NULL);
  fail_unless (theirs == ours, "cudaupload in another branch opened a "
      "context of its own (device %u): ours (device %d) was not announced",
      cuda_device_of (theirs), device);

  gst_object_unref (theirs);
  gst_object_unref (ours);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (pipeline);
  g_free (launch);
}

GST_END_TEST;

/* nvcodec first, upload side: cudadownload made its context at start,
 * pinnedupload (started later) adopted it and writes into CUDA memory of
 * it. */
GST_START_TEST (test_context_adopted_upload)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  GstCudaContext *seen, *theirs, *ours;
  GstPinnedContext *ctx;
  GstVideoInfo info;

  /* cudadownload's context from its start, before any frame (it would
   * take the context of the memory it gets later). */
  theirs = answered_cuda_context (element_of (h, "cudadownload"), "sink");
  fail_unless (theirs != NULL);

  watch_cuda_memory (element_of (h, "cudadownload"), "sink", &seen);
  push_one (h, &confs[1], &info);

  ctx = context_of (h, "pinnedupload");
  fail_unless (gst_cuda_context_get_handle (theirs) ==
      gst_pinned_context_get_handle (ctx),
      "pinnedupload works in another CUDA context than cudadownload");
  ours = gst_pinned_context_get_cuda_context (ctx);
  fail_unless (ours == theirs, "the context was not adopted");
  fail_unless (seen == theirs, "the CUDA memory is not of the shared context");

  gst_object_unref (ours);
  gst_object_unref (theirs);
  gst_object_unref (seen);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* We first, upload side: the application's context (of the last device)
 * reaches pinnedupload; cudadownload, which starts before it, asks its
 * neighbour and joins ours. */
GST_START_TEST (test_context_joined_upload)
{
  GstElement *bin = gst_parse_bin_from_description ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw", TRUE,
      NULL);
  GstPinnedContext *app = gst_pinned_context_new (last_device (), NULL);
  GstContext *context;
  GstCudaContext *seen, *ours;
  GstHarness *h;
  GstVideoInfo info;

  fail_unless (bin != NULL && app != NULL);
  context = gst_context_new_pinned_context (app);
  gst_element_set_context (bin, context);
  gst_context_unref (context);

  h = gst_harness_new_with_element (bin, "sink", "src");
  watch_cuda_memory (element_of (h, "cudadownload"), "sink", &seen);
  push_one (h, &confs[3], &info);

  fail_unless (context_of (h, "pinnedupload") == app);
  ours = gst_pinned_context_get_cuda_context (app);
  fail_unless (seen != NULL && ours != NULL);
  fail_unless (seen == ours, "cudadownload did not join our context");
  fail_unless_equals_int (cuda_device_of (seen),
      gst_pinned_context_get_device_id (app));

  gst_object_unref (ours);
  gst_object_unref (seen);
  gst_harness_teardown (h);
  gst_object_unref (bin);
  gst_object_unref (app);
}

GST_END_TEST;

/* Gives @name of @bin the application's gst.cuda.context @cuda. */
static void
set_cuda_context (GstElement * bin, const gchar * name, GstCudaContext * cuda)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (bin), name);
  GstContext *context = gst_context_new_cuda_context (cuda);

  fail_unless (element != NULL);
  gst_element_set_context (element, context);
  gst_context_unref (context);
  gst_object_unref (element);
}

/* CUDA memory in: its device pointers are valid in upstream's context
 * only. Upstream (cudaupload) holds a context the application gave it;
 * downstream, which a query asks first as GstContext documents, has
 * another one from the start: an nvcodec element's (the application's
 * too), or that of a gst-pinned element that takes the frames to another
 * device. pinneddownload must take upstream's, or it refuses every frame
 * as CUDA memory of another context. */
GST_START_TEST (test_cuda_input_takes_upstream_context)
{
  const struct
  {
    const gchar *launch;
    const gchar *feature;
  } downstreams[] = {
    {"cudaupload name=after", NULL},
    {"pinnedupload device-id=1", GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE},
  };
  const Conf *c = &confs[0];
  guint i, n = G_N_ELEMENTS (downstreams);

  if (last_device () < 1) {
    g_print ("one CUDA device: no device to take the frames to\n");
    n = 1;
  }
  for (i = 0; i < n; i++) {
    const gchar *after = downstreams[i].launch;
    gchar *launch = g_strdup_printf ("cudaupload name=up ! "
        "video/x-raw(memory:CUDAMemory) ! pinneddownload name=in ! %s",
        after);
    GstElement *bin = gst_parse_bin_from_description (launch, TRUE, NULL);
    GstElement *in_element = gst_bin_get_by_name (GST_BIN (bin), "in");
    GstCudaContext *upstream = gst_cuda_context_new (0);
    GstCudaContext *downstream = gst_cuda_context_new (0);
    GstCudaContext *ours;
    GstFlowReturn ret;
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstCaps *out_caps;
    GstHarness *h;

    fail_unless (upstream != NULL && downstream != NULL);
    set_cuda_context (bin, "up", upstream);
    if (i == 0)
      set_cuda_context (bin, "after", downstream);
    h = gst_harness_new_with_element (bin, "sink", "src");
    out_caps = caps_of (c, &info);
    if (downstreams[i].feature)
      gst_caps_set_features (out_caps, 0,
          gst_caps_features_new (downstreams[i].feature, NULL));
    gst_harness_set_caps (h, caps_of (c, &info), out_caps);

    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, 9);
    ret = gst_harness_push (h, gst_buffer_ref (in));
    ours = gst_pinned_context_get_cuda_context
        (gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
            (in_element)));
    fail_unless (ours == upstream, "%s: pinneddownload did not take its "
        "upstream's CUDA context", after);
    fail_unless (ret == GST_FLOW_OK, "%s: the push failed (%s)", after,
        gst_flow_get_name (ret));
    out = gst_harness_pull (h);
    fail_unless (out != NULL && pinned_test_frames_equal (in, out, &info),
        "%s: the frame differs", after);

    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_object_unref (ours);
    gst_harness_teardown (h);
    gst_object_unref (in_element);
    gst_object_unref (bin);
    gst_object_unref (downstream);
    gst_object_unref (upstream);
    g_free (launch);
  }
}

GST_END_TEST;

/* Answers a gst.cuda.context query that reaches @pad with @data's. */
static GstPadProbeReturn
answer_cuda_context (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstContext *context;
  const gchar *type;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT ||
      !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return GST_PAD_PROBE_OK;
  context = gst_context_new_cuda_context (data);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return GST_PAD_PROBE_HANDLED;
}

/* The same at caps time: no neighbour had a context when pinneddownload
 * started (linked outside any bin, it started first); by its caps
 * upstream holds the application's and downstream answers another. */
GST_START_TEST (test_cuda_input_takes_upstream_context_at_caps)
{
  GstElement *up = gst_object_ref_sink (gst_element_factory_make
      ("cudaupload", NULL));
  GstElement *filter = gst_object_ref_sink (gst_element_factory_make
      ("capsfilter", NULL));
  GstElement *down = gst_object_ref_sink (gst_element_factory_make
      ("pinneddownload", NULL));
  GstCudaContext *upstream = gst_cuda_context_new (0);
  GstCudaContext *downstream = gst_cuda_context_new (0);
  GstCudaContext *ours;
  GstHarness *hdown, *hup;
  GstVideoInfo info;
  GstCaps *caps = caps_of (&confs[0], &info), *cuda_caps;
  GstContext *context;
  GstBuffer *in, *out;
  GstFlowReturn ret;

  fail_unless (upstream != NULL && downstream != NULL);
  cuda_caps = cuda_caps_of (&info);
  g_object_set (filter, "caps", cuda_caps, NULL);
  gst_caps_unref (cuda_caps);
  fail_unless (link_alone (up, filter) && link_alone (filter, down));
  hdown = gst_harness_new_with_element (down, NULL, "src");
  gst_harness_set_sink_caps (hdown, gst_caps_ref (caps));
  fail_unless (gst_pinned_base_transform_get_context
      (GST_PINNED_BASE_TRANSFORM (down)) == NULL);

  context = gst_context_new_cuda_context (upstream);
  gst_element_set_context (up, context);
  gst_context_unref (context);
  gst_pad_add_probe (hdown->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      answer_cuda_context, downstream, NULL);
  fail_unless_equals_int (gst_element_set_state (filter, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  hup = gst_harness_new_with_element (up, "sink", NULL);
  gst_harness_set_src_caps (hup, gst_caps_ref (caps));

  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  pinned_test_fill_frame (in, &info, 11);
  ret = gst_harness_push (hup, gst_buffer_ref (in));
  ours = gst_pinned_context_get_cuda_context
      (gst_pinned_base_transform_get_context (GST_PINNED_BASE_TRANSFORM
          (down)));
  fail_unless (ours == upstream, "pinneddownload did not take its "
      "upstream's CUDA context at caps time");
  fail_unless_equals_int (ret, GST_FLOW_OK);
  out = gst_harness_pull (hdown);
  fail_unless (out != NULL && pinned_test_frames_equal (in, out, &info));

  gst_object_unref (ours);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hup);
  gst_element_set_state (filter, GST_STATE_NULL);
  gst_harness_teardown (hdown);
  gst_caps_unref (caps);
  gst_object_unref (up);
  gst_object_unref (filter);
  gst_object_unref (down);
  gst_object_unref (downstream);
  gst_object_unref (upstream);
}

GST_END_TEST;

/* CUDA memory of another device than the element's: an element error that
 * says so, not a copy from a wrong pointer. */
GST_START_TEST (test_other_device_is_an_error)
{
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;

  if (last_device () < 1) {
    g_print ("one CUDA device: another device's memory not checked\n");
    return;
  }
  pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=32 ! "
      "cudaupload cuda-device-id=0 ! video/x-raw(memory:CUDAMemory) ! "
      "pinneddownload device-id=1 ! fakesink", NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "a frame of device 0 went through an element of device 1");
  pinned_test_check_error (msg, NULL, "device 0", "device 1", NULL);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* CUDA memory of another CUDA context of the same device (elements that
 * did not share one): its pointers are not valid in ours, so the download
 * refuses it with an element error that says so, and copies nothing. Ours
 * is the primary context (the application's gst.pinned.context), theirs
 * one that libgstcuda created. */
GST_START_TEST (test_other_context_same_device_is_an_error)
{
  const Conf *c = &confs[0];
  GstPinnedContext *ours = gst_pinned_context_new (0, NULL);
  GstCudaContext *theirs = gst_cuda_context_new (0);
  GstElement *download =
      gst_object_ref_sink (gst_element_factory_make ("pinneddownload", NULL));
  GstContext *context = gst_context_new_pinned_context (ours);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstBufferPool *pool;
  GstStructure *config;
  GstBuffer *cuda_buf;
  GstMessage *msg;
  GstHarness *h;

  fail_unless (ours != NULL && theirs != NULL);
  fail_unless (gst_pinned_context_get_handle (ours) !=
      gst_cuda_context_get_handle (theirs));
  gst_element_set_context (download, context);
  gst_context_unref (context);
  gst_element_set_bus (download, bus);
  h = gst_harness_new_with_element (download, "sink", "src");
  gst_harness_set_caps (h, gst_caps_ref (cuda_caps), gst_caps_ref (caps));

  gst_cuda_memory_init_once ();
  pool = gst_cuda_buffer_pool_new (theirs);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, cuda_caps, info.size, 1, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);

  fail_unless_equals_int (gst_harness_push (h, cuda_buf), GST_FLOW_ERROR);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "CUDA memory of another context was taken");
  pinned_test_check_error (msg, NULL, "another CUDA context", NULL);
  gst_message_unref (msg);
  gst_harness_teardown (h);
  gst_element_set_bus (download, NULL);
  gst_object_unref (download);
  gst_object_unref (bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
  gst_object_unref (theirs);
  gst_object_unref (ours);
}

GST_END_TEST;

/* The GstCudaContext that wraps a device's primary context retains it
 * once more and releases that retain when its last reference goes:
 * retains and releases balance (counted by the driver stand-in; fake
 * only). */
GST_START_TEST (test_primary_wrapper_releases_its_retain)
{
  /* libgstcuda opens the driver library locally: asked through a handle
   * of our own (the same library). */
  gpointer driver = NULL;
  gint (*retained) (gint) = NULL;
  GstPinnedContext *ctx;
  GstCudaContext *cuda;
  gint before;

  if (pinned_test_is_fake ())
    driver = dlopen ("libcuda.so.1", RTLD_LAZY);
  if (driver)
    retained = dlsym (driver, "fakecuda_driver_primary_retained");
  if (retained == NULL) {
    g_print ("not the driver stand-in: retains not counted\n");
    if (driver)
      dlclose (driver);
    return;
  }

  before = retained (0);
  ctx = gst_pinned_context_new (0, NULL);
  fail_unless (ctx != NULL);
  cuda = gst_pinned_context_get_cuda_context (ctx);
  fail_unless (cuda != NULL);
  fail_unless (retained (0) > before);

  /* The wrapper outlives the context that made it, in an nvcodec
   * element: it still holds the primary context. */
  gst_object_unref (ctx);
  fail_unless (retained (0) > before,
      "the wrapper does not hold the primary context");
  gst_object_unref (cuda);
  fail_unless_equals_int (retained (0), before);
  dlclose (driver);
}

GST_END_TEST;

/* What reaches a harness's sink pad, in order: 'C' caps in gst-pinned
 * device memory, 'K' caps in CUDA memory, 'P' a frame in gst-pinned
 * device memory, 'U' one in CUDA memory. */
static GstPadProbeReturn
record_memory_order (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GString *order = data;
  gchar c = 0;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstMemory *mem =
        gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);

    c = gst_is_pinned_device_memory (mem) ? 'P' :
        gst_is_cuda_memory (mem) ? 'U' : '?';
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS) {
    GstCaps *caps;

    gst_event_parse_caps (GST_PAD_PROBE_INFO_EVENT (info), &caps);
    c = gst_pinned_caps_is_cuda (caps) ? 'K' : 'C';
  }
  if (c) {
    GST_OBJECT_LOCK (pad);
    g_string_append_c (order, c);
    GST_OBJECT_UNLOCK (pad);
  }
  return GST_PAD_PROBE_OK;
}

/* The pixel rows of a frame in CUDA memory, copied out on the device into
 * a host buffer of @info's layout. GStreamer's host map copies the whole
 * allocation, rows past the frame included, which no one wrote (1.22
 * allocates twice the height of a 4:2:0 frame): initcheck's errors, not
 * ours. */
static GstBuffer *
cuda_frame_to_host (GstPinnedContext * ctx, GstBuffer * cuda,
    const GstVideoInfo * info)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (cuda);
  GstBuffer *host = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo dmap, hmap;
  guint p, rows, row_bytes;

  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_buffer_n_memory (cuda), 1);
  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless (gst_memory_map (gst_buffer_peek_memory (cuda, 0), &dmap,
          GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (host, &hmap, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    pinned_test_plane_geometry (info, p, &rows, &row_bytes);
    fail_unless_equals_int (cudaMemcpy2D (hmap.data + info->offset[p],
            info->stride[p], dmap.data + meta->offset[p], meta->stride[p],
            row_bytes, rows, cudaMemcpyDeviceToHost), cudaSuccess);
  }
  gst_buffer_unmap (host, &hmap);
  gst_memory_unmap (gst_buffer_peek_memory (cuda, 0), &dmap);
  gst_pinned_context_pop (ctx);
  return host;
}

/* Downstream renegotiates (RECONFIGURE) from gst-pinned device memory to
 * CUDA memory while the upload holds a partial batch: the held frames
 * leave first, under the caps they were made for, then the new caps and
 * the frames in CUDA memory (which is never batched). */
GST_START_TEST (test_batch_before_renegotiation_to_cuda_memory)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload batch=4 "
      "batch-timeout=1000000");
  GString *order = g_string_new (NULL);
  GstVideoInfo info;
  GstBuffer *in[3], *out;
  gchar *seen;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:PinnedDevice),"
      "format=NV12,width=64,height=48,framerate=30/1");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=NV12,width=64,"
      "height=48,framerate=30/1");
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_memory_order, order, NULL);

  for (i = 0; i < 3; i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 60 + i);
    if (i == 2)
      gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory),"
          "format=NV12,width=64,height=48,framerate=30/1");
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 3; i++) {
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    if (i == 2) {
      GstBuffer *host = cuda_frame_to_host (context_of (h, "pinnedupload"),
          out, &info);

      gst_buffer_unref (out);
      out = host;
    }
    fail_unless (pinned_test_frames_equal (in[i], out, &info),
        "frame %u is wrong", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }

  GST_OBJECT_LOCK (h->sinkpad);
  seen = g_strdup (order->str);
  GST_OBJECT_UNLOCK (h->sinkpad);
  fail_unless_equals_string (seen, "PPKU");
  g_free (seen);
  g_string_free (order, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the GStreamer 1.22 push rule ------------------------------------ */

/* Holds the copies of @upload back: a pause of its stream only (the
 * stand-in's, or a spin kernel on a GPU), so that the consumer's own
 * copies are not held. */
static void
hold_back_copies (GstElement * upload)
{
  pinned_test_delay_stream (gst_pinned_base_transform_get_stream
      (GST_PINNED_BASE_TRANSFORM (upload)), DELAY_MS);
}

/* cudadownload reads CUDA memory when it gets it, on its own stream. Each
 * frame's copy is held back: it still sees each frame finished, and the
 * streaming thread went on without waiting for the copy. */
GST_START_TEST (test_push_rule_consumer_sees_finished_frames)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  const Conf *c = &confs[1];
  GstVideoInfo info;
  GstBuffer *in[3], *out;
  gint64 start, pushed;
  guint i;

  /* Negotiate and open everything first. */
  push_one (h, c, &info);

  hold_back_copies (element_of (h, "pinnedupload"));
  start = g_get_monotonic_time ();
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 100 + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  pushed = g_get_monotonic_time () - start;

  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless (pinned_test_frames_equal (in[i], out, &info),
        "frame %u reached cudadownload before its copy was done", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  /* Pushed without waiting for the held-back copies: the window waits,
   * not the streaming thread. */
  fail_unless (!pinned_test_work_is_async () || pushed < DELAY_MS * 1000 / 2,
      "the streaming thread waited %" G_GINT64_FORMAT " us for the copies",
      pushed);

  pinned_test_reset ();
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The order buffers and the "marker" event (or the end of stream) reach
 * a harness's sink pad. */
static GstPadProbeReturn
record_order (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GString *order = data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GST_OBJECT_LOCK (pad);
    g_string_append_c (order, 'B');
    GST_OBJECT_UNLOCK (pad);
  } else if (gst_event_has_name (GST_PAD_PROBE_INFO_EVENT (info), "marker") ||
      GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    GST_OBJECT_LOCK (pad);
    g_string_append_c (order, 'E');
    GST_OBJECT_UNLOCK (pad);
  }
  return GST_PAD_PROBE_OK;
}

/* A serialized event after @n frames whose copies are held back leaves
 * after them: pinnedupload lets its window push them first, the frame its
 * task is waiting for too. */
static void
check_events_stay_in_order (guint n, GstEvent * event, const gchar * expected)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  const Conf *c = &confs[1];
  GString *order = g_string_new (NULL);
  GstVideoInfo info;
  const gchar *name = GST_EVENT_TYPE_NAME (event);
  GstBuffer *in[2], *out;
  gchar *seen;
  guint i;

  push_one (h, c, &info);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_order, order, NULL);

  hold_back_copies (element_of (h, "pinnedupload"));
  for (i = 0; i < n; i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 200 + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  /* Let the window's task take the first frame: it waits for that
   * frame's held-back copy, with the frame out of the window's queue. */
  g_usleep (DELAY_MS * 1000 / 4);
  fail_unless (gst_harness_push_event (h, event));
  for (i = 0; i < n; i++) {
    gint64 end = g_get_monotonic_time () + 10 * DELAY_MS * 1000;

    /* A frame that came after the end of stream is dropped: not a
     * minute's wait for it. */
    while (!(out = gst_harness_try_pull (h)) && g_get_monotonic_time () < end)
      g_usleep (1000);
    fail_unless (out != NULL, "frame %u of %u did not come (after the %s?)",
        i, n, name);
    fail_unless (pinned_test_frames_equal (in[i], out, &info),
        "frame %u is wrong", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }

  GST_OBJECT_LOCK (h->sinkpad);
  seen = g_strdup (order->str);
  GST_OBJECT_UNLOCK (h->sinkpad);
  fail_unless_equals_string (seen, expected);

  pinned_test_reset ();
  gst_harness_teardown (h);
  g_string_free (order, TRUE);
  g_free (seen);
}

GST_START_TEST (test_push_rule_events_stay_in_order)
{
  check_events_stay_in_order (2,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new_empty ("marker")), "BBE");
}

GST_END_TEST;

/* One frame in flight: the window's task has taken it and waits for its
 * held-back copy (the window's queue is empty); the end of stream still
 * waits for it. */
GST_START_TEST (test_push_rule_eos_after_the_last_frame)
{
  check_events_stay_in_order (1, gst_event_new_eos (), "BE");
}

GST_END_TEST;

/* A drain query from upstream (a decoder about to replace its pool asks
 * one) returns only once the frames before it, whose copies are held
 * back in the window, reached downstream. */
GST_START_TEST (test_push_rule_drain_query_after_frames)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  GstVideoInfo info;
  GstQuery *query;
  GstBuffer *in[2], *out;
  guint i;

  push_one (h, &confs[1], &info);
  hold_back_copies (element_of (h, "pinnedupload"));
  for (i = 0; i < 2; i++) {
    in[i] = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in[i], &info, 300 + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  query = gst_query_new_drain ();
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_unref (query);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  for (i = 0; i < 2; i++) {
    out = gst_harness_pull (h);
    fail_unless (pinned_test_frames_equal (in[i], out, &info));
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  pinned_test_reset ();
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Buffers that leave the upload between a FLUSH_STOP and the next
 * segment: frames from before the flush (dropped here, counted). */
static GstPadProbeReturn
count_after_flush (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *state = data;           /* [0]: 1 after a FLUSH_STOP; [1]: count */

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    if (g_atomic_int_get (&state[0])) {
      g_atomic_int_inc (&state[1]);
      return GST_PAD_PROBE_DROP;
    }
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_FLUSH_STOP) {
    g_atomic_int_set (&state[0], 1);
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_SEGMENT) {
    g_atomic_int_set (&state[0], 0);
  }
  return GST_PAD_PROBE_OK;
}

/* FLUSH_START empties the window: frames whose copies were held back
 * before a flush never come (the one the window's task has taken and
 * waits for neither); the first frame after it does, right. */
GST_START_TEST (test_push_rule_flush_empties_window)
{
  GstHarness *h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  GstPad *src;
  gint state[2] = { 0, 0 };
  GstVideoInfo info;
  GstSegment segment;
  GstBuffer *in, *out;
  guint i;

  push_one (h, &confs[1], &info);
  src = gst_element_get_static_pad (element_of (h, "pinnedupload"), "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      count_after_flush, state, NULL);
  hold_back_copies (element_of (h, "pinnedupload"));
  for (i = 0; i < 2; i++) {
    in = gst_harness_create_buffer (h, info.size);
    pinned_test_fill_frame (in, &info, 400 + i);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  /* Let the window's task take the first frame and wait for its copy. */
  g_usleep (DELAY_MS * 1000 / 4);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (g_atomic_int_get (&state[1]), 0);
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);

  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 410);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (pinned_test_frames_equal (in, out, &info),
      "a frame from before the flush came after it");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_usleep (DELAY_MS * 1000);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  pinned_test_reset ();
  gst_harness_teardown (h);
  gst_object_unref (src);
}

GST_END_TEST;

/* A frame whose copy into CUDA memory fails on the device, after the
 * upload enqueued it and its push returned (a held-back stream reaches it
 * later, as CUDA reports an asynchronous error): the window's task, which
 * waits for the copy, never pushes the frame, and the upload posts an
 * element error with the CUDA error in its debug string. */
GST_START_TEST (test_push_rule_failed_copy_is_the_upload_error)
{
  GstHarness *h;
  GstElement *upload;
  GstVideoInfo info;
  GstMessage *msg;
  GstBus *bus;
  GstBuffer *in;
  guint64 copies;

  if (!pinned_test_is_fake ())
    return;                     /* no failure on demand on a GPU */

  h = gst_harness_new_parse ("pinnedupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "capsfilter caps=video/x-raw");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  push_one (h, &confs[1], &info);
  upload = element_of (h, "pinnedupload");

  hold_back_copies (upload);
  copies = pinned_test_call_count ("cudaMemcpy2DAsync");
  pinned_test_fail_async ("cudaMemcpy2DAsync", 0, 1, cudaErrorIllegalAddress);
  in = gst_harness_create_buffer (h, info.size);
  pinned_test_fill_frame (in, &info, 500);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless (pinned_test_call_count ("cudaMemcpy2DAsync") > copies,
      "the upload's copy was not the one made to fail");

  msg = gst_bus_timed_pop_filtered (bus, 10 * DELAY_MS * GST_MSECOND,
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no element error after the frame's copy into "
      "CUDA memory failed");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (upload),
      "the error came from %s, not from pinnedupload, whose copy failed",
      GST_MESSAGE_SRC_NAME (msg));
  pinned_test_check_error (msg, NULL, "cudaErrorIllegalAddress", NULL);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  pinned_test_reset ();
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The copy into CUDA memory of the shared context, as pinnedupload makes
 * it, with the copy held back; pushed to cudadownload either at once or
 * through a window. */
static void
push_rule_frame (gboolean through_window, gboolean * equal)
{
  const Conf *c = &confs[0];
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  GstPinnedStream *stream = gst_pinned_stream_new (ctx, NULL);
  GstAllocator *views = gst_pinned_device_allocator_new (ctx);
  GstCudaContext *cuda = gst_pinned_context_get_cuda_context (ctx);
  GstElement *download =
      gst_object_ref_sink (gst_element_factory_make ("cudadownload", NULL));
  GstContext *context = gst_context_new_cuda_context (cuda);
  GstHarness *h;
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstBufferPool *pool;
  GstBuffer *in, *cuda_buf, *view, *out;
  GstPinnedWindow *window = NULL;

  gst_element_set_context (download, context);
  gst_context_unref (context);
  h = gst_harness_new_with_element (download, "sink", "src");
  gst_harness_set_caps (h, gst_caps_ref (cuda_caps), gst_caps_ref (caps));

  pool = gst_pinned_cuda_buffer_pool_new (ctx, cuda_caps, 1);
  fail_unless (pool && gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);

  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  pinned_test_fill_frame (in, &info, 42);
  view = gst_pinned_cuda_buffer_wrap (cuda_buf, &info, views, GST_MAP_WRITE,
      NULL);
  fail_unless (view != NULL);

  pinned_test_delay_stream (stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (stream, &info, in, view, NULL));

  if (through_window) {
    window = gst_pinned_window_new (h->srcpad, 2);
    fail_unless_equals_int (gst_pinned_window_push (window, cuda_buf, view),
        GST_FLOW_OK);
  } else {
    /* Pushed at once: what pinnedupload would do without the rule. */
    fail_unless_equals_int (gst_harness_push (h, cuda_buf), GST_FLOW_OK);
  }
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  *equal = pinned_test_frames_equal (in, out, &info);

  if (window) {
    gst_pinned_window_stop (window);
    gst_object_unref (window);
  } else {
    gst_buffer_unref (view);
  }
  pinned_test_reset ();
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_object_unref (download);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
  gst_object_unref (cuda);
  gst_object_unref (views);
  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);
}

GST_START_TEST (test_push_rule_window)
{
  gboolean equal = FALSE;

  push_rule_frame (TRUE, &equal);
  fail_unless (equal, "the window pushed a frame before its copy was done");
}

GST_END_TEST;

/* Control: the same frame pushed at once comes out wrong. Its consumer
 * reads device memory before the copy wrote it, which initcheck rightly
 * reports: left out under it (GST_PINNED_TEST_SYNC_WORK). */
GST_START_TEST (test_push_rule_control_pushed_at_once_is_wrong)
{
  gboolean equal = TRUE;

  if (!pinned_test_work_is_async ())
    return;
  push_rule_frame (FALSE, &equal);
  fail_if (equal, "cudadownload saw the frame although it was pushed before "
      "its copy was done: this suite could not see the hazard");
}

GST_END_TEST;

/* ---- the CUDA input is held until its copy is done ------------------- */

/* A CUDA pool of one buffer, as a decoder's small pool: it can hand the
 * buffer out again only once it is back. */
static GstBufferPool *
one_buffer_cuda_pool (GstPinnedContext * ctx, GstCaps * cuda_caps, gsize size)
{
  GstBufferPool *pool = gst_pinned_cuda_buffer_pool_new (ctx, cuda_caps, 1);
  GstStructure *config;

  fail_unless (pool != NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, cuda_caps, size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* GStreamer's host write map of CUDA memory first copies the device bytes
 * out, which in a fresh buffer nothing wrote (initcheck's error): zeroed
 * on the device first. */
static void
zero_cuda_buffer (GstPinnedContext * ctx, GstBuffer * buffer)
{
  guint i;

  fail_unless (gst_pinned_context_push (ctx, NULL));
  for (i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstMapInfo map;

    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
    fail_unless_equals_int (cudaMemset (map.data, 0, map.size), cudaSuccess);
    gst_memory_unmap (mem, &map);
  }
  fail_unless_equals_int (cudaDeviceSynchronize (), cudaSuccess);
  gst_pinned_context_pop (ctx);
}

/* Whether @pool's buffer is back now (the caller's GPU work is held back:
 * it must not be). */
static gboolean
cuda_buffer_back (GstBufferPool * pool)
{
  GstBufferPoolAcquireParams params = { 0, };
  GstBuffer *again = NULL;
  GstFlowReturn ret;

  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  ret = gst_buffer_pool_acquire_buffer (pool, &again, &params);
  if (ret == GST_FLOW_OK) {
    gst_buffer_unref (again);
    return TRUE;
  }
  /* Empty, not flushing or failed. */
  fail_unless_equals_int (ret, GST_FLOW_EOS);
  return FALSE;
}

/* Once its GPU work is done, the buffer comes back without anyone asking. */
static void
assert_cuda_buffer_comes_back (GstBufferPool * pool)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  gboolean back;

  while (!(back = cuda_buffer_back (pool)) &&
      g_get_monotonic_time () < deadline)
    g_usleep (1000);
  fail_unless (back, "the CUDA input was never released");
}

GST_START_TEST (test_cuda_input_held_until_copied)
{
  const Conf *c = &confs[0];
  GstHarness *h = gst_harness_new ("pinneddownload");
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstBufferPool *pool;
  GstBuffer *cuda_buf, *out;
  GstBuffer *in = gst_buffer_new_allocate (NULL, info.size, NULL);

  gst_harness_set_caps (h, gst_caps_ref (cuda_caps), gst_caps_ref (caps));
  pool = one_buffer_cuda_pool (context_of (h, "pinneddownload"), cuda_caps,
      info.size);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);
  pinned_test_fill_frame (in, &info, 5);
  zero_cuda_buffer (context_of (h, "pinneddownload"), cuda_buf);
  {
    /* Fill the CUDA frame from the host (staging, synchronous). */
    GstVideoFrame fi, fo;

    fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &info, cuda_buf, GST_MAP_WRITE));
    fail_unless (gst_video_frame_copy (&fo, &fi));
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fi);
  }

  pinned_test_delay_stream (gst_pinned_base_transform_get_stream
      (GST_PINNED_BASE_TRANSFORM (h->element)), DELAY_MS);
  fail_unless_equals_int (gst_harness_push (h, cuda_buf), GST_FLOW_OK);

  /* The copy still waits: the input is not back in its pool. */
  fail_if (cuda_buffer_back (pool),
      "the CUDA input went back to its pool while its copy was pending");

  out = gst_harness_pull (h);
  fail_unless (pinned_test_frames_equal (in, out, &info));
  assert_cuda_buffer_comes_back (pool);

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
}

GST_END_TEST;

/* ---- GPU filters on CUDA memory --------------------------------------- */

/* pinnedconvert on a CUDA frame gives what it gives on the same frame in
 * its own device memory (which the filters suite checks against the CPU
 * reference), odd size: the frame is read in its CUDA layout. */
GST_START_TEST (test_convert_takes_cuda_memory)
{
  const gchar *out_caps = "video/x-raw,format=RGBA,width=317,height=239,"
      "framerate=30/1";
  const gchar *in_caps = "video/x-raw,format=NV12,width=317,height=239,"
      "colorimetry=bt709,framerate=30/1";
  GstHarness *hc = gst_harness_new_parse ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! pinnedconvert ! pinneddownload");
  GstHarness *hp = gst_harness_new_parse ("pinnedupload ! pinnedconvert ! "
      "pinneddownload");
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *a, *b;
  GstPad *pad;
  GstCaps *caps;

  pinned_test_emulate_kernels ();
  caps = gst_caps_from_string (in_caps);
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (out_caps);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  gst_caps_unref (caps);
  gst_harness_set_caps_str (hc, in_caps, out_caps);
  gst_harness_set_caps_str (hp, in_caps, out_caps);

  in = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  pinned_test_fill_frame (in, &in_info, 99);
  a = gst_harness_push_and_pull (hc, gst_buffer_copy (in));
  b = gst_harness_push_and_pull (hp, gst_buffer_copy (in));
  fail_unless (a && b);
  fail_unless (pinned_test_frames_equal (a, b, &out_info),
      "pinnedconvert on CUDA memory differs from pinnedconvert on its own "
      "device memory");
  fail_if (pinned_test_all_bytes (a, 0xa5), "nothing was converted");

  pad = gst_element_get_static_pad (element_of (hc, "pinnedconvert"), "sink");
  caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_pinned_caps_is_cuda (caps), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);

  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  gst_harness_teardown (hc);
  gst_harness_teardown (hp);
}

GST_END_TEST;

/* The CUDA input of a filter goes back to its pool only once the kernel
 * that reads it is done: an upstream CUDA pool (nvcodec's, on 1.22) would
 * hand it out to be written again, and nothing orders that writer after
 * our stream. */
GST_START_TEST (test_filter_cuda_input_held_until_read)
{
  const Conf *c = &confs[0];
  GstHarness *h = gst_harness_new_parse ("pinnedconvert ! pinneddownload");
  GstElement *convert;
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstBufferPool *pool;
  GstBuffer *cuda_buf, *out;

  pinned_test_emulate_kernels ();
  gst_harness_set_caps (h, gst_caps_ref (cuda_caps),
      gst_caps_from_string ("video/x-raw,format=RGBA"));
  convert = element_of (h, "pinnedconvert");
  pool = one_buffer_cuda_pool (context_of (h, "pinnedconvert"), cuda_caps,
      info.size);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);
  zero_cuda_buffer (context_of (h, "pinnedconvert"), cuda_buf);

  pinned_test_delay_stream (gst_pinned_base_transform_get_stream
      (GST_PINNED_BASE_TRANSFORM (convert)), DELAY_MS);
  fail_unless_equals_int (gst_harness_push (h, cuda_buf), GST_FLOW_OK);

  /* The kernel still waits: the input is not back in its pool. */
  fail_if (cuda_buffer_back (pool),
      "the CUDA input went back to its pool while the filter read it");

  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  assert_cuda_buffer_comes_back (pool);

  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
}

GST_END_TEST;

/* An in-place filter on CUDA memory runs on a copy in its own pool: the
 * frame comes out unchanged, the CUDA buffer is not written. */
GST_START_TEST (test_in_place_filter_takes_cuda_memory)
{
  pinned_test_emulate_kernels ();
  check_chain ("cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "pinnedbusy busy-us=10 ! pinneddownload", &confs[2], 3);
}

GST_END_TEST;

/* ---- CUDA memory that carries a stream (GStreamer 1.24 and later) ----- */

typedef gpointer (*GetStreamFunc) (GstCudaMemory * mem);
typedef gpointer (*NewStreamFunc) (GstCudaContext * context);
typedef gpointer (*StreamHandleFunc) (gpointer stream);
typedef void (*SetStreamFunc) (GstMemory * mem, gpointer stream);

#define CUDA_MEMORY_NEED_SYNC (GST_MEMORY_FLAG_LAST << 2)

/* The stream @mem carries: the one of its pool (1.24), or one that the
 * stand-in of the 1.24 API attaches (1.22 underneath). */
static cudaStream_t
memory_stream (GstMemory * mem)
{
  const gchar *name = g_getenv ("GST_PINNED_CUDA_LIBRARY");
  GModule *module = g_module_open (name ? name : "libgstcuda-1.0.so.0",
      G_MODULE_BIND_LAZY);
  GetStreamFunc get_stream = NULL;
  NewStreamFunc new_stream = NULL;
  StreamHandleFunc handle = NULL;
  SetStreamFunc set_stream = NULL;
  gpointer stream;

  fail_unless (module != NULL);
  fail_unless (g_module_symbol (module, "gst_cuda_memory_get_stream",
          (gpointer *) & get_stream));
  fail_unless (g_module_symbol (module, "gst_cuda_stream_get_handle",
          (gpointer *) & handle));
  stream = get_stream (GST_CUDA_MEMORY_CAST (mem));
  if (stream == NULL) {
    fail_unless (g_module_symbol (module, "fakegstcuda_memory_set_stream",
            (gpointer *) & set_stream));
    fail_unless (g_module_symbol (module, "gst_cuda_stream_new",
            (gpointer *) & new_stream));
    stream = new_stream (GST_CUDA_MEMORY_CAST (mem)->context);
    set_stream (mem, stream);
    gst_mini_object_unref (stream);
    stream = get_stream (GST_CUDA_MEMORY_CAST (mem));
  }
  fail_unless (stream != NULL);
  return (cudaStream_t) handle (stream);
}

/* A page-locked frame in the layout of @cuda_buf's memory, filled. */
static GstBuffer *
frame_in_cuda_layout (GstBuffer * cuda_buf, GstAllocator * host,
    const GstVideoInfo * info)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory
      (cuda_buf, 0));
  GstBuffer *buf = gst_buffer_new_allocate (host, cmem->mem.size, NULL);

  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      cmem->info.offset, cmem->info.stride);
  pinned_test_fill_frame (buf, info, 77);
  return buf;
}

static gpointer
device_pointer (GstBuffer * cuda_buf)
{
  GstMemory *mem = gst_buffer_peek_memory (cuda_buf, 0);
  GstMapInfo map;
  gpointer ptr;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
  ptr = map.data;
  gst_memory_unmap (mem, &map);
  return ptr;
}

/* We write CUDA memory that carries a stream: the frame carries our copy
 * (its stream waits for it), so it may be pushed at once, and a consumer
 * that works on that stream sees the finished frame although our copy was
 * held back. @attach FALSE is the control: the frame pushed as if it were
 * complete comes out wrong. */
static gboolean
write_carried_frame (gboolean attach)
{
  const Conf *c = &confs[0];
  GstPinnedContext *ctx = gst_pinned_context_new (0, NULL);
  GstPinnedStream *stream = gst_pinned_stream_new (ctx, NULL);
  GstAllocator *views = gst_pinned_device_allocator_new (ctx);
  GstAllocator *host = gst_pinned_host_allocator_new (ctx);
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstBufferPool *pool = gst_pinned_cuda_buffer_pool_new (ctx, cuda_caps, 1);
  GstBuffer *cuda_buf, *in, *view, *seen;
  gboolean attached = FALSE, equal;
  cudaStream_t consumer;
  GstMemory *mem;
  GstMapInfo map;

  fail_unless (pool && gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);
  mem = gst_buffer_peek_memory (cuda_buf, 0);
  consumer = memory_stream (mem);

  in = frame_in_cuda_layout (cuda_buf, host, &info);
  view = gst_pinned_cuda_buffer_wrap (cuda_buf, &info, views, GST_MAP_WRITE,
      NULL);
  fail_unless (view != NULL);
  pinned_test_delay_stream (stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (stream, &info, in, view, NULL));
  if (attach) {
    fail_unless (gst_pinned_cuda_buffer_attach (cuda_buf, view, &attached,
            NULL));
    fail_unless (attached, "CUDA memory with a stream was not attached");
    fail_unless (GST_MEMORY_FLAG_IS_SET (mem, CUDA_MEMORY_NEED_SYNC));
  }

  /* The consumer: a download on the memory's stream, at once. */
  seen = gst_buffer_new_allocate (NULL, mem->size, NULL);
  gst_buffer_add_video_meta_full (seen, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_N_PLANES (&info),
      GST_CUDA_MEMORY_CAST (mem)->info.offset,
      GST_CUDA_MEMORY_CAST (mem)->info.stride);
  fail_unless (gst_buffer_map (seen, &map, GST_MAP_WRITE));
  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaMemcpyAsync (map.data, device_pointer
          (cuda_buf), mem->size, cudaMemcpyDeviceToHost, consumer),
      cudaSuccess);
  fail_unless_equals_int (cudaStreamSynchronize (consumer), cudaSuccess);
  gst_pinned_context_pop (ctx);
  gst_buffer_unmap (seen, &map);
  equal = pinned_test_frames_equal (in, seen, &info);

  gst_buffer_unref (seen);
  gst_buffer_unref (view);
  gst_buffer_unref (in);
  gst_buffer_unref (cuda_buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
  gst_object_unref (host);
  gst_object_unref (views);
  gst_pinned_stream_unref (stream);
  gst_object_unref (ctx);
  return equal;
}

GST_START_TEST (test_streams_write_carried)
{
  fail_unless (write_carried_frame (TRUE),
      "a consumer on the memory's stream saw the frame before our copy");
}

GST_END_TEST;

GST_START_TEST (test_streams_write_control)
{
  if (pinned_test_work_is_async ())
    fail_if (write_carried_frame (FALSE), "the consumer saw the frame without "
        "the stream waiting for our copy: this suite could not see the hazard");
}

GST_END_TEST;

/* We read CUDA memory whose writer's work on its stream is pending
 * (NEED_SYNC): pinneddownload's stream waits for that stream on the GPU.
 * @need_sync FALSE is the control: taken as complete, it comes out wrong. */
static gboolean
read_pending_frame (gboolean need_sync)
{
  const Conf *c = &confs[0];
  GstHarness *h = gst_harness_new ("pinneddownload");
  GstVideoInfo info;
  GstCaps *caps = caps_of (c, &info), *cuda_caps = cuda_caps_of (&info);
  GstPinnedContext *ctx;
  GstAllocator *host;
  GstBufferPool *pool;
  GstBuffer *cuda_buf, *in, *out;
  GstPinnedStream *producer;
  GstMemory *mem;
  GstMapInfo map;
  gboolean equal;

  gst_harness_set_caps (h, gst_caps_ref (cuda_caps), gst_caps_ref (caps));
  ctx = context_of (h, "pinneddownload");
  host = gst_pinned_host_allocator_new (ctx);
  pool = gst_pinned_cuda_buffer_pool_new (ctx, cuda_caps, 1);
  fail_unless (pool && gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &cuda_buf,
          NULL), GST_FLOW_OK);
  mem = gst_buffer_peek_memory (cuda_buf, 0);

  /* The producer writes the frame on the memory's stream, late. */
  producer = gst_pinned_stream_new_wrapped (ctx, memory_stream (mem));
  in = frame_in_cuda_layout (cuda_buf, host, &info);
  pinned_test_delay_stream (producer, DELAY_MS);
  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  fail_unless (gst_pinned_context_push (ctx, NULL));
  fail_unless_equals_int (cudaMemcpyAsync (device_pointer (cuda_buf),
          map.data, mem->size, cudaMemcpyHostToDevice,
          gst_pinned_stream_get_handle (producer)), cudaSuccess);
  gst_pinned_context_pop (ctx);
  gst_buffer_unmap (in, &map);
  if (need_sync)
    GST_MINI_OBJECT_FLAG_SET (mem, CUDA_MEMORY_NEED_SYNC);

  out = gst_harness_push_and_pull (h, cuda_buf);
  fail_unless (out != NULL);
  equal = pinned_test_frames_equal (in, out, &info);

  /* The producer's copy reads @in: done before it goes. */
  fail_unless (gst_pinned_stream_synchronize (producer, NULL));
  gst_pinned_stream_unref (producer);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (host);
  gst_caps_unref (caps);
  gst_caps_unref (cuda_caps);
  return equal;
}

GST_START_TEST (test_streams_read_ordered)
{
  fail_unless (read_pending_frame (TRUE),
      "pinneddownload read the frame before its writer's stream was done");
}

GST_END_TEST;

GST_START_TEST (test_streams_read_control)
{
  if (pinned_test_work_is_async ())
    fail_if (read_pending_frame (FALSE), "pinneddownload saw the frame "
        "without waiting for its writer: this suite could not see the hazard");
}

GST_END_TEST;

static Suite *
interop_suite (void)
{
  Suite *s = suite_create ("interop");
  TCase *tc = tcase_create ("interop");

  if (gst_element_factory_find ("cudaupload") == NULL ||
      gst_element_factory_find ("cudadownload") == NULL) {
    if (!pinned_test_is_fake ()) {
      g_print ("SKIP: nvcodec's cudaupload/cudadownload are not available\n");
      exit (PINNED_TEST_SKIP);
    }
    g_printerr ("nvcodec's cudaupload/cudadownload did not register on the "
        "stand-ins (gstreamer1.0-plugins-bad, libcuda.so.1 and "
        "libnvcuvid.so.1 of tests/fakecuda)\n");
    exit (1);
  }

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_memory_into_pinneddownload);
  tcase_add_test (tc, test_pinnedupload_into_cuda_memory);
  tcase_add_test (tc, test_cuda_memory_both_ways);
  tcase_add_test (tc, test_cuda_memory_not_batched);
  tcase_add_test (tc, test_caps_preference);
  tcase_add_test (tc, test_context_adopted_download);
  tcase_add_test (tc, test_context_adopted_from_neighbour_alone);
  tcase_add_test (tc, test_context_joined_download);
  tcase_add_test (tc, test_context_adopted_upload);
  tcase_add_test (tc, test_context_joined_upload);
  tcase_add_test (tc, test_context_announced_and_answered);
  tcase_add_test (tc, test_context_announced_to_other_branch);
  tcase_add_test (tc, test_cuda_input_takes_upstream_context);
  tcase_add_test (tc, test_cuda_input_takes_upstream_context_at_caps);
  tcase_add_test (tc, test_other_device_is_an_error);
  tcase_add_test (tc, test_push_rule_consumer_sees_finished_frames);
  tcase_add_test (tc, test_other_context_same_device_is_an_error);
  tcase_add_test (tc, test_primary_wrapper_releases_its_retain);
  tcase_add_test (tc, test_batch_before_renegotiation_to_cuda_memory);
  tcase_add_test (tc, test_push_rule_events_stay_in_order);
  tcase_add_test (tc, test_push_rule_eos_after_the_last_frame);
  tcase_add_test (tc, test_push_rule_drain_query_after_frames);
  tcase_add_test (tc, test_push_rule_flush_empties_window);
  tcase_add_test (tc, test_push_rule_window);
  tcase_add_test (tc, test_push_rule_control_pushed_at_once_is_wrong);
  tcase_add_test (tc, test_cuda_input_held_until_copied);
  tcase_add_test (tc, test_convert_takes_cuda_memory);
  tcase_add_test (tc, test_filter_cuda_input_held_until_read);
  tcase_add_test (tc, test_in_place_filter_takes_cuda_memory);
  /* The 1.22 push rule's window; memory that carries a stream is pushed
   * at once, and its consumer meets the error. */
  if (!gst_pinned_cuda_has_streams ())
    tcase_add_test (tc, test_push_rule_failed_copy_is_the_upload_error);

  /* Where libgstcuda lets CUDA memory carry a stream: 1.24, or the
   * stand-in of its API (suite interop-streams). */
  if (gst_pinned_cuda_has_streams ()) {
    tcase_add_test (tc, test_streams_write_carried);
    tcase_add_test (tc, test_streams_write_control);
    tcase_add_test (tc, test_streams_read_ordered);
    tcase_add_test (tc, test_streams_read_control);
  }

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, interop_suite);
}
