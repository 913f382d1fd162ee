#!/usr/bin/env bash
# gst-indent layout: every C file under src/ gst/ include/ tests/
# examples/ docs/ must come out of GNU indent, run twice with gst-indent's
# options (as gst-indent does: indent is not idempotent in one run),
# unchanged.
# Headers are aligned by hand, as GStreamer's are (indent would join
# G_BEGIN_DECLS with the next declaration and undo the column layout of
# prototypes): they are checked for tabs and trailing blanks only.
# Fails listing the files that differ, with the first lines of each diff.
# GNU indent 2.2.13 (Debian 13) lays pointers out otherwise than 2.2.12,
# the version gst-indent is made with: GStreamer's own build of 2.2.12,
# gst-indent-1.0 (PyPI gst-indent), is used where indent is another
# version, fetched with pip into ~/.cache/gst-pinned where it is missing.
#
#   tests/indent.sh [SOURCE_ROOT]
set -u
cd "${1:-$(dirname "$0")/..}"

if command -v gst-indent-1.0 > /dev/null; then
  indent=gst-indent-1.0
elif indent --version 2> /dev/null | grep -q "GNU indent 2.2.12$"; then
  indent=indent
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/gst-pinned/gst-indent
  indent=$cache/gst_indent-1.0.0.data/scripts/gst-indent-1.0
  if [ ! -x "$indent" ]; then
    rm -rf "$cache" && mkdir -p "$cache"
    if ! python3 -m pip download -q --no-deps --only-binary=:all: \
        --python-version 3.11 --platform manylinux2014_x86_64 -d "$cache" \
        gst-indent==1.0.0 > "$cache/pip.log" 2>&1 ||
        ! python3 -m zipfile -e "$cache"/gst_indent-*.whl "$cache"; then
      tail -3 "$cache/pip.log"
      echo "no GNU indent 2.2.12 and no gst-indent-1.0 (pip install gst-indent)"
      exit 1
    fi
    chmod +x "$indent"
  fi
fi
# On a copy: gst-indent-1.0 leaves a backup (FILE~) of what it reads.
indent() {
  local in=$1
  shift
  cp "$in" "$tmp/in.c" && command "$indent" "$tmp/in.c" "$@"
}

opts=(--braces-on-if-line --case-brace-indentation0 --case-indentation2
  --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else
  --dont-line-up-parentheses --continuation-indentation4 --honour-newlines
  --tab-size8 --indent-level2 --leave-preprocessor-space)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The files of the tree, tracked or not (a new file counts before its
# commit), never the build folders.
mapfile -t files < <(find src gst include tests examples docs \
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
      if indent "$f" "${opts[@]}" -o "$tmp/once.c" 2> /dev/null &&
        indent "$tmp/once.c" "${opts[@]}" -o "$tmp/twice.c" 2> /dev/null &&
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
      indent "$f" "${opts[@]}" -o "$tmp/once.c" 2> "$tmp/err" &&
        indent "$tmp/once.c" "${opts[@]}" -o "$tmp/twice.c" 2>> "$tmp/err"
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
