"""Bounding boxes, positions and convex hulls: include/mapcore/geometry.h."""
from __future__ import annotations

import ctypes
import json
import os
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ._lib import check, lib, _declare, c_double_p, c_int_p, c_size_p
from .geojson import GeoJSON, as_geojson, is_feature_list

if TYPE_CHECKING:
    from typing import Sequence

    from ._lib import BBoxLike, GeoJSONLike, PositionsLike


class _BBox(ctypes.Structure):
    """mc_bbox of geometry.h."""

    west: float
    south: float
    east: float
    north: float
    _fields_ = [("west", ctypes.c_double), ("south", ctypes.c_double),
                ("east", ctypes.c_double), ("north", ctypes.c_double)]


_bbox_p = ctypes.POINTER(_BBox)
_declare("mc_geojson_bbox", ctypes.c_int, ctypes.c_void_p, _bbox_p, c_int_p)
_declare("mc_bbox_of_positions", ctypes.c_int, c_double_p, ctypes.c_size_t, _bbox_p, c_int_p)
_declare("mc_bbox_merge", ctypes.c_int, _bbox_p, _bbox_p, _bbox_p)
_declare("mc_bbox_contains", ctypes.c_int, _bbox_p, ctypes.c_double, ctypes.c_double, c_int_p)
_declare("mc_bbox_intersects", ctypes.c_int, _bbox_p, _bbox_p, c_int_p)
_declare("mc_bbox_crosses_antimeridian", ctypes.c_int, _bbox_p, c_int_p)
_declare("mc_bbox_split_antimeridian", ctypes.c_int, _bbox_p, _bbox_p, c_size_p)
_declare("mc_geojson_position_count", ctypes.c_int, ctypes.c_void_p, c_size_p)
_declare("mc_geojson_positions", ctypes.c_int, ctypes.c_void_p, c_double_p, ctypes.c_size_t, c_size_p)
_declare("mc_geojson_convex_hull", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_declare("mc_convex_hull_positions", ctypes.c_int, c_double_p, ctypes.c_size_t, c_double_p,
         ctypes.c_size_t, c_size_p)

class BBox(NamedTuple):
    """A longitude/latitude box; west > east means it crosses the antimeridian."""

    west: float
    south: float
    east: float
    north: float


def _is_positions(obj: Any) -> bool:
    """Bulk positions: any buffer of doubles, or a list/tuple of (lon, lat[, alt]) pairs."""
    if isinstance(obj, (bytes, bytearray, str, dict, GeoJSON, os.PathLike)) or hasattr(obj, "__geo_interface__"):
        return False
    if isinstance(obj, (list, tuple)):
        return not is_feature_list(obj)
    try:
        memoryview(obj)
        return True
    except TypeError:
        return False


def _flat_doubles(obj: Any) -> tuple[ctypes.Array[ctypes.c_double], int]:
    """(ctypes double array, position count) for bulk positions, without copying a contiguous
    writable buffer of doubles (numpy arrays, array('d'))."""
    if isinstance(obj, (list, tuple)):
        flat: list[float] = []
        for p in obj:
            if len(p) < 2:
                raise ValueError("a position needs at least two numbers")
            flat.append(float(p[0]))
            flat.append(float(p[1]))
        return (ctypes.c_double * len(flat))(*flat), len(flat) // 2
    view = memoryview(obj)
    if view.format not in ("d", "<d", "=d", "@d") or not view.c_contiguous:
        raise TypeError("bulk positions must be a C-contiguous buffer of float64 (lon, lat pairs)")
    doubles = view.nbytes // 8
    if doubles % 2:
        raise ValueError("bulk positions need an even number of doubles")
    array_type = ctypes.c_double * doubles
    array = array_type.from_buffer_copy(view) if view.readonly else array_type.from_buffer(view)
    return array, doubles // 2


def _box_arg(box: BBoxLike) -> Any:
    """A box for the library: a pointer to an mc_bbox (a ctypes argument object)."""
    return ctypes.byref(_BBox(*box))


def bbox(obj: GeoJSONLike | PositionsLike) -> BBox | None:
    """The box (west, south, east, north) of every position of `obj`, or None when it has none.

    `obj`: a GeoJSON dict, JSON str/bytes, a GeoJSON handle, a list of (lon, lat) positions, or
    any buffer of float64 lon/lat pairs (numpy array, array('d'))."""
    out, found = _BBox(), ctypes.c_int()
    if _is_positions(obj):
        xy, n = _flat_doubles(obj)
        check(lib.mc_bbox_of_positions(xy, n, ctypes.byref(out), ctypes.byref(found)))
    else:
        g = as_geojson(cast("GeoJSONLike", obj))  # not bulk positions: GeoJSON in one of its forms
        check(lib.mc_geojson_bbox(g.handle, ctypes.byref(out), ctypes.byref(found)))
    return BBox(out.west, out.south, out.east, out.north) if found.value else None


def positions(obj: GeoJSONLike) -> list[tuple[float, float]]:
    """Every position of a GeoJSON value as a list of (lon, lat), in document order."""
    g = as_geojson(obj)
    count = ctypes.c_size_t()
    check(lib.mc_geojson_position_count(g.handle, ctypes.byref(count)))
    buf = (ctypes.c_double * (2 * count.value))()
    check(lib.mc_geojson_positions(g.handle, buf, count.value, ctypes.byref(count)))
    return list(zip(buf[0::2], buf[1::2]))


def convex_hull(obj: GeoJSONLike | PositionsLike) -> dict[str, Any] | None:
    """The convex hull as a GeoJSON geometry dict: Point (one distinct position), LineString
    (collinear positions), or Polygon (closed counter-clockwise ring); None without positions.
    `obj` takes the same forms as for bbox()."""
    if _is_positions(obj):
        xy, n = _flat_doubles(obj)
        out = (ctypes.c_double * (2 * (n + 1)))()
        count = ctypes.c_size_t()
        check(lib.mc_convex_hull_positions(xy, n, out, n + 1, ctypes.byref(count)))
        coords = [[out[2 * i], out[2 * i + 1]] for i in range(count.value)]
        if not coords:
            return None
        if len(coords) == 1:
            return {"type": "Point", "coordinates": coords[0]}
        if len(coords) == 2:
            return {"type": "LineString", "coordinates": coords}
        return {"type": "Polygon", "coordinates": [coords]}
    g = as_geojson(cast("GeoJSONLike", obj))  # not bulk positions: GeoJSON in one of its forms
    hull = ctypes.c_void_p()
    check(lib.mc_geojson_convex_hull(g.handle, ctypes.byref(hull)))
    if not hull:
        return None
    with GeoJSON._adopt(hull) as h:
        geometry: dict[str, Any] = json.loads(h.to_json())
        return geometry


def bbox_merge(a: BBoxLike, b: BBoxLike) -> BBox:
    """The smallest box holding both (the shorter way around when one crosses the antimeridian)."""
    out = _BBox()
    check(lib.mc_bbox_merge(_box_arg(a), _box_arg(b), ctypes.byref(out)))
    return BBox(out.west, out.south, out.east, out.north)


def bbox_contains(box: BBoxLike, position: Sequence[float]) -> bool:
    """Whether the (lon, lat) position is in the box, edges included."""
    out = ctypes.c_int()
    check(lib.mc_bbox_contains(_box_arg(box), float(position[0]), float(position[1]), ctypes.byref(out)))
    return bool(out.value)


def bbox_intersects(a: BBoxLike, b: BBoxLike) -> bool:
    """Whether the boxes share a point (touching counts)."""
    out = ctypes.c_int()
    check(lib.mc_bbox_intersects(_box_arg(a), _box_arg(b), ctypes.byref(out)))
    return bool(out.value)


def bbox_crosses_antimeridian(box: BBoxLike) -> bool:
    """Whether the box crosses the antimeridian (its west is greater than its east)."""
    out = ctypes.c_int()
    check(lib.mc_bbox_crosses_antimeridian(_box_arg(box), ctypes.byref(out)))
    return bool(out.value)


def bbox_split_antimeridian(box: BBoxLike) -> list[BBox]:
    """[box], or [western part, eastern part] when the box crosses the antimeridian."""
    parts, count = (_BBox * 2)(), ctypes.c_size_t()
    check(lib.mc_bbox_split_antimeridian(_box_arg(box), parts, ctypes.byref(count)))
    return [BBox(p.west, p.south, p.east, p.north) for p in parts[:count.value]]
