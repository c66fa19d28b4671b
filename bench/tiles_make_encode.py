"""Making a tile against encoding it to MVT, per zoom, over a geojson-vt index's z0-8 drill-down.

usage: python3 bench/tiles_make_encode.py [FILE] [MAXZOOM]
       (FILE default bench/data/points-1000000.geojson, which bench_cluster.py makes: 1M points
       with five properties each; MAXZOOM default 8)

Three passes over every tile of zooms 0..MAXZOOM that has data, each tile asked for from Python:
- T1: the first MVT request of each tile of a fresh index: making, interning the features' ids and
  tags (once per feature, `TileTags`), encoding;
- T2: the same requests on a second fresh index whose tiles a pass of `mc_tile_index_get_tile`
  (geojson-vt's tile as JSON text) made first: interning and encoding;
- E: every tile again: encoding only.
So making = T1 - T2, interning = T2 - E, encoding = E. E is also shown without the cost of a call
from Python (that of a request for an empty tile, measured here), which T1 - T2 does not hold.
Peer, same run: mapbox-vector-tile (PyPI) encoding the same tiles' features (as geojson-vt's tile
dicts) for a sample of the deepest zoom's tiles, per feature, beside MapCore's encoding of them.
"""
import gc
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
import mapcore  # noqa: E402
from mapcore._lib import lib, take_bytes  # noqa: E402


def json_tile(index, z, x, y):
    text = take_bytes(lambda buf: lib.mc_tile_index_get_tile(index._handle, z, x, y, 0, buf))
    return None if text in (b"", b"null") else text


def mvt_tile(index, z, x, y):
    return index.get_tile_mvt(z, x, y)


def drill(index, request, maxzoom):
    """Every tile with data, parents first; the time of each zoom's requests."""
    per = [0.0] * (maxzoom + 1)
    tiles, frontier = [], [(0, 0, 0)]
    while frontier:
        z, x, y = frontier.pop()
        t = time.perf_counter()
        tile = request(index, z, x, y)
        per[z] += time.perf_counter() - t
        if tile is None:
            continue
        tiles.append((z, x, y))
        if z < maxzoom:
            frontier += [(z + 1, 2 * x + dx, 2 * y + dy) for dx in (0, 1) for dy in (0, 1)]
    return per, tiles


def again(index, tiles, maxzoom):
    per = [0.0] * (maxzoom + 1)
    for z, x, y in tiles:
        t = time.perf_counter()
        index.get_tile_mvt(z, x, y)
        per[z] += time.perf_counter() - t
    return per


def call_cost(index):
    """A request's cost from Python: an empty tile (z20 at the antimeridian's north-west corner)."""
    assert index.get_tile_mvt(20, 0, 0) is None, "the z20 corner tile has data: pick another empty tile"
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(20000):
            index.get_tile_mvt(20, 0, 0)
        runs.append((time.perf_counter() - t) / 20000)
    return statistics.median(runs)


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "data" / "points-1000000.geojson"
    maxzoom = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    if not path.exists():
        sys.exit(f"missing {path}: run bench_cluster.py once to make it")
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().split()[:3]}")
    doc = mapcore.GeoJSON(path.read_bytes())
    gc.disable()
    index = mapcore.GeoJSONVT(doc)
    t1, tiles = drill(index, mvt_tile, maxzoom)
    e = again(index, tiles, maxzoom)
    call = call_cost(index)
    del index
    index = mapcore.GeoJSONVT(doc)
    drill(index, json_tile, maxzoom)
    t2 = again(index, tiles, maxzoom)
    counts = [sum(1 for t in tiles if t[0] == z) for z in range(maxzoom + 1)]
    print(f"{path.name}, zooms 0-{maxzoom}, {len(tiles):,} tiles; a call from Python {call * 1e6:.2f} us")
    print("  zoom  tiles     making   interning   encoding (without the calls)")
    for z in range(maxzoom + 1):
        print(f"  z{z:<3} {counts[z]:>6}  {1e3 * (t1[z] - t2[z]):7.0f} ms  {1e3 * (t2[z] - e[z]):7.0f} ms  "
              f"{1e3 * e[z]:7.0f} ms ({1e3 * (e[z] - call * counts[z]):.0f} ms)")
    print(f"  all   {len(tiles):>6}  {1e3 * (sum(t1) - sum(t2)):7.0f} ms  {1e3 * (sum(t2) - sum(e)):7.0f} ms  "
          f"{1e3 * sum(e):7.0f} ms ({1e3 * (sum(e) - call * len(tiles)):.0f} ms)")

    try:
        import mapbox_vector_tile
        import shapely.wkt
    except ImportError:
        print("mapbox-vector-tile or shapely is not installed: no peer row")
        return
    deepest = [t for t in tiles if t[0] == maxzoom]
    sample = random.Random(7).sample(deepest, min(200, len(deepest)))
    dicts = [index.get_tile(*t) for t in sample]
    features = sum(len(d["features"]) for d in dicts)
    # Geometries made before the clock starts (shapely, which mapbox-vector-tile encodes from).
    layers = [[{"geometry": shapely.wkt.loads(tile_geometry(f)), "properties": f.get("tags") or {}, "id": f.get("id")}
               for f in d["features"]] for d in dicts]
    options = {"extents": 4096, "y_coord_down": True}
    t = time.perf_counter()
    for layer in layers:
        mapbox_vector_tile.encode([{"name": "geojson", "features": layer}], default_options=options)
    peer = time.perf_counter() - t
    t = time.perf_counter()
    for z, x, y in sample:
        index.get_tile_mvt(z, x, y)
    ours = time.perf_counter() - t - call * len(sample)
    print(f"peer, {len(sample)} z{maxzoom} tiles ({features:,} features): encoding a feature, MapCore "
          f"{ours / features * 1e9:.0f} ns   mapbox-vector-tile {peer / features * 1e9:.0f} ns (from dicts)")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")


def tile_geometry(feature):
    """geojson-vt's tile feature geometry as the WKT mapbox-vector-tile takes (tile coordinates)."""
    g = feature["geometry"]
    if feature["type"] == 1:
        if len(g) == 1:
            return f"POINT ({g[0][0]} {g[0][1]})"
        return "MULTIPOINT (" + ", ".join(f"{x} {y}" for x, y in g) + ")"
    if feature["type"] == 2:
        return "MULTILINESTRING (" + ", ".join("(" + ", ".join(f"{x} {y}" for x, y in line) + ")" for line in g) + ")"
    return "POLYGON (" + ", ".join("(" + ", ".join(f"{x} {y}" for x, y in ring) + ")" for ring in g) + ")"


if __name__ == "__main__":
    main()
