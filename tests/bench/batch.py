#!/usr/bin/env python3
# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Many streams into one model input, on a GPU: N H.264 streams decoded by
nvh264dec into N x 3 x 640 x 640 float16, three ways in one run.

  python3 tests/bench/batch.py [BUILD] [--streams N] [--size S] CLIP.h264

Rows:
  decoders  N x (filesrc ! h264parse ! nvh264dec ! fakesink): the limit
  batch     N x (... ! nvh264dec) ! pinnedbatch type=float16 ! appsink;
            each batch torch.from_dlpack'd (no copy)
  python    N x (... ! nvh264dec ! pinnedconvert !
            video/x-raw(memory:PinnedDevice),format=RGBP ! appsink); a
            frame from each appsink, torch.from_dlpack each, torch.stack,
            resize (bilinear) to S x S, normalise, float16
Each prints frames/s (all streams, from the clip's start to its end) and
the process's CPU time per frame, and by thread kind (the thread names of
/proc/self/task, digits dropped). The batch row also prints pinnedbatch's
`stats` (host waits and their time, the kernel's GPU time a frame, empty
slots) and judges its target: no host wait on the streaming threads. The clip: tests/bench/make-batch-clip.sh
(1080p, 3000 frames). Exit status 0, 77 without PyGObject, PyTorch or a
GPU.
"""
import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import pinnedenv  # noqa: E402

pinnedenv.setup(sys.argv)
pinnedenv.require_torch_gpu("GstApp")

from gi.repository import Gst, GstApp, GstPinned  # noqa: E402,F401
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def threads_cpu():
    """{thread kind: CPU seconds} of this process's live threads."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        fields = s[s.rindex(")") + 2:].split()
        kind = re.sub(r"[0-9]+", "#", name)
        out[kind] = out.get(kind, 0) + (int(fields[11]) + int(fields[12])) \
            / TICK
    return out


def source(clip, i, tail):
    return ("filesrc location=%s ! h264parse ! nvh264dec ! %s"
            % (clip, tail % {"i": i}))


def stat(structure, field):
    ok, value = structure.get_uint64(field)
    return value if ok else 0


def print_batch_stats(stats):
    """pinnedbatch's stats, and the target they judge."""
    waits = stat(stats, "host-waits")
    print("          stats: %d batches, %d frames, %d empty slots, "
          "host-waits %d, host-wait-time %.1f us, gpu %.1f us/frame"
          % (stat(stats, "buffers"), stat(stats, "frames"),
             stat(stats, "empty-slots"), waits,
             stat(stats, "host-wait-time") / 1e3,
             stat(stats, "gpu-time-per-frame") / 1e3))
    print("          target no host wait on the streaming threads: %s"
          % ("met" if waits == 0 else "MISSED (%d waits)" % waits))


def run(name, launch, pull):
    """Runs @launch; pull(pipeline) returns the frames once the streams
    have ended; pull.stats(pipeline), where there is one, prints its
    element's stats."""
    pipeline = Gst.parse_launch(launch)
    if hasattr(pull, "prepare"):
        pull.prepare(pipeline)
    before = threads_cpu()
    cpu0 = time.process_time()
    t0 = time.monotonic()
    pipeline.set_state(Gst.State.PLAYING)
    frames = pull(pipeline)
    torch.cuda.synchronize()
    wall = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    after = threads_cpu()
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    stats = pull.stats(pipeline) if hasattr(pull, "stats") else None
    pipeline.set_state(Gst.State.NULL)
    if msg:
        err, dbg = msg.parse_error()
        print("%-9s ERROR %s (%s)" % (name, err.message, dbg))
        return
    kinds = sorted(((after[k] - before.get(k, 0), k) for k in after),
                   reverse=True)
    print("%-9s %6d frames in %6.2f s: %8.1f frames/s, CPU %6.1f us/frame"
          % (name, frames, wall, frames / max(wall, 1e-9),
             cpu / max(frames, 1) * 1e6))
    print("          by thread (us/frame): " + ", ".join(
        "%s %.1f" % (k, s / max(frames, 1) * 1e6) for s, k in kinds[:8]
        if s > 0))
    if stats:
        print_batch_stats(stats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clip")
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--size", type=int, default=640)
    ap.add_argument("--rows", default="decoders,batch,python")
    args = ap.parse_args()
    Gst.init(None)
    n, size = args.streams, args.size
    mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1)
    rows = args.rows.split(",")

    if "decoders" in rows:
        launch = " ".join(source(args.clip, i, "fakesink name=s%(i)d "
                                 "signal-handoffs=true") for i in range(n))

        count = [0]

        def handoff(*unused):
            count[0] += 1

        def pull_decoded(pipeline):
            pipeline.get_bus().timed_pop_filtered(
                Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS |
                Gst.MessageType.ERROR)
            return count[0]
        pull_decoded.prepare = lambda pipeline: [
            pipeline.get_by_name("s%d" % i).connect("handoff", handoff)
            for i in range(n)]
        run("decoders", launch, pull_decoded)

    if "batch" in rows:
        launch = ("pinnedbatch name=b type=float16 width=%d height=%d "
                  "letterbox=false mean=<0.485,0.456,0.406> "
                  "std=<0.229,0.224,0.225> ! appsink name=out sync=false "
                  "max-buffers=2 " % (size, size) + " ".join(
                      source(args.clip, i, "b.sink_%(i)d") for i in range(n)))

        def pull_batches(pipeline):
            sink = pipeline.get_by_name("out")
            frames = 0
            while True:
                sample = sink.emit("pull-sample")
                if sample is None:
                    return frames
                frame = GstPinned.Frame(sample)
                x = torch.from_dlpack(frame)
                frames += sum(1 for s in frame.slots if not s.empty)
                del x
        pull_batches.stats = lambda pipeline: \
            pipeline.get_by_name("b").get_property("stats")
        run("batch", launch, pull_batches)

    if "python" in rows:
        launch = " ".join(source(
            args.clip, i, "pinnedconvert ! video/x-raw(memory:PinnedDevice),"
            "format=RGBP ! appsink name=a%(i)d sync=false max-buffers=2") for i in range(n))

        def pull_frames(pipeline):
            sinks = [pipeline.get_by_name("a%d" % i) for i in range(n)]
            frames = 0
            while True:
                samples = [s.emit("pull-sample") for s in sinks]
                samples = [s for s in samples if s is not None]
                if not samples:
                    return frames
                ts = [torch.from_dlpack(GstPinned.Frame(s)) for s in samples]
                x = torch.stack(ts).float().div_(255)
                x = F.interpolate(x, size=(size, size), mode="bilinear",
                                  align_corners=False)
                x = ((x - mean) / std).half()
                frames += len(samples)
                del x, ts
        run("python", launch, pull_frames)
    return 0


if __name__ == "__main__":
    sys.exit(main())
