"""A/B benchmark of two MapCore builds' tiles (a change to tiling or MVT must not change the bytes).

usage: python3 bench/ab_tiles.py [--compatibility=NAME] [--clustered] [--depth=Z] [--json] LIB_A LIB_B [ROUNDS]
           [FILE ...]
       (e.g. the release libmapcore.so of main and of a branch; ROUNDS default 2; FILEs default the
       1M random points, cities500 and the 100k random polygons of bench/data, which bench_cluster.py
       and bench_tiles.py make; NAME the index's compatibility option, default geojson-vt's;
       --clustered: a clustered DataSource's tiles instead, in its default compatibility; Z the
       deepest zoom asked for, default 8; --json: geojson-vt's tile object as the library's JSON text, read
       with no Python parse, instead of MVT)

Each round runs both libraries in fresh child processes, alternating which goes first. A child
builds a geojson-vt index with its defaults (or the data source, whose build is timed with its
first z0 tile, which builds its cluster index), asks for every tile of zooms
0-Z that has data as MVT (the first request of a tile makes and encodes it), then for every one
again (encoding only; a clustered source makes its tiles again too), then for the z0 tile once
more. It prints each round, the medians and B/A per file. The two libraries
must write the same bytes for every tile (a digest of all of them); the script fails otherwise.
"""
import statistics
import sys
from pathlib import Path

from ab_cluster import child

HERE = Path(__file__).resolve().parent
CHILD = r"""
import gc, hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import mapcore
doc = mapcore.GeoJSON(open(sys.argv[2], "rb").read())
t = time.perf_counter()
if CLUSTERED:
    source = mapcore.DataSource(cluster=True)
    source.add(doc)
    source.tile_mvt(0, 0, 0)  # the cluster index is built on the first request
    get = source.tile_mvt
else:
    index = mapcore.GeoJSONVT(doc, compatibility=COMPATIBILITY)
    get = index.get_tile_mvt
build = time.perf_counter() - t
if JSON_TEXT:
    from mapcore._lib import lib, take_bytes
    handle, call = ((source._handle, lib.mc_source_get_tile) if CLUSTERED
                    else (index._handle, lib.mc_tile_index_get_tile))

    def get(z, x, y):
        text = take_bytes(lambda buf: call(handle, z, x, y, 0, buf))
        return None if text == b"null" else text
gc.disable()
digest = hashlib.sha256()
coords, frontier = [], [(0, 0, 0)]
t = time.perf_counter()
while frontier:
    z, x, y = frontier.pop()
    tile = get(z, x, y)
    if tile is None:
        continue
    coords.append((z, x, y))
    digest.update(f"{z}/{x}/{y}:".encode() + tile)
    if z < DEPTH:
        frontier += [(z + 1, 2 * x + dx, 2 * y + dy) for dx in (0, 1) for dy in (0, 1)]
first = time.perf_counter() - t
t = time.perf_counter()
size = sum(len(get(*c) or b"") for c in coords)
again = time.perf_counter() - t
t = time.perf_counter()
get(0, 0, 0)
z0 = time.perf_counter() - t
print(json.dumps({"build": build, "first": first, "again": again, "z0": z0, "tiles": len(coords),
                  "bytes": size, "digest": digest.hexdigest()}))
"""
FIGURES = [("first", "z0-Z made and encoded"), ("again", "the same, encoding only"), ("z0", "z0 tile, encoding only"),
           ("build", "index build")]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    options = dict(a[2:].partition("=")[::2] for a in sys.argv[1:] if a.startswith("--"))
    if (set(options) - {"compatibility", "clustered", "depth", "json"} or options.get("clustered", "") != ""
            or options.get("json", "") != ""
            or not options.get("depth", "8").isdigit() or ("clustered" in options and "compatibility" in options)):
        sys.exit(__doc__)
    compatibility = options.get("compatibility")
    depth = int(options.get("depth", "8"))
    if "clustered" in options:
        FIGURES[1] = ("again", "the same, made again")  # a clustered source keeps no tile
    FIGURES[0] = ("first", f"z0-{depth} made and encoded")
    if "json" in options:
        again = "made and written again" if "clustered" in options else "written again"
        FIGURES[:3] = [("first", f"z0-{depth} made and written"), ("again", f"the same, {again}"),
                       ("z0", "z0 tile, written again")]
    program = (CHILD.replace("COMPATIBILITY", repr(compatibility)).replace("CLUSTERED", repr("clustered" in options))
               .replace("DEPTH", str(depth)).replace("JSON_TEXT", repr("json" in options)))
    if len(args) < 2:
        sys.exit(__doc__)
    lib_a, lib_b = args[0], args[1]
    rounds = int(args[2]) if len(args) > 2 else 2
    files = [Path(f) for f in args[3:]] or [
        HERE / "data" / name for name in ("points-1000000.geojson", "cities500.geojson", "polygons-100000x50.geojson")]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        sys.exit(f"missing {', '.join(missing)}: run bench_cluster.py and bench_tiles.py once to make them")
    with open("/proc/loadavg") as f:
        what = "clustered source" if "clustered" in options else f"compatibility {compatibility or 'geojson-vt'}"
        what += ", JSON text" if "json" in options else ", MVT"
        print(f"{rounds} rounds, {what}, z0-{depth}; "
              f"load average before: {f.read().split()[:3]}")
    same = True
    for path in files:
        runs = {"A": [], "B": []}
        for r in range(rounds):
            for name in (("A", "B") if r % 2 == 0 else ("B", "A")):
                runs[name].append(child(lib_a if name == "A" else lib_b, path, program))
            a, b = runs["A"][-1], runs["B"][-1]
            print(f"{path.name} round {r + 1}: " + "   ".join(
                f"{label} A {a[key]:.3f} s B {b[key]:.3f} s" for key, label in FIGURES[:3]))
        digests = {run["digest"] for run in runs["A"] + runs["B"]}
        same = same and len(digests) == 1
        first = runs["A"][0]
        print(f"{path.name}: {first['tiles']:,} tiles, {first['bytes'] / 1e6:.1f} MB of "
              f"{'JSON' if 'json' in options else 'MVT'}; same bytes: "
              + ("yes" if len(digests) == 1 else f"NO ({len(digests)} digests)"))
        for key, label in FIGURES:
            ma = statistics.median(run[key] for run in runs["A"])
            mb = statistics.median(run[key] for run in runs["B"])
            print(f"  median {label:26}: A {ma:.3f} s  B {mb:.3f} s  B/A {mb / ma:.2f}")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
