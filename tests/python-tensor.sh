#!/usr/bin/env bash
# GstPinned.Frame and GstPinned.buffer_from_dlpack (src/python/gi/overrides)
# through the CUDA stand-in, in `meson devenv -C BUILD` as a user runs it
# (which puts the override on PYTHONPATH), with Debian's python3 and NumPy:
# tests/python/tensor.py. Skips (77) without PyGObject, NumPy or the
# typelib, or in a build without DLPack.
#
#   tests/python-tensor.sh BUILD_ROOT      (FAKECUDA_LIBRARY_PATH: the stand-in's
#                                   folder, then GStreamer's libraries)
set -u
build=$1
py=/usr/bin/python3
if ! $py -c "import gi, numpy" 2>/dev/null || [ ! -f "$build/src/GstPinned-1.0.typelib" ]; then
  echo "SKIP: no PyGObject, no NumPy or no GstPinned-1.0.typelib"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
run () {
  env -u GI_TYPELIB_PATH -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 -u PYTHONPATH \
    LD_LIBRARY_PATH="$FAKECUDA_LIBRARY_PATH" meson devenv -C "$build" \
    "$@"
}
run $py "$here/python/tensor.py" || exit 1
# pinnedbatch's tensor and slots from Python
run $py "$here/python/batch.py" "$build" || exit 1
# Optional: a NumPy of 2.1 or later, which asks for DLPack 1.x capsules
# itself (its from_dlpack views writable where the flags allow), where
# the venv is there (git-ignored; not in CI):
#   /usr/bin/python3 -m venv --system-site-packages .venv-numpy2
#   .venv-numpy2/bin/pip install "numpy>=2.1"
venv=$here/../.venv-numpy2/bin/python3
if [ -x "$venv" ]; then
  echo "## again with $("$venv" -c "import numpy; print('NumPy', numpy.__version__)")"
  run "$venv" "$here/python/tensor.py"
fi
