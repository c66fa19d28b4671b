"""What a cluster feature dict costs to make in CPython, however it is made, against what
pysupercluster's C++ pays for each of its flat dicts, in the same run.

usage: python3 bench/bench_cluster_dicts.py [N]      (default 1,000,000)

A first getClusters sweep of MapCore's Python binding makes every cluster as a GeoJSON feature
(a dict, its properties dict, its geometry dict and a coordinates list); pysupercluster makes one
flat dict an item. This prints the time for N cluster features made four ways (the binding's
Python function, the same dicts inline in one comprehension, orjson.loads of their text, the
package's C extension when it is built, as getClusters makes them) and
pysupercluster's time per dict over zooms 0-16 of N random points. The cycle collector is off
while timing, as the binding pauses it for large answers. Needs numpy, orjson and pysupercluster
(bench_cluster.py installs them).
"""
import ctypes
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))


def timed(fn):
    gc.collect()
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main():
    import numpy as np
    import orjson
    import pysupercluster
    import mapcore
    from mapcore.cluster import _abbreviated, _cluster_dict

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ids = [i * 32 + 17 for i in range(n)]
    lngs = [-120.5 + i * 1e-4 for i in range(n)]
    lats = [40.25 + i * 1e-5 for i in range(n)]
    counts = [2 + i % 5000 for i in range(n)]
    gc.disable()
    try:
        t_binding, out = timed(lambda: list(map(_cluster_dict, ids, lngs, lats, counts)))
        text = orjson.dumps(out)
        out = None

        def inline():
            abbreviated = [c if c < 1000 else _abbreviated(c) for c in counts]
            return [{"type": "Feature", "id": c,
                     "properties": {"cluster": True, "cluster_id": c, "point_count": k,
                                    "point_count_abbreviated": a},
                     "geometry": {"type": "Point", "coordinates": [x, y]}}
                    for c, x, y, k, a in zip(ids, lngs, lats, counts, abbreviated)]
        t_inline, out = timed(inline)
        out = None
        t_orjson, out = timed(lambda: orjson.loads(text))
        out = None
        t_ext = float("nan")
        if mapcore._lib.dicts is not None:  # the package's C extension (mapcore/_dicts.c)
            items = (mapcore.ClusterItem * n)(*map(mapcore.ClusterItem, ids, lngs, lats, counts))
            t_ext, out = timed(lambda: mapcore._lib.dicts.assemble(ctypes.addressof(items), n, [], True, False))
            out = None

        rng = np.random.default_rng(1)
        xy = np.column_stack([rng.uniform(-180, 180, n), rng.uniform(-85, 85, n)])
        index = pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512)
        t_py, made = timed(lambda: sum(
            len(index.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=z)) for z in range(17)))
    finally:
        gc.enable()
    print(f"{n:,} cluster features: the binding's function {t_binding:.3f} s ({t_binding / n * 1e6:.2f} us "
          f"each), inline in one comprehension {t_inline:.3f} s ({t_inline / n * 1e6:.2f} us), orjson.loads of "
          f"their text {t_orjson:.3f} s ({t_orjson / n * 1e6:.2f} us), the C extension {t_ext:.3f} s "
          f"({t_ext / n * 1e6:.2f} us)")
    print(f"pysupercluster getClusters z0-16 over {n:,} random points: {made:,} flat dicts in {t_py:.3f} s "
          f"({t_py / made * 1e6:.2f} us each)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
