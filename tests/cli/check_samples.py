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

# CUDA Graph Trees samples 10-13 (docs/samples.md, "CUDA Graph Trees samples").
# Where the simulator and PyTorch 2.11 differ, the simulator's side is one named constant, so the checks
# below state PyTorch's numbers:
# - PyTorch frees a recording's input buffers inside the capture (_record: "running model should reclaim
#   memory"; the real snapshots show it); the simulator keeps them as long as the recording: 2 x 512 bytes.
SIM_KEPT_BUFFERS_PER_RECORDING = 0
# - A recording copies input_ids and slot_mapping into its fresh buffers (I3); the simulator's bytes_copied
#   counts only the copy before a replay.
SIM_COUNTS_RECORD_COPY = True

CUDA_POOL = "(0, 1)"
PROMPT_POOL_SEGMENTS = [2097152, 20971520, 16777216]  # small 2 MiB, large 20 MiB, logits_f32's 16 MiB
PROMPT_POOL = sum(PROMPT_POOL_SEGMENTS)  # 39 845 888


def actions(d):
    return [c["action"] for c in d["calls"]]


def log_calls(d, text):
    """The call number of every log line that contains `text`."""
    return [int(line.split("call ", 1)[1].split(":", 1)[0]) for line in d["log"] if text in line]


def recordings(d):
    """(call, cuda_graph_id) of every `Recording function=` line."""
    return [(c, int(line.split("cuda_graph_id=", 1)[1].split(",", 1)[0]))
            for line in d["log"] if "Recording function=" in line
            for c in [int(line.split("call ", 1)[1].split(":", 1)[0])]]


def cuda_pool(call):
    return pool_after(call, CUDA_POOL)


def check_copies(name, d, batch):
    """input_ids and slot_mapping, int64, batch(c) tokens each: copied before a replay, never for a warm-up."""
    for c in d["calls"]:
        inputs = 2 * batch(c) * 8
        if c["action"] == "replay":
            want = inputs
        elif c["action"] in ("capture", "recapture"):
            want = inputs if SIM_COUNTS_RECORD_COPY else 0
        else:
            want = 0
        check(c["bytes_copied"] == want, f"{name}: call {c['index']} ({c['action']}) copies {c['bytes_copied']}, want {want}")


def check_allocated(name, d, pytorch):
    """pytorch: allocated_size after each call in PyTorch; the simulator adds its kept recording buffers."""
    check(len(d["calls"]) == len(pytorch), f"{name}: {len(d['calls'])} calls")
    made = 0
    for c, want in zip(d["calls"], pytorch):
        made += c["action"] in ("capture", "recapture")
        got = cuda_pool(c)["allocated_size"]
        want += SIM_KEPT_BUFFERS_PER_RECORDING * made
        check(got == want, f"{name}: allocated after call {c['index']} {got}, want {want}")


def check_reserved(name, d, totals):
    got = [cuda_pool(c)["total_size"] for c in d["calls"]]
    check(got == totals, f"{name}: pool total per call {got}, want {totals}")


# 10
d = sample("10")
check(d["device"]["profile"] == "cuda", "10: CUDA profile")
check([g["name"] for g in d["graphs"]] == ["0/0", "0/1"], "10: compile ids 0/0, 0/1")
check([c["graph"] for c in d["calls"]] == ["0/0"] + ["0/1"] * 6, "10: calls' compile ids")
check([p["id"] for p in d["pools"]] == [CUDA_POOL], "10: one pool (0, 1)")
check(actions(d) == ["warmup", "warmup", "capture"] + ["replay"] * 4, f"10: actions {actions(d)}")
g0, g1 = graph(d, "0/0"), graph(d, "0/1")
check(g0["captures"] == 0 and g0["counters"].get("warmups") == 1, "10: 0/0 warm-up only")
check((g1["captures"], g1["replays"], g1["counters"].get("warmups")) == (1, 4, 1), "10: 0/1 1 recording, 4 replays")
check(recordings(d) == [(2, 0)], f"10: recordings {recordings(d)}")
check(log_calls(d, "Running warmup function=partition_0") == [0, 1], "10: warm-up lines")
check(log_calls(d, "Re-recording") == [], "10: no re-recording")
check_copies("10", d, lambda c: 16)
check(d["hazards"] == [] and d["warnings"] == [], "10: no hazards, no warnings")
check([s["total_size"] for s in cuda_pool(d["calls"][0])["segments"]] == PROMPT_POOL_SEGMENTS,
      "10: the prompt's warm-up makes 2 MiB + 20 MiB + 16 MiB")
check_reserved("10", d, [PROMPT_POOL] * 7)
check((d["pools"][0]["peak_reserved_bytes"], d["pools"][0]["peak_allocated_bytes"]) == (PROMPT_POOL, 8192000 + 16777216),
      "10: pool peaks")
check_allocated("10", d, [0] * 7)

# 11
d = sample("11")
check(actions(d) == ["warmup", "warmup", "capture", "recapture", "replay", "recapture", "replay", "recapture",
                     "replay"], f"11: actions {actions(d)}")
g1 = graph(d, "0/1")
check((g1["captures"], g1["replays"], g1["counters"].get("rerecords")) == (4, 3, 3), "11: 4 recordings, 3 re-records")
check(recordings(d) == [(2, 0), (3, 1), (5, 2), (7, 3)], f"11: recordings {recordings(d)}")
rerecord = log_calls(d, "Re-recording function=partition_0, reason=static input data pointer changed.")
check([rerecord.count(c) for c in range(3, 9)] == [1, 1, 2, 2, 3, 0], f"11: re-recording lines {rerecord}")
check(all("input name: l0_k_cache." in line for line in d["log"] if "Re-recording" in line), "11: l0_k_cache moved")
check_copies("11", d, lambda c: 16)
check([(h["kind"], h["call"], h["concerns"]) for h in d["hazards"] if h["kind"] == "static_input_moved"]
      == [("static_input_moved", 3, "l0_k_cache")], "11: static input moved at 3")
check([(h["kind"], h["call"]) for h in d["hazards"]] == [("static_input_moved", 3), ("recapture_storm", 7)],
      "11: hazards")
check(d["warnings"] == [], "11: no warnings")
check_reserved("11", d, [PROMPT_POOL] * 9)
check_allocated("11", d, [0] * 9)

# 12
d = sample("12")
check(actions(d) == ["warmup", "warmup", "capture", "replay", "replay", "replay"], f"12: actions {actions(d)}")
check(recordings(d) == [(2, 0)], "12: one recording")
check_copies("12", d, lambda c: 16)
check([(h["kind"], h["call"], h.get("made_at_call")) for h in d["hazards"]]
      == [("overwritten_error", 2, 1), ("output_overwritten", 5, 4)], "12: hazards")
check("raises RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent "
      "run. Stack trace: [Could not find stack trace]. To prevent overwriting, clone the tensor outside of "
      "torch.compile() or call torch.compiler.cudagraph_mark_step_begin() before each model invocation."
      in "".join(h["message"] for h in hazards(d, "overwritten_error")), "12: the RuntimeError's text")
check(d["warnings"] == [], "12: the RuntimeError is not a warning")
held = [s for s in cuda_pool(d["calls"][1])["segments"] if s["allocated_size"]]
check([(s["total_size"], s["allocated_size"], s["block_num"]) for s in held] == [(16777216, 2048000, 2)],
      "12: call 1's held logits_f32 split from the 16 MiB block")
check_reserved("12", d, [PROMPT_POOL] * 6)
check_allocated("12", d, [0, 16 * 32000 * 4, 0, 0, 0, 0])

# 13
d = sample("13")
check(actions(d) == ["warmup"] * 5 + ["capture"] * 2, f"13: actions {actions(d)}")
check([c["key"] for c in d["calls"]] == ["", "8", "16", "64", "256", "8", "16"], "13: int keys")
check(log_calls(d, "Recording cudagraph tree for symint key") == [1, 2, 3, 4], "13: new keys at calls 1-4")
check(recordings(d) == [(5, 0), (6, 1)], f"13: recordings {recordings(d)}")
check_copies("13", d, lambda c: int(c["key"] or 1))
dyn = [w for w in d["warnings"] if w.startswith("CUDAGraph supports dynamic shapes")]
check(len(d["warnings"]) == 1 and len(dyn) == 1 and "We have observed 4 distinct sizes." in dyn[0], "13: one warning")
check(log_calls(d, "We have observed") == [4], "13: warned at call 4")
after_warning = [d["log"][i + 1] for i, line in enumerate(d["log"][:-1]) if "We have observed" in line]
check(after_warning == ["[DEBUG] PYTORCH call 4: [0/1] Running warmup function=partition_0"],
      "13: warning before call 4's warm-up")
check([(h["kind"], h["call"], h["key"]) for h in d["hazards"]] == [("pool_growth", 4, "256")], "13: pool growth at 4")
check_reserved("13", d, [PROMPT_POOL] * 4 + [PROMPT_POOL + 33554432] * 3)
check([s["total_size"] for s in cuda_pool(d["calls"][4])["segments"]] == PROMPT_POOL_SEGMENTS + [33554432],
      "13: batch 256's logits_f32 opens a 32 MiB segment")
check((d["pools"][0]["peak_reserved_bytes"], d["pools"][0]["peak_allocated_bytes"]) == (73400320, 16777216 + 33554432),
      "13: pool peaks")
check_allocated("13", d, [0] * 7)
# Where each size's logits_f32 lies: the same calls, with each warm-up's output held until the next call reads it.
scenario = json.loads(next(SAMPLES.glob("13_*.json")).read_text())
for i in range(2, 6):
    scenario["calls"][i]["reads"] = [i - 1]
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(scenario, f)
held13 = simulate(f.name)
pathlib.Path(f.name).unlink()
where = {int(c["key"]): [(s["total_size"], s["allocated_size"], s["block_num"]) for s in cuda_pool(c)["segments"]
                          if s["allocated_size"]] for c in held13["calls"][1:5]}
check(where[8] == [(2097152, 8 * 32000 * 4, 3)], f"13: batch 8's logits_f32 is small: {where[8]}")
check(where[16] == [(16777216, 16 * 32000 * 4, 2)], f"13: batch 16's logits_f32 in the 16 MiB block: {where[16]}")
# Batch 64: the freed bf16 logits (4 096 000) before it, 4 489 216 after it, in the 16 MiB segment.
check(where[64] == [(16777216, 64 * 32000 * 4, 3)], f"13: batch 64's logits_f32 after its logits: {where[64]}")
check(where[256] == [(33554432, 33554432, 1)], f"13: batch 256's logits_f32 takes its whole segment: {where[256]}")
check([cuda_pool(c)["total_size"] for c in held13["calls"]] == [cuda_pool(c)["total_size"] for c in d["calls"]],
      "13: holding outputs changes no segment")

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
