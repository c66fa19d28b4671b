"""GeoJSON handles: include/mapcore/geojson.h."""
import ctypes
import json

from ._lib import Buf, Handle, check, lib, take_text, _declare, c_int_p, c_size_p


class ParseOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("max_depth", ctypes.c_uint32)]


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


def to_bytes(source):
    """GeoJSON text as UTF-8 bytes from a dict, a str, or bytes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass")
    if isinstance(source, dict):
        return json.dumps(source, allow_nan=True).encode("utf-8", "surrogatepass")
    raise TypeError(f"expected GeoJSON as a dict, str or bytes, not {type(source).__name__}")


class GeoJSON(Handle):
    """A parsed GeoJSON object (geometry, Feature or FeatureCollection), immutable.

    Build one from a dict, a JSON str or bytes. The handle is freed when the object is
    garbage-collected, or at once with close() / a with-block."""

    __slots__ = ()
    _free = staticmethod(lib.mc_geojson_free)

    def __init__(self, source, max_depth=None):
        data = to_bytes(source)
        options = ParseOptions(1, max_depth or 0)
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

    def __repr__(self):
        return f"<mapcore.GeoJSON {self.kind}>" if self._handle else "<mapcore.GeoJSON closed>"


def as_geojson(obj):
    """A GeoJSON handle for `obj`, parsing it unless it already is one."""
    return obj if isinstance(obj, GeoJSON) else GeoJSON(obj)
