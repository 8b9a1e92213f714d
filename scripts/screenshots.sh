#!/usr/bin/env bash
# Usage: scripts/screenshots.sh [OUT_DIR]   (default docs/screenshots)
#
# Takes the README's screenshots under Xvfb with the built app (scripts/build.sh build first): each
# view of the window on the bundled samples, on a generated 80-layer decoder and on the compile-cache
# fixture. Each shot starts from a fresh settings folder, so the default layout is what is shown.
# Look at every PNG before committing it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${1:-docs/screenshots}
mkdir -p "$out"
app=build/gui/aclgraph-inspector
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shot NAME ARGS...: one screenshot of the window, fresh settings each time, on a 1600x1000 screen
# (SCREEN=1366x768 shot ... for a laptop's: the window then fits the screen).
shot() {
    local name=$1
    shift
    rm -rf "$work/xdg"
    XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" \
        xvfb-run -a -s "-screen 0 ${SCREEN:-1600x1000}x24" "$app" "$@" --screenshot "$out/$name"
    echo "wrote $out/$name"
}

samples=(resources/samples/*.json)
"$app" import "${samples[@]}" --db "$work/samples.aclgi" --simulate --quiet
# Sample 07 again with enable_output_clone on, as the Config view would make it: run 14.
"$app" simulate resources/samples/07_held_outputs_overwritten.json --set debug.aclgraph.enable_output_clone=True \
    --db "$work/samples.aclgi" >/dev/null 2>&1
"$app" generate decoder --layers 80 -o "$work/decoder80.json" >/dev/null
"$app" import "$work/decoder80.json" --db "$work/decoder80.aclgi" --simulate --quiet
cp -r tests/data/cache/torchair_cache "$work/torchair_cache"
find "$work/torchair_cache" -type f -exec chmod 600 {} +
"$app" import "$work/torchair_cache" --db "$work/cache.aclgi" --quiet

# The first run: no project named, so the window opens on the bundled samples with the welcome page
# (what to open, the samples with a line each, recent projects, the guide); also on a laptop's screen.
shot welcome.png
SCREEN=1366x768 shot welcome-1366.png
# A hazard explained: sample 07's first overwritten output, picked in the Events list (what happened,
# why, the option that avoids it, TorchAir's own text), with the Inspector's explanation beside it.
shot hazard-explained.png "$work/samples.aclgi" --select "#7 The caller keeps outputs: overwritten by the next replay" \
    --step 14 --dock Events
SCREEN=1366x768 shot hazard-explained-1366.png "$work/samples.aclgi" \
    --select "#7 The caller keeps outputs: overwritten by the next replay" --step 14 --dock Events
# The events list of sample 04 (recapture storm): every event, the slider and chart marked.
shot event-list.png "$work/samples.aclgi" --select "#4 The KV cache moves: recapture storm" --step 17 --dock Events
SCREEN=1366x768 shot event-list-1366.png "$work/samples.aclgi" --select "#4 The KV cache moves: recapture storm" \
    --step 17 --dock Events
# A 32-layer decoder's decode graph at its first zoom (K/V caches and their write-backs folded into
# the layers), and opened around layer 16's attention (Find would do the same).
"$app" generate decoder --layers 32 -o "$work/decoder32.json" >/dev/null
"$app" import "$work/decoder32.json" --db "$work/decoder32.aclgi" --simulate --quiet
shot graph-32-layers.png "$work/decoder32.aclgi" --select decode
SCREEN=1366x768 shot graph-32-layers-1366.png "$work/decoder32.aclgi" --select decode
shot graph-32-layers-expanded.png "$work/decoder32.aclgi" --select decode --node l16_attn
SCREEN=1366x768 shot graph-32-layers-expanded-1366.png "$work/decoder32.aclgi" --select decode --node l16_attn
# The same graph with every fold open, fitted to the window: far out, boxes are blocks of their colour.
shot graph-32-layers-all-open.png "$work/decoder32.aclgi" --select decode --graph-view open-folds,fit
# The window on sample 04 (the KV cache moves): an input update of a replay, outlined on the graph.
shot main-window.png "$work/samples.aclgi" --select "#4 The KV cache moves: recapture storm" --step 13
# The stepper and the Memory view at the first recapture of sample 04 (call 3: the KV cache moved).
shot runtime-kv-cache-moves.png "$work/samples.aclgi" --select "#4 The KV cache moves: recapture storm" --step 17
# Sample 07: the held output overwritten, in the Log view.
shot log.png "$work/samples.aclgi" --select "#7 The caller keeps outputs: overwritten by the next replay" --step 14 --dock Log
# Sample 07's options as a form, both spellings.
shot config.png "$work/samples.aclgi" --select "#7 The caller keeps outputs: overwritten by the next replay" --dock Config
# Run 14 (after the 13 samples) beside run 7: the held-output hazards gone, the clones' cost.
shot compare.png "$work/samples.aclgi" \
    --select "#14 The caller keeps outputs: overwritten by the next replay [debug.aclgraph.enable_output_clone=True]" \
    --dock Compare
# CUDA Graph Trees (sample 11) stepped to its first re-record (call 3: layer 0's K cache moved): the
# Recording and Re-recording lines in the log, the static_input_moved hazard next in the Events list;
# also on a laptop's screen. Then sample 13's PyTorch options as a form.
cuda_moves="#11 CUDA Graph Trees: the KV cache moves, re-records pile up"
shot cuda-rerecord.png "$work/samples.aclgi" --select "$cuda_moves" --step 9 --dock Events
SCREEN=1366x768 shot cuda-rerecord-1366.png "$work/samples.aclgi" --select "$cuda_moves" --step 9 --dock Events
shot cuda-config.png "$work/samples.aclgi" --select "#13 CUDA Graph Trees: one recording per batch size" --dock Config
# The real CUDA Graph Trees run of tests/data/real/compile (snapshot + TORCH_TRACE, run 2) beside the
# simulation of that run built from its TORCH_TRACE alone (import --simulate, run 1): their
# warm-ups and recordings side by side in the Compare view; also on a laptop's screen.
"$app" import tests/data/real/compile/c_trace.log tests/data/real/compile/c_ind_static.pickle \
    --db "$work/real-beside.aclgi" --simulate --quiet
shot real-beside-simulation.png "$work/real-beside.aclgi" --select "#1 c_trace" --dock Compare --compare-runs 1,2
SCREEN=1366x768 shot real-beside-simulation-1366.png "$work/real-beside.aclgi" --select "#1 c_trace" \
    --dock Compare --compare-runs 1,2
# A TorchAir log (sample 09's, in TorchAir's logger form) beside the simulation of its scenario with a
# higher static_capture_size_limit: Compare selects the first call they disagree on (call 3, where the
# log falls back to eager) and steps the log's run there; the Log view shows its lines with their line
# numbers in the file.
"$app" simulate resources/samples/09_capture_limit_fallback.json --set debug.aclgraph.static_capture_size_limit=8 \
    --db "$work/log-beside.aclgi" >/dev/null
"$app" import resources/samples/logs/09_capture_limit_fallback.torchair.log --db "$work/log-beside.aclgi" --quiet
shot log-beside-simulation.png "$work/log-beside.aclgi" --compare-runs 2,1 --dock Compare --dock Log
SCREEN=1366x768 shot log-beside-simulation-1366.png "$work/log-beside.aclgi" --compare-runs 2,1 --dock Compare --dock Log
# The run that log tells, as a scenario (simulate LOG --graphs SAMPLE --db: run 1, its graphs imported
# first), and the Config form's what-if on it (run 2: static_capture_size_limit=64), compared: the log's
# fallback at call 3 is gone, call 3 captures.
log09=resources/samples/logs/09_capture_limit_fallback.torchair.log
"$app" import resources/samples/09_capture_limit_fallback.json --db "$work/log-run.aclgi" --quiet
"$app" simulate "$log09" --graphs resources/samples/09_capture_limit_fallback.json --db "$work/log-run.aclgi" \
    -o /dev/null 2>/dev/null
"$app" simulate "$work/log-run.aclgi.09_capture_limit_fallback.torchair.log.scenario.json" \
    --set debug.aclgraph.static_capture_size_limit=64 --db "$work/log-run.aclgi" -o /dev/null 2>/dev/null
what_if="#2 09_capture_limit_fallback.torchair.log as a scenario [debug.aclgraph.static_capture_size_limit=64]"
shot log-run-what-if.png "$work/log-run.aclgi" --select "$what_if" --step 18 --compare-runs 1,2 --dock Compare
SCREEN=1366x768 shot log-run-what-if-1366.png "$work/log-run.aclgi" --select "$what_if" --step 18 \
    --compare-runs 1,2 --dock Compare
# The 80-layer decoder's run stepped to an input update of its decode graph (2,173 nodes, folded).
shot graph-decoder80.png "$work/decoder80.aclgi" --step 13
# A node of sample 01's decode graph in the Inspector, and the graph's pass reports.
shot inspector-node.png "$work/samples.aclgi" --select decode --node final_rms --dock Passes
# The compile cache browser.
shot cache-browser.png "$work/cache.aclgi" --select decode --dock Cache
# A recorded memory snapshot (a fixture with private pools of captured graphs) stepped, with the
# Memory view per pool, beside sample 07's simulated run in the same project.
"$app" import tests/data/snapshots/graph_pools.pickle --db "$work/snapshot.aclgi" --quiet
shot memory-snapshot.png "$work/snapshot.aclgi" --select "#1 memory snapshot graph_pools.pickle, device 0" --step 9 --dock Memory
# The real CUDA Graph Trees decoder (tests/data/real/compile: PyTorch 2.11 on an H200) with the
# TORCH_TRACE of the same run: at its peak reserved memory, the breakdown by category; after the
# last re-recording, the graph pool's owners (recordings, warm-ups, static input copies, cuBLAS
# workspace) by owner; each also on a 1366x768 screen.
"$app" import tests/data/real/compile/c_ind_static.pickle tests/data/real/compile/c_trace.log \
    --db "$work/decoder-snapshot.aclgi" --quiet
decoder_run="#1 memory snapshot c_ind_static.pickle, device 0"
shot snapshot-peak.png "$work/decoder-snapshot.aclgi" --select "$decoder_run" --step peak --dock Memory
SCREEN=1366x768 shot snapshot-peak-1366.png "$work/decoder-snapshot.aclgi" --select "$decoder_run" --step peak \
    --dock Memory
shot snapshot-owners.png "$work/decoder-snapshot.aclgi" --select "$decoder_run" --step 9194 --breakdown owner \
    --dock Memory
SCREEN=1366x768 shot snapshot-owners-1366.png "$work/decoder-snapshot.aclgi" --select "$decoder_run" --step 9194 \
    --breakdown owner --dock Memory
# A long recording (about 320,000 trace entries): stored as at most 100,000 steps, 4 entries to a step.
python3 tests/data/snapshots/make_snapshot_fixtures.py --large "$work/long.pickle" --mib 20
"$app" import "$work/long.pickle" --db "$work/long.aclgi" --quiet
shot memory-snapshot-long.png "$work/long.aclgi" --select "#1 memory snapshot long.pickle, device 0" --step 40000 \
    --dock Memory
# A TORCH_TRACE: the recording of three compiles of one frame (0/0, then 0/1 and 0/2 recompiled on
# guard failures) when the shared recordings are next to the checkout, else a log of this repository.
# The Compiles view (the window opens on the latest compile's graph), and the first compile's AOT
# graph with our passes' stage diff in the Passes view; each also on a 1366x768 screen.
trace=../shared/real/compile/c_trace
[[ -d $trace ]] || trace=tests/data/real/trace/dynamic_warn.log
"$app" import "$trace" --db "$work/trace.aclgi" --quiet
shot compiles.png "$work/trace.aclgi" --dock Compiles
SCREEN=1366x768 shot compiles-1366.png "$work/trace.aclgi" --dock Compiles
shot compile-stages.png "$work/trace.aclgi" --select "1 aot_inference_graph" --dock Passes --tab Diff
SCREEN=1366x768 shot compile-stages-1366.png "$work/trace.aclgi" --select "1 aot_inference_graph" --dock Passes --tab Diff
# A damaged project (pages of sample 02's project overwritten, as the window's test does): it opens
# read-only, the banner says what SQLite's quick_check found, and the Config form, which would store
# a new run, has its editors off and says why.
"$app" import resources/samples/02_dynamic_decode_reuse.json --db "$work/damaged.aclgi" --simulate --quiet
python3 - "$work/damaged.aclgi" <<'EOF'
import os, sys
with open(sys.argv[1], "r+b") as f:
    pages = os.path.getsize(sys.argv[1]) // 4096
    for page in range(pages // 3, pages // 3 + 24, 3):
        f.seek(page * 4096 + 100)
        f.write(b"\x5a" * 2000)
EOF
shot damaged-project.png "$work/damaged.aclgi" --dock Config
SCREEN=1366x768 shot damaged-project-1366.png "$work/damaged.aclgi" --dock Config
# The About box, from its test.
ACLGI_SCREENSHOTS="$work" QT_QPA_PLATFORM=offscreen build/tests/gui/about_dialog_test >/dev/null
cp "$work/about_dialog.png" "$out/about.png"
echo "wrote $out/about.png"
