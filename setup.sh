#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for gst-pinned and builds it in ./build:
# installs the Debian packages it needs (GStreamer 1.22 and its development
# files, meson, ninja, the test tools valgrind and GNU indent, dlpack.h and
# NumPy for the tensor bridge, ...), finds CUDA at $CUDA_PATH
# (/usr/local/cuda), configures and builds. Safe to run again: it only does
# what is missing.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  meson ninja-build pkg-config gcc g++ python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
  gobject-introspection libgirepository1.0-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  valgrind indent
  libdlpack-dev python3-numpy
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

export CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
if [ ! -x "$CUDA_PATH/bin/nvcc" ] || ! ls "$CUDA_PATH"/lib64/libcudart.so* >/dev/null 2>&1; then
  echo "setup: no CUDA toolkit at $CUDA_PATH (nvcc and libcudart are needed" \
       "to build; a GPU is not). Install CUDA 12 or 13 there or set CUDA_PATH." >&2
  exit 1
fi
export PATH="$CUDA_PATH/bin:$PATH"

if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build
