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

    # A log's run as a scenario (docs/run-logs.md): `simulate LOG --graphs SRC --db` writes the scenario
    # file that names the two, stores the run with what it assumed, and `report` sets the log beside it.
    log = SAMPLES / "logs" / "09_capture_limit_fallback.torchair.log"
    alone = run("simulate", log, expect=1)
    check("--graphs" in alone.stderr and str(log) in alone.stderr, f"a log alone: {alone.stderr!r}")
    run("simulate", second, "--run", "1", expect=2)
    no_rank = run("simulate", log, "--graphs", second, "--run", "rank 7", expect=1)
    check("no run 'rank 7'" in no_rank.stderr and str(log) in no_rank.stderr, f"no such run: {no_rank.stderr!r}")
    logdb = pathlib.Path(tmp) / "log.aclgi"
    run("import", second, "--db", logdb, "--quiet")  # the graphs, so the run's steps draw them (source 1)
    made = run("simulate", log, "--graphs", second, "--db", logdb)
    written = pathlib.Path(str(logdb) + "." + log.name + ".scenario.json")
    check(f"wrote the run's scenario to {written}" in made.stderr and written.exists(), f"scenario file: {made.stderr!r}")
    check("note: assumed:" in made.stderr, f"the notes are printed: {made.stderr!r}")
    scenario_file = json.loads(written.read_text())
    check(scenario_file["log"] == {"file": str(log.resolve()), "graphs": str(second.resolve())}, f"{scenario_file}")
    one = json.loads(run("runs", "--db", logdb, "--json", "--run", 1).stdout)["run"]
    check(one["scenario_path"] == str(written.resolve()), f"stored against the scenario file: {one['scenario_path']}")
    check(one["source_id"] == 1, f"linked to the imported graphs: {one['source_id']}")
    check(any("note: assumed:" in a for a in one["assumptions"]), f"assumptions stored: {one['assumptions']}")
    check([h["kind"] for h in one["hazards"]] == ["fallback"], f"the log's fallback: {one['hazards']}")
    check("assumed or unknown:" in run("runs", "--db", logdb, "--run", 1).stdout, "runs --run lists the assumptions")
    md = pathlib.Path(tmp) / "log-vs-run.md"
    run("report", log, written, "--compare", "-o", md)
    text = md.read_text()
    check("4 of 4 agree" in text and "### Assumed or unknown" in text, "report: the calls agree, the assumptions shown")

_checks.finish()
