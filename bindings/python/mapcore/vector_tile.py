"""Mapbox Vector Tiles decoded to GeoJSON: include/mapcore/vector_tile.h."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from ._lib import Buf, lib, take_json, _declare

if TYPE_CHECKING:
    from typing_extensions import Buffer

MC_MVT_LNGLAT = 0x100

_declare("mc_mvt_decode", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
         ctypes.c_uint32, ctypes.POINTER(Buf))


def decode_mvt(data: Buffer, z: int | None = None, x: int | None = None,
               y: int | None = None) -> dict[str, dict[str, Any]]:
    """Decodes MVT bytes (gzip-compressed or not) to {layer name: {"version", "extent",
    "features": FeatureCollection}}. Coordinates are tile coordinates, or longitude/latitude
    when the tile's z, x and y are given."""
    data = bytes(data)
    lnglat = z is not None
    if lnglat and (x is None or y is None):
        raise ValueError("give z, x and y together (for longitude/latitude) or none of them")
    flags = MC_MVT_LNGLAT if lnglat else 0
    layers: dict[str, dict[str, Any]] = take_json(
        lambda buf: lib.mc_mvt_decode(data, len(data), z or 0, x or 0, y or 0, flags, buf))["layers"]
    return layers
