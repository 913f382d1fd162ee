#!/usr/bin/env bash
# Interleaved rounds of benchmark variants on a GPU machine: builds and
# benchmark options side by side, each round running every variant once,
# so that all see the same machine (CPU per frame moves by about 20 %
# between runs of the same code on a virtual machine's cores).
#
#   tests/bench/sweep.sh ROUNDS SIZES ROWS VARIANT...
#
# VARIANT: NAME:BUILD:OPTIONS - a name for the summary, a build folder
# (with src/ and gst/; this tree's build/ runs the benchmark) and options
# for gst-pinned-bench (such as --pool-size 8), e.g.
#   tests/bench/sweep.sh 5 NV12:1920x1080 roundtrip,source-pool \
#     base:build/base: new:build: pool8:build:"--pool-size 8"
# Prints the median ratio to the in-run limit, CPU per frame, its kernel
# part and sleeps per frame of each row and variant, with every round's
# CPU; the runs' files go to ${SWEEP_OUT:-/tmp/gst-pinned-sweep}.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit
top=$PWD
rounds=$1 sizes=$2 rows=$3
shift 3
out=${SWEEP_OUT:-/tmp/gst-pinned-sweep}
rm -rf "$out"; mkdir -p "$out"
# shellcheck disable=SC1091
[ -f .gstbundle/env.sh ] && source .gstbundle/env.sh
base=${LD_LIBRARY_PATH:-}
bench=$top/build/tests/bench/gst-pinned-bench

for round in $(seq 1 "$rounds"); do
  for v in "$@"; do
    name=${v%%:*} rest=${v#*:}
    dir=$(cd "${rest%%:*}" && pwd) opts=${rest#*:}
    # shellcheck disable=SC2086
    GST_PLUGIN_PATH_1_0=$dir/gst GST_REGISTRY_1_0=$out/registry-$name.bin \
      LD_LIBRARY_PATH=$dir/src:$base timeout 300 "$bench" --only \
      --rows "$rows" --sizes "$sizes" --repeats 3 $opts \
      --csv "$out/$name-$round.csv" > "$out/$name-$round.txt" 2>&1 ||
      echo "$name round $round: rc $?"
    tail -n +2 "$out/$name-$round.csv" | cut -d, -f1,5,9,11,18,19 |
      sed "s/^/$name,$round,/" >> "$out/all.csv"
  done
done

python3 - "$out/all.csv" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    v, r, fmt, row, ratio, cpu, sys_us, sw = line.strip().split(',')
    if v not in order:
        order.append(v)
    d[(fmt, row, v)].append((float(ratio), float(cpu), float(sys_us),
                             float(sw)))
for k in sorted(d, key=lambda k: (k[0], k[1], order.index(k[2]))):
    rs = [x[0] for x in d[k]]
    cs = [x[1] for x in d[k]]
    print('%-5s %-20s %-8s ratio med %.3f  cpu med %.1f [%s]'
          '  kernel med %.1f  sleeps med %.2f' % (
        k[0], k[1], k[2], statistics.median(rs), statistics.median(cs),
        ' '.join('%.1f' % x for x in cs),
        statistics.median(x[2] for x in d[k]),
        statistics.median(x[3] for x in d[k])))
PY
