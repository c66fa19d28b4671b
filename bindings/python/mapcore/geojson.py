"""GeoJSON handles: include/mapcore/geojson.h."""
import ctypes
import json
import os
from pathlib import Path

from ._lib import Buf, Handle, check, lib, take_text, _declare, c_int_p, c_size_p


class ParseOptions(ctypes.Structure):
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
SERIALIZE_PRETTY = 1


def _json_default(value):
    """numpy scalars and arrays (GeoPandas properties, shapely coordinates) as JSON values."""
    for name in ("tolist", "item"):
        if hasattr(value, name):
            return getattr(value, name)()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def as_geojson_object(source):
    """A GeoJSON dict (or the text/bytes as given) from the forms Python's geospatial packages
    use: an object with ``__geo_interface__`` (shapely geometries, GeoPandas GeoDataFrames,
    GeoSeries and rows), a list or tuple of features (dicts or ``__geo_interface__`` objects),
    a ``pathlib.Path`` (the file's bytes), or a dict, str or bytes."""
    if isinstance(source, (dict, str, bytes, bytearray, memoryview)):
        return source
    if isinstance(source, os.PathLike):
        return Path(source).read_bytes()
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


def is_feature_list(obj):
    """Whether a list or tuple holds features or geometries rather than (lon, lat) positions."""
    if not isinstance(obj, (list, tuple)) or not obj:
        return False
    first = obj[0]
    return isinstance(first, dict) or hasattr(first, "__geo_interface__")


def to_bytes(source):
    """GeoJSON text as UTF-8 bytes from any form as_geojson_object() takes."""
    source = as_geojson_object(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass")
    return json.dumps(source, allow_nan=True, default=_json_default).encode("utf-8", "surrogatepass")


class GeoJSON(Handle):
    """A parsed GeoJSON object (geometry, Feature or FeatureCollection), immutable.

    Build one from a dict, a JSON str or bytes. The handle is freed when the object is
    garbage-collected, or at once with close() / a with-block. ``lenient=True`` reads polygon
    rings as MapLibre does (rings of 1 to 3 positions and unclosed rings kept as given; see
    MC_PARSE_LENIENT in geojson.h)."""

    __slots__ = ()
    _free = staticmethod(lib.mc_geojson_free)

    def __init__(self, source, max_depth=None, lenient=False):
        data = to_bytes(source)
        options = ParseOptions(2, max_depth or 0, PARSE_LENIENT if lenient else 0)
        handle = ctypes.c_void_p()
        check(lib.mc_geojson_parse(data, len(data), ctypes.byref(options), ctypes.byref(handle)))
        self._handle = handle

    @property
    def handle(self):
        """The raw mc_geojson pointer (a ctypes.c_void_p), for passing to other calls."""
        return self._handle


    @property
    def kind(self):
        """"Geometry", "Feature" or "FeatureCollection"."""
        out = ctypes.c_int()
        check(lib.mc_geojson_kind(self._handle, ctypes.byref(out)))
        return KINDS[out.value]

    @property
    def geometry_type(self):
        """The geometry type name of a geometry or Feature (None for a null geometry)."""
        out = ctypes.c_int()
        check(lib.mc_geojson_geometry_type(self._handle, ctypes.byref(out)))
        return GEOMETRY_TYPES[out.value]

    def __len__(self):
        """Number of features (0 for a bare geometry)."""
        out = ctypes.c_size_t()
        check(lib.mc_geojson_feature_count(self._handle, ctypes.byref(out)))
        return out.value

    def to_json(self, pretty=False):
        flags = SERIALIZE_PRETTY if pretty else 0
        return take_text(lambda buf: lib.mc_geojson_serialize(self._handle, flags, buf))

    def to_dict(self):
        return json.loads(self.to_json())

    def __reduce__(self):
        """Pickled as its GeoJSON text, read back leniently (a value is never refused on load)."""
        return (GeoJSON, (self.to_json(), None, True))

    @property
    def __geo_interface__(self):
        """The value as a GeoJSON dict, so shapely.geometry.shape(), GeoPandas and other
        packages of the geo interface take a mapcore.GeoJSON directly."""
        return self.to_dict()

    def __repr__(self):
        if not self._handle:
            return "<mapcore.GeoJSON closed>"
        kind = self.kind
        detail = f"{len(self)} features" if kind == "FeatureCollection" else self.geometry_type
        return f"<mapcore.GeoJSON {kind}: {detail}>"


def as_geojson(obj):
    """A GeoJSON handle for `obj`, parsing it unless it already is one."""
    return obj if isinstance(obj, GeoJSON) else GeoJSON(obj)
