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
