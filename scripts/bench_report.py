#!/usr/bin/env python3
"""Time to write the report of the 80-layer decoder project (issue 7).

usage: bench_report.py BUILD_DIR [extra aclgi_report_bench arguments]

Runs BUILD_DIR/bench/aclgi_report_bench (Google Benchmark; bench/report/report_bench.cpp): it makes
the project once (the generated 80-layer decoder imported with its passes and simulated, 100 calls)
and times writing its report as JSON and HTML (and PDF where built), each from the project file, as
`aclgraph-inspector report PROJECT -o FILE` does. Speed is reported against the baseline measured in
the same run, reading the project's runs (what any report of them must do), never asserted.
"""
import json
import os
import subprocess
import sys
import tempfile

BASELINE = "BM_Report_Decoder80_ReadRuns_Baseline"


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = os.path.join(sys.argv[1], "bench", "aclgi_report_bench")
    with tempfile.TemporaryDirectory(prefix="aclgi-report-bench-") as work:
        out = os.path.join(work, "results.json")
        env = dict(os.environ, ACLGI_BENCH_REPORT_DIR=work, QT_QPA_PLATFORM="offscreen")
        done = subprocess.run([exe, f"--benchmark_out={out}", "--benchmark_out_format=json", *sys.argv[2:]],
                              env=env)
        if done.returncode != 0:
            print(f"bench_report.py: {exe} failed ({done.returncode})", file=sys.stderr)
            return 1
        with open(out) as f:
            runs = [r for r in json.load(f)["benchmarks"] if r.get("run_type", "iteration") == "iteration"]
    times = {}
    for r in runs:
        if not r.get("error_occurred"):
            times.setdefault(r["run_name"].split("/")[0], []).append((r["real_time"], r.get("file_kib")))
    base = times.get(BASELINE)
    if not base:
        print("bench_report.py: the baseline did not run", file=sys.stderr)
        return 1
    base_ms = sum(t for t, _ in base) / len(base)
    print()
    print(f"Report of the 80-layer decoder project (100 calls), against {BASELINE} ({base_ms:.1f} ms):")
    print(f"{'benchmark':<36} {'ms':>9} {'file KiB':>9} {'vs baseline':>12}")
    for name, vals in times.items():
        ms = sum(t for t, _ in vals) / len(vals)
        kib = vals[-1][1]
        print(f"{name:<36} {ms:>9.1f} {'' if kib is None else f'{kib:.0f}':>9} {ms / base_ms:>11.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
