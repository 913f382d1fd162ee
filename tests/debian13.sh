#!/usr/bin/env bash
# The README's two commands on a fresh Debian 13 (trixie) from a fresh
# clone: makes a Debian 13 root with debootstrap (main, contrib and
# non-free, where Debian's CUDA toolkit is), clones this repository's
# HEAD into it, and runs there, as a new user would,
#   bash examples/demo.sh    (no GPU here: it must say so and exit 2)
#   bash tests/run.sh        (set-up, build, every suite)
# Not in CI: it takes minutes and a few gigabytes. Run it as root on a
# Debian or Ubuntu machine whenever the build files, setup.sh or the
# stand-in change; it ends with run.sh's 'N passed, N failed, N skipped'
# and a verdict.
#
#   tests/debian13.sh [ROOT]     (default /var/tmp/gst-pinned-trixie; kept
#                                 for the next run, which updates it)
# MIRROR= another Debian mirror (default: the one this machine's apt uses,
# else deb.debian.org).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/gst-pinned-trixie}

if [ "$(id -u)" -ne 0 ]; then
  echo "tests/debian13.sh makes a chroot: run it as root" >&2
  exit 1
fi
command -v debootstrap > /dev/null || {
  apt-get update -q > /dev/null &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap > /dev/null
} || { echo "no debootstrap" >&2; exit 1; }

mirror=${MIRROR:-$(grep -rhoE '^(deb|URIs:) +(\[[^]]*\] +)?https?://[^ ]+/debian/?' \
  /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | head -1 |
  grep -oE 'https?://[^ ]+')}
mirror=${mirror:-http://deb.debian.org/debian}

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "debootstrap trixie into $root from $mirror"
  debootstrap --variant=minbase --components=main,contrib,non-free \
    trixie "$root" "$mirror" > /tmp/debian13-debootstrap.log 2>&1 || {
    tail -20 /tmp/debian13-debootstrap.log; exit 1; }
fi
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror trixie main contrib non-free non-free-firmware
deb $mirror trixie-updates main contrib non-free non-free-firmware
EOF

mounts=(proc sys dev dev/pts)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -l "$root/${mounts[$i]}" 2> /dev/null
  done
}
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t devpts devpts "$root/dev/pts" 2> /dev/null || true
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "$1"
}

# What a fresh clone needs before the README's commands: git.
in_root "apt-get update -q > /dev/null && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends git ca-certificates > /dev/null" ||
  { echo "apt-get failed in the Debian 13 root"; exit 1; }
# The certificate authorities this machine added (a proxy's, say), so that
# pip reaches PyPI from the root as from here.
if ls /usr/local/share/ca-certificates/*.crt > /dev/null 2>&1; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  in_root "update-ca-certificates > /dev/null 2>&1"
fi

rm -rf "$root/root/gst-pinned"
git clone -q "$top" "$root/root/gst-pinned" ||
  { echo "git clone failed"; exit 1; }
echo "Debian $(cat "$root/etc/debian_version") root at $root, clone of" \
  "$(git -C "$top" rev-parse --short HEAD)"

in_root "cd /root/gst-pinned && bash examples/demo.sh" > /tmp/debian13-demo.log 2>&1
demo=$?
echo "bash examples/demo.sh: exit $demo (no GPU in a chroot: 2 expected); it said:"
grep -v '^setup:\|^\[' /tmp/debian13-demo.log | tail -4 | sed 's/^/  /'

in_root "cd /root/gst-pinned && bash tests/run.sh" > /tmp/debian13-run.log 2>&1
run=$?
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/debian13-run.log
versions=$(in_root "pkg-config --modversion gstreamer-1.0; nvcc --version | tail -2 | head -1; gcc -dumpfullversion" |
  tr '\n' ' ')
echo "stack: GStreamer, nvcc, gcc: $versions"
echo "full log: /tmp/debian13-run.log"
tail -1 /tmp/debian13-run.log
[ "$demo" -eq 2 ] && [ "$run" -eq 0 ]
