#!/usr/bin/env python3
"""The Python baseline of BM_ReadTorchTrace, measured in the same run as aclgi_bench.

Usage: scripts/bench_trace.py make OUT [--mib N] [--source LOG]
       scripts/bench_trace.py compare RESULTS_JSON FILE [--repeat N] [--bench ACLGI_BENCH]

`make` writes a TORCH_TRACE log of at least N MiB (default 110) by repeating the real records of
tests/data/real/compile/c_trace.log (PyTorch 2.11, 3.6 MB, frames 0/0, 0/1, 0/2). Repetition k adds
k * (max frame_id + 1) to every envelope's frame_id, so the file has many compile ids (3 per
repetition); payloads are copied byte for byte, so every has_payload md5 still matches. Records with
no frame_id (interned strings, runtime chromium events) are copied unchanged. Deterministic.

`compare` times, in a fresh child process per run, the same work as engine::readers::trace::
readTorchTrace at its simplest: read the file line by line, json.loads each header's envelope, join
its tab-prefixed payload lines, check the payload's md5 (hashlib), and group the records per compile
id in a dict of lists (the record's envelope and payload text kept). Best and median of N runs, MiB/s,
the ratio to the C++ reader's best real_time of BM_ReadTorchTrace from RESULTS_JSON, and the peak RSS
of both (the child's ru_maxrss; the benchmark's peak_rss_mib counter, VmHWM) against the file size.
With --bench, our peak RSS is taken from a second run of that aclgi_bench binary with
--benchmark_filter=^BM_ReadTorchTrace/ in a fresh process, one read (the one in RESULTS_JSON is the whole run's
peak when other benchmarks ran before it in the same process).
Called by scripts/bench.sh; prints nothing when the benchmark did not run. Speed is reported, never
asserted.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

BENCH = "BM_ReadTorchTrace"
TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [os.path.join(ROOT, "tests/data/real/compile/c_trace.log"),
           "/work/main/tests/data/real/compile/c_trace.log",
           "/work/shared/real/compile/c_trace/dedicated_log_torch_trace_ojf5qdmf.log"]
FRAME_ID = re.compile(rb'"frame_id": (\d+)')


def make(args):
    source = args.source or next((s for s in SOURCES if os.path.isfile(s)), None)
    if source is None:
        sys.exit("bench_trace.py: no source log (tests/data/real/compile/c_trace.log); pass --source")
    with open(source, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    # Only header lines (not starting with a tab) carry an envelope; payload lines are never touched.
    headers = [i for i, line in enumerate(lines) if not line.startswith(b"\t") and FRAME_ID.search(line)]
    step = max(int(FRAME_ID.search(lines[i]).group(1)) for i in headers) + 1 if headers else 1
    size = sum(len(line) for line in lines)
    reps = max(1, -(-(args.mib << 20) // size))
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        for k in range(reps):
            if k == 0:
                out.writelines(lines)
                continue
            copy = list(lines)
            for i in headers:
                copy[i] = FRAME_ID.sub(lambda m: b'"frame_id": %d' % (int(m.group(1)) + k * step), lines[i], count=1)
            out.writelines(copy)
    os.replace(tmp, args.out)
    print(f"bench_trace.py: wrote {args.out}, {os.path.getsize(args.out) / 2**20:.1f} MiB "
          f"({reps} repetitions of {source}, {reps * step} frames)")


# The baseline, run as `python3 -c CHILD FILE` so each run's peak RSS is its own.
CHILD = r'''
import hashlib, json, resource, sys, time
start = time.perf_counter()
groups = {}
records = bad = 0
def close(env, payload):
    global records, bad
    records += 1
    text = None
    if payload is not None:
        text = "\n".join(payload)
        if hashlib.md5(text.encode("utf-8")).hexdigest() != env.get("has_payload"):
            bad += 1
    if "frame_id" in env:
        key = f"{env['frame_id']}/{env.get('frame_compile_id')}"
        if env.get("attempt"):
            key += f"_{env['attempt']}"
        if "compiled_autograd_id" in env:
            key = f"!{env['compiled_autograd_id']}/" + key
    else:
        key = "-"
    groups.setdefault(key, []).append((env, text))
env = payload = None
with open(sys.argv[1], encoding="utf-8", newline="\n") as f:
    for line in f:
        if line.startswith("\t"):
            if payload is not None:
                payload.append(line[1:].rstrip("\n"))
            continue
        if env is not None:
            close(env, payload)
            env = payload = None
        brace = line.find("] {")
        if brace < 0:
            continue
        try:
            env = json.loads(line[brace + 2:])
        except ValueError:
            continue
        payload = [] if "has_payload" in env else None
if env is not None:
    close(env, payload)
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "rss_mib": rss, "records": records, "compiles": len(groups) - ("-" in groups),
                  "md5_mismatch": bad}))
'''


def python_run(path):
    out = subprocess.run([sys.executable, "-c", CHILD, path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cpp_result(path):
    with open(path) as f:
        runs = json.load(f).get("benchmarks", [])
    best, times = None, []
    for r in runs:
        if r.get("run_name", r["name"]).split("/")[0] != BENCH or r.get("run_type", "iteration") != "iteration":
            continue
        if r.get("error_occurred"):
            return None, r.get("error_message", "error")
        t = r["real_time"] * TO_SECONDS[r.get("time_unit", "ns")]
        times.append(t)
        if best is None or t < best[0]:
            best = (t, r)
    if best is not None:
        best[1]["median_s"], best[1]["runs"] = statistics.median(times), len(times)
    return best, None


def alone(bench, path):
    """Counters of BM_ReadTorchTrace run alone in a fresh process (its VmHWM is the reader's)."""
    env = dict(os.environ, ACLGI_BENCH_TRACE=path)
    out = subprocess.run([bench, "--benchmark_filter=^BM_ReadTorchTrace/", "--benchmark_repetitions=1", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True, env=env).stdout
    runs = [r for r in json.loads(out).get("benchmarks", []) if r.get("run_type", "iteration") == "iteration"]
    return max((r for r in runs if "peak_rss_mib" in r), key=lambda r: r["peak_rss_mib"], default=None)


def compare(args):
    best, error = cpp_result(args.results)
    if error:
        print(f"{BENCH}: error: {error}")
        return
    if best is None:
        return
    cpp, counters = best
    mib = os.path.getsize(args.file) / 2**20
    runs = [python_run(args.file) for _ in range(args.repeat)]
    times = [r["seconds"] for r in runs]
    py_best, py_median = min(times), statistics.median(times)
    py_rss = max(r["rss_mib"] for r in runs)
    our_rss = counters.get("peak_rss_mib", 0)
    rss_where = "the whole benchmark process"
    if args.bench:
        single = alone(args.bench, args.file)
        if single:
            our_rss, rss_where = single["peak_rss_mib"], "BM_ReadTorchTrace alone"
    print()
    print(f"Reading a {mib:.1f} MiB TORCH_TRACE log (c_trace.log repeated), same file, same run:")
    print(f"  readTorchTrace (C++)              {cpp:8.3f} s   {mib / cpp:7.1f} MiB/s   "
          f"(median {counters['median_s']:.3f} s of {counters['runs']})  "
          f"{counters.get('compiles', 0):.0f} compiles, {counters.get('records', 0):.0f} records")
    print(f"  Python (json.loads + hashlib.md5) {py_best:8.3f} s   {mib / py_best:7.1f} MiB/s   "
          f"(median {py_median:.3f} s of {len(runs)})  -> ours {py_best / cpp:.2f}x faster "
          f"({runs[0]['compiles']} compiles, {runs[0]['records']} records, {runs[0]['md5_mismatch']} md5 mismatches)")
    print(f"  peak RSS: ours {our_rss:.0f} MiB ({our_rss / mib:.2f}x the file; "
          f"{'under' if our_rss < mib else 'NOT under'} its size; VmHWM of {rss_where}), "
          f"Python {py_rss:.0f} MiB ({py_rss / mib:.2f}x the file; ru_maxrss of the child)")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--mib", type=int, default=110)
    m.add_argument("--source")
    c = sub.add_parser("compare")
    c.add_argument("results")
    c.add_argument("file")
    c.add_argument("--repeat", type=int, default=3)
    c.add_argument("--bench", help="aclgi_bench, to measure our peak RSS with the benchmark alone")
    args = p.parse_args()
    make(args) if args.cmd == "make" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
