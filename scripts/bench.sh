#!/usr/bin/env bash
# Usage: scripts/bench.sh [benchmark args...]
#
# Installs the dependencies, builds build/bench/aclgi_bench (main build, RelWithDebInfo) and runs
# it. Results are printed and also written as Google Benchmark JSON to build/bench-results.json.
# Extra arguments go to the benchmark binary, e.g.
#   scripts/bench.sh --benchmark_filter=ReadFx --benchmark_repetitions=5
# Then it prints the baselines measured in the same run: the simulator benchmarks against
# BM_Decode32_Eager_Baseline, and BM_ReadFxCode_Decoder80 against Python's ast.parse of the very file
# the benchmark read (written to build/bench-fx-decoder80.py; scripts/bench_fx_read.py), and
# BM_ReadPickle_Snapshot100MB against pickletools.genops and pickle.loads of the 100 MiB pickle it
# read (build/bench-snapshot100.pickle, made once by scripts/bench_pickle.py), and BM_Store_* against
# the sqlite3 command-line tool's .import of the same rows as CSV (scripts/bench_storage.py), and
# BM_ReadTorchTrace against a Python reader (json.loads, hashlib.md5, a dict of lists) of the
# 110 MiB TORCH_TRACE log it read (build/bench-trace-110mib.log, made once by scripts/bench_trace.py
# from tests/data/real/compile/c_trace.log; its peak RSS measured again with the benchmark alone).
# Environment: ACLGI_BUILD_DIR (default build) builds and runs in another build dir;
# ACLGI_BENCH_PY_REPEAT (default 20) is the number of timed ast.parse runs.
# Not part of scripts/run-tests.sh (which only checks that the benchmarks build): timings on a
# shared CI machine mean little.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/install-deps.sh
build_dir=${ACLGI_BUILD_DIR:-build}
ACLGI_TARGETS="aclgi_bench aclgi_gui_bench aclgi_step_bench aclgi_report_bench" scripts/build.sh "$build_dir"

bench=$build_dir/bench/aclgi_bench
if [[ ! -x "$bench" ]]; then
    echo "bench.sh: $bench was not built (no bench/*.cpp yet?)" >&2
    exit 1
fi
out=$build_dir/bench-results.json
fx_file=$build_dir/bench-fx-decoder80.py # the readable FX code BM_ReadFx* read, for the Python baseline
rm -f "$fx_file"
pickle_file=$build_dir/bench-snapshot100.pickle # the pickle BM_ReadPickle_* reads, and Python after it
if [[ ! -f "$pickle_file" ]]; then
    python3 scripts/bench_pickle.py make "$pickle_file"
fi
trace_file=$build_dir/bench-trace-110mib.log # the TORCH_TRACE log BM_ReadTorchTrace reads, and Python after it
if [[ ! -f "$trace_file" ]]; then
    # Needs the real log (tests/data/real/compile/c_trace.log); without it BM_ReadTorchTrace says so.
    python3 scripts/bench_trace.py make "$trace_file" --mib 110 || echo "bench.sh: no TORCH_TRACE log for BM_ReadTorchTrace" >&2
fi
store_dir=$build_dir/bench-store # the project files BM_Store_* leave, for the sqlite3 .import baseline
rm -rf "$store_dir"
ACLGI_BENCH_TRACE="$trace_file" ACLGI_BENCH_STORE_DIR="$store_dir" ACLGI_BENCH_PICKLE="$pickle_file" ACLGI_BENCH_FX_OUT="$fx_file" "$bench" --benchmark_out="$out" --benchmark_out_format=json "$@"
echo "bench.sh: JSON results in $out"

# Speed is reported as a ratio against a baseline measured in the same run, never asserted: the
# simulator benchmarks (BM_Decode32_*) against BM_Decode32_Eager_Baseline. items_per_second is
# simulated calls per second there; with --benchmark_repetitions the iterations runs are averaged.
python3 - "$out" <<'PY' || echo "bench.sh: could not summarise $out" >&2
import json
import sys

BASELINE = "BM_Decode32_Eager_Baseline"
with open(sys.argv[1]) as f:
    runs = json.load(f).get("benchmarks", [])

order, rates, errors = [], {}, {}
for r in runs:
    name = r.get("run_name", r["name"]).split("/")[0]
    if not name.startswith("BM_Decode32_") or r.get("run_type", "iteration") != "iteration":
        continue
    if name not in order:
        order.append(name)
    if r.get("error_occurred"):
        errors[name] = r.get("error_message", "error")
    elif "items_per_second" in r:
        rates.setdefault(name, []).append(r["items_per_second"])

if not order:
    sys.exit(0)
mean = {n: sum(v) / len(v) for n, v in rates.items()}
base = mean.get(BASELINE)
print()
print(f"{'benchmark':<32} {'calls/s':>12} {'vs ' + BASELINE:>32}")
for n in order:
    if n in errors:
        print(f"{n:<32} {'error':>12}   {errors[n]}")
        continue
    if n not in mean:
        continue
    ratio = f"{mean[n] / base:.2f}x" if base else "n/a (baseline not run)"
    print(f"{n:<32} {mean[n]:>12.0f} {ratio:>32}")
# The CUDA Graph Trees runtime against the TorchAir runtime on the same model and calls, same run.
pairs = [("BM_Decode32_Cuda_OneBatch", "BM_Decode32_OneBatch"), ("BM_Decode32_Cuda_FourBatches", "BM_Decode32_FourBatches")]
shown = [(c, t) for c, t in pairs if c in mean and t in mean]
if shown:
    print()
    print(f"{'CUDA Graph Trees':<32} {'vs TorchAir (same calls)':>45}")
    for c, t in shown:
        print(f"{c:<32} {mean[c] / mean[t]:>8.2f}x {t}")
PY

# BM_ReadFxCode_Decoder80 against Python's ast.parse of the same file, timed now (nothing printed
# when the filter left the benchmark out).
python3 scripts/bench_fx_read.py "$out" "$fx_file" || echo "bench.sh: could not compare $out with ast.parse" >&2

# BM_ReadPickle_Snapshot100MB against pickletools.genops and pickle.loads of the same file.
python3 scripts/bench_pickle.py compare "$out" "$pickle_file" || echo "bench.sh: could not compare $out with pickletools" >&2

# BM_ReadTorchTrace against Python's json.loads + hashlib.md5 of the same log, timed now (3 runs, each
# a fresh process), and the reader's peak RSS against the file size.
python3 scripts/bench_trace.py compare "$out" "$trace_file" --bench "$bench" || echo "bench.sh: could not compare $out with the Python trace reader" >&2

# BM_Store_* against the sqlite3 command-line tool's .import of the same rows as CSV, timed now.
python3 scripts/bench_storage.py "$out" "$store_dir" || echo "bench.sh: could not compare $out with sqlite3 .import" >&2

# Time to first paint of the Graph tab against the dot program on the unfolded graph (up to 120 s).
python3 scripts/bench_gui.py "$build_dir" || echo "bench.sh: could not time the Graph view against dot, or the stepper" >&2

# Time to write the report of the 80-layer decoder project against reading its runs.
python3 scripts/bench_report.py "$build_dir" || echo "bench.sh: could not time the report" >&2

# A 1 GiB run log (real PyTorch stderr and a TorchAir-form log, repeated) imported into a project,
# read alone and cancelled halfway, against grep -c of the same file, timed now (made once).
runlog_file=$build_dir/bench-runlog-1gib.log
[[ -f $runlog_file ]] || python3 scripts/bench_runlog.py make "$runlog_file" --mib 1024
python3 scripts/bench_runlog.py run "$runlog_file" --bench "$bench" || echo "bench.sh: could not time the run log import against grep" >&2
