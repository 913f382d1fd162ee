#!/usr/bin/env bash
# Measures the round trip with GStreamer's own tools, to cross-check the
# benchmark: the stats and rusage tracers read by gst-stats-1.0, and the
# latency tracer.
#
#  1. the users' pipeline, in gst-launch-1.0: videotestsrc writes one frame
#     into pinnedupload's page-locked pool (imagefreeze proxies the
#     ALLOCATION query) and imagefreeze pushes it again and again;
#  2. the benchmark's own roundtrip row, in gst-pinned-bench, under the same
#     tracers;
#  3. the latency tracer on the users' pipeline.
#
# Writes $OUT/tracers.txt. Run where GStreamer and the plugin are found
# (tests/gpu/run.sh bench does it on the GPU machine).
set -u
OUT=${OUT:-/tmp/gst-pinned-gpu}
mkdir -p "$OUT"
logs=$(mktemp -d)
format=${TRACE_FORMAT:-RGBA}
width=${TRACE_WIDTH:-3840}
height=${TRACE_HEIGHT:-2160}
frames=${TRACE_FRAMES:-6000}
caps="video/x-raw,format=$format,width=$width,height=$height"
launch="videotestsrc num-buffers=1 ! $caps ! imagefreeze num-buffers=$frames \
! pinnedupload ! pinneddownload ! fakesink sync=false"

# frames/s on a pad: buffers over the time between its first and last one.
rate () {
  python3 - "$1" "$2" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    if sys.argv[2] in line and "buffers" in line:
        n = int(re.search(r"buffers\s+(\d+)", line).group(1))
        h, m, s = re.search(r"time (\d+):(\d+):([\d.]+)", line).groups()
        t = int(h) * 3600 + int(m) * 60 + float(s)
        print("%s: %d buffers in %.3f s = %.1f buffers/s" % (sys.argv[2], n, t, (n - 1) / t))
        break
PY
}

{
  echo "# 1. gst-launch-1.0 $launch"
  echo "#    GST_TRACERS='stats;rusage' GST_DEBUG=GST_TRACER:7, read by gst-stats-1.0"
  GST_TRACERS="stats;rusage" GST_DEBUG="GST_TRACER:7" \
    GST_DEBUG_FILE="$logs/launch.log" gst-launch-1.0 -q $launch
  gst-stats-1.0 "$logs/launch.log" > "$logs/launch.stats" 2>&1
  grep -E "Avg CPU load|pinneddownload0.src|pinnedupload0.src" "$logs/launch.stats" | head -4
  rate "$logs/launch.stats" pinneddownload0.src
  echo
  echo "# 2. gst-pinned-bench --rows roundtrip --sizes $format:${width}x$height under the same tracers"
  GST_TRACERS="stats;rusage" GST_DEBUG="GST_TRACER:7" \
    GST_DEBUG_FILE="$logs/bench.log" build/tests/bench/gst-pinned-bench \
    --rows roundtrip --sizes "$format:${width}x$height" --repeats 1 \
    --duration-ms 5000 | grep -E "roundtrip|limit"
  gst-stats-1.0 "$logs/bench.log" > "$logs/bench.stats" 2>&1
  grep -E "pinneddownload0.src" "$logs/bench.stats" | head -1
  rate "$logs/bench.stats" pinneddownload0.src
  echo "#    (gst-stats counts from the first buffer, warm-up included; the"
  echo "#    benchmark's window starts after its warm-up)"
  echo
  echo "# 3. the latency tracer on pipeline 1: source push to sink, per element"
  GST_TRACERS="latency(flags=pipeline+element)" GST_DEBUG="GST_TRACER:7" \
    GST_DEBUG_FILE="$logs/latency.log" gst-launch-1.0 -q $launch
  python3 - "$logs/latency.log" <<'PY'
import re, sys, collections
acc = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t = re.search(r"time=\(guint64\)(\d+)", line)
    if not t:
        continue
    m = re.search(r"element-latency, .*?element=\(string\)(\w+)", line)
    if m:
        acc["in " + m.group(1)].append(int(t.group(1)))
        continue
    m = re.search(r"\blatency, .*?src-element=\(string\)(\w+).*?sink-element=\(string\)(\w+)", line)
    if m:
        acc["from %s to %s" % m.groups()].append(int(t.group(1)))
for key, v in sorted(acc.items()):
    v.sort()
    print("%-34s %6d samples, median %8.1f us, p99 %8.1f us" % (key, len(v), v[len(v) // 2] / 1e3, v[int(len(v) * .99)] / 1e3))
PY
} > "$OUT/tracers.txt" 2>&1
cat "$OUT/tracers.txt"
rm -rf "$logs"
