#!/usr/bin/env python3
"""gst-pinned from Python, through GObject introspection: uploads frames and
looks at what arrives in the appsink: device memory, its device, and whether
the copy that writes it has finished (the fence), without waiting for it.

  meson devenv -C build python3 examples/pinned-frames.py [frames]

or, with gst-pinned installed, python3 examples/pinned-frames.py. Needs
PyGObject (`gi`): Debian's python3 has it (python3-gi); see the README for a
virtual environment or a Python of one's own. Exit status 0 when every frame
arrived in device memory, 1 otherwise (no usable GPU, for one: the error
says why).
"""
import sys

try:
    import gi
except ImportError:
    sys.exit("pinned-frames: this Python (%s) has no PyGObject (gi): run it "
             "with Debian's /usr/bin/python3 (package python3-gi), or see "
             "the README's section on Python" % sys.executable)

gi.require_version("Gst", "1.0")
try:
    gi.require_version("GstPinned", "1.0")
except ValueError:
    sys.exit("pinned-frames: no GstPinned-1.0 typelib: install gst-pinned, "
             "or run from the build with 'meson devenv -C build'")
from gi.repository import Gst, GstPinned  # noqa: E402


def pop_error(pipeline):
    """Prints the error the pipeline posted; True when there was one."""
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg is None:
        return False
    error, debug = msg.parse_error()
    print("pinned-frames: %s: %s" % (msg.src.get_name(), error.message),
          file=sys.stderr)
    if debug:
        print("  detail: %s" % debug, file=sys.stderr)
    return True


def pull(pipeline, sink):
    """The next sample; None at the end of the stream or after an error
    (raises SystemExit then). Waits in short steps and looks at the bus in
    between: a failed element posts an error, and the appsink, which never
    sees the end of the stream, would wait for ever."""
    while not sink.props.eos:
        sample = sink.emit("try-pull-sample", 100 * Gst.MSECOND)
        if sample is not None:
            return sample
        if pop_error(pipeline):
            raise SystemExit(1)
    return None


def main():
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=%d ! video/x-raw,format=NV12,width=1920,"
        "height=1080 ! pinnedupload ! appsink name=sink sync=false" % frames)
    sink = pipeline.get_by_name("sink")
    seen = 0
    try:
        if pipeline.set_state(Gst.State.PLAYING) == \
                Gst.StateChangeReturn.FAILURE:
            if not pop_error(pipeline):
                print("pinned-frames: the pipeline did not start",
                      file=sys.stderr)
            return 1
        while True:
            sample = pull(pipeline, sink)
            if sample is None:
                break
            buf = sample.get_buffer()
            context = GstPinned.buffer_get_context(buf)
            on_device = GstPinned.is_pinned_device_memory(buf.peek_memory(0))
            landed = GstPinned.buffer_is_idle(buf, Gst.MapFlags.READ)
            if not on_device or context is None:
                print("pinned-frames: frame %d is not in device memory" % seen,
                      file=sys.stderr)
                return 1
            print("frame %d: device memory on CUDA device %d (%s), copy %s"
                  % (seen, context.get_device_id(), context.get_device_name(),
                     "done" if landed else "in flight"))
            seen += 1
    finally:
        pipeline.set_state(Gst.State.NULL)
    return 0 if seen == frames else 1


if __name__ == "__main__":
    sys.exit(main())
