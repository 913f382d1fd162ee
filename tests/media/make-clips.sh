#!/usr/bin/env bash
# The clips of the tests and the benchmark, made with GStreamer's software
# encoders (x264enc of gst-plugins-ugly, x265enc of gst-plugins-bad):
#
#   tests/media/h264-320x240.h264   the decode tests' clip (committed): 30
#                                   frames, constrained baseline, so that
#                                   openh264dec decodes it as well
#   tests/media/bench/h264-3840x2160.h264, h265-3840x2160.h265
#                                   the benchmark's decode rows (not in git:
#                                   made here, carried to a GPU machine)
#
#   tests/media/make-clips.sh [small|bench|all]   (default: bench)
set -euo pipefail
cd "$(dirname "$0")"
what=${1:-bench}

# Moving colour bars: content that changes from frame to frame, so that
# P frames carry motion and residuals.
source_of() {
  echo "videotestsrc num-buffers=$1 pattern=smpte horizontal-speed=3 ! \
video/x-raw,format=I420,width=$2,height=$3,framerate=30/1 ! @ENC@"
}

encode() {  # frames width height encoder+caps file
  local launch
  launch=$(source_of "$1" "$2" "$3")
  launch=${launch/@ENC@/"$4 ! filesink location=$5"}
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $launch
  echo "$5: $(stat -c %s "$5") bytes"
}

if [ "$what" = small ] || [ "$what" = all ]; then
  encode 30 320 240 "x264enc bitrate=250 key-int-max=15 bframes=0 ! \
video/x-h264,profile=constrained-baseline,stream-format=byte-stream" \
    h264-320x240.h264
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  mkdir -p bench
  encode 60 3840 2160 "x264enc bitrate=8000 key-int-max=30 speed-preset=veryfast ! \
video/x-h264,profile=high,stream-format=byte-stream" bench/h264-3840x2160.h264
  encode 60 3840 2160 "x265enc bitrate=6000 speed-preset=veryfast \
key-int-max=30 ! video/x-h265,stream-format=byte-stream" \
    bench/h265-3840x2160.h265
fi
