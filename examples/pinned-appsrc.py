#!/usr/bin/env python3
"""An application that makes its own frames in Python (NumPy arrays, or
PyTorch CPU tensors) and sends them to the GPU and back, as
examples/pinned-appsrc.c does in C:

  appsrc ! pinnedupload ! pinneddownload ! appsink

--mode pool (the fast way): the application writes each frame into a
  buffer of the page-locked pool pinnedupload offers
  (GstPinned.HostBufferPool.from_peer()), with
  GstPinned.Frame(buf, write=True).copy_from(frame) (or np.copyto into
  numpy.asarray of that frame, a writable view): it writes where the copy
  engine reads, in bands on a few threads. The pool hands a buffer
  out again only once its copy is done, and the view waits for any copy
  still reading its buffer: the application never overwrites a frame that
  is still being copied.
--mode wrapped: Gst.Buffer.new_wrapped(frame.tobytes()), what most appsrc
  code does: a new pageable copy a frame, which pinnedupload stages.
--mode torch: the frames are PyTorch CPU tensors in page-locked memory
  (pin_memory()), handed over with GstPinned.buffer_from_dlpack(): the copy
  engine reads them where they are, no staging; each tensor comes back to
  the application (its deleter) once the copy that reads it is done.

Every frame that comes out is checked (one byte in 4 KiB, every byte of the
last). Prints frames/s, GB/s and the CPU the process used.

  meson devenv -C build python3 examples/pinned-appsrc.py [--mode pool]
      [--frames N] [--width W] [--height H]

Exit status 0 when every frame came back as sent, 1 otherwise (no usable
GPU, for one: the error says why).
"""
import argparse
import sys
import time

try:
    import gi
except ImportError:
    sys.exit("pinned-appsrc: this Python (%s) has no PyGObject (gi): run it "
             "with Debian's /usr/bin/python3 (package python3-gi), or see "
             "the README's section on Python" % sys.executable)
try:
    import numpy as np
except ImportError:
    sys.exit("pinned-appsrc: this Python has no NumPy")

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
try:
    gi.require_version("GstPinned", "1.0")
except ValueError:
    sys.exit("pinned-appsrc: no GstPinned-1.0 typelib: install gst-pinned, "
             "or run from the build with 'meson devenv -C build'")
from gi.repository import GLib, Gst, GstPinned, GstVideo  # noqa: E402

if not hasattr(GstPinned, "Frame"):
    sys.exit("pinned-appsrc: gst-pinned's Python override (GstPinned.Frame) "
             "is not on this Python's path, or gst-pinned was built without "
             "DLPack: install gst-pinned, or run from the build with "
             "'meson devenv -C build'")

RING = 4


def pop_error(pipeline):
    """Prints the error the pipeline posted; True when there was one."""
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg is None:
        return False
    error, debug = msg.parse_error()
    print("pinned-appsrc: %s: %s" % (msg.src.get_name(), error.message),
          file=sys.stderr)
    if debug:
        print("  detail: %s" % debug, file=sys.stderr)
    return True


def make_frames(info):
    """RING different frames of the application's, [H, W, 4] uint8."""
    rng = np.random.default_rng(1)
    return [rng.integers(0, 256, (info.height, info.width, 4),
                         dtype=np.uint8) for _ in range(RING)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("pool", "wrapped", "torch"),
                        default="pool")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--width", type=int, default=3840)
    parser.add_argument("--height", type=int, default=2160)
    args = parser.parse_args()

    Gst.init(None)
    info = GstVideo.VideoInfo()
    info.set_format(GstVideo.VideoFormat.RGBA, args.width, args.height)
    info.fps_n, info.fps_d = 30, 1
    caps = info.to_caps()
    frames = make_frames(info)
    tensors = None
    if args.mode == "torch":
        try:
            import torch
        except ImportError:
            sys.exit("pinned-appsrc: --mode torch needs PyTorch")
        tensors = [torch.from_numpy(f).pin_memory() for f in frames]

    pipeline = Gst.parse_launch(
        "appsrc name=src format=time block=true max-buffers=2 ! "
        "pinnedupload ! pinneddownload ! appsink name=sink sync=false "
        "max-buffers=4")
    src = pipeline.get_by_name("src")
    sink = pipeline.get_by_name("sink")
    src.set_property("caps", caps)
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        pop_error(pipeline)
        pipeline.set_state(Gst.State.NULL)
        return 1

    pool = None
    if args.mode == "pool":
        # The pool pinnedupload offers, configured and active.
        pool = GstPinned.HostBufferPool.from_peer(src.get_static_pad("src"),
                                                  caps, RING)
        if pool is None:
            if not pop_error(pipeline):
                print("pinned-appsrc: appsrc's peer offers no page-locked "
                      "pool", file=sys.stderr)
            pipeline.set_state(Gst.State.NULL)
            return 1

    sent = received = bad = 0
    start = None
    cpu0 = time.process_time()
    try:
        for n in range(args.frames):
            frame = frames[n % RING]
            if pool is not None:
                # Waits only while every buffer is still being copied.
                ok, buf = pool.acquire_buffer(None)
                if ok != Gst.FlowReturn.OK:
                    break
                # In bands of rows on a few threads (np.copyto into
                # np.asarray(view) does it on one).
                view = GstPinned.Frame(buf, info=info, write=True)
                view.copy_from(frame)
                # The view unmaps the buffer: the copy may read it now.
                view.release()
            elif tensors is not None:
                buf = GstPinned.buffer_from_dlpack(tensors[n % RING], caps)
            else:
                buf = Gst.Buffer.new_wrapped(frame.tobytes())
            buf.offset = n
            buf.pts = n * Gst.SECOND // 30
            if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
                break
            del buf
            sent += 1
            # Take what came out so far (appsink holds four).
            while True:
                sample = sink.emit("try-pull-sample",
                                   0 if sent - received < 4 else Gst.SECOND)
                if sample is None:
                    break
                if start is None:
                    start = time.perf_counter()
                bad += not check(sample, frames, received, info,
                                 all_bytes=False)
                received += 1
            if pop_error(pipeline):
                return 1
        src.emit("end-of-stream")
        while not sink.props.eos:
            sample = sink.emit("try-pull-sample", 100 * Gst.MSECOND)
            if sample is None:
                if pop_error(pipeline):
                    return 1
                continue
            bad += not check(sample, frames, received, info,
                             all_bytes=received == args.frames - 1)
            received += 1
    except GLib.Error as e:
        print("pinned-appsrc: %s" % e.message, file=sys.stderr)
        pop_error(pipeline)
        return 1
    finally:
        end = time.perf_counter()
        cpu = time.process_time() - cpu0
        pipeline.set_state(Gst.State.NULL)
        if pool is not None:
            pool.set_active(False)

    if received > 1 and start is not None:
        fps = (received - 1) / (end - start)
        print("%s: %d frames of %dx%d RGBA: %.1f frames/s, %.2f GB/s, "
              "%.2f CPU cores" % (args.mode, received, args.width,
                                  args.height, fps, fps * info.size / 1e9,
                                  cpu / (end - start)))
    print("%d of %d frames came back as sent" % (received - bad, sent))
    return 0 if received == sent == args.frames and bad == 0 else 1


def check(sample, frames, n, info, all_bytes):
    """Whether the downloaded frame n is the application's frame n (one
    byte in 4 KiB, or all of them)."""
    buf = sample.get_buffer()
    if buf.offset != n:
        return False
    # Mapping waits for the download's copy.
    ok, m = buf.map(Gst.MapFlags.READ)
    if not ok:
        return False
    try:
        row = info.width * 4
        meta = GstVideo.buffer_get_video_meta(buf)
        stride = meta.stride[0] if meta else info.stride[0]
        got = np.frombuffer(m.data, dtype=np.uint8)
        got = np.lib.stride_tricks.as_strided(
            got, (info.height, row), (stride, 1))
        want = frames[n % RING].reshape(info.height, row)
        if all_bytes:
            return bool(np.array_equal(got, want))
        return bool(np.array_equal(got.reshape(-1)[::4096] if stride == row
                                   else got[:, ::4096],
                                   want.reshape(-1)[::4096] if stride == row
                                   else want[:, ::4096]))
    finally:
        buf.unmap(m)


if __name__ == "__main__":
    sys.exit(main())
