/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GPU only: the seed tutorial's two demonstrations, on real hardware with a
 * real delay kernel (torch.cuda._sleep() there), through the library.
 *
 * 1. A page-locked source of ones is sent to the device asynchronously
 *    behind a delay, then zeroed by the CPU: the device must hold ones.
 * 2. A device frame is brought back asynchronously behind a delay and read
 *    at once: the read must see the frame.
 *
 * Each runs many times, as the tutorial's loops do, then once through a
 * pointer that skips the fence wait, which must go wrong: the hazard is real
 * on this machine and the fences are what avoid it. */

#include <string.h>
#include "pinnedtest.h"

#define ROUNDS 20
#define DELAY_MS pinned_test_ms (50)

typedef struct
{
  PinnedTestDevice d;
  GstVideoInfo info;
} Fixture;

static void
fixture_init (Fixture * f)
{
  pinned_test_device_init (&f->d);
  /* 1024 x 1024 floats, the tutorial's tensor. */
  gst_video_info_set_format (&f->info, GST_VIDEO_FORMAT_GRAY8, 4096, 1024);
}

static gboolean
upload_then_zero (Fixture * f, gboolean skip_fence)
{
  GstBuffer *cpu = gst_buffer_new_allocate (f->d.host, f->info.size, NULL);
  GstBuffer *gpu = gst_buffer_new_allocate (f->d.device, f->info.size, NULL);
  GstMemory *mem = gst_buffer_peek_memory (cpu, 0);
  guint8 *raw = ((GstPinnedMemory *) mem)->data;
  gboolean intact;

  pinned_test_fill_bytes (cpu, 0x01);
  pinned_test_delay_stream (f->d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (f->d.stream, &f->info, cpu, gpu,
          NULL));
  if (skip_fence)
    memset (raw, 0, f->info.size);
  else
    pinned_test_fill_bytes (cpu, 0x00);
  intact = pinned_test_all_bytes (gpu, 0x01);

  gst_buffer_unref (cpu);
  gst_buffer_unref (gpu);
  return intact;
}

GST_START_TEST (test_seed_pinned_source_overwritten)
{
  Fixture f;
  guint i;

  fixture_init (&f);
  for (i = 0; i < ROUNDS; i++)
    fail_unless (upload_then_zero (&f, FALSE), "round %u: the device saw the "
        "source's zeros", i);
  fail_if (upload_then_zero (&f, TRUE), "without the fence the hazard did "
      "not show");
  pinned_test_device_clear (&f.d);
}

GST_END_TEST;

static gboolean
download_then_read (Fixture * f, guint round, gboolean skip_fence)
{
  GstBuffer *gpu = gst_buffer_new_allocate (f->d.device, f->info.size, NULL);
  GstBuffer *cpu = gst_buffer_new_allocate (f->d.host, f->info.size, NULL);
  GstBuffer *expect = gst_buffer_new_allocate (NULL, f->info.size, NULL);
  GstBuffer *view;
  gboolean right;

  pinned_test_fill_frame (expect, &f->info, round);
  pinned_test_fill_frame (gpu, &f->info, round);
  pinned_test_delay_stream (f->d.stream, DELAY_MS);
  fail_unless (gst_pinned_transfer_video_frame (f->d.stream, &f->info, gpu, cpu,
          NULL));

  if (skip_fence) {
    GstMemory *mem = gst_buffer_peek_memory (cpu, 0);

    view = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
        ((GstPinnedMemory *) mem)->data, f->info.size, 0, f->info.size, NULL,
        NULL);
  } else {
    view = gst_buffer_ref (cpu);
  }
  right = pinned_test_frames_equal (expect, view, &f->info);

  /* Let the copy land before its memory goes. */
  fail_unless (gst_pinned_buffer_wait (cpu, GST_MAP_READ, NULL));
  gst_buffer_unref (view);
  gst_buffer_unref (cpu);
  gst_buffer_unref (gpu);
  gst_buffer_unref (expect);
  return right;
}

GST_START_TEST (test_seed_download_read_early)
{
  Fixture f;
  guint i;

  fixture_init (&f);
  for (i = 0; i < ROUNDS; i++)
    fail_unless (download_then_read (&f, i, FALSE), "round %u: read a "
        "download before it landed", i);
  /* The control: where work finishes before the host goes on, no read is
   * early. */
  if (pinned_test_work_is_async ())
    fail_if (download_then_read (&f, 1000, TRUE), "without the fence the "
        "hazard did not show");
  pinned_test_device_clear (&f.d);
}

GST_END_TEST;

static Suite *
seedhazards_suite (void)
{
  Suite *s = suite_create ("seedhazards");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_seed_pinned_source_overwritten);
  tcase_add_test (tc, test_seed_download_read_early);

  return s;
}

int
main (int argc, char **argv)
{
  return pinned_test_main (argc, argv, seedhazards_suite);
}
