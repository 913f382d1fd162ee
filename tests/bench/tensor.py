#!/usr/bin/env python3
# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""The tensor bridge's throughput on a GPU with PyTorch.

  python3 tests/bench/tensor.py [BUILD] [--seconds S] [--rows ROWS]
                                [--callcount]

Rows:

  tensor-in   page-locked frames (written once, pushed again and again,
              as a source writing into the upload's pool does) ->
              pinnedupload -> appsink -> GstPinned.Frame ->
              torch.from_dlpack (NV12 as one [H * 3 / 2, W] tensor) -> a
              torch kernel that reads the whole frame (and, for NV12, a
              line with a tensor and a kernel per plane); against the
              NumPy path (system memory -> appsink ->
              torch.from_numpy().cuda() -> the same kernel) and against
              the H2D limit measured in the same run with torch's copies
              from pinned memory. 3840x2160 RGBA and 1920x1080 NV12.
  tensor-out  torch-made 3840x2160 RGBA frames -> GstPinned.buffer_from_dlpack
              -> appsrc -> pinneddownload -> fakesink; against the D2H limit.

Each row prints frames/s from the 10th frame on (the start, where pools
are allocated, is not the stream's rate; the NumPy path likewise), GB/s,
the ratio to its limit (and to the NumPy path), and the process's CPU
time per frame (all threads, whole run). Device copies
between the upload and the torch kernel: the tensor's data_ptr is checked
to be the frame's own memory (0 copies); with --callcount a child run with
tests/bench's libpinnedcallcount.so preloaded also counts the CUDA copy
calls per frame (the upload's own only: 1, less with batches). Targets:
tensor-in 4K >= 0.95 of the H2D limit and >= 5x the NumPy path; 1080p
NV12 >= 0.8 and >= 3x; tensor-out >= 0.95 of the D2H limit. Exit status 0 when every target is
met, 1 when one is missed, 77 without PyGObject, PyTorch or a GPU.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import pinnedenv  # noqa: E402

pinnedenv.setup(sys.argv)
pinnedenv.require_torch_gpu("GstApp")
skip = pinnedenv.skip

from gi.repository import Gst, GstApp, GstPinned, GstVideo  # noqa: E402,F401
import torch  # noqa: E402
import numpy as np  # noqa: E402


def copy_limit(nbytes, seconds, h2d):
    """frames/s of torch's copies of @nbytes between pinned host memory and
    the device, one stream, back to back."""
    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    stream = torch.cuda.Stream()
    n = 0
    with torch.cuda.stream(stream):
        for _ in range(10):
            (dev.copy_(host, non_blocking=True) if h2d else
             host.copy_(dev, non_blocking=True))
        stream.synchronize()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(20):
                (dev.copy_(host, non_blocking=True) if h2d else
                 host.copy_(dev, non_blocking=True))
            n += 20
            stream.synchronize()
        elapsed = time.perf_counter() - start
    return n / elapsed


class Pusher(threading.Thread):
    """Pushes @buffers round robin into @appsrc for @seconds, then the end
    of the stream: in lists of LIST frames (one Python call per list, so
    that the source costs the host little, as a source writing into the
    pool does), or one made by make(i) at a time."""

    LIST = 32
    # Frames pushed before the rate is timed: the start (pools allocated,
    # page-locked at about 2 GB/s) is not the stream's rate.
    WARMUP = 10

    def __init__(self, appsrc, buffers, seconds, make=None):
        super().__init__(daemon=True)
        self.appsrc, self.buffers, self.seconds = appsrc, buffers, seconds
        self.make = make
        self.pushed = 0
        self.warm_at = self.warm_pushed = self.end_at = None

    def rate(self):
        """Frames/s from the WARMUP-th push on: a push that blocks on a
        full appsrc waits for the pipeline, so this is its rate."""
        return ((self.pushed - self.warm_pushed) /
                (self.end_at - self.warm_at))

    def run(self):
        try:
            self.push()
        finally:
            self.appsrc.end_of_stream()

    def push(self):
        start = time.perf_counter()
        i = 0
        while time.perf_counter() - start < self.seconds:
            if self.make:
                ret = self.appsrc.push_buffer(self.make(i))
                i += 1
            else:
                blist = Gst.BufferList.new_sized(self.LIST)
                for k in range(self.LIST):
                    blist.insert(-1, self.buffers[(i + k) % len(self.buffers)])
                ret = self.appsrc.push_buffer_list(blist)
                i += self.LIST
            if ret != Gst.FlowReturn.OK:
                break
            self.pushed = i
            self.end_at = time.perf_counter()
            if self.warm_at is None and i >= self.WARMUP:
                self.warm_at, self.warm_pushed = self.end_at, i


def page_locked_frames(ctx, info, count):
    """@count page-locked frames of @info, written once."""
    alloc = GstPinned.HostAllocator.new(ctx)
    frames = []
    for k in range(count):
        buf = Gst.Buffer.new()
        buf.append_memory(alloc.alloc(info.size, None))
        buf.fill(0, bytes([(k * 37) & 0xff]) * info.size)
        frames.append(buf)
    return frames


def system_frames(info, count):
    frames = []
    for k in range(count):
        frames.append(Gst.Buffer.new_wrapped(bytes([k * 37 & 0xff])
                                             * info.size))
    return frames


def read_whole(t, out):
    """One torch kernel that reads every element of @t: its sum into
    @out (no allocation, no second kernel to accumulate)."""
    torch.sum(t, tuple(range(t.dim())), dtype=torch.int64, out=out)


def tensor_in(fmt, width, height, seconds, numpy_path, per_plane=False):
    """frames/s and CPU s/frame of frames into a torch kernel: the frame as
    one tensor (NV12 as [H * 3 / 2, W]), or with @per_plane a tensor and a
    kernel for each plane."""
    info = GstVideo.VideoInfo()
    info.set_format(GstVideo.VideoFormat.from_string(fmt), width, height)
    caps = info.to_caps()
    ctx = GstPinned.Context.new(0)
    if numpy_path:
        launch = "appsrc name=src format=time ! appsink name=sink sync=false"
        buffers = system_frames(info, 4)
    else:
        launch = ("appsrc name=src format=time ! pinnedupload ! "
                  "appsink name=sink sync=false")
        buffers = page_locked_frames(ctx, info, 4)
    pipeline = Gst.parse_launch(launch)
    pipeline.set_context(ctx.new_pinned_context())
    appsrc = pipeline.get_by_name("src")
    appsrc.set_property("caps", caps)
    appsrc.set_property("max-bytes", 2 * Pusher.LIST * info.size)
    appsrc.set_property("block", True)
    sink = pipeline.get_by_name("sink")
    sink.set_property("max-buffers", 4)
    acc = torch.zeros((), dtype=torch.int64, device="cuda")
    pusher = Pusher(appsrc, buffers, seconds)
    pipeline.set_state(Gst.State.PLAYING)
    frames = 0
    copies = None
    warm_at = None
    cpu0 = time.process_time()
    pusher.start()
    while True:
        sample = sink.try_pull_sample(10 * Gst.SECOND)
        if sample is None:
            if sink.is_eos() or not pusher.is_alive():
                break
            continue
        if numpy_path:
            buf = sample.get_buffer()
            ok, m = buf.map(Gst.MapFlags.READ)
            if frames == 0 and not isinstance(m.data, memoryview):
                print("note: this PyGObject maps buffers as bytes (a copy; "
                      "gst-python's overrides give a memoryview): the NumPy "
                      "path pays that copy, as an application here would")
            t = torch.from_numpy(np.frombuffer(m.data, dtype=np.uint8)).cuda()
            buf.unmap(m)
            read_whole(t, acc)
        else:
            frame = GstPinned.Frame(sample, info=info)
            for f in (frame.planes() if per_plane else (frame,)):
                t = torch.from_dlpack(f)
                read_whole(t, acc)
                if copies is None:
                    copies = 0 if t.data_ptr() == f.data_ptr else 1
        del t
        frames += 1
        if frames == Pusher.WARMUP:
            # the rate from here on, as the pipeline rows measure theirs
            torch.cuda.synchronize()
            warm_at = time.perf_counter()
    torch.cuda.synchronize()
    end_at = time.perf_counter()
    cpu = time.process_time() - cpu0
    pipeline.set_state(Gst.State.NULL)
    pusher.join()
    tensor_in.frames = frames
    if warm_at is None:
        raise RuntimeError("tensor-in: only %d frames" % frames)
    return ((frames - Pusher.WARMUP) / (end_at - warm_at),
            cpu / max(frames, 1), info.size, copies)


def tensor_out(width, height, seconds):
    info = GstVideo.VideoInfo()
    info.set_format(GstVideo.VideoFormat.RGBA, width, height)
    caps_str = "video/x-raw,format=RGBA,framerate=30/1"
    tensors = [torch.randint(0, 256, (height, width, 4), dtype=torch.uint8,
                             device="cuda") for _ in range(4)]
    torch.cuda.synchronize()
    pipeline = Gst.parse_launch("appsrc name=src format=time ! "
                                "pinneddownload ! fakesink sync=false")
    appsrc = pipeline.get_by_name("src")
    appsrc.set_property("max-bytes", 3 * info.size)
    appsrc.set_property("block", True)
    buffer, caps = GstPinned.buffer_from_dlpack(tensors[0], caps_str,
                                                with_caps=True)
    del buffer
    appsrc.set_property("caps", caps)

    def make(i):
        return GstPinned.buffer_from_dlpack(tensors[i % len(tensors)],
                                            caps_str)
    pusher = Pusher(appsrc, None, seconds, make)
    pipeline.set_state(Gst.State.PLAYING)
    cpu0 = time.process_time()
    pusher.start()
    msg = pipeline.get_bus().timed_pop_filtered(
        (seconds + 60) * Gst.SECOND,
        Gst.MessageType.EOS | Gst.MessageType.ERROR)
    cpu = time.process_time() - cpu0
    pipeline.set_state(Gst.State.NULL)
    pusher.join()
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise RuntimeError("tensor-out: %s" % (
            msg.parse_error()[0].message if msg else "no end of stream"))
    return pusher.rate(), cpu / max(pusher.pushed, 1), info.size


def count_copies(fmt, width, height, seconds, what):
    """The CUDA copy calls (cudaMemcpyAsync, cudaMemcpyBatchAsync) per
    frame of the pinned tensor-in path, counted by libpinnedcallcount.so
    preloaded into a child run: the upload's own (one a frame, or one a
    batch of small frames); a copy between the upload and the torch kernel
    would add one a frame."""
    build = os.environ.get("GST_PINNED_PYENV", "")
    module = os.path.join(build, "tests", "bench", "libpinnedcallcount.so")
    if not os.path.exists(module):
        print("tensor-in  %s: no %s, no call count" % (what, module))
        return
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as out:
        env = dict(os.environ, LD_PRELOAD=module, CALLCOUNT_OUT=out.name)
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), build, "--seconds",
             str(seconds), "--count-child", "%s,%d,%d" % (fmt, width,
                                                           height)],
            env=env, stdout=subprocess.PIPE, universal_newlines=True)
        frames = [int(line.split()[1]) for line in child.stdout.splitlines()
                  if line.startswith("child-frames")]
        counts = {}
        for line in out.read().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] == "callcount":
                counts[parts[1]] = int(parts[2])
    if child.returncode != 0 or not frames or not counts:
        print("tensor-in  %s: the counted run failed (rc %d)"
              % (what, child.returncode))
        return
    copies = counts.get("cudaMemcpyAsync", 0) + \
        counts.get("cudaMemcpyBatchAsync", 0)
    print("tensor-in  %s: CUDA copy calls per frame, upload to torch kernel "
          "(cudaMemcpyAsync + cudaMemcpyBatchAsync): %.3f over %d frames"
          % (what, copies / frames[0], frames[0]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rows", default="tensor-in,tensor-out")
    parser.add_argument("--callcount", action="store_true",
                        help="also count the CUDA copy calls per frame of "
                        "the tensor-in rows, with tests/bench's "
                        "libpinnedcallcount.so preloaded in a child run")
    parser.add_argument("--count-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    Gst.init(None)
    if args.count_child:
        fmt, w, h = args.count_child.split(",")
        fps, cpu, nbytes, copies = tensor_in(fmt, int(w), int(h), args.seconds,
                                             False)
        print("child-frames %d" % tensor_in.frames)
        return 0
    rows = args.rows.split(",")
    s = args.seconds
    missed = []
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    print("%-10s %-18s %-14s %10s %7s %8s %8s %9s" % (
        "row", "frames", "path", "frames/s", "GB/s", "of-limit", "vs-numpy",
        "cpu-us/f"))

    def line(row, what, path, fps, nbytes, limit, numpy_fps, cpu):
        print("%-10s %-18s %-14s %10.1f %7.2f %8s %8s %9s" % (
            row, what, path, fps, fps * nbytes / 1e9,
            "%.3f" % (fps / limit) if limit else "",
            "%.2fx" % (fps / numpy_fps) if numpy_fps else "",
            "%.1f" % (cpu * 1e6) if cpu is not None else ""), flush=True)

    def target(cond, what):
        print("target %s: %s" % ("met   " if cond else "MISSED", what))
        if not cond:
            missed.append(what)

    if "tensor-in" in rows:
        for fmt, w, h, need_link, need_numpy in (("RGBA", 3840, 2160, 0.95, 5),
                                                 ("NV12", 1920, 1080, 0.8, 3)):
            what = "%dx%d %s" % (w, h, fmt)
            fps, cpu, nbytes, copies = tensor_in(fmt, w, h, s, False)
            nfps, ncpu, _, _ = tensor_in(fmt, w, h, s, True)
            limit = copy_limit(nbytes, s, True)
            line("tensor-in", what, "h2d-limit", limit, nbytes, limit, None,
                 None)
            line("tensor-in", what, "numpy", nfps, nbytes, limit, None, ncpu)
            line("tensor-in", what, "pinned->torch", fps, nbytes, limit, nfps,
                 cpu)
            if fmt == "NV12":
                pfps, pcpu, _, _ = tensor_in(fmt, w, h, s, False, True)
                line("tensor-in", what, "per-plane", pfps, nbytes, limit,
                     nfps, pcpu)
            print("tensor-in  %s: device copies between the upload and the "
                  "torch kernel: %s" % (what, copies))
            target(fps >= need_link * limit, "tensor-in %s >= %.2f of the "
                   "H2D limit (%.3f)" % (what, need_link, fps / limit))
            target(fps >= need_numpy * nfps, "tensor-in %s >= %dx the NumPy "
                   "path (%.2fx)" % (what, need_numpy, fps / nfps))
            if args.callcount:
                count_copies(fmt, w, h, s, what)
    if "tensor-out" in rows:
        what = "3840x2160 RGBA"
        fps, cpu, nbytes = tensor_out(3840, 2160, s)
        limit = copy_limit(nbytes, s, False)
        line("tensor-out", what, "d2h-limit", limit, nbytes, limit, None,
             None)
        line("tensor-out", what, "torch->pinned", fps, nbytes, limit, None,
             cpu)
        target(fps >= 0.95 * limit, "tensor-out %s >= 0.95 of the D2H limit "
               "(%.3f)" % (what, fps / limit))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
