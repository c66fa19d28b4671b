"""A/B benchmark of two MapCore builds' clustering (a refactor must not change speed or results).

usage: python3 bench/ab_cluster.py LIB_A LIB_B [N] [ROUNDS]
       (e.g. the release libmapcore.so of main and of a branch; N default 1,000,000, ROUNDS 5)

Each round runs both libraries in fresh child processes, alternating which goes first, on the
same N seeded random points (bench/gen_points.py): an index build from bare points
(`load_points`) and getClusters over the world at zooms 0-16 (flat records). It prints each
round, the medians and B/A, and pysupercluster's build in the same run when it is installed.
The two libraries must give the same items at every zoom (a digest of ids and positions).
"""
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = r"""
import hashlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import mapcore
xy = np.load(sys.argv[2])
t = time.perf_counter()
index = mapcore.Supercluster().load_points(xy)
build = time.perf_counter() - t
world = (-180, -85, 180, 85)
digest = hashlib.sha256()
t = time.perf_counter()
counts = [len(index.get_clusters_flat(world, z)) for z in range(17)]
query = time.perf_counter() - t
for z in range(17):
    for item in index.get_clusters_flat(world, z):
        digest.update(f"{item.id} {item.lng:.9f} {item.lat:.9f} {item.point_count};".encode())
print(json.dumps({"build": build, "query": query, "items": sum(counts), "digest": digest.hexdigest()}))
"""
PEER = r"""
import json, sys, time
import numpy as np
import pysupercluster
xy = np.load(sys.argv[1])
t = time.perf_counter()
pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512)
print(json.dumps({"build": time.perf_counter() - t}))
"""


def points(n):
    import numpy as np
    sys.path.insert(0, str(HERE))
    from gen_points import generate
    geojson = HERE / "data" / f"points-{n}.geojson"
    array = HERE / "data" / f"points-{n}.npy"
    if not array.exists():
        if not geojson.exists():
            geojson.parent.mkdir(parents=True, exist_ok=True)
            generate(n, geojson)
        features = json.loads(geojson.read_bytes())["features"]
        np.save(array, np.array([f["geometry"]["coordinates"] for f in features], dtype=np.float64))
    return array


def child(lib, arg, program=CHILD):
    """`program`'s JSON answer, run in a fresh process on library `lib` with argument `arg` (also
    the A/B of tiles, bench/ab_tiles.py)."""
    env = {"MAPCORE_LIBRARY": str(Path(lib).resolve()), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", program, str(HERE.parent / "bindings" / "python"), str(arg)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib_a, lib_b = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    array = points(n)
    with open("/proc/loadavg") as f:
        print(f"{n:,} random points, {rounds} rounds; load average before: {f.read().split()[:3]}")
    runs = {"A": [], "B": []}
    for r in range(rounds):
        order = ("A", "B") if r % 2 == 0 else ("B", "A")
        for name in order:
            runs[name].append(child(lib_a if name == "A" else lib_b, array))
        a, b = runs["A"][-1], runs["B"][-1]
        print(f"round {r + 1}: build A {a['build']:.3f} s  B {b['build']:.3f} s   "
              f"getClusters z0-16 A {a['query']:.3f} s  B {b['query']:.3f} s")
    digests = {run["digest"] for run in runs["A"] + runs["B"]}
    print("same items at every zoom:", "yes" if len(digests) == 1 else f"NO ({len(digests)} digests)")
    for what in ("build", "query"):
        ma = statistics.median(run[what] for run in runs["A"])
        mb = statistics.median(run[what] for run in runs["B"])
        print(f"median {what:5}: A {ma:.3f} s  B {mb:.3f} s  B/A {mb / ma:.2f}")
    try:
        peer = subprocess.run([sys.executable, "-c", PEER, str(array)], capture_output=True, text=True, check=True)
        print(f"pysupercluster build (same run): {json.loads(peer.stdout)['build']:.3f} s")
    except subprocess.CalledProcessError:
        print("pysupercluster not installed: no peer figure")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
