#!/usr/bin/env bash
# One GPU run over several stacks (a build, a GStreamer runtime, a CUDA
# runtime): each stack's 'gpu' suite, which copy path its batches took
# (the elements' stats, batch-calls), then the benchmark's pool rows in
# interleaved rounds, so that every stack sees the same machine. Prints a
# table: each row's median ratio to the in-run limit and CPU a frame, by
# stack.
#
#   tests/gpu/stacks.sh ROUNDS STACK...
#
# STACK: NAME:BUILD:ENV[:CUDART] - a name, a build folder, the env.sh of a
# GStreamer runtime folder (.gstbundle/env.sh, .gstcurrent/env.sh, or -
# for the system's) and, optionally, a folder whose libcudart.so.* comes
# first (a CUDA 12 runtime for a CUDA 12 build), e.g.
#   tests/gpu/stacks.sh 3 cuda13:build:.gstbundle/env.sh \
#     cuda12.4:build-cuda12:.gstbundle13/env.sh:.cudart/12.4
# ROWS= and SIZES= override the benchmark's rows (upload,download,
# roundtrip) and sizes (RGBA:3840x2160,NV12:1920x1080); SUITE=0 leaves the
# suites out, SUITES=NAME,... runs only those stacks' suites, SUITE_JOBS
# tests run at a time (4). Files go to
# ${STACKS_OUT:-/tmp/gst-pinned-stacks}.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit
top=$PWD
rounds=$1
shift
rows=${ROWS:-upload,download,roundtrip}
sizes=${SIZES:-RGBA:3840x2160,NV12:1920x1080}
out=${STACKS_OUT:-/tmp/gst-pinned-stacks}
mkdir -p "$out"
rm -f "$out/all.csv"

# Runs "$@" in a stack's environment ($name: the stack's).
in_stack() {
  local build=$1 envfile=$2 cudart=$3
  shift 3
  (
    # shellcheck disable=SC1090
    [ "$envfile" = - ] || source "$top/$envfile"
    [ -z "$cudart" ] || export LD_LIBRARY_PATH="$top/$cudart:${LD_LIBRARY_PATH:-}"
    export GST_PLUGIN_PATH_1_0=$top/$build/gst
    # meson records a test's LD_LIBRARY_PATH without the caller's: the
    # suite puts the stack's back behind the build's.
    export STACK_LIBPATH=$top/$build/gst:$top/$build/src:${LD_LIBRARY_PATH:-}
    export GST_REGISTRY_1_0=$out/registry-$name.bin
    "$@"
  )
}

for s in "$@"; do
  IFS=: read -r name build envfile cudart <<< "$s"
  # The CUDA runtime the build's library loads in this stack.
  cudart_lib=$(in_stack "$build" "$envfile" "${cudart:-}" ldd \
    "$top/$build/src/libgstpinned-1.0.so.0" | awk '/libcudart/{print $3}')
  echo "== $name: $build, GStreamer $(in_stack "$build" "$envfile" "${cudart:-}" \
    gst-launch-1.0 --version | sed -n 's/.*version //p' | head -1)," \
    "CUDA runtime $cudart_lib $(python3 -c '
import ctypes, sys
v = ctypes.c_int()
ctypes.CDLL(sys.argv[1]).cudaRuntimeGetVersion(ctypes.byref(v))
print("%d.%d" % (v.value // 1000, v.value % 1000 // 10))' "$cudart_lib" 2>&1 | tail -1)"
  if [ "${SUITE:-1}" = 1 ] && { [ -z "${SUITES:-}" ] || [[ ",$SUITES," == *",$name,"* ]]; }; then
    # shellcheck disable=SC2016
    in_stack "$build" "$envfile" "${cudart:-}" timeout "${SUITE_TIMEOUT:-400}" \
      sh -c 'exec python3 tests/gpu/parallel-tests.py "$0" --suite gpu \
        --suite gpu-hidden -j "$1" --wrap "env LD_LIBRARY_PATH=$STACK_LIBPATH"' \
      "$build" "${SUITE_JOBS:-4}" > "$out/suite-$name.txt" 2>&1
    grep -E "^(FAILED|SKIPPED)|passed," "$out/suite-$name.txt"
  fi
  # A batch's copies: one call where the runtime has it (batch-calls).
  in_stack "$build" "$envfile" "${cudart:-}" env GST_DEBUG=pinnedtransfer:4 \
    timeout 60 gst-launch-1.0 -v videotestsrc num-buffers=200 ! \
    video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! \
    pinneddownload ! fakesink > "$out/stats-$name.txt" 2>&1
  grep -oE "CUDA runtime [0-9.]+: [a-z ,]+" "$out/stats-$name.txt" | head -1
  grep -oE "(GstPinned(Upload|Download)):.*stats = .*" "$out/stats-$name.txt" |
    sed -E 's/^(GstPinned[A-Za-z]+).*buffers=\(guint64\)([0-9]+).*batch-calls=\(guint64\)([0-9]+).*/  \1: \2 buffers, \3 batch calls/'
done

for round in $(seq 1 "$rounds"); do
  for s in "$@"; do
    IFS=: read -r name build envfile cudart <<< "$s"
    in_stack "$build" "$envfile" "${cudart:-}" timeout 300 \
      "$top/$build/tests/bench/gst-pinned-bench" --only --rows "$rows" \
      --sizes "$sizes" --repeats 3 --csv "$out/$name-$round.csv" \
      > "$out/$name-$round.txt" 2>&1 || echo "$name round $round: rc $?"
    tail -n +2 "$out/$name-$round.csv" 2> /dev/null | cut -d, -f1,5,9,11 |
      sed "s/^/$name,$round,/" >> "$out/all.csv"
  done
done

[ "$rounds" -gt 0 ] || exit 0
python3 - "$out/all.csv" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    v, r, fmt, row, ratio, cpu = line.strip().split(',')
    if v not in order:
        order.append(v)
    d[(fmt, row, v)].append((float(ratio), float(cpu)))
print('format row          stack          /limit (median, rounds)     CPU us/frame')
for k in sorted(d, key=lambda k: (k[0], k[1], order.index(k[2]))):
    rs = [x[0] for x in d[k]]
    cs = [x[1] for x in d[k]]
    print('%-6s %-12s %-14s %.3f [%s]   %.1f' % (
        k[0], k[1], k[2], statistics.median(rs),
        ' '.join('%.3f' % x for x in rs), statistics.median(cs)))
PY
