"""MapCore's MVT decoder (decode_mvt) against vector-tile-js 1.3 in node, on random tiles.

usage: python vector_tile.py DIRECTORY [--cases N] [--seed S] [--show K]
       (DIRECTORY's node_modules hold @mapbox/vector-tile, point-geometry, pbf and ieee754;
       MAPCORE_LIBRARY names the library) See README.md.
Tiles: MapCore's own (GeoJSONVT over geojson_vt.py's random data, random tiles and layer names)
and mapbox-vector-tile's (PyPI; points, lines, polygons with holes, typed properties, ids). Each
is read in tile coordinates (types, ids, properties) and as longitude/latitude for its z/x/y
(toGeoJSON: whole features)."""
import base64
import json
import random
import sys
from pathlib import Path

import mapbox_vector_tile

import geojson_vt
from node import Reference, arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402

TYPES = {"Point": 1, "MultiPoint": 1, "LineString": 2, "MultiLineString": 2, "Polygon": 3, "MultiPolygon": 3}


def ours_tiles(r):
    data, o, region = geojson_vt.case(r, 0.2)
    index = mapcore.GeoJSONVT(json.dumps(data), max_zoom=o.get("maxZoom"), extent=o.get("extent"),
                              buffer=o.get("buffer"), generate_id=o.get("generateId"))
    out = []
    for z, x, y in geojson_vt.requests(r, o, region)[:20]:
        tile = index.get_tile_mvt(z, x, y, layer=r.choice(["a", "geojson", "é"]))
        if tile:
            out.append((tile, z, x, y))
    return out


def peer_tile(r):
    features = []
    for _ in range(r.randint(1, 10)):
        k = r.random()
        if k < 0.3:
            wkt = "POINT(%d %d)" % (r.randint(-100, 4200), r.randint(-100, 4200))
        elif k < 0.6:
            wkt = "LINESTRING(" + ",".join("%d %d" % (r.randint(0, 4096), r.randint(0, 4096))
                                           for _ in range(r.randint(2, 8))) + ")"
        else:
            cx, cy, s = r.randint(500, 3500), r.randint(500, 3500), r.randint(10, 400)
            rings = [[(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s), (cx - s, cy - s)]]
            if r.random() < 0.5:
                h = s // 2
                rings.append([(cx - h, cy - h), (cx - h, cy + h), (cx + h, cy + h), (cx + h, cy - h), (cx - h, cy - h)])
            wkt = "POLYGON(" + ",".join("(" + ",".join("%d %d" % p for p in ring) + ")" for ring in rings) + ")"
        f = {"geometry": wkt, "properties": {"n": r.randint(-3, 3), "s": r.choice(["a", "b"]),
                                             "f": r.choice([0.5, 1.25, -2.0]), "t": r.random() < 0.5}}
        if r.random() < 0.5:
            f["id"] = r.randint(0, 100)
        features.append(f)
    tile = mapbox_vector_tile.encode([{"name": "l", "features": features}], default_options={"y_coord_down": True})
    z = r.randint(0, 10)
    return [(tile, z, r.randrange(1 << z), r.randrange(1 << z))]


def differences(js, ours, lng_lat):
    """The first difference between vector-tile-js's layers and decode_mvt's, or None."""
    for name, layer in js["layers"].items():
        if name not in ours:
            return f"layer {name!r} missing"
        features = ours[name]["features"]["features"]
        if lng_lat:
            a, b = layer["features"], features
        else:
            a = [(f["type"], f.get("id"), f["properties"]) for f in layer["features"]]
            b = [(TYPES.get(f["geometry"]["type"] if f["geometry"] else None, 0), f.get("id"), f["properties"])
                 for f in features]
        if len(a) != len(b):
            return f"layer {name!r}: {len(a)} and {len(b)} features"
        for fa, fb in zip(a, b):
            if fa != fb:
                return (f"layer {name!r}:\n    vector-tile-js {json.dumps(fa)[:300]}\n"
                        f"    MapCore        {json.dumps(fb)[:300]}")
    return None


def main():
    directory, o = arguments(__doc__, {"--cases": 100, "--seed": 1, "--show": 3})
    reference = Reference.node("serve_vector_tile.mjs", directory)
    passed = failed = 0
    shown = o["--show"]
    for c in range(o["--cases"]):
        r = random.Random(o["--seed"] * 1000 + c)
        problems = []
        for tile, z, x, y in (ours_tiles(r) if r.random() < 0.6 else peer_tile(r)):
            for lng_lat in (False, True):
                js = reference.ask({"tile": base64.b64encode(tile).decode(), "z": z if lng_lat else None,
                                    "x": x, "y": y})
                ours = mapcore.decode_mvt(tile, z, x, y) if lng_lat else mapcore.decode_mvt(tile)
                problem = js.get("error") or differences(js, ours, lng_lat)
                if problem:
                    problems.append(f"tile {z}/{x}/{y}{' as longitude/latitude' if lng_lat else ''}: {problem}")
        if not problems:
            passed += 1
            continue
        failed += 1
        if shown > 0:
            shown -= 1
            print(f"case {c} (seed {o['--seed']}): {problems[0]}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
