/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* One pixel of pinnedbatch's tensor: a source frame's pixel scaled
 * (bilinear, in fixed point), converted to RGB (fixed point) and
 * normalised. The kernel and the CPU reference of the tests compute the
 * same function bit for bit: integers up to the normalisation, then one
 * fused multiply-add (fmaf, correctly rounded on both) and a software
 * conversion to float16. */

#pragma once

#include <stdint.h>
#include <stddef.h>
#include <math.h>

#ifdef __CUDACC__
#define PINNED_BATCH_HD static inline __host__ __device__
#else
#define PINNED_BATCH_HD static inline
#endif

/* Fractional bits: YUV coefficients; a source pixel's RGB (0..255 with 8
 * fractional bits); bilinear weights. */
#define PINNED_BATCH_COEF_SHIFT 16
#define PINNED_BATCH_RGB_SHIFT 8
#define PINNED_BATCH_WEIGHT_SHIFT 11
#define PINNED_BATCH_VALUE_SHIFT \
  (PINNED_BATCH_RGB_SHIFT + 2 * PINNED_BATCH_WEIGHT_SHIFT)

typedef enum
{
  PINNED_BATCH_KIND_EMPTY = 0,  /* no frame: the slot is pad-value */
  PINNED_BATCH_KIND_RGB = 1,    /* chan[] are R, G, B, full resolution */
  PINNED_BATCH_KIND_YUV420 = 2, /* chan[] are Y, U, V; U and V at half */
} PinnedBatchKind;

typedef enum
{
  PINNED_BATCH_UINT8 = 0,
  PINNED_BATCH_FLOAT16 = 1,
  PINNED_BATCH_FLOAT32 = 2,
} PinnedBatchType;

/* One slot of the batch: where its frame lies and where it goes. */
typedef struct
{
  /* Each channel's first sample, the bytes between rows (pitch) and
   * between neighbouring pixels (step); samples are 8-bit, or 16-bit
   * little-endian with the value in the high bits (P010) */
  const uint8_t *chan[3];
  int32_t pitch[3];
  int32_t step[3];
  int32_t kind;
  int32_t sample_bytes;

  /* the source frame's size */
  int32_t width;
  int32_t height;

  /* the frame's rectangle in the tensor plane; outside it: pad-value */
  int32_t x;
  int32_t y;
  int32_t w;
  int32_t h;

  /* YUV: R = Ys + r_v V, G = Ys - g_u U - g_v V, B = Ys + b_u U, with
   * Ys = y_scale (Y - y_offset), U = Cb - 128, V = Cr - 128, on 16-bit
   * samples (8-bit ones shifted up), coefficients in PINNED_BATCH_COEF_SHIFT
   * fixed point, y_offset in 8-bit levels */
  int32_t y_offset;
  int32_t y_scale;
  int32_t r_v;
  int32_t g_u;
  int32_t g_v;
  int32_t b_u;
} PinnedBatchSlot;

typedef struct
{
  /* batch slots in device memory */
  const PinnedBatchSlot *slots;
  /* [batch, 3, height, width] of type, contiguous */
  void *out;
  int32_t batch;
  int32_t width;
  int32_t height;
  int32_t type;
  /* output channel c is colour order[c] (0 R, 1 G, 2 B) */
  int32_t order[3];
  /* 0..255, before normalisation */
  int32_t pad_value;
  /* float outputs: out[c] = value (0..255) * scale[c] + bias[c] */
  float scale[3];
  float bias[3];
} PinnedBatchParams;

PINNED_BATCH_HD int32_t
pinned_batch_sample (const PinnedBatchSlot * s, int c, int32_t x, int32_t y)
{
  const uint8_t *p = s->chan[c] + (size_t) y * s->pitch[c] +
      (size_t) x * s->step[c];

  if (s->sample_bytes == 2)
    return (int32_t) p[0] | ((int32_t) p[1] << 8);
  return (int32_t) p[0] << 8;
}

PINNED_BATCH_HD int32_t
pinned_batch_clamp (int64_t v)
{
  const int32_t max = 255 << PINNED_BATCH_RGB_SHIFT;

  v = (v + (1 << (PINNED_BATCH_COEF_SHIFT - 1))) >> PINNED_BATCH_COEF_SHIFT;
  return v < 0 ? 0 : v > max ? max : (int32_t) v;
}

/* The source pixel (x, y) as RGB, 0..255 with PINNED_BATCH_RGB_SHIFT
 * fractional bits. */
PINNED_BATCH_HD void
pinned_batch_source_rgb (const PinnedBatchSlot * s, int32_t x, int32_t y,
    int32_t rgb[3])
{
  if (s->kind == PINNED_BATCH_KIND_RGB) {
    rgb[0] = pinned_batch_sample (s, 0, x, y);
    rgb[1] = pinned_batch_sample (s, 1, x, y);
    rgb[2] = pinned_batch_sample (s, 2, x, y);
    if (s->sample_bytes == 2) {
      int c;

      /* 16-bit levels read as 8 fractional bits, at most 255 */
      for (c = 0; c < 3; c++)
        rgb[c] = rgb[c] > (255 << 8) ? 255 << 8 : rgb[c];
    }
  } else {
    int64_t ys = (int64_t) s->y_scale * (pinned_batch_sample (s, 0, x, y) -
        (s->y_offset << 8));
    int64_t u = pinned_batch_sample (s, 1, x / 2, y / 2) - 32768;
    int64_t v = pinned_batch_sample (s, 2, x / 2, y / 2) - 32768;

    /* 16-bit levels are 8-bit ones with PINNED_BATCH_RGB_SHIFT bits */
    rgb[0] = pinned_batch_clamp (ys + s->r_v * v);
    rgb[1] = pinned_batch_clamp (ys - s->g_u * u - s->g_v * v);
    rgb[2] = pinned_batch_clamp (ys + s->b_u * u);
  }
}

/* Where output position d (0..n-1) samples a source of size src, as
 * bilinear scalers with half-pixel centres do (OpenCV, PyTorch with
 * align_corners=False): source coordinate (d + 0.5) src / n - 0.5,
 * clamped to the frame, in 16-bit fixed point. */
PINNED_BATCH_HD void
pinned_batch_position (int32_t d, int32_t n, int32_t src, int32_t * lo,
    int32_t * hi, int32_t * weight)
{
  int64_t q = ((int64_t) (2 * d + 1) * src * 32768) / n - 32768;
  int64_t max = (int64_t) (src - 1) << 16;

  q = q < 0 ? 0 : q > max ? max : q;
  *lo = (int32_t) (q >> 16);
  *weight = (int32_t) ((q & 0xffff) >> (16 - PINNED_BATCH_WEIGHT_SHIFT));
  *hi = *lo + 1 < src ? *lo + 1 : src - 1;
}

/* float to IEEE half, rounding to nearest even (as __float2half_rn) */
PINNED_BATCH_HD uint16_t
pinned_batch_half (float f)
{
  union
  {
    float f;
    uint32_t u;
  } bits;
  uint32_t x, sign, mant, h, rem, half;
  int32_t exp, shift;

  bits.f = f;
  x = bits.u;
  sign = (x >> 16) & 0x8000;
  exp = (int32_t) ((x >> 23) & 0xff) - 127 + 15;
  mant = x & 0x7fffff;

  if (((x >> 23) & 0xff) == 0xff)
    return (uint16_t) (sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return (uint16_t) (sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return (uint16_t) sign;
    mant |= 0x800000;
    shift = 14 - exp;
    h = mant >> shift;
    rem = mant & ((1u << shift) - 1);
    half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      h++;
    return (uint16_t) (sign | h);
  }
  h = ((uint32_t) exp << 10) | (mant >> 13);
  rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    h++;
  return (uint16_t) (sign | h);
}

/* Tensor pixel (X, Y) of slot n, its three channels. */
PINNED_BATCH_HD void
pinned_batch_pixel (const PinnedBatchParams * p, const PinnedBatchSlot * s,
    int32_t n, int32_t X, int32_t Y)
{
  int64_t value[3];
  size_t plane = (size_t) p->width * p->height;
  size_t at;
  int c;

  if (s->kind == PINNED_BATCH_KIND_EMPTY || X < s->x || Y < s->y ||
      X >= s->x + s->w || Y >= s->y + s->h) {
    for (c = 0; c < 3; c++)
      value[c] = (int64_t) p->pad_value << PINNED_BATCH_VALUE_SHIFT;
  } else {
    int32_t x0, x1, fx, y0, y1, fy;
    int32_t a[3], b[3], top[3], bottom[3];
    const int32_t one = 1 << PINNED_BATCH_WEIGHT_SHIFT;

    pinned_batch_position (X - s->x, s->w, s->width, &x0, &x1, &fx);
    pinned_batch_position (Y - s->y, s->h, s->height, &y0, &y1, &fy);

    pinned_batch_source_rgb (s, x0, y0, a);
    if (fx)
      pinned_batch_source_rgb (s, x1, y0, b);
    for (c = 0; c < 3; c++)
      top[c] = a[c] * (one - fx) + (fx ? b[c] * fx : 0);
    if (fy) {
      pinned_batch_source_rgb (s, x0, y1, a);
      if (fx)
        pinned_batch_source_rgb (s, x1, y1, b);
      for (c = 0; c < 3; c++)
        bottom[c] = a[c] * (one - fx) + (fx ? b[c] * fx : 0);
    }
    for (c = 0; c < 3; c++)
      value[c] = (int64_t) top[c] * (one - fy) +
          (fy ? (int64_t) bottom[c] * fy : 0);
  }

  at = ((size_t) n * 3) * plane + (size_t) Y * p->width + X;
  for (c = 0; c < 3; c++, at += plane) {
    int64_t v = value[p->order[c]];

    if (p->type == PINNED_BATCH_UINT8) {
      ((uint8_t *) p->out)[at] = (uint8_t)
          ((v + ((int64_t) 1 << (PINNED_BATCH_VALUE_SHIFT - 1))) >>
          PINNED_BATCH_VALUE_SHIFT);
    } else {
      float f = fmaf ((float) v * (1.0f / (float) (1 << PINNED_BATCH_VALUE_SHIFT)), p->scale[c],
          p->bias[c]);

      if (p->type == PINNED_BATCH_FLOAT16)
        ((uint16_t *) p->out)[at] = pinned_batch_half (f);
      else
        ((float *) p->out)[at] = f;
    }
  }
}

#ifdef __cplusplus
extern "C"
#endif
int pinned_batch_launch (const PinnedBatchParams * params, void *stream);
