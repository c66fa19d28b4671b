"""Live data sources (issue 20): what one write costs on a large source, against a full rebuild
of the same source in the same run, and the memory a source holds.

usage: python3 bench/bench_live.py [--quick] [--baseline CHECKOUT]

- Unclustered source of 1,000,000 points with ids (bench/gen_points.py): the median of 200
  single-feature writes of each kind through `DataSource.update_data` (add of a new id, remove
  by id, update of one feature's geometry and a property) and through `remove(id)`, each with
  the version read after it, so the time includes publishing the new state; then 10,000
  single-feature writes in a row (add, update, remove in turn), in total. The peer: a full
  rebuild of the same features (`set`), which is what every write cost before issue 20.
- Clustered source of the same points: one full build (`set`, then the first `clusters` query,
  which builds the index) against 1,000 single-feature writes followed by one `clusters` query.
- Memory: peak RSS of a process holding the unclustered source after loading it (and after the
  writes), and of a clustered one after its index is built. `--baseline CHECKOUT` runs the same
  loads with another checkout's library and bindings (e.g. the commit before issue 20, built
  with `make build`), in the same run, and, with it, that library's cost of one write (`add` of
  one feature, the only write it had).
Each measurement runs in its own process (fresh peak RSS). Times are medians unless marked; the
load average is printed before and after. --quick uses 100,000 points.
"""
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rss_mb():
    """Peak resident memory of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_now_mb():
    """Resident memory now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def point_feature(i, rng):
    return {"type": "Feature", "id": i,
            "geometry": {"type": "Point", "coordinates": [rng.uniform(-180, 180), rng.uniform(-85, 85)]},
            "properties": {"mag": round(rng.uniform(0, 9), 2), "kind": "live", "population": i}}


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def child(mode, path, n):
    import mapcore
    text = Path(path).read_bytes()
    data = mapcore.GeoJSON(text)
    rng = random.Random(7)
    out = {}
    if mode in ("plain", "baseline-plain"):
        source = mapcore.DataSource()
        out["load_s"] = timed(lambda: source.add(data))
        out["rss_loaded_mb"] = rss_mb()
        # What the source alone holds once the parsed input is let go.
        data.close()
        out["rss_source_mb"] = rss_now_mb()
        data = mapcore.GeoJSON(text)
        if mode == "baseline-plain":
            # The library before issue 20: every write rebuilt the snapshot; add is its one write.
            out["single_add_ms"] = statistics.median(
                timed(lambda i=i: source.add(point_feature(n + i, rng))) for i in range(5)) * 1000
            return out
        next_id = n
        adds, removes, updates, removes_by_id = [], [], [], []
        for _ in range(200):
            f = point_feature(next_id, rng)
            next_id += 1
            adds.append(timed(lambda: (source.update_data({"add": [f]}), source.version)))
            victim = rng.randrange(n)
            updates.append(timed(lambda: (source.update_data({"update": [{
                "id": victim, "newGeometry": {"type": "Point", "coordinates": [1.5, 2.5]},
                "addOrUpdateProperties": [{"key": "mag", "value": 9.9}]}]}), source.version)))
            removes.append(timed(lambda: (source.update_data({"remove": [victim]}), source.version)))
            other = rng.randrange(n)
            removes_by_id.append(timed(lambda: (source.remove(other), source.version)))
        out["single_add_ms"] = statistics.median(adds) * 1000
        out["single_update_ms"] = statistics.median(updates) * 1000
        out["single_remove_ms"] = statistics.median(removes) * 1000
        out["single_remove_by_id_ms"] = statistics.median(removes_by_id) * 1000

        def burst():
            nonlocal next_id
            for k in range(10_000):
                if k % 3 == 0:
                    source.update_data({"add": [point_feature(next_id, rng)]})
                    next_id += 1
                elif k % 3 == 1:
                    source.update_data({"update": [{"id": rng.randrange(next_id),
                                                    "addOrUpdateProperties": [{"key": "k", "value": k}]}]})
                else:
                    source.update_data({"remove": [rng.randrange(next_id)]})
        out["writes_10k_s"] = timed(burst)
        out["rss_after_writes_mb"] = rss_mb()
        out["full_rebuild_s"] = statistics.median(timed(lambda: source.set(data)) for _ in range(3))
        out["version"] = source.version
    elif mode in ("cluster", "baseline-cluster"):
        source = mapcore.DataSource(cluster=True)
        world = (-180, -85, 180, 85)
        # The first query builds the index (with the earlier library, add built it).
        out["full_build_s"] = out["first_build_s"] = timed(lambda: (source.add(data), source.clusters(world, 0)))
        out["rss_built_mb"] = rss_mb()
        if mode == "baseline-cluster":
            return out
        builds = [timed(lambda: (source.set(data), source.clusters(world, 0))) for _ in range(2)]
        out["full_build_s"] = statistics.median([out["full_build_s"]] + builds)

        def writes_then_query():
            for k in range(1000):
                if k % 2 == 0:
                    source.update_data({"add": [point_feature(n + k, rng)]})
                else:
                    source.update_data({"remove": [rng.randrange(n)]})
            source.clusters(world, 0)
        out["writes_1k_then_query_s"] = statistics.median(timed(writes_then_query) for _ in range(3))
    return out


def run_child(mode, path, n, checkout=None):
    env = dict(os.environ)
    root = Path(checkout) if checkout else HERE.parent
    env["PYTHONPATH"] = str(root / "bindings" / "python")
    env["MAPCORE_LIBRARY"] = str(root / ".build" / "release" / "libmapcore.so")
    r = subprocess.run([sys.executable, __file__, "--child", mode, str(path), str(n)], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        mode, path, n = sys.argv[i + 1], sys.argv[i + 2], int(sys.argv[i + 3])
        print(json.dumps(child(mode, path, n)))
        return
    # Only the parent imports these (bench_tiles imports this checkout's bindings; a baseline
    # child must load another's).
    sys.path.insert(0, str(HERE))
    from bench_tiles import load, points
    n = 100_000 if "--quick" in sys.argv else 1_000_000
    baseline = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
    path = points(n)
    print(f"load average before: {load()}")
    plain = run_child("plain", path, n)
    clustered = run_child("cluster", path, n)
    print(f"\nUnclustered source of {n:,} points (ids 0..{n - 1}), medians of 200 writes each:")
    for key, label in [("single_add_ms", "add (update_data)"), ("single_update_ms", "update (update_data)"),
                       ("single_remove_ms", "remove (update_data)"), ("single_remove_by_id_ms", "remove(id)")]:
        print(f"  {label:24s} {plain[key]:8.3f} ms")
    print(f"  10,000 writes in a row  {plain['writes_10k_s']:8.3f} s")
    print(f"  full rebuild (set)      {plain['full_rebuild_s'] * 1000:8.1f} ms  (peer, same run: what a write cost "
          f"before)")
    print(f"  ratio full rebuild / median add: {plain['full_rebuild_s'] * 1000 / plain['single_add_ms']:,.0f}x")
    print(f"  peak RSS after load {plain['rss_loaded_mb']:.0f} MB, "
          f"after the writes {plain['rss_after_writes_mb']:.0f} MB; "
          f"RSS holding the source alone {plain['rss_source_mb']:.0f} MB")
    print(f"\nClustered source of {n:,} points:")
    print(f"  full build (set + first query), median of 3   {clustered['full_build_s']:.3f} s")
    print(f"  1,000 writes + one query, median of 3          {clustered['writes_1k_then_query_s']:.3f} s "
          f"({clustered['writes_1k_then_query_s'] / clustered['full_build_s']:.2f}x the full build; goal <= 1.2x)")
    print(f"  the first build alone (add + first query, nothing to free) {clustered['first_build_s']:.3f} s")
    print(f"  peak RSS with the index built {clustered['rss_built_mb']:.0f} MB")
    if baseline:
        bp = run_child("baseline-plain", path, n, baseline)
        bc = run_child("baseline-cluster", path, n, baseline)
        print(f"\nBaseline library ({baseline}), same run:")
        print(f"  one write (add of one feature), median of 5: {bp['single_add_ms']:.1f} ms")
        print(f"  peak RSS after load {bp['rss_loaded_mb']:.0f} MB (now {plain['rss_loaded_mb']:.0f} MB, "
              f"{plain['rss_loaded_mb'] / bp['rss_loaded_mb']:.2f}x)")
        print(f"  RSS holding the source alone {bp['rss_source_mb']:.0f} MB (now {plain['rss_source_mb']:.0f} MB, "
              f"{plain['rss_source_mb'] / bp['rss_source_mb']:.2f}x)")
        print(f"  clustered, index built {bc['rss_built_mb']:.0f} MB (now {clustered['rss_built_mb']:.0f} MB, "
              f"{clustered['rss_built_mb'] / bc['rss_built_mb']:.2f}x); first build (add) {bc['first_build_s']:.3f} s")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
