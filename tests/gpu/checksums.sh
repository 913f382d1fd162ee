#!/usr/bin/env bash
# videotestsrc ! CAPS ! pinnedupload ! pinneddownload ! checksumsink must
# print the checksums of videotestsrc ! CAPS ! checksumsink, frame for
# frame, for each format and size below (odd sizes included). Exits 77
# where it cannot run: no checksumsink, or in 'gpu' mode no CUDA device.
# With OUT set, writes the table to $OUT/checksums.txt.
set -u
# checksumsink hashes whole buffers, row padding included, which
# videotestsrc never writes: it holds whatever the allocator left. meson
# test sets MALLOC_PERTURB_, which would fill only the reference's padding.
unset MALLOC_PERTURB_
frames=${CHECKSUM_FRAMES:-10}
confs=(
  "format=I420,width=1279,height=719"
  "format=NV12,width=1920,height=1080"
  "format=RGBA,width=3840,height=2160"
  "format=YUY2,width=333,height=211"
  "format=P010_10LE,width=1280,height=720"
  "format=v210,width=1280,height=720"
  "format=GRAY8,width=799,height=601"
  "format=Y444,width=321,height=243"
  "format=I420_10LE,width=641,height=479"
  "format=BGRx,width=7,height=5"
)

if ! gst-inspect-1.0 checksumsink >/dev/null 2>&1; then
  echo "SKIP: checksumsink (gst-plugins-bad) is not installed"
  exit 77
fi
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
  pair=$(gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball ! \
    "$caps" ! pinnedupload ! pinneddownload ! checksumsink 2>/dev/null)
  n=$(echo "$ref" | grep -c .)
  if [ "$n" -eq "$frames" ] && [ "$ref" = "$pair" ]; then
    verdict=same
  else
    verdict=DIFFERENT
    failed=1
    diff <(echo "$ref") <(echo "$pair") | head -4
  fi
  first=$(echo "$pair" | head -1 | awk '{print $2}')
  line=$(printf '%-40s %3s frames  %-9s first %s' "$conf" "$n" "$verdict" \
    "$first")
  echo "$line"
  table+="$line"$'\n'
done

if [ -n "${OUT:-}" ]; then
  printf '%s' "$table" > "$OUT/checksums.txt"
fi
exit $failed
