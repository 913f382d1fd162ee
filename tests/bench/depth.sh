#!/usr/bin/env bash
# Why a round trip falls short of the link: at one frame size, in one run,
# the copy limit with one buffer each way and rotating over several (as a
# stream of frames uses them), the round trip and the overlap row at
# pool-size 2, 4 and 8, with and without a queue between the elements, and
# a GPU timeline of the round trip and the overlap. Writes
# $OUT/depth.txt and $OUT/depth-*.json. Run on the GPU machine (see
# tests/gpu/run.sh, step depth).
set -u
OUT=${OUT:-/tmp/gst-pinned-gpu}
size=${DEPTH_SIZE:-RGBA:3840x2160}
bench=build/tests/bench/gst-pinned-bench
{
  echo "# limits"
  $bench --sizes "$size" --rows roundtrip --repeats 1 --duration-ms 100 \
    --limit-rotate 4 | grep -E "^limit|in-run"
  for p in 2 4 8; do
    echo "# pool-size $p"
    $bench --sizes "$size" --rows roundtrip,roundtrip-queue,overlap \
      --repeats 5 --duration-ms 500 --pool-size $p | \
      grep -E "roundtrip|overlap|frame period"
  done
  echo "# timelines (pool-size 4)"
  $bench --sizes "$size" --rows roundtrip,overlap --repeats 1 \
    --timeline "$OUT/depth" | grep -E "timeline"
} > "$OUT/depth.txt" 2>&1
cat "$OUT/depth.txt"
