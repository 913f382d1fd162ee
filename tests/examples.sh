#!/usr/bin/env bash
# The examples without a usable GPU, against the CUDA stand-in: no device
# (FAKECUDA_DEVICES=0), no driver (FAKECUDA_DRIVER=none), and a device too
# small for the frames, whose error comes from the streaming thread after
# the pipeline started (FAKECUDA_DEVICE_MEMORY). Each example must exit
# non-zero within seconds and say why.
#
#   tests/examples.sh SOURCE_ROOT BUILD_ROOT
# (the environment of the test puts the stand-in first on LD_LIBRARY_PATH)
set -u
src=$1
build=$2
limit=10       # seconds; each takes well under one
py=/usr/bin/python3
export GI_TYPELIB_PATH=$build/src
# The GstPinned override (GstPinned.Frame), as meson devenv finds it.
export PYTHONPATH=$src/src/python${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$build/src"

cases=(
  "FAKECUDA_DEVICES=0|The NVIDIA driver found no CUDA device"
  "FAKECUDA_DRIVER=none|No NVIDIA driver was found"
  "FAKECUDA_DEVICE_MEMORY=100000|Could not allocate CUDA device memory"
)
examples=(
  "pinned-appsink|$build/examples/pinned-appsink 10"
  "pinned-frames.py|$py $src/examples/pinned-frames.py 3"
  "pinned-appsrc.py|$py $src/examples/pinned-appsrc.py --frames 3 --width 640 --height 480"
  "demo.sh|env GST_PINNED_BUILD_DIR=$build bash $src/examples/demo.sh"
)

failed=0
n=0
for c in "${cases[@]}"; do
  setting=${c%%|*}
  expect=${c#*|}
  for e in "${examples[@]}"; do
    name=${e%%|*}
    cmd=${e#*|}
    n=$((n + 1))
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    out=$(env "$setting" timeout $limit $cmd 2>&1)
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    verdict=ok
    if [ $rc -eq 124 ]; then
      verdict="hung (killed after $limit s)"
    elif [ $rc -eq 0 ]; then
      verdict="exit status 0"
    elif ! grep -qF "$expect" <<< "$out"; then
      verdict="no clear message (expected: $expect)"
    fi
    printf '%-16s %-32s rc %3d %6d ms  %s\n' "$name" "$setting" $rc $ms \
      "$verdict"
    if [ "$verdict" != ok ]; then
      failed=$((failed + 1))
      sed 's/^/    /' <<< "$out" | tail -8
    fi
  done
done
echo "$((n - failed)) of $n example runs failed fast and clearly"
[ $failed -eq 0 ]
