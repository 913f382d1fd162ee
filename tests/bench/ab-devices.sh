#!/usr/bin/env bash
# Interleaved A/B of two builds of gst-pinned over every GPU at once: per
# round, one `gst-pinned-bench --devices N --streams M --only` per build,
# A then B, the next round B then A, each build's library and plugin
# first on the paths (this tree's benchmark runs both), so that both see
# the same machine. CPU per frame moves by a fifth between runs of the
# same code, and hosts differ by a third: only interleaved runs compare.
#
#   tests/bench/ab-devices.sh A_BUILD B_BUILD [ROUNDS] [BENCH_OPTION ...]
#
# A_BUILD, B_BUILD: build folders (each with src/ and gst/). Defaults: 2
# rounds; --devices $DEVICES (default every GPU) --streams 64 --sizes
# NV12:1920x1080 --duration-ms 3000, which BENCH_OPTIONs add to or
# override (e.g. --convert, --streams 4). Prints each run's one-process
# line and, per build, the median CPU a frame, rate against the limit with
# the streams' buffers and start-up; the runs' files go to
# ${AB_OUT:-/tmp/gst-pinned-ab-devices}.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,17p' "$0"; exit 2; }
a=$(cd "$1" && pwd) || exit 2
b=$(cd "$2" && pwd) || exit 2
rounds=${3:-2}
shift $(($# < 3 ? $# : 3))
cd "$(dirname "$0")/../.." || exit
top=$PWD
out=${AB_OUT:-/tmp/gst-pinned-ab-devices}
rm -rf "$out"; mkdir -p "$out"
# shellcheck disable=SC1091
[ -f .gstbundle/env.sh ] && source .gstbundle/env.sh
base=${LD_LIBRARY_PATH:-}
bench=$top/build/tests/bench/gst-pinned-bench
# Where this tree has no build/ (a GPU machine that got the build folders
# alone), B's benchmark runs both.
[ -x "$bench" ] || bench=$b/tests/bench/gst-pinned-bench
[ -x "$bench" ] || { echo "no gst-pinned-bench in build/ or $b"; exit 2; }
n=${DEVICES:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "$n" -gt 0 ] 2>/dev/null || n=1

run () {
  local name=$1 dir=$2 round=$3 log
  log=$out/$name-$round.txt
  GST_PLUGIN_PATH_1_0=$dir/gst GST_REGISTRY_1_0=$out/registry-$name.bin \
    LD_LIBRARY_PATH=$dir/src:$base timeout 300 "$bench" --devices "$n" \
    --streams 64 --sizes NV12:1920x1080 --duration-ms 3000 --only "$@" \
    > "$log" 2>&1 || echo "$name round $round: rc $?"
  echo "$name $(grep -m1 '^one-process' "$log")"
  # name, CPU a frame, rate with the streams' buffers, start-up
  awk -v name="$name" '
    /^one-process/ {
      for (i = 1; i <= NF; i++) {
        if ($i == "us" && $(i + 1) == "CPU") cpu = $(i - 1)
        if ($i == "start") start = $(i + 1)
      }
    }
    /of the limit with the streams/ { rate = $1 }
    END { if (cpu != "") print name, cpu, (rate == "" ? "nan" : rate), start }
  ' "$log" >> "$out/all.txt"
}

for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    run A "$a" "$round" "$@"; run B "$b" "$round" "$@"
  else
    run B "$b" "$round" "$@"; run A "$a" "$round" "$@"
  fi
done

python3 - "$out/all.txt" "$a" "$b" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, cpu, rate, start = line.split()
    runs.setdefault(name, []).append((float(cpu), float(rate), float(start)))
for name, path in (('A', sys.argv[2]), ('B', sys.argv[3])):
    r = runs.get(name, [])
    if not r:
        print('%s %s: no runs' % (name, path))
        continue
    med = [statistics.median(x[k] for x in r) for k in range(3)]
    print('%s %s: %d runs, CPU a frame med %.1f us [%s], of the limit with '
          "the streams' buffers med %.3f, start med %.2f s" % (
              name, path, len(r), med[0], ' '.join('%.1f' % x[0] for x in r),
              med[1], med[2]))
PY
