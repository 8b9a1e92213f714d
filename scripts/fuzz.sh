#!/usr/bin/env bash
# Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#        scripts/fuzz.sh TARGET merge
#        scripts/fuzz.sh all MINUTES
#
# `all MINUTES` (the nightly run) fuzzes every target tests/fuzz/*_fuzz.cpp in turn for MINUTES
# each. New inputs go to a scratch directory first; afterwards only those that add coverage to the
# committed corpus are merged into it (libFuzzer -merge=1), so the corpus grows by what is new and
# no more. A crash, leak, timeout or out-of-memory of one target is reported and the next target
# still runs. The last lines are a table (target, runs, runs/s, new inputs kept, peak RSS, result)
# and the exit status is non-zero if any target failed. FUZZ_JOBS=N runs N targets at once (default
# 1: one core per target). The logs are in build-fuzz/logs/.
#
# Builds the libFuzzer binary build-fuzz/TARGET from tests/fuzz/TARGET_fuzz.cpp and the engine
# sources with clang++ (-fsanitize=fuzzer,address,undefined; Debian's clang and libclang-rt-dev),
# then runs it for SECONDS on tests/fuzz/corpus/TARGET/ with -max_len=65536, adding the new inputs
# it finds to that corpus. Crashes, leaks and timeouts are written to build-fuzz/artifacts/TARGET/;
# replay one with `build-fuzz/TARGET FILE`. tests/fuzz/TARGET.dict, if present, is used as a
# dictionary.
#
# `merge` minimises the corpus instead: libFuzzer's -set_cover_merge=1 over edges (-use_counters=0)
# into a fresh directory, which then replaces tests/fuzz/corpus/TARGET/; files named seed_* and
# regress_* (hand-made seeds, inputs of fixed crashes) are kept as they are. Run it after a long
# session and commit the result.
#
# The engine sources a target needs (all of engine/ unless the script lists fewer) are compiled
# once into build-fuzz/obj/ and rebuilt when their source or any engine header is newer. Environment: CXX_FUZZ picks the compiler (default clang++),
# ACLGI_JOBS the number of parallel compiles.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [[ $# -lt 2 ]]; then
    sed -n '2,4p' "$0" | sed 's/^# //' >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

if [[ "$target" == all ]]; then
    if [[ ! "$seconds" =~ ^[0-9]+$ || "$seconds" -lt 1 ]]; then
        echo "fuzz.sh: all takes a whole number of MINUTES per target, not '$seconds'" >&2
        exit 2
    fi
    minutes=$seconds
    jobs_at_once=${FUZZ_JOBS:-1}
    logs=build-fuzz/logs
    mkdir -p "$logs"
    mapfile -t all_targets < <(find tests/fuzz -maxdepth 1 -name '*_fuzz.cpp' -printf '%f\n' | sed 's/_fuzz\.cpp$//' | sort)
    # Build every target first (one at a time: they share build-fuzz/obj/), with 1 second of fuzzing.
    for t in "${all_targets[@]}"; do
        "$0" "$t" 1 -runs=0 >"$logs/$t.build.log" 2>&1 || { echo "fuzz.sh: building $t failed (see $logs/$t.build.log)" >&2; exit 1; }
    done
    run_one() { # TARGET: fuzz into a scratch dir, then merge what adds coverage into the corpus.
        local t=$1 fresh
        fresh=$(mktemp -d "build-fuzz/new-$t.XXXXXX")
        local rc=0
        FUZZ_NEW_DIR=$fresh "$0" "$t" "$((minutes * 60))" >"$logs/$t.log" 2>&1 || rc=$?
        local before after
        before=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
        if [[ -n "$(ls -A "$fresh")" ]]; then
            "build-fuzz/$t" -merge=1 -max_len=65536 "tests/fuzz/corpus/$t" "$fresh" >"$logs/$t.merge.log" 2>&1 || true
        fi
        after=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
        rm -rf "$fresh"
        echo "$rc $((after - before))" >"$logs/$t.result"
    }
    running=0
    for t in "${all_targets[@]}"; do
        echo "fuzz.sh: $t for $minutes min ($(date -u +%H:%M:%S) UTC)"
        run_one "$t" &
        if ((++running >= jobs_at_once)); then
            wait -n || true
            running=$((running - 1))
        fi
    done
    wait || true
    status=0
    printf '\n%-16s %12s %10s %6s %9s  %s\n' target runs runs/s new peak_rss result
    for t in "${all_targets[@]}"; do
        read -r rc added <"$logs/$t.result"
        stat() { grep -oE "^stat::$1: *[0-9]+" "$logs/$t.log" | tail -1 | grep -oE '[0-9]+$' || echo '?'; }
        result=clean
        if [[ "$rc" != 0 ]]; then
            result="FAILED (exit $rc; see $logs/$t.log and build-fuzz/artifacts/$t/)"
            status=1
        fi
        printf '%-16s %12s %10s %6s %6s MB  %s\n' "$t" "$(stat number_of_executed_units)" \
            "$(stat average_exec_per_sec)" "$added" "$(stat peak_rss_mb)" "$result"
    done
    exit $status
fi

src=tests/fuzz/${target}_fuzz.cpp
corpus=tests/fuzz/corpus/$target
if [[ ! -f "$src" ]]; then
    echo "fuzz.sh: no fuzz target $src" >&2
    exit 2
fi
if [[ "$seconds" != merge && ! "$seconds" =~ ^[0-9]+$ ]]; then
    echo "fuzz.sh: SECONDS must be a number of seconds or 'merge', not '$seconds'" >&2
    exit 2
fi

cxx=${CXX_FUZZ:-clang++}
jobs=${ACLGI_JOBS:-$(nproc)}
out=build-fuzz
obj=$out/obj
mkdir -p "$obj" "$out/artifacts/$target" "$corpus"

common=(-std=c++17 -g -O1 -fno-omit-frame-pointer -I"$root"
    "-DACLGI_SAMPLES_DIR=\"$root/resources/samples\"")
sanitize=(-fsanitize=address,undefined -fno-sanitize-recover=undefined)

# The engine parts a target needs (fewer sources: faster builds, and a target does not depend on
# unrelated modules compiling with clang). A target not listed gets the whole engine.
case "$target" in
# fx_reader: readFxText also reads TorchAir modules (config) and debug folders (passes): the whole engine.
pickle) source_dirs=(engine/core engine/pickle) ;;
marshal) source_dirs=(engine/core engine/marshal) ;;
snapshot) source_dirs=(engine/core engine/pickle engine/snapshot engine/memory engine/runtime/memory_timeline.cpp) ;;
torch_trace) source_dirs=(engine/core engine/readers/torch_trace.cpp engine/readers/torch_trace_json.cpp) ;;
*) source_dirs=(engine) ;;
esac

# Engine objects: instrumented for coverage (fuzzer-no-link), rebuilt when stale.
object_of() { echo "$obj/$(echo "${1%.cpp}" | tr '/' '_').o"; }
newest_header=$(find engine -name '*.h' -printf '%T@\n' | sort -n | tail -1)
to_build=()
objects=()
while IFS= read -r cpp; do
    o=$(object_of "$cpp")
    objects+=("$o")
    if [[ ! -f "$o" || "$cpp" -nt "$o" ]] || awk -v h="$newest_header" -v t="$(stat -c %Y "$o")" 'BEGIN{exit !(h > t)}'; then
        to_build+=("$cpp")
    fi
done < <(find "${source_dirs[@]}" -name '*.cpp' | sort)

if [[ ${#to_build[@]} -gt 0 ]]; then
    echo "fuzz.sh: compiling ${#to_build[@]} engine sources with $cxx"
    running=0
    failed=0
    for cpp in "${to_build[@]}"; do
        "$cxx" "${common[@]}" "${sanitize[@]}" -fsanitize=fuzzer-no-link -c "$cpp" -o "$(object_of "$cpp")" &
        if ((++running >= jobs)); then
            wait -n || failed=1
            running=$((running - 1))
        fi
    done
    while ((running > 0)); do
        wait -n || failed=1
        running=$((running - 1))
    done
    if ((failed)); then
        echo "fuzz.sh: compiling the engine failed" >&2
        exit 1
    fi
fi

echo "fuzz.sh: linking $out/$target"
"$cxx" "${common[@]}" "${sanitize[@]}" -fsanitize=fuzzer "$src" "${objects[@]}" -o "$out/$target"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

dict=()
if [[ -f tests/fuzz/$target.dict ]]; then
    dict=(-dict="tests/fuzz/$target.dict")
fi

if [[ "$seconds" == merge ]]; then
    fresh=$(mktemp -d "$out/merge-$target.XXXXXX")
    # Edges only (no hit counts): a corpus that covers every edge stays a few hundred files.
    "$out/$target" -set_cover_merge=1 -use_counters=0 -max_len=65536 "$@" "$fresh" "$corpus"
    # Hand-made inputs keep their names: seeds and the inputs of fixed crashes.
    find "$corpus" -maxdepth 1 -type f \( -name 'seed_*' -o -name 'regress_*' \) -exec cp {} "$fresh/" \;
    rm -rf "$corpus"
    mv "$fresh" "$corpus"
    echo "fuzz.sh: $corpus now holds $(find "$corpus" -type f | wc -l) inputs ($(du -sh "$corpus" | cut -f1))"
    exit 0
fi

# FUZZ_NEW_DIR (set by `all`): new inputs are written there, not into the committed corpus.
exec "$out/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$target/" "${dict[@]}" "$@" \
    ${FUZZ_NEW_DIR:+"$FUZZ_NEW_DIR"} "$corpus"
