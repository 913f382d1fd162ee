#!/usr/bin/env bash
# Sets up a fresh machine for gst-pinned and builds it in ./build: installs
# the distribution's packages it needs (GStreamer 1.22 or later and its
# development files, meson, ninja, the test tools valgrind, GNU indent and
# clang with libFuzzer, dlpack.h and NumPy for the tensor bridge, ...),
# finds a CUDA toolkit (12.0 or later), configures and builds. Safe to run
# again: it only does what is missing.
#
# Knows Debian 12 and 13 and Ubuntu 24.04 (Ubuntu 22.04's GStreamer 1.20
# and GLib 2.72 are older than gst-pinned needs). CUDA, in this order:
# $CUDA_PATH, /usr/local/cuda (NVIDIA's packages or installer), the
# distribution's nvidia-cuda-toolkit (nvcc in /usr/bin; Debian 13's is
# CUDA 12.4, in non-free; Ubuntu 24.04's 12.0, in multiverse), installed
# where the package can be had and no other toolkit is found.
set -euo pipefail
cd "$(dirname "$0")"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

. /etc/os-release 2> /dev/null || { ID=unknown; VERSION_ID=; PRETTY_NAME=unknown; }
case "$ID:$VERSION_ID" in
  debian:12 | debian:13 | ubuntu:24.04) known=yes ;;
  ubuntu:22.04 | ubuntu:20.04 | debian:11)
    echo "setup: $PRETTY_NAME ships GStreamer and GLib older than" \
      "gst-pinned needs (GStreamer 1.22, GLib 2.74): use Debian 12 or 13," \
      "Ubuntu 24.04, or build a newer GStreamer and set PKG_CONFIG_PATH" \
      "to it, then: meson setup build && ninja -C build" >&2
    exit 1 ;;
  *) known=no ;;
esac

# The same names on every release it knows.
packages=(
  meson ninja-build pkg-config gcc g++ python3 python3-pip
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
  gobject-introspection libgirepository1.0-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  valgrind indent
  libdlpack-dev python3-numpy
  clang libclang-rt-dev
)
if command -v dpkg > /dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ $known = yes ] || echo "setup: $PRETTY_NAME is not a release setup.sh" \
      "knows; trying Debian's package names" >&2
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -q > /dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
      --no-install-recommends "${missing[@]}" > /dev/null
  fi
else
  echo "setup: no dpkg: install the equivalents of these packages yourself:" \
    "${packages[*]}" >&2
fi

# A toolkit is a folder with bin/nvcc and the runtime's header.
toolkit() {
  [ -x "$1/bin/nvcc" ] && [ -f "$1/include/cuda_runtime_api.h" ]
}
if [ -n "${CUDA_PATH:-}" ]; then
  toolkit "$CUDA_PATH" || {
    echo "setup: CUDA_PATH=$CUDA_PATH holds no CUDA toolkit (bin/nvcc," \
      "include/cuda_runtime_api.h)" >&2
    exit 1
  }
elif toolkit /usr/local/cuda; then
  CUDA_PATH=/usr/local/cuda
else
  if ! toolkit /usr && command -v apt-cache > /dev/null &&
      apt-cache policy nvidia-cuda-toolkit 2> /dev/null |
      grep -q 'Candidate: [0-9]'; then
    echo "setup: no CUDA toolkit at /usr/local/cuda: installing the" \
      "distribution's nvidia-cuda-toolkit (a few GB)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
      --no-install-recommends nvidia-cuda-toolkit > /dev/null
  fi
  if ! toolkit /usr; then
    echo "setup: no CUDA toolkit found (nvcc and the runtime's headers are" \
      "needed to build; a GPU is not). Install CUDA 12 or 13 into" \
      "/usr/local/cuda or set CUDA_PATH; on Debian 13 the non-free" \
      "component has nvidia-cuda-toolkit, on Ubuntu 24.04 multiverse." >&2
    exit 1
  fi
  CUDA_PATH=/usr
fi
export CUDA_PATH
export PATH="$CUDA_PATH/bin:$PATH"
version=$(sed -n 's/^#define CUDART_VERSION \([0-9]*\)/\1/p' \
  "$CUDA_PATH/include/cuda_runtime_api.h")
if [ "${version:-0}" -lt 12000 ]; then
  echo "setup: the CUDA toolkit at $CUDA_PATH is $((version / 1000)).$((version % 1000 / 10));" \
    "gst-pinned needs 12.0 or later (Debian 12's nvidia-cuda-toolkit is" \
    "11.8: install NVIDIA's CUDA 12 or 13 into /usr/local/cuda)" >&2
  exit 1
fi

if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build
