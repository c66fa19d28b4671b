"""The Python side of `make demo`: bounding box, convex hull and a parse error, via ctypes."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import mapcore  # noqa: E402

path = sys.argv[1] if len(sys.argv) > 1 else "data/places.geojson"
places = mapcore.GeoJSON(Path(path).read_bytes())
print(f"{len(places)} features, bbox {tuple(round(v, 4) for v in mapcore.bbox(places))}")
hull = mapcore.convex_hull(places)
print(f"convex hull: {hull['type']} with {len(hull['coordinates'][0]) - 1} vertices")
try:
    mapcore.GeoJSON('{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1]]]}')
except mapcore.InvalidGeoJSONError as e:
    print(f"rejected as expected: {e}")

# The SDK data source with clustering: the clusters at zoom 2, then what a click on the biggest shows.
source = mapcore.DataSource(cluster=True, cluster_properties={"top_rank": ["min", ["get", "scalerank"]]})
source.import_data(path)
shown = source.clusters((-180, -85, 180, 85), 2)
clusters = [f for f in shown if f["properties"].get("cluster")]
biggest = max(clusters, key=lambda f: f["properties"]["point_count"])
props = biggest["properties"]
print(f"zoom 2: {len(shown)} items, {len(clusters)} clusters; the biggest holds {props['point_count']} places "
      f"(best rank {props['top_rank']}), expands at zoom {source.expansion_zoom(props['cluster_id'])}")
leaves = source.leaves(props["cluster_id"], offset=0, limit=3)
print("  first leaves:", ", ".join(f["properties"]["name"] for f in leaves))
print("  area:", source.cluster_hull(props["cluster_id"])["type"])

# The tileset `make demo` wrote, read back as MapLibre reads a vector source: the tiles a view
# needs, their URLs, and the places a filter keeps.
archive = Path(__file__).resolve().parents[2] / "build" / "places.pmtiles"
if archive.exists():
    tiles = mapcore.VectorTileSource(url=str(archive))
    view = (-10, 35, 30, 60)
    cover = tiles.cover(view, 4.5)
    print(f"places.pmtiles: zooms {tiles.options['minzoom']}-{tiles.options['maxzoom']}; "
          f"a view of Europe at zoom 4.5 needs {len(cover)} tiles, first {tiles.tile_url(*cover[0][:3])}")
    found = tiles.query(view, 4.5, "places", "featureclass == 'island'")
    names = sorted({f["properties"]["name"] for f in found})
    print(f"  islands in those tiles: {', '.join(names)}")
