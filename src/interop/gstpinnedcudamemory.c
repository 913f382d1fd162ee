/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedcudamemory
 * @title: GstCudaMemory interop
 * @short_description: nvcodec's CUDA memory in gst-pinned's transfers
 *
 * `video/x-raw(memory:CUDAMemory)` is the device memory of GStreamer's
 * nvcodec elements (#GstCudaMemory, device memory with a driver-chosen
 * pitch). gst-pinned works on it through a view:
 * gst_pinned_cuda_buffer_wrap() makes a buffer of gst-pinned device memory
 * over the same device pointers, with the CUDA memory's own layout, on
 * which the transfers, filters and fence rules of gst-pinned apply as to
 * its own memory. The view holds the CUDA buffer, so that its pool does not
 * hand it out again before the GPU work on the view is done.
 *
 * Synchronisation differs between GStreamer versions:
 *
 * - Up to 1.22, CUDA memory carries no synchronisation: whoever receives
 *   it assumes that it is complete, and reads it at once on a stream of
 *   its own. gst-pinned therefore pushes CUDA memory it wrote only once
 *   the copy is done (#GstPinnedWindow keeps several copies in flight
 *   meanwhile), and takes CUDA memory it receives as complete.
 * - From 1.24, CUDA memory can carry a stream (gst_cuda_memory_get_stream())
 *   and a flag that work on it is pending (NEED_SYNC). gst-pinned then
 *   orders its own stream after that stream on the GPU when it reads, and
 *   when it writes makes the memory's stream wait for its copy and sets the
 *   flag: such memory is pushed at once (gst_pinned_cuda_buffer_attach()).
 *
 * One binary serves both: it links only the 1.22 API of libgstcuda-1.0 and
 * looks up the 1.24 calls at run time. Only in builds with the cuda-interop
 * option.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gmodule.h>
#include <gst/cuda/gstcudabufferpool.h>

#include "sync/gstpinnedfence-private.h"
#include "core/gstpinnedenv-private.h"
#include "gst/pinned/gstpinnedcudamemory.h"
#include "gst/pinned/gstpinnedcudacontext.h"
#include "gst/pinned/gstpinneddevicememory.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_cuda_memory_debug, "pinnedcudamemory",
    "gst-pinned GstCudaMemory interop");
#define GST_CAT_DEFAULT gst_pinned_cuda_memory_debug

/* GST_CUDA_MEMORY_TRANSFER_NEED_SYNC of GStreamer 1.24: work on the memory
 * was enqueued on its stream and may still run. */
#define CUDA_MEMORY_NEED_SYNC (GST_MEMORY_FLAG_LAST << 2)

/* The stream API of libgstcuda 1.24 (GstCudaStream is a mini object). The
 * same soname serves 1.22, which lacks it: looked up, never linked. */
typedef struct
{
  gpointer (*memory_get_stream) (GstCudaMemory * mem);
  gpointer (*stream_new) (GstCudaContext * context);
  gpointer (*stream_get_handle) (gpointer stream);
  void (*pool_config_set_stream) (GstStructure * config, gpointer stream);
} StreamApi;

static gpointer
lookup_stream_api (gpointer data)
{
  static StreamApi api;
  const gchar *name = gst_pinned_env_get ("GST_PINNED_CUDA_LIBRARY");
  GModule *module;

  ensure_debug_category ();

  /* GST_PINNED_CUDA_LIBRARY names another library to look them up in (a
   * libgstcuda-1.0 of another GStreamer installation; the tests' stand-in
   * of the 1.24 API). */
  if (name == NULL)
    name = "libgstcuda-1.0.so.0";
  module = g_module_open (name, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module && g_module_symbol (module, "gst_cuda_memory_get_stream",
          (gpointer *) & api.memory_get_stream) &&
      g_module_symbol (module, "gst_cuda_stream_new",
          (gpointer *) & api.stream_new) &&
      g_module_symbol (module, "gst_cuda_stream_get_handle",
          (gpointer *) & api.stream_get_handle) &&
      g_module_symbol (module, "gst_buffer_pool_config_set_cuda_stream",
          (gpointer *) & api.pool_config_set_stream)) {
    /* Kept open: the library stays loaded as long as we are. */
    GST_INFO ("%s has CUDA streams (1.24 or later): CUDA memory carries the "
        "stream of its writer", name);
    return &api;
  }

  GST_INFO ("libgstcuda without CUDA streams (1.22): CUDA memory is "
      "complete when pushed");
  if (module)
    g_module_close (module);
  return NULL;
}

static const StreamApi *
stream_api (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, lookup_stream_api, NULL);
}

/**
 * gst_pinned_cuda_has_streams:
 *
 * Returns: %TRUE where the libgstcuda-1.0 in use (1.24 or later) lets CUDA
 *   memory carry the stream of its writer, so that a consumer can wait for
 *   it; %FALSE where CUDA memory must be complete when it is pushed (1.22)
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_has_streams (void)
{
  return stream_api () != NULL;
}

/**
 * gst_pinned_cuda_caps:
 * @caps: video caps
 *
 * Returns: (transfer full): @caps with the `memory:CUDAMemory` feature, in
 *   the formats #GstCudaMemory can hold
 *
 * Since: 0.1
 */
GstCaps *
gst_pinned_cuda_caps (GstCaps * caps)
{
  static GstStaticCaps cuda_caps = GST_STATIC_CAPS (GST_PINNED_CUDA_CAPS);
  GstCaps *templ = gst_static_caps_get (&cuda_caps);
  GstCaps *tmp, *ret;
  guint i;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  if (gst_caps_is_any (caps))
    return templ;

  tmp = gst_caps_copy (caps);
  for (i = 0; i < gst_caps_get_size (tmp); i++)
    gst_caps_set_features (tmp, i,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  ret = gst_caps_intersect_full (tmp, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmp);
  gst_caps_unref (templ);

  return ret;
}

/**
 * gst_pinned_caps_is_cuda:
 * @caps: caps
 *
 * Returns: %TRUE when a structure of @caps has the `memory:CUDAMemory`
 *   feature
 *
 * Since: 0.1
 */
gboolean
gst_pinned_caps_is_cuda (GstCaps * caps)
{
  guint i;

  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      return TRUE;
  }
  return FALSE;
}

/**
 * gst_pinned_is_cuda_buffer:
 * @buffer: a #GstBuffer
 *
 * Returns: %TRUE when the memories of @buffer are #GstCudaMemory
 *
 * Since: 0.1
 */
gboolean
gst_pinned_is_cuda_buffer (GstBuffer * buffer)
{
  GstMemory *mem;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);

  if (gst_buffer_n_memory (buffer) == 0)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  /* Asked for every buffer a download takes: our own memory, which is never
   * GstCudaMemory, is told without a type check. */
  return !gst_is_pinned_memory (mem) && gst_is_cuda_memory (mem);
}

/* Different devices, or the same device in another CUDA context (elements
 * that did not share one): the device pointers are not valid in ours. */
static gboolean
check_context (GstCudaMemory * cmem, GstPinnedContext * context,
    GError ** error)
{
  guint device = 0;

  if (gst_cuda_context_get_handle (cmem->context) ==
      gst_pinned_context_get_handle (context))
    return TRUE;

  g_object_get (cmem->context, "cuda-device-id", &device, NULL);
  if ((gint) device != gst_pinned_context_get_device_id (context))
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The CUDA memory is on device %u, this element works on device %d: "
        "give the elements one device (device-id, cuda-device-id)", device,
        gst_pinned_context_get_device_id (context));
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The CUDA memory belongs to another CUDA context of device %u than "
        "this element's: the elements did not share one context "
        "(gst.cuda.context)", device);
  return FALSE;
}

/* 1.24: the memory's stream may still work on it. Its fence becomes the
 * view's writer, so that our stream waits for it on the GPU. */
static gboolean
order_after_memory_stream (GstPinnedMemory * view, GstCudaMemory * cmem,
    GstMapFlags access, GError ** error)
{
  const StreamApi *api = stream_api ();
  GstPinnedStream *stream;
  GstPinnedFence *fence;
  gpointer cuda_stream;

  if (api == NULL || (cuda_stream = api->memory_get_stream (cmem)) == NULL)
    return TRUE;
  if (!(access & GST_MAP_WRITE) &&
      !GST_MEMORY_FLAG_IS_SET (cmem, CUDA_MEMORY_NEED_SYNC))
    return TRUE;

  stream = gst_pinned_stream_new_wrapped (view->context,
      api->stream_get_handle (cuda_stream));
  fence = gst_pinned_stream_record_fence (stream, error);
  gst_pinned_stream_unref (stream);
  if (fence == NULL)
    return FALSE;

  gst_pinned_memory_add_fence (view, fence, GST_MAP_WRITE);
  gst_pinned_fence_unref (fence);
  return TRUE;
}

/**
 * gst_pinned_cuda_buffer_wrap:
 * @buffer: a buffer of #GstCudaMemory
 * @info: the video info of @buffer, for its layout when it has neither a
 *   #GstVideoMeta nor a single memory
 * @allocator: a #GstPinnedDeviceAllocator of the context to work in, which
 *   must be the CUDA memory's
 * @access: %GST_MAP_READ to read @buffer, %GST_MAP_WRITE to write it
 * @error: (out) (optional): why it cannot be used: another device or
 *   CUDA context, memory that is not CUDA memory
 *
 * Makes a view of @buffer in gst-pinned device memory: the same device
 * pointers, @buffer's layout in a #GstVideoMeta. Transfers and filters
 * record their fences on the view; the view holds @buffer until every
 * fence of it has signalled and it is freed.
 *
 * Returns: (transfer full) (nullable): the view
 *
 * Since: 0.1
 */
GstBuffer *
gst_pinned_cuda_buffer_wrap (GstBuffer * buffer, const GstVideoInfo * info,
    GstAllocator * allocator, GstMapFlags access, GError ** error)
{
  GstPinnedContext *context;
  GstVideoMeta *meta;
  GstCudaMemory *cmem = NULL;
  GstBuffer *view;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0, };
  guint i, n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (GST_IS_PINNED_DEVICE_ALLOCATOR (allocator), NULL);

  ensure_debug_category ();
  context = gst_pinned_allocator_get_context (GST_PINNED_ALLOCATOR (allocator));
  n = gst_buffer_n_memory (buffer);
  view = gst_buffer_new ();

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstMemory *wrapped;
    GstMapInfo map;

    if (!gst_is_cuda_memory (mem)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "memory %u of %" GST_PTR_FORMAT " is no CUDA memory", i, buffer);
      goto failed;
    }
    cmem = GST_CUDA_MEMORY_CAST (mem);
    if (!check_context (cmem, context, error))
      goto failed;

    /* The device pointer, without a host wait. A CUDA map uploads what a
     * CPU map left in staging; a CUDA write marks the staging stale. */
    if (!gst_memory_map (mem, &map, GST_MAP_CUDA | (access &
                GST_MAP_READWRITE))) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
          "cannot map CUDA memory %u of %" GST_PTR_FORMAT, i, buffer);
      goto failed;
    }
    GST_LOG ("CUDA memory %u of %" GST_PTR_FORMAT ": device %p, %"
        G_GSIZE_FORMAT " bytes", i, buffer, map.data, mem->size);
    wrapped = gst_pinned_allocator_wrap (GST_PINNED_ALLOCATOR (allocator),
        map.data - mem->offset, mem->maxsize, mem->offset, mem->size,
        gst_buffer_ref (buffer), (GDestroyNotify) gst_buffer_unref);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (view, wrapped);

    if (!order_after_memory_stream ((GstPinnedMemory *) wrapped, cmem, access,
            error))
      goto failed;
  }

  /* The CUDA memory's own layout: the pitch the driver chose. */
  meta = gst_buffer_get_video_meta (buffer);
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    if (meta) {
      offsets[i] = meta->offset[i];
      strides[i] = meta->stride[i];
    } else if (n == 1) {
      offsets[i] = cmem->info.offset[i];
      strides[i] = cmem->info.stride[i];
    } else {
      offsets[i] = info->offset[i];
      strides[i] = info->stride[i];
    }
  }
  GST_LOG ("view of %" GST_PTR_FORMAT ": plane 1 at %" G_GSIZE_FORMAT
      ", strides %d %d (%s)", buffer, offsets[1], strides[0], strides[1],
      meta ? "its video meta" : n == 1 ? "its CUDA memory" : "the caps");
  gst_buffer_add_video_meta_full (view, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offsets,
      strides);

  return view;

failed:
  gst_buffer_unref (view);
  return NULL;
}

/**
 * gst_pinned_cuda_buffer_attach:
 * @buffer: a buffer of #GstCudaMemory
 * @wrapped: its view (gst_pinned_cuda_buffer_wrap()), after the GPU work
 *   that writes it was enqueued and fenced
 * @attached: (out): whether @buffer now carries that work
 * @error: (out) (optional): where to describe a failure
 *
 * Where CUDA memory carries a stream (GStreamer 1.24 and later, memory of a
 * pool configured with one), makes that stream wait for @wrapped's writer
 * on the GPU and flags the memory as needing a sync: a consumer that works
 * on the memory's stream or syncs the memory then sees the finished frame,
 * and @buffer may be pushed at once (@attached is %TRUE). Otherwise
 * (1.22) @attached is %FALSE: @buffer must be complete when pushed, see
 * #GstPinnedWindow.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_buffer_attach (GstBuffer * buffer, GstBuffer * wrapped,
    gboolean * attached, GError ** error)
{
  const StreamApi *api = stream_api ();
  GstPinnedContext *context;
  gpointer streams[16];
  guint i, n;
  gboolean ok = TRUE;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (wrapped), FALSE);
  g_return_val_if_fail (attached != NULL, FALSE);

  *attached = FALSE;
  n = gst_buffer_n_memory (buffer);
  if (api == NULL || n > G_N_ELEMENTS (streams) ||
      n != gst_buffer_n_memory (wrapped))
    return TRUE;

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (!gst_is_cuda_memory (mem) ||
        !(streams[i] = api->memory_get_stream (GST_CUDA_MEMORY_CAST (mem))))
      return TRUE;
  }

  context = ((GstPinnedMemory *) gst_buffer_peek_memory (wrapped, 0))->context;
  if (!gst_pinned_context_push (context, error))
    return FALSE;
  for (i = 0; i < n && ok; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstPinnedFence *fence = gst_pinned_memory_get_write_fence
        ((GstPinnedMemory *) gst_buffer_peek_memory (wrapped, i));

    if (fence) {
      ok = gst_pinned_cuda_result (cudaStreamWaitEvent ((cudaStream_t)
              api->stream_get_handle (streams[i]),
              gst_pinned_fence_get_cuda_event (fence), 0), error);
      gst_pinned_fence_unref (fence);
    }
    GST_MINI_OBJECT_FLAG_SET (mem, CUDA_MEMORY_NEED_SYNC);
  }
  gst_pinned_context_pop (context);

  *attached = ok;
  return ok;
}

/**
 * gst_pinned_cuda_buffer_pool_new:
 * @context: a #GstPinnedContext with a CUDA driver context
 * @caps: video caps
 * @min_buffers: how many buffers it allocates when activated
 *
 * A #GstCudaBufferPool of @context's CUDA context, configured for @caps
 * (with %GST_BUFFER_POOL_OPTION_VIDEO_META) and, where CUDA memory carries
 * streams (1.24), with a stream of its own, so that its memory can carry
 * the writer's work.
 *
 * Returns: (transfer full) (nullable): the configured, inactive pool
 *
 * Since: 0.1
 */
GstBufferPool *
gst_pinned_cuda_buffer_pool_new (GstPinnedContext * context, GstCaps * caps,
    guint min_buffers)
{
  GstCudaContext *cuda;
  const StreamApi *api = stream_api ();
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  gpointer stream;

  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), NULL);
  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  ensure_debug_category ();
  if (!gst_video_info_from_caps (&info, caps))
    return NULL;

  cuda = gst_pinned_context_get_cuda_context (context);
  if (cuda == NULL)
    return NULL;

  /* Registers the CUDA allocator the pool finds by name; nvcodec does it
   * when its plugin loads, which need not have happened. */
  gst_cuda_memory_init_once ();
  pool = gst_cuda_buffer_pool_new (cuda);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (api && (stream = api->stream_new (cuda))) {
    api->pool_config_set_stream (config, stream);
    gst_mini_object_unref (stream);
  }
  gst_object_unref (cuda);

  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING ("cannot configure a CUDA buffer pool for %" GST_PTR_FORMAT,
        caps);
    gst_object_unref (pool);
    return NULL;
  }

  return pool;
}

/**
 * gst_pinned_cuda_buffer_pool_is_usable:
 * @pool: (nullable): a buffer pool, as downstream proposes it
 * @context: a #GstPinnedContext
 *
 * Returns: %TRUE when @pool is a #GstCudaBufferPool of @context's CUDA
 *   context, whose memory gst-pinned can write
 *
 * Since: 0.1
 */
gboolean
gst_pinned_cuda_buffer_pool_is_usable (GstBufferPool * pool,
    GstPinnedContext * context)
{
  g_return_val_if_fail (GST_IS_PINNED_CONTEXT (context), FALSE);

  return pool && GST_IS_CUDA_BUFFER_POOL (pool) &&
      GST_CUDA_BUFFER_POOL (pool)->context &&
      gst_cuda_context_get_handle (GST_CUDA_BUFFER_POOL (pool)->context) ==
      gst_pinned_context_get_handle (context);
}
