#!/usr/bin/env bash
# Usage: tests/scripts/check_format_test.sh [ROOT]   (ctest: scripts.check_format)
#
# scripts/check-format.sh in a throwaway git repository holding the repository's .clang-format:
# a badly formatted line added to an old badly formatted file fails the check and is the only line
# reported (the old one is not reformatted); well formatted changes pass; a repository of one
# commit passes with a note.
set -euo pipefail

root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
if ! command -v git-clang-format >/dev/null 2>&1; then
    echo "check_format_test: git-clang-format not installed (Debian package clang-format): skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

repo=$tmp/repo
mkdir -p "$repo/scripts" "$repo/src"
cp "$root/scripts/check-format.sh" "$repo/scripts/"
cp "$root/.clang-format" "$repo/"
cd "$repo"
git init -q
git config user.email test@example.invalid
git config user.name test
printf 'int  old_badly(int x){return x;}\n' >src/a.cpp
git add -A
git commit -qm one

rc=0
scripts/check-format.sh >"$tmp/one.out" 2>&1 || rc=$?
[[ $rc -eq 0 ]] && grep -q 'no parent commit' "$tmp/one.out" || fail "single commit: status $rc, $(cat "$tmp/one.out")"

printf 'int wellFormed(int x)\n{\n    return x + 1;\n}\n' >>src/a.cpp
git commit -qam two
rc=0
scripts/check-format.sh >"$tmp/two.out" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || fail "a well formatted change failed (status $rc): $(cat "$tmp/two.out")"

printf 'int  new_badly(int x){return x;}\n' >>src/a.cpp
git commit -qam three
rc=0
scripts/check-format.sh >"$tmp/three.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "a badly formatted change passed (status $rc)"
grep -q '^-int  new_badly' "$tmp/three.out" || fail "the badly formatted new line is not reported"
! grep -q 'old_badly' "$tmp/three.out" || fail "the old line was reported too"
# Against an older base both changes are looked at; uncommitted changes count too.
printf 'int  dirty(int x){return x;}\n' >>src/a.cpp
rc=0
scripts/check-format.sh HEAD~2 >"$tmp/four.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q '^-int  dirty' "$tmp/four.out" && grep -q '^-int  new_badly' "$tmp/four.out" ||
    fail "BASE HEAD~2 with an uncommitted change: status $rc, $(cat "$tmp/four.out")"

if [[ $failures -ne 0 ]]; then
    echo "check_format_test: $failures failure(s)"
    exit 1
fi
echo "check_format_test: ok"
