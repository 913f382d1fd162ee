#!/usr/bin/env python3
# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Where a Python source's frame goes when it writes into the offered
page-locked pool (python-sources.py's pool-write row), told apart: the
application's np.copyto alone, then beside pipelines that do less or
more (the upload alone, the round trip without and with the checker),
and the copy split over threads (NumPy lets go of the GIL in a copy).

  python3 tests/bench/pool-write-parts.py [BUILD] [--size RGBA:1920x1080]
                                          [--seconds S] [--rounds R]

Prints, per variant, frames/s where they come out and the microseconds a
frame of each part on the pushing thread. Exit status 0 when every
variant ran and every checked frame was right, 77 without PyGObject or
NumPy.
"""
import argparse
import concurrent.futures
import importlib.util
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "python_sources", os.path.join(here, "python-sources.py"))
ps = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ps)
np, Gst, GstPinned, GstVideo = ps.np, ps.Gst, ps.GstPinned, ps.GstVideo


def split_copy(threads):
    """np.copyto over @threads threads, each a band of rows."""
    if threads <= 1:
        return np.copyto
    pool = concurrent.futures.ThreadPoolExecutor(threads)

    def copy(dst, src):
        rows = dst.shape[0]
        bands = [(rows * i // threads, rows * (i + 1) // threads)
                 for i in range(threads)]
        list(pool.map(lambda b: np.copyto(dst[b[0]:b[1]], src[b[0]:b[1]]),
                      bands))
    return copy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="RGBA:1920x1080")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    Gst.init(None)
    fmt, dims = args.size.split(":")
    width, height = (int(x) for x in dims.split("x"))
    info = GstVideo.VideoInfo()
    info.set_format(GstVideo.VideoFormat.from_string(fmt), width, height)
    info.fps_n, info.fps_d = 30, 1
    rng = np.random.default_rng(46)
    ring = [rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
            for _ in range(ps.RING)]
    check = ps.sample_check(info, ring)

    def unchecked(sample, n):
        return True

    roundtrip = "pinnedupload name=up ! pinneddownload"
    variants = [
        ("upload-only", "pinnedupload name=up", unchecked, 1),
        ("roundtrip-unchecked", roundtrip, unchecked, 1),
        ("roundtrip", roundtrip, check, 1),
        ("roundtrip-2-threads", roundtrip, check, 2),
        ("roundtrip-4-threads", roundtrip, check, 4),
        ("roundtrip-8-threads", roundtrip, check, 8),
        ("wrapped-pinned", roundtrip, check, 0),
    ]
    status = 0
    results = {}
    for _ in range(args.rounds):
        alone = ps.copyto_alone(info, ring, args.seconds)
        results.setdefault("copyto-alone", []).append((1 / alone, {}))
        for name, tail, chk, threads in variants:
            ps.PARTS.clear()
            if threads == 0:
                produce = ps.wrapped(ring)
                finish = None
            else:
                produce = ps.pool_write(info, ring, split_copy(threads))
                finish = lambda pool: pool.set_active(False)  # noqa: E731
            try:
                row = ps.run_row(info, tail, produce, chk, args.seconds,
                                 finish=finish)
            except RuntimeError as e:
                print("FAILED: %s: %s" % (name, e), flush=True)
                status = 1
                continue
            status |= row.bad > 0
            n = ps.PARTS.pop("frames", 0)
            parts = {k: v / n * 1e6 for k, v in ps.PARTS.items()} if n \
                else {}
            results.setdefault(name, []).append((row.fps, parts, row.cpu))
    for name, got in results.items():
        fps = statistics.median(g[0] for g in got)
        parts = got[-1][1]
        cpu = (", CPU %.0f us a frame" % (statistics.median(
            g[2] for g in got) * 1e6)) if len(got[0]) > 2 else ""
        print("%s %s %-20s %8.1f frames/s%s%s" % (
            fmt, dims, name, fps, cpu,
            (": " + ", ".join("%s %.0f" % kv for kv in parts.items()))
            if parts else ""), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
