"""GeoJSON handles through the Python binding: parsing, errors, round trips, misuse."""
import json
import threading

import pytest

import mapcore
from conftest import DATA, strictly_equal


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


# ---- MessagePack (MC_SERIALIZE_MSGPACK) and the C extension's reader -------------------------

RICH = {"type": "FeatureCollection", "bbox": [-180, -90, 180, 90.5], "features": [
    {"type": "Feature", "id": "a", "geometry": {"type": "Point", "coordinates": [1, 2.5, -3]},
     "properties": {"n": 1, "d": 1.0, "neg": [-1, -32, -33, -128, -129, -32768, -32769, -2**31 - 1, -2**63],
                    "pos": [127, 128, 255, 256, 65535, 65536, 2**32, 2**63 - 1, 2**63, 2**64 - 1],
                    "f": [-0.0, 1e300, 5e-324, 0.1, 123456.789], "s": "x\"y\\z\n", "u": "é東🙂",
                    "long": "L" * 70000, "edge": ["a" * 31, "b" * 32, "c" * 255, "d" * 256, ""],
                    "nested": {"k": [True, False, None, {}], "deep": [[[[1]]]]}},
     "extra": {"q": -0.5}},
    {"type": "Feature", "id": 7.5, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
     "properties": None},
    {"type": "Feature", "id": 12, "geometry": None, "properties": {}},
    # Scalars only: held packed by the library and written from their bytes.
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.0, 1e-7]},
     "properties": {"u": 2**64 - 1, "z": -0.0, "dec": 12.5, "tiny": 0.0000125, "neg": -70000, "big": 1e300,
                    "esc": "a\"b\\c\n\u00e9\u2028", "t": True, "nul": None, "long": "L" * 130}}],
    "foreign": "kept"}


def _unpack(data):
    """The C extension's reader over a copy of `data` (it reads at an address, as the binding
    passes it the library's buffer)."""
    import ctypes
    assert mapcore._lib.dicts is not None, "the C extension is not built: make test builds it"
    room = ctypes.create_string_buffer(bytes(data), len(data) or 1)
    return mapcore._lib.dicts.unpack(ctypes.addressof(room), len(data))


def _only_json_forms(value):
    """Whether a value msgpack read holds only what the extension reads (str keys, no bytes or
    extension types)."""
    if isinstance(value, dict):
        return all(type(k) is str and _only_json_forms(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_only_json_forms, value))
    return value is None or type(value) in (bool, int, float, str)


@pytest.mark.parametrize("source", ["rich", "places"])
def test_msgpack_holds_what_the_text_holds(source):
    """to_msgpack() read by msgpack (PyPI, the reference reader) and by the C extension, and
    to_dict() (which reads MessagePack when the extension is built): the values json.loads
    makes of to_json(), types and key order included."""
    import msgpack
    g = mapcore.GeoJSON(RICH if source == "rich" else (DATA / "places.geojson").read_bytes())
    from_text = json.loads(g.to_json())
    packed = g.to_msgpack()
    strictly_equal(msgpack.unpackb(packed, raw=False, strict_map_key=True), from_text)
    strictly_equal(_unpack(packed), from_text)
    strictly_equal(g.to_dict(), from_text)
    assert packed[0] == 0xDF  # a map 32, as the header says


def test_msgpack_and_pretty_exclude_each_other():
    g = mapcore.GeoJSON(RICH)
    with pytest.raises(mapcore.MapCoreError, match="MSGPACK"):
        mapcore._lib.take_bytes(lambda buf: mapcore._lib.lib.mc_geojson_serialize(g._handle, 3, buf))
    with pytest.raises(mapcore.MapCoreError, match="Unknown serialize flags"):
        mapcore._lib.take_bytes(lambda buf: mapcore._lib.lib.mc_geojson_serialize(g._handle, 4, buf))


def test_to_dict_without_the_extension_is_the_same(monkeypatch):
    g = mapcore.GeoJSON(RICH)
    with_extension = g.to_dict()
    monkeypatch.setattr(mapcore._lib, "dicts", None)
    strictly_equal(g.to_dict(), with_extension)


def test_unpack_refuses_what_it_cannot_read():
    """Truncated at every byte, trailing bytes, types the library never writes, keys that are
    not strings, nesting past the limit, invalid UTF-8, lengths past the end: errors, never a
    crash or a read past the bytes."""
    packed = mapcore.GeoJSON(RICH).to_msgpack()
    for cut in list(range(0, 400)) + list(range(400, len(packed), 997)):
        with pytest.raises(ValueError):
            _unpack(packed[:cut])
    with pytest.raises(ValueError, match="after"):
        _unpack(packed + b"\xc0")
    for marker in (0xC1, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8):
        with pytest.raises(ValueError, match="type"):
            _unpack(bytes([marker, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match="key"):
        _unpack(b"\x81\x01\x02")  # {1: 2}
    with pytest.raises(ValueError, match="key"):
        _unpack(b"\x81\x90\x02")  # {[]: 2}
    assert _unpack(b"\x91" * 1000 + b"\xc0") is not None
    with pytest.raises(ValueError, match="deep"):
        _unpack(b"\x91" * 1001 + b"\xc0")
    with pytest.raises(UnicodeDecodeError):
        _unpack(b"\xa2\xc3\x28")
    with pytest.raises(UnicodeDecodeError):
        _unpack(b"\xd9\x21" + b"a" * 32 + b"\xff")  # past the shared strings' length
    for huge in (b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\xdc\xff\xff\x01"):
        with pytest.raises(ValueError, match="truncated"):
            _unpack(huge)
    with pytest.raises(ValueError):
        mapcore._lib.dicts.unpack(0, 5)
    with pytest.raises(ValueError):
        mapcore._lib.dicts.unpack(0, -1)
    assert _unpack(b"\xca\x3f\xc0\x00\x00") == 1.5  # float 32, which the library never writes
    assert _unpack(b"\xcf" + b"\xff" * 8) == 2**64 - 1 and _unpack(b"\xd3\x80" + b"\x00" * 7) == -2**63


def test_unpack_agrees_with_msgpack_on_mutated_input():
    """Fuzz smoke, seeded: bytes of a real message flipped, cut and repeated. The extension gives
    what msgpack (PyPI) gives where that is a value of the forms it reads, else an error."""
    import random
    import msgpack
    rng = random.Random(21)
    packed = mapcore.GeoJSON({"type": "FeatureCollection", "features": RICH["features"][1:] + [
        {"type": "Feature", "properties": {"a": [1, -2, 3.5, "x"], "b": {"c": None}}, "geometry": None}]}).to_msgpack()
    agreed = refused = 0
    for _ in range(20000):
        data = bytearray(packed)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            kind = rng.random()
            if kind < 0.6:
                data[at] = rng.randrange(256)
            elif kind < 0.8:
                del data[at:at + rng.randint(1, 8)]
            else:
                data[at:at] = data[at:at + rng.randint(1, 8)]
        try:
            ours = _unpack(bytes(data))
        except ValueError:
            # Refused: msgpack refuses it too, or reads forms the library never writes.
            try:
                theirs = msgpack.unpackb(bytes(data), raw=False, strict_map_key=False)
            except (ValueError, TypeError, msgpack.UnpackException):
                refused += 1
                continue
            assert not _only_json_forms(theirs), bytes(data)
            refused += 1
            continue
        theirs = msgpack.unpackb(bytes(data), raw=False, strict_map_key=True)
        strictly_equal(ours, theirs)
        agreed += 1
    assert agreed > 1000 and refused > 1000, (agreed, refused)
