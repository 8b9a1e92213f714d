#!/usr/bin/env python3
"""The Python baselines of BM_ReadPickle_Snapshot100MB, measured in the same run as aclgi_bench.

Usage: scripts/bench_pickle.py make FILE [--mib N]
       scripts/bench_pickle.py compare RESULTS_JSON FILE [--repeat N]

`make` writes a pickle of about N MiB (default 100) shaped like a PyTorch memory snapshot
(torch.cuda.memory._snapshot(): segments with blocks and frames, device traces), with the default
protocol, so strings shared between frames become memo references as they do in real snapshots.
Deterministic (seeded).

`compare` times, over exactly that file, Python's pickletools.genops (decoding every opcode and
argument, which is what our reader does before it builds values; it builds no objects) and
pickle.loads (which builds the objects with C code), best of N runs after reading the file once,
and prints them next to the C++ read time from RESULTS_JSON (Google Benchmark JSON, best real_time of
BM_ReadPickle_Snapshot100MB) and the peak memory counters the benchmark reported. Called by
scripts/bench.sh; prints nothing when the benchmark did not run.
"""
import argparse
import json
import pickle
import pickletools
import random
import resource
import statistics
import sys
import time

BENCH = "BM_ReadPickle_Snapshot100MB"
TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def snapshot(count):
    rng = random.Random(42)
    files = [f"/usr/lib/python3/site-packages/model/layer_{i}.py" for i in range(40)]
    names = ["forward", "_call_impl", "__call__", "linear", "matmul", "attention", "rms_norm", "decode"]
    frames_pool = [[{"filename": rng.choice(files), "line": rng.randrange(1, 900), "name": rng.choice(names)}
                    for _ in range(rng.randrange(2, 9))] for _ in range(2000)]
    segments, traces = [], []
    address = 0x7F0000000000
    for _ in range(count):
        blocks = []
        seg_size = 2 << 20
        for _ in range(rng.randrange(4, 24)):
            b = rng.choice([512, 1024, 4096, 65536, 1 << 20])
            blocks.append({"address": address, "size": b, "requested_size": b - rng.randrange(0, 64),
                           "state": rng.choice(["active_allocated", "inactive", "active_pending_free"]),
                           "frames": rng.choice(frames_pool)})
            address += b
        segments.append({"device": 0, "address": address, "total_size": seg_size, "allocated_size": seg_size // 2,
                         "active_size": seg_size // 2, "requested_size": seg_size // 3, "stream": 0,
                         "segment_type": "large", "segment_pool_id": (0, rng.randrange(0, 8)),
                         "is_expandable": False, "frames": rng.choice(frames_pool), "blocks": blocks})
        for _ in range(20):
            traces.append({"action": rng.choice(["alloc", "free_requested", "free_completed", "segment_alloc"]),
                           "addr": address + rng.randrange(0, 1 << 30), "size": rng.choice([512, 4096, 1 << 20]),
                           "stream": 0, "time_us": rng.randrange(0, 1 << 40), "frames": rng.choice(frames_pool)})
    return {"segments": segments, "device_traces": [traces], "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}


def make(args):
    sample = 400
    per_segment = len(pickle.dumps(snapshot(sample))) / sample
    count = int((args.mib << 20) / per_segment)
    data = pickle.dumps(snapshot(count))
    # Shared frames cost less the more segments there are: correct once.
    count = int(count * (args.mib << 20) / len(data))
    data = pickle.dumps(snapshot(count))
    with open(args.file, "wb") as f:
        f.write(data)
    print(f"bench_pickle.py: wrote {args.file}, {len(data) / 2**20:.1f} MiB")


def cpp_result(path):
    with open(path) as f:
        runs = json.load(f).get("benchmarks", [])
    best = None
    for r in runs:
        if r.get("run_name", r["name"]).split("/")[0] != BENCH or r.get("run_type", "iteration") != "iteration":
            continue
        if r.get("error_occurred"):
            return None, r.get("error_message", "error")
        t = r["real_time"] * TO_SECONDS[r.get("time_unit", "ns")]
        if best is None or t < best[0]:
            best = (t, r)
    return best, None


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def compare(args):
    best, error = cpp_result(args.results)
    if error:
        print(f"{BENCH}: error: {error}")
        return
    if best is None:
        return
    cpp, counters = best
    with open(args.file, "rb") as f:
        data = f.read()
    mib = len(data) / 2**20

    def genops():
        for _ in pickletools.genops(data):
            pass

    g_best, g_median = timed(genops, args.repeat)
    l_best, _ = timed(lambda: pickle.loads(data), args.repeat)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print()
    print(f"Reading a {mib:.1f} MiB pickle (memory-snapshot shaped), same file, same run:")
    print(f"  readPickle (C++, safe, value tree)   {cpp:8.3f} s   {mib / cpp:7.1f} MiB/s")
    print(f"  pickletools.genops (Python)          {g_best:8.3f} s   {mib / g_best:7.1f} MiB/s   "
          f"(median {g_median:.3f} s)  -> ours {g_best / cpp:.1f}x faster")
    print(f"  pickle.loads (C, builds objects)     {l_best:8.3f} s   {mib / l_best:7.1f} MiB/s   "
          f"-> ours {l_best / cpp:.2f}x its speed")
    if "doc_mib" in counters:
        print(f"  our value tree: {counters['doc_mib']:.1f} MiB ({counters['doc_mib'] / mib:.2f}x the input); "
              f"peak RSS of the benchmark process {counters.get('peak_rss_mib', 0):.0f} MiB "
              f"({counters.get('peak_rss_mib', 0) / mib:.2f}x the input, the input itself included)")
    print(f"  peak RSS of this Python process (file + pickle.loads objects): {rss:.0f} MiB ({rss / mib:.2f}x the input)")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("file")
    m.add_argument("--mib", type=int, default=100)
    c = sub.add_parser("compare")
    c.add_argument("results")
    c.add_argument("file")
    c.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    make(args) if args.cmd == "make" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
