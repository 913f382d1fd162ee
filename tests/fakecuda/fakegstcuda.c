/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A stand-in for the CUDA stream API that libgstcuda-1.0 gained in
 * GStreamer 1.24, on top of Debian's 1.22: the four calls gst-pinned looks
 * up at run time (gstpinnedcudamemory.c), for the tests of the path that
 * 1.22 cannot take. gst-pinned loads it instead of libgstcuda-1.0 when
 * GST_PINNED_CUDA_LIBRARY names it.
 *
 * A stream is a CUstream of a GstCudaContext, as in 1.24. Which stream a
 * GstCudaMemory carries, 1.24's allocator decides; 1.22's knows nothing of
 * streams, so a test attaches one with fakegstcuda_memory_set_stream().
 * Against 1.24's headers and later, which declare the API, it builds with
 * their types; its streams are still its own. */

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>

typedef struct
{
  GstMiniObject parent;
  GstCudaContext *context;
  CUstream handle;
} FakeStream;

GType fake_stream_get_type (void);
GST_DEFINE_MINI_OBJECT_TYPE (FakeStream, fake_stream);

#if GST_CHECK_VERSION (1, 24, 0)
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudastream.h>
typedef GstCudaStream Stream;
#else
/* 1.24's API */
typedef void Stream;
Stream *gst_cuda_stream_new (GstCudaContext * context);
CUstream gst_cuda_stream_get_handle (Stream * stream);
void gst_buffer_pool_config_set_cuda_stream (GstStructure * config,
    Stream * stream);
Stream *gst_cuda_memory_get_stream (GstCudaMemory * mem);
#endif

/* Control */
void fakegstcuda_memory_set_stream (GstMemory * mem, gpointer stream);

static GQuark
stream_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("FakeGstCudaMemoryStream");
  return quark;
}

static void
fake_stream_free (FakeStream * stream)
{
  if (gst_cuda_context_push (stream->context)) {
    CuStreamDestroy (stream->handle);
    gst_cuda_context_pop (NULL);
  }
  gst_object_unref (stream->context);
  g_free (stream);
}

Stream *
gst_cuda_stream_new (GstCudaContext * context)
{
  FakeStream *stream;
  CUstream handle;
  CUresult ret;

  if (!gst_cuda_context_push (context))
    return NULL;
  /* As 1.24: a blocking stream. */
  ret = CuStreamCreate (&handle, 0);
  gst_cuda_context_pop (NULL);
  if (ret != CUDA_SUCCESS)
    return NULL;

  stream = g_new0 (FakeStream, 1);
  gst_mini_object_init (GST_MINI_OBJECT_CAST (stream), 0,
      fake_stream_get_type (), NULL, NULL,
      (GstMiniObjectFreeFunction) fake_stream_free);
  stream->context = gst_object_ref (context);
  stream->handle = handle;

  return (Stream *) stream;
}

CUstream
gst_cuda_stream_get_handle (Stream * stream)
{
  return stream ? ((FakeStream *) stream)->handle : NULL;
}

void
gst_buffer_pool_config_set_cuda_stream (GstStructure * config, Stream * stream)
{
  gst_structure_set (config, "cuda-stream", fake_stream_get_type (), stream,
      NULL);
}

Stream *
gst_cuda_memory_get_stream (GstCudaMemory * mem)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      stream_quark ());
}

void
fakegstcuda_memory_set_stream (GstMemory * mem, gpointer stream)
{
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), stream_quark (),
      gst_mini_object_ref (stream), (GDestroyNotify) gst_mini_object_unref);
}
