#!/usr/bin/env bash
# Records the held-back part D cases and the part F cases with TORCH_LOGS and TORCH_TRACE, side by side.
set -u
D=$(cd "$(dirname "$0")" && pwd)
# part_d_cases.py and common.py are the team recording scripts in ../shared/real/scripts/; copy them beside this one
# (the device machine sees only the working tree)
for f in common.py part_d_cases.py; do [ -f $D/$f ] || { echo "copy ../shared/real/scripts/$f into $D first" >&2; exit 2; }; done
W=/tmp/recf; rm -rf $W; mkdir -p $W/raw
export PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=2 PYTHONPATH=$D
export TORCH_LOGS="recompiles,graph_breaks,perf_hints,+cudagraphs,cudagraph_static_inputs"
{ nvidia-smi -L; python3 -c "import torch,sys;print(torch.__version__, torch.version.cuda, sys.version)"; } > $W/raw/env.txt 2>&1
cat $W/raw/env.txt
pids=()
for c in mark_step rerecord_limit recompile_limit cpu_input; do
  mkdir -p $W/cwd_d_$c
  ( cd $W/cwd_d_$c && TORCH_TRACE=$W/raw/trace_d_$c timeout ${T:-200} python3 $D/part_d_cases.py $W/raw $c > $W/raw/d_$c.log 2>&1; echo "d $c exit $?" ) &
  pids+=($!)
done
for c in kv_not_static mutate_plain_input dynamic_true skip_dynamic_graphs trees_off training output_alias param_swap; do
  mkdir -p $W/cwd_f_$c
  ( cd $W/cwd_f_$c && TORCH_TRACE=$W/raw/trace_f_$c timeout ${T:-200} python3 $D/part_f_cases.py $W/raw $c > $W/raw/f_$c.log 2>&1; echo "f $c exit $?" ) &
  pids+=($!)
done
wait "${pids[@]}"
cd $W/raw; du -sh . ; du -sh * | sort -h | tail -8
tar czf $OUT/recf_logs.tgz *.log *.jsonl env.txt 2>/dev/null
tar czf $OUT/recf_snapshots.tgz *.pickle 2>/dev/null
tar czf $OUT/recf_traces.tgz trace_* 2>/dev/null
for f in $OUT/*.tgz; do s=$(stat -c %s $f); if [ $s -gt 15000000 ]; then split -b 14000000 -d $f $f.part; rm $f; fi; done
ls -la $OUT
grep -h '"step": "read"\|case_failed\|call_failed\|"step": "dumped"' $W/raw/*.jsonl | cut -c1-300
for f in *.log; do echo "$f $(grep -c . $f) lines; cudagraphs $(grep -c 'cudagraph' $f); skipping $(grep -c 'skipping cudagraphs' $f)"; done
