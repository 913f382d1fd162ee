#!/usr/bin/env python3
# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Fresh frames from Python: what most appsrc code does.

  python3 tests/bench/fresh.py [BUILD] [--seconds S] [--sizes FMT:WxH,...]
                               [--uploads pinnedupload,cudaupload,none]

Each frame is a new Python bytes object (a fresh allocation, written once),
wrapped with Gst.Buffer.new_wrapped() and pushed into
`appsrc ! UPLOAD ! fakesink`, UPLOAD being pinnedupload, then nvcodec's
cudaupload, then nothing (the application alone), in turns, three rounds.
Prints per size and element the whole process's frames/s (from the 10th
frame on) and CPU per frame (all threads), medians of the rounds, and
pinnedupload's frames/s over cudaupload's. Target (issue 26): >= 1.2 at
NV12 1920x1080 and RGBA 3840x2160. Exit status 0 when the runs ran, 77
without PyGObject, 1 when one failed.
"""
import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import pinnedenv  # noqa: E402

pinnedenv.setup(sys.argv)
try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstApp", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstApp, GstVideo  # noqa: E402,F401
except (ImportError, ValueError, AttributeError) as e:
    pinnedenv.skip("no PyGObject (%s)" % e)

WARMUP = 10
UPLOADS = {
    "pinnedupload": "pinnedupload",
    "cudaupload": "cudaupload ! video/x-raw(memory:CUDAMemory)",
    "none": "identity",
}


def upload_launch(upload):
    """The launch fragment of @upload: a name of UPLOADS, properties of
    its first element after colons (pinnedupload:copy-threads=2)."""
    name, _, props = upload.partition(":")
    first, _, rest = UPLOADS[name].partition(" ")
    return " ".join(x for x in (first, props.replace(":", " "), rest) if x)


def run(fmt, width, height, upload, seconds):
    """(frames/s from the WARMUP-th frame on, CPU s a frame) of fresh
    frames through @upload."""
    info = GstVideo.VideoInfo()
    info.set_format(GstVideo.VideoFormat.from_string(fmt), width, height)
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time block=true max-buffers=2 ! %s ! "
        "fakesink name=sink sync=false" % upload_launch(upload))
    src = pipeline.get_by_name("src")
    src.set_property("caps", info.to_caps())
    # Timed where the application pushes (appsrc blocks at two queued
    # frames, so it pushes at the pipeline's pace) and where the end of
    # stream arrives: no Python on the streaming thread, whose GIL waits
    # would set the pace of every way alike.
    pushes = []

    def push():
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            # A new frame, written once: a camera SDK's or a decoder's
            # bytes in the application's hands.
            data = bytes([n & 0xff]) * info.size
            buf = Gst.Buffer.new_wrapped(data)
            buf.pts = n * Gst.SECOND // 30
            if src.push_buffer(buf) != Gst.FlowReturn.OK:
                break
            pushes.append(time.perf_counter())
            n += 1
        src.end_of_stream()

    cpu0 = time.process_time()
    pipeline.set_state(Gst.State.PLAYING)
    pusher = threading.Thread(target=push, daemon=True)
    pusher.start()
    msg = pipeline.get_bus().timed_pop_filtered(
        (seconds + 60) * Gst.SECOND,
        Gst.MessageType.EOS | Gst.MessageType.ERROR)
    end = time.perf_counter()
    cpu = time.process_time() - cpu0
    pipeline.set_state(Gst.State.NULL)
    pusher.join()
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise RuntimeError("%s %s: %s" % (upload, fmt, msg.parse_error()[0]
                                          .message if msg else "no EOS"))
    if len(pushes) <= WARMUP + 1:
        raise RuntimeError("%s %s: %d frames" % (upload, fmt, len(pushes)))
    # The frames after the WARMUP-th push had all left the sink by the end
    # of stream.
    fps = (len(pushes) - 1 - WARMUP) / (end - pushes[WARMUP])
    return fps, cpu / len(pushes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="NV12:1920x1080,RGBA:3840x2160")
    parser.add_argument("--uploads", default="pinnedupload,cudaupload,none",
                        help="which of %s, comma-separated; properties of "
                        "the element after colons "
                        "(pinnedupload:copy-threads=2)" % ",".join(UPLOADS))
    args = parser.parse_args()
    Gst.init(None)
    asked = args.uploads.split(",")
    uploads = [u for u in asked
               if Gst.ElementFactory.find(UPLOADS[u.split(":")[0]].split()[0])]
    if "cudaupload" in asked and "cudaupload" not in uploads:
        print("no cudaupload here: no peer")
    status = 0
    for size in args.sizes.split(","):
        fmt, dims = size.split(":")
        width, height = (int(x) for x in dims.split("x"))
        got = {u: [] for u in uploads}
        for _ in range(args.rounds):
            for u in uploads:
                try:
                    got[u].append(run(fmt, width, height, u, args.seconds))
                except RuntimeError as e:
                    print("FAILED: %s" % e)
                    status = 1
        fps = {}
        for u in uploads:
            if got[u]:
                fps[u] = statistics.median(x[0] for x in got[u])
                print("fresh %-4s %-10s %-12s %8.1f frames/s %8.1f us CPU a "
                      "frame (medians of %d)" % (
                          fmt, dims, u, fps[u],
                          statistics.median(x[1] for x in got[u]) * 1e6,
                          len(got[u])), flush=True)
        if "pinnedupload" in fps and "cudaupload" in fps:
            print("fresh %-4s %-10s pinnedupload / cudaupload: %.2f (target "
                  ">= 1.2)" % (fmt, dims, fps["pinnedupload"] /
                               fps["cudaupload"]), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
