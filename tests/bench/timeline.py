#!/usr/bin/env python3
"""Draws GPU timelines (the Chrome/Perfetto JSON that gst-pinned writes) as
one SVG, one panel per file, one row per track, the same time scale for all:
a window of the steady state near the end of each trace.

  tests/bench/timeline.py out.svg LABEL=trace.json [LABEL=trace.json ...]
"""
import json
import statistics
import sys

out = sys.argv[1]
panels = []
for arg in sys.argv[2:]:
    label, path = arg.split("=", 1)
    events = json.load(open(path))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    spans = [e for e in events if e["ph"] == "X"]
    panels.append((label, names, spans))

# A window of about 12 frames of the first panel's slowest track.
durs = {}
for e in panels[0][2]:
    durs.setdefault(e["tid"], []).append(e["dur"])
frame = max(statistics.median(d) for d in durs.values())
window = 12 * frame

colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
W, L, R, row_h, gap = 1000, 190, 20, 26, 50
height = 30 + sum(gap + row_h * len(n) for _, n, _ in panels) + 30
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
       'font-family="sans-serif" font-size="12">' % (W, height),
       '<rect width="100%" height="100%" fill="white"/>']
y = 30
for label, names, spans in panels:
    end = max(e["ts"] + e["dur"] for e in spans) - frame
    start = end - window
    scale = (W - L - R) / window
    svg.append('<text x="10" y="%d" font-size="14" font-weight="bold">%s'
               '</text>' % (y + 10, label))
    y += 20
    for i, (tid, name) in enumerate(sorted(names.items())):
        ry = y + i * row_h
        svg.append('<text x="10" y="%d">%s</text>' % (ry + 16, name))
        svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/>'
                   % (L, ry + row_h - 2, W - R, ry + row_h - 2))
        for e in spans:
            if e["tid"] != tid or e["ts"] + e["dur"] < start or e["ts"] > end:
                continue
            x0 = L + max(e["ts"] - start, 0) * scale
            x1 = L + min(e["ts"] + e["dur"] - start, window) * scale
            svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                       'fill="%s" stroke="white" stroke-width="0.5">'
                       '<title>%s %.0f us</title></rect>'
                       % (x0, ry + 3, max(x1 - x0, 0.5), row_h - 8,
                          colours[i % len(colours)], e["name"], e["dur"]))
    y += row_h * len(names)
    for k in range(0, int(window / 1000) + 1):
        x = L + k * 1000 * scale
        svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>'
                   % (x, y, x, y + 5))
        svg.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="10">'
                   '%d ms</text>' % (x, y + 16, k))
    y += gap
svg.append("</svg>")
open(out, "w").write("\n".join(svg) + "\n")
