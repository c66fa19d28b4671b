"""Writes a seeded FeatureCollection of N random points with 5 properties (default 1,000,000,
about 180 MB) for the benchmarks. usage: python3 bench/gen_points.py [N] [OUT]"""
import random
import sys
from pathlib import Path

KINDS = ["earthquake", "explosion", "quarry blast", "ice quake", "landslide"]


def generate(n, out, seed=1):
    rng = random.Random(seed)
    with open(out, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(n):
            lon = rng.uniform(-180, 180)
            lat = rng.uniform(-85, 85)
            mag = round(rng.uniform(0, 9), 2)
            kind = KINDS[rng.randrange(len(KINDS))]
            pop = rng.randrange(0, 5_000_000)
            sep = ",\n" if i + 1 < n else "\n"
            f.write('{"type":"Feature","id":%d,"geometry":{"type":"Point","coordinates":[%.7f,%.7f]},'
                    '"properties":{"mag":%s,"kind":"%s","population":%d,"name":"place %d","felt":%s}}%s'
                    % (i, lon, lat, mag, kind, pop, i, "true" if rng.random() < 0.3 else "false", sep))
        f.write("]}\n")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    out = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent / "data" / f"points-{n}.geojson")
    out.parent.mkdir(parents=True, exist_ok=True)
    generate(n, out)
    print(out)
