#!/usr/bin/env python3
"""Counts the coloured regions of a PNG: what a person sees as coloured squares.

Usage: png_regions.py FILE.png [--min-pixels N] [--colour RRGGBB]
Prints JSON: {"width": W, "height": H, "regions": [[x, y, w, h, pixels], ...]}, each region a
4-connected run of pixels whose colour is saturated (max - min of R, G, B over 40 after the
alpha is laid on white): grey text, white paper and the light grey of an empty day are not
coloured. Regions under --min-pixels (default 20) are left out: anti-aliased specks. With
--colour, only pixels within 24 of that colour in each of R, G and B count.

Reads 8-bit RGB and RGBA PNGs, not interlaced, as rsvg-convert and Chromium write them, with
the standard library only (zlib).
"""
import json
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit(f"{path}: only 8-bit RGB/RGBA, not interlaced (got {depth}, {colour})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def coloured(width, height, channels, rows, wanted=None):
    mask = [[False] * width for _ in range(height)]
    for y, line in enumerate(rows):
        for x in range(width):
            r, g, b = line[x * channels:x * channels + 3]
            if channels == 4:
                alpha = line[x * channels + 3] / 255
                r, g, b = (round(c * alpha + 255 * (1 - alpha)) for c in (r, g, b))
            if wanted:
                mask[y][x] = all(abs(c - w) <= 24 for c, w in zip((r, g, b), wanted))
            else:
                mask[y][x] = max(r, g, b) - min(r, g, b) > 40
    return mask


def regions(mask, width, height, minimum):
    seen = [[False] * width for _ in range(height)]
    found = []
    for y in range(height):
        for x in range(width):
            if not mask[y][x] or seen[y][x]:
                continue
            stack, pixels = [(x, y)], 0
            seen[y][x] = True
            x0, y0, x1, y1 = x, y, x, y
            while stack:
                cx, cy = stack.pop()
                pixels += 1
                x0, y0, x1, y1 = min(x0, cx), min(y0, cy), max(x1, cx), max(y1, cy)
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < width and 0 <= ny < height and mask[ny][nx] and not seen[ny][nx]:
                        seen[ny][nx] = True
                        stack.append((nx, ny))
            if pixels >= minimum:
                found.append([x0, y0, x1 - x0 + 1, y1 - y0 + 1, pixels])
    return found


def main():
    path = sys.argv[1]
    minimum = int(sys.argv[sys.argv.index("--min-pixels") + 1]) if "--min-pixels" in sys.argv else 20
    wanted = None
    if "--colour" in sys.argv:
        text = sys.argv[sys.argv.index("--colour") + 1]
        wanted = tuple(int(text[i:i + 2], 16) for i in (0, 2, 4))
    width, height, channels, rows = read_png(path)
    mask = coloured(width, height, channels, rows, wanted)
    print(json.dumps({"width": width, "height": height,
                      "regions": regions(mask, width, height, minimum)}))


if __name__ == "__main__":
    main()
