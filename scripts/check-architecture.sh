#!/usr/bin/env bash
# Usage: scripts/check-architecture.sh [--root DIR] [--no-link] [BUILD_DIR]
#        scripts/check-architecture.sh --self-test [BUILD_DIR]
#
# Checks that dependencies point one way, gui -> storage -> engine (docs/DEVELOPER.md, "Layers"):
#   includes  every #include line under engine/ storage/ gui/ bench/ tests/:
#             - engine/ includes only engine/ headers and system or third-party headers that are not
#               Qt, SQLite or Graphviz;
#             - storage/ includes engine/ and storage/ headers, no gui/, no Qt, no Graphviz;
#             - gui_layout's files (as gui/CMakeLists.txt lists them) include no Qt header at all and
#               of the project only engine/ and gui_layout's own headers;
#             - gui/cli/ and gui/report/ include no QtWidgets header, nothing of gui/app/ and none of
#               gui_graph's (widget) headers;
#             - nothing outside tests/ includes tests/.
#   links     in BUILD_DIR (default: build; configured, not necessarily built): the targets each
#             target links, transitively, as `cmake --graphviz` gives them (private dependencies of
#             static libraries included: they are linked too): engine links no Qt, SQLite or
#             Graphviz; storage no Qt or Graphviz; gui_layout no Qt; gui_report and gui_cli no
#             Qt5::Widgets. Then the link lines in BUILD_DIR/build.ninja of the executables that link
#             only those libraries (engine_tests, fuzz_replay_*, storage_tests, aclgi_report_bench),
#             where they are configured.
#   sources   no CMakeLists.txt globs (file(GLOB...)), and every .cpp under engine/ storage/ gui/
#             tests/ bench/ is named in the CMakeLists.txt of its folder or of a folder above it.
# Prints what it checked and each violation as file:line: why; exits 1 on any violation, 2 on bad
# usage or when the link check cannot run (no configured BUILD_DIR; --no-link skips it).
#
# --self-test copies the tree to a temporary folder, plants one violation of each kind there (and
# a configured copy of the build with links that break the rules), and fails unless this script
# finds every one of them and passes on the clean copy.
set -euo pipefail

script=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$script")/.." && pwd)
build_dir=
check_links=1
self_test=0
while [[ $# -gt 0 ]]; do
    case $1 in
    --root) root=$(cd "$2" && pwd); shift 2 ;;
    --no-link) check_links=0; shift ;;
    --self-test) self_test=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-architecture: unknown option $1" >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
    esac
done
build_dir=${build_dir:-$root/build}
[[ $build_dir = /* ]] || build_dir=$PWD/$build_dir

if [[ $self_test -eq 1 ]]; then
    exec bash "$root/tests/scripts/check_architecture_test.sh" "$script" "$root" "$build_dir"
fi

cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
violations=0
violation() { # FILE:LINE WHY
    echo "  VIOLATION $1: $2"
    violations=$((violations + 1))
}

# ---- includes ----------------------------------------------------------------------------------
# Each include line as FILE:LINE:HEADER-WITH-DELIMITERS, e.g. gui/cli/x.cpp:12:<QWidget>.
include_lines() { # DIRS...
    local d
    for d in "$@"; do
        [[ -e $d ]] || continue
        grep -rnE --include='*.cpp' --include='*.h' --include='*.hpp' \
            '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$d" || true
    done | sed -E 's/^([^:]*:[0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*([<"][^>"]*[>"]).*/\1:\2/'
}

qt_re='^<Qt?[A-Z][A-Za-z0-9_]*(/[^>]*)?>$'                      # <QWidget>, <QtCore/QString>
sqlite_re='^[<"]([^>"]*/)?sqlite3(ext)?\.h[>"]$'
graphviz_re='^[<"](graphviz/[^>"]*|([^>"]*/)?(gvc|cgraph|cdt|gvplugin[a-z_]*|gvcext|gvcjob|types|pathplan)\.h)[>"]$'

# The QtWidgets headers by name, from the installed Qt (any header of that folder), else a list of
# the common ones.
widgets_dir=
for d in /usr/include/*/qt5/QtWidgets /usr/include/qt5/QtWidgets /usr/include/qt/QtWidgets; do
    [[ -d $d ]] && widgets_dir=$d && break
done
is_widgets_header() { # "<QLabel>"
    local h=${1#<}
    h=${h%>}
    [[ $1 == \<* ]] || return 1
    [[ $h == QtWidgets/* || $h == QtWidgets ]] && return 0
    if [[ -n $widgets_dir ]]; then
        [[ -f $widgets_dir/$h ]]
    else
        [[ $h =~ ^(QApplication|QWidget|QMainWindow|QDialog|QLabel|QLineEdit|QPushButton|QToolButton|QGraphics[A-Za-z]*|Q[A-Z][A-Za-z]*(Layout|View|Widget|Box|Bar|Button|Edit))$ ]]
    fi
}

# gui_layout's files, as gui/CMakeLists.txt lists them (add_library(gui_layout ...)).
layout_files=()
if [[ -f gui/CMakeLists.txt ]]; then
    while read -r f; do layout_files+=("gui/$f"); done < <(
        awk '/^[[:space:]]*add_library\(gui_layout[[:space:]]/ {on=1; sub(/.*add_library\(gui_layout[[:space:]]+STATIC/, "")}
             on { line=$0; sub(/#.*/, "", line); n=split(line, w, /[[:space:]()]+/)
                  for (i=1;i<=n;i++) if (w[i] ~ /\.(cpp|h)$/) print w[i]
                  if ($0 ~ /\)/) on=0 }' gui/CMakeLists.txt)
fi
graph_widget_headers=()
for f in gui/graph/*.h; do
    [[ -e $f ]] || continue
    in_layout=0
    for l in "${layout_files[@]}"; do [[ $l == "$f" ]] && in_layout=1; done
    [[ $in_layout -eq 1 ]] || graph_widget_headers+=("$f")
done

echo "== includes"
n=0
while IFS= read -r row; do
    n=$((n + 1))
    loc=${row%:*}
    hdr=${row##*:}
    file=${loc%%:*}
    name=${hdr:1:${#hdr}-2}
    quoted=0
    [[ $hdr == \"* ]] && quoted=1
    # Nothing outside tests/ includes tests/.
    if [[ $file != tests/* && $name == tests/* ]]; then
        violation "$loc" "includes $hdr: only tests/ may include tests/"
    fi
    case $file in
    engine/*)
        if [[ $hdr =~ $qt_re || $hdr =~ $sqlite_re || $hdr =~ $graphviz_re ]]; then
            violation "$loc" "engine/ includes $hdr: the engine uses no Qt, SQLite or Graphviz"
        elif [[ $name =~ ^(storage|gui|bench)/ || ($quoted -eq 1 && $name != engine/*) ]]; then
            violation "$loc" "engine/ includes $hdr: the engine includes only engine/ headers"
        fi
        ;;
    storage/*)
        if [[ $hdr =~ $qt_re || $hdr =~ $graphviz_re ]]; then
            violation "$loc" "storage/ includes $hdr: storage uses no Qt or Graphviz"
        elif [[ $name =~ ^(gui|bench)/ || ($quoted -eq 1 && $name != engine/* && $name != storage/*) ]]; then
            violation "$loc" "storage/ includes $hdr: storage includes only engine/ and storage/ headers"
        fi
        ;;
    esac
    in_layout=0
    for l in "${layout_files[@]}"; do [[ $l == "$file" ]] && in_layout=1; done
    if [[ $in_layout -eq 1 ]]; then
        if [[ $hdr =~ $qt_re ]]; then
            violation "$loc" "gui_layout file includes $hdr: gui_layout uses no Qt"
        elif [[ $quoted -eq 1 && $name != engine/* ]]; then
            own=0
            for l in "${layout_files[@]}"; do [[ $l == "$name" ]] && own=1; done
            [[ $own -eq 1 ]] || violation "$loc" "gui_layout file includes $hdr: only engine/ and gui_layout's own headers"
        fi
    fi
    if [[ $file == gui/cli/* || $file == gui/report/* || $in_layout -eq 1 ]]; then
        if is_widgets_header "$hdr"; then
            violation "$loc" "includes $hdr, a QtWidgets header: gui_cli, gui_report and gui_layout are headless"
        fi
        if [[ $name == gui/app/* ]]; then
            violation "$loc" "includes $hdr: gui_cli, gui_report and gui_layout use nothing of the window (gui/app/)"
        fi
        for w in "${graph_widget_headers[@]}"; do
            [[ $name == "$w" ]] && violation "$loc" "includes $hdr, a gui_graph (widgets) header: use gui_layout's"
        done
    fi
done < <(include_lines engine storage gui bench tests)
echo "  $n include lines under engine/ storage/ gui/ bench/ tests/; gui_layout: ${#layout_files[@]} files" \
    "(${layout_files[*]:-none found in gui/CMakeLists.txt}); QtWidgets headers from ${widgets_dir:-a built-in list}"
[[ ${#layout_files[@]} -gt 0 ]] || violation gui/CMakeLists.txt "no add_library(gui_layout ...) with its files"

# ---- source lists ------------------------------------------------------------------------------
echo "== source lists"
while IFS=: read -r file line _; do
    violation "$file:$line" "file(GLOB...) in a CMakeLists.txt: list the sources"
done < <({ echo CMakeLists.txt; find engine storage gui tests bench -name CMakeLists.txt 2>/dev/null; } |
    xargs grep -HnE '^[^#]*file[[:space:]]*\([[:space:]]*GLOB' || true)
ncpp=0
while IFS= read -r cpp; do
    ncpp=$((ncpp + 1))
    found=0
    dir=$(dirname "$cpp")
    while :; do
        if [[ -f $dir/CMakeLists.txt ]]; then
            rel=${cpp#"$dir"/}
            rel_re=$(sed 's/[.[\*^$+?(){}|]/\\&/g' <<<"$rel")
            stripped=$tmp/cmake-${dir//\//_}.txt # the CMakeLists.txt without its comments
            [[ -f $stripped ]] || sed 's/#.*//' "$dir/CMakeLists.txt" >"$stripped"
            if grep -E "(^|[[:space:](\"]|\\\$\\{CMAKE_CURRENT_SOURCE_DIR\\}/)$rel_re([[:space:])\"]|$)" \
                "$stripped" >/dev/null; then
                found=1
                break
            fi
        fi
        [[ $dir == . || $dir == engine || $dir == storage || $dir == gui || $dir == tests || $dir == bench ]] && break
        dir=$(dirname "$dir")
    done
    [[ $found -eq 1 ]] || violation "$cpp:1" "no CMakeLists.txt (its folder's or one above, up to the top folder) names it"
done < <(find engine storage gui tests bench -name '*.cpp' -not -path '*/build*' 2>/dev/null | sort)
echo "  $ncpp .cpp files under engine/ storage/ gui/ tests/ bench/"

# ---- link lines --------------------------------------------------------------------------------
if [[ $check_links -eq 1 ]]; then
    echo "== links ($build_dir)"
    if [[ ! -f $build_dir/CMakeCache.txt ]]; then
        echo "check-architecture: $build_dir is not a configured build dir (scripts/build.sh first, or --no-link)" >&2
        exit 2
    fi
    if ! cmake "--graphviz=$tmp/deps.dot" "$build_dir" >"$tmp/cmake.log" 2>&1; then
        cat "$tmp/cmake.log" >&2
        echo "check-architecture: cmake --graphviz failed on $build_dir" >&2
        exit 2
    fi
    # TARGET|FORBIDDEN-RE|WHY. The dot file's nodes are labelled with target names (Qt5::Widgets,
    # SQLite::SQLite3, PkgConfig::GRAPHVIZ) or, for plain libraries, their names (dl, gvc).
    # TARGET, FORBIDDEN (a regular expression over the names), WHY. The dot file's nodes are
    # labelled with target names (Qt5::Widgets, SQLite::SQLite3, PkgConfig::GRAPHVIZ) or, for plain
    # libraries, their names (dl).
    rules=(
        engine '^Qt|libQt|SQLite|sqlite3|GRAPHVIZ|libgvc|libcgraph|^(gvc|cgraph|cdt)$' 'the engine links no Qt, SQLite or Graphviz'
        storage '^Qt|libQt|GRAPHVIZ|libgvc|libcgraph|^(gvc|cgraph|cdt)$' 'storage links no Qt or Graphviz'
        gui_layout '^Qt|libQt' 'gui_layout links no Qt'
        gui_report 'Qt[56]::Widgets|libQt[56]Widgets|^(gui_graph|gui_app)$' 'gui_report links no Qt5::Widgets'
        gui_cli 'Qt[56]::Widgets|libQt[56]Widgets|^(gui_graph|gui_app)$' 'gui_cli links no Qt5::Widgets'
    )
    python3 - "$tmp/deps.dot" "${rules[@]}" <<'EOF' >"$tmp/links.out" || true
import re, sys
dot = open(sys.argv[1]).read()
label = {m.group(1): m.group(2) for m in re.finditer(r'"(node\d+)"\s*\[\s*label\s*=\s*"([^"]*)"', dot)}
edges = {}
for a, b in re.findall(r'"(node\d+)"\s*->\s*"(node\d+)"', dot):
    edges.setdefault(a, []).append(b)
by_name = {v: k for k, v in label.items()}
args = sys.argv[2:]
for target, forbidden, why in zip(args[0::3], args[1::3], args[2::3]):
    if target not in by_name:
        print(f"missing {target}")
        continue
    # Depth-first over the dependencies, keeping the path to each one.
    seen, stack, bad = {by_name[target]: [target]}, [by_name[target]], []
    while stack:
        n = stack.pop()
        for m in edges.get(n, []):
            if m not in seen:
                seen[m] = seen[n] + [label[m]]
                stack.append(m)
                if re.search(forbidden, label[m]):
                    bad.append(" -> ".join(seen[m]))
    print(f"checked {target} {len(seen) - 1}")
    for path in bad:
        print(f"bad {target} {path}: {why}")
EOF
    while read -r kind target rest; do
        case $kind in
        checked) echo "  $target: $rest targets and libraries linked, transitively" ;;
        missing) echo "  $target: not configured in $build_dir (skipped)" ;;
        bad) violation "$build_dir (cmake --graphviz)" "$target links ${rest}" ;;
        esac
    done <"$tmp/links.out"
    grep -q '^checked engine ' "$tmp/links.out" || violation "$build_dir" "no target engine in cmake --graphviz's output"
    # The link lines ninja runs, of the executables that link only the headless libraries.
    if [[ -f $build_dir/build.ninja ]]; then
        nlines=0
        while IFS=$'\t' read -r exe_re forbidden why; do
            while IFS=: read -r line exe libs; do
                nlines=$((nlines + 1))
                hit=$(tr ' ' '\n' <<<"$libs" | grep -E "$forbidden" | tr '\n' ' ' || true)
                [[ -z $hit ]] || violation "$build_dir/build.ninja:$line" "$exe links $hit: $why"
            done < <(awk -v re="$exe_re" '
                /^build [^:]*: CXX_EXECUTABLE_LINKER__/ { exe=$2; sub(/:$/, "", exe); n=split(exe, p, "/"); exe=p[n]; want=(exe ~ re); next }
                want && /^[[:space:]]+LINK_LIBRARIES[[:space:]]*=/ { line=$0; sub(/^[[:space:]]+LINK_LIBRARIES[[:space:]]*=[[:space:]]*/, "", line); print NR ":" exe ":" line; want=0 }
                /^build / { want=0 }' "$build_dir/build.ninja")
        done < <(printf '%s\t%s\t%s\n' \
            '^(engine_tests|fuzz_replay_[a-z_]+)$' '(libQt|Qt5::|libsqlite3|-lsqlite3|libgvc|libcgraph|-lgvc|-lcgraph)' \
            'the engine links no Qt, SQLite or Graphviz' \
            '^storage_tests$' '(libQt|Qt5::|libgvc|libcgraph|-lgvc|-lcgraph)' 'storage links no Qt or Graphviz' \
            '^aclgi_report_bench$' '(libQt5Widgets|Qt5::Widgets)' 'gui_report links no Qt5::Widgets')
        echo "  build.ninja: $nlines link lines of engine_tests, fuzz_replay_*, storage_tests, aclgi_report_bench"
    fi
fi

echo "== $violations violation(s)"
[[ $violations -eq 0 ]]
