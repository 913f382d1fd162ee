#!/usr/bin/env bash
# examples/pinned-frames.py runs through GObject introspection (GstPinned-1.0).
# Skips (77) where Debian's python3 has no PyGObject or there is no typelib.
set -u
py=/usr/bin/python3
if ! $py -c "import gi" 2>/dev/null || [ ! -f "$GI_TYPELIB_PATH/GstPinned-1.0.typelib" ]; then
  echo "SKIP: no PyGObject or no GstPinned-1.0.typelib"
  exit 77
fi
exec $py "$(dirname "$0")/../examples/pinned-frames.py" 3
