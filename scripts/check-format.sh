#!/usr/bin/env bash
# Usage: scripts/check-format.sh [BASE]
#
# Checks that the C++ lines changed since BASE (committed or not) are formatted as the repository's
# .clang-format says, with `git clang-format --diff BASE`: only changed lines are looked at, so
# older code is never reformatted. BASE defaults to the first parent, HEAD^1 (on a merge commit that
# is the branch merged into, so it is the merge-base with the first parent too). In a clone with no
# parent commit (a single commit, or a shallow clone of depth 1) there is nothing to compare with:
# it says so and passes. Prints the changes clang-format wants and exits 1 when there are any.
# Fix them with `git clang-format BASE` (which rewrites the changed lines in place).
# Needs clang-format and git-clang-format (Debian's package clang-format, scripts/install-deps.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

for tool in clang-format git-clang-format; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check-format: $tool not found (Debian package clang-format; scripts/install-deps.sh)" >&2
        exit 2
    fi
done

if [[ $# -gt 0 ]]; then
    base=$1
    if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
        echo "check-format: $base is not a commit" >&2
        exit 2
    fi
elif git rev-parse -q --verify 'HEAD^1^{commit}' >/dev/null; then
    base=HEAD^1
else
    echo "check-format: HEAD has no parent commit here (a single-commit or shallow clone): no changed lines to check"
    exit 0
fi

echo "check-format: C++ lines changed since $base ($(git rev-parse --short "$base")), $(clang-format --version | head -n 1)"
out=$(git clang-format --diff --extensions c,cc,cpp,cxx,h,hh,hpp "$base" -- 2>&1) || true
# git-clang-format prints "no modified files to format" or "clang-format did not modify any files"
# when all is well, a diff otherwise (its exit status says nothing before LLVM 15).
if grep -qE '^(diff --git|@@ |\+\+\+ )' <<<"$out"; then
    echo "$out"
    echo "check-format: the changed lines above are not formatted as .clang-format says; run: git clang-format $base"
    exit 1
fi
if ! grep -qE '^(no modified files to format|clang-format did not modify any files)' <<<"$out"; then
    echo "$out" >&2
    echo "check-format: git clang-format failed" >&2
    exit 2
fi
echo "check-format: ok ($out)"
