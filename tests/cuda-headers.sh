#!/usr/bin/env bash
# Every C file of the build compiles, without a warning, against the
# headers of other CUDA toolkits than the one it was configured with: the
# runtime headers of PyPI's nvidia-cuda-runtime-cu12 wheels (by default
# the oldest and the newest CUDA 12, 12.0 and 12.9; the build's own
# toolkit is CUDA 12 or 13). Each file's command from compile_commands.json
# runs again with the toolkit's include folder swapped and -fsyntax-only
# -Werror. The .cu kernels need that toolkit's nvcc and are left out.
# Wheels are downloaded once into the build folder.
#
#   tests/cuda-headers.sh BUILD_DIR [WHEEL_VERSION ...]
set -u
build=$(cd "$1" && pwd)
shift
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(12.0.107 12.9.79)

if ! python3 -m pip --version > /dev/null 2>&1; then
  echo "no pip for python3 (./setup.sh installs python3-pip)"
  exit 1
fi

status=0
for v in "${versions[@]}"; do
  dir=$build/cuda-headers/$v
  if [ ! -f "$dir/nvidia/cuda_runtime/include/cuda_runtime_api.h" ]; then
    rm -rf "$dir" && mkdir -p "$dir/wheel"
    if ! python3 -m pip download -q --no-deps --only-binary=:all: \
        --python-version 3.11 --platform manylinux2014_x86_64 \
        --platform manylinux1_x86_64 -d "$dir/wheel" \
        "nvidia-cuda-runtime-cu12==$v" > "$dir/pip.log" 2>&1; then
      tail -5 "$dir/pip.log"
      echo "could not download nvidia-cuda-runtime-cu12 $v"
      status=1
      continue
    fi
    python3 -m zipfile -e "$dir"/wheel/*.whl "$dir"
  fi
  python3 - "$build" "$dir/nvidia/cuda_runtime/include" "$v" <<'PY' ||
import json, os, shlex, subprocess, sys

build, include, version = sys.argv[1:4]
commands = json.load(open(os.path.join(build, "compile_commands.json")))
# The configured toolkit's include folder: the one holding the runtime API.
ours = None
for entry in commands:
    for arg in shlex.split(entry["command"]):
        if arg.startswith("-I") and os.path.exists(
                os.path.join(entry["directory"], arg[2:], "cuda_runtime_api.h")):
            ours = arg
            break
    if ours:
        break
if ours is None:
    sys.exit("no CUDA include folder in compile_commands.json")

failed = checked = 0
for entry in commands:
    if not entry["file"].endswith(".c"):
        continue
    args, skip = [], False
    for arg in shlex.split(entry["command"]):
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MQ", "-MT"):
            skip = True
            continue
        if arg in ("-c", "-MD"):
            continue
        args.append("-I" + include if arg == ours else arg)
    args += ["-fsyntax-only", "-Werror", "-fdiagnostics-color=never"]
    run = subprocess.run(args, cwd=entry["directory"], capture_output=True,
                         text=True)
    checked += 1
    if run.returncode != 0 or run.stderr.strip():
        failed += 1
        print("%s with CUDA %s headers:" % (entry["file"], version))
        print("\n".join(run.stderr.splitlines()[:15]))
print("CUDA %s headers: %d of %d C files compile without a warning"
      % (version, checked - failed, checked))
sys.exit(1 if failed else 0)
PY
    status=1
done
exit $status
