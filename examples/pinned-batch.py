#!/usr/bin/env python3
"""Many streams, one model call: N streams through pinnedbatch into one
[N, 3, H, W] tensor a batch, handed to a torchvision classifier (built
without weights: nothing is downloaded, the classes are meaningless), and
the result printed per stream, from the batch's slots.

  meson devenv -C build python3 examples/pinned-batch.py [-n 4] [--frames 30]
      [--model resnet18] [--size 224] [FILE ...]

FILEs (H.264 in MP4, decoded on the GPU by nvh264dec) give the streams;
without them, N videotestsrc patterns at different sizes. Needs PyGObject,
PyTorch and torchvision; on the GPU machine, make PyGObject first with
../shared/device/pygobject-kit.sh.
"""
import argparse
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
from gi.repository import Gst, GstPinned  # noqa: E402

SIZES = ["1920x1080", "1280x720", "640x480", "720x576", "3840x2160"]


def launch_line(args):
    batch = ("pinnedbatch name=b width=%d height=%d type=float16 "
             "letterbox=false mean=<0.485,0.456,0.406> "
             "std=<0.229,0.224,0.225> ! appsink name=out max-buffers=2 "
             % (args.size, args.size))
    if args.files:
        srcs = ["filesrc location=%s ! qtdemux ! h264parse ! nvh264dec ! "
                "b.sink_%d" % (f, i) for i, f in enumerate(args.files)]
    else:
        srcs = []
        for i in range(args.n):
            w, h = SIZES[i % len(SIZES)].split("x")
            srcs.append("videotestsrc pattern=%d num-buffers=%d ! "
                        "video/x-raw,format=NV12,width=%s,height=%s ! "
                        "b.sink_%d" % (i % 20, args.frames, w, h, i))
    return batch + " ".join(srcs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("-n", type=int, default=4, help="test streams")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--size", type=int, default=224)
    args = ap.parse_args()

    import torch
    import torchvision
    model = getattr(torchvision.models, args.model)(weights=None)
    model = model.eval().half().cuda()

    Gst.init(None)
    pipeline = Gst.parse_launch(launch_line(args))
    sink = pipeline.get_by_name("out")
    pipeline.set_state(Gst.State.PLAYING)
    batches = 0
    with torch.inference_mode():
        while True:
            sample = sink.emit("pull-sample")
            if sample is None:
                break
            frame = GstPinned.Frame(sample)
            # no copy: the batch's device memory, ordered after its kernel
            # on torch's stream
            x = torch.from_dlpack(frame)
            classes = model(x).argmax(dim=1).tolist()
            for slot in frame.slots:
                if slot.empty:
                    continue
                print("batch %d  %s  pts %.3f s  %dx%d  class %d"
                      % (batches, slot.pad_name, slot.pts / Gst.SECOND,
                         slot.source_width, slot.source_height,
                         classes[slot.index]))
            batches += 1
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg:
        err, dbg = msg.parse_error()
        sys.exit("pinned-batch: %s (%s)" % (err.message, dbg))
    print("%d batches" % batches)
    return 0 if batches else 1


if __name__ == "__main__":
    sys.exit(main())
