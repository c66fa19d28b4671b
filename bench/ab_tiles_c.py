"""A/B of two MapCore builds' MVT encoding as a C caller pays it (bench/tiles_encode.c).

usage: python3 bench/ab_tiles_c.py LIB_A LIB_B [ROUNDS] [FILE]
       (LIBs: two libmapcore.so files, e.g. main's and a branch's release build; ROUNDS default 3;
       FILE default bench/data/points-1000000.geojson, which bench_cluster.py makes)

Builds tiles_encode.c against each library, then runs the two in fresh processes, alternating
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
FIELDS = ["first requests", "user", "sys", "z0", "z1-4", "z5-7", "z8", "all", "one z8 tile"]


def build(lib, out):
    """tiles_encode linked against `lib`, found through an rpath to its own directory."""
    out.mkdir()
    for name in ("libmapcore.so", "libmapcore.so.0"):
        shutil.copy(lib, out / name)
    exe = out / "tiles_encode"
    subprocess.check_call(["gcc", "-O2", "-o", exe, str(HERE / "tiles_encode.c"), f"-I{HERE.parent / 'include'}",
                           f"-L{out}", "-lmapcore", f"-Wl,-rpath,{out}"])
    return exe


def run(exe, path):
    line = subprocess.run([exe, path], check=True, capture_output=True, text=True).stdout.strip()
    found = re.findall(r"(?:requests|user|sys|z0|z1-4|z5-7|z8|all) (\d+)|times (\d+) ms", line)
    numbers = [float(a or b) for a, b in found]
    if len(numbers) != len(FIELDS):
        sys.exit(f"cannot read {len(FIELDS)} figures in: {line}")
    return line, numbers


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    libs = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    path = sys.argv[4] if len(sys.argv) > 4 else str(HERE / "data" / "points-1000000.geojson")
    with open("/proc/loadavg") as f:
        print(f"{rounds} rounds; load average before: {f.read().split()[:3]}")
    with tempfile.TemporaryDirectory() as tmp:
        exes = [build(lib, Path(tmp) / name) for lib, name in zip(libs, "AB")]
        results = {"A": [], "B": []}
        for r in range(rounds):
            order = "AB" if r % 2 == 0 else "BA"
            for name in order:
                line, numbers = run(exes["AB".index(name)], path)
                results[name].append(numbers)
                print(f"round {r + 1} {name}: {line}")
    print("medians (ms):")
    for i, field in enumerate(FIELDS):
        a = statistics.median(n[i] for n in results["A"])
        b = statistics.median(n[i] for n in results["B"])
        ratio = f"{b / a:.2f}" if a > 0 else "-"
        print(f"  {field:<15} A {a:7.0f}  B {b:7.0f}  B/A {ratio}")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")


if __name__ == "__main__":
    main()
