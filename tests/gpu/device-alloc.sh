#!/usr/bin/env bash
# device-alloc: default (cudaMalloc / cudaFree) against stream-ordered
# (cudaMallocAsync / cudaFreeAsync on the element's stream), two rounds
# each, interleaved: the time to run one 4K frame through
# pinnedupload ! pinnedconvert ! pinneddownload (whole process, median of
# 3: contexts and pools, allocation and teardown), the device memory used
# while 300 such frames stream (nvidia-smi, highest sample), and frames/s
# of the benchmark's pool rows at 4K RGBA and NV12 1080p.
#   tests/gpu/device-alloc.sh      (GStreamer and the build as tests/gpu/run.sh sets them)
set -u
BENCH=${BENCH:-build/tests/bench/gst-pinned-bench}

launch () {
  # shellcheck disable=SC2046
  gst-launch-1.0 -q videotestsrc num-buffers="$2" pattern=black ! \
    video/x-raw,format=NV12,width=3840,height=2160 ! \
    pinnedupload device-alloc="$1" ! pinnedconvert device-alloc="$1" ! \
    "video/x-raw(memory:PinnedDevice),format=RGBA" ! pinneddownload ! \
    fakesink > /dev/null 2>&1
}

for round in 1 2; do
  for m in default stream-ordered; do
    ms=$(for _ in 1 2 3; do
      t=$(date +%s%N)
      launch "$m" 1 || echo "failed" >&2
      echo $((($(date +%s%N) - t) / 1000000))
    done | sort -n | sed -n 2p)
    launch "$m" 300 &
    pid=$!
    peak=0
    while kill -0 $pid 2> /dev/null; do
      u=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits |
        head -1)
      [ "${u:-0}" -gt "$peak" ] && peak=$u
      sleep 0.1
    done
    wait $pid
    echo "round $round $m: one 4K frame $ms ms, device memory used at most $peak MiB (rc $?)"
  done
done
for round in 1 2; do
  for m in default stream-ordered; do
    "$BENCH" --rows upload,download,roundtrip \
      --sizes RGBA:3840x2160,NV12:1920x1080 --repeats 2 --device-alloc "$m" \
      2> /dev/null | grep -E "^(RGBA|NV12) +[0-9x]+ +(upload|download|roundtrip) " |
      sed "s/^/round $round $m: /"
  done
done
