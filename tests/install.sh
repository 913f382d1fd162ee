#!/usr/bin/env bash
# meson install into a scratch prefix, then, with nothing but that prefix
# in the environment (no build folder), what a user does with it:
#   - gst-inspect-1.0 finds the plugin's four elements there;
#   - an external C program that includes the public headers (CUDA's
#     included) and calls the library and the CUDA runtime compiles and
#     links with `pkg-config --cflags --libs gstpinned-1.0` alone, and runs;
#   - Python loads the GstPinned typelib and calls the library before any
#     pipeline has loaded the plugin.
#
#   tests/install.sh SOURCE_ROOT        (CUDA_PATH: the toolkit)
set -u
src=$1
export PATH="${CUDA_PATH:-/usr/local/cuda}/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
failed=0

fail () {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

if ! { meson setup "$tmp/build" "$src" --prefix="$prefix" \
      -Dtests=disabled -Dexamples=disabled -Dbenchmark=disabled &&
    ninja -C "$tmp/build" -j2 && meson install -C "$tmp/build"; } \
    > "$tmp/install.log" 2>&1; then
  tail -30 "$tmp/install.log"
  echo "FAIL: build or install"
  exit 1
fi
libdir=$(meson introspect --buildoptions "$tmp/build" | /usr/bin/python3 -c \
  'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"][0])')
echo "installed into $prefix ($libdir):"
(cd "$prefix" && find . -type f | sort | sed 's/^\.\//  /' |
  grep -vE "include/gstreamer-1.0/gst/pinned/gstpinned[a-z]+\.h$")

# Nothing of the build or the caller's folders: the prefix only.
unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0 GI_TYPELIB_PATH PKG_CONFIG_PATH \
  LD_LIBRARY_PATH
export GST_PLUGIN_PATH_1_0=$prefix/$libdir/gstreamer-1.0
export GST_REGISTRY_1_0=$tmp/registry.bin
export LD_LIBRARY_PATH=$prefix/$libdir
export GI_TYPELIB_PATH=$prefix/$libdir/girepository-1.0
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig

# 1. The plugin, from the prefix.
out=$(gst-inspect-1.0 pinned 2>&1)
echo "$out" | grep -q "Filename *$prefix/" ||
  fail "gst-inspect-1.0 does not find the plugin in the prefix: $out"
for e in pinnedupload pinneddownload pinnedconvert pinnedbusy; do
  echo "$out" | grep -qE "^ *$e:" || fail "gst-inspect-1.0 pinned: no $e"
done
echo "$out" | grep -E "Filename|Origin|elements"

# 2. An application, built with pkg-config alone.
cat > "$tmp/app.c" <<'EOF'
#include <gst/pinned/pinned.h>
#include <gst/pinned/gstpinnedcuda.h>

int
main (int argc, char **argv)
{
  GstCaps *caps, *device_caps;
  gchar *text;
  int count = 0;
  cudaError_t result;

  gst_init (&argc, &argv);
  caps = gst_caps_from_string ("video/x-raw,format=NV12");
  device_caps = gst_pinned_caps_set_memory_feature (caps,
      GST_CAPS_FEATURE_MEMORY_PINNED_DEVICE);
  /* A call into the CUDA runtime itself: it must link. */
  result = cudaGetDeviceCount (&count);
  text = gst_caps_to_string (device_caps);
  g_print ("app: caps %s, CUDA: %s, %d devices\n", text,
      cudaGetErrorName (result), result == cudaSuccess ? count : 0);
  g_free (text);
  gst_caps_unref (device_caps);
  gst_caps_unref (caps);
  return 0;
}
EOF
flags=$(pkg-config --cflags --libs gstpinned-1.0)
echo "pkg-config --cflags --libs gstpinned-1.0: $flags"
# Named, not only found: a machine that links CUDA's headers and libraries
# into /usr/local (as some do) would build the program without them. A
# distribution's toolkit is in the system's folders, which pkg-config
# names only when asked to.
cuda_inc=""
for f in $(PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --cflags-only-I gstpinned-1.0); do
  [ -f "${f#-I}/cuda_runtime_api.h" ] && cuda_inc=${f#-I}
done
[ -n "$cuda_inc" ] || fail "pkg-config --cflags names no folder with cuda_runtime_api.h"
cuda_lib=""
for f in $(PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config --libs-only-L gstpinned-1.0); do
  ls "${f#-L}"/libcudart.so* > /dev/null 2>&1 && cuda_lib=${f#-L}
done
[ -n "$cuda_lib" ] || fail "pkg-config --libs names no folder with libcudart"
pkg-config --libs-only-l gstpinned-1.0 | grep -qw -- -lcudart ||
  fail "pkg-config --libs has no -lcudart"
if cc "$tmp/app.c" -o "$tmp/app" $flags 2> "$tmp/cc.log"; then
  out=$("$tmp/app" 2>&1) || fail "the application did not run: $out"
  echo "$out"
  echo "$out" | grep -q "memory:PinnedDevice" ||
    fail "the application did not call the library: $out"
else
  cat "$tmp/cc.log"
  fail "an application does not build with pkg-config gstpinned-1.0 alone"
fi

# 3. Python through the typelib, the library used before any pipeline.
if ! /usr/bin/python3 -c "import gi" 2> /dev/null; then
  fail "/usr/bin/python3 has no PyGObject (package python3-gi)"
else
  out=$(/usr/bin/python3 - 2>&1 <<'EOF'
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
from gi.repository import Gst, GstPinned
Gst.init(None)
caps = GstPinned.caps_set_memory_feature(
    Gst.Caps.from_string("video/x-raw,format=NV12"), "memory:PinnedDevice")
print("python: GstPinned caps", caps.to_string())
EOF
) || fail "python: $out"
  echo "$out"
  echo "$out" | grep -q "caps video/x-raw(memory:PinnedDevice)" ||
    fail "python did not call the library"
fi

if [ $failed -gt 0 ]; then
  echo "$failed checks of the installed tree failed"
  exit 1
fi
echo "installed tree: plugin, pkg-config and typelib all usable from $prefix"
