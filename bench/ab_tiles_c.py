"""A/B of two MapCore builds' tiles as a C caller pays for them: MVT encoding (bench/tiles_encode.c)
or, with --build, an index's first and warm builds (bench/index_build.c).

usage: python3 bench/ab_tiles_c.py LIB_A LIB_B [ROUNDS] [FILE] [--build [OPTIONS]]
       (LIBs: two libmapcore.so files, e.g. main's and a branch's release build; ROUNDS default 3;
       FILE default bench/data/points-1000000.geojson, which bench_cluster.py makes; OPTIONS the
       index's options as JSON, e.g. MapLibre's '{"extent":8192,"buffer":2048,"tolerance":6,"maxZoom":18}')

Builds the harness against each library, then runs the two in fresh processes, alternating
which goes first, and prints each run, the medians and B/A. No Python in the timed loops: on this
VM, Python's calls and the copies into bytes moved `ab_tiles.py`'s encoding-only medians by 10-30%
from run to run. `ab_tiles.py` checks that the two libraries write the same bytes; this does not.
"""
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Per harness: its source, and the figures read from its one line of output (each a name, and a
# pattern whose group is the number).
HARNESSES = {
    "encode": ("tiles_encode.c", [("first requests", r"requests (\d+)")]
               + [(f, rf"{re.escape(f)} (\d+)") for f in ("user", "sys", "z0", "z1-4", "z5-7", "z8", "all")]
               + [("one z8 tile", r"times (\d+) ms")]),
    "build": ("index_build.c", [("first", r"first ([\d.]+) ms"), ("first cpu", r"cpu ([\d.]+) ms"),
                                ("first faults", r"cpu [\d.]+ ms, faults (\d+)"),
                                ("warm median", r"warm median ([\d.]+) ms"), ("warm min", r"min ([\d.]+) ms"),
                                ("first z0 tile", r"z0 tile ([\d.]+) ms"),
                                ("first z4 tile", r"z4 tile ([\d.]+) ms"),
                                ("first z6 tile", r"z6 tile ([\d.]+) ms")]),
}


def build(lib, out, source):
    """The harness linked against `lib`, found through an rpath to its own directory."""
    out.mkdir()
    for name in ("libmapcore.so", "libmapcore.so.0"):
        shutil.copy(lib, out / name)
    exe = out / Path(source).stem
    subprocess.check_call(["gcc", "-O2", "-o", exe, str(HERE / source), f"-I{HERE.parent / 'include'}",
                           f"-L{out}", "-lmapcore", f"-Wl,-rpath,{out}"])
    return exe


def run(exe, args, fields):
    line = subprocess.run([exe, *args], check=True, capture_output=True, text=True).stdout.strip()
    numbers = []
    for name, pattern in fields:
        found = re.search(pattern, line)
        if not found:
            sys.exit(f"cannot read {name} in: {line}")
        numbers.append(float(found.group(1)))
    return line, numbers


def main():
    argv = sys.argv[1:]
    harness, options = "encode", []
    if "--build" in argv:
        at = argv.index("--build")
        harness, options, argv = "build", argv[at + 1:at + 2], argv[:at]
    if len(argv) < 2:
        sys.exit(__doc__)
    libs = argv[0:2]
    rounds = int(argv[2]) if len(argv) > 2 else 3
    path = argv[3] if len(argv) > 3 else str(HERE / "data" / "points-1000000.geojson")
    source, fields = HARNESSES[harness]
    with open("/proc/loadavg") as f:
        print(f"{rounds} rounds; load average before: {f.read().split()[:3]}")
    with tempfile.TemporaryDirectory() as tmp:
        exes = [build(lib, Path(tmp) / name, source) for lib, name in zip(libs, "AB")]
        results = {"A": [], "B": []}
        for r in range(rounds):
            order = "AB" if r % 2 == 0 else "BA"
            for name in order:
                line, numbers = run(exes["AB".index(name)], [path, *options], fields)
                results[name].append(numbers)
                print(f"round {r + 1} {name}: {line}")
    print("medians (ms; faults counted):")
    for i, (field, _) in enumerate(fields):
        a = statistics.median(n[i] for n in results["A"])
        b = statistics.median(n[i] for n in results["B"])
        ratio = f"{b / a:.3f}" if a > 0 else "-"
        print(f"  {field:<15} A {a:9.1f}  B {b:9.1f}  B/A {ratio}")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")


if __name__ == "__main__":
    main()
