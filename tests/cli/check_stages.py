#!/usr/bin/env python3
"""End-to-end checks of `stages` on the hand-written TORCH_COMPILE_DEBUG tree in tests/data/debug_dir/:
the listing (text and --json), a diff of two stages (text and --json), and exit codes and messages
for bad input.

usage: check_stages.py path/to/aclgraph-inspector path/to/tests/data
"""
import json
import pathlib
import sys

from clicheck import Checks

EXE, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
TREE = DATA / "debug_dir"
RUN = TREE / "torch_compile_debug" / "run_2026_11_22_10_00_00_000000-pid_4242"


_checks = Checks(EXE)
check, run = _checks.check, _checks.run


# The listing: both models, stages in number order with their gaps, counts against the previous stage.
out = run("stages", TREE).stdout
lines = [l.split() for l in out.splitlines()]
check(any(l[:1] == ["model__0/forward:"] for l in lines) and any(l[:1] == ["model__1/forward:"] for l in lines),
      f"both groups listed:\n{out}")
numbers = [l[0] for l in lines if l and (l[0].isdigit() or l[0] == "pre")]
check(numbers == ["pre", "000", "002", "005", "007", "011", "000", "002"], f"stage order {numbers}")
row = lambda n, p: next((" ".join(l) for l in lines if l[:2] == [n, p]), "")
check(row("002", "optimize_noop_ops").endswith("remove_noop_ops 8 vs 000: removed 1 / added 0 / changed 1"),
      f"002 row: {row('002', 'optimize_noop_ops')!r}")
check(row("005", "view_to_reshape").endswith("8 vs 002: removed 0 / added 0 / changed 1"), "005 row")
check(row("011", "reinplace_inplaceable_ops_pass").endswith("8 vs 005: removed 0 / added 0 / changed 2"), "011 row")
check("not read: GE graph (protobuf text)" in row("007", "aot_forward_original_ge_graph"), "007 row")
broken = "model__1/forward/002_aot_forward_graph_after_optimize_noop_ops.txt:5:9: the forward of 'GraphModule' ends without a return"
check(broken in out, f"broken stage error with file:line:col:\n{out}")

# The listing as JSON.
d = json.loads(run("stages", TREE, "--json").stdout)
check(d["format"] == "aclgraph-inspector-stages" and d["version"] == 1, "listing format")
check([g["label"] for g in d["groups"]] == ["model__0/forward", "model__1/forward"], "group labels")
g0 = d["groups"][0]
check(g0["backend"] == "torchair" and g0["rank"] is None and g0["model"] == "model__0", f"group 0 {g0}")
check([s["number"] for s in g0["stages"]] == [None, 0, 2, 5, 7, 11], "stage numbers")
check([s["our_pass"] for s in g0["stages"]] == [None, None, "remove_noop_ops", "view_to_reshape", None,
                                                "reinplace_inplaceable_ops_pass"], "our passes")
s11 = g0["stages"][5]
check((s11["previous"], s11["removed"], s11["added"], s11["changed"]) == (5, 0, 0, 2), f"011 against 005: {s11}")
check(g0["stages"][4]["kind"] == "ge" and g0["stages"][4]["read"] is False, "pbtxt not read")
b = d["groups"][1]["stages"][1]
check(b["read"] is False and b["error"] and ":5:9: " in b["error"], f"broken stage {b}")

# A diff across two passes, from the model folder's level down.
d = json.loads(run("stages", TREE, "--model", "model__0", "--diff", "0", "view_to_reshape", "--json").stdout)
check(d["format"] == "aclgraph-inspector-stage-diff", "diff format")
check((d["a"]["number"], d["b"]["number"]) == (0, 5), f"stages {d['a']} {d['b']}")
check(d["pass"] == "optimize_noop_ops+view_to_reshape", f"pass {d['pass']}")
check((d["nodes_before"], d["nodes_after"], d["removed"], d["added"]) == (9, 8, ["view"], []), "counts and lists")
check({c["node"]: c["text"] for c in d["changed"]} == {
    "mm": "mm: args (view, arg0_1) -> (arg1_1, arg0_1)",
    "view_1": "view_1: target aten.view.default -> aten.reshape.default"}, f"changed {d['changed']}")
check(d["target_changes"] == [{"target": "aten.reshape.default", "before": 0, "after": 1},
                              {"target": "aten.view.default", "before": 2, "after": 0}], f"targets {d['target_changes']}")
check(d["summary"].startswith("After fx graph pass(optimize_noop_ops+view_to_reshape) optimization:\n"
                              "    before 9 nodes, after 8 nodes,\n    removed nodes: ['view'],\n    added nodes: [],\n"
                              "    operations statistics:\n"), f"summary {d['summary']!r}")

# The same diff as text, by number and from the forward folder itself (one group: no --model).
out = run("stages", RUN / "torchair" / "model__0" / "forward", "--diff", "005", "11").stdout
check(out.startswith("model__0/forward: stage 005 (view_to_reshape) -> stage 011 (reinplace_inplaceable_ops_pass)\n"
                     "After fx graph pass(reinplace_inplaceable_ops_pass) optimization:\n"), f"diff text:\n{out}")
check("    add: target aten.add.Tensor -> aten.add_.Tensor\n" in out, f"changed line:\n{out}")

# Bad input.
r = run("stages", TREE / "nope", expect=1)
check("no such file or folder" in r.stderr and str(TREE / "nope") in r.stderr, f"missing folder: {r.stderr!r}")
r = run("stages", TREE, "--diff", "0", "5", expect=1)
check("several groups" in r.stderr and "model__1/forward" in r.stderr, f"several groups: {r.stderr!r}")
r = run("stages", TREE, "--model", "model__0", "--diff", "0", "remove_cat_ops", expect=1)
check("no stage 'remove_cat_ops'" in r.stderr, f"unknown stage: {r.stderr!r}")
r = run("stages", TREE, "--model", "model__1", "--diff", "0", "2", expect=1)
check(":5:9: " in r.stderr and "was not read" in r.stderr, f"broken stage diff: {r.stderr!r}")
r = run("stages", TREE, "--model", "model__0", "--diff", "0", "7", expect=1)
check("GE graph" in r.stderr, f"GE stage diff: {r.stderr!r}")
run("stages", TREE, "--diff", "0", expect=2)
run("stages", expect=2)

# `passes` on a folder: our passes run on stage 000 with the group's config (its output_code.py)
# and each result is compared with TorchAir's dump after the same pass.
out = run("passes", TREE, "--graph", "model__0").stdout
for line in ["remove_noop_ops: agrees (002_aot_forward_graph_after_optimize_noop_ops.txt)",
             "view_to_reshape: agrees (005_aot_forward_graph_after_view_to_reshape.txt)",
             "reinplace_inplaceable_ops_pass: agrees (011_aot_forward_graph_after_reinplace_inplaceable_ops_pass.txt)",
             "eliminate_dead_code: no dump: TorchAir did not run this pass"]:
    check(line in out, f"passes on the folder: {line!r} in\n{out}")
d = json.loads(run("passes", TREE, "--graph", "model__0/forward", "--json").stdout)
verdicts = {c["pass"]: c["verdict"] for c in d["torchair_dumps"]}
check(verdicts.get("view_to_reshape") == "agrees" and d["graph"]["id"] == "model__0/forward", f"passes --json {verdicts}")
# With the reinplace pass switched off ours no longer matches TorchAir's 011 dump.
out = run("passes", TREE, "--graph", "model__0", "--set", "debug.aclgraph.disable_reinplace_inplaceable_ops_pass=True").stdout
check("reinplace_inplaceable_ops_pass: TorchAir ran it, disabled here" in out, f"disabled pass:\n{out}")
r = run("passes", TREE, expect=1)
check("pick one with --graph" in r.stderr, f"several graphs: {r.stderr!r}")

_checks.finish()
