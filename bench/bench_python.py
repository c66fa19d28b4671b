"""Python paths in and out of clustering: feature dicts (orjson and json), numpy, pyarrow/GeoArrow and
GeoPandas inputs; dict, numpy and Arrow results; pysupercluster (C++ supercluster with dict results)
measured in the same run. Supercluster defaults (radius 40, extent 512, zooms 0-16).

usage: python3 bench/bench_python.py [N] [REPEATS] [load]     (default 1,000,000 seeded random points, 3;
       `load`: the load rows only)

Prints the median of REPEATS runs per row (rows marked [1 run] run once) and the load average before and after.
"""
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
sys.path.insert(0, str(HERE))

from bench_cluster import ensure_peers  # noqa: E402

ensure_peers()  # pysupercluster (numpy, shapely, GeoPandas and pyarrow come with make test's packages)

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import geopandas  # noqa: E402
import shapely  # noqa: E402
import pysupercluster  # noqa: E402

import mapcore  # noqa: E402
from mapcore import cluster as cluster_module, geojson as geojson_module  # noqa: E402
from mapcore._lib import lib, take_bytes  # noqa: E402

WORLD = (-180, -85, 180, 85)


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"load average before: {os.getloadavg()[0]:.2f}; {n:,} points, median of {repeats}")
    rng = random.Random(1)
    xy = np.array([(rng.uniform(-180, 180), rng.uniform(-85, 85)) for _ in range(n)])
    features = [{"type": "Feature", "properties": {"i": i, "name": f"p{i}"},
                 "geometry": {"type": "Point", "coordinates": [float(x), float(y)]}} for i, (x, y) in enumerate(xy)]
    arrow = pa.FixedSizeListArray.from_arrays(pa.array(xy.reshape(-1)), 2)
    series = geopandas.GeoSeries(shapely.points(xy))

    def row(name, seconds, peer=None):
        ratio = f"   {seconds / peer:5.2f}x pysupercluster" if peer else ""
        print(f"{name:46s} {seconds:8.3f} s{ratio}")

    print("-- load")
    t_peer = median_seconds(lambda: pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512),
                            repeats)
    t_peer_build = t_peer
    row("pysupercluster (numpy, bare points)", t_peer)
    # load(list) gives the library coordinates first and the GeoJSON at the first get_tile.
    row("load(list of feature dicts)", median_seconds(lambda: mapcore.Supercluster().load(features), repeats),
        t_peer)
    row("  the same, then get_tile (GeoJSON via orjson)",
        median_seconds(lambda: mapcore.Supercluster().load(features).get_tile(0, 0, 0), repeats), t_peer)
    row("load(GeoJSON(list of feature dicts)), orjson",
        median_seconds(lambda: mapcore.Supercluster().load(mapcore.GeoJSON(features)), repeats), t_peer)
    orjson_dumps = geojson_module._dumps
    geojson_module._dumps = geojson_module._dumps_json
    try:
        row("load(GeoJSON(list of feature dicts)), json",
            median_seconds(lambda: mapcore.Supercluster().load(mapcore.GeoJSON(features)), 1), t_peer)
    finally:
        geojson_module._dumps = orjson_dumps
    row("load_points(numpy)", median_seconds(lambda: mapcore.Supercluster().load_points(xy), repeats), t_peer)
    row("load(GeoArrow point array)", median_seconds(lambda: mapcore.Supercluster().load(arrow), repeats), t_peer)
    row("load(GeoSeries of Points)", median_seconds(lambda: mapcore.Supercluster().load(series), repeats), t_peer)
    if "load" in sys.argv[3:]:
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return

    print("-- getClusters over the world, zooms 0-16, summed")
    index = mapcore.Supercluster().load(features)
    peer = pysupercluster.SuperCluster(xy, min_zoom=0, max_zoom=16, radius=40, extent=512)
    zooms = range(17)
    t_peer = median_seconds(lambda: [peer.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=z)
                                     for z in zooms], repeats)
    count = sum(len(peer.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=z)) for z in zooms)
    row(f"pysupercluster dicts ({count:,} items)", t_peer)
    row("get_clusters_numpy", median_seconds(lambda: [index.get_clusters_numpy(WORLD, z) for z in zooms], repeats),
        t_peer)
    row("get_clusters_arrow", median_seconds(lambda: [index.get_clusters_arrow(WORLD, z) for z in zooms], repeats),
        t_peer)
    # Dict rows run once (each takes seconds to minutes). After load(list) points come back as the
    # input dicts (no new dict for 92% of the items here). After load(GeoJSON) each point's feature
    # is fetched from the library the first time a result holds it and kept (the second sweep makes
    # only the cluster dicts); the row before it is the way every dict was made before, through the
    # library's GeoJSON text of each whole answer. The DataSource clusters as GL JS does (radius
    # 50 x 16 of 8192) and builds its index in its first query.
    row("dicts after load(list of dicts) [1 run]",
        median_seconds(lambda: [index.get_clusters(WORLD, z) for z in zooms], 1), t_peer)
    from_text = mapcore.Supercluster().load(mapcore.GeoJSON(features))
    box = cluster_module._bbox(WORLD)

    def through_text(z):
        return cluster_module._features(take_bytes(
            lambda buf: lib.mc_cluster_index_get_clusters(from_text._handle, box, float(z), 0, buf)))
    row("dicts through whole GeoJSON texts [1 run]",
        median_seconds(lambda: [through_text(z) for z in zooms], 1), t_peer)
    row("dicts after load(GeoJSON), 1st sweep [1 run]",
        median_seconds(lambda: [from_text.get_clusters(WORLD, z) for z in zooms], 1), t_peer)
    row("dicts after load(GeoJSON), 2nd sweep [1 run]",
        median_seconds(lambda: [from_text.get_clusters(WORLD, z) for z in zooms], 1), t_peer)
    source = mapcore.DataSource(cluster=True)
    source.add(mapcore.GeoJSON(features))
    t_source = median_seconds(lambda: [source.clusters(WORLD, z) for z in zooms], 1)
    row("DataSource.clusters dicts, build + 1st [1 run]", t_source, t_peer)
    row("  the same against pysupercluster's build + dicts", t_source, t_peer_build + t_peer)
    row("DataSource.clusters dicts, 2nd sweep [1 run]",
        median_seconds(lambda: [source.clusters(WORLD, z) for z in zooms], 1), t_peer)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
