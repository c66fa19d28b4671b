"""A small PNG reader for the render tests (8-bit RGB/RGBA, non-interlaced: what MapLibre Native
writes), so comparing images needs numpy only."""
import struct
import zlib

import numpy as np


def _paeth(a, b, c):
    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, line, prev, channels):
    if kind == 0:
        return line
    if kind == 2:
        return (line + prev) & 255
    out = np.zeros_like(line)
    for i in range(len(line)):
        a = int(out[i - channels]) if i >= channels else 0
        b = int(prev[i])
        c = int(prev[i - channels]) if i >= channels else 0
        predictor = a if kind == 1 else (a + b) >> 1 if kind == 3 else _paeth(a, b, c)
        out[i] = (int(line[i]) + predictor) & 255
    return out


def decode_png(data):
    """PNG bytes -> (height, width, channels) uint8 array."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = channels = None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace != 0:
                raise ValueError(f"unsupported PNG: depth {depth}, color type {color}, interlace {interlace}")
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    rows = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), dtype=np.int32)
    prev = np.zeros(width * channels, dtype=np.int32)
    for y in range(height):
        prev = out[y] = _unfilter(rows[y, 0], rows[y, 1:].astype(np.int32), prev, channels)
    return out.reshape(height, width, channels).astype(np.uint8)
