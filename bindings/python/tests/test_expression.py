"""Expressions and filters through ctypes: values, batches, errors, threads."""
import threading

import pytest

import mapcore

QUAKE = {"type": "Feature", "id": 3, "geometry": {"type": "Point", "coordinates": [2, 3]},
         "properties": {"mag": 5.5, "kind": "earthquake", "population": 250000}}


def run_threads(work, count):
    """Runs work(0) … work(count - 1) on real threads at once (ctypes releases the GIL)."""
    threads = [threading.Thread(target=work, args=(t,)) for t in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def feature(**props):
    return {"type": "Feature", "geometry": None, "properties": props}


def test_evaluate_values_and_type_flags():
    e = mapcore.Expression(["step", ["get", "population"], 1, 100000, 2, 1000000, 3])
    assert e.type == "number"
    assert not e.is_feature_constant and e.is_zoom_constant
    assert e.evaluate(QUAKE) == 2
    assert e.evaluate(feature(population=2_000_000)) == 3
    assert mapcore.Expression(["concat", ["to-string", ["get", "t"]], "°F"]).evaluate(feature(t=64)) == "64°F"
    assert mapcore.Expression(["interpolate", ["linear"], ["zoom"], 0, 0, 10, 100]).evaluate(zoom=2.5) == 25


def test_color_property_spec_and_batches():
    ramp = mapcore.Expression(["interpolate", ["linear"], ["get", "mag"], 0, "#ffff00", 5, "#ff0000", 10, "#ffffff"],
                              property_spec={"type": "color"})
    assert ramp.type == "color"
    assert ramp.evaluate(feature(mag=5)) == "rgba(255,0,0,1)"
    colors = ramp.evaluate_many([feature(mag=0), feature(mag=10), feature(mag="x")])
    assert colors[0] == (1.0, 1.0, 0.0, 1.0)
    assert colors[1] == (1.0, 1.0, 1.0, 1.0)
    assert colors[2] is None
    doubled = mapcore.Expression(["*", ["get", "v"], 2])
    assert doubled.evaluate_many([feature(v=1), feature(), feature(v=-3)]) == [2.0, None, -6.0]


def test_filters_legacy_and_expression():
    legacy = mapcore.Filter(["all", ["==", "kind", "earthquake"], [">=", "mag", 4.5]])
    assert legacy.matches(QUAKE)
    assert not legacy.matches(feature(kind="earthquake", mag=4))
    expr = mapcore.Filter(["all", ["==", ["get", "kind"], "earthquake"], [">=", ["get", "mag"], 4.5]])
    features = [QUAKE, feature(kind="explosion", mag=6), feature(kind="earthquake", mag=4.6)]
    assert expr.filter(features) == [QUAKE, features[2]]
    assert expr.filter({"type": "FeatureCollection", "features": features}) == [QUAKE, features[2]]
    assert mapcore.Filter(["==", "$type", "Point"]).matches(QUAKE)


def test_context_keywords():
    e = mapcore.Expression(["concat", ["feature-state", "hover"], "/", ["global-state", "theme"], "/",
                            ["to-string", ["image", "pin"]]])
    assert e.evaluate(QUAKE, feature_state={"hover": True}, global_state={"theme": "dark"},
                      available_images=["pin"]) == "true/dark/pin"
    square = {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}
    within = mapcore.Expression(["within", square])
    assert within.evaluate(QUAKE) is True
    assert within.evaluate({"type": "Point", "coordinates": [20, 3]}) is False


def test_errors_carry_codes_and_key_paths():
    with pytest.raises(mapcore.ExpressionError) as err:
        mapcore.Expression(["+", 1, ["*", 2, "x"]])
    assert err.value.path == "[2][2]"
    assert "Expected number but found string instead." in err.value.message
    with pytest.raises(mapcore.ExpressionError):
        mapcore.Expression(["no-such-operator"])
    with pytest.raises(mapcore.EvaluationError) as err:
        mapcore.Expression(["number", ["get", "missing"]]).evaluate(feature())
    assert err.value.message == "Expected value to be of type number, but found null instead."
    deep = 1
    for _ in range(300):
        deep = ["-", deep]
    with pytest.raises(mapcore.LimitError):
        mapcore.Expression(deep)
    with pytest.raises(mapcore.ExpressionError):
        nested = ["get", "x"]
        for _ in range(100):
            nested = ["-", nested]
        mapcore.Expression(nested)
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.Expression(["get", "x"], property_spec=[1])


def test_to_json_round_trips():
    e = mapcore.Expression(["+", 1, ["*", 2, 3], ["get", "x"]])
    assert e.to_json() == ["+", 1, 6, ["number", ["get", "x"]]]
    again = mapcore.Expression(e.to_json())
    assert again.evaluate(feature(x=1)) == e.evaluate(feature(x=1)) == 8


def test_one_expression_many_threads():
    square = {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}
    e = mapcore.Expression(["case", ["within", square], ["*", ["get", "v"], 2], -1])
    failures = []

    def work(t):
        for i in range(300):
            inside = (i + t) % 2 == 0
            f = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [5 if inside else 15, 5]},
                 "properties": {"v": i}}
            if e.evaluate(f) != (2 * i if inside else -1):
                failures.append((t, i))

    run_threads(work, 6)
    assert failures == []


def _star_ring(n=400):
    import math
    ring = [(8 * math.cos(2 * math.pi * k / n) * (1 + 0.25 * math.sin(5 * 2 * math.pi * k / n)),
             8 * math.sin(2 * math.pi * k / n) * (1 + 0.25 * math.sin(5 * 2 * math.pi * k / n))) for k in range(n)]
    return ring + [ring[0]]


def test_batch_within_matches_shapely_contains_properly():
    """Points in batches go through MapCore's own locator; shapely (GEOS) decides the same,
    boundary points (vertices, edge points) included."""
    shapely = pytest.importorskip("shapely")
    import random
    rng = random.Random(5)
    outer = _star_ring()
    hole = [(-1, -1), (-1, 1), (1, 1), (1, -1), (-1, -1)]
    points = [(rng.uniform(-11, 11), rng.uniform(-11, 11)) for _ in range(20000)]
    points += outer + hole + [(x + 0.5, y) for x, y in hole] + [(0, 1), (0, -1), (1, 0)]
    polygon = {"type": "Polygon", "coordinates": [[list(p) for p in outer], [list(p) for p in hole]]}
    features = mapcore.GeoJSON({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": list(p)}} for p in points]})
    ours = mapcore.Filter(["within", polygon]).evaluate_many(features, kind="boolean")
    shape = shapely.Polygon(outer, [hole])
    theirs = [shape.contains_properly(shapely.Point(p)) for p in points]
    assert sum(ours) > 1000
    assert [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b] == []


def test_batches_share_one_collection_from_many_threads():
    """The first batches over a collection build its property columns while other threads read."""
    features = mapcore.GeoJSON({"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [i % 20 - 10, i % 7]},
         "properties": {"mag": i % 11, "kind": ["a", "b", "c"][i % 3]}} for i in range(20000)]})
    exprs = [
        (mapcore.Expression(["step", ["get", "mag"], 0, 5, 1]), lambda i: 1.0 if i % 11 >= 5 else 0.0),
        (mapcore.Expression(["match", ["get", "kind"], "b", 2, 3]), lambda i: 2.0 if i % 3 == 1 else 3.0),
        (mapcore.Filter(["all", ["==", ["get", "kind"], "a"], ["<", ["get", "mag"], 4]]),
         lambda i: i % 3 == 0 and i % 11 < 4),
    ]
    failures = []

    def work(t):
        for round_ in range(5):
            e, want = exprs[(t + round_) % len(exprs)]
            got = e.evaluate_many(features)
            if got != [want(i) for i in range(len(got))]:
                failures.append((t, round_))

    run_threads(work, 6)
    assert failures == []


def test_failing_filters_are_no_match_everywhere_unless_strict():
    """MapLibre drops a feature whose filter fails to evaluate; matches() and filter() agree, and
    strict=True raises instead."""
    f = mapcore.Filter(["==", ["number", ["get", "n"]], 1])
    good = {"type": "Feature", "geometry": None, "properties": {"n": 1}}
    bad = {"type": "Feature", "geometry": None, "properties": {"n": "one"}}
    assert f.matches(good) and not f.matches(bad)
    assert f.filter([good, bad]) == [good]
    with pytest.raises(mapcore.EvaluationError):
        f.matches(bad, strict=True)
    with pytest.raises(mapcore.EvaluationError, match="feature 1"):
        f.filter([good, bad], strict=True)


def test_compiled_expressions_and_geojson_pickle():
    """Expressions pickle as what they were compiled from (JSON with its property spec, or a
    format string with its arguments); GeoJSON handles as their text."""
    import pickle

    feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]},
               "properties": {"mag": 5, "name": "Izzy's"}}
    ramp = mapcore.Expression(["interpolate", ["linear"], ["get", "mag"], 0, "blue", 10, "red"],
                              property_spec={"type": "color"})
    legacy = mapcore.Filter(["==", "$type", "Point"])
    predicate = mapcore.Predicate("mag >= %@ AND name CONTAINS %@", 4, "Izzy")
    formatted = mapcore.Expression.from_format("MGL_MATCH(mag, 5, 'five', 'other')")
    for e in (ramp, legacy, predicate, formatted):
        again = pickle.loads(pickle.dumps(e))
        assert type(again) is type(e) and again.to_json() == e.to_json()
        assert again.evaluate(feature) == e.evaluate(feature)
    assert pickle.loads(pickle.dumps(formatted)).to_format() == formatted.to_format()
    ring3 = {"type": "Polygon", "coordinates": [[[3, 3], [6, 6], [3, 3]]]}
    for g in (mapcore.GeoJSON(feature), mapcore.GeoJSON(ring3, lenient=True)):
        assert pickle.loads(pickle.dumps(g)).to_dict() == g.to_dict()
    assert repr(legacy).startswith("<mapcore.Filter [")
