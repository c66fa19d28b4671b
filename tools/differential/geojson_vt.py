"""MapCore's GeoJSONVT (geojson-vt compatibility) against geojson-vt itself in node, on random inputs.

usage: python geojson_vt.py GEOJSON_VT_CHECKOUT [--cases N] [--seed S] [--line-metrics P] [--show K]
       (MAPCORE_LIBRARY names the library; --line-metrics: the share of cases with lineMetrics, 0.3)
See README.md."""
import json
import math
import random
import sys
from pathlib import Path

from node import Reference, arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402


def position(r, region):
    cx, cy, span = region
    k = r.random()
    if k < 0.05:  # on a grid: Douglas-Peucker ties
        return [round(cx + r.uniform(-span, span)), round(cy + r.uniform(-span, span))]
    if k < 0.08:  # the antimeridian and beyond
        return [r.choice([-180, 180, 179.99, -179.99, 190, -190, 0, 360, -360, 600, -600, 1000]), r.uniform(-85, 85)]
    if k < 0.10:  # the poles and the projection's edge
        return [r.uniform(-180, 180), r.choice([90, -90, 85.0511287798, -85.0511287798, 89.9, 0])]
    return [cx + r.uniform(-span, span), cy + r.uniform(-span, span)]


def line(r, region):
    points = [position(r, region) for _ in range(r.randint(2, 30))]
    if r.random() < 0.15 and len(points) > 2:  # a repeated vertex
        i = r.randrange(len(points))
        points.insert(i, list(points[i]))
    if r.random() < 0.1:  # a collinear run
        a, b = points[0], points[-1]
        points = [a] + [[a[0] + (b[0] - a[0]) * t / 8, a[1] + (b[1] - a[1]) * t / 8] for t in range(1, 8)] + [b]
    return points


def ring(r, cx, cy, size):
    """A star-shaped ring around (cx, cy), either winding."""
    n = r.randint(3, 40)
    radius = r.uniform(0.001, size)
    points = []
    for i in range(n):
        a = 2 * math.pi * i / n
        d = radius * r.uniform(0.3, 1)
        points.append([cx + d * math.cos(a), max(-89, min(89, cy + d * math.sin(a)))])
    if r.random() < 0.5:
        points.reverse()
    return points + [list(points[0])]


def polygon(r, region):
    cx, cy = position(r, region)
    rings = [ring(r, cx, cy, region[2])]
    for _ in range(r.choice([0, 0, 1, 2])):  # holes, inside or not
        rings.append(ring(r, *position(r, (cx, cy, region[2] / 4)), region[2] / 4))
    return rings


def geometry(r, region, depth=0):
    kinds = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"]
    kind = r.choice(kinds + (["GeometryCollection"] if depth < 2 else []))
    if kind == "Point":
        return {"type": kind, "coordinates": position(r, region)}
    if kind == "MultiPoint":
        return {"type": kind, "coordinates": [position(r, region) for _ in range(r.randint(0, 8))]}
    if kind == "LineString":
        return {"type": kind, "coordinates": line(r, region)}
    if kind == "MultiLineString":
        return {"type": kind, "coordinates": [line(r, region) for _ in range(r.randint(0, 4))]}
    if kind == "Polygon":
        return {"type": kind, "coordinates": polygon(r, region)}
    if kind == "MultiPolygon":
        return {"type": kind, "coordinates": [polygon(r, region) for _ in range(r.randint(0, 3))]}
    return {"type": kind, "geometries": [geometry(r, region, depth + 1) for _ in range(r.randint(0, 4))]}


def properties(r):
    # Integers stay below 2^53: geojson-vt holds numbers as doubles, MapCore keeps larger ones exact.
    values = {"name": lambda: r.choice(["a", "b", "é", "xxxxx", ""]), "n": lambda: r.randint(-5, 5),
              "b": lambda: r.random() < 0.5, "z": lambda: None, "o": lambda: {"k": [1, "2"]},
              "s": lambda: r.uniform(-1e6, 1e6), "big": lambda: 2 ** 50, "neg": lambda: -0.5}
    return {k: values[k]() for k in r.sample(sorted(values), r.randint(0, 5))}


def case(r, line_metrics):
    region = r.choice([(r.uniform(-170, 170), r.uniform(-70, 70), r.choice([0.01, 0.5, 5, 40])),
                       (180, 0, r.choice([1, 20])), (-180, 60, 10), (0, 0, 180)])
    features = []
    for i in range(r.randint(1, 25)):
        f = {"type": "Feature", "properties": properties(r) if r.random() < 0.9 else None,
             "geometry": geometry(r, region) if r.random() < 0.95 else None}
        if r.random() < 0.3:
            f["id"] = r.choice([i, str(i), -i, 1.5, 2 ** 40])
        features.append(f)
    o = {}
    if r.random() < 0.7:
        o["maxZoom"] = r.randint(0, 12)
    if r.random() < 0.7:
        o["indexMaxZoom"] = r.randint(0, 5)
    if r.random() < 0.7:
        o["indexMaxPoints"] = r.choice([0, 1, 10, 50, 1000])
    if r.random() < 0.5:
        o["tolerance"] = r.choice([0, 0.5, 1, 3, 10])
    if r.random() < 0.4:
        o["extent"] = r.choice([512, 4096, 8192, 1000, 64, 1, 3, 7, 65535, 100000])
    if r.random() < 0.4:
        o["buffer"] = r.choice([0, 16, 64, 128, 512, 2048, 1, 5, 65535])
    if r.random() < line_metrics:
        o["lineMetrics"] = True
    k = r.random()
    if k < 0.2:
        o["promoteId"] = r.choice(["n", "name", "s", "o", "missing"])
    elif k < 0.4:
        o["generateId"] = True
    return {"type": "FeatureCollection", "features": features}, o, region


def tile_of(lng, lat, z):
    n = 1 << z
    s = math.sin(math.radians(max(-85, min(85, lat))))
    y = int((0.5 - 0.25 * math.log((1 + s) / (1 - s)) / math.pi) * n)
    return [z, int((max(-180, min(179.999, lng)) + 180) / 360 * n) % n, max(0, min(n - 1, y))]


def requests(r, o, region):
    """Tiles near the data at random zooms (drill-downs from the index), then every tile of the
    first zooms below tiles of the level above (bounded)."""
    out = [tile_of(*position(r, region), r.randint(0, min(o.get("maxZoom", 14) + 1, 14)))
           for _ in range(r.randint(0, 6))]
    sweep = [[0, 0, 0]]
    for z in range(1, min(o.get("maxZoom", 14), r.randint(2, 6)) + 1):
        above = [t for t in sweep if t[0] == z - 1][:64]
        sweep += [[z, 2 * x + dx, 2 * y + dy] for _, x, y in above for dy in (0, 1) for dx in (0, 1)]
    return out + sweep[:400]


def mapcore_tiles(data, o, asked):
    index = mapcore.GeoJSONVT(
        json.dumps(data), max_zoom=o.get("maxZoom"), index_max_zoom=o.get("indexMaxZoom"),
        index_max_points=o.get("indexMaxPoints"), tolerance=o.get("tolerance"), extent=o.get("extent"),
        buffer=o.get("buffer"), line_metrics=o.get("lineMetrics"), promote_id=o.get("promoteId"),
        generate_id=o.get("generateId"))
    return [None if t is None else t["features"] for t in (index.get_tile(z, x, y) for z, x, y in asked)]


def show(asked, js, ours):
    k = next(i for i in range(len(asked)) if js[i] != ours[i])
    print(f"  tile {asked[k]}")
    a, b = js[k], ours[k]
    if a is None or b is None or len(a) != len(b):
        print(f"    geojson-vt {json.dumps(a)[:300]}\n    MapCore    {json.dumps(b)[:300]}")
        return
    for fa, fb in zip(a, b):
        for key in sorted(set(fa) | set(fb)):
            if fa.get(key) != fb.get(key):
                print(f"    {key}: geojson-vt {json.dumps(fa.get(key))[:300]}\n"
                      f"    {key}: MapCore    {json.dumps(fb.get(key))[:300]}")
                return


def main():
    checkout, o = arguments(__doc__, {"--cases": 100, "--seed": 1, "--show": 3, "--line-metrics": 0.3})
    cases, seed, shown, line_metrics = o["--cases"], o["--seed"], o["--show"], o["--line-metrics"]
    reference = Reference.node("serve_geojson_vt.mjs", checkout)
    passed = failed = throws = 0
    for c in range(cases):
        r = random.Random(seed * 100003 + c)
        data, o, region = case(r, line_metrics)
        asked = requests(r, o, region)
        js = reference.ask({"data": data, "options": o, "requests": asked})
        if "error" in js:  # geojson-vt reads a promoteId from a feature's null properties
            throws += 1
            continue
        ours = mapcore_tiles(data, o, asked)
        if js["tiles"] == ours:
            passed += 1
            continue
        failed += 1
        if shown > 0:
            shown -= 1
            print(f"case {c} (seed {seed}), options {o}: "
                  f"{sum(a != b for a, b in zip(js['tiles'], ours))} of {len(asked)} tiles differ")
            show(asked, js["tiles"], ours)
    print(f"{passed} passed, {failed} failed ({throws} cases where geojson-vt throws, not compared)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
