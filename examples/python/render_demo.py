"""The tiles MapCore feeds a renderer, drawn by one: MapLibre Native (PyPI mapli) renders the
bundled places (clustered) over the US states, both from MapCore data sources served as vector
tiles through a custom URL scheme, and writes a PNG.

usage: python3 examples/python/render_demo.py OUT.png
"""
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("EGL_PLATFORM", "surfaceless")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import mapli  # noqa: E402

import mapcore  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "mapcore-demo.png"
sources = {
    "places": mapcore.DataSource(cluster=True, cluster_radius=50),
    "states": mapcore.DataSource(),
}
sources["places"].import_data(str(ROOT / "data" / "places.geojson"))
sources["states"].add(json.loads((ROOT / "Tests" / "fixtures" / "geojson-vt" / "us-states.json").read_text()))


def serve(request):
    name, z, x, y = request.url.split("://", 1)[1].split("/")
    tile = sources[name].tile_mvt(int(z), int(x), int(y), layer=name)
    return tile or mapli.Response.no_content()


mapli.register_scheme_handler("mapcore", serve)


def vector(name):
    return {"type": "vector", "tiles": [f"mapcore://{name}/{{z}}/{{x}}/{{y}}"], "maxzoom": 18}


style = {"version": 8, "sources": {"places": vector("places"), "states": vector("states")}, "layers": [
    {"id": "sea", "type": "background", "paint": {"background-color": "#dfeef7"}},
    {"id": "states", "type": "fill", "source": "states", "source-layer": "states",
     "paint": {"fill-color": ["interpolate", ["linear"], ["get", "density"], 0, "#f7f4d0", 300, "#e3743c"],
               "fill-outline-color": "#7a5a3a"}},
    {"id": "clusters", "type": "circle", "source": "places", "source-layer": "places",
     "paint": {"circle-color": ["case", ["has", "point_count"], "#2b6cb0", "#38a169"],
               "circle-radius": ["case", ["has", "point_count"],
                                 ["+", 4, ["*", 2, ["sqrt", ["get", "point_count"]]]], 3],
               "circle-stroke-color": "#ffffff", "circle-stroke-width": 1}},
]}
pool = mapli.RenderPool()
pool.register_style("demo", json=style)
png = pool.render_from_bounds("demo", bbox=(-180, -60, 180, 75), width=800, height=450)
Path(out).write_bytes(png)
print(f"wrote {out}: {len(png):,} bytes, MapLibre Native drawing MapCore's tiles "
      f"(places clustered, US states by density)")
