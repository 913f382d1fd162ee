#!/usr/bin/env python3
# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""The tensor bridge on a GPU with PyTorch: every frame that reaches torch
equals the CPU reference, also while a torch kernel still reads a frame
whose tensor was dropped and the upload's pool is at its smallest; and
torch-made frames come back from pinneddownload bit-exact, also while the
kernel that writes them still runs when they are pushed.

  python3 tests/gpu/tensor.py [BUILD] [--frames N]

BUILD is the build folder (default build/); the script sets
GST_PLUGIN_PATH, GI_TYPELIB_PATH, LD_LIBRARY_PATH and PYTHONPATH from it.
Exit status 0 when all passed, 1 on a failure, 77 without PyGObject,
PyTorch, a CUDA device or a build with DLPack.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import pinnedenv  # noqa: E402

pinnedenv.setup(sys.argv)
pinnedenv.require_torch_gpu()
skip = pinnedenv.skip

from gi.repository import GLib, Gst, GstPinned, GstVideo  # noqa: E402,F401
import torch  # noqa: E402
import numpy as np  # noqa: E402  (PyTorch needs it)
try:
    import cupy
except ImportError:
    cupy = None

failures = []


def check(cond, what):
    print("%s: %s" % ("ok  " if cond else "FAIL", what), flush=True)
    if not cond:
        failures.append(what)


def run(launch, sinks, on_sample=None, before_stop=None):
    """Runs @launch to its end. Each named appsink's samples go to
    on_sample(name, sample) as they come (the streaming thread), else are
    collected and returned. before_stop() runs before the pipeline stops
    (and frees its memory)."""
    pipeline = Gst.parse_launch(launch)
    got = {name: [] for name in sinks}
    for name in sinks:
        sink = pipeline.get_by_name(name)
        sink.set_property("emit-signals", True)

        def new_sample(s, n=name):
            sample = s.emit("pull-sample")
            if on_sample:
                on_sample(n, sample)
            else:
                got[n].append(sample)
            return Gst.FlowReturn.OK
        sink.connect("new-sample", new_sample)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if before_stop:
        before_stop()
    pipeline.set_state(Gst.State.NULL)
    if msg is None:
        raise RuntimeError("the pipeline did not finish: %s" % launch)
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        raise RuntimeError("%s (%s)" % (err.message, dbg))
    return got


def packed(sample):
    """A sample's frame in system memory, plane by plane as NumPy arrays of
    the packed layout (rows without padding)."""
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    buf = sample.get_buffer()
    meta = GstVideo.buffer_get_video_meta(buf)
    ok, m = buf.map(Gst.MapFlags.READ)
    data = np.frombuffer(bytes(m.data), dtype=np.uint8)
    buf.unmap(m)
    planes = []
    for p in range(info.finfo.n_planes):
        off = meta.offset[p] if meta else info.offset[p]
        stride = meta.stride[p] if meta else info.stride[p]
        comp = next(c for c in range(info.finfo.n_components)
                    if info.finfo.plane[c] == p)
        h = info.finfo.h_sub[comp]
        rows = -((-info.height) >> h)
        w = -((-info.width) >> info.finfo.w_sub[comp])
        row_bytes = w * info.finfo.pixel_stride[comp]
        plane = np.lib.stride_tricks.as_strided(
            data[off:], (rows, stride))[:, :row_bytes]
        planes.append(np.ascontiguousarray(plane))
    return planes


def as_bytes(tensor, planar=False):
    """A torch tensor's elements as packed rows of bytes: per plane of a
    [C, H, W] tensor (@planar), else as one plane."""
    a = tensor.cpu().contiguous().numpy()
    if a.dtype != np.uint8:
        a = a.view(np.uint8)
    if planar:
        return [a[c].reshape(a.shape[1], -1) for c in range(a.shape[0])]
    return [a.reshape(a.shape[0], -1)]


def src(fmt, width, height, frames, pattern="ball"):
    return ("videotestsrc num-buffers=%d pattern=%s ! video/x-raw,format=%s,"
            "width=%d,height=%d,framerate=30/1" % (frames, pattern, fmt,
                                                   width, height))


# ---- frames into torch: every one equals the CPU reference ----------------

def frames_into_torch(fmt, width, height, frames, gpu_chain, out_fmt=None,
                      per_plane=False):
    """Each frame of `src ! tee` once through @gpu_chain into torch, once
    through @gpu_chain ! pinneddownload (or the source itself when
    @gpu_chain is only the upload) as the reference. Each sample is taken
    as it comes and let go (the pools hold a few frames only); the bytes
    are compared at the end."""
    name = "%s %dx%d%s" % (fmt, width, height,
                           " -> " + out_fmt if out_fmt else "")
    launch = ("%s ! tee name=t t. ! queue ! %s ! appsink name=dev sync=false "
              "t. ! queue ! %s ! appsink name=ref sync=false"
              % (src(fmt, width, height, frames), gpu_chain,
                 gpu_chain + " ! pinneddownload" if out_fmt else "identity"))
    got = {"dev": [], "ref": []}
    checked = []

    def on_sample(branch, sample):
        if branch == "ref":
            got["ref"].append(packed(sample))
            return
        frame = GstPinned.Frame(sample)
        if per_plane:
            tensors = [torch.from_dlpack(p) for p in frame.planes()]
            got["dev"].append([as_bytes(t)[0] for t in tensors])
            return
        t = torch.from_dlpack(frame)
        # [C, H, W] after pinnedconvert, [H, W, C] otherwise.
        got["dev"].append(as_bytes(t, planar=out_fmt is not None))
        if not checked:
            checked.append(True)
            check(t.is_cuda and t.data_ptr() == frame.data_ptr,
                  "%s: torch's tensor is the frame's memory (no copy)" % name)
            t2 = torch.as_tensor(frame, device="cuda")
            check(t2.data_ptr() == frame.data_ptr and t2.shape == t.shape,
                  "%s: torch.as_tensor (__cuda_array_interface__) gives the "
                  "same tensor" % name)
            del t2
            frame.release()
            if cupy is not None:
                c = cupy.from_dlpack(frame)
                check(c.data.ptr == frame.data_ptr,
                      "%s: cupy.from_dlpack gives the same memory" % name)
                del c

    run(launch, ["dev", "ref"], on_sample)
    check(len(got["dev"]) == frames and len(got["ref"]) == frames,
          "%s: %d frames each way (%d, %d)" % (name, frames, len(got["dev"]),
                                               len(got["ref"])))
    bad = 0
    for planes, refp in zip(got["dev"], got["ref"]):
        if len(planes) == 1 and len(refp) > 1:
            # NV12 as one [H * 3 / 2, W] tensor: the planes' rows in turn
            refp = [np.concatenate(refp)]
        if len(planes) != len(refp) or not all(
                np.array_equal(a, b) for a, b in zip(planes, refp)):
            bad += 1
    check(bad == 0, "%s: every frame in torch equals the reference (%d of %d "
          "differ)" % (name, bad, frames))


def held_back_reader(frames, width, height, sleep_cycles, control=False):
    """pinnedupload pool-size=1 (its smallest): each frame's tensor gets a
    torch kernel that first spins (torch.cuda._sleep), then copies the
    whole frame; the tensor, the frame and the sample are dropped at once,
    and the upload goes on into the same few device buffers. The copies
    must equal the source: the fence at release holds the pool back.
    With @control the tensor is taken without stream order (stream -1): no
    fence, so copies may show later frames."""
    results, refs = [], []

    def on_sample(name, sample):
        if name == "ref":
            refs.append(packed(sample)[0])
            return
        frame = GstPinned.Frame(sample)
        if control:
            capsule = frame.__dlpack__(stream=-1)
            t = torch.utils.dlpack.from_dlpack(capsule)
        else:
            t = torch.from_dlpack(frame)
        torch.cuda._sleep(sleep_cycles)
        results.append(t.clone())
        del t, frame

    launch = ("%s ! tee name=t t. ! queue ! pinnedupload pool-size=1 ! "
              "appsink name=dev sync=false max-buffers=1 "
              "t. ! queue ! appsink name=ref sync=false"
              % src("RGBA", width, height, frames))
    # The control's kernels may still read pool memory at the end.
    run(launch, ["dev", "ref"], on_sample, torch.cuda.synchronize)
    bad = sum(1 for r, ref in zip(results, refs)
              if not np.array_equal(as_bytes(r)[0], ref))
    return bad, len(results)


# ---- torch-made frames back out: bit-exact --------------------------------

def frames_out_of_torch(fmt, shape, frames, late_writer=False):
    """Torch-made frames -> appsrc -> pinneddownload -> appsink, compared
    with the tensors. With @late_writer the kernel that writes each tensor
    is still held back (torch.cuda._sleep before it) when it is pushed."""
    caps_str = "video/x-raw,format=%s,framerate=30/1" % fmt
    pipeline = Gst.parse_launch("appsrc name=src format=time ! "
                                "pinneddownload ! appsink name=sink "
                                "sync=false")
    appsrc = pipeline.get_by_name("src")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    gen = torch.Generator(device="cuda").manual_seed(1)
    expected = []
    for i in range(frames):
        if late_writer:
            torch.cuda._sleep(20_000_000)
        t = torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda",
                          generator=gen)
        if fmt in ("RGBA", "BGRx") and i % 2:
            # Padded rows: a view of a wider tensor.
            wide = torch.zeros((shape[0], shape[1] + 7, shape[2]),
                               dtype=torch.uint8, device="cuda")
            wide[:, :shape[1]] = t
            t = wide[:, :shape[1]]
        expected.append(t)
        buffer, caps = GstPinned.buffer_from_dlpack(t, caps_str,
                                                    with_caps=True)
        if i == 0:
            appsrc.set_property("caps", caps)
        buffer.pts = i * Gst.SECOND // 30
        appsrc.emit("push-buffer", buffer)
        del buffer
    appsrc.emit("end-of-stream")
    bad = 0
    n = 0
    for i in range(frames):
        s = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if s is None:
            break
        n += 1
        ref = as_bytes(expected[i], planar=fmt in ("RGBP", "BGRP"))
        if not all(np.array_equal(a, b) for a, b in zip(packed(s), ref)):
            bad += 1
    pipeline.set_state(Gst.State.NULL)
    check(n == frames, "%s %r out of torch: %d of %d frames came out"
          % (fmt, shape, n, frames))
    check(bad == 0, "%s %r%s: every frame came back bit-exact (%d differ)"
          % (fmt, shape, ", writer still running" if late_writer else "",
             bad))


def cpu_tensors_into_upload(frames):
    """torch CPU tensors through buffer_from_dlpack ! pinnedupload !
    pinneddownload: pinned ones (pin_memory()) copied directly, nothing
    staged; pageable ones staged; every frame bit-exact."""
    for pinned in (True, False):
        pipeline = Gst.parse_launch("appsrc name=src format=time ! "
                                    "pinnedupload name=up ! pinneddownload ! "
                                    "appsink name=sink sync=false")
        appsrc = pipeline.get_by_name("src")
        sink = pipeline.get_by_name("sink")
        pipeline.set_state(Gst.State.PLAYING)
        gen = torch.Generator().manual_seed(2)
        expected, kinds = [], []
        for i in range(frames):
            t = torch.randint(0, 256, (1080, 1920, 4), dtype=torch.uint8,
                              generator=gen)
            if pinned:
                t = t.pin_memory()
            expected.append(t.clone())
            buffer, caps = GstPinned.buffer_from_dlpack(
                t, "video/x-raw,format=RGBA,framerate=30/1", with_caps=True)
            kinds.append(GstPinned.is_pinned_host_memory(
                buffer.peek_memory(0)))
            if i == 0:
                appsrc.set_property("caps", caps)
            buffer.pts = i * Gst.SECOND // 30
            appsrc.emit("push-buffer", buffer)
            del buffer, t
        appsrc.emit("end-of-stream")
        bad = n = 0
        for i in range(frames):
            s = sink.emit("try-pull-sample", 30 * Gst.SECOND)
            if s is None:
                break
            n += 1
            if not np.array_equal(packed(s)[0],
                                  as_bytes(expected[i])[0]):
                bad += 1
        stats = pipeline.get_by_name("up").get_property("stats")
        pipeline.set_state(Gst.State.NULL)
        what = "pinned" if pinned else "pageable"
        staged = stats.get_uint64("staged")[1]
        check(n == frames and bad == 0, "%s torch CPU tensors through "
              "pinnedupload ! pinneddownload: %d of %d frames bit-exact"
              % (what, n - bad, frames))
        if pinned:
            check(all(kinds) and staged == 0 and
                  stats.get_uint64("pageable-buffers")[1] == 0,
                  "pinned torch tensors are page-locked memory, copied "
                  "directly: staged %d" % staged)
        else:
            check(not any(kinds) and staged > 0,
                  "pageable torch tensors are system memory, staged: %d of "
                  "%d" % (staged, frames))


def pinned_frames_out():
    """Frames of pinneddownload's pool as torch CPU tensors: pinned to torch
    (is_pinned()), so .cuda(non_blocking=True) is the fast path."""
    got = run(src("RGBA", 1920, 1080, 3) + " ! pinnedupload ! pinneddownload "
              "! appsink name=host sync=false", ["host"])
    for sample in got["host"]:
        t = torch.from_dlpack(GstPinned.Frame(sample))
        check(t.device.type == "cpu" and t.is_pinned(),
              "a downloaded frame is a pinned torch CPU tensor (%s, "
              "is_pinned %s)" % (t.device, t.is_pinned()))
        back = t.cuda(non_blocking=True)
        check(torch.equal(back.cpu(), t), "and comes to the GPU as it is")
        del t, back


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=30)
    args = parser.parse_args()
    Gst.init(None)
    n = args.frames
    print("torch %s on %s" % (torch.__version__,
                               torch.cuda.get_device_name(0)))

    frames_into_torch("RGBA", 3840, 2160, n, "pinnedupload")
    frames_into_torch("RGBA", 1279, 719, n, "pinnedupload")
    frames_into_torch("GRAY16_LE", 641, 363, n, "pinnedupload")
    frames_into_torch("NV12", 1920, 1080, n, "pinnedupload", per_plane=True)
    frames_into_torch("NV12", 1920, 1080, n, "pinnedupload")
    frames_into_torch("I420", 1279, 719, n, "pinnedupload", per_plane=True)
    frames_into_torch("NV12", 1920, 1080, n,
                      "pinnedupload ! pinnedconvert ! "
                      "video/x-raw(memory:PinnedDevice),format=RGBP",
                      out_fmt="RGBP")
    frames_into_torch("NV12", 1279, 719, n,
                      "pinnedupload ! pinnedconvert ! "
                      "video/x-raw(memory:PinnedDevice),format=BGRP",
                      out_fmt="BGRP")

    bad, total = held_back_reader(60, 1920, 1080, 50_000_000)
    check(total == 60 and bad == 0,
          "a torch kernel still reading when its tensor is dropped, pool at "
          "its smallest: %d of %d frames read wrong" % (bad, total))
    bad, total = held_back_reader(60, 1920, 1080, 50_000_000, control=True)
    print("info: control without stream order (stream -1): %d of %d frames "
          "read wrong (expected some: the hazard the fence avoids)"
          % (bad, total))

    frames_out_of_torch("RGBA", (2160, 3840, 4), n)
    frames_out_of_torch("RGBA", (719, 1279, 4), n, late_writer=True)
    frames_out_of_torch("RGBP", (3, 1080, 1920), n)
    frames_out_of_torch("GRAY8", (721, 1283), n)

    cpu_tensors_into_upload(n)
    pinned_frames_out()

    # What torch refuses to export (a tensor that requires grad) is a
    # refusal too: GLib.Error, not torch's RuntimeError.
    try:
        GstPinned.buffer_from_dlpack(torch.zeros((64, 64, 4),
                                                 requires_grad=True),
                                     "video/x-raw,format=RGBA")
        check(False, "a tensor that requires grad refused")
    except GLib.Error as e:
        check("__dlpack__ refused" in e.message, "a tensor that requires "
              "grad refused: %s" % e.message)
    except Exception as e:  # noqa: B902: the defect this checks for
        check(False, "a tensor that requires grad refused with %s, not "
              "GLib.Error: %s" % (type(e).__name__, e))

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all GPU tensor checks passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("FAIL: %s" % e)
        sys.exit(1)
