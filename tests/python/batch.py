#!/usr/bin/env python3
# pinnedbatch from Python, on the stand-in or a GPU: GstPinned.Frame of a
# batch is its [N, C, H, W] tensor (shape, type, strides, device), its
# slots the meta's (pad, rectangle, the mapping back onto the frame).
#   python3 tests/python/batch.py [BUILD]
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pinnedenv  # noqa: E402

pinnedenv.setup(sys.argv)

import gi  # noqa: E402
gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
from gi.repository import Gst, GstPinned  # noqa: E402

Gst.init(None)
pipeline = Gst.parse_launch(
    "pinnedbatch name=b width=32 height=16 type=float32 pad-value=0 "
    "mean=<0.5,0.5,0.5> std=<0.5,0.5,0.5> ! appsink name=out "
    "videotestsrc num-buffers=2 pattern=white ! "
    "video/x-raw,format=RGBA,width=16,height=16 ! b.sink_0 "
    "videotestsrc num-buffers=2 pattern=black ! "
    "video/x-raw,format=I420,width=64,height=16 ! b.sink_1")
sink = pipeline.get_by_name("out")
pipeline.set_state(Gst.State.PLAYING)
sample = sink.emit("pull-sample")
assert sample is not None, "no batch"

frame = GstPinned.Frame(sample)
assert frame.shape == (2, 3, 16, 32), frame.shape
assert frame.dtype == "float32", frame.dtype
assert frame.strides == (3 * 16 * 32, 16 * 32, 32, 1), frame.strides
assert frame.device[0] == 2, frame.device  # kDLCUDA
assert frame.__dlpack__() is not None

slots = frame.slots
assert [s.pad_name for s in slots] == ["sink_0", "sink_1"], slots
assert not slots[0].empty and not slots[1].empty
# the square frame letterboxed in the middle, the wide one across
assert (slots[0].x, slots[0].y, slots[0].width, slots[0].height) == \
    (8, 0, 16, 16)
assert (slots[1].x, slots[1].width, slots[1].source_width) == (0, 32, 64)
ok, sx, sy = slots[0].to_source(24, 16)
assert ok and (sx, sy) == (16, 16), (sx, sy)

# The values, through a CPU map of the batch, where the kernel runs: on
# the stand-in only the C suites register its CPU emulation (the batcher
# program checks the values there), so in this process it does nothing.
import ctypes  # noqa: E402


def on_stand_in():
    for name in ("libcudart.so.13", "libcudart.so.12"):
        try:
            return hasattr(ctypes.CDLL(name), "fakecuda_reset")
        except OSError:
            continue
    return False


if not on_stand_in():
    import numpy as np  # noqa: E402
    ok, m = sample.get_buffer().map(Gst.MapFlags.READ)
    assert ok, "the batch does not map"
    t = np.frombuffer(m.data, dtype=np.float32, count=2 * 3 * 16 * 32)
    t = t.reshape(2, 3, 16, 32).copy()
    sample.get_buffer().unmap(m)
    # white, (1 - 0.5) / 0.5, where the square frame lies; black across
    assert np.allclose(t[0, :, :, 8:24], 1.0, atol=1e-3), t[0, :, :, 8:24]
    assert np.allclose(t[1], -1.0, atol=0.02), t[1]
    print("batch values: white 1.0, black -1.0")
pipeline.set_state(Gst.State.NULL)
print("batch: %r, slots %s" % (frame, [(s.pad_name, s.x, s.width)
                                        for s in slots]))
sys.exit(0)
