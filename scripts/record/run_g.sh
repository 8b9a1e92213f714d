#!/usr/bin/env bash
# Records the part G cases (part_g_cases.py), each with its own TORCH_TRACE and its +cudagraphs log,
# side by side; packs them into $OUT/recg.tgz.
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/recg; rm -rf $W; mkdir -p $W
export PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=2
export TORCH_LOGS="recompiles,graph_breaks,+cudagraphs"
pids=()
for c in g_buffer_swap g_graph_break g_auto_dynamic g_two_models g_feedback; do
  mkdir -p $W/cwd_$c
  ( cd $W/cwd_$c && TORCH_TRACE=$W/trace_$c timeout ${T:-240} python3 $D/part_g_cases.py $c > $W/$c.log 2>&1; echo "$c exit $?" ) &
  pids+=($!)
done
wait "${pids[@]}"
cd $W && tar czf $OUT/recg.tgz *.log trace_* && ls -la $OUT
for f in *.log; do echo "== $f"; grep -h "Running warmup\|Recording function\|CALL \|Error\|DONE" $f | sed 's/, inputs: .*//' | cut -c1-200; done
