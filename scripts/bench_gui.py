#!/usr/bin/env python3
"""Time to first paint of the Graph tab against Graphviz's `dot` laying out the same graph unfolded.

Usage: scripts/bench_gui.py BUILD_DIR [--runs N] [--dot-timeout S] [--steps N]

Runs BUILD_DIR/bench/aclgi_gui_bench offscreen. It imports a generated 80-layer decoder into a fresh
project and opens its decode graph (2,173 nodes) in a fresh Graph panel N times. Each time it
measures from showGraph() to the first paint of the laid-out folded view: loading from the
database, grouping, the Graphviz layout off the UI thread, building the scene and painting. The
first run is cold (Graphviz's context, empty layout cache); later runs reuse the cached layout.

In the same run it times the `dot` program laying out the full graph (every node, every edge; the
file the benchmark wrote) with -Tplain, stopped after --dot-timeout seconds (default 120). The
ratio is then a lower bound. The app itself never runs `dot`: this is only the baseline.

Then BUILD_DIR/bench/aclgi_step_bench times one step of the stepper in the whole window on a
simulated run of the same decoder (9 calls), from the step until every view has caught up and
painted: with every view open (each dock floating), and, in the same run as the baseline, with only
the stepper and the Memory view open and the graph not following.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dot-timeout", type=float, default=120.0)
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    exe = os.path.join(args.build, "bench", "aclgi_gui_bench")
    if not os.access(exe, os.X_OK):
        print(f"bench_gui.py: {exe} was not built", file=sys.stderr)
        return 1
    if not shutil.which("dot"):
        print("bench_gui.py: the dot program is not installed (scripts/install-deps.sh installs graphviz)")
        return 1
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryDirectory(prefix="aclgi-gui-bench-") as work:
        done = subprocess.run([exe, work, str(args.runs)], env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            print(f"bench_gui.py: aclgi_gui_bench failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
            return 1
        result = json.loads(done.stdout.strip().splitlines()[-1])
        t0 = time.perf_counter()
        try:
            subprocess.run(["dot", "-Tplain", "-o", os.devnull, result["dot_file"]], timeout=args.dot_timeout,
                           check=True, capture_output=True)
            dot_s, finished = time.perf_counter() - t0, True
        except subprocess.TimeoutExpired:
            dot_s, finished = args.dot_timeout, False
        stepper = os.path.join(args.build, "bench", "aclgi_step_bench")
        steps = subprocess.run([stepper, os.path.join(work, "steps"), str(args.steps)], env=env, capture_output=True,
                               text=True, timeout=600)
        if steps.returncode != 0:
            print(f"bench_gui.py: aclgi_step_bench failed: {steps.stderr.strip()[-500:]}", file=sys.stderr)
            return 1
        step = json.loads(steps.stdout.strip().splitlines()[-1])
    paints = result["first_paint_ms"]
    cold, warm = paints[0] / 1e3, (sorted(paints[1:])[len(paints[1:]) // 2] / 1e3 if len(paints) > 1 else None)
    bound = "" if finished else ">= "
    print()
    print(f"Graph view, 80-layer decoder decode graph: {result['nodes']} nodes, {result['edges']} edges, "
          f"folded to {result['folded_items']} items")
    print(f"  first paint, cold:            {cold * 1e3:9.1f} ms")
    if warm is not None:
        print(f"  first paint, cached layout:   {warm * 1e3:9.1f} ms (median of {len(paints) - 1})")
    print(f"  dot -Tplain, full graph:      {bound}{dot_s:9.1f} s" + ("" if finished else " (stopped)"))
    print(f"  ratio dot / first paint cold: {bound}{dot_s / cold:.0f}x")
    print()
    all_views, alone = step["step_ms_all_views"], step["step_ms_stepper_only"]
    print(f"One step of the stepper, 80-layer decoder run ({step['events']} events, graph of "
          f"{step['nodes']} nodes), {len(all_views)} steps each:")
    print("  until every view shows the new event:")
    for name, ms in (("every view open", all_views), ("stepper and memory only", alone)):
        print(f"  {name:25s} median {median(ms):7.2f} ms   p90 {quantile(ms, 0.9):7.2f} ms   max {max(ms):7.2f} ms")
    print(f"  ratio every view / stepper only (medians): {median(all_views) / median(alone):.2f}x")
    print("  until nothing runs any more (also the read-ahead of the next step's memory):")
    for name, key in (("every view open", "idle_ms_all_views"), ("stepper and memory only", "idle_ms_stepper_only")):
        ms = step[key]
        print(f"  {name:25s} median {median(ms):7.2f} ms   p90 {quantile(ms, 0.9):7.2f} ms   max {max(ms):7.2f} ms")
    return 0


def median(xs):
    return quantile(xs, 0.5)


def quantile(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


if __name__ == "__main__":
    sys.exit(main())
