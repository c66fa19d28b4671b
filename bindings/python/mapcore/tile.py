"""GeoJSON cut into vector tiles as geojson-vt 4.0.2 cuts it: include/mapcore/tile.h."""
from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any

from ._lib import Buf, Handle, check, lib, take_bytes, take_json, take_text, _declare
from .cluster import _options_bytes
from .geojson import as_geojson

if TYPE_CHECKING:
    from ._lib import GeoJSONLike

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_bufp = ctypes.POINTER(Buf)

_declare("mc_tile_index_new", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t, _pp)
_declare("mc_tile_index_free", None, _p)
_declare("mc_tile_index_get_tile", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint32, _bufp)
_declare("mc_tile_index_get_tile_mvt", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
         _bufp)
_declare("mc_tile_index_stats", ctypes.c_int, _p, ctypes.c_uint32, _bufp)


class GeoJSONVT(Handle):
    """geojson-vt's tile index over GeoJSON (dict, str, bytes or GeoJSON handle), with its
    options in snake case. Options left as None take geojson-vt's defaults (tile.h lists them);
    `compatibility="maplibre-native"` gives MapLibre Native's tiles instead of geojson-vt JS's."""

    __slots__ = ()
    _free = staticmethod(lib.mc_tile_index_free)

    def __init__(self, data: GeoJSONLike, *, max_zoom: int | None = None, index_max_zoom: int | None = None,
                 index_max_points: int | None = None, tolerance: float | None = None, extent: float | None = None,
                 buffer: float | None = None, line_metrics: bool | None = None, promote_id: str | None = None,
                 generate_id: bool | None = None, compatibility: str | None = None) -> None:
        def flag(v: object) -> bool | None:
            return None if v is None else bool(v)
        options = _options_bytes({
            "maxZoom": max_zoom, "indexMaxZoom": index_max_zoom, "indexMaxPoints": index_max_points,
            "tolerance": tolerance, "extent": extent, "buffer": buffer, "lineMetrics": flag(line_metrics),
            "promoteId": promote_id, "generateId": flag(generate_id), "compatibility": compatibility,
        })
        doc = as_geojson(data)
        handle = _p()
        check(lib.mc_tile_index_new(doc._handle, options, len(options), ctypes.byref(handle)))
        self._handle = handle

    def get_tile(self, z: int, x: int, y: int) -> dict[str, Any] | None:
        """geojson-vt's tile object as a dict ({"features": [...]}, geometry in tile coordinates),
        or None where geojson-vt gives no tile. z/x/y outside the grid: InvalidArgumentError."""
        tile: dict[str, Any] | None = take_json(lambda buf: lib.mc_tile_index_get_tile(self._handle, z, x, y, 0, buf))
        return tile

    def get_tile_mvt(self, z: int, x: int, y: int, layer: str = "geojson") -> bytes | None:
        """The tile as Mapbox Vector Tile bytes with one layer, or None for an empty tile. The first MVT a feature
        is written in interns its id and properties in the index (kept for the index's life), which makes later
        tiles holding it faster to write. Raises InvalidArgumentError when extent + 2 × buffer is more than 2^31 - 3
        (an MVT's coordinates are sint32; `get_tile` has no such limit)."""
        data = take_bytes(lambda buf: lib.mc_tile_index_get_tile_mvt(self._handle, z, x, y, layer.encode(), buf))
        return data or None

    def stats(self) -> dict[str, Any]:
        """{"total": tiles made so far, "options": effective options, "indexedTiles": [[z, x, y], ...]}."""
        stats: dict[str, Any] = json.loads(take_text(lambda buf: lib.mc_tile_index_stats(self._handle, 0, buf)))
        return stats

    @property
    def total(self) -> int:
        """Number of tiles made so far (geojson-vt's `total`)."""
        total: int = self.stats()["total"]
        return total

    def __repr__(self) -> str:
        """<mapcore.GeoJSONVT geojson-vt, max_zoom 14: 5 tiles made>, or <mapcore.GeoJSONVT closed>."""
        if not self._handle:
            return "<mapcore.GeoJSONVT closed>"
        stats = self.stats()
        options, total = stats["options"], stats["total"]
        return (f"<mapcore.GeoJSONVT {options['compatibility']}, max_zoom {options['maxZoom']}: "
                f"{total} tile{'' if total == 1 else 's'} made>")
