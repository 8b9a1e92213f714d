#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build, test and run aclgraph-inspector.
# Idempotent: when every package is already installed it does nothing (no network, no sudo),
# so it is cheap to call from the other scripts. Uses sudo only when not running as root.
# Set ACLGI_SKIP_DEPS=1 to skip it entirely (e.g. on a machine you manage yourself).
set -euo pipefail

PACKAGES=(
    build-essential cmake ninja-build pkg-config   # toolchain (gcc/g++, incl. ASan/UBSan runtimes)
    qtbase5-dev libqt5svg5-dev                     # Qt5 Widgets/Test + SVG (GUI, PDF report's charts)
    libgraphviz-dev                                # graph layout for the GUI (the library, in process)
    graphviz                                       # the dot program: only the benchmark baseline runs it
    libsqlite3-dev sqlite3                         # storage layer
    libgtest-dev libgmock-dev                      # GoogleTest
    libbenchmark-dev                               # Google Benchmark
    nlohmann-json3-dev                             # header-only JSON, used by engine/
    python3                                        # helper scripts
    xvfb xauth                                     # xvfb-run, for GUI tests and screenshots
    chromium                                       # headless: the HTML report rendered in a real browser (a test)
    poppler-utils                                  # pdftotext, pdfinfo, pdftoppm: the PDF report read back (a test)
    clang libclang-rt-14-dev                       # clang + libFuzzer runtime (fuzz targets)
    clang-format                                   # clang-format, git-clang-format (scripts/check-format.sh)
)

if [[ "${ACLGI_SKIP_DEPS:-0}" == 1 ]]; then
    echo "install-deps: ACLGI_SKIP_DEPS=1, skipping package check"
    exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != installed ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#PACKAGES[@]} packages already installed"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-deps: not root and sudo is not available; install as root:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" </dev/null

# Check again so a partial install is reported here rather than as a confusing build error.
still=()
for pkg in "${missing[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [[ "$status" == installed ]] || still+=("$pkg")
done
if [[ ${#still[@]} -ne 0 ]]; then
    echo "install-deps: still missing after apt-get: ${still[*]}" >&2
    exit 1
fi
echo "install-deps: done"
