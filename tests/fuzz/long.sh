#!/usr/bin/env bash
# A long fuzz run: TARGET of the clang build (build-fuzz, or $FUZZ_BUILD)
# for RUNS executions (libFuzzer's -runs; default 1000000) through
# tests/fuzz/run.sh, in one process or in -fork=JOBS, then a summary
# (date, commit, target, executions, exec/s, crashes, coverage, corpus,
# wall time, machine) in docs/results/fuzz-NAME-DATE.txt
# (NAME: TARGET less its fuzz- prefix) and the raw
# libFuzzer log beside it (.log). Executions are libFuzzer's own count:
# stat::number_of_executed_units of the one process, or what the fork
# parent summed of its jobs' counts (the seeds' first pass, which the
# parent runs alone, is left out of it). A crash stops the run; its input
# stays in build-fuzz/tests/fuzz/TARGET-long. A SIGINT to the target
# stops it early: the summary then says so and counts what ran.
#
#   nice -n 10 tests/fuzz/long.sh fuzz-tensor-import
#   tests/fuzz/long.sh fuzz-layout 100000 4        # 10^5, in 4 jobs
#   tests/fuzz/long.sh TARGET RUNS JOBS [LIBFUZZER OPTIONS]
#
# Its corpus grows in build-fuzz/tests/fuzz/TARGET-long/corpus ($FUZZ_WORK)
# from one run to the next; tests/fuzz/corpus keeps the seeds.
# $FUZZ_RESULTS=PREFIX writes PREFIX.txt and PREFIX.log instead (a run in
# parts: -max_total_time=SECONDS ends each).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
target=${1:?usage: long.sh TARGET [RUNS] [JOBS] [LIBFUZZER OPTIONS]}
runs=${2:-1000000}
jobs=${3:-1}
shift $(($# < 3 ? $# : 3))
build=${FUZZ_BUILD:-build-fuzz}
exe=$build/tests/fuzz/$target
if [ ! -x "$exe" ]; then
  echo "no $exe: build it first (bash tests/fuzz/ci.sh, or ninja -C $build)" >&2
  exit 1
fi
export FUZZ_WORK=${FUZZ_WORK:-$PWD/$build/tests/fuzz/$target-long}
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-$FUZZ_WORK/registry.bin}
mkdir -p "$FUZZ_WORK/corpus" docs/results
day=$(date -u +%F)
prefix=${FUZZ_RESULTS:-docs/results/fuzz-${target#fuzz-}-$day}
out=$prefix.txt
log=$prefix.log
mkdir -p "$(dirname "$prefix")"

corpus_size() {
  find "$FUZZ_WORK/corpus" -type f | wc -l
}
artifacts() {
  find "$FUZZ_WORK" -maxdepth 1 -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort
}

# LeakSanitizer finds a thread by its kernel id, and AddressSanitizer keeps
# a joined thread's record under its old id: once the ids come round, a live
# thread may be skipped and what only it holds reported as leaked
# (tests/fuzz/lsan-tid-reuse.c). With kernel.pid_max 32768 they come round
# in seconds under many jobs; 4194304 (the kernel's most) keeps a job's
# ids apart. Said in the summary, warned of here.
pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo unknown)
[ "$pid_max" = 4194304 ] ||
  echo "long.sh: kernel.pid_max is $pid_max: LeakSanitizer may report" \
    "a live thread's memory (sysctl kernel.pid_max=4194304)" >&2

# What the build was made from is what was checked out when it starts.
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src gst include tests || commit="$commit (with changes)"
fork=()
[ "$jobs" -gt 1 ] && fork=(-fork="$jobs")
before=$(artifacts)
corpus_before=$(corpus_size)
start=$(date -u '+%F %T')
load=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
tests/fuzz/run.sh "$exe" -runs="$runs" "${fork[@]}" "$@" > "$log" 2>&1
rc=$?
wall=$(($(date +%s) - t0))
after=$(artifacts)
new=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')

if [ ${#fork[@]} -eq 0 ]; then
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
else
  # The parent's line after each job: "#RUNS: cov: ... job: N".
  execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
fi
execs=${execs:-0}
last=$(grep -E '^#[0-9]+:?[[:space:]]' "$log" | tail -1)
cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | cut -d' ' -f2)
ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | cut -d' ' -f2)
rate=$((wall > 0 ? execs / wall : 0))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
if [ -n "$new" ] || { [ $rc -ne 0 ] && [ $rc -ne 72 ]; }; then
  verdict="FAILED (exit status $rc)"
elif [ $rc -eq 72 ]; then
  # libFuzzer's exit status for SIGINT: stopped by hand, nothing found.
  verdict="interrupted (SIGINT) after $execs executions, no crash"
else
  verdict="passed"
fi

{
  echo "$target: a long fuzz run (tests/fuzz/long.sh): $verdict"
  echo "date:        $start UTC, $wall s"
  echo "commit:      $commit"
  echo "target:      $exe (clang $(clang -dumpversion 2>/dev/null)," \
    "AddressSanitizer + UndefinedBehaviorSanitizer, on the stand-in)"
  echo "command:     tests/fuzz/long.sh $target $runs $jobs $*" \
    "(nice $(nice))"
  echo "processes:   $jobs${fork:+ (libFuzzer -fork=$jobs)}"
  echo "asan:        ${ASAN_OPTIONS:-the default of run.sh}"
  echo "pid_max:     $pid_max"
  echo "executions:  $execs (asked: $runs)"
  echo "exec/s:      $rate (executions / wall time)"
  echo "crashes:     $(echo -n "$new" | grep -c .)${new:+: $(echo $new)}"
  echo "coverage:    cov $cov, ft $ft (libFuzzer's edges and features at the end;${fork:+ the fork parent's union of its jobs',} not comparable between one process and -fork)"
  echo "corpus:      $corpus_before -> $(corpus_size) inputs in" \
    "$FUZZ_WORK/corpus, plus the seeds and regressions"
  echo "wall time:   $wall s"
  echo "machine:     $(uname -n), $cpu, $(nproc) CPUs, load at start $load"
  echo "log:         $log"
} > "$out"
cat "$out"
[ -z "$new" ] && [ $rc -eq 0 ]
