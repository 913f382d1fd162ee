#!/usr/bin/env bash
# The test command: sets up and builds (./setup.sh), then runs every suite.
# 'fake' runs against the GPU-less stand-in of the CUDA runtime; 'gpu' runs
# the same tests against the real runtime and skips (77) without a device.
# Ends with the line 'N passed, N failed, N skipped'.
set -uo pipefail
cd "$(dirname "$0")/.."

./setup.sh || { echo "0 passed, 1 failed"; exit 1; }

meson test -C build --print-errorlogs "$@"
status=$?

python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
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
