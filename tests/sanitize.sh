#!/usr/bin/env bash
# AddressSanitizer and UBSan over the stand-in suites: configures and builds
# build-asan (-Db_sanitize=address,undefined; the library, the plugin, the
# stand-in and the tests are instrumented), then runs meson test --setup
# asan (tests/meson.build says which programs and why). Any report fails
# its program. Arguments go to meson test.
#
#   tests/sanitize.sh [TEST ...]
set -uo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dintrospection=disabled -Dexamples=disabled -Dbenchmark=disabled \
    > "${TMPDIR:-/tmp}/gst-pinned-asan-setup.log" 2>&1 ||
    { cat "${TMPDIR:-/tmp}/gst-pinned-asan-setup.log"; exit 1; }
fi
ninja -C "$dir" > /dev/null || ninja -C "$dir" || exit 1
rm -f "$dir"/tests/registry-*.bin
exec meson test -C "$dir" --setup asan --print-errorlogs "$@"
