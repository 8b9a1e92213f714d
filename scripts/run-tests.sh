#!/usr/bin/env bash
# Usage: scripts/run-tests.sh
#
# Installs the dependencies, then builds and runs every test:
#   1. main build (build/: GUI, tests, benchmarks; RelWithDebInfo) and its ctest run;
#      the benchmarks are built here but not run (run them by hand with scripts/bench.sh);
#   2. sanitizer build (build-asan/: ASan + UBSan of everything but the benchmarks: the window,
#      the command-line tools, every test) and its ctest run: the engine, storage and GUI tests,
#      the CLI checks (every command, the real-artifact tests) and every fuzz corpus; any sanitizer
#      report fails the run, also one from a child process whose output a test ignored (each
#      process writes its reports to a file of its own). LeakSanitizer's suppressions for what Qt's
#      plugins and fontconfig keep until exit are compiled into the executables that start Qt
#      (gui/app/lsan_suppressions.cpp);
#   3. the no-GUI configuration (build-nogui/, configured, not built) must not look for Qt;
#   4. scripts/check-architecture.sh (engine -> storage -> gui in includes and link lines, every .cpp
#      in a CMakeLists.txt) and scripts/check-format.sh (clang-format on the lines changed since the
#      first parent).
# Every step runs even when an earlier one failed. The last line is
#   tests: N passed, M failed
# summed over both ctest runs; the exit status is non-zero if any test or step failed.
# .ci/run calls this script. GUI tests run with QT_QPA_PLATFORM=offscreen and a private
# XDG_CONFIG_HOME, so they never need a display nor touch your own settings.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/runtime" "$tmp/config"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$tmp/runtime}
export XDG_CONFIG_HOME=$tmp/config

test_jobs=${ACLGI_TEST_JOBS:-2}
test_timeout=${ACLGI_TEST_TIMEOUT:-300} # seconds, for tests that set no TIMEOUT of their own

total_passed=0
total_failed=0
failed_steps=()

section() { printf '\n==== %s ====\n' "$*"; }

# run_ctest BUILD_DIR LABEL: runs ctest, adds its counts to the totals.
run_ctest() {
    local dir=$1 label=$2 log="$tmp/ctest-$2.log" rc=0 line counts failed total
    ctest --test-dir "$dir" --output-on-failure -j "$test_jobs" --timeout "$test_timeout" \
        --no-tests=error 2>&1 | tee "$log" || rc=$?
    # "95% tests passed, 1 tests failed out of 20" (colour codes stripped, if any).
    line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
        grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' | tail -n 1 || true)
    if [[ -z "$line" ]]; then
        failed_steps+=("$label: ctest gave no result line (exit status $rc)")
        return
    fi
    counts=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/' <<<"$line")
    read -r failed total <<<"$counts"
    total_passed=$((total_passed + total - failed))
    total_failed=$((total_failed + failed))
    if [[ $rc -ne 0 && $failed -eq 0 ]]; then
        failed_steps+=("$label: ctest exited with status $rc")
    fi
}

section "dependencies"
scripts/install-deps.sh

section "main build (build/)"
if scripts/build.sh build; then
    section "main tests"
    run_ctest build main
    if [[ -x build/bench/aclgi_bench ]]; then
        echo "benchmarks built: build/bench/aclgi_bench (not run; see scripts/bench.sh)"
    else
        echo "benchmarks: none built (no bench/*.cpp yet)"
    fi
else
    failed_steps+=("main build failed")
fi

section "sanitizer build (build-asan/: ASan+UBSan, GUI and CLI included, no bench)"
asan_ok=1
scripts/build.sh build-asan -DACLGI_BUILD_BENCH=OFF -DACLGI_SANITIZE=ON || asan_ok=0

section "no-GUI configuration (build-nogui/, configure only)"
# With the GUI off nothing may look for Qt: a Qt5*_DIR entry means some CMakeLists.txt did.
rm -rf build-nogui
if cmake -S . -B build-nogui -G Ninja -DACLGI_BUILD_GUI=OFF -DACLGI_BUILD_BENCH=OFF >"$tmp/nogui.log" 2>&1; then
    if grep -E '^Qt5[A-Za-z]*_DIR:' build-nogui/CMakeCache.txt; then
        failed_steps+=("Qt5 was looked for in the no-GUI configuration (build-nogui/CMakeCache.txt)")
    else
        echo "configured without Qt"
    fi
else
    cat "$tmp/nogui.log"
    failed_steps+=("the no-GUI configuration failed (cmake -DACLGI_BUILD_GUI=OFF)")
fi

if [[ $asan_ok -eq 1 ]]; then
    section "sanitizer tests"
    # Every process a test starts (the CLI under the Python checks, too) writes its sanitizer
    # reports to a file of its own as well as failing, so a report from a child whose exit status
    # or output a test ignored is still seen.
    mkdir -p "$tmp/sanitizer-reports"
    ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$tmp/sanitizer-reports/asan" \
        UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$tmp/sanitizer-reports/ubsan" \
        run_ctest build-asan sanitizer
    reports=$(find "$tmp/sanitizer-reports" -type f | sort)
    if [[ -n "$reports" ]]; then
        for report in $reports; do
            echo "---- $report"
            head -n 60 "$report"
        done
        failed_steps+=("sanitizer reports: $(wc -l <<<"$reports") (printed above)")
    fi
    if [[ -f build-asan/Testing/Temporary/LastTest.log ]] &&
        grep -nE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' \
            build-asan/Testing/Temporary/LastTest.log; then
        failed_steps+=("sanitizer report in build-asan/Testing/Temporary/LastTest.log")
    fi
else
    failed_steps+=("sanitizer build failed")
fi

section "architecture and format checks"
# Dependencies one way (engine -> storage -> gui) in includes and link lines, and every .cpp in a
# CMakeLists.txt; then clang-format on the lines changed since the first parent.
scripts/check-architecture.sh build || failed_steps+=("architecture check (scripts/check-architecture.sh build)")
scripts/check-format.sh || failed_steps+=("format check on changed lines (scripts/check-format.sh)")

section "summary"
for step in "${failed_steps[@]}"; do
    echo "FAILED: $step"
done
echo "tests: $total_passed passed, $total_failed failed"
if [[ $total_failed -ne 0 || ${#failed_steps[@]} -ne 0 ]]; then
    exit 1
fi
