#!/usr/bin/env python3
"""Draws the benchmark's CSV as an SVG of bars: the fraction of the in-run
copy limit that gst-pinned and GStreamer's nvcodec peer reach for each kind
of source, one group of bars per frame size. No dependencies.

  tests/bench/bars.py bench.csv out.svg [title]

Needs the rows upload, upload-pageable-recycled, download, roundtrip,
cuda-upload, cuda-download and their peers (peer-upload, peer-download,
peer-roundtrip); a case whose rows are missing is left out.
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else "gst-pinned: share of the link"

cases = [
    # label, our row, the peer's row (cudaupload / cudadownload)
    ("upload, source writes the offered pool", "upload", "peer-upload"),
    ("upload, source recycles its own buffers", "upload-pageable-recycled",
     "peer-upload"),
    ("upload into nvcodec's CUDA memory", "cuda-upload", "peer-upload"),
    ("download", "download", "peer-download"),
    ("download from nvcodec's CUDA memory", "cuda-download",
     "peer-download"),
    ("round trip", "roundtrip", "peer-roundtrip"),
]
OURS, PEER = "#1f77b4", "#ff7f0e"

ratio = {}
sizes = []
for r in rows:
    size = "%s %sx%s" % (r["format"], r["width"], r["height"])
    if size not in sizes:
        sizes.append(size)
    ratio[(size, r["row"])] = float(r["ratio_limit"])

groups = []
for size in sizes:
    bars = [(label, ratio[(size, ours)], ratio[(size, peer)])
            for label, ours, peer in cases
            if (size, ours) in ratio and (size, peer) in ratio]
    if bars:
        groups.append((size, bars))
if not groups:
    sys.exit("%s: none of the rows this plot needs" % sys.argv[1])

BAR, GAP, HEAD = 11, 10, 26
W, L, R, T = 900, 290, 60, 60
n_bars = sum(len(b) for _, b in groups)
H = T + len(groups) * HEAD + n_bars * (2 * BAR + GAP) + 50
x1 = max(1.1, max(max(o, p) for _, b in groups for _, o, p in b) * 1.05)


def px(x):
    return L + x / x1 * (W - L - R)


svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
       'font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="10" y="22" font-size="15">%s</text>' % title]
for i, colour in enumerate((OURS, PEER)):
    svg.append('<rect x="%d" y="34" width="12" height="10" fill="%s"/>'
               % (L + i * 160, colour))
    svg.append('<text x="%d" y="43">%s</text>'
               % (L + 16 + i * 160, ("gst-pinned", "nvcodec peer")[i]))
for i in range(0, int(x1 * 5) + 1):
    x = i / 5
    svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
               % (px(x), T, px(x), H - 40, "#999" if i == 5 else "#eee"))
    svg.append('<text x="%.1f" y="%d" text-anchor="middle">%.1f</text>'
               % (px(x), H - 24, x))
y = T
for size, bars in groups:
    svg.append('<text x="10" y="%d" font-weight="bold">%s</text>'
               % (y + 16, size))
    y += HEAD
    for label, ours, peer in bars:
        svg.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                   % (L - 8, y + BAR + 4, label))
        for v, colour in ((ours, OURS), (peer, PEER)):
            svg.append('<rect x="%d" y="%d" width="%.1f" height="%d" '
                       'fill="%s"/>' % (L, y, px(v) - L, BAR - 1, colour))
            svg.append('<text x="%.1f" y="%d" font-size="10">%.2f</text>'
                       % (px(v) + 4, y + BAR - 2, v))
            y += BAR
        y += GAP
svg.append('<text x="%d" y="%d" text-anchor="middle">fraction of the in-run '
           'copy limit (page-locked cudaMemcpyAsync)</text>'
           % ((L + W - R) / 2, H - 6))
svg.append('</svg>')
open(out, "w").write("\n".join(svg) + "\n")
