#!/usr/bin/env python3
"""GstPinned.Frame and GstPinned.buffer_from_dlpack through the CUDA
stand-in (or a GPU): no PyTorch here, the consumers are NumPy (page-locked
frames) and a small ctypes consumer of the capsule that copies the tensor
out on its own stream with the CUDA runtime, as a kernel would read it.

  meson devenv -C BUILD python3 tests/python/tensor.py

Exit status 0 when every check passed, 1 otherwise, 77 when this Python has
no NumPy or gst-pinned was built without DLPack.
"""
import ctypes
import gc
import sys
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstPinned", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstPinned, GstVideo  # noqa: E402

try:
    import numpy as np
except ImportError:
    print("SKIP: no NumPy")
    sys.exit(77)
if not hasattr(GstPinned, "tensor_import"):
    print("SKIP: gst-pinned was built without DLPack")
    sys.exit(77)

from gi.overrides.GstPinned import (  # noqa: E402
    DLPACK_FLAG_BITMASK_READ_ONLY, _DELETER, _DELETER_VERSIONED,
    _DLManagedTensor, _DLManagedTensorVersioned, _capi, kDLCPU, kDLCUDA,
    kDLCUDAHost)

failures = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)


Gst.init(None)
GstPinned.Context.new(0)  # loads libgstpinned and its CUDA runtime
cudart = None
for soname in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
    try:
        cudart = ctypes.CDLL(soname)
        break
    except OSError:
        pass
if cudart is None:
    sys.exit("no libcudart")
H2D, D2H, DEFAULT = 1, 2, 4
c_p = ctypes.c_void_p
cudart.cudaMalloc.argtypes = [ctypes.POINTER(c_p), ctypes.c_size_t]
cudart.cudaFree.argtypes = [c_p]
cudart.cudaMemcpy.argtypes = [c_p, c_p, ctypes.c_size_t, ctypes.c_int]
cudart.cudaMemcpy2DAsync.argtypes = [c_p, ctypes.c_size_t, c_p,
                                     ctypes.c_size_t, ctypes.c_size_t,
                                     ctypes.c_size_t, ctypes.c_int, c_p]
cudart.cudaStreamCreate.argtypes = [ctypes.POINTER(c_p)]
cudart.cudaStreamSynchronize.argtypes = [c_p]
cudart.cudaStreamDestroy.argtypes = [c_p]
cudart.cudaDeviceSynchronize.argtypes = []


def cuda(result, what):
    if result != 0:
        raise RuntimeError("%s failed: %d" % (what, result))


def consume(capsule, stream):
    """A consumer of the capsule: takes it (renames it, as PyTorch does),
    copies every element out on @stream, runs the deleter. Returns the
    tensor's elements as a NumPy array and its DLPack fields."""
    address = _capi.PyCapsule_GetPointer(id(capsule), b"dltensor")
    _capi.PyCapsule_SetName(capsule, b"used_dltensor")
    managed = _DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim))
    elem = t.dtype.bits // 8
    dtype = np.uint8 if elem == 1 else np.uint16
    out = np.zeros(shape, dtype=dtype)
    base = t.data + t.byte_offset
    if t.ndim == 2:
        lead, rows, width, row_stride = 1, shape[0], shape[1], strides[0]
    elif strides[1] == shape[2]:
        # [H, W, C]: rows of W * C elements.
        lead, rows, width, row_stride = 1, shape[0], shape[1] * shape[2], \
            strides[0]
    else:
        # [C, H, W]: C planes of rows of W elements.
        lead, rows, width, row_stride = shape[0], shape[1], shape[2], \
            strides[1]
    flat = out.reshape(lead, rows, width)
    for i in range(lead):
        src = base + (i * strides[0] * elem if lead > 1 else 0)
        dst = flat[i].ctypes.data
        cuda(cudart.cudaMemcpy2DAsync(dst, width * elem, src,
                                      row_stride * elem, width * elem, rows,
                                      DEFAULT, stream), "cudaMemcpy2DAsync")
    cuda(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
    fields = dict(shape=shape, strides=strides, bits=t.dtype.bits,
                  device=(t.device.device_type, t.device.device_id))
    managed.deleter(ctypes.cast(address, ctypes.POINTER(_DLManagedTensor)))
    return out, fields


def run(launch, sinks, frames):
    """Runs @launch to its end; the samples of each named appsink."""
    pipeline = Gst.parse_launch(launch)
    got = {name: [] for name in sinks}
    for name in sinks:
        sink = pipeline.get_by_name(name)
        sink.set_property("emit-signals", True)
        sink.connect("new-sample", lambda s, n=name: (
            got[n].append(s.emit("pull-sample")), Gst.FlowReturn.OK)[1])
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if msg and msg.type == Gst.MessageType.ERROR:
        raise RuntimeError(msg.parse_error()[0].message)
    pipeline.set_state(Gst.State.NULL)
    for name in sinks:
        assert len(got[name]) == frames, (name, len(got[name]))
    return got


def reference(launch_src, frames):
    """The source's frames in system memory, packed, as NumPy bytes."""
    got = run(launch_src + " ! appsink name=ref sync=false", ["ref"], frames)
    out = []
    for s in got["ref"]:
        buf = s.get_buffer()
        ok, m = buf.map(Gst.MapFlags.READ)
        out.append(np.frombuffer(bytes(m.data), dtype=np.uint8))
        buf.unmap(m)
    return out


def plane_view(packed, info, plane, shape):
    """A packed frame's @plane as an array of @shape (elements)."""
    off = info.offset[plane]
    stride = info.stride[plane]
    rows = shape[0]
    row_bytes = int(np.prod(shape[1:]))
    a = np.lib.stride_tricks.as_strided(packed[off:], (rows, stride))
    return a[:, :row_bytes].reshape(shape)


N = 3
W, H = 97, 31
SRC = ("videotestsrc num-buffers=%d pattern=smpte ! "
       "video/x-raw,format=%%s,width=%d,height=%d" % (N, W, H))

stream = c_p()
cuda(cudart.cudaStreamCreate(ctypes.byref(stream)), "cudaStreamCreate")

# ---- device frames: RGBA as [H, W, 4], NV12 per plane -------------------
for fmt in ("RGBA", "NV12"):
    ref = reference(SRC % fmt, N)
    got = run(SRC % fmt + " ! pinnedupload ! appsink name=dev sync=false",
              ["dev"], N)
    info = GstVideo.VideoInfo.new_from_caps(got["dev"][0].get_caps())
    for i, sample in enumerate(got["dev"]):
        frame = GstPinned.Frame(sample)
        check(frame.__dlpack_device__() == (kDLCUDA, 0),
              "%s device frame on (kDLCUDA, 0)" % fmt)
        targets = [frame] if fmt == "RGBA" else frame.planes()
        for p, f in enumerate(targets):
            before = sample.get_buffer().mini_object.refcount
            capsule = f.__dlpack__(stream=stream.value)
            check(sample.get_buffer().mini_object.refcount == before + 1,
                  "%s: the capsule holds the buffer" % fmt)
            arr, fields = consume(capsule, stream)
            check(sample.get_buffer().mini_object.refcount == before,
                  "%s: the deleter let the buffer go" % fmt)
            shape = fields["shape"]
            expect = plane_view(ref[i], GstVideo.VideoInfo.new_from_caps(
                Gst.Caps.from_string("video/x-raw,format=%s,width=%d,"
                                     "height=%d" % (fmt, W, H))),
                p, shape)
            check(np.array_equal(arr, expect),
                  "%s frame %d plane %d: the tensor %r equals the source"
                  % (fmt, i, p, shape))
    if fmt == "NV12":
        check(fields["shape"] == ((H + 1) // 2, (W + 1) // 2, 2),
              "NV12 UV plane is [H/2, W/2, 2]: %r" % (fields["shape"],))

# ---- NV12 of an even size as one [H * 3 / 2, W] tensor ------------------
EW, EH = 96, 30
even = ("videotestsrc num-buffers=%d pattern=smpte ! "
        "video/x-raw,format=NV12,width=%d,height=%d" % (N, EW, EH))
ref = reference(even, N)
got = run(even + " ! pinnedupload ! appsink name=dev sync=false", ["dev"], N)
for i, sample in enumerate(got["dev"]):
    arr, fields = consume(GstPinned.Frame(sample).__dlpack__(
        stream=stream.value), stream)
    check(fields["shape"] == (EH * 3 // 2, EW),
          "NV12 %dx%d as one tensor [H * 3 / 2, W]: %r"
          % (EW, EH, fields["shape"]))
    check(np.array_equal(arr.reshape(-1), ref[i][:EW * EH * 3 // 2]),
          "NV12 frame %d as one tensor equals the source, luma then chroma"
          % i)

# ---- RGBP of pinnedconvert as [3, H, W], and its page-locked twin --------
launch = (SRC % "NV12" + " ! pinnedupload ! pinnedconvert ! "
          "video/x-raw(memory:PinnedDevice),format=RGBP ! tee name=t "
          "t. ! queue ! appsink name=dev sync=false "
          "t. ! queue ! pinneddownload ! appsink name=host sync=false")
got = run(launch, ["dev", "host"], N)
for dev, host in zip(got["dev"], got["host"]):
    frame = GstPinned.Frame(dev)
    arr, fields = consume(frame.__dlpack__(stream=stream.value), stream)
    check(fields["shape"] == (3, H, W) and fields["strides"][2] == 1,
          "RGBP frame is [3, H, W]: %r %r" % (fields["shape"],
                                               fields["strides"]))
    hframe = GstPinned.Frame(host)
    check(hframe.__dlpack_device__() == (kDLCPU, 0),
          "page-locked frame is CPU memory to Python")
    harr = np.from_dlpack(hframe)
    check(harr.shape == (3, H, W) and harr.dtype == np.uint8,
          "NumPy takes the page-locked frame: %r" % (harr.shape,))
    check(np.array_equal(arr, harr),
          "the device tensor equals the downloaded frame")
    del harr

# ---- a GPU consumer of page-locked memory: kDLCUDAHost on request --------
hframe = GstPinned.Frame(got["host"][0])
arr, fields = consume(hframe.__dlpack__(stream=stream.value,
                                        dl_device=(kDLCUDAHost, 0)), stream)
check(fields["device"][0] == kDLCUDAHost,
      "page-locked frame as kDLCUDAHost for a GPU consumer: %r"
      % (fields["device"],))
check(np.array_equal(arr, np.from_dlpack(hframe)),
      "the kDLCUDAHost tensor reads the same bytes")
# The frame's page-locked memory is counted while Python holds it.
locked = GstPinned.host_memory_get_locked_bytes()
check(locked >= got["host"][0].get_buffer().get_size(),
      "the page-locked bytes count the frames Python holds: %d" % locked)
del hframe

# ---- nvcodec's CUDA memory, where nvcodec is there -------------------------
# In the device's primary context, the one this consumer (and PyTorch) works
# in: pinnedupload, first in the pipeline, offers it and the CUDA memory is
# allocated there. (A pipeline that starts with an nvcodec element on 1.22
# has a context of nvcodec's own, whose pointers are valid there only.)
if Gst.ElementFactory.find("cudaupload") is not None:
    ref = reference(SRC % "RGBA", N)
    got_cuda = run(SRC % "RGBA" + " ! pinnedupload ! "
                   "video/x-raw(memory:CUDAMemory) ! appsink name=dev "
                   "sync=false", ["dev"], N)
    for i, sample in enumerate(got_cuda["dev"]):
        frame = GstPinned.Frame(sample)
        check(frame.__dlpack_device__() == (kDLCUDA, 0),
              "CUDA memory frame on (kDLCUDA, 0)")
        arr, fields = consume(frame.__dlpack__(stream=stream.value), stream)
        info = GstVideo.VideoInfo.new_from_caps(Gst.Caps.from_string(
            "video/x-raw,format=RGBA,width=%d,height=%d" % (W, H)))
        check(np.array_equal(arr, plane_view(ref[i], info, 0,
                                             fields["shape"])),
              "CUDA memory frame %d: the tensor equals the source" % i)
    del got_cuda, frame, sample
else:
    print("skipped: no cudaupload (nvcodec)")

# ---- lifetime, streams, __cuda_array_interface__ -------------------------
sample = got["dev"][0]
buf = sample.get_buffer()
frame = GstPinned.Frame(sample)
before = buf.mini_object.refcount
capsule = frame.__dlpack__(stream=-1)
check(buf.mini_object.refcount == before + 1, "an unconsumed capsule holds")
del capsule
gc.collect()
check(buf.mini_object.refcount == before,
      "an unconsumed capsule's destructor runs the deleter")
for bad in (0,):
    try:
        frame.__dlpack__(stream=bad)
        check(False, "stream 0 refused")
    except ValueError as e:
        check("ambiguous" in str(e), "stream 0 refused: %s" % e)
cai = frame.__cuda_array_interface__
check(cai["version"] == 3 and cai["typestr"] == "|u1" and
      cai["shape"] == (3, H, W) and cai["data"][0] == frame.data_ptr and
      cai["stream"] == 1,
      "__cuda_array_interface__: %r" % (cai,))
check(buf.mini_object.refcount == before + 1,
      "__cuda_array_interface__ holds the frame")
frame.release()
check(buf.mini_object.refcount == before, "release() lets it go")
try:
    GstPinned.Frame(got["dev"][0].get_buffer(),
                    "video/x-raw,format=NV12,width=%d,height=%d" % (W, H)
                    ).__dlpack__()
    check(False, "NV12 of an odd size as one tensor refused")
except GLib.Error as e:
    check("export each plane" in e.message, "NV12 of an odd size as one "
          "tensor: %s" % e.message)
del frame, sample, buf, got

# ---- the way back: a tensor of ours into appsrc ! pinneddownload ---------
deleted = []


class CudaTensor(object):
    """A CUDA [H, W, 4] uint8 tensor with padded rows, as a framework
    makes one, with __dlpack__."""

    def __init__(self, array, pad=8, code=1, bits=8):
        h, w, c = array.shape
        self.shape = (ctypes.c_int64 * 3)(h, w, c)
        self.strides = (ctypes.c_int64 * 3)(w * c + pad, c, 1)
        self.size = (h - 1) * (w * c + pad) + w * c
        self.data = c_p()
        cuda(cudart.cudaMalloc(ctypes.byref(self.data), self.size),
             "cudaMalloc")
        padded = np.zeros((h, w * c + pad), dtype=np.uint8)
        padded[:, :w * c] = array.reshape(h, w * c)
        cuda(cudart.cudaMemcpy(self.data, padded.ctypes.data, self.size, H2D),
             "cudaMemcpy")
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = self.data
        t.device.device_type = kDLCUDA
        t.ndim = 3
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = self.shape
        t.strides = self.strides
        self.deleter = _DELETER(self._delete)
        self.managed.deleter = self.deleter
        self.streams = []

    def _delete(self, managed):
        cudart.cudaFree(self.data)
        deleted.append(self)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _capi.PyCapsule_New(ctypes.addressof(self.managed),
                                   b"dltensor", None)


frames = [np.random.RandomState(i).randint(0, 255, (H, W, 4),
                                           dtype=np.uint8) for i in range(N)]
pipeline = Gst.parse_launch("appsrc name=src format=time ! pinneddownload ! "
                            "appsink name=sink sync=false")
src = pipeline.get_by_name("src")
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)
tensors = []
for i, a in enumerate(frames):
    tensor = CudaTensor(a)
    tensors.append(tensor)
    buffer, caps = GstPinned.buffer_from_dlpack(
        tensor, "video/x-raw,format=RGBA,framerate=30/1", with_caps=True)
    if i == 0:
        src.set_property("caps", caps)
        check(caps.get_structure(0).get_value("width") == W,
              "caps from the shape: %s" % caps.to_string())
    buffer.pts = i * Gst.SECOND // 30
    src.emit("push-buffer", buffer)
    del buffer
src.emit("end-of-stream")
outs = []
while True:
    s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
    if s is None:
        break
    b = s.get_buffer()
    ok, m = b.map(Gst.MapFlags.READ)
    outs.append(np.frombuffer(bytes(m.data), dtype=np.uint8))
    b.unmap(m)
pipeline.set_state(Gst.State.NULL)
del pipeline, src, sink
gc.collect()
check(len(outs) == N, "every tensor came out of pinneddownload")
for i, (a, o) in enumerate(zip(frames, outs)):
    check(np.array_equal(o[:a.size].reshape(a.shape), a),
          "tensor %d came back bit-exact" % i)
check(all(t.streams == [1] for t in tensors),
      "the producer's stream defaults to the legacy default stream")
# A tensor whose copy still ran when its buffer went goes back on the
# release thread once the copy is done: wait for that thread (5 s at most).
deadline = time.monotonic() + 5
while len(deleted) < N and time.monotonic() < deadline:
    time.sleep(0.01)
check(len(deleted) == N, "every tensor's deleter ran once the buffer went "
      "(%d of %d)" % (len(deleted), N))

bad = CudaTensor(frames[0], code=2, bits=32)
try:
    GstPinned.buffer_from_dlpack(bad, "video/x-raw,format=RGBA")
    check(False, "a float tensor refused")
except GLib.Error as e:
    check("uint8" in e.message, "a float tensor refused: %s" % e.message)
check(bad in deleted, "a refused tensor's deleter ran")

# ---- DLPack 1.x: versioned capsules, read-only unless written -----------
def capsule_fields(capsule):
    """(name, version, flags, device) of an unconsumed capsule, through
    ctypes; the capsule keeps its tensor (its destructor releases it)."""
    for name in (b"dltensor_versioned", b"dltensor"):
        if _capi.PyCapsule_IsValid(id(capsule), name):
            address = _capi.PyCapsule_GetPointer(id(capsule), name)
            if name == b"dltensor":
                t = _DLManagedTensor.from_address(address).dl_tensor
                return name, None, None, (t.device.device_type,
                                          t.device.device_id), t.data
            m = _DLManagedTensorVersioned.from_address(address)
            return (name, (m.version.major, m.version.minor), m.flags,
                    (m.dl_tensor.device.device_type,
                     m.dl_tensor.device.device_id), m.dl_tensor.data)
    return None, None, None, None, None


RGBA = "video/x-raw,format=RGBA,width=%d,height=%d" % (W, H)
got = run(SRC % "RGBA" + " ! pinnedupload ! tee name=t t. ! queue ! "
          "appsink name=dev sync=false t. ! queue ! pinneddownload ! "
          "appsink name=host sync=false", ["dev", "host"], N)
for what, sample in (("device", got["dev"][0]), ("page-locked",
                                                  got["host"][0])):
    buf = sample.get_buffer()
    before = buf.mini_object.refcount
    for write in (False, True):
        frame = GstPinned.Frame(buf, RGBA, write=write)
        for mv, versioned in ((None, False), ((0, 8), False),
                              ((1, 0), True), ((1, 3), True)):
            kwargs = {} if frame.is_host else {"stream": stream.value}
            capsule = frame.__dlpack__(max_version=mv, **kwargs)
            name, version, flags, device, data = capsule_fields(capsule)
            if versioned:
                check(name == b"dltensor_versioned" and version == (1, 0),
                      "%s frame, max_version %r: a versioned capsule of "
                      "DLPack 1.0 (%r %r)" % (what, mv, name, version))
                ro = bool(flags & DLPACK_FLAG_BITMASK_READ_ONLY)
                check(ro == (not write),
                      "%s frame for %s: the read-only flag %s (flags %d)"
                      % (what, "writing" if write else "reading",
                         "clear" if write else "set", flags))
            else:
                check(name == b"dltensor", "%s frame, max_version %r: a "
                      "DLPack 0.6 capsule (%r)" % (what, mv, name))
            if frame.is_host:
                check(device == (kDLCPU, 0), "page-locked frame's tensor "
                      "on kDLCPU: %r" % (device,))
            check(buf.mini_object.refcount == before + 1,
                  "the %s capsule holds the buffer" % name.decode())
            del capsule
            gc.collect()
            check(buf.mini_object.refcount == before, "an unconsumed %s "
                  "capsule's destructor released it" % name.decode())
        del frame
    # A versioned capsule consumed: renamed and released by its deleter.
    frame = GstPinned.Frame(buf, RGBA)
    kwargs = {} if frame.is_host else {"stream": stream.value}
    capsule = frame.__dlpack__(max_version=(1, 0), **kwargs)
    address = _capi.PyCapsule_GetPointer(id(capsule), b"dltensor_versioned")
    _capi.PyCapsule_SetName(capsule, b"used_dltensor_versioned")
    m = _DLManagedTensorVersioned.from_address(address)
    check(m.dl_tensor.ndim == 3 and m.dl_tensor.shape[0] == H and
          m.dl_tensor.shape[1] == W and m.dl_tensor.shape[2] == 4,
          "the versioned %s tensor is [H, W, 4]" % what)
    m.deleter(ctypes.cast(address, ctypes.POINTER(_DLManagedTensorVersioned)))
    del capsule, frame
    gc.collect()
    check(buf.mini_object.refcount == before, "the versioned deleter let "
          "the %s frame go" % what)

# The page-locked frame's memory is what CUDA (and so torch's is_pinned())
# calls page-locked host memory, at both ends.
class PointerAttributes(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("device", ctypes.c_int),
                ("devicePointer", c_p), ("hostPointer", c_p),
                ("reserved", ctypes.c_long * 8)]


cudart.cudaPointerGetAttributes.argtypes = [
    ctypes.POINTER(PointerAttributes), c_p]
MEMORY_TYPE_HOST = 1


def page_locked(address):
    attr = PointerAttributes()
    cuda(cudart.cudaPointerGetAttributes(ctypes.byref(attr), address),
         "cudaPointerGetAttributes")
    return attr.type == MEMORY_TYPE_HOST


arr = np.from_dlpack(GstPinned.Frame(got["host"][0]))
check(page_locked(arr.ctypes.data) and
      page_locked(arr.ctypes.data + (arr.shape[0] - 1) * arr.strides[0] +
                  arr.shape[1] * arr.strides[1] - 1),
      "a downloaded frame's CPU tensor is page-locked to CUDA (torch's "
      "is_pinned())")
check(not arr.flags.writeable, "NumPy's view of a frame for reading is "
      "read-only")
del arr
ro = np.asarray(GstPinned.Frame(got["host"][0]))
check(not ro.flags.writeable and ro.shape == (H, W, 4),
      "numpy.asarray of a frame for reading: read-only [H, W, 4]")
del ro, got, buf, sample

# ---- writing into the pool pinnedupload offers -----------------------------
cudart.fakecuda_set_copy_delay.argtypes = [ctypes.c_uint64]
frames = [np.random.RandomState(10 + i).randint(0, 255, (H, W, 4),
                                                dtype=np.uint8)
          for i in range(N)]
pipeline = Gst.parse_launch(
    "appsrc name=src format=time caps=%s,framerate=30/1 ! "
    "pinnedupload name=up ! pinneddownload ! appsink name=sink sync=false"
    % RGBA)
src = pipeline.get_by_name("src")
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)
pool = GstPinned.HostBufferPool.from_peer(src.get_static_pad("src"),
                                          Gst.Caps.from_string(RGBA), 2)
check(pool is not None, "the Python app gets the offered page-locked pool")
info = GstVideo.VideoInfo.new_from_caps(Gst.Caps.from_string(RGBA))
outs = []
for i, a in enumerate(frames):
    ok, buf = pool.acquire_buffer(None)
    check(ok == Gst.FlowReturn.OK and
          GstPinned.is_pinned_host_memory(buf.peek_memory(0)),
          "frame %d: a page-locked buffer of the pool" % i)
    frame = GstPinned.Frame(buf, info=info, write=True)
    view = np.asarray(frame)
    check(view.flags.writeable and view.shape == (H, W, 4),
          "frame %d: numpy.asarray of a frame for writing is writable" % i)
    np.copyto(view, a)
    del view
    frame.release()
    buf.pts = i * Gst.SECOND // 30
    src.emit("push-buffer", buf)
    s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
    b = s.get_buffer()
    ok, m = b.map(Gst.MapFlags.READ)
    outs.append(np.frombuffer(bytes(m.data), dtype=np.uint8))
    b.unmap(m)
    if i == 0:
        # Pushed and downloaded: a view for writing now waits for the
        # upload's copy that still reads the buffer (the stand-in's copies
        # take 0.5 s from here), one for reading does not.
        cudart.fakecuda_set_copy_delay(500000)
        ok, buf2 = pool.acquire_buffer(None)
        np.copyto(np.asarray(GstPinned.Frame(buf2, info=info, write=True)),
                  a)
        src.emit("push-buffer", buf2)
        sink.emit("try-pull-sample", 10 * Gst.SECOND)
        t0 = time.monotonic()
        reader = np.asarray(GstPinned.Frame(buf2, info=info))
        read_wait = time.monotonic() - t0
        try:
            np.asarray(GstPinned.Frame(buf2, info=info, write=True))
            check(False, "no view for writing while one for reading lives")
        except GLib.Error as e:
            check("cannot map" in e.message, "no view for writing while one "
                  "for reading lives: %s" % e.message)
        del reader
        writer = np.asarray(GstPinned.Frame(buf2, info=info, write=True))
        write_wait = time.monotonic() - t0
        cudart.fakecuda_set_copy_delay(0)
        check(read_wait < 0.25 and write_wait >= 0.3,
              "a CPU view for writing waits for the copy that reads the "
              "buffer (%.2f s), one for reading does not (%.2f s)"
              % (write_wait, read_wait))
        del writer, buf2
    del frame, buf
src.emit("end-of-stream")
pipeline.set_state(Gst.State.NULL)
pool.set_active(False)
del pipeline, src, sink, pool
for i, (a, o) in enumerate(zip(frames, outs)):
    check(np.array_equal(o[:a.size].reshape(a.shape), a),
          "frame %d written through the NumPy view came out of "
          "pinnedupload ! pinneddownload bit-exact" % i)

# ---- Frame.copy_from: the frame written in bands over threads -------------
BIG = "video/x-raw,format=RGBA,width=1280,height=800"
pipeline = Gst.parse_launch(
    "appsrc name=src format=time caps=%s,framerate=30/1 ! "
    "pinnedupload ! pinneddownload ! appsink name=sink sync=false" % BIG)
src = pipeline.get_by_name("src")
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)
pool = GstPinned.HostBufferPool.from_peer(src.get_static_pad("src"),
                                          Gst.Caps.from_string(BIG), 2)
big_info = GstVideo.VideoInfo.new_from_caps(Gst.Caps.from_string(BIG))
big = [np.random.RandomState(40 + i).randint(0, 255, (800, 1280, 4),
                                             dtype=np.uint8)
       for i in range(3)]
outs = []
for i, a in enumerate(big):
    ok, buf = pool.acquire_buffer(None)
    frame = GstPinned.Frame(buf, info=big_info, write=True)
    if i == 0:
        for bad, what in ((np.zeros((800, 1280, 3), np.uint8), "shape"),):
            try:
                frame.copy_from(bad)
                check(False, "copy_from refuses an array of another %s" % what)
            except GLib.Error as e:
                check(isinstance(e, ValueError) and "shape" in e.message,
                      "copy_from refuses an array of another shape as "
                      "GLib.Error and ValueError: %s" % e.message)
        try:
            GstPinned.Frame(buf, info=big_info).copy_from(a)
            check(False, "copy_from refuses a frame opened for reading")
        except GLib.Error as e:
            check("writing" in e.message, "copy_from refuses a frame opened "
                  "for reading: %s" % e.message)
    # Three bands on threads (a frame of 4 MB), then one.
    frame.copy_from(a, threads=3 if i < 2 else 1)
    frame.release()
    buf.pts = i * Gst.SECOND // 30
    src.emit("push-buffer", buf)
    b = sink.emit("try-pull-sample", 10 * Gst.SECOND).get_buffer()
    outs.append(np.frombuffer(b.extract_dup(0, a.size), dtype=np.uint8))
    del frame, buf
src.emit("end-of-stream")
pipeline.set_state(Gst.State.NULL)
pool.set_active(False)
del pipeline, src, sink, pool
for i, (a, o) in enumerate(zip(big, outs)):
    check(np.array_equal(o.reshape(a.shape), a),
          "frame %d written by Frame.copy_from (%s) came out of "
          "pinnedupload ! pinneddownload bit-exact"
          % (i, "3 threads" if i < 2 else "one thread"))

# With a NumPy that asks for DLPack 1.x (2.1 and later), from_dlpack gives
# the writable view itself; older ones take 0.6 capsules, read-only.
if tuple(int(x) for x in np.__version__.split(".")[:2]) >= (2, 1):
    host = run(SRC % "RGBA" + " ! pinnedupload ! pinneddownload ! "
               "appsink name=host sync=false", ["host"], N)["host"][0]
    wview = np.from_dlpack(GstPinned.Frame(host, write=True))
    writable = wview.flags.writeable
    if writable:
        wview[0, 0] = (1, 2, 3, 4)
    del wview
    rview = np.from_dlpack(GstPinned.Frame(host))
    check(writable and not rview.flags.writeable,
          "NumPy %s's from_dlpack: a frame for writing writable, one for "
          "reading read-only" % np.__version__)
    check(tuple(rview[0, 0]) == (1, 2, 3, 4), "the writable view wrote "
          "the frame's memory")
    del rview, host
else:
    print("skipped: NumPy %s asks for DLPack 0.6 capsules (from_dlpack's "
          "writable view needs NumPy 2.1)" % np.__version__)

# ---- CPU tensors into buffer_from_dlpack ----------------------------------
cudart.cudaHostAlloc.argtypes = [ctypes.POINTER(c_p), ctypes.c_size_t,
                                 ctypes.c_uint]
cudart.cudaFreeHost.argtypes = [c_p]


class CpuTensor(object):
    """A CPU [H, W, 4] uint8 tensor of NumPy's in page-locked memory
    (cudaHostAlloc, as PyTorch's pin_memory() allocates) or in malloc'ed
    memory, exposing __dlpack__ as a framework's CPU tensor does; its
    capsule's deleter is ours, so that the test sees when it runs."""

    def __init__(self, array, locked):
        self.size = array.size
        if locked:
            self.ptr = c_p()
            cuda(cudart.cudaHostAlloc(ctypes.byref(self.ptr), self.size, 0),
                 "cudaHostAlloc")
            self.array = np.ctypeslib.as_array(
                ctypes.cast(self.ptr, ctypes.POINTER(ctypes.c_uint8)),
                (self.size,)).reshape(array.shape)
        else:
            self.ptr = None
            self.array = np.empty_like(array)
        np.copyto(self.array, array)
        self.shape = (ctypes.c_int64 * 3)(*array.shape)
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = self.array.ctypes.data
        t.device.device_type = kDLCPU
        t.ndim = 3
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 1, 8, 1
        t.shape = self.shape
        self.deleter = _DELETER(self._delete)
        self.managed.deleter = self.deleter
        self.deleted_at = None
        self.asked = []

    def _delete(self, managed):
        self.deleted_at = time.monotonic()

    def free(self):
        if self.ptr is not None:
            del self.array
            cudart.cudaFreeHost(self.ptr)
            self.ptr = None

    def __dlpack_device__(self):
        return (kDLCPU, 0)

    def __dlpack__(self, **kwargs):
        self.asked.append(kwargs)
        return _capi.PyCapsule_New(ctypes.addressof(self.managed),
                                   b"dltensor", None)


def upload_cpu_tensors(tensors, delay_us=0):
    """Pushes each tensor through buffer_from_dlpack ! pinnedupload !
    pinneddownload; (downloaded frames, upload stats, push times)."""
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time ! pinnedupload name=up ! "
        "pinneddownload ! appsink name=sink sync=false")
    src = pipeline.get_by_name("src")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    outs, pushed = [], []
    for i, t in enumerate(tensors):
        buffer, caps = GstPinned.buffer_from_dlpack(
            t, "video/x-raw,format=RGBA,framerate=30/1", with_caps=True)
        if i == 0:
            src.set_property("caps", caps)
            check(not caps.get_features(0).contains("memory:PinnedDevice"),
                  "a CPU tensor's caps are system memory's: %s"
                  % caps.to_string())
        t.pinned_memory = GstPinned.is_pinned_host_memory(
            buffer.peek_memory(0))
        buffer.pts = i * Gst.SECOND // 30
        cudart.fakecuda_set_copy_delay(delay_us)
        pushed.append(time.monotonic())
        src.emit("push-buffer", buffer)
        del buffer
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        cudart.fakecuda_set_copy_delay(0)
        b = s.get_buffer()
        ok, m = b.map(Gst.MapFlags.READ)
        outs.append(np.frombuffer(bytes(m.data), dtype=np.uint8))
        b.unmap(m)
    stats = pipeline.get_by_name("up").get_property("stats")
    src.emit("end-of-stream")
    pipeline.set_state(Gst.State.NULL)
    return outs, stats, pushed


frames = [np.random.RandomState(20 + i).randint(0, 255, (H, W, 4),
                                                dtype=np.uint8)
          for i in range(N)]
for locked in (True, False):
    what = "page-locked" if locked else "pageable"
    tensors = [CpuTensor(a, locked) for a in frames]
    outs, stats, pushed = upload_cpu_tensors(tensors,
                                             400000 if locked else 0)
    for i, (a, o) in enumerate(zip(frames, outs)):
        check(np.array_equal(o[:a.size].reshape(a.shape), a),
              "%s CPU tensor %d came out of pinnedupload ! pinneddownload "
              "bit-exact" % (what, i))
    check(all("stream" not in t.asked[0] for t in tensors),
          "a CPU tensor's __dlpack__ is asked for no stream: %r"
          % (tensors[0].asked[0],))
    deadline = time.monotonic() + 5
    while any(t.deleted_at is None for t in tensors) and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    check(all(t.deleted_at is not None for t in tensors),
          "every %s tensor's deleter ran once its buffer went" % what)
    staged = stats.get_uint64("staged")[1]
    pageable = stats.get_uint64("pageable-buffers")[1]
    if locked:
        check(all(t.pinned_memory for t in tensors),
              "a page-locked CPU tensor is page-locked memory of "
              "gst-pinned's (fenced)")
        check(staged == 0 and pageable == 0,
              "page-locked CPU tensors are copied directly: no staging "
              "(staged %d, pageable-buffers %d)" % (staged, pageable))
        # The stand-in's copies took 0.4 s: the deleter waited for them.
        late = [t.deleted_at - p for t, p in zip(tensors, pushed)]
        check(min(late) >= 0.3, "a page-locked tensor is held until the "
              "copy that reads it is done (deleters %s s after the push)"
              % ", ".join("%.2f" % x for x in late))
    else:
        check(not any(t.pinned_memory for t in tensors),
              "a pageable CPU tensor is system memory")
        check(staged >= N and pageable >= N,
              "pageable CPU tensors are staged (staged %d, "
              "pageable-buffers %d)" % (staged, pageable))
    for t in tensors:
        t.free()

# A tensor whose first half only is page-locked (registered) cannot be read
# as page-locked memory: it is staged, and every byte arrives.
cudart.cudaHostRegister.argtypes = [c_p, ctypes.c_size_t, ctypes.c_uint]
cudart.cudaHostUnregister.argtypes = [c_p]
tensors = [CpuTensor(a, False) for a in frames[:1]]
half = tensors[0].array.ctypes.data
cuda(cudart.cudaHostRegister(half, tensors[0].size // 2, 0),
     "cudaHostRegister")
outs, stats, pushed = upload_cpu_tensors(tensors)
check(not tensors[0].pinned_memory and stats.get_uint64("staged")[1] == 1,
      "a CPU tensor page-locked in its first half only is staged")
check(np.array_equal(outs[0][:frames[0].size].reshape(frames[0].shape),
                     frames[0]), "the half page-locked tensor came out "
      "bit-exact")
cuda(cudart.cudaHostUnregister(half), "cudaHostUnregister")
del tensors

# NumPy's own arrays (DLPack 0.6 from NumPy 1, 1.x from NumPy 2): pageable.
a = frames[0].copy()
buffer = GstPinned.buffer_from_dlpack(a, "video/x-raw,format=RGBA")
ok, m = buffer.map(Gst.MapFlags.READ)
check(np.array_equal(np.frombuffer(bytes(m.data), np.uint8)[:a.size], a.ravel())
      and not GstPinned.is_pinned_host_memory(buffer.peek_memory(0)),
      "a NumPy array is a buffer of its own memory")
buffer.unmap(m)
del buffer

# A versioned capsule in: made here with ctypes, as NumPy 2 and PyTorch
# make them.
vdeleted = []
vm = _DLManagedTensorVersioned()
vm.version.major, vm.version.minor = 1, 0
vt = vm.dl_tensor
vt.data = a.ctypes.data
vt.device.device_type = kDLCPU
vt.ndim = 3
vt.dtype.code, vt.dtype.bits, vt.dtype.lanes = 1, 8, 1
vshape = (ctypes.c_int64 * 3)(*a.shape)
vt.shape = vshape
vdel = _DELETER_VERSIONED(lambda p: vdeleted.append(True))
vm.deleter = vdel
vm.flags = DLPACK_FLAG_BITMASK_READ_ONLY
capsule = _capi.PyCapsule_New(ctypes.addressof(vm), b"dltensor_versioned",
                              None)
buffer = GstPinned.buffer_from_dlpack(capsule, "video/x-raw,format=RGBA")
check(_capi.PyCapsule_IsValid(id(capsule), b"used_dltensor_versioned") == 1,
      "a versioned capsule is consumed (renamed used_dltensor_versioned)")
ok, m = buffer.map(Gst.MapFlags.READ)
check(np.array_equal(np.frombuffer(bytes(m.data), np.uint8)[:a.size],
                     a.ravel()), "a versioned CPU tensor's bytes")
buffer.unmap(m)
del buffer
gc.collect()
check(vdeleted == [True], "the versioned tensor's deleter ran once")

# ---- refusals: GLib.Error, whatever refused --------------------------------
class OtherDevice(object):
    def __dlpack_device__(self):
        return (4, 0)  # kDLOpenCL

    def __dlpack__(self, **kwargs):
        raise AssertionError("never asked")


class Asserting(object):
    """A producer that asserts when asked, as PyTorch does for a stream."""

    def __dlpack_device__(self):
        return (kDLCUDA, 0)

    def __dlpack__(self, **kwargs):
        assert False, "stream given for a CPU tensor"


quark = GLib.quark_to_string(GstPinned.tensor_error_quark())
host_sample = run(SRC % "RGBA" + " ! pinnedupload ! pinneddownload ! "
                  "appsink name=host sync=false", ["host"], N)["host"][0]
refusals = (
    ("an OpenCL tensor", lambda: GstPinned.buffer_from_dlpack(
        OtherDevice(), "video/x-raw,format=RGBA"), "kDLOpenCL", None),
    ("a producer that asserts", lambda: GstPinned.buffer_from_dlpack(
        Asserting(), "video/x-raw,format=RGBA"), "AssertionError", None),
    ("an int", lambda: GstPinned.buffer_from_dlpack(
        7, "video/x-raw,format=RGBA"), "not a DLPack tensor", TypeError),
    ("a float NumPy array", lambda: GstPinned.buffer_from_dlpack(
        np.zeros((8, 8, 4), np.float32), "video/x-raw,format=RGBA"),
     "uint8", None),
    ("a frame without caps", lambda: GstPinned.Frame(
        host_sample.get_buffer()), "needs its caps", ValueError),
    ("a copy asked of a frame", lambda: GstPinned.Frame(
        host_sample).__dlpack__(copy=True), "without a copy", BufferError),
    ("a stream for a CPU consumer", lambda: GstPinned.Frame(
        host_sample).__dlpack__(stream=5), "takes no stream", ValueError),
    ("another device asked of a frame", lambda: GstPinned.Frame(
        host_sample).__dlpack__(dl_device=(kDLCUDA, 0)), "not", BufferError),
    ("a bogus max_version", lambda: GstPinned.Frame(
        host_sample).__dlpack__(max_version="x"), "max_version", TypeError),
)
for what, call, words, also in refusals:
    try:
        call()
        check(False, "%s refused" % what)
    except GLib.Error as e:
        check(words in e.message and e.domain == quark and
              (also is None or isinstance(e, also)),
              "%s refused with the reason: %s%s" % (
                  what, e.message, " (also %s)" % also.__name__ if also
                  else ""))
    except Exception as e:  # noqa: B902: the defect this checks for
        check(False, "%s refused with %s, not GLib.Error: %s"
              % (what, type(e).__name__, e))

cuda(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy")
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all tensor checks passed")
