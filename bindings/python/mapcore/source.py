"""GeoJSON data sources of the SDKs: include/mapcore/source.h."""
from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ._lib import (MC_E_NOT_FOUND, Buf, Handle, check, lib, take_bytes, take_json, take_text, _declare, c_double_p,
                   c_size_p)
from .cluster import _IndexView, _bbox, _cluster_properties_json, _expression_json, _features, _options_bytes
from . import interop
from .geojson import GeoJSON, as_geojson

if TYPE_CHECKING:
    import os

    from ._lib import BBoxLike, GeoJSONLike
    from .cluster import ClusterRef

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_bufp = ctypes.POINTER(Buf)

_declare("mc_source_new", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, _pp)
_declare("mc_source_free", None, _p)
_declare("mc_source_set_options", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t)
_declare("mc_source_get_options", ctypes.c_int, _p, _bufp)
_declare("mc_source_add", ctypes.c_int, _p, _p)
_declare("mc_source_set", ctypes.c_int, _p, _p)
_declare("mc_source_import", ctypes.c_int, _p, ctypes.c_char_p)
_declare("mc_source_remove", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t, c_size_p)
_declare("mc_source_remove_at", ctypes.c_int, _p, ctypes.c_size_t)
_declare("mc_source_clear", ctypes.c_int, _p)
_declare("mc_source_count", ctypes.c_int, _p, c_size_p)
_declare("mc_source_get", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, _bufp)
_declare("mc_source_to_geojson", ctypes.c_int, _p, ctypes.c_uint32, _bufp)
_declare("mc_source_get_clusters", ctypes.c_int, _p, c_double_p, ctypes.c_double, ctypes.c_uint32, _bufp)
_declare("mc_source_cluster_index", ctypes.c_int, _p, _pp)
_declare("mc_source_get_tile", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint32, _bufp)
_declare("mc_source_get_tile_mvt", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, _bufp)
_declare("mc_source_update_data", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t)
_declare("mc_source_version", ctypes.c_int, _p, ctypes.POINTER(ctypes.c_uint64))
_declare("mc_source_snapshot", ctypes.c_int, _p, _pp)
_declare("mc_source_changes", ctypes.c_int, _p, ctypes.c_uint64, ctypes.c_uint32, _bufp)
_declare("mc_source_tile_changed", ctypes.c_int, _p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, ctypes.c_int,
         ctypes.POINTER(ctypes.c_int))


class DataSource(Handle):
    """The SDKs' GeoJSON data source with their option names (in snake case) and defaults."""

    __slots__ = ("_view",)
    _free = staticmethod(lib.mc_source_free)
    #: (version, its cluster index view or None): see _index_view.
    _view: tuple[int, _IndexView | None] | None

    def __init__(self, cluster: bool | None = None, cluster_radius: float | None = None,
                 cluster_max_zoom: int | None = None, cluster_min_points: int | None = None,
                 cluster_properties: Mapping[str, Sequence[Any]] | None = None, max_zoom: int | None = None,
                 buffer: float | None = None, tolerance: float | None = None, line_metrics: bool | None = None,
                 generate_id: bool | None = None, promote_id: str | Mapping[str, str] | None = None,
                 filter: Any = None, tile_compatibility: str | None = None,
                 max_import_bytes: int | None = None) -> None:
        # Only what the caller set is sent: the defaults live in the library (source.h); `options`
        # reports the effective ones.
        def flag(v: object) -> bool | None:
            return None if v is None else bool(v)
        options = _options_bytes({
            "cluster": flag(cluster), "clusterRadius": cluster_radius, "clusterMaxZoom": cluster_max_zoom,
            "clusterMinPoints": cluster_min_points, "clusterProperties": _cluster_properties_json(cluster_properties),
            "maxZoom": max_zoom, "buffer": buffer, "tolerance": tolerance, "lineMetrics": flag(line_metrics),
            "generateId": flag(generate_id), "promoteId": promote_id, "filter": _expression_json(filter),
            "tileCompatibility": tile_compatibility, "maxImportBytes": max_import_bytes,
        })
        handle = _p()
        check(lib.mc_source_new(options, len(options), ctypes.byref(handle)))
        self._handle = handle

    # ---- options ----

    _OPTION_NAMES = {"cluster": "cluster", "cluster_radius": "clusterRadius", "cluster_max_zoom": "clusterMaxZoom",
                     "cluster_min_points": "clusterMinPoints", "cluster_properties": "clusterProperties",
                     "max_zoom": "maxZoom", "buffer": "buffer", "tolerance": "tolerance", "line_metrics": "lineMetrics",
                     "generate_id": "generateId", "promote_id": "promoteId", "filter": "filter",
                     "tile_compatibility": "tileCompatibility", "max_import_bytes": "maxImportBytes"}

    def set_options(self, **options: Any) -> None:
        """Changes the named options (same names as the constructor); the index is rebuilt."""
        out = {}
        for key, value in options.items():
            if key not in self._OPTION_NAMES:
                raise TypeError(f"unknown option {key!r}")
            if key == "cluster_properties":
                value = _cluster_properties_json(value)
            elif key == "filter":
                value = _expression_json(value)
            out[self._OPTION_NAMES[key]] = value
        data = json.dumps(out, allow_nan=False).encode()
        check(lib.mc_source_set_options(self._handle, data, len(data)))

    @property
    def options(self) -> dict[str, Any]:
        """The effective options (every option, defaults included), with source.h's names."""
        result: dict[str, Any] = json.loads(take_text(lambda buf: lib.mc_source_get_options(self._handle, buf)))
        return result

    # ---- data ----

    def add(self, obj: GeoJSONLike | GeoJSON) -> None:
        """Adds a feature, a FeatureCollection, a bare geometry, a list of features, or any form
        mapcore.GeoJSON takes (a Path, objects with __geo_interface__ such as shapely
        geometries and GeoPandas frames)."""
        data = as_geojson(obj)  # keeps the handle alive through the call
        check(lib.mc_source_add(self._handle, data.handle))

    def set(self, obj: GeoJSONLike | GeoJSON) -> None:
        """Replaces every feature (the forms add() takes)."""
        data = as_geojson(obj)
        check(lib.mc_source_set(self._handle, data.handle))

    def import_data(self, path_or_url: str | os.PathLike[str]) -> None:
        """Adds the GeoJSON at a path, a file:// URL or an http(s):// URL."""
        check(lib.mc_source_import(self._handle, str(path_or_url).encode("utf-8", "surrogateescape")))

    def remove(self, feature_id: str | int | float) -> int:
        """Removes every feature with this id; returns how many were removed."""
        data = json.dumps(feature_id).encode()
        out = ctypes.c_size_t()
        check(lib.mc_source_remove(self._handle, data, len(data), ctypes.byref(out)))
        return out.value

    def remove_at(self, index: int) -> None:
        """Removes the feature at an insertion-order index."""
        if index < 0:
            index += len(self)
            if index < 0:
                raise IndexError("index out of range")
        check(lib.mc_source_remove_at(self._handle, int(index)))

    def clear(self) -> None:
        """Removes every feature."""
        check(lib.mc_source_clear(self._handle))

    def get(self, feature_id: str | int | float) -> dict[str, Any] | None:
        """The feature with this id as a dict, or None."""
        data = json.dumps(feature_id).encode()
        buf = Buf()
        try:
            status = lib.mc_source_get(self._handle, data, len(data), 0, ctypes.byref(buf))
            if status == MC_E_NOT_FOUND:
                return None
            check(status)
            result: dict[str, Any] | None = json.loads(ctypes.string_at(buf.data, buf.len))
            return result
        finally:
            lib.mc_buf_dispose(ctypes.byref(buf))

    def __repr__(self) -> str:
        """<mapcore.DataSource 3 features, clustered, version 2>, or <mapcore.DataSource closed>."""
        if not self._handle:
            return "<mapcore.DataSource closed>"
        kind = ", clustered" if self.options.get("cluster") else ""
        return f"<mapcore.DataSource {len(self):,} features{kind}, version {self.version}>"

    def __len__(self) -> int:
        """Number of features."""
        out = ctypes.c_size_t()
        check(lib.mc_source_count(self._handle, ctypes.byref(out)))
        return out.value

    def to_geojson(self) -> dict[str, Any]:
        """Every feature as a FeatureCollection dict."""
        result: dict[str, Any] = take_json(lambda buf: lib.mc_source_to_geojson(self._handle, 0, buf))
        return result

    def to_geopandas(self) -> Any:
        """Every feature as a GeoPandas GeoDataFrame (EPSG:4326): a column per property
        and ``geometry``; the index holds the feature ids when every feature has one."""
        return interop.to_geopandas(self.to_geojson())

    # ---- live updates ----

    def update_data(self, diff: Mapping[str, Any] | str | bytes) -> None:
        """Applies a GL JS source diff in one atomic write: a dict (or its JSON text) with the
        optional members ``removeAll``, ``remove`` (ids), ``add`` (features with ids) and
        ``update`` (``{"id", "newGeometry", "removeAllProperties", "removeProperties",
        "addOrUpdateProperties": [{"key", "value"}]}``), applied in that order. Unknown ids in
        ``remove`` and ``update`` are skipped; any error leaves the source unchanged."""
        data = diff.encode() if isinstance(diff, str) else diff if isinstance(diff, bytes) else \
            json.dumps(diff, allow_nan=False).encode()
        check(lib.mc_source_update_data(self._handle, data, len(data)))

    @property
    def version(self) -> int:
        """The version of the current state: 0 when new, one more per write that changed it."""
        out = ctypes.c_uint64()
        check(lib.mc_source_version(self._handle, ctypes.byref(out)))
        return out.value

    def snapshot(self) -> DataSource:
        """A read-only DataSource frozen at the current version: its reads all answer from that
        state whatever is written meanwhile; writes to it raise UnsupportedError."""
        handle = _p()
        check(lib.mc_source_snapshot(self._handle, ctypes.byref(handle)))
        return DataSource._adopt(handle)

    def changes(self, since: int) -> dict[str, Any]:
        """What the writes after version ``since`` may have changed: ``{"version", "since", "all",
        "bounds": [[w, s, e, n], ...]}`` (``all``: every tile; see mc_source_changes)."""
        result: dict[str, Any] = json.loads(
            take_text(lambda buf: lib.mc_source_changes(self._handle, int(since), 0, buf)))
        return result

    def tile_changed(self, since: int, z: int, x: int, y: int) -> bool:
        """Whether tile z/x/y may have changed since version ``since`` (GL JS's reload rule)."""
        out = ctypes.c_int()
        check(lib.mc_source_tile_changed(self._handle, int(since), int(z), int(x), int(y), ctypes.byref(out)))
        return bool(out.value)

    # ---- queries ----

    def clusters(self, bbox: BBoxLike, zoom: float) -> list[dict[str, Any]]:
        """Clusters and points (or, without clustering, features) in bbox at zoom, as dicts. With
        clustering, a point is the same dict in every result of one version of the source
        (Supercluster.get_clusters says why); copy it before changing it."""
        view = self._index_view()
        if view is not None:
            return view.get_clusters(bbox, zoom)
        b = _bbox(bbox)
        return _features(take_bytes(lambda buf: lib.mc_source_get_clusters(self._handle, b, float(zoom), 0, buf)))

    def close(self) -> None:
        """Frees the source and lets go of the kept cluster index view."""
        self._view = None
        super().close()

    def _index_view(self) -> _IndexView | None:
        """The cluster index of the current version (None without clustering), kept while that
        version lasts: the point features fetched for one query serve the next. Threads racing
        at a new version may each make one; each answers from a consistent version."""
        version = self.version
        kept: tuple[int, _IndexView | None] | None = getattr(self, "_view", None)
        if kept is not None and kept[0] == version:
            return kept[1]
        with self.snapshot() as snap:
            version = snap.version
            options = snap.options
            view = snap.cluster_index() if options.get("cluster") else None
        if view is not None:
            view._plain = not options.get("clusterProperties")
            view._cpp_counts = options.get("tileCompatibility") == "maplibre-native"
        self._view = (version, view)
        return view

    def cluster_index(self) -> _IndexView:
        """A frozen view of the current cluster index (a Supercluster-like object): several
        queries on it agree even while other threads change the source."""
        handle = _p()
        check(lib.mc_source_cluster_index(self._handle, ctypes.byref(handle)))
        return _IndexView._adopt(handle)

    def tile(self, z: int, x: int, y: int) -> dict[str, Any] | None:
        """The tile z/x/y as MapLibre Native's GeoJSON source makes it (source.h): geojson-vt's
        tile object as a dict (supercluster's tile when clustering), None where there is none."""
        result: dict[str, Any] | None = take_json(lambda buf: lib.mc_source_get_tile(self._handle, z, x, y, 0, buf))
        return result

    def tile_mvt(self, z: int, x: int, y: int, layer: str = "geojson") -> bytes | None:
        """The same tile as Mapbox Vector Tile bytes with one layer (extent 8192), or None for an
        empty tile."""
        data = take_bytes(lambda buf: lib.mc_source_get_tile_mvt(self._handle, z, x, y, layer.encode(), buf))
        return data or None

    # `cluster` is a cluster id or the cluster feature dict (as the SDKs pass it).

    def children(self, cluster: ClusterRef) -> list[dict[str, Any]]:
        """The cluster's children one zoom in."""
        return self._clusters_index().get_children(cluster)

    def leaves(self, cluster: ClusterRef, *, limit: float | None = 10, offset: int = 0) -> list[dict[str, Any]]:
        """Up to `limit` points of a cluster after skipping `offset`. Keyword-only, as the SDKs
        disagree on the order (iOS: offset, limit; supercluster: limit, offset)."""
        return self._clusters_index().get_leaves(cluster, limit=limit, offset=offset)

    def _clusters_index(self) -> _IndexView:
        """The kept view (_index_view); without clustering, cluster_index() raises what it does."""
        view = self._index_view()
        return self.cluster_index() if view is None else view

    def expansion_zoom(self, cluster: ClusterRef) -> int:
        """The zoom at which the cluster breaks apart."""
        return self._clusters_index().get_cluster_expansion_zoom(cluster)

    def cluster_hull(self, cluster: ClusterRef) -> dict[str, Any]:
        """Convex hull of the cluster's points as a GeoJSON geometry dict."""
        return self._clusters_index().get_cluster_hull(cluster)
