#!/usr/bin/env python3
"""End-to-end checks of `report`: a sample simulated into a JSON report and a Markdown one, the runs
of a project with the comparison of its two runs, the HTML and PDF written, and refusals (an unknown
output format, --compare without two runs, a missing input named in the message). Then the sections beyond the simulation:
per FX graph its pass reports (the same counts `passes --json` gives) and the graph drawn (one box
per item of the folded view; an 80-layer decoder folds to far fewer items than nodes), compile-cache
folders with their checks and key explanation, and a project with runs and cache entries.

usage: check_report.py path/to/aclgraph-inspector path/to/resources/samples
"""
import json
import pathlib
import sys

from clicheck import Checks
import tempfile

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])
CACHE = SAMPLES.parent.parent / "tests" / "data" / "cache"
SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'


def self_contained(html):
    """No script and nothing fetched. The drawings are standalone SVG and name the SVG namespace,
    an identifier that is never fetched; every other "http" (a src=, href=, url(), @import) would
    be a fetch, so "http" is forbidden everywhere else, as are those forms themselves."""
    rest = html.replace(SVG_NS, "")
    return ("<script" not in html and "http" not in rest and "href=" not in html and "src=" not in html
            and "url(" not in html and "@import" not in html)


def boxes(svg):
    return svg.count('data-kind="node"') + svg.count('data-kind="group"')


_checks = Checks(EXE)
check, run = _checks.check, _checks.run


held = SAMPLES / "07_held_outputs_overwritten.json"
cloned = SAMPLES / "08_held_outputs_cloned.json"
with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    run("report", held, "-o", tmp / "r.json")
    doc = json.loads((tmp / "r.json").read_text())
    check(doc["format"] == "aclgraph-inspector-report" and doc["version"] == 1, "report format and version")
    check(len(doc["runs"]) == 1, "one run in the report of one sample")
    sim = doc["runs"][0]["simulation"]
    check(len(sim["hazards"]) == 5 and all(h["kind"] == "output_overwritten" for h in sim["hazards"]),
          "sample 07's five overwritten outputs")
    check([g["replays"] for g in sim["graphs"]] == [1, 6], "replays per graph")

    run("report", held, "-o", tmp / "r.md", "--title", "Held outputs")
    md = (tmp / "r.md").read_text()
    check(md.startswith("# Held outputs\n"), "the title heading")
    check("| **`experimental_config.frozen_parameter`** | **True** | False |" in md, "non-default option in bold")

    # A project's runs (both samples imported and simulated), compared.
    project = tmp / "p.aclgi"
    run("import", held, cloned, "--db", project, "--simulate", "--quiet")
    run("report", project, "--compare", "-o", tmp / "p.json")
    doc = json.loads((tmp / "p.json").read_text())
    check([r["label"].split(" · ")[0] for r in doc["runs"]] == ["run 1", "run 2"], "the project's runs, oldest first")
    rows = {(r["section"], r["metric"]): r for r in doc["comparison"]["rows"]}
    hz = rows.get(("hazards", "output_overwritten"))
    check(hz is not None and hz["a"] == "5" and hz["b"] == "0" and hz["differs"], "comparison of hazards")

    run("report", held, "-o", tmp / "r.html")
    html = (tmp / "r.html").read_text()
    check(html.startswith("<!DOCTYPE html>") and "<svg" in html, "an HTML page with its chart")
    check(self_contained(html), "nothing from elsewhere, no script")
    run("report", held, "-o", tmp / "r.pdf")
    check((tmp / "r.pdf").read_bytes().startswith(b"%PDF-"), "a PDF file (cli.report_pdf reads it back)")
    check(not (tmp / "r.pdf.part").exists(), "no temporary file left")
    # Two configs of one scenario: sample 07 as it is and with enable_output_clone on (sample 08's fix).
    run("report", held, "--compare-set", "debug.aclgraph.enable_output_clone=True", "-o", tmp / "cfg.json")
    doc = json.loads((tmp / "cfg.json").read_text())
    check(len(doc["runs"]) == 2 and doc["runs"][1]["label"].endswith("[debug.aclgraph.enable_output_clone=True]"),
          "the second run is labelled with its settings")
    rows = {(r["section"], r["metric"]): r for r in doc["comparison"]["rows"]}
    hz = rows.get(("hazards", "output_overwritten"))
    check(hz is not None and hz["a"] == "5" and hz["b"] == "0", "the setting removes the five overwritten outputs")
    clone = [o for o in doc["runs"][1]["options"] if o["torchair"] == "debug.aclgraph.enable_output_clone"]
    check(len(clone) == 1 and clone[0]["non_default"], "the setting shows as a non-default option of run B")
    r = run("report", held, cloned, "--compare-set", "debug.aclgraph.enable_output_clone=True", "-o",
            tmp / "c2.json", expect=2)
    check("one scenario" in r.stderr, "--compare-set takes one scenario")
    r = run("report", held, "--compare", "-o", tmp / "c.json", expect=2)
    check("exactly two runs" in r.stderr, "--compare needs two runs")
    r = run("report", tmp / "missing.json", "-o", tmp / "m.json", expect=1)
    check("missing.json" in r.stderr, "a missing input is named")
    check(not (tmp / "m.json").exists(), "nothing written for a failed report")

    # Passes per FX graph: the counts `passes SCENARIO --graph ID --json` gives for the same graph.
    doc = json.loads((tmp / "r.json").read_text())
    fx = doc["runs"][0]["fx_graphs"]
    check([g["name"] for g in fx] == [g["name"] for g in sim["graphs"]], "one fx_graphs entry per FX graph")
    for g in fx:
        ref = json.loads(run("passes", held, "--graph", g["id"], "--json").stdout)["passes"]
        counts = lambda ps: [(p["name"], p["enabled"], p["nodes_before"], p["nodes_after"], len(p["rewritten"]),
                              len(p["removed"]), len(p["added"]), len(p["skipped"])) for p in ps]
        check(len(g["passes"]) == len(ref) >= 14 and counts(g["passes"]) == counts(ref),
              f"{g['name']}: every pass as `passes --json` reports them")
        d = g["drawing"]
        check(d is not None and d["svg"].startswith("<svg ") and boxes(d["svg"]) == d["items"],
              f"{g['name']}: drawn with one box per item")
        check(d["svg"] in html, f"{g['name']}: the drawing is inline in the HTML")
    check(html.count("<details>") >= 1 and "[DEBUG]" in html, "TorchAir's DEBUG lines in a <details>")
    check("passes and drawing" in md and "; see the HTML report." in md, "Markdown lists the passes and the drawing")

    # The 80-layer decoder: drawn folded, far fewer items than nodes.
    run("generate", "decoder", "--layers", "80", "-o", tmp / "dec80.json")
    run("report", tmp / "dec80.json", "-o", tmp / "dec80.json.report.json")
    doc = json.loads((tmp / "dec80.json.report.json").read_text())
    for g in doc["runs"][0]["fx_graphs"]:
        d = g["drawing"]
        check(d["folded"] and d["items"] * 20 < d["nodes"] and boxes(d["svg"]) == d["items"],
              f"decoder {g['id']}: {d['nodes']} nodes folded to {d['items']} items")
        check("(x80)" in d["svg"], f"decoder {g['id']}: the folded layers group")

    # A cache folder: every entry with its checks in order and the key explained; no runs.
    broken = CACHE / "broken"
    run("report", broken, "-o", tmp / "cache.json")
    doc = json.loads((tmp / "cache.json").read_text())
    ls = json.loads(run("cache", "ls", broken, "--json").stdout)
    check(doc["runs"] == [] and doc["title"] == f"Compile cache {broken}", "a cache-only report and its title")
    check([c["relative_path"] for c in doc["caches"]] == [e["relative_path"] for e in ls["entries"]],
          "every entry `cache ls` lists")
    check(all(c["report"]["checks"] == e["report"]["checks"] for c, e in zip(doc["caches"], ls["entries"])),
          "each entry's checks as `cache ls --json` gives them")
    check(any(not c["report"]["loads"] for c in doc["caches"]), "failing entries are reported")
    check(all(len(c["key"]["entries"]) == 1 and c["key"]["entries"][0]["explanation"] for c in doc["caches"]),
          "each entry's key explained")
    run("report", broken, "-o", tmp / "cache.html")
    chtml = (tmp / "cache.html").read_text()
    failed = sum(ch["status"] == "FAILED" for c in doc["caches"] for ch in c["report"]["checks"])
    check(failed > 0 and chtml.count('<tr class="failed">') == failed, "failed checks highlighted")
    check(self_contained(chtml), "the cache report is self-contained")
    run("report", broken, "-o", tmp / "cache.md")
    cmd = (tmp / "cache.md").read_text()
    check("## Compile caches" in cmd and "| **" in cmd, "Markdown lists the entries, failed checks in bold")
    one = CACHE / "torchair_cache"
    run("report", one, "-o", tmp / "one.json")
    doc = json.loads((tmp / "one.json").read_text())
    key = json.loads(run("cache", "key", "--backend", "torchair", "--against", one, "--json").stdout)
    check([c["key"]["entries"][0]["verdict"] for c in doc["caches"]] == [e["verdict"] for e in key["entries"]],
          "the key verdicts `cache key --against` gives")

    # A project with runs and cache entries: stored pass reports, stored graphs drawn, stored entries.
    project2 = tmp / "pc.aclgi"
    run("import", held, one, "--db", project2, "--simulate", "--quiet")
    run("report", project2, "-o", tmp / "pc.json")
    doc = json.loads((tmp / "pc.json").read_text())
    check(len(doc["runs"]) == 1 and len(doc["caches"]) == len(key["entries"]), "the project's run and cache entries")
    check(all(c["from_project"] and c["root_kind"] == "project" for c in doc["caches"]), "entries as stored")
    fx = doc["runs"][0]["fx_graphs"]
    check(all(len(g["passes"]) >= 14 and g["drawing"] and boxes(g["drawing"]["svg"]) == g["drawing"]["items"]
              for g in fx), "the project's stored pass reports and graphs drawn")
    run("report", project2, "-o", tmp / "pc.html")
    check(self_contained((tmp / "pc.html").read_text()), "the project report is self-contained")

# A real snapshot's report (PyTorch 2.11, tests/data/real/snapshots): a recording's, never a simulation's.
real = SAMPLES.parent.parent / "tests" / "data" / "real" / "snapshots" / "a_default.pickle"
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "r.md"
    run("report", real, "-o", out)
    md = out.read_text()
    check("torchair" not in md.lower() and "custom" not in md and "capacity 0.00" not in md,
          "a recording's report has no TorchAir backend, options, custom pool or zero capacity")
    check("- recorded: memory snapshot (torch.cuda.memory._dump_snapshot)" in md and "`expandable_segments`" in md,
          "it says where it was recorded and the allocator's settings")

# A recorded memory snapshot beside the simulated run of a scenario: prediction and recording compared.
snapshot = SAMPLES.parent.parent / "tests" / "data" / "snapshots" / "graph_pools.pickle"
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "s.json"
    run("report", held, snapshot, "--compare", "-o", out)
    doc = json.loads(out.read_text())
    check([r["label"] for r in doc["runs"]][1] == "memory snapshot graph_pools.pickle, device 0",
          "the snapshot is a run of the report")
    pools = doc["runs"][1]["simulation"]["pools"]
    check(any("capture" in " ".join(p.get("graphs", [])) for p in pools), "its private pools name their captured graph")
    rows = {(r["section"], r["metric"]): r for r in doc["comparison"]["rows"]}
    check(rows[("totals", "calls")]["a"] == "7" and rows[("totals", "calls")]["b"] == "0", "compared with the run")
    check(rows[("config", "origin")]["b"].startswith("recorded: memory snapshot")
          and rows[("config", "origin")]["a"] == "simulated", "the recording's origin beside the simulation's")
    check(rows[("config", "backend")]["b"] == "—", "a recording has no backend")
    check(doc["runs"][1]["simulation"]["origin"]["kind"] == "recorded" and not doc["runs"][1]["options"],
          "the recording has no TorchAir options")
    note = rows.get(("memory", "pools paired by order of creation (a recording cannot name TorchAir graphs)"))
    check(note is not None and (note["a"], note["b"]) == ("simulated", "recorded"),
          "the comparison says once that pools pair by order of creation")
    memory = [r["metric"] for r in doc["comparison"]["rows"] if r["section"] == "memory"]
    paired = [m for m in memory
              if m.startswith("graph_1's pool ~ pool (0, 1) [graph_pool_handle() pool of 1 torch.cuda.graph capture")]
    check(len(paired) == 2 and rows[("memory", paired[0])]["b"] == "20.00 MiB",
          "graph_1's pool faces the recording's first private pool, named by its capture code")
    check(any(m.startswith("graph_2's pool ~ pool (0, 2) [graph_pool_handle() pool of 1 TorchAir aclgraph")
              for m in memory),
          "graph_2's pool faces the second")
    check("— ~ pool (0, 3) peak reserved" in memory and "— ~ pool (0, 0) [default] peak reserved" in memory,
          "pools without a counterpart stand alone")
    check(not any(m.startswith("pool of ") for m in memory), "no pool stands alone for want of a shared graph name")

_checks.finish()
