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
check(graphs[(0, 1)] == "torch.cuda.graph capture from /work/train.py:42 capture_step", f"(0, 1): {graphs[(0, 1)]!r}")
check(graphs[(0, 2)] == "TorchAir aclgraph capture from /work/npu_model.py:77 forward", f"(0, 2): {graphs[(0, 2)]!r}")
check(graphs[(0, 3)] is None, f"(0, 3): {graphs[(0, 3)]!r}")
check(d["totals"]["segments"] == 5, f"totals {d['totals']}")
out = run("snapshot", DATA / "graph_pools.pickle").stdout
check("(0, 1)" in out and "torch.cuda.graph capture from /work/train.py:42 capture_step" in out, f"text:\n{out}")
check("20.00 MiB" in out or "20.0 MiB" in out, f"MiB in text:\n{out}")
check("total: 5 pools, 5 segments" in out, f"total line:\n{out}")
check("stacks tied to this pool run capture code" in out, f"evidence line:\n{out}")

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
