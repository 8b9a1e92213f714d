#!/usr/bin/env bash
# Usage: scripts/bench.sh [benchmark args...]
#
# Installs the dependencies, builds build/bench/aclgi_bench (main build, RelWithDebInfo) and runs
# it. Results are printed and also written as Google Benchmark JSON to build/bench-results.json.
# Extra arguments go to the benchmark binary, e.g.
#   scripts/bench.sh --benchmark_filter=Allocator --benchmark_repetitions=5
# Not part of scripts/run-tests.sh (which only checks that the benchmarks build): timings on a
# shared CI machine mean little.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/install-deps.sh
ACLGI_TARGETS=aclgi_bench scripts/build.sh build

bench=build/bench/aclgi_bench
if [[ ! -x "$bench" ]]; then
    echo "bench.sh: $bench was not built (no bench/*.cpp yet?)" >&2
    exit 1
fi
out=build/bench-results.json
"$bench" --benchmark_out="$out" --benchmark_out_format=json "$@"
echo "bench.sh: JSON results in $out"
