#!/usr/bin/env bash
# The test command: sets up and builds (./setup.sh), then runs every suite.
# 'fake' runs against the GPU-less stand-in of the CUDA runtime; 'gpu' runs
# the same tests against the real runtime and skips (77) without a device;
# 'build' checks the tree (gst-indent, a clean build, the CUDA 12 headers,
# an install). Without arguments it then runs the 'fake' suite again with
# the stand-in of a CUDA runtime before 12.8 (meson test --setup
# runtime126: no batched copies) and the check suites under valgrind's
# memcheck (meson test --setup valgrind), under AddressSanitizer and
# UBSan in their own build folder (tests/sanitize.sh), and the fuzz suite
# in a clang build of its own (tests/fuzz/ci.sh: the regressions, the
# seeds, a minute of fuzzing a target); arguments go to the first
# `meson test` only, and skip the other runs.
# Ends with the line 'N passed, N failed, N skipped' over every run.
set -uo pipefail
cd "$(dirname "$0")/.."

./setup.sh || { echo "0 passed, 1 failed"; exit 1; }

logs=(build/meson-logs/testlog.json)
meson test -C build --print-errorlogs "$@"
status=$?

rm -f build/meson-logs/testlog-valgrind.json build/meson-logs/testlog-runtime126.json \
  build-fuzz/meson-logs/testlog.json
if [ $# -eq 0 ]; then
  echo "the stand-in suite on a CUDA 12.6 runtime (meson test --setup runtime126):"
  meson test -C build --setup runtime126 --suite fake --print-errorlogs
  rstatus=$?
  [ $status -ne 0 ] || status=$rstatus
  logs+=(build/meson-logs/testlog-runtime126.json)
  if command -v valgrind > /dev/null; then
    echo "memcheck over the check suites (meson test --setup valgrind):"
    meson test -C build --setup valgrind --print-errorlogs
    vstatus=$?
    [ $status -ne 0 ] || status=$vstatus
    logs+=(build/meson-logs/testlog-valgrind.json)
  else
    echo "no valgrind: the memcheck run is left out (./setup.sh installs it)"
    status=1
  fi
  echo "AddressSanitizer and UBSan over the check suites (tests/sanitize.sh):"
  rm -f build-asan/meson-logs/testlog-asan.json
  bash tests/sanitize.sh
  astatus=$?
  [ $status -ne 0 ] || status=$astatus
  logs+=(build-asan/meson-logs/testlog-asan.json)
  echo "the fuzz suite (tests/fuzz/ci.sh, a clang build in build-fuzz):"
  bash tests/fuzz/ci.sh
  fstatus=$?
  [ $status -ne 0 ] || status=$fstatus
  logs+=(build-fuzz/meson-logs/testlog.json)
fi

python3 - "${logs[@]}" <<'PY'
import json, os, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[1:]:
    if not os.path.exists(path):
        counts["failed"] += 1
        continue
    for line in open(path):
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            counts["passed"] += 1
        elif result == "SKIP":
            counts["skipped"] += 1
        else:
            counts["failed"] += 1
print("{passed} passed, {failed} failed, {skipped} skipped".format(**counts))
PY
exit $status
