"""Point clustering (supercluster): include/mapcore/cluster.h. Data sources are in source.py."""
from __future__ import annotations

import array
import contextlib
import ctypes
import json
import math
import operator
import struct
import threading
from collections import deque
from itertools import chain, compress, repeat
from typing import TYPE_CHECKING, Any, Mapping, Sequence, TypeVar, Union

from ._lib import (MC_E_BUFFER_TOO_SMALL, Buf, Compiled, Handle, check, collector_paused, lib, loads_json, take_json,
                   take_text, _declare, c_double_p, c_int_p, c_size_p)
from . import _lib, interop
from .geojson import GeoJSON, as_geojson

if TYPE_CHECKING:
    from ._lib import BBoxLike, GeoJSONLike

    #: A cluster as the queries take it: its id, its feature dict, or a flat item.
    ClusterRef = Union[int, Mapping[str, Any], "ClusterItem"]

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_bufp = ctypes.POINTER(Buf)
_bbox_t = ctypes.c_double * 4


def cluster_id(cluster: ClusterRef) -> int:
    """The cluster id of `cluster`: an int, a cluster feature dict as getClusters returns it (the
    SDKs pass the feature: ``leaves(of: cluster)``), a ClusterItem, or an item of a numpy result."""
    if isinstance(cluster, Mapping):
        props = cluster.get("properties") or {}
        if "cluster_id" not in props:
            raise ValueError("this feature is not a cluster (no properties.cluster_id)")
        value = props["cluster_id"]
    elif hasattr(cluster, "id") and not isinstance(cluster, (int, float)):  # a ClusterItem
        value = getattr(cluster, "id")
    elif "id" in (getattr(getattr(cluster, "dtype", None), "names", None) or ()):  # an item of a numpy result
        value = cluster["id"]  # type: ignore[index]
    else:
        value = cluster
    cid = operator.index(value)  # 3.7 or "12" are not ids; numpy integers are
    if not -(1 << 63) <= cid < 1 << 63:
        raise ValueError(f"cluster id {cid} is out of range")
    return cid


class ClusterItem(ctypes.Structure):
    """One flat result item: id (cluster_id, or the point's input index), lng, lat, point_count."""
    _fields_ = [("id", ctypes.c_int64), ("lng", ctypes.c_double), ("lat", ctypes.c_double),
                ("point_count", ctypes.c_int64)]

    def __repr__(self) -> str:
        return f"ClusterItem(id={self.id}, lng={self.lng}, lat={self.lat}, point_count={self.point_count})"


class Page(ctypes.Structure):
    """mc_page of cluster.h: which leaves to return (offset, limit)."""

    _fields_ = [("offset", ctypes.c_size_t), ("limit", ctypes.c_size_t)]


_items_p = ctypes.POINTER(ClusterItem)
_LIMIT_ALL = ctypes.c_size_t(-1).value

_declare("mc_cluster_index_new", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, _pp)
_declare("mc_cluster_index_free", None, _p)
_declare("mc_cluster_index_load", ctypes.c_int, _p, _p)
_declare("mc_cluster_index_load_points", ctypes.c_int, _p, c_double_p, ctypes.c_size_t)
_declare("mc_cluster_index_get_clusters", ctypes.c_int, _p, c_double_p, ctypes.c_double, ctypes.c_uint32, _bufp)
_declare("mc_cluster_index_get_clusters_flat", ctypes.c_int, _p, c_double_p, ctypes.c_double, _items_p,
         ctypes.c_size_t, c_size_p)
_declare("mc_cluster_index_get_tile", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint32,
         _bufp)
_declare("mc_cluster_index_get_children", ctypes.c_int, _p, ctypes.c_int64, ctypes.c_uint32, _bufp)
_declare("mc_cluster_index_get_leaves", ctypes.c_int, _p, ctypes.c_int64, ctypes.POINTER(Page), ctypes.c_uint32, _bufp)
_declare("mc_cluster_index_get_children_flat", ctypes.c_int, _p, ctypes.c_int64, _items_p, ctypes.c_size_t, c_size_p)
_declare("mc_cluster_index_get_leaves_flat", ctypes.c_int, _p, ctypes.c_int64, ctypes.POINTER(Page), _items_p,
         ctypes.c_size_t, c_size_p)
_declare("mc_cluster_index_get_features", ctypes.c_int, _p, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
         ctypes.c_uint32, _bufp)
_declare("mc_cluster_index_get_expansion_zoom", ctypes.c_int, _p, ctypes.c_int64, c_int_p)
_declare("mc_cluster_index_get_cluster_hull", ctypes.c_int, _p, ctypes.c_int64, _bufp)
_declare("mc_cluster_index_stats", ctypes.c_int, _p, _bufp)



def _expression_json(value: Any) -> Any:
    """JSON-ready form of an expression given as an Expression object or as plain JSON."""
    if isinstance(value, Compiled):
        return value.to_json()
    return value


def _cluster_properties_json(props: Mapping[str, Sequence[Any]] | None) -> dict[str, list[Any]] | None:
    if props is None:
        return None
    out: dict[str, list[Any]] = {}
    for name, pair in props.items():
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"cluster_properties[{name!r}] must be (operator or reduce expression, map expression)")
        out[name] = [_expression_json(pair[0]), _expression_json(pair[1])]
    return out


def _options_bytes(options: Mapping[str, Any]) -> bytes:
    return json.dumps({k: v for k, v in options.items() if v is not None}, allow_nan=False).encode()


def _bbox(bbox: BBoxLike) -> Any:
    values = [float(v) for v in bbox]
    if len(values) != 4:
        raise ValueError("bbox is (west, south, east, north)")
    return _bbox_t(*values)


def _leaf_limit(limit: float | None) -> int:
    if limit is None or limit == math.inf:
        return _LIMIT_ALL
    if limit < 0:
        raise ValueError("limit must not be negative")
    return int(limit)


def _abbreviated(count: int, cpp: bool = False) -> int | str:
    """supercluster's point_count_abbreviated (the library's Supercluster.abbreviated; a test
    checks the two agree): the count below 1000, else "1.2k" / "16k" with JavaScript rounding.
    `cpp`: supercluster-cpp's (MapLibre Native's): always a string, from 1000 the thousands as
    C's "%.1f" below 10000 and "%f" from it ("1.2k" for 1250, "12.000000k"), which Python's %
    formats the same (the exact value, correctly rounded; "." in every locale). The count is made
    a float before dividing, as C and Swift do (an int divides exactly, which differs past 2^53)."""
    value = float(count)
    if cpp:
        return str(count) if count < 1000 else ("%.1fk" if count < 10000 else "%fk") % (value / 1000)
    if count >= 10000:
        return f"{math.floor(value / 1000 + 0.5)}k"
    if count >= 1000:
        tenths = math.floor(value / 100 + 0.5) / 10
        return f"{int(tenths) if tenths.is_integer() else tenths}k"
    return count


_ITEM = struct.Struct("<qddq")  # mc_cluster_item


def _ids_and_clusters(items: Any) -> tuple[list[int], list[int]]:
    """The ids of flat items, and where the clusters (point_count other than 1) are among them.
    C-level passes over the items (strided views, compress), as answers hold millions."""
    q = memoryview(items).cast("B").cast("q")
    ids = q[0::4].tolist()
    return ids, list(compress(range(len(ids)), map(operator.ne, q[3::4].tolist(), repeat(1))))


def _pick(dicts: Sequence[Any], ids: list[int]) -> list[Any]:
    """dicts[i] for each i of ids (at least one), in one C-level call: each point's dict is one
    scattered object to reach, which is this step's cost, so nothing else is done per item."""
    return list(operator.itemgetter(*ids)(dicts)) if len(ids) > 1 else [dicts[ids[0]]]


def _put_clusters(out: list[Any], at: list[int], items: Any, cpp: bool) -> None:
    """Cluster dicts made here (no clusterProperties) in the places `at` of out (`cpp`: counts
    abbreviated as supercluster-cpp does)."""
    unpack = _ITEM.unpack_from
    view = memoryview(items).cast("B")
    for k in at:
        cid, lng, lat, count = unpack(view, _ITEM.size * k)
        out[k] = _cluster_dict(cid, lng, lat, count, cpp)


def _dicts_of_items(items: Any, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """getClusters' features from flat items, as supercluster JS makes them: a point is its input
    feature dict itself (not a copy), a cluster a new feature with the four standard properties.
    Only for indexes loaded from feature dicts without clusterProperties."""
    if not len(items):
        return []
    with collector_paused(len(items) > 10000):
        if _lib.dicts is not None:
            out: list[dict[str, Any]] = _lib.dicts.assemble(ctypes.addressof(items), len(items), inputs, True, False)
            return out
        ids, clusters = _ids_and_clusters(items)
        for k in clusters:
            ids[k] = 0  # any input: the cluster takes its place below
        out = _pick(inputs, ids)
        _put_clusters(out, clusters, items, False)
    return out


def _coordinate(v: float) -> int | float:
    """A coordinate as the library writes it (Swift `JSONValue.coordinate`; _dicts.c the same): an
    integral value under 1e15 as an int, as JavaScript prints it, else the float."""
    return int(v) if v.is_integer() and abs(v) < 1e15 else v


def _cluster_dict(cid: int, lng: float, lat: float, count: int, cpp: bool = False) -> dict[str, Any]:
    """A cluster's feature as the library writes it when there are no clusterProperties (`cpp`:
    in a data source's maplibre-native compatibility)."""
    return {"type": "Feature", "id": cid,
            "properties": {"cluster": True, "cluster_id": cid, "point_count": count,
                           "point_count_abbreviated": _abbreviated(count, cpp)},
            "geometry": {"type": "Point", "coordinates": [_coordinate(lng), _coordinate(lat)]}}


class _Kept:
    """Point features fetched from the library, by input index (a list, not a dict: a lookup
    per item is the cost of an answer), kept so that a point is the same dict in every answer."""

    __slots__ = ("dicts", "need")

    def __init__(self, points: int) -> None:
        #: One slot past the points, never needed, holding None: clusters' places point there.
        self.dicts: list[dict[str, Any] | None] = [None] * (points + 1)
        #: 1 where the point's feature has not been fetched yet.
        self.need = bytearray(b"\x01") * points + b"\x00"

    def __len__(self) -> int:
        """How many points' features are kept."""
        return len(self.need) - 1 - self.need.count(1)

    def add(self, ids: list[int], fetch: Any) -> None:
        """Fetches and keeps the features of the points `ids` (none kept yet), in one fetch."""
        if ids:
            # C-level passes (a first sweep keeps hundreds of thousands at once).
            features = fetch(ids)
            deque(map(self.dicts.__setitem__, ids, features), maxlen=0)
            deque(map(self.need.__setitem__, ids, repeat(0, len(features))), maxlen=0)


def _dicts_fetching(items: Any, kept: _Kept, fetch: Any, plain: bool, cpp: bool) -> list[dict[str, Any]]:
    """The same, for an index whose features only the library holds: a point is the dict kept
    for it, else fetched now (fetch(ids) -> features, one call for all) and kept; a cluster is
    made here (`plain`: no clusterProperties; `cpp`: counts abbreviated as supercluster-cpp
    does) or fetched, new each time."""
    if not len(items):
        return []
    with collector_paused(len(items) > 10000):
        if _lib.dicts is not None:
            address = ctypes.addressof(items)
            kept.add(_lib.dicts.missing(address, len(items), kept.dicts), fetch)
            out: list[dict[str, Any]] = _lib.dicts.assemble(address, len(items), kept.dicts, plain, cpp)
            if plain:
                return out
            ids, clusters = _ids_and_clusters(items)
            cluster_ids = [-1 - ids[k] for k in clusters]
        else:
            ids, clusters = _ids_and_clusters(items)
            cluster_ids = [-1 - ids[k] for k in clusters]
            for k in clusters:
                ids[k] = len(kept.dicts) - 1
            kept.add(list(compress(ids, map(kept.need.__getitem__, ids))), fetch)
            out = _pick(kept.dicts, ids)
            if plain:
                _put_clusters(out, clusters, items, cpp)
                return out
        if clusters:
            for k, feature in zip(clusters, fetch(cluster_ids)):
                out[k] = feature
    return out


_NUMBER = (int, float)
_ID = (str, int, float)
_PROPERTIES = (dict, type(None))
#: What JSON arrays become: coordinates of any other kind (a dict, bytes, a range) are not a
#: position, though they have a length and items.
_ARRAYS = {list, tuple}


def _bare_points(features: Sequence[Any]) -> array.array[float] | None:
    """lng, lat of every feature as doubles when each is a Point feature dict the library would
    take as it is (2 or 3 numbers, finite; an object or null for properties; a string or number
    id), else None: then the features go the JSON way, which reports what is wrong. Exact types
    (a bool is not a number in JSON); C-level passes (map, chain) where they do the work, as this
    runs over millions of dicts. The C extension's `bare_points`, when built, checks the same in
    one pass."""
    packed = _lib.dicts.bare_points(features) if _lib.dicts is not None else NotImplemented
    if packed is not NotImplemented:
        if packed is None:
            return None
        flat = array.array("d")
        flat.frombytes(packed)
        return flat if _finite(flat) else None
    try:
        coords = [g["coordinates"] for f in features
                  if type(f) is dict and f["type"] == "Feature" and type(g := f["geometry"]) is dict
                  and g["type"] == "Point" and type(f.get("properties")) in _PROPERTIES
                  and type(f.get("id", 0)) in _ID]
        if len(coords) != len(features) or not set(map(type, coords)) <= _ARRAYS:
            return None
        lengths = set(map(len, coords))
        if lengths != {2}:
            if not lengths <= {2, 3} or not all(type(c[2]) in _NUMBER for c in coords if len(c) == 3):
                return None
            coords = [c[:2] for c in coords]
        if not set(map(type, chain.from_iterable(coords))) <= set(_NUMBER):
            return None
        flat = array.array("d", chain.from_iterable(coords))
        return flat if _finite(flat) else None
    except (KeyError, TypeError, OverflowError):
        return None


def _finite(flat: array.array[float]) -> bool:
    """Whether every double is finite: NaN or an infinity anywhere makes the sum one (so may
    finite values near 1e308: then the JSON way takes them)."""
    return math.isfinite(sum(flat))


def _items(call: Any) -> Any:
    """The items a flat query writes, in an array of their number: call(room, count) returns a
    status, and the first call tells the count when the room is too small."""
    count = ctypes.c_size_t()
    room = (ClusterItem * 0)()
    for _ in range(2):
        status = call(room, ctypes.byref(count))
        if status != MC_E_BUFFER_TOO_SMALL:
            break
        room = (ClusterItem * count.value)()
    check(status)
    return (ClusterItem * count.value).from_buffer(room)


def _features(text: bytes) -> list[dict[str, Any]]:
    features: list[dict[str, Any]] = loads_json(text)["features"]
    return features


#: Features fetched per library call: a large fetch is written in parts, overlapped with their
#: reading (`take_values_overlapped`). Parts this small stay in memory malloc reuses, where one
#: 40 MB answer took fresh pages (2.1 against 1.6 µs a feature read; perf log, "fetches overlapped").
_FETCH_PART = 2048


class _Index(Handle):
    """Queries shared by Supercluster and a DataSource's frozen index view."""

    __slots__ = ("_level_items", "_fetched", "_plain", "_cpp_counts")
    _free = staticmethod(lib.mc_cluster_index_free)
    _level_items: dict[int, int] | None
    #: Point features fetched from the library by input index, for indexes whose features only
    #: the library holds: results hand back the same dict for a point, as supercluster JS does.
    _fetched: _Kept | None
    #: Known to have no clusterProperties: cluster dicts are then made here, not fetched.
    _plain: bool
    #: Cluster counts abbreviated as supercluster-cpp does (a data source's maplibre-native
    #: compatibility), when cluster dicts are made here.
    _cpp_counts: bool

    def _room_for(self, zoom: float) -> int:
        """Items at the level a zoom reads: no bbox holds more, so one call fills the array.
        Untouched room costs address space only (large ctypes arrays are mapped lazily)."""
        levels = getattr(self, "_level_items", None)
        if levels is None:
            levels = {level["zoom"]: level["items"] for level in self.stats()["levels"]}
            self._level_items = levels
        if not levels or zoom != zoom:
            return 0
        z = min(max(math.floor(zoom), min(levels)), max(levels)) if math.isfinite(zoom) else \
            (max(levels) if zoom > 0 else min(levels))
        return int(levels[z])

    def get_clusters(self, bbox: BBoxLike, zoom: float) -> list[dict[str, Any]]:
        """Clusters and points in bbox = (west, south, east, north) at zoom, as GeoJSON dicts. A
        point is the same dict every time, as in supercluster JS: after load() of a list of
        feature dicts its input dict itself, else the dict of its feature fetched from the
        library the first time a result holds it (kept until the next load or close; copy a
        point before changing it). Clusters are new dicts."""
        return self._dicts(lambda: self.get_clusters_flat(bbox, zoom))

    def _dicts(self, query: Any) -> list[dict[str, Any]]:
        """The features of the items `query()` returns (a flat query), as get_clusters gives
        them: built from the flat items, with only the features not held yet fetched."""
        lock = getattr(self, "_inputs_lock", None)
        with lock if lock is not None else contextlib.nullcontext():
            items = query()
            inputs = getattr(self, "_inputs", None)
            if inputs is not None:
                return _dicts_of_items(items, inputs)
            kept = getattr(self, "_fetched", None)
            if kept is None:
                kept = self._fetched = _Kept(self.stats()["points"])
            return _dicts_fetching(items, kept, self._fetch, getattr(self, "_plain", False),
                                   getattr(self, "_cpp_counts", False))

    def _fetch(self, ids: list[int]) -> list[dict[str, Any]]:
        """The features of the items `ids` names, as the library writes them: a point by its
        input index, the cluster with cluster id c by -1 - c (in supercluster-cpp's numbering
        cluster ids and input indexes overlap)."""
        flat = array.array("q", ids)
        handle = self._handle

        def part(start: int) -> Any:
            count = min(len(flat) - start, _FETCH_PART)
            room = (ctypes.c_int64 * count).from_buffer(flat, start * flat.itemsize)
            return lambda flags, buf: lib.mc_cluster_index_get_features(handle, room, count, flags, buf)

        features: list[dict[str, Any]] = []
        for value in _lib.take_values_overlapped([part(s) for s in range(0, len(flat), _FETCH_PART)]):
            features += value["features"]
        return features

    def get_clusters_flat(self, bbox: BBoxLike, zoom: float, out: Any = None) -> Any:
        """As get_clusters, as a ctypes array of ClusterItem (id, lng, lat, point_count).
        `out`, a ctypes array of ClusterItem, is filled instead of a new array when it is large
        enough (a renderer's reused buffer: fresh memory costs page faults); the result is then
        a view of its first items."""
        b = _bbox(bbox)
        zoom = float(zoom)
        count = ctypes.c_size_t()
        room = out if out is not None else (ClusterItem * self._room_for(zoom))()
        status = lib.mc_cluster_index_get_clusters_flat(self._handle, b, zoom, room, len(room), ctypes.byref(count))
        if status == MC_E_BUFFER_TOO_SMALL:  # only with a caller's `out` (a level's size always fits)
            room = (ClusterItem * count.value)()
            status = lib.mc_cluster_index_get_clusters_flat(self._handle, b, zoom, room, len(room), ctypes.byref(count))
        check(status)
        return (ClusterItem * count.value).from_buffer(room)

    def get_clusters_numpy(self, bbox: BBoxLike, zoom: float) -> Any:
        """As get_clusters_flat, as a numpy structured array (fields id, lng, lat, point_count;
        point_count 1 for a point, whose id is its input index), without building a dict."""
        return interop.cluster_items_numpy(self.get_clusters_flat(bbox, zoom))

    def get_clusters_arrow(self, bbox: BBoxLike, zoom: float) -> Any:
        """As get_clusters_flat, as a pyarrow Table: id, point_count, cluster, and a GeoArrow
        ``geoarrow.point`` geometry column (interleaved longitude/latitude)."""
        return interop.cluster_items_arrow(self.get_clusters_flat(bbox, zoom))

    def get_leaves_flat(self, cluster: ClusterRef, limit: float | None = 10, offset: int = 0) -> Any:
        """As get_leaves, as a ctypes array of ClusterItem (id: the point's input index)."""
        cid = cluster_id(cluster)
        page = Page(int(offset), _leaf_limit(limit))
        return _items(lambda room, count: lib.mc_cluster_index_get_leaves_flat(
            self._handle, cid, ctypes.byref(page), room, len(room), count))

    def get_children_flat(self, cluster: ClusterRef) -> Any:
        """As get_children, as a ctypes array of ClusterItem (a point's id: its input index)."""
        cid = cluster_id(cluster)
        return _items(lambda room, count: lib.mc_cluster_index_get_children_flat(
            self._handle, cid, room, len(room), count))

    def get_leaves_numpy(self, cluster: ClusterRef, limit: float | None = 10, offset: int = 0) -> Any:
        """As get_leaves_flat, as a numpy structured array (fields id, lng, lat, point_count)."""
        return interop.cluster_items_numpy(self.get_leaves_flat(cluster, limit, offset))

    def _with_properties(self) -> None:
        """Before a query whose answer the library writes with the points' properties."""

    def get_tile(self, z: int, x: int, y: int) -> dict[str, Any] | None:
        """supercluster's getTile: {"features": [...]} in tile pixels, or None when empty."""
        self._with_properties()
        tile: dict[str, Any] | None = take_json(
            lambda buf: lib.mc_cluster_index_get_tile(self._handle, int(z), int(x), int(y), 0, buf))
        return tile

    def get_children(self, cluster: ClusterRef) -> list[dict[str, Any]]:
        """The cluster's children one zoom in (`cluster`: an id, or the cluster feature). Points
        are the same dicts every time (see get_clusters)."""
        return self._dicts(lambda: self.get_children_flat(cluster))

    def get_leaves(self, cluster: ClusterRef, limit: float | None = 10, offset: int = 0) -> list[dict[str, Any]]:
        """Up to `limit` points of the cluster after skipping `offset` (limit=math.inf: all), in
        supercluster's order of arguments (getLeaves(clusterId, limit, offset)). Leaves are the
        same dicts every time (see get_clusters)."""
        return self._dicts(lambda: self.get_leaves_flat(cluster, limit, offset))

    def get_cluster_expansion_zoom(self, cluster: ClusterRef) -> int:
        """The zoom at which the cluster breaks apart (supercluster's getClusterExpansionZoom)."""
        out = ctypes.c_int()
        check(lib.mc_cluster_index_get_expansion_zoom(self._handle, cluster_id(cluster), ctypes.byref(out)))
        return out.value

    def get_cluster_hull(self, cluster: ClusterRef) -> dict[str, Any]:
        """Convex hull of the cluster's points as a GeoJSON geometry dict."""
        cid = cluster_id(cluster)
        hull: dict[str, Any] = json.loads(
            take_text(lambda buf: lib.mc_cluster_index_get_cluster_hull(self._handle, cid, buf)))
        return hull

    def __repr__(self) -> str:
        """<mapcore.Supercluster 1,000 points, 412 clusters at zoom 0 to 17>, or ... closed>."""
        if not self._handle:
            return f"<mapcore.{type(self).__name__} closed>"
        stats = self.stats()
        levels = stats["levels"]
        clusters = sum(level["clusters"] for level in levels)
        zooms = f" at zoom {levels[0]['zoom']} to {levels[-1]['zoom']}" if levels else ""
        return f"<mapcore.{type(self).__name__} {stats['points']:,} points, {clusters:,} clusters{zooms}>"

    def stats(self) -> dict[str, Any]:
        """Items and clusters per zoom level, input size and index bytes."""
        stats: dict[str, Any] = json.loads(take_text(lambda buf: lib.mc_cluster_index_stats(self._handle, buf)))
        return stats


_S = TypeVar("_S", bound="Supercluster")


class Supercluster(_Index):
    """mapbox/supercluster with its options and defaults, names in snake case."""

    __slots__ = ("_inputs", "_pending", "_inputs_lock")
    #: The feature dicts of the last load() from a list, which results give back for points.
    _inputs: list[dict[str, Any]] | None
    #: The same dicts while the library holds their points only (load()'s fast path): given to
    #: it as GeoJSON at the first get_tile, whose answer the library writes with properties.
    _pending: list[dict[str, Any]] | None
    #: Pairs a load with its _inputs for readers of the dict path, so a reader never maps the
    #: items of one load onto the dicts of another (the library alone keeps its own swap atomic).
    _inputs_lock: threading.Lock

    def __init__(self, radius: float | None = None, extent: float | None = None, min_zoom: int | None = None,
                 max_zoom: int | None = None, min_points: int | None = None, node_size: int | None = None,
                 generate_id: bool | None = None,
                 cluster_properties: Mapping[str, Sequence[Any]] | None = None) -> None:
        # Only what the caller set is sent: the defaults live in the library (cluster.h).
        options = _options_bytes({
            "radius": radius, "extent": extent, "minZoom": min_zoom, "maxZoom": max_zoom, "minPoints": min_points,
            "nodeSize": node_size, "generateId": None if generate_id is None else bool(generate_id),
            "clusterProperties": _cluster_properties_json(cluster_properties),
        })
        handle = _p()
        check(lib.mc_cluster_index_new(options, len(options), ctypes.byref(handle)))
        self._handle = handle
        self._inputs = None
        self._pending = None
        self._plain = not cluster_properties
        self._cpp_counts = False
        self._inputs_lock = threading.Lock()

    @classmethod
    def _adopt(cls: type[_S], handle: ctypes.c_void_p) -> _S:
        """Wraps a handle made elsewhere: its options are unknown, so clusterProperties may be set
        and dicts always come from the library."""
        obj = super()._adopt(handle)
        obj._inputs = None
        obj._pending = None
        obj._plain = False
        obj._cpp_counts = False
        obj._inputs_lock = threading.Lock()
        return obj

    def close(self) -> None:
        """Frees the index and lets go of the feature dicts a load() kept."""
        self._inputs = self._pending = self._fetched = None
        super().close()

    def load(self, features: GeoJSONLike | GeoJSON | Any) -> Supercluster:
        """Indexes GeoJSON point features (a list of dicts, a FeatureCollection as dict/str/bytes,
        a mapcore.GeoJSON, or any form mapcore.GeoJSON takes), replacing the previous content.
        Bulk points (a pyarrow/GeoArrow point array, a GeoSeries of Points, a numpy array of
        shape (n, 2)) go the way of load_points, without GeoJSON: their ids and properties are
        not kept. Returns self.

        A list of feature dicts is kept (the list is copied, the dicts are not) so that
        get_clusters and get_leaves hand back a point's own dict, as supercluster JS does,
        without the cost of new ones; close() lets go of it. A getClusters or getLeaves on
        another thread waits for a load of a list to finish.

        When every dict is a valid Point feature the library first gets their coordinates only
        and their GeoJSON at the first get_tile, which needs the properties: a property value
        JSON cannot hold (a set, a NaN) raises there, not here."""
        points = interop.points_array(features)
        if points is not None:
            return self.load_points(points)
        inputs = None
        if isinstance(features, (list, tuple)) and self._plain:
            flat = _bare_points(features) if features else None
            if flat is not None:
                return self._load_flat((ctypes.c_double * len(flat)).from_buffer(flat), list(features), pending=True)
            if all(type(f) is dict and f.get("type") == "Feature" for f in features):
                inputs = list(features)
        data = as_geojson(features)  # keeps the handle alive through the call
        with self._inputs_lock:
            check(lib.mc_cluster_index_load(self._handle, data.handle))
            self._inputs, self._pending, self._fetched = inputs, None, None
        self._level_items = None
        return self

    def _with_properties(self) -> None:
        with self._inputs_lock:
            if self._pending is not None:
                # The same points in the same order: ids and answers stay as they were.
                data = as_geojson(self._pending)
                check(lib.mc_cluster_index_load(self._handle, data.handle))
                self._pending = None

    def load_points(self, lnglat: Any) -> Supercluster:
        """Indexes bare points from a flat sequence or buffer of lng, lat doubles (e.g. a numpy
        float64 array of shape (n, 2)), or from a pyarrow/GeoArrow point array, a GeoSeries or a
        numpy array of shapely Points. Returns self."""
        points = interop.points_array(lnglat)
        if points is not None:
            lnglat = points
        try:
            view = memoryview(lnglat)
        except TypeError:
            view = None
        if view is not None and view.nbytes == 0:
            n_doubles, doubles = 0, (ctypes.c_double * 0)()
        elif view is not None and view.format == "d" and view.c_contiguous:
            n_doubles = view.nbytes // 8
            flat = view.cast("B")
            doubles = (ctypes.c_double * n_doubles).from_buffer_copy(flat) if flat.readonly else \
                (ctypes.c_double * n_doubles).from_buffer(flat)
        else:
            values = [float(v) for row in lnglat for v in (row if isinstance(row, (list, tuple)) else (row,))]
            n_doubles = len(values)
            doubles = (ctypes.c_double * n_doubles)(*values)
        if n_doubles % 2:
            raise ValueError("lnglat needs an even number of values")
        return self._load_flat(doubles, None, pending=False)

    def _load_flat(self, doubles: Any, inputs: list[dict[str, Any]] | None, pending: bool) -> Supercluster:
        """Indexes the points of a ctypes array of lng, lat doubles."""
        with self._inputs_lock:
            check(lib.mc_cluster_index_load_points(self._handle, doubles, len(doubles) // 2))
            self._inputs, self._pending, self._fetched = inputs, inputs if pending else None, None
        self._level_items = None
        return self


class _IndexView(_Index):
    __slots__ = ()
