#!/usr/bin/env python3
"""Checks that a PNG screenshot is not blank: decodes it with zlib alone
(no PIL or numpy needed), then counts distinct colours and non-background
pixels in the top rows. Exit 0 when the page shows content, 1 otherwise."""
import struct
import sys
import zlib

ROWS = 700  # enough of the page to hold the title, the table and a chart


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width, height, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                sys.exit(f"{path}: unsupported PNG format (depth {depth}, colour type {colour})")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompressobj().decompress(idat)
    stride = width * bpp
    prev, rows = bytearray(stride), []
    for y in range(min(height, ROWS)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    width, height, bpp, rows = decode(sys.argv[1])
    colours, counts = set(), {}
    for line in rows:
        for x in range(0, len(line), bpp):
            px = bytes(line[x:x + 3])
            colours.add(px)
            counts[px] = counts.get(px, 0) + 1
    background = max(counts.values())
    total = sum(counts.values())
    content = 1 - background / total
    print(f"{width}x{height}: {len(colours)} colours in the top {len(rows)} rows, {content:.1%} non-background")
    if len(colours) < 8 or content < 0.01:
        print("blank screenshot")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
