"""Clustering through ctypes: supercluster's facts, flat results, builds on several threads."""
import array as array_module
import collections
import ctypes
import json
import math
import random
import struct
import threading
from pathlib import Path

import pytest
import shapely

import mapcore

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "supercluster"
PLACES = json.loads((FIXTURES / "places.json").read_text())
WORLD = (-180, -85, 180, 85)


@pytest.fixture(params=["C", "Python"])
def dict_passes(request, monkeypatch):
    """Runs a test with the dicts of answers built by the C extension (mapcore/_dicts.c, built
    in place by `make test`) and again by the package's Python passes (a build without it)."""
    assert mapcore._lib.dicts is not None, "the C extension is not built: make test builds it"
    if request.param == "Python":
        monkeypatch.setattr(mapcore._lib, "dicts", None)
    return request.param


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


def test_stats_are_the_same_in_every_build():
    """indexBytes once counted array capacities, which follow the allocator's arena: about one
    build in 1,000 of the same places reported 16 bytes more (and failed a defaults test in CI)."""
    data = mapcore.GeoJSON(PLACES)
    first = mapcore.Supercluster().load(data).stats()
    assert first["indexBytes"] > 0
    assert all(mapcore.Supercluster().load(data).stats() == first for _ in range(3000))


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
    rng = random.Random(7)
    coords = array_module.array("d", [v for _ in range(120_000)
                                      for v in (rng.uniform(-180, 180), rng.uniform(-85, 85))])
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
        got = sum(f["properties"]["sum"] if f["properties"].get("cluster") else f["properties"]["scalerank"]
                  for f in top)
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
        line = {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}
        index.load([{"type": "Feature", "properties": {}, "geometry": line}])
    # The failed load kept the previous points.
    assert len(index.get_clusters(WORLD, 1)) == 61
    index.close()
    index.close()


def test_large_results_read_the_same_with_either_json_reader(monkeypatch):
    """Results over 1 MB are read with the cycle collector paused (and orjson when installed):
    the same dicts as the standard library's reader, and the collector is on again after."""
    import gc

    from mapcore import _lib

    rng = random.Random(5)
    points = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [rng.uniform(-180, 180),
                                                                                 rng.uniform(-80, 80)]},
               "properties": {"i": i, "name": f"p{i}"}} for i in range(20_000)]
    index = mapcore.Supercluster().load(points)
    fast = index.get_clusters(WORLD, 16)
    assert gc.isenabled() and len(fast) == 20_000
    monkeypatch.setattr(_lib, "_loads", json.loads)
    assert index.get_clusters(WORLD, 16) == fast


def _random_points(n, seed):
    """n seeded points, a third of them in a 2-degree square (clusters of tens of thousands)."""
    rng = random.Random(seed)

    def position(i):
        if i % 3 == 0:
            return [rng.uniform(10, 12), rng.uniform(40, 42)]
        return [rng.uniform(-180, 180), rng.uniform(-85, 85)]
    return [{"type": "Feature", "properties": {"i": i}, "geometry": {"type": "Point", "coordinates": position(i)}}
            for i in range(n)]


@pytest.mark.parametrize("features", [PLACES["features"], _random_points(60000, 7)], ids=["places", "random"])
def test_dicts_loaded_from_a_list_come_back_as_the_library_writes_them(features, dict_passes):
    """After load(list of dicts), getClusters and getLeaves build their dicts in Python from the
    flat items (points are the input dicts, as in supercluster JS); the same index loaded from
    a handle writes them as GeoJSON in the library. Both must agree everywhere, including
    point_count_abbreviated for counts of thousands and tens of thousands."""
    from_list = mapcore.Supercluster().load(features)
    from_text = mapcore.Supercluster().load(mapcore.GeoJSON({"type": "FeatureCollection", "features": features}))
    counts = set()
    for zoom in range(0, 18):
        fast, slow = from_list.get_clusters(WORLD, zoom), from_text.get_clusters(WORLD, zoom)
        assert fast == slow, zoom
        counts |= {f["properties"].get("point_count", 1) for f in fast}
    if len(features) > 10000:
        assert max(counts) >= 10000 and any(1000 <= c < 10000 for c in counts)
    big = max((f for f in from_list.get_clusters(WORLD, 0) if "cluster_id" in f["properties"]),
              key=lambda f: f["properties"]["point_count"])
    leaves = from_list.get_leaves(big, limit=None)
    assert leaves == from_text.get_leaves(big, limit=None)
    assert len(leaves) == big["properties"]["point_count"]
    # Points and leaves are the input objects themselves, not copies.
    points = [f for f in from_list.get_clusters(WORLD, 17) if "cluster_id" not in (f["properties"] or {})]
    index = {id(f) for f in features}
    assert points and all(id(p) in index for p in points) and all(id(leaf) in index for leaf in leaves)


def test_point_dicts_load_as_coordinates_first_and_answer_as_the_json_way(dict_passes):
    """load(list of Point feature dicts) gives the library the coordinates only, and the GeoJSON
    at the first get_tile: every answer equals the JSON way's, ids included; getChildren, as
    getClusters and getLeaves, hands back the input dicts for points."""
    features = _random_points(20000, 3) + [
        {"type": "Feature", "id": "z", "properties": None, "geometry": {"type": "Point", "coordinates": [1, 2, 30]}},
        {"type": "Feature", "id": 7.5, "properties": {"k": [1]},
         "geometry": {"type": "Point", "coordinates": [1.5, 2]}}]
    fast = mapcore.Supercluster(generate_id=True).load(features)
    slow = mapcore.Supercluster(generate_id=True).load(mapcore.GeoJSON({"type": "FeatureCollection",
                                                                         "features": features}))
    assert fast._pending is not None and slow._pending is None
    for zoom in (0, 5, 17):
        assert fast.get_clusters(WORLD, zoom) == slow.get_clusters(WORLD, zoom)
    big = max((f for f in fast.get_clusters(WORLD, 3) if "cluster_id" in f["properties"]),
              key=lambda f: f["properties"]["point_count"])
    index = {id(f) for f in features}
    for cluster in fast.get_clusters(WORLD, 12)[:300]:
        if "cluster_id" in cluster["properties"]:
            children = fast.get_children(cluster)
            assert children == slow.get_children(cluster)
            assert all(id(c) in index for c in children if "cluster_id" not in c["properties"])
    assert fast._pending is not None
    assert fast.get_tile(3, 4, 3) == slow.get_tile(3, 4, 3) is not None
    assert fast._pending is None
    assert fast.get_children(big) == slow.get_children(big)
    assert fast.get_leaves(big, limit=None) == slow.get_leaves(big, limit=None)


@pytest.mark.parametrize("bad, error", [
    ({"coordinates": [True, 2]}, mapcore.InvalidGeoJSONError),
    ({"coordinates": {0: 50, 1: 60}}, mapcore.InvalidGeoJSONError),
    ({"coordinates": [1, "2"]}, mapcore.InvalidGeoJSONError),
    ({"coordinates": [1, 2, 3, 4]}, mapcore.UnsupportedError),
    ({"coordinates": [1, 2, None]}, mapcore.InvalidGeoJSONError),
    ({"coordinates": [1]}, mapcore.InvalidGeoJSONError),
    ({"properties": [1]}, mapcore.InvalidGeoJSONError),
    ({"id": None}, mapcore.InvalidGeoJSONError),
    ({"id": True}, mapcore.InvalidGeoJSONError),
    ({"coordinates": [float("nan"), 2]}, mapcore.MapCoreError),
])
def test_point_dicts_the_library_refuses_are_refused_at_load(bad, error):
    """The coordinates-first way takes only what the JSON way would; the rest goes that way and
    fails there, leaving the previous load in place."""
    index = mapcore.Supercluster().load(PLACES["features"])
    before = index.get_clusters(WORLD, 17)
    feature = {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 2]}}
    geometry = {**feature["geometry"], **{k: v for k, v in bad.items() if k == "coordinates"}}
    feature = {**feature, **{k: v for k, v in bad.items() if k != "coordinates"}, "geometry": geometry}
    with pytest.raises(error):
        index.load([feature] * 3)
    assert index.get_clusters(WORLD, 17) == before


def test_a_property_json_cannot_hold_raises_when_the_library_needs_it():
    index = mapcore.Supercluster().load([{"type": "Feature", "properties": {"s": {1, 2}},
                                          "geometry": {"type": "Point", "coordinates": [1, 2]}}])
    assert index.get_clusters(WORLD, 17)[0]["properties"]["s"] == {1, 2}
    with pytest.raises(TypeError):
        index.get_tile(0, 0, 0)
    assert len(index.get_clusters(WORLD, 17)) == 1


def test_dicts_with_cluster_properties_or_from_other_inputs_are_written_by_the_library():
    props = {"sum": ["+", ["get", "scalerank"]]}
    index = mapcore.Supercluster(cluster_properties=props).load(PLACES["features"])
    clusters = [f for f in index.get_clusters(WORLD, 0) if "cluster_id" in f["properties"]]
    assert clusters and all("sum" in f["properties"] for f in clusters)
    # Input dicts are not handed back for points then (the library's copies are equal).
    points = [f for f in index.get_clusters(WORLD, 17)]
    assert points and not any(p is f for p in points[:50] for f in PLACES["features"])
    # A load the library refuses keeps the previous state, the input dicts included.
    plain = mapcore.Supercluster().load(PLACES["features"])
    before = plain.get_clusters(WORLD, 17)
    with pytest.raises(mapcore.UnsupportedError):
        plain.load([{"type": "Feature", "properties": {},
                     "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}])
    after = plain.get_clusters(WORLD, 17)
    assert len(after) == len(before) and all(a is b for a, b in zip(after, before))
    # Lists of other geo objects load as GeoJSON does (their dicts are made by the library).
    shapes = mapcore.Supercluster().load([shapely.Point(1, 2), {"type": "Point", "coordinates": [3, 4]}])
    assert sorted(f["geometry"]["coordinates"] for f in shapes.get_clusters(WORLD, 17)) == [[1, 2], [3, 4]]
    # close() lets go of the dicts.
    plain.close()
    assert repr(plain).endswith("closed>")


@pytest.mark.parametrize("as_handle", [False, True], ids=["list of dicts", "GeoJSON handle"])
def test_dict_results_stay_paired_with_their_load_under_threads(as_handle, dict_passes):
    """A reader on the dict path while another thread loads data of different lengths: every
    result is one load's points, never items of one load mapped onto the dicts of another. From
    a list the points are the input dicts; from a handle, dicts fetched from the library and kept
    until the next load."""
    def collection(kind, n, lat):
        features = [{"type": "Feature", "properties": {"set": kind, "i": i},
                     "geometry": {"type": "Point", "coordinates": [-170 + i * (340 / n), lat]}} for i in range(n)]
        return mapcore.GeoJSON({"type": "FeatureCollection", "features": features}) if as_handle else features
    small, large = collection("small", 5, 0.0), collection("large", 300, 10.0)
    index = mapcore.Supercluster().load(large)
    stop = threading.Event()
    errors = []

    def reader():
        while not stop.is_set():
            try:
                got = index.get_clusters(WORLD, 20)
                kinds = {f["properties"]["set"] for f in got}
                assert len(kinds) == 1 and len(got) == (5 if kinds == {"small"} else 300)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
                return
    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for k in range(300):
        index.load(small if k % 2 else large)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def _written_by_library(index, call, *args):
    """The features of a query as the library writes them (its GeoJSON text, read with json)."""
    from mapcore._lib import take_bytes
    fn = getattr(mapcore._lib.lib, f"mc_cluster_index_get_{call}")
    return json.loads(take_bytes(lambda buf: fn(index._handle, *args, 0, buf)))["features"]


@pytest.mark.parametrize("way", ["list", "text", "aggregates"])
def test_answers_of_one_item_are_the_features_the_library_writes(way, dict_passes):
    """An answer of a single point or a single cluster (picked alone, not through itemgetter's
    tuple), from input dicts, from fetched features, and fetched clusters with aggregates."""
    features = [{"type": "Feature", "properties": {"n": i},
                 "geometry": {"type": "Point", "coordinates": [10 + i * 1e-4, 20]}} for i in range(3)]
    options = {"cluster_properties": {"sum": ["+", ["get", "n"]]}} if way == "aggregates" else {}
    data = features if way == "list" else json.dumps({"type": "FeatureCollection", "features": features})
    index = mapcore.Supercluster(**options).load(data)
    from mapcore.cluster import _bbox
    [cluster] = index.get_clusters(WORLD, 0)
    assert cluster == _written_by_library(index, "clusters", _bbox(WORLD), 0.0)[0]
    assert cluster["properties"]["point_count"] == 3
    page = mapcore.cluster.Page(1, 1)
    [leaf] = index.get_leaves(cluster, 1, 1)
    [item] = index.get_leaves_flat(cluster, 1, 1)
    if way == "list":  # the input dict itself (the library holds bare coordinates here)
        assert leaf is features[item.id]
    else:
        assert [leaf] == _written_by_library(index, "leaves", cluster["properties"]["cluster_id"],
                                             ctypes.byref(page))
        assert leaf == features[item.id]
    [alone] = index.get_clusters((9, 19, 10.00005, 21), 20)
    assert alone == features[0] and alone is index.get_clusters((9, 19, 10.00005, 21), 20)[0]
    index.close()


@pytest.mark.parametrize("options", [{}, {"cluster_properties": {"sum": ["+", ["get", "scalerank"]]}},
                                     {"generate_id": True}], ids=["plain", "aggregates", "generate_id"])
def test_dicts_of_an_index_of_text_are_the_features_the_library_writes(options, dict_passes):
    """An index loaded from GeoJSON text answers from flat items, fetching each point's feature
    from the library once: every answer equals the library's own GeoJSON, points are the same
    dicts from one answer to the next (as supercluster JS hands back its inputs), clusters new."""
    features = PLACES["features"] + [
        {"type": "Feature", "id": "z", "properties": None, "geometry": {"type": "Point", "coordinates": [1, 2, 30]}},
        {"type": "Feature", "id": 7.5, "properties": {"k": [1, {"a": None}]},
         "geometry": {"type": "Point", "coordinates": [1.5, 2]}}]
    index = mapcore.Supercluster(**options).load(json.dumps({"type": "FeatureCollection", "features": features}))
    from mapcore.cluster import _bbox
    for zoom in range(0, 19):
        got = index.get_clusters(WORLD, zoom)
        assert got == _written_by_library(index, "clusters", _bbox(WORLD), float(zoom)), zoom
    again = index.get_clusters(WORLD, 18)
    assert len(index._fetched) == sum(1 for f in again if "cluster_id" not in (f["properties"] or {}))
    assert all(a is b for a, b in zip(again, index.get_clusters(WORLD, 18)))
    clusters = [f for f in index.get_clusters(WORLD, 0) if "cluster_id" in f["properties"]]
    assert clusters and not any(a is b for a, b in zip(clusters, index.get_clusters(WORLD, 0)))
    big = max(clusters, key=lambda f: f["properties"]["point_count"])
    cid = big["properties"]["cluster_id"]
    assert index.get_children(big) == _written_by_library(index, "children", cid)
    page = mapcore.cluster.Page(2, 5)
    assert index.get_leaves(big, 5, 2) == _written_by_library(index, "leaves", cid, ctypes.byref(page))
    # A new load forgets the kept dicts: answers are the new data's.
    index.load(json.dumps({"type": "FeatureCollection", "features": features[:3]}))
    assert index._fetched is None
    assert sorted(f["properties"]["name"] for f in index.get_clusters(WORLD, 18)) == \
        sorted(f["properties"]["name"] for f in features[:3])
    index.close()
    assert index._fetched is None


def test_bare_points_come_back_as_point_features_without_properties():
    index = mapcore.Supercluster().load_points([1.0, 2.0, 3.5, -4.0])
    from mapcore.cluster import _bbox
    got = index.get_clusters(WORLD, 20)
    assert got == _written_by_library(index, "clusters", _bbox(WORLD), 20.0)
    assert sorted(f["geometry"]["coordinates"] for f in got) == [[1, 2], [3.5, -4]]
    assert all(f["properties"] is None for f in got)


def test_features_by_id_refuses_ids_that_name_nothing():
    index = mapcore.Supercluster().load(PLACES)
    assert [f["properties"]["name"] for f in index._fetch([7, 0])] == ["Newman I.", "Niagara Falls"]
    assert index._fetch([164])[0]["properties"]["cluster_id"] == 164
    assert index._fetch([]) == []
    for bad in ([-1], [len(PLACES["features"])], [2**63 - 1]):
        with pytest.raises(mapcore.NotFoundError):
            index._fetch(bad)


@pytest.fixture
def disposals(monkeypatch):
    """Counts the buffers the binding let go (mc_buf_dispose; `twice`: an mc_buf let go more than
    once) and the library calls asked to write features."""
    from mapcore import _lib
    count = collections.Counter()
    dispose = _lib.lib.mc_buf_dispose
    seen = []  # the mc_buf objects themselves, held so that no id is reused

    def counted(buf):
        count["disposed"] += 1
        count["twice"] += any(b is buf._obj for b in seen)
        seen.append(buf._obj)
        return dispose(buf)
    monkeypatch.setattr(_lib.lib, "mc_buf_dispose", counted)
    get_features = _lib.lib.mc_cluster_index_get_features

    def written(*args):
        count["written"] += 1
        return get_features(*args)
    monkeypatch.setattr(_lib.lib, "mc_cluster_index_get_features", written)
    return count


def _no_fetch_helper():
    return not any(t.name == "mapcore-fetch" for t in threading.enumerate())


def _each_written_once_let_go(disposals):
    return disposals["disposed"] == disposals["written"] and disposals["twice"] == 0 and _no_fetch_helper()


@pytest.mark.skipif(mapcore._lib.dicts is None, reason="the overlapped fetch reads MessagePack with the C extension")
def test_a_fetch_in_parts_is_the_features_of_one_call_and_lets_every_buffer_go(monkeypatch, disposals):
    """A fetch larger than a part is written in parts on a helper thread, read here in order:
    the same features as the library writes in one call. A failing part (an id naming nothing)
    raises with the library's message for it (kept per thread: checked on the helper), and a
    part that cannot be read raises; either way every part written, also those after it, is
    let go once."""
    import types
    from mapcore import _lib, cluster
    index = mapcore.Supercluster().load(PLACES)
    ids = list(range(len(PLACES["features"])))[::-1] + [-1 - 164, 0, 0]
    whole = _lib.take_values(lambda flags, buf: _lib.lib.mc_cluster_index_get_features(
        index._handle, (ctypes.c_int64 * len(ids))(*ids), len(ids), flags, buf))["features"]
    monkeypatch.setattr(cluster, "_FETCH_PART", 7)
    disposals.clear()
    got = index._fetch(ids)
    assert got == whole and len(got) == len(ids)
    assert _each_written_once_let_go(disposals) and disposals["written"] == -(-len(ids) // 7)
    with pytest.raises(mapcore.NotFoundError):
        index._fetch([12345])  # the main thread's last error names 12345 from here on
    disposals.clear()
    bad = len(PLACES["features"])
    with pytest.raises(mapcore.NotFoundError, match=rf"\b{bad}\b"):
        index._fetch(list(range(20)) + [bad] + list(range(30)))
    assert _each_written_once_let_go(disposals) and disposals["written"] == 3  # none after the failing part
    disposals.clear()
    unpack = _lib.dicts.unpack

    def unreadable_third(address, length, calls=collections.Counter()):
        calls["n"] += 1
        if calls["n"] == 3:
            raise ValueError("an unreadable part")
        return unpack(address, length)
    monkeypatch.setattr(_lib, "dicts", types.SimpleNamespace(unpack=unreadable_third))
    with pytest.raises(ValueError, match="an unreadable part"):
        index._fetch(list(range(50)))
    assert _each_written_once_let_go(disposals) and disposals["written"] >= 3


@pytest.mark.skipif(mapcore._lib.dicts is None, reason="the overlapped fetch reads MessagePack with the C extension")
def test_overlapped_values_stop_cleanly_when_the_caller_stops_or_a_call_raises(disposals):
    import gc
    from mapcore import _lib
    index = mapcore.Supercluster().load(PLACES)

    def call(i):
        def fetch(flags, buf):
            if i == 3:
                disposals["written"] += 1
                raise KeyError("a call that raises")
            return _lib.lib.mc_cluster_index_get_features(index._handle, (ctypes.c_int64 * 1)(i), 1, flags, buf)
        return fetch
    values = _lib.take_values_overlapped([call(i) for i in range(6)])
    assert next(values)["features"][0]["properties"]["name"] == PLACES["features"][0]["properties"]["name"]
    values.close()  # the caller stops early: the helper stops, and what it wrote is let go
    assert _each_written_once_let_go(disposals) and 1 <= disposals["written"] < 6
    disposals.clear()
    values = _lib.take_values_overlapped([call(i) for i in range(6)])
    next(values)
    del values  # dropped unfinished: the same when it is collected
    gc.collect()
    assert _each_written_once_let_go(disposals) and 1 <= disposals["written"] < 6
    disposals.clear()
    with pytest.raises(KeyError, match="a call that raises"):
        list(_lib.take_values_overlapped([call(i) for i in range(6)]))
    assert _each_written_once_let_go(disposals) and disposals["written"] == 4


@pytest.mark.skipif(mapcore._lib.dicts is None, reason="the overlapped fetch reads MessagePack with the C extension")
def test_a_fetch_in_parts_works_where_no_thread_can_be_started(monkeypatch, disposals):
    from mapcore import cluster
    index = mapcore.Supercluster().load(PLACES)
    whole = index._fetch(list(range(40)))

    def refused(self):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(threading.Thread, "start", refused)
    monkeypatch.setattr(cluster, "_FETCH_PART", 7)
    disposals.clear()
    assert index._fetch(list(range(40))) == whole
    assert _each_written_once_let_go(disposals) and disposals["written"] == 6


def _items(rows):
    """A ctypes array of ClusterItem (id, lng, lat, point_count) from tuples."""
    return (mapcore.ClusterItem * len(rows))(*[mapcore.ClusterItem(*row) for row in rows])


def test_c_dicts_make_clusters_as_the_python_passes_do():
    """The extension's cluster dicts equal cluster.py's, point_count_abbreviated included at
    every rounding edge (the library's own writing is compared on real answers above)."""
    from mapcore._lib import dicts as _dicts
    from mapcore.cluster import _cluster_dict
    counts = [2, 999, 1000, 1049, 1050, 1051, 1949, 1950, 9949, 9950, 9999, 10000, 10499, 10500, 99999, 999_499,
              999_500, 2**40, 2**53 + 1, 5258986265376043509]
    rows = [(i * 32 + 5, -179.5 + i, 85.0 - i, c) for i, c in enumerate(counts)]
    got = _dicts.assemble(ctypes.addressof(items := _items(rows)), len(items), [], True, False)
    assert got == [_cluster_dict(*row) for row in rows]
    assert [f["properties"]["point_count_abbreviated"] for f in got[:10]] == \
        [2, 999, "1k", "1k", "1.1k", "1.1k", "1.9k", "2k", "9.9k", "10k"]
    # supercluster-cpp's (a data source's maplibre-native compatibility): C's "%.1f" and "%f".
    cpp = _dicts.assemble(ctypes.addressof(items), len(items), [], True, True)
    assert cpp == [_cluster_dict(*row, cpp=True) for row in rows]
    assert [f["properties"]["point_count_abbreviated"] for f in cpp[:13]] == \
        ["2", "999", "1.0k", "1.0k", "1.1k", "1.1k", "1.9k", "1.9k", "9.9k", "9.9k", "10.0k", "10.000000k",
         "10.499000k"]
    assert all(type(f["geometry"]["coordinates"][0]) is float and type(f["id"]) is int for f in got)
    # Keys and order as the library writes them (json.dumps keeps insertion order).
    assert json.dumps(got[0]) == json.dumps(_cluster_dict(*rows[0]))


def test_c_dicts_hand_back_the_kept_points_and_hold_no_stray_references():
    """Points are the list's own objects; reference counts are exact (nothing leaked, nothing
    freed early); a cluster's place is None when the caller fetches clusters itself."""
    import sys
    from mapcore._lib import dicts as _dicts
    points = [{"type": "Feature", "properties": {"i": i}} for i in range(4)] + [None]
    items = _items([(2, 0, 0, 1), (0, 0, 0, 1), (7, 1.5, 2.5, 3), (2, 0, 0, 1)])
    def refs():
        return [sys.getrefcount(points[k]) for k in range(4)]
    before = refs()
    got = _dicts.assemble(ctypes.addressof(items), len(items), points, False, False)
    assert got[0] is points[2] and got[1] is points[0] and got[2] is None and got[3] is points[2]
    during = refs()
    assert [b - a for a, b in zip(before, during)] == [1, 0, 2, 0]
    made = _dicts.assemble(ctypes.addressof(items), len(items), points, True, False)
    # The cluster's dicts are held as a dict Python makes holds them: by their feature only.
    from mapcore.cluster import _cluster_dict
    cluster, python = made[2], [_cluster_dict(7, 1.5, 2.5, 3)]
    assert cluster == python[0]
    for key in ("properties", "geometry"):
        counts = [sys.getrefcount(cluster[key]), sys.getrefcount(python[0][key])]
        assert counts[0] == counts[1], key
    counts = [sys.getrefcount(cluster), sys.getrefcount(made)]
    del cluster
    after = [sys.getrefcount(made[2]), sys.getrefcount(made)]
    assert after == [counts[0] - 1, counts[1]]  # the name held one; the list one
    del got, made
    after = refs()
    assert after == before
    assert _dicts.missing(ctypes.addressof(items), len(items), points) == []
    points[0] = None
    assert _dicts.missing(ctypes.addressof(items), len(items), points) == [0]
    assert _dicts.assemble(0, 0, [], True, False) == [] and _dicts.missing(0, 0, []) == []


@pytest.mark.parametrize("call", ["assemble", "missing"])
def test_c_dicts_refuse_what_they_cannot_read(call):
    """Ids past the list, negative ids, no items at a null address, a negative count, points
    that are not a list: errors, not a crash."""
    from mapcore._lib import dicts as _dicts
    fn = getattr(_dicts, call)
    extra = (True, False) if call == "assemble" else ()
    points = [{"type": "Feature"}] * 3
    for bad_id in (3, -1, 2**62, -(2**63)):
        items = _items([(0, 0, 0, 1), (bad_id, 0, 0, 1)])
        with pytest.raises(IndexError):
            fn(ctypes.addressof(items), len(items), points, *extra)
    items = _items([(0, 0, 0, 1)])
    with pytest.raises(ValueError):
        fn(0, 1, points, *extra)
    with pytest.raises(ValueError):
        fn(ctypes.addressof(items), -1, points, *extra)
    with pytest.raises(TypeError):
        fn(ctypes.addressof(items), 1, tuple(points), *extra)
    with pytest.raises(TypeError):
        fn("0", 1, points, *extra)


class _Text(str):
    """A str whose comparisons are its class's: only Python can judge it as the checks do."""


def _point(coordinates=(1, 2), **members):
    return {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": list(coordinates)},
            **members}


_BARE_CASES = {
    "ints and floats": [_point(), _point((1.5, -2.25)), _point((179, 85, 3))],
    "a tuple, ids, no properties": [_point(id="a"), _point(id=7), _point(id=7.5),
                                    {"type": "Feature", "geometry": {"type": "Point", "coordinates": (3, 4)}}],
    "properties None": [_point(properties=None)],
    "not a dict": [_point(), [1, 2]],
    "a dict subclass": [_point(), collections.OrderedDict(_point())],
    "no type": [{"geometry": _point()["geometry"]}],
    "another type": [_point(type="FeatureCollection")],
    "no geometry": [{"type": "Feature", "properties": {}}],
    "a null geometry": [_point(geometry=None)],
    "a line": [_point(geometry={"type": "LineString", "coordinates": [[1, 2], [3, 4]]})],
    "no coordinates": [_point(geometry={"type": "Point"})],
    "properties a list": [_point(properties=[1])],
    "id None": [_point(id=None)],
    "id True": [_point(id=True)],
    "id a list": [_point(id=[1])],
    "one number": [_point((1,))],
    "four numbers": [_point((1, 2, 3, 4))],
    "a bool": [_point((True, 2))],
    "a string": [_point((1, "2"))],
    "altitude None": [_point((1, 2, None))],
    "an int too large": [_point((10**400, 2))],
    "an altitude too large": [_point((1, 2, 10**400))],
    "a float subclass": [_point((1, type("F", (float,), {})(2.0)))],
    "NaN": [_point((float("nan"), 2))],
    "an infinity": [_point((1, float("-inf")))],
    "near the largest double": [_point((1.7e308, 1.7e308))],
    "coordinates a dict": [_point(geometry={"type": "Point", "coordinates": {0: 50, 1: 60}})],
    "coordinates bytes": [_point(geometry={"type": "Point", "coordinates": b"\x05\x06"})],
    "coordinates a range": [_point(geometry={"type": "Point", "coordinates": range(2)})],
}


@pytest.mark.parametrize("case", list(_BARE_CASES))
def test_c_bare_points_check_what_the_python_checks_do(case, monkeypatch):
    """Loading a list of feature dicts coordinates first: the C extension's pass takes exactly
    the features the Python checks take, with the same doubles, for each kind of feature (it
    answers NotImplemented only for what Python must judge)."""
    from mapcore import _lib
    from mapcore.cluster import _bare_points

    features = _BARE_CASES[case]
    assert _lib.dicts.bare_points(features) is not NotImplemented
    by_c = _bare_points(features)
    monkeypatch.setattr(_lib, "dicts", None)
    by_python = _bare_points(features)
    assert (by_c is None) == (by_python is None), case
    if by_c is not None:
        assert list(by_c) == list(by_python) and len(by_c) == 2 * len(features)
    assert (by_c is None) == (case not in ("ints and floats", "a tuple, ids, no properties", "properties None",
                                           "an altitude too large"))


def test_c_bare_points_leave_to_python_what_only_python_can_judge():
    """A type that is a str subclass, a list subclass, and a list that a key's __eq__ empties
    during the pass: NotImplemented, so the Python checks decide (and the host does not crash)."""
    from mapcore import _lib

    bare = _lib.dicts.bare_points
    assert bare([_point(type=_Text("Feature"))]) is NotImplemented
    assert bare(type("L", (list,), {})([_point()])) is NotImplemented
    assert bare(iter([_point()])) is NotImplemented
    assert bytes(bare((_point((1.5, 2)),))) == struct.pack("=2d", 1.5, 2)

    features = []

    class Clearing:
        def __hash__(self):
            return hash("type")

        def __eq__(self, other):
            features.clear()
            return False

    odd = {Clearing(): 0}
    odd.update(_point())
    features += [odd, _point(), _point()]
    del odd  # held by the list alone, which the lookup empties
    assert bare(features) is NotImplemented and features == []

    class Replacing:
        """Hashes like "properties"; comparing drops the feature's geometry, held by it alone."""

        def __init__(self, feature):
            self.feature = feature

        def __hash__(self):
            return hash("properties")

        def __eq__(self, other):
            self.feature["geometry"] = None
            return False

    # The geometry read before the change stays held and read, as in the Python checks' `g`.
    feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}}
    feature[Replacing(feature)] = 0
    assert bytes(bare([feature])) == struct.pack("=2d", 1, 2) and feature["geometry"] is None

    class Overflowing:
        armed = False

        def __hash__(self):
            return hash("type")

        def __eq__(self, other):
            if Overflowing.armed:
                raise OverflowError
            return False

    # Python's checks take an OverflowError as "not a bare point", whatever raised it.
    overflowing = {Overflowing(): 0, **_point()}
    Overflowing.armed = True
    assert bare([overflowing]) is None


@pytest.mark.parametrize("way", ["list", "text"])
def test_whole_number_cluster_coordinates_are_ints_as_the_library_writes_them(way, dict_passes):
    """A cluster centred on whole degrees: its coordinates are ints in the library's GeoJSON (as
    JavaScript prints them), and so in the dicts built here, types compared strictly."""
    from conftest import strictly_equal
    from mapcore.cluster import _bbox
    features = [{"type": "Feature", "properties": {"k": i},
                 "geometry": {"type": "Point", "coordinates": xy}}
                for i, xy in enumerate([[0, 0]] * 3 + [[10, 0]] * 2 + [[-45.5, 0]] * 2)]
    data = features if way == "list" else json.dumps({"type": "FeatureCollection", "features": features})
    index = mapcore.Supercluster().load(data)
    got = index.get_clusters(WORLD, 5)
    clusters = [f["geometry"]["coordinates"] for f in got if "cluster_id" in f["properties"]]
    assert [0, 0] in clusters and any(type(c[0]) is float for c in clusters), clusters
    assert any(type(c[0]) is int for c in clusters), clusters
    strictly_equal(got, _written_by_library(index, "clusters", _bbox(WORLD), 5.0))
