#!/usr/bin/env python3
# Writes the seed corpus of the fuzz targets, tests/fuzz/corpus/TARGET/,
# one small file per case, named by what it holds; in the byte layout each
# target's LLVMFuzzerTestOneInput reads (fuzz-layout.c, fuzz-tensor-import.c:
# keep them together). Run it again after changing either.
#
#   python3 tests/fuzz/seeds.py
import os
import re
import struct

here = os.path.dirname(os.path.abspath(__file__))
header = open(os.path.join(here, "../../include/gst/pinned/gstpinnedformats.h")).read()
block = re.search(r'#define GST_PINNED_VIDEO_FORMATS (.*?)\}"', header, re.S).group(1)
formats = [f.strip() for f in re.sub(r'["\\\s]+', " ", block).strip(" {").split(",")]


def fmt(name):
    return formats.index(name)


def u8(*v):
    return bytes(x & 0xFF for x in v)


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


# ---- fuzz-layout ---------------------------------------------------------
PAIR, PAIR_FILTER, DOWNLOAD, FILTER = range(4)
LOCKED, DEVICE, DEVICE_OTHER, PAGEABLE, MALLOC, FOREIGN = range(6)
SHARE = 0x80
AUTO, REGISTER, STAGE, DIRECT = range(4)
BATCH = {1: 0, 2: 2, 4: 3}


def layout(name, w, h, variant=PAIR, meta=None, meta_down=False, batch=1,
           mode=AUTO, repeat=1, delta=0, memories=((LOCKED, 1),), seed=1):
    """meta: None, or (m, planes): m is the meta byte (0: the caps' planes,
    0x80 | n: n planes, 0x40 adds a format, width and height after it),
    planes 4 byte strings (how, then its arguments). memories: (kind,
    weight) or (kind | SHARE, weight, at)."""
    flags = variant | (4 if meta else 0) | (8 if meta_down else 0) | \
        (BATCH[batch] << 4) | (mode << 6)
    b = u8(fmt(name), w - 1, h - 1, flags, repeat - 1)
    if meta:
        m, planes = meta
        b += u8(m[0]) + bytes(m[1:]) if isinstance(m, tuple) else u8(m)
        for p in planes:
            b += p
    b += u16(delta * 64)
    b += u8(len(memories) - 1)
    for mem in memories:
        b += u8(mem[1] - 1)
    b += u32(seed)
    for mem in memories:
        b += u8(mem[0])
        if mem[0] & SHARE:
            b += u8(mem[2])
    return b


DEFAULT = u8(0)


def moved(offset, stride_delta):
    return u8(1) + u16(offset) + u8(stride_delta)


def anything(offset, stride):
    return u8(2) + u64(offset) + u32(stride)


def over_previous(delta):
    return u8(3) + u8(delta)


def rows(stride):
    return u8(4) + u8(stride)


def past_4g(offset):
    return u8(5) + u16(offset)


layout_seeds = {
    "i420-33x17-locked": layout("I420", 33, 17),
    "nv12-64x48-pageable": layout("NV12", 64, 48, memories=((PAGEABLE, 1),)),
    "rgba-17x9-filter-padded-malloc": layout(
        "RGBA", 17, 9, PAIR_FILTER, meta=(0, [moved(0, 16)] + [DEFAULT] * 3),
        memories=((MALLOC, 1),)),
    "v210-31x5-device-and-locked": layout(
        "v210", 31, 5, memories=((DEVICE, 1), (LOCKED, 1))),
    "i420-33x17-three-memories-meta-down": layout(
        "I420", 33, 17, meta_down=True,
        memories=((PAGEABLE, 3), (MALLOC, 1), (FOREIGN, 1))),
    "nv12-4l4-32x32-plane-moved": layout(
        "NV12_4L4", 32, 32, meta=(0, [DEFAULT, moved(4096, 0)] + [DEFAULT] * 2),
        memories=((PAGEABLE, 1),)),
    "rgb8p-7x3-palette": layout("RGB8P", 7, 3),
    "y444-16le-5x3-register": layout(
        "Y444_16LE", 5, 3, mode=REGISTER, memories=((MALLOC, 1),)),
    "i420-short-by-64": layout("I420", 33, 17, delta=-64,
                               memories=((PAGEABLE, 1),)),
    "nv12-meta-plane-far": layout(
        "NV12", 32, 16, meta=(0, [DEFAULT, anything(10000, 32)] + [DEFAULT] * 2),
        memories=((PAGEABLE, 1),)),
    "i420-meta-one-plane": layout(
        "I420", 32, 16, meta=(0x81, [DEFAULT] * 4), memories=((LOCKED, 1),)),
    "i420-meta-other-size": layout(
        "I420", 32, 16, meta=((0x40, fmt("I420"), 8, 8), [DEFAULT] * 4)),
    "nv12-offset-past-4g": layout(
        "NV12", 32, 16, meta=(0, [DEFAULT, past_4g(512)] + [DEFAULT] * 2),
        memories=((PAGEABLE, 1),)),
    "nv12-rows-backwards": layout(
        "NV12", 32, 16, meta=(0, [rows(-32), DEFAULT, DEFAULT, DEFAULT])),
    "i420-download-planes-overlap": layout(
        "I420", 16, 8, DOWNLOAD, meta=(0, [DEFAULT, over_previous(0)] +
                                       [DEFAULT] * 2),
        memories=((DEVICE, 1),)),
    "rgba-filter-device-share": layout(
        "RGBA", 16, 8, FILTER, memories=((DEVICE | SHARE, 1, 100),)),
    "nv12-batch-4-stage": layout(
        "NV12", 16, 8, batch=4, mode=STAGE, repeat=3,
        memories=((PAGEABLE | SHARE, 1, 3),)),
    "bgra-batch-2-locked-shares": layout(
        "BGRA", 8, 8, batch=2, repeat=2,
        memories=((LOCKED | SHARE, 1, 64), (LOCKED | SHARE, 1, 7))),
    "gray8-direct-foreign": layout("GRAY8", 9, 9, mode=DIRECT,
                                   memories=((FOREIGN, 1),)),
    "rgb-other-device": layout("RGB", 9, 9, memories=((DEVICE_OTHER, 1),)),
}

# ---- fuzz-tensor-import --------------------------------------------------
kDLCUDA, kDLCPU = 0, 200          # device type bytes
EXACT, LARGER, SHORT, OTHER_DEVICE, PAGE_LOCKED, NONE, NULL = range(7)


def tensor(shape, fmt_name="RGBA", strides=None, device=kDLCUDA, device_id=0,
           context=None, bits=8, byte_offset=0, storage=EXACT, extra=0,
           caps=5, width=None, height=None, interleave=False, seed=7):
    """strides: None (NULL), or the bytes of each dimension from the last
    (s < 160: compact, 160 <= s < 240: compact + s % 16)."""
    b = u8(device)
    b += u8({0: 0, 1: 200, 2: 220, -1: 230}[device_id])
    b += u8(0 if context is None else 128 + context)
    b += u8(len(shape) - 2 if 2 <= len(shape) <= 3 else 240 + len(shape) + 2)
    b += bytes(s - 1 for s in shape)
    if strides is None:
        b += u8(0)
    else:
        b += u8(250 if interleave else 64) + bytes(strides)
    b += u8(0 if bits == 8 else 150)
    b += u8(0)                   # lanes: 1
    b += u8(0 if byte_offset == 0 else 200 + byte_offset)
    b += u8(storage)
    if storage == LARGER:
        b += u8(extra)
    elif storage == SHORT:
        b += u16(extra)
    if storage not in (NONE, NULL):
        b += u32(seed)
    if width is not None:
        caps |= 8
    b += u8(caps) + u8(fmt(fmt_name))
    if width is not None:
        b += u16(width) + u16(height)
    return b


tensor_seeds = {
    "rgba-17x33": tensor([17, 33, 4]),
    "rgba-padded-rows": tensor([17, 33, 4], strides=[0, 0, 160 + 12]),
    "gray8-2d-pitch-16": tensor([21, 13], "GRAY8", strides=[0, 163]),
    "gray8-3d": tensor([21, 13, 1], "GRAY8"),
    "rgb-9x31": tensor([9, 31, 3], "RGB"),
    "rgbp-planes": tensor([3, 19, 37], "RGBP"),
    "bgrp-planes-apart": tensor([3, 19, 37], "BGRP", strides=[0, 163, 168]),
    "rgbp-rows-interleaved": tensor([3, 11, 16], "RGBP", strides=[0, 0, 0],
                                    interleave=True),
    "gray16-2d": tensor([7, 5], "GRAY16_LE", bits=16),
    "y444-16le-planes": tensor([3, 5, 7], "Y444_16LE", bits=16),
    "rgba-byte-offset-8": tensor([4, 4, 4], byte_offset=8),
    "rgba-larger-storage": tensor([4, 4, 4], storage=LARGER, extra=100),
    "rgba-short-storage": tensor([16, 16, 4], storage=SHORT, extra=1000),
    "rgba-device-1": tensor([8, 8, 4], device_id=1, storage=OTHER_DEVICE),
    "rgba-device-1-context-0": tensor([8, 8, 4], device_id=1, context=0,
                                      storage=OTHER_DEVICE),
    "rgba-page-locked-as-cuda": tensor([8, 8, 4], storage=PAGE_LOCKED),
    "rgba-no-allocation": tensor([8, 8, 4], storage=NONE),
    "rgba-null-data": tensor([8, 8, 4], storage=NULL),
    "rgba-cpu-device": tensor([8, 8, 4], device=kDLCPU),
    "rgba-caps-say-other-size": tensor([8, 8, 4], width=9, height=8),
    "rgba-caps-size-agrees": tensor([8, 6, 4], width=6, height=8),
    "nv12-refused": tensor([12, 8], "NV12"),
    "yuy2-odd-width": tensor([4, 5, 2], "YUY2"),
    "no-caps": tensor([4, 4, 4], caps=0),
}

for target, seeds in (("fuzz-layout", layout_seeds),
                      ("fuzz-tensor-import", tensor_seeds)):
    folder = os.path.join(here, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print("%s: %d seeds" % (target, len(seeds)))
