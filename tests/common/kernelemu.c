/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The shipped filters' kernels as CPU emulations on the stand-in runtime
 * (fakecuda_register_kernel()): its launches call them with the launch's
 * arguments, and fakecuda_translate() gives the host address of a device
 * pointer. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <cuda_runtime_api.h>
#include "convert.h"
#include "batch.h"
#include "kernelemu.h"
#include "pinnedtest.h"

typedef void *(*TranslateFunc) (const void *, size_t);
typedef void (*RegisterFunc) (const char *, void *(*)(void **, dim3, dim3),
    void (*)(void *));

static TranslateFunc translate;

static void *
convert_bind (void **args, dim3 grid, dim3 block)
{
  return g_memdup2 (args[0], sizeof (PinnedConvertParams));
}

static void
convert_run (void *closure)
{
  PinnedConvertParams p = *(PinnedConvertParams *) closure;
  gsize cw = (p.width + 1) / 2, ch = (p.height + 1) / 2;
  gint x, y, i;

  p.y = translate (p.y, (gsize) (p.height - 1) * p.y_pitch + p.width);
  p.u = translate (p.u, (ch - 1) * p.uv_pitch + (cw - 1) * p.uv_step + 1);
  p.v = translate (p.v, (ch - 1) * p.uv_pitch + (cw - 1) * p.uv_step + 1);
  for (i = 0; i < 4; i++) {
    if (p.out[i])
      p.out[i] = translate (p.out[i], (gsize) (p.height - 1) * p.out_pitch[i]
          + (gsize) (p.width - 1) * p.out_step[i] + 1);
  }
  g_assert (p.y && p.u && p.v && p.out[0] && p.out[1] && p.out[2]);
  for (y = 0; y < p.height; y++)
    for (x = 0; x < p.width; x++)
      pinned_convert_pixel (&p, x, y);
}

static void *
batch_bind (void **args, dim3 grid, dim3 block)
{
  return g_memdup2 (args[0], sizeof (PinnedBatchParams));
}

/* The slot table is read where the kernel would read it, in device memory,
 * when the stream reaches the launch: after the copy that wrote it. */
static void
batch_run (void *closure)
{
  PinnedBatchParams p = *(PinnedBatchParams *) closure;
  gsize esize = p.type == PINNED_BATCH_UINT8 ? 1 :
      p.type == PINNED_BATCH_FLOAT16 ? 2 : 4;
  const PinnedBatchSlot *table;
  gint n, x, y, c;

  table = translate (p.slots, (gsize) p.batch * sizeof (PinnedBatchSlot));
  p.out = translate (p.out, (gsize) p.batch * 3 * p.width * p.height * esize);
  g_assert (table && p.out);
  for (n = 0; n < p.batch; n++) {
    PinnedBatchSlot s = table[n];

    for (c = 0; c < 3 && s.kind != PINNED_BATCH_KIND_EMPTY; c++) {
      gboolean sub = s.kind == PINNED_BATCH_KIND_YUV420 && c > 0;
      gsize rows = sub ? (s.height + 1) / 2 : s.height;
      gsize cols = sub ? (s.width + 1) / 2 : s.width;

      s.chan[c] = translate (s.chan[c], (rows - 1) * s.pitch[c] +
          (cols - 1) * s.step[c] + s.sample_bytes);
      g_assert (s.chan[c]);
    }
    for (y = 0; y < p.height; y++)
      for (x = 0; x < p.width; x++)
        pinned_batch_pixel (&p, &s, n, x, y);
  }
}

static void *
busy_bind (void **args, dim3 grid, dim3 block)
{
  return g_memdup2 (args[0], sizeof (unsigned long long));
}

static void
busy_run (void *closure)
{
  g_usleep (*(unsigned long long *) closure / 1000);
}

void
pinned_test_emulate_kernels (void)
{
  RegisterFunc reg = dlsym (RTLD_DEFAULT, "fakecuda_register_kernel");

  if (!pinned_test_is_fake ())
    return;
  translate = dlsym (RTLD_DEFAULT, "fakecuda_translate");
  g_assert (reg && translate);
  reg ("pinned_convert_kernel", convert_bind, convert_run);
  reg ("pinned_busy_kernel", busy_bind, busy_run);
  reg ("pinned_batch_kernel", batch_bind, batch_run);
}
