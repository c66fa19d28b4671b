"""Tiles through ctypes: geojson-vt's tile index (GeoJSONVT), a data source's tiles as MapLibre
Native derives them, and Mapbox Vector Tiles checked against a peer codec (PyPI
mapbox-vector-tile) in both directions."""
import gzip
import json
from pathlib import Path

import mapbox_vector_tile
import pytest

import mapcore

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "Tests" / "fixtures" / "geojson-vt"
US_STATES = json.loads((FIXTURES / "us-states.json").read_text())
DATELINE = json.loads((FIXTURES / "dateline.json").read_text())


def _peer_decode(data):
    """mapbox-vector-tile's reading of MVT bytes, in the stored (y-down) tile coordinates."""
    return mapbox_vector_tile.decode(data, default_options={"y_coord_down": True})


def _rings(geometry):
    """Every ring or line of a decoded GeoJSON geometry, as lists of (x, y)."""
    kind, coords = geometry["type"], geometry["coordinates"]
    if kind == "Point":
        return [[tuple(coords)]]
    if kind in ("MultiPoint", "LineString"):
        return [[tuple(p) for p in coords]]
    if kind in ("MultiLineString", "Polygon"):
        return [[tuple(p) for p in line] for line in coords]
    return [[tuple(p) for p in ring] for polygon in coords for ring in polygon]


def test_tile_index_gives_geojson_vt_tiles():
    index = mapcore.GeoJSONVT(US_STATES)
    assert index.get_tile(7, 37, 48)["features"] == json.loads((FIXTURES / "us-states-z7-37-48.json").read_text())
    assert index.get_tile(11, 800, 400) is None and index.get_tile_mvt(11, 800, 400) is None
    with pytest.raises(mapcore.InvalidArgumentError):
        index.get_tile(25, 0, 0)
    assert index.total == 29
    stats = index.stats()
    assert stats["options"]["maxZoom"] == 14 and stats["options"]["extent"] == 4096
    assert stats["indexedTiles"][0] == [0, 0, 0]


def test_tile_index_options_and_errors():
    with pytest.raises(mapcore.InvalidArgumentError, match="maxZoom"):
        mapcore.GeoJSONVT(US_STATES, max_zoom=30)
    with pytest.raises(mapcore.InvalidArgumentError, match="promoteId"):
        mapcore.GeoJSONVT(US_STATES, promote_id="name", generate_id=True)
    metrics = mapcore.GeoJSONVT(DATELINE, line_metrics=True, index_max_zoom=0, index_max_points=10000)
    lines = [f for f in metrics.get_tile(0, 0, 0)["features"] if f["type"] == 2]
    assert len(lines) == 12 and lines[0]["tags"]["mapbox_clip_end"] == 0.24216869845698458
    # An extent in the billions: geojson-vt's JSON tiles, but no MVT (its coordinates are sint32).
    # Buffer and tolerance scaled with it (2^33 / 4096 = 2^21): the defaults' tile, its 52 features.
    huge = mapcore.GeoJSONVT(US_STATES, extent=2**33, buffer=64 * 2**21, tolerance=3 * 2**21)
    assert len(huge.get_tile(0, 0, 0)["features"]) == 52
    with pytest.raises(mapcore.InvalidArgumentError, match="extent"):
        huge.get_tile_mvt(0, 0, 0)
    index = mapcore.GeoJSONVT(US_STATES)
    index.close()
    with pytest.raises(mapcore.MisuseError):
        index.get_tile(0, 0, 0)


@pytest.mark.parametrize("tile", [(0, 0, 0), (4, 4, 6), (7, 37, 48), (9, 148, 192)])
def test_mvt_reads_back_in_a_peer_decoder_as_the_json_tile(tile):
    index = mapcore.GeoJSONVT(US_STATES)
    json_tile = index.get_tile(*tile)
    peer = _peer_decode(index.get_tile_mvt(*tile, layer="states"))["states"]
    assert peer["extent"] == 4096
    assert len(peer["features"]) == len(json_tile["features"])
    for ours, theirs in zip(json_tile["features"], peer["features"]):
        assert theirs["properties"] == ours["tags"]
        # MVT rings leave out the closing position and the peer closes them again; like
        # vector-tile-js (and MapLibre) it drops rings of zero area when it groups polygons.
        rings = [[tuple(p) for p in ring] for ring in ours["geometry"]]
        if ours["type"] == 3:
            rings = [ring for ring in rings if _area(ring) != 0]
        assert sorted(_rings(theirs["geometry"])) == sorted(rings)


def _area(ring):
    return sum((x1 - x0) * (y1 + y0) for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]))


def test_peer_tiles_decode_as_the_peer_wrote_them():
    features = [
        {"geometry": "POINT(10 20)", "properties": {"name": "a", "n": -3, "x": 2.5, "ok": True}, "id": 7},
        {"geometry": "LINESTRING(0 0, 100 100, 200 0)", "properties": {"name": "b"}},
        {"geometry": "POLYGON((0 0, 0 50, 50 50, 50 0, 0 0), (10 10, 40 10, 40 40, 10 40, 10 10))", "properties": {}},
    ]
    data = mapbox_vector_tile.encode([{"name": "peer", "features": features}],
                                     default_options={"y_coord_down": True})
    ours = mapcore.decode_mvt(data)["peer"]
    theirs = _peer_decode(data)["peer"]
    assert [f["properties"] for f in ours["features"]["features"]] == [f["properties"] for f in theirs["features"]]
    # The peer writes and reads id 0 (the protobuf default) for features without one; MVT ids
    # are optional, and MapCore reports none, as vector-tile-js does.
    assert [f.get("id") for f in ours["features"]["features"]] == [7, None, None]
    assert [f.get("id") for f in theirs["features"]] == [7, 0, 0]
    for a, b in zip(ours["features"]["features"], theirs["features"]):
        assert a["geometry"]["type"] == b["geometry"]["type"]
        assert _rings(a["geometry"]) == _rings(b["geometry"])
    # gzip-compressed tiles decode the same.
    assert mapcore.decode_mvt(gzip.compress(data))["peer"] == ours


def test_decode_in_longitude_latitude():
    index = mapcore.GeoJSONVT(US_STATES)
    decoded = mapcore.decode_mvt(index.get_tile_mvt(9, 148, 192), 9, 148, 192)
    (feature,) = decoded["geojson"]["features"]["features"]
    xs = [p[0] for p in feature["geometry"]["coordinates"][0]]
    # Tile 9/148/192 spans 75.9375°W to 75.234375°W; the buffer reaches a little beyond.
    assert min(xs) < -75.9375 < -75.234375 < max(xs) < -75.2


def test_bad_tiles_are_errors():
    data = mapcore.GeoJSONVT(US_STATES).get_tile_mvt(0, 0, 0)
    for cut in range(1, len(data), max(1, len(data) // 200)):
        with pytest.raises(mapcore.ParseError):
            mapcore.decode_mvt(data[:cut])
    with pytest.raises(mapcore.ParseError):
        mapcore.decode_mvt(gzip.compress(data)[:-10])
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.decode_mvt(data, 1, 2, 0)


def test_source_tiles_follow_maplibre_native_derivation():
    """An unclustered source's tile equals geojson-vt's with MapLibre Native's options (extent
    8192, buffer 128 * 16, tolerance 0.375 * 16, maxZoom 18), over the features passing the filter."""
    source = mapcore.DataSource(filter=["!=", ["get", "name"], "Pennsylvania"])
    source.add(US_STATES)
    kept = {"type": "FeatureCollection",
            "features": [f for f in US_STATES["features"] if f["properties"]["name"] != "Pennsylvania"]}
    reference = mapcore.GeoJSONVT(kept, extent=8192, buffer=2048, tolerance=6, max_zoom=18,
                                  compatibility="maplibre-native")
    for tile in [(0, 0, 0), (5, 9, 12), (9, 148, 192)]:
        assert source.tile(*tile) == reference.get_tile(*tile)
    assert all(f["tags"]["name"] != "Pennsylvania" for f in source.tile(5, 9, 12)["features"])
    assert _peer_decode(source.tile_mvt(5, 9, 12, layer="s"))["s"]["extent"] == 8192
    # MVT version 1 asks MapLibre Native to fix polygons up as it does its own GeoJSON tiles.
    assert mapcore.decode_mvt(source.tile_mvt(5, 9, 12, layer="s"))["s"]["version"] == 1
    js = mapcore.DataSource(tile_compatibility="geojson-vt")
    js.add(US_STATES)
    assert mapcore.decode_mvt(js.tile_mvt(5, 9, 12))["geojson"]["version"] == 2
    assert source.tile(19, 0, 0) is None and source.tile_mvt(19, 0, 0) is None
    with pytest.raises(mapcore.InvalidArgumentError):
        source.tile(3, 8, 0)
    # A write makes a new state whose tiles show it.
    source.set_options(filter=None)
    assert any(f["tags"]["name"] == "Pennsylvania" for f in source.tile(5, 9, 12)["features"])


def test_clustered_source_tiles_are_supercluster_tiles():
    places = json.loads((ROOT / "Tests" / "fixtures" / "supercluster" / "places.json").read_text())
    source = mapcore.DataSource(cluster=True)
    source.add(places)
    with source.cluster_index() as index:
        assert source.tile(0, 0, 0) == index.get_tile(0, 0, 0)
    peer = _peer_decode(source.tile_mvt(0, 0, 0))["geojson"]
    clusters = [f for f in peer["features"] if f["properties"].get("cluster")]
    assert clusters and all(f["id"] == f["properties"]["cluster_id"] for f in clusters)
    # Inside the tile proper (not its margin or the antimeridian copies) every point counts once.
    inside = [f for f in peer["features"] if 0 <= f["geometry"]["coordinates"][0] < 8192]
    assert sum(f["properties"].get("point_count", 1) for f in inside) == 162
