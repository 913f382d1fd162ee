/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* libFuzzer target: DLPack tensors from outside into
 * gst_pinned_tensor_import(). The input bytes make a DLManagedTensor (its
 * dimensions, shape, strides or none, data type, device type and id, byte
 * offset) whose data lies in a real allocation of the stand-in that holds
 * it, one too small, one of the other device, page-locked host memory, or
 * nowhere; and the caps that name its format (any format, with a width
 * and height or without, or caps that name none). The import must either
 * refuse it with a GError that says why, its deleter run at once, or give
 * a buffer of gst-pinned device memory that starts at data + byte_offset;
 * pinneddownload then brings the tensor's elements back where its
 * storage holds them, and refuses it with an element error where it does
 * not. A CPU tensor (kDLCPU, kDLCUDAHost) on device memory is refused; one
 * whose extent page-locked memory holds is gst-pinned page-locked memory
 * at data + byte_offset, any other system memory (a CPU tensor's pointer
 * is the application's word: neither is read here). The deleter runs
 * exactly once, once the buffer is gone. Anything else aborts (a crash,
 * for libFuzzer). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <gst/pinned/gstpinnedhostmemory.h>
#include <gst/pinned/gstpinnedtensor.h>
#include "pinnedtest.h"

#define MAX_BYTES (1 << 20)

typedef struct
{
  const guint8 *data;
  gsize size;
} Input;

static guint8
take_u8 (Input * in)
{
  guint8 v = 0;

  if (in->size > 0) {
    v = in->data[0];
    in->data++;
    in->size--;
  }
  return v;
}

static guint16
take_u16 (Input * in)
{
  return take_u8 (in) | (take_u8 (in) << 8);
}

static guint32
take_u32 (Input * in)
{
  return take_u16 (in) | ((guint32) take_u16 (in) << 16);
}

static guint64
take_u64 (Input * in)
{
  return take_u32 (in) | ((guint64) take_u32 (in) << 32);
}

enum
{
  STORAGE_EXACT,                /* device memory of the tensor's extent */
  STORAGE_LARGER,
  STORAGE_SHORT,                /* fewer bytes than the tensor reaches */
  STORAGE_OTHER_DEVICE,         /* the extent, on the other device */
  STORAGE_PAGE_LOCKED,          /* host memory that says it is kDLCUDA */
  STORAGE_NONE,                 /* an address of no allocation */
  STORAGE_NULL,
  N_STORAGES
};

typedef struct
{
  DLManagedTensor managed;
  int64_t *shape, *strides;
  guint storage;
  gpointer alloc;
  gsize alloc_size;
  gint deleted;
} FuzzTensor;

static GPtrArray *formats;
static GstPinnedContext *contexts[2];

static GstHarness *harness;
static GstBus *harness_bus;
static gchar *harness_key;

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  GstCaps *caps;
  const GValue *list;
  GError *error = NULL;
  guint i;

  /* A tensor's storage may be short on purpose (the download must refuse
   * it): a copy past a device allocation fails; one past a host buffer
   * (the download's own) is a crash. */
  g_setenv ("FAKECUDA_BOUNDS", "host", FALSE);
  pinned_test_setup ();
  pinned_test_keep_pool_threads ();
  if (!pinned_test_is_fake ()) {
    fprintf (stderr, "fuzz-tensor-import runs on the stand-in: put its "
        "folder on LD_LIBRARY_PATH (tests/fuzz/run.sh does)\n");
    abort ();
  }
  caps = gst_caps_from_string ("video/x-raw,format=" GST_PINNED_VIDEO_FORMATS);
  list = gst_structure_get_value (gst_caps_get_structure (caps, 0), "format");
  formats = g_ptr_array_new ();
  for (i = 0; i < gst_value_list_get_size (list); i++)
    g_ptr_array_add (formats, (gpointer) g_intern_string (g_value_get_string
            (gst_value_list_get_value (list, i))));
  gst_caps_unref (caps);
  for (i = 0; i < 2; i++) {
    contexts[i] = gst_pinned_context_new (i, &error);
    if (contexts[i] == NULL) {
      fprintf (stderr, "no context on device %u: %s (FAKECUDA_DEVICES=2)\n",
          i, error->message);
      abort ();
    }
  }
  return 0;
}

static void
fuzz_deleter (DLManagedTensor * managed)
{
  FuzzTensor *t = managed->manager_ctx;

  if (g_atomic_int_add (&t->deleted, 1) != 0) {
    fprintf (stderr, "the tensor's deleter ran twice\n");
    abort ();
  }
}

/* Frees what the deleter, as a producer's, would give back. */
static void
free_tensor (FuzzTensor * t)
{
  if (t->storage == STORAGE_PAGE_LOCKED)
    cudaFreeHost (t->alloc);
  else if (t->alloc)
    cudaFree (t->alloc);
  g_free (t->shape);
  g_free (t->strides);
  g_free (t);
}

/* The tensor's strides in elements (NULL: compact; a dimension of size 1
 * the compact one too) and the bytes it spans, or FALSE where no frame
 * can be of it: a dimension outside 1 to G_MAXINT, a stride outside 1 to
 * G_MAXINT elements, more than G_MAXINT bytes (the import's rules, each
 * term below 2^62). */
static gboolean
tensor_extent (const DLTensor * dl, int64_t * strides, guint64 * extent)
{
  guint64 span = 1, step = 1;
  guint elem = dl->dtype.bits / 8 * dl->dtype.lanes;
  gint d;

  if (dl->ndim < 1 || dl->ndim > 3 || elem == 0)
    return FALSE;
  for (d = 0; d < dl->ndim; d++) {
    if (dl->shape[d] < 1 || dl->shape[d] > G_MAXINT)
      return FALSE;
  }
  for (d = dl->ndim - 1; d >= 0; d--) {
    int64_t s = dl->strides && dl->shape[d] > 1 ? dl->strides[d] :
        (int64_t) step;

    if (s < 1 || s > G_MAXINT)
      return FALSE;
    strides[d] = s;
    span += (guint64) (dl->shape[d] - 1) * s;
    step *= dl->shape[d];
  }
  *extent = span * elem;
  return span <= G_MAXINT / elem;
}

static void
drop_harness (void)
{
  if (harness == NULL)
    return;
  gst_element_set_bus (harness->element, NULL);
  gst_harness_teardown (harness);
  gst_bus_set_flushing (harness_bus, TRUE);
  gst_object_unref (harness_bus);
  harness = NULL;
  harness_bus = NULL;
  g_clear_pointer (&harness_key, g_free);
}

static void
get_harness (GstCaps * caps, const GstVideoInfo * info)
{
  gchar *key = gst_caps_to_string (caps);

  if (harness && strcmp (key, harness_key) == 0) {
    g_free (key);
    return;
  }
  drop_harness ();
  harness = gst_harness_new ("pinneddownload");
  harness_key = key;
  harness_bus = gst_bus_new ();
  gst_element_set_bus (harness->element, harness_bus);
  gst_harness_set_caps (harness, gst_caps_ref (caps),
      gst_video_info_to_caps (info));
}

static void
wait_deleted (FuzzTensor * t)
{
  gint64 end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;

  while (g_atomic_int_get (&t->deleted) == 0 && g_get_monotonic_time () < end)
    g_usleep (200);
  if (g_atomic_int_get (&t->deleted) != 1) {
    fprintf (stderr, "the tensor's deleter did not run after its buffer "
        "was freed\n");
    abort ();
  }
}

/* The frame pinneddownload made of the tensor, element by element against
 * the tensor's bytes at its own strides. */
static void
check_frame (GstBuffer * out, const GstVideoInfo * info, const DLTensor * dl,
    const int64_t * strides, const guint8 * bytes)
{
  guint elem = dl->dtype.bits / 8;
  gboolean planar = GST_VIDEO_INFO_N_PLANES (info) > 1;
  guint channels = !planar && dl->ndim == 3 ? dl->shape[2] : 1;
  GstVideoFrame frame;
  guint p, y, x, c;

  if (!gst_video_frame_map (&frame, info, out, GST_MAP_READ))
    abort ();
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    for (y = 0; y < (guint) GST_VIDEO_INFO_HEIGHT (info); y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
          p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

      for (x = 0; x < (guint) GST_VIDEO_INFO_WIDTH (info); x++) {
        for (c = 0; c < channels; c++) {
          guint64 at = planar ? p * strides[0] + y * strides[1] +
              x * strides[2] : y * strides[0] + x * strides[1] +
              (dl->ndim == 3 ? c * strides[2] : 0);

          if (memcmp (row + (x * channels + c) * elem, bytes + at * elem,
                  elem) != 0) {
            fprintf (stderr, "%s %dx%d: plane %u row %u pixel %u element %u "
                "is not the tensor's\n", GST_VIDEO_INFO_NAME (info),
                GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), p,
                y, x, c);
            abort ();
          }
        }
      }
    }
  }
  gst_video_frame_unmap (&frame);
}

static GstCaps *
fuzz_caps (Input * in, const DLTensor * dl)
{
  guint how = take_u8 (in);
  const gchar *format = g_ptr_array_index (formats, take_u8 (in) %
      formats->len);
  GstCaps *caps;

  switch (how % 8) {
    case 0:
      return NULL;
    case 1:
      return gst_caps_from_string ("video/x-bayer,format=rggb");
    case 2:
      return gst_caps_from_string ("video/x-raw");
    case 3:
      return gst_caps_from_string ("video/x-raw,format={ RGBA, BGRA }");
    case 4:
      caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
          format, NULL);
      gst_caps_append (caps, gst_caps_new_simple ("video/x-raw", "format",
              G_TYPE_STRING, "RGBA", NULL));
      return caps;
    default:
      caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
          format, NULL);
      break;
  }
  if (how & 0x08)
    gst_caps_set_simple (caps, "width", G_TYPE_INT, (gint) take_u16 (in),
        "height", G_TYPE_INT, (gint) take_u16 (in), NULL);
  if (how & 0x10)
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  if (how & 0x20)
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1,
        30, 1, NULL);
  if (how & 0x40)
    gst_caps_set_simple (caps, "colorimetry", G_TYPE_STRING, "bt709", NULL);
  return caps;
}

static int
fuzz_one (const guint8 * data, gsize size)
{
  Input in = { data, size };
  FuzzTensor *t = g_new0 (FuzzTensor, 1);
  DLTensor *dl = &t->managed.dl_tensor;
  GstPinnedContext *context;
  GstCaps *caps, *out_caps = NULL;
  GError *error = NULL;
  GstBuffer *buffer;
  int64_t strides[3] = { 0, };
  guint64 extent = 0;
  gboolean has_extent, small, holds, must;
  guint8 *bytes = NULL;
  gint device_now = 0;
  gboolean cpu;
  guint v, d;

  v = take_u8 (&in);
  dl->device.device_type = v < 200 ? kDLCUDA : v < 210 ? kDLCPU : v < 220 ?
      kDLCUDAHost : v < 230 ? kDLCUDAManaged : (DLDeviceType) take_u8 (&in);
  v = take_u8 (&in);
  dl->device.device_id = v < 200 ? 0 : v < 220 ? 1 : v < 230 ? 2 : v < 240 ?
      -1 : (gint8) take_u8 (&in) * 1000;
  v = take_u8 (&in);
  context = v < 128 ? NULL : contexts[v & 1];

  v = take_u8 (&in);
  dl->ndim = v < 240 ? 2 + v % 2 : (gint) (v % 8) - 2;
  if (dl->ndim > 0) {
    t->shape = g_new0 (int64_t, dl->ndim);
    for (d = 0; d < (guint) dl->ndim; d++) {
      v = take_u8 (&in);
      t->shape[d] = v < 240 ? 1 + v % 40 : v < 244 ? 0 : v < 248 ? -1 :
          v < 252 ? (int64_t) G_MAXINT + v % 4 : (int64_t) take_u64 (&in);
    }
    v = take_u8 (&in);
    if (v >= 64) {
      int64_t step = 1;

      t->strides = g_new0 (int64_t, dl->ndim);
      for (d = dl->ndim; d-- > 0;) {
        guint s = take_u8 (&in);

        /* compact, padded, anything */
        t->strides[d] = s < 160 ? step : s < 240 ?
            (int64_t) ((guint64) step + s % 16) : (int64_t) take_u64 (&in);
        step = (int64_t) ((guint64) t->strides[d] * (guint64) t->shape[d]);
      }
      if (v >= 250 && dl->ndim == 3) {
        /* planes interleaved: [H, C, W] permuted */
        t->strides[2] = 1;
        t->strides[0] = t->shape[2];
        t->strides[1] = (int64_t) ((guint64) t->shape[0] * t->shape[2]);
      }
    }
  }
  dl->shape = t->shape;
  dl->strides = t->strides;

  v = take_u8 (&in);
  dl->dtype.code = v < 220 ? kDLUInt : v % 6;
  dl->dtype.bits = v < 150 ? 8 : v < 220 ? 16 : take_u8 (&in);
  dl->dtype.lanes = take_u8 (&in) < 240 ? 1 : take_u16 (&in);
  v = take_u8 (&in);
  dl->byte_offset = v < 200 ? 0 : v < 240 ? v - 200 : take_u64 (&in);

  /* The storage. */
  /* Storage that holds it is allocated only where it is small. */
  has_extent = dl->shape && tensor_extent (dl, strides, &extent);
  small = has_extent && extent <= MAX_BYTES && dl->byte_offset < MAX_BYTES;
  t->storage = take_u8 (&in) % N_STORAGES;
  if (!small && t->storage < STORAGE_NONE)
    t->storage = STORAGE_SHORT;
  t->alloc_size = small ? dl->byte_offset + extent : MAX_BYTES;
  switch (t->storage) {
    case STORAGE_LARGER:
      t->alloc_size += 1 + take_u8 (&in);
      break;
    case STORAGE_SHORT:
      t->alloc_size = t->alloc_size ? take_u16 (&in) % t->alloc_size : 0;
      if (t->alloc_size == 0)
        t->storage = STORAGE_NONE;
      break;
    case STORAGE_NONE:
    case STORAGE_NULL:
      t->alloc_size = 0;
      break;
  }
  if (t->alloc_size > 0) {
    guint32 x = take_u32 (&in) | 1;
    gsize i;

    /* xorshift32, a word at a time: megabytes stay fast */
    bytes = g_malloc (t->alloc_size + 4);
    for (i = 0; i < t->alloc_size; i += 4) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      memcpy (bytes + i, &x, 4);
    }
    cudaGetDevice (&device_now);
    cudaSetDevice (t->storage == STORAGE_OTHER_DEVICE);
    if (t->storage == STORAGE_PAGE_LOCKED ?
        cudaHostAlloc (&t->alloc, t->alloc_size, 0) :
        cudaMalloc (&t->alloc, t->alloc_size)) {
      fprintf (stderr, "cannot allocate %zu bytes\n", t->alloc_size);
      abort ();
    }
    if (cudaMemcpy (t->alloc, bytes, t->alloc_size, cudaMemcpyDefault))
      abort ();
    cudaSetDevice (device_now);
  }
  dl->data = t->storage == STORAGE_NONE ? (gpointer) (guintptr) 0x10000 :
      t->alloc;
  t->managed.manager_ctx = t;
  t->managed.deleter = fuzz_deleter;

  caps = fuzz_caps (&in, dl);
  cpu = dl->device.device_type == kDLCPU ||
      dl->device.device_type == kDLCUDAHost;
  buffer = gst_pinned_tensor_import (&t->managed, caps, context, NULL,
      &out_caps, &error);

  if (buffer == NULL) {
    if (error == NULL || error->message == NULL || error->message[0] == 0) {
      fprintf (stderr, "the import failed without saying why\n");
      abort ();
    }
    if (g_atomic_int_get (&t->deleted) != 1) {
      fprintf (stderr, "a refused tensor's deleter ran %d times\n",
          g_atomic_int_get (&t->deleted));
      abort ();
    }
    if (g_getenv ("FUZZ_VERBOSE"))
      fprintf (stderr, "refused: %s\n", error->message);
    g_clear_error (&error);
  } else {
    GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
    GstVideoInfo info;
    GstMapInfo map;
    GstFlowReturn ret;

    if (g_atomic_int_get (&t->deleted) != 0) {
      fprintf (stderr, "the deleter ran while the buffer lives\n");
      abort ();
    }
    if ((dl->device.device_type != kDLCUDA && !cpu) || !has_extent) {
      fprintf (stderr, "a tensor of device type %d or of no extent was "
          "taken\n", dl->device.device_type);
      abort ();
    }
    if (cpu) {
      /* Page-locked where the allocation holds the extent from its
       * start; never device memory (nor NULL). A start past a short
       * device allocation's end lies in no allocation: CUDA, and so the
       * import, cannot tell it from pageable memory. */
      gboolean locked = t->storage == STORAGE_PAGE_LOCKED && small;
      gboolean on_device = t->storage == STORAGE_NULL ||
          (t->storage != STORAGE_PAGE_LOCKED && t->storage != STORAGE_NONE &&
          dl->byte_offset < t->alloc_size);

      if (on_device) {
        fprintf (stderr, "a CPU tensor on device memory (storage %u) was "
            "taken\n", t->storage);
        abort ();
      }
      if (gst_buffer_n_memory (buffer) != 1 ||
          gst_is_pinned_host_memory (mem) != locked ||
          gst_is_pinned_device_memory (mem) ||
          (locked && ((GstPinnedMemory *) mem)->data !=
              (guint8 *) dl->data + dl->byte_offset) || mem->size != extent) {
        fprintf (stderr, "a CPU tensor (storage %u) is not one %s memory "
            "of its extent\n", t->storage, locked ? "page-locked" : "system");
        abort ();
      }
      gst_buffer_unref (buffer);
      wait_deleted (t);
      goto done;
    }
    if (gst_buffer_n_memory (buffer) != 1 ||
        !gst_is_pinned_device_memory (mem) ||
        !gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_PINNED_GPU)) {
      fprintf (stderr, "the buffer is not one gst-pinned device memory\n");
      abort ();
    }
    if (map.data != (guint8 *) dl->data + dl->byte_offset || map.size != extent) {
      fprintf (stderr, "the buffer's memory (%p, %zu bytes) is not the "
          "tensor's (%p + %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
          " bytes)\n", map.data, map.size, dl->data, dl->byte_offset, extent);
      abort ();
    }
    gst_memory_unmap (mem, &map);
    if (out_caps == NULL || !gst_caps_is_fixed (out_caps) ||
        !gst_video_info_from_caps (&info, out_caps)) {
      fprintf (stderr, "the buffer's caps are no video caps\n");
      abort ();
    }

    /* The storage holds the tensor where it is device memory that
     * reaches the extent. pinneddownload (of device 0) must then bring it
     * back where it is device 0's and the tensor says so, and may where
     * the tensor names another device than its memory's, or its memory
     * is the other device's. */
    holds = t->storage == STORAGE_EXACT || t->storage == STORAGE_LARGER ||
        t->storage == STORAGE_OTHER_DEVICE;
    must = holds && t->storage != STORAGE_OTHER_DEVICE &&
        dl->device.device_id == 0;
    /* A frame larger than any storage made here (a tensor of no storage,
     * or none that holds it) is only given back: pinneddownload's pool of
     * such frames would be gigabytes. */
    if (GST_VIDEO_INFO_SIZE (&info) > MAX_BYTES && !holds) {
      gst_buffer_unref (buffer);
      wait_deleted (t);
      goto done;
    }
    get_harness (out_caps, &info);
    ret = gst_harness_push (harness, buffer);
    if (ret == GST_FLOW_OK) {
      GstBuffer *out = gst_harness_pull (harness);

      if (!holds) {
        fprintf (stderr, "a frame came from a tensor whose storage (%u) "
            "does not hold it\n", t->storage);
        abort ();
      }
      check_frame (out, &info, dl, strides, bytes + dl->byte_offset);
      gst_buffer_unref (out);
    } else {
      GstMessage *msg = gst_bus_pop_filtered (harness_bus, GST_MESSAGE_ERROR);

      GError *why = NULL;
      gchar *debug = NULL;

      if (msg == NULL) {
        fprintf (stderr, "an error flow without an element error\n");
        abort ();
      }
      gst_message_parse_error (msg, &why, &debug);
      if (g_getenv ("FUZZ_VERBOSE"))
        fprintf (stderr, "pinneddownload: %s (%s)\n", why->message, debug);
      if (must) {
        fprintf (stderr, "pinneddownload refused a tensor its storage "
            "holds (%s): %s (%s)\n", gst_caps_to_string (out_caps),
            why->message, debug);
        abort ();
      }
      g_clear_error (&why);
      g_free (debug);
      gst_message_unref (msg);
      drop_harness ();
    }
    wait_deleted (t);
  }

done:
  if (out_caps)
    gst_caps_unref (out_caps);
  if (caps)
    gst_caps_unref (caps);
  g_free (bytes);
  free_tensor (t);
  return 0;
}

int LLVMFuzzerTestOneInput (const guint8 * data, gsize size);

/* Before libFuzzer looks for leaks: no thread of the input still ending. */
int
LLVMFuzzerTestOneInput (const guint8 * data, gsize size)
{
  fuzz_one (data, size);
  pinned_test_join_ended_threads ();
  return 0;
}
