#!/usr/bin/env python3
"""End-to-end checks of `report`: a sample simulated into a JSON report and a Markdown one, the runs
of a project with the comparison of its two runs, the HTML and PDF written, and refusals (an unknown
output format, --compare without two runs, a missing input named in the message).

usage: check_report.py path/to/aclgraph-inspector path/to/resources/samples
"""
import json
import pathlib
import sys

from clicheck import Checks
import tempfile

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])


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
    check("<script" not in html and "http" not in html, "nothing from elsewhere, no script")
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

_checks.finish()
