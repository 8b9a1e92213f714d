#!/usr/bin/env python3
"""The run-log import benchmark and its `grep -c` baseline, measured in the same run.

Usage: scripts/bench_runlog.py make OUT [--mib N]
       scripts/bench_runlog.py run FILE [--bench ACLGI_BENCH] [--repeat N]

`make` writes a log of at least N MiB (default 1024) by repeating, whole, two logs: the real PyTorch
2.11 stderr of tests/data/real/logs/c_ind_static.log (TORCH_LOGS with +cudagraphs: recompiles,
warm-ups, recordings, re-records and their checks, the script's own foreign lines) and the TorchAir
logger-form log of sample 09 (resources/samples/logs/, written by the simulator: captures,
replays, memory states over several lines, the capture limit). Its lines keep their pids, so the
file is two processes, read as two runs. Deterministic.

`run` times, in one run: `grep -c -e TORCHAIR -e __cudagraphs FILE` (best of N, a fresh process
each), then the aclgi_bench benchmarks BM_ImportRunLog, BM_ReadRunLog (the reader alone) and
BM_ImportRunLog_CancelHalfway alone in a fresh process (ACLGI_BENCH_RUNLOG=FILE), and prints the import's MiB/s, its ratio to grep's, its peak
RSS against the file's size, the progress reports, and where the cancel stopped. Speed is reported,
never asserted.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [os.path.join(ROOT, "tests/data/real/logs/c_ind_static.log"),
           os.path.join(ROOT, "resources/samples/logs/09_capture_limit_fallback.torchair.log")]


def make(args):
    parts = []
    for source in SOURCES:
        with open(source, "rb") as f:
            data = f.read()
        if not data.endswith(b"\n"):
            data += b"\n"
        parts.append(data)
    block = b"".join(parts)
    reps = max(1, -(-(args.mib << 20) // len(block)))
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        for _ in range(reps):
            out.write(block)
    os.replace(tmp, args.out)
    print(f"bench_runlog.py: wrote {args.out}, {os.path.getsize(args.out) / 2**20:.1f} MiB "
          f"({reps} repetitions of {', '.join(os.path.relpath(s, ROOT) for s in SOURCES)})")


def run(args):
    size = os.path.getsize(args.file)
    best = None
    count = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        out = subprocess.run(["grep", "-c", "-e", "TORCHAIR", "-e", "__cudagraphs", args.file],
                             capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        count = out.stdout.strip()
        best = seconds if best is None else min(best, seconds)
    env = dict(os.environ, ACLGI_BENCH_RUNLOG=args.file)
    out = subprocess.run([args.bench, "--benchmark_filter=BM_(Import|Read)RunLog", "--benchmark_format=json"],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        sys.exit(f"bench_runlog.py: {args.bench} failed: {out.stderr[-2000:]}")
    results = {b["name"]: b for b in json.loads(out.stdout)["benchmarks"]}
    imp = results.get("BM_ImportRunLog/iterations:1")
    cancel = results.get("BM_ImportRunLog_CancelHalfway/iterations:1")
    if not imp or imp.get("error_occurred"):
        sys.exit(f"bench_runlog.py: BM_ImportRunLog did not run: {imp and imp.get('error_message')}")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[imp["time_unit"]]
    seconds = imp["real_time"] * unit
    mib = size / 2**20
    print(f"\nRun log import ({mib:.0f} MiB, {count} TorchAir/cudagraphs lines), same run:")
    print(f"  grep -c            {best:8.2f} s  {mib / best:8.1f} MiB/s   (best of {args.repeat})")
    print(f"  import into .aclgi {seconds:8.2f} s  {mib / seconds:8.1f} MiB/s   "
          f"{seconds / best:.1f}x grep's time")
    print(f"  stored: {imp['calls']:.0f} calls, {imp['events']:.0f} steps; "
          f"{imp['progress_reports']:.0f} progress reports")
    print(f"  peak RSS {imp['peak_rss_mib']:.0f} MiB for a {mib:.0f} MiB file "
          f"({imp['rss_per_input']:.3f} of its size)")
    read = results.get("BM_ReadRunLog/iterations:1")
    if read and not read.get("error_occurred"):
        rseconds = read["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[read["time_unit"]]
        print(f"  reading alone      {rseconds:8.2f} s  {mib / rseconds:8.1f} MiB/s   "
              f"{rseconds / best:.1f}x grep's time (the rest of the import is SQLite)")
    if cancel and not cancel.get("error_occurred"):
        cunit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[cancel["time_unit"]]
        print(f"  cancelled at {cancel['cancelled_at'] * 100:.0f} % of the file after "
              f"{cancel['real_time'] * cunit:.2f} s; runs left in the project: {cancel['runs_left']:.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--mib", type=int, default=1024)
    r = sub.add_parser("run")
    r.add_argument("file")
    r.add_argument("--bench", default=os.path.join(ROOT, "build/bench/aclgi_bench"))
    r.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    make(args) if args.cmd == "make" else run(args)


if __name__ == "__main__":
    main()
