/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A stand-in for NVIDIA's run-time compiler, built as libnvrtc.so next to
 * the driver stand-in, which libgstcuda finds first (g_module_open
 * ("libnvrtc.so"), gstcudanvrtc.cpp). From 1.26 nvcodec compiles its
 * kernels as it registers; the stand-in runs no GPU code, so this one
 * creates programs and compiles none of them, with a log that says so:
 * nvcodec then registers no converter, only what the 'fake' suite runs. */

#include <glib.h>
#include <string.h>

typedef int nvrtcResult;
typedef struct _Program *nvrtcProgram;

#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_INVALID_INPUT 3
#define NVRTC_ERROR_INVALID_PROGRAM 4
#define NVRTC_ERROR_COMPILATION 6

#define LOG "the CUDA stand-in compiles no kernels"

nvrtcResult nvrtcCreateProgram (nvrtcProgram * prog, const char *src,
    const char *name, int n_headers, const char *const *headers,
    const char *const *include_names);
nvrtcResult nvrtcDestroyProgram (nvrtcProgram * prog);
nvrtcResult nvrtcCompileProgram (nvrtcProgram prog, int n_options,
    const char *const *options);
nvrtcResult nvrtcGetPTXSize (nvrtcProgram prog, size_t *size);
nvrtcResult nvrtcGetPTX (nvrtcProgram prog, char *ptx);
nvrtcResult nvrtcGetProgramLogSize (nvrtcProgram prog, size_t *size);
nvrtcResult nvrtcGetProgramLog (nvrtcProgram prog, char *log);

nvrtcResult
nvrtcCreateProgram (nvrtcProgram * prog, const char *src, const char *name,
    int n_headers, const char *const *headers, const char *const *include_names)
{
  if (prog == NULL || src == NULL)
    return NVRTC_ERROR_INVALID_INPUT;
  *prog = g_malloc0 (1);
  return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcDestroyProgram (nvrtcProgram * prog)
{
  if (prog == NULL || *prog == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  g_free (*prog);
  *prog = NULL;
  return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcCompileProgram (nvrtcProgram prog, int n_options,
    const char *const *options)
{
  return prog ? NVRTC_ERROR_COMPILATION : NVRTC_ERROR_INVALID_PROGRAM;
}

/* Nothing was compiled: no PTX. */
nvrtcResult
nvrtcGetPTXSize (nvrtcProgram prog, size_t *size)
{
  return NVRTC_ERROR_INVALID_PROGRAM;
}

nvrtcResult
nvrtcGetPTX (nvrtcProgram prog, char *ptx)
{
  return NVRTC_ERROR_INVALID_PROGRAM;
}

nvrtcResult
nvrtcGetProgramLogSize (nvrtcProgram prog, size_t *size)
{
  if (prog == NULL || size == NULL)
    return NVRTC_ERROR_INVALID_INPUT;
  *size = sizeof (LOG);
  return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcGetProgramLog (nvrtcProgram prog, char *log)
{
  if (prog == NULL || log == NULL)
    return NVRTC_ERROR_INVALID_INPUT;
  memcpy (log, LOG, sizeof (LOG));
  return NVRTC_SUCCESS;
}
