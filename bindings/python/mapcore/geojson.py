"""GeoJSON handles: include/mapcore/geojson.h."""
from __future__ import annotations

import ctypes
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from . import interop
from ._lib import (SERIALIZE_MSGPACK, SERIALIZE_PRETTY, Buf, Handle, check, lib, take_bytes, take_text, take_values,
                   _declare, c_int_p, c_size_p)

if TYPE_CHECKING:
    from ._lib import GeoJSONLike


class ParseOptions(ctypes.Structure):
    """mc_parse_options of geojson.h (version 2: max_depth, flags such as MC_PARSE_LENIENT)."""

    _fields_ = [("version", ctypes.c_uint32), ("max_depth", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


PARSE_LENIENT = 0x1


_declare("mc_geojson_parse", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(ParseOptions), ctypes.POINTER(ctypes.c_void_p))
_declare("mc_geojson_free", None, ctypes.c_void_p)
_declare("mc_geojson_kind", ctypes.c_int, ctypes.c_void_p, c_int_p)
_declare("mc_geojson_feature_count", ctypes.c_int, ctypes.c_void_p, c_size_p)
_declare("mc_geojson_geometry_type", ctypes.c_int, ctypes.c_void_p, c_int_p)
_declare("mc_geojson_serialize", ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(Buf))

KINDS = {1: "Geometry", 2: "Feature", 3: "FeatureCollection"}
GEOMETRY_TYPES = {0: None, 1: "Point", 2: "MultiPoint", 3: "LineString", 4: "MultiLineString",
                  5: "Polygon", 6: "MultiPolygon", 7: "GeometryCollection"}


def _json_default(value: Any) -> Any:
    """numpy scalars and arrays (GeoPandas properties, shapely coordinates) as JSON values, as
    orjson writes them: float32 by its shortest form (0.1, not 0.10000000149011612), NaN as null."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
        value = value.astype("U32").astype("f8")  # numpy prints the shortest float32 form
    for name in ("tolist", "item"):
        if hasattr(value, name):
            return _finite(getattr(value, name)())
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def as_geojson_object(source: GeoJSONLike) -> Any:
    """A GeoJSON dict (or the text/bytes as given) from the forms Python's geospatial packages
    use: an object with ``__geo_interface__`` (shapely geometries, GeoPandas GeoDataFrames,
    GeoSeries and rows), a list or tuple of features (dicts or ``__geo_interface__`` objects),
    a ``pathlib.Path`` (the file's bytes), a pyarrow/GeoArrow point array (a Point feature per
    point), or a dict, str or bytes."""
    if isinstance(source, (dict, str, bytes, bytearray, memoryview)):
        return source
    if isinstance(source, os.PathLike):
        return Path(source).read_bytes()
    geo = interop.geopandas_geojson(source)
    if geo is None:
        geo = interop.arrow_geojson(source)
    if geo is None:
        geo = getattr(source, "__geo_interface__", None)
    if geo is not None:
        return geo
    if isinstance(source, (list, tuple)):
        features = []
        for item in source:
            item = getattr(item, "__geo_interface__", item)
            if isinstance(item, dict) and item.get("type") not in ("Feature", None):
                item = {"type": "Feature", "geometry": item, "properties": {}}
            features.append(item)
        return {"type": "FeatureCollection", "features": features}
    raise TypeError(f"expected GeoJSON (a dict, str, bytes, Path, list of features or an object with "
                    f"__geo_interface__), not {type(source).__name__}")


def is_feature_list(obj: object) -> bool:
    """Whether a list or tuple holds features or geometries rather than (lon, lat) positions."""
    if not isinstance(obj, (list, tuple)) or not obj:
        return False
    first = obj[0]
    return isinstance(first, dict) or hasattr(first, "__geo_interface__")


def _finite(value: Any) -> Any:
    """`value` with NaN and infinite floats as None, as JSON.stringify writes them in GL JS."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _dumps_json(value: Any) -> bytes:
    """Python's json module; NaN and infinities become null (orjson's rule), so both give one text."""
    try:
        text = json.dumps(value, allow_nan=False, default=_json_default)
    except ValueError:
        text = json.dumps(_finite(value), allow_nan=False, default=_json_default)
    return text.encode("utf-8", "surrogatepass")


# orjson writes a million feature dicts in 0.55 s, json in 3.7 s (perf-log, "Python ways in and
# out"). orjson also writes datetimes, UUIDs, dataclasses and enums, which json refuses.
try:
    import orjson

    def _dumps(value: Any) -> bytes:
        try:
            return orjson.dumps(value, default=_json_default, option=orjson.OPT_SERIALIZE_NUMPY)
        except orjson.JSONEncodeError:  # integers past 64 bits, non-str keys, lone surrogates
            return _dumps_json(value)
except ImportError:  # pragma: no cover - the test environment installs orjson
    _dumps = _dumps_json


def to_bytes(source: GeoJSONLike) -> bytes:
    """GeoJSON text as UTF-8 bytes from any form as_geojson_object() takes. Non-finite floats
    become null, as in GL JS (JSON.stringify)."""
    source = as_geojson_object(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass")
    return _dumps(source)


class GeoJSON(Handle):
    """A parsed GeoJSON object (geometry, Feature or FeatureCollection), immutable.

    Build one from a dict, a JSON str or bytes. The handle is freed when the object is
    garbage-collected, or at once with close() / a with-block. ``lenient=True`` reads polygon
    rings as MapLibre does (rings of 1 to 3 positions and unclosed rings kept as given; see
    MC_PARSE_LENIENT in geojson.h)."""

    __slots__ = ()
    _free = staticmethod(lib.mc_geojson_free)

    def __init__(self, source: GeoJSONLike, max_depth: int | None = None, lenient: bool = False) -> None:
        data = to_bytes(source)
        options = ParseOptions(2, max_depth or 0, PARSE_LENIENT if lenient else 0)
        handle = ctypes.c_void_p()
        check(lib.mc_geojson_parse(data, len(data), ctypes.byref(options), ctypes.byref(handle)))
        self._handle = handle

    @property
    def handle(self) -> ctypes.c_void_p:
        """The raw mc_geojson pointer (a ctypes.c_void_p), for passing to other calls."""
        return self._handle


    @property
    def kind(self) -> str:
        """"Geometry", "Feature" or "FeatureCollection"."""
        out = ctypes.c_int()
        check(lib.mc_geojson_kind(self._handle, ctypes.byref(out)))
        return KINDS[out.value]

    @property
    def geometry_type(self) -> str | None:
        """The geometry type name of a geometry or Feature (None for a null geometry)."""
        out = ctypes.c_int()
        check(lib.mc_geojson_geometry_type(self._handle, ctypes.byref(out)))
        return GEOMETRY_TYPES[out.value]

    def __len__(self) -> int:
        """Number of features (0 for a bare geometry)."""
        out = ctypes.c_size_t()
        check(lib.mc_geojson_feature_count(self._handle, ctypes.byref(out)))
        return out.value

    def to_json(self, pretty: bool = False) -> str:
        """The value as GeoJSON text (indented when ``pretty``)."""
        flags = SERIALIZE_PRETTY if pretty else 0
        return take_text(lambda buf: lib.mc_geojson_serialize(self._handle, flags, buf))

    def to_msgpack(self) -> bytes:
        """The value as MessagePack (the members, order and number types of its GeoJSON text;
        see MC_SERIALIZE_MSGPACK in include/mapcore/geojson.h)."""
        return take_bytes(lambda buf: lib.mc_geojson_serialize(self._handle, SERIALIZE_MSGPACK, buf))

    def to_dict(self) -> dict[str, Any]:
        """The value as a GeoJSON dict (built from the library's MessagePack by the C extension,
        else read from its text)."""
        value: dict[str, Any] = take_values(lambda flags, buf: lib.mc_geojson_serialize(self._handle, flags, buf))
        return value

    def to_shapely(self) -> Any:
        """The value as shapely 2: a geometry for a geometry or Feature (None for a null
        geometry), a numpy object array of one geometry per feature for a FeatureCollection."""
        return interop.to_shapely(self.to_dict())

    def to_geopandas(self) -> Any:
        """The value as a GeoPandas GeoDataFrame (EPSG:4326), one row per feature: a column per
        property and ``geometry``; the index holds the feature ids when every feature has one."""
        return interop.to_geopandas(self.to_dict())

    def __reduce__(self) -> tuple[Callable[..., GeoJSON], tuple[str, None, bool]]:
        """Pickled as its GeoJSON text, read back leniently (a value is never refused on load)."""
        return (GeoJSON, (self.to_json(), None, True))

    @property
    def __geo_interface__(self) -> dict[str, Any]:
        """The value as a GeoJSON dict, so shapely.geometry.shape(), GeoPandas and other
        packages of the geo interface take a mapcore.GeoJSON directly."""
        return self.to_dict()

    def __repr__(self) -> str:
        if not self._handle:
            return "<mapcore.GeoJSON closed>"
        kind = self.kind
        detail = f"{len(self)} features" if kind == "FeatureCollection" else self.geometry_type
        return f"<mapcore.GeoJSON {kind}: {detail}>"


def as_geojson(obj: GeoJSONLike | GeoJSON) -> GeoJSON:
    """A GeoJSON handle for `obj`, parsing it unless it already is one."""
    return obj if isinstance(obj, GeoJSON) else GeoJSON(obj)
