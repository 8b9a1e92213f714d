#!/usr/bin/env python3
"""Inputs that are not regular files, imports past bad sources, and projects that are no projects or
are damaged (issue 19, docs/limits.md). Every command runs under a 20 s timeout: a hang is a
failure here, never a hung ctest.

usage: check_inputs.py path/to/aclgraph-inspector path/to/tests/data path/to/resources/samples
"""
import os
import pathlib
import subprocess
import sys
import tempfile

EXE, DATA, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(*args, expect=0, timeout=20):
    try:
        r = subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        failures.append(f"{' '.join(map(str, args))}: still running after {timeout} s (a hang)")
        return subprocess.CompletedProcess(args, -1, "", "")
    check(r.returncode == expect,
          f"{' '.join(map(str, args))}: exit {r.returncode} (expected {expect}), stderr {r.stderr!r}")
    return r


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    fifo = tmp / "f.fifo"
    os.mkfifo(fifo)
    said = "f.fifo: a FIFO (named pipe) is not read; aclgraph-inspector reads regular files"

    # Every command that reads a file, given a FIFO: refused at once, by name.
    for args in (["snapshot", fifo], ["runs", "--db", fifo], ["cache", "show", fifo], ["cache", "ls", fifo],
                 ["cache", "readable", fifo], ["passes", fifo], ["simulate", fifo], ["stages", fifo],
                 ["report", fifo, "-o", tmp / "r.json"], ["simulate", SAMPLES / "01_prompt_and_decode.json", "--db", fifo]):
        r = run(*args, expect=1)
        check(said in r.stderr, f"{args[0]} on a FIFO: {r.stderr!r}")
        check("IsADirectoryError" not in r.stdout + r.stderr and "mode 644" not in r.stdout,
              f"{args}: a made-up listing: {r.stdout!r}")
    r = run("import", fifo, "--db", tmp / "fifo.aclgi", expect=1)
    check(said in r.stdout, f"import of a FIFO: {r.stdout!r}")

    # A device: refused as one, not read as an empty pickle.
    r = run("snapshot", "/dev/zero", expect=1)
    check("/dev/zero: a character device is not read" in r.stderr, f"snapshot /dev/zero: {r.stderr!r}")
    r = run("cache", "show", "/dev/null", expect=1)
    check("/dev/null: a character device is not read" in r.stderr, f"cache show /dev/null: {r.stderr!r}")

    # A folder of inputs holding a FIFO: the FIFO is skipped by name, the rest imported.
    folder = tmp / "inputs"
    folder.mkdir()
    (folder / "a.py").write_bytes((DATA / "fx" / "print_readable_simple.py").read_bytes())
    (folder / "b.json").write_bytes((SAMPLES / "01_prompt_and_decode.json").read_bytes())
    os.mkfifo(folder / "c.py")
    r = run("import", folder, "--db", tmp / "folder.aclgi")
    check(r.stdout.count("imported ") == 2 and "c.py" in r.stdout and "a FIFO (named pipe)" in r.stdout,
          f"folder with a FIFO:\n{r.stdout}")

    # import A bad... B: A and B are imported, each bad source reported.
    truncated = tmp / "cut.pickle"
    snap = (DATA / "snapshots" / "simple.pickle").read_bytes()
    truncated.write_bytes(snap[: len(snap) // 2])
    good_a, good_b = DATA / "fx" / "print_readable_simple.py", SAMPLES / "02_dynamic_decode_reuse.json"
    db = tmp / "p.aclgi"
    r = run("import", good_a, fifo, truncated, tmp / "missing.py", good_b, "--db", db, "--simulate", expect=1)
    lines = r.stdout.splitlines()
    firsts = [l.split()[0] for l in lines if not l.startswith(" ")]
    check(firsts == ["imported", "failed", "failed", "failed", "imported"], f"import past bad sources:\n{r.stdout}")
    r = run("runs", "--db", db)
    check("Dynamic decode" in r.stdout and r.stderr == "", f"runs after the import: {r.stdout!r} {r.stderr!r}")

    # A graph whose placeholder has no tensor metadata, simulated on import: no crash.
    bare = tmp / "bare.py"
    bare.write_text("class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, x, y):\n"
                    "        add = torch.ops.aten.add.Tensor(x, y);  x = y = None\n"
                    "        return (add,)\n")
    scenario = tmp / "bare.json"
    scenario.write_text('{"format": "aclgraph-inspector-scenario", "version": 1, "name": "bare",'
                        ' "config": {"debug.aclgraph.clone_input": true, "aclgraph_config.use_custom_pool": [0, 1]},'
                        ' "graphs": [{"id": "g", "file": "bare.py", "dynamic": true, "inputs":'
                        ' {"x": {"kind": "static_address"}, "y": {"kind": "buffer", "storage": "kv"}}}],'
                        ' "calls": [{"graph": "g"}, {"graph": "g"}, {"graph": "g"}]}')
    r = run("import", bare, scenario, "--db", tmp / "bare.aclgi", "--simulate")
    check(r.stdout.count("imported ") == 2 and "1 run" in r.stdout,
          f"placeholders without metadata: {r.stdout!r} {r.stderr!r}")
    r = run("simulate", scenario)
    check("Summary: 3 calls" in r.stdout, f"simulate a bare graph: {r.stdout!r}")

    # Projects that are no projects.
    empty = tmp / "empty.aclgi"
    empty.write_bytes(b"")
    r = run("runs", "--db", empty, expect=1)
    check(f"{empty}: empty (0 bytes): not a project" in r.stderr, f"0-byte project: {r.stderr!r}")
    pickle = tmp / "snap.pickle"
    pickle.write_bytes(snap)
    r = run("runs", "--db", pickle, expect=1)
    check(f"{pickle}: a memory snapshot (pickle), not a project: import it with `import {pickle} --db P.aclgi`"
          in r.stderr, f"a snapshot given as a project: {r.stderr!r}")
    check(pickle.read_bytes() == snap, "the snapshot given as a project was changed")
    r = run("import", good_a, "--db", pickle, expect=1)
    check("a memory snapshot (pickle), not a project" in r.stderr and pickle.read_bytes() == snap,
          f"import into a snapshot: {r.stderr!r}")
    foreign = tmp / "notes.aclgi"
    foreign.write_text("some notes\n" * 20)
    r = run("runs", "--db", foreign, expect=1)
    check("not a project database: it does not start with SQLite's header" in r.stderr, f"foreign: {r.stderr!r}")
    # Decided: a 0-byte file given to import --db becomes a new project, and import says so.
    r = run("import", good_a, "--db", empty)
    check("is empty (0 bytes): a new project is created in it" in r.stderr and "imported" in r.stdout,
          f"import into a 0-byte file: {r.stderr!r}")
    new = tmp / "new.aclgi"
    r = run("import", good_a, "--db", new)
    check(new.exists() and "imported" in r.stdout, "import creates a missing project")

    # A damaged project: runs warns and reads; import refuses to write.
    damaged = tmp / "damaged.aclgi"
    damaged.write_bytes(db.read_bytes())
    size = damaged.stat().st_size
    check(size > 40 * 4096, f"the project to damage is only {size} bytes")
    with open(damaged, "r+b") as f:
        for page in range(size // 4096 // 3, size // 4096 // 3 + 24, 3):
            f.seek(page * 4096 + 100)
            f.write(b"\x5a" * 2000)
    r = run("runs", "--db", damaged)
    check(f"warning: {damaged}: the project is damaged; it is read read-only" in r.stderr
          and "quick_check says:" in r.stderr, f"runs on a damaged project: {r.stderr!r}")
    before = damaged.read_bytes()
    r = run("import", good_b, "--db", damaged, expect=1)
    check(f"{damaged}: the project is damaged, so nothing is written into it" in r.stderr, f"import: {r.stderr!r}")
    r = run("simulate", good_b, "--db", damaged, expect=1)
    check("the project is damaged" in r.stderr, f"simulate --db: {r.stderr!r}")
    check(damaged.read_bytes() == before, "a damaged project was written to")
    r = run("runs", "--db", db, "--check")
    check("quick_check found no damage" in r.stderr, f"runs --check: {r.stderr!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
