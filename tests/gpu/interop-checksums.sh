#!/usr/bin/env bash
# The launch lines of GStreamer's nvcodec interop, checksummed:
#   videotestsrc ! CAPS ! cudaupload ! video/x-raw(memory:CUDAMemory) ! pinneddownload ! checksumsink
#   videotestsrc ! CAPS ! pinnedupload ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! checksumsink
# must print the checksums of videotestsrc ! CAPS ! checksumsink, frame for
# frame. checksumsink hashes row padding too, which no element writes: the
# sizes here have none (rows of a multiple of 4 bytes); odd sizes are
# compared pixel by pixel in tests/check/interop.c. Exits 77 where it
# cannot run: no checksumsink or nvcodec, or in 'gpu' mode no CUDA device.
# With OUT set, writes the table to $OUT/interop-checksums.txt.
set -u
unset MALLOC_PERTURB_
frames=${CHECKSUM_FRAMES:-10}
confs=(
  "format=I420,width=1280,height=720"
  "format=NV12,width=1920,height=1080"
  "format=RGBA,width=3840,height=2160"
  "format=BGRx,width=640,height=480"
  "format=Y444,width=320,height=240"
  "format=P010_10LE,width=1280,height=720"
  "format=YUY2,width=640,height=360"
)
chains=(
  "cudaupload ! video/x-raw(memory:CUDAMemory) ! pinneddownload"
  "pinnedupload ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw"
)

for e in checksumsink cudaupload cudadownload; do
  if ! gst-inspect-1.0 "$e" >/dev/null 2>&1; then
    echo "SKIP: $e is not available"
    exit 77
  fi
done
# A limit: gst-launch-1.0 of GStreamer 1.22 can miss an error that comes
# at once (no device) and wait for good, its message printed (demo.sh).
probe=$(timeout 8 gst-launch-1.0 -q videotestsrc num-buffers=1 ! \
  pinnedupload ! pinneddownload ! fakesink 2>&1)
if [ $? -ne 0 ]; then
  if echo "$probe" | grep -q "No usable CUDA device" &&
     [ "${GST_PINNED_TEST_MODE:-}" = gpu ]; then
    echo "SKIP: no CUDA device"
    exit 77
  fi
  echo "$probe"
  exit 1
fi

table=""
failed=0
for conf in "${confs[@]}"; do
  caps="video/x-raw,$conf"
  ref=$(gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball ! \
    "$caps" ! checksumsink 2>/dev/null)
  for chain in "${chains[@]}"; do
    # shellcheck disable=SC2086
    out=$(gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball ! \
      "$caps" ! $chain ! checksumsink 2>&1)
    n=$(echo "$ref" | grep -c .)
    if [ "$n" -eq "$frames" ] && [ "$ref" = "$out" ]; then
      verdict=same
    else
      verdict=DIFFERENT
      failed=1
      diff <(echo "$ref") <(echo "$out") | head -4
    fi
    line=$(printf '%-36s %-16s %3s frames  %-9s first %s' "$conf" \
      "${chain%% *}" "$n" "$verdict" "$(echo "$out" | head -1 | awk '{print $2}')")
    echo "$line"
    table+="$line"$'\n'
  done
done

if [ -n "${OUT:-}" ]; then
  printf '%s' "$table" > "$OUT/interop-checksums.txt"
fi
exit $failed
