#!/usr/bin/env python3
"""End-to-end checks of graphs read from FX files: `simulate` on a bare graph file, a scenario that
references a graph by file, `passes --json`, and `--emit-code` / `--emit-module` read back.

usage: check_graph_files.py path/to/aclgraph-inspector path/to/tests/data
"""
import json
import pathlib
import sys

from clicheck import Checks
import tempfile

EXE, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
FX = DATA / "fx" / "torchair_000_aot_forward_graph.txt"


_checks = Checks(EXE)
check, run = _checks.check, _checks.run


# A bare graph file: symbols are required, then it is captured once and replayed.
r = run("simulate", FX, expect=1)
check("--symbols s0=" in r.stderr, f"missing symbol message: {r.stderr!r}")
d = json.loads(run("simulate", FX, "--symbols", "s0=4,s1=100", "--calls", "3", "--json").stdout)
check([c["action"] for c in d["calls"]] == ["capture", "replay", "replay"], f"bare file actions: {d['calls']}")
check(d["graphs"][0]["keys"][0].startswith("[4]"), "key by s0 (s1 only feeds the attention's seq lengths)")

# A scenario referencing the graph by file, with kinds and storages given by the scenario.
d = json.loads(run("simulate", DATA / "scenarios" / "graph_by_file.json", "--json").stdout)
check([c["action"] for c in d["calls"]] == ["capture", "replay", "capture"], "by-file actions")
check(d["graphs"][0]["keys"] == ["[4]", "[8]"], f"by-file keys {d['graphs'][0]['keys']}")  # frozen: no hash
inputs = d["calls"][0]["inputs_copied"]
check(inputs == 2, f"arg0_1 and arg4_1 copied to staging, caches and weights not: {inputs}")

# Passes: the AOT copy_ epilogues into the caches are folded into in-place index_put_.
p = json.loads(run("passes", FX, "--symbols", "s0=4,s1=100", "--json").stdout)
names = [x["name"] for x in p["passes"]]
check(names == ["remove_noop_ops", "recover_view_inplace_pattern", "apply_pattern_passes", "view_to_reshape",
                "remove_cat_ops", "apply_event_closure_with_multi_stream", "apply_event_record", "eliminate_dead_code",
                "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops", "decompose_auto_functionalized",
                "replace_dynamic_workspace_ops", "replace_core_limit_nodes", "resolve_default_stream_markers"],
      f"pass order {names}")
mutated = next(x for x in p["passes"] if x["name"] == "reinplace_input_mutated_ops")
check(sorted((w["node"], w["after"]) for w in mutated["rewritten"]) ==
      [("index_put", "aten.index_put_.default"), ("index_put_1", "aten.index_put_.default")],
      f"reinplaced {mutated['rewritten']}")
check(sorted(mutated["removed"]) == ["copy_", "copy__1"], f"removed {mutated['removed']}")
check(mutated["peak_bytes_after"] < mutated["peak_bytes_before"], "reinplacing saves the cache copies")
v2r = next(x for x in p["passes"] if x["name"] == "view_to_reshape")
check([(w["before"], w["after"]) for w in v2r["rewritten"]] == [("aten.view.default", "aten.reshape.default")],
      f"view_to_reshape {v2r['rewritten']}")

# --cann gives the CANN version the passes' version checks use; anything but a version is refused.
r = run("passes", FX, "--symbols", "s0=4,s1=100", "--cann", "latest", expect=2)
check("--cann needs a CANN version such as 8.3.RC1" in r.stderr, f"--cann refused: {r.stderr!r}")
run("passes", FX, "--symbols", "s0=4,s1=100", "--cann", "8.3.RC1", "--json")

# The user's post_grad_custom_pre_pass ran when TorchAir dumped its result: `passes DIR` runs it as
# that dump, first, and compares it with itself.
import shutil
with tempfile.TemporaryDirectory() as tmp:
    src = DATA / "debug_dir" / "torch_compile_debug" / "run_2026_11_22_10_00_00_000000-pid_4242" / "torchair" / "model__1"
    dst = pathlib.Path(tmp) / "torchair" / "model__1"
    shutil.copytree(src, dst)
    fwd = dst / "forward"
    shutil.copy(fwd / "000_aot_forward_graph.txt", fwd / "001_aot_forward_graph_after_post_grad_custom_pre_pass.txt")
    d = json.loads(run("passes", dst, "--json").stdout)
    check(d["passes"][0]["name"] == "post_grad_custom_pre_pass", f"user pass first: {d['passes'][0]['name']}")
    verdicts = {x["pass"]: x["verdict"] for x in d.get("torchair_dumps", [])}
    check(verdicts.get("post_grad_custom_pre_pass") == "agrees", f"user pass verdict: {verdicts}")

# --emit-code writes readable FX code that the reader reads back.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "after_passes.py"
    run("passes", FX, "--symbols", "s0=4,s1=100", "--emit-code", out)
    check(out.exists() and "index_put_" in out.read_text(), "emitted code")
    d = json.loads(run("simulate", out, "--symbols", "s0=4,s1=100", "--json").stdout)
    check(d["calls"][0]["action"] == "capture", "emitted code simulates")

# --emit-module writes the module TorchAir generates, which the product reads back as one.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "output_code.py"
    run("passes", FX, "--symbols", "s0=4,s1=100", "--emit-module", out)
    text = out.read_text() if out.exists() else ""
    for part in ("def forward(*args, node_info=[], is_capturing: bool = False):", "compile_configs[\"clone_input\"] = \"1\"",
                 "aclgraph_cache_info = AclGraphCacheInfo(", "assert_size_stride(args[", "from torchair."):
        check(part in text, f"emitted module has {part!r}")
    d = json.loads(run("simulate", out, "--symbols", "s0=4,s1=100", "--json").stdout)
    check(d["calls"][0]["action"] == "capture", "emitted module simulates")
    npu = pathlib.Path(tmp) / "npugraph_ex_code.py"
    run("passes", FX, "--symbols", "s0=4,s1=100", "--set", "force_recapture=False", "--emit-module", npu)
    text = npu.read_text() if npu.exists() else ""
    check("from npugraph_ex._acl_concrete_graph.acl_graph import" in text
          and 'compile_configs["force_recapture"] = False' in text, "npugraph_ex module")
    bad = pathlib.Path(tmp) / "no_such_dir" / "m.py"
    r = run("passes", FX, "--symbols", "s0=4,s1=100", "--emit-module", bad, expect=1)
    check(str(bad) in r.stderr and "cannot write" in r.stderr, f"unwritable --emit-module: {r.stderr!r}")

_checks.finish()
