#!/usr/bin/env bash
# A clean build prints no warning: configures and builds the source tree in
# a scratch folder, everything enabled, and fails listing every line of the
# meson and ninja output that warns (compilers, nvcc, the introspection
# scanner, GLib criticals from it, meson's own warnings).
#
#   tests/cleanbuild.sh SOURCE_ROOT        (CUDA_PATH: the toolkit)
set -u
src=$1
export PATH="${CUDA_PATH:-/usr/local/cuda}/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! { meson setup "$tmp/build" "$src" && ninja -C "$tmp/build" -j2; } \
    > "$tmp/build.log" 2>&1; then
  tail -30 "$tmp/build.log"
  echo "the clean build failed"
  exit 1
fi
if grep -inE "warning|critical|deprecat" "$tmp/build.log"; then
  echo "the clean build warns ($(grep -ciE "warning|critical|deprecat" \
    "$tmp/build.log") lines above)"
  exit 1
fi
echo "clean build: $(grep -c '^\[' "$tmp/build.log") build steps, no warning"
