#!/usr/bin/env python3
"""End-to-end checks of `cache ls|show|readable|key` and `simulate compiled_module` on the cache
fixtures in tests/data/cache/ (made by tests/data/make_cache_fixtures.py; manifest.json says what
TorchAir does with each). The tree is copied to a temporary folder and chmod'ed 600 first: git keeps
neither the mode nor the owner TorchAir checks.

usage: check_cache.py path/to/aclgraph-inspector path/to/tests/data
"""
import json
import os
import pathlib
import shutil
import stat
import sys

from clicheck import Checks, copy_cache_fixtures
import tempfile

EXE, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
MANIFEST = json.loads((DATA / "cache" / "manifest.json").read_text())
CASES = {f["case"]: f for f in MANIFEST["files"]}


_checks = Checks(EXE)
check, run = _checks.check, _checks.run


tmp = pathlib.Path(tempfile.mkdtemp(prefix="aclgi-cli-cache-"))
try:
    root = tmp / "cache"
    copy_cache_fixtures(DATA / "cache", root)
    good = root / CASES["torchair_default_prompt"]["path"]
    changed = root / CASES["torchair_nondefault_prompt"]["path"]

    # ls: every entry of the torchair cache with its parts and "loads"
    out = run("cache", "ls", root / "torchair_cache").stdout
    check(out.startswith("cache dir ") and ": 3 cache files\n" in out, f"ls header:\n{out}")
    check(out.count(" loads\n") == 3, f"three loadable entries:\n{out}")
    check("Model.prompt(x)  2026-06-01 12:00:00.123456+00:00" in out, f"meta in ls:\n{out}")
    d = json.loads(run("cache", "ls", root / "multirank_cache", "--json").stdout)
    ranks = sorted((e["dist"]["global_rank"], e["dist"]["tp_rank"], e["dist"]["pp_rank"]) for e in d["entries"])
    check(ranks == [(0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1)], f"ranks {ranks}")
    check(all(e["report"]["loads"] and e["dist"]["world"] == 4 for e in d["entries"]), "multirank entries load")
    check(all(e["model_folder"]["class"] == "LlamaDecoder" for e in d["entries"]), "class")

    # ls of the broken tree: each failure with TorchAir's text
    out = run("cache", "ls", root / "broken").stdout
    for text in ["FAILS version: ValueError: Version mismatch: 1.0.4 != 1.0.5",
                 "FAILS unpickle: UnpicklingError: Forbidden deserialize os.system",
                 "FAILS unpickle: UnpicklingError: pickle data was truncated",
                 "FAILS unpickle: UnpicklingError: invalid load key, '#'.",
                 "FAILS compiled_fns: ValueError: Expected 1 compiled function, found ['__compiled_fn_1', '__compiled_fn_3']",
                 "no compiled_module: TorchAir compiles into this folder on the next run"]:
        check(text in out, f"ls broken: {text!r} in\n{out}")

    # show: text and JSON
    out = run("cache", "show", good).stdout
    for text in ["meta        ModelCacheMeta(name='Model.prompt(x)', date='2026-06-01 12:00:00.123456+00:00', version='1.0.5')",
                 "TorchAir (torchair) would load this cache.",
                 "[INFO] TORCHAIR Loading cache from ",
                 "calls       __compiled_fn_1 (TorchAir binds exactly one to the generated kernel)",
                 "linear1.weight", "static_capture_size_limit=64"]:
        check(text in out, f"show: {text!r} in\n{out}")
    d = json.loads(run("cache", "show", good, "--json").stdout)
    a = d["artifact"]
    check(d["loads"] and d["file"]["mode"] == "600", "show --json loads, mode")
    check(a["meta"]["version"] == "1.0.5" and a["backend"] == "torchair" and a["pickle_protocol"] == 4, f"artifact {a['meta']}")
    check(a["compiled_fn"]["compiled_fns"] == ["__compiled_fn_1"], f"compiled fns {a['compiled_fn']}")
    check("3.11" in a["compiled_fn"].get("python_versions", []), f"python guess {a['compiled_fn'].get('python_versions')}")
    check(a["compiled_fx"]["graph"]["id"] == CASES["torchair_default_prompt"]["fx_graph_name"], "graph id")
    check([p["source"] for p in a["compiled_fx"]["input_parameters"]]
          == [p[0] for p in CASES["torchair_default_prompt"]["input_parameters"]], "input parameters")
    check([c["check"] for c in d["checks"]][:6] == ["exists", "owner", "permissions", "unpickle", "version", "compiled_fn"],
          f"check order {[c['check'] for c in d['checks']]}")
    # a npugraph_ex file as torchair would load it
    ex = root / CASES["npugraph_ex_default_forward"]["path"]
    d = json.loads(run("cache", "show", ex, "--backend", "torchair", "--json").stdout)
    check(not d["loads"] and any(c["message"] == "Forbidden deserialize npugraph_ex.inference._cache_compiler.ModelCacheArtifact"
                                 for c in d["checks"]), "npugraph_ex file under torchair")
    check(d["log"][-1].startswith("[INFO] TORCHAIR Compiling cache for <bound method Model.forward of Model(...)> to "),
          f"log {d['log'][-2:]}")
    # mode 644: refused as TorchAir refuses it
    os.chmod(changed, 0o644)
    out = run("cache", "show", changed).stdout
    check("FAILED      permissions   PermissionError: Permissions must be 600 (the file has mode 644)" in out, f"644:\n{out}")
    check("as Permissions must be 600\n" in out, f"Clear broken cache line:\n{out}")

    # readable: TorchAir's readable_cache text; with -o, commented text and py_code, mode 600
    py311 = root / "pyversions" / "py311"
    out = run("cache", "readable", py311 / "compiled_module", "--python", "3.11").stdout
    check(out == (py311 / "readable_cache.txt").read_text() + "\n", "readable = readable_cache's text under 3.11")
    target = tmp / "out" / "readable.py"
    run("cache", "readable", good, "-o", target)
    text = target.read_text()
    check(text.startswith("# " + "=" * 100 + "\n# ModelCacheMeta(") and "\n# ---" in text, "readable file comments")
    check(stat.S_IMODE(target.stat().st_mode) == 0o600, "readable file mode 600")
    check("def forward(*args, node_info=[], is_capturing: bool = False):" in text, "py_code after the comments")
    os.chmod(target, 0o644)
    r = run("cache", "readable", good, "-o", target, expect=1)
    check("PermissionError: Permissions must be 600" in r.stderr, f"existing 644 output: {r.stderr!r}")
    link = tmp / "link.py"
    link.symlink_to(target)
    r = run("cache", "readable", good, "-o", link, expect=1)
    check(f"ValueError: Output file {link} can not be a symlink" in r.stderr, f"symlink output: {r.stderr!r}")
    sym = root / CASES["broken_symlink"]["path"]
    r = run("cache", "readable", sym, expect=1)
    check(f"ValueError: Cache file {sym} can not be a symlink" in r.stderr, f"symlink cache: {r.stderr!r}")
    r = run("cache", "readable", changed, "--force")
    check(r.stdout.startswith("=" * 100) and "PermissionError: Permissions must be 600" in r.stderr
          and "readable_cache would raise this" in r.stderr, "--force prints anyway")
    r = run("cache", "readable", root / "broken" / "no_such" / "compiled_module", expect=1)
    check("ValueError: Cache file " in r.stderr and "is not exists" in r.stderr, f"missing: {r.stderr!r}")

    # key: defaults hit the default entry and miss the changed one, naming the options
    repr_file = tmp / "repr.txt"
    repr_file.write_text(CASES["torchair_default_prompt"]["module_repr"] + "\n")
    d = json.loads(run("cache", "key", "--repr", repr_file, "--against", root / "torchair_cache", "--json").stdout)
    check(d["option_string"] == CASES["torchair_default_prompt"]["options"], "default option string")
    check(d["md5"] == CASES["torchair_default_prompt"]["md5"], f"md5 {d['md5']}")
    verdicts = {e["path"]: e["verdict"] for e in d["entries"]}
    check(sorted(verdicts.values()) == ["hit", "hit", "miss"], f"verdicts {verdicts}")
    miss = next(e for e in d["entries"] if e["verdict"] == "miss")
    check([x["key"] for x in miss["differences"]] == ["static_capture_size_limit", "clone_input", "frozen_parameter"],
          f"differences {miss['differences']}")
    check("debug.aclgraph.remove_cat_ops" in d["not_in_key"], "not in key")
    out = run("cache", "key", "--set", "debug.aclgraph.static_capture_size_limit=8", "--set", "debug.aclgraph.clone_input=False",
              "--set", "experimental_config.frozen_parameter=True", "--set", "debug.aclgraph.remove_cat_ops=False",
              "--repr", repr_file, "--against", root / "torchair_cache").stdout
    check(f"md5      {CASES['torchair_nondefault_prompt']['md5']}" in out, f"changed md5:\n{out}")
    check("You set: debug.aclgraph.remove_cat_ops" in out and "Careful: the key ignores" in out, f"outside key:\n{out}")
    cfg = tmp / "config.json"
    cfg.write_text(json.dumps({"backend": "npugraph_ex", "config": {"capture_limit": 8, "clone_input": False,
                                                                     "frozen_parameter": True}}))
    repr_file.write_text(CASES["npugraph_ex_nondefault_forward"]["module_repr"])
    d = json.loads(run("cache", "key", "--config", cfg, "--repr", repr_file, "--json").stdout)
    check(d["backend"] == "npugraph_ex" and d["md5"] == CASES["npugraph_ex_nondefault_forward"]["md5"], f"npugraph_ex key {d}")
    r = run("cache", "key", "--set", "debug.aclgraph.clone_input='yes'", expect=1)
    check("not in optional list" in r.stderr, f"invalid setting: {r.stderr!r}")

    # simulate a compiled_module: its graph, its config
    out = run("simulate", good, "--symbols", "s0=4").stdout
    check("Success to capture fx_graph " + CASES["torchair_default_prompt"]["fx_graph_name"] in out, f"simulate:\n{out[:800]}")
    r = run("simulate", root / CASES["broken_no_compiled_fx"]["path"], expect=1)
    check("no compiled_fx" in r.stderr, f"simulate without compiled_fx: {r.stderr!r}")
    r = run("simulate", root / CASES["broken_truncated"]["path"], expect=1)
    check("truncated" in r.stderr and "compiled_module" in r.stderr, f"simulate truncated: {r.stderr!r}")

    # usage
    run("cache", expect=2)
    run("cache", "frobnicate", expect=2)
    run("cache", "show", expect=2)
    run("cache", "ls", root / "nope", expect=1)
    run("cache", "readable", good, "--python", "2.7", expect=2)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

_checks.finish()
