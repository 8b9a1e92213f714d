#!/usr/bin/env bash
# Usage: tests/scripts/check_architecture_test.sh [SCRIPT [ROOT]]
# (also `scripts/check-architecture.sh --self-test`; ctest runs it as scripts.check_architecture)
#
# Proves that every check of scripts/check-architecture.sh can fail: copies the tree (without its
# test data) to a temporary folder, checks that the clean copy passes, then plants one violation of
# each kind and expects the script to exit 1 naming each one with its file:line:
#   includes: engine/ -> Qt, SQLite, storage/; storage/ -> gui/, Graphviz; gui/cli -> QtWidgets;
#             gui/report -> a gui_graph widget header; gui_layout -> Qt; bench/ -> tests/;
#   sources:  a .cpp no CMakeLists.txt names, a file(GLOB ...);
#   links:    a configured copy where engine links SQLite, storage QtCore, gui_layout QtCore,
#             gui_cli Qt5::Widgets and gui_report Qt5::Svg (whose interface brings Qt5::Widgets), and
#             the link lines of engine_tests, storage_tests and aclgi_report_bench in build.ninja.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=${1:-$here/../../scripts/check-architecture.sh}
root=$(cd "${2:-$here/../..}" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# copy DEST: the tree as git sees it (tracked and untracked, not ignored), without the test data.
copy() {
    mkdir -p "$1"
    (cd "$root" && git ls-files -z -co --exclude-standard) |
        grep -zvE '^(tests/data|tests/fuzz/corpus)/' |
        (cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$1"
}
# plant FILE TEXT: appends TEXT as a line of FILE, prints FILE:LINE.
plant() {
    printf '%s\n' "$2" >>"$1"
    echo "$1:$(wc -l <"$1")"
}
# expect OUTPUT-FILE PATTERN WHAT
expect() {
    if grep -F -- "$2" "$1" | grep -q VIOLATION; then
        echo "ok: found $3 ($2)"
    else
        fail "not found: $3 ($2)"
    fi
}

echo "== clean copy"
copy "$tmp/clean"
rc=0
bash "$script" --root "$tmp/clean" --no-link >"$tmp/clean.out" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
    cat "$tmp/clean.out"
    fail "the clean copy does not pass (exit status $rc)"
else
    echo "ok: the clean copy passes"
fi

echo "== planted includes and sources"
copy "$tmp/inc"
cd "$tmp/inc"
declare -A planted=(
    ["engine includes Qt"]=$(plant engine/core/result.h '#include <QString>')
    ["engine includes SQLite"]=$(plant engine/core/md5.cpp '#include <sqlite3.h>')
    ["engine includes storage/"]=$(plant engine/graph/graph.cpp '#include "storage/sqlite.h"')
    ["storage includes gui/"]=$(plant storage/sqlite.cpp '#include "gui/cli/commands.h"')
    ["storage includes Graphviz"]=$(plant storage/project_db.cpp '#include <graphviz/gvc.h>')
    ["gui/cli includes QtWidgets"]=$(plant gui/cli/commands.cpp '#include <QLabel>')
    ["gui/report includes a widget header"]=$(plant gui/report/report_inputs.cpp '#include "gui/graph/graph_scene.h"')
    ["gui_layout includes Qt"]=$(plant gui/graph/graph_svg.cpp '#include <QString>')
    ["bench/ includes tests/"]=$(plant bench/fx_reader_bench.cpp '#include "tests/engine/memory_test_util.h"')
)
printf 'int forgotten() { return 0; }\n' >engine/core/forgotten.cpp
planted["a .cpp in no list"]=engine/core/forgotten.cpp:1
planted["file(GLOB)"]=$(plant storage/CMakeLists.txt 'file(GLOB MORE_SOURCES *.cpp)')
cd - >/dev/null
rc=0
bash "$script" --root "$tmp/inc" --no-link >"$tmp/inc.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "exit status $rc with planted includes, expected 1"
for what in "${!planted[@]}"; do
    expect "$tmp/inc.out" "${planted[$what]}:" "$what"
done
count=$(grep -c VIOLATION "$tmp/inc.out" || true)
[[ $count -eq ${#planted[@]} ]] || fail "$count violations reported for ${#planted[@]} planted"

echo "== planted links"
copy "$tmp/link"
cat >>"$tmp/link/engine/CMakeLists.txt" <<'EOF'
find_package(SQLite3 REQUIRED)
target_link_libraries(engine PRIVATE SQLite::SQLite3)
EOF
cat >>"$tmp/link/storage/CMakeLists.txt" <<'EOF'
find_package(Qt5 5.15 REQUIRED COMPONENTS Core)
target_link_libraries(storage PRIVATE Qt5::Core)
EOF
cat >>"$tmp/link/gui/CMakeLists.txt" <<'EOF'
target_link_libraries(gui_layout PRIVATE Qt5::Core)
target_link_libraries(gui_cli PRIVATE Qt5::Widgets)
target_link_libraries(gui_report PRIVATE Qt5::Svg)
EOF
if ! cmake -S "$tmp/link" -B "$tmp/link-build" -G Ninja -DACLGI_BUILD_GUI=ON -DACLGI_BUILD_TESTS=ON \
    -DACLGI_BUILD_BENCH=ON >"$tmp/configure.log" 2>&1; then
    tail -20 "$tmp/configure.log"
    fail "the copy with planted links does not configure"
else
    rc=0
    bash "$script" --root "$tmp/link" "$tmp/link-build" >"$tmp/link.out" 2>&1 || rc=$?
    [[ $rc -eq 1 ]] || fail "exit status $rc with planted links, expected 1"
    expect "$tmp/link.out" "engine links engine -> SQLite::SQLite3" "engine linking SQLite"
    expect "$tmp/link.out" "storage links storage -> Qt5::Core" "storage linking Qt"
    expect "$tmp/link.out" "gui_layout links gui_layout -> Qt5::Core" "gui_layout linking Qt"
    expect "$tmp/link.out" "gui_cli links gui_cli -> Qt5::Widgets" "gui_cli linking Qt5::Widgets"
    expect "$tmp/link.out" "gui_report links gui_report -> Qt5::Svg -> Qt5::Widgets" "gui_report linking Qt5::Widgets"
    expect "$tmp/link.out" ": engine_tests links " "engine_tests' link line"
    expect "$tmp/link.out" ": storage_tests links " "storage_tests' link line"
    expect "$tmp/link.out" ": aclgi_report_bench links " "aclgi_report_bench's link line"
fi

if [[ $failures -ne 0 ]]; then
    for f in inc link; do
        [[ -f $tmp/$f.out ]] && { echo "---- check-architecture output ($f)"; cat "$tmp/$f.out"; }
    done
    echo "check_architecture_test: $failures failure(s)"
    exit 1
fi
echo "check_architecture_test: every planted violation was found"
