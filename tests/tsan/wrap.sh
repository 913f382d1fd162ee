#!/bin/sh
# meson test --setup tsan's wrapper: runs a test program with the
# ThreadSanitizer builds of GLib and GStreamer core (tests/tsan.sh makes
# them in DEPS) first on LD_LIBRARY_PATH, before the stand-in and the
# system's libraries that the test's own environment names (meson sets a
# test's environment after the setup's, so the setup cannot add them).
deps=$1
shift
if [ ! -d "$deps/plugins" ]; then
  echo "tsan: $deps/plugins is missing: run tests/tsan.sh, which makes it" >&2
  exit 1
fi
libs=
for d in glib/glib glib/gobject glib/gmodule glib/gthread \
    gstreamer/gst gstreamer/libs/gst/base gstreamer/libs/gst/check \
    gstreamer/libs/gst/controller gstreamer/libs/gst/net; do
  if [ ! -d "$deps/$d" ]; then
    echo "tsan: $deps/$d is missing: run tests/tsan.sh, which builds it" >&2
    exit 1
  fi
  libs="$libs$deps/$d:"
done
LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:-}"
export LD_LIBRARY_PATH
# The reports go to files, which tests/tsan/triage.py sorts: a race wholly
# inside GStreamer core does not fail the program, any other
# report does (exit code 66).
reports=$(mktemp -d) || exit 1
TSAN_OPTIONS="${TSAN_OPTIONS:-} log_path=$reports/report"
export TSAN_OPTIONS
"$@"
rc=$?
set -- "$reports"/report.*
if [ -e "$1" ]; then
  python3 "$(dirname "$0")/triage.py" "$@"
  triage=$?
  if [ $rc -eq 66 ] || [ $rc -eq 0 ]; then
    rc=$((triage == 0 ? 0 : 66))
  fi
else
  echo "tsan: 0 reports of ours, 0 of GStreamer's own" >&2
fi
rm -rf "$reports"
exit $rc
