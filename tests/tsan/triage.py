#!/usr/bin/env python3
"""Sorts a program's ThreadSanitizer reports (the files of TSAN_OPTIONS'
log_path) for meson test --setup tsan (tests/tsan/wrap.sh).

A data race whose every access is GStreamer core's own code (the top
frame of each access, past ThreadSanitizer's interceptors such as memcpy or
free and past GLib, is in libgstreamer or libgstbase) is theirs: GStreamer
1.22 has races of its own (GstBin's state and EOS bookkeeping, a pad's
sticky events read by a sink's caps query, ...), and it is instrumented
here for its synchronisation (its locks, a mini object's reference count),
not to check its own accesses. Every other report, a race of which one access
is in gst-pinned's library, plugin, stand-ins or tests, or any report of
another kind (a mutex misused, a signal, a leaked thread), is ours and
fails the program.

Prints every report to stderr, then one line:
  tsan: N reports of ours, M of GStreamer's own
and exits 1 where N > 0.
"""
import re
import sys

GSTREAMER = ("libgstreamer-1.0.so", "libgstbase-1.0.so")
GLIB = ("libglib-2.0.so", "libgobject-2.0.so")
ACCESS = re.compile(r"^  (Previous )?(atomic )?(read|write)\b.* of size",
                    re.IGNORECASE)
FRAME = re.compile(r"^    #\d+ .*\(([^()+]+)\+0x[0-9a-f]+\)$")


def access_is_theirs(lines, i):
    """Whether the access whose stack follows line i is GStreamer's own:
    its top frame, past the interceptors, is GStreamer core's, or GLib's
    called by GStreamer core (a GList, a GClosure of GStreamer's). GLib
    called by anything else works on that caller's data."""
    for line in lines[i + 1:]:
        m = FRAME.match(line)
        if not m:
            return False
        module = m.group(1).rsplit("/", 1)[-1]
        if module.startswith("libtsan") or module.startswith(GLIB):
            continue
        return module.startswith(GSTREAMER)
    return False


def theirs(report):
    lines = report.splitlines()
    if not any(l.startswith("WARNING: ThreadSanitizer: data race")
               for l in lines):
        return False
    accesses = [access_is_theirs(lines, i) for i, l in enumerate(lines)
                if ACCESS.match(l)]
    return bool(accesses) and all(accesses)


def main(paths):
    ours = other = 0
    for path in paths:
        text = open(path, errors="replace").read()
        sys.stderr.write(text)
        for block in text.split("==================\n"):
            if "WARNING: ThreadSanitizer" not in block:
                continue
            if theirs(block):
                other += 1
            else:
                ours += 1
    print("tsan: {} reports of ours, {} of GStreamer's own"
          .format(ours, other), file=sys.stderr)
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
