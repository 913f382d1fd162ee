#!/usr/bin/env python3
"""gst-pinned from Python, through GObject introspection: uploads frames and
looks at what arrives in the appsink: device memory, its device, and whether
the copy that writes it has finished (the fence), without waiting for it.

  GI_TYPELIB_PATH=build/src python3 examples/pinned-frames.py [frames]
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
from gi.repository import Gst, GstPinned  # noqa: E402

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 10
Gst.init(None)
pipeline = Gst.parse_launch(
    "videotestsrc num-buffers=%d ! video/x-raw,format=NV12,width=1920,"
    "height=1080 ! pinnedupload ! appsink name=sink sync=false" % frames)
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)

seen = 0
while True:
    sample = sink.emit("pull-sample")
    if sample is None:
        break
    buf = sample.get_buffer()
    context = GstPinned.buffer_get_context(buf)
    on_device = GstPinned.is_pinned_device_memory(buf.peek_memory(0))
    landed = GstPinned.buffer_is_idle(buf, Gst.MapFlags.READ)
    print("frame %d: device memory %s on CUDA device %d (%s), copy %s"
          % (seen, on_device, context.get_device_id(),
             context.get_device_name(), "done" if landed else "in flight"))
    if not on_device:
        sys.exit(1)
    seen += 1

pipeline.set_state(Gst.State.NULL)
sys.exit(0 if seen == frames else 1)
