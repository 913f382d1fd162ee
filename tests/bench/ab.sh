#!/usr/bin/env bash
# Interleaved A/B of two builds of gst-pinned on a GPU machine: per round,
# one benchmark process per build, each build's library and plugin first
# on the library and plugin paths, so that both see the same machine.
# CPU per frame moves by about 20 % between runs of the same code on a
# virtual machine's cores: only interleaved rounds compare.
#
#   tests/bench/ab.sh A_BUILD B_BUILD [ROUNDS] [SIZES] [ROWS]
#
# A_BUILD, B_BUILD: build folders (each with src/ and gst/); the benchmark
# binary of this tree's build/ runs both. Defaults: 5 rounds,
# NV12:1920x1080, roundtrip,upload,download. Prints the median ratio to
# the in-run limit and CPU per frame of each row and build, with every
# round's value; the runs' files go to ${AB_OUT:-/tmp/gst-pinned-ab}.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit
top=$PWD
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
rounds=${3:-5} sizes=${4:-NV12:1920x1080} rows=${5:-roundtrip,upload,download}
out=${AB_OUT:-/tmp/gst-pinned-ab}
rm -rf "$out"; mkdir -p "$out"
# shellcheck disable=SC1091
[ -f .gstbundle/env.sh ] && source .gstbundle/env.sh
base=${LD_LIBRARY_PATH:-}
bench=$top/build/tests/bench/gst-pinned-bench

for round in $(seq 1 "$rounds"); do
  for v in A B; do
    dir=$a; [ $v = B ] && dir=$b
    GST_PLUGIN_PATH_1_0=$dir/gst GST_REGISTRY_1_0=$out/registry-$v.bin \
      LD_LIBRARY_PATH=$dir/src:$base timeout 300 "$bench" --only \
      --rows "$rows" --sizes "$sizes" --repeats 3 --csv "$out/$v-$round.csv" \
      > "$out/$v-$round.txt" 2>&1 || echo "$v round $round: rc $?"
    tail -n +2 "$out/$v-$round.csv" | cut -d, -f1,5,9,11,18,19 |
      sed "s/^/$v,$round,/" >> "$out/all.csv"
  done
done

python3 - "$out/all.csv" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, r, fmt, row, ratio, cpu, sys_us, sw = line.strip().split(',')
    d[(fmt, row, v)].append((float(ratio), float(cpu), float(sys_us),
                             float(sw)))
for k in sorted(d):
    rs = [x[0] for x in d[k]]
    cs = [x[1] for x in d[k]]
    print('%-5s %-10s %s  ratio med %.3f [%s]  cpu med %.1f [%s]'
          '  kernel med %.1f  sleeps med %.2f' % (
        k[0], k[1], k[2], statistics.median(rs),
        ' '.join('%.3f' % x for x in rs), statistics.median(cs),
        ' '.join('%.1f' % x for x in cs),
        statistics.median(x[2] for x in d[k]),
        statistics.median(x[3] for x in d[k])))
PY
