#!/usr/bin/env python3
"""Every error names the file and the place (issue 19): a sample of bad inputs for each subcommand,
each error line ("error: ...") judged by error_form_check, which asks engine::textNamesPlace, the
function the fuzz targets use. Also the reproducers of the issue: `cache readable` relays TorchAir's
text verbatim after the file and the check, a compiled_module whose py_code does not read says why
and where, and a snapshot whose 'segments' holds a million-deep list is an error at $.segments[0].

usage: check_errors.py path/to/aclgraph-inspector path/to/error_form_check path/to/tests/data
"""
import os
import pathlib
import pickle
import shutil
import subprocess
import sys
import tempfile

from clicheck import Checks, copy_cache_fixtures

EXE, FORM, DATA = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
_checks = Checks(EXE)
check, run = _checks.check, _checks.run


def error_lines(stderr):
    return [line[len("error: "):] for line in stderr.splitlines() if line.startswith("error: ")]


def expect_error(file, *args, contains=None):
    """Runs the CLI (exit 1), and checks that it printed an error naming `file` and a place."""
    r = run(*args, expect=1)
    lines = error_lines(r.stderr)
    what = " ".join(map(str, args))
    check(lines, f"{what}: no 'error: ' line in {r.stderr!r}")
    for line in lines:
        f = subprocess.run([FORM, str(file), line], capture_output=True, text=True)
        check(f.returncode == 0, f"{what}: not FILE: PLACE: MESSAGE ({f.stdout.strip()}): {line!r}")
    if contains is not None:
        check(any(contains in line for line in lines), f"{what}: no {contains!r} in {lines!r}")
    return lines


tmp = pathlib.Path(tempfile.mkdtemp(prefix="aclgi-cli-errors-"))
try:
    # The form checker itself: what it refuses.
    for text in ["x.json", "other.json: $.a: bad", "x.json: something went wrong", "x.json:12 no colon"]:
        f = subprocess.run([FORM, "x.json", text], capture_output=True, text=True)
        check(f.returncode == 1, f"error_form_check accepts {text!r}")
    for text in ["x.json:3:7: bad", "x.json: $.graphs[0].id: bad", "x.json: offset 12: bad", "x.json: empty file",
                 "x.json [py_code]:4:1: bad", "x.json: check permissions: PermissionError: Permissions must be 600"]:
        f = subprocess.run([FORM, "x.json", text], capture_output=True, text=True)
        check(f.returncode == 0, f"error_form_check refuses {text!r}: {f.stdout.strip()}")

    # Compile caches, chmod'ed 600 as TorchAir wants them (git keeps no mode).
    root = tmp / "cache"
    copy_cache_fixtures(DATA / "cache", root)
    foreign = next((root / "broken" / "foreign_class").glob("*/prompt/compiled_module"))
    # cache readable relays TorchAir's text verbatim, after the file and the check.
    foreign.chmod(0o644)
    lines = expect_error(foreign, "cache", "readable", foreign,
                         contains="check permissions: PermissionError: Permissions must be 600")
    check(any("the file has mode 644" in line for line in lines), f"readable: no mode in {lines!r}")
    foreign.chmod(0o600)
    # simulate on a compiled_module whose py_code does not read: a reason, with its place.
    lines = expect_error(foreign, "simulate", foreign)
    check(all(not line.rstrip().endswith(":") for line in lines), f"simulate: an empty reason in {lines!r}")
    # cache show reports it as a warning of the py_code check: with a reason.
    out = run("cache", "show", foreign).stdout
    for line in out.splitlines():
        if "our reader cannot read it" in line:
            check(not line.rstrip().endswith(":") and "$.compiled_fx.py_code: " in line,
                  f"cache show: py_code line {line!r}")
    for case in ["truncated", "not_a_pickle", "wrong_version", "two_compiled_fns", "no_compiled_fx"]:
        for f in (root / "broken" / case).rglob("compiled_module"):
            if not f.is_symlink():
                expect_error(f, "simulate", f)
    for case in ["truncated", "not_a_pickle", "wrong_version"]:
        for f in (root / "broken" / case).rglob("compiled_module"):
            if not f.is_symlink():
                expect_error(f, "cache", "readable", f)

    # Snapshots: the million-deep list, records of the wrong kind, a truncated file.
    deep = tmp / "deep.pickle"
    n = 1000000
    deep.write_bytes(b"\x80\x04}" + b"\x8c\x08segments" + b"]" * n + b"a" * (n - 1) + b"s.")
    expect_error(deep, "snapshot", deep, contains="$.segments[0]: a segment is a dict")
    bad = {
        "seg_int.pickle": {"segments": [{"total_size": 8, "blocks": []}, 5]},
        "block_list.pickle": {"segments": [{"total_size": 8, "blocks": [[1]]}]},
        "trace_block.pickle": {"segments": [], "device_traces": [[{"size": 8, "state": "inactive"}]]},
        "traces_int.pickle": {"segments": [], "device_traces": [7]},
        "segments_int.pickle": {"segments": 3},
    }
    for name, value in bad.items():
        p = tmp / name
        p.write_bytes(pickle.dumps(value, protocol=4))
        expect_error(p, "snapshot", p)
    expect_error(tmp / "seg_int.pickle", "snapshot", tmp / "seg_int.pickle", contains="$.segments[1]")
    for name in ["truncated.pickle", "corrupt.pickle", "class_reference.pickle"]:
        expect_error(DATA / "snapshots" / name, "snapshot", DATA / "snapshots" / name)

    # Scenarios and FX files: simulate, and report's inputs.
    for name, text in {
        "wrong_type.json": '{"format": "aclgraph-inspector-scenario", "version": 1, "graphs": [{"id": 3}], "calls": []}',
        "broken.json": '{"format": "aclgraph-inspector-scenario",\n "version": ',
        "empty.json": "",
    }.items():
        p = tmp / name
        p.write_text(text)
        expect_error(p, "simulate", p)
        expect_error(p, "report", p, "-o", tmp / "out.html")
    expect_error(DATA / "scenarios" / "truncated.json", "simulate", DATA / "scenarios" / "truncated.json")
    fx = tmp / "bad_fx.py"
    fx.write_text("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n"
                  "        y = torch.ops.aten.mm.default(x, z)\n        return (y,)\n")
    expect_error(fx, "simulate", fx)
    missing = tmp / "no_such.json"
    expect_error(missing, "simulate", missing)

    # import: a failed file's line ("failed KIND PATH") is followed by its error, indented; the
    # import names files by their absolute paths.
    db = tmp / "errors.aclgi"
    for p in [tmp / "wrong_type.json", tmp / "seg_int.pickle", tmp / "bad_fx.py"]:
        r = run("import", "--db", db, p, expect=1)
        lines = r.stdout.splitlines() + r.stderr.splitlines()
        at = next((i for i, line in enumerate(lines) if line.startswith("failed")), None)
        check(at is not None and at + 1 < len(lines), f"import {p}: no 'failed' line in {lines!r}")
        if at is not None and at + 1 < len(lines):
            line = lines[at + 1].strip()
            f = subprocess.run([FORM, str(p.resolve()), line], capture_output=True, text=True)
            check(f.returncode == 0, f"import {p}: not FILE: PLACE: MESSAGE ({f.stdout.strip()}): {line!r}")

    # cache key --config: a bad setting is named at its place in the file; one of --set by the option.
    cfg = tmp / "cfg.json"
    cfg.write_text('{"config": {"capture_limit": "x"}}')
    expect_error(cfg, "cache", "key", "--config", cfg, contains="$.config.capture_limit: ")
    r = run("cache", "key", "--config", cfg, "--set", "capture_limit='y'", expect=1)
    check("error: --set capture_limit: " in r.stderr, f"cache key --set: {r.stderr!r}")

    # passes: a graph id the scenario does not hold.
    sample = DATA.parent.parent / "resources" / "samples" / "01_prompt_and_decode.json"
    expect_error(sample, "passes", sample, "--graph", "nope")
    # A malformed --input-kind is a usage error (exit 2) in both commands, said before any file is read.
    for command in ("simulate", "passes"):
        for spec in ("arg0_1", "arg0_1=weights", "=parameter"):
            r = run(command, sample, "--input-kind", spec, expect=2)
            check(f"{command}: " in r.stderr and "--input-kind " + spec in r.stderr,
                  f"{command} --input-kind {spec}: {r.stderr!r}")

    # stages: a debug folder that is a file.
    notdir = tmp / "notdir"
    notdir.write_text("x")
    expect_error(notdir, "stages", notdir)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
_checks.finish()
