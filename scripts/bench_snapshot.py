#!/usr/bin/env python3
"""Memory snapshot loading: our streaming reader against Python's pickle.load of the same file,
measured in the same run, and the reader's peak memory against the file's size.

usage: scripts/bench_snapshot.py BENCH_BINARY [--mib N] [--file FILE] [--repeat R]

Writes FILE (default build/bench-snapshot-<N>mib.pickle) with
`tests/data/snapshots/make_snapshot_fixtures.py --large FILE --mib N` unless it exists, then runs
BENCH_BINARY (aclgi_bench, or any Google Benchmark binary holding BM_ReadSnapshotFile) alone in a
fresh process per run, R times (default 3), and pickle.load in a fresh Python process per run, R
times, and prints the best MB/s of each, their ratio, and both peak RSS figures over the file size.
Run by hand (1 GiB takes minutes and, for pickle.load, several GiB of memory); nothing is asserted.
"""
import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOAD = """
import pickle, resource, sys, time
t = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    d = pickle.load(f)
dt = time.perf_counter() - t
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--file")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    path = pathlib.Path(a.file or ROOT / "build" / f"bench-snapshot-{a.mib}mib.pickle")
    if not path.exists():
        subprocess.run([sys.executable, ROOT / "tests/data/snapshots/make_snapshot_fixtures.py", "--large", path,
                        "--mib", str(a.mib)], check=True)
    size = path.stat().st_size
    ours, ours_rss = [], 0
    for _ in range(a.repeat):
        r = subprocess.run([a.bench, "--benchmark_filter=BM_ReadSnapshotFile", "--benchmark_format=json"],
                           env={**os.environ, "ACLGI_BENCH_SNAPSHOT": str(path)}, capture_output=True, text=True,
                           check=True)
        b = next(x for x in json.loads(r.stdout)["benchmarks"] if x["name"].startswith("BM_ReadSnapshotFile"))
        if b.get("error_occurred"):
            sys.exit(f"bench_snapshot.py: {b.get('error_message')}")
        ours.append(b["real_time"] / 1000.0)  # ms
        ours_rss = max(ours_rss, b["peak_rss_mib"] * (1 << 20))
        entries = b["entries"]
    py, py_rss = [], 0
    for _ in range(a.repeat):
        r = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True, check=True)
        dt, rss = r.stdout.split()
        py.append(float(dt))
        py_rss = max(py_rss, int(rss))
    mb = size / 1e6
    best, best_py = min(ours), min(py)
    print(f"file {path}: {size / (1 << 20):.1f} MiB, {entries:.0f} trace entries")
    print(f"{'reader':<28} {'best s':>8} {'MB/s':>8} {'peak RSS MiB':>13} {'RSS / file':>11}")
    print(f"{'aclgi readSnapshotFile':<28} {best:>8.2f} {mb / best:>8.1f} {ours_rss / (1 << 20):>13.0f} "
          f"{ours_rss / size:>11.2f}")
    print(f"{'python pickle.load':<28} {best_py:>8.2f} {mb / best_py:>8.1f} {py_rss / (1 << 20):>13.0f} "
          f"{py_rss / size:>11.2f}")
    print(f"speed ratio (ours / pickle.load): {best_py / best:.2f}x")


if __name__ == "__main__":
    main()
