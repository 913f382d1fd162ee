# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""GstPinned for Python: frames as DLPack tensors and back.

PyGObject loads this module with ``from gi.repository import GstPinned``
(an override, found on ``sys.path`` under ``gi/overrides``). It adds, where
the library was built with DLPack:

* ``GstPinned.Frame(sample_or_buffer, caps=None, plane=None, stream=None,
  write=False)``: a frame of an appsink's sample in device memory (or CUDA
  memory, or page-locked memory), or a buffer of the page-locked pool
  pinnedupload offers, that ``torch.from_dlpack(frame)``,
  ``torch.as_tensor(frame, device="cuda")``, ``cupy.from_dlpack(frame)``,
  ``numpy.from_dlpack(frame)`` and ``numpy.asarray(frame)`` (page-locked
  frames) take without a copy: ``__dlpack__`` (DLPack 1.x versioned
  capsules for consumers that ask, 0.6 for others), ``__dlpack_device__``,
  ``__cuda_array_interface__``, ``__array_interface__``.
* ``GstPinned.buffer_from_dlpack(tensor, caps, stream=None)``: a tensor of
  the application's as a ``Gst.Buffer``, for appsrc: a CUDA tensor as
  device memory, a CPU tensor in page-locked memory (PyTorch's pinned
  tensors) as page-locked memory pinnedupload copies directly, another CPU
  tensor as system memory pinnedupload stages.

Every refusal is a ``GLib.Error`` of ``GstPinned.tensor_error_quark()``
(also a ``BufferError``, ``ValueError`` or ``TypeError`` where the array
API names one). Pure Python: the capsules are made with ctypes around the
C API's tensors.
"""
import ctypes
import os
import sys

from ..module import get_introspection_module

GstPinned = get_introspection_module('GstPinned')

__all__ = []

# DLPack's device types (dlpack.h).
kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3

# cudaStreamLegacy, cudaStreamPerThread.
_STREAM_LEGACY = 1
_STREAM_PER_THREAD = 2


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor),
                             ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    pass


_DELETER_VERSIONED = ctypes.CFUNCTYPE(
    None, ctypes.POINTER(_DLManagedTensorVersioned))
_DLManagedTensorVersioned._fields_ = [("version", _DLPackVersion),
                                      ("manager_ctx", ctypes.c_void_p),
                                      ("deleter", _DELETER_VERSIONED),
                                      ("flags", ctypes.c_uint64),
                                      ("dl_tensor", _DLTensor)]

# DLManagedTensorVersioned's flags.
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1

# The capsule names: PyCapsule keeps the pointer, so they live as long as
# the module.
_DLTENSOR = b"dltensor"
_USED_DLTENSOR = b"used_dltensor"
_DLTENSOR_VERSIONED = b"dltensor_versioned"
_USED_DLTENSOR_VERSIONED = b"used_dltensor_versioned"


class _CapsuleApi(object):
    """PyCapsule's C API as our own function objects: the attributes of
    ctypes.pythonapi are shared, and other modules set their argtypes."""

    def __init__(self):
        def fn(name, restype, *argtypes):
            return ctypes.PYFUNCTYPE(restype, *argtypes)(
                (name, ctypes.pythonapi))
        self.PyCapsule_New = fn("PyCapsule_New", ctypes.py_object,
                                ctypes.c_void_p, ctypes.c_char_p,
                                ctypes.c_void_p)
        self.PyCapsule_IsValid = fn("PyCapsule_IsValid", ctypes.c_int,
                                    ctypes.c_void_p, ctypes.c_char_p)
        self.PyCapsule_GetPointer = fn("PyCapsule_GetPointer",
                                       ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_char_p)
        self.PyCapsule_SetName = fn("PyCapsule_SetName", ctypes.c_int,
                                    ctypes.py_object, ctypes.c_char_p)


_capi = _CapsuleApi()


def _release(address, versioned=False):
    """Runs the deleter of the DLManagedTensor (DLManagedTensorVersioned)
    at @address."""
    struct = _DLManagedTensorVersioned if versioned else _DLManagedTensor
    managed = struct.from_address(address)
    if managed.deleter:
        managed.deleter(ctypes.cast(address, ctypes.POINTER(struct)))


def _dl_tensor(address, versioned=False):
    struct = _DLManagedTensorVersioned if versioned else _DLManagedTensor
    return struct.from_address(address).dl_tensor


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # A consumer renames the capsule ("used_dltensor") when it takes the
    # tensor; one that was never consumed still holds it.
    if _capi.PyCapsule_IsValid(capsule, _DLTENSOR):
        _release(_capi.PyCapsule_GetPointer(capsule, _DLTENSOR))
    elif _capi.PyCapsule_IsValid(capsule, _DLTENSOR_VERSIONED):
        _release(_capi.PyCapsule_GetPointer(capsule, _DLTENSOR_VERSIONED),
                 True)


_DESTRUCTOR = ctypes.cast(_capsule_destructor, ctypes.c_void_p)


def _capsule(address, versioned=False):
    return _capi.PyCapsule_New(
        address, _DLTENSOR_VERSIONED if versioned else _DLTENSOR,
        _DESTRUCTOR)


def _wants_versioned(max_version):
    """Whether a consumer's ``max_version`` takes DLPack 1.x capsules (the
    array API: None means 0.x only)."""
    if max_version is None:
        return False
    try:
        return int(max_version[0]) >= 1
    except (TypeError, ValueError, IndexError):
        _refuse(_ERROR_LAYOUT, "max_version is (major, minor), not %r"
                % (max_version,), TypeError)


def _stream_handle(stream):
    """A stream argument as a cudaStream_t (an int): an int, or a stream
    object of PyTorch (``cuda_stream``) or CuPy (``ptr``)."""
    if stream is None:
        return None
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr) and not isinstance(stream, int):
            stream = getattr(stream, attr)
            break
    return int(stream)


def _torch_stream(tensor):
    """PyTorch's current stream on @tensor's device, when @tensor is one of
    PyTorch's CUDA tensors; None otherwise."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(tensor, torch.Tensor) or \
            not tensor.is_cuda:
        return None
    handle = torch.cuda.current_stream(tensor.device).cuda_stream
    # The legacy default stream is 0 in PyTorch, 1 in DLPack.
    return handle or _STREAM_LEGACY


_TYPESTR = {8: "|u1", 16: "<u2"}
_TYPESTR_FLOAT = {16: "<f2", 32: "<f4"}

# DLPack's device types (dlpack.h) that name a CUDA device's memory.
_DEVICES_CUDA = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged
_DEVICE_NAMES = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL",
                 7: "kDLVulkan", 8: "kDLMetal", 10: "kDLROCM",
                 13: "kDLCUDAManaged", 14: "kDLOneAPI"}
# GstPinnedTensorError's domain (the string of
# GstPinned.tensor_error_quark(), there in builds without DLPack too) and
# codes.
_ERROR_DOMAIN = "gst-pinned-tensor-error-quark"
_ERROR_LAYOUT, _ERROR_MEMORY = 0, 1


def _dlpack_device(tensor):
    """(device type, id) of a ``__dlpack__`` object, None if it cannot
    say."""
    try:
        return tuple(int(x) for x in tensor.__dlpack_device__())
    except Exception:
        return None


def _device_name(device):
    return "%s (%d), id %d" % (_DEVICE_NAMES.get(device[0], "unknown"),
                                device[0], device[1])


_refusals = {}


def _refusal(also):
    """The class of a refusal that is also @also (BufferError, ValueError,
    TypeError, or None): a GLib.Error that callers of the array API catch
    under the name the API gives it."""
    from gi.repository import GLib
    if also is None:
        return GLib.Error
    cls = _refusals.get(also)
    if cls is None:
        cls = type("TensorRefusal" + also.__name__, (GLib.Error, also),
                   {"__module__": __name__})
        _refusals[also] = cls
    return cls


def _refuse(code, message, also=None):
    """Raises the tensor API's refusal: a GLib.Error of
    GstPinned.tensor_error_quark(), as the library's own refusals are."""
    raise _refusal(also)(message, _ERROR_DOMAIN, code)


def _check_built():
    if not hasattr(GstPinned, "tensor_import"):
        _refuse(_ERROR_MEMORY, "gst-pinned was built without DLPack (meson "
                "option dlpack, package libdlpack-dev): no tensors")


_modules = None


def _gst():
    """(Gst, GstVideo), imported at the first frame, not at the override's
    import (PyGObject runs it before the application's require_version),
    and then kept: an import a frame costs the application's loop."""
    global _modules
    if _modules is None:
        _check_built()
        from gi.repository import Gst, GstVideo
        _modules = (Gst, GstVideo)
    return _modules


_BATCH_CAPS_NAME = "other/x-pinned-batch"


# Frames smaller than this are copied on the calling thread: a band
# handed to another thread costs more than it saves.
_COPY_BAND_MIN = 1 << 20
_COPY_THREADS = 4
_copy_executor = None


def _copy_bands(nbytes, rows, threads):
    if threads is None:
        threads = min(_COPY_THREADS, os.cpu_count() or 1)
    return max(1, min(threads, rows, nbytes // _COPY_BAND_MIN))


def _copy_pool():
    global _copy_executor
    if _copy_executor is None:
        import concurrent.futures
        _copy_executor = concurrent.futures.ThreadPoolExecutor(
            os.cpu_count() or _COPY_THREADS, thread_name_prefix="pinned-copy")
    return _copy_executor


class Frame(object):
    """A video frame of gst-pinned device memory, nvcodec's CUDA memory or
    gst-pinned page-locked memory, as a tensor on the same memory.

    ``sample_or_buffer`` is a ``Gst.Sample`` (its caps give the layout) or a
    ``Gst.Buffer`` with ``caps``. ``plane`` selects one plane (``[H, W]``
    or ``[H, W, C]``); without it the frame is one tensor: ``[H, W, C]``
    for a format of one plane, ``[C, H, W]`` for equal planes (RGBP, BGRP of
    pinnedconvert), ``[H * 3 / 2, W]`` for NV12 of an even size (the luma
    rows, then the chroma rows). ``stream`` is the stream
    ``__cuda_array_interface__`` consumers read on (default: the legacy
    default stream, PyTorch's default); DLPack consumers name theirs in
    ``__dlpack__``. ``info`` (a
    GstVideo.VideoInfo) spares parsing the caps of every frame. With
    ``write`` the consumer may also write the frame in place: its stream
    then waits for the frame's readers too, and its work becomes the
    frame's writer at release.

    Page-locked frames are CPU memory to Python's consumers (NumPy, torch
    CPU tensors; page-locked, so torch's ``is_pinned()`` is true): the
    export maps the buffer while the tensor lives, which waits for the
    copy that writes it (with ``write``, for the copies that still read it
    too). With ``write``, a buffer of the page-locked pool pinnedupload
    offers (``GstPinned.HostBufferPool.from_peer()``) is a writable NumPy
    view, ``numpy.asarray(frame)`` or ``numpy.from_dlpack(frame)`` (NumPy
    2.1 and later: DLPack 1.x capsules carry the writable flag; DLPack 0.6
    ones are read-only to NumPy), that the application writes its frame
    into before it pushes the buffer; drop the view (or ``release()``)
    before the push.

    A sample of pinnedbatch (caps ``other/x-pinned-batch``) is one
    ``[N, C, H, W]`` tensor of its type (uint8, float16, float32);
    ``slots`` lists what each slot holds (GstPinned.BatchSlot).
    """

    _batch_caps = None

    def __init__(self, sample_or_buffer, caps=None, plane=None, stream=None,
                 info=None, write=False):
        Gst, GstVideo = _gst()
        if isinstance(sample_or_buffer, Gst.Sample):
            self._sample = sample_or_buffer
            buffer = sample_or_buffer.get_buffer()
            if info is None:
                caps = caps or sample_or_buffer.get_caps()
        else:
            self._sample = None
            buffer = sample_or_buffer
        if info is None:
            if caps is None:
                _refuse(_ERROR_LAYOUT, "a Gst.Buffer needs its caps: "
                        "Frame(buffer, caps)", ValueError)
            if isinstance(caps, str):
                caps = Gst.Caps.from_string(caps)
            if caps.get_structure(0).get_name() == _BATCH_CAPS_NAME:
                # A batch of pinnedbatch: one [N, C, H, W] tensor.
                self._batch_caps = caps
            else:
                info = GstVideo.VideoInfo.new_from_caps(caps)
                if info is None:
                    _refuse(_ERROR_LAYOUT, "not video caps: %s"
                            % caps.to_string(), ValueError)
        self.buffer = buffer
        self.info = info
        self.plane = plane
        self.stream = stream
        self.write = write
        self._cai = None
        self._ai = None
        self._layout = None
        self._device = None

    def _probe(self):
        """The layout, from an export that orders nothing. A frame that is
        no one tensor (NV12) still has planes and a device."""
        from gi.repository import GLib
        if self._layout is not None:
            return self._layout
        flags = GstPinned.TensorFlags.NO_SYNC
        whole = True
        try:
            address = self._export(None, flags)
        except GLib.Error:
            if self.plane is not None:
                raise
            address = GstPinned.tensor_export_plane(self.buffer, self.info,
                                                    0, None, flags)
            whole = False
        try:
            t = _DLManagedTensor.from_address(address).dl_tensor
            device = (t.device.device_type, t.device.device_id)
            if device[0] == kDLCUDAHost:
                device = (kDLCPU, 0)
            layout = {"device": device, "shape": None, "strides": None,
                      "dtype": None, "data_ptr": None}
            if whole:
                layout.update(
                    shape=tuple(t.shape[i] for i in range(t.ndim)),
                    strides=tuple(t.strides[i] for i in range(t.ndim)),
                    dtype="%s%d" % ("float" if t.dtype.code == 2 else
                                    "uint", t.dtype.bits),
                    data_ptr=t.data + t.byte_offset)
        finally:
            _release(address)
        self._layout = layout
        return layout

    @property
    def device(self):
        """DLPack's (device type, id): (kDLCUDA, id) or, for page-locked
        memory, (kDLCPU, 0)."""
        if self._device is None:
            # Told without an export for gst-pinned's own memory.
            mem = self.buffer.peek_memory(0)
            if GstPinned.is_pinned_device_memory(mem):
                self._device = (kDLCUDA, GstPinned.buffer_get_context(
                    self.buffer).get_device_id())
            elif GstPinned.is_pinned_host_memory(mem):
                self._device = (kDLCPU, 0)
            else:
                self._device = self._probe()["device"]
        return self._device

    @property
    def shape(self):
        """The tensor's shape; None for a frame that is no one tensor."""
        return self._probe()["shape"]

    @property
    def strides(self):
        """In elements."""
        return self._probe()["strides"]

    @property
    def dtype(self):
        """"uint8" or "uint16"."""
        return self._probe()["dtype"]

    @property
    def data_ptr(self):
        """The address of the first element."""
        return self._probe()["data_ptr"]

    def planes(self):
        """One Frame per plane."""
        planes = [Frame(self.buffer, plane=p, stream=self.stream,
                        info=self.info, write=self.write)
                  for p in range(GstPinned.tensor_n_planes(self.info))]
        for p in planes:
            p._device = self._device
        return planes

    @property
    def slots(self):
        """A batch's slots (GstPinned.BatchSlot: index, empty, pad_index,
        pad_name, pts, running_time, source_width, source_height, x, y,
        width, height; to_source() maps a point back onto the frame)."""
        meta = GstPinned.buffer_get_pinned_batch_meta(self.buffer)
        if meta is None:
            return []
        return [meta.get_slot(i) for i in range(meta.get_n_slots())]

    def _export(self, stream, flags):
        if self.write:
            flags |= GstPinned.TensorFlags.WRITE
        if self._batch_caps is not None:
            return GstPinned.tensor_export_batch(self.buffer,
                                                 self._batch_caps, stream,
                                                 flags)
        if self.plane is None:
            return GstPinned.tensor_export_frame(self.buffer, self.info,
                                                 stream, flags)
        return GstPinned.tensor_export_plane(self.buffer, self.info,
                                             self.plane, stream, flags)

    def copy_from(self, array, threads=None):
        """Copies ``array`` (a NumPy array, or what ``numpy.asarray``
        takes, of the frame's shape) into a page-locked frame opened with
        ``write``, in bands of rows on up to ``threads`` threads (default:
        up to 4, a band at least a MiB; NumPy copies without the GIL), and
        returns the frame. One thread's copy into memory that the copy
        engines read and write at the same time runs well below the
        memory's rate; a few threads keep a source at the rate of the link
        where ``numpy.copyto`` alone would not. Refuses (``GLib.Error``,
        also a ``ValueError``) a frame not opened for writing, not in
        page-locked memory, or of another shape."""
        import numpy
        if not self.write:
            _refuse(_ERROR_LAYOUT, "copy_from: the frame is not opened for "
                    "writing: Frame(buffer, ..., write=True)", ValueError)
        if not self.is_host:
            _refuse(_ERROR_LAYOUT, "copy_from: the frame is not in "
                    "page-locked memory", ValueError)
        dst = numpy.asarray(self)
        src = numpy.asarray(array)
        if src.shape != dst.shape:
            _refuse(_ERROR_LAYOUT, "copy_from: an array of shape %s into a "
                    "frame of shape %s" % (src.shape, dst.shape), ValueError)
        bands = _copy_bands(dst.nbytes, dst.shape[0], threads)
        if bands <= 1:
            numpy.copyto(dst, src, casting="same_kind")
            return self
        rows = dst.shape[0]
        edges = [rows * i // bands for i in range(bands + 1)]
        list(_copy_pool().map(
            lambda i: numpy.copyto(dst[edges[i]:edges[i + 1]],
                                   src[edges[i]:edges[i + 1]],
                                   casting="same_kind"), range(bands)))
        return self

    @property
    def is_host(self):
        return self.device[0] == kDLCPU

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A capsule of the frame: "dltensor_versioned" (DLPack 1.x,
        DLManagedTensorVersioned, read-only unless the frame is for
        writing) where ``max_version`` allows 1.x, else "dltensor" (DLPack
        0.6). ``stream``, DLPack's rules for CUDA: None or 1 the legacy
        default stream, 2 the per-thread default stream, -1 no
        synchronization (the consumer orders its work itself), another int
        a cudaStream_t; 0 is refused. That stream waits on the GPU for the
        work that wrote the frame; when the consumer drops the tensor, a
        fence on it keeps the frame's memory from its next writer until the
        consumer's kernels that read it are done. A CPU consumer's tensor
        holds the page-locked buffer mapped until it is dropped."""
        if copy:
            _refuse(_ERROR_MEMORY, "gst-pinned exports frames without a copy "
                    "only", BufferError)
        versioned = _wants_versioned(max_version)
        flags = GstPinned.TensorFlags.NONE
        if versioned:
            flags |= GstPinned.TensorFlags.VERSIONED
        wanted = tuple(dl_device) if dl_device is not None else self.device
        if self.is_host and wanted == (kDLCPU, 0):
            # A CPU consumer: the export waits for the frame's writer.
            if stream not in (None, -1):
                _refuse(_ERROR_LAYOUT, "a CPU tensor takes no stream (got %r)"
                        % (stream,), ValueError)
            return _capsule(self._export(
                None, flags | GstPinned.TensorFlags.HOST_AS_CPU), versioned)
        if wanted != self.device and not (self.is_host and
                                          wanted[0] == kDLCUDAHost):
            _refuse(_ERROR_MEMORY, "the frame is on DLPack device %r, not %r"
                    % (self.device, wanted), BufferError)
        if stream is None:
            handle = _STREAM_LEGACY
        elif stream == -1:
            handle = None
            flags |= GstPinned.TensorFlags.NO_SYNC
        elif stream == 0:
            _refuse(_ERROR_LAYOUT, "stream 0 is ambiguous in DLPack: use 1 "
                    "(legacy default), 2 (per-thread default) or a stream",
                    ValueError)
        else:
            handle = _stream_handle(stream)
        return _capsule(self._export(handle, flags), versioned)

    @property
    def __array_interface__(self):
        """NumPy's array interface of a page-locked frame (``numpy.asarray``
        of any NumPy): writable where the frame is for writing. The
        frame's memory stays mapped (and the buffer held) until
        ``release()`` or until the frame goes; the array keeps the frame."""
        if not self.is_host:
            raise AttributeError("__array_interface__: the frame is not in "
                                 "page-locked memory")
        if self._ai is None:
            address = self._export(None, GstPinned.TensorFlags.HOST_AS_CPU)
            t = _dl_tensor(address)
            elem = t.dtype.bits // 8
            self._ai = (address, {
                "shape": tuple(t.shape[i] for i in range(t.ndim)),
                "typestr": _TYPESTR[t.dtype.bits],
                "data": (t.data + t.byte_offset, not self.write),
                "strides": tuple(t.strides[i] * elem for i in range(t.ndim)),
                "version": 3,
            })
        return self._ai[1]

    @property
    def __cuda_array_interface__(self):
        if self.device[0] != kDLCUDA:
            raise AttributeError("__cuda_array_interface__: the frame is not "
                                 "in device memory")
        if self._cai is None:
            handle = _stream_handle(self.stream) or _STREAM_LEGACY
            # Held until the frame goes: the interface has no deleter. The
            # stream waits for the frame's writer now, and its fence at
            # release protects the consumer's reads on it.
            address = self._export(handle, GstPinned.TensorFlags.NONE)
            t = _DLManagedTensor.from_address(address).dl_tensor
            elem = t.dtype.bits // 8
            self._cai = (address, {
                "shape": tuple(t.shape[i] for i in range(t.ndim)),
                "typestr": (_TYPESTR_FLOAT if t.dtype.code == 2 else
                            _TYPESTR)[t.dtype.bits],
                "data": (t.data + t.byte_offset, False),
                "strides": tuple(t.strides[i] * elem for i in range(t.ndim)),
                "version": 3,
                "stream": handle,
            })
        return self._cai[1]

    def release(self):
        """Lets the frame's memory go now for ``__cuda_array_interface__``
        and ``__array_interface__`` consumers, rather than when the frame is
        collected (unmaps a page-locked frame: no array of it may be used
        after)."""
        if self._cai is not None:
            address, self._cai = self._cai[0], None
            _release(address)
        if self._ai is not None:
            address, self._ai = self._ai[0], None
            _release(address)

    def __del__(self):
        try:
            self.release()
        except Exception:  # at interpreter exit, the module may be gone
            pass

    def __repr__(self):
        return "<GstPinned.Frame %s %s %s on %r>" % (
            "batch" if self.info is None else self.info.finfo.name,
            self.shape and list(self.shape),
            self.dtype, self.device)


__all__.append("Frame")


# DLPack's device types of CPU memory that buffer_from_dlpack takes.
_DEVICES_HOST = (kDLCPU, kDLCUDAHost)


def _take_dlpack(tensor, handle, host):
    """The capsule of @tensor's ``__dlpack__``: DLPack 1.x where the
    producer makes it, else 0.6; @handle is the stream for a CUDA tensor.
    Whatever the producer raises becomes the refusal it is."""
    kwargs = {} if host else {"stream": handle}
    try:
        try:
            return tensor.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:
            # A producer of DLPack 0.x (NumPy 1, CuPy 12): no max_version.
            return tensor.__dlpack__(**kwargs)
    except Exception as e:  # noqa: B902: any producer's refusal
        _refuse(_ERROR_MEMORY, "the tensor's __dlpack__ refused: %s: %s"
                % (type(e).__name__, e))


def buffer_from_dlpack(tensor, caps, stream=None, context=None,
                       with_caps=False):
    """A tensor (PyTorch, CuPy, NumPy, any ``__dlpack__`` object, or a
    "dltensor" or "dltensor_versioned" capsule) as a ``Gst.Buffer``
    without a copy: ``[H, W, C]`` (``[H, W]``) for a format of one plane,
    ``[C, H, W]`` for equal planes. ``caps`` names the format
    (``"video/x-raw,format=RGBA"``); width and height come from the shape.

    * A CUDA tensor becomes gst-pinned device memory (caps
      ``memory:PinnedDevice``). ``stream`` is the producer's stream
      (default: PyTorch's current stream for PyTorch tensors, else the
      legacy default stream): the buffer's fence is recorded on it, so
      that the elements downstream wait for the tensor's producer on the
      GPU.
    * A CPU tensor in page-locked memory (PyTorch's ``pin_memory()``,
      cudaHostAlloc'ed or registered memory) becomes page-locked memory
      that pinnedupload's copy engine reads directly, without staging; a
      ``stream`` given is the one whose work wrote it (an asynchronous
      copy into it), and the copy waits for it on the GPU.
    * Another CPU tensor becomes system memory, which pinnedupload stages.

    The tensor lives until the buffer's memory is freed: for a CPU tensor,
    once the copies that read it are done; the application must not write
    it before (drop its own references and let the deleter hand it back,
    or wait for the frame downstream). With ``with_caps``, returns
    (buffer, caps), the caps for appsrc. Every refusal (a tensor that does
    not fit the caps, memory no copy can read) raises GLib.Error with the
    reason."""
    Gst = _gst()[0]
    if isinstance(caps, str):
        caps = Gst.Caps.from_string(caps)
    handle = _stream_handle(stream)
    host = False
    if hasattr(tensor, "__dlpack__"):
        # Asked before the export: producers refuse a stream for memory
        # that is not a GPU's (PyTorch asserts, NumPy raises).
        device = _dlpack_device(tensor)
        if device is not None and device[0] not in _DEVICES_CUDA + \
                _DEVICES_HOST:
            _refuse(_ERROR_MEMORY, "a tensor on DLPack device %s: "
                    "buffer_from_dlpack takes CUDA device memory and CPU "
                    "memory (copy it to either first)" % _device_name(device))
        host = device is not None and device[0] in _DEVICES_HOST
        if handle is None and not host:
            handle = _torch_stream(tensor) or _STREAM_LEGACY
        capsule = _take_dlpack(tensor, handle, host)
    else:
        capsule = tensor
    flags = GstPinned.TensorFlags.NONE
    name, used = _DLTENSOR, _USED_DLTENSOR
    if _capi.PyCapsule_IsValid(id(capsule), _DLTENSOR_VERSIONED):
        flags = GstPinned.TensorFlags.VERSIONED
        name, used = _DLTENSOR_VERSIONED, _USED_DLTENSOR_VERSIONED
    elif not _capi.PyCapsule_IsValid(id(capsule), _DLTENSOR):
        _refuse(_ERROR_LAYOUT, "not a DLPack tensor, or one already "
                "consumed: %r" % (type(tensor),), TypeError)
    address = _capi.PyCapsule_GetPointer(id(capsule), name)
    if handle is None and not hasattr(tensor, "__dlpack__"):
        # A bare capsule: its device says whether a stream applies.
        device = _dl_tensor(address, bool(flags)).device.device_type
        if device not in _DEVICES_HOST:
            handle = _STREAM_LEGACY
    # Ours from here: the capsule no longer runs the deleter.
    _capi.PyCapsule_SetName(capsule, used)
    buffer, out_caps = GstPinned.tensor_import_full(address, flags, caps,
                                                    context, handle)
    return (buffer, out_caps) if with_caps else buffer


__all__.append("buffer_from_dlpack")
