"""Convex hull and bounding box of 1,000,000 random points from a flat buffer, beside shapely
(GEOS) and numpy on the same points. Building shapely's geometry is excluded from its time.
usage: python3 bench/bench_geometry.py [N]   (run `make bench` for all benchmarks)"""
import ctypes
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402
from mapcore._lib import check, lib  # noqa: E402
from mapcore.geometry import _BBox  # noqa: E402


def best_of(runs, fn):
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = np.random.default_rng(12345)
    xy = np.column_stack([rng.uniform(-180, 180, n), rng.uniform(-85, 85, n)])
    ptr = xy.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    hull_out = (ctypes.c_double * (2 * (n + 1)))()
    count = ctypes.c_size_t()
    box, found = _BBox(), ctypes.c_int()

    rows = []
    rows.append(("convex hull", "mapcore mc_convex_hull_positions",
                 best_of(10, lambda: check(lib.mc_convex_hull_positions(ptr, n, hull_out, n + 1,
                                                                        ctypes.byref(count))))))
    try:
        import shapely
        points = shapely.multipoints(xy)
        rows.append(("convex hull", "shapely convex_hull (GEOS)", best_of(5, lambda: points.convex_hull)))
        expected = points.convex_hull
        got = mapcore.convex_hull(xy)
        same = shapely.geometry.shape(got).normalize().equals_exact(expected.normalize(), 0)
    except ImportError:
        same = None
    rows.append(("bounding box", "mapcore mc_bbox_of_positions",
                 best_of(20, lambda: check(lib.mc_bbox_of_positions(ptr, n, ctypes.byref(box), ctypes.byref(found))))))
    rows.append(("bounding box", "numpy min/max over columns", best_of(20, lambda: (xy.min(axis=0), xy.max(axis=0)))))
    # shapely's `bounds` is left out: it reads an envelope GEOS caches when building the geometry.

    print(f"{n:,} random points (lon in ±180, lat in ±85), flat float64 buffer; best of runs")
    print(f"{'task':14} {'implementation':36} {'ms':>9}")
    for task, name, t in rows:
        print(f"{task:14} {name:36} {t * 1e3:9.2f}")
    if same is not None:
        print(f"hull identical to shapely's: {same}; vertices: {count.value - 1}")


if __name__ == "__main__":
    main()
