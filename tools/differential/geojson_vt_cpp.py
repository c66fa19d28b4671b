"""MapCore's GeoJSONVT in maplibre-native compatibility against geojson-vt-cpp 6.6.5 (what MapLibre
Native vendors), built from its headers, on geojson_vt.py's random inputs.

usage: python geojson_vt_cpp.py HEADERS_DIR [--cases N] [--seed S] [--line-metrics P] [--show K] [--source 1]
       (HEADERS_DIR holds the checkouts geojson-vt-cpp, geometry.hpp, variant and geojson-cpp, as
       README.md clones them; MAPCORE_LIBRARY names the library; --source 1: an unclustered
       DataSource's tiles instead, geojson-vt-cpp given the options MapLibre Native derives)
See README.md. A case that differs only as tile.h documents is counted apart from failures:
rings wound as the feature's first ring says (geojson-vt-cpp keeps the input's winding), and a
GeometryCollection's points that geojson-vt-cpp writes past its int16 tile coordinates."""
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from geojson_vt import case, requests
from node import Reference, arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bindings" / "python"))
import mapcore  # noqa: E402


def server(headers):
    """geojson-vt-cpp's answering process, compiled into a temporary directory."""
    out = Path(tempfile.mkdtemp()) / "serve_geojson_vt_cpp"
    includes = [f"-I{Path(headers) / name / 'include'}"
                for name in ("geojson-vt-cpp", "geometry.hpp", "variant", "geojson-cpp")]
    subprocess.run(["g++", "-O2", "-std=c++14", *includes,
                    str(Path(__file__).resolve().parent / "serve_geojson_vt_cpp.cpp"), "-o", str(out)], check=True)
    return Reference([str(out)])


def source_tiles(data, source, asked):
    """An unclustered DataSource's tiles (maplibre-native compatibility, its default)."""
    ds = mapcore.DataSource(**source)
    ds.add(data)
    return [[] if t is None else [dict(f, tags=f["tags"] or {}) for f in t["features"]]
            for t in (ds.tile(z, x, y) for z, x, y in asked)]


def derived(r, o):
    """Random source options, and the geojson-vt-cpp options MapLibre Native derives from them
    (source.h): tiles 8192 wide, the buffer and tolerance of 512-pixel tiles times 16."""
    source = {"max_zoom": o["maxZoom"], "buffer": r.choice([0, 16, 64, 128, 200, 512]),
              "tolerance": r.choice([0, 0.375, 1, 3.3]), "line_metrics": bool(o.get("lineMetrics"))}
    return source, {"maxZoom": o["maxZoom"], "extent": 8192, "buffer": round(source["buffer"] * 16),
                    "tolerance": source["tolerance"] * 16, "lineMetrics": source["line_metrics"]}


def mapcore_tiles(data, o, asked):
    index = mapcore.GeoJSONVT(
        json.dumps(data), max_zoom=o["maxZoom"], index_max_zoom=o.get("indexMaxZoom"),
        index_max_points=o.get("indexMaxPoints"), tolerance=o.get("tolerance"), extent=o.get("extent"),
        buffer=o.get("buffer"), line_metrics=o.get("lineMetrics"), generate_id=o.get("generateId"),
        compatibility="maplibre-native")
    # A missing tile and null tags (geojson-vt JS's forms) as geojson-vt-cpp writes them: an empty
    # tile, an empty map (an MVT holds neither).
    return [[] if t is None else [dict(f, tags=f["tags"] or {}) for f in t["features"]]
            for t in (index.get_tile(z, x, y) for z, x, y in asked)]


def wound_alike(tiles):
    """The tiles with every ring of a polygon feature in one orientation of its own choosing."""
    def ring(points):
        return min(points, points[::-1])
    return [[dict(f, geometry=[ring(g) for g in f["geometry"]]) if f["type"] == 3 else f for f in t] for t in tiles]


def collection_points(data):
    """The indexes of the features that are GeometryCollections holding Points (at any depth;
    geojson-vt-cpp cuts a MultiPoint member as any MultiPoint)."""
    def holds_points(g):
        if not g:
            return False
        if g["type"] == "GeometryCollection":
            return any(holds_points(m) or m and m["type"] == "Point" for m in g["geometries"])
        return False
    return {i for i, f in enumerate(data["features"]) if holds_points(f["geometry"])}


def far_points_only(a, b, features):
    """Whether geojson-vt-cpp's tile `a` differs from MapCore's `b` only in single points of
    `features` (by their "_f" tag) that geojson-vt-cpp writes and MapCore does not: `b` is `a`
    without some of those (a far copy's point can wrap around int16 onto a near one's)."""
    j = 0
    for f in a:
        if j < len(b) and f == b[j]:
            j += 1
        elif f["type"] != 1 or len(f["geometry"]) != 1 or f["tags"].get("_f") not in features:
            return False
    return j == len(b)


def show(asked, cpp, ours, explained):
    k = next(i for i in range(len(asked)) if not explained(cpp[i], ours[i]))
    a, b = cpp[k], ours[k]
    print(f"  tile {asked[k]}: {len(a)} features in geojson-vt-cpp's, {len(b)} in MapCore's")
    for side, these, those in (("geojson-vt-cpp", a, b), ("MapCore       ", b, a)):
        for f in these:
            if these.count(f) > those.count(f):
                print(f"    {these.count(f)} in {side}'s, {those.count(f)} in the other: "
                      f"{json.dumps(f, sort_keys=True)[:400]}")


def main():
    headers, o = arguments(__doc__, {"--cases": 100, "--seed": 1, "--show": 3, "--line-metrics": 0.3, "--source": 0})
    cases, seed, shown, line_metrics = o["--cases"], o["--seed"], o["--show"], o["--line-metrics"]
    through_source = o["--source"] == 1
    reference = server(headers)
    passed = failed = winding = far = wide = 0
    for c in range(cases):
        r = random.Random(seed * 100003 + c)
        data, o, region = case(r, line_metrics)
        o.pop("promoteId", None)  # MapLibre Native promotes ids when it renders, not in geojson-vt-cpp
        o["maxZoom"] = o.get("maxZoom", 14)  # the two defaults differ (18 in geojson-vt-cpp)
        if through_source:
            source, o = derived(r, o)
        if o.get("extent", 4096) + o.get("buffer", 64) > 32767:
            wide += 1  # tile coordinates past geojson-vt-cpp's int16, where its casts are undefined
            continue
        # geojson-cpp 0.4.3 refuses a null geometry (MapLibre Native's newer one reads it as empty).
        data["features"] = [f for f in data["features"] if f["geometry"] is not None]
        # Each feature tagged with its index, so that a tile feature names the feature it came from.
        # Null properties are kept but where the tag is needed: on collections of points.
        points = collection_points(data)
        for i, f in enumerate(data["features"]):
            if f["properties"] is not None or i in points:
                f["properties"] = dict(f["properties"] or {}, _f=i)
        asked = [t for t in requests(r, o, region) if t[0] <= o["maxZoom"]]  # geojson-vt-cpp throws past it
        cpp = reference.ask({"data": data, "options": o, "requests": asked})
        if "error" in cpp:
            sys.exit(f"case {c}: geojson-vt-cpp: {cpp['error']}")
        ours = source_tiles(data, source, asked) if through_source else mapcore_tiles(data, o, asked)
        cpp = cpp["tiles"]
        if cpp == ours:
            passed += 1
            continue
        cpp, ours = wound_alike(cpp), wound_alike(ours)
        if cpp == ours:
            winding += 1
            continue
        def explained(a, b):
            return far_points_only(a, b, points)
        if all(explained(a, b) for a, b in zip(cpp, ours)):
            far += 1
            continue
        failed += 1
        if shown > 0:
            shown -= 1
            print(f"case {c} (seed {seed}), options {o}: "
                  f"{sum(a != b for a, b in zip(cpp, ours))} of {len(asked)} tiles differ")
            show(asked, cpp, ours, explained)
    print(f"{passed} passed, {failed} failed (apart: {winding} cases differing only in rings' winding, "
          f"{far} also in collections' points; {wide} cases with an extent and buffer past int16 not compared)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
