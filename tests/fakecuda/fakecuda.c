/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A GPU-less stand-in for the CUDA runtime calls gst-pinned uses. Built as
 * libcudart.so.13 and found before the real one through LD_LIBRARY_PATH by
 * the test suites only; the product always links the real runtime.
 *
 * The model:
 * - a stream is a thread that runs its work in FIFO order, off the calling
 *   thread; the legacy default stream (NULL) runs work in the caller;
 * - an event completes when its stream reaches it; cudaStreamWaitEvent()
 *   holds a stream until the event's latest record at call time completes;
 * - a copy from page-locked memory reads it when the stream reaches the
 *   copy, which fakecuda_set_copy_delay() can postpone; a copy from
 *   pageable memory snapshots it at the call, and one into pageable memory
 *   returns when done, as CUDA documents;
 * - device memory is a reservation the CPU cannot touch (PROT_NONE), its
 *   bytes live elsewhere: dereferencing a device pointer on the CPU faults;
 * - copies are checked against the allocations they touch and the
 *   direction they claim;
 * - any call can be made to fail (fakecuda_fail()).
 *
 * Environment: FAKECUDA_DEVICES (default 1; 0 = no device),
 * FAKECUDA_DEVICE_MEMORY (bytes per device, default 16 GiB). */

#include <glib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include "fakecuda.h"

/* ----------------------------------------------------------------------- */
/* Global state */

typedef struct
{
  gpointer handle;              /* what the caller sees: PROT_NONE */
  gsize reserved;
  guint8 *backing;
  gsize size;
  gint device;
} DevAlloc;

typedef struct
{
  guint8 *ptr;
  gsize size;
  gboolean registered;          /* cudaHostRegister, not ours to free */
  guint flags;                  /* of cudaHostAlloc or cudaHostRegister */
} HostAlloc;

typedef struct
{
  gchar *function;
  guint skip;
  guint count;
  cudaError_t error;
} Injection;

typedef struct
{
  FakecudaKernelBind bind;
  FakecudaKernelRun run;
} KernelImpl;

static GMutex lock;
static GList *dev_allocs;
static GList *host_allocs;
static GList *injections;
static GHashTable *call_counts;
static GHashTable *kernel_names;        /* host stub -> device name */
static GHashTable *kernel_impls;        /* device name -> KernelImpl */
static GList *streams;
static guint64 copy_delay_us;
static gint n_devices = -1;
/* FAKECUDA_DRIVER: "none" (no driver library: the runtime reports version
 * 0), "old" (a driver too old for the runtime), else a working one. */
static gint driver_version = CUDART_VERSION;
static guint64 device_memory = G_GUINT64_CONSTANT (16) << 30;
     static
         guint64
         device_used[64];

     static __thread
         gint
         current_device;
     static __thread
         cudaError_t
         last_error;

     typedef struct
     {
       dim3
           grid,
           block;
       size_t
           shmem;
       cudaStream_t
           stream;
     } LaunchConfig;
     static __thread
         LaunchConfig
         launch_config;

     static void
     ensure_init_locked (void)
{
  const gchar *env;

  if (n_devices >= 0)
    return;

  env = g_getenv ("FAKECUDA_DEVICES");
  n_devices = env ? (gint) g_ascii_strtoll (env, NULL, 10) : 1;
  n_devices = CLAMP (n_devices, 0, 64);
  env = g_getenv ("FAKECUDA_DRIVER");
  if (g_strcmp0 (env, "none") == 0)
    driver_version = 0;
  else if (g_strcmp0 (env, "old") == 0)
    driver_version = 11000;
  env = g_getenv ("FAKECUDA_DEVICE_MEMORY");
  if (env)
    device_memory = g_ascii_strtoull (env, NULL, 10);
  call_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  kernel_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  kernel_impls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
}

static cudaError_t
set_error (cudaError_t error)
{
  if (error != cudaSuccess && error != cudaErrorNotReady)
    last_error = error;
  return error;
}

/* Counts the call, applies injected failures and the no-device case. */
static cudaError_t
enter (const gchar * function, gboolean needs_device)
{
  cudaError_t ret = cudaSuccess;
  GList *l;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_insert (call_counts, g_strdup (function),
      GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (call_counts,
                  function)) + 1));

  for (l = injections; l; l = l->next) {
    Injection *inj = l->data;

    if (strcmp (inj->function, function) != 0)
      continue;
    if (inj->skip > 0) {
      inj->skip--;
    } else if (inj->count > 0) {
      inj->count--;
      ret = inj->error;
    }
    break;
  }

  if (ret == cudaSuccess && needs_device && driver_version < CUDART_VERSION)
    ret = cudaErrorInsufficientDriver;
  else if (ret == cudaSuccess && needs_device && n_devices == 0)
    ret = cudaErrorNoDevice;
  g_mutex_unlock (&lock);

  return ret;
}

#define ENTER(needs_device) G_STMT_START {                        \
  cudaError_t _err = enter (G_STRFUNC, needs_device);               \
  if (_err != cudaSuccess)                                          \
    return set_error (_err);                                        \
} G_STMT_END

/* ----------------------------------------------------------------------- */
/* Memory registries */

static DevAlloc *
find_dev_locked (const void *ptr, gsize size)
{
  GList *l;

  for (l = dev_allocs; l; l = l->next) {
    DevAlloc *a = l->data;
    const guint8 *p = ptr, *h = a->handle;

    if (p >= h && p < h + a->reserved)
      return (p + size <= h + a->size) ? a : NULL;
  }
  return NULL;
}

static gboolean
is_device_locked (const void *ptr)
{
  GList *l;

  for (l = dev_allocs; l; l = l->next) {
    DevAlloc *a = l->data;
    const guint8 *p = ptr, *h = a->handle;

    if (p >= h && p < h + a->reserved)
      return TRUE;
  }
  return FALSE;
}

static HostAlloc *
find_host_locked (const void *ptr)
{
  GList *l;

  for (l = host_allocs; l; l = l->next) {
    HostAlloc *a = l->data;
    const guint8 *p = ptr;

    if (p >= a->ptr && p < a->ptr + a->size)
      return a;
  }
  return NULL;
}

void *
fakecuda_translate (const void *ptr, size_t size)
{
  DevAlloc *a;
  void *ret = NULL;

  g_mutex_lock (&lock);
  a = find_dev_locked (ptr, size);
  if (a)
    ret = a->backing + ((const guint8 *) ptr - (const guint8 *) a->handle);
  g_mutex_unlock (&lock);

  return ret;
}

/* ----------------------------------------------------------------------- */
/* Events */

struct CUevent_st
{
  gint refcount;
  GMutex lock;
  GCond cond;
  guint64 recorded;
  guint64 completed;
  gint64 time_us;
  guint flags;
  gint device;
};

static struct CUevent_st *
event_ref (struct CUevent_st *ev)
{
  g_atomic_int_inc (&ev->refcount);
  return ev;
}

static void
event_unref (struct CUevent_st *ev)
{
  if (!g_atomic_int_dec_and_test (&ev->refcount))
    return;
  g_mutex_clear (&ev->lock);
  g_cond_clear (&ev->cond);
  g_free (ev);
}

static void
event_complete (struct CUevent_st *ev, guint64 gen)
{
  g_mutex_lock (&ev->lock);
  if (gen > ev->completed) {
    ev->completed = gen;
    ev->time_us = g_get_monotonic_time ();
  }
  g_cond_broadcast (&ev->cond);
  g_mutex_unlock (&ev->lock);
}

static void
event_wait (struct CUevent_st *ev, guint64 gen)
{
  g_mutex_lock (&ev->lock);
  while (ev->completed < gen)
    g_cond_wait (&ev->cond, &ev->lock);
  g_mutex_unlock (&ev->lock);
}

/* ----------------------------------------------------------------------- */
/* Streams */

typedef enum
{
  OP_COPY,
  OP_SLEEP,
  OP_RECORD,
  OP_WAIT,
  OP_KERNEL,
  OP_HOST_FUNC,
  OP_MARK,
  OP_QUIT,
} OpType;

typedef struct
{
  OpType type;
  /* OP_COPY: a 2D copy; 1D copies have height 1 */
  guint8 *dst;
  const guint8 *src;
  gsize dpitch, spitch, width, height;
  guint8 *staging;              /* owned snapshot of a pageable source */
  gint memset_value;            /* >= 0: a memset of dst, no src */
  guint64 delay_us;
  /* OP_RECORD, OP_WAIT */
  struct CUevent_st *event;
  guint64 gen;
  /* OP_KERNEL, OP_HOST_FUNC */
  FakecudaKernelRun run;
  void *closure;
  cudaHostFn_t host_fn;
  /* OP_MARK */
  GMutex *mark_lock;
  GCond *mark_cond;
  gboolean *mark_done;
} Op;

struct CUstream_st
{
  GAsyncQueue *queue;
  GThread *thread;
  gint device;
  guint flags;
};

static void
run_op (Op * op)
{
  gsize r;

  switch (op->type) {
    case OP_COPY:
      if (op->delay_us)
        g_usleep (op->delay_us);
      for (r = 0; r < op->height; r++) {
        guint8 *d = op->dst + r * op->dpitch;

        if (op->memset_value >= 0)
          memset (d, op->memset_value, op->width);
        else
          memmove (d, (op->staging ? op->staging : op->src) + r * op->spitch,
              op->width);
      }
      g_free (op->staging);
      break;
    case OP_SLEEP:
      g_usleep (op->delay_us);
      break;
    case OP_RECORD:
      event_complete (op->event, op->gen);
      event_unref (op->event);
      break;
    case OP_WAIT:
      event_wait (op->event, op->gen);
      event_unref (op->event);
      break;
    case OP_KERNEL:
      if (op->delay_us)
        g_usleep (op->delay_us);
      if (op->run)
        op->run (op->closure);
      break;
    case OP_HOST_FUNC:
      op->host_fn (op->closure);
      break;
    case OP_MARK:
      g_mutex_lock (op->mark_lock);
      *op->mark_done = TRUE;
      g_cond_broadcast (op->mark_cond);
      g_mutex_unlock (op->mark_lock);
      break;
    case OP_QUIT:
      break;
  }
}

static gpointer
stream_thread (gpointer data)
{
  struct CUstream_st *s = data;
  Op *op;

  for (;;) {
    gboolean quit;

    op = g_async_queue_pop (s->queue);
    quit = op->type == OP_QUIT;
    run_op (op);
    g_free (op);
    if (quit)
      break;
  }

  g_async_queue_unref (s->queue);
  g_free (s);
  return NULL;
}

/* Legacy default stream: the work runs in the caller, which is one valid
 * schedule of it (non-blocking streams never wait for it). */
static void
enqueue (cudaStream_t stream, Op * op)
{
  if (stream == NULL || stream == cudaStreamLegacy ||
      stream == cudaStreamPerThread) {
    run_op (op);
    g_free (op);
    return;
  }
  g_async_queue_push (stream->queue, op);
}

/* Blocks until everything enqueued on @stream so far has run. */
static void
stream_drain (cudaStream_t stream)
{
  GMutex mark_lock;
  GCond mark_cond;
  gboolean done = FALSE;
  Op *op;

  if (stream == NULL || stream == cudaStreamLegacy ||
      stream == cudaStreamPerThread)
    return;

  g_mutex_init (&mark_lock);
  g_cond_init (&mark_cond);
  op = g_new0 (Op, 1);
  op->type = OP_MARK;
  op->mark_lock = &mark_lock;
  op->mark_cond = &mark_cond;
  op->mark_done = &done;
  g_async_queue_push (stream->queue, op);

  g_mutex_lock (&mark_lock);
  while (!done)
    g_cond_wait (&mark_cond, &mark_lock);
  g_mutex_unlock (&mark_lock);
  g_mutex_clear (&mark_lock);
  g_cond_clear (&mark_cond);
}

/* ----------------------------------------------------------------------- */
/* Control interface */

int
fakecuda_version (void)
{
  return 1;
}

void
fakecuda_reset (void)
{
  g_mutex_lock (&lock);
  copy_delay_us = 0;
  g_list_free_full (injections, g_free);
  injections = NULL;
  g_mutex_unlock (&lock);
}

void
fakecuda_set_copy_delay (uint64_t usec)
{
  g_mutex_lock (&lock);
  copy_delay_us = usec;
  g_mutex_unlock (&lock);
}

cudaError_t
fakecuda_stream_sleep (cudaStream_t stream, uint64_t usec)
{
  Op *op = g_new0 (Op, 1);

  op->type = OP_SLEEP;
  op->delay_us = usec;
  enqueue (stream, op);
  return cudaSuccess;
}

void
fakecuda_fail (const char *function, unsigned skip, unsigned count,
    cudaError_t error)
{
  Injection *inj = g_new0 (Injection, 1);

  inj->function = g_strdup (function);
  inj->skip = skip;
  inj->count = count;
  inj->error = error;
  g_mutex_lock (&lock);
  injections = g_list_prepend (injections, inj);
  g_mutex_unlock (&lock);
}

uint64_t
fakecuda_call_count (const char *function)
{
  guint64 n;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  n = GPOINTER_TO_SIZE (g_hash_table_lookup (call_counts, function));
  g_mutex_unlock (&lock);

  return n;
}

void
fakecuda_register_kernel (const char *name, FakecudaKernelBind bind,
    FakecudaKernelRun run)
{
  KernelImpl *impl = g_new0 (KernelImpl, 1);

  impl->bind = bind;
  impl->run = run;
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_insert (kernel_impls, g_strdup (name), impl);
  g_mutex_unlock (&lock);
}

/* ----------------------------------------------------------------------- */
/* Errors and versions */

const char *CUDARTAPI
cudaGetErrorName (cudaError_t error)
{
  switch (error) {
#define E(x) case x: return #x;
      E (cudaSuccess) E (cudaErrorInvalidValue) E (cudaErrorMemoryAllocation)
          E (cudaErrorInitializationError) E (cudaErrorInvalidDevice)
          E (cudaErrorNoDevice) E (cudaErrorNotReady)
          E (cudaErrorInvalidResourceHandle) E (cudaErrorLaunchFailure)
          E (cudaErrorInsufficientDriver) E (cudaErrorIllegalAddress)
          E (cudaErrorInvalidMemcpyDirection) E (cudaErrorUnknown)
#undef E
    default:
      return "cudaErrorUnknown";
  }
}

const char *CUDARTAPI
cudaGetErrorString (cudaError_t error)
{
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    default:
      return "unknown error (fake CUDA runtime)";
  }
}

cudaError_t CUDARTAPI
cudaGetLastError (void)
{
  cudaError_t e = last_error;

  last_error = cudaSuccess;
  return e;
}

cudaError_t CUDARTAPI
cudaPeekAtLastError (void)
{
  return last_error;
}

cudaError_t CUDARTAPI
cudaDriverGetVersion (int *version)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  *version = driver_version;
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaRuntimeGetVersion (int *version)
{
  *version = CUDART_VERSION;
  return cudaSuccess;
}

/* ----------------------------------------------------------------------- */
/* Devices */

cudaError_t CUDARTAPI
cudaGetDeviceCount (int *count)
{
  *count = 0;
  ENTER (FALSE);
  if (driver_version < CUDART_VERSION)
    return set_error (cudaErrorInsufficientDriver);
  g_mutex_lock (&lock);
  *count = n_devices;
  g_mutex_unlock (&lock);
  return *count == 0 ? set_error (cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t CUDARTAPI
cudaGetDevice (int *device)
{
  ENTER (TRUE);
  *device = current_device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaSetDevice (int device)
{
  ENTER (TRUE);
  if (device < 0 || device >= n_devices)
    return set_error (cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaSetDeviceFlags (unsigned int flags)
{
  ENTER (TRUE);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device)
{
  ENTER (TRUE);
  if (device < 0 || device >= n_devices)
    return set_error (cudaErrorInvalidDevice);
  memset (prop, 0, sizeof (*prop));
  g_snprintf (prop->name, sizeof (prop->name), "Fake CUDA device %d", device);
  prop->major = 9;
  prop->minor = 0;
  prop->totalGlobalMem = device_memory;
  prop->multiProcessorCount = 4;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int device)
{
  ENTER (TRUE);
  if (device < 0 || device >= n_devices)
    return set_error (cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMultiProcessorCount:
      *value = 4;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = 2;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = 9;
      break;
    default:
      *value = 0;
      break;
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaDeviceSynchronize (void)
{
  GList *l, *copy;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  copy = g_list_copy (streams);
  g_mutex_unlock (&lock);
  for (l = copy; l; l = l->next)
    stream_drain (l->data);
  g_list_free (copy);
  return cudaSuccess;
}

/* ----------------------------------------------------------------------- */
/* Streams */

cudaError_t CUDARTAPI
cudaStreamCreateWithFlags (cudaStream_t * stream, unsigned int flags)
{
  struct CUstream_st *s;

  ENTER (TRUE);
  s = g_new0 (struct CUstream_st, 1);
  s->queue = g_async_queue_new ();
  s->device = current_device;
  s->flags = flags;
  /* The thread owns a reference to the queue and frees the stream. */
  g_async_queue_ref (s->queue);
  s->thread = g_thread_new ("fakecuda-stream", stream_thread, s);
  g_thread_unref (s->thread);

  g_mutex_lock (&lock);
  streams = g_list_prepend (streams, s);
  g_mutex_unlock (&lock);

  *stream = s;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamCreate (cudaStream_t * stream)
{
  return cudaStreamCreateWithFlags (stream, cudaStreamDefault);
}

cudaError_t CUDARTAPI
cudaStreamDestroy (cudaStream_t stream)
{
  Op *op;

  ENTER (TRUE);
  if (stream == NULL)
    return set_error (cudaErrorInvalidResourceHandle);

  g_mutex_lock (&lock);
  streams = g_list_remove (streams, stream);
  g_mutex_unlock (&lock);

  /* Queued work still runs; then the thread frees the stream. */
  g_async_queue_unref (stream->queue);
  op = g_new0 (Op, 1);
  op->type = OP_QUIT;
  g_async_queue_push (stream->queue, op);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamSynchronize (cudaStream_t stream)
{
  ENTER (TRUE);
  stream_drain (stream);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamQuery (cudaStream_t stream)
{
  ENTER (TRUE);
  if (stream == NULL)
    return cudaSuccess;
  return g_async_queue_length (stream->queue) > 0 ?
      cudaErrorNotReady : cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
  Op *op;

  ENTER (TRUE);
  if (event == NULL)
    return set_error (cudaErrorInvalidResourceHandle);

  op = g_new0 (Op, 1);
  op->type = OP_WAIT;
  op->event = event_ref (event);
  g_mutex_lock (&event->lock);
  op->gen = event->recorded;
  g_mutex_unlock (&event->lock);
  enqueue (stream, op);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaLaunchHostFunc (cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
  Op *op;

  ENTER (TRUE);
  op = g_new0 (Op, 1);
  op->type = OP_HOST_FUNC;
  op->host_fn = fn;
  op->closure = user_data;
  enqueue (stream, op);
  return cudaSuccess;
}

/* ----------------------------------------------------------------------- */
/* Events */

cudaError_t CUDARTAPI
cudaEventCreateWithFlags (cudaEvent_t * event, unsigned int flags)
{
  struct CUevent_st *ev;

  ENTER (TRUE);
  ev = g_new0 (struct CUevent_st, 1);
  ev->refcount = 1;
  g_mutex_init (&ev->lock);
  g_cond_init (&ev->cond);
  ev->flags = flags;
  ev->device = current_device;
  *event = ev;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventCreate (cudaEvent_t * event)
{
  return cudaEventCreateWithFlags (event, cudaEventDefault);
}

cudaError_t CUDARTAPI
cudaEventDestroy (cudaEvent_t event)
{
  ENTER (TRUE);
  if (event == NULL)
    return set_error (cudaErrorInvalidResourceHandle);
  event_unref (event);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  Op *op;

  ENTER (TRUE);
  if (event == NULL)
    return set_error (cudaErrorInvalidResourceHandle);
  /* As CUDA: the event and the stream must be of the same device. */
  if (stream != NULL && stream != cudaStreamLegacy &&
      stream != cudaStreamPerThread && stream->device != event->device)
    return set_error (cudaErrorInvalidResourceHandle);

  op = g_new0 (Op, 1);
  op->type = OP_RECORD;
  op->event = event_ref (event);
  g_mutex_lock (&event->lock);
  op->gen = ++event->recorded;
  g_mutex_unlock (&event->lock);
  enqueue (stream, op);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventQuery (cudaEvent_t event)
{
  cudaError_t ret;

  ENTER (TRUE);
  g_mutex_lock (&event->lock);
  ret = event->completed >= event->recorded ? cudaSuccess : cudaErrorNotReady;
  g_mutex_unlock (&event->lock);
  return ret;
}

cudaError_t CUDARTAPI
cudaEventSynchronize (cudaEvent_t event)
{
  guint64 gen;

  ENTER (TRUE);
  g_mutex_lock (&event->lock);
  gen = event->recorded;
  g_mutex_unlock (&event->lock);
  event_wait (event, gen);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
  ENTER (TRUE);
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return set_error (cudaErrorInvalidResourceHandle);
  if (start->completed < start->recorded || end->completed < end->recorded)
    return cudaErrorNotReady;
  *ms = (end->time_us - start->time_us) / 1000.0f;
  return cudaSuccess;
}

/* ----------------------------------------------------------------------- */
/* Memory */

cudaError_t CUDARTAPI
cudaMalloc (void **ptr, size_t size)
{
  DevAlloc *a;
  gsize page = sysconf (_SC_PAGESIZE);

  ENTER (TRUE);
  g_mutex_lock (&lock);
  if (device_used[current_device] + size > device_memory) {
    g_mutex_unlock (&lock);
    return set_error (cudaErrorMemoryAllocation);
  }
  device_used[current_device] += size;
  g_mutex_unlock (&lock);

  a = g_new0 (DevAlloc, 1);
  a->reserved = MAX (page, (size + page - 1) / page * page);
  a->handle = mmap (NULL, a->reserved, PROT_NONE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  a->backing = g_malloc (MAX (size, 1));
  a->size = size;
  a->device = current_device;
  if (a->handle == MAP_FAILED) {
    g_free (a->backing);
    g_free (a);
    return set_error (cudaErrorMemoryAllocation);
  }
  /* Fresh device memory is not zero on a GPU either. */
  memset (a->backing, 0xa5, size);

  g_mutex_lock (&lock);
  dev_allocs = g_list_prepend (dev_allocs, a);
  g_mutex_unlock (&lock);

  *ptr = a->handle;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaFree (void *ptr)
{
  GList *l;
  DevAlloc *a = NULL;

  ENTER (TRUE);
  if (ptr == NULL)
    return cudaSuccess;

  g_mutex_lock (&lock);
  for (l = dev_allocs; l; l = l->next) {
    if (((DevAlloc *) l->data)->handle == ptr) {
      a = l->data;
      dev_allocs = g_list_delete_link (dev_allocs, l);
      device_used[a->device] -= a->size;
      break;
    }
  }
  g_mutex_unlock (&lock);

  if (a == NULL)
    return set_error (cudaErrorInvalidValue);

  munmap (a->handle, a->reserved);
  g_free (a->backing);
  g_free (a);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostAlloc (void **ptr, size_t size, unsigned int flags)
{
  HostAlloc *a;

  ENTER (TRUE);
  a = g_new0 (HostAlloc, 1);
  a->ptr = g_aligned_alloc (1, MAX (size, 1), 4096);
  a->size = size;
  a->flags = flags;
  memset (a->ptr, 0x5a, size);

  g_mutex_lock (&lock);
  host_allocs = g_list_prepend (host_allocs, a);
  g_mutex_unlock (&lock);

  *ptr = a->ptr;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMallocHost (void **ptr, size_t size)
{
  return cudaHostAlloc (ptr, size, cudaHostAllocDefault);
}

cudaError_t CUDARTAPI
cudaFreeHost (void *ptr)
{
  GList *l;
  HostAlloc *a = NULL;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  for (l = host_allocs; l; l = l->next) {
    if (((HostAlloc *) l->data)->ptr == ptr &&
        !((HostAlloc *) l->data)->registered) {
      a = l->data;
      host_allocs = g_list_delete_link (host_allocs, l);
      break;
    }
  }
  g_mutex_unlock (&lock);

  if (a == NULL)
    return set_error (cudaErrorInvalidValue);
  g_aligned_free (a->ptr);
  g_free (a);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostRegister (void *ptr, size_t size, unsigned int flags)
{
  HostAlloc *a;
  GList *l;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  /* As CUDA: pages that are page-locked already (an overlapping
   * registration, a cudaHostAlloc) cannot be registered again. */
  for (l = host_allocs; l; l = l->next) {
    HostAlloc *h = l->data;

    if ((guint8 *) ptr < h->ptr + h->size && h->ptr < (guint8 *) ptr + size) {
      g_mutex_unlock (&lock);
      return set_error (cudaErrorHostMemoryAlreadyRegistered);
    }
  }
  a = g_new0 (HostAlloc, 1);
  a->ptr = ptr;
  a->size = size;
  a->registered = TRUE;
  a->flags = flags;
  host_allocs = g_list_prepend (host_allocs, a);
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostUnregister (void *ptr)
{
  GList *l;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  for (l = host_allocs; l; l = l->next) {
    HostAlloc *a = l->data;

    if (a->ptr == ptr && a->registered) {
      host_allocs = g_list_delete_link (host_allocs, l);
      g_free (a);
      g_mutex_unlock (&lock);
      return cudaSuccess;
    }
  }
  g_mutex_unlock (&lock);
  return set_error (cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI
cudaHostGetFlags (unsigned int *flags, void *ptr)
{
  HostAlloc *h;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  h = find_host_locked (ptr);
  if (h && !h->registered)
    *flags = h->flags;
  g_mutex_unlock (&lock);
  return h && !h->registered ? cudaSuccess :
      set_error (cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI
cudaPointerGetAttributes (struct cudaPointerAttributes *attr, const void *ptr)
{
  DevAlloc *d;
  HostAlloc *h;

  ENTER (TRUE);
  memset (attr, 0, sizeof (*attr));
  g_mutex_lock (&lock);
  d = find_dev_locked (ptr, 0);
  h = d ? NULL : find_host_locked (ptr);
  if (d) {
    attr->type = cudaMemoryTypeDevice;
    attr->device = d->device;
    attr->devicePointer = (void *) ptr;
  } else if (h) {
    attr->type = cudaMemoryTypeHost;
    attr->hostPointer = (void *) ptr;
    attr->devicePointer = (void *) ptr;
  } else {
    attr->type = cudaMemoryTypeUnregistered;
  }
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

/* Resolves one side of a copy: device pointers to their storage, with the
 * range checked; host pointers as they are. */
static cudaError_t
resolve (const void *ptr, gsize extent, gboolean want_device, guint8 ** out,
    gboolean * pinned)
{
  DevAlloc *d;

  g_mutex_lock (&lock);
  if (is_device_locked (ptr)) {
    if (!want_device) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    d = find_dev_locked (ptr, extent);
    if (d == NULL) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    *out = d->backing + ((const guint8 *) ptr - (const guint8 *) d->handle);
    *pinned = TRUE;
  } else {
    HostAlloc *h;

    if (want_device) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    h = find_host_locked (ptr);
    if (h && (const guint8 *) ptr + extent > h->ptr + h->size) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    *out = (guint8 *) ptr;
    *pinned = h != NULL;
  }
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

static gboolean
kind_sides (enum cudaMemcpyKind kind, const void *dst, const void *src,
    gboolean * dst_device, gboolean * src_device)
{
  switch (kind) {
    case cudaMemcpyHostToHost:
      *src_device = *dst_device = FALSE;
      return TRUE;
    case cudaMemcpyHostToDevice:
      *src_device = FALSE;
      *dst_device = TRUE;
      return TRUE;
    case cudaMemcpyDeviceToHost:
      *src_device = TRUE;
      *dst_device = FALSE;
      return TRUE;
    case cudaMemcpyDeviceToDevice:
      *src_device = *dst_device = TRUE;
      return TRUE;
    case cudaMemcpyDefault:
      g_mutex_lock (&lock);
      *src_device = is_device_locked (src);
      *dst_device = is_device_locked (dst);
      g_mutex_unlock (&lock);
      return TRUE;
    default:
      return FALSE;
  }
}

static cudaError_t
copy_2d (void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream, gboolean sync)
{
  gboolean dst_device, src_device, dst_pinned, src_pinned;
  guint8 *d, *s;
  gsize dext, sext;
  cudaError_t err;
  Op *op;

  if (height == 0 || width == 0)
    return cudaSuccess;
  if ((height > 1 && (dpitch < width || spitch < width)))
    return set_error (cudaErrorInvalidValue);
  if (!kind_sides (kind, dst, src, &dst_device, &src_device))
    return set_error (cudaErrorInvalidMemcpyDirection);

  dext = dpitch * (height - 1) + width;
  sext = spitch * (height - 1) + width;
  if ((err = resolve (dst, dext, dst_device, &d, &dst_pinned)) != cudaSuccess ||
      (err = resolve (src, sext, src_device, &s, &src_pinned)) != cudaSuccess)
    return set_error (err);

  op = g_new0 (Op, 1);
  op->type = OP_COPY;
  op->dst = d;
  op->src = s;
  op->dpitch = height > 1 ? dpitch : width;
  op->spitch = height > 1 ? spitch : width;
  op->width = width;
  op->height = height;
  op->memset_value = -1;
  g_mutex_lock (&lock);
  op->delay_us = copy_delay_us;
  g_mutex_unlock (&lock);

  /* A pageable source is staged at the call: the caller may reuse it. */
  if (!src_pinned) {
    gsize r;

    op->staging = g_malloc (width * height);
    for (r = 0; r < height; r++)
      memcpy (op->staging + r * width, s + r * spitch, width);
    op->spitch = width;
  }

  enqueue (stream, op);

  /* Into pageable memory, or a synchronous copy: return once it is done. */
  if (sync || !dst_pinned)
    stream_drain (stream);

  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMemcpyAsync (void *dst, const void *src, size_t count,
    enum cudaMemcpyKind kind, cudaStream_t stream)
{
  ENTER (TRUE);
  return copy_2d (dst, count, src, count, count, 1, kind, stream, FALSE);
}

cudaError_t CUDARTAPI
cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  ENTER (TRUE);
  return copy_2d (dst, dpitch, src, spitch, width, height, kind, stream, FALSE);
}

cudaError_t CUDARTAPI
cudaMemcpy (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
  ENTER (TRUE);
  return copy_2d (dst, count, src, count, count, 1, kind, NULL, TRUE);
}

cudaError_t CUDARTAPI
cudaMemcpy2D (void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind)
{
  ENTER (TRUE);
  return copy_2d (dst, dpitch, src, spitch, width, height, kind, NULL, TRUE);
}

static cudaError_t
do_memset (void *dst, int value, size_t count, cudaStream_t stream)
{
  gboolean pinned;
  guint8 *d;
  cudaError_t err;
  Op *op;

  if ((err = resolve (dst, count, TRUE, &d, &pinned)) != cudaSuccess)
    return set_error (err);

  op = g_new0 (Op, 1);
  op->type = OP_COPY;
  op->dst = d;
  op->dpitch = count;
  op->width = count;
  op->height = 1;
  op->memset_value = value & 0xff;
  enqueue (stream, op);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMemsetAsync (void *dst, int value, size_t count, cudaStream_t stream)
{
  ENTER (TRUE);
  return do_memset (dst, value, count, stream);
}

cudaError_t CUDARTAPI
cudaMemset (void *dst, int value, size_t count)
{
  ENTER (TRUE);
  return do_memset (dst, value, count, NULL);
}

/* ----------------------------------------------------------------------- */
/* Kernels: what nvcc's generated host code calls. A launch is ordered on
 * its stream like any work; it runs a CPU version registered with
 * fakecuda_register_kernel(), or nothing. */

/* nvcc's generated code declares these; C callers never see them. */
void **CUDARTAPI __cudaRegisterFatBinary (void *fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd (void **handle);
void CUDARTAPI __cudaUnregisterFatBinary (void **handle);
char CUDARTAPI __cudaInitModule (void **handle);
void CUDARTAPI __cudaRegisterFunction (void **handle, const char *hostFun,
    char *deviceFun, const char *deviceName, int thread_limit, uint3 * tid,
    uint3 * bid, dim3 * bDim, dim3 * gDim, int *wSize);
void CUDARTAPI __cudaRegisterVar (void **handle, char *hostVar,
    char *deviceAddress, const char *deviceName, int ext, size_t size,
    int constant, int global);
unsigned CUDARTAPI __cudaPushCallConfiguration (dim3 grid, dim3 block,
    size_t shmem, struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration (dim3 * grid, dim3 * block,
    size_t *shmem, void *stream);
cudaError_t CUDARTAPI __cudaGetKernel (cudaKernel_t * kernel, const void *func);
cudaError_t CUDARTAPI __cudaLaunchKernel (cudaKernel_t kernel, dim3 grid,
    dim3 block, void **args, size_t shmem, cudaStream_t stream);

static void *fatbin_handle[1];

void **CUDARTAPI
__cudaRegisterFatBinary (void *fatCubin)
{
  return fatbin_handle;
}

void CUDARTAPI
__cudaRegisterFatBinaryEnd (void **handle)
{
}

void CUDARTAPI
__cudaUnregisterFatBinary (void **handle)
{
}

char CUDARTAPI
__cudaInitModule (void **handle)
{
  return 1;
}

void CUDARTAPI
__cudaRegisterFunction (void **handle, const char *hostFun, char *deviceFun,
    const char *deviceName, int thread_limit, uint3 * tid, uint3 * bid,
    dim3 * bDim, dim3 * gDim, int *wSize)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_insert (kernel_names, (gpointer) hostFun, g_strdup (deviceName));
  g_mutex_unlock (&lock);
}

void CUDARTAPI
__cudaRegisterVar (void **handle, char *hostVar, char *deviceAddress,
    const char *deviceName, int ext, size_t size, int constant, int global)
{
}

unsigned CUDARTAPI
__cudaPushCallConfiguration (dim3 grid, dim3 block, size_t shmem,
    struct CUstream_st *stream)
{
  launch_config.grid = grid;
  launch_config.block = block;
  launch_config.shmem = shmem;
  launch_config.stream = stream;
  return 0;
}

cudaError_t CUDARTAPI
__cudaPopCallConfiguration (dim3 * grid, dim3 * block, size_t *shmem,
    void *stream)
{
  *grid = launch_config.grid;
  *block = launch_config.block;
  *shmem = launch_config.shmem;
  *(cudaStream_t *) stream = launch_config.stream;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
__cudaGetKernel (cudaKernel_t * kernel, const void *func)
{
  *kernel = (cudaKernel_t) func;
  return cudaSuccess;
}

static cudaError_t
launch (const void *func, dim3 grid, dim3 block, void **args,
    cudaStream_t stream)
{
  const gchar *name;
  KernelImpl *impl = NULL;
  gchar *counter;
  Op *op;

  if (grid.x * grid.y * grid.z == 0 || block.x * block.y * block.z == 0)
    return set_error (cudaErrorInvalidValue);

  g_mutex_lock (&lock);
  ensure_init_locked ();
  name = g_hash_table_lookup (kernel_names, func);
  if (name)
    impl = g_hash_table_lookup (kernel_impls, name);
  g_mutex_unlock (&lock);

  /* Counted per kernel too, as "launch:NAME". */
  counter = g_strdup_printf ("launch:%s", name ? name : "?");
  enter (counter, FALSE);
  g_free (counter);

  op = g_new0 (Op, 1);
  op->type = OP_KERNEL;
  if (impl) {
    op->run = impl->run;
    op->closure = impl->bind (args, grid, block);
  }
  enqueue (stream, op);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
__cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
    size_t shmem, cudaStream_t stream)
{
  ENTER (TRUE);
  return launch (kernel, grid, block, args, stream);
}

cudaError_t CUDARTAPI
cudaLaunchKernel (const void *func, dim3 grid, dim3 block, void **args,
    size_t shmem, cudaStream_t stream)
{
  ENTER (TRUE);
  return launch (func, grid, block, args, stream);
}
