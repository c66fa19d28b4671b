"""A clustered DataSource in maplibre-native compatibility against supercluster.hpp 0.5.0 (what
MapLibre Native vendors), built from its headers, on random clumped points.

usage: python supercluster_cpp.py HEADERS_DIR [--cases N] [--seed S] [--show K]
       (HEADERS_DIR holds the checkouts supercluster.hpp, kdbush.hpp, geometry.hpp, variant and
       geojson-cpp, as README.md clones them; MAPCORE_LIBRARY names the library)
See README.md. supercluster-cpp gets the options MapLibre Native derives from the source's
(source.h): extent 8192, radius = the integer clusterRadius * 16, maxZoom = clusterMaxZoom."""
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from geojson_vt import tile_of
from node import Reference, arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402


def server(headers):
    """supercluster-cpp's answering process, compiled into a temporary directory."""
    out = Path(tempfile.mkdtemp()) / "serve_supercluster_cpp"
    includes = [f"-I{Path(headers) / name / 'include'}"
                for name in ("supercluster.hpp", "kdbush.hpp", "geometry.hpp", "variant", "geojson-cpp")]
    subprocess.run(["g++", "-O2", "-std=c++14", *includes,
                    str(Path(__file__).resolve().parent / "serve_supercluster_cpp.cpp"), "-o", str(out)], check=True)
    return Reference([str(out)])


def properties(r, i):
    kinds = [lambda: {"i": i}, lambda: {}, lambda: None, lambda: {"name": r.choice(["a", "é", ""]), "n": -i},
             lambda: {"f": r.uniform(-1e3, 1e3), "b": r.random() < 0.5, "z": None, "o": {"k": [1, "2"]}}]
    p = r.choice(kinds)()
    if p is not None and r.random() < 0.95:  # what the sum aggregates, mostly numbers
        k = r.random()
        p["v"] = r.randint(-5, 5) if k < 0.6 else r.uniform(-1, 1) if k < 0.995 else r.choice(["x", None])
    return p


def case(r):
    """Points clumped round a few centres (duplicates, the antimeridian and the poles' edge among
    them), the source's options, and the tiles to ask for."""
    n = r.choice([10, 100, 1000, 5000])
    centres = [(r.uniform(-180, 180), r.uniform(-80, 80)) for _ in range(r.randint(1, 8))]
    centres += r.choice([[], [(180, 0), (-180, 0)], [(0, 85.05)]])
    features = []
    for i in range(n):
        cx, cy = r.choice(centres)
        spread = r.choice([0, 0.0001, 0.01, 1, 10])
        lng, lat = max(-180, min(180, cx + r.gauss(0, spread))), max(-85, min(85, cy + r.gauss(0, spread)))
        f = {"type": "Feature", "properties": properties(r, i),
             "geometry": {"type": "Point", "coordinates": [lng, lat]}}
        if r.random() < 0.3:
            f["id"] = r.choice([i, str(i), 2 ** 40 + i])
        features.append(f)
    # Radii below 1,536 px (from there supercluster-cpp's int16 tile points wrap, and MapCore writes
    # them as they are) and at least 2 points (from 1 it reads a cluster's id as an input index).
    source = {"cluster_radius": r.choice([0.5, 1, 1.7, 10, 30.9, 50, 80, 120, 255, 500, 1535]),
              "cluster_max_zoom": r.randint(0, 23), "cluster_min_points": r.choice([2, 2, 3, 5, 20])}
    if r.random() < 0.4:
        source["cluster_properties"] = {"s": ["+", ["get", "v"]]}
    requests = [[0, 0, 0], [1, 0, 0], [1, 1, 1]]
    for _ in range(r.randint(4, 16)):
        lng, lat = r.choice(features)["geometry"]["coordinates"]
        requests.append(tile_of(lng, lat, r.randint(0, min(source["cluster_max_zoom"] + 2, 18))))
    return {"type": "FeatureCollection", "features": features}, source, requests


def plain(features):
    """Features with null properties as supercluster-cpp writes them (an empty map)."""
    return [dict(f, properties=f.get("properties") or {}) for f in features]


def ours(data, source, asked, clusters, pages):
    """MapCore's tiles, and the children, leaves and expansion zoom of `clusters` (the
    reference's), from a clustered DataSource over `data`."""
    ds = mapcore.DataSource(cluster=True, tile_compatibility="maplibre-native", **source)
    ds.add(data)
    tiles = [[] if t is None else [dict(f, tags=f["tags"] or {}) for f in t["features"]]
             for t in (ds.tile(z, x, y) for z, x, y in asked)]
    drill = []
    for k, d in enumerate(clusters):
        limit, offset = pages[k % len(pages)]
        drill.append({"id": d["id"], "children": plain(ds.children(d["id"])),
                      "leaves": plain(ds.leaves(d["id"], limit=limit, offset=offset)),
                      "expansionZoom": ds.expansion_zoom(d["id"])})
    return tiles, drill


def main():
    headers, o = arguments(__doc__, {"--cases": 50, "--seed": 1, "--show": 3})
    cases, seed, shown = o["--cases"], o["--seed"], o["--show"]
    reference = server(headers)
    passed = failed = drilled = 0
    for c in range(cases):
        r = random.Random(seed * 7919 + c)
        data, source, asked = case(r)
        pages = [[r.choice([1, 10, 1000]), r.choice([0, 0, 3, 50])] for _ in range(4)]
        options = {"radius": int(source["cluster_radius"]) * 16, "extent": 8192, "minZoom": 0,
                   "maxZoom": source["cluster_max_zoom"], "minPoints": source["cluster_min_points"]}
        if "cluster_properties" in source:
            options["sum"] = ["s", "v"]
        cpp = reference.ask({"data": data, "requests": asked, "clusters": 6, "leaves": pages, "options": options})
        if "error" in cpp:
            sys.exit(f"case {c}: supercluster-cpp: {cpp['error']}")
        try:
            tiles, drill = ours(data, source, asked, cpp["clusters"], pages)
        except mapcore.MapCoreError as e:
            tiles, drill = None, str(e)
        drilled += len(cpp["clusters"])
        if cpp["tiles"] == tiles and cpp["clusters"] == drill:
            passed += 1
            continue
        failed += 1
        if shown > 0:
            shown -= 1
            print(f"case {c} (seed {seed}), {len(data['features'])} points, options {source}:")
            if tiles is None:
                print(f"  MapCore raised: {drill}")
                continue
            for t, (a, b) in enumerate(zip(cpp["tiles"], tiles)):
                if a != b:
                    print(f"  tile {asked[t]}: {len(a)} and {len(b)} features\n"
                          f"    supercluster-cpp {json.dumps(a)[:400]}\n    MapCore          {json.dumps(b)[:400]}")
                    break
            else:
                for a, b in zip(cpp["clusters"], drill):
                    key = next((k for k in ("children", "leaves", "expansionZoom") if a[k] != b[k]), None)
                    if key:
                        print(f"  cluster {a['id']}'s {key}:\n    supercluster-cpp {json.dumps(a[key])[:400]}\n"
                              f"    MapCore          {json.dumps(b[key])[:400]}")
                        break
    print(f"{passed} passed, {failed} failed ({drilled} clusters' children, leaves and expansion zoom compared)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
