"""MapCore: GeoJSON, geometry, style expressions and map logic from an embeddable C library, through ctypes.

    >>> import mapcore
    >>> mapcore.bbox({"type": "LineString", "coordinates": [[0, 0], [10, 5]]})
    (0.0, 0.0, 10.0, 5.0)

Every function releases the GIL while the library works (ctypes does), so threads run in
parallel. Errors raise MapCoreError subclasses carrying the code, message and input location.
"""
from ._lib import (
    BufferTooSmallError,
    EvaluationError,
    ExpressionError,
    TypeMismatchError,
    InvalidArgumentError,
    InvalidGeoJSONError,
    LimitError,
    MapCoreError,
    MisuseError,
    MapCoreIOError,
    NotFoundError,
    ParseError,
    UnsupportedError,
    abi_version,
    geos_version,
    library_path,
    version,
)
from .cluster import ClusterItem, Supercluster
from .source import DataSource
from .tile import GeoJSONVT
from .vector_tile import decode_mvt
from .tilesource import VectorTileSource, camera_fit, tile_cover, tile_url, write_tiles
from .expression import Expression, Filter, Predicate
from .format import Format, format_from_json, format_to_json
from . import builders
from .geojson import GeoJSON
from .geometry import (
    BBox,
    bbox,
    bbox_contains,
    bbox_crosses_antimeridian,
    bbox_intersects,
    bbox_merge,
    bbox_split_antimeridian,
    convex_hull,
    positions,
)

__version__ = "0.1.0"

__all__ = [
    "BBox",
    "BufferTooSmallError",
    "ClusterItem",
    "DataSource",
    "MapCoreIOError",
    "NotFoundError",
    "Supercluster",
    "GeoJSONVT",
    "decode_mvt",
    "VectorTileSource",
    "camera_fit",
    "tile_cover",
    "tile_url",
    "write_tiles",
    "EvaluationError",
    "Expression",
    "ExpressionError",
    "Filter",
    "Format",
    "Predicate",
    "builders",
    "format_from_json",
    "format_to_json",
    "TypeMismatchError",
    "GeoJSON",
    "InvalidArgumentError",
    "InvalidGeoJSONError",
    "LimitError",
    "MapCoreError",
    "MisuseError",
    "ParseError",
    "UnsupportedError",
    "abi_version",
    "bbox",
    "bbox_contains",
    "bbox_crosses_antimeridian",
    "bbox_intersects",
    "bbox_merge",
    "bbox_split_antimeridian",
    "convex_hull",
    "geos_version",
    "library_path",
    "positions",
    "version",
]
