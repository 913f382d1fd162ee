#!/usr/bin/env bash
# Makes the clip of tests/bench/batch.py: .clips/1080p-3000.h264, 1920x1080
# I420, 3000 frames of moving test patterns, H.264 byte-stream
# (x264enc where gst-plugins-ugly is installed, else openh264enc, which
# the GPU machine's GStreamer bundle has). The folder is git-ignored.
#   tests/bench/make-batch-clip.sh [OUT.h264] [FRAMES]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.clips/1080p-3000.h264}
frames=${2:-3000}
mkdir -p "$(dirname "$out")"
[ -s "$out" ] && { echo "$out exists"; exit 0; }
if gst-inspect-1.0 x264enc > /dev/null 2>&1; then
  enc="x264enc speed-preset=ultrafast bitrate=8000 key-int-max=60"
elif gst-inspect-1.0 openh264enc > /dev/null 2>&1; then
  enc="openh264enc bitrate=8000000 gop-size=60 complexity=low"
else
  echo "make-batch-clip: neither x264enc nor openh264enc is available" >&2
  exit 1
fi
# shellcheck disable=SC2086
gst-launch-1.0 -q videotestsrc num-buffers="$frames" pattern=ball \
  motion=sweep ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! \
  $enc ! h264parse ! video/x-h264,stream-format=byte-stream ! \
  filesink location="$out"
ls -l "$out"
