"""The defaults documented in the C headers are the effective ones, through the C ABI (ctypes
calls with NULL options), the Python classes (no keyword given) and the CLI (no flag given).
The documented values are read from the header comments, so changing a default in the library
without changing its documentation (or the reverse) fails here."""
import ctypes
import json
import re
import subprocess
from pathlib import Path

import mapcore
from mapcore._lib import lib, take_text

ROOT = Path(__file__).resolve().parents[3]
PLACES = ROOT / "Tests" / "fixtures" / "supercluster" / "places.json"
CLI = ROOT / ".build" / "release" / "mapcore-cli"


def documented_defaults(header, function):
    """{option: default} from the `option default meaning` table in the comment before `function`."""
    text = (ROOT / "include" / "mapcore" / header).read_text()
    comment = text[:text.index(function + "(")]
    comment = comment[comment.rindex("/*"):]
    table = comment[comment.index("option             default  meaning"):]
    out = {}
    for line in table.splitlines()[1:]:
        if re.match(r"^ \* {20,}\S", line):
            continue  # a meaning's continuation line
        m = re.match(r"^ \*   ([A-Za-z]+) +(\S+)  +\S", line)
        if not m:
            break
        out[m.group(1)] = json.loads(m.group(2))
    assert out, f"no defaults table before {function} in {header}"
    return out


def test_cluster_index_defaults_table_is_complete():
    documented = documented_defaults("cluster.h", "mc_cluster_index_new")
    assert documented == {"radius": 40, "extent": 512, "minZoom": 0, "maxZoom": 16, "minPoints": 2,
                          "nodeSize": 64, "generateId": False, "clusterProperties": None}


def _index_results(index):
    return [index.stats()] + [index.get_clusters((-180, -85, 180, 85), z) for z in range(0, 18)]


def test_cluster_index_defaults_are_effective():
    """An index given nothing behaves exactly as one given every documented default: through the
    C ABI with NULL options, and through Python with no keyword."""
    documented = documented_defaults("cluster.h", "mc_cluster_index_new")
    explicit = {k: v for k, v in documented.items() if v is not None}
    data = json.loads(PLACES.read_text())
    handle = ctypes.c_void_p()
    assert lib.mc_cluster_index_new(None, 0, ctypes.byref(handle)) == mapcore._lib.MC_OK
    from_c = mapcore.Supercluster._adopt(handle).load(data)
    from_python = mapcore.Supercluster().load(data)
    as_documented = mapcore.Supercluster(radius=explicit["radius"], extent=explicit["extent"],
                                         min_zoom=explicit["minZoom"], max_zoom=explicit["maxZoom"],
                                         min_points=explicit["minPoints"], node_size=explicit["nodeSize"],
                                         generate_id=explicit["generateId"]).load(data)
    expected = _index_results(as_documented)
    assert _index_results(from_c) == expected
    assert _index_results(from_python) == expected
    # A different radius really changes the results, so the comparison above can fail.
    assert _index_results(mapcore.Supercluster(radius=explicit["radius"] + 20).load(data)) != expected


def test_source_defaults_are_effective():
    documented = documented_defaults("source.h", "mc_source_new")
    expected = dict(documented)
    # Documented as null: MapLibre Native's 17 in the default compatibility, GL JS's maxZoom - 1 in the other.
    expected["clusterMaxZoom"] = 17
    handle = ctypes.c_void_p()
    assert lib.mc_source_new(None, 0, ctypes.byref(handle)) == mapcore._lib.MC_OK
    try:
        from_c = json.loads(take_text(lambda buf: lib.mc_source_get_options(handle, buf)))
    finally:
        lib.mc_source_free(handle)
    assert from_c == expected
    assert mapcore.DataSource().options == expected
    assert mapcore.DataSource(max_zoom=12).options["clusterMaxZoom"] == 17
    assert mapcore.DataSource(max_zoom=12, tile_compatibility="geojson-vt").options["clusterMaxZoom"] == 11


def test_cli_defaults_are_the_documented_ones():
    documented = documented_defaults("cluster.h", "mc_cluster_index_new")
    bare = subprocess.run([CLI, "cluster", PLACES, "--stats"], capture_output=True, text=True, check=True)
    flags = ["--radius", str(documented["radius"]), "--extent", str(documented["extent"]),
             "--min-zoom", str(documented["minZoom"]), "--max-zoom", str(documented["maxZoom"]),
             "--min-points", str(documented["minPoints"])]
    explicit = subprocess.run([CLI, "cluster", PLACES, "--stats", *flags], capture_output=True, text=True,
                              check=True)
    strip_timing = lambda text: text.split("\n", 1)[1]  # noqa: E731 (the first line is a timing)
    assert strip_timing(bare.stdout) == strip_timing(explicit.stdout)
    help_text = subprocess.run([CLI, "cluster", "--help"], capture_output=True, text=True, check=True).stdout
    help_text = " ".join(help_text.split())
    for option, flag in (("radius", "--radius"), ("extent", "--extent"), ("minZoom", "--min-zoom"),
                         ("maxZoom", "--max-zoom"), ("minPoints", "--min-points")):
        assert re.search(re.escape(flag) + r" <[^>]+> .*?\(default: " + str(documented[option]) + r"\)",
                         help_text), f"{flag} does not show the documented default {documented[option]}"


def test_tile_index_defaults_are_effective():
    documented = documented_defaults("tile.h", "mc_tile_index_new")
    point = mapcore.GeoJSON({"type": "Point", "coordinates": [0, 0]})
    handle = ctypes.c_void_p()
    assert lib.mc_tile_index_new(point._handle, None, 0, ctypes.byref(handle)) == mapcore._lib.MC_OK
    try:
        from_c = json.loads(take_text(lambda buf: lib.mc_tile_index_stats(handle, 0, buf)))["options"]
    finally:
        lib.mc_tile_index_free(handle)
    assert from_c == documented
    assert mapcore.GeoJSONVT(point).stats()["options"] == documented


def test_tile_source_defaults_are_effective():
    documented = documented_defaults("tilesource.h", "mc_tile_source_new")
    options = json.dumps({"tiles": ["t/{z}/{x}/{y}"]}).encode()
    handle = ctypes.c_void_p()
    assert lib.mc_tile_source_new(options, len(options), ctypes.byref(handle)) == mapcore._lib.MC_OK
    try:
        from_c = json.loads(take_text(lambda buf: lib.mc_tile_source_info(handle, 0, buf)))["options"]
    finally:
        lib.mc_tile_source_free(handle)
    assert from_c == dict(documented, tiles=["t/{z}/{x}/{y}"])
    assert mapcore.VectorTileSource("t/{z}/{x}/{y}").options == from_c
    assert set(documented) == set(from_c)


def test_tileset_defaults_are_effective(tmp_path):
    documented = documented_defaults("tilesource.h", "mc_tileset_write")
    assert set(documented) == {"minzoom", "maxzoom", "layer", "gzip", "name"}
    source = mapcore.DataSource(max_zoom=3)
    source.add({"type": "Point", "coordinates": [10, 20]})
    bare = take_text(lambda buf: lib.mc_tileset_write(source._handle, str(tmp_path / "a.mbtiles").encode(),
                                                      None, 0, buf))
    explicit = mapcore.write_tiles(source, tmp_path / "b.mbtiles", **{k: v for k, v in documented.items()})
    assert json.loads(bare) == explicit
    assert len(explicit["tilesPerZoom"]) == 4  # maxzoom null: the source's maxZoom, 3
    import sqlite3
    with sqlite3.connect(tmp_path / "a.mbtiles") as db:
        meta = dict(db.execute("SELECT name, value FROM metadata"))
        assert meta["name"] == documented["name"]
        assert json.loads(meta["json"])["vector_layers"][0]["id"] == documented["layer"]
        assert db.execute("SELECT tile_data FROM tiles").fetchone()[0][:2] == b"\x1f\x8b"  # gzip for archives
