/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A stand-in for NVIDIA's video decoder library, built as libnvcuvid.so.1
 * next to the driver stand-in. GStreamer's nvcodec plugin registers its
 * elements, cudaupload and cudadownload included, only where the decoder or
 * the encoder library loads (sys/nvcodec/plugin.c, 1.22). This one loads
 * and supports no codec: cuvidGetDecoderCaps() says so, and nvcodec then
 * registers no decoder, only the CUDA elements the 'fake' suite runs. */

#include <glib.h>

typedef int CUresult;

#define CUDA_ERROR_NOT_SUPPORTED 801

CUresult cuvidCtxLockCreate (void **lock, void *ctx);
CUresult cuvidCtxLockDestroy (void *lock);
CUresult cuvidCtxLock (void *lock, unsigned int flags);
CUresult cuvidCtxUnlock (void *lock, unsigned int flags);
CUresult cuvidCreateDecoder (void **decoder, void *info);
CUresult cuvidDestroyDecoder (void *decoder);
CUresult cuvidDecodePicture (void *decoder, void *params);
CUresult cuvidCreateVideoParser (void **parser, void *params);
CUresult cuvidParseVideoData (void *parser, void *packet);
CUresult cuvidDestroyVideoParser (void *parser);
CUresult cuvidMapVideoFrame64 (void *decoder, int index, guintptr * ptr,
    unsigned int *pitch, void *params);
CUresult cuvidUnmapVideoFrame64 (void *decoder, guintptr ptr);
CUresult cuvidGetDecoderCaps (void *caps);
/* (the 64-bit names are what the library exports on 64-bit Linux) */

CUresult
cuvidCtxLockCreate (void **lock, void *ctx)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidCtxLockDestroy (void *lock)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidCtxLock (void *lock, unsigned int flags)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidCtxUnlock (void *lock, unsigned int flags)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidCreateDecoder (void **decoder, void *info)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidDestroyDecoder (void *decoder)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidDecodePicture (void *decoder, void *params)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidCreateVideoParser (void **parser, void *params)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidParseVideoData (void *parser, void *packet)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidDestroyVideoParser (void *parser)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidMapVideoFrame64 (void *decoder, int index, guintptr * ptr,
    unsigned int *pitch, void *params)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult
cuvidUnmapVideoFrame64 (void *decoder, guintptr ptr)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* No codec: nvcodec registers no decoder on the stand-in. */
CUresult
cuvidGetDecoderCaps (void *caps)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}
