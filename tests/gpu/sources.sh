#!/usr/bin/env bash
# Real sources through pinnedupload, for docs/sources.md, on a GPU machine:
# for each source, whether pinnedupload got its frames in its page-locked
# pool (and if not, how it copied them), the source's own time per frame,
# the time pinnedupload and cudaupload add per frame (steady state, from the
# 10th frame on, so CUDA's start-up is not counted), the median time a frame
# spends in the upload, CPU cores; and for deterministic sources whether
# SRC ! pinnedupload ! pinneddownload ! checksumsink prints the checksums of
# SRC ! checksumsink.
#
#   OUT=/tmp/out tests/gpu/sources.sh        (from the tree, build/ built)
# Needs build/tests/bench/gst-pinned-bench; writes $OUT/sources.txt and
# $OUT/sources.log; the last lines are the table.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gst-pinned-gpu}
mkdir -p "$OUT"
bench=build/tests/bench/gst-pinned-bench
data=${SOURCES_DATA:-/tmp/gst-pinned-sources}
mkdir -p "$data"
log=$OUT/sources.log
: > "$log"
unset MALLOC_PERTURB_
n=${SOURCES_FRAMES:-120}

I420="video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
# Raw files: 1080p I420 frames, and three 4K RGBA frames for multifilesrc
# (a fresh buffer per frame, the case that cost 22.5 ms).
[ -s "$data/1080.i420" ] || gst-launch-1.0 -q videotestsrc num-buffers=$n \
  pattern=ball ! "$I420" ! filesink location="$data/1080.i420" >> "$log" 2>&1
for i in 0 1 2; do
  [ -s "$data/4k-$i.rgba" ] || gst-launch-1.0 -q videotestsrc num-buffers=1 \
    pattern=$((i + 1)) ! video/x-raw,format=RGBA,width=3840,height=2160 ! \
    filesink location="$data/4k-$i.rgba" >> "$log" 2>&1
done
clip=.clips/4k-i420.h264
[ -s "$clip" ] || bash tests/bench/make-clip.sh "$clip" >> "$log" 2>&1 || true

# name|source (ends before the upload)|deterministic (checksums)
sources=(
  "videotestsrc|videotestsrc num-buffers=$n pattern=ball ! $I420|yes"
  "imagefreeze|videotestsrc num-buffers=1 pattern=ball ! $I420 ! imagefreeze num-buffers=$n|yes"
  "videoconvert|videotestsrc num-buffers=$n pattern=ball ! video/x-raw,format=RGBA,width=1920,height=1080 ! videoconvert ! video/x-raw,format=I420|yes"
  "videoscale|videotestsrc num-buffers=$n pattern=ball ! video/x-raw,format=I420,width=1280,height=720 ! videoscale ! video/x-raw,width=1920,height=1080|yes"
  "filesrc+rawvideoparse|filesrc location=$data/1080.i420 ! rawvideoparse format=i420 width=1920 height=1080|yes"
  "filesrc blocksize=frame+rawvideoparse|filesrc location=$data/1080.i420 blocksize=3110400 ! rawvideoparse format=i420 width=1920 height=1080|yes"
  "multifilesrc+rawvideoparse 4K RGBA|multifilesrc location=$data/4k-%d.rgba stop-index=2 loop=true num-buffers=$n ! rawvideoparse format=rgba width=3840 height=2160|yes"
  "rtpvrawpay+rtpvrawdepay|videotestsrc num-buffers=$n pattern=ball ! video/x-raw,format=RGB,width=1920,height=1080 ! rtpvrawpay ! rtpvrawdepay|yes"
  "openh264dec 4K|filesrc location=$clip ! h264parse ! openh264dec|yes"
  "decodebin 4K|filesrc location=$clip ! decodebin|no"
  "avdec_h264 4K|filesrc location=$clip ! h264parse ! avdec_h264|yes"
)
have_nvcodec=0
gst-inspect-1.0 cudaupload >/dev/null 2>&1 && have_nvcodec=1
have_checksum=0
gst-inspect-1.0 checksumsink >/dev/null 2>&1 && have_checksum=1

field () { echo "$1" | sed -n "s/.*$2=\([^ ]*\).*/\1/p"; }
count () { echo "$1" | sed -n "s/.*$2=(g*u*int[0-9]*)\([0-9]*\).*/\1/p"; }

table=$(printf "| source | frames in our pool | source alone ms/frame | + pinnedupload ms/frame | in the upload us/frame (median) | + cudaupload ms/frame | cores (source + upload) | bit-exact through the pair |\n|---|---|---:|---:|---:|---:|---:|---|")
for entry in "${sources[@]}"; do
  IFS='|' read -r name src det <<< "$entry"
  case "$src" in
    *"$clip"*) [ -s "$clip" ] || { table+=$'\n'"| $name | (no clip) | | | | | | |"; continue; } ;;
  esac
  elem=$(echo "$src" | grep -oE '(openh264dec|avdec_h264|rtpvrawdepay|decodebin)' | head -1)
  if [ -n "$elem" ] && ! gst-inspect-1.0 "$elem" >/dev/null 2>&1; then
    table+=$'\n'"| $name | ($elem not available) | | | | | | |"
    continue
  fi
  echo "== $name" >> "$log"
  alone=$("$bench" --pipeline "$src ! fakesink name=sink sync=false" 2>>"$log" | tail -1)
  up=$("$bench" --pipeline "$src ! pinnedupload name=el ! fakesink name=sink sync=false" 2>>"$log" | tail -1)
  echo "alone: $alone" >> "$log"
  echo "pinnedupload: $up" >> "$log"
  cu="-"
  if [ $have_nvcodec = 1 ]; then
    cuda=$("$bench" --pipeline "$src ! cudaupload name=el ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false" 2>>"$log" | tail -1)
    echo "cudaupload: $cuda" >> "$log"
    cu=$(awk -v a="$(field "$cuda" period_ms)" -v b="$(field "$alone" period_ms)" 'BEGIN { printf "%+.2f", a - b }')
  fi
  staged=$(count "$up" staged); registered=$(count "$up" registered)
  direct=$(count "$up" direct); locked=$(count "$up" locked)
  if [ -z "$staged" ]; then
    pool="?"
  elif [ "$staged$registered$direct$locked" = "0000" ]; then
    pool="yes"
  else
    pool="no: registered $registered, staged $staged, locked $locked, direct $direct (memories)"
  fi
  added=$(awk -v a="$(field "$up" period_ms)" -v b="$(field "$alone" period_ms)" 'BEGIN { printf "%+.2f", a - b }')
  exact="-"
  if [ "$det" = yes ] && [ $have_checksum = 1 ]; then
    ref=$(gst-launch-1.0 -q $src ! checksumsink 2>>"$log")
    pair=$(gst-launch-1.0 -q $src ! pinnedupload ! pinneddownload ! checksumsink 2>>"$log")
    if [ -n "$ref" ] && [ "$ref" = "$pair" ]; then
      exact="yes ($(echo "$ref" | grep -c .) frames)"
    else
      exact="NO"
      echo "checksums differ: ref $(echo "$ref" | head -2) pair $(echo "$pair" | head -2)" >> "$log"
    fi
  fi
  table+=$'\n'"| $name | $pool | $(field "$alone" period_ms) | $added | $(field "$up" inside_us) | $cu | $(field "$up" cores) | $exact |"
done
echo "$table" | tee "$OUT/sources.txt"
! grep -q "| NO |" "$OUT/sources.txt"
