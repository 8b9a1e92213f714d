#!/usr/bin/env python3
"""The Python baseline of BM_ReadFxCode_Decoder80, measured in the same run as aclgi_bench.

Usage: scripts/bench_fx_read.py RESULTS_JSON FX_FILE [--repeat N]

FX_FILE is the readable FX code the benchmark generated and wrote (ACLGI_BENCH_FX_OUT); this times
Python's own ast.parse of exactly that file with time.perf_counter (best and median of N runs,
after one untimed warm-up) and prints it next to the C++ read time from RESULTS_JSON (Google
Benchmark JSON, real_time of BM_ReadFxCode_Decoder80; with --benchmark_repetitions the fastest
repetition). Called by scripts/bench.sh; prints nothing when the benchmark did not run.
"""
import argparse
import ast
import json
import os
import statistics
import sys
import time

BENCH = "BM_ReadFxCode_Decoder80"
DUMP_BENCH = "BM_ReadFxGraphDump_Decoder80"
TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def cpp_times(results_path, name):
    """Best real_time (seconds) of `name`'s iteration runs and its counters, or (None, {}, error)."""
    with open(results_path) as f:
        runs = json.load(f).get("benchmarks", [])
    best, counters = None, {}
    for r in runs:
        if r.get("run_name", r["name"]).split("/")[0] != name or r.get("run_type", "iteration") != "iteration":
            continue
        if r.get("error_occurred"):
            return None, {}, r.get("error_message", "error")
        t = r["real_time"] * TO_SECONDS[r.get("time_unit", "ns")]
        if best is None or t < best:
            best, counters = t, r
    return best, counters, None


def fmt_ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("fx_file")
    ap.add_argument("--repeat", type=int, default=int(os.environ.get("ACLGI_BENCH_PY_REPEAT", "20")))
    args = ap.parse_args()

    ours, counters, error = cpp_times(args.results, BENCH)
    if error:
        print(f"\n{BENCH}: error: {error}")
        return 1
    if ours is None:
        return 0  # filtered out
    if not os.path.exists(args.fx_file):
        print(f"bench_fx_read.py: {args.fx_file} was not written (ACLGI_BENCH_FX_OUT)", file=sys.stderr)
        return 1

    with open(args.fx_file, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")
    nodes = int(counters.get("nodes", 0))

    ast.parse(text, args.fx_file)  # warm-up, and proof that the file is valid Python
    times, cpu_times = [], []
    for _ in range(max(1, args.repeat)):
        c0 = time.process_time()
        t0 = time.perf_counter()
        ast.parse(text, args.fx_file)
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
    py_best, py_median = min(times), statistics.median(times)
    ours_cpu = counters["cpu_time"] * TO_SECONDS[counters.get("time_unit", "ns")]

    dump, dump_counters, dump_error = cpp_times(args.results, DUMP_BENCH)

    print()
    print(f"FX read of the 80-layer decoder's readable code: {args.fx_file}")
    print(f"  file size                {len(data):>12,} bytes, {text.count(chr(10)):,} lines")
    print(f"  nodes                    {nodes:>12,}")
    reps = counters.get("repetitions", 1)
    print(f"  readFxCode (C++)         {fmt_ms(ours):>12}   ({BENCH} real_time, mean of"
          f" {counters.get('iterations', '?')} iterations{', fastest repetition' if reps > 1 else ''})")
    print(f"  ast.parse (Python {sys.version_info.major}.{sys.version_info.minor})  "
          f"{fmt_ms(py_best):>12}   best of {len(times)}, median {fmt_ms(py_median)}")
    print(f"  ratio (ast.parse / ours) {py_best / ours:>11.1f}x faster   (ast.parse's median / ours: {py_median / ours:.1f}x)")
    print(f"  CPU time instead (less sensitive to other load on the machine): ours {fmt_ms(ours_cpu)},"
          f" ast.parse {fmt_ms(min(cpu_times))} (best), ratio {min(cpu_times) / ours_cpu:.1f}x")
    if dump is not None:
        print(f"  readFxGraphDump (C++)    {fmt_ms(dump):>12}   ({DUMP_BENCH}: print(gm.graph) form of the same"
              f" graph, {int(dump_counters.get('file_bytes', 0)):,} bytes; no ast.parse counterpart)")
    elif dump_error:
        print(f"  readFxGraphDump (C++)    error: {dump_error}")
    print("  Note: ast.parse only parses syntax; readFxCode also builds the graph IR (annotations, symbolic")
    print("  sizes, `= None` tails, Graph::finalize), so the comparison favours Python.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
