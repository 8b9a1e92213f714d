#!/usr/bin/env python3
"""Memory snapshot loading: our streaming reader against Python's pickle.load of the same file,
measured in the same run, and the reader's peak memory against the file's size.

usage: scripts/bench_snapshot.py BENCH_BINARY [--mib N] [--real] [--file FILE] [--repeat R] [--app APP] [--no-import]

--real: the file is the real CUDA Graph Trees snapshot of tests/data/real/compile/ repeated to N MiB
(scripts/scale_real_snapshot.py: real frames, keys and value mixes) instead of the synthetic one.
BM_ReadAndFirstView (the read and device 0's memory as the snapshot was taken, what the Memory view
draws first) is timed beside the read alone.

Writes FILE (default build/bench-snapshot-<N>mib.pickle) with
`tests/data/snapshots/make_snapshot_fixtures.py --large FILE --mib N` unless it exists, then runs
BENCH_BINARY (aclgi_bench, or any Google Benchmark binary holding BM_ReadSnapshotFile) alone in a
fresh process per run, R times (default 3), and pickle.load in a fresh Python process per run, R
times, and prints the best MB/s of each, their ratio, and both peak RSS figures over the file size.
Then the whole load as a user meets it, in a fresh process per run: BM_ReadAndStreamSnapshot (read
and the bounded replay) and `APP import FILE --db NEW` (default build/gui/aclgraph-inspector: read,
replay and write the project), each timed and its peak RSS taken (os.wait4) against the same file.
Run by hand (1 GiB takes minutes and, for pickle.load, several GiB of memory); nothing is asserted.
"""
import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
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


def bench_runs(bench, name, path, repeat):
    """`repeat` runs of benchmark `name`, each in a fresh process: times (s), the highest peak RSS
    (bytes) and the last run's counters."""
    times, rss = [], 0
    for _ in range(repeat):
        r = subprocess.run([bench, f"--benchmark_filter={name}", "--benchmark_format=json"],
                           env={**os.environ, "ACLGI_BENCH_SNAPSHOT": str(path)}, capture_output=True, text=True,
                           check=True)
        b = next(x for x in json.loads(r.stdout)["benchmarks"] if x["name"].startswith(name))
        if b.get("error_occurred"):
            sys.exit(f"bench_snapshot.py: {b.get('error_message')}")
        times.append(b["real_time"] / 1000.0)  # ms to s
        rss = max(rss, b["peak_rss_mib"] * (1 << 20))
    return times, rss, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--app", default=str(ROOT / "build" / "gui" / "aclgraph-inspector"))
    ap.add_argument("--real", action="store_true",
                    help="a real snapshot (tests/data/real/compile/c_ind_static.pickle) repeated to --mib by "
                         "scripts/scale_real_snapshot.py, instead of the synthetic one")
    ap.add_argument("--no-import", action="store_true", help="skip the replay and import runs")
    a = ap.parse_args()
    kind = "real-snapshot" if a.real else "snapshot"
    path = pathlib.Path(a.file or ROOT / "build" / f"bench-{kind}-{a.mib}mib.pickle")
    if not path.exists():
        if a.real:
            subprocess.run([sys.executable, ROOT / "scripts/scale_real_snapshot.py",
                            ROOT / "tests/data/real/compile/c_ind_static.pickle", path, "--mib", str(a.mib)],
                           check=True)
        else:
            subprocess.run([sys.executable, ROOT / "tests/data/snapshots/make_snapshot_fixtures.py", "--large",
                            path, "--mib", str(a.mib)], check=True)
    size = path.stat().st_size
    ours, ours_rss, b = bench_runs(a.bench, "BM_ReadSnapshotFile", path, a.repeat)
    entries = b["entries"]
    first, first_rss, b = bench_runs(a.bench, "BM_ReadAndFirstView", path, a.repeat)
    streamed, streamed_rss, steps = [], 0, 0
    if not a.no_import:
        streamed, streamed_rss, b = bench_runs(a.bench, "BM_ReadAndStreamSnapshot", path, a.repeat)
        steps = b["steps"]
    imported, imported_rss = [], 0
    app = pathlib.Path(a.app)
    if app.exists() and not a.no_import:
        for _ in range(a.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                t = time.perf_counter()
                child = subprocess.Popen([str(app), "import", str(path), "--db", os.path.join(tmp, "p.aclgi"),
                                          "--quiet"], stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(child.pid, 0)
                imported.append(time.perf_counter() - t)
                if status != 0:
                    sys.exit(f"bench_snapshot.py: {app} import failed ({status})")
                imported_rss = max(imported_rss, usage.ru_maxrss * 1024)
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
    print(f"{'aclgi read + first view':<28} {min(first):>8.2f} {mb / min(first):>8.1f} "
          f"{first_rss / (1 << 20):>13.0f} {first_rss / size:>11.2f}")
    if streamed:
        print(f"{'aclgi read + replay':<28} {min(streamed):>8.2f} {mb / min(streamed):>8.1f} "
              f"{streamed_rss / (1 << 20):>13.0f} {streamed_rss / size:>11.2f}   ({steps:.0f} steps)")
    if imported:
        print(f"{'aclgraph-inspector import':<28} {min(imported):>8.2f} {mb / min(imported):>8.1f} "
              f"{imported_rss / (1 << 20):>13.0f} {imported_rss / size:>11.2f}")
    print(f"speed ratio (ours / pickle.load): {best_py / best:.2f}x")
    print(f"read + first memory view vs pickle.load: {best_py / min(first):.2f}x")
    if streamed:
        print(f"read + replay vs pickle.load: {best_py / min(streamed):.2f}x")
    if imported:
        print(f"import into a project vs pickle.load: {best_py / min(imported):.2f}x")


if __name__ == "__main__":
    main()
