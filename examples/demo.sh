#!/usr/bin/env bash
# The main pipeline: sets up and builds gst-pinned (./setup.sh), then sends
# 4K RGBA frames to the GPU and back, pinnedupload ! pinneddownload, fed by a
# source that writes into the page-locked pool pinnedupload offers, and
# prints frames/s and GB/s next to this machine's own copy limit. Needs an
# NVIDIA GPU; where none can be used it says why and exits with status 2.
#
#   examples/demo.sh [FORMAT:WIDTHxHEIGHT]      (default RGBA:3840x2160)
#
# GST_PINNED_BUILD_DIR=DIR uses that build as it is, without ./setup.sh.
# A GStreamer runtime folder .gstbundle/ (for a machine without an
# installed GStreamer) is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-RGBA:3840x2160}

if [ -f .gstbundle/env.sh ]; then
  # shellcheck disable=SC1091
  source .gstbundle/env.sh
fi
if [ -n "${GST_PINNED_BUILD_DIR:-}" ]; then
  build=$(cd "$GST_PINNED_BUILD_DIR" && pwd)
elif [ -f .gstbundle/env.sh ]; then
  build=$PWD/build
else
  ./setup.sh
  build=$PWD/build
fi

export GST_PLUGIN_PATH_1_0=$build/gst
export LD_LIBRARY_PATH="$build/src:${LD_LIBRARY_PATH:-}"

# One frame through the pair first: without a usable GPU the elements say
# why (no driver, an old driver, no device), and the demo stops there.
# The registry first, so that the probe starts at once. gst-launch-1.0 of
# GStreamer 1.22 misses an error posted before its main loop runs (its
# sync handler quits the loop before the loop starts) and then waits for
# good, its message printed: an error that comes at once (a device too
# small for the frames) did so about once in 300 runs. A short limit ends
# that wait; one frame takes well under a second.
gst-inspect-1.0 pinnedupload > /dev/null 2>&1 || true
if ! probe=$(timeout 8 gst-launch-1.0 -q videotestsrc num-buffers=1 ! \
    pinnedupload ! pinneddownload ! fakesink 2>&1); then
  echo "gst-pinned demo: the pipeline cannot run on this machine:"
  echo "$probe" | grep -E "^ERROR: from element" | head -1 |
    sed -E 's/^ERROR: from element [^ ]*: /  /' | grep . ||
    echo "$probe" | tail -5 | sed 's/^/  /'
  echo "It needs a usable NVIDIA GPU. Without one, the test suite runs"
  echo "everything against a stand-in of the CUDA runtime: bash tests/run.sh"
  exit 2
fi

gpu=$(nvidia-smi -L 2>/dev/null | head -1 || true)
echo "pinnedupload ! pinneddownload, $size frames${gpu:+, $gpu}"
"$build/tests/bench/gst-pinned-bench" --rows roundtrip --sizes "$size" \
  --repeats 3 --duration-ms 1000 | grep -vE "peer-|nvcodec"
