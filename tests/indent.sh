#!/usr/bin/env bash
# gst-indent layout: every C file under src/ gst/ include/ tests/ examples/
# must come out of GNU indent, run twice with gst-indent's options (as
# gst-indent does: indent is not idempotent in one run), unchanged.
# Headers are aligned by hand, as GStreamer's are (indent would join
# G_BEGIN_DECLS with the next declaration and undo the column layout of
# prototypes): they are checked for tabs and trailing blanks only.
# Fails listing the files that differ, with the first lines of each diff.
#
#   tests/indent.sh [SOURCE_ROOT]
set -u
cd "${1:-$(dirname "$0")/..}"

if ! indent --version 2>/dev/null | grep -q GNU; then
  echo "SKIP: GNU indent is not installed"
  exit 77
fi

opts=(--braces-on-if-line --case-brace-indentation0 --case-indentation2
  --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else
  --dont-line-up-parentheses --continuation-indentation4 --honour-newlines
  --tab-size8 --indent-level2 --leave-preprocessor-space)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The files of the tree, tracked or not (a new file counts before its
# commit), never the build folders.
mapfile -t files < <(find src gst include tests examples \
  -type f \( -name '*.c' -o -name '*.h' \) -not -path '*/build*' | sort)

# Files another change is reformatting; listed, and checked to still need
# it, so that the list cannot go stale.
pending=()

bad=()
n=0
for f in "${files[@]}"; do
  n=$((n + 1))
  for p in "${pending[@]}"; do
    if [ "$f" = "$p" ]; then
      if indent "${opts[@]}" "$f" -o "$tmp/once.c" 2> /dev/null &&
        indent "${opts[@]}" "$tmp/once.c" -o "$tmp/twice.c" 2> /dev/null &&
        cmp -s "$f" "$tmp/twice.c"; then
        bad+=("$f")
        echo "$f is gst-indent clean now: take it off the pending list"
      else
        echo "$f: pending (not checked)"
      fi
      continue 2
    fi
  done
  case "$f" in
    *.c)
      indent "${opts[@]}" "$f" -o "$tmp/once.c" 2> "$tmp/err" &&
        indent "${opts[@]}" "$tmp/once.c" -o "$tmp/twice.c" 2>> "$tmp/err"
      if [ -s "$tmp/err" ]; then
        bad+=("$f")
        echo "$f: indent reports:"
        sed 's/^/    /' "$tmp/err"
      elif ! cmp -s "$f" "$tmp/twice.c"; then
        bad+=("$f")
        echo "$f differs from gst-indent's layout:"
        diff -u "$f" "$tmp/twice.c" | sed -n '3,14p' | sed 's/^/    /'
      fi
      ;;
    *.h)
      if grep -nP '\t| +$' "$f" > "$tmp/blanks"; then
        bad+=("$f")
        echo "$f: tabs or trailing blanks:"
        head -5 "$tmp/blanks" | sed 's/^/    /'
      fi
      ;;
  esac
done

if [ ${#bad[@]} -gt 0 ]; then
  echo "${#bad[@]} of $n files need gst-indent: ${bad[*]}"
  exit 1
fi
echo "$n files: gst-indent clean"
