#!/usr/bin/env python3
"""gst-pinned and PyTorch on one GPU, without a copy either way.

Frames in: a test source, uploaded and converted to planar RGB on the GPU
(pinnedupload ! pinnedconvert, RGBP), reach torch as [3, H, W] uint8 CUDA
tensors on the frames' own memory (torch.from_dlpack(GstPinned.Frame(...))),
and a small torch op runs on each: normalise, and the mean of each channel.

Frames out: torch makes frames on the GPU (a moving gradient), which go to
appsrc as device memory (GstPinned.buffer_from_dlpack), through
pinneddownload into a Motion-JPEG file.

  meson devenv -C build python3 examples/pinned-torch.py [frames] [out.avi]
  ... examples/pinned-torch.py --seconds S

or, with gst-pinned installed, python3 examples/pinned-torch.py. With
--seconds both run at once for S seconds, as an analytics app does: each
frame into torch, a torch op on it, its result (the frame with its channels
scaled) back out through pinneddownload, a line "frames: N" each second.
Needs
PyGObject, PyTorch with CUDA, and an NVIDIA GPU: without one it says why
and exits with status 2.
"""
import os
import sys
import time

# From the source tree: the GstPinned override next to the build.
_python = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "src", "python")
if os.path.isdir(_python):
    sys.path.insert(0, _python)

try:
    import gi
except ImportError:
    sys.exit("pinned-torch: this Python (%s) has no PyGObject (gi)"
             % sys.executable)
gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
try:
    gi.require_version("GstPinned", "1.0")
except ValueError:
    sys.exit("pinned-torch: no GstPinned-1.0 typelib: install gst-pinned, "
             "or run from the build with 'meson devenv -C build'")
from gi.repository import GLib, Gst, GstApp, GstPinned  # noqa: E402,F401


def fail(why, status=2):
    print("pinned-torch: %s" % why, file=sys.stderr)
    sys.exit(status)


def pop_error(pipeline):
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg is None:
        return False
    error, debug = msg.parse_error()
    print("pinned-torch: %s: %s" % (msg.src.get_name(), error.message),
          file=sys.stderr)
    return True


def frames_in(torch, frames):
    """Frames into torch; returns frames/s."""
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=%d pattern=ball ! "
        "video/x-raw,format=NV12,width=1920,height=1080 ! pinnedupload ! "
        "pinnedconvert ! video/x-raw(memory:PinnedDevice),format=RGBP ! "
        "appsink name=sink sync=false max-buffers=4" % frames)
    sink = pipeline.get_by_name("sink")
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        pop_error(pipeline)
        fail("the pipeline did not start", 1)
    means = []
    start = None
    n = 0
    while True:
        sample = sink.try_pull_sample(100 * Gst.MSECOND)
        if sample is None:
            if sink.is_eos():
                break
            if pop_error(pipeline):
                pipeline.set_state(Gst.State.NULL)
                sys.exit(1)
            continue
        if start is None:
            start = time.perf_counter()
        # [3, H, W] uint8 on the frame's memory: torch's stream waits for
        # the conversion on the GPU, no host wait, no copy.
        rgb = torch.from_dlpack(GstPinned.Frame(sample))
        x = rgb.float().div_(255.0)
        means.append(x.mean(dim=(1, 2)))
        n += 1
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - (start or time.perf_counter())
    pipeline.set_state(Gst.State.NULL)
    if n == 0:
        fail("no frame arrived", 1)
    last = means[-1].tolist()
    print("frames in:  %d frames of 1920x1080 RGBP into torch, %.0f "
          "frames/s; last frame's channel means R %.3f G %.3f B %.3f"
          % (n, (n - 1) / elapsed if elapsed > 0 else 0, *last))


def frames_out(torch, frames, path):
    """torch-made frames through pinneddownload into @path."""
    width, height = 1280, 720
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time ! pinneddownload ! videoconvert ! "
        "jpegenc ! avimux ! filesink location=%s" % path)
    src = pipeline.get_by_name("src")
    pipeline.set_state(Gst.State.PLAYING)
    y = torch.arange(height, device="cuda").view(height, 1)
    x = torch.arange(width, device="cuda").view(1, width)
    start = time.perf_counter()
    for i in range(frames):
        frame = torch.empty((height, width, 4), dtype=torch.uint8,
                            device="cuda")
        frame[..., 0] = ((x + 4 * i) % 256).to(torch.uint8)
        frame[..., 1] = ((y + 2 * i) % 256).to(torch.uint8)
        frame[..., 2] = 128
        frame[..., 3] = 255
        # The buffer's fence is on torch's current stream: pinneddownload
        # waits on the GPU for the kernels above.
        buffer, caps = GstPinned.buffer_from_dlpack(
            frame, "video/x-raw,format=RGBA,framerate=30/1", with_caps=True)
        if i == 0:
            src.set_property("caps", caps)
        buffer.pts = i * Gst.SECOND // 30
        buffer.duration = Gst.SECOND // 30
        if src.push_buffer(buffer) != Gst.FlowReturn.OK:
            break
    src.end_of_stream()
    msg = pipeline.get_bus().timed_pop_filtered(
        60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    elapsed = time.perf_counter() - start
    pipeline.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        fail("frames out: %s" % (msg.parse_error()[0].message if msg else
                                 "no end of stream"), 1)
    print("frames out: %d torch-made 1280x720 frames through pinneddownload "
          "into %s, %.0f frames/s" % (frames, path, frames / elapsed))


def both_ways(torch, seconds):
    """Frames in, a torch op, its result out, for @seconds."""
    width, height = 1920, 1080
    src_pipe = Gst.parse_launch(
        "videotestsrc pattern=ball ! "
        "video/x-raw,format=NV12,width=%d,height=%d ! pinnedupload ! "
        "pinnedconvert ! video/x-raw(memory:PinnedDevice),format=RGBP ! "
        "appsink name=sink sync=false max-buffers=4" % (width, height))
    out_pipe = Gst.parse_launch(
        "appsrc name=src format=time max-bytes=%d block=true ! "
        "pinneddownload ! fakesink sync=false" % (4 * width * height * 4))
    sink = src_pipe.get_by_name("sink")
    appsrc = out_pipe.get_by_name("src")
    out_pipe.set_state(Gst.State.PLAYING)
    src_pipe.set_state(Gst.State.PLAYING)
    start = last = time.perf_counter()
    n = 0
    while time.perf_counter() - start < seconds:
        sample = sink.try_pull_sample(Gst.SECOND)
        if sample is None:
            # The reason is on a bus: an error stops its pipeline.
            pop_error(src_pipe) or pop_error(out_pipe)
            fail("frames stopped after %d" % n, 1)
        rgb = torch.from_dlpack(GstPinned.Frame(sample))
        frame = torch.empty((height, width, 4), dtype=torch.uint8,
                            device="cuda")
        frame[..., :3] = rgb.permute(1, 2, 0) // 2 + 64
        frame[..., 3] = 255
        buffer, caps = GstPinned.buffer_from_dlpack(
            frame, "video/x-raw,format=RGBA,framerate=30/1", with_caps=True)
        if n == 0:
            appsrc.set_property("caps", caps)
        buffer.pts = n * Gst.SECOND // 30
        if appsrc.push_buffer(buffer) != Gst.FlowReturn.OK:
            pop_error(out_pipe)
            fail("appsrc refused frame %d" % n, 1)
        n += 1
        if time.perf_counter() - last >= 1:
            last = time.perf_counter()
            print("frames: %d" % n, flush=True)
    appsrc.end_of_stream()
    msg = out_pipe.get_bus().timed_pop_filtered(
        60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    src_pipe.set_state(Gst.State.NULL)
    out_pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        fail("frames out: %s" % (msg.parse_error()[0].message if msg else
                                 "no end of stream"), 1)
    print("both ways: %d frames of 1920x1080 in, through torch and out in "
          "%.0f s, %.0f frames/s; end of stream" % (
              n, seconds, n / (time.perf_counter() - start)), flush=True)


def main():
    seconds = None
    args = sys.argv[1:]
    if args[:1] == ["--seconds"] and len(args) > 1:
        seconds = float(args[1])
        args = args[2:]
    frames = int(args[0]) if args else 300
    path = args[1] if len(args) > 1 else "pinned-torch.avi"
    Gst.init(None)
    if not hasattr(GstPinned, "Frame") or \
            not hasattr(GstPinned, "tensor_import"):
        fail("this gst-pinned has no tensor bridge (built without DLPack, or "
             "the GstPinned Python override is not on the path)")
    # The GPU first: its error says what is missing (driver, device).
    try:
        GstPinned.Context.new(0)
    except GLib.Error as e:
        fail("no usable CUDA device: %s" % e.message)
    try:
        import torch
    except ImportError:
        fail("needs PyTorch with CUDA (pip install torch)")
    if not torch.cuda.is_available():
        fail("PyTorch sees no CUDA device (torch %s, built for CUDA %s)"
             % (torch.__version__, torch.version.cuda))
    if seconds is not None:
        both_ways(torch, seconds)
        return 0
    frames_in(torch, frames)
    frames_out(torch, min(frames, 150), path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
