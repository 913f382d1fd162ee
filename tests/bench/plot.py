#!/usr/bin/env python3
"""Draws the benchmark's CSV as an SVG: GB/s against frame size for the
in-run copy limit, gst-pinned and GStreamer's nvcodec peer. No dependencies.

  tests/bench/plot.py bench.csv out.svg [title]
"""
import csv
import math
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else "gst-pinned transfer benchmark"

series = [
    # label, row, value column, colour, dashed
    ("limit H2D (in-run)", "upload", "limit_gb_per_s", "#888888", True),
    ("limit both ways (in-run)", "roundtrip", "limit_gb_per_s", "#444444", True),
    ("pinnedupload", "upload", "gb_per_s", "#1f77b4", False),
    ("pinneddownload", "download", "gb_per_s", "#2ca02c", False),
    ("pinnedupload ! pinneddownload", "roundtrip", "gb_per_s", "#d62728", False),
    ("pinnedupload, pageable source", "upload-pageable", "gb_per_s", "#9467bd", False),
    ("cudaupload (nvcodec)", "peer-upload", "gb_per_s", "#aec7e8", False),
    ("cudaupload ! cudadownload", "peer-roundtrip", "gb_per_s", "#ff9896", False),
]

W, H, L, R, T, B = 900, 520, 70, 290, 50, 60
points = {}
for label, row, col, colour, dashed in series:
    pts = sorted((int(r["frame_bytes"]), float(r[col])) for r in rows
                 if r["row"] == row and float(r[col]) > 0)
    if pts:
        points[label] = pts
xs = [x for p in points.values() for x, _ in p]
ys = [y for p in points.values() for _, y in p]
x0, x1 = math.log2(min(xs)), math.log2(max(xs))
y1 = max(ys) * 1.1


def px(x):
    return L + (math.log2(x) - x0) / max(x1 - x0, 1e-9) * (W - L - R)


def py(y):
    return H - B - y / y1 * (H - T - B)


svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
       'font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="25" font-size="15">%s</text>' % (L, title)]
for i in range(6):
    y = y1 * i / 5
    svg.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>'
               % (L, py(y), W - R, py(y)))
    svg.append('<text x="%d" y="%.1f" text-anchor="end">%.0f</text>'
               % (L - 6, py(y) + 4, y))
for x in sorted(set(xs)):
    svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
               % (px(x), T, px(x), H - B))
    svg.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="10">'
               '%.1f</text>' % (px(x), H - B + 14, x / 2**20))
svg.append('<text x="%d" y="%d" text-anchor="middle">frame size (MiB, log '
           'scale)</text>' % ((L + W - R) / 2, H - 20))
svg.append('<text x="18" y="%d" transform="rotate(-90 18 %d)" '
           'text-anchor="middle">GB/s</text>' % ((T + H - B) / 2, (T + H - B) / 2))
svg.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#000"/>' % (L, T, W - L - R, H - T - B))
ly = T + 10
for label, row, col, colour, dashed in series:
    if label not in points:
        continue
    d = " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in points[label])
    dash = ' stroke-dasharray="6,4"' if dashed else ""
    svg.append('<polyline points="%s" fill="none" stroke="%s" '
               'stroke-width="2"%s/>' % (d, colour, dash))
    for x, y in points[label]:
        svg.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                   % (px(x), py(y), colour))
    svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
               'stroke-width="2"%s/>' % (W - R + 15, ly, W - R + 40, ly,
                                         colour, dash))
    svg.append('<text x="%d" y="%d">%s</text>' % (W - R + 46, ly + 4, label))
    ly += 20
svg.append("</svg>")
open(out, "w").write("\n".join(svg) + "\n")
