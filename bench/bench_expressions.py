"""Expression evaluation over 1,000,000 in-memory features: MapCore's batch calls beside the same
logic hand-written in C (-O2), and `within` beside shapely.contains_xy on the same points.
Run: make bench (or python3 bench/bench_expressions.py [N])."""
import ctypes
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np
import orjson
import shapely

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bindings", "python"))
import mapcore  # noqa: E402
from mapcore._lib import lib  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
rng = random.Random(42)
KINDS = ["earthquake", "explosion", "quarry blast", "ice quake"]


def timed(fn, repeat=3):
    """(first run, best run): MapCore's first batch over a collection also builds the property
    columns it reads, which later batches reuse."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times[0], min(times)


def build_baseline():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(tempfile.gettempdir(), "mapcore_expr_baseline.so")
    subprocess.check_call(["gcc", "-O2", "-shared", "-fPIC", "-o", out, os.path.join(here, "expr_baseline.c")])
    return ctypes.CDLL(out)


def main():
    print(f"generating {N:,} features…", flush=True)
    lon = np.array([rng.uniform(-20, 20) for _ in range(N)])
    lat = np.array([rng.uniform(-20, 20) for _ in range(N)])
    mag = np.array([rng.uniform(0, 10) for _ in range(N)])
    pop = np.array([float(rng.randrange(0, 3_000_000)) for _ in range(N)])
    kind = [KINDS[rng.randrange(4)] for _ in range(N)]
    fc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon[i], lat[i]]},
         "properties": {"mag": mag[i], "kind": kind[i], "population": pop[i], "depth": 10.0, "name": "q"}}
        for i in range(N)]}
    text = orjson.dumps(fc, option=orjson.OPT_SERIALIZE_NUMPY)
    del fc
    features = mapcore.GeoJSON(text)
    del text

    c = build_baseline()
    c_mag = mag.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    c_pop = pop.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    kind_bytes = [k.encode() for k in kind]
    c_kind = (ctypes.c_char_p * N)(*kind_bytes)
    out_d = (ctypes.c_double * N)()
    out_f = (ctypes.c_float * (4 * N))()
    out_b = (ctypes.c_uint8 * N)()
    errors = (ctypes.c_uint8 * N)()
    count = ctypes.c_size_t()

    def mc(expr_json, spec=None, filt=False):
        return mapcore.Filter(expr_json) if filt else mapcore.Expression(expr_json, property_spec=spec)

    cases = [
        ("(a) interpolate mag → color",
         mc(["interpolate", ["linear"], ["get", "mag"], 0, "#ffff00", 5, "#ff0000", 10, "#ffffff"], {"type": "color"}),
         lib.mc_expression_evaluate_colors, out_f, lambda: c.ramp(c_mag, ctypes.c_size_t(N), out_f)),
        ("(b) filter kind & mag",
         mc(["all", ["==", ["get", "kind"], "earthquake"], [">=", ["get", "mag"], 4.5]], filt=True),
         lib.mc_expression_evaluate_booleans, out_b, lambda: c.quake_filter(c_kind, c_mag, ctypes.c_size_t(N), out_b)),
        ("(c) match kind", mc(["match", ["get", "kind"], ["earthquake", "explosion"], 1, 0]),
         lib.mc_expression_evaluate_numbers, out_d, lambda: c.kind_match(c_kind, ctypes.c_size_t(N), out_d)),
        ("(d) step population", mc(["step", ["get", "population"], 1, 100000, 2, 1000000, 3]),
         lib.mc_expression_evaluate_numbers, out_d, lambda: c.population_step(c_pop, ctypes.c_size_t(N), out_d)),
    ]
    print(f"\n{'expression':34} {'MapCore 1st':>12} {'MapCore':>10} {'C -O2':>10} {'ratio':>7}")
    for name, expr, fn, out, baseline in cases:
        first, t_mc = timed(lambda: fn(expr._handle, features.handle, None, out, errors, N, ctypes.byref(count)))
        assert sum(errors) == 0
        _, t_c = timed(baseline)
        print(f"{name:34} {first * 1e3:10.1f}ms {t_mc * 1e3:8.1f}ms {t_c * 1e3:8.1f}ms {t_mc / t_c:6.1f}x", flush=True)

    # (e) within a 1,000-vertex polygon
    def wobble(k):
        return 15 * (1 + 0.2 * math.sin(7 * 2 * math.pi * k / 1000))
    ring = [(wobble(k) * math.cos(2 * math.pi * k / 1000), wobble(k) * math.sin(2 * math.pi * k / 1000))
            for k in range(1000)]
    ring.append(ring[0])
    polygon = {"type": "Polygon", "coordinates": [[list(p) for p in ring]]}
    within = mapcore.Filter(["within", polygon])
    first, t_mc = timed(lambda: lib.mc_expression_evaluate_booleans(within._handle, features.handle, None, out_b,
                                                                    errors, N, ctypes.byref(count)))
    ours = np.frombuffer(out_b, dtype=np.uint8).astype(bool).copy()
    shape = shapely.Polygon(ring)
    shapely.prepare(shape)
    _, t_sh = timed(lambda: shapely.contains_xy(shape, lon, lat))
    theirs = shapely.contains_xy(shape, lon, lat)
    same = int((ours == theirs).sum())
    print(f"{'(e) within 1,000-vertex polygon':34} {first * 1e3:10.1f}ms {t_mc * 1e3:8.1f}ms {'shapely':>10} "
          f"{t_sh * 1e3:.1f}ms "
          f"({t_sh / t_mc:.1f}x faster); identical answers: {same:,}/{N:,}")


if __name__ == "__main__":
    main()
