#!/usr/bin/env bash
# A build folder as small as a GPU machine needs it: what runs (the
# library, the plugin, the test and benchmark programs, the stand-ins, the
# typelib) and what describes the tests (meson-info/), without object
# files, meson's private state or debug information. The copy keeps the
# build's absolute paths, so it runs where the build was made: move it back
# to the build's own path there (mv DEST BUILD).
#
#   tests/gpu/slim.sh BUILD DEST
set -euo pipefail
build=${1%/}
dest=${2%/}
rm -rf "$dest"
mkdir -p "$dest"
tar -C "$build" --exclude='*.p' --exclude=meson-private --exclude=meson-logs \
  --exclude=cuda-headers --exclude='*.o' --exclude='registry-*.bin' -cf - . |
  tar -C "$dest" -xf -
find "$dest" -type f \( -perm -u+x -o -name '*.so*' -o -name '*.a' \) |
  while read -r f; do
    if head -c 4 "$f" | grep -q ELF; then
      strip --strip-debug "$f" 2> /dev/null || true
    fi
  done
echo "$dest: $(du -sh "$dest" | cut -f1) (from $(du -sh "$build" | cut -f1))"
