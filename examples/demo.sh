#!/usr/bin/env bash
# The main pipeline: sets up and builds gst-pinned (./setup.sh), then sends
# 4K RGBA frames to the GPU and back, pinnedupload ! pinneddownload, fed by a
# source that writes into the page-locked pool pinnedupload offers, and
# prints frames/s and GB/s next to this machine's own copy limit. Needs an
# NVIDIA GPU; says so where there is none.
#
#   examples/demo.sh [FORMAT:WIDTHxHEIGHT]      (default RGBA:3840x2160)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-RGBA:3840x2160}

if [ -f .gstbundle/env.sh ]; then
  # the lent GPU machine: GStreamer comes from the bundle, build/ is built
  # shellcheck disable=SC1091
  source .gstbundle/env.sh
else
  ./setup.sh
fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gst-pinned demo: no NVIDIA GPU on this machine (nvidia-smi finds none)."
  echo "The build is done; the pipeline needs a CUDA GPU to run. Without one,"
  echo "the test suite still runs everything against a stand-in of the CUDA"
  echo "runtime: bash tests/run.sh"
  exit 2
fi

export GST_PLUGIN_PATH_1_0=$PWD/build/gst
export LD_LIBRARY_PATH="$PWD/build/src:${LD_LIBRARY_PATH:-}"
echo "pinnedupload ! pinneddownload, $size frames, $(nvidia-smi -L | head -1)"
build/tests/bench/gst-pinned-bench --rows roundtrip --sizes "$size" \
  --repeats 3 --duration-ms 1000 | grep -vE "peer-|nvcodec"
