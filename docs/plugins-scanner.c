/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* gst-pinned-plugins-scanner OUTPUT PLUGIN...
 *
 * Loads each plugin file and writes what it registers as JSON, in the
 * structure of GStreamer's plugin documentation cache
 * (docs/plugins/gst_plugins_cache.json of GStreamer's modules, which
 * GStreamer's gst-hotdoc-plugins-scanner writes and hotdoc's gst extension
 * reads): per plugin its details, its elements (factory metadata, rank,
 * type hierarchy, own properties and signals, pad templates with their
 * caps) and "other-types", the enums, flags and classes that are marked as
 * plugin API (gst_type_mark_as_plugin_api), with the properties of those
 * classes. Debian ships no gst-hotdoc-plugins-scanner, hence this one.
 *
 * The JSON is compact and in the order it is found: docs/plugins-cache.py
 * sorts its keys and indents it, and compares it with the committed cache.
 */

#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include <gst/gst.h>

/* A JSON writer: a comma before every member or value but the first of its
 * object or array. */
typedef struct
{
  GString *out;
  gboolean first;
  gboolean after_key;
} Json;

static void
json_quote (Json * j, const gchar * s)
{
  const guchar *p;

  g_string_append_c (j->out, '"');
  for (p = (const guchar *) s; *p; p++) {
    switch (*p) {
      case '"':
        g_string_append (j->out, "\\\"");
        break;
      case '\\':
        g_string_append (j->out, "\\\\");
        break;
      case '\n':
        g_string_append (j->out, "\\n");
        break;
      case '\t':
        g_string_append (j->out, "\\t");
        break;
      case '\r':
        g_string_append (j->out, "\\r");
        break;
      default:
        if (*p < 0x20)
          g_string_append_printf (j->out, "\\u%04x", *p);
        else
          g_string_append_c (j->out, *p);
        break;
    }
  }
  g_string_append_c (j->out, '"');
}

/* Before a value: the comma, unless it follows its key. */
static void
json_value (Json * j)
{
  if (j->after_key)
    j->after_key = FALSE;
  else if (!j->first)
    g_string_append_c (j->out, ',');
  j->first = FALSE;
}

static void
json_key (Json * j, const gchar * key)
{
  json_value (j);
  json_quote (j, key);
  g_string_append_c (j->out, ':');
  j->after_key = TRUE;
}

static void
json_open (Json * j, gchar bracket)
{
  json_value (j);
  g_string_append_c (j->out, bracket);
  j->first = TRUE;
}

static void
json_close (Json * j, gchar bracket)
{
  g_string_append_c (j->out, bracket);
  j->first = FALSE;
}

/* A string value; NULL as "NULL", as GStreamer's cache writes it. */
static void
json_string (Json * j, const gchar * s)
{
  json_value (j);
  json_quote (j, s ? s : "NULL");
}

static void
json_member (Json * j, const gchar * key, const gchar * s)
{
  json_key (j, key);
  json_string (j, s);
}

static void
json_member_take (Json * j, const gchar * key, gchar * s)
{
  json_member (j, key, s);
  g_free (s);
}

static void
json_member_bool (Json * j, const gchar * key, gboolean b)
{
  json_key (j, key);
  json_value (j);
  g_string_append (j->out, b ? "true" : "false");
}

/* Types of plugin API already described in other-types, and the members
 * of other-types: each description is written apart, then appended, since
 * describing a class describes the types it uses first. */
typedef struct
{
  GHashTable *seen;
  GString *other;
} Scan;

static void add_object (Scan * scan, Json * j, GType type, GType inst_type);

static void
add_enum (Json * j, GType type, GstPluginAPIFlags api_flags)
{
  GEnumClass *klass = g_type_class_ref (type);
  guint i;

  json_key (j, g_type_name (type));
  json_open (j, '{');
  json_member (j, "kind", "enum");
  if (api_flags & GST_PLUGIN_API_FLAG_IGNORE_ENUM_MEMBERS)
    json_member_bool (j, "ignore-enum-members", TRUE);
  json_key (j, "values");
  json_open (j, '[');
  for (i = 0; i < klass->n_values &&
      !(api_flags & GST_PLUGIN_API_FLAG_IGNORE_ENUM_MEMBERS); i++) {
    json_open (j, '{');
    json_member (j, "desc", klass->values[i].value_name);
    json_member (j, "name", klass->values[i].value_nick);
    json_member_take (j, "value", g_strdup_printf ("%d",
            klass->values[i].value));
    json_close (j, '}');
  }
  json_close (j, ']');
  json_close (j, '}');
  g_type_class_unref (klass);
}

static void
add_flags (Json * j, GType type)
{
  GFlagsClass *klass = g_type_class_ref (type);
  guint i;

  json_key (j, g_type_name (type));
  json_open (j, '{');
  json_member (j, "kind", "flags");
  json_key (j, "values");
  json_open (j, '[');
  for (i = 0; i < klass->n_values; i++) {
    json_open (j, '{');
    json_member (j, "desc", klass->values[i].value_name);
    json_member (j, "name", klass->values[i].value_nick);
    json_member_take (j, "value", g_strdup_printf ("0x%08x",
            klass->values[i].value));
    json_close (j, '}');
  }
  json_close (j, ']');
  json_close (j, '}');
  g_type_class_unref (klass);
}

/* Describes @type in other-types once, if it is plugin API. */
static void
note_type (Scan * scan, GType type, GType inst_type)
{
  GstPluginAPIFlags api_flags = 0;
  const gchar *name = g_type_name (type);
  Json j = { NULL, TRUE, FALSE };

  if (!name || g_hash_table_contains (scan->seen, name) ||
      !gst_type_is_plugin_api (type, &api_flags))
    return;
  g_hash_table_add (scan->seen, (gpointer) name);
  j.out = g_string_new (NULL);
  if (G_TYPE_IS_ENUM (type))
    add_enum (&j, type, api_flags);
  else if (G_TYPE_IS_FLAGS (type))
    add_flags (&j, type);
  else if (G_TYPE_IS_OBJECT (type) || G_TYPE_IS_INTERFACE (type))
    add_object (scan, &j, type, inst_type);
  if (j.out->len)
    g_string_append_printf (scan->other, "%s%s", scan->other->len ? "," : "",
        j.out->str);
  g_string_free (j.out, TRUE);
}

static gchar *
enum_default (const GValue * value)
{
  GEnumClass *klass = g_type_class_ref (G_VALUE_TYPE (value));
  GEnumValue *v = g_enum_get_value (klass, g_value_get_enum (value));
  gchar *s = g_strdup_printf ("%s (%d)", v ? v->value_nick : "",
      g_value_get_enum (value));

  g_type_class_unref (klass);
  return s;
}

/* The nicks of the set flags, joined with '+', highest first. */
static gchar *
flags_default (const GValue * value)
{
  GFlagsClass *klass = g_type_class_ref (G_VALUE_TYPE (value));
  guint flags = g_value_get_flags (value);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < klass->n_values; i++) {
    if (klass->values[i].value == flags) {
      g_string_assign (s, klass->values[i].value_nick);
      goto done;
    }
  }
  for (i = klass->n_values; i > 0 && flags; i--) {
    GFlagsValue *v = &klass->values[i - 1];

    if (v->value && (flags & v->value) == v->value) {
      if (s->len)
        g_string_append_c (s, '+');
      g_string_append (s, v->value_nick);
      flags &= ~v->value;
    }
  }
  if (!s->len)
    g_string_assign (s, "(none)");
done:
  g_type_class_unref (klass);
  return g_string_free (s, FALSE);
}

/* A number's default, min and max, as strings. */
#define RANGE(j, fmt, val, spec_cast, spec) G_STMT_START {               \
    json_member_take (j, "default", g_strdup_printf (fmt, val));         \
    json_member_take (j, "min",                                          \
        g_strdup_printf (fmt, spec_cast (spec)->minimum));               \
    json_member_take (j, "max",                                          \
        g_strdup_printf (fmt, spec_cast (spec)->maximum));               \
  } G_STMT_END

/* "default" (and "min", "max") of a property, as strings. */
static void
add_default (Json * j, GParamSpec * spec, const GValue * value)
{
  switch (G_TYPE_FUNDAMENTAL (spec->value_type)) {
    case G_TYPE_STRING:
      json_member (j, "default", g_value_get_string (value));
      break;
    case G_TYPE_BOOLEAN:
      json_member (j, "default", g_value_get_boolean (value) ? "true" :
          "false");
      break;
    case G_TYPE_INT:
      RANGE (j, "%d", g_value_get_int (value), G_PARAM_SPEC_INT, spec);
      break;
    case G_TYPE_UINT:
      RANGE (j, "%u", g_value_get_uint (value), G_PARAM_SPEC_UINT, spec);
      break;
    case G_TYPE_LONG:
      RANGE (j, "%ld", g_value_get_long (value), G_PARAM_SPEC_LONG, spec);
      break;
    case G_TYPE_ULONG:
      RANGE (j, "%lu", g_value_get_ulong (value), G_PARAM_SPEC_ULONG, spec);
      break;
    case G_TYPE_INT64:
      RANGE (j, "%" G_GINT64_FORMAT, g_value_get_int64 (value),
          G_PARAM_SPEC_INT64, spec);
      break;
    case G_TYPE_UINT64:
      RANGE (j, "%" G_GUINT64_FORMAT, g_value_get_uint64 (value),
          G_PARAM_SPEC_UINT64, spec);
      break;
    case G_TYPE_FLOAT:
      RANGE (j, "%g", g_value_get_float (value), G_PARAM_SPEC_FLOAT, spec);
      break;
    case G_TYPE_DOUBLE:
      RANGE (j, "%g", g_value_get_double (value), G_PARAM_SPEC_DOUBLE, spec);
      break;
    case G_TYPE_ENUM:
      json_member_take (j, "default", enum_default (value));
      break;
    case G_TYPE_FLAGS:
      json_member_take (j, "default", flags_default (value));
      break;
    default:
      if (spec->value_type == GST_TYPE_CAPS && gst_value_get_caps (value)) {
        json_member_take (j, "default",
            gst_caps_to_string (gst_value_get_caps (value)));
      } else if (spec->value_type == GST_TYPE_STRUCTURE &&
          gst_value_get_structure (value)) {
        json_member_take (j, "default",
            gst_structure_to_string (gst_value_get_structure (value)));
      } else if (GST_IS_PARAM_SPEC_FRACTION (spec)) {
        GstParamSpecFraction *f = GST_PARAM_SPEC_FRACTION (spec);

        json_member_take (j, "default", g_strdup_printf ("%d/%d",
                gst_value_get_fraction_numerator (value),
                gst_value_get_fraction_denominator (value)));
        json_member_take (j, "min", g_strdup_printf ("%d/%d", f->min_num,
                f->min_den));
        json_member_take (j, "max", g_strdup_printf ("%d/%d", f->max_num,
                f->max_den));
      }
      break;
  }
}

static const gchar *
mutable_state (GParamSpec * spec)
{
  if (spec->flags & GST_PARAM_MUTABLE_PLAYING)
    return "playing";
  if (spec->flags & GST_PARAM_MUTABLE_PAUSED)
    return "paused";
  if (spec->flags & GST_PARAM_MUTABLE_READY)
    return "ready";
  return "null";
}

/* The properties @type itself installs, their values read from @object
 * where they can be (a subclass may set another default), else the
 * declared default. */
static void
add_properties (Scan * scan, Json * j, GObject * object, GType type)
{
  GParamSpec **specs;
  guint i, n;
  gboolean any = FALSE;

  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n);
  for (i = 0; i < n; i++) {
    GParamSpec *spec = specs[i];
    GValue value = G_VALUE_INIT;

    if (spec->owner_type != type)
      continue;
    if (!any) {
      json_key (j, "properties");
      json_open (j, '{');
      any = TRUE;
    }
    g_value_init (&value, spec->value_type);
    if ((spec->flags & G_PARAM_READABLE) &&
        !(spec->flags & GST_PARAM_DOC_SHOW_DEFAULT))
      g_object_get_property (object, spec->name, &value);
    else
      g_param_value_set_default (spec, &value);

    json_key (j, spec->name);
    json_open (j, '{');
    json_member (j, "blurb", g_param_spec_get_blurb (spec));
    json_member_bool (j, "conditionally-available",
        spec->flags & GST_PARAM_CONDITIONALLY_AVAILABLE);
    json_member_bool (j, "construct", spec->flags & G_PARAM_CONSTRUCT);
    json_member_bool (j, "construct-only",
        spec->flags & G_PARAM_CONSTRUCT_ONLY);
    json_member_bool (j, "controllable", spec->flags & GST_PARAM_CONTROLLABLE);
    add_default (j, spec, &value);
    json_member (j, "mutable", mutable_state (spec));
    json_member_bool (j, "readable", spec->flags & G_PARAM_READABLE);
    json_member (j, "type", g_type_name (spec->value_type));
    json_member_bool (j, "writable", spec->flags & G_PARAM_WRITABLE);
    json_close (j, '}');

    if (G_IS_PARAM_SPEC_OBJECT (spec) && g_value_get_object (&value))
      note_type (scan, spec->value_type,
          G_OBJECT_TYPE (g_value_get_object (&value)));
    else
      note_type (scan, spec->value_type, spec->value_type);
    g_value_unset (&value);
  }
  if (any)
    json_close (j, '}');
  g_free (specs);
}

static void
add_signals (Scan * scan, Json * j, GType type)
{
  guint *ids, n, i, k;

  ids = g_signal_list_ids (type, &n);
  if (n) {
    json_key (j, "signals");
    json_open (j, '{');
  }
  for (i = 0; i < n; i++) {
    GSignalQuery q;
    GType ret;

    g_signal_query (ids[i], &q);
    ret = q.return_type & ~G_SIGNAL_TYPE_STATIC_SCOPE;
    json_key (j, q.signal_name);
    json_open (j, '{');
    json_key (j, "args");
    json_open (j, '[');
    for (k = 0; k < q.n_params; k++) {
      GType t = q.param_types[k] & ~G_SIGNAL_TYPE_STATIC_SCOPE;

      json_open (j, '{');
      json_member_take (j, "name", g_strdup_printf ("arg%u", k));
      json_member (j, "type", g_type_name (t));
      json_close (j, '}');
      note_type (scan, t, t);
    }
    json_close (j, ']');
    if (q.signal_flags & G_SIGNAL_ACTION)
      json_member_bool (j, "action", TRUE);
    if (q.signal_flags & G_SIGNAL_DETAILED)
      json_member_bool (j, "detailed", TRUE);
    if (q.signal_flags & G_SIGNAL_NO_HOOKS)
      json_member_bool (j, "no-hooks", TRUE);
    if (q.signal_flags & G_SIGNAL_NO_RECURSE)
      json_member_bool (j, "no-recurse", TRUE);
    json_member (j, "return-type", g_type_name (ret));
    if (q.signal_flags & G_SIGNAL_RUN_FIRST)
      json_member (j, "when", "first");
    else if (q.signal_flags & G_SIGNAL_RUN_LAST)
      json_member (j, "when", "last");
    else if (q.signal_flags & G_SIGNAL_RUN_CLEANUP)
      json_member (j, "when", "cleanup");
    json_close (j, '}');
    note_type (scan, ret, ret);
  }
  if (n)
    json_close (j, '}');
  g_free (ids);
}

/* Hierarchy, interfaces, own properties and signals of @type, the
 * properties' values read from @object, an instance of @type or of a
 * subclass (@type itself may be abstract). */
static void
add_type_details (Scan * scan, Json * j, GObject * object, GType type)
{
  GType t, *ifaces;
  guint n, i;

  json_key (j, "hierarchy");
  json_open (j, '[');
  for (t = type; t; t = g_type_parent (t))
    json_string (j, g_type_name (t));
  json_close (j, ']');
  for (t = type; t; t = g_type_parent (t))
    note_type (scan, t, G_OBJECT_TYPE (object));

  ifaces = g_type_interfaces (type, &n);
  if (n) {
    json_key (j, "interfaces");
    json_open (j, '[');
    for (i = 0; i < n; i++)
      json_string (j, g_type_name (ifaces[i]));
    json_close (j, ']');
    for (i = 0; i < n; i++)
      note_type (scan, ifaces[i], G_OBJECT_TYPE (object));
  }
  g_free (ifaces);

  add_properties (scan, j, object, type);
  add_signals (scan, j, type);
}

static void
add_object (Scan * scan, Json * j, GType type, GType inst_type)
{
  GObject *object = g_object_new (inst_type, NULL);

  json_key (j, g_type_name (type));
  json_open (j, '{');
  json_member (j, "kind", G_TYPE_IS_INTERFACE (type) ? "interface" : "object");
  add_type_details (scan, j, object, type);
  json_close (j, '}');
  gst_object_unref (gst_object_ref_sink (object));
}

/* "none", "primary", or the nearest named rank and the difference:
 * "primary + 1". */
static gchar *
rank_name (guint rank)
{
  static const struct
  {
    guint rank;
    const gchar *name;
  } ranks[] = {
    {GST_RANK_NONE, "none"},
    {GST_RANK_MARGINAL, "marginal"},
    {GST_RANK_SECONDARY, "secondary"},
    {GST_RANK_PRIMARY, "primary"},
  };
  guint i, best = 0;

  for (i = 0; i < G_N_ELEMENTS (ranks); i++) {
    if (rank == ranks[i].rank)
      return g_strdup (ranks[i].name);
    if (ABS ((gint) rank - (gint) ranks[i].rank) <
        ABS ((gint) rank - (gint) ranks[best].rank))
      best = i;
  }
  return g_strdup_printf ("%s %c %d", ranks[best].name,
      rank > ranks[best].rank ? '+' : '-',
      ABS ((gint) rank - (gint) ranks[best].rank));
}

/* Caps as gst-inspect-1.0 lays them out: each structure (with its
 * features, unless system memory) on a line, then a field a line. Format
 * lists without their (string) types. */
static gchar *
caps_text (GstCaps * caps)
{
  GString *s;
  guint i, k;

  if (gst_caps_is_any (caps))
    return g_strdup ("ANY");
  if (gst_caps_is_empty (caps))
    return g_strdup ("EMPTY");

  s = g_string_new (NULL);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (i)
      g_string_append_c (s, '\n');
    g_string_append (s, gst_structure_get_name (st));
    if (f && (gst_caps_features_is_any (f) || !gst_caps_features_is_equal (f,
                GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))) {
      gchar *fs = gst_caps_features_to_string (f);

      g_string_append_printf (s, "(%s)", fs);
      g_free (fs);
    }
    g_string_append (s, ":\n");
    for (k = 0; k < (guint) gst_structure_n_fields (st); k++) {
      const gchar *field = gst_structure_nth_field_name (st, k);
      gchar *v = gst_value_serialize (gst_structure_get_value (st, field));

      if (g_str_equal (field, "format")) {
        gchar **parts = g_strsplit (v, "(string)", -1);

        g_free (v);
        v = g_strjoinv ("", parts);
        g_strfreev (parts);
      }
      g_string_append_printf (s, "%15s: %s\n", field, v);
      g_free (v);
    }
  }
  return g_string_free (s, FALSE);
}

static void
add_pad_templates (Scan * scan, Json * j, GstElementFactory * factory,
    GstElement * element)
{
  const GList *l = gst_element_factory_get_static_pad_templates (factory);

  if (!l)
    return;
  json_key (j, "pad-templates");
  json_open (j, '{');
  for (; l; l = l->next) {
    GstStaticPadTemplate *st = l->data;
    GstPadTemplate *tmpl =
        gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (element),
        st->name_template);
    GstCaps *caps = gst_pad_template_get_documentation_caps (tmpl);
    GType pad_type = GST_PAD_TEMPLATE_GTYPE (tmpl);
    gchar **parts = g_strsplit (st->name_template, "%", -1);
    gchar *name = g_strjoinv ("%%", parts);

    /* With '%' doubled (src_%%u), as GStreamer's cache has them and
     * hotdoc's gst extension reads them. */
    json_key (j, name);
    g_free (name);
    g_strfreev (parts);
    json_open (j, '{');
    json_member_take (j, "caps", caps_text (caps));
    json_member (j, "direction", st->direction == GST_PAD_SRC ? "src" :
        st->direction == GST_PAD_SINK ? "sink" : "unknown");
    json_member (j, "presence", st->presence == GST_PAD_ALWAYS ? "always" :
        st->presence == GST_PAD_SOMETIMES ? "sometimes" : "request");
    if (pad_type != G_TYPE_NONE && pad_type != GST_TYPE_PAD) {
      json_member (j, "type", g_type_name (pad_type));
      note_type (scan, pad_type, pad_type);
    }
    json_close (j, '}');
    gst_caps_unref (caps);
  }
  json_close (j, '}');
}

static void
add_element (Scan * scan, Json * j, GstElementFactory * factory)
{
  GstElement *element = gst_element_factory_create (factory, NULL);
  gchar **keys, **k;

  if (!element) {
    g_printerr ("could not create %s\n", GST_OBJECT_NAME (factory));
    exit (1);
  }
  json_key (j, GST_OBJECT_NAME (factory));
  json_open (j, '{');
  keys = gst_element_factory_get_metadata_keys (factory);
  for (k = keys; k && *k; k++)
    json_member (j, *k, gst_element_factory_get_metadata (factory, *k));
  g_strfreev (keys);
  json_member_take (j, "rank", rank_name (gst_plugin_feature_get_rank
          (GST_PLUGIN_FEATURE (factory))));
  add_type_details (scan, j, G_OBJECT (element), G_OBJECT_TYPE (element));
  add_pad_templates (scan, j, factory, element);
  json_close (j, '}');
  gst_object_unref (element);
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (GST_OBJECT_NAME (a), GST_OBJECT_NAME (b));
}

static void
add_plugin (Json * j, GstPlugin * plugin, const gchar * path)
{
  gchar *base = g_path_get_basename (path);
  gchar *dot = strchr (base, '.');
  GList *features, *l;
  Scan scan = { g_hash_table_new (g_str_hash, g_str_equal), g_string_new (NULL)
  };

  if (dot)
    *dot = '\0';
  json_key (j, gst_plugin_get_name (plugin));
  json_open (j, '{');
  json_member (j, "description", gst_plugin_get_description (plugin));
  json_member (j, "filename", g_str_has_prefix (base, "lib") ? base + 3 : base);
  json_member (j, "license", gst_plugin_get_license (plugin));
  json_member (j, "package", gst_plugin_get_package (plugin));
  json_member (j, "source", gst_plugin_get_source (plugin));
  json_member (j, "url", gst_plugin_get_origin (plugin));

  /* In the order of their names: a base class is described on the
   * instance of the first element that has it. */
  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      gst_plugin_get_name (plugin));
  features = g_list_sort (features, by_name);
  json_key (j, "elements");
  json_open (j, '{');
  for (l = features; l; l = l->next) {
    if (GST_IS_ELEMENT_FACTORY (l->data) &&
        !gst_element_factory_get_skip_documentation (l->data))
      add_element (&scan, j, l->data);
  }
  json_close (j, '}');
  json_key (j, "tracers");
  json_open (j, '{');
  for (l = features; l; l = l->next) {
    if (GST_IS_TRACER_FACTORY (l->data)) {
      GObject *tracer = g_object_new (gst_tracer_factory_get_tracer_type
          (l->data), NULL);

      json_key (j, GST_OBJECT_NAME (l->data));
      json_open (j, '{');
      add_type_details (&scan, j, tracer, G_OBJECT_TYPE (tracer));
      json_close (j, '}');
      gst_object_unref (gst_object_ref_sink (tracer));
    }
  }
  json_close (j, '}');
  gst_plugin_feature_list_free (features);

  json_key (j, "other-types");
  g_string_append_printf (j->out, "{%s}", scan.other->str);
  j->after_key = FALSE;
  json_close (j, '}');

  g_string_free (scan.other, TRUE);
  g_hash_table_unref (scan.seen);
  g_free (base);
}

int
main (int argc, char *argv[])
{
  Json j = { g_string_new (NULL), TRUE, FALSE };
  GError *err = NULL;
  int i;

  if (argc < 3) {
    g_printerr ("usage: %s OUTPUT PLUGIN...\n", argv[0]);
    return 2;
  }
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  gst_init (NULL, NULL);

  json_open (&j, '{');
  for (i = 2; i < argc; i++) {
    GstPlugin *plugin = gst_plugin_load_file (argv[i], &err);

    if (!plugin) {
      g_printerr ("%s: not a GStreamer plugin: %s\n", argv[i], err->message);
      return 1;
    }
    add_plugin (&j, plugin, argv[i]);
    gst_object_unref (plugin);
  }
  json_close (&j, '}');
  g_string_append_c (j.out, '\n');

  if (!g_file_set_contents (argv[1], j.out->str, j.out->len, &err)) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  g_string_free (j.out, TRUE);
  return 0;
}
