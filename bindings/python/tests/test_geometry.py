"""Bounding boxes, positions and hulls, compared with shapely (GEOS) on random inputs."""
import array
import random

import pytest

import mapcore

shapely = pytest.importorskip("shapely", reason="shapely is the reference for hull/bbox comparisons")
from shapely.geometry import MultiPoint  # noqa: E402


def normalized_ring(coords):
    """A closed ring as a tuple starting at its smallest vertex, counter-clockwise."""
    ring = [tuple(c) for c in coords[:-1]]
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1]))
    if area < 0:
        ring.reverse()
    start = ring.index(min(ring))
    return tuple(ring[start:] + ring[:start])


def shapely_hull(points):
    hull = MultiPoint(points).convex_hull
    if hull.is_empty:
        return None
    if hull.geom_type == "Point":
        return ("Point", (hull.x, hull.y))
    if hull.geom_type == "LineString":
        return ("LineString", tuple(sorted(tuple(c) for c in hull.coords)))
    return ("Polygon", normalized_ring(list(hull.exterior.coords)))


def mapcore_hull(points):
    g = mapcore.convex_hull(points)
    if g is None:
        return None
    if g["type"] == "Point":
        return ("Point", tuple(g["coordinates"]))
    if g["type"] == "LineString":
        return ("LineString", tuple(sorted(tuple(c) for c in g["coordinates"])))
    ring = g["coordinates"][0]
    assert ring[0] == ring[-1]
    assert tuple(ring[0]) == min(tuple(c) for c in ring)
    # Counter-clockwise as returned, starting at the smallest vertex.
    assert normalized_ring(ring) == tuple(tuple(c) for c in ring[:-1])
    return ("Polygon", normalized_ring(ring))


def random_points(rng, trial):
    n = rng.randint(1, 40)
    kind = trial % 4
    if kind == 0:   # continuous: general position
        return [(rng.uniform(-180, 180), rng.uniform(-90, 90)) for _ in range(n)]
    if kind == 1:   # coarse grid: duplicates and collinear runs
        return [(float(rng.randint(0, 5)), float(rng.randint(0, 5))) for _ in range(n)]
    if kind == 2:   # exactly collinear: integer slope and intercept keep every point on the line
        a, b = rng.randint(-5, 5), rng.randint(-50, 50)
        return [(float(x), float(a * x + b)) for x in (rng.randint(-20, 20) for _ in range(n))]
    return [(rng.gauss(0, 1e-3), rng.gauss(0, 1e-3)) for _ in range(n)]


def test_hull_and_bbox_equal_shapely_on_10000_inputs():
    rng = random.Random(20261121)
    mismatches = []
    for trial in range(10000):
        points = random_points(rng, trial)
        expected_hull = shapely_hull(points)
        got_hull = mapcore_hull(points)
        if got_hull != expected_hull:
            mismatches.append((trial, points, got_hull, expected_hull))
        box = mapcore.bbox(points)
        assert box == MultiPoint(points).bounds, trial
    assert not mismatches, mismatches[:3]


def test_input_forms_agree():
    pts = [(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (0.0, 3.0), (1.0, 1.0)]
    flat = array.array("d", [c for p in pts for c in p])
    geo = {"type": "MultiPoint", "coordinates": [list(p) for p in pts]}
    assert mapcore.convex_hull(pts) == mapcore.convex_hull(flat) == mapcore.convex_hull(geo)
    assert mapcore.bbox(pts) == mapcore.bbox(flat) == mapcore.bbox(geo) == (0.0, 0.0, 4.0, 3.0)
    assert mapcore.positions(geo) == pts
    np = pytest.importorskip("numpy")
    assert mapcore.bbox(np.array(pts)) == (0.0, 0.0, 4.0, 3.0)
    ro = np.array(pts)
    ro.setflags(write=False)
    assert mapcore.convex_hull(ro) == mapcore.convex_hull(pts)


def test_degenerate_hulls():
    assert mapcore.convex_hull([]) is None
    assert mapcore.convex_hull({"type": "FeatureCollection", "features": []}) is None
    assert mapcore.convex_hull([(1, 2), (1, 2)]) == {"type": "Point", "coordinates": [1.0, 2.0]}
    assert mapcore.convex_hull([(0, 0), (2, 2), (1, 1)]) == {"type": "LineString",
                                                           "coordinates": [[0.0, 0.0], [2.0, 2.0]]}
    assert mapcore.bbox([]) is None
    assert mapcore.bbox({"type": "Feature", "geometry": None, "properties": None}) is None


def test_bad_bulk_input():
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.bbox([(0, float("nan"))])
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.convex_hull([(0, 0), (1e200, 0), (0, 1)])
    with pytest.raises(TypeError):
        mapcore.bbox(array.array("f", [0, 0]))
    with pytest.raises(ValueError):
        mapcore.bbox(array.array("d", [0, 0, 1]))


def test_box_helpers():
    cross = (170, -10, -170, 10)
    assert mapcore.bbox_crosses_antimeridian(cross)
    assert not mapcore.bbox_crosses_antimeridian((0, 0, 1, 1))
    assert mapcore.bbox_contains(cross, (-175, 0))
    assert not mapcore.bbox_contains(cross, (0, 0))
    assert mapcore.bbox_split_antimeridian(cross) == [(170, -10, 180, 10), (-180, -10, -170, 10)]
    assert mapcore.bbox_intersects((0, 0, 2, 2), (2, 2, 3, 3))
    assert not mapcore.bbox_intersects((0, 0, 1, 1), (2, 2, 3, 3))
    assert mapcore.bbox_merge((0, 0, 1, 1), (2, -1, 3, 3)) == (0, -1, 3, 3)
    assert mapcore.bbox_merge(cross, (160, 0, 165, 5)) == (160, -10, -170, 10)
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.bbox_merge((0, 5, 1, 1), (0, 0, 1, 1))


def test_lists_of_features_are_features_not_positions():
    """bbox() and convex_hull() of a list of feature dicts once read the dicts as positions
    (KeyError: 0); a list of features is a FeatureCollection, a list of pairs stays positions."""
    features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {}}
                for x, y in [(0, 0), (4, 0), (4, 3), (3, 1)]]
    assert mapcore.bbox(features) == (0, 0, 4, 3)
    assert mapcore.convex_hull(features) == {"type": "Polygon",
                                             "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 0]]]}
    assert mapcore.bbox([(0, 0), (4, 3)]) == (0, 0, 4, 3)
    assert mapcore.bbox([MultiPoint([(1, 2), (3, 4)])]) == (1, 2, 3, 4)
