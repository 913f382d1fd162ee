#!/usr/bin/env bash
# Soak: round trips with a GPU filter for a while, memory sampled as it
# runs, and a verdict on whether it stays flat.
#
#   videotestsrc ! NV12 WxH ! pinnedupload ! pinnedconvert
#     ! RGBA in device memory ! pinneddownload ! fpsdisplaysink (fakesink)
#
# Every INTERVAL seconds: frames so far, the process's resident memory
# (VmRSS) and, where nvidia-smi answers, the device memory in use. The
# verdict compares the end with the first sample after a warm-up (a fifth
# of the run, at least one interval): flat when resident memory grew by at
# most 4 MiB and device memory by at most 2 MiB, frames went on between
# every two samples (no stall) and the pipeline ended cleanly at EOS.
#
#   tests/soak.sh [--duration S] [--interval S] [--size WxH] [--out DIR]
#                 [--torch]            (defaults: 600 s, 10 s, 3840x2160)
#
# --torch soaks examples/pinned-torch.py --seconds S instead (1080p frames
# into PyTorch, a torch op, its result back out through pinneddownload; its
# "frames: N" lines count the frames, its last line says end of stream);
# its Python needs PyGObject and PyTorch, and GI_TYPELIB_PATH the build's
# typelib.
# Runs from the build (GST_PLUGIN_PATH_1_0, LD_LIBRARY_PATH as the caller
# sets them; SOAK_TOP the source tree where this script runs from a copy). Writes DIR/samples.csv, DIR/gst.log and DIR/result (the
# verdict line, last); exit status 0 when flat.
set -u
duration=600
interval=10
size=3840x2160
out=${OUT:-/tmp/gst-pinned-soak}
torch=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --torch) torch=1; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
width=${size%x*}
height=${size#*x}
mkdir -p "$out"
rm -f "$out/result" "$out/samples.csv"

# The process's own device memory where nvidia-smi lists it (not in a
# container that hides its process ids), else the whole GPU's: other
# processes on the GPU then count too.
device_mib () {
  local own
  own=$(nvidia-smi --query-compute-apps=pid,used_memory \
    --format=csv,noheader,nounits 2> /dev/null | awk -F', *' -v p="$1" \
    '$1 == p {print $2}' | head -1)
  if [ -n "$own" ]; then
    echo "$own"
  else
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits \
      2> /dev/null | head -1 | tr -dc '0-9'
  fi
}

if [ "$torch" = 1 ]; then
  python3 "${SOAK_TOP:-$(dirname "$0")/..}/examples/pinned-torch.py" \
    --seconds "$duration" \
    > "$out/gst.log" 2>&1 &
  frames_re="frames: [0-9]*"
  end_re="end of stream"
else
  gst-launch-1.0 -e -v videotestsrc ! \
    "video/x-raw,format=NV12,width=$width,height=$height" ! pinnedupload ! \
    pinnedconvert ! "video/x-raw(memory:PinnedDevice),format=RGBA" ! \
    pinneddownload ! fpsdisplaysink video-sink=fakesink text-overlay=false \
    sync=false fps-update-interval=1000 > "$out/gst.log" 2>&1 &
  frames_re="rendered: [0-9]*"
  end_re="Got EOS"
fi
pid=$!

echo "seconds,frames,rss_kib,device_mib" > "$out/samples.csv"
start=$(date +%s)
elapsed=0
while [ "$elapsed" -lt "$duration" ] && kill -0 $pid 2> /dev/null; do
  sleep "$interval"
  elapsed=$(($(date +%s) - start))
  rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2> /dev/null)
  frames=$(grep -o "$frames_re" "$out/gst.log" | tail -1 | tr -dc '0-9')
  [ -n "$rss" ] || break
  echo "$elapsed,${frames:-0},$rss,$(device_mib $pid)" >> "$out/samples.csv"
done
# -e: the interrupt sends EOS through the pipeline, which then stops; the
# torch example stops by itself after its seconds.
[ "$torch" = 1 ] || kill -INT $pid 2> /dev/null
for _ in $(seq 60); do kill -0 $pid 2> /dev/null || break; sleep 1; done
if kill -0 $pid 2> /dev/null; then
  kill -KILL $pid
  rc=hung
else
  wait $pid
  rc=$?
fi

python3 - "$out/samples.csv" "$rc" "$duration" "$interval" "$(grep -c "$end_re" "$out/gst.log")" \
    > "$out/result" <<'PY'
import csv, sys
path, rc, duration, interval, eos = sys.argv[1:6]
rows = [{k: v for k, v in r.items()} for r in csv.DictReader(open(path))]
if len(rows) < 2:
    print("soak: FAILED: fewer than two samples (the pipeline stopped early, exit %s)" % rc)
    sys.exit()
warm_at = max(float(interval), float(duration) / 5)
warm = next((r for r in rows if float(r["seconds"]) >= warm_at), rows[0])
last = rows[-1]
mib = lambda r: int(r["rss_kib"]) / 1024
rss_growth = mib(last) - mib(warm)
dev = [r for r in rows if r["device_mib"]]
dev_growth = (int(last["device_mib"]) - int(warm["device_mib"])) \
    if dev and last["device_mib"] and warm["device_mib"] else None
stalls = sum(1 for a, b in zip(rows, rows[1:]) if int(b["frames"]) <= int(a["frames"]))
frames, secs = int(last["frames"]), float(last["seconds"])
problems = []
if rc != "0":
    problems.append("exit %s" % rc)
if eos == "0":
    problems.append("no EOS")
if stalls:
    problems.append("%d stalls" % stalls)
if rss_growth > 4:
    problems.append("resident memory grows")
if dev_growth is not None and dev_growth > 2:
    problems.append("device memory grows")
device = ("device %s -> %s MiB (%+d)" % (warm["device_mib"], last["device_mib"], dev_growth)
          if dev_growth is not None else "device memory not sampled")
print("soak: %.0f s, %d frames (%.1f frames/s), resident %.1f -> %.1f MiB (%+.1f) "
      "after %s s, %s, %d samples: %s"
      % (secs, frames, frames / secs if secs else 0, mib(warm), mib(last), rss_growth,
         warm["seconds"], device, len(rows),
         "flat" if not problems else "NOT FLAT (" + ", ".join(problems) + ")"))
PY
column -s, -t < "$out/samples.csv" 2> /dev/null || cat "$out/samples.csv"
cat "$out/result"
grep -q ": flat$" "$out/result"
