#!/usr/bin/env python3
"""Checks that no two text elements of an SVG chart overlap, and that none
runs off the chart. Extents use the fixed font metric the charts are laid
out with (src/report/plot.h): 0.6 em per character, 0.8 em above the
baseline, 0.25 em below; font-size inherited from the enclosing elements
(the <svg> sets 12). Rotated text (transform="rotate(a cx cy)") is checked
as a rotated rectangle (separating-axis test), so slanted axis labels that
sit side by side do not count as overlapping. Tooltips (<title>) are not
drawn and not checked. Usage: svg_text_overlap.py FILE.svg|FILE.html ...
Exit 1 listing every overlap found."""
import math
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ROT = re.compile(r"rotate\(\s*([-\d.]+)(?:[ ,]+([-\d.]+)[ ,]+([-\d.]+))?\s*\)")


def corners(el, size):
    text = "".join(el.itertext())
    n = len(text)
    w, x, y = n * 0.6 * size, float(el.get("x", 0)), float(el.get("y", 0))
    anchor = el.get("text-anchor", "start")
    x0 = x if anchor == "start" else x - w / 2 if anchor == "middle" else x - w
    pts = [(x0, y - 0.8 * size), (x0 + w, y - 0.8 * size), (x0 + w, y + 0.25 * size), (x0, y + 0.25 * size)]
    m = ROT.search(el.get("transform", ""))
    if m:
        a = math.radians(float(m.group(1)))
        cx, cy = float(m.group(2) or 0), float(m.group(3) or 0)
        pts = [(cx + (px - cx) * math.cos(a) - (py - cy) * math.sin(a),
                cy + (px - cx) * math.sin(a) + (py - cy) * math.cos(a)) for px, py in pts]
    return text, pts


def separated(p, q):
    for poly in (p, q):
        for i in range(4):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            a = [nx * x + ny * y for x, y in p]
            b = [nx * x + ny * y for x, y in q]
            if max(a) <= min(b) + 1e-6 or max(b) <= min(a) + 1e-6:
                return True
    return False


def texts(svg):
    out = []

    def walk(el, size):
        size = float(el.get("font-size", size))
        if el.tag == NS + "text" and "".join(el.itertext()).strip():
            out.append(corners(el, size))
        for child in el:
            if child.tag != NS + "title":
                walk(child, size)

    walk(svg, 12.0)
    return out


def check(svg, name):
    problems = []
    width, height = float(svg.get("width")), float(svg.get("height"))
    items = texts(svg)
    for text, pts in items:
        xs, ys = [x for x, _ in pts], [y for _, y in pts]
        if min(xs) < -0.5 or max(xs) > width + 0.5 or min(ys) < -0.5 or max(ys) > height + 0.5:
            problems.append(f"{name}: '{text}' runs off the {width:.0f}x{height:.0f} chart")
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if not separated(items[i][1], items[j][1]):
                problems.append(f"{name}: '{items[i][0]}' overlaps '{items[j][0]}'")
    return problems


def svgs_of(path):
    data = open(path, encoding="utf-8").read()
    if path.endswith(".svg"):
        return [ET.fromstring(data)]
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", data, re.S)]


def main():
    problems, charts = [], 0
    for path in sys.argv[1:]:
        for k, svg in enumerate(svgs_of(path)):
            charts += 1
            problems += check(svg, f"{path}#{k + 1}")
    for p in problems:
        print(p)
    print(f"{charts} charts checked, {len(problems)} problems")
    return 1 if problems or charts == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
