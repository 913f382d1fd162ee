#!/usr/bin/env bash
# ThreadSanitizer over the check programs of the 'fake' suite: sets up
# build-tsan (-Db_sanitize=thread: the library, the plugin, the stand-in
# and the tests), builds GLib and GStreamer core with ThreadSanitizer too
# into build-tsan/deps (the distribution's own sources, by apt-get source,
# at the installed version), then runs meson test --setup tsan (see
# tests/meson.build): one program at a time, any report fails it.
#
# Why GLib and GStreamer instrumented: Debian's GLib takes a GMutex and
# waits on a GCond with futexes, which ThreadSanitizer does not see, so
# every access a GMutex orders would look racy; GStreamer counts a mini
# object's references (buffers, memories, events) with atomics that an
# uninstrumented library hides. Other libraries and the system's plugins
# stay as they are. Suppressions: tests/tsan/gst-pinned.supp (GLib's and
# GStreamer's own races only, each with its reason); beyond them a race
# wholly inside GStreamer core is counted apart and fails nothing
# (tests/tsan/triage.py); any other report fails its program.
#
# Arguments go to meson test (a test name). Ends with the reports' count
# and the line 'N passed, N failed'. The first run takes about 10 minutes more to
# fetch and build GLib and GStreamer core; later runs, in this folder or
# another clone, reuse them (kept in ~/.cache/gst-pinned/tsan-deps).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-tsan
deps=$root/$build/deps   # a link to $deps_real, below
jobs=2

fail() {
  echo "tsan: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# What the builds of GLib and GStreamer core need beyond setup.sh's
# packages (dpkg-source unpacks the distribution's sources).
missing=()
for p in dpkg-dev flex bison libffi-dev libpcre2-dev meson ninja-build \
    libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
    gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev; do
  dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tsan: installing ${missing[*]}"
  $sudo apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends "${missing[@]}" > /dev/null ||
    fail "could not install ${missing[*]}"
fi

# CUDA as setup.sh finds it (nvcc builds the kernels; no GPU is needed).
if [ -z "${CUDA_PATH:-}" ]; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    CUDA_PATH=/usr/local/cuda
  else
    CUDA_PATH=/usr
  fi
fi
export CUDA_PATH
export PATH="$CUDA_PATH/bin:$PATH"

multiarch=$(gcc -print-multiarch)
libdir=/usr/lib/$multiarch
# The instrumented GLib and GStreamer are kept for the next run (a fresh
# clone, CI) in the user's cache, by the versions of the system's
# (TSAN_DEPS names another folder); build-tsan/deps is a link to them.
version_of() {
  local pkg
  pkg=$(dpkg -S "$(readlink -f "$1")" | cut -d: -f1) ||
    fail "no package owns $1"
  dpkg-query -W -f='${source:Package}_${source:Version}' "$pkg"
}
glib_version=$(version_of "$libdir/libglib-2.0.so.0")
gst_version=$(version_of "$libdir/libgstreamer-1.0.so.0")
[ -n "$glib_version" ] && [ -n "$gst_version" ] ||
  fail "no Debian package of GLib or GStreamer in $libdir"
cache=${TSAN_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/gst-pinned/tsan-deps}
deps_real=$cache/${glib_version}-${gst_version}

start=$(date +%s)
if [ ! -f $build/build.ninja ]; then
  meson setup $build -Db_sanitize=thread -Db_lundef=false \
    -Dintrospection=disabled -Dexamples=disabled -Dbenchmark=disabled ||
    fail "meson setup $build failed"
fi
mkdir -p "$deps_real"
rm -rf "$deps"
ln -s "$deps_real" "$deps"
deps=$deps_real

# The distribution's source package of the library file $1, at the
# installed version where the archive still has it, unpacked into
# $deps/src/$2.
apt_opts=(-o Dir::Etc::SourceList="$deps/apt/sources.list"
  -o Dir::Etc::SourceParts="$deps/apt/sources.list.d"
  -o Dir::State::Lists="$deps/apt/lists" -o Dir::Cache="$deps/apt/cache"
  -o APT::Sandbox::User=root)
apt_updated=no
source_of() {
  local lib=$1 name=$2 pkg src ver
  [ -d "$deps/src/$name" ] && return 0
  pkg=$(dpkg -S "$(readlink -f "$lib")" | cut -d: -f1) ||
    fail "no package owns $lib"
  src=$(dpkg-query -W -f='${source:Package}' "$pkg")
  ver=$(dpkg-query -W -f='${source:Version}' "$pkg")
  if [ $apt_updated = no ]; then
    # A private apt state: the system's archives as deb-src, the
    # system's own configuration left alone.
    mkdir -p "$deps/apt/lists/partial" "$deps/apt/cache/archives/partial" \
      "$deps/apt/sources.list.d"
    : > "$deps/apt/sources.list"
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      sed 's/^Types:.*/Types: deb-src/' "$f" \
        > "$deps/apt/sources.list.d/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" \
        > "$deps/apt/sources.list.d/$(basename "$f" .list)-src.list"
    done
    apt-get "${apt_opts[@]}" update -q > "$deps/apt/update.log" 2>&1 ||
      echo "tsan: apt-get update had errors (see $deps/apt/update.log)" >&2
    apt_updated=yes
  fi
  mkdir -p "$deps/src/dl-$name"
  (cd "$deps/src/dl-$name" &&
    { apt-get "${apt_opts[@]}" source -q --download-only "$src=$ver" ||
      { echo "tsan: $src $ver is no longer in the archive: taking its" \
          "current version" >&2
        apt-get "${apt_opts[@]}" source -q --download-only "$src"; }; }) \
    > "$deps/src/dl-$name.log" 2>&1 ||
    fail "apt-get source $src failed (see $deps/src/dl-$name.log)"
  dpkg-source -x "$deps"/src/dl-$name/*.dsc "$deps/src/$name" \
    > "$deps/src/unpack-$name.log" 2>&1 ||
    fail "dpkg-source -x $src failed (see $deps/src/unpack-$name.log)"
}

# The shared libraries a build folder makes, by their folders.
lib_targets() {
  ninja -C "$1" -t targets all | sed -n 's/^\(\([a-z/]*\)\/lib[a-z-]*-[0-9.]*\.so\.[0-9.]*\): .*LINKER.*/\1/p' |
    grep -E "^($2)/"
}

if [ ! -f "$deps/glib/glib.stamp" ]; then
  source_of "$libdir/libglib-2.0.so.0" glib
  rm -rf "$deps/glib"
  meson setup "$deps/glib" "$deps/src/glib" -Db_sanitize=thread \
    -Dbuildtype=debugoptimized -Dtests=false -Dlibmount=disabled \
    -Dselinux=disabled -Dxattr=false -Dnls=disabled -Dman=false \
    -Dgtk_doc=false -Dlibelf=disabled -Dsysprof=disabled \
    -Dmultiarch=false > "$deps/glib-setup.log" 2>&1 ||
    fail "GLib's meson setup failed (see $deps/glib-setup.log)"
  # libglib, libgobject, libgmodule, libgthread (not GIO: the system's
  # runs on the instrumented libglib).
  ninja -C "$deps/glib" -j$jobs \
    $(lib_targets "$deps/glib" 'glib|gobject|gmodule|gthread') \
    > "$deps/glib-build.log" 2>&1 ||
    fail "GLib's build failed (see $deps/glib-build.log)"
  touch "$deps/glib/glib.stamp"
fi

if [ ! -f "$deps/gstreamer/gstreamer.stamp" ]; then
  source_of "$libdir/libgstreamer-1.0.so.0" gstreamer
  rm -rf "$deps/gstreamer"
  # The system's prefix and folders, so that it looks where the system's
  # GStreamer looks.
  meson setup "$deps/gstreamer" "$deps/src/gstreamer" -Db_sanitize=thread \
    -Dbuildtype=debugoptimized --prefix=/usr --libdir=lib/$multiarch \
    --libexecdir=lib/$multiarch -Dtests=disabled -Dexamples=disabled \
    -Dbenchmarks=disabled -Dtools=disabled -Dintrospection=disabled \
    -Ddoc=disabled -Dnls=disabled -Dlibunwind=disabled -Dlibdw=disabled \
    -Dbash-completion=disabled -Dptp-helper-permissions=none \
    > "$deps/gstreamer-setup.log" 2>&1 ||
    fail "GStreamer's meson setup failed (see $deps/gstreamer-setup.log)"
  ninja -C "$deps/gstreamer" -j$jobs \
    $(lib_targets "$deps/gstreamer" 'gst|libs/gst/[a-z]*') \
    > "$deps/gstreamer-build.log" 2>&1 ||
    fail "GStreamer's build failed (see $deps/gstreamer-build.log)"
  touch "$deps/gstreamer/gstreamer.stamp"
fi

# The system's plugins that the check programs use, as links: each
# program scans them in its own process (the plugin scanner is not
# instrumented), and the whole folder would take 10 s a program and run
# the load-time code of unrelated libraries (DirectFB, OpenNI2), which
# ThreadSanitizer reports.
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
rm -rf "$deps/plugins"
mkdir -p "$deps/plugins"
for p in coreelements coretracers app videotestsrc videoconvertscale \
    imagefreeze debug nvcodec videoparsersbad openh264 isomp4 \
    typefindfunctions playback; do
  [ -f "$pluginsdir/libgst$p.so" ] || fail "no $pluginsdir/libgst$p.so"
  ln -s "$pluginsdir/libgst$p.so" "$deps/plugins/"
done

ninja -C $build -j$jobs > $build/tsan-build.log 2>&1 ||
  { tail -20 $build/tsan-build.log; fail "ninja -C $build failed"; }
built=$(date +%s)
echo "tsan: set up and built in $((built - start)) s"

rm -f $build/meson-logs/testlog-tsan.json $build/meson-logs/testlog-tsan.txt
meson test -C $build --setup tsan --no-rebuild --num-processes 1 \
  --print-errorlogs "$@"
status=$?
echo "tsan: ran in $(($(date +%s) - built)) s"

python3 - $build/meson-logs/testlog-tsan.json \
  $build/meson-logs/testlog-tsan.txt <<'PY'
import json, os, re, sys
passed = failed = 0
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        if json.loads(line)["result"] in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
else:
    failed = 1
# tests/tsan/wrap.sh's line for each program.
ours = theirs = 0
if os.path.exists(sys.argv[2]):
    for l in open(sys.argv[2], errors="replace"):
        m = re.match(r"tsan: (\d+) reports of ours, (\d+) of", l)
        if m:
            ours += int(m.group(1))
            theirs += int(m.group(2))
print("tsan: {} reports of ours, {} of GStreamer's own"
      .format(ours, theirs))
print("{} passed, {} failed".format(passed, failed))
PY
exit $status
