#!/usr/bin/env bash
# gst-inspect-1.0 shows every element of the plugin, each property with a
# description (pool-size saying when a filter has no pool), and prints no
# warning or critical. pinnedbatch, a GstAggregator, has the device-id of
# the others but not their base class's properties.
set -u
elements=(pinnedupload pinneddownload pinnedconvert pinnedbusy)
for element in "${elements[@]}"; do
  out=$(G_DEBUG=fatal-warnings gst-inspect-1.0 "$element" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$out"
    echo "gst-inspect-1.0 $element failed ($rc)"
    exit 1
  fi
  if echo "$out" | grep -qiE "warning|critical"; then
    echo "$out" | grep -iE "warning|critical"
    exit 1
  fi
  # Properties: "  name   : description" lines after "Element Properties:"
  props=$(echo "$out" | sed -n '/^Element Properties:/,$p' | grep -E "^  [a-z-]+ +:")
  for prop in device-id shared-stream; do
    echo "$props" | grep -qE "^  $prop +:" || { echo "$element: no $prop"; exit 1; }
  done
  if echo "$props" | grep -qE "^  [a-z-]+ +: *$"; then
    echo "$element: a property has no description:"
    echo "$props" | grep -E "^  [a-z-]+ +: *$"
    exit 1
  fi
  # memory:CUDAMemory (nvcodec interop) only in builds with cuda-interop:
  # PINNED_CUDA_INTEROP (yes or no) says which this is.
  if [ -n "${PINNED_CUDA_INTEROP:-}" ]; then
    has=no
    echo "$out" | grep -q "memory:CUDAMemory" && has=yes
    if [ "$has" != "$PINNED_CUDA_INTEROP" ]; then
      echo "$element: memory:CUDAMemory in the pad templates: $has," \
        "built with cuda-interop: $PINNED_CUDA_INTEROP"
      exit 1
    fi
  fi
  # pool-size is one property of the base class, on every element (an
  # in-place filter such as pinnedbusy has a pool for nvcodec's CUDA memory
  # only, which it works on in a copy), and says when a filter has none;
  # no element overrides it.
  pool=$(echo "$props" | grep -E "^  pool-size +:")
  echo "$pool" | grep -q "an in-place filter has none for gst-pinned device" ||
    { echo "$element: pool-size reads '$pool'"; exit 1; }
  # stats: read-only, a GstStructure
  echo "$out" | sed -n '/^  stats /,/^  [a-z]/p' | grep -q "readable" &&
    ! echo "$out" | sed -n '/^  stats /,/^  [a-z]/p' | grep -q "writable" ||
    { echo "$element: no read-only stats"; exit 1; }
  echo "$element: ok ($(echo "$props" | wc -l) properties)"
done
out=$(G_DEBUG=fatal-warnings gst-inspect-1.0 pinnedbatch 2>&1) ||
  { echo "$out"; echo "gst-inspect-1.0 pinnedbatch failed"; exit 1; }
if echo "$out" | grep -qiE "warning|critical"; then
  echo "$out" | grep -iE "warning|critical"
  exit 1
fi
props=$(echo "$out" | sed -n '/^Element Properties:/,$p' | grep -E "^  [a-z-]+ +:")
echo "$props" | grep -qE "^  device-id +:" || { echo "pinnedbatch: no device-id"; exit 1; }
if echo "$props" | grep -qE "^  [a-z-]+ +: *$"; then
  echo "pinnedbatch: a property has no description:"
  echo "$props" | grep -E "^  [a-z-]+ +: *$"
  exit 1
fi
echo "pinnedbatch: ok ($(echo "$props" | wc -l) properties)"
out=$(gst-inspect-1.0 pinned 2>&1)
echo "$out" | grep -q "$((${#elements[@]} + 1)) elements" || { echo "$out"; exit 1; }
