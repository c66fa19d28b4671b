"""Parse throughput: MapCore's GeoJSON parser beside node's JSON.parse and orjson on the same
seeded file (1,000,000 points with 5 properties, about 180 MB).
usage: python3 bench/bench_geojson.py [N]   (run `make bench` for all benchmarks)"""
import ctypes
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
import mapcore  # noqa: E402
from mapcore._lib import lib  # noqa: E402

from gen_points import generate  # noqa: E402


def best_of(runs, fn):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    path = HERE / "data" / f"points-{n}.geojson"
    if not path.exists():
        generate(n, path)
    data = path.read_bytes()
    mb = len(data) / 1e6
    rows = []

    # Parsing is timed alone; freeing the model is timed apart (the peers' frees happen later,
    # in their garbage collectors, and are not timed either).
    parse_times, free_times = [], []
    for _ in range(5):
        handle = ctypes.c_void_p()
        t = time.perf_counter()
        mapcore._lib.check(lib.mc_geojson_parse(data, len(data), None, ctypes.byref(handle)))
        parse_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        lib.mc_geojson_free(handle)
        free_times.append(time.perf_counter() - t)
    rows.append(("mapcore mc_geojson_parse (to model)", min(parse_times)))
    rows.append(("  (mapcore mc_geojson_free, not parse)", min(free_times)))

    try:
        import gc
        import orjson
        gc.disable()  # the collector would otherwise rescan a million new dicts mid-parse
        rows.append(("orjson.loads (to Python objects)", best_of(3, lambda: orjson.loads(data))))
        gc.enable()
    except ImportError:
        rows.append(("orjson (pip install orjson)", None))

    node = shutil.which("node")
    if node:
        script = ("const fs=require('fs');const s=fs.readFileSync(process.argv[1],'utf8');let best=1e9;"
                  "for(let i=0;i<3;i++){const t=process.hrtime.bigint();JSON.parse(s);"
                  "best=Math.min(best,Number(process.hrtime.bigint()-t)/1e9);}console.log(best);")
        out = subprocess.run([node, "--max-old-space-size=8192", "-e", script, str(path)],
                             capture_output=True, text=True, check=True)
        rows.append(("node JSON.parse (to JS objects)", float(out.stdout)))
    else:
        rows.append(("node (not installed)", None))

    print(f"Parse {path.name}: {n:,} point features, {mb:.1f} MB (best of runs)")
    print(f"{'parser':40} {'seconds':>9} {'MB/s':>8}")
    for name, t in rows:
        print(f"{name:40} {t:9.3f} {mb / t:8.0f}" if t else f"{name:40} {'-':>9} {'-':>8}")


if __name__ == "__main__":
    main()
