#!/usr/bin/env bash
# Frames across processes (GStreamer 1.24 and later, nvcodec's CUDA IPC):
# one process uploads into CUDA memory and serves it,
#   videotestsrc ! pinnedupload ! video/x-raw(memory:CUDAMemory) ! cudaipcsink
# another takes it and downloads,
#   cudaipcsrc ! pinneddownload ! checksumsink
# Every frame the second gets must be one the first made, bit-exact
# (checksums of RGBA without row padding), and enough of them must come.
# The control runs first: cudaupload and cudadownload in our places.
# Exits 77 where it cannot run: no cudaipcsink (GStreamer 1.22 has none)
# or no CUDA device.
set -u
unset MALLOC_PERTURB_
if ! gst-inspect-1.0 cudaipcsink > /dev/null 2>&1; then
  echo "SKIP: no cudaipcsink (GStreamer 1.24 or later with nvcodec)"
  exit 77
fi
if ! gst-launch-1.0 -q videotestsrc num-buffers=1 ! pinnedupload ! \
  pinneddownload ! fakesink > /dev/null 2>&1; then
  echo "SKIP: no CUDA device"
  exit 77
fi

caps="video/x-raw,format=RGBA,width=1280,height=720,framerate=60/1"
made=120
want=40
ref=$(gst-launch-1.0 -q videotestsrc num-buffers=$made pattern=ball ! \
  "$caps" ! checksumsink 2> /dev/null | awk '{print $2}' | sort -u)

# $1: what uploads into CUDA memory, $2: what downloads from it
run () {
  local addr=/tmp/gst-pinned-ipc-$$-$RANDOM got bad n
  # shellcheck disable=SC2086
  gst-launch-1.0 -q videotestsrc num-buffers=$made pattern=ball is-live=true ! \
    "$caps" ! $1 ! "video/x-raw(memory:CUDAMemory)" ! \
    cudaipcsink address="$addr" > /dev/null 2>&1 &
  local producer=$!
  sleep 0.5
  # shellcheck disable=SC2086
  got=$(timeout 30 gst-launch-1.0 -q cudaipcsrc address="$addr" \
    num-buffers=$want ! $2 ! checksumsink 2> /dev/null | awk '{print $2}')
  wait $producer
  n=$(echo "$got" | grep -c .)
  bad=$(comm -13 <(echo "$ref") <(echo "$got" | sort -u) | grep -c .)
  printf '%-40s %3d frames, %d not made by the producer\n' "$1 / $2" "$n" "$bad"
  [ "$n" -eq "$want" ] && [ "$bad" -eq 0 ]
}

status=0
run cudaupload cudadownload || { echo "control failed: the IPC set-up does not work here"; exit 1; }
run pinnedupload pinneddownload || status=1
run pinnedupload cudadownload || status=1
run cudaupload pinneddownload || status=1
exit $status
