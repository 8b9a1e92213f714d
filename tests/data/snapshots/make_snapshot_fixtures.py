#!/usr/bin/env python3
"""Writes the memory snapshot fixtures of tests/engine/snapshot_reader_test.cpp, with Python's
standard library only (pickle, deterministic): the dicts torch.cuda.memory._snapshot() and
torch_npu.npu.memory._snapshot() return (reference: pytorch-artifact-formats.md §2c), produced by a
small model of the caching allocator (Alloc below) so that each trace agrees with the final segments,
as a real recording does. manifest.json holds, per fixture, what that model says the reader must
find (per pool: segments, reserved, allocated, and the peaks over the trace window).

usage: make_snapshot_fixtures.py [OUT_DIR]            the committed fixtures (default: this folder)
       make_snapshot_fixtures.py --large FILE --mib N  one large snapshot for bench/ (not committed)

No GPU was used: these are synthetic. Real recordings are left for a machine with one.
"""
import json
import os
import pickle
import pickletools
import random
import sys

MIB = 1 << 20
KEY = {}


def frames(*spec):
    return [{"filename": f, "line": l, "name": n} for f, l, n in spec]


EAGER = frames(("/usr/lib/python3/site-packages/torch/cuda/memory.py", 100, "_record_memory_history"),
               ("/work/model.py", 17, "forward"),
               ("/work/train.py", 30, "main"))
CUDA_CAPTURE = frames(("??", 0, "torch::unwind::unwind()"),
                      ("/usr/lib/python3/site-packages/torch/cuda/graphs.py", 188, "capture_begin"),
                      ("/usr/lib/python3/site-packages/torch/cuda/graphs.py", 183, "__enter__"),
                      ("/work/train.py", 42, "capture_step"),
                      ("/work/train.py", 60, "main"))
TREES = frames(("/tmp/torchinductor_user/ab/cabc.py", 88, "call"),
               ("/usr/lib/python3/site-packages/torch/_inductor/cudagraph_trees.py", 1012, "_record"),
               ("/usr/lib/python3/site-packages/torch/_inductor/cudagraph_trees.py", 2150, "record_function"),
               ("/work/serve.py", 12, "decode_step"))
TREES[0].update(fx_node_op="call_function", fx_node_name="mm_1", fx_original_trace="x @ w")
ACLGRAPH = frames(("/usr/lib/python3/site-packages/torchair/_acl_concrete_graph/acl_graph.py", 540, "capture"),
                  ("/usr/lib/python3/site-packages/torchair/_acl_concrete_graph/acl_graph.py", 470,
                   "compile_for_graph_key"),
                  ("/work/npu_model.py", 77, "forward"))


class Alloc:
    """The caching allocator as the snapshot shows it: segments of blocks, free neighbours merged."""

    def __init__(self, device=0):
        self.device, self.segs, self.trace, self.t = device, {}, [], 1000
        self.history = []  # (reserved, allocated) per pool after each entry

    def _entry(self, action, addr, size, stream=0, fr=None, pool=None, **extra):
        self.t += 7
        e = {"action": action, "addr": addr, "size": size, "stream": stream, "time_us": self.t,
             "frames": fr if fr is not None else EAGER}
        if pool is not None:
            e["pool_id"] = pool
        e.update(extra)
        self.trace.append(e)
        self.history.append(self.totals())

    def totals(self):
        t = {}
        for s in self.segs.values():
            r, a = t.get(s["pool"], (0, 0))
            t[s["pool"]] = (r + s["size"], a + sum(b[0] for b in s["blocks"].values() if b[2] == "active_allocated"))
        return t

    def seg_alloc(self, addr, size, pool=(0, 0), stream=0, fr=None, expandable=False):
        self.segs[addr] = {"size": size, "pool": pool, "stream": stream, "frames": fr or EAGER,
                           "expandable": expandable, "blocks": {addr: [size, 0, "inactive", []]}}
        self._entry("segment_map" if expandable else "segment_alloc", addr, size, stream, fr, pool)

    def seg_free(self, addr):
        s = self.segs.pop(addr)
        assert len(s["blocks"]) == 1 and s["blocks"][addr][2] == "inactive"
        self._entry("segment_free", addr, s["size"], s["stream"], pool=s["pool"])

    def _seg_of(self, addr):
        return next(a for a, s in self.segs.items() if a <= addr < a + s["size"])

    def alloc(self, addr, requested, fr=None, pool=None):
        s = self.segs[self._seg_of(addr)]
        size = (requested + 511) // 512 * 512
        start = max(a for a in s["blocks"] if a <= addr)
        free = s["blocks"].pop(start)
        assert free[2] == "inactive" and start + free[0] >= addr + size
        if start < addr:
            s["blocks"][start] = [addr - start, 0, "inactive", []]
        s["blocks"][addr] = [size, requested, "active_allocated", fr or EAGER]
        if addr + size < start + free[0]:
            s["blocks"][addr + size] = [start + free[0] - addr - size, 0, "inactive", []]
        self._entry("alloc", addr, requested, s["stream"], fr, pool)

    def free_requested(self, addr, spelling="active_pending_free"):
        s = self.segs[self._seg_of(addr)]
        s["blocks"][addr][2] = spelling
        self._entry("free_requested", addr, s["blocks"][addr][1], s["stream"])

    def free(self, addr):
        s = self.segs[self._seg_of(addr)]
        b = s["blocks"][addr]
        self._entry("free_requested", addr, b[1], s["stream"]) if b[2] == "active_allocated" else None
        b[2:] = ["inactive", []]
        b[1] = 0
        blocks = sorted(s["blocks"].items())  # merge free neighbours
        merged = []
        for a, blk in blocks:
            if merged and merged[-1][1][2] == "inactive" and blk[2] == "inactive":
                merged[-1][1][0] += blk[0]
            else:
                merged.append([a, blk])
        s["blocks"] = {a: blk for a, blk in merged}
        self.trace[-1:] = self.trace[-1:]
        self.t += 7
        self.trace.append({"action": "free_completed", "addr": addr, "size": self.trace[-1]["size"] if
                           self.trace and self.trace[-1]["addr"] == addr else 0, "stream": s["stream"],
                           "time_us": self.t, "frames": EAGER})
        self.history.append(self.totals())

    def segments(self):
        out = []
        for addr in sorted(self.segs):
            s = self.segs[addr]
            blocks = [{"address": a, "size": b[0], "requested_size": b[1], "state": b[2], "frames": b[3]}
                      for a, b in sorted(s["blocks"].items())]
            active = [b for b in blocks if b["state"] != "inactive"]
            out.append({"device": self.device, "address": addr, "total_size": s["size"],
                        "allocated_size": sum(b["size"] for b in blocks if b["state"] == "active_allocated"),
                        "active_size": sum(b["size"] for b in active),
                        "requested_size": sum(b["requested_size"] for b in active), "stream": s["stream"],
                        "segment_type": "small" if s["size"] == 2 * MIB else "large",
                        "segment_pool_id": s["pool"], "is_expandable": s["expandable"], "frames": s["frames"],
                        "blocks": blocks})
        return out

    def expected(self, window_start=0):
        """Per pool of the final state: segments, reserved, allocated, and peaks over the window."""
        pools = {}
        states = [self.history[window_start - 1] if window_start else {}] + self.history[window_start:]
        for s in self.segments():
            p = pools.setdefault(str(tuple(s["segment_pool_id"])), {"segments": 0, "reserved": 0, "allocated": 0})
            p["segments"] += 1
            p["reserved"] += s["total_size"]
            p["allocated"] += s["allocated_size"]
        for st in states:
            for pool, (r, a) in st.items():
                p = pools.setdefault(str(tuple(pool)), {"segments": 0, "reserved": 0, "allocated": 0})
                p["peak_reserved"] = max(p.get("peak_reserved", p["reserved"]), r)
                p["peak_allocated"] = max(p.get("peak_allocated", p["allocated"]), a)
        for p in pools.values():
            p.setdefault("peak_reserved", p["reserved"])
            p.setdefault("peak_allocated", p["allocated"])
        return pools


def settings():
    return {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False", "max_split_size": -1,
            "garbage_collection_threshold": 0.0, "expandable_segments": False,
            "roundup_power2_divisions": {"1": 0, "2": 0}}


def simple():
    a = Alloc()
    base = 0x7F0000000000
    a.seg_alloc(base, 20 * MIB)
    a.alloc(base, 4 * MIB)
    a.alloc(base + 4 * MIB, 1000000)
    a.free(base + 4 * MIB)
    a.seg_alloc(base + 32 * MIB, 2 * MIB)
    a.alloc(base + 32 * MIB, 512)
    a.alloc(base + 32 * MIB + 512, 1000)
    a.free_requested(base + 32 * MIB + 512)
    return a


def graph_pools():
    a = Alloc()
    base = 0x7F1000000000
    a.seg_alloc(base, 20 * MIB)
    a.alloc(base, 2 * MIB)
    a.seg_alloc(base + 64 * MIB, 20 * MIB, pool=(0, 1), stream=94000000000001, fr=CUDA_CAPTURE)
    a.alloc(base + 64 * MIB, 8 * MIB, fr=CUDA_CAPTURE, pool=(0, 1))
    a.alloc(base + 72 * MIB, 4 * MIB, fr=CUDA_CAPTURE, pool=(0, 1))
    a.free(base + 72 * MIB)
    a.seg_alloc(base + 128 * MIB, 2 * MIB, pool=(1, 0), stream=94000000000002, fr=TREES)
    a.alloc(base + 128 * MIB, 4096, fr=TREES, pool=(1, 0))
    a.trace[-1]["compile_context"] = "[0/0] forward"
    a.seg_alloc(base + 192 * MIB, 20 * MIB, pool=(0, 2), stream=94000000000003, fr=ACLGRAPH)
    a.alloc(base + 192 * MIB, MIB + 512, fr=ACLGRAPH, pool=(0, 2))
    a.seg_alloc(base + 256 * MIB, 20 * MIB, pool=(0, 3))  # a private pool nobody explains
    for e in a.trace:
        if e["action"] == "segment_alloc" and e["addr"] == base + 256 * MIB:
            e["frames"] = []
    a.segs[base + 256 * MIB]["frames"] = []
    return a


def ring_buffer():
    a = Alloc()
    base = 0x7F2000000000
    a.seg_alloc(base, 20 * MIB)
    a.alloc(base, 3 * MIB)
    a.alloc(base + 3 * MIB, 5 * MIB)
    a.seg_alloc(base + 64 * MIB, 20 * MIB)
    a.alloc(base + 64 * MIB, 6 * MIB)
    start = len(a.trace)  # the ring buffer kept only what follows
    a.free(base + 3 * MIB)
    a.free(base + 64 * MIB)
    a.seg_free(base + 64 * MIB)
    a.alloc(base + 3 * MIB, 2 * MIB)
    a.free(base + 3 * MIB)
    return a, start


def big_address():
    a = Alloc()
    base = 0x8000000000000000 + 0x7F3000000000  # >= 2^63: pickle writes a 9-byte LONG1
    a.seg_alloc(base, 2 * MIB)
    a.alloc(base, 4096)
    a.alloc(base + 4096, 8192)
    a.free_requested(base + 4096, spelling="active_awaiting_free")
    return a


def expandable():
    a = Alloc()
    base = 0x7F4000000000
    a.seg_alloc(base, 20 * MIB, expandable=True)
    a.alloc(base, 10 * MIB)
    # the segment grows: a second mapping next to the first merges with it
    a.segs[base]["size"] += 20 * MIB
    a.segs[base]["blocks"][base + 10 * MIB][0] += 20 * MIB
    a._entry("segment_map", base + 20 * MIB, 20 * MIB)
    a.alloc(base + 10 * MIB, 25 * MIB)
    a.free(base + 10 * MIB)
    a.segs[base]["size"] -= 20 * MIB  # and shrinks again
    a.segs[base]["blocks"][base + 10 * MIB][0] -= 20 * MIB
    a._entry("segment_unmap", base + 20 * MIB, 20 * MIB)
    a.t += 7
    a.trace.append({"action": "oom", "size": 80 * 1024 * MIB, "stream": 0, "time_us": a.t, "device_free": 123 * MIB,
                    "frames": EAGER})
    a.history.append(a.totals())
    a.t += 7
    a.trace.append({"action": "annotate", "addr": 0, "size": 0, "stream": 0, "time_us": a.t,
                    "user_metadata": "step 3 begins"})
    a.history.append(a.totals())
    return a


def document(a, start=0):
    return {"segments": a.segments(), "device_traces": [a.trace[start:]], "allocator_settings": settings()}


def write(out, name, obj, protocol=4):
    data = pickle.dumps(obj, protocol=protocol)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    return data


def main(out):
    manifest = {}
    cases = [("simple.pickle", simple(), 0, 4), ("graph_pools.pickle", graph_pools(), 0, 4)]
    ring, start = ring_buffer()
    cases += [("ring_buffer.pickle", ring, start, 4), ("big_address.pickle", big_address(), 0, 4),
              ("expandable.pickle", expandable(), 0, 4), ("protocol2.pickle", simple(), 0, 2),
              ("protocol5.pickle", simple(), 0, 5)]
    for name, a, start, protocol in cases:
        data = write(out, name, document(a, start), protocol)
        manifest[name] = {"protocol": protocol, "bytes": len(data), "trace_entries": len(a.trace) - start,
                          "pools": a.expected(start)}
    # The old form: memory_snapshot()'s bare segment list, blocks with `history` instead of address.
    legacy = simple().segments()
    for s in legacy:
        for b in s["blocks"]:
            b["history"] = [{"addr": b["address"], "real_size": b["requested_size"], "frames": b["frames"]}]
            del b["address"], b["frames"], b["requested_size"]
    write(out, "bare_list.pickle", legacy, 2)
    whole = pickle.dumps(document(simple()), protocol=4)
    with open(os.path.join(out, "truncated.pickle"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    corrupt = bytearray(whole)
    at = next(pos for _, _, pos in pickletools.genops(whole) if pos >= 300)
    corrupt[at] = 0xFF  # no opcode
    with open(os.path.join(out, "corrupt.pickle"), "wb") as f:
        f.write(bytes(corrupt))
    write(out, "class_reference.pickle", {"segments": [], "device_traces": [], "hook": os.system}, 4)
    huge = document(simple())
    huge["segments"][0]["address"] = (1 << 64) + 5
    write(out, "wide_int.pickle", huge, 4)
    manifest["corrupt.pickle"] = {"offset": at}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


def large(path, mib):
    """A snapshot of about `mib` MiB: many segments and a long device trace sharing frame lists. The
    trace is a consistent history that ends at the segments: per segment, segment_alloc, twenty 1 MiB
    allocs, seven of them freed, then 55 alloc/free cycles on those seven (200 entries a segment)."""
    rng = random.Random(7)
    stacks = [frames(*[(f"/work/model/layer_{rng.randrange(40)}.py", rng.randrange(1, 900), "forward")
                       for _ in range(rng.randrange(3, 9))]) for _ in range(500)]
    base = 0x7F0000000000
    segments, trace = [], []
    approx = 0
    i = 0
    t = 1700000000000000

    def entry(action, addr, size, pool):
        nonlocal t
        t += 1
        e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": rng.choice(stacks)}
        if pool != (0, 0):
            e["pool_id"] = pool
        trace.append(e)

    while approx < mib * MIB:
        addr = base + i * 32 * MIB
        pool = (0, i % 3)
        blocks = [{"address": addr + k * MIB, "size": MIB, "requested_size": MIB - 8,
                   "state": "active_allocated" if k % 3 else "inactive", "frames": rng.choice(stacks)}
                  for k in range(20)]
        segments.append({"device": 0, "address": addr, "total_size": 20 * MIB, "allocated_size": 13 * MIB,
                         "active_size": 13 * MIB, "requested_size": 13 * (MIB - 8), "stream": 0,
                         "segment_type": "large", "segment_pool_id": pool, "is_expandable": False,
                         "frames": rng.choice(stacks), "blocks": blocks})
        entry("segment_alloc", addr, 20 * MIB, pool)
        for k in range(20):
            entry("alloc", addr + k * MIB, MIB - 8, pool)
        freed = [k for k in range(20) if k % 3 == 0]
        for k in freed:
            entry("free_requested", addr + k * MIB, MIB - 8, pool)
            entry("free_completed", addr + k * MIB, MIB - 8, pool)
        for c in range(55):
            k = freed[c % len(freed)]
            for action in ("alloc", "free_requested", "free_completed"):
                entry(action, addr + k * MIB, MIB - 8, pool)
        approx += 200 * 60 + 20 * 50
        i += 1
    with open(path, "wb") as f:
        pickle.dump({"segments": segments, "device_traces": [trace], "allocator_settings": settings()}, f)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--large":
        large(sys.argv[2], int(sys.argv[4]) if len(sys.argv) > 4 else 100)
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
