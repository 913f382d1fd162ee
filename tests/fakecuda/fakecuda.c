/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A GPU-less stand-in for the CUDA runtime calls gst-pinned uses. Built
 * with the soname of the toolkit's runtime (libcudart.so.12 or .13) and
 * found before the real one through LD_LIBRARY_PATH by the test suites
 * only; the product always links the real runtime.
 *
 * The model, never kinder than CUDA where that could hide a bug:
 * - a stream is a thread that runs its work in FIFO order, off the calling
 *   thread; so is each device's legacy default stream, which synchronizes
 *   with the device's blocking streams as CUDA documents; stream handles
 *   are reused, as CUDA's are;
 * - an event completes when its stream reaches it; cudaStreamWaitEvent()
 *   holds a stream until the event's latest record at call time completes;
 * - a copy from page-locked memory reads it when the stream reaches the
 *   copy, which fakecuda_set_copy_delay() can postpone; a held-back copy
 *   lands in pieces over its delay (an early reader sees a torn frame); a
 *   copy from pageable memory snapshots it at the call, and one into
 *   pageable memory returns when done, as CUDA documents;
 * - device memory is a reservation the CPU cannot touch (PROT_NONE), its
 *   bytes live elsewhere: dereferencing a device pointer on the CPU faults;
 * - copies are checked against the allocations they touch (device,
 *   page-locked, and pageable buffers whose bounds a test gave) and the
 *   direction they claim;
 * - cudaFree() and cudaFreeHost() do not synchronize (CUDA's do): freeing
 *   memory that queued work still touches aborts with a message;
 * - munmap() of pages still registered with cudaHostRegister() aborts with
 *   a message (CUDA keeps them page-locked past the mapping);
 * - any call can be made to fail at once (fakecuda_fail()), and work can
 *   fail when its stream reaches it (fakecuda_fail_async(), or a kernel
 *   emulation that calls fakecuda_kernel_fault()): the error shows at the
 *   next query or synchronization and sticks to the device, whose queued
 *   work, on every stream, is dropped from then on (never runs), as on a
 *   GPU whose context an error killed.
 *
 * Environment: FAKECUDA_DEVICES (default 1; 0 = no device),
 * FAKECUDA_DEVICE_MEMORY (bytes per device, default 16 GiB),
 * FAKECUDA_RUNTIME_VERSION (what cudaRuntimeGetVersion() answers: the
 * headers' version for CUDA 13, 12.9 for CUDA 12; a version before 12.8
 * is a runtime without cudaMemcpyBatchAsync, which then fails). */

#include <glib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef FAKECUDA_CATCH_MUNMAP
#include <stdlib.h>
#include <sys/syscall.h>
#endif

#include <cuda_runtime_api.h>
#include "fakecuda.h"

#define MAX_DEVICES 64
#define DEFAULT_COPY_PIECES 4

/* ----------------------------------------------------------------------- */
/* Global state */

typedef struct
{
  gpointer handle;              /* what the caller sees: PROT_NONE */
  gsize reserved;
  guint8 *backing;
  gsize size;
  gint device;
  guintptr context;             /* the driver context it was made in: 0,
                                 * the device's primary context */
  gint pending;                 /* queued operations that touch it */
} DevAlloc;

typedef enum
{
  HOST_ALLOCATED,               /* cudaHostAlloc: page-locked, ours */
  HOST_REGISTERED,              /* cudaHostRegister: page-locked, not ours */
  HOST_TRACKED,                 /* pageable, its bounds told by a test */
} HostKind;

typedef struct
{
  guint8 *ptr;
  gsize size;
  HostKind kind;
  gint pending;
  guint flags;                  /* of cudaHostAlloc or cudaHostRegister */
} HostAlloc;

typedef struct
{
  gchar *function;
  guint skip;
  guint count;
  cudaError_t error;
  gboolean deferred;            /* fails when the stream gets there */
} Injection;

typedef struct
{
  FakecudaKernelBind bind;
  FakecudaKernelRun run;
} KernelImpl;

static GMutex lock;
/* An operation let go of an allocation. */
static GCond pending_cond;
static GList *dev_allocs;
static GList *host_allocs;
static GList *injections;
static GHashTable *call_counts;
static GHashTable *kernel_names;        /* host stub -> device name */
static GHashTable *kernel_impls;        /* device name -> KernelImpl */
static guint64 copy_delay_us;
static guint copy_pieces = DEFAULT_COPY_PIECES;
/* An asynchronous failure poisons its device until fakecuda_reset(). */
static cudaError_t sticky_error[MAX_DEVICES];
static gint n_devices = -1;
/* FAKECUDA_BOUNDS=abort: a copy past the end of an allocation it names
 * (device, page-locked, a tracked pageable buffer) aborts instead of
 * failing, so that a fuzzer sees a crash where an element would only
 * report a failed copy; =host: past host allocations only. */
static gboolean bounds_abort_device, bounds_abort_host;

/* Read at the first copy, not with the rest: a program's kernels register
 * at load, before a fuzz target's initialisation sets it. */
static void
ensure_bounds (void)
{
  static gsize done;

  if (g_once_init_enter (&done)) {
    const gchar *env = g_getenv ("FAKECUDA_BOUNDS");

    bounds_abort_device = g_strcmp0 (env, "abort") == 0;
    bounds_abort_host = bounds_abort_device || g_strcmp0 (env, "host") == 0;
    g_once_init_leave (&done, 1);
  }
}

/* FAKECUDA_DRIVER: "none" (no driver library: the runtime reports version
 * 0), "old" (a driver too old for the runtime), else a working one. */
static gint driver_version = CUDART_VERSION;
/* FAKECUDA_RUNTIME_VERSION. A CUDA 12 build finds the batch call at run
 * time on 12.8 and later, so the stand-in of a 12 runtime is a 12.9. */
#if CUDART_VERSION >= 13000
static gint runtime_version = CUDART_VERSION;
#else
static gint runtime_version = MAX (CUDART_VERSION, 12090);
#endif
/* Bytes per device (FAKECUDA_DEVICE_MEMORY), and those in use. */
static guint64 device_memory = (guint64) 16 << 30;
static guint64 device_used[MAX_DEVICES];

static __thread gint current_device;
/* The calling thread's driver context (fakecuda_make_current_context()):
 * 0, the primary context of current_device, which the runtime uses. */
static __thread guintptr current_context;
static __thread cudaError_t last_error;
/* A deferred failure injected into the call being made. */
static __thread cudaError_t deferred_error;
/* The calls this thread made. */
static __thread guint64 thread_calls;
/* Set while a host function runs: CUDA forbids it CUDA calls. */
static __thread gboolean in_host_function;

typedef struct
{
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
} LaunchConfig;

static __thread LaunchConfig launch_config;

static void
ensure_init_locked (void)
{
  const gchar *env;

  if (n_devices >= 0)
    return;

  env = g_getenv ("FAKECUDA_DEVICES");
  n_devices = env ? (gint) g_ascii_strtoll (env, NULL, 10) : 1;
  n_devices = CLAMP (n_devices, 0, MAX_DEVICES);
  env = g_getenv ("FAKECUDA_DRIVER");
  if (g_strcmp0 (env, "none") == 0)
    driver_version = 0;
  else if (g_strcmp0 (env, "old") == 0)
    driver_version = 11000;
  env = g_getenv ("FAKECUDA_DEVICE_MEMORY");
  if (env)
    device_memory = g_ascii_strtoull (env, NULL, 10);
  env = g_getenv ("FAKECUDA_RUNTIME_VERSION");
  if (env)
    runtime_version = (gint) g_ascii_strtoll (env, NULL, 10);
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

static cudaError_t
sticky_of (gint device)
{
  cudaError_t error;

  g_mutex_lock (&lock);
  error = sticky_error[device];
  g_mutex_unlock (&lock);
  return error;
}

static gboolean
any_sticky_locked (void)
{
  gint i;

  for (i = 0; i < MAX_DEVICES; i++) {
    if (sticky_error[i] != cudaSuccess)
      return TRUE;
  }
  return FALSE;
}

static void
poison (gint device, cudaError_t error)
{
  g_mutex_lock (&lock);
  if (sticky_error[device] == cudaSuccess)
    sticky_error[device] = error;
  g_cond_broadcast (&pending_cond);
  g_mutex_unlock (&lock);
}

/* Counts an answer of note under its own name ("function:answer"), for
 * tests that check which answers a caller provokes. */
static void
count_answer (const gchar * name)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_insert (call_counts, g_strdup (name),
      GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (call_counts,
                  name)) + 1));
  g_mutex_unlock (&lock);
}

/* Counts the call, applies injected failures (a deferred one is left in
 * deferred_error for the operation the call enqueues), the no-device case
 * and a poisoned device's sticky error. */
static cudaError_t
enter (const gchar * function, gboolean needs_device)
{
  cudaError_t ret = cudaSuccess;
  GList *l;

  deferred_error = cudaSuccess;
  thread_calls++;
  if (in_host_function) {
    /* CUDA answers cudaErrorNotPermitted (and may hang): loud here. */
    g_critical ("fakecuda: %s called from a host function", function);
    return cudaErrorNotPermitted;
  }
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_insert (call_counts, g_strdup (function),
      GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (call_counts,
                  function)) + 1));

  for (l = injections; l; l = l->next) {
    Injection *inj = l->data;

    if (strcmp (inj->function, function) != 0 ||
        (inj->skip == 0 && inj->count == 0))
      continue;
    if (inj->skip > 0) {
      inj->skip--;
    } else {
      inj->count--;
      if (inj->deferred)
        deferred_error = inj->error;
      else
        ret = inj->error;
    }
    break;
  }

  if (ret == cudaSuccess && needs_device && driver_version < CUDART_VERSION)
    ret = cudaErrorInsufficientDriver;
  else if (ret == cudaSuccess && needs_device && n_devices == 0)
    ret = cudaErrorNoDevice;
  else if (ret == cudaSuccess && needs_device)
    ret = sticky_error[current_device];
  g_mutex_unlock (&lock);

  return ret;
}

#define ENTER(needs_device) G_STMT_START {                        \
  cudaError_t _err = enter (G_STRFUNC, needs_device);               \
  if (_err != cudaSuccess)                                          \
    return set_error (_err);                                        \
} G_STMT_END

/* Calls that release something still do so on a poisoned device, and
 * return its error, as CUDA's do. */
#define ENTER_RELEASE(sticky) G_STMT_START {                      \
  cudaError_t _err = enter (G_STRFUNC, TRUE);                       \
  sticky = sticky_of (current_device);                              \
  if (_err != cudaSuccess && _err != sticky)                        \
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

/* The host allocation holding @ptr: page-locked ones first, then the
 * pageable ranges tests told of. */
static HostAlloc *
find_host_locked (const void *ptr)
{
  HostAlloc *tracked = NULL;
  GList *l;

  for (l = host_allocs; l; l = l->next) {
    HostAlloc *a = l->data;
    const guint8 *p = ptr;

    if (p >= a->ptr && p < a->ptr + a->size) {
      if (a->kind != HOST_TRACKED)
        return a;
      tracked = a;
    }
  }
  return tracked;
}

/* Memory is let go while queued work still touches it. CUDA's cudaFree()
 * and cudaFreeHost() would synchronize the device first; the stand-in's
 * do not, so that code which frees without waiting for its fences fails
 * here, loudly, instead of working by the grace of that synchronization.
 * On a poisoned device the queued work only drains, touching nothing. */
static void
check_unused_locked (const gchar * function, const void *ptr, gint * pending)
{
  while (*pending > 0) {
    if (!any_sticky_locked ()) {
      g_printerr ("fakecuda: %s (%p) while %d queued operation(s) still "
          "use the memory. CUDA would synchronize the device here; the "
          "stand-in does not, so that a missing fence wait shows.\n",
          function, ptr, *pending);
      abort ();
    }
    g_cond_wait (&pending_cond, &lock);
  }
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

static gboolean
event_reached (struct CUevent_st *ev, guint64 gen)
{
  gboolean reached;

  g_mutex_lock (&ev->lock);
  reached = ev->completed >= gen;
  g_mutex_unlock (&ev->lock);
  return reached;
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
  OP_WAIT_STREAM,
  OP_KERNEL,
  OP_HOST_FUNC,
  OP_FREE,
  OP_QUIT,
} OpType;

typedef struct _Stream Stream;

/* On a stream's thread: the stream whose work it runs. */
static __thread Stream *running_stream;

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
  guint pieces;                 /* lands in this many parts over the delay */
  gint engine;                  /* OP_COPY: ENGINE_* it runs on */
  gint *pending[2];             /* of the allocations it touches */
  /* OP_COPY, OP_KERNEL: fails when reached, poisoning the device */
  cudaError_t error;
  /* OP_RECORD, OP_WAIT */
  struct CUevent_st *event;
  guint64 gen;
  /* OP_WAIT_STREAM: until @other has run @gen operations */
  Stream *other;
  /* OP_FREE: the allocation cudaFreeAsync() gives back when reached */
  gpointer alloc;
  /* OP_KERNEL, OP_HOST_FUNC */
  FakecudaKernelRun run;
  void *closure;
  cudaHostFn_t host_fn;
} Op;

/* A stream's work runs on a thread of its own, in FIFO order. The legacy
 * default stream of each device is one too: its work is as asynchronous
 * as any stream's. */
struct _Stream
{
  gint refcount;
  GAsyncQueue *queue;
  gint device;
  guint flags;
  gboolean legacy;
  /* Operations pushed (under the global lock) and run (under @lock). */
  guint64 enqueued;
  GMutex lock;
  GCond cond;
  guint64 completed;
  GThread *thread;
};

/* What a cudaStream_t points to. CUDA reuses the handles of destroyed
 * streams, and so does the stand-in (the most recently destroyed first):
 * a handle says nothing about which stream it was. */
struct CUstream_st
{
  Stream *impl;                 /* NULL once destroyed */
};

/* The copy engines of a device, one each way, shared by its streams as
 * the GPU shares them within a context: the stream that has an engine
 * keeps it while its queue holds more work, and another stream's copy
 * that way waits until that queue runs empty or reaches a wait; then the
 * engine goes to the stream that has waited longest, as the GPU switches
 * to a queue with work at once (a released engine that anyone could grab
 * would go to whichever thread the host's scheduler runs first). A stream
 * has one engine at a time. (Copies of a held-back delay show it.) */
enum
{
  ENGINE_NONE = -1,
  ENGINE_TO_DEVICE,
  ENGINE_TO_HOST,
};

typedef struct
{
  GMutex lock;
  GCond cond;
  Stream *owner;
  GQueue waiting;               /* streams, longest waiting first */
} Engine;

static Engine engines[MAX_DEVICES][2];

static Stream *legacy_streams[MAX_DEVICES];
static GList *streams;          /* every Stream whose thread runs */
/* The threads of destroyed streams that have ended, not joined yet: CUDA
 * destroys a stream without waiting for its work, so its thread ends on
 * its own; it is joined later (fakecuda_join_ended_streams()).
 * @n_ending: destroyed streams whose threads have not ended yet, signalled
 * on @ended_cond as each ends. */
static GList *ended_threads;
static guint n_ending;
static GCond ended_cond;
static GSList *free_handles;

static Stream *
stream_ref (Stream * s)
{
  g_atomic_int_inc (&s->refcount);
  return s;
}

static void
stream_unref (Stream * s)
{
  if (!g_atomic_int_dec_and_test (&s->refcount))
    return;
  g_async_queue_unref (s->queue);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

/* Bytes [from, to) of a copy, counted row after row. */
static void
copy_bytes (Op * op, gsize from, gsize to)
{
  while (from < to) {
    gsize row = from / op->width, col = from % op->width;
    gsize n = MIN (op->width - col, to - from);
    guint8 *d = op->dst + row * op->dpitch + col;

    if (op->memset_value >= 0)
      memset (d, op->memset_value, n);
    else
      memmove (d, op->src + row * op->spitch + col, n);
    from += n;
  }
}

/* A held-back copy lands in pieces spread over its delay, as a copy engine
 * moves a frame bit by bit: a reader that looks early sees a torn frame. */
static void
run_copy (Stream * s, Op * op)
{
  gsize total = op->width * op->height;
  guint k, pieces = MAX (op->pieces, 1);

  for (k = 0; k < pieces; k++) {
    if (op->delay_us)
      g_usleep (op->delay_us / pieces);
    /* Another stream's failure stops the device's work. */
    if (sticky_of (s->device) != cudaSuccess)
      return;
    copy_bytes (op, total * k / pieces, total * (k + 1) / pieces);
  }
}

static void dev_free (gpointer alloc, const gchar * function);

static void
run_op (Stream * s, Op * op)
{
  /* After an asynchronous failure the device's work only drains: it moves
   * no byte, but events still complete, so that nothing waits forever. */
  gboolean dead = sticky_of (s->device) != cudaSuccess;

  if (!dead && op->error != cudaSuccess) {
    poison (s->device, op->error);
    dead = TRUE;
  }

  switch (op->type) {
    case OP_COPY:
      if (!dead)
        run_copy (s, op);
      break;
    case OP_SLEEP:
      if (!dead)
        g_usleep (op->delay_us);
      break;
    case OP_RECORD:
      event_complete (op->event, op->gen);
      break;
    case OP_WAIT:
      event_wait (op->event, op->gen);
      break;
    case OP_WAIT_STREAM:
      g_mutex_lock (&op->other->lock);
      while (op->other->completed < op->gen)
        g_cond_wait (&op->other->cond, &op->other->lock);
      g_mutex_unlock (&op->other->lock);
      break;
    case OP_KERNEL:
      if (!dead && op->run)
        op->run (op->closure);
      break;
    case OP_HOST_FUNC:
      /* CUDA skips host functions after a failure too. */
      if (!dead) {
        in_host_function = TRUE;
        op->host_fn (op->closure);
        in_host_function = FALSE;
      }
      break;
    case OP_FREE:
      /* Given back also after a failure, as CUDA's pool does. */
      dev_free (op->alloc, "cudaFreeAsync");
      break;
    case OP_QUIT:
      break;
  }
}

static void release_pending (gint * pending);

static void
op_free (Op * op)
{
  release_pending (op->pending[0]);
  release_pending (op->pending[1]);
  if (op->event)
    event_unref (op->event);
  if (op->other)
    stream_unref (op->other);
  /* A kernel's closure is the stand-in's to free, run or dropped (a host
   * function's is its caller's user data). */
  if (op->type == OP_KERNEL)
    g_free (op->closure);
  g_free (op->staging);
  g_free (op);
}

static void
engine_release (Stream * s, gint * held)
{
  Engine *e;

  if (*held == ENGINE_NONE)
    return;
  e = &engines[s->device][*held];
  g_mutex_lock (&e->lock);
  e->owner = g_queue_pop_head (&e->waiting);
  g_cond_broadcast (&e->cond);
  g_mutex_unlock (&e->lock);
  *held = ENGINE_NONE;
}

static void
engine_acquire (Stream * s, gint engine, gint * held)
{
  Engine *e;

  if (*held == engine)
    return;
  engine_release (s, held);
  e = &engines[s->device][engine];
  g_mutex_lock (&e->lock);
  if (e->owner == NULL) {
    e->owner = s;
  } else {
    g_queue_push_tail (&e->waiting, s);
    while (e->owner != s)
      g_cond_wait (&e->cond, &e->lock);
  }
  g_mutex_unlock (&e->lock);
  *held = engine;
}

static gpointer
stream_thread (gpointer data)
{
  Stream *s = data;
  gboolean quit = FALSE;
  gint held = ENGINE_NONE;

  running_stream = s;
  while (!quit) {
    Op *op = g_async_queue_pop (s->queue);

    quit = op->type == OP_QUIT;
    /* Copies take their engine; a kernel, a sleep or a wait that must
     * wait lets it go (one already met does not). */
    if (op->type == OP_COPY && op->engine != ENGINE_NONE)
      engine_acquire (s, op->engine, &held);
    else if (op->type != OP_RECORD && !(op->type == OP_WAIT &&
            event_reached (op->event, op->gen)))
      engine_release (s, &held);
    run_op (s, op);
    op_free (op);
    if (g_async_queue_length (s->queue) <= 0)
      engine_release (s, &held);

    g_mutex_lock (&s->lock);
    s->completed++;
    g_cond_broadcast (&s->cond);
    g_mutex_unlock (&s->lock);
  }

  g_mutex_lock (&lock);
  streams = g_list_remove (streams, s);
  ended_threads = g_list_prepend (ended_threads, s->thread);
  s->thread = NULL;
  n_ending--;
  g_cond_broadcast (&ended_cond);
  g_mutex_unlock (&lock);
  stream_unref (s);
  return NULL;
}

/* With @wait, also those still running their last work: a thread that
 * ends while LeakSanitizer looks can show its thread-specific values as
 * leaked. Without, for callers that may hold what that work waits for. */
static void
join_ended (gboolean wait)
{
  GList *ended, *l;

  g_mutex_lock (&lock);
  while (wait && n_ending > 0)
    g_cond_wait (&ended_cond, &lock);
  ended = ended_threads;
  ended_threads = NULL;
  g_mutex_unlock (&lock);
  for (l = ended; l; l = l->next)
    g_thread_join (l->data);
  g_list_free (ended);
}

void
fakecuda_join_ended_streams (void)
{
  join_ended (TRUE);
}

/* And at exit: a thread that ended unjoined is a leak to ThreadSanitizer. */
static void join_at_exit (void) __attribute__((destructor));

static void
join_at_exit (void)
{
  join_ended (FALSE);
}

/* Returns a stream with two references: its thread's and the caller's. */
static Stream *
stream_new_locked (gint device, guint flags, gboolean legacy)
{
  Stream *s = g_new0 (Stream, 1);

  s->refcount = 2;
  s->queue = g_async_queue_new ();
  s->device = device;
  s->flags = flags;
  s->legacy = legacy;
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  s->thread = g_thread_new (legacy ? "fakecuda-legacy" : "fakecuda-stream",
      stream_thread, s);
  streams = g_list_prepend (streams, s);
  return s;
}

static gboolean
is_legacy_handle (cudaStream_t handle)
{
  return handle == NULL || handle == cudaStreamLegacy ||
      handle == cudaStreamPerThread;
}

/* The stream behind @handle, NULL for a destroyed one. The legacy default
 * stream (and the per-thread one, which the stand-in does not tell apart
 * from it) is the current device's, made on first use. */
static Stream *
stream_get_locked (cudaStream_t handle)
{
  if (!is_legacy_handle (handle))
    return handle->impl;
  if (legacy_streams[current_device] == NULL)
    legacy_streams[current_device] =
        stream_new_locked (current_device, cudaStreamDefault, TRUE);
  return legacy_streams[current_device];
}

static gboolean
stream_is_idle (Stream * s, guint64 upto)
{
  gboolean idle;

  g_mutex_lock (&s->lock);
  idle = s->completed >= upto;
  g_mutex_unlock (&s->lock);
  return idle;
}

static void
push_locked (Stream * s, Op * op)
{
  s->enqueued++;
  g_async_queue_push (s->queue, op);
}

static void
push_wait_stream_locked (Stream * s, Stream * other)
{
  Op *op;

  if (other->enqueued == 0 || stream_is_idle (other, other->enqueued))
    return;
  op = g_new0 (Op, 1);
  op->type = OP_WAIT_STREAM;
  op->other = stream_ref (other);
  op->gen = other->enqueued;
  push_locked (s, op);
}

/* The legacy stream's work waits for the work enqueued before it on the
 * device's blocking streams (those created without cudaStreamNonBlocking),
 * and theirs for the legacy stream's, as CUDA documents. Non-blocking
 * streams neither wait nor are waited for. */
static void
implicit_sync_locked (Stream * s)
{
  GList *l;

  if (s->legacy) {
    for (l = streams; l; l = l->next) {
      Stream *b = l->data;

      if (!b->legacy && b->device == s->device &&
          !(b->flags & cudaStreamNonBlocking))
        push_wait_stream_locked (s, b);
    }
  } else if (!(s->flags & cudaStreamNonBlocking) &&
      legacy_streams[s->device] != NULL) {
    push_wait_stream_locked (s, legacy_streams[s->device]);
  }
}

/* Takes @op. */
static cudaError_t
enqueue (cudaStream_t handle, Op * op)
{
  Stream *s;

  g_mutex_lock (&lock);
  s = stream_get_locked (handle);
  if (s == NULL) {
    g_mutex_unlock (&lock);
    op_free (op);
    return cudaErrorInvalidResourceHandle;
  }
  implicit_sync_locked (s);
  push_locked (s, op);
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

/* Blocks until everything enqueued on @s so far has run. */
static void
stream_drain (Stream * s)
{
  guint64 upto;

  g_mutex_lock (&lock);
  upto = s->enqueued;
  g_mutex_unlock (&lock);

  g_mutex_lock (&s->lock);
  while (s->completed < upto)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
}

static cudaError_t
drain_handle (cudaStream_t handle)
{
  Stream *s;

  g_mutex_lock (&lock);
  s = stream_get_locked (handle);
  if (s)
    stream_ref (s);
  g_mutex_unlock (&lock);
  if (s == NULL)
    return cudaErrorInvalidResourceHandle;
  stream_drain (s);
  stream_unref (s);
  return cudaSuccess;
}

/* The device of @handle's stream, whose sticky error a synchronous call
 * reports. */
static gint
device_of (cudaStream_t handle)
{
  Stream *s;
  gint device = current_device;

  g_mutex_lock (&lock);
  s = stream_get_locked (handle);
  if (s)
    device = s->device;
  g_mutex_unlock (&lock);
  return device;
}

/* ----------------------------------------------------------------------- */
/* Control interface */

int
fakecuda_version (void)
{
  return 1;
}

static void
injection_free (Injection * inj)
{
  g_free (inj->function);
  g_free (inj);
}

void
fakecuda_reset (void)
{
  g_mutex_lock (&lock);
  copy_delay_us = 0;
  copy_pieces = DEFAULT_COPY_PIECES;
  g_list_free_full (injections, (GDestroyNotify) injection_free);
  injections = NULL;
  memset (sticky_error, 0, sizeof (sticky_error));
  g_mutex_unlock (&lock);
}

void
fakecuda_set_copy_delay (uint64_t usec)
{
  g_mutex_lock (&lock);
  copy_delay_us = usec;
  g_mutex_unlock (&lock);
}

void
fakecuda_set_copy_pieces (unsigned pieces)
{
  g_mutex_lock (&lock);
  copy_pieces = MAX (pieces, 1);
  g_mutex_unlock (&lock);
}

cudaError_t
fakecuda_stream_sleep (cudaStream_t stream, uint64_t usec)
{
  Op *op = g_new0 (Op, 1);

  op->type = OP_SLEEP;
  op->delay_us = usec;
  return enqueue (stream, op);
}

static void
add_injection (const char *function, unsigned skip, unsigned count,
    cudaError_t error, gboolean deferred)
{
  Injection *inj = g_new0 (Injection, 1);

  inj->function = g_strdup (function);
  inj->skip = skip;
  inj->count = count;
  inj->error = error;
  inj->deferred = deferred;
  g_mutex_lock (&lock);
  injections = g_list_prepend (injections, inj);
  g_mutex_unlock (&lock);
}

void
fakecuda_fail (const char *function, unsigned skip, unsigned count,
    cudaError_t error)
{
  add_injection (function, skip, count, error, FALSE);
}

void
fakecuda_fail_async (const char *function, unsigned skip, unsigned count,
    cudaError_t error)
{
  add_injection (function, skip, count, error, TRUE);
}

unsigned int
fakecuda_event_flags (cudaEvent_t event)
{
  return event->flags;
}

uint64_t
fakecuda_thread_call_count (void)
{
  return thread_calls;
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
fakecuda_kernel_fault (cudaError_t error)
{
  g_return_if_fail (running_stream != NULL);
  g_return_if_fail (error != cudaSuccess);

  poison (running_stream->device, error);
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

static const struct
{
  cudaError_t error;
  const gchar *name;
} error_names[] = {
  {cudaSuccess, "cudaSuccess"},
  {cudaErrorInvalidValue, "cudaErrorInvalidValue"},
  {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation"},
  {cudaErrorInitializationError, "cudaErrorInitializationError"},
  {cudaErrorInvalidDevice, "cudaErrorInvalidDevice"},
  {cudaErrorNoDevice, "cudaErrorNoDevice"},
  {cudaErrorNotReady, "cudaErrorNotReady"},
  {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle"},
  {cudaErrorLaunchFailure, "cudaErrorLaunchFailure"},
  {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver"},
  {cudaErrorIllegalAddress, "cudaErrorIllegalAddress"},
  {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection"},
  {cudaErrorUnknown, "cudaErrorUnknown"},
};

const char *CUDARTAPI
cudaGetErrorName (cudaError_t error)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (error_names); i++) {
    if (error_names[i].error == error)
      return error_names[i].name;
  }
  return "cudaErrorUnknown";
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
  cudaError_t e = last_error, sticky = sticky_of (current_device);

  last_error = cudaSuccess;
  return sticky != cudaSuccess ? sticky : e;
}

cudaError_t CUDARTAPI
cudaPeekAtLastError (void)
{
  cudaError_t sticky = sticky_of (current_device);

  return sticky != cudaSuccess ? sticky : last_error;
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
  g_mutex_lock (&lock);
  ensure_init_locked ();
  *version = runtime_version;
  g_mutex_unlock (&lock);
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

void
fakecuda_make_current (int device)
{
  current_device = device;
  current_context = 0;
}

void
fakecuda_make_current_context (int device, uintptr_t context)
{
  current_device = device;
  current_context = context;
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
  /* Each device its own, which the driver stand-in answers too. */
  memcpy (prop->uuid.bytes, "fakecuda", 8);
  prop->uuid.bytes[15] = (char) device;
  return cudaSuccess;
}

/* No PCI function behind a stand-in device: a bus no host has. */
cudaError_t CUDARTAPI
cudaDeviceGetPCIBusId (char *bus_id, int len, int device)
{
  ENTER (TRUE);
  if (device < 0 || device >= n_devices)
    return set_error (cudaErrorInvalidDevice);
  g_snprintf (bus_id, len, "FFFF:FF:%02X.0", device);
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
  GList *l, *copy = NULL;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  for (l = streams; l; l = l->next) {
    Stream *s = l->data;

    if (s->device == current_device)
      copy = g_list_prepend (copy, stream_ref (s));
  }
  g_mutex_unlock (&lock);
  for (l = copy; l; l = l->next)
    stream_drain (l->data);
  g_list_free_full (copy, (GDestroyNotify) stream_unref);
  return set_error (sticky_of (current_device));
}

/* ----------------------------------------------------------------------- */
/* Streams */

cudaError_t CUDARTAPI
cudaStreamCreateWithFlags (cudaStream_t * stream, unsigned int flags)
{
  struct CUstream_st *handle;

  ENTER (TRUE);
  /* Those of streams destroyed before: never more than a few unjoined. */
  join_ended (FALSE);
  g_mutex_lock (&lock);
  if (free_handles) {
    handle = free_handles->data;
    free_handles = g_slist_delete_link (free_handles, free_handles);
  } else {
    handle = g_new0 (struct CUstream_st, 1);
  }
  handle->impl = stream_new_locked (current_device, flags, FALSE);
  g_mutex_unlock (&lock);

  *stream = handle;
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
  cudaError_t sticky;
  Stream *s;
  Op *op;

  ENTER_RELEASE (sticky);
  if (is_legacy_handle (stream))
    return set_error (cudaErrorInvalidResourceHandle);

  g_mutex_lock (&lock);
  s = stream->impl;
  if (s == NULL) {
    g_mutex_unlock (&lock);
    return set_error (cudaErrorInvalidResourceHandle);
  }
  stream->impl = NULL;
  free_handles = g_slist_prepend (free_handles, stream);
  /* Queued work still runs; then the thread ends. */
  op = g_new0 (Op, 1);
  op->type = OP_QUIT;
  push_locked (s, op);
  n_ending++;
  g_mutex_unlock (&lock);
  stream_unref (s);
  return set_error (sticky);
}

cudaError_t CUDARTAPI
cudaStreamGetFlags (cudaStream_t stream, unsigned int *flags)
{
  Stream *s;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  s = stream_get_locked (stream);
  if (s)
    *flags = s->flags;
  g_mutex_unlock (&lock);
  return s ? cudaSuccess : set_error (cudaErrorInvalidResourceHandle);
}

cudaError_t CUDARTAPI
cudaStreamSynchronize (cudaStream_t stream)
{
  cudaError_t err;

  ENTER (TRUE);
  if ((err = drain_handle (stream)) != cudaSuccess)
    return set_error (err);
  return set_error (sticky_of (device_of (stream)));
}

cudaError_t CUDARTAPI
cudaStreamQuery (cudaStream_t stream)
{
  Stream *s;
  gboolean idle = TRUE;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  s = stream_get_locked (stream);
  if (s)
    idle = stream_is_idle (s, s->enqueued);
  g_mutex_unlock (&lock);
  if (s == NULL)
    return set_error (cudaErrorInvalidResourceHandle);
  return idle ? cudaSuccess : cudaErrorNotReady;
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
  return set_error (enqueue (stream, op));
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
  return set_error (enqueue (stream, op));
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
  cudaError_t sticky;

  ENTER_RELEASE (sticky);
  if (event == NULL)
    return set_error (cudaErrorInvalidResourceHandle);
  event_unref (event);
  return set_error (sticky);
}

cudaError_t CUDARTAPI
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  Stream *s;
  Op *op;

  ENTER (TRUE);
  if (event == NULL)
    return set_error (cudaErrorInvalidResourceHandle);

  g_mutex_lock (&lock);
  s = stream_get_locked (stream);
  /* As CUDA: the event and the stream must be of the same device. */
  if (s == NULL || s->device != event->device) {
    g_mutex_unlock (&lock);
    return set_error (cudaErrorInvalidResourceHandle);
  }
  op = g_new0 (Op, 1);
  op->type = OP_RECORD;
  op->event = event_ref (event);
  g_mutex_lock (&event->lock);
  op->gen = ++event->recorded;
  g_mutex_unlock (&event->lock);
  implicit_sync_locked (s);
  push_locked (s, op);
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventQuery (cudaEvent_t event)
{
  cudaError_t ret;

  ENTER (TRUE);
  /* A failure before or after the event: CUDA reports it here too. */
  if ((ret = sticky_of (event->device)) != cudaSuccess)
    return set_error (ret);
  g_mutex_lock (&event->lock);
  ret = event->completed >= event->recorded ? cudaSuccess : cudaErrorNotReady;
  g_mutex_unlock (&event->lock);
  if (ret == cudaErrorNotReady)
    count_answer ("cudaEventQuery:not-ready");
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
  /* On a poisoned device the work drains: the wait ends soon. */
  event_wait (event, gen);
  return set_error (sticky_of (event->device));
}

cudaError_t CUDARTAPI
cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
  ENTER (TRUE);
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return set_error (cudaErrorInvalidResourceHandle);
  if (start->completed < start->recorded || end->completed < end->recorded) {
    /* A legal answer, which compute-sanitizer still reports as an error. */
    count_answer ("cudaEventElapsedTime:not-ready");
    return cudaErrorNotReady;
  }
  *ms = (end->time_us - start->time_us) / 1000.0f;
  return cudaSuccess;
}

/* ----------------------------------------------------------------------- */
/* Memory */

static cudaError_t
dev_alloc (void **ptr, size_t size)
{
  DevAlloc *a;
  gsize page = sysconf (_SC_PAGESIZE);

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
  a->context = current_context;
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

/* What the device's allocations hold, as a GPU reports it. */
cudaError_t CUDARTAPI
cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  ENTER (TRUE);
  g_mutex_lock (&lock);
  *total_bytes = device_memory;
  *free_bytes = device_memory - device_used[current_device];
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMalloc (void **ptr, size_t size)
{
  ENTER (TRUE);
  return dev_alloc (ptr, size);
}

/* Stream-ordered allocation: the stand-in allocates at once (work ordered
 * after the call on @stream may use it, and so may any work ordered after
 * that); the memory goes back when cudaFreeAsync()'s place in its stream
 * is reached, and then no queued work may still touch it. */
cudaError_t CUDARTAPI
cudaMallocAsync (void **ptr, size_t size, cudaStream_t stream)
{
  Stream *s;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  s = stream_get_locked (stream);
  g_mutex_unlock (&lock);
  if (s == NULL)
    return set_error (cudaErrorInvalidResourceHandle);
  return set_error (dev_alloc (ptr, size));
}

/* On the stream's thread: the allocation @alloc back, no work left on it. */
static void
dev_free (gpointer alloc, const gchar * function)
{
  DevAlloc *a = alloc;

  g_mutex_lock (&lock);
  check_unused_locked (function, a->handle, &a->pending);
  device_used[a->device] -= a->size;
  g_mutex_unlock (&lock);
  munmap (a->handle, a->reserved);
  g_free (a->backing);
  g_free (a);
}

cudaError_t CUDARTAPI
cudaFreeAsync (void *ptr, cudaStream_t stream)
{
  GList *l;
  DevAlloc *a = NULL;
  cudaError_t sticky;
  Op *op;

  ENTER_RELEASE (sticky);
  if (ptr == NULL)
    return set_error (sticky);
  g_mutex_lock (&lock);
  if (stream_get_locked (stream) == NULL) {
    g_mutex_unlock (&lock);
    return set_error (cudaErrorInvalidResourceHandle);
  }
  for (l = dev_allocs; l; l = l->next) {
    if (((DevAlloc *) l->data)->handle == ptr) {
      a = l->data;
      /* No longer found by pointer: work enqueued from now on that uses
       * it is an error, as on a GPU. */
      dev_allocs = g_list_delete_link (dev_allocs, l);
      break;
    }
  }
  g_mutex_unlock (&lock);
  if (a == NULL)
    return set_error (cudaErrorInvalidValue);

  op = g_new0 (Op, 1);
  op->type = OP_FREE;
  op->alloc = a;
  return set_error (enqueue (stream, op));
}

cudaError_t CUDARTAPI
cudaFree (void *ptr)
{
  GList *l;
  DevAlloc *a = NULL;
  cudaError_t sticky;

  ENTER_RELEASE (sticky);
  if (ptr == NULL)
    return set_error (sticky);

  g_mutex_lock (&lock);
  for (l = dev_allocs; l; l = l->next) {
    if (((DevAlloc *) l->data)->handle == ptr) {
      a = l->data;
      check_unused_locked ("cudaFree", ptr, &a->pending);
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
  return set_error (sticky);
}

static HostAlloc *
host_alloc_add (void *ptr, gsize size, HostKind kind)
{
  HostAlloc *a = g_new0 (HostAlloc, 1);

  a->ptr = ptr;
  a->size = size;
  a->kind = kind;
  g_mutex_lock (&lock);
  host_allocs = g_list_prepend (host_allocs, a);
  g_mutex_unlock (&lock);
  return a;
}

/* Removes the allocation of @kind that starts at @ptr; FALSE if none. */
static gboolean
host_alloc_remove (const gchar * function, void *ptr, HostKind kind)
{
  HostAlloc *a = NULL;
  GList *l;

  g_mutex_lock (&lock);
  for (l = host_allocs; l; l = l->next) {
    if (((HostAlloc *) l->data)->ptr == ptr &&
        ((HostAlloc *) l->data)->kind == kind) {
      a = l->data;
      check_unused_locked (function, ptr, &a->pending);
      host_allocs = g_list_delete_link (host_allocs, l);
      break;
    }
  }
  g_mutex_unlock (&lock);

  if (a == NULL)
    return FALSE;
  if (kind == HOST_ALLOCATED)
    g_aligned_free (a->ptr);
  g_free (a);
  return TRUE;
}

cudaError_t CUDARTAPI
cudaHostAlloc (void **ptr, size_t size, unsigned int flags)
{
  guint8 *data;

  ENTER (TRUE);
  data = g_aligned_alloc (1, MAX (size, 1), 4096);
  memset (data, 0x5a, size);
  host_alloc_add (data, size, HOST_ALLOCATED)->flags = flags;

  *ptr = data;
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
  cudaError_t sticky;

  ENTER_RELEASE (sticky);
  if (!host_alloc_remove ("cudaFreeHost", ptr, HOST_ALLOCATED))
    return set_error (cudaErrorInvalidValue);
  return set_error (sticky);
}

cudaError_t CUDARTAPI
cudaHostRegister (void *ptr, size_t size, unsigned int flags)
{
  HostAlloc *tracked = NULL;
  gboolean beyond, locked = FALSE;
  GList *l;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  for (l = host_allocs; l; l = l->next) {
    HostAlloc *h = l->data;

    if ((guint8 *) ptr >= h->ptr + h->size || h->ptr >= (guint8 *) ptr + size)
      continue;
    /* As CUDA: pages that are page-locked already (an overlapping
     * registration, a cudaHostAlloc) cannot be registered again. */
    if (h->kind != HOST_TRACKED)
      locked = TRUE;
    else if ((guint8 *) ptr >= h->ptr)
      tracked = h;
  }
  /* A pageable buffer of known size cannot be registered past its end. */
  beyond = tracked && (guint8 *) ptr + size > tracked->ptr + tracked->size;
  g_mutex_unlock (&lock);
  if (locked)
    return set_error (cudaErrorHostMemoryAlreadyRegistered);
  if (beyond) {
    g_printerr ("fakecuda: cudaHostRegister (%p, %zu) runs %zu bytes past "
        "the end of pageable buffer %p (%zu bytes)\n", ptr, size,
        (gsize) ((guint8 *) ptr + size - (tracked->ptr + tracked->size)),
        tracked->ptr, tracked->size);
    return set_error (cudaErrorInvalidValue);
  }

  host_alloc_add (ptr, size, HOST_REGISTERED)->flags = flags;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostUnregister (void *ptr)
{
  cudaError_t sticky;

  ENTER_RELEASE (sticky);
  if (!host_alloc_remove ("cudaHostUnregister", ptr, HOST_REGISTERED))
    return set_error (cudaErrorInvalidValue);
  return set_error (sticky);
}

void
fakecuda_track_host_range (const void *ptr, size_t size)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_mutex_unlock (&lock);
  host_alloc_add ((void *) ptr, size, HOST_TRACKED);
}

void
fakecuda_untrack_host_range (const void *ptr)
{
  if (!host_alloc_remove ("fakecuda_untrack_host_range", (void *) ptr,
          HOST_TRACKED))
    g_error ("fakecuda: %p is no tracked pageable buffer", ptr);
}

#ifdef FAKECUDA_CATCH_MUNMAP
/* The process's munmap(): where a test links the runtime, the stand-in
 * comes before libc, and its version script gives this one libc's version
 * (meson.build). CUDA keeps registered pages page-locked after their
 * mapping goes, and a copy at those addresses then uses pages no longer
 * mapped there, while the stand-in would copy whatever is mapped there
 * now: unmapping registered pages stops the process instead. */
int
munmap (void *addr, size_t length)
{
  guint8 *start = addr, *end = start + length;
  GList *l;

  g_mutex_lock (&lock);
  for (l = host_allocs; l; l = l->next) {
    HostAlloc *h = l->data;

    if (h->kind != HOST_REGISTERED || h->ptr >= end || start >= h->ptr +
        h->size)
      continue;
    g_printerr ("fakecuda: munmap (%p, %zu) of pages registered with "
        "cudaHostRegister (%p, %zu). CUDA keeps them page-locked past the "
        "mapping, and copies at these addresses use them, not what is "
        "mapped there later: unregister first.\n", addr, length, h->ptr,
        h->size);
    abort ();
  }
  g_mutex_unlock (&lock);

  return syscall (SYS_munmap, addr, length);
}
#endif

cudaError_t CUDARTAPI
cudaHostGetFlags (unsigned int *flags, void *ptr)
{
  HostAlloc *h;

  ENTER (TRUE);
  g_mutex_lock (&lock);
  h = find_host_locked (ptr);
  if (h && h->kind == HOST_ALLOCATED)
    *flags = h->flags;
  g_mutex_unlock (&lock);
  return h && h->kind == HOST_ALLOCATED ? cudaSuccess :
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
  } else if (h && h->kind != HOST_TRACKED) {
    attr->type = cudaMemoryTypeHost;
    attr->hostPointer = (void *) ptr;
    attr->devicePointer = (void *) ptr;
  } else {
    attr->type = cudaMemoryTypeUnregistered;
  }
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

/* One side of a copy. */
typedef struct
{
  guint8 *data;                 /* the bytes: a device pointer's storage */
  gboolean pinned;              /* device or page-locked memory */
  gint *pending;                /* of its allocation, if known */
} Side;

/* Resolves one side of a copy: device pointers to their storage; page-locked
 * and tracked pageable memory checked against its allocation. @dma: the
 * copy crosses the bus; one between two host buffers is a CPU copy in CUDA,
 * which may run on past memory registered in place into the caller's own
 * (whose real end AddressSanitizer guards). */
static cudaError_t
resolve (const void *ptr, gsize extent, gboolean want_device, gboolean dma,
    Side * side)
{
  const guint8 *p = ptr;

  ensure_bounds ();
  side->pending = NULL;
  g_mutex_lock (&lock);
  if (is_device_locked (ptr)) {
    DevAlloc *d = find_dev_locked (ptr, extent);

    if (want_device && d == NULL && bounds_abort_device) {
      g_printerr ("fakecuda: a copy of %zu bytes at %p runs past the end of "
          "its device allocation (FAKECUDA_BOUNDS=abort)\n", extent, ptr);
      abort ();
    }
    if (!want_device || d == NULL) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    /* A device pointer is valid in the context that made it only. */
    if (d->context != current_context) {
      g_printerr ("fakecuda: device pointer %p belongs to another CUDA "
          "context of device %d than the current one\n", ptr, d->device);
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    side->data = d->backing + (p - (const guint8 *) d->handle);
    side->pinned = TRUE;
    side->pending = &d->pending;
  } else {
    HostAlloc *h;

    if (want_device) {
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    h = find_host_locked (ptr);
    if (h && p + extent > h->ptr + h->size && !dma &&
        h->kind == HOST_REGISTERED)
      h = NULL;
    if (h && p + extent > h->ptr + h->size) {
      g_printerr ("fakecuda: a copy of %zu bytes at %p runs %zu bytes past "
          "the end of %s buffer %p (%zu bytes)\n", extent, ptr,
          (gsize) (p + extent - (h->ptr + h->size)),
          h->kind == HOST_TRACKED ? "pageable" : "page-locked", h->ptr,
          h->size);
      if (bounds_abort_host)
        abort ();
      g_mutex_unlock (&lock);
      return cudaErrorInvalidValue;
    }
    side->data = (guint8 *) ptr;
    side->pinned = h != NULL && h->kind != HOST_TRACKED;
    side->pending = h ? &h->pending : NULL;
  }
  if (side->pending)
    (*side->pending)++;
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

static void
release_pending (gint * pending)
{
  if (pending == NULL)
    return;
  g_mutex_lock (&lock);
  (*pending)--;
  g_cond_broadcast (&pending_cond);
  g_mutex_unlock (&lock);
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

static Op *
new_copy_op (void)
{
  Op *op = g_new0 (Op, 1);

  op->type = OP_COPY;
  op->engine = ENGINE_NONE;
  op->memset_value = -1;
  op->error = deferred_error;
  g_mutex_lock (&lock);
  op->delay_us = copy_delay_us;
  op->pieces = copy_delay_us ? copy_pieces : 1;
  g_mutex_unlock (&lock);
  return op;
}

static cudaError_t
copy_2d (void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream, gboolean sync)
{
  gboolean dst_device, src_device;
  Side d, s;
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
  if ((err = resolve (dst, dext, dst_device, src_device != dst_device,
              &d)) != cudaSuccess)
    return set_error (err);
  if ((err = resolve (src, sext, src_device, src_device != dst_device,
              &s)) != cudaSuccess) {
    release_pending (d.pending);
    return set_error (err);
  }

  op = new_copy_op ();
  op->engine = src_device == dst_device ? ENGINE_NONE : dst_device ?
      ENGINE_TO_DEVICE : ENGINE_TO_HOST;
  op->dst = d.data;
  op->src = s.data;
  op->dpitch = height > 1 ? dpitch : width;
  op->spitch = height > 1 ? spitch : width;
  op->width = width;
  op->height = height;
  op->pending[0] = d.pending;

  /* A pageable source is staged at the call: the caller may reuse it. */
  if (!s.pinned) {
    gsize r;

    op->staging = g_malloc (width * height);
    for (r = 0; r < height; r++)
      memcpy (op->staging + r * width, s.data + r * spitch, width);
    op->src = op->staging;
    op->spitch = width;
    release_pending (s.pending);
  } else {
    op->pending[1] = s.pending;
  }

  if ((err = enqueue (stream, op)) != cudaSuccess)
    return set_error (err);

  /* Into pageable memory, or a synchronous copy: return once it is done,
   * with the error of a copy that failed. */
  if (sync || !d.pinned) {
    if ((err = drain_handle (stream)) != cudaSuccess)
      return set_error (err);
    return set_error (sticky_of (device_of (stream)));
  }

  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMemcpyAsync (void *dst, const void *src, size_t count,
    enum cudaMemcpyKind kind, cudaStream_t stream)
{
  ENTER (TRUE);
  return copy_2d (dst, count, src, count, count, 1, kind, stream, FALSE);
}

#if CUDART_VERSION < 12080
/* What 12.8 added, for the headers of older toolkits. */
struct cudaMemcpyAttributes
{
  int srcAccessOrder;
  struct cudaMemLocation srcLocHint;
  struct cudaMemLocation dstLocHint;
  unsigned int flags;
};
#define cudaMemcpySrcAccessOrderInvalid 0
#endif

/* As CUDA's: each copy's direction from its pointers, the batch in stream
 * order with the stream's other work; not on the legacy default stream,
 * and every attribute needs a source access order. A runtime before 12.8
 * has no such call: its stand-in fails it, as a caller that did not look
 * first would. */
static cudaError_t
batch_copy (void *const *dsts, const void *const *srcs, const size_t *sizes,
    size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
    size_t numAttrs, cudaStream_t stream)
{
  cudaError_t err;
  size_t i;

  if (runtime_version < 12080)
    return set_error (cudaErrorNotSupported);
  if (count == 0 || dsts == NULL || srcs == NULL || sizes == NULL ||
      attrs == NULL || attrsIdxs == NULL || numAttrs == 0 ||
      numAttrs > count || attrsIdxs[0] != 0 || stream == NULL)
    return set_error (cudaErrorInvalidValue);
  for (i = 0; i < numAttrs; i++) {
    if (attrs[i].srcAccessOrder == cudaMemcpySrcAccessOrderInvalid ||
        (i > 0 && attrsIdxs[i] <= attrsIdxs[i - 1]))
      return set_error (cudaErrorInvalidValue);
  }
  for (i = 0; i < count; i++) {
    err = copy_2d (dsts[i], sizes[i], srcs[i], sizes[i], sizes[i], 1,
        cudaMemcpyDefault, stream, FALSE);
    if (err != cudaSuccess)
      return err;
    count_answer ("cudaMemcpyBatchAsync:copy");
  }
  return cudaSuccess;
}

#if CUDART_VERSION >= 13000
cudaError_t CUDARTAPI
cudaMemcpyBatchAsync (void *const *dsts, const void *const *srcs,
    const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs,
    size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream)
{
  ENTER (TRUE);
  return batch_copy (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs,
      stream);
}
#else
#if CUDART_VERSION < 12080
cudaError_t CUDARTAPI cudaMemcpyBatchAsync (void **dsts, void **srcs,
    size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs,
    size_t *attrsIdxs, size_t numAttrs, size_t *failIdx, cudaStream_t stream);
#endif

/* 12.8's and 12.9's, whatever the headers: the index of a failed copy. */
cudaError_t CUDARTAPI
cudaMemcpyBatchAsync (void **dsts, void **srcs, size_t *sizes, size_t count,
    struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
    size_t *failIdx, cudaStream_t stream)
{
  cudaError_t err;

  ENTER (TRUE);
  if (failIdx == NULL)
    return set_error (cudaErrorInvalidValue);
  *failIdx = SIZE_MAX;
  err = batch_copy (dsts, (const void *const *) srcs, sizes, count, attrs,
      attrsIdxs, numAttrs, stream);
  if (err != cudaSuccess && err != cudaErrorNotSupported)
    *failIdx = 0;
  return err;
}
#endif

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
  Side d;
  cudaError_t err;
  Op *op;

  if ((err = resolve (dst, count, TRUE, TRUE, &d)) != cudaSuccess)
    return set_error (err);

  op = new_copy_op ();
  op->dst = d.data;
  op->dpitch = count;
  op->width = count;
  op->height = 1;
  op->memset_value = value & 0xff;
  op->pending[0] = d.pending;
  return set_error (enqueue (stream, op));
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
/* The launch stubs of newer nvcc, for the kernel handles of CUDA 12.1. */
#if CUDART_VERSION >= 12010
cudaError_t CUDARTAPI __cudaGetKernel (cudaKernel_t * kernel, const void *func);
cudaError_t CUDARTAPI __cudaLaunchKernel (cudaKernel_t kernel, dim3 grid,
    dim3 block, void **args, size_t shmem, cudaStream_t stream);
#endif

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

#if CUDART_VERSION >= 12010
cudaError_t CUDARTAPI
__cudaGetKernel (cudaKernel_t * kernel, const void *func)
{
  *kernel = (cudaKernel_t) func;
  return cudaSuccess;
}
#endif

static cudaError_t
launch (const void *func, dim3 grid, dim3 block, void **args,
    cudaStream_t stream)
{
  const gchar *name;
  KernelImpl *impl = NULL;
  cudaError_t deferred = deferred_error, err;
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

  /* Counted per kernel too, as "launch:NAME", which failures can name. */
  counter = g_strdup_printf ("launch:%s", name ? name : "?");
  err = enter (counter, FALSE);
  g_free (counter);
  if (err != cudaSuccess)
    return set_error (err);

  op = g_new0 (Op, 1);
  op->type = OP_KERNEL;
  op->error = deferred_error != cudaSuccess ? deferred_error : deferred;
  if (impl) {
    op->run = impl->run;
    op->closure = impl->bind (args, grid, block);
  }
  return set_error (enqueue (stream, op));
}

#if CUDART_VERSION >= 12010
cudaError_t CUDARTAPI
__cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
    size_t shmem, cudaStream_t stream)
{
  ENTER (TRUE);
  return launch (kernel, grid, block, args, stream);
}
#endif

cudaError_t CUDARTAPI
cudaLaunchKernel (const void *func, dim3 grid, dim3 block, void **args,
    size_t shmem, cudaStream_t stream)
{
  ENTER (TRUE);
  return launch (func, grid, block, args, stream);
}
