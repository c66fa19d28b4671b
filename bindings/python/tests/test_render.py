"""MapLibre Native (PyPI mapli) renders MapCore's tiles as it renders its own GeoJSON source.

Each case renders one view twice with the same layers: style A gives MapLibre the GeoJSON itself
(a `geojson` source, which MapLibre Native tiles with geojson-vt-cpp or supercluster inside the
renderer); style B gives it a `vector` source whose tiles MapCore made (`DataSource.tile_mvt`),
served through a custom URL scheme. The images must agree pixel for pixel but for a small
allowance (MAX_DIFFERING). A control case serves wrong tiles and must differ, so the comparison
can fail. Needs EGL (Debian libegl1 libegl-mesa0 libgl1-mesa-dri libgles2); `make test` installs
them.
"""
import itertools
import json
import os
from pathlib import Path

os.environ.setdefault("EGL_PLATFORM", "surfaceless")

import mapli  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mapcore  # noqa: E402
from pngdecode import decode_png  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
US_STATES = json.loads((ROOT / "Tests" / "fixtures" / "geojson-vt" / "us-states.json").read_text())
PLACES = json.loads((ROOT / "Tests" / "fixtures" / "supercluster" / "places.json").read_text())
# Fraction of pixels allowed to differ between the two renders: none.
MAX_DIFFERING = 0.0


def _square(west, south, size):
    return [[west, south], [west + size, south], [west + size, south + size], [west, south + size], [west, south]]


# Polygons with holes (one with two), a polygon and lines across the antimeridian (longitudes
# past 180, which geojson-vt and MapLibre both fold back), and a MultiPolygon spanning it.
MIXED = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"kind": "holed"},
     "geometry": {"type": "Polygon",
                  "coordinates": [_square(0, 0, 20), _square(4, 4, 5)[::-1], _square(12, 10, 6)[::-1]]}},
    {"type": "Feature", "properties": {"kind": "holed"},
     "geometry": {"type": "MultiPolygon", "coordinates": [[_square(30, -10, 15), _square(35, -5, 5)[::-1]],
                                                          [_square(50, -10, 8)]]}},
    {"type": "Feature", "properties": {"kind": "dateline"},
     "geometry": {"type": "Polygon", "coordinates": [[[170, -20], [195, -20], [195, -5], [170, -5], [170, -20]]]}},
    {"type": "Feature", "properties": {"kind": "dateline"},
     "geometry": {"type": "MultiPolygon", "coordinates": [[_square(175, 10, 5)], [_square(-180, 10, 4)]]}},
    {"type": "Feature", "properties": {"kind": "dateline"},
     "geometry": {"type": "LineString", "coordinates": [[160, 30], [185, 35], [200, 25]]}},
    {"type": "Feature", "properties": {"kind": "dateline"},
     "geometry": {"type": "MultiLineString", "coordinates": [[[-170, 40], [-185, 45]], [[150, 50], [210, 52]]]}},
]}

_sources = {}
_ids = itertools.count()


def _serve(request):
    """The `mapcore://<source>/<z>/<x>/<y>` tiles: MapCore's MVT, or no content for an empty tile."""
    name, z, x, y = request.url.split("://", 1)[1].split("/")
    tile = _sources[name].tile_mvt(int(z), int(x), int(y), layer="data")
    return tile if tile else mapli.Response.no_content()


mapli.register_scheme_handler("mapcore", _serve)


@pytest.fixture(scope="module")
def pool():
    return mapli.RenderPool()


def _layers(kind, source_layer=None, antialias=True, paint_of=None):
    extra = {"source-layer": source_layer} if source_layer else {}
    paint = paint_of or {
        "fill": {"fill-color": "#3366cc", "fill-opacity": 0.6, "fill-outline-color": "#112244",
                 "fill-antialias": antialias},
        "line": {"line-color": "#aa0000", "line-width": 1.5},
        "circle": {"circle-color": "#008800", "circle-radius": ["case", ["has", "point_count"],
                                                                ["+", 4, ["/", ["get", "point_count"], 2]], 3]},
    }
    background = {"id": "background", "type": "background", "paint": {"background-color": "#ffffff"}}
    return [background] + [dict({"id": k, "type": k, "source": "s", "paint": paint[k]}, **extra) for k in kind]


def _render_both(pool, data, kinds, bbox, source_options=None, tiles_from=None, size=256, antialias=True,
                 paint_of=None):
    """Renders `data` through MapLibre's GeoJSON source and through MapCore's tiles of a
    DataSource with the same options (or of `tiles_from`); returns both images. `paint_of`: the
    paint of each layer type, instead of _layers' own."""
    source_options = source_options or {}
    geojson_source = {"type": "geojson", "data": data}
    geojson_source.update({k: v for k, v in source_options.items() if k in
                           ("cluster", "clusterRadius", "clusterMaxZoom", "clusterMinPoints", "clusterProperties",
                            "maxzoom", "buffer", "tolerance", "lineMetrics")})
    if tiles_from is None:
        tiles_from = mapcore.DataSource(**_snake(source_options))
        tiles_from.add(data)
    name = f"s{next(_ids)}"
    _sources[name] = tiles_from
    vector_source = {"type": "vector", "tiles": [f"mapcore://{name}/{{z}}/{{x}}/{{y}}"],
                     "maxzoom": source_options.get("maxzoom", 18)}
    images = []
    for style_id, source, source_layer in ((f"{name}-a", geojson_source, None), (f"{name}-b", vector_source, "data")):
        pool.register_style(style_id, json={"version": 8, "sources": {"s": source},
                                            "layers": _layers(kinds, source_layer, antialias, paint_of)})
        images.append(decode_png(pool.render_from_bounds(style_id, bbox=bbox, width=size, height=size)))
    return images


def _snake(options):
    names = {"cluster": "cluster", "clusterRadius": "cluster_radius", "clusterMaxZoom": "cluster_max_zoom",
             "clusterMinPoints": "cluster_min_points", "clusterProperties": "cluster_properties",
             "maxzoom": "max_zoom", "buffer": "buffer", "tolerance": "tolerance", "lineMetrics": "line_metrics"}
    return {names[k]: v for k, v in options.items()}


def _differing(a, b):
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 0).mean())


def _drawn(image):
    """Fraction of pixels that are not the white background (so a blank pair cannot pass)."""
    return float((image[..., :3] < 250).any(axis=2).mean())


VIEWS = {
    "country": (-125, 24, -66, 50),
    "states": (-80, 38, -74, 43),
    "city": (-75.3, 39.8, -75.0, 40.05),
}


@pytest.mark.parametrize("view", VIEWS)
def test_polygons_render_as_maplibre_renders_its_geojson_source(pool, view):
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS[view])
    assert _drawn(a) > 0.05
    assert _differing(a, b) <= MAX_DIFFERING


DEEP_VIEWS = {"chesapeake": (-77.2, 37.0, -75.6, 39.6), **{k: VIEWS[k] for k in ("states", "city")}}


@pytest.mark.parametrize("view", DEEP_VIEWS)
def test_the_source_maxzoom_renders_as_maplibre_renders_it(pool, view):
    """Views deeper than the source's maxzoom (4), drawn from its maxzoom tiles: there
    geojson-vt-cpp keeps only the vertices Douglas-Peucker marked at that zoom's tolerance, where
    geojson-vt JS keeps all (before MapCore followed it there, 0.1-0.4% of these pixels differed)."""
    a, b = _render_both(pool, US_STATES, ("fill", "line"), DEEP_VIEWS[view], source_options={"maxzoom": 4})
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING


THICK_PAINT = {"fill": {"fill-color": "#3366cc", "fill-opacity": 0.6},
               "line": {"line-color": "#aa0000", "line-width": 8, "line-opacity": 0.5}}


@pytest.mark.parametrize("options,view", [({"tolerance": 3}, "country"), ({"tolerance": 3}, "states"),
                                          ({"buffer": 0}, "states"), ({"buffer": 0}, "city"),
                                          ({"buffer": 4}, "city")])
def test_buffer_and_tolerance_render_as_maplibre_renders_them(pool, options, view):
    """A source's tolerance and buffer, in pixels of 512-pixel tiles, reach geojson-vt as MapLibre
    Native passes them (times 16, on tiles 8192 wide): simplified outlines, and thick translucent
    lines cut at tile edges with no or little buffer. Tiles with the default options are the
    control, which must differ."""
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS[view], source_options=options,
                        paint_of=THICK_PAINT)
    assert _drawn(a) > 0.05
    assert _differing(a, b) <= MAX_DIFFERING
    defaults = mapcore.DataSource()
    defaults.add(US_STATES)
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS[view], source_options=options,
                        paint_of=THICK_PAINT, tiles_from=defaults)
    assert _differing(a, b) > MAX_DIFFERING, _differing(a, b)


def _natural_earth():
    """Natural Earth's 1:10m countries, which `make test-deps` puts in MAPCORE_TEST_DATA
    (bench/natural_earth.py)."""
    path = Path(os.environ.get("MAPCORE_TEST_DATA", ROOT / "build" / "data")) / "ne_10m_admin_0_countries.geojson"
    assert path.exists(), f"{path} is missing: make test-deps (or python3 bench/natural_earth.py DIR) makes it"
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def countries():
    """The countries, and data sources of them in both compatibilities (built once for every view)."""
    data = _natural_earth()
    sources = {c: mapcore.DataSource(tile_compatibility=c) for c in ("maplibre-native", "geojson-vt")}
    for source in sources.values():
        source.add(data)
    return data, sources


COUNTRY_VIEWS = {"world": (-180, -80, 180, 80), "europe": (-12, 35, 30, 62), "fiji": (172, -22, 180, -12),
                 "chukotka": (170, 60, 180, 72), "norway": (4, 58, 12, 63), "antarctica": (-180, -85, 180, -60)}


@pytest.mark.parametrize("view", COUNTRY_VIEWS)
def test_natural_earth_renders_as_maplibre_renders_it(pool, countries, view):
    """A real dataset: Natural Earth's 1:10m countries (547,488 positions, holes, countries split at
    the antimeridian, Antarctica to the pole), fills and outlines. geojson-vt JS's tiles (its
    tie-break, rewound rings, MVT version 2) are the control, which must differ."""
    data, sources = countries
    a, b = _render_both(pool, data, ("fill", "line"), COUNTRY_VIEWS[view], tiles_from=sources["maplibre-native"])
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING
    a, b = _render_both(pool, data, ("fill", "line"), COUNTRY_VIEWS[view], tiles_from=sources["geojson-vt"])
    assert _differing(a, b) > MAX_DIFFERING, _differing(a, b)


def _state_outlines():
    features = []
    for f in US_STATES["features"]:
        g = f["geometry"]
        polygons = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        for polygon in polygons:
            features.append({"type": "Feature", "properties": f["properties"],
                             "geometry": {"type": "LineString", "coordinates": polygon[0]}})
    return {"type": "FeatureCollection", "features": features}


@pytest.mark.parametrize("view", VIEWS)
def test_lines_render_as_maplibre_renders_its_geojson_source(pool, view):
    a, b = _render_both(pool, _state_outlines(), ("line",), VIEWS[view])
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING


@pytest.mark.parametrize("bbox", [(-180, -80, 180, 80), (100, -50, 180, 10)])
def test_points_render_as_maplibre_renders_its_geojson_source(pool, bbox):
    a, b = _render_both(pool, PLACES, ("circle",), bbox)
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING


# MapLibre Native's clustered GeoJSON source aborts the process on a feature without geometry
# (supercluster-cpp reads every geometry as a point: mapbox::util::bad_variant_access), and
# places.json has one; MapCore skips it, as supercluster does. The comparison leaves it out.
LOCATED_PLACES = {"type": "FeatureCollection", "features": [f for f in PLACES["features"] if f["geometry"]]}


@pytest.mark.parametrize("bbox", [(-180, -80, 180, 80), (100, -50, 180, 10)])
def test_clusters_render_as_maplibre_renders_its_clustered_source(pool, bbox):
    a, b = _render_both(pool, LOCATED_PLACES, ("circle",), bbox,
                        source_options={"cluster": True, "clusterRadius": 50})
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING


def _crowds():
    """Crowds of 12,000, 1,250 and 999 points (seeded), which cluster into one each."""
    rng = np.random.default_rng(7)
    features = []
    for count, (lng, lat) in ((12000, (10, 10)), (1250, (-40, 20)), (999, (60, -20))):
        for x, y in rng.random((count, 2)):
            features.append({"type": "Feature", "properties": {},
                             "geometry": {"type": "Point", "coordinates": [lng + float(x), lat + float(y)]}})
    return {"type": "FeatureCollection", "features": features}


def test_cluster_abbreviations_render_as_maplibre_renders_them(pool):
    """point_count_abbreviated, which cluster labels show: MapLibre Native's supercluster-cpp
    writes "12.000000k", "1.2k" and "999" (a string) where supercluster JS writes "12k", "1.3k"
    and 999. A style that sizes circles by it draws the same from MapCore's tiles; tiles with
    supercluster JS's abbreviations (geojson-vt compatibility) are the control."""
    crowds = _crowds()
    options = {"cluster": True, "clusterRadius": 50}
    paint = {"circle": {"circle-radius": ["match", ["get", "point_count_abbreviated"],
                                          "12.000000k", 20, "1.2k", 15, "999", 10, "12k", 6, "1.3k", 5, 3]}}
    a, b = _render_both(pool, crowds, ("circle",), (-60, -40, 120, 50), source_options=options, paint_of=paint)
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING
    js = mapcore.DataSource(cluster=True, cluster_radius=50, tile_compatibility="geojson-vt")
    js.add(crowds)
    a, b = _render_both(pool, crowds, ("circle",), (-60, -40, 120, 50), source_options=options, paint_of=paint,
                        tiles_from=js)
    assert _differing(a, b) > MAX_DIFFERING


def _clumps():
    """6,000 points (seeded) about four centres, from 0.02 to 4 degrees across."""
    rng = np.random.default_rng(11)
    centres = ((-73.98, 40.75, 0.02), (2.35, 48.85, 0.3), (139.7, 35.7, 1.5), (-58.4, -34.6, 4.0))
    features = []
    for k, (x, y) in enumerate(rng.normal(0, 1, (6000, 2))):
        lng, lat, spread = centres[k % 4]
        features.append({"type": "Feature", "properties": {},
                         "geometry": {"type": "Point", "coordinates": [lng + spread * float(x),
                                                                       lat + spread * float(y)]}})
    return {"type": "FeatureCollection", "features": features}


CLUMP_VIEWS = {
    "world": (-170, -60, 170, 70),
    "region": (132, 30, 146, 41),
    "city": (-74.02, 40.72, -73.94, 40.78),
}


@pytest.mark.parametrize("view", CLUMP_VIEWS)
def test_cluster_ids_and_order_render_as_maplibre_renders_them(pool, view):
    """Clusters drawn by their cluster_id, half transparent and overlapping, so that the ids,
    the order of a tile's features and their positions all show: MapLibre Native's
    supercluster-cpp numbers clusters without the point count and anew at each zoom, keeps
    positions in doubles and lists a tile's items in kdbush.hpp's order. Tiles of supercluster
    JS's index (geojson-vt compatibility) are the control, which must differ."""
    clumps = _clumps()
    options = {"cluster": True, "clusterRadius": 50}
    colour = ["case", ["has", "cluster_id"],
              ["match", ["%", ["get", "cluster_id"], 7], 0, "#e41a1c", 1, "#377eb8", 2, "#4daf4a", 3, "#984ea3",
               4, "#ff7f00", 5, "#a65628", "#f781bf"], "#333333"]
    paint = {"circle": {"circle-color": colour, "circle-opacity": 0.6,
                        "circle-radius": ["case", ["has", "point_count"],
                                          ["min", 40, ["+", 10, ["/", ["get", "point_count"], 20]]], 6]}}
    bbox = CLUMP_VIEWS[view]
    a, b = _render_both(pool, clumps, ("circle",), bbox, source_options=options, paint_of=paint)
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING
    js = mapcore.DataSource(cluster=True, cluster_radius=50, tile_compatibility="geojson-vt")
    js.add(clumps)
    a, b = _render_both(pool, clumps, ("circle",), bbox, source_options=options, paint_of=paint, tiles_from=js)
    assert _differing(a, b) > MAX_DIFFERING, _differing(a, b)


@pytest.mark.parametrize("radius,view", [(50.7, "region"), (50.7, "city"), (0.5, "world"), (0.5, "city")])
def test_a_fractional_cluster_radius_renders_as_maplibre_renders_it(pool, radius, view):
    """MapLibre Native keeps clusterRadius as an integer: 50.7 px clusters as 50, and 0.5 px as 0
    (exact duplicates only). The same clusters coloured by cluster_id as above."""
    clumps = _clumps()
    paint = {"circle": {"circle-color": ["case", ["has", "cluster_id"], ["match", ["%", ["get", "cluster_id"], 7],
                                                                          0, "#e41a1c", 1, "#377eb8", 2, "#4daf4a",
                                                                          "#984ea3"], "#333333"],
                        "circle-opacity": 0.6, "circle-radius": ["case", ["has", "point_count"], 12, 5]}}
    a, b = _render_both(pool, clumps, ("circle",), CLUMP_VIEWS[view],
                        source_options={"cluster": True, "clusterRadius": radius}, paint_of=paint)
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING


# A sum and a maximum, and the ranks (digits) concatenated in the order the points are folded.
AGGREGATES = {"sum": ["+", ["get", "scalerank"]], "max": ["max", ["get", "scalerank"]],
              "ranks": [["concat", ["accumulated"], ["get", "ranks"]], ["to-string", ["get", "scalerank"]]]}
LAST_RANK = ["slice", ["get", "ranks"], ["-", ["length", ["get", "ranks"]], 1]]
AGGREGATE_PAINT = {"circle": {
    "circle-color": ["case", ["has", "point_count"],
                     ["step", ["get", "max"], "#1b9e77", 3, "#d95f02", 6, "#7570b3"], "#333333"],
    "circle-opacity": 0.6,
    "circle-radius": ["case", ["has", "point_count"], ["min", 30, ["+", 4, ["/", ["get", "sum"], 2]]], 3],
    "circle-stroke-width": 3,
    "circle-stroke-color": ["case", ["has", "point_count"],
                            ["match", LAST_RANK, ["0", "1", "2"], "#e41a1c", ["3", "4"], "#377eb8", ["5", "6"],
                             "#4daf4a", "#ff7f00"], "#000000"]}}


def _ranked_clumps():
    """_clumps() with a scalerank from 0 to 9 on each point."""
    clumps = _clumps()
    for k, f in enumerate(clumps["features"]):
        f["properties"] = {"scalerank": k * 7 % 10}
    return clumps


@pytest.mark.parametrize("data,view", [("places", "world"), ("places", "pacific"), ("clumps", "region"),
                                       ("clumps", "city")])
def test_cluster_properties_and_min_points_render_as_maplibre_renders_them(pool, data, view):
    """clusterProperties (a sum and a maximum of scalerank, and the ranks in folding order) and
    clusterMinPoints 3, drawn by the aggregates: MapLibre Native maps and folds them in its own order
    (its KD tree's), and leaves groups of two unclustered. Controls, which must differ: tiles of
    clusters of two or more; on the clumps, supercluster JS's (geojson-vt compatibility), whose
    folds run in another order."""
    features = LOCATED_PLACES if data == "places" else _ranked_clumps()
    bbox = {"world": (-180, -80, 180, 80), "pacific": (100, -50, 180, 10), **CLUMP_VIEWS}[view]
    options = {"cluster": True, "clusterRadius": 50, "clusterMinPoints": 3, "clusterProperties": AGGREGATES}
    source = mapcore.DataSource(**_snake(options))
    source.add(features)
    clusters = [f["properties"] for f in source.clusters((-180, -85, 180, 85), 1) if "point_count" in f["properties"]]
    # The paint reads the aggregates, so a tile without them could not draw the same.
    assert clusters and all(c["point_count"] >= 3 and c["sum"] >= c["max"] >= 0 for c in clusters)
    assert all(len(c["ranks"]) == c["point_count"] for c in clusters)
    a, b = _render_both(pool, features, ("circle",), bbox, source_options=options, paint_of=AGGREGATE_PAINT,
                        tiles_from=source)
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING
    controls = [mapcore.DataSource(cluster=True, cluster_radius=50, cluster_properties=AGGREGATES)]
    if data == "clumps":
        controls.append(mapcore.DataSource(**_snake(options), tile_compatibility="geojson-vt"))
    for control in controls:
        control.add(features)
        a, b = _render_both(pool, features, ("circle",), bbox, source_options=options, paint_of=AGGREGATE_PAINT,
                            tiles_from=control)
        assert _differing(a, b) > MAX_DIFFERING, _differing(a, b)


SHALLOW_CLUMP_VIEWS = {"z12": (-74.03, 40.72, -73.93, 40.78), "z13": (-74.0, 40.74, -73.96, 40.76)}


@pytest.mark.parametrize("view", SHALLOW_CLUMP_VIEWS)
def test_a_clustered_source_with_a_low_maxzoom_renders_as_maplibre_renders_it(pool, view):
    """A clustered source with maxzoom 12 and no clusterMaxZoom: MapLibre Native clusters up to
    its own default, 17, whatever the maxzoom (GL JS and the style spec say maxzoom - 1), so the
    clusters of the zoom-12 tiles show at zoom 12 and in the views drawn from them beyond it.
    Tiles clustered only to zoom 11 (GL JS's default) are the control, which must differ."""
    clumps = _clumps()
    options = {"cluster": True, "clusterRadius": 50, "maxzoom": 12}
    paint = {"circle": {"circle-color": ["case", ["has", "point_count"], "#e41a1c", "#333333"],
                        "circle-opacity": 0.6, "circle-radius": ["case", ["has", "point_count"], 12, 5]}}
    bbox = SHALLOW_CLUMP_VIEWS[view]
    a, b = _render_both(pool, clumps, ("circle",), bbox, source_options=options, paint_of=paint)
    assert _drawn(a) > 0.005
    assert _differing(a, b) <= MAX_DIFFERING
    to_11 = mapcore.DataSource(cluster=True, cluster_radius=50, max_zoom=12, cluster_max_zoom=11)
    to_11.add(clumps)
    a, b = _render_both(pool, clumps, ("circle",), bbox, source_options=options, paint_of=paint, tiles_from=to_11)
    assert _differing(a, b) > MAX_DIFFERING, _differing(a, b)


def _live(data, options, diffs):
    """A source that received `diffs` one by one after `data`, and the GeoJSON it then holds."""
    source = mapcore.DataSource(**_snake(options))
    source.add(data)
    source.cluster_index() if options.get("cluster") else source.tile(0, 0, 0)  # indexes of the first state
    for diff in diffs:
        source.update_data(diff)
    return source, source.to_geojson()


@pytest.mark.parametrize("clustered", [False, True])
def test_a_source_after_live_updates_renders_as_maplibre_renders_the_same_data(pool, clustered):
    """updateData on a data source (removals, moves, additions, property changes): MapLibre
    Native draws MapCore's tiles of the updated source as it draws its own GeoJSON source given
    the data the source then holds, pixel for pixel."""
    places = {"type": "FeatureCollection",
              "features": [dict(f, id=i) for i, f in enumerate(LOCATED_PLACES["features"])]}
    diffs = [
        {"remove": list(range(0, 40, 2))},
        {"update": [{"id": i, "newGeometry": {"type": "Point", "coordinates": [150 + i % 20, -30 + i % 15]}}
                    for i in range(41, 81)]},
        {"add": [{"type": "Feature", "id": 1000 + i, "properties": {"added": True},
                  "geometry": {"type": "Point", "coordinates": [-170 + 7 * i, 10 - i]}} for i in range(30)]},
        {"update": [{"id": 99, "addOrUpdateProperties": [{"key": "scalerank", "value": 0}]}], "remove": [5000]},
    ]
    options = {"cluster": True, "clusterRadius": 50} if clustered else {}
    source, now = _live(places, options, diffs)
    assert len(now["features"]) == len(places["features"]) - 20 + 30
    for bbox in [(-180, -80, 180, 80), (100, -50, 180, 10)]:
        a, b = _render_both(pool, now, ("circle",), bbox, source_options=options, tiles_from=source)
        assert _drawn(a) > 0.005
        assert _differing(a, b) <= MAX_DIFFERING


# A line-gradient (which needs lineMetrics) over lines that tiles cut, a MultiLineString among them.
GRADIENT = {"line": {"line-width": 8, "line-gradient": ["interpolate", ["linear"], ["line-progress"],
                                                        0, "#0000ff", 1, "#ff0000"]}}
METRICS_DATA = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {},
     "geometry": {"type": "MultiLineString", "coordinates": [[[0, 0], [10, 5], [20, 0]], [[0, 10], [20, 12]]]}},
    {"type": "Feature", "properties": {},
     "geometry": {"type": "MultiLineString", "coordinates": [[[-30, 30], [30, 35]], [[-20, 40], [0, 45]]]}},
    {"type": "Feature", "properties": {},
     "geometry": {"type": "LineString", "coordinates": [[0, -10], [30, -8], [60, -10]]}},
]}


@pytest.mark.parametrize("bbox", [(-35, -15, 65, 50), (-2, -2, 8, 8), (8, -12, 40, 14)])
def test_line_metrics_render_as_maplibre_renders_them(pool, bbox):
    """line-progress, from the mapbox_clip_start/end tags lineMetrics adds. geojson-vt-cpp (unlike
    geojson-vt JS) keeps a MultiLineString whole, so MapLibre Native draws it without progress
    except where a tile's clip cut it into lines (before MapCore followed it, 2-3% of these pixels
    differed)."""
    a, b = _render_both(pool, METRICS_DATA, ("line",), bbox, source_options={"lineMetrics": True},
                        paint_of=GRADIENT)
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING


MIXED_VIEWS = {
    "holes": (-2, -12, 60, 22),
    "one hole": (3, 3, 10, 10),
    "antimeridian": (150, -30, -150, 60),
    "antimeridian close": (172, -22, -168, -2),
}


@pytest.mark.parametrize("view", MIXED_VIEWS)
def test_holes_and_the_antimeridian_render_as_maplibre_renders_them(pool, view):
    """With and without the fill's antialiasing outline, whose pixels depend on where the rings
    MapLibre Native's polygon fix-up returns start: the same only when the rings keep their input
    orientation, as geojson-vt-cpp keeps them (geojson-vt JS rewinds them; see the control below)."""
    for antialias in (False, True):
        a, b = _render_both(pool, MIXED, ("fill", "line"), MIXED_VIEWS[view], antialias=antialias)
        assert _drawn(a) > 0.005
        assert _differing(a, b) <= MAX_DIFFERING, antialias


# GeometryCollections with every member type (a nested collection among them), one across the
# antimeridian; lines that tile edges cut several times. (No MultiPoint member: MapLibre Native
# draws a GeoJSON source's MultiPoint as a line in a line layer, and an MVT's not at all.)
_ZIGZAG = [[-5 + 10 * (i % 2), 2 * i] for i in range(6)]
COLLECTIONS = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {},
     "geometry": {"type": "GeometryCollection", "geometries": [
         {"type": "Point", "coordinates": [-4, 1]},
         {"type": "LineString", "coordinates": _ZIGZAG},
         {"type": "MultiLineString", "coordinates": [[[-8, 12], [8, 14], [-8, 16]], [[20, 0], [30, 3]]]},
         {"type": "Polygon", "coordinates": [_square(-3, -9, 6), _square(-1, -7, 2)[::-1]]},
         {"type": "GeometryCollection", "geometries": [
             {"type": "LineString", "coordinates": [[-10, -12], [10, -10], [-10, -8]]}]}]}},
    {"type": "Feature", "properties": {},
     "geometry": {"type": "GeometryCollection", "geometries": [
         {"type": "LineString", "coordinates": [[170, 20], [190, 22], [175, 25], [200, 28]]},
         {"type": "Point", "coordinates": [178, 21]}]}},
]}
COLLECTION_VIEWS = {
    "whole": (-20, -15, 35, 20),
    "zigzag": (-2, -1, 2, 3),
    "multiline": (-1, 11.5, 1, 13.5),
    "polygon": (-3, -9, 1, -5),
    "antimeridian": (177, 19, -177, 25),
}


@pytest.mark.parametrize("view", COLLECTION_VIEWS)
def test_geometry_collections_render_as_maplibre_renders_them(pool, view):
    """geojson-vt-cpp clips a collection as one feature: a clip that cuts one of its lines in
    several parts leaves them one MultiLineString, without line-progress, and its points go
    wherever its other members go. geojson-vt JS, which MapCore followed before, makes a feature
    of each member (2-5% of the line-gradient pixels of the cut views differed; the control below)."""
    paint = dict(GRADIENT, fill={"fill-color": "#3366cc", "fill-opacity": 0.6},
                 circle={"circle-color": "#008800", "circle-radius": 4})
    a, b = _render_both(pool, COLLECTIONS, ("fill", "line", "circle"), COLLECTION_VIEWS[view],
                        source_options={"lineMetrics": True}, paint_of=paint)
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING
    if view == "zigzag":
        js = mapcore.DataSource(tile_compatibility="geojson-vt", line_metrics=True)
        js.add(COLLECTIONS)
        a, b = _render_both(pool, COLLECTIONS, ("line",), COLLECTION_VIEWS[view], tiles_from=js,
                            source_options={"lineMetrics": True}, paint_of=paint)
        assert _differing(a, b) > MAX_DIFFERING


# Lines with vertices exactly on tile edges and on edges of the clips MapLibre's buffer makes
# (longitudes 0, ±11.25, ±22.5, ±45, 67.5, 90, 112.5).
EDGE_LINES = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [
        [-50, 10], [-45, 10], [-30, 14], [-22.5, 14], [-10, 18], [0, 18], [5, 22], [11.25, 22], [20, 20],
        [22.5, 20], [45, 25]]}},
    {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [
        [60, -10], [67.5, -10], [80, -5], [90, -5], [100, 0], [112.5, 0]]}},
]}


@pytest.mark.parametrize("bbox", [(-55, 5, 50, 30), (-25, 10, 10, 25), (-3, 15, 15, 25), (80, -8, 95, 2)])
def test_lines_through_clip_edges_render_as_maplibre_renders_them(pool, bbox):
    """geojson-vt-cpp's line clip (older than JS 4's) starts a slice at a vertex lying exactly on a
    clip edge, with the line-progress of that vertex; JS's starts it at the next segment and keeps
    the earlier start (before MapCore followed geojson-vt-cpp, 1.2-3.2% of the line-gradient
    pixels of the three closer views differed; the overview drew the same)."""
    a, b = _render_both(pool, EDGE_LINES, ("line",), bbox, source_options={"lineMetrics": True},
                        paint_of=GRADIENT)
    assert _drawn(a) > 0.01
    assert _differing(a, b) <= MAX_DIFFERING


# An invalid polygon: its "hole" lies outside its outer ring. MapLibre Native's fix-up fills it.
HOLE_OUTSIDE = {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [
    [[-10, -10], [-10, 10], [-2, 10], [-2, -10], [-10, -10]], _square(3, 1, 5)]}}


@pytest.mark.parametrize("bbox", [(3.5, 1.5, 5.5, 3.5), (5, 2, 6, 3), (-12, -12, 12, 12)])
def test_a_hole_outside_its_polygon_renders_as_maplibre_renders_it(pool, bbox):
    """geojson-vt-cpp boxes a polygon by all its rings, geojson-vt JS by its outer ring, which
    takes such a hole out of every tile whose clip the outer ring misses (zoom 6 here: before
    MapCore followed geojson-vt-cpp, the first two views were blank against MapLibre's filled)."""
    for antialias in (False, True):
        a, b = _render_both(pool, HOLE_OUTSIDE, ("fill",), bbox, antialias=antialias)
        assert _drawn(a) > 0.2
        assert _differing(a, b) <= MAX_DIFFERING, antialias


def test_wrong_tiles_are_seen(pool):
    """The control: tiles simplified far more than MapLibre simplifies, and tiles of other data,
    must not pass the comparison."""
    coarse = mapcore.DataSource(tolerance=20)
    coarse.add(US_STATES)
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS["states"], tiles_from=coarse)
    assert _differing(a, b) > MAX_DIFFERING
    shifted = json.loads(json.dumps(US_STATES))
    for f in shifted["features"]:
        g = f["geometry"]
        polygons = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        for ring in (r for p in polygons for r in p):
            for position in ring:
                position[0] += 0.01
    other = mapcore.DataSource()
    other.add(shifted)
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS["city"], tiles_from=other)
    assert _differing(a, b) > MAX_DIFFERING
    # geojson-vt JS's tiles differ from MapLibre Native's own in a few polygon-edge pixels
    # (its simplification tie-break, and MVT version 2, which MapLibre Native does not fix up).
    js = mapcore.DataSource(tile_compatibility="geojson-vt")
    js.add(US_STATES)
    a, b = _render_both(pool, US_STATES, ("fill", "line"), VIEWS["country"], tiles_from=js)
    assert _differing(a, b) > MAX_DIFFERING
    # Its rewound rings also move the fill outline's pixels of polygons with holes.
    js = mapcore.DataSource(tile_compatibility="geojson-vt")
    js.add(MIXED)
    a, b = _render_both(pool, MIXED, ("fill",), MIXED_VIEWS["holes"], tiles_from=js)
    assert _differing(a, b) > MAX_DIFFERING


@pytest.fixture(scope="module")
def tilesets(tmp_path_factory):
    """US states written by MapCore as a PMTiles archive, an MBTiles archive and a directory, to
    zoom 10, from a source whose maxzoom is 10 too."""
    root = tmp_path_factory.mktemp("tilesets")
    paths = {}
    for kind, name in (("pmtiles", "s.pmtiles"), ("mbtiles", "s.mbtiles"), ("directory", "dir")):
        mapcore.write_tiles(US_STATES, root / name, maxzoom=10, layer="data", max_zoom=10)
        paths[kind] = root / name
    return paths


@pytest.mark.parametrize("kind", ["pmtiles", "mbtiles", "directory"])
@pytest.mark.parametrize("view", VIEWS)
def test_tilesets_render_as_maplibre_renders_its_geojson_source(pool, tilesets, kind, view):
    """MapLibre Native reads the archives itself (pmtiles://, mbtiles://) and the directory through
    file:// tile URLs, and draws them as it draws the same data from a geojson source."""
    path = tilesets[kind]
    source = {"pmtiles": {"type": "vector", "url": f"pmtiles://file://{path}"},
              "mbtiles": {"type": "vector", "url": f"mbtiles://{path}"},
              "directory": {"type": "vector", "tiles": [f"file://{path}/{{z}}/{{x}}/{{y}}.pbf"], "maxzoom": 10}}[kind]
    images = []
    for style_id, s, layer in ((f"ts-{kind}-{view}-a", {"type": "geojson", "data": US_STATES, "maxzoom": 10}, None),
                               (f"ts-{kind}-{view}-b", source, "data")):
        style = {"version": 8, "sources": {"s": s}, "layers": _layers(("fill", "line"), layer)}
        pool.register_style(style_id, json=style)
        images.append(decode_png(pool.render_from_bounds(style_id, bbox=VIEWS[view], width=256, height=256)))
    assert _drawn(images[0]) > 0.05
    assert _differing(*images) <= MAX_DIFFERING
