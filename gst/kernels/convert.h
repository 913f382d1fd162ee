/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* 4:2:0 YUV to RGB, one pixel, in fixed point: the kernel and the CPU
 * reference of the tests compute the same function bit for bit. */

#pragma once

#include <stdint.h>
#include <stddef.h>

#ifdef __CUDACC__
#define PINNED_HD static inline __host__ __device__
#else
#define PINNED_HD static inline
#endif

/* 16 fractional bits */
#define PINNED_CONVERT_SHIFT 16

typedef struct
{
  /* 4:2:0 input: chroma sample (x / 2, y / 2) is at
   * u + (y / 2) * uv_pitch + (x / 2) * uv_step, likewise v */
  const uint8_t *y;
  const uint8_t *u;
  const uint8_t *v;
  int32_t y_pitch;
  int32_t uv_pitch;
  int32_t uv_step;

  /* R, G, B and A (or padding, written 255): each channel's first byte,
   * pitch and bytes between pixels; a NULL channel is not written */
  uint8_t *out[4];
  int32_t out_pitch[4];
  int32_t out_step[4];

  int32_t width;
  int32_t height;

  /* R = Ys + r_v V, G = Ys - g_u U - g_v V, B = Ys + b_u U, with
   * Ys = y_scale (Y - y_offset), U = Cb - 128, V = Cr - 128 */
  int32_t y_offset;
  int32_t y_scale;
  int32_t r_v;
  int32_t g_u;
  int32_t g_v;
  int32_t b_u;
} PinnedConvertParams;

PINNED_HD uint8_t
pinned_convert_clamp (int32_t v)
{
  v = (v + (1 << (PINNED_CONVERT_SHIFT - 1))) >> PINNED_CONVERT_SHIFT;
  return (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
}

PINNED_HD void
pinned_convert_pixel (const PinnedConvertParams * p, int32_t x, int32_t y)
{
  size_t c = (size_t) (y / 2) * p->uv_pitch + (size_t) (x / 2) * p->uv_step;
  int32_t ys = p->y_scale * ((int32_t) p->y[(size_t) y * p->y_pitch + x] -
      p->y_offset);
  int32_t u = (int32_t) p->u[c] - 128;
  int32_t v = (int32_t) p->v[c] - 128;
  uint8_t rgba[4];
  int i;

  rgba[0] = pinned_convert_clamp (ys + p->r_v * v);
  rgba[1] = pinned_convert_clamp (ys - p->g_u * u - p->g_v * v);
  rgba[2] = pinned_convert_clamp (ys + p->b_u * u);
  rgba[3] = 255;

  for (i = 0; i < 4; i++) {
    if (p->out[i])
      p->out[i][(size_t) y * p->out_pitch[i] + (size_t) x * p->out_step[i]] =
          rgba[i];
  }
}

#ifdef __cplusplus
extern "C"
#endif
int pinned_convert_launch (const PinnedConvertParams * params, void *stream);
