#!/usr/bin/env python3
"""End-to-end checks of `snapshot FILE [--json] [--device N]` on the memory snapshot fixtures of
tests/data/snapshots/ (made by make_snapshot_fixtures.py; manifest.json holds each pool's totals and
peaks by that script's allocator model).

usage: check_snapshot.py path/to/aclgraph-inspector path/to/tests/data
"""
import json
import pathlib
import sys

from clicheck import Checks

EXE, DATA = sys.argv[1], pathlib.Path(sys.argv[2]) / "snapshots"
REAL = pathlib.Path(sys.argv[2]) / "real"
MANIFEST = json.loads((DATA / "manifest.json").read_text())

_checks = Checks(EXE)
check, run = _checks.check, _checks.run

# --json: every pool of every fixture with the model's totals and peaks
for name, expected in MANIFEST.items():
    if "pools" not in expected:
        continue
    d = json.loads(run("snapshot", DATA / name, "--json").stdout)
    got = {f"({p['pool'][0]}, {p['pool'][1]})": p for p in d["pools"]}
    check(sorted(got) == sorted(expected["pools"]), f"{name}: pools {sorted(got)}")
    for key, e in expected["pools"].items():
        p = got.get(key, {})
        for field in ("segments", "reserved", "allocated", "peak_reserved", "peak_allocated"):
            check(p.get(field) == e[field], f"{name} {key} {field}: {p.get(field)} != {e[field]}")
    check(d["protocol"] == expected["protocol"], f"{name}: protocol {d['protocol']}")
    check(d["traces"] == [{"device": 0, "entries": expected["trace_entries"]}], f"{name}: traces {d['traces']}")

# graph attribution, in JSON and in the text
d = json.loads(run("snapshot", DATA / "graph_pools.pickle", "--json").stdout)
graphs = {tuple(p["pool"]): p["graph"] for p in d["pools"]}
check(graphs[(0, 0)] is None, f"default pool graph {graphs[(0, 0)]!r}")
check(graphs[(0, 1)] == "graph_pool_handle() pool of 1 torch.cuda.graph capture (train.py:42)", f"(0, 1): {graphs[(0, 1)]!r}")
check(graphs[(0, 2)] == "graph_pool_handle() pool of 1 TorchAir aclgraph capture (npu_model.py:77)",
      f"(0, 2): {graphs[(0, 2)]!r}")
check(graphs[(0, 3)] is None, f"(0, 3): {graphs[(0, 3)]!r}")
check(d["totals"]["segments"] == 5, f"totals {d['totals']}")
out = run("snapshot", DATA / "graph_pools.pickle").stdout
check("(0, 1)" in out and "torch.cuda.graph capture (train.py:42)" in out, f"text:\n{out}")
check("20.00 MiB" in out or "20.0 MiB" in out, f"MiB in text:\n{out}")
check("total: 5 pools, 5 segments" in out, f"total line:\n{out}")
check("capture code on its stacks: torch.cuda.graph (graphs.py:188 capture_begin)" in out, f"evidence line:\n{out}")

# the real decoder (truth.md, c_ind_static): the CUDA Graph Trees pool split by owner, with the
# TORCH_TRACE's compile ids; owners at the pool's peak sum to its peak; the peak explained
d = json.loads(run("snapshot", REAL / "compile" / "c_ind_static.pickle", "--trace", REAL / "compile" / "c_trace.log",
                   "--json").stdout)
story = d["stories"][0]
pool = next(p for p in story["pools"] if p["pool"] == [0, 1])
check(pool["kind"] == "cuda_graph_trees", f"kind {pool['kind']}")
names = [o["name"] for o in pool["owners"]]
check(sum(n.startswith("compile 0/1 recording ") for n in names) == 4, f"0/1 recordings: {names}")
check(sum(n.startswith("compile 0/2 recording ") for n in names) == 1, f"0/2 recordings: {names}")
check(sum(o["bytes_at_pool_peak"] for o in pool["owners"]) == pool["peak_allocated"], "owners sum to the pool's peak")
summary = next(p for p in d["pools"] if p["pool"] == [0, 1])
check(pool["peak_allocated"] == summary["peak_allocated"], f"story peak {pool['peak_allocated']}")
cats = {c["name"]: c["bytes"] for c in pool["at_peak"]["by_category"]}
check(cats.get("library workspace") == 33554432 and cats.get("autotuning", 0) >= 62914560, f"categories {cats}")
check(story["explained"]["allocated"] == story["peak_allocated"], "the device's peak explained")
check(len(story["explained"]["sites"]) <= 11 and story["explained"]["folded"], "sites and folded stacks")
out = run("snapshot", REAL / "compile" / "c_ind_static.pickle", "--trace", REAL / "compile" / "c_trace.log").stdout
check("peak explained: device 0" in out and "compile 0/1 recording 4" in out, f"text:\n{out}")
check("compile context" not in out and "compile_fx.py:1875" not in out.split("peak explained")[0], f"names:\n{out}")
d = json.loads(run("snapshot", REAL / "compile" / "c_ind_static.pickle", "--json", "--at", "5").stdout)
check(d["stories"][0]["explained"]["entry"] == 5 and not d["stories"][0]["explained_at_peak"], "--at 5")
run("snapshot", REAL / "compile" / "c_ind_static.pickle", "--at", "zero", expect=2)

# --device filters; a device with nothing gives no pools
d = json.loads(run("snapshot", DATA / "simple.pickle", "--json", "--device", "1").stdout)
check(d["pools"] == [] and d["traces"] == [], f"--device 1: {d['pools']} {d['traces']}")
d = json.loads(run("snapshot", DATA / "bare_list.pickle", "--json").stdout)
check(d["bare_list"] is True and d["traces"] == [], f"bare list: {d['bare_list']} {d['traces']}")

# bad input: exit 1, "error: FILE: offset N: ..."
r = run("snapshot", DATA / "truncated.pickle", expect=1)
check(r.stderr.startswith(f"error: {DATA / 'truncated.pickle'}: offset ") and "truncated" in r.stderr,
      f"truncated: {r.stderr!r}")
r = run("snapshot", DATA / "corrupt.pickle", expect=1)
check(f"{DATA / 'corrupt.pickle'}: offset {MANIFEST['corrupt.pickle']['offset']}: unknown opcode 0xff" in r.stderr, f"corrupt: {r.stderr!r}")
r = run("snapshot", DATA / "class_reference.pickle", expect=1)
check("refused" in r.stderr, f"class reference: {r.stderr!r}")
run("snapshot", DATA / "missing.pickle", expect=1)
run("snapshot", expect=2)
run("snapshot", DATA / "simple.pickle", "--device", "x", expect=2)

_checks.finish()
