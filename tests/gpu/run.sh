#!/usr/bin/env bash
# The GPU steps, on a machine with an NVIDIA GPU. Where GStreamer is not
# installed it runs from the tree with a GStreamer runtime folder
# (.gstbundle/, sourced from .gstbundle/env.sh) and build/ carried along;
# on a machine with GStreamer installed it runs as it is.
#
#   tests/gpu/run.sh [STEP ...]
#
#   device       the GPU, its driver and link
#   suite        the 'gpu' suite and 'gpu-hidden' (states-hidden)
#   sanitizer    compute-sanitizer memcheck over the 'gpu' suite
#   sanitizer-racecheck, sanitizer-synccheck, sanitizer-initcheck
#                the same with that tool
#                ($SANITIZER_JOBS tests at a time, default 1;
#                $SANITIZER_TESTS="a b" those tests only, so that a slow
#                tool's run can be split over calls; timed holds times
#                $SANITIZER_TIME_SCALE, default 5 under initcheck, else 1;
#                $SANITIZER_ENV="VAR=value ..." over the tests' own)
#   renegotiate  the renegotiation test, $RENEG_RUNS times (20)
#   ipc          frames across processes: cudaipcsink / cudaipcsrc (1.24+)
#   device-alloc device-alloc=default against stream-ordered: start-up,
#                device memory held, frames/s (tests/gpu/device-alloc.sh)
#   inspect      gst-inspect-1.0: the elements and their properties
#   example      examples/pinned-appsink: its kernel on 300 frames
#   demo         examples/demo.sh
#   bench, tracers, depth    the benchmark and its cross-checks
#   fault        a kernel that faults mid-stream (tests/check/fault.c):
#                element error, stop, no hang, nothing left alive
#   churn        tests/check/churn.c: $CHURN_LIFETIMES (2000) pipeline
#                lifetimes torn down at random points, frames bit-exact,
#                resident and device memory, page-locked bytes, threads
#                and descriptors back after the warm-up (up to 2 hours)
#   kernels      compute-sanitizer racecheck and synccheck over the filter
#                kernels (the filters suite: pinnedconvert, pinnedbusy)
#   nodevice     the examples with every device hidden: fail fast, say why
#   startup      time to start a pipeline: CUDA context and page-locked
#                pools (docs/guide.md), median of 3 gst-launch runs each
#   interop      nvcodec interop: suite gpu-interop (decode bit-exact vs
#                openh264dec, cudaupload/cudadownload checksums)
#   interop-sanitizer   the same under memcheck
#   interop-bench the CUDA memory and 4K decode rows (clips of
#                tests/media/make-clips.sh in tests/media/bench)
#   callcost     what one CUDA call of a frame's path costs the host
#                (tests/bench/callcost.c: the driver alone, no GStreamer)
#   fencecost    how the host learns a copy is done with 64 threads in
#                the driver: an event's question against a word of
#                page-locked memory the stream writes (the driver alone)
#   callcount    CUDA calls and sleeps per frame of the NV12 1920x1080
#                round trip (tests/bench/callcount.c), and of the build
#                in $CALLCOUNT_BASE too where set (a folder with src/, gst/)
#   floor        the NV12 1920x1080 pair's CPU per frame beside what two
#                GStreamer elements (row identity-pair) and its driver
#                calls without GStreamer (gst-pinned-callcost) cost
#   syscalls     system calls per frame of the same round trip, under
#                strace -f -c where strace is installed (counts, not time:
#                tracing slows every call), a short and a long run
#   profile      where the round trip's CPU goes: a sampling profiler
#                (tests/bench/sampler.c) over its benchmark row
#   fresh        a fresh malloc'd frame each time: time in pinnedupload
#                and in cudaupload per frame, medians of 3 runs;
#                pinnedupload-wait: ours with the staging waited for
#                (GST_PINNED_STAGING=wait), as before detached staging
#   fresh-python the same from Python: Gst.Buffer.new_wrapped frames into
#                appsrc ! pinnedupload / cudaupload (tests/bench/fresh.py),
#                then pinnedupload with the staging waited for
#   pageable smallframes decoder sources appsrc   the pageable-input
#                measurements (docs/sources.md, docs/performance.md; the
#                decoder step needs .clips/ from tests/bench/make-clip.sh)
#   soak-start   starts the 10-minute 4K soak in the background (setsid)
#   tensor-soak-start   the same for examples/pinned-torch.py --seconds:
#                1080p frames into PyTorch and its results back out
#   soak-collect waits for either (up to 9 minutes) and reports its verdict
#   batch        pinnedbatch on the GPU: the batcher suite (its real
#                kernel against the double-precision reference) and
#                tests/python/batch.py (GstPinned.Frame of a batch)
#   batch-bench  tests/bench/batch.py: 16 x 1080p H.264 (nvh264dec) into
#                16x3x640x640 float16 through pinnedbatch, against the
#                decoders alone and the per-stream Python path (the clip
#                from tests/bench/make-batch-clip.sh, made here if absent)
#   tensor       tests/gpu/tensor.py: frames into PyTorch and back (needs
#                PyGObject and PyTorch in python3; 77 without them)
#   devices      every GPU at once (gst-pinned-bench --devices N, N from
#                $DEVICES, default all): 4K RGBA round trips, one a GPU,
#                in one process and one process per GPU; 64 NV12 1080p
#                round trips in one process, and with pinnedconvert
#   devices-profile  where the 64 round trips' CPU goes in one process
#                (the sampler over their measured seconds only,
#                SAMPLER_MARKED=1; STREAMS=M for another count)
#   devices-batch  the 64 round trips in one process with larger
#                batches (batch=8, 16 on both copy elements) and each
#                GPU's streams bound to one CPU (--bind-cpus 1), each way
#                in turn with the default, $ROUNDS rounds (2); SIZES=
#                FMT:WxH for another frame size
#   devices-calls  what the 64 round trips' driver calls cost: each call's
#                wall time in their measured seconds (callcount,
#                CALLCOUNT_MARKED=1) against one round trip a GPU; then,
#                interleaved with the default, one caller at a time into
#                the driver (CALLCOUNT_SERIAL: a lock a device, one for
#                the process), each stream on its GPU's share of the CPUs
#                (--bind-streams), a hardware queue a stream
#                (CUDA_DEVICE_MAX_CONNECTIONS=32)
#   tensor-bench tests/bench/tensor.py: rows tensor-in and tensor-out
#   python-sources  tests/bench/python-sources.py: frames from a Python
#                app at 4K and 1080p RGBA: new_wrapped bytes (cudaupload,
#                pinnedupload), np.copyto into the offered pool's view, the
#                copy alone, pinned torch tensors against torch's H2D rate
#   pool-write-parts  tests/bench/pool-write-parts.py: where pool-write's
#                frame goes (np.copyto alone, beside the upload alone and
#                the round trip, split over threads); $POOL_WRITE_ARGS
#   tensor-sanitizer  tests/gpu/tensor.py (its frames: $TENSOR_FRAMES, 4)
#                under compute-sanitizer memcheck, then racecheck
#   (default: device suite sanitizer inspect)
# BENCH_ARGS passes options to the benchmark (see gst-pinned-bench --help);
# SOAK_DIR is where the soak keeps its files between the two steps
# (default /tmp/gst-pinned-soak), SOAK_SECONDS how long it runs (600).
#
# GST_RUNTIME=DIR runs under the GStreamer runtime folder DIR (its env.sh
# and meson-tests.py: a GStreamer built into a folder, another version
# than the one the build was made with); default .gstbundle/ where it
# exists, else the installed GStreamer.
# Logs go to $OUT (default /tmp/gst-pinned-gpu); the last lines summarise.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
OUT=${OUT:-/tmp/gst-pinned-gpu}
mkdir -p "$OUT"

# GST_RUNTIME names a GStreamer runtime folder to run under (an env.sh
# that sets its paths, and meson-tests.py); .gstbundle/ where it exists.
runtime=${GST_RUNTIME:-}
if [ -z "$runtime" ] && [ -f .gstbundle/env.sh ]; then
  runtime=.gstbundle
fi
if [ -n "$runtime" ]; then
  # shellcheck disable=SC1091
  source "$runtime/env.sh"
  runner=(python3 "$runtime/meson-tests.py" build)
  echo "GStreamer runtime: $runtime ($(gst-launch-1.0 --version | head -1))"
else
  runner=(meson test -C build --no-rebuild --print-errorlogs)
fi
# meson records a test's LD_LIBRARY_PATH without the caller's: put the
# caller's (the bundle's GStreamer, CUDA) back behind the build's.
libpath="$top/build/gst:$top/build/src:${LD_LIBRARY_PATH:-}"

soak_dir=${SOAK_DIR:-/tmp/gst-pinned-soak}

# One test binary of the build in GPU mode, as the suite runs it, with
# TEST_ENV added; arguments go in front of it (a sanitizer).
TEST_ENV=()
gpu_test () {
  local name=$1
  shift
  env GST_PINNED_TEST_MODE=gpu GST_PLUGIN_PATH_1_0="$top/build/gst" \
    GST_REGISTRY_1_0="$OUT/registry-$name.bin" G_DEBUG=fatal-criticals \
    GST_DEBUG='pinned*:3,*:2' LD_LIBRARY_PATH="$libpath" "${TEST_ENV[@]}" \
    timeout "${test_timeout:-600}" "$@" "$top/build/tests/test-$name"
}

# A callcount file (tests/bench/callcount.c) a frame: each kind's calls
# and, for CUDA calls, what one costs. @2: the frames it counted; or, where
# it counted a window (CALLCOUNT_MARKED=1), @3: the run's frames/s.
callcount_report () {
  awk -v f="${2:-0}" -v fps="${3:-0}" '
    $2 == "window-ms" { if (fps > 0) f = fps * $3 / 1000; next }
    f > 0 && $3 > 0 {
      if ($2 ~ /^cuda/) {
        d += $4
        c += $5
        printf "  %-24s %.3f a frame  %.2f us a call (%.2f of CPU)\n", $2, $3 / f,
          $4 / $3 / 1000, $5 / $3 / 1000
      } else {
        printf "  %-24s %.3f a frame\n", $2, $3 / f
      }
    }
    END { if (f > 0) printf "  driver calls: %.2f us a frame (%.2f of CPU)\n", d / f / 1000, c / f / 1000 }' "$1"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(device suite sanitizer inspect)
summary=()

for step in "${steps[@]}"; do
  case "$step" in
    device)
      nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
        --format=csv | tee "$OUT/device.txt"
      date -u +%Y-%m-%dT%H:%MZ >> "$OUT/device.txt"
      ;;
    suite)
      # $SUITE_JOBS tests at a time (default 1: the timing tests alone).
      suite_runner=("${runner[@]}")
      [ "${SUITE_JOBS:-1}" -gt 1 ] &&
        suite_runner=(python3 tests/gpu/parallel-tests.py build -j "$SUITE_JOBS")
      if [ -n "$runtime" ]; then
        "${suite_runner[@]}" --suite gpu --suite gpu-hidden \
          --wrap "env LD_LIBRARY_PATH=$libpath" -v > "$OUT/suite.log" 2>&1
      else
        "${suite_runner[@]}" --suite gpu --suite gpu-hidden > "$OUT/suite.log" 2>&1
      fi
      summary+=("suite: $(tail -1 "$OUT/suite.log")")
      grep -E "^(PASSED|FAILED|SKIPPED)" "$OUT/suite.log"
      grep -E "frames +(same|DIFFERENT)" "$OUT/suite.log" > "$OUT/checksums.txt"
      ;;
    renegotiate)
      # The renegotiation cases (tests/check/renegotiate.c: caps changing
      # every 15 frames behind a tee and without one, each after its
      # control) RENEG_RUNS times (default 20); failed runs' logs kept.
      failed=0
      for i in $(seq "${RENEG_RUNS:-20}"); do
        if ! GST_CHECKS=${RENEG_CHECKS:-test_tee_batched,test_tee_frame_by_frame} \
          gpu_test renegotiate > "$OUT/renegotiate-$i.log" 2>&1; then
          failed=$((failed + 1))
          grep -E ":[FE]:|ERROR|CRITICAL" "$OUT/renegotiate-$i.log" | head -5
        else
          rm -f "$OUT/renegotiate-$i.log"
        fi
      done
      summary+=("renegotiate: $failed failed of ${RENEG_RUNS:-20} runs")
      ;;
    device-alloc)
      # device-alloc default against stream-ordered (tests/gpu/device-alloc.sh)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath bash tests/gpu/device-alloc.sh \
        > "$OUT/device-alloc.txt" 2>&1
      summary+=("device-alloc: rc $? (device-alloc.txt)")
      cat "$OUT/device-alloc.txt"
      ;;
    ipc)
      # frames across processes through nvcodec's CUDA IPC (1.24+)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath bash tests/gpu/ipc.sh > "$OUT/ipc.log" 2>&1
      summary+=("ipc: rc $? $(tr '\n' ' ' < "$OUT/ipc.log")")
      ;;
    sanitizer|sanitizer-racecheck|sanitizer-synccheck|sanitizer-initcheck)
      # A compute-sanitizer tool (memcheck; or the one the step names) over
      # every process of every GPU test (gst-launch children of the
      # checksum test included), $SANITIZER_JOBS tests at a time (default
      # 1; each runs many times slower under the sanitizer).
      # The holds that must outlast a test's own work (pinned_test_ms())
      # stretch by $SANITIZER_TIME_SCALE (GST_PINNED_TEST_TIME_SCALE), and
      # a judgement that is a timing is skipped when scaled: initcheck
      # checks every copy's bytes on the host, so that the host's work
      # outlasts unscaled holds (default 5 there, 1 under the others,
      # whose holds pass as they are and whose tests then run in full).
      # churn runs $SANITIZER_CHURN_LIFETIMES (30) lifetimes, as under
      # memcheck. $SANITIZER_TESTS="a b" runs those tests only: a call of
      # several, each under 9 minutes (docs/testing.md: the split).
      tool=memcheck
      [ "$step" = sanitizer ] || tool=${step#sanitizer-}
      cs="compute-sanitizer --tool $tool --error-exitcode 1 --target-processes all"
      [ "$tool" = racecheck ] && cs="$cs --racecheck-report all"
      scale=1
      [ "$tool" = initcheck ] && scale=5
      scale=${SANITIZER_TIME_SCALE:-$scale}
      sanitizer_env="LD_LIBRARY_PATH=$libpath GST_PINNED_TEST_TIME_SCALE=$scale"
      sanitizer_env+=" GST_PINNED_CHURN_LIFETIMES=${SANITIZER_CHURN_LIFETIMES:-30}"
      # initcheck finishes each copy and kernel before the host goes on:
      # no judgement that work was still in flight holds under it.
      [ "$tool" = initcheck ] && sanitizer_env+=" GST_PINNED_TEST_SYNC_WORK=1"
      # nor does it see cudaMemcpyBatchAsync's writes (docs/guide.md).
      [ "$tool" = initcheck ] && sanitizer_env+=" GST_PINNED_COPY_BATCH=single"
      # streams' 64 pipelines at once outgrow the host's memory under
      # racecheck (tests/check/streams.c): 16 there.
      [ "$tool" = racecheck ] &&
        sanitizer_env+=" GST_PINNED_TEST_STREAMS=${SANITIZER_STREAMS:-16}"
      # $SANITIZER_ENV="VAR=value ..." comes last: the tests' own
      # environment (a GST_DEBUG, say) gives way to it.
      sanitizer_env+=" ${SANITIZER_ENV:-}"
      sanitizer_runner=("${runner[@]}")
      only=()
      for t in ${SANITIZER_TESTS:-}; do
        only+=(--test "$t")
      done
      [ "${SANITIZER_JOBS:-1}" -gt 1 ] || [ ${#only[@]} -gt 0 ] &&
        sanitizer_runner=(python3 tests/gpu/parallel-tests.py build -j "${SANITIZER_JOBS:-1}" --logdir "$OUT/$step-logs" "${only[@]}")
      log=$OUT/$step.log
      [ ${#only[@]} -gt 0 ] && log=$OUT/$step-$(echo $SANITIZER_TESTS | tr ' ' +).log
      echo "$step: time scale $scale, tests: ${SANITIZER_TESTS:-all}" > "$log"
      "${sanitizer_runner[@]}" --suite gpu --wrap "env $sanitizer_env $cs" -v \
        >> "$log" 2>&1
      summary+=("$step (${SANITIZER_TESTS:-all}): $(tail -1 "$log"), $(grep -cE "(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)" "$log") clean reports, $(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | grep -vcE "SUMMARY: 0 (errors|hazards)") with errors")
      grep -E "^(PASSED|FAILED|SKIPPED)" "$log"
      ;;
    inspect)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath bash tests/inspect.sh > "$OUT/inspect.log" 2>&1
      summary+=("inspect: rc $? $(tr '\n' ' ' < "$OUT/inspect.log")")
      ;;
    example)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath build/examples/pinned-appsink 300 \
        > "$OUT/example.log" 2>&1
      summary+=("example: rc $? $(grep -E "frames|sum" "$OUT/example.log" | tr '\n' ' ')")
      ;;
    demo)
      bash examples/demo.sh > "$OUT/demo.log" 2>&1
      summary+=("demo: rc $?")
      cat "$OUT/demo.log"
      ;;
    bench)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$libpath build/tests/bench/gst-pinned-bench \
        ${BENCH_ARGS:-} --csv "$OUT/bench.csv" --json "$OUT/bench.json" \
        --timeline "$OUT/timeline" \
        > "$OUT/bench.txt" 2> >(tail -200 > "$OUT/bench.err")
      summary+=("bench: rc $?")
      cat "$OUT/bench.txt"
      ;;
    pageable)
      # Sources that ignore the offered pool (docs/notes/2026-11-22-pageable-sources.md,
      # "Pageable sources"): recycled, fresh, appsrc, downstream pools,
      # huge pages; then where a pageable frame's time goes, mapped memory
      # and the rotating limit by kind of page-locked memory (4K RGBA).
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath timeout 480 build/tests/bench/gst-pinned-bench \
        --rows upload,upload-pageable-recycled,upload-pageable-direct,upload-pageable-stage,upload-pageable-fresh,upload-pageable-fresh-wc,upload-pageable-fresh-direct,appsrc-pool,appsrc-malloc,download-pageable-stage,download-pageable-register,download-pageable-direct,upload-hugepages,roundtrip-hugepages,anatomy,mapped,limit-hugepages \
        --sizes NV12:1920x1080,RGBA:3840x2160 --csv "$OUT/pageable.csv" \
        > "$OUT/pageable.txt" 2> >(tail -100 > "$OUT/pageable.err")
      summary+=("pageable: rc $? (pageable.txt)")
      cat "$OUT/pageable.txt"
      ;;
    smallframes)
      # The pool path, small frames to 4K, and what each CUDA call of the
      # per-frame path costs.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath timeout 420 build/tests/bench/gst-pinned-bench \
        --rows upload,download,roundtrip,overlap,overlap-serial,api-costs \
        --sizes GRAY8:320x240,NV12:1920x1080,RGBA:3840x2160 \
        --csv "$OUT/smallframes.csv" > "$OUT/smallframes.txt" \
        2> >(tail -100 > "$OUT/smallframes.err")
      summary+=("smallframes: rc $? (smallframes.txt)")
      cat "$OUT/smallframes.txt"
      ;;
    callcost)
      LD_LIBRARY_PATH=$libpath timeout 120 build/tests/bench/gst-pinned-callcost \
        > "$OUT/callcost.txt" 2>&1
      callcost_rc=$?
      cat "$OUT/callcost.txt"
      summary+=("callcost: rc $callcost_rc (callcost.txt)")
      ;;
    fencecost)
      # 64 threads over every GPU, then one and eight a GPU: an event's
      # question against a word the stream writes (tests/bench/fencecost.c)
      n=${DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
      : > "$OUT/fencecost.txt"
      for threads in $((64 / n)) 1 8; do
        LD_LIBRARY_PATH=$libpath timeout 120 build/tests/bench/gst-pinned-fencecost \
          "$n" "$threads" 3 2 >> "$OUT/fencecost.txt" 2>&1
      done
      cat "$OUT/fencecost.txt"
      summary+=("fencecost: $(grep -c "frames/s" "$OUT/fencecost.txt") rows (fencecost.txt)")
      ;;
    callcount)
      # Counts do not move with the host's speed as CPU time does: the
      # calls of a frame's path, per frame, each build twice, interleaved.
      pipe='benchframesrc mode=0 duration=3000000000 caps="video/x-raw,format=NV12,width=1920,height=1080,framerate=0/1" ! video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! pinneddownload ! fakesink name=sink sync=false'
      builds=("$top/build")
      [ -n "${CALLCOUNT_BASE:-}" ] && builds=("$(cd "$CALLCOUNT_BASE" && pwd)" "$top/build")
      : > "$OUT/callcount.txt"
      for round in 1 2; do
        for b in "${builds[@]}"; do
          # Preloaded into the benchmark alone: timeout would write the
          # file too, at its exit. A registry for each build's plugin.
          rm -f "$OUT/callcount.raw"
          GST_PLUGIN_PATH_1_0=$b/gst \
            GST_REGISTRY_1_0="$OUT/registry-callcount-$(echo "$b" | md5sum | cut -c1-8).bin" \
            LD_LIBRARY_PATH=$b/src:$libpath timeout 60 env \
            CALLCOUNT_OUT="$OUT/callcount.raw" \
            LD_PRELOAD="$top/build/tests/bench/libpinnedcallcount.so" \
            build/tests/bench/gst-pinned-bench --pipeline "$pipe" \
            > "$OUT/callcount-run.txt" 2>&1
          frames=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' "$OUT/callcount-run.txt")
          echo "${b#"$top"/} round $round: $frames frames" >> "$OUT/callcount.txt"
          [ -f "$OUT/callcount.raw" ] &&
            callcount_report "$OUT/callcount.raw" "${frames:-0}" >> "$OUT/callcount.txt"
        done
      done
      cat "$OUT/callcount.txt"
      summary+=("callcount: $(grep -c frames "$OUT/callcount.txt") runs (callcount.txt)")
      ;;
    syscalls)
      # The difference of a 1 s and a 4 s run, per frame of that
      # difference: start-up and teardown cancel out.
      if ! command -v strace > /dev/null; then
        summary+=("syscalls: no strace here")
        continue
      fi
      : > "$OUT/syscalls.txt"
      for ns in 1000000000 4000000000; do
        pipe="benchframesrc mode=0 duration=$ns caps=\"video/x-raw,format=NV12,width=1920,height=1080,framerate=0/1\" ! video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! pinneddownload ! fakesink name=sink sync=false"
        GST_PLUGIN_PATH_1_0=$top/build/gst LD_LIBRARY_PATH=$libpath \
          timeout 120 strace -f -c -o "$OUT/strace.$ns" \
          build/tests/bench/gst-pinned-bench --pipeline "$pipe" \
          > "$OUT/syscalls-run.$ns" 2>&1
        frames=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' "$OUT/syscalls-run.$ns")
        echo "run $ns ns: ${frames:-0} frames" >> "$OUT/syscalls.txt"
      done
      python3 - "$OUT" >> "$OUT/syscalls.txt" <<'PY'
import re, sys
out = sys.argv[1]
def load(ns):
    frames = int(re.search(r'frames=(\d+)', open('%s/syscalls-run.%d' % (out, ns)).read()).group(1))
    calls = {}
    for line in open('%s/strace.%d' % (out, ns)):
        f = line.split()
        if len(f) >= 5 and f[0][0].isdigit() and f[-1] != 'total':
            calls[f[-1]] = int(f[3])
    return frames, calls
f1, c1 = load(1000000000)
f2, c2 = load(4000000000)
print('system calls per frame (4 s run less 1 s run, %d frames):' % (f2 - f1))
for k in sorted(c2, key=lambda k: -(c2[k] - c1.get(k, 0))):
    d = (c2[k] - c1.get(k, 0)) / max(f2 - f1, 1)
    if d >= 0.005:
        print('  %-20s %.3f' % (k, d))
PY
      cat "$OUT/syscalls.txt"
      summary+=("syscalls: $(grep -c '^  ' "$OUT/syscalls.txt") kinds (syscalls.txt)")
      ;;
    floor)
      # CPU per frame of the whole process: the source alone, with two
      # pass-through base transforms (GStreamer's work for two elements),
      # and with the pair, three rounds; then the pair's driver calls
      # without GStreamer (the callcost patterns).
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      : > "$OUT/floor.txt"
      for round in 1 2 3; do
        LD_LIBRARY_PATH=$libpath timeout 200 build/tests/bench/gst-pinned-bench \
          --only --rows source-pool,identity-pair,roundtrip \
          --sizes NV12:1920x1080 --repeats 3 --csv "$OUT/floor-$round.csv" \
          > "$OUT/floor-run.txt" 2>&1
        tail -n +2 "$OUT/floor-$round.csv" | awk -F, -v r="$round" \
          '{ printf "round %s %-14s %6.2f us/frame CPU, ratio %s\n", r, $5, $11, $9 }' \
          >> "$OUT/floor.txt"
      done
      LD_LIBRARY_PATH=$libpath timeout 120 build/tests/bench/gst-pinned-callcost \
        > "$OUT/floor-callcost.txt" 2>&1
      grep '^pattern' "$OUT/floor-callcost.txt" >> "$OUT/floor.txt"
      cat "$OUT/floor.txt"
      summary+=("floor: $(grep -c '^round' "$OUT/floor.txt") rows (floor.txt)")
      ;;
    profile)
      # Where the NV12 1920x1080 round trip's CPU goes, sampled (these
      # machines have no perf): tests/bench/sampler.c under the benchmark's
      # row alone, summed up by tests/bench/sampler-report.py.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      rm -f "$OUT"/profile.samples.*
      SAMPLER_OUT=$OUT/profile.samples \
        LD_PRELOAD=$top/build/tests/bench/libpinnedsampler.so \
        LD_LIBRARY_PATH=$libpath timeout 120 build/tests/bench/gst-pinned-bench \
        --only --rows roundtrip --sizes NV12:1920x1080 --repeats 3 \
        --duration-ms 3000 > "$OUT/profile-bench.txt" 2>&1
      samples=$(ls -S "$OUT"/profile.samples.* 2>/dev/null | head -1)
      if [ -n "$samples" ]; then
        python3 tests/bench/sampler-report.py "$samples" \
          --callers cuEventQuery cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 \
          __pthread_mutex_unlock pthread_mutex_lock g_mutex_lock \
          g_mutex_unlock __pthread_rwlock_rdlock ioctl prctl g_usleep \
          > "$OUT/profile.txt"
        summary+=("profile: $(head -1 "$OUT/profile.txt") (profile.txt)")
        grep roundtrip "$OUT/profile-bench.txt"
        head -60 "$OUT/profile.txt"
      else
        summary+=("profile: no samples")
      fi
      ;;
    decoder)
      # openh264dec 4K feeding pinnedupload and cudaupload (.clips/ carried,
      # or made here if an H.264 encoder is there).
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      [ -s .clips/4k-i420.h264 ] || bash tests/bench/make-clip.sh > /dev/null 2>&1
      LD_LIBRARY_PATH=$libpath timeout 300 build/tests/bench/gst-pinned-bench \
        --rows decoder-openh264 --sizes I420:3840x2160 \
        --clip .clips/4k-i420.h264 > "$OUT/decoder.txt" 2>&1
      summary+=("decoder: rc $? (decoder.txt)")
      grep -A20 "^decoder-openh264" "$OUT/decoder.txt"
      ;;
    sources)
      # docs/sources.md's table: each source alone, through pinnedupload and
      # cudaupload; bit-exact through the pair.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath OUT=$OUT timeout 540 bash tests/gpu/sources.sh \
        > /dev/null 2>&1
      summary+=("sources: rc $? (sources.txt)")
      cat "$OUT/sources.txt"
      ;;
    fresh)
      # A fresh malloc'd frame each time (a file reader): the time each
      # upload spends on a frame in the element, next to the source's own
      # period, which its page faults make vary more than the copies cost.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      : > "$OUT/fresh.txt"
      for caps in RGBA,width=3840,height=2160 NV12,width=1920,height=1080; do
        src="benchframesrc mode=3 duration=3000000000 caps=\"video/x-raw,format=$caps,framerate=0/1\""
        for round in 1 2 3; do
          for el in none pinnedupload cudaupload pinnedupload-wait; do
            line="$src ! fakesink name=sink sync=false"
            [ ${el%-wait} = pinnedupload ] &&
              line="$src ! pinnedupload name=el ! fakesink name=sink sync=false"
            [ $el = cudaupload ] && line="$src ! cudaupload name=el !
              video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false"
            staging=detach
            [ $el = pinnedupload-wait ] && staging=wait
            r=$(GST_PINNED_STAGING=$staging LD_LIBRARY_PATH=$libpath timeout 60 \
              build/tests/bench/gst-pinned-bench \
              --pipeline "$line" 2>> "$OUT/fresh.err" | tail -1)
            echo "${caps%%,*} $round $el $r" >> "$OUT/fresh.txt"
          done
        done
      done
      summary+=("fresh: $(grep -c ok=1 "$OUT/fresh.txt") of 24 ran (fresh-summary.txt)")
      (python3 - "$OUT/fresh.txt" <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    fmt, _, el, rest = line.split(' ', 3)
    kv = dict(re.findall(r'(\w+)=(\S+)', rest))
    if kv.get('ok') == '1':
        d[(fmt, el)].append((float(kv['period_ms']), float(kv['inside_us']),
                             float(kv['cores'])))
for (fmt, el), v in sorted(d.items()):
    print('%-4s %-12s period %6.2f ms  in the element %7.0f us  %.2f cores'
          '  (medians of %d)' % (fmt, el, statistics.median(x[0] for x in v),
          statistics.median(x[1] for x in v),
          statistics.median(x[2] for x in v), len(v)))
PY
      ) | tee "$OUT/fresh-summary.txt"
      ;;
    appsrc)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      for mode in pool malloc; do
        LD_LIBRARY_PATH=$libpath timeout 120 build/examples/pinned-appsrc \
          --mode $mode --frames 600 > "$OUT/appsrc-$mode.log" 2>&1
        summary+=("appsrc $mode: rc $? $(tail -1 "$OUT/appsrc-$mode.log")")
      done
      ;;
    depth)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath OUT=$OUT bash tests/bench/depth.sh > /dev/null
      summary+=("depth: see depth.txt")
      ;;
    interop|interop-sanitizer)
      # nvcodec interop on the GPU: tests/check/interop.c (CUDAMemory both
      # ways, one context, the 1.22 push rule), tests/check/decode.c
      # (nvh264dec/nvh264sldec ! pinneddownload and nvh264dec !
      # pinnedconvert bit-exact against openh264dec and the CPU reference)
      # and the checksums of the nvcodec launch lines; interop-sanitizer
      # runs them under compute-sanitizer memcheck.
      wrap="env LD_LIBRARY_PATH=$libpath"
      [ "$step" = interop-sanitizer ] && wrap="$wrap compute-sanitizer \
--tool memcheck --error-exitcode 1 --target-processes all"
      "${runner[@]}" --suite gpu-interop --wrap "$wrap" -v \
        > "$OUT/$step.log" 2>&1
      grep -E "^(PASSED|FAILED|SKIPPED)|^ *[0-9]+/[0-9]+ " "$OUT/$step.log"
      grep -E "bit-exact|frames +(same|DIFFERENT)" "$OUT/$step.log" |
        sed 's/^ *//' | tee "$OUT/$step-results.txt"
      line="$step: $(tail -1 "$OUT/$step.log")"
      if [ "$step" = interop-sanitizer ]; then
        line+=", $(grep -c "ERROR SUMMARY: 0 errors" "$OUT/$step.log") clean reports, $(grep "ERROR SUMMARY" "$OUT/$step.log" | grep -vc "ERROR SUMMARY: 0 errors") with errors"
      fi
      summary+=("$line")
      ;;
    interop-bench)
      # CUDAMemory rows at 4K (pinnedupload into CUDA memory with the 1.22
      # push rule, pinneddownload from it, against cudaupload/cudadownload)
      # and 4K H.264/H.265 decoding into pinneddownload, cudadownload and
      # system memory.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$libpath build/tests/bench/gst-pinned-bench \
        --sizes RGBA:3840x2160,NV12:3840x2160,h264:3840x2160,h265:3840x2160 \
        --rows cuda-upload,cuda-download,peer-upload,peer-download,upload,download,decode \
        --clips tests/media/bench ${BENCH_ARGS:-} \
        --csv "$OUT/interop-bench.csv" --json "$OUT/interop-bench.json" \
        > "$OUT/interop-bench.txt" 2> >(tail -200 > "$OUT/interop-bench.err")
      summary+=("interop-bench: rc $?")
      cat "$OUT/interop-bench.txt"
      ;;
    tracers)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath OUT=$OUT bash tests/bench/tracers.sh > /dev/null
      summary+=("tracers: see tracers.txt")
      ;;
    fault)
      TEST_ENV=(GST_TRACERS=leaks "GST_DEBUG=pinned*:3,check:4,*:2")
      gpu_test fault > "$OUT/fault.log" 2>&1
      rc=$?
      TEST_ENV=()
      summary+=("fault: rc $rc; $(sed 's/\x1b\[[0-9;]*m//g' "$OUT/fault.log" |
        grep -oE "error from [a-z0-9]+: [^(]*|[0-9]+ frames delivered.*|Checks: .*|:F:.*" |
        tr '\n' ';')")
      ;;
    churn)
      TEST_ENV=(GST_PINNED_CHURN_LIFETIMES="${CHURN_LIFETIMES:-2000}")
      test_timeout=7200 gpu_test churn > "$OUT/churn.log" 2>&1
      rc=$?
      TEST_ENV=()
      summary+=("churn: rc $rc; $(grep -E "^churn: (after warm-up|at the end|[0-9]+ lifetimes in)|:F:|^SKIP" "$OUT/churn.log" |
        tr -s ' ' | tr '\n' ';')")
      ;;
    kernels)
      for tool in racecheck synccheck; do
        gpu_test filters compute-sanitizer --tool $tool --error-exitcode 1 \
          > "$OUT/$tool.log" 2>&1
        summary+=("$tool: rc $?, $(grep -E "(RACECHECK|ERROR) SUMMARY" "$OUT/$tool.log" | sed 's/^=* *//' | tr '\n' ' ')$(grep -oE "Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+" "$OUT/$tool.log")")
      done
      ;;
    nodevice)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      for name in pinned-appsink demo.sh; do
        if [ $name = demo.sh ]; then
          cmd=(env GST_PINNED_BUILD_DIR="$top/build" bash examples/demo.sh)
        else
          cmd=(build/examples/pinned-appsink 10)
        fi
        start=$(date +%s%N)
        CUDA_VISIBLE_DEVICES= LD_LIBRARY_PATH=$libpath timeout 30 "${cmd[@]}" \
          > "$OUT/nodevice-$name.log" 2>&1
        rc=$?
        ms=$((($(date +%s%N) - start) / 1000000))
        summary+=("nodevice: $name rc $rc in $ms ms: $(grep -m1 -oE "No usable CUDA device[^:(]*" "$OUT/nodevice-$name.log")")
      done
      ;;
    startup)
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      # One frame through each pipeline, whole process timed, median of 3;
      # the same without our elements is the baseline.
      launch_ms () {
        local t
        for _ in 1 2 3; do
          t=$(date +%s%N)
          LD_LIBRARY_PATH=$libpath gst-launch-1.0 -q videotestsrc num-buffers=1 ! \
            "$@" ! fakesink > /dev/null 2>&1 || { echo fail; return; }
          echo $((($(date +%s%N) - t) / 1000000))
        done | sort -n | sed -n 2p
      }
      {
        echo "caps pool-size: ms to run one frame (baseline without gst-pinned)"
        for caps in video/x-raw,format=NV12,width=1920,height=1080 \
            video/x-raw,format=RGBA,width=3840,height=2160; do
          base=$(launch_ms "$caps")
          for p in 1 4 16; do
            echo "$caps pool-size=$p: $(launch_ms "$caps" ! pinnedupload pool-size=$p ! \
              pinneddownload pool-size=$p) ms (baseline $base ms)"
          done
        done
      } > "$OUT/startup.txt"
      cat "$OUT/startup.txt"
      summary+=("startup: see startup.txt")
      ;;
    soak-start)
      # From a copy: the tree may be updated while the soak runs, and
      # bash reads its script as it goes.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      mkdir -p "$soak_dir"
      cp tests/soak.sh "$soak_dir/soak.sh"
      LD_LIBRARY_PATH=$libpath setsid nohup bash "$soak_dir/soak.sh" \
        --duration "${SOAK_SECONDS:-600}" --interval 10 --size 3840x2160 \
        --out "$soak_dir" \
        > "$soak_dir/soak.log" 2>&1 < /dev/null &
      echo $! > "$soak_dir/pid"
      summary+=("soak-start: running (pid $(cat "$soak_dir/pid")) for ${SOAK_SECONDS:-600} s, files in $soak_dir; then: tests/gpu/run.sh soak-collect")
      ;;
    tensor-soak-start)
      mkdir -p "$soak_dir"
      cp tests/soak.sh "$soak_dir/soak.sh"
      GST_PLUGIN_PATH_1_0=$top/build/gst GI_TYPELIB_PATH=$top/build/src${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH} \
        LD_LIBRARY_PATH=$libpath SOAK_TOP=$top setsid nohup \
        bash "$soak_dir/soak.sh" --torch \
        --duration "${SOAK_SECONDS:-600}" --interval 10 --out "$soak_dir" \
        > "$soak_dir/soak.log" 2>&1 < /dev/null &
      echo $! > "$soak_dir/pid"
      summary+=("tensor-soak-start: running (pid $(cat "$soak_dir/pid")) for ${SOAK_SECONDS:-600} s, files in $soak_dir; then: tests/gpu/run.sh soak-collect")
      ;;
    soak-collect)
      for _ in $(seq 540); do
        [ -s "$soak_dir/result" ] && break
        sleep 1
      done
      cp "$soak_dir"/samples.csv "$soak_dir"/soak.log "$OUT/" 2> /dev/null
      tail -200 "$soak_dir/gst.log" > "$OUT/soak-gst-tail.log" 2> /dev/null
      if [ -s "$soak_dir/result" ]; then
        summary+=("$(cat "$soak_dir/result")")
      else
        summary+=("soak-collect: no result yet ($(tail -1 "$soak_dir/samples.csv" 2> /dev/null)); call soak-collect again")
      fi
      ;;
    batch)
      gpu_test batcher > "$OUT/batch.log" 2>&1
      summary+=("batch: batcher rc $? $(grep -E '^[0-9]+%: Checks' "$OUT/batch.log" | tail -1)")
      python3 tests/python/batch.py build >> "$OUT/batch.log" 2>&1
      summary+=("batch: python rc $? $(tail -1 "$OUT/batch.log")")
      ;;
    batch-bench)
      [ -s .clips/1080p-3000.h264 ] || bash tests/bench/make-batch-clip.sh \
        > "$OUT/batch-clip.log" 2>&1
      python3 tests/bench/batch.py build --streams "${STREAMS:-16}" \
        .clips/1080p-3000.h264 > "$OUT/batch-bench.log" 2>&1
      summary+=("batch-bench: rc $? (frames/s and CPU per frame in $OUT/batch-bench.log)")
      cat "$OUT/batch-bench.log"
      ;;
    tensor)
      # The tensor bridge with PyTorch (PyGObject from the environment,
      # .pygkit/env.sh where there is one): every frame in torch against
      # the CPU reference, torch-made frames back bit-exact.
      python3 tests/gpu/tensor.py build > "$OUT/tensor.log" 2>&1
      summary+=("tensor: rc $? $(tail -1 "$OUT/tensor.log")")
      grep -E "^(FAIL|info|SKIP)" "$OUT/tensor.log"
      ;;
    devices)
      n=${DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
      bench=build/tests/bench/gst-pinned-bench
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      {
        LD_LIBRARY_PATH=$libpath $bench --devices "$n" \
          --sizes RGBA:3840x2160 --duration-ms 3000
        LD_LIBRARY_PATH=$libpath $bench --devices "$n" --streams 64 \
          --sizes NV12:1920x1080 --duration-ms 3000
        LD_LIBRARY_PATH=$libpath $bench --devices "$n" --streams 64 \
          --sizes NV12:1920x1080 --duration-ms 3000 --convert
      } > "$OUT/devices.log" 2>&1
      cat "$OUT/devices.log"
      summary+=("devices: $n GPUs, $(grep -c "^one-process\|^per-process" "$OUT/devices.log") rows, checked: $(grep "all outputs checked" "$OUT/devices.log" | tr '\n' ' ')")
      ;;
    devices-profile)
      # The sampler keeps the samples of the measured seconds alone: the
      # streams' start-up lasts 8 to 16 s, longer on some hosts.
      n=${DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      rm -f "$OUT"/devices-profile.samples.*
      SAMPLER_OUT=$OUT/devices-profile.samples SAMPLER_MARKED=1 \
        LD_PRELOAD=$top/build/tests/bench/libpinnedsampler.so \
        LD_LIBRARY_PATH=$libpath timeout 300 build/tests/bench/gst-pinned-bench \
        --devices "$n" --streams "${STREAMS:-64}" --sizes NV12:1920x1080 \
        --duration-ms 4000 --only > "$OUT/devices-profile-bench.txt" 2>&1
      samples=$(ls -S "$OUT"/devices-profile.samples.* 2>/dev/null | head -1)
      if [ -n "$samples" ]; then
        python3 tests/bench/sampler-report.py "$samples" --thread all \
          --top 60 --callers ioctl cuEventQuery cuMemcpyBatchAsync_v2 \
          clock_nanosleep g_cond_wait_until syscall g_mutex_lock \
          pthread_mutex_lock > "$OUT/devices-profile.txt"
        summary+=("devices-profile: $(head -1 "$OUT/devices-profile.txt") (devices-profile.txt)")
        grep -A3 "^one-process" "$OUT/devices-profile-bench.txt"
        head -70 "$OUT/devices-profile.txt"
      else
        summary+=("devices-profile: no samples")
      fi
      ;;
    devices-batch)
      n=${DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      : > "$OUT/devices-batch.txt"
      for round in $(seq "${ROUNDS:-2}"); do
        for way in default batch=8 "batch=8 bind" bind batch=16 \
            "batch=16 bind"; do
          args=()
          case "$way" in batch=*) args+=(--copy-props "${way%% *}") ;; esac
          case "$way" in *bind) args+=(--bind-cpus 1) ;; esac
          echo "## $way" >> "$OUT/devices-batch.txt"
          # Batches of sixteen page-lock 12 GiB at 1080p as they start.
          LD_LIBRARY_PATH=$libpath timeout 150 build/tests/bench/gst-pinned-bench \
            --devices "$n" --streams 64 --sizes "${SIZES:-NV12:1920x1080}" \
            --duration-ms 3000 --only "${args[@]}" 2>&1 |
            grep -A4 "^one-process" | grep -v "a stream:" \
            >> "$OUT/devices-batch.txt"
        done
      done
      cat "$OUT/devices-batch.txt"
      summary+=("devices-batch: $(grep -c "^one-process" "$OUT/devices-batch.txt") rows (devices-batch.txt)")
      ;;
    devices-calls)
      n=${DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      bench=(build/tests/bench/gst-pinned-bench --devices "$n"
        --sizes NV12:1920x1080 --duration-ms 3000 --only)
      : > "$OUT/devices-calls.txt"
      for streams in 64 "$n"; do
        # Preloaded into the benchmark alone, as in callcount.
        rm -f "$OUT/callcount.raw"
        LD_LIBRARY_PATH=$libpath timeout 120 env CALLCOUNT_MARKED=1 \
          CALLCOUNT_OUT="$OUT/callcount.raw" \
          LD_PRELOAD="$top/build/tests/bench/libpinnedcallcount.so" \
          "${bench[@]}" --streams "$streams" > "$OUT/devices-calls-run.txt" 2>&1
        grep "^one-process" "$OUT/devices-calls-run.txt" >> "$OUT/devices-calls.txt"
        fps=$(sed -n 's/^one-process.* \([0-9.]*\) frames\/s.*/\1/p' "$OUT/devices-calls-run.txt")
        [ -f "$OUT/callcount.raw" ] && callcount_report "$OUT/callcount.raw" "" \
          "${fps:-0}" >> "$OUT/devices-calls.txt"
      done
      serial="CALLCOUNT_OUT=/dev/null LD_PRELOAD=$top/build/tests/bench/libpinnedcallcount.so"
      for round in 1 2; do
        for way in default "CALLCOUNT_SERIAL=device $serial" \
            "CALLCOUNT_SERIAL=process $serial" bind \
            CUDA_DEVICE_MAX_CONNECTIONS=32; do
          echo "## ${way%% CALLCOUNT_OUT=*}" >> "$OUT/devices-calls.txt"
          args=(--streams 64)
          vars=()
          case "$way" in
            bind) args+=(--bind-streams) ;;
            default) ;;
            *) read -r -a vars <<< "$way" ;;
          esac
          LD_LIBRARY_PATH=$libpath timeout 120 env "${vars[@]}" "${bench[@]}" \
            "${args[@]}" 2>&1 | grep -A1 "^one-process" >> "$OUT/devices-calls.txt"
        done
      done
      cat "$OUT/devices-calls.txt"
      summary+=("devices-calls: $(grep -c "^one-process" "$OUT/devices-calls.txt") rows (devices-calls.txt)")
      ;;
    fresh-python)
      python3 tests/bench/fresh.py build > "$OUT/fresh-python.log" 2>&1
      summary+=("fresh-python: rc $? $(grep "cudaupload:" "$OUT/fresh-python.log" | tr '\n' ' ')")
      echo "## pinnedupload with the staging waited for (GST_PINNED_STAGING=wait)" \
        >> "$OUT/fresh-python.log"
      GST_PINNED_STAGING=wait python3 tests/bench/fresh.py build \
        --uploads pinnedupload >> "$OUT/fresh-python.log" 2>&1
      cat "$OUT/fresh-python.log"
      ;;
    python-sources)
      # Frames from a Python app (tests/bench/python-sources.py): new_wrapped
      # bytes into cudaupload / pinnedupload round trips, np.copyto into the
      # offered pool's writable view, np.copyto alone, pinned torch tensors
      # through buffer_from_dlpack against torch's own H2D rate; needs
      # PyGObject and NumPy (.pygkit/env.sh), torch for the last rows.
      python3 tests/bench/python-sources.py build > "$OUT/python-sources.log" 2>&1
      summary+=("python-sources: rc $? $(grep -c "target met" "$OUT/python-sources.log") targets met, $(grep -c "target MISSED" "$OUT/python-sources.log") missed")
      cat "$OUT/python-sources.log"
      ;;
    pool-write-parts)
      # Where a Python source's frame goes when it writes into the offered
      # pool (tests/bench/pool-write-parts.py): np.copyto alone, beside the
      # upload alone and the round trip, split over threads; with the
      # machine's CPUs and memory nodes, which a copy's rate depends on.
      { lscpu | grep -E "^(Model name|Socket|Core|Thread|NUMA|L3)"
        command -v numactl > /dev/null && numactl --hardware | head -4
        python3 tests/bench/pool-write-parts.py build ${POOL_WRITE_ARGS:-}
      } > "$OUT/pool-write-parts.log" 2>&1
      summary+=("pool-write-parts: rc $? ($(grep -c "frames/s" "$OUT/pool-write-parts.log") rows)")
      cat "$OUT/pool-write-parts.log"
      ;;
    tensor-sanitizer)
      for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 1 \
          --target-processes all python3 tests/gpu/tensor.py build \
          --frames "${TENSOR_FRAMES:-4}" > "$OUT/tensor-$tool.log" 2>&1
        summary+=("tensor-$tool: rc $?, $(grep -E "(RACECHECK|ERROR) SUMMARY" "$OUT/tensor-$tool.log" | sed 's/^=* *//' | sort | uniq -c | tr '\n' ' ')$(tail -1 "$OUT/tensor-$tool.log")")
      done
      ;;
    tensor-bench)
      python3 tests/bench/tensor.py build > "$OUT/tensor-bench.log" 2>&1
      summary+=("tensor-bench: rc $? $(grep -c "target met" "$OUT/tensor-bench.log") targets met, $(grep -c "target MISSED" "$OUT/tensor-bench.log") missed")
      cat "$OUT/tensor-bench.log"
      ;;
    *)
      echo "unknown step $step"
      exit 2
      ;;
  esac
done

printf '%s\n' "${summary[@]}"
