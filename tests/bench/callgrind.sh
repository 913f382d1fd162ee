#!/usr/bin/env bash
# CPU instructions per frame of pinnedupload ! pinneddownload, under
# valgrind's callgrind, against the stand-in CUDA runtime (no GPU needed).
#
# Counts the streaming thread that runs the pair (imagefreeze's: it pushes
# the same page-locked frame, then the chain runs upload, download and
# fakesink), without the stand-in's CUDA calls: their cost is a real
# driver's on a GPU machine, so they are listed by count instead. Two runs
# of N1 and N2 frames; per frame = difference / (N2 - N1), so start-up and
# teardown cancel out. imagefreeze's and fakesink's own share is included
# (a few thousand instructions, the same before and after a change).
#
#   tests/bench/callgrind.sh [BUILD_DIR] [CAPS] [ELEMENTS]
set -euo pipefail
build=$(realpath "${1:-build}")
caps=${2:-video/x-raw,format=NV12,width=1920,height=1080}
elements=${3:-pinnedupload ! pinneddownload}
n1=${N1:-40}
n2=${N2:-240}
out=${OUT:-/tmp/gst-pinned-callgrind}
rm -rf "$out"
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=$build/gst
export GST_REGISTRY_1_0=$out/registry.bin
export LD_LIBRARY_PATH=$build/tests/fakecuda:$build/src
export GST_DEBUG=0

# Prints "thread_total fake_cuda calls..." for the thread running the pair.
run () {
  local n=$1 f best="" best_cost=0
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --separate-threads=yes \
    --callgrind-out-file="$out/cg.$n" \
    gst-launch-1.0 -q videotestsrc num-buffers=1 ! "$caps" ! \
    imagefreeze num-buffers="$n" ! $elements ! fakesink sync=false \
    > "$out/log.$n" 2>&1
  for f in "$out"/cg."$n"-*; do
    callgrind_annotate --inclusive=yes --threshold=100 "$f" > "$f.txt"
    local c
    c=$(awk '/gst_pinned_transfer_video_frame.* \[/ { gsub(",", "", $1); if ($1 > m) m = $1 } END { print m + 0 }' "$f.txt")
    if [ "$c" -gt "$best_cost" ]; then best=$f; best_cost=$c; fi
  done
  awk '/PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
       /fakecuda.c:cuda[A-Za-z0-9]* \[/ { gsub(",", "", $1); f += $1 }
       END { print t, f }' "$best.txt"
}

read -r t1 f1 < <(run "$n1")
read -r t2 f2 < <(run "$n2")
frames=$((n2 - n1))
echo "caps: $caps"
echo "elements: $elements"
echo "instructions per frame, streaming thread without the stand-in: $(( ((t2 - f2) - (t1 - f1)) / frames ))"
echo "instructions per frame inside the stand-in's CUDA calls: $(( (f2 - f1) / frames ))"
echo "CUDA calls per frame from that thread:"
calls () {
  local f
  f=$(grep -l "gst_pinned_transfer_video_frame" "$out"/cg."$1"-*.txt | head -1)
  # callgrind lists "=> fakecuda.c:cudaX (Nx)" under each caller.
  grep -E "=> .*fakecuda.c:cuda[A-Za-z0-9]+ \([0-9]+x\)" "$f" |
    sed -E 's/.*fakecuda.c:(cuda[A-Za-z0-9]+) \(([0-9]+)x\).*/\1 \2/' |
    awk '{ c[$1] += $2 } END { for (k in c) print k, c[k] }' | sort
}
join -a2 -e 0 -o 0,1.2,2.2 <(calls "$n1") <(calls "$n2") |
  awk -v n="$frames" '{ d = ($3 - $2) / n; if (d > 0.005) printf "  %-28s %.2f\n", $1, d }'
