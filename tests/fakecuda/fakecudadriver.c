/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A GPU-less stand-in for the CUDA driver library, built as libcuda.so.1
 * next to the runtime stand-in (libcudart.so.13) and found first through
 * LD_LIBRARY_PATH by the 'fake' suite. GStreamer's libgstcuda-1.0 opens
 * libcuda.so.1 with g_module_open() and resolves a fixed list of entry
 * points (gstcudaloader.c of 1.22; 1.24 added events and IPC, 1.26 plain
 * copies, memsets and limits, 1.28 the device's UUID); every one of them
 * is here, with the EGL calls a Jetson build of 1.26 and later loads, so
 * that nvcodec's own cudaupload and cudadownload run in CI under each.
 *
 * The driver calls are layered on the runtime stand-in's public API: a
 * device pointer from cuMemAllocPitch() is a cudaMalloc() allocation, a
 * CUstream is a cudaStream_t, copies are cudaMemcpy2DAsync(): device memory,
 * streams and events are the same objects for both libraries, and the
 * runtime's checks, delays and injected failures apply to driver calls too.
 *
 * Contexts: a per-thread stack, as in CUDA. A context names a device; making
 * it current makes its device the runtime's current device (that is what
 * the runtime does with a current driver context), and the context the
 * runtime's: device memory belongs to the context it was allocated in, and
 * a copy in another context that names it fails, as a device pointer is
 * valid in its own context only (the runtime's primary context is the
 * driver's primary context). The primary context of
 * each device is one object, retained and released with a count. Calls that
 * need a context fail with CUDA_ERROR_INVALID_CONTEXT when none is current.
 * Graphics interop, modules, kernels and handles for other processes (IPC)
 * are not supported (they fail with CUDA_ERROR_NOT_SUPPORTED).
 *
 * Control, through dlsym() as for the runtime stand-in:
 * fakecuda_driver_call_count() counts calls by name,
 * fakecuda_driver_context_device() tells a context's device, and
 * fakecuda_driver_primary_retained() how many retains of a device's primary
 * context are outstanding (cuDevicePrimaryCtxRetain less
 * cuDevicePrimaryCtxRelease). */

#include <glib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "fakecuda.h"

/* The driver API's types, as cuda.h declares them (cuda.h is not included:
 * it renames the entry points with macros, and these are the exact names
 * libgstcuda resolves). */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUmemorytype;
typedef int CUlimit;
/* CUuuid: the runtime's headers have it (driver_types.h) */
typedef struct
{
  char reserved[64];
} CUipcHandle;

typedef struct
{
  size_t srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_UNSUPPORTED_LIMIT 215
#define CUDA_ERROR_PEER_ACCESS_UNSUPPORTED 217
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_ILLEGAL_ADDRESS 700
#define CUDA_ERROR_LAUNCH_FAILED 719
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_UNKNOWN 999

#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_MEMORYTYPE_UNIFIED 4

#define CU_STREAM_NON_BLOCKING 1

#define CU_EVENT_BLOCKING_SYNC 1
#define CU_EVENT_DISABLE_TIMING 2
#define CU_EVENT_INTERPROCESS 4

/* CU_LIMIT_STACK_SIZE (0) to CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED (9):
 * CU_LIMIT_MAX of CUDA 13. */
#define N_LIMITS 10

#define CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT 14
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING 41

/* Pitch that cuMemAllocPitch() chooses: wider than most rows, so that the
 * layout of CUDA memory differs from a packed frame's, as on a GPU. */
#define PITCH_ALIGN 512

/* ----------------------------------------------------------------------- */
/* Exported entry points (declared here for -Wmissing-prototypes) */

/* Controls */
guint64 fakecuda_driver_call_count (const char *function);
int fakecuda_driver_context_device (CUcontext ctx);
int fakecuda_driver_primary_retained (CUdevice dev);

/* cuda.h, the names and versions libgstcuda 1.22 resolves */
CUresult cuInit (unsigned int flags);
CUresult cuDriverGetVersion (int *version);
CUresult cuGetErrorName (CUresult error, const char **str);
CUresult cuGetErrorString (CUresult error, const char **str);
CUresult cuDeviceGet (CUdevice * device, int ordinal);
CUresult cuDeviceGetCount (int *count);
CUresult cuDeviceGetName (char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute (int *value, int attrib, CUdevice dev);
CUresult cuDeviceCanAccessPeer (int *can_access, CUdevice dev, CUdevice peer);
CUresult cuCtxCreate_v2 (CUcontext * pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2 (CUcontext ctx);
CUresult cuCtxPushCurrent_v2 (CUcontext ctx);
CUresult cuCtxPopCurrent_v2 (CUcontext * pctx);
CUresult cuCtxGetCurrent (CUcontext * pctx);
CUresult cuCtxSetCurrent (CUcontext ctx);
CUresult cuCtxGetDevice (CUdevice * device);
CUresult cuCtxSynchronize (void);
CUresult cuCtxEnablePeerAccess (CUcontext peer, unsigned int flags);
CUresult cuCtxDisablePeerAccess (CUcontext peer);
CUresult cuDevicePrimaryCtxRetain (CUcontext * pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2 (CUdevice dev);
CUresult cuDevicePrimaryCtxRelease (CUdevice dev);
CUresult cuMemAlloc_v2 (CUdeviceptr * dptr, size_t size);
CUresult cuMemAllocPitch_v2 (CUdeviceptr * dptr, size_t *pitch,
    size_t width, size_t height, unsigned int element_size);
CUresult cuMemAllocHost_v2 (void **pp, size_t size);
CUresult cuMemFree_v2 (CUdeviceptr dptr);
CUresult cuMemFreeHost (void *p);
CUresult cuMemcpy2D_v2 (const CUDA_MEMCPY2D * copy);
CUresult cuMemcpy2DAsync_v2 (const CUDA_MEMCPY2D * copy, CUstream stream);
CUresult cuStreamCreate (CUstream * stream, unsigned int flags);
CUresult cuStreamDestroy (CUstream stream);
CUresult cuStreamDestroy_v2 (CUstream stream);
CUresult cuStreamSynchronize (CUstream stream);
CUresult cuModuleLoadData (void **module, const void *image);
CUresult cuModuleUnload (void *module);
CUresult cuModuleGetFunction (void **func, void *module, const char *name);
CUresult cuTexObjectCreate (unsigned long long *tex, const void *res,
    const void *tex_desc, const void *view);
CUresult cuTexObjectDestroy (unsigned long long tex);
CUresult cuLaunchKernel (void *f, unsigned int gx, unsigned int gy,
    unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
    unsigned int shmem, CUstream stream, void **params, void **extra);
CUresult cuGraphicsMapResources (unsigned int count, void **resources,
    CUstream stream);
CUresult cuGraphicsUnmapResources (unsigned int count, void **resources,
    CUstream stream);
CUresult cuGraphicsResourceSetMapFlags_v2 (void *resource, unsigned int flags);
CUresult cuGraphicsSubResourceGetMappedArray (void **array, void *resource,
    unsigned int index, unsigned int level);
CUresult cuGraphicsResourceGetMappedPointer_v2 (CUdeviceptr * ptr,
    size_t *size, void *resource);
CUresult cuGraphicsUnregisterResource (void *resource);
CUresult cuGraphicsGLRegisterImage (void **resource, unsigned int image,
    unsigned int target, unsigned int flags);
CUresult cuGraphicsGLRegisterBuffer (void **resource, unsigned int buffer,
    unsigned int flags);
CUresult cuGLGetDevices_v2 (unsigned int *count, CUdevice * devices,
    unsigned int max, int list);
/* cudaEGL.h: loaded by a Jetson build (HAVE_CUDA_NVMM_JETSON) */
CUresult cuGraphicsEGLRegisterImage (void **resource, void *image,
    unsigned int flags);
CUresult cuGraphicsResourceGetMappedEglFrame (void *frame, void *resource,
    unsigned int index, unsigned int level);

/* Added by libgstcuda 1.24 (events, IPC), 1.26 (plain copies, memsets,
 * limits) and 1.28 (the UUID) */
CUresult cuEventCreate (CUevent * event, unsigned int flags);
CUresult cuEventDestroy_v2 (CUevent event);
CUresult cuEventRecord (CUevent event, CUstream stream);
CUresult cuEventSynchronize (CUevent event);
CUresult cuIpcGetEventHandle (CUipcHandle * handle, CUevent event);
CUresult cuIpcOpenEventHandle (CUevent * event, CUipcHandle handle);
CUresult cuIpcGetMemHandle (CUipcHandle * handle, CUdeviceptr dptr);
CUresult cuIpcOpenMemHandle (CUdeviceptr * dptr, CUipcHandle handle,
    unsigned int flags);
CUresult cuIpcCloseMemHandle (CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2 (CUdeviceptr dst, const void *src, size_t size);
CUresult cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src, size_t size,
    CUstream stream);
CUresult cuMemcpyDtoH_v2 (void *dst, CUdeviceptr src, size_t size);
CUresult cuMemcpyDtoHAsync_v2 (void *dst, CUdeviceptr src, size_t size,
    CUstream stream);
CUresult cuMemcpyDtoD_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size);
CUresult cuMemcpyDtoDAsync_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size,
    CUstream stream);
CUresult cuMemsetD2D8_v2 (CUdeviceptr dst, size_t pitch, unsigned char value,
    size_t width, size_t height);
CUresult cuMemsetD2D8Async (CUdeviceptr dst, size_t pitch,
    unsigned char value, size_t width, size_t height, CUstream stream);
CUresult cuMemsetD2D16_v2 (CUdeviceptr dst, size_t pitch,
    unsigned short value, size_t width, size_t height);
CUresult cuMemsetD2D16Async (CUdeviceptr dst, size_t pitch,
    unsigned short value, size_t width, size_t height, CUstream stream);
CUresult cuMemsetD2D32_v2 (CUdeviceptr dst, size_t pitch, unsigned int value,
    size_t width, size_t height);
CUresult cuMemsetD2D32Async (CUdeviceptr dst, size_t pitch,
    unsigned int value, size_t width, size_t height, CUstream stream);
CUresult cuCtxGetLimit (size_t *value, CUlimit limit);
CUresult cuCtxSetLimit (CUlimit limit, size_t value);
CUresult cuDeviceGetUuid (CUuuid * uuid, CUdevice dev);
CUresult cuDeviceGetUuid_v2 (CUuuid * uuid, CUdevice dev);

/* ----------------------------------------------------------------------- */
/* State */

struct CUctx_st
{
  CUdevice device;
  gboolean primary;
  /* Primary contexts: retains outstanding. */
  gint retained;
  /* cuCtxSetLimit(): kept, not enforced. */
  size_t limits[N_LIMITS];
};

typedef struct
{
  CUcontext ctx;
  /* The runtime's device before the push, restored by the pop. */
  int prev_device;
} StackEntry;

static GMutex lock;
static GHashTable *counts;
static GHashTable *live_contexts;
static struct CUctx_st primary[64];
static gboolean initialized;

/* Each thread's context stack, freed when the thread ends (a GStreamer
 * streaming thread or a GThreadPool worker pushes once and exits). */
static GPrivate stack_key = G_PRIVATE_INIT ((GDestroyNotify) g_array_unref);

static void
count (const gchar * function)
{
  g_mutex_lock (&lock);
  if (counts == NULL)
    counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert (counts, g_strdup (function),
      GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (counts,
                  function)) + 1));
  g_mutex_unlock (&lock);
}

#define ENTER() count (G_STRFUNC)

guint64
fakecuda_driver_call_count (const char *function)
{
  guint64 n = 0;

  g_mutex_lock (&lock);
  if (counts)
    n = GPOINTER_TO_SIZE (g_hash_table_lookup (counts, function));
  g_mutex_unlock (&lock);

  return n;
}

int
fakecuda_driver_context_device (CUcontext ctx)
{
  return ctx ? ctx->device : -1;
}

int
fakecuda_driver_primary_retained (CUdevice dev)
{
  gint n;

  if (dev < 0 || dev >= (CUdevice) G_N_ELEMENTS (primary))
    return -1;
  g_mutex_lock (&lock);
  n = primary[dev].retained;
  g_mutex_unlock (&lock);
  return n;
}

static CUresult
from_runtime (cudaError_t error)
{
  switch (error) {
    case cudaSuccess:
      return CUDA_SUCCESS;
    case cudaErrorInvalidValue:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return CUDA_ERROR_NO_DEVICE;
    case cudaErrorInvalidDevice:
      return CUDA_ERROR_INVALID_DEVICE;
    case cudaErrorInvalidResourceHandle:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorNotReady:
      return CUDA_ERROR_NOT_READY;
    case cudaErrorIllegalAddress:
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    case cudaErrorLaunchFailure:
      return CUDA_ERROR_LAUNCH_FAILED;
    default:
      return CUDA_ERROR_UNKNOWN;
  }
}

static GArray *
get_stack (void)
{
  GArray *stack = g_private_get (&stack_key);

  if (stack == NULL) {
    stack = g_array_new (FALSE, FALSE, sizeof (StackEntry));
    g_private_set (&stack_key, stack);
  }
  return stack;
}

static CUcontext
current (void)
{
  GArray *s = get_stack ();

  return s->len ? g_array_index (s, StackEntry, s->len - 1).ctx : NULL;
}

static gboolean
valid_device (CUdevice dev)
{
  int n = 0;

  return cudaGetDeviceCount (&n) == cudaSuccess && dev >= 0 && dev < n;
}

static gboolean
valid_context (CUcontext ctx)
{
  gboolean ok;

  if (ctx == NULL)
    return FALSE;
  g_mutex_lock (&lock);
  /* A primary context's count, under the lock that retains and releases
   * it (and orders its fields, set by the first retain). */
  if (ctx >= primary && ctx < primary + G_N_ELEMENTS (primary))
    ok = ctx->retained > 0;
  else
    ok = live_contexts && g_hash_table_contains (live_contexts, ctx);
  g_mutex_unlock (&lock);
  return ok;
}

/* What cuCtxGetLimit() answers in a new context (see cuCtxSetLimit()) */
static void
reset_limits (CUcontext ctx)
{
  static const size_t defaults[N_LIMITS] = {
    1024, 1 << 20, 8 << 20, 2, 2048
  };

  memcpy (ctx->limits, defaults, sizeof (defaults));
}

#define NEED_CONTEXT() G_STMT_START {                                      \
  if (current () == NULL)                                                 \
    return CUDA_ERROR_INVALID_CONTEXT;                                    \
} G_STMT_END

/* ----------------------------------------------------------------------- */
/* Initialisation, versions, errors, devices */

CUresult
cuInit (unsigned int flags)
{
  int n = 0;

  ENTER ();
  /* FAKECUDA_DRIVER_INIT=fail: the driver library loads but does not
   * initialise, while the runtime works. What a library that falls back
   * to the runtime without a driver context then does is tested on the
   * stand-in too (the runtime's cudaSetDevice path of
   * gst_pinned_context_push(), which builds without cuda-interop take). */
  if (g_strcmp0 (g_getenv ("FAKECUDA_DRIVER_INIT"), "fail") == 0)
    return CUDA_ERROR_NO_DEVICE;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    return CUDA_ERROR_NO_DEVICE;
  initialized = TRUE;
  return CUDA_SUCCESS;
}

CUresult
cuDriverGetVersion (int *version)
{
  ENTER ();
  return from_runtime (cudaDriverGetVersion (version));
}

CUresult
cuGetErrorName (CUresult error, const char **str)
{
  switch (error) {
#define E(x) case x: *str = #x; return CUDA_SUCCESS;
      E (CUDA_SUCCESS) E (CUDA_ERROR_INVALID_VALUE) E (CUDA_ERROR_OUT_OF_MEMORY)
          E (CUDA_ERROR_NOT_INITIALIZED) E (CUDA_ERROR_NO_DEVICE)
          E (CUDA_ERROR_INVALID_DEVICE) E (CUDA_ERROR_INVALID_CONTEXT)
          E (CUDA_ERROR_UNSUPPORTED_LIMIT)
          E (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) E (CUDA_ERROR_INVALID_HANDLE)
          E (CUDA_ERROR_NOT_READY) E (CUDA_ERROR_NOT_SUPPORTED)
          E (CUDA_ERROR_ILLEGAL_ADDRESS) E (CUDA_ERROR_LAUNCH_FAILED)
          E (CUDA_ERROR_UNKNOWN)
#undef E
    default:
      *str = "CUDA_ERROR_UNKNOWN";
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult
cuGetErrorString (CUresult error, const char **str)
{
  switch (error) {
    case CUDA_SUCCESS:
      *str = "no error";
      break;
    case CUDA_ERROR_INVALID_CONTEXT:
      *str = "invalid device context";
      break;
    case CUDA_ERROR_NOT_SUPPORTED:
      *str = "operation not supported (fake CUDA driver)";
      break;
    default:
      *str = "error (fake CUDA driver)";
      break;
  }
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGet (CUdevice * device, int ordinal)
{
  ENTER ();
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!valid_device (ordinal))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGetCount (int *count_out)
{
  ENTER ();
  *count_out = 0;
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  cudaGetDeviceCount (count_out);
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGetName (char *name, int len, CUdevice dev)
{
  struct cudaDeviceProp props;
  CUresult ret;

  ENTER ();
  ret = from_runtime (cudaGetDeviceProperties (&props, dev));
  if (ret == CUDA_SUCCESS)
    g_strlcpy (name, props.name, len);
  return ret;
}

CUresult
cuDeviceGetAttribute (int *value, int attrib, CUdevice dev)
{
  ENTER ();
  if (!valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
      *value = PITCH_ALIGN;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      *value = 1;
      break;
    default:
      *value = 0;
      break;
  }
  return CUDA_SUCCESS;
}

/* No peer access in the stand-in: each device sees only its own memory. */
CUresult
cuDeviceCanAccessPeer (int *can_access, CUdevice dev, CUdevice peer)
{
  ENTER ();
  *can_access = 0;
  return valid_device (dev) && valid_device (peer) ?
      CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult
cuCtxEnablePeerAccess (CUcontext peer, unsigned int flags)
{
  ENTER ();
  return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

CUresult
cuCtxDisablePeerAccess (CUcontext peer)
{
  ENTER ();
  return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

/* ----------------------------------------------------------------------- */
/* Contexts */

static CUresult
push (CUcontext ctx)
{
  StackEntry entry;

  entry.ctx = ctx;
  entry.prev_device = 0;
  cudaGetDevice (&entry.prev_device);
  /* A push only changes the thread's current context: it succeeds on a
   * context that holds a sticky error, whose calls then report it. */
  fakecuda_make_current_context (ctx->device,
      ctx->primary ? 0 : (uintptr_t) ctx);
  g_array_append_val (get_stack (), entry);
  return CUDA_SUCCESS;
}

static CUcontext
pop (void)
{
  GArray *s = get_stack ();
  StackEntry entry;

  if (s->len == 0)
    return NULL;
  entry = g_array_index (s, StackEntry, s->len - 1);
  g_array_set_size (s, s->len - 1);
  if (s->len && !g_array_index (s, StackEntry, s->len - 1).ctx->primary)
    fakecuda_make_current_context (entry.prev_device,
        (uintptr_t) g_array_index (s, StackEntry, s->len - 1).ctx);
  else
    fakecuda_make_current (entry.prev_device);
  return entry.ctx;
}

CUresult
cuCtxCreate_v2 (CUcontext * pctx, unsigned int flags, CUdevice dev)
{
  CUcontext ctx;
  CUresult ret;

  ENTER ();
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;

  ctx = g_new0 (struct CUctx_st, 1);
  ctx->device = dev;
  reset_limits (ctx);
  g_mutex_lock (&lock);
  if (live_contexts == NULL)
    live_contexts = g_hash_table_new (NULL, NULL);
  g_hash_table_add (live_contexts, ctx);
  g_mutex_unlock (&lock);

  /* As in CUDA: the new context is current. */
  ret = push (ctx);
  if (ret != CUDA_SUCCESS) {
    cuCtxDestroy_v2 (ctx);
    return ret;
  }
  *pctx = ctx;
  return CUDA_SUCCESS;
}

CUresult
cuCtxDestroy_v2 (CUcontext ctx)
{
  GArray *s = get_stack ();
  gboolean found;
  guint i;

  ENTER ();
  g_mutex_lock (&lock);
  found = live_contexts && g_hash_table_remove (live_contexts, ctx);
  g_mutex_unlock (&lock);
  if (!found)
    return CUDA_ERROR_INVALID_CONTEXT;

  /* CUDA pops it if it is current. It also leaves no dangling entry
   * deeper in this thread's stack, so that a later pop finds none. */
  for (i = s->len; i > 0; i--) {
    if (g_array_index (s, StackEntry, i - 1).ctx != ctx)
      continue;
    if (i == s->len) {
      pop ();
    } else {
      g_array_index (s, StackEntry, i).prev_device =
          g_array_index (s, StackEntry, i - 1).prev_device;
      g_array_remove_index (s, i - 1);
    }
  }

  g_free (ctx);
  return CUDA_SUCCESS;
}

CUresult
cuCtxPushCurrent_v2 (CUcontext ctx)
{
  ENTER ();
  if (!valid_context (ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  return push (ctx);
}

CUresult
cuCtxPopCurrent_v2 (CUcontext * pctx)
{
  CUcontext ctx;

  ENTER ();
  ctx = pop ();
  if (pctx)
    *pctx = ctx;
  return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult
cuCtxGetCurrent (CUcontext * pctx)
{
  ENTER ();
  *pctx = current ();
  return CUDA_SUCCESS;
}

CUresult
cuCtxSetCurrent (CUcontext ctx)
{
  ENTER ();
  if (ctx && !valid_context (ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (current ())
    pop ();
  return ctx ? push (ctx) : CUDA_SUCCESS;
}

CUresult
cuCtxGetDevice (CUdevice * device)
{
  ENTER ();
  NEED_CONTEXT ();
  *device = current ()->device;
  return CUDA_SUCCESS;
}

CUresult
cuCtxSynchronize (void)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaDeviceSynchronize ());
}

CUresult
cuDevicePrimaryCtxRetain (CUcontext * pctx, CUdevice dev)
{
  ENTER ();
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!valid_device (dev) || dev >= (CUdevice) G_N_ELEMENTS (primary))
    return CUDA_ERROR_INVALID_DEVICE;
  g_mutex_lock (&lock);
  /* The first retain (again) makes a fresh context, as in CUDA; later ones
   * leave it alone, as other threads read it. */
  if (primary[dev].retained++ == 0) {
    primary[dev].device = dev;
    primary[dev].primary = TRUE;
    reset_limits (&primary[dev]);
  }
  g_mutex_unlock (&lock);
  *pctx = &primary[dev];
  return CUDA_SUCCESS;
}

CUresult
cuDevicePrimaryCtxRelease_v2 (CUdevice dev)
{
  CUresult ret = CUDA_SUCCESS;

  ENTER ();
  if (dev < 0 || dev >= (CUdevice) G_N_ELEMENTS (primary))
    return CUDA_ERROR_INVALID_DEVICE;
  g_mutex_lock (&lock);
  if (primary[dev].retained <= 0)
    ret = CUDA_ERROR_INVALID_CONTEXT;
  else
    primary[dev].retained--;
  g_mutex_unlock (&lock);
  return ret;
}

CUresult
cuDevicePrimaryCtxRelease (CUdevice dev)
{
  return cuDevicePrimaryCtxRelease_v2 (dev);
}

/* ----------------------------------------------------------------------- */
/* Memory */

CUresult
cuMemAlloc_v2 (CUdeviceptr * dptr, size_t size)
{
  void *ptr = NULL;
  CUresult ret;

  ENTER ();
  NEED_CONTEXT ();
  ret = from_runtime (cudaMalloc (&ptr, size));
  *dptr = (CUdeviceptr) (guintptr) ptr;
  return ret;
}

CUresult
cuMemAllocPitch_v2 (CUdeviceptr * dptr, size_t *pitch, size_t width,
    size_t height, unsigned int element_size)
{
  void *ptr = NULL;
  CUresult ret;

  ENTER ();
  NEED_CONTEXT ();
  if (width == 0 || height == 0)
    return CUDA_ERROR_INVALID_VALUE;
  *pitch = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
  ret = from_runtime (cudaMalloc (&ptr, *pitch * height));
  *dptr = (CUdeviceptr) (guintptr) ptr;
  return ret;
}

CUresult
cuMemAllocHost_v2 (void **pp, size_t size)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaHostAlloc (pp, size, cudaHostAllocDefault));
}

CUresult
cuMemFree_v2 (CUdeviceptr dptr)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaFree ((void *) (guintptr) dptr));
}

CUresult
cuMemFreeHost (void *p)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaFreeHost (p));
}

static gboolean
side (CUmemorytype type, const void *host, CUdeviceptr device, size_t x,
    size_t y, size_t pitch, const guint8 ** ptr, gboolean * is_device)
{
  switch (type) {
    case CU_MEMORYTYPE_HOST:
      *ptr = host;
      *is_device = FALSE;
      break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
      *ptr = (const guint8 *) (guintptr) device;
      *is_device = TRUE;
      break;
    default:
      /* CUDA arrays (textures): not in the stand-in */
      return FALSE;
  }
  *ptr += y * pitch + x;
  return TRUE;
}

static CUresult
copy_2d (const CUDA_MEMCPY2D * c, CUstream stream, gboolean sync)
{
  const guint8 *src, *dst;
  gboolean src_device, dst_device;
  enum cudaMemcpyKind kind;

  if (!side (c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes,
          c->srcY, c->srcPitch, &src, &src_device) ||
      !side (c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes,
          c->dstY, c->dstPitch, &dst, &dst_device))
    return CUDA_ERROR_NOT_SUPPORTED;

  if (src_device)
    kind = dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  else
    kind = dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost;
  if (c->srcMemoryType == CU_MEMORYTYPE_UNIFIED ||
      c->dstMemoryType == CU_MEMORYTYPE_UNIFIED)
    kind = cudaMemcpyDefault;

  if (sync)
    return from_runtime (cudaMemcpy2D ((void *) dst, c->dstPitch, src,
            c->srcPitch, c->WidthInBytes, c->Height, kind));
  return from_runtime (cudaMemcpy2DAsync ((void *) dst, c->dstPitch, src,
          c->srcPitch, c->WidthInBytes, c->Height, kind, stream));
}

CUresult
cuMemcpy2D_v2 (const CUDA_MEMCPY2D * copy)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_2d (copy, NULL, TRUE);
}

CUresult
cuMemcpy2DAsync_v2 (const CUDA_MEMCPY2D * copy, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_2d (copy, stream, FALSE);
}

/* ----------------------------------------------------------------------- */
/* Streams */

CUresult
cuStreamCreate (CUstream * stream, unsigned int flags)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaStreamCreateWithFlags (stream,
          (flags & CU_STREAM_NON_BLOCKING) ? cudaStreamNonBlocking :
          cudaStreamDefault));
}

CUresult
cuStreamDestroy (CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaStreamDestroy (stream));
}

CUresult
cuStreamDestroy_v2 (CUstream stream)
{
  return cuStreamDestroy (stream);
}

CUresult
cuStreamSynchronize (CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return from_runtime (cudaStreamSynchronize (stream));
}

/* ----------------------------------------------------------------------- */
/* Not in the stand-in: modules, kernels, textures, graphics interop */

#define UNSUPPORTED() G_STMT_START {                                       \
  ENTER ();                                                               \
  return CUDA_ERROR_NOT_SUPPORTED;                                        \
} G_STMT_END

CUresult
cuModuleLoadData (void **module, const void *image)
{
  UNSUPPORTED ();
}

CUresult
cuModuleUnload (void *module)
{
  UNSUPPORTED ();
}

CUresult
cuModuleGetFunction (void **func, void *module, const char *name)
{
  UNSUPPORTED ();
}

CUresult
cuTexObjectCreate (unsigned long long *tex, const void *res,
    const void *tex_desc, const void *view)
{
  UNSUPPORTED ();
}

CUresult
cuTexObjectDestroy (unsigned long long tex)
{
  UNSUPPORTED ();
}

CUresult
cuLaunchKernel (void *f, unsigned int gx, unsigned int gy, unsigned int gz,
    unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
    CUstream stream, void **params, void **extra)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsMapResources (unsigned int n, void **resources, CUstream stream)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsUnmapResources (unsigned int n, void **resources, CUstream stream)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsResourceSetMapFlags_v2 (void *resource, unsigned int flags)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsSubResourceGetMappedArray (void **array, void *resource,
    unsigned int index, unsigned int level)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsResourceGetMappedPointer_v2 (CUdeviceptr * ptr, size_t *size,
    void *resource)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsUnregisterResource (void *resource)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsGLRegisterImage (void **resource, unsigned int image,
    unsigned int target, unsigned int flags)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsGLRegisterBuffer (void **resource, unsigned int buffer,
    unsigned int flags)
{
  UNSUPPORTED ();
}

CUresult
cuGLGetDevices_v2 (unsigned int *n, CUdevice * devices, unsigned int max,
    int list)
{
  UNSUPPORTED ();
}

/* ----------------------------------------------------------------------- */
/* Events: the runtime's (the flags are the same bits). CUDA refuses
 * unknown flags, and an event for other processes that keeps timings. */

CUresult
cuEventCreate (CUevent * event, unsigned int flags)
{
  ENTER ();
  NEED_CONTEXT ();
  if (event == NULL || (flags & ~(CU_EVENT_BLOCKING_SYNC |
              CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)) != 0 ||
      ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)))
    return CUDA_ERROR_INVALID_VALUE;
  return from_runtime (cudaEventCreateWithFlags ((cudaEvent_t *) event, flags));
}

CUresult
cuEventDestroy_v2 (CUevent event)
{
  ENTER ();
  NEED_CONTEXT ();
  if (event == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  return from_runtime (cudaEventDestroy ((cudaEvent_t) event));
}

CUresult
cuEventRecord (CUevent event, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  if (event == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  return from_runtime (cudaEventRecord ((cudaEvent_t) event, stream));
}

CUresult
cuEventSynchronize (CUevent event)
{
  ENTER ();
  NEED_CONTEXT ();
  if (event == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  return from_runtime (cudaEventSynchronize ((cudaEvent_t) event));
}

/* Handles for other processes: not in the stand-in */

CUresult
cuIpcGetEventHandle (CUipcHandle * handle, CUevent event)
{
  UNSUPPORTED ();
}

CUresult
cuIpcOpenEventHandle (CUevent * event, CUipcHandle handle)
{
  UNSUPPORTED ();
}

CUresult
cuIpcGetMemHandle (CUipcHandle * handle, CUdeviceptr dptr)
{
  UNSUPPORTED ();
}

CUresult
cuIpcOpenMemHandle (CUdeviceptr * dptr, CUipcHandle handle, unsigned int flags)
{
  UNSUPPORTED ();
}

CUresult
cuIpcCloseMemHandle (CUdeviceptr dptr)
{
  UNSUPPORTED ();
}

/* ----------------------------------------------------------------------- */
/* Plain copies: the runtime's, of the kind their names give */

static CUresult
copy_1d (void *dst, const void *src, size_t size, enum cudaMemcpyKind kind,
    CUstream stream, gboolean sync)
{
  if (sync)
    return from_runtime (cudaMemcpy (dst, src, size, kind));
  return from_runtime (cudaMemcpyAsync (dst, src, size, kind, stream));
}

#define DEV(p) ((void *) (guintptr) (p))

CUresult
cuMemcpyHtoD_v2 (CUdeviceptr dst, const void *src, size_t size)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (DEV (dst), src, size, cudaMemcpyHostToDevice, NULL, TRUE);
}

CUresult
cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src, size_t size,
    CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (DEV (dst), src, size, cudaMemcpyHostToDevice, stream, FALSE);
}

CUresult
cuMemcpyDtoH_v2 (void *dst, CUdeviceptr src, size_t size)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (dst, DEV (src), size, cudaMemcpyDeviceToHost, NULL, TRUE);
}

CUresult
cuMemcpyDtoHAsync_v2 (void *dst, CUdeviceptr src, size_t size, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (dst, DEV (src), size, cudaMemcpyDeviceToHost, stream, FALSE);
}

CUresult
cuMemcpyDtoD_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (DEV (dst), DEV (src), size, cudaMemcpyDeviceToDevice, NULL,
      TRUE);
}

CUresult
cuMemcpyDtoDAsync_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size,
    CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return copy_1d (DEV (dst), DEV (src), size, cudaMemcpyDeviceToDevice,
      stream, FALSE);
}

/* ----------------------------------------------------------------------- */
/* Memsets, 2D, of 8-, 16- or 32-bit values, ordered on @stream (the
 * legacy default stream for the calls without one: CUDA's synchronous
 * memsets of device memory do not wait for the memset either). A value
 * whose bytes are all the same is the runtime's byte memset, each row
 * (or the whole area, when the rows are packed); any other is a copy of a
 * row of the pattern into each row, from pageable memory (which the
 * runtime stand-in takes at the call, as CUDA does). CUDA wants the
 * address and the pitch aligned to the value. */

static CUresult
memset_2d (CUdeviceptr dst, size_t pitch, guint32 value, guint elem,
    size_t width, size_t height, CUstream stream)
{
  guint8 pattern[4], *row;
  guint8 v8 = value;
  guint16 v16 = value;
  gboolean uniform = TRUE;
  CUresult ret = CUDA_SUCCESS;
  size_t bytes = width * elem, x, y;

  if (width == 0 || height == 0)
    return CUDA_SUCCESS;
  if (pitch < bytes || pitch % elem != 0 || dst % elem != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (elem == 1)
    memcpy (pattern, &v8, 1);
  else if (elem == 2)
    memcpy (pattern, &v16, 2);
  else
    memcpy (pattern, &value, 4);
  for (x = 1; x < elem; x++)
    uniform &= pattern[x] == pattern[0];

  if (uniform && pitch == bytes)
    return from_runtime (cudaMemsetAsync (DEV (dst), pattern[0],
            bytes * height, stream));
  if (uniform) {
    for (y = 0; y < height && ret == CUDA_SUCCESS; y++)
      ret = from_runtime (cudaMemsetAsync (DEV (dst + y * pitch), pattern[0],
              bytes, stream));
    return ret;
  }

  row = g_malloc (bytes);
  for (x = 0; x < width; x++)
    memcpy (row + x * elem, pattern, elem);
  for (y = 0; y < height && ret == CUDA_SUCCESS; y++)
    ret = copy_1d (DEV (dst + y * pitch), row, bytes, cudaMemcpyHostToDevice,
        stream, FALSE);
  g_free (row);
  return ret;
}

CUresult
cuMemsetD2D8_v2 (CUdeviceptr dst, size_t pitch, unsigned char value,
    size_t width, size_t height)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 1, width, height, NULL);
}

CUresult
cuMemsetD2D8Async (CUdeviceptr dst, size_t pitch, unsigned char value,
    size_t width, size_t height, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 1, width, height, stream);
}

CUresult
cuMemsetD2D16_v2 (CUdeviceptr dst, size_t pitch, unsigned short value,
    size_t width, size_t height)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 2, width, height, NULL);
}

CUresult
cuMemsetD2D16Async (CUdeviceptr dst, size_t pitch, unsigned short value,
    size_t width, size_t height, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 2, width, height, stream);
}

CUresult
cuMemsetD2D32_v2 (CUdeviceptr dst, size_t pitch, unsigned int value,
    size_t width, size_t height)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 4, width, height, NULL);
}

CUresult
cuMemsetD2D32Async (CUdeviceptr dst, size_t pitch, unsigned int value,
    size_t width, size_t height, CUstream stream)
{
  ENTER ();
  NEED_CONTEXT ();
  return memset_2d (dst, pitch, value, 4, width, height, stream);
}

/* ----------------------------------------------------------------------- */
/* Limits: each context's, kept and not enforced (nor clamped, nor
 * refused by compute capability, as CUDA may); a new context (and a
 * primary context on its first retain) starts from CUDA's defaults for
 * the first five, 0 for the others. A limit CUDA does not know is
 * refused. */

CUresult
cuCtxGetLimit (size_t *value, CUlimit limit)
{
  ENTER ();
  NEED_CONTEXT ();
  if (value == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (limit < 0 || limit >= N_LIMITS)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  g_mutex_lock (&lock);
  *value = current ()->limits[limit];
  g_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

CUresult
cuCtxSetLimit (CUlimit limit, size_t value)
{
  ENTER ();
  NEED_CONTEXT ();
  if (limit < 0 || limit >= N_LIMITS)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  g_mutex_lock (&lock);
  current ()->limits[limit] = value;
  g_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* The device's UUID: the runtime's (cudaDeviceProp.uuid), as in CUDA. */

CUresult
cuDeviceGetUuid (CUuuid * uuid, CUdevice dev)
{
  struct cudaDeviceProp props;
  CUresult ret;

  ENTER ();
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (uuid == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  ret = from_runtime (cudaGetDeviceProperties (&props, dev));
  if (ret == CUDA_SUCCESS)
    memcpy (uuid, &props.uuid, sizeof (CUuuid));
  return ret;
}

CUresult
cuDeviceGetUuid_v2 (CUuuid * uuid, CUdevice dev)
{
  return cuDeviceGetUuid (uuid, dev);
}

/* ----------------------------------------------------------------------- */
/* EGL interop (a Jetson build's): not in the stand-in */

CUresult
cuGraphicsEGLRegisterImage (void **resource, void *image, unsigned int flags)
{
  UNSUPPORTED ();
}

CUresult
cuGraphicsResourceGetMappedEglFrame (void *frame, void *resource,
    unsigned int index, unsigned int level)
{
  UNSUPPORTED ();
}
