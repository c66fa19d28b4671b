"""Live data sources through ctypes (issue 20): GL JS's updateData diffs, versions and frozen
snapshots, readers on four threads checked against a replay of 10,000 random diffs, and the
tiles a write reports as changed checked against the tiles themselves."""
import json
import random
import threading
import time
from pathlib import Path

import pytest

import mapcore

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures"


def point(fid, x, y=0.0, **properties):
    feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": properties}
    if fid is not None:
        feature["id"] = fid
    return feature


def test_a_diff_applies_as_gl_js_applies_it():
    source = mapcore.DataSource()
    source.add([point(1, 0), point(2, 1), point(3, 2, a=1)])
    assert source.version == 1
    source.update_data({
        "remove": [2, "unknown"],
        "add": [point(4, 4), point(1, 5, replaced=True)],
        "update": [{"id": 3, "newGeometry": {"type": "Point", "coordinates": [7, 7]},
                    "removeProperties": ["a"], "addOrUpdateProperties": [{"key": "b", "value": {"c": [1]}}]},
                   {"id": 99, "removeAllProperties": True}],
    })
    assert source.version == 2
    assert source.to_geojson()["features"] == [
        point(1, 5, replaced=True),  # replaced in place: id 1 keeps its position
        {"type": "Feature", "id": 3, "geometry": {"type": "Point", "coordinates": [7, 7]},
         "properties": {"b": {"c": [1]}}},
        point(4, 4),
    ]
    # Nothing to do: no new version.
    source.update_data({"remove": [42], "update": [{"id": 43, "removeAllProperties": True}]})
    source.update_data("{}")
    assert source.version == 2


def test_a_failed_diff_changes_nothing():
    source = mapcore.DataSource(cluster=True)
    source.add([point(1, 0), point(2, 1)])
    before = source.to_geojson()
    with pytest.raises(mapcore.InvalidGeoJSONError) as e:
        source.update_data({"removeAll": True, "add": [{"type": "Feature", "id": 3, "properties": {},
                                                         "geometry": {"type": "Point", "coordinates": [1]}}]})
    assert "$.add[0].geometry.coordinates" in str(e.value)
    with pytest.raises(mapcore.UnsupportedError):
        source.update_data({"remove": [1], "update": [{"id": 2, "newGeometry": {
            "type": "LineString", "coordinates": [[0, 0], [1, 1]]}}]})
    with pytest.raises(mapcore.InvalidArgumentError, match="has none"):
        source.update_data({"remove": [1], "add": [point(None, 3)]})
    with pytest.raises(mapcore.InvalidArgumentError, match="Unknown diff member"):
        source.update_data({"remove": [1], "delete": [2]})
    with pytest.raises(mapcore.ParseError):
        source.update_data(b'{"remove": [1]')
    assert source.to_geojson() == before and source.version == 1


def test_snapshots_stay_at_their_version_and_refuse_writes():
    source = mapcore.DataSource(promote_id="code")
    source.add([point(None, 1, code="a")])
    with source.snapshot() as frozen:
        source.update_data({"update": [{"id": "a", "addOrUpdateProperties": [{"key": "code", "value": "b"}]}]})
        assert frozen.version == 1 and frozen.get("a") is not None and frozen.get("b") is None
        assert source.version == 2 and source.get("b") is not None and source.get("a") is None
        with pytest.raises(mapcore.UnsupportedError):
            frozen.clear()
        assert len(frozen) == 1


def test_changes_name_the_bounds_written():
    source = mapcore.DataSource()
    source.update_data({"add": [point(1, 10, 20)]})
    source.update_data({"update": [{"id": 1, "newGeometry": {"type": "Point", "coordinates": [-30, -40]}}]})
    assert source.changes(1) == {"version": 2, "since": 1, "all": False,
                                 "bounds": [[10, 20, 10, 20], [-30, -40, -30, -40]]}
    assert source.tile_changed(1, 0, 0, 0) and not source.tile_changed(2, 0, 0, 0)
    with pytest.raises(mapcore.InvalidArgumentError):
        source.changes(3)
    source.clear()
    assert source.changes(2)["all"] is True


def replay(state, diff):
    """GL JS's applySourceDiff over a dict (insertion-ordered), written here independently."""
    if diff.get("removeAll"):
        state.clear()
    for fid in diff.get("remove", []):
        state.pop(fid, None)
    for f in diff.get("add", []):
        state[f["id"]] = f  # a held key keeps its place in a dict, as in a JS Map
    for u in diff.get("update", []):
        if u["id"] not in state:
            continue
        f = dict(state[u["id"]])
        if u.get("newGeometry"):
            f["geometry"] = u["newGeometry"]
        props = {} if u.get("removeAllProperties") else dict(f["properties"])
        for k in u.get("removeProperties", []):
            props.pop(k, None)
        for kv in u.get("addOrUpdateProperties", []):
            props[kv["key"]] = kv["value"]
        f["properties"] = props
        state[u["id"]] = f


def random_diff(rng, step):
    diff = {}
    if rng.random() < 0.002:
        diff["removeAll"] = True
    ids = lambda k: [rng.randrange(300) for _ in range(k)]  # noqa: E731
    diff["remove"] = ids(rng.randrange(3))
    diff["add"] = [point(i, rng.randrange(-170, 170), rng.randrange(-80, 80), step=step) for i in ids(rng.randrange(4))]
    diff["update"] = [{"id": i, "addOrUpdateProperties": [{"key": "u", "value": step}],
                       **({"newGeometry": {"type": "Point", "coordinates": [step % 170, 1]}}
                          if rng.random() < .5 else {}),
                       **({"removeProperties": ["step"]} if rng.random() < .2 else {})}
                      for i in ids(rng.randrange(3))]
    return diff


def test_readers_see_only_published_versions():
    """A writer applies 10,000 random diffs (one in fifty invalid) while four readers take frozen
    snapshots; each snapshot's content must equal the replay of its version."""
    rng = random.Random(20)
    source = mapcore.DataSource()
    expected = {0: []}  # version -> the replayed features (dicts never changed once made)
    stop = threading.Event()
    seen = []

    def reader():
        local = []
        while not stop.is_set():
            with source.snapshot() as view:
                local.append((view.version, view.to_geojson()["features"]))
            time.sleep(0.002)
        seen.extend(local)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    state, failed = {}, 0
    try:
        for step in range(10_000):
            diff = random_diff(rng, step)
            before = source.version
            if step % 50 == 49:
                diff["add"].append({"type": "Feature", "id": 1, "geometry": {"type": "Point", "coordinates": []},
                                    "properties": {}, "bbox": "not a box"})
                with pytest.raises(mapcore.InvalidGeoJSONError):
                    source.update_data(diff)
                assert source.version == before
                failed += 1
                continue
            source.update_data(diff)
            replay(state, diff)
            if source.version == before:
                assert list(state.values()) == expected[before], f"step {step} changed the data without a new version"
            else:
                assert source.version == before + 1
                expected[source.version] = list(state.values())
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert failed == 200 and len(seen) > 100 and len({v for v, _ in seen}) > 50
    wrong = [v for v, features in seen if expected.get(v) != features]
    assert wrong == [], f"{len(wrong)} of {len(seen)} reads differ from their version's replay"
    assert source.to_geojson()["features"] == expected[source.version]


def all_tiles(source, max_zoom):
    return {(z, x, y): source.tile_mvt(z, x, y) for z in range(max_zoom + 1)
            for x in range(1 << z) for y in range(1 << z)}


def test_tiles_a_write_does_not_name_stay_as_they_were():
    """After each of a series of diffs over lines, polygons and points: every tile that
    tile_changed does not name is byte for byte what it was, and every tile equals the tile of a
    fresh source holding the same features (so no stale state survives a write)."""
    states = json.loads((FIXTURES / "geojson-vt" / "us-states.json").read_text())["features"][:12]
    for i, f in enumerate(states):
        f["id"] = i
    rng = random.Random(3)
    source = mapcore.DataSource()
    source.add(states + [point(100 + i, rng.uniform(-170, 170), rng.uniform(-60, 60)) for i in range(30)])
    max_zoom = 4
    before = all_tiles(source, max_zoom)
    kept_total = 0
    for step in range(8):
        v = source.version
        victim = rng.randrange(12)
        diff = {"update": [{"id": victim, "addOrUpdateProperties": [{"key": "step", "value": step}]},
                           {"id": 100 + rng.randrange(30), "newGeometry": {
                               "type": "Point", "coordinates": [rng.uniform(-170, 170), rng.uniform(-60, 60)]}}],
                "remove": [100 + rng.randrange(30)],
                "add": [point(200 + step, 179.9 if step % 2 else -179.9, rng.uniform(-50, 50))]}
        source.update_data(diff)
        after = all_tiles(source, max_zoom)
        kept = [t for t in after if not source.tile_changed(v, *t)]
        assert all(after[t] == before[t] for t in kept), [t for t in kept if after[t] != before[t]]
        kept_total += len(kept)
        fresh = mapcore.DataSource()
        fresh.add(source.to_geojson())
        assert after == all_tiles(fresh, max_zoom)
        before = after
    # The check has teeth: most tiles are left alone by these small writes.
    assert kept_total > 8 * 341 // 2


def test_diffs_read_rings_as_maplibre_does():
    """Rings of three positions and unclosed rings, which RFC 7946 forbids and MapLibre's GeoJSON
    source takes: updateData keeps them as given and the tiles carry those with an area (a
    degenerate ring is dropped by geojson-vt's area test, as in MapLibre)."""
    degenerate = {"type": "Polygon", "coordinates": [[[3, 3], [6, 6], [3, 3]]]}
    triangle = {"type": "Polygon", "coordinates": [[[-20, -20], [-10, -20], [-20, -10]]]}
    unclosed = {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10]]]}
    with pytest.raises(mapcore.InvalidGeoJSONError):
        mapcore.GeoJSON(degenerate)
    assert mapcore.GeoJSON(degenerate, lenient=True).to_dict() == degenerate
    source = mapcore.DataSource()
    source.update_data({"add": [{"type": "Feature", "id": i, "geometry": g, "properties": {}}
                                for i, g in enumerate([degenerate, triangle, unclosed])]})
    assert [f["geometry"] for f in source.to_geojson()["features"]] == [degenerate, triangle, unclosed]
    assert sorted(f["id"] for f in source.tile(0, 0, 0)["features"]) == [1, 2]
