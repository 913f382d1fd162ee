#!/usr/bin/env bash
# Interleaved A/B of two builds of gst-pinned on a GPU machine: per round,
# one benchmark process per build, each build's library and plugin first
# on the library and plugin paths, so that both see the same machine.
# CPU per frame moves by about 20 % between runs of the same code on a
# virtual machine's cores: only interleaved rounds compare.
#
#   tests/bench/ab.sh A_BUILD B_BUILD [ROUNDS] [SIZES] [ROWS]
#
# A_BUILD, B_BUILD: build folders (each with src/ and gst/); the benchmark
# binary of this tree's build/ runs both. Defaults: 5 rounds,
# NV12:1920x1080, roundtrip,upload,download. Prints the median ratio to
# the in-run limit and CPU per frame of each row and build, with every
# round's value; the runs' files go to ${AB_OUT:-/tmp/gst-pinned-ab}.
# tests/bench/sweep.sh does the work (it also takes benchmark options).
set -uo pipefail
here=$(dirname "$0")
SWEEP_OUT=${AB_OUT:-/tmp/gst-pinned-ab} exec bash "$here/sweep.sh" \
  "${3:-5}" "${4:-NV12:1920x1080}" "${5:-roundtrip,upload,download}" \
  "A:$1:" "B:$2:"
