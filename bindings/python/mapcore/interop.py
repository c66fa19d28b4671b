"""Conversions to and from the packages of Python's geospatial stack: numpy, shapely 2, GeoPandas
and pyarrow/GeoArrow. Each package is optional and imported only when a conversion needs it."""
from __future__ import annotations

import importlib
from typing import Any

def optional(name: str, purpose: str) -> Any:
    """Imports an optional package, or raises ImportError naming what needs it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f"mapcore: {purpose} needs the package {name!r} (pip install {name.split('.')[0]})") from e


# ---- points in: numpy, shapely, GeoPandas, pyarrow / GeoArrow --------------------------------


def _module_of(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def _arrow_points(array: Any) -> Any:
    """An (n, 2) float64 numpy array of a pyarrow point array: GeoArrow ``geoarrow.point`` (its
    interleaved fixed-size-list or separated struct storage, with or without the extension type
    registered), a plain fixed_size_list<double>[2] or struct<x, y>, or a chunked array of them."""
    pa = optional("pyarrow", "reading Arrow points")
    np = optional("numpy", "reading Arrow points")
    if isinstance(array, (pa.Table, pa.RecordBatch)):
        if "geometry" not in array.column_names:
            raise ValueError("an Arrow table of points needs a geometry column")
        array = array.column("geometry")
    if isinstance(array, pa.ChunkedArray):
        chunks = [_arrow_points(c) for c in array.chunks]
        return np.concatenate(chunks) if chunks else np.empty((0, 2))
    if not isinstance(array, pa.Array):
        raise TypeError(f"expected an Arrow array of points, not {type(array).__name__}")
    if isinstance(array, pa.ExtensionArray):
        array = array.storage
    if array.null_count:
        raise ValueError("Arrow points must not be null")
    kind = array.type
    if pa.types.is_fixed_size_list(kind) and array.values.null_count or \
            pa.types.is_struct(kind) and any(array.field(i).null_count for i in range(kind.num_fields)):
        raise ValueError("Arrow point coordinates must not be null")
    if pa.types.is_fixed_size_list(kind):
        if kind.list_size not in (2, 3, 4):
            raise ValueError(f"Arrow points are lists of 2 to 4 coordinates, not {kind.list_size}")
        values = array.flatten().to_numpy(zero_copy_only=False).astype("f8", copy=False)
        return values.reshape(-1, kind.list_size)[:, :2]
    if pa.types.is_struct(kind):
        names = [kind.field(i).name for i in range(kind.num_fields)]
        if names[:2] != ["x", "y"]:
            raise ValueError(f"Arrow point structs start with fields x, y, not {names}")
        x = array.field(0).to_numpy(zero_copy_only=False).astype("f8", copy=False)
        y = array.field(1).to_numpy(zero_copy_only=False).astype("f8", copy=False)
        return np.column_stack((x, y))
    raise TypeError(f"not an Arrow point array: {kind}")


def _shapely_points(geometries: Any) -> Any:
    """An (n, 2) float64 array of a sequence of shapely Points (a GeoSeries, a numpy object array)."""
    shapely = optional("shapely", "reading shapely points")
    np = optional("numpy", "reading shapely points")
    values = np.asarray(getattr(geometries, "values", geometries), dtype=object)
    if values.ndim != 1:
        raise ValueError("expected a one-dimensional sequence of geometries")
    kinds = shapely.get_type_id(values)
    if len(values) and not (kinds == shapely.GeometryType.POINT).all():
        raise ValueError("every geometry must be a non-empty Point (use load() with GeoJSON for other types)")
    if shapely.is_empty(values).any():
        raise ValueError("every geometry must be a non-empty Point")
    return shapely.get_coordinates(values)


def points_array(obj: Any) -> Any:
    """Points as an (n, 2) float64 numpy array (longitude, latitude) if `obj` is a bulk point
    container: a pyarrow/GeoArrow point array (or a table's ``geometry`` column), a GeoPandas
    GeoSeries (or its array) or numpy array of shapely Points, or a numeric numpy array of shape
    (n, 2 or more: longitude, latitude first); else None (the caller reads it as GeoJSON)."""
    module = _module_of(obj)
    if module == "pyarrow":
        points = _arrow_points(obj)
    elif module == "geopandas" and type(obj).__name__ in ("GeoSeries", "GeometryArray"):
        crs = getattr(obj, "crs", None)
        if crs is not None and not crs.equals("EPSG:4326") and not crs.equals("OGC:CRS84"):
            raise ValueError(f"points must be longitude/latitude (EPSG:4326), not {crs.name}: use .to_crs(4326)")
        points = _shapely_points(obj)
    elif module == "numpy" and obj.dtype == object:
        points = _shapely_points(obj)
    elif module == "numpy" and obj.ndim == 2 and obj.shape[1] >= 2:
        if obj.dtype.kind not in "iuf":
            raise TypeError(f"numpy points must be numbers, not {obj.dtype}")
        points = obj[:, :2]
    else:
        return None
    np = optional("numpy", "reading points")
    return np.ascontiguousarray(points, dtype="f8")


def geopandas_geojson(obj: Any) -> dict[str, Any] | None:
    """A GeoDataFrame or GeoSeries as a FeatureCollection dict without the bounding boxes its
    ``__geo_interface__`` adds (it writes ``"bbox": null`` for a null geometry, which RFC 7946
    does not allow); the index gives the ids, as there. None for anything else."""
    if _module_of(obj) != "geopandas":
        return None
    name = type(obj).__name__
    if name == "GeoSeries":
        obj = optional("geopandas", "reading a GeoSeries").GeoDataFrame({"geometry": obj})
    elif name != "GeoDataFrame":
        return None
    result: dict[str, Any] = obj.to_geo_dict(show_bbox=False)
    return result


def arrow_geojson(obj: Any) -> dict[str, Any] | None:
    """A pyarrow/GeoArrow point array as a FeatureCollection of Point features (no properties),
    in order; None for anything else."""
    if _module_of(obj) != "pyarrow":
        return None
    features = [{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": xy}}
                for xy in _arrow_points(obj).tolist()]
    return {"type": "FeatureCollection", "features": features}


# ---- results out ---------------------------------------------------------------------------------


def cluster_items_numpy(items: Any) -> Any:
    """A structured numpy array (fields id, lng, lat, point_count) viewing a ctypes ClusterItem
    array without copying; it keeps the ctypes array alive."""
    np = optional("numpy", "numpy results")
    return np.frombuffer(items, dtype=np.dtype(type(items)._type_), count=len(items))


def cluster_items_arrow(items: Any) -> Any:
    """A pyarrow Table of ClusterItems: columns id, point_count, cluster (a point has point_count
    1 and its input index as id) and geometry, a GeoArrow ``geoarrow.point``
    column (interleaved x/y, WGS 84 longitude/latitude)."""
    pa = optional("pyarrow", "Arrow results")
    np = optional("numpy", "Arrow results")
    view = cluster_items_numpy(items)
    coords = np.empty((len(view), 2))
    coords[:, 0] = view["lng"]
    coords[:, 1] = view["lat"]
    geometry = pa.FixedSizeListArray.from_arrays(pa.array(coords.reshape(-1)), 2)
    metadata = {b"ARROW:extension:name": b"geoarrow.point",
                b"ARROW:extension:metadata": b'{"crs":"OGC:CRS84"}'}
    schema = pa.schema([
        pa.field("id", pa.int64()), pa.field("point_count", pa.int64()), pa.field("cluster", pa.bool_()),
        pa.field("geometry", pa.list_(pa.field("xy", pa.float64()), 2), metadata=metadata),
    ])
    counts = np.ascontiguousarray(view["point_count"])
    return pa.Table.from_arrays(
        [pa.array(np.ascontiguousarray(view["id"])), pa.array(counts), pa.array(counts > 1), geometry],
        schema=schema)


def to_shapely(value: dict[str, Any]) -> Any:
    """A GeoJSON dict as shapely: a geometry for a geometry or a Feature (None for a null
    geometry), a numpy object array with one geometry per feature for a FeatureCollection."""
    shapely_geometry = optional("shapely.geometry", "to_shapely()")
    kind = value.get("type")
    if kind == "FeatureCollection":
        np = optional("numpy", "to_shapely()")
        out = np.empty(len(value["features"]), dtype=object)
        for i, feature in enumerate(value["features"]):
            out[i] = to_shapely(feature)
        return out
    if kind == "Feature":
        geometry = value.get("geometry")
        return None if geometry is None else shapely_geometry.shape(geometry)
    return shapely_geometry.shape(value)


def to_geopandas(value: dict[str, Any]) -> Any:
    """A GeoJSON dict as a GeoPandas GeoDataFrame in EPSG:4326: one row per feature, a column per
    property and the geometry column; the feature ids are the index (named ``id``) when every
    feature has one. (GeoPandas' ``__geo_interface__`` gives the index back as string ids.)"""
    geopandas = optional("geopandas", "to_geopandas()")
    kind = value.get("type")
    if kind == "FeatureCollection":
        features = value["features"]
    elif kind == "Feature":
        features = [value]
    else:
        features = [{"type": "Feature", "geometry": value, "properties": {}}]
    frame = geopandas.GeoDataFrame.from_features(features, crs="EPSG:4326")
    if features and all("id" in f for f in features):
        frame.index = [f["id"] for f in features]
        frame.index.name = "id"
    return frame
