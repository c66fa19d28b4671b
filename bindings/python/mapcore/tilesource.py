"""Vector tile sources, tile URLs, tile cover and the camera fit: include/mapcore/tilesource.h."""
from __future__ import annotations

import ctypes
import json
import os
from typing import TYPE_CHECKING, Any, Literal, Sequence

from ._lib import Buf, Handle, check, lib, take_bytes, take_json, take_text, _declare
from .cluster import _bbox, _expression_json, _options_bytes
from .expression import Predicate

if TYPE_CHECKING:
    from ._lib import BBoxLike, GeoJSONLike
    from .source import DataSource

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_bufp = ctypes.POINTER(Buf)
_d4 = ctypes.POINTER(ctypes.c_double)
_int = ctypes.c_int

MC_FETCH_RAW = 0x200
MC_MVT_LNGLAT = 0x100

_declare("mc_tile_source_new", _int, ctypes.c_char_p, ctypes.c_size_t, _pp)
_declare("mc_tile_source_free", None, _p)
_declare("mc_tile_source_info", _int, _p, ctypes.c_uint32, _bufp)
_declare("mc_tile_source_url", _int, _p, _int, _int, _int, ctypes.c_double, _bufp)
_declare("mc_tile_source_cover", _int, _p, _d4, ctypes.c_double, _bufp)
_declare("mc_tile_source_fetch", _int, _p, _int, _int, _int, ctypes.c_uint32, _bufp)
_declare("mc_tile_source_features", _int, _p, _int, _int, _int, ctypes.c_char_p, ctypes.c_uint32, _bufp)
_declare("mc_tile_source_query", _int, _p, _d4, ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.c_uint32, _bufp)
_declare("mc_tile_url_expand", _int, ctypes.c_char_p, ctypes.c_size_t, _int, _int, _int, _int, ctypes.c_double, _bufp)
_declare("mc_tile_cover", _int, _d4, _int, _bufp)
_declare("mc_camera_fit", _int, _d4, ctypes.c_double, ctypes.c_double, _d4, ctypes.c_double, ctypes.c_double, _d4)


def _layer(source_layer: str | None) -> bytes | None:
    return None if source_layer is None else source_layer.encode("utf-8")


def _filter_bytes(filter: Any) -> bytes | None:
    """A filter as JSON text: a Filter/Predicate/Expression, JSON data, or an NSPredicate format string."""
    if filter is None:
        return None
    if isinstance(filter, str):
        filter = Predicate(filter)
    return json.dumps(_expression_json(filter), allow_nan=False).encode()


class VectorTileSource(Handle):
    """A MapLibre vector tile source without the drawing: tile URL templates (`tiles`) or a
    TileJSON / archive (`url`: a path, file://, http(s)://, mbtiles://PATH, pmtiles://PATH or a
    path ending in .mbtiles/.pmtiles). Options left as None take the defaults tilesource.h lists;
    a TileJSON fills what the caller left out."""

    __slots__ = ()
    _free = staticmethod(lib.mc_tile_source_free)

    def __init__(self, tiles: str | Sequence[str] | None = None, *, url: str | os.PathLike[str] | None = None,
                 minzoom: int | None = None, maxzoom: int | None = None, bounds: BBoxLike | None = None,
                 scheme: Literal["xyz", "tms"] | None = None, tile_size: int | None = None,
                 attribution: str | None = None, encoding: str | None = None, promote_id: str | None = None) -> None:
        if isinstance(tiles, str):
            tiles = [tiles]
        options = _options_bytes({
            "tiles": None if tiles is None else list(tiles), "url": None if url is None else str(url),
            "minzoom": minzoom, "maxzoom": maxzoom, "bounds": None if bounds is None else [float(v) for v in bounds],
            "scheme": scheme, "tileSize": tile_size, "attribution": attribution, "encoding": encoding,
            "promoteId": promote_id,
        })
        handle = _p()
        check(lib.mc_tile_source_new(options, len(options), ctypes.byref(handle)))
        self._handle = handle

    def info(self) -> dict[str, Any]:
        """{"options": effective options, "tilejson": the TileJSON or archive metadata, or None}."""
        info: dict[str, Any] = json.loads(take_text(lambda buf: lib.mc_tile_source_info(self._handle, 0, buf)))
        return info

    @property
    def options(self) -> dict[str, Any]:
        """The effective options, with the style spec's names ("tiles", "minzoom", "tileSize"…)."""
        options: dict[str, Any] = self.info()["options"]
        return options

    @property
    def tilejson(self) -> dict[str, Any] | None:
        """The TileJSON document or the archive's metadata as TileJSON, or None (tile templates only)."""
        tilejson: dict[str, Any] | None = self.info()["tilejson"]
        return tilejson

    def __repr__(self) -> str:
        """<mapcore.VectorTileSource URL or first template, zoom 0-14>, or <mapcore.VectorTileSource closed>."""
        if not self._handle:
            return "<mapcore.VectorTileSource closed>"
        options = self.options
        tiles = options["tiles"] or []
        where = options["url"] or (tiles[0] if tiles else "no tiles")
        if not options["url"] and len(tiles) > 1:
            where += f" (+{len(tiles) - 1} more)"
        return f"<mapcore.VectorTileSource {where}, zoom {options['minzoom']}-{options['maxzoom']}>"

    def tile_url(self, z: int, x: int, y: int, ratio: float = 1) -> str:
        """The URL of tile z/x/y (`ratio` > 1 makes {ratio} "@2x")."""
        return take_text(lambda buf: lib.mc_tile_source_url(self._handle, z, x, y, float(ratio), buf))

    def cover(self, bbox: BBoxLike, zoom: float) -> list[tuple[int, int, int, int]]:
        """The tiles a map at `zoom` showing bbox (west, south, east, north) loads, closest to the
        centre first, as (z, x, y, overscaled_z) tuples."""
        box = _bbox(bbox)
        text = take_text(lambda buf: lib.mc_tile_source_cover(self._handle, box, float(zoom), buf))
        return [tuple(t) for t in json.loads(text)]

    def fetch(self, z: int, x: int, y: int, *, raw: bool = False) -> bytes | None:
        """The tile's bytes (inflated unless `raw`), or None when there is no tile."""
        flags = MC_FETCH_RAW if raw else 0
        return take_bytes(lambda buf: lib.mc_tile_source_fetch(self._handle, z, x, y, flags, buf)) or None

    def features(self, z: int, x: int, y: int, source_layer: str | None = None, *,
                 geographic: bool = True) -> list[dict[str, Any]]:
        """The tile's features (a list of GeoJSON feature dicts with "sourceLayer"), of one layer
        or all, in longitude/latitude (or tile coordinates with geographic=False)."""
        flags = MC_MVT_LNGLAT if geographic else 0
        layer = _layer(source_layer)
        features: list[dict[str, Any]] = take_json(
            lambda buf: lib.mc_tile_source_features(self._handle, z, x, y, layer, flags, buf))["features"]
        return features

    def query(self, bbox: BBoxLike, zoom: float, source_layer: str | None = None,
              filter: Any = None) -> list[dict[str, Any]]:
        """MapLibre's querySourceFeatures: the features of the tiles covering bbox at zoom that
        `filter` keeps (a Filter, JSON filter, or NSPredicate format string), each id once."""
        box = _bbox(bbox)
        layer = _layer(source_layer)
        data = _filter_bytes(filter)
        n = 0 if data is None else len(data)
        features: list[dict[str, Any]] = take_json(
            lambda buf: lib.mc_tile_source_query(self._handle, box, float(zoom), layer, data, n, 0, buf))["features"]
        return features


def tile_url(template: str, z: int, x: int, y: int, *, scheme: Literal["xyz", "tms"] = "xyz",
             ratio: float = 1) -> str:
    """A tile URL template expanded as MapLibre Native expands it (every placeholder)."""
    data = template.encode("utf-8")
    if scheme not in ("xyz", "tms"):
        raise ValueError('scheme is "xyz" or "tms"')
    tms = 1 if scheme == "tms" else 0
    return take_text(lambda buf: lib.mc_tile_url_expand(data, len(data), z, x, y, tms, float(ratio), buf))


def tile_cover(bbox: BBoxLike, zoom: float) -> list[tuple[int, int, int]]:
    """The (z, x, y) tiles bbox touches at zoom, closest to its centre first (MapLibre's tileCover)."""
    box = _bbox(bbox)
    return [tuple(t) for t in json.loads(take_text(lambda buf: lib.mc_tile_cover(box, int(zoom), buf)))]


def camera_fit(bbox: BBoxLike, width: float, height: float, *, padding: Sequence[float] | None = None,
               min_zoom: float = 0.0, max_zoom: float = 22.0) -> tuple[float, float, float]:
    """(longitude, latitude, zoom) of the camera that shows bbox in width x height pixels less
    padding (top, left, bottom, right), as MapLibre's cameraForLatLngBounds."""
    box = _bbox(bbox)
    pad = None if padding is None else (ctypes.c_double * 4)(*[float(v) for v in padding])
    out = (ctypes.c_double * 3)()
    check(lib.mc_camera_fit(box, float(width), float(height), pad, float(min_zoom), float(max_zoom), out))
    return (out[0], out[1], out[2])


_declare("mc_tileset_write", _int, _p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, _bufp)


def write_tiles(data: DataSource | GeoJSONLike, path: str | os.PathLike[str], *, minzoom: int | None = None,
                maxzoom: int | None = None, layer: str | None = None, gzip: bool | None = None, name: str | None = None,
                **source_options: Any) -> dict[str, Any]:
    """Writes data (a DataSource, or GeoJSON for a new DataSource made with `source_options`, e.g.
    cluster=True, buffer=..., filter=...) as a tileset at path: a directory, or an archive when
    path ends in .mbtiles or .pmtiles. Returns the summary dict ({"format", "tiles", "bytes", ...})."""
    from .source import DataSource
    if isinstance(data, DataSource):
        if source_options:
            raise TypeError("source options apply to GeoJSON data, not to an existing DataSource")
        source = data
    else:
        source = DataSource(**source_options)
        source.add(data)
    options = _options_bytes({"minzoom": minzoom, "maxzoom": maxzoom, "layer": layer,
                              "gzip": None if gzip is None else bool(gzip), "name": name})
    target = str(path).encode("utf-8")
    text = take_text(lambda buf: lib.mc_tileset_write(source._handle, target, options, len(options), buf))
    summary: dict[str, Any] = json.loads(text)
    return summary
