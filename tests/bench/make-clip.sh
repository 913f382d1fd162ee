#!/usr/bin/env bash
# Makes the H.264 clip of the decoder-openh264 benchmark row:
# .clips/4k-i420.h264, 3840x2160 I420, 60 frames of moving test patterns
# (x264enc where gst-plugins-ugly is installed, else openh264enc).
# The folder is git-ignored; carry it to the GPU machine with build/.
#   tests/bench/make-clip.sh [OUT.h264] [FRAMES]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.clips/4k-i420.h264}
frames=${2:-60}
mkdir -p "$(dirname "$out")"
[ -s "$out" ] && { echo "$out exists"; exit 0; }

if gst-inspect-1.0 x264enc >/dev/null 2>&1; then
  enc="x264enc speed-preset=superfast bitrate=16000 key-int-max=30 ! video/x-h264,profile=high"
elif gst-inspect-1.0 openh264enc >/dev/null 2>&1; then
  enc="openh264enc bitrate=16000000 gop-size=30"
else
  echo "make-clip: neither x264enc nor openh264enc is available" >&2
  exit 1
fi
# shellcheck disable=SC2086
gst-launch-1.0 -q videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=8 ! \
  video/x-raw,format=I420,width=3840,height=2160,framerate=30/1 ! \
  $enc ! h264parse ! \
  video/x-h264,stream-format=byte-stream ! filesink location="$out"
ls -l "$out"
