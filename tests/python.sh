#!/usr/bin/env bash
# gst-pinned from Python through GObject introspection (GstPinned-1.0), in
# the build tree as a user runs it: `meson devenv -C BUILD` (which sets
# GI_TYPELIB_PATH, LD_LIBRARY_PATH and GST_PLUGIN_PATH) and nothing else
# but the stand-in's folder. First the library is used before any pipeline
# has loaded the plugin (the typelib names libgstpinned-1.0.so.0, which the
# loader must find itself), then examples/pinned-frames.py runs.
# Skips (77) where Debian's python3 has no PyGObject or there is no typelib.
#
#   tests/python.sh BUILD_ROOT      (FAKECUDA_LIBRARY_PATH: the stand-in's
#                                   folder, then GStreamer's libraries)
set -u
build=$1
py=/usr/bin/python3
if ! $py -c "import gi" 2>/dev/null || [ ! -f "$build/src/GstPinned-1.0.typelib" ]; then
  echo "SKIP: no PyGObject or no GstPinned-1.0.typelib"
  exit 77
fi
run () {
  env -u GI_TYPELIB_PATH -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 \
    LD_LIBRARY_PATH="$FAKECUDA_LIBRARY_PATH" meson devenv -C "$build" "$@"
}
run $py - <<'PY' || exit 1
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
from gi.repository import Gst, GstPinned
Gst.init(None)
context = GstPinned.Context.new(0)
print("before any pipeline: CUDA device %d (%s)"
      % (context.get_device_id(), context.get_device_name()))
PY
run $py "$(cd "$(dirname "$0")/.." && pwd)/examples/pinned-frames.py" 3
