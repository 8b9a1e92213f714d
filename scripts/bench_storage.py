#!/usr/bin/env python3
"""The baseline of the storage benchmarks, measured in the same run as aclgi_bench.

Usage: scripts/bench_storage.py RESULTS_JSON STORE_DIR

For each BM_Store_* benchmark in RESULTS_JSON (Google Benchmark JSON), takes the project file its
last iteration left in STORE_DIR, exports every row of every table to CSV (one file per table), makes
a fresh database with the same schema and pragmas (WAL, application_id, user_version), and times
the sqlite3 command-line tool importing all of them (`.import --csv FILE TABLE`, one sqlite3
process, one transaction per table as `.import` does). Prints rows per second of both and the ratio
ours / sqlite3 (the issue's aim: at least 0.5). NULLs become empty strings in CSV and BLOBs hex
text; that is the CSV import's cost model, not ours. Called by scripts/bench.sh; prints nothing
when no BM_Store_* benchmark ran.
"""
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

FILES = {
    "BM_Store_Decoder80Graphs": "decoder80-graphs.aclgi",
    "BM_Store_Run10000Calls": "decoder80-run10000.aclgi",
}


def bench_rates(results_path):
    with open(results_path) as f:
        runs = json.load(f).get("benchmarks", [])
    rates = {}
    for r in runs:
        name = r.get("run_name", r["name"]).split("/")[0]
        if name in FILES and r.get("run_type", "iteration") == "iteration" and not r.get("error_occurred"):
            rates.setdefault(name, []).append((r.get("rows_per_second", 0.0), r.get("rows", 0.0)))
    return rates


def export_csv(db_path, out_dir):
    """Writes TABLE.csv for every non-empty table; returns [(table, rows, csv_path)] and the schema."""
    con = sqlite3.connect(db_path)
    con.text_factory = bytes
    schema = [
        sql.decode() if isinstance(sql, bytes) else sql
        for (sql,) in con.execute(
            "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    ]
    pragmas = {p: con.execute(f"PRAGMA {p}").fetchone()[0] for p in ("application_id", "user_version")}
    tables = [t.decode() for (t,) in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    exported = []
    for t in tables:
        path = os.path.join(out_dir, t + ".csv")
        n = 0
        with open(path, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
            w = csv.writer(f)
            for row in con.execute(f'SELECT * FROM "{t}"'):
                w.writerow(
                    [
                        "" if v is None
                        else v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) and t != "run_keyframes"
                        else v.hex() if isinstance(v, bytes)
                        else v
                        for v in row
                    ]
                )
                n += 1
        if n:
            exported.append((t, n, path))
    con.close()
    return exported, schema, pragmas


def time_sqlite3_import(schema, pragmas, exported, work):
    target = os.path.join(work, "csv-import.aclgi")
    con = sqlite3.connect(target)
    con.execute("PRAGMA journal_mode=WAL")
    for sql in schema:
        con.execute(sql)
    for p, v in pragmas.items():
        con.execute(f"PRAGMA {p}={int(v)}")
    con.commit()
    con.close()
    script = "".join(f".import --csv '{path}' {table}\n" for table, _, path in exported)
    t0 = time.perf_counter()
    done = subprocess.run(["sqlite3", target], input=script, text=True, capture_output=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0 or done.stderr.strip():
        raise RuntimeError(f"sqlite3 .import failed: {done.stderr.strip()[:500]}")
    con = sqlite3.connect(target)
    imported = sum(con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t, _, _ in exported)
    con.close()
    return seconds, imported


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, store = sys.argv[1], sys.argv[2]
    rates = bench_rates(results)
    if not rates:
        return 0
    if not shutil.which("sqlite3"):
        print("bench_storage.py: the sqlite3 command-line tool is not installed (scripts/install-deps.sh)")
        return 1
    print()
    print(f"{'benchmark':<28} {'rows':>9} {'ours rows/s':>12} {'sqlite3 .import rows/s':>23} {'ratio':>7}")
    for name, values in rates.items():
        ours = max(v[0] for v in values)
        rows = int(values[-1][1])
        db = os.path.join(store, FILES[name])
        with tempfile.TemporaryDirectory(prefix="aclgi-bench-csv-") as work:
            exported, schema, pragmas = export_csv(db, work)
            total = sum(n for _, n, _ in exported)
            seconds, imported = time_sqlite3_import(schema, pragmas, exported, work)
        if imported != total:
            print(f"{name:<28} sqlite3 imported {imported} of {total} rows")
            continue
        theirs = total / seconds
        print(f"{name:<28} {rows:>9} {ours:>12.0f} {theirs:>23.0f} {ours / theirs:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
