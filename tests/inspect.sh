#!/usr/bin/env bash
# gst-inspect-1.0 shows both elements, every property with a description,
# and prints no warning or critical.
set -u
for element in pinnedupload pinneddownload; do
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
  for prop in device-id pool-size; do
    line=$(echo "$out" | grep -E "^  $prop +:")
    if [ -z "$line" ] || [ -z "$(echo "$line" | sed 's/^[^:]*: *//')" ]; then
      echo "$element: property $prop is missing or undocumented"
      exit 1
    fi
  done
  echo "$element: ok"
done
out=$(gst-inspect-1.0 pinned 2>&1)
echo "$out" | grep -q "2 elements" || { echo "$out"; exit 1; }
