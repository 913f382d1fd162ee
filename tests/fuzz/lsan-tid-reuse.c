/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* LeakSanitizer missing a live thread whose kernel thread id an earlier,
 * joined thread of the process had: a false leak report of what only that
 * thread holds. Not built with the project; run by hand:
 *
 *   clang -g -fsanitize=address tests/fuzz/lsan-tid-reuse.c -o tid-reuse
 *   ./tid-reuse joined; ./tid-reuse detached
 *
 * AddressSanitizer does not mark a joined thread's record dead (its
 * pthread_join() is the plain one), and LeakSanitizer finds a thread's
 * stack and TLS by the kernel's thread id. Once the ids have come round
 * (kernel.pid_max), a new thread can take the id of an old record that the
 * lookup meets first: the new thread is skipped, and a block that only its
 * thread-specific data points to is reported. Each round here joins (or
 * detaches) N / 20 short threads, then checks for leaks while a thread
 * holds one block in thread-specific data. With pid_max 32768, 40000
 * threads bring the ids round and some checks report the block; with
 * detached threads, or pid_max 4194304, none does. The fuzz targets' live
 * threads (a batching element's timer, with GLib's per-thread memory and
 * the stand-in's context stack) met it under many jobs at once. */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sanitizer/lsan_interface.h>

#define ROUNDS 20

static pthread_key_t key;
static volatile int stop;

static void *
nothing (void *data)
{
  return NULL;
}

static void *
holder (void *data)
{
  /* The block's only pointer is thread-specific data. */
  pthread_setspecific (key, malloc (2032));
  __atomic_store_n ((int *) data, 1, __ATOMIC_SEQ_CST);
  while (!stop)
    usleep (1000);
  free (pthread_getspecific (key));
  return NULL;
}

int
main (int argc, char **argv)
{
  int detached = argc > 1 && strcmp (argv[1], "detached") == 0;
  int n = argc > 2 ? atoi (argv[2]) : 40000;
  int i, round, reports = 0;
  pthread_attr_t attr;

  pthread_key_create (&key, NULL);
  pthread_attr_init (&attr);
  if (detached)
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);

  for (round = 0; round < ROUNDS; round++) {
    pthread_t t, h;
    int ready = 0;

    for (i = 0; i < n / ROUNDS; i++) {
      if (pthread_create (&t, &attr, nothing, NULL) != 0)
        return 1;
      if (!detached)
        pthread_join (t, NULL);
    }
    if (detached)
      usleep (100000);

    stop = 0;
    pthread_create (&h, NULL, holder, &ready);
    while (!__atomic_load_n (&ready, __ATOMIC_SEQ_CST))
      usleep (100);
    if (__lsan_do_recoverable_leak_check ())
      reports++;
    stop = 1;
    pthread_join (h, NULL);
  }

  printf ("%s threads: %d of %d checks reported the live thread's block\n",
      detached ? "detached" : "joined", reports, ROUNDS);
  return 0;
}
