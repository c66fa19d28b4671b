"""Clustering and data sources through ctypes: supercluster's facts, the SDK data source,
import over HTTP from a local server, and queries racing writes on real threads."""
import array as array_module
import ctypes
import functools
import http.server
import json
import math
import threading
from pathlib import Path

import pytest

import mapcore

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "supercluster"
PLACES = json.loads((FIXTURES / "places.json").read_text())
WORLD = (-180, -85, 180, 85)


def test_supercluster_tile_matches_upstream_fixture():
    index = mapcore.Supercluster().load(PLACES["features"])
    expected = json.loads((FIXTURES / "places-z0-0-0.json").read_text())
    assert index.get_tile(0, 0, 0) == expected


def test_supercluster_queries_match_upstream():
    index = mapcore.Supercluster().load(PLACES)
    assert [c["properties"].get("point_count", 1) for c in index.get_children(164)] == [6, 7, 2, 1]
    names = [f["properties"]["name"] for f in index.get_leaves(164, 10, 5)]
    assert names[:3] == ["Niagara Falls", "Cape San Blas", "Cape Sable"] and len(names) == 10
    assert [index.get_cluster_expansion_zoom(i) for i in (164, 196, 581, 1157, 4134)] == [1, 1, 2, 2, 3]
    assert len(index.get_leaves(164, limit=math.inf)) == 16
    assert index.get_tile(5, 0, 0) is None or isinstance(index.get_tile(5, 0, 0), dict)
    assert len(index.get_clusters(WORLD, 1)) == 61


def test_flat_results_agree_with_geojson():
    index = mapcore.Supercluster().load(PLACES)
    features = index.get_clusters(WORLD, 2)
    items = index.get_clusters_flat(WORLD, 2)
    assert len(items) == len(features) == 100
    for item, feature in zip(items, features):
        props = feature["properties"]
        assert item.point_count == props.get("point_count", 1)
        if props.get("cluster"):
            assert item.id == props["cluster_id"]
            assert item.lng == pytest.approx(feature["geometry"]["coordinates"][0], abs=1e-12)
        else:
            assert PLACES["features"][item.id]["properties"]["name"] == props["name"]


def test_flat_results_into_a_reused_buffer_and_after_reloading():
    index = mapcore.Supercluster().load(PLACES)
    expected = [(c.id, c.lng, c.lat, c.point_count) for c in index.get_clusters_flat(WORLD, 3)]
    small = (mapcore.ClusterItem * 5)()
    big = (mapcore.ClusterItem * 500)()
    for out in (small, big):  # too small: a new array; large enough: a view of `out`
        items = index.get_clusters_flat(WORLD, 3, out=out)
        assert [(c.id, c.lng, c.lat, c.point_count) for c in items] == expected
    assert ctypes.addressof(index.get_clusters_flat(WORLD, 3, out=big)) == ctypes.addressof(big)
    assert len(index.get_clusters_flat((-10, -10, 10, 10), 3, out=big)) < len(expected)
    # The room cached per level follows a reload to more points.
    index.load_points([0.0, 0.0])
    assert [c.point_count for c in index.get_clusters_flat(WORLD, 20)] == [1]
    index.load(PLACES)
    assert len(index.get_clusters_flat(WORLD, 20)) == 162
    assert len(index.get_clusters_flat(WORLD, float("inf"))) == 162
    assert len(index.get_clusters_flat(WORLD, -5)) == len(index.get_clusters_flat(WORLD, 0))
    with pytest.raises(mapcore.InvalidArgumentError):
        index.get_clusters_flat(WORLD, float("nan"))


def test_large_builds_on_several_threads_at_once_agree():
    """Indexes of 100,000+ points build their trees with a helper thread; several such builds
    racing each other (and queries on one of them) must give identical results."""
    import random
    rng = random.Random(7)
    coords = array_module.array("d", [v for _ in range(120_000) for v in (rng.uniform(-180, 180), rng.uniform(-85, 85))])
    reference = mapcore.Supercluster().load_points(coords)
    expected = [[(c.id, c.point_count) for c in reference.get_clusters_flat(WORLD, z)] for z in (0, 5, 10, 17)]
    results = [None] * 4

    def build(slot):
        index = mapcore.Supercluster().load_points(coords)
        results[slot] = [[(c.id, c.point_count) for c in index.get_clusters_flat(WORLD, z)] for z in (0, 5, 10, 17)]

    threads = [threading.Thread(target=build, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)
    assert sum(c[1] for c in expected[0]) == 120_000


def test_load_points_from_a_flat_buffer():
    array = __import__("array")
    coords = array.array("d", [f["geometry"]["coordinates"][v] for f in PLACES["features"][:162] for v in (0, 1)])
    index = mapcore.Supercluster().load_points(coords)
    assert [c.point_count for c in index.get_clusters_flat(WORLD, 0)] == \
        [c.point_count for c in mapcore.Supercluster().load(PLACES["features"][:162]).get_clusters_flat(WORLD, 0)]
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.Supercluster().load_points([0.0, float("nan")])


def test_aggregate_properties_in_both_forms_sum_every_point():
    total = sum(f["properties"]["scalerank"] for f in PLACES["features"] if f["geometry"])
    web = mapcore.Supercluster(radius=100, cluster_properties={"sum": ["+", ["get", "scalerank"]]}).load(PLACES)
    ios = mapcore.Supercluster(radius=100, cluster_properties={
        "sum": [["+", ["accumulated"], ["get", "sum"]], ["get", "scalerank"]]}).load(PLACES)
    for index in (web, ios):
        top = index.get_clusters(WORLD, 0)
        got = sum(f["properties"]["sum"] if f["properties"].get("cluster") else f["properties"]["scalerank"] for f in top)
        assert got == total == 740
        sums = [f["tags"]["sum"] for f in index.get_tile(1, 0, 0)["features"] if f["tags"].get("sum")]
        assert sums == [146, 84, 63, 23, 34, 12, 19, 29, 8, 8, 80, 35]
    # An Expression object works as the map expression too.
    expr = mapcore.Expression(["get", "scalerank"])
    same = mapcore.Supercluster(radius=100, cluster_properties={"sum": ["+", expr]}).load(PLACES)
    assert same.get_tile(0, 0, 0) == web.get_tile(0, 0, 0)


def test_supercluster_errors():
    index = mapcore.Supercluster().load(PLACES)
    with pytest.raises(mapcore.NotFoundError):
        index.get_children(12)
    with pytest.raises(mapcore.NotFoundError):
        index.get_cluster_expansion_zoom(10**15)
    with pytest.raises(mapcore.InvalidArgumentError):
        index.get_clusters((0, 0, float("nan"), 1), 0)
    with pytest.raises(mapcore.InvalidArgumentError):
        index.get_tile(1, 2, 0)
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.Supercluster(max_zoom=31)
    with pytest.raises(mapcore.ExpressionError):
        mapcore.Supercluster(cluster_properties={"x": ["+", ["nope"]]})
    with pytest.raises(mapcore.UnsupportedError):
        index.load([{"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}])
    # The failed load kept the previous points.
    assert len(index.get_clusters(WORLD, 1)) == 61
    index.close()
    index.close()


def _source_with_places(**options):
    source = mapcore.DataSource(**options)
    source.add(PLACES)
    return source


def test_data_source_identity_and_edits():
    source = _source_with_places()
    assert len(source) == 163
    assert source.get(737)["properties"]["name"] == "Cape Reinga"
    assert source.get(737.0)["properties"]["name"] == "Cape Reinga"
    assert source.get("737") is None
    assert source.remove(737) == 1 and len(source) == 162 and source.get(737) is None
    assert source.remove(737) == 0
    source.remove_at(0)
    assert len(source) == 161
    with pytest.raises(mapcore.NotFoundError):
        source.remove_at(1000)
    source.add({"type": "Point", "coordinates": [1, 2]})
    assert source.to_geojson()["features"][-1]["geometry"]["coordinates"] == [1, 2]
    source.clear()
    assert len(source) == 0 and source.to_geojson()["features"] == []


def test_generate_and_promote_ids():
    generated = mapcore.DataSource(generate_id=True)
    generated.add(PLACES["features"][:3])
    generated.remove(1)
    generated.add(PLACES["features"][3:5])
    assert [f["id"] for f in generated.to_geojson()["features"]] == [0, 2, 3, 4]
    promoted = mapcore.DataSource(promote_id="name")
    promoted.add(PLACES)
    assert promoted.get("Cape Churchill")["properties"]["name"] == "Cape Churchill"


def test_clustered_source_queries():
    source = _source_with_places(cluster=True)
    assert source.options["clusterMaxZoom"] == 17
    features = source.clusters(WORLD, 0)
    clusters = [f for f in features if f["properties"].get("cluster")]
    assert clusters and sum(f["properties"].get("point_count", 1) for f in features) == 162
    first = clusters[0]["properties"]["cluster_id"]
    leaves = source.leaves(first, offset=0, limit=math.inf)
    assert len(leaves) == clusters[0]["properties"]["point_count"]
    assert source.leaves(first, offset=1, limit=2) == leaves[1:3]
    assert sum(c["properties"].get("point_count", 1) for c in source.children(first)) == len(leaves)
    assert source.expansion_zoom(first) >= 1
    hull = source.cluster_hull(first)
    assert hull["type"] in ("Polygon", "LineString", "Point")
    tile = source.tile(0, 0, 0)
    assert all(-800 <= f["geometry"][0][0] <= 8192 + 800 for f in tile["features"])


def test_clustering_refuses_non_points_and_keeps_data():
    source = _source_with_places(cluster=True)
    line = {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}
    with pytest.raises(mapcore.UnsupportedError, match="Point"):
        source.add(line)
    assert len(source) == 163
    with pytest.raises(mapcore.UnsupportedError):
        source.set([line])
    assert len(source) == 163
    source.set_options(cluster=False)
    source.add(line)
    with pytest.raises(mapcore.UnsupportedError):
        source.set_options(cluster=True)
    assert source.options["cluster"] is False
    with pytest.raises(mapcore.NotFoundError):
        source.cluster_index()
    assert any(f["geometry"]["type"] == "LineString" for f in source.clusters((-1, -1, 2, 2), 5))


def test_filter_and_options_change_rebuild_the_index():
    source = _source_with_places(cluster=True, filter=["==", ["get", "featureclass"], "cape"])
    capes = sum(1 for f in PLACES["features"] if f["properties"] and f["properties"].get("featureclass") == "cape")
    shown = source.clusters(WORLD, 20)
    assert len(shown) == capes and len(source) == 163
    source.set_options(filter=None, cluster_radius=10)
    assert len(source.clusters(WORLD, 20)) == 162
    assert source.options["clusterRadius"] == 10
    with pytest.raises(mapcore.InvalidArgumentError):
        source.set_options(cluster_radius=-1)
    with pytest.raises(mapcore.ExpressionError):
        mapcore.DataSource(filter=["==", ["get"], 1])


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_root(tmp_path):
    (tmp_path / "places.geojson").write_text(json.dumps(PLACES))
    (tmp_path / "broken.geojson").write_text('{"type": "FeatureCollection", "features": [')
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()


def test_import_from_http_file_url_and_path(http_root):
    base, root = http_root
    source = mapcore.DataSource(cluster=True)
    source.import_data(f"{base}/places.geojson")
    assert len(source) == 163
    source.import_data((root / "places.geojson").as_uri())
    source.import_data(str(root / "places.geojson"))
    assert len(source) == 3 * 163
    for bad, error in ((f"{base}/missing.geojson", mapcore.MapCoreIOError),
                       (f"{base}/broken.geojson", mapcore.ParseError),
                       ("http://127.0.0.1:9/nothing-listens-here", mapcore.MapCoreIOError),
                       (str(root / "nope.json"), mapcore.MapCoreIOError),
                       ("gopher://example/x", mapcore.UnsupportedError)):
        with pytest.raises(error):
            source.import_data(bad)
        assert len(source) == 3 * 163


def test_readers_never_see_a_mix_while_a_writer_replaces_data():
    """Two datasets of different sizes swap back and forth; every read must be wholly one or the
    other, across a count, a query and a frozen index view."""
    small = PLACES["features"][:40]
    large = PLACES["features"][:162]
    source = mapcore.DataSource(cluster=True)
    source.set(small)
    stop = threading.Event()
    problems = []

    def writer():
        for i in range(60):
            source.set(large if i % 2 == 0 else small)
        stop.set()

    def reader():
        while not stop.is_set():
            total = sum(f["properties"].get("point_count", 1) for f in source.clusters(WORLD, 0))
            if total not in (40, 162):
                problems.append(total)
            with source.cluster_index() as view:
                a = sum(c.point_count for c in view.get_clusters_flat(WORLD, 0))
                b = sum(c.point_count for c in view.get_clusters_flat(WORLD, 3))
                if a != b or a not in (40, 162):
                    problems.append((a, b))

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []
