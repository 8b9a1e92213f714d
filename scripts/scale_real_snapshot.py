#!/usr/bin/env python3
"""A real memory snapshot made large by repeating its own history, for bench/ (issue 18).

usage: scripts/scale_real_snapshot.py SOURCE.pickle OUT.pickle --mib N

SOURCE is a snapshot PyTorch wrote with `_record_memory_history()` from the start of the process
(default: tests/data/real/compile/c_ind_static.pickle, 9,545 trace entries of CUDA Graph Trees, or
any other whose trace starts before its first segment). The output repeats SOURCE's whole history
k = 0, 1, 2, ... times, one after another, until the file is about N MiB:

- repetition k moves every address (trace entries, segments, blocks) up by k times the span of the
  source's addresses rounded up to 1 GiB, so no two repetitions touch the same memory, and every
  time_us by k times the source's duration plus one second;
- each repetition's trace is the source's, entry for entry (action, size, stream, frames,
  compile_context, user_metadata); its final segments are the source's final segments, moved.

So the result is a consistent allocator history that ends at its segments, and it holds what real
files hold: real frames, shared the way PyTorch's dump shares them (one dict per distinct frame,
referenced by every entry that has it), real key sets and value mixes. Nothing is random.

The source must begin with an empty allocator (no block alive before its first trace entry);
otherwise a repetition would free what it never allocated. The script checks this and refuses.
"""
import argparse
import copy
import os
import pickle
import sys

GIB = 1 << 30


def addresses(snap):
    lo, hi = None, None
    for s in snap["segments"]:
        a, b = s["address"], s["address"] + s["total_size"]
        lo = a if lo is None else min(lo, a)
        hi = b if hi is None else max(hi, b)
    for trace in snap["device_traces"]:
        for e in trace:
            if e.get("action") in ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
                                   "segment_map", "segment_unmap"):
                a, b = e["addr"], e["addr"] + e["size"]
                lo = a if lo is None else min(lo, a)
                hi = b if hi is None else max(hi, b)
    return lo, hi


def check_starts_empty(snap, path):
    for d, trace in enumerate(snap["device_traces"]):
        live = set()
        for i, e in enumerate(trace):
            act = e.get("action")
            if act == "segment_alloc" or act == "segment_map":
                continue
            if act == "alloc":
                live.add(e["addr"])
            elif act == "free_completed":
                if e["addr"] not in live:
                    sys.exit(f"{path}: device {d} trace entry {i}: frees {e['addr']:#x}, which the trace never "
                             "allocated: the history does not start with an empty allocator")
                live.discard(e["addr"])


def moved(obj_list, key, delta):
    out = []
    for o in obj_list:
        c = dict(o)  # shallow: frames lists and dicts stay shared, as in PyTorch's dump
        if key in c:
            c[key] += delta
        out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source", nargs="?",
                    default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "real", "compile",
                                         "c_ind_static.pickle"))
    ap.add_argument("out")
    ap.add_argument("--mib", type=int, default=1024)
    a = ap.parse_args()
    with open(a.source, "rb") as f:
        src = pickle.load(f)
    check_starts_empty(src, a.source)
    lo, hi = addresses(src)
    span = ((hi - lo) + GIB - 1) // GIB * GIB
    times = [e["time_us"] for t in src["device_traces"] for e in t if "time_us" in e]
    duration = (max(times) - min(times) + 1_000_000) if times else 0
    # The first repetition carries the frames; later ones refer to them through the memo, so they
    # cost less: size two documents to learn the cost of one more repetition.
    one = len(pickle.dumps(repeat(src, 1, span, duration), protocol=4))
    two = len(pickle.dumps(repeat(src, 2, span, duration), protocol=4))
    reps = max(1, 1 + round((a.mib * (1 << 20) - one) / max(1, two - one)))
    out = repeat(src, reps, span, duration)
    with open(a.out, "wb") as f:
        pickle.dump(out, f, protocol=4)
    entries = sum(len(t) for t in out["device_traces"])
    print(f"{a.out}: {os.path.getsize(a.out) / (1 << 20):.1f} MiB, {reps} repetitions of {a.source}, "
          f"{entries} trace entries, {len(out['segments'])} segments")


def repeat(src, reps, span, duration):
    out = {k: v for k, v in src.items() if k not in ("segments", "device_traces")}
    out["segments"] = []
    out["device_traces"] = [[] for _ in src["device_traces"]]
    for k in range(reps):
        d_addr, d_time = k * span, k * duration
        for s in src["segments"]:
            c = dict(s)
            c["address"] += d_addr
            c["blocks"] = moved(s["blocks"], "address", d_addr)
            out["segments"].append(c)
        for dev, trace in enumerate(src["device_traces"]):
            dst = out["device_traces"][dev]
            for e in trace:
                c = dict(e)
                if "addr" in c and c.get("action") not in ("oom", "snapshot", "annotate"):
                    c["addr"] += d_addr
                if "time_us" in c:
                    c["time_us"] += d_time
                dst.append(c)
    return out


if __name__ == "__main__":
    main()
