"""numpy, shapely, GeoPandas and pyarrow/GeoArrow in and out (interop.py), and GeoJSON text from
Python values (orjson when installed, json otherwise: one text either way)."""
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import geopandas
import pytest
import shapely

import mapcore
from mapcore import geojson as geojson_module

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "supercluster"
PLACES = json.loads((FIXTURES / "places.json").read_text())
WORLD = (-180, -85, 180, 85)
# places.json holds one feature without geometry, which supercluster skips; its index is kept.
POINTS = [(i, f["geometry"]["coordinates"]) for i, f in enumerate(PLACES["features"]) if f["geometry"]]
COORDS = np.array([c for _, c in POINTS], dtype="f8")


def clusters_of(index, zoom):
    """(id, lng, lat, point_count) of getClusters' dicts: the GeoJSON writer's path."""
    out = []
    for f in index.get_clusters(WORLD, zoom):
        props = f["properties"]
        lng, lat = f["geometry"]["coordinates"]
        out.append((props.get("cluster_id"), lng, lat, props.get("point_count", 1)))
    return out


def test_numpy_results_are_the_dict_results():
    index = mapcore.Supercluster().load(PLACES)
    for zoom in (0, 2, 5):
        items = index.get_clusters_numpy(WORLD, zoom)
        assert items.dtype.names == ("id", "lng", "lat", "point_count")
        dicts = clusters_of(index, zoom)
        assert len(items) == len(dicts) > 0
        for item, (cid, lng, lat, count) in zip(items, dicts):
            assert item["point_count"] == count
            assert (item["lng"], item["lat"]) == pytest.approx((lng, lat), abs=1e-12)
            if cid is not None:
                assert item["id"] == cid
            else:  # a point: its id is the input index
                assert PLACES["features"][item["id"]]["geometry"]["coordinates"] == [lng, lat]


def test_leaves_as_numpy_follow_get_leaves():
    index = mapcore.Supercluster().load(PLACES)
    leaves = index.get_leaves(164, limit=None)
    items = index.get_leaves_numpy(164, limit=None)
    assert len(items) == len(leaves) == 16
    assert [[i["lng"], i["lat"]] for i in items] == [f["geometry"]["coordinates"] for f in leaves]
    assert (items["point_count"] == 1).all()
    page = index.get_leaves_numpy(164, limit=3, offset=5)
    assert page.tolist() == items[5:8].tolist()
    with pytest.raises(mapcore.NotFoundError):
        index.get_leaves_numpy(123456789)
    # An item of a numpy result names its cluster, as a cluster feature dict does.
    item = next(i for i in index.get_clusters_numpy(WORLD, 0) if i["point_count"] > 1)
    assert index.get_leaves(item, limit=None) == index.get_leaves(int(item["id"]), limit=None)
    assert index.get_cluster_expansion_zoom(item) == index.get_cluster_expansion_zoom(int(item["id"]))


def test_points_from_numpy_arrow_and_geopandas_cluster_as_the_same_points():
    expected = mapcore.Supercluster().load_points(COORDS).get_clusters_numpy(WORLD, 3).tolist()
    assert len(expected) > 0
    interleaved = pa.FixedSizeListArray.from_arrays(pa.array(COORDS.reshape(-1)), 2)
    separated = pa.StructArray.from_arrays([pa.array(COORDS[:, 0]), pa.array(COORDS[:, 1])], names=["x", "y"])
    half = len(COORDS) // 2
    chunked = pa.chunked_array([separated.slice(0, half), separated.slice(half)])
    xyz = pa.FixedSizeListArray.from_arrays(pa.array(np.column_stack([COORDS, np.zeros(len(COORDS))]).reshape(-1)), 3)
    series = geopandas.GeoSeries(shapely.points(COORDS), crs="EPSG:4326")
    for points in (interleaved, separated, chunked, xyz, series, series.values, np.asarray(series.values),
                   COORDS.T.copy().T):  # the last one is Fortran-ordered
        assert mapcore.Supercluster().load(points).get_clusters_numpy(WORLD, 3).tolist() == expected, type(points)
        assert mapcore.Supercluster().load_points(points).get_clusters_numpy(WORLD, 3).tolist() == expected


class _GeoArrowPoint(pa.ExtensionType):
    """A stand-in for geoarrow-pyarrow's registered type: an extension array over point storage."""

    def __init__(self, storage):
        super().__init__(storage, "geoarrow.point")

    def __arrow_ext_serialize__(self):
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type)


def test_geoarrow_extension_arrays_are_read_through_their_storage():
    storage = pa.FixedSizeListArray.from_arrays(pa.array(COORDS.reshape(-1)), 2)
    array = pa.ExtensionArray.from_storage(_GeoArrowPoint(storage.type), storage)
    got = mapcore.Supercluster().load(array).get_clusters_numpy(WORLD, 1).tolist()
    assert got == mapcore.Supercluster().load_points(COORDS).get_clusters_numpy(WORLD, 1).tolist()


def test_arrow_points_are_geojson_wherever_geojson_goes():
    array = pa.FixedSizeListArray.from_arrays(pa.array(COORDS[:50].reshape(-1)), 2)
    source = mapcore.DataSource()
    source.add(array)
    assert len(source) == 50
    assert [f["geometry"]["coordinates"] for f in source.to_geojson()["features"]] == COORDS[:50].tolist()
    west, south = COORDS[:50].min(axis=0)
    east, north = COORDS[:50].max(axis=0)
    assert mapcore.bbox(array) == (west, south, east, north)


def test_bulk_point_edge_cases():
    world = mapcore.Supercluster()
    for empty in (np.empty((0, 2)), geopandas.GeoSeries([], crs="EPSG:4326"),
                  pa.chunked_array([], type=pa.list_(pa.float64(), 2)), pa.array([], type=pa.list_(pa.float64(), 2))):
        assert world.load(empty).get_clusters_numpy(WORLD, 0).tolist() == []
    expected = mapcore.Supercluster().load_points(COORDS).get_clusters_numpy(WORLD, 2).tolist()
    xyz = np.column_stack([COORDS, np.ones(len(COORDS))])  # longitude, latitude first, the rest ignored
    assert mapcore.Supercluster().load(xyz).get_clusters_numpy(WORLD, 2).tolist() == expected
    assert mapcore.Supercluster().load_points(xyz).get_clusters_numpy(WORLD, 2).tolist() == expected
    table = pa.table({"name": [str(i) for i in range(len(COORDS))],
                      "geometry": pa.FixedSizeListArray.from_arrays(pa.array(COORDS.reshape(-1)), 2)})
    assert mapcore.Supercluster().load(table).get_clusters_numpy(WORLD, 2).tolist() == expected
    with pytest.raises(ValueError, match="to_crs"):
        mapcore.Supercluster().load(geopandas.GeoSeries(shapely.points(COORDS), crs="EPSG:3857"))
    with pytest.raises(TypeError):
        mapcore.Supercluster().load(np.array([["a", "b"]]))
    index = mapcore.Supercluster().load_points(COORDS)
    with pytest.raises(TypeError):
        index.get_leaves(3.7)
    with pytest.raises(ValueError, match="out of range"):
        index.get_leaves(2 ** 64 + 3)


def test_bad_bulk_points_are_refused():
    lines = geopandas.GeoSeries([shapely.LineString([(0, 0), (1, 1)])])
    with pytest.raises(ValueError, match="Point"):
        mapcore.Supercluster().load(lines)
    with pytest.raises(ValueError, match="Point"):
        mapcore.Supercluster().load(geopandas.GeoSeries([shapely.Point()]))
    with pytest.raises(ValueError, match="null"):
        mapcore.Supercluster().load(pa.array([[0.0, 1.0], None], type=pa.list_(pa.float64(), 2)))
    with pytest.raises(ValueError, match="x, y"):
        mapcore.Supercluster().load(pa.StructArray.from_arrays([pa.array([1.0]), pa.array([2.0])], names=["a", "b"]))
    with pytest.raises(TypeError):
        mapcore.Supercluster().load(pa.array([1.0, 2.0]))
    with pytest.raises(mapcore.InvalidArgumentError):  # the library's own check of positions
        mapcore.Supercluster().load(np.array([[0.0, float("nan")]]))


def test_clusters_as_a_geoarrow_table():
    index = mapcore.Supercluster().load(PLACES)
    table = index.get_clusters_arrow(WORLD, 2)
    items = index.get_clusters_numpy(WORLD, 2)
    assert table.column_names == ["id", "point_count", "cluster", "geometry"]
    field = table.schema.field("geometry")
    assert field.metadata[b"ARROW:extension:name"] == b"geoarrow.point"
    assert json.loads(field.metadata[b"ARROW:extension:metadata"]) == {"crs": "OGC:CRS84"}
    assert table.column("id").to_pylist() == items["id"].tolist()
    assert table.column("cluster").to_pylist() == (items["point_count"] > 1).tolist()
    assert table.column("geometry").to_pylist() == [[i["lng"], i["lat"]] for i in items]
    # The same points read back as GeoArrow give the same clusters as their coordinates.
    again = mapcore.Supercluster().load(table.column("geometry")).get_clusters_numpy(WORLD, 0).tolist()
    assert again == mapcore.Supercluster().load_points(
        np.column_stack([items["lng"], items["lat"]])).get_clusters_numpy(WORLD, 0).tolist()


HOLED = {"type": "Feature", "id": 5, "properties": {"name": "holed", "n": 2},
         "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
                                                         [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]]]}}
LINE = {"type": "Feature", "id": 6, "properties": {"name": "line", "n": 3},
        "geometry": {"type": "LineString", "coordinates": [[-170, 10], [170, 12]]}}
NULL = {"type": "Feature", "id": 7, "properties": {"name": "nothing", "n": 4}, "geometry": None}
COLLECTION = {"type": "FeatureCollection", "features": [HOLED, LINE, NULL]}


def test_to_shapely_matches_geos_own_geojson_reader():
    g = mapcore.GeoJSON(COLLECTION)
    shapes = g.to_shapely()
    assert isinstance(shapes, np.ndarray) and shapes.dtype == object and len(shapes) == 3
    for shape, feature in zip(shapes, COLLECTION["features"]):
        if feature["geometry"] is None:
            assert shape is None
        else:  # GEOS reads the geometry's GeoJSON text itself
            assert shapely.equals_exact(shape, shapely.from_geojson(json.dumps(feature["geometry"])), 0)
    holed = mapcore.GeoJSON(HOLED).to_shapely()
    assert holed.geom_type == "Polygon" and len(holed.interiors) == 1 and holed.area == 96
    assert mapcore.GeoJSON(NULL).to_shapely() is None
    assert mapcore.GeoJSON(LINE["geometry"]).to_shapely().geom_type == "LineString"


def test_to_geopandas_and_back_through_a_data_source():
    frame = mapcore.GeoJSON(COLLECTION).to_geopandas()
    assert frame.crs == "EPSG:4326"
    assert list(frame.index) == [5, 6, 7] and frame.index.name == "id"
    assert list(frame["name"]) == ["holed", "line", "nothing"] and list(frame["n"]) == [2, 3, 4]
    assert frame.geometry.iloc[0].area == 96 and frame.geometry.iloc[2] is None
    source = mapcore.DataSource()
    source.add(frame)  # through GeoPandas' __geo_interface__: its index becomes string ids
    assert len(source) == 3
    assert source.get("5")["properties"] == {"name": "holed", "n": 2}
    assert source.get("6")["geometry"] == LINE["geometry"]
    again = source.to_geopandas()
    assert list(again.index) == ["5", "6", "7"]
    assert again.geometry.iloc[0].equals(frame.geometry.iloc[0])
    # Without ids on every feature the frame keeps a plain range index.
    partial = mapcore.GeoJSON({"type": "FeatureCollection",
                               "features": [HOLED, {k: v for k, v in LINE.items() if k != "id"}]}).to_geopandas()
    assert list(partial.index) == [0, 1]


@pytest.mark.parametrize("dumps", ["orjson", "json"])
def test_python_values_give_one_text_whichever_encoder(dumps, monkeypatch):
    if dumps == "json":
        monkeypatch.setattr(geojson_module, "_dumps", geojson_module._dumps_json)
    else:
        assert geojson_module._dumps is not geojson_module._dumps_json, "orjson is a test dependency"
        # The orjson path itself, not its fallback: it must write this feature without help.
        monkeypatch.setattr(geojson_module, "_dumps_json", lambda value: pytest.fail(f"fell back for {value}"))
    feature = {"type": "Feature", "properties": {"nan": float("nan"), "inf": [float("-inf"), 1.5],
                                                 "numpy": np.float32(0.1), "arr": np.array([1, np.nan]),
                                                 "f32": np.array([0.25, np.nan], dtype=np.float32),
                                                 "npnan": np.float64("nan"), "ints": np.arange(3), "text": "é"},
               "geometry": {"type": "Point", "coordinates": [np.float64(1.25), 2]}}
    props = mapcore.GeoJSON(feature).to_dict()["properties"]
    # NaN and infinities are null as JSON.stringify writes them in GL JS; float32 by its
    # shortest form.
    assert props == {"nan": None, "inf": [None, 1.5], "numpy": 0.1, "arr": [1.0, None], "f32": [0.25, None],
                     "npnan": None, "ints": [0, 1, 2], "text": "é"}
    # A non-finite coordinate is still refused: null is not a number.
    with pytest.raises(mapcore.InvalidGeoJSONError) as e:
        mapcore.GeoJSON({"type": "Point", "coordinates": [float("nan"), 0]})
    assert e.value.path == "$.coordinates[0]"


def test_what_orjson_refuses_goes_through_json():
    """Integers past 64 bits and keys that are not strings: orjson refuses the document, json
    writes it (with NaN still null)."""
    value = {"type": "Feature", "geometry": None, "properties": {"big": 2 ** 70, "nan": np.float32("nan")}}
    assert mapcore.GeoJSON(value).to_dict()["properties"] == {"big": 2 ** 70, "nan": None}
    assert mapcore.GeoJSON({"type": "Feature", "geometry": None, "properties": {1: True}}).to_dict()[
        "properties"] == {"1": True}


def test_reprs_say_what_a_handle_holds():
    source = mapcore.DataSource(cluster=True)
    source.add(PLACES)
    source.add({"type": "Point", "coordinates": [1, 2]})
    assert repr(source) == f"<mapcore.DataSource {len(PLACES['features']) + 1:,} features, clustered, version 2>"
    source.close()
    assert repr(source) == "<mapcore.DataSource closed>"
    index = mapcore.Supercluster(max_zoom=3).load_points(COORDS)
    clusters = sum(1 for z in range(4) for i in index.get_clusters_numpy(WORLD, z) if i["point_count"] > 1)
    assert repr(index) == f"<mapcore.Supercluster {len(COORDS):,} points, {clusters:,} clusters at zoom 0 to 4>"
