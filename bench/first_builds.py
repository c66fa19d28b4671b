"""A tile index's first build in a fresh process: MapCore's against geojson-vt JS's (and
geojson-vt-cpp's), alternating.

usage: python3 bench/first_builds.py GEOJSON_VT_CHECKOUT [FILE] [ROUNDS] [--maplibre] [--library LIB]
                                     [--cpp BINARY]
       (GEOJSON_VT_CHECKOUT: a checkout of mapbox/geojson-vt 4.0.2, whose src/ node imports as is;
       FILE default bench/data/ne_10m_admin_0_countries.geojson, which bench_tiles.py fetches;
       ROUNDS default 15; --maplibre: MapLibre's GeoJSON source options instead of geojson-vt's
       defaults; LIB default .build/release/libmapcore.so; BINARY: bench/geojson_vt_cpp.cpp built as
       its header says, to time geojson-vt-cpp too)

Issue 23 asks for an index build at least 10 times as fast as geojson-vt JS's and 3 times as fast
as geojson-vt-cpp's. Every side is timed on its process's first build, the one a program that loads
a file and serves tiles pays: each round runs MapCore (bench/index_build.c, built against LIB), node
(geojson_vt_node.mjs --first) and the C++ peer once each in fresh processes, each round starting one
further along the list, so that all meet the same minutes of this shared machine and each goes first
as often. Printed per round, then medians: wall time, CPU time (MapCore's two threads; node's
collector and compiler threads beside its one), minor page faults, and each peer's time over
MapCore's, from the medians and as the median of the rounds' own ratios. Parsing is timed by none.
"""
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ab_tiles_c import build  # noqa: E402

MAPLIBRE = '{"extent":8192,"buffer":2048,"tolerance":6,"maxZoom":18}'
FIRST = re.compile(r"first ([\d.]+) ms, cpu ([\d.]+) ms, faults (\d+)")


def first(command):
    """The wall and CPU milliseconds and the page faults of a first build, from the line `command`
    prints."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    found = FIRST.search(done.stdout)
    if not found:
        sys.exit(f"cannot read a first build in: {done.stdout}")
    return float(found.group(1)), float(found.group(2)), int(found.group(3))


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def main():
    argv = sys.argv[1:]
    options = []
    if "--maplibre" in argv:
        argv.remove("--maplibre")
        options = [MAPLIBRE]

    def option(flag, default):
        if flag not in argv:
            return default
        at = argv.index(flag)
        if at + 1 >= len(argv):
            sys.exit(__doc__)
        value = argv[at + 1]
        del argv[at:at + 2]
        return value

    library = Path(option("--library", HERE.parent / ".build" / "release" / "libmapcore.so"))
    cpp = option("--cpp", None)
    if not argv:
        sys.exit(__doc__)
    checkout = argv[0]
    path = argv[1] if len(argv) > 1 else str(HERE / "data" / "ne_10m_admin_0_countries.geojson")
    rounds = int(argv[2]) if len(argv) > 2 else 15
    print(f"{Path(path).name}, {'MapLibre' if options else 'default'} options, {rounds} rounds; "
          f"load average before: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(library, Path(tmp) / "mapcore", "index_build.c")
        commands = {
            "MapCore": [str(exe), path, *options],
            "JS": ["node", str(HERE / "geojson_vt_node.mjs"), checkout, path, "--first", *options],
        }
        if cpp:
            commands["C++"] = [cpp, path, "--first", *(["maplibre"] if options else [])]
        names = list(commands)
        results = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                results[name].append(first(commands[name]))
            line = "; ".join(f"{name} {results[name][-1][0]:7.1f} ms, cpu {results[name][-1][1]:7.1f} ms, "
                             f"faults {results[name][-1][2]}" for name in names)
            ratios = ", ".join(f"{name}/MapCore wall {results[name][-1][0] / results['MapCore'][-1][0]:5.2f} "
                               f"cpu {results[name][-1][1] / results['MapCore'][-1][1]:5.2f}" for name in names[1:])
            print(f"round {r + 1:2}: {line}; {ratios}")
    print("medians:")
    for i, what in enumerate(("wall", "cpu")):
        mine = statistics.median(t[i] for t in results["MapCore"])
        print(f"  {what:<4}  MapCore {mine:8.1f} ms")
        for name in names[1:]:
            theirs = statistics.median(t[i] for t in results[name])
            rounds_ratio = statistics.median(b[i] / a[i] for a, b in zip(results["MapCore"], results[name]))
            print(f"        {name:<7} {theirs:8.1f} ms  {name}/MapCore {theirs / mine:5.2f} "
                  f"(median of the rounds' ratios {rounds_ratio:5.2f})")
    print("  faults  " + ", ".join(f"{name} {statistics.median(t[2] for t in results[name]):.0f}" for name in names))
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
