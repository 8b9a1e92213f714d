#!/usr/bin/env python3
"""Every subcommand over the real PyTorch 2.11 recordings in tests/data/real/ (README there): each
file is given to every subcommand that should take it, and to the others, which must refuse it with
a message naming the file (never a crash). Facts are checked against what PyTorch itself recorded:
node counts from fx/index.jsonl (written by the recording script, not by us), the compile ids a
TORCH_TRACE holds, and the input kinds its evidence gives.

usage: check_real.py path/to/aclgraph-inspector path/to/tests/data
"""
import json
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile

from clicheck import Checks

EXE, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
REAL = DATA / "real"
_checks = Checks(EXE)
check = _checks.check
TMP = pathlib.Path(tempfile.mkdtemp(prefix="aclgi_real_"))


def run(*args, timeout=300):
    r = subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    # A signal (SIGSEGV, SIGABRT) is never an answer.
    check(r.returncode >= 0, f"{' '.join(map(str, args))}: killed by signal {-r.returncode}\n{r.stderr[-2000:]}")
    return r


def expect_ok(*args):
    r = run(*args)
    check(r.returncode == 0, f"{' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr[-1500:]}")
    return r


def expect_refused(path, *args, words=""):
    r = run(*args)
    check(r.returncode in (1, 2), f"{' '.join(map(str, args))}: exit {r.returncode}, expected a refusal")
    check(str(path) in r.stderr, f"{' '.join(map(str, args))}: the message does not name the file: {r.stderr!r}")
    if words:
        check(words in r.stderr, f"{' '.join(map(str, args))}: expected {words!r} in {r.stderr!r}")
    return r


def index_entries():
    """(prefix, stage) -> the entry the recording script wrote for that graph."""
    out = {}
    idx = REAL / "fx" / "index.jsonl"
    if idx.exists():
        for line in idx.read_text().splitlines():
            e = json.loads(line)
            if e.get("step") == "graph":
                out[(e["prefix"], e["stage"])] = e
    return out


INDEX = index_entries()
project = TMP / "real.aclgi"

# ---- FX graphs in every printed form -------------------------------------------------------------
# The graphs (make_expected.py beside them is the script that counted expected.json, no graph).
fx_files = sorted(p for p in (REAL / "fx").glob("*") if p.suffix in (".py", ".txt") and p.name != "make_expected.py") \
    if (REAL / "fx").exists() else []
for f in fx_files:
    m = re.match(r"(.+?)__([a-z_]+\d*)\.(readable|readable_strides|graph)\.(py|txt)$", f.name)
    entry = INDEX.get((m.group(1), m.group(2))) if m else None
    st = expect_ok("stages", f, "--json")
    try:
        groups = json.loads(st.stdout)["groups"]
    except (ValueError, KeyError):
        groups = []
        check(False, f"stages {f.name} --json: not the stages JSON")
    if entry and groups:
        nodes = groups[0]["stages"][0].get("nodes")
        check(nodes == entry["nodes"], f"{f.name}: {nodes} nodes, PyTorch recorded {entry['nodes']}")
    dynamic = "Sym(" in f.read_text(errors="replace")
    sim = expect_refused(f, "simulate", f, "--json", words="--symbols") if dynamic else expect_ok("simulate", f, "--json")
    if sim.returncode == 0:
        j = json.loads(sim.stdout)
        if f.name.endswith(".graph.txt") or "unannotated" in f.name:
            # print(gm.graph) and code without annotations have no tensor metadata: sizes are
            # unknown, never a measured-looking 0.
            check(j["peak_device_reserved_bytes"] is None and j.get("sizes_unknown"),
                  f"{f.name}: sizes should be unknown: {j.get('peak_device_reserved_bytes')}")
        else:
            check(isinstance(j["peak_device_reserved_bytes"], int) and j["peak_device_reserved_bytes"] > 0,
                  f"{f.name}: peak reserved {j.get('peak_device_reserved_bytes')}")
        if "__aten" in f.name:
            # ATen graphs name their inputs argN_1: nothing tells the weights, and the run says so.
            check(any("nothing tells the kind" in a for a in j.get("assumptions", [])),
                  f"{f.name}: no assumption about input kinds stated")
        if "__dynamo" in f.name and entry:
            n = str(len(entry["placeholders"]))
            check(not any(f"kind of {n} of its {n} " in a for a in j.get("assumptions", [])),
                  f"{f.name}: Dynamo's names tell the parameters, yet every kind is called unknown")
    expect_ok("passes", f, "--json")
    if "Sym(" in f.read_text(errors="replace"):
        # Dynamic sizes and no value for them: the simulation a report holds is refused, saying how.
        expect_refused(f, "report", f, "-o", TMP / "r.html", words="--symbols")
    else:
        expect_ok("report", f, "-o", TMP / "r.html")
    expect_refused(f, "snapshot", f, words="not a memory snapshot")

# ---- TORCH_TRACE logs ----------------------------------------------------------------------------
traces = [REAL / "compile" / "c_trace.log", REAL / "trace" / "two_functions.log", REAL / "trace" / "dynamic_warn.log"]
expected_ids = {"c_trace.log": ["0/0", "0/1", "0/2"], "two_functions.log": ["0/0", "0/1"],
                "dynamic_warn.log": ["0/0", "0/1"]}
for t in traces:
    if not t.exists():
        check(False, f"{t}: missing")
        continue
    st = expect_ok("stages", t, "--json")
    groups = json.loads(st.stdout)["groups"] if st.returncode == 0 else []
    ids = [g["model"] for g in groups]
    check(ids == expected_ids[t.name], f"{t.name}: compile ids {ids}")
    for g in groups:
        passes = [s["pass"] for s in g["stages"]]
        check(passes == ["dynamo_output_graph", "aot_inference_graph", "inductor_post_grad_graph"],
              f"{t.name} {g['model']}: stages {passes}")
        check(all(s["read"] for s in g["stages"]), f"{t.name} {g['model']}: a stage did not read")
    expect_ok("simulate", t)
    expect_ok("passes", t)
    expect_ok("report", t, "-o", TMP / "t.html")
    expect_refused(t, "snapshot", t, words="not a memory snapshot")
# Rank logs in a folder are one source, each compile labelled with its rank.
ranks = REAL / "trace" / "ranks"
if ranks.exists():
    st = run("stages", ranks, "--json")
    # The cut rank logs hold no graph (see trace/README.md): a clear refusal or an empty listing.
    check(st.returncode in (0, 1), f"stages {ranks}: exit {st.returncode}")

# ---- PyTorch's TORCH_COMPILE_DEBUG folder (Inductor's layout) ---------------------------------------
runs = sorted((REAL / "inductor" / "torch_compile_debug").glob("run_*"))
if runs:
    run_dir = runs[0]
    st = expect_ok("stages", run_dir, "--json")
    groups = json.loads(st.stdout)["groups"] if st.returncode == 0 else []
    check([g["label"] for g in groups] == ["model__0/inference", "model__1/inference", "model__2/inference"],
          f"inductor groups {[g['label'] for g in groups]}")
    if groups:
        # fx_graph_readable.py -> fx_graph_transformed.py: 209 -> 207 nodes (counted in the files by hand).
        check([(s["pass"], s["nodes"]) for s in groups[0]["stages"]]
              == [("fx_graph_readable", 209), ("fx_graph_transformed", 207)], f"model__0 stages {groups[0]['stages']}")
    expect_ok("simulate", run_dir)
    # Three groups: passes asks which one, as it does for TorchAir's folders.
    expect_refused(run_dir, "passes", run_dir, words="--graph model__0/inference")
    expect_ok("passes", run_dir, "--graph", "model__0/inference")
    expect_ok("report", run_dir, "-o", TMP / "d.html")
    model0 = run_dir / "torchinductor" / "model__0_inference_0.0"
    for name in ("output_code.py", "fx_graph_runnable.py", "fx_graph_readable.py", "fx_graph_transformed.py"):
        expect_ok("simulate", model0 / name)
        expect_ok("stages", model0 / name)
        expect_refused(model0 / name, "snapshot", model0 / name, words="not a memory snapshot")
    # The runnable repro's load_args give the inputs' devices: the file's own cuda:0.
    sim = expect_ok("simulate", model0 / "fx_graph_runnable.py", "--json")
    if sim.returncode == 0:
        check(isinstance(json.loads(sim.stdout)["peak_device_reserved_bytes"], int), "runnable: sizes known")

# ---- a memory snapshot ---------------------------------------------------------------------------
snap = REAL / "snapshots" / "a_default.pickle"
expect_ok("snapshot", snap)
expect_ok("report", snap, "-o", TMP / "s.html")
expect_refused(snap, "simulate", snap, words="memory snapshot")
expect_refused(snap, "passes", snap, words="memory snapshot")
expect_refused(snap, "stages", snap)

# ---- a CUDA run's TORCH_TRACE beside the snapshot of the same run ------------------------------------
# The trace is the scenario of that run (docs/cuda-graph-trees.md §11); the snapshot, read with the same
# trace, shows the same 8 warm-ups and recordings (truth.json's c_ind_static).
trace, pickle = REAL / "compile" / "c_trace.log", REAL / "compile" / "c_ind_static.pickle"
sim = expect_ok("simulate", trace, "--json")
if sim.returncode == 0:
    j = json.loads(sim.stdout)
    check(j.get("backend") == "cuda_graph_trees", f"simulate {trace.name}: backend {j.get('backend')}, not CUDA Graph Trees")
check("note: assumed: the calls are the ones the trace shows" in sim.stderr, f"simulate {trace.name}: no note of the calls")
cmp_md = TMP / "real-vs-sim.md"
expect_ok("report", trace, pickle, "--compare", "-o", cmp_md)
if cmp_md.exists():
    steps = [l for l in cmp_md.read_text().splitlines() if l.startswith("| CUDA graph steps | ")]
    check(len(steps) == 8, f"report --compare: {len(steps)} CUDA graph step rows, expected 8")
    check(not any("**" in l for l in steps), "report --compare: a CUDA graph step differs:\n" + "\n".join(steps))

# ---- the whole folder into one project -----------------------------------------------------------
imp = run("import", "--db", project, REAL)
check(imp.returncode == 0, f"import {REAL}: exit {imp.returncode}\n{imp.stdout[-3000:]}\n{imp.stderr[-1500:]}")
check(" failed " not in imp.stdout, f"import {REAL}: a source failed:\n{imp.stdout}")
if project.exists():
    db = sqlite3.connect(project)
    kinds = {k for (k,) in db.execute("SELECT DISTINCT kind FROM sources")}
    check({"fx_graph", "torch_trace", "memory_snapshot"} <= kinds, f"imported kinds {kinds}")
    # The TORCH_TRACE's ATen inputs carry their kinds and what told them.
    rows = dict(db.execute(
        "SELECT n.name, n.input_kind || ' | ' || n.input_kind_from FROM nodes n JOIN graphs g ON g.id = n.graph_id "
        "WHERE g.file LIKE '%c_trace.log:%' AND g.grp = '0/0/inference' "
        "AND g.pass = 'aot_inference_graph' AND n.op = 'placeholder'"))
    check(rows.get("arg0_1", "").startswith("parameter | TORCH_TRACE compile 0/0"), f"arg0_1: {rows.get('arg0_1')}")
    check(rows.get("arg1_1", "").startswith("user_input | "), f"arg1_1: {rows.get('arg1_1')}")
    check(rows.get("arg6_1", "").startswith("static_address | "), f"arg6_1: {rows.get('arg6_1')}")
    # A pass report that could not be measured (print(gm.graph): no sizes) is stored as unmeasured.
    bad = db.execute("SELECT count(*) FROM pass_reports p JOIN graphs g ON g.id = p.graph_id JOIN sources s "
                     "ON s.id = g.source_id WHERE s.path LIKE '%.graph.txt' AND p.enabled AND p.measured").fetchone()[0]
    check(bad == 0, f"{bad} pass reports of print(gm.graph) files stored as measured")
    db.close()

_checks.finish()
