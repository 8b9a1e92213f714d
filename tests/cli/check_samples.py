#!/usr/bin/env python3
"""Checks `aclgraph-inspector simulate --json` on each bundled sample against the numbers worked
out by hand in docs/samples.md, and that bad input gets a clear error and exit code 1 (2 for usage).

usage: check_samples.py path/to/aclgraph-inspector path/to/resources/samples
"""
import json
import pathlib
import subprocess
import sys
import tempfile

EXE = sys.argv[1]
SAMPLES = pathlib.Path(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def simulate(path, *extra):
    r = subprocess.run([EXE, "simulate", str(path), "--json", *extra], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"simulate {path} failed ({r.returncode}): {r.stderr}")
    return json.loads(r.stdout)


def sample(prefix):
    (path,) = SAMPLES.glob(prefix + "_*.json")
    return simulate(path)


def graph(d, name):
    return next(g for g in d["graphs"] if g["name"] == name)


def pool_after(call, pool_id):
    return next(p for p in call["pools"] if p["id"] == pool_id)


def hazards(d, kind):
    return [h for h in d["hazards"] if h["kind"] == kind]


LOGITS = {8: 1024512, 16: 2048512, 32: 4096512, 64: 8192512}
PROMPT_LOGITS_BLOCK = 16777216

# 01
d = sample("01")
g1, g2 = graph(d, "graph_1"), graph(d, "graph_2")
check(g1["pool"] == "(0, 2)" and g2["pool"] == "(0, 4)", "01: pools (0, 2) and (0, 4)")
check((g1["captures"], g1["replays"]) == (1, 1), "01: prompt 1 capture 1 replay")
check(g2["keys"] == ["no_updated_input"] and (g2["captures"], g2["replays"]) == (1, 6), "01: decode key/captures")
check(d["calls"][0]["bytes_copied"] == 2048, "01: prompt copies 2048 bytes")
check(all(c["bytes_copied"] == 256 for c in d["calls"][1:]), "01: decode copies 256 bytes")
check(pool_after(d["calls"][0], "(0, 2)")["allocated_size"] == PROMPT_LOGITS_BLOCK, "01: prompt pool allocated")
check(all(pool_after(c, "(0, 4)")["allocated_size"] == LOGITS[16] for c in d["calls"][1:]), "01: decode allocated")
check(d["hazards"] == [], "01: no hazards")

# 02
d = sample("02")
g2 = graph(d, "graph_2")
check(g2["keys"] == ["[8]", "[16]", "[32]", "[64]"], "02: keys")
check((g2["captures"], sum(g2["recaptures"].values()), g2["replays"]) == (4, 0, 12), "02: captures/replays")
check(d["calls"][1]["outputs_rebuilt"] == 0, "02: first decode key retains")
check(all(c["outputs_rebuilt"] == 1 for c in d["calls"][2:]), "02: later calls rebuild")
for c in d["calls"][1:]:
    batch = int(c["key"].strip("[]"))
    check(pool_after(c, "(0, 4)")["allocated_size"] == LOGITS[batch], f"02: call {c['index']} allocated")
overwrite = [w for w in d["warnings"] if w.startswith("Because acl graph fixes memory addresses")]
check(len(overwrite) == 1, "02: overwrite warning once")
# Max over keys, not the sum: the pool peaks as a batch-64-only run does.
scenario = json.loads(next(SAMPLES.glob("02_*.json")).read_text())
scenario["calls"] = [c for c in scenario["calls"] if c["graph"] == "prompt" or c["symbols"].get("s0") == 64]
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(scenario, f)
only64 = simulate(f.name)
pathlib.Path(f.name).unlink()
peak = {p["id"]: p["peak_reserved_bytes"] for p in d["pools"]}
peak64 = {p["id"]: p["peak_reserved_bytes"] for p in only64["pools"]}
check(peak["(0, 4)"] == peak64["(0, 4)"], f"02: decode pool peak {peak['(0, 4)']} == batch-64 run {peak64['(0, 4)']}")

# 03
d3 = sample("03")
check([p["id"] for p in d3["pools"]] == ["(0, 1)"] and d3["pools"][0]["custom"], "03: one custom pool")
check(d3["pools"][0]["graphs"] == ["graph_1", "graph_2"], "03: shared by both graphs")
check(all(c["outputs_rebuilt"] == 0 for c in d3["calls"]), "03: nothing rebuilt")
# Every key's logits retained, plus the 488 960-byte unsplit remainder key [64] took (docs/samples.md).
check(pool_after(d3["calls"][-1], "(0, 1)")["allocated_size"] == PROMPT_LOGITS_BLOCK + sum(LOGITS.values()) + 488960,
      "03: every key's logits retained")
check(d3["pools"][0]["peak_reserved_bytes"] > peak["(0, 2)"] + peak["(0, 4)"], "03: custom pool larger than 02's")

# 04
d = sample("04")
g2 = graph(d, "graph_2")
check(len(g2["keys"]) == 1 and g2["captures"] == 4 and g2["recaptures"]["mutated_input"] == 3, "04: recaptures")
check([c["index"] for c in d["calls"] if c["action"] == "recapture"] == [3, 5, 7], "04: recapture calls")
check(g2["counters"].get("captured_graph_2") == 1, "04: captured counter")
check(g2["counters"].get("recapture_due_to_mutated_input_change_graph_2") == 3, "04: recapture counter")
check([h["call"] for h in hazards(d, "recapture_storm")] == [7], "04: storm at call 7")

# 05
d = sample("05")
g2 = graph(d, "graph_2")
check((len(g2["keys"]), g2["captures"], g2["replays"]) == (1, 1, 6), "05: one key")
check([(h["call"], h["concerns"]) for h in hazards(d, "stale_parameter")] == [(4, "l1_wo")], "05: stale weights")

# 06
d = sample("06")
g2 = graph(d, "graph_2")
check((len(g2["keys"]), g2["captures"], sum(g2["recaptures"].values())) == (2, 2, 0), "06: new key")
check(d["calls"][4]["action"] == "capture", "06: call 4 captures")
check(d["hazards"] == [], "06: no hazards")

# 07, 08
d = sample("07")
check([(h["call"], h["made_at_call"]) for h in hazards(d, "output_overwritten")] == [(c, c - 1) for c in range(2, 7)],
      "07: overwrites")
check(sample("08")["hazards"] == [], "08: clone_output: no hazards")

# 09
d = sample("09")
g2 = graph(d, "graph_2")
check(g2["fallback_to_eager"] and g2["fallback_call"] == 3 and g2["eager_calls"] == 4, "09: fallback at 3")
check([c["action"] for c in d["calls"][1:]] == ["capture", "capture"] + ["eager"] * 4, "09: actions")
check(g2["counters"] == {}, "09: counters popped")
check([h["call"] for h in hazards(d, "fallback")] == [3], "09: fallback hazard")
check(pool_after(d["calls"][-1], "(0, 4)")["allocated_size"] == 0 if any(
    p["id"] == "(0, 4)" for p in d["calls"][-1]["pools"]) else True, "09: pool empty")
check(any(w.endswith("The current static_capture_size_limit is 2. If recapture are expected, consider increasing "
                     "debug.aclgraph.static_capture_size_limit to an appropriate value.") for w in d["warnings"]),
      "09: warning text")

# Bad input: exit code 1 and a message naming the file and the place.
with tempfile.TemporaryDirectory() as tmp:
    bad = pathlib.Path(tmp) / "bad.json"
    bad.write_text('{"format": "aclgraph-inspector-scenario", "version": 1,\n "graphs": [}')
    r = subprocess.run([EXE, "simulate", str(bad)], capture_output=True, text=True)
    check(r.returncode == 1 and "bad.json:2:" in r.stderr, f"truncated JSON: {r.returncode} {r.stderr!r}")
    r = subprocess.run([EXE, "simulate", str(pathlib.Path(tmp) / "missing.json")], capture_output=True, text=True)
    check(r.returncode == 1 and "missing.json" in r.stderr, f"missing file: {r.stderr!r}")
    r = subprocess.run([EXE, "simulate", str(next(SAMPLES.glob("01_*.json"))), "--set",
                        "debug.aclgraph.clone_input=maybe"], capture_output=True, text=True)
    check(r.returncode == 1 and "Value 'maybe' (type: <class 'str'>) not in optional list [True, False]" in r.stderr,
          f"bad option: {r.stderr!r}")
    r = subprocess.run([EXE, "simulate"], capture_output=True, text=True)
    check(r.returncode == 2 and "usage" in r.stderr, "usage error")

if failures:
    print("\n".join("FAILED: " + f for f in failures))
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
