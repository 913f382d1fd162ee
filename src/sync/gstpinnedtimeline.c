/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstpinnedtimeline
 * @title: GPU timeline
 * @short_description: what ran when on each stream, as a Chrome trace
 *
 * While a timeline runs, gst-pinned's elements record a timing event on
 * their stream before and after each frame's copy or kernel. The timeline
 * turns them into a Chrome/Perfetto trace (JSON, one track per element and
 * stream), to be opened in chrome://tracing or ui.perfetto.dev: it shows
 * whether copies and kernels overlap.
 *
 * Start it with gst_pinned_timeline_start(), or for any program (such as
 * gst-launch-1.0) with the environment variable
 * `GST_PINNED_TIMELINE=trace.json`. Elements write the file when they stop;
 * gst_pinned_timeline_stop() writes it and ends the timeline. Timing events
 * cost a little on the per-buffer path: the timeline is for measuring.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpinned-private.h"
#include "core/gstpinnedenv-private.h"
#include "gst/pinned/gstpinnedtimeline.h"

GST_PINNED_DEBUG_CATEGORY (gst_pinned_timeline_debug, "pinnedtimeline",
    "gst-pinned GPU timeline");
#define GST_CAT_DEFAULT gst_pinned_timeline_debug

#define DEFAULT_MAX_SPANS 4096

struct _GstPinnedSpan
{
  gchar *track;
  gchar *name;
  GstPinnedContext *context;
  cudaStream_t stream;
  cudaEvent_t start;
  cudaEvent_t end;
};

/* Read without the lock on every buffer: whether a timeline runs. */
enum
{
  STATE_UNCHECKED,              /* GST_PINNED_TIMELINE not read yet */
  STATE_OFF,
  STATE_ON,
};
static gint state = STATE_UNCHECKED;

static GMutex lock;
static gchar *out_path;
static guint max_spans;
static guint n_spans;           /* begun, ended or not */
static GPtrArray *spans;        /* ended */

static void
span_free (GstPinnedSpan * span)
{
  if (gst_pinned_context_push (span->context, NULL)) {
    if (span->start)
      gst_pinned_cuda_result (cudaEventDestroy (span->start), NULL);
    if (span->end)
      gst_pinned_cuda_result (cudaEventDestroy (span->end), NULL);
    gst_pinned_context_pop (span->context);
  }
  gst_object_unref (span->context);
  g_free (span->track);
  g_free (span->name);
  g_free (span);
}

static gboolean
start_locked (const gchar * path, guint max)
{
  if (out_path != NULL)
    return FALSE;
  out_path = g_strdup (path);
  max_spans = max ? max : DEFAULT_MAX_SPANS;
  n_spans = 0;
  spans = g_ptr_array_new_with_free_func ((GDestroyNotify) span_free);
  g_atomic_int_set (&state, STATE_ON);
  GST_INFO ("timeline to %s, at most %u spans", out_path, max_spans);
  return TRUE;
}

/**
 * gst_pinned_timeline_start:
 * @path: the JSON file to write
 * @max_spans: how many spans to keep, 0 for the default (4096); later
 *   ones are not recorded
 *
 * Returns: %FALSE when a timeline is already running
 *
 * Since: 0.1
 */
gboolean
gst_pinned_timeline_start (const gchar * path, guint max_spans_)
{
  gboolean ret;

  g_return_val_if_fail (path != NULL, FALSE);

  ensure_debug_category ();
  g_mutex_lock (&lock);
  ret = start_locked (path, max_spans_);
  g_mutex_unlock (&lock);

  return ret;
}

/**
 * gst_pinned_timeline_begin: (skip)
 * @stream: the stream the work is enqueued on
 * @track: the track to show it on (an element's name)
 * @name: what the work is
 *
 * Records the start of work about to be enqueued on @stream. For C code
 * around its own enqueues (bindings have start, stop and flush).
 *
 * Returns: (transfer full) (nullable): the span, or %NULL when no timeline
 *   runs (or it is full); pass it to gst_pinned_timeline_end() in any case
 *
 * Since: 0.1
 */
GstPinnedSpan *
gst_pinned_timeline_begin (GstPinnedStream * stream, const gchar * track,
    const gchar * name)
{
  GstPinnedContext *context;
  GstPinnedSpan *span;
  gboolean ok;

  if (g_atomic_int_get (&state) == STATE_OFF)
    return NULL;

  g_mutex_lock (&lock);
  if (g_atomic_int_get (&state) == STATE_UNCHECKED) {
    const gchar *env = gst_pinned_env_get ("GST_PINNED_TIMELINE");

    ensure_debug_category ();
    if (env)
      start_locked (env, 0);
    else
      g_atomic_int_set (&state, STATE_OFF);
  }
  if (out_path == NULL || n_spans >= max_spans) {
    g_mutex_unlock (&lock);
    return NULL;
  }
  n_spans++;
  g_mutex_unlock (&lock);

  context = gst_pinned_stream_get_context (stream);
  span = g_new0 (GstPinnedSpan, 1);
  span->track = g_strdup (track);
  span->name = g_strdup (name);
  span->context = gst_object_ref (context);
  span->stream = gst_pinned_stream_get_cuda_stream (stream);

  ok = gst_pinned_context_push (context, NULL);
  if (ok) {
    ok = gst_pinned_cuda_result (cudaEventCreate (&span->start), NULL) &&
        gst_pinned_cuda_result (cudaEventCreate (&span->end), NULL) &&
        gst_pinned_cuda_result (cudaEventRecord (span->start, span->stream),
        NULL);
    gst_pinned_context_pop (context);
  }
  if (!ok) {
    span_free (span);
    return NULL;
  }

  return span;
}

/**
 * gst_pinned_timeline_end: (skip)
 * @span: (transfer full) (nullable): what gst_pinned_timeline_begin()
 *   returned
 *
 * Records the end of the work enqueued since the span began.
 *
 * Since: 0.1
 */
void
gst_pinned_timeline_end (GstPinnedSpan * span)
{
  gboolean ok = FALSE;

  if (span == NULL)
    return;

  if (gst_pinned_context_push (span->context, NULL)) {
    ok = gst_pinned_cuda_result (cudaEventRecord (span->end, span->stream),
        NULL);
    gst_pinned_context_pop (span->context);
  }

  g_mutex_lock (&lock);
  if (ok && spans) {
    g_ptr_array_add (spans, span);
    span = NULL;
  }
  g_mutex_unlock (&lock);

  if (span)
    span_free (span);
}

/* Start and end of @span in ms after the start of @ref (same device). */
static gboolean
span_times (GstPinnedSpan * ref, GstPinnedSpan * span, gfloat * start,
    gfloat * end)
{
  gboolean ok;

  if (!gst_pinned_context_push (span->context, NULL))
    return FALSE;
  ok = gst_pinned_cuda_result (cudaEventSynchronize (span->end), NULL) &&
      gst_pinned_cuda_result (cudaEventElapsedTime (start, ref->start,
          span->start), NULL) &&
      gst_pinned_cuda_result (cudaEventElapsedTime (end, ref->start,
          span->end), NULL);
  gst_pinned_context_pop (span->context);

  return ok;
}

/* Writes the ended spans, in microseconds from the earliest start. */
static gboolean
write_locked (void)
{
  GString *json = g_string_new ("{\"displayTimeUnit\": \"ms\", "
      "\"traceEvents\": [\n");
  GHashTable *tracks = g_hash_table_new (g_str_hash, g_str_equal);
  GstPinnedSpan *ref = spans->len ? g_ptr_array_index (spans, 0) : NULL;
  GError *error = NULL;
  gfloat start, end, origin = 0;
  gboolean ok;
  guint i;

  for (i = 0; i < spans->len; i++) {
    if (span_times (ref, g_ptr_array_index (spans, i), &start, &end))
      origin = MIN (origin, start);
  }

  for (i = 0; i < spans->len; i++) {
    GstPinnedSpan *span = g_ptr_array_index (spans, i);
    gpointer tid;

    if (!span_times (ref, span, &start, &end))
      continue;

    tid = g_hash_table_lookup (tracks, span->track);
    if (tid == NULL) {
      tid = GUINT_TO_POINTER (g_hash_table_size (tracks) + 1);
      g_hash_table_insert (tracks, span->track, tid);
      g_string_append_printf (json, "{\"name\": \"thread_name\", \"ph\": "
          "\"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"%s\"}},\n",
          GPOINTER_TO_UINT (tid), span->track);
    }
    g_string_append_printf (json, "{\"name\": \"%s\", \"cat\": \"gpu\", "
        "\"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
        "\"dur\": %.3f},\n", span->name, GPOINTER_TO_UINT (tid),
        (start - origin) * 1e3, (end - start) * 1e3);
  }
  if (json->len > 2 && json->str[json->len - 2] == ',')
    g_string_truncate (json, json->len - 2);
  g_string_append (json, "\n]}\n");

  ok = g_file_set_contents (out_path, json->str, json->len, &error);
  if (!ok) {
    GST_WARNING ("cannot write %s: %s", out_path, error->message);
    g_clear_error (&error);
  } else {
    GST_INFO ("wrote %u spans to %s", spans->len, out_path);
  }

  g_hash_table_unref (tracks);
  g_string_free (json, TRUE);
  return ok;
}

/**
 * gst_pinned_timeline_flush:
 *
 * Writes what the running timeline has so far (waiting for the spans'
 * work to finish). Elements call this when they stop.
 *
 * Returns: %TRUE when the file was written
 *
 * Since: 0.1
 */
gboolean
gst_pinned_timeline_flush (void)
{
  gboolean ret = FALSE;

  g_mutex_lock (&lock);
  if (out_path)
    ret = write_locked ();
  g_mutex_unlock (&lock);

  return ret;
}

/**
 * gst_pinned_timeline_stop:
 *
 * Writes the timeline and ends it.
 *
 * Returns: %TRUE when the file was written
 *
 * Since: 0.1
 */
gboolean
gst_pinned_timeline_stop (void)
{
  gboolean ret = FALSE;

  g_mutex_lock (&lock);
  if (out_path) {
    ret = write_locked ();
    g_ptr_array_unref (spans);
    spans = NULL;
    g_clear_pointer (&out_path, g_free);
    g_atomic_int_set (&state, STATE_OFF);
  }
  g_mutex_unlock (&lock);

  return ret;
}
