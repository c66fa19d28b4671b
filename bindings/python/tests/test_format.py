"""NSPredicate/NSExpression format strings through ctypes: the MapLibre darwin pairs, the SDK
documents' examples, format strings wherever expressions go, builders, and malformed input."""
import json
from pathlib import Path

import pytest

import mapcore
from mapcore import builders

ROOT = Path(__file__).resolve().parents[3]
PAIRS_FILE = ROOT / "Tests" / "conformance" / "format-string-pairs.jsonl"
PAIRS = [json.loads(line) for line in PAIRS_FILE.read_text().splitlines() if line.strip()]
KIND = {"predicate": mapcore.format.PREDICATE, "expression": mapcore.format.EXPRESSION}


def feature(properties, geometry=None):
    return {"type": "Feature", "geometry": geometry or {"type": "Point", "coordinates": [-84.5, 39.1]},
            "properties": properties}


@pytest.mark.parametrize("record", [r for r in PAIRS
                                    if r["direction"] in ("format-to-json", "both") and not r.get("error")],
                         ids=lambda r: r["format"])
def test_pairs_convert_to_the_sdk_json(record):
    assert mapcore.format_to_json(record["format"], kind=KIND[record["kind"]]) == record["json"]


@pytest.mark.parametrize("record", [r for r in PAIRS if r.get("error")], ids=lambda r: r["format"])
def test_error_records_fail(record):
    with pytest.raises(mapcore.MapCoreError):
        mapcore.format_to_json(record["format"], kind=KIND[record["kind"]])


def test_documented_predicates():
    izzys = feature({"class": "food_and_drink", "name": "Izzy's", "temperature": 64})
    cincinnati = {"type": "Polygon", "coordinates": [[[-85, 39], [-84, 39], [-84, 40], [-85, 40], [-85, 39]]]}
    deli = mapcore.Predicate("class = 'food_and_drink' AND name CONTAINS 'Izzy' AND SELF IN %@", cincinnati)
    assert deli.matches(izzys)
    outside = {"type": "Point", "coordinates": [2, 48]}
    assert not deli.matches(feature({"class": "food_and_drink", "name": "Izzy's"}, outside))
    assert not mapcore.Predicate("temperature != nil && temperature >= 100").matches(izzys)
    assert mapcore.Predicate("%K == 'US-OH'", "ISO 3166-1:2006").matches(feature({"ISO 3166-1:2006": "US-OH"}))
    point_type = mapcore.Predicate('%@ == "Point"', mapcore.Expression.from_format("$geometryType"))
    assert point_type.matches(izzys)
    assert not point_type.matches(feature({}, {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}))
    assert mapcore.Predicate("'QUEBEC' =[c] 'Quebec'").matches(izzys)
    assert mapcore.Predicate("'Québec' =[d] 'Quebec'").matches(izzys)
    assert not mapcore.Predicate("'Québec' = 'Quebec'").matches(izzys)
    assert mapcore.Predicate("key BETWEEN { 32, 212 }").matches(feature({"key": 32}))
    assert mapcore.Predicate("key IN { 'iOS', 'macOS', 'tvOS', 'watchOS' }").matches(feature({"key": "iOS"}))
    assert mapcore.Predicate("ANY haystack = needle").matches(feature({"haystack": [1, 2], "needle": 2}))
    assert not mapcore.Predicate("ALL haystack != needle").matches(feature({"haystack": [1, 2], "needle": 2}))
    # No automatic type casting: the string "5" is not the number 5; CAST converts.
    assert not mapcore.Predicate("x == 5").matches(feature({"x": "5"}))
    assert mapcore.Predicate("CAST(x, 'NSNumber') == 5").matches(feature({"x": "5"}))


@pytest.mark.parametrize("format, args, props, expected", [
    ("MGL_LET('floorCount', 2, $floorCount + 1)", (), {}, 3),
    ("MGL_MATCH(x, 0, 'zero match', 1, 'one match', 2, 'two match', 'default')", (), {"x": 2}, "two match"),
    ("MGL_IF(1 = 2, YES, 2 = 2, YES, NO)", (), {}, True),
    ("mgl_join({'Old', 'MacDonald'})", (), {}, "OldMacDonald"),
    ("FUNCTION('Old', 'stringByAppendingString:', 'MacDonald')", (), {}, "OldMacDonald"),
    ("CAST(mag, 'NSString')", (), {"mag": 4.5}, "4.5"),
    ("sum({1, 2, 2, 3, 4, 7, 9})", (), {}, 28),
    ("2 ** 2", (), {}, 4),
    ("modulus:by:(1, 2)", (), {}, 1),
    ("trunc(6378.1370)", (), {}, 6378),
    ("uppercase('Elysian Fields')", (), {}, "ELYSIAN FIELDS"),
    ("length('Wapakoneta')", (), {}, 10),
    ("noindex(0 + 2 + c)", (), {"c": 1}, 3),
    ("mgl_step:from:stops:(x, 'low', %@)", ({"10": "mid", "20": "high"},), {"x": 15}, "mid"),
])
def test_documented_expressions(format, args, props, expected):
    assert mapcore.Expression.from_format(format, *args).evaluate(feature(props)) == expected


def test_zoom_stops_with_a_property_spec():
    ramp = mapcore.Expression.from_format(
        "mgl_interpolate:withCurveType:parameters:stops:($zoomLevel, 'linear', nil, %@)",
        {"0": "yellow", "10": "red"}, property_spec={"type": "color"})
    assert ramp.evaluate(zoom=10) == "rgba(255,0,0,1)"
    with pytest.raises(mapcore.ExpressionError):
        mapcore.Expression.from_format("$zoomLevel * 2")  # zoom only as the input of a top-level ramp


def test_format_strings_go_where_expressions_go():
    places = [feature({"name": n, "pop": p}, {"type": "Point", "coordinates": [x, 0]})
              for n, p, x in [("a", 10, 0.0), ("b", 2000, 0.001), ("c", 30, 0.002), ("d", 5000, 50.0)]]
    source = mapcore.DataSource(cluster=True, filter=mapcore.Predicate("pop >= %@", 20),
                                cluster_properties={"total": ["+", mapcore.Expression.from_format("pop")]})
    source.add({"type": "FeatureCollection", "features": places})
    clusters = source.clusters((-180, -85, 180, 85), 0)  # "a" is filtered out before indexing
    totals = sorted(c["properties"].get("total", c["properties"].get("pop")) for c in clusters)
    assert totals == [2030, 5000]
    big = mapcore.Predicate("pop > 1000")
    assert [f["properties"]["name"] for f in big.filter(places)] == ["b", "d"]
    assert big.evaluate_many(places) == [False, True, False, True]
    inside = mapcore.Expression(["case", mapcore.Predicate("pop > 1000"), "big", "small"])
    assert inside.evaluate(places[0]) == "small"


def test_to_json_and_to_format_round_trip():
    p = mapcore.Predicate("a == 'b' AND NOT x IN {1, 2}")
    assert p.to_json() == ["all", ["==", ["get", "a"], "b"], ["!", ["in", ["get", "x"], ["literal", [1, 2]]]]]
    assert p.to_format() == "a == 'b' AND NOT x IN {1, 2}"
    empty = {"type": "Polygon", "coordinates": []}
    f = mapcore.Filter(["all", ["==", ["get", "ISO 3166-1:2006"], "US-OH"], ["within", empty]])
    text = f.to_format()
    assert text == "%K == 'US-OH' AND SELF IN %@"
    assert text.args == ("ISO 3166-1:2006", {"type": "Polygon", "coordinates": []})
    assert mapcore.Predicate(text, *text.args).to_json() == f.to_json()
    ramp = mapcore.Expression(["interpolate", ["exponential", 2], ["zoom"], 0, 1, 10, ["get", "x"]])
    back = ramp.to_format()
    assert back == "mgl_interpolate:withCurveType:parameters:stops:($zoomLevel, 'exponential', 2, %@)"
    assert mapcore.Expression.from_format(back, *back.args).to_json() == [
        "interpolate", ["exponential", 2], ["zoom"], 0, 1, 10, ["get", "x"]]


def test_builders_compile_and_evaluate():
    f = feature({"kind": "b", "x": 5, "name": None, "alt": "fallback"})
    assert mapcore.Expression(builders.conditional(mapcore.Predicate("x > 3"), "big", "small")).evaluate(f) == "big"
    assert mapcore.Expression(builders.match(["get", "kind"], {("a", "b"): 1, "c": 2}, 0)).evaluate(f) == 1
    assert mapcore.Expression(builders.coalesce(["get", "name"], ["get", "alt"])).evaluate(f) == "fallback"
    assert mapcore.Expression(builders.join("x = ", ["to-string", ["get", "x"]])).evaluate(f) == "x = 5"
    lin = builders.interpolate(["get", "x"], {0: 0, 10: 100})
    assert mapcore.Expression(lin).evaluate(f) == 50
    exp = builders.interpolate(["get", "x"], {0: 0, 10: 100}, curve="exponential", base=2)
    assert mapcore.Expression(exp).evaluate(f) == pytest.approx(100 * (2 ** 5 - 1) / (2 ** 10 - 1))
    bez = builders.interpolate(["get", "x"], {0: 0, 10: 100}, curve="cubic-bezier", control_points=(0, 0, 1, 1))
    assert mapcore.Expression(bez).evaluate(f) == pytest.approx(50, abs=1e-6)
    assert mapcore.Expression(builders.step(["get", "x"], "low", {3: "mid", 8: "high"})).evaluate(f) == "mid"
    assert builders.json_object(["get", "x"]).evaluate(f) == 5
    with pytest.raises(ValueError):
        builders.interpolate(["get", "x"], {0: 0}, curve="cubic-bezier")


@pytest.mark.parametrize("format, args, error, offset, words", [
    ("name == 'Izzy", (), mapcore.ParseError, 8, "Unterminated string"),
    ("(a == 1", (), mapcore.ParseError, 7, "Expected ')'"),
    ("frobnicate(x) == 1", (), mapcore.ParseError, 0, "Unknown function 'frobnicate'"),
    ("a == %@", (), mapcore.InvalidArgumentError, 5, "placeholders"),
    ("a == %@", (1, 2), mapcore.InvalidArgumentError, 7, "2 arguments"),
    ("a LIKE 'x*'", (), mapcore.UnsupportedError, 2, "LIKE"),
    ("a =[n] 'x'", (), mapcore.UnsupportedError, 3, "[n]"),
    ("ANY a =[c] 'x'", (), mapcore.UnsupportedError, 6, "ANY"),
    ("(" * 100_000 + "a == 1" + ")" * 100_000, (), mapcore.LimitError, 32, "Nesting"),
])
def test_malformed_input_reports_the_position(format, args, error, offset, words):
    with pytest.raises(error) as info:
        mapcore.Predicate(format, *args)
    assert info.value.offset == offset
    assert words in info.value.message


def test_non_utf8_format_strings_are_refused():
    with pytest.raises(mapcore.ParseError) as info:
        mapcore.format_to_json(b"name == '\xc3\x28'")
    assert info.value.offset == 9 and "UTF-8" in info.value.message
