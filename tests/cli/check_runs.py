#!/usr/bin/env python3
"""End-to-end checks of `simulate --db` and `runs`: two runs stored in a fresh project, listed as a
table and as JSON, one run shown with its graphs, pools and hazards, and a file that is not a
project refused with exit code 1 and a message naming it.

usage: check_runs.py path/to/aclgraph-inspector path/to/resources/samples
"""
import json
import pathlib
import sqlite3
import sys

from clicheck import Checks
import tempfile

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])


_checks = Checks(EXE)
check, run = _checks.check, _checks.run


with tempfile.TemporaryDirectory() as tmp:
    db = pathlib.Path(tmp) / "project.aclgi"
    first = SAMPLES / "07_held_outputs_overwritten.json"
    second = SAMPLES / "09_capture_limit_fallback.json"

    # simulate --db stores the run; stdout is what simulate prints without it.
    plain = run("simulate", first, "--json").stdout
    stored = run("simulate", first, "--json", "--db", db)
    check(stored.stdout == plain, "simulate --db changes stdout")
    check(f"stored run 1 in {db}" in stored.stderr, f"first run's note: {stored.stderr!r}")
    r2 = run("simulate", second, "--db", db, "--set", "debug.aclgraph.clone_input=False")
    check(f"stored run 2 in {db}" in r2.stderr, f"second run's note: {r2.stderr!r}")
    sim = json.loads(plain)

    # The table.
    table = run("runs", "--db", db).stdout.splitlines()
    check(len(table) == 3 and table[0].split()[:3] == ["id", "scenario", "backend"], f"table:\n{table}")
    rows = [l.split() for l in table[1:]]
    check([r[0] for r in rows] == ["1", "2"], f"run ids {rows}")
    check(all(r[-1] in ("yes", "no") for r in rows), "OOM column")
    check(all(len(l.rsplit(" ", 1)[0]) == len(table[0].rsplit(" ", 1)[0]) for l in table[1:]), f"columns line up:\n" + "\n".join(table))

    # The list as JSON, against simulate --json of the same scenario.
    runs = json.loads(run("runs", "--db", db, "--json").stdout)["runs"]
    check(len(runs) == 2, f"{len(runs)} runs")
    r1 = runs[0]
    check(r1["id"] == 1 and r1["scenario_path"] == sim["scenario"]["path"] and r1["scenario_name"] == sim["scenario"]["name"],
          f"run 1 scenario {r1}")
    check(r1["backend"] == sim["backend"] and r1["profile"] == "npu", "backend and profile")
    check(r1["calls"] == sim["calls_simulated"], "calls")
    check(r1["captures"] == sum(g["captures"] for g in sim["graphs"]), "captures")
    check(r1["replays"] == sum(g["replays"] for g in sim["graphs"]), "replays")
    check(r1["hazard_count"] == len(sim["hazards"]) and r1["hazard_count"] > 0, "hazard count")
    check(r1["peak_reserved_bytes"] == sim["peak_device_reserved_bytes"], "peak reserved")
    check(r1["out_of_memory"] is False and r1["cancelled"] is False, "flags")
    check(r1["source_id"] is None and r1["created_at"].endswith("Z"), f"source and time {r1}")

    # One run.
    one = json.loads(run("runs", "--db", db, "--json", "--run", 1).stdout)["run"]
    check([g["name"] for g in one["graphs"]] == [g["name"] for g in sim["graphs"]], "graph names")
    check([p["id"] for p in one["pools"]] == [p["id"] for p in sim["pools"]], "pool ids")
    check([h["kind"] for h in one["hazards"]] == [h["kind"] for h in sim["hazards"]], "hazard kinds")
    check(one["hazard_count"] == len(one["hazards"]), "hazard count of one run")
    check(one["config"]["effective"] == sim["config"]["effective"], "effective config")
    check(one["warnings"] == sim["warnings"], "warnings")
    text = run("runs", "--db", db, "--run", 2).stdout
    check(text.startswith("run 2: ") and "graphs:\n" in text and "pools:\n" in text and "hazards:" in text,
          f"run 2 text:\n{text}")
    check("fell back to eager" in text, f"fallback shown:\n{text}")
    # A scenario the project imported (a sources row with its absolute path) is linked to its runs.
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO sources (path, kind, size, content_hash, imported_at) VALUES (?, 'scenario', 1, 'x', 'now')",
                    (str(second.resolve()),))
    r3 = run("simulate", second, "--db", db)
    check(f"stored run 3 in {db}" in r3.stderr, f"third run's note: {r3.stderr!r}")
    runs = json.loads(run("runs", "--db", db, "--json").stdout)["runs"]
    check([r["source_id"] for r in runs] == [None, None, 1], f"source ids {[r['source_id'] for r in runs]}")
    missing = run("runs", "--db", db, "--run", 9, expect=1)
    check("no run 9" in missing.stderr, f"missing run: {missing.stderr!r}")

    # Not a project: a text file, a missing file; and simulate --db into a non-database.
    bogus = pathlib.Path(tmp) / "notes.txt"
    bogus.write_text("not a database at all, just some text that is long enough to look like a header\n" * 4)
    bad = run("runs", "--db", bogus, expect=1)
    check(str(bogus) in bad.stderr, f"non-database error names the file: {bad.stderr!r}")
    gone = pathlib.Path(tmp) / "missing.aclgi"
    bad = run("runs", "--db", gone, expect=1)
    check(str(gone) in bad.stderr and not gone.exists(), f"missing project: {bad.stderr!r}")
    bad = run("simulate", first, "--db", bogus, expect=1)
    check(str(bogus) in bad.stderr and bad.stdout == "", f"simulate into a non-database: {bad.stderr!r}")
    run("runs", expect=2)

_checks.finish()
