#!/usr/bin/env python3
"""A memory snapshot crafted to share nothing, for measuring the reader's memory (issue 19).

usage: scripts/make_unshared_snapshot.py OUT.pickle --mib N [--unique]

PyTorch's dump shares one dict per distinct frame through the pickle memo (pickle memoizes by object
identity), so a real file's frames cost their bytes once. This file is the worst case for a reader
that relied on that: every frame dict, every filename and every name is a distinct object, so pickle
writes each one out in full at every use. By default the texts repeat (40 distinct stacks of 12
frames, written again for every entry: sharing by content is possible, sharing by the memo is not);
with --unique no two frames have the same text at all, so nothing can be shared and the reader must
hold every text it keeps.

The history is consistent: one 1 GiB segment, then blocks allocated and freed in turn (alloc,
free_requested, free_completed), one block left allocated at the end as the final segment says.
"""
import argparse
import pickle

GIB = 1 << 30


def text(*parts):
    return "".join(parts)  # a new str object at each call: pickle cannot memoize it


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mib", type=float, default=100)
    ap.add_argument("--unique", action="store_true")
    args = ap.parse_args()

    base = 0x7F0000000000
    serial = [0]

    def frames(k):
        out = []
        for j in range(12):
            serial[0] += 1
            tag = str(serial[0]) if args.unique else str(k % 40)
            out.append({"filename": text("/usr/lib/python3/site-packages/torch/nn/modules/module_", tag, "_", str(j),
                                         ".py"),
                        "line": 100 + j,
                        "name": text("_call_impl_", tag, "_", str(j))})
        return out

    trace = [{"action": "segment_alloc", "addr": base, "size": GIB, "stream": 0, "time_us": 1, "frames": frames(0)}]
    # About 1.2 KB per entry with 12 frames; three entries per block.
    entries = int(args.mib * (1 << 20) / 1180)
    t = 2
    k = 0
    while len(trace) + 3 < entries:
        k += 1
        size = 512 * (1 + k % 64)
        for action in ("alloc", "free_requested", "free_completed"):
            trace.append({"action": action, "addr": base, "size": size, "stream": 0, "time_us": t,
                          "frames": frames(k)})
            t += 1
    last = {"action": "alloc", "addr": base, "size": 512, "stream": 0, "time_us": t, "frames": frames(k + 1)}
    trace.append(last)
    blocks = [{"address": base, "size": 512, "requested_size": 512, "state": "active_allocated",
               "frames": last["frames"]},
              {"address": base + 512, "size": GIB - 512, "requested_size": 0, "state": "inactive", "frames": []}]
    segment = {"device": 0, "address": base, "total_size": GIB, "allocated_size": 512, "active_size": 512,
               "requested_size": 512, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
               "is_expandable": False, "frames": trace[0]["frames"], "blocks": blocks}
    snap = {"segments": [segment], "device_traces": [trace],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1}}
    with open(args.out, "wb") as f:
        pickle.dump(snap, f, protocol=4)


if __name__ == "__main__":
    main()
