#!/usr/bin/env bash
# The GPU suite, on a machine with an NVIDIA GPU. On the lent GPU machine
# (CUDA, no GStreamer) it runs from the tree with .gstbundle/ (made by
# ../shared/device/gst-bundle.sh) and build/ carried along; on a machine with
# GStreamer installed it runs as it is.
#
#   tests/gpu/run.sh [STEP ...]     steps: device suite sanitizer inspect
#                                          example demo bench tracers depth
#                                          interop interop-sanitizer
#                                          interop-bench
#                                          pageable smallframes decoder
#                                          sources appsrc
#                                          (default: device suite sanitizer
#                                          inspect)
# BENCH_ARGS passes options to the benchmark (see gst-pinned-bench --help).
# The interop steps need a build with CUDA interop (meson option
# cuda-interop) and, for interop-bench's decode rows, the clips of
# tests/media/make-clips.sh in tests/media/bench.
#
# Logs go to $OUT (default /tmp/gst-pinned-gpu); the last lines summarise.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
OUT=${OUT:-/tmp/gst-pinned-gpu}
mkdir -p "$OUT"

if [ -f .gstbundle/env.sh ]; then
  # shellcheck disable=SC1091
  source .gstbundle/env.sh
  runner=(python3 .gstbundle/meson-tests.py build)
else
  runner=(meson test -C build --no-rebuild --print-errorlogs)
fi
# meson records a test's LD_LIBRARY_PATH without the caller's: put the
# caller's (the bundle's GStreamer, CUDA) back behind the build's.
libpath="$top/build/gst:$top/build/src:${LD_LIBRARY_PATH:-}"

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
      if [ -f .gstbundle/env.sh ]; then
        "${runner[@]}" --suite gpu --wrap "env LD_LIBRARY_PATH=$libpath" -v \
          > "$OUT/suite.log" 2>&1
      else
        "${runner[@]}" --suite gpu > "$OUT/suite.log" 2>&1
      fi
      summary+=("suite: $(tail -1 "$OUT/suite.log")")
      grep -E "^(PASSED|FAILED|SKIPPED)" "$OUT/suite.log"
      grep -E "frames +(same|DIFFERENT)" "$OUT/suite.log" > "$OUT/checksums.txt"
      ;;
    sanitizer)
      # memcheck over every process of every GPU test (gst-launch children
      # of the checksum test included).
      cs="compute-sanitizer --tool memcheck --error-exitcode 1 --target-processes all"
      "${runner[@]}" --suite gpu --wrap "env LD_LIBRARY_PATH=$libpath $cs" -v \
        > "$OUT/sanitizer.log" 2>&1
      summary+=("sanitizer: $(tail -1 "$OUT/sanitizer.log"), $(grep -c "ERROR SUMMARY: 0 errors" "$OUT/sanitizer.log") clean reports, $(grep "ERROR SUMMARY" "$OUT/sanitizer.log" | grep -vc "ERROR SUMMARY: 0 errors") with errors")
      grep -E "^(PASSED|FAILED|SKIPPED)" "$OUT/sanitizer.log"
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
      # Sources that ignore the offered pool (docs/performance.md,
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
      # per-frame path costs; perf's view of the round trip where perf is.
      export GST_PLUGIN_PATH_1_0=$top/build/gst
      LD_LIBRARY_PATH=$libpath timeout 420 build/tests/bench/gst-pinned-bench \
        --rows upload,download,roundtrip,overlap,overlap-serial,api-costs \
        --sizes GRAY8:320x240,NV12:1920x1080,RGBA:3840x2160 \
        --csv "$OUT/smallframes.csv" > "$OUT/smallframes.txt" \
        2> >(tail -100 > "$OUT/smallframes.err")
      summary+=("smallframes: rc $? (smallframes.txt)")
      if command -v perf >/dev/null 2>&1; then
        LD_LIBRARY_PATH=$libpath timeout 120 perf record -g -o "$OUT/perf.data" \
          build/tests/bench/gst-pinned-bench --rows roundtrip --repeats 1 \
          --sizes NV12:1920x1080 > /dev/null 2>&1
        perf report -i "$OUT/perf.data" --no-children --sort dso,symbol \
          --stdio 2>/dev/null | head -80 > "$OUT/perf-roundtrip.txt"
        rm -f "$OUT/perf.data"
      fi
      cat "$OUT/smallframes.txt"
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
    *)
      echo "unknown step $step"
      exit 2
      ;;
  esac
done

printf '%s\n' "${summary[@]}"
