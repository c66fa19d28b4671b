"""MapCore's Supercluster against supercluster itself in node, on random inputs.

usage: python supercluster.py SUPERCLUSTER_CHECKOUT [--cases N] [--seed S] [--show K]
       (MAPCORE_LIBRARY names the library; kdbush in the checkout's node_modules) See README.md."""
import json
import math
import random
import sys
from pathlib import Path

from node import Reference, arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402


def case(r):
    n = r.choice([10, 100, 1000, 5000])
    centres = [(r.uniform(-180, 180), r.uniform(-80, 80)) for _ in range(r.randint(1, 8))]
    points = []
    for i in range(n):
        cx, cy = r.choice(centres)
        spread = r.choice([0.01, 1, 10])
        lng, lat = max(-180, min(180, cx + r.gauss(0, spread))), max(-85, min(85, cy + r.gauss(0, spread)))
        points.append({"type": "Feature", "properties": {"i": i},
                       "geometry": {"type": "Point", "coordinates": [lng, lat]}})
    o = {}
    if r.random() < 0.5:
        o["radius"] = r.choice([10, 40, 80, 200])
    if r.random() < 0.3:
        o["extent"] = r.choice([256, 512, 4096])
    if r.random() < 0.3:
        o["maxZoom"] = r.randint(0, 18)
    if r.random() < 0.2:
        o["minZoom"] = min(r.randint(0, 3), o.get("maxZoom", 16))
    if r.random() < 0.3:
        o["minPoints"] = r.randint(2, 6)
    if r.random() < 0.2:
        o["nodeSize"] = r.choice([4, 16, 64])
    queries = [[[-180, -85, 180, 85], z] for z in range(0, 18, 2)]
    for _ in range(5):
        w, s = r.uniform(-180, 170), r.uniform(-85, 75)
        queries.append([[w, s, w + r.uniform(0.1, 60), s + r.uniform(0.1, 30)], r.randint(0, 16)])
    tiles = []
    for _ in range(8):
        z = r.randint(0, 12)
        lng, lat = r.choice(points)["geometry"]["coordinates"]
        k = 1 << z
        s = math.sin(math.radians(lat))
        y = max(0, min(k - 1, int((0.5 - 0.25 * math.log((1 + s) / (1 - s)) / math.pi) * k)))
        tiles.append([z, int((lng + 180) / 360 * k) % k, y])
    return points, o, queries, tiles, r.choice([1, 10, 1000, math.inf]), r.choice([0, 0, 3, 50])


def main():
    checkout, o = arguments(__doc__, {"--cases": 50, "--seed": 1, "--show": 3})
    cases, seed, shown = o["--cases"], o["--seed"], o["--show"]
    reference = Reference.node("serve_supercluster.mjs", checkout)
    passed = failed = drilled = 0
    for c in range(cases):
        r = random.Random(seed * 7919 + c)
        points, o, queries, tiles, limit, offset = case(r)
        js = reference.ask({"options": o, "points": points, "queries": queries, "tiles": tiles,
                            "limit": "Infinity" if limit == math.inf else limit, "offset": offset})
        index = mapcore.Supercluster(radius=o.get("radius"), extent=o.get("extent"), max_zoom=o.get("maxZoom"),
                                     min_zoom=o.get("minZoom"), min_points=o.get("minPoints"),
                                     node_size=o.get("nodeSize"))
        index.load(points)
        clusters = [index.get_clusters(bbox, z) for bbox, z in queries]
        made = [index.get_tile(z, x, y) for z, x, y in tiles]
        ours = [None if t is None else t["features"] for t in made]
        drill = [{"id": d["id"], "children": index.get_children(d["id"]),
                  "leaves": index.get_leaves(d["id"], limit, offset),
                  "expansionZoom": index.get_cluster_expansion_zoom(d["id"])} for d in js.get("drill", [])]
        drilled += len(drill)
        if "error" not in js and js["clusters"] == clusters and js["tiles"] == ours and js["drill"] == drill:
            passed += 1
            continue
        failed += 1
        if shown > 0:
            shown -= 1
            print(f"case {c} (seed {seed}), options {o}:")
            if "error" in js:
                print(f"  supercluster throws: {js['error']}")
                continue
            for q, (a, b) in enumerate(zip(js["clusters"], clusters)):
                if a != b:
                    d = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), None)
                    print(f"  getClusters{tuple(queries[q])}: {len(a)} and {len(b)} items"
                          + ("" if d is None else f"; item {d}:\n    supercluster {json.dumps(a[d])[:300]}\n"
                                                  f"    MapCore      {json.dumps(b[d])[:300]}"))
                    break
            else:
                for a, b in zip(js["drill"], drill):
                    for key in ("children", "leaves", "expansionZoom"):
                        if a[key] != b[key]:
                            print(f"  cluster {a['id']}'s {key}:\n    supercluster {json.dumps(a[key])[:400]}\n"
                                  f"    MapCore      {json.dumps(b[key])[:400]}")
                            break
                    else:
                        continue
                    break
                else:
                    print("  tiles differ")
    print(f"{passed} passed, {failed} failed ({drilled} clusters' children, leaves and expansion zoom compared)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
