#!/usr/bin/env bash
# The fuzz suite's short run, tests/run.sh's last step: a clang build with
# AddressSanitizer and UndefinedBehaviorSanitizer in its own folder
# (build-fuzz, or $FUZZ_BUILD; nothing of ./build is instrumented), then
# `meson test --suite fuzz`, which builds only what the targets load and
# runs each: its regressions and seeds, then a minute of new inputs. Any
# crash, sanitizer report, critical, failed check or hang fails it.
#
#   bash tests/fuzz/ci.sh [MESON TEST ARGUMENTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${FUZZ_BUILD:-build-fuzz}

if ! command -v clang > /dev/null; then
  echo "no clang: the fuzz suite needs it with libFuzzer (./setup.sh installs" \
    "clang and libclang-rt-dev)" >&2
  exit 1
fi
if [ ! -f "$dir/build.ninja" ]; then
  # The plugin scanner, a plain program, cannot load the instrumented
  # plugin: the targets load it in their own process (run.sh).
  CC=clang CXX=clang++ meson setup "$dir" -Db_sanitize=address,undefined \
    -Db_lundef=false -Dfuzzing=enabled -Dintrospection=disabled \
    -Dexamples=disabled -Dbenchmark=disabled > /dev/null ||
    { tail -20 "$dir/meson-logs/meson-log.txt"; exit 1; }
fi
meson test -C "$dir" --suite fuzz --print-errorlogs "$@"
