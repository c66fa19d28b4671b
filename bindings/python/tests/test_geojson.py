"""GeoJSON handles through the Python binding: parsing, errors, round trips, misuse."""
import json
import threading

import pytest

import mapcore
from conftest import DATA


def test_versions():
    assert mapcore.version() == mapcore.__version__
    assert mapcore.geos_version().startswith("3.")
    assert mapcore.abi_version() == 0


def test_parse_forms_agree():
    text = '{"type":"Point","coordinates":[1.5,-2]}'
    for source in (text, text.encode(), json.loads(text)):
        g = mapcore.GeoJSON(source)
        assert g.kind == "Geometry"
        assert g.geometry_type == "Point"
        assert len(g) == 0
        assert g.to_json() == text


def test_fixture_round_trip():
    raw = (DATA / "places.geojson").read_bytes()
    g = mapcore.GeoJSON(raw)
    assert g.kind == "FeatureCollection"
    assert len(g) == 163
    assert json.loads(g.to_json()) == json.loads(raw)
    assert json.loads(g.to_json(pretty=True)) == json.loads(raw)
    assert "\n  " in g.to_json(pretty=True)


def test_properties_keep_exact_integers_and_unicode():
    feature = {"type": "Feature", "id": 2**64 - 1, "geometry": None,
               "properties": {"u": 2**64 - 1, "i": -2**63, "f": 0.1, "s": "é😀\n\"", "n": None,
                              "nested": {"a": [1, [2, [3]]]}}}
    g = mapcore.GeoJSON(feature)
    assert json.loads(g.to_json()) == feature


@pytest.mark.parametrize("text,error,path", [
    ('{"type":"Point","coordinates":[1]}', mapcore.InvalidGeoJSONError, "$.coordinates"),
    ('{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}', mapcore.InvalidGeoJSONError, "$.coordinates[0]"),
    ('{"type":"Pointe","coordinates":[1,2]}', mapcore.InvalidGeoJSONError, "$.type"),
    ('{"type":"Point","coordinates":[NaN,1]}', mapcore.ParseError, "$.coordinates[0]"),
    ('{"type":"Point","coordinates":[1e999,1]}', mapcore.ParseError, "$.coordinates[0]"),
    ('{"type":"Point","coordinates":[1,2,3,4]}', mapcore.UnsupportedError, "$.coordinates"),
    ('{"type":"Point","coordinates":[1,2]', mapcore.ParseError, "$.coordinates"),
])
def test_errors_carry_code_and_location(text, error, path):
    with pytest.raises(error) as info:
        mapcore.GeoJSON(text)
    e = info.value
    assert isinstance(e, mapcore.MapCoreError)
    assert e.code < 0 and e.message
    assert e.path == path
    assert e.line == 1 and e.column >= 1


def test_invalid_utf8_and_nan_from_dicts():
    with pytest.raises(mapcore.ParseError):
        mapcore.GeoJSON(b'{"type":"Feature","geometry":null,"properties":{"a":"\xff"}}')
    with pytest.raises(mapcore.InvalidGeoJSONError):  # NaN is written as null, as JSON.stringify does
        mapcore.GeoJSON({"type": "Point", "coordinates": [float("nan"), 0]})
    with pytest.raises(mapcore.ParseError):
        mapcore.GeoJSON('{"type":"Feature","geometry":null,"properties":{"a":"\\ud800"}}')


def test_deep_nesting_is_a_limit_error():
    deep = '{"type":"Feature","geometry":null,"properties":{"a":' + "[" * 100000 + "]" * 100000 + "}}"
    with pytest.raises(mapcore.LimitError):
        mapcore.GeoJSON(deep)
    ok = '{"type":"Feature","geometry":null,"properties":{"a":' + "[" * 10 + "]" * 10 + "}}"
    assert len(mapcore.GeoJSON(ok, max_depth=12)) == 1
    with pytest.raises(mapcore.LimitError):
        mapcore.GeoJSON(ok, max_depth=11)
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.GeoJSON(ok, max_depth=513)


def test_limits_hold_on_a_small_thread_stack():
    """The worst inputs the limits allow run on a 128 KB thread stack (musl's default)."""
    collections = ('{"type":"GeometryCollection","geometries":[' * 500 + '{"type":"Point","coordinates":[0,0]}'
                   + "]}" * 500)
    values = '{"type":"Feature","geometry":null,"properties":{"a":' + "[" * 510 + "]" * 510 + "}}"
    outcome = {}

    def work():
        try:
            mapcore.GeoJSON(collections, max_depth=512)
        except mapcore.LimitError:
            outcome["collections"] = "limit"
        g = mapcore.GeoJSON(values, max_depth=512)
        outcome["values"] = len(g.to_json())
        g.close()

    old = threading.stack_size(128 * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert outcome == {"collections": "limit", "values": len(values)}


def test_closed_handle_is_misuse_not_a_crash():
    g = mapcore.GeoJSON('{"type":"Point","coordinates":[0,0]}')
    g.close()
    g.close()
    with pytest.raises(mapcore.MisuseError):
        g.to_json()
    with pytest.raises(mapcore.MisuseError):
        mapcore.bbox(g)


def test_wrong_python_type():
    with pytest.raises(TypeError):
        mapcore.GeoJSON(42)


def test_threads_share_one_handle():
    g = mapcore.GeoJSON((DATA / "places.geojson").read_bytes())
    expected = g.to_json()
    results = []

    def work():
        ok = True
        for _ in range(50):
            ok = ok and g.to_json() == expected and mapcore.bbox(g) is not None
        results.append(ok)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4


def test_every_form_python_geodata_comes_in(tmp_path):
    """Wherever GeoJSON is taken: shapely geometries and anything with __geo_interface__, a list
    of features (dicts or geo-interface objects), a pathlib.Path, numpy numbers in properties."""
    import numpy as np
    import shapely.geometry

    square = shapely.geometry.Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert mapcore.GeoJSON(square).to_dict() == {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2],
                                                                                     [0, 0]]]}

    class Row:  # what a GeoPandas row or any geo-interface object offers
        __geo_interface__ = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [5, 6]},
                             "properties": {"n": np.int64(3), "v": np.float64(0.5)}}

    collection = mapcore.GeoJSON([Row(), shapely.geometry.Point(1, 1),
                                  {"type": "Feature", "geometry": None, "properties": {}}])
    features = collection.to_dict()["features"]
    assert [f["geometry"] for f in features] == [{"type": "Point", "coordinates": [5, 6]},
                                                  {"type": "Point", "coordinates": [1, 1]}, None]
    assert features[0]["properties"] == {"n": 3, "v": 0.5}
    path = tmp_path / "one.geojson"
    path.write_text('{"type": "Point", "coordinates": [7, 8]}')
    assert mapcore.GeoJSON(path).to_dict()["coordinates"] == [7, 8]
    # MapCore's own values speak the geo interface back.
    assert shapely.geometry.shape(mapcore.GeoJSON(square)).equals(square)
    assert repr(collection) == "<mapcore.GeoJSON FeatureCollection: 3 features>"
    with pytest.raises(TypeError):
        mapcore.GeoJSON(42)
