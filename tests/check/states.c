/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GStreamer's generic state test for every element of the plugin: state
 * changes without data, up and down, in every order, alone and in a bin.
 * With a device each change succeeds and nothing is posted; without one
 * (PINNED_STATES_DEVICE=none: the stand-in's FAKECUDA_DEVICES=0 or
 * FAKECUDA_DRIVER=none, the real runtime's CUDA_VISIBLE_DEVICES=) going
 * to PAUSED fails, as GStreamer's convention for a resource that cannot
 * be opened is, with an element error that says what to do, and going
 * back to NULL succeeds. Never a crash, a hang or a critical (the suite
 * runs with G_DEBUG=fatal-criticals); every element is finalised. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "pinnedtest.h"

#define CYCLES 20

/* gst_element_state_get_name() is deprecated from 1.28 for this name. */
#if !GST_CHECK_VERSION (1, 28, 0)
#define gst_state_get_name gst_element_state_get_name
#endif

static gboolean
expect_device (void)
{
  return g_strcmp0 (g_getenv ("PINNED_STATES_DEVICE"), "none") != 0;
}

/* The elements of the plugin, by factory name. */
static GList *
plugin_elements (void)
{
  GList *features, *l, *names = NULL;

  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      "pinned");
  for (l = features; l; l = l->next) {
    if (GST_IS_ELEMENT_FACTORY (l->data))
      names = g_list_insert_sorted (names,
          g_strdup (GST_OBJECT_NAME (l->data)), (GCompareFunc) strcmp);
  }
  gst_plugin_feature_list_free (features);

  return names;
}

/* What a user reads when no device can be used: the element message must
 * say what to do, not only that it failed. PINNED_STATES_MESSAGE names the
 * sentence the run expects; without it (the real runtime, whose machine
 * decides) any of the driver or device sentences will do. */
static void
assert_device_error (GstBus * bus, const gchar * name)
{
  static const gchar *actionable[] = { "install the NVIDIA driver",
    "update the driver", "found no CUDA device", NULL
  };
  const gchar *expected = g_getenv ("PINNED_STATES_MESSAGE");
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *debug = NULL;
  gboolean says_what = FALSE;
  guint i;

  fail_unless (msg != NULL, "%s: no error message", name);
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("%s: %s (%s)", name, error->message, debug);
  fail_unless (error->domain == GST_RESOURCE_ERROR, "%s: domain %s", name,
      g_quark_to_string (error->domain));
  fail_unless (strstr (error->message, "No usable CUDA device") != NULL,
      "%s: message %s", name, error->message);
  for (i = 0; actionable[i]; i++) {
    if ((expected == NULL || strstr (expected, actionable[i])) &&
        strstr (error->message, actionable[i]))
      says_what = TRUE;
  }
  fail_unless (says_what, "%s: the message does not say what to do (%s): "
      "%s", name, expected ? expected : "any", error->message);
  fail_unless (debug != NULL && strstr (debug, " failed: cudaError") != NULL,
      "%s: the detail does not name the CUDA call and error: %s", name, debug);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  /* One error per failed change, nothing else. */
  fail_unless ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING)) == NULL, "%s: more messages: %"
      GST_PTR_FORMAT, name, msg);
}

static void
assert_no_error (GstBus * bus, const gchar * name)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
      GST_MESSAGE_WARNING);

  fail_unless (msg == NULL, "%s: %" GST_PTR_FORMAT, name, msg);
}

/* Sets @element to @state, checks the result against whether a device is
 * expected, and the element's state afterwards. */
static void
change (GstElement * element, GstBus * bus, GstState state)
{
  const gchar *name = GST_OBJECT_NAME (element);
  GstStateChangeReturn ret;
  GstState current, pending;
  gboolean needs_device;

  gst_element_get_state (element, &current, NULL, 0);
  needs_device = state >= GST_STATE_PAUSED && current < GST_STATE_PAUSED;

  ret = gst_element_set_state (element, state);
  if (needs_device && !expect_device ()) {
    fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
    assert_device_error (bus, name);
    /* It stays where it could go: READY, ready to be shut down. */
    fail_unless_equals_int (gst_element_get_state (element, &current,
            &pending, 0), GST_STATE_CHANGE_FAILURE);
    fail_unless (current <= GST_STATE_READY, "%s in %s", name,
        gst_state_get_name (current));
    return;
  }

  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s: %s failed", name,
      gst_state_get_name (state));
  /* Transforms do not preroll: no state change stays pending. */
  fail_unless_equals_int (gst_element_get_state (element, &current,
          &pending, GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (current, state);
  assert_no_error (bus, name);
}

/* @states, CYCLES times, on each element of the plugin: as it comes
 * (a device-id of -1 opens the device at caps time, so start only looks
 * for one) and with device-id=0 (opened in start). */
static void
run_sequence (const GstState * states, guint n)
{
  GList *names = plugin_elements (), *l;
  gint device_id;

  fail_unless (g_list_length (names) >= 4, "plugin has %u elements",
      g_list_length (names));
  for (l = names; l; l = l->next) {
    for (device_id = -1; device_id <= 0; device_id++) {
      GstElement *element = gst_element_factory_make (l->data, NULL);
      GstBus *bus = gst_bus_new ();
      guint c, i;

      fail_unless (element != NULL, "cannot make %s", (gchar *) l->data);
      gst_object_ref_sink (element);
      g_object_set (element, "device-id", device_id, NULL);
      gst_element_set_bus (element, bus);
      for (c = 0; c < CYCLES; c++) {
        for (i = 0; i < n; i++)
          change (element, bus, states[i]);
      }
      fail_unless_equals_int (gst_element_set_state (element,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
      gst_element_set_bus (element, NULL);
      gst_object_unref (bus);
      /* Nothing of the element's is kept alive by anyone else. */
      ASSERT_OBJECT_REFCOUNT (element, l->data, 1);
      gst_check_object_destroyed_on_unref (element);
    }
  }
  g_list_free_full (names, g_free);
}

GST_START_TEST (test_up_and_down)
{
  static const GstState states[] = {
    GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING,
    GST_STATE_PAUSED, GST_STATE_READY, GST_STATE_NULL,
  };

  run_sequence (states, G_N_ELEMENTS (states));
}

GST_END_TEST;

/* Jumps: NULL to PLAYING and back in one call each, and zigzags. */
GST_START_TEST (test_jumps)
{
  static const GstState states[] = {
    GST_STATE_PLAYING, GST_STATE_NULL, GST_STATE_PAUSED, GST_STATE_READY,
    GST_STATE_PLAYING, GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_NULL,
  };

  run_sequence (states, G_N_ELEMENTS (states));
}

GST_END_TEST;

/* Each element, and all of them at once, in a bin: the bin goes to
 * PLAYING and back (a bin without a device fails as a whole). */
GST_START_TEST (test_in_bin)
{
  GList *names = plugin_elements (), *l;
  GstElement *all = gst_pipeline_new ("all");
  GstBus *bus = gst_element_get_bus (all);
  guint c;

  for (l = names; l; l = l->next)
    gst_bin_add (GST_BIN (all), gst_element_factory_make (l->data, NULL));

  for (c = 0; c < CYCLES; c++) {
    GstStateChangeReturn ret = gst_element_set_state (all, GST_STATE_PLAYING);

    if (expect_device ()) {
      fail_if (ret == GST_STATE_CHANGE_FAILURE);
      fail_unless_equals_int (gst_element_get_state (all, NULL, NULL,
              GST_SECOND), GST_STATE_CHANGE_SUCCESS);
      assert_no_error (bus, "bin");
    } else {
      GstMessage *msg;
      guint errors = 0;

      fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
      while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
        errors++;
        gst_message_unref (msg);
      }
      fail_unless (errors >= 1);
    }
    fail_unless_equals_int (gst_element_set_state (all, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }

  gst_object_unref (bus);
  ASSERT_OBJECT_REFCOUNT (all, "bin", 1);
  gst_check_object_destroyed_on_unref (all);
  g_list_free_full (names, g_free);
}

GST_END_TEST;

static Suite *
states_suite (void)
{
  Suite *s = suite_create ("states");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_up_and_down);
  tcase_add_test (tc, test_jumps);
  tcase_add_test (tc, test_in_bin);

  return s;
}

int
main (int argc, char **argv)
{
  Suite *suite;

  if (expect_device ())
    return pinned_test_main (argc, argv, states_suite);

  /* Without a device pinned_test_main() would skip: here the machine
   * without one is the subject. */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  suite = states_suite ();
  return gst_check_run_suite (suite, "states", argv[0]) == 0 ? 0 : 1;
}
