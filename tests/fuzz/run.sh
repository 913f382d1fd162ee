#!/usr/bin/env bash
# Runs a fuzz target of a clang build (see tests/fuzz/meson.build) against
# the stand-in: first every input of tests/fuzz/regressions/TARGET and
# corpus/TARGET, then new ones, until a libFuzzer option such as
# -max_total_time=SECONDS or -runs=N ends it. A crash, a sanitizer report,
# a GLib critical, a failed check or a hang (-timeout, 20 s) fails it; the
# input is then kept in $FUZZ_WORK (crash-*, timeout-*, oom-*).
#
#   tests/fuzz/run.sh BUILD/tests/fuzz/fuzz-layout -max_total_time=600
#   tests/fuzz/run.sh BUILD/tests/fuzz/fuzz-layout FILE...   # replays FILEs
#   tests/fuzz/run.sh BUILD/tests/fuzz/fuzz-layout -runs=0 DIR   # and DIR's
#
# Its new inputs go to $FUZZ_WORK/corpus (default: beside the target), not
# into the tree: tests/fuzz/corpus holds the seeds, chosen by hand.
set -euo pipefail
exe=$(realpath "$1")
shift
target=$(basename "$exe")
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$exe")/../.." && pwd)
work=${FUZZ_WORK:-$build/tests/fuzz/$target-work}
mkdir -p "$work/corpus"

export LD_LIBRARY_PATH=${FUZZ_LIBRARY_PATH:-$build/tests/fakecuda}
export FAKECUDA_DEVICES=2
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$build/gst}
# Only the plugin under test, loaded in this process: GStreamer's own
# plugins are not built with the sanitizers, and the plugin scanner (a
# plain program) cannot load one that is.
export GST_PLUGIN_SYSTEM_PATH_1_0=
export GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-$work/registry.bin}
export GST_DEBUG=${GST_DEBUG:-*:0}
export G_DEBUG=fatal-criticals
# Each block its own malloc, as AddressSanitizer sees best (and no
# GSlice magazines of the stand-in's stream threads kept past their end).
export G_SLICE=always-malloc
# intercept_tls_get_addr=0: LLVM's runtime up to 16 takes a dynamic TLS
# block that happens to lie 16 bytes into a page for glibc 2.19's layout and
# scans a range that is not there; LeakSanitizer's tracer then dies of
# SIGSEGV now and then (google/sanitizers#1322). Dynamic TLS holds no
# pointer of ours that nothing else holds.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# Paths given: those inputs only (a folder's files; libFuzzer adds what
# it finds to the first folder unless -runs=0).
for a in "$@"; do
  if [ -e "$a" ]; then
    exec "$exe" -timeout=20 -artifact_prefix="$work/" "$@"
  fi
done
dirs=("$work/corpus")
for d in "$here/regressions/$target" "$here/corpus/$target"; do
  [ -d "$d" ] && dirs+=("$d")
done
exec "$exe" -timeout=20 -artifact_prefix="$work/" -print_final_stats=1 \
  "$@" "${dirs[@]}"
