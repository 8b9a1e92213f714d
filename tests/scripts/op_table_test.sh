#!/usr/bin/env bash
# scripts/gen_op_table.py --check: the committed operator table agrees with the committed schema
# data, and the check fails on a table that does not (one row changed, one row dropped).
# Usage: tests/scripts/op_table_test.sh REPO_ROOT
set -euo pipefail
root=$1
gen="$root/scripts/gen_op_table.py"
table="$root/engine/graph/op_table_data.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$gen" --check "$table"

sed 's/^ACLGI_OP("aten::exp(Tensor self) -> Tensor"/ACLGI_OP("aten::exp(Tensor input) -> Tensor"/' "$table" >"$tmp/changed.inc"
cmp -s "$table" "$tmp/changed.inc" && { echo "op_table_test: the planted change did not apply" >&2; exit 1; }
if python3 "$gen" --check "$tmp/changed.inc" 2>"$tmp/err"; then
    echo "op_table_test: --check accepted a changed row" >&2
    exit 1
fi
grep -q "differs from what scripts/gen_op_table.py writes" "$tmp/err"

grep -v '^ACLGI_OP("aten::exp_(' "$table" >"$tmp/dropped.inc"
if python3 "$gen" --check "$tmp/dropped.inc" 2>/dev/null; then
    echo "op_table_test: --check accepted a dropped row" >&2
    exit 1
fi
echo "op_table_test: ok"
