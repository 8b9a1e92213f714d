#!/usr/bin/env python3
"""Builds truth.json and truth.md (format cudagraph-truth/1) from analyze.py's output plus the per-call
reading written below (CALLS). Every action in CALLS was read from the log / snapshot / trace facts that
analyze.py attributes to the call; build_truth.py adds those facts (log lines, record ids, snapshot counts,
trace record events, pointers, wall time) beside it and checks that the two agree.
Usage: build_truth.py analysis.json OUT_DIR"""
import json, sys, os

A = json.load(open(sys.argv[1]))
OUT = sys.argv[2]
LOGFLAGS = 'TORCH_LOGS="recompiles,graph_breaks,perf_hints,+cudagraphs,cudagraph_static_inputs"'

# case -> (what ran, config, [ (label, action, evidence, served_by, notes) ])
W, R, P, E, F, S = 'warmup', 'record', 'replay', 'eager', 'failed', 'eager (cudagraphs skipped)'
CASES = {
 'd_mark_step': ("part_d_cases.py mark_step: TinyDecoder (as in ../cudagraph_cases), cm = torch.compile(m, mode='reduce-overhead', fullgraph=True, dynamic=False); kv A = caches(1) marked with mark_static_address; decode0..3 (pos 16..19) kept in ys; read ys[2]; torch.compiler.cudagraph_mark_step_begin(); decode4 kept as y4; read ys[3]; decode5 (no mark_step_begin); read y4.",
   {'dynamic': False, 'kv_static': True},
   [('decode0', W, 'log+snapshot', '0/0', 'first compile 0/0; "Running warmup function=partition_0" (log 124); run_eager allocations'),
    ('decode1', R, 'log+trace+snapshot', '0/0', 'Recording cuda_graph_id=0 (log 128), root; freed decode0\'s warmup output still held in ys (dealloc_current_path_weakrefs via try_end_curr_warmup)'),
    ('decode2', P, 'snapshot+wall', '0/0', 'replays id 0 (same out_ptr, no log line); freed decode1\'s recording output still held in ys (via try_end_curr_recording)'),
    ('decode3', P, 'snapshot+wall', '0/0', 'replays id 0; a check-mutation pair (log 131) but no record/warmup line'),
    ('decode4 after mark_step_begin', P, 'snapshot+wall', '0/0', 'replays id 0 (same out_ptr)'),
    ('decode5 without mark_step_begin', R, 'log+trace+snapshot', '0/0', '"Checkpointing cuda caching allocator state. Number of checkpoints 1" (log 139) then Recording cuda_graph_id=1 (log 140): a second recording (child of id 0, inferred: same generation because mark_step_begin was used and y4 is alive) with a new out_ptr')]),
 'd_rerecord_limit': ("part_d_cases.py rerecord_limit: torch._inductor.config.triton.cudagraph_unexpected_rerecord_limit = 3; cm = mk(dynamic=False); for i in 0..6: kv = caches(1) (fresh, all kept alive in a list), new_kv{i}_a (pos i), new_kv{i}_b (pos i+1).",
   {'dynamic': False, 'kv_static': True, 'inductor': {'triton.cudagraph_unexpected_rerecord_limit': 3}},
   [('new_kv0_a', W, 'log+snapshot', '0/0', 'first compile 0/0; warmup (log 124)'),
    ('new_kv0_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=0 (log 128)')] +
   [x for i in range(1, 7) for x in (
    (f'new_kv{i}_a', R, 'log+trace', '0/0', f're-record: {i} "Re-recording function=partition_0, reason=static input data pointer changed." message(s), one per earlier recording, each naming arg6_1, arg8_1, arg18_1, arg19_1 (the 4 K/V caches), then Recording cuda_graph_id={i}'),
    (f'new_kv{i}_b', P, 'log+snapshot', '0/0', f'replays id {i}: the log still prints {i} "Re-recording ..." message(s) (against recordings 0..{i-1}, checked first) but no Recording line; no snapshot events'))]),
 'd_recompile_limit': ("part_d_cases.py recompile_limit: torch._dynamo.config.recompile_limit = 3; cm = mk(dynamic=False); kv A = caches(1); for T in (1,2,3,4,5,6,2,1): seq{T}_a, seq{T}_b (tokens [1,T], pos 0..T-1).",
   {'dynamic': False, 'kv_static': True, 'dynamo': {'recompile_limit': 3}, 'fullgraph': True},
   [('seq1_a', W, 'log+snapshot', '0/0', 'first compile; warmup (log 124)'),
    ('seq1_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=0 (log 128)'),
    ('seq2_a', W, 'log+snapshot', '0/1', "recompile 0/1 (log 130-132: \"0/0: tensor 'pos' size mismatch at index 0. expected 1, actual 2\"); warmup (log 253)"),
    ('seq2_b', R, 'log+trace', '0/1', 'Recording cuda_graph_id=1 (log 257)'),
    ('seq3_a', W, 'log+snapshot', '0/2', 'recompile 0/2 (log 259-262); warmup (log 383)'),
    ('seq3_b', R, 'log+trace', '0/2', 'Recording cuda_graph_id=2 (log 387)')] +
   [(f'seq{T}_{s}', F, 'log+trace+jsonl', None, f'FailOnRecompileLimitHit (compile id 0/{3 + 2 * (T - 4) + (s == "b")}, fail_reason "Hard failure due to fullgraph=True"); log: Recompiling + "torch._dynamo hit config.recompile_limit (3)"; no CUDA graph activity') for T in (4, 5, 6) for s in 'ab'] +
   [('seq2_a', P, 'snapshot+wall', '0/1', 'replays id 1 (out_ptr = seq2_b\'s)'), ('seq2_b', P, 'snapshot+wall', '0/1', 'replays id 1'),
    ('seq1_a', P, 'snapshot+wall', '0/0', 'replays id 0 (out_ptr = seq1_b\'s)'), ('seq1_b', P, 'snapshot+wall', '0/0', 'replays id 0')]),
 'd_cpu_input': ("part_d_cases.py cpu_input: m2 = torch.compile(lambda x, y: (x * 2 + y.to(x.device)).sum(), mode='reduce-overhead') with y a CPU tensor, called 3 times (result r kept in a variable); then cm = mk(dynamic=False) decode0..2 with kv A.",
   {'dynamic': False, 'kv_static': True},
   [('cpu_input_call0', W, 'log', '0/0', 'compile 0/0: "Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable" (log 6: Partition 0 = DeviceCopy, non-cudagraphable; Partition 1 cudagraphable), warmup function=partition_0 (log 15)'),
    ('cpu_input_call1', R, 'log+trace', '0/0', 'Recording cuda_graph_id=0 (log 17)'),
    ('cpu_input_call2', P, 'log (absence)+jsonl', '0/0', 'no log line; out_ptr = call1\'s'),
    ('decode0', W, 'log+snapshot', '1/0', 'compile 1/0 (a new frame); "Checkpointing cuda caching allocator state" (log 142) then warmup (log 143): the tree was in execution after the lambda\'s replay'),
    ('decode1', R, 'log+trace+snapshot', '1/0', 'Recording cuda_graph_id=1 (log 149); freed r (the lambda\'s replay output, 512 B) via try_end_curr_warmup'),
    ('decode2', P, 'snapshot+wall', '1/0', 'replays id 1')]),
 'f_kv_not_static': ("part_f_cases.py kv_not_static: cm = mk(dynamic=False); kv = caches(1, static=False); decode0..3; kv2 = caches(1, static=False); decode_newkv0..1.",
   {'dynamic': False, 'kv_static': False},
   [('decode0', S, 'log+snapshot', '0/0', '"skipping cudagraphs due to mutated inputs (4 instances). Found from : ... k_cache.index_copy_(2, pos, k)" (log 124-131, WARNING); compiled code called straight from CUDAGraphTreeManager._run; counter cudagraph_skips=1')] +
   [(l, S, 'snapshot', '0/0', 'no log line; allocations through CUDAGraphTreeManager._run -> model (default pool)') for l in ('decode1', 'decode2', 'decode3', 'decode_newkv0', 'decode_newkv1')]),
 'f_mutate_plain_input': ("part_f_cases.py mutate_plain_input: cf = torch.compile(f, mode='reduce-overhead') with f(x, y): x.add_(1); return (x*y).sum(0); 3 calls with the same x, y; then xs marked with mark_static_address and g = torch.compile(lambda a, b: (a.add_(1)*b).sum(0), mode='reduce-overhead'), 3 calls.",
   {'dynamic': None, 'fullgraph': False},
   [('mutate_plain0', S, 'log', '0/0', '"skipping cudagraphs due to mutated inputs (1 instances). Found from : ... x.add_(1)" (log 11-14)'),
    ('mutate_plain1', S, 'snapshot', '0/0', 'no log line; snapshot: compiled code called from CUDAGraphTreeManager._run'),
    ('mutate_plain2', S, 'snapshot', '0/0', 'as mutate_plain1'),
    ('mutate_static0', W, 'log', '1/0', 'compile 1/0 ("Adding static input pos 0 for source L[\'a\']"); check mutation: mutation indices [] (the mutated input is static); warmup (log 27)'),
    ('mutate_static1', R, 'log+trace', '1/0', 'Recording cuda_graph_id=0 (log 31)'),
    ('mutate_static2', P, 'log (absence)+jsonl', '1/0', 'no log line; out_ptr = mutate_static1\'s')]),
 'f_dynamic_true': ("part_f_cases.py dynamic_true: cm = mk(dynamic=True); for b in (2,3,4,3,2,5): kv = caches(b) (a fresh static K/V object per loop turn), batch{b}_a/_b/_c (pos 0,1,2).",
   {'dynamic': True, 'kv_static': True},
   [('batch2_a', W, 'log+snapshot', '0/0', 'compile 0/0 (attempt 1: log tag [0/0_1]; wall 60 s); 2 partitions (log 246-255: Partition 0 non-cudagraphable, cpu ops + DeviceCopy; Partition 1 cudagraphable, 28 inputs); "Recording cudagraph tree for symint key 2" (log 256) then warmup (log 259)'),
    ('batch2_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=0 (log 263)'),
    ('batch2_c', P, 'log (absence)+snapshot', '0/0', 'replays id 0; the non-cudagraphable partition still allocates once per call in the default pool'),
    ('batch3_a', W, 'log+snapshot', '0/0', '"Recording cudagraph tree for symint key 3" (log 266): a new tree function for the new size; checkpoint (log 269) then warmup (log 270)'),
    ('batch3_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=1 (log 276)'),
    ('batch3_c', P, 'log (absence)+snapshot', '0/0', 'replays id 1'),
    ('batch4_a', W, 'log+snapshot', '0/0', 'symint key 4 (log 279), checkpoint (log 282), warmup (log 283)'),
    ('batch4_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=2 (log 289)'),
    ('batch4_c', P, 'log (absence)+snapshot', '0/0', 'replays id 2')] +
   [(f'batch{b}_{s}', F, 'jsonl+log', '0/0', 'AssertionError: length mismatch between inputs, recorded_data_ptr, and placeholders (raised inside CUDA Graph Trees while explaining why the size-%d recording does not match the new K/V object; no Re-recording line, no recording, no Dynamo activity)' % b) for b in (3, 2) for s in 'abc'] +
   [('batch5_a', W, 'log+snapshot', '0/0', 'symint key 5 (log 300), warmup (log 303) without checkpoint'),
    ('batch5_b', R, 'log+trace', '0/0', 'Recording cuda_graph_id=3 (log 307)'),
    ('batch5_c', P, 'log (absence)+snapshot', '0/0', 'replays id 3')]),
 'f_skip_dynamic_graphs': ("part_f_cases.py skip_dynamic_graphs: torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True; cm = mk(dynamic=True); for b in (2,3,2): kv = caches(b), batch{b}_a, batch{b}_b.",
   {'dynamic': True, 'kv_static': True, 'inductor': {'triton.cudagraph_skip_dynamic_graphs': True}},
   [('batch2_a', E, 'log+snapshot', '0/0', 'compile 0/0 (tag [0/0_1]): "Created 1 graph partitions: 0 cudagraphable, 1 non-cudagraphable" (log 246-247; reasons cpu ops, DeviceCopy, dynamic shape ops); no tree function, no "skipping cudagraphs" line, no cudagraph_skips counter; compiled code runs in the default pool')] +
   [(l, E, 'snapshot', '0/0', 'compiled code only (16 default-pool allocations), no tree frames') for l in ('batch2_b', 'batch3_a', 'batch3_b', 'batch2_a#2', 'batch2_b#2')]),
 'f_trees_off': ("part_f_cases.py trees_off: torch._inductor.config.triton.cudagraph_trees = False; cm = mk(dynamic=False); kv = caches(1); decode0..3 kept in ys; read ys[1]; kv2 = caches(1); decode_newkv0..1.",
   {'dynamic': False, 'kv_static': True, 'inductor': {'triton.cudagraph_trees': False}},
   [('decode0', 'warmup+record', 'snapshot', '0/0', 'compile 0/0; compile_fx.cudagraphify_impl runs the model once eagerly (default pool), empties the cache (torch.cuda.graph __enter__ frees the 60 MiB and a 2 MiB segment) and captures into its own pool (1, 0) in the same call; no CUDA Graph Trees log line, no CUDAGraphNode.record trace event'),
    ('decode1', P, 'snapshot+jsonl', '0/0', 'no allocation; same out_ptr (the same static output tensor is returned every call)'),
    ('decode2', P, 'snapshot+jsonl', '0/0', 'as decode1'),
    ('decode3', P, 'snapshot+jsonl', '0/0', 'as decode1'),
    ('decode_newkv0', F, 'jsonl', '0/0', 'AssertionError with an empty message: new static K/V addresses'),
    ('decode_newkv1', F, 'jsonl', '0/0', 'AssertionError with an empty message')]),
 'f_training': ("part_f_cases.py training: net = Sequential(Linear(64,128), ReLU, Linear(128,10)); SGD; cnet = torch.compile(net, mode='reduce-overhead'); 5 steps of loss = cnet(x).square().mean(); backward; step; zero_grad(set_to_none=True).",
   {'dynamic': None, 'fullgraph': False, 'training': True},
   [('step0', W, 'log', '0/0', 'forward graph (partition 3 nodes, 5 inputs) warmup (log 24); the backward graph is compiled during loss.backward() (log 28-30, same compile id 0/0) and warmed up (log 33)'),
    ('step1', R, 'log+trace', '0/0', 'forward Recording cuda_graph_id=0 (log 38), backward Recording cuda_graph_id=1 (log 41)'),
    ('step2', P, 'log (absence)+snapshot', '0/0', 'forward and backward replayed (no log line, no tree allocation)'),
    ('step3', P, 'log (absence)+snapshot', '0/0', 'as step2 (one check-mutation pair at log 44)'),
    ('step4', P, 'log (absence)+snapshot', '0/0', 'as step2')]),
 'f_output_alias': ("part_f_cases.py output_alias: cf = torch.compile(f, mode='reduce-overhead') with f(x): return x[1:], x * 2; four calls with a fresh x each (b kept in held); read held[1], held[3].",
   {'dynamic': None, 'fullgraph': False},
   [('alias0', W, 'log+snapshot', '0/0', 'warmup (log 10)'),
    ('alias1', R, 'log+trace+snapshot', '0/0', 'Recording cuda_graph_id=0 (log 12); freed alias0\'s held output (via try_end_curr_warmup)'),
    ('alias2', P, 'log (absence)+snapshot', '0/0', 'replays id 0; freed alias1\'s held output (via try_end_curr_recording)'),
    ('alias3', P, 'log (absence)+snapshot', '0/0', 'replays id 0 (out_ptr = alias1\'s); the aliased output x[1:] is always a view of the caller\'s x (alias_ptr = x_ptr + 32), never of graph memory')]),
 'f_param_swap': ("part_f_cases.py param_swap: cm = mk(dynamic=False); kv = caches(1); decode0..2; m.lm_head.weight = nn.Parameter(clone) (new storage); after_swap0..2; m.lm_head.weight.copy_(randn) (same storage); after_copy0..1.",
   {'dynamic': False, 'kv_static': True},
   [('decode0', W, 'log+snapshot', '0/0', 'warmup (log 124)'),
    ('decode1', R, 'log+trace', '0/0', 'Recording cuda_graph_id=0 (log 128)'),
    ('decode2', P, 'snapshot+wall', '0/0', 'replays id 0'),
    ('after_swap0', R, 'log+trace', '0/0', 'no Dynamo recompile (no recompiles line, trace has only 0/0); "Re-recording function=partition_0, reason=static input data pointer changed. input name: arg26_1 ... return self.lm_head(self.norm(x))" (log 133-137) then Recording cuda_graph_id=1 (log 140)'),
    ('after_swap1', P, 'log+snapshot', '0/0', 'replays id 1; the Re-recording message against id 0 is printed again (log 142-146)'),
    ('after_swap2', P, 'log+snapshot', '0/0', 'as after_swap1 (log 150-154)'),
    ('after_copy0', P, 'log+snapshot', '0/0', 'copy_ keeps the address: replays id 1 (Re-recording message against id 0 at log 156-160)'),
    ('after_copy1', P, 'log+snapshot', '0/0', 'as after_copy0 (log 162-166)')]),
}

READS = {
 'd_mark_step': [('decode2 after decode3 (same step)', 'decode3', 'ok; same out_ptr as decode3 (both replays of id 0): the value is the buffer\'s content after decode3 (decode2\'s own value is not recorded anywhere): silently overwritten'),
                 ('decode3 after mark_step_begin + decode4', 'decode4 after mark_step_begin', 'ok, 18.2554 = the value later read from y4 (decode4\'s own output, kept because decode5 recorded elsewhere): decode3\'s output was silently overwritten by decode4\'s replay; mark_step_begin did not invalidate it'),
                 ('decode4 after decode5', 'decode5 without mark_step_begin', 'ok; decode4\'s own value: decode5 recorded a new graph with a new out_ptr')],
 'f_trees_off': [('decode1 after decode3', 'decode3', 'ok, no error: the old cudagraphify path returns the same static output tensor each call, so ys[1] is decode3\'s output (identity inferred from out_ptr equality)')],
 'f_output_alias': [('out1 after call3', 'alias3', 'RuntimeError "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run" (stack trace names part_f_cases.py line 145 "return x[1:], x * 2"): alias1 was the recording; its held output was freed when alias2 started a new generation (snapshot: dealloc_current_path_weakrefs via try_end_curr_recording)'),
                    ('out3', 'alias3', 'ok, -5.2906 (the latest replay\'s output)')],
}

UNKNOWNS = [
 "f_dynamic_true: whether the AssertionError needs DEBUG logging of torch._inductor.cudagraph_trees (S1). A rerun of the case with TORCH_LOGS without +cudagraphs would tell.",
 "d_mark_step: decode2's own output value (read after decode3 gives the shared buffer). An eager run with the same seed, or a clone() before decode3, would tell.",
 "d_mark_step decode5 and f_training step1's backward: the parent node of the new recording in the tree (no log line names it; the checkpoint line and 'Number of checkpoints 1' only show a non-root recording for decode5).",
 "f_param_swap: output values after the swap and after copy_ (no read was logged); that the replay of recording 1 used the copied weights follows from the address only.",
 "f_training: which recording each later step replays is inferred (no trace/log event for replays).",
 "Wall time of f_dynamic_true/f_skip_dynamic_graphs first calls (60 s) is compile time with twelve processes sharing the machine (TORCHINDUCTOR_COMPILE_THREADS=2); not a CUDA graph cost.",
]

SURPRISES = [
 ('S1', "Under dynamic=True with graph partitioning, a new static K/V object at an already recorded batch size does not re-record: the call raises AssertionError('length mismatch between inputs, recorded_data_ptr, and placeholders') out of CUDA Graph Trees, six times in a row (batch3_a..c, batch2_a..c second round), while a new size (batch5) still warms up and records. The message comes from cudagraph_utils.log_data_ptr_mismatch, which builds the text of the re-record reason; PyTorch main's CUDAGraphTreeManager._run computes that text at once only when the cudagraph logger is at DEBUG (this run's +cudagraphs), else lazily when the re-record limit is hit. So the failure may need DEBUG logging: unknown for 2.11 (its message has no 'mode=' so its _run differs); a rerun without +cudagraphs would tell. The partition's inputs (28, log 255) and the graph's placeholders differ in number because Partition 0 (CPU scalar work) is cut off; which list is longer is not in the files.", ['f_dynamic_true'], 'f_dynamic_true.jsonl call_failed x6; f_dynamic_true.log 246-256 (2 partitions), 292 (check-mutation pair just before the first failure), 294-299 (call_failed lines), no Re-recording line anywhere'),
 ('S2', "cudagraph_trees=False (compile_fx.cudagraphify_impl): warm-up and capture both happen in the first call, the static output tensor is the same object every call (a held output silently shows the latest value), and new static K/V addresses raise an AssertionError with an empty message (the size_asserts data_ptr check of the old path's run(); with size_asserts off the graph would replay against the old caches). No CUDA Graph Trees log lines, no CUDAGraphNode.record trace events, pool (1, 0) instead of (0, 1).", ['f_trees_off'], 'f_trees_off.jsonl (call_failed message ""); f_trees_off.log 119-121 (no tree lines); snapshot frames cudagraphify_impl compile_fx.py:1943 (warmup), :1950 (empty_cache), :1951 (capture)'),
 ('S3', "A parameter replaced by a new nn.Parameter (new storage) is not a Dynamo recompile (inline_inbuilt_nn_modules: parameters are graph inputs, guarded by identity of the module, not the tensor's address) but a CUDA graph re-record: 'static input data pointer changed' for arg26_1 (lm_head.weight), a second recording beside the first. An in-place copy_ keeps the address and replays the new recording: no re-record, no recompile.", ['f_param_swap'], 'f_param_swap.log 133-140 (Re-recording + Recording id=1), no Recompiling line; trace: one compile 0/0'),
 ('S4', "'Re-recording function=..., reason=...' does not mean a re-record happened: the manager logs one such message for every existing recording of the function it tries before the one that matches. In d_rerecord_limit new_kv{i}_b prints i messages and then replays recording i; in f_param_swap every call after the swap prints one message against recording 0 and replays recording 1. Only a following 'Recording function=..., cuda_graph_id=N' line means a capture.", ['d_rerecord_limit', 'f_param_swap'], 'd_rerecord_limit.log 164-193 (new_kv1_b: 1 message, no Recording), 1249-1428 (new_kv6_b: 6 messages); f_param_swap.log 142-166'),
 ('S5', "cudagraph_unexpected_rerecord_limit = 3 is again not enforced: seven recordings (ids 0..6) of one function, six of them unexpected re-records, no 'skipping cudagraph due to function ... exceeding max re-recording limit'. (PyTorch source, not these files: exceed_rerecord_limit returns False while torch._dynamo.config.inline_inbuilt_nn_modules is True.)", ['d_rerecord_limit'], 'd_rerecord_limit.log: Recording cuda_graph_id=0..6 at lines 128, 162, 259, 416, 633, 910, 1247; trace: 7 CUDAGraphNode.record'),
 ('S6', "cudagraph_skip_dynamic_graphs=True with graph partitioning gives no 'skipping cudagraphs due to ...' message and no cudagraph_skips counter: the scheduler simply makes the whole graph one non-cudagraphable partition ('0 cudagraphable, 1 non-cudagraphable', reasons cpu ops / DeviceCopy / dynamic shape ops), and no tree function is ever created.", ['f_skip_dynamic_graphs'], 'f_skip_dynamic_graphs.log 246-262; counters without cudagraph_skips'),
 ('S7', "With dynamic=True each distinct batch size is a separate CUDA Graph Trees function ('Recording cudagraph tree for symint key N'), warmed up on its first call even though the function for other sizes is already warm; a new size after a replay checkpoints the allocator first (batch3_a, batch4_a), but after the failed calls (which ended the current execution) batch5_a warms up without a checkpoint.", ['f_dynamic_true'], 'f_dynamic_true.log 256, 266-270, 279-283, 300-303'),
 ('S8', "dynamic=True turns the module's int attribute arithmetic into a CPU float64 scalar input (arg3_1 f64[][] cpu in the graph), which graph partitioning splits into a non-cudagraphable partition that runs (and allocates once in the default pool) on every call, replays included. The cudagraphable partition is logged by the scheduler as 'Partition 1' but by the tree as function=partition_0 (also in d_cpu_input).", ['f_dynamic_true', 'd_cpu_input'], 'f_dynamic_true.log 246-259; d_cpu_input.log 6-15; trace before_joint_graph of f_dynamic_true'),
 ('S9', "A function that mutates a non-static input is skipped at its first call ('skipping cudagraphs due to mutated inputs', WARNING) and runs eagerly from then on, without further messages; the same mutation on a mark_static_address input is fine (check mutation: mutation indices []), warm-up / record / replay as usual.", ['f_mutate_plain_input', 'f_kv_not_static'], 'f_mutate_plain_input.log 8-14 vs 24-31; f_kv_not_static.log 124-131'),
 ('S10', "Training: the backward graph is compiled lazily during the first loss.backward() and is its own tree function under the same compile id 0/0; step 0 warms up both, step 1 records both (ids 0 and 1), later steps replay both; no mark_step_begin needed here.", ['f_training'], 'f_training.log 19-33, 38, 41'),
 ('S11', "Outputs that alias an input are not CUDA-graph memory: x[1:] is returned as a view of the caller's new x on every replay; only the non-aliased output x * 2 lives in the graph pool and is subject to the overwritten-output error.", ['f_output_alias'], 'f_output_alias.jsonl alias_ptr = x_ptr + 32 for every call; read out1 after call3 = RuntimeError'),
]


def build_case(case):
    a = A[case]
    desc, cfg, rows = CASES[case]
    calls_j = [j for j in a['jsonl_steps'] if j['step'] in ('call', 'call_failed', 'train_step', 'train_step_failed', 'cpu_input_call')]
    logsteps = [s for s in a['log_steps'] if s['step'] in ('call', 'call_failed', 'train_step', 'train_step_failed', 'cpu_input_call')]
    assert len(calls_j) == len(rows) == len(logsteps), (case, len(calls_j), len(rows), len(logsteps))
    wins = a['snapshot_windows']
    recs = a['trace']['records'] if a['trace'] else []
    out = []
    cw = 0
    for k, (label, action, ev, served, notes) in enumerate(rows):
        j, s = calls_j[k], logsteps[k]
        lab_j = j.get('label', f"{j['step']}{j.get('i', '')}")
        kinds = [e['kind'] for e in s['events']]
        rec_ids = [e['cuda_graph_id'] for e in s['events'] if e['kind'] == 'record']
        # consistency of the reading with the log facts
        if action == R:
            assert rec_ids, (case, label)
        if action in (P, E, S, F):
            assert not rec_ids and 'warmup' not in kinds, (case, label)
        if action == W:
            assert 'warmup' in kinds or not s['events'], (case, label)
        c = {'label': label, 'jsonl_label': lab_j, 'action': action, 'evidence': ev, 'served_by': served, 'notes': notes,
             'log_line_of_step': s['log_line'],
             'log': [{k2: v for k2, v in e.items() if k2 not in ('epoch', 'text')} | ({'text': e['text'][:400]} if 'text' in e and e['kind'] in ('skip', 'recompile', 'recompile_limit', 'warning', 'partitions', 'partition', 'raw') else {}) for e in s['events']]}
        for key in ('out_ptr', 'kv0_ptr', 'wall_ms', 'mem_allocated', 'mem_reserved', 'error', 'message', 'alias_ptr', 'x_ptr', 'arg_ptrs', 'loss'):
            if key in j:
                c[key] = j[key]
        if j['step'] in ('call', 'call_failed') and wins:
            w = wins[cw]
            assert w['label'] == lab_j
            c['snapshot_counts'] = {k2: v for k2, v in w['counts'].items() if not k2.endswith(':None')}
            if w['freed_prev_generation']:
                c['freed_previous_generation_outputs'] = w['freed_prev_generation']
            c['trace_records'] = [r for r in recs if r.get('during') == lab_j and wins[cw]['t0_s'] <= r['ts_s'] and (w['t1_s'] is None or r['ts_s'] < w['t1_s'])]
        if j['step'] in ('call', 'call_failed'):
            cw += 1
        out.append(c)
    t = a['trace']
    compiles = [{'id': x['compile_id'], 'fail_type': x['fail_type'], 'fail_reason': x['fail_reason']} for x in t['compiles']]
    rr = {x['compile_id']: x['reasons'] for x in t['recompile_reasons']}
    for x in compiles:
        x['recompile_reasons'] = rr.get(x['id'] + '_0') or rr.get(x['id'])
    reads = []
    rj = [j for j in a['jsonl_steps'] if j['step'] == 'read']
    for (lab, after, meaning), j in zip(READS.get(case, []), rj):
        assert j['label'] == lab
        reads.append({'label': lab, 'after_call': after, 'ok': j['ok'], 'value': j.get('value'),
                      'error': (j.get('error', '') + ': ' + j.get('message', '')) if not j['ok'] else None,
                      'meaning': meaning, 'evidence': 'jsonl read + out_ptr identity + snapshot frees'})
    warnings = []
    for s in a['log_steps']:
        for e in s['events']:
            if e['kind'] in ('warning', 'skip', 'recompile_limit') or (e['kind'] == 'raw' and 'Warning' in e.get('text', '')):
                warnings.append({'text': e['text'].strip()[:600], 'during': s['label'], 'log_lines': e['log_lines']})
    counters = [j for j in a['jsonl_steps'] if j['step'] == 'counters']
    ind = counters[0]['counters'].get('inductor', {}) if counters else {}
    pool = {'graph_pool_segments_at_dump': [x for x in a['segments_at_dump'] if x['pool'] != '(0, 0)'],
            'evidence': 'snapshot segments (segment_pool_id)'}
    return {'id': case, 'recording': f'cudagraph_cases_f/{case}',
            'recording_files': [f'cudagraph_cases_f/{case}.jsonl', f'cudagraph_cases_f/{case}.log', f'cudagraph_cases_f/{case}.pickle', f'cudagraph_cases_f/traces.tgz:trace_{case}/'],
            'script': desc, 'config': dict({'backend': 'inductor', 'mode': 'reduce-overhead', 'fullgraph': True}, **cfg, env=LOGFLAGS + ', TORCH_TRACE, TORCHINDUCTOR_COMPILE_THREADS=2'),
            'summary': ', '.join(f"{r[0]}={r[1]}" for r in rows),
            'compiles': compiles,
            'counters_inductor_cudagraph': {k: v for k, v in ind.items() if 'cudagraph' in k},
            'calls': out, 'reads': reads, 'warnings': warnings, 'pool': pool}


cases = [build_case(c) for c in CASES]
truth = {'format': 'cudagraph-truth/1',
         'source': 'derived by truth_scripts/analyze.py + build_truth.py from cudagraph_cases_f/*.jsonl, *.log, *.pickle and traces.tgz '
                   '(recorded 2026-11-27 by scripts/record/run_f.sh: PyTorch 2.11.0+cu130, CUDA 13.0, NVIDIA H200, Python 3.12.3)',
         'evidence_levels': {
             'log': 'X.log, PyTorch stderr with ' + LOGFLAGS + ' interleaved with the script\'s one-line-per-step stdout (printed after the step): '
                    'lines between step k-1 and step k belong to step k. "Running warmup function=" = warmup, "Recording function=..., cuda_graph_id=N" = capture, '
                    '"skipping cudagraphs due to" = skip, "Checkpointing cuda caching allocator state" = checkpoint. "Re-recording function=" alone is NOT a re-record (S4). '
                    '"log (absence)" = no CUDA Graph Trees line in the call (replay, or eager after a skip).',
             'trace': 'TORCH_TRACE: compilation_metrics (compile id, fail_type), recompile_reasons, CUDAGraphNode.record spans (one per capture)',
             'snapshot': 'memory snapshot events inside the call window (from the call\'s own input allocations to the next call\'s), classified by Python frames: '
                         'run_eager = warmup, record_function = capture, CUDAGraphTreeManager._run -> model = eager, dealloc_current_path_weakrefs = previous generation freed, '
                         'apply_checkpoint_execution_state_in_allocator = checkpoint, compile_fx.cudagraphify_impl = the trees-off path',
             'jsonl': 'what the script logged: out_ptr, errors, read results',
             'wall': 'wall_ms only'},
         'skipped': {}, 'unknowns': UNKNOWNS,
         'surprises': [{'id': i, 'text': t, 'cases': c, 'shown_by': sh} for i, t, c, sh in SURPRISES],
         'cases': cases}
json.dump(truth, open(os.path.join(OUT, 'truth.json'), 'w'), indent=1)

# ---- markdown
md = []
md.append('# CUDA Graph Trees ground truth, part F recordings (PyTorch 2.11)\n')
md.append('Ground truth for checking a simulator of `torch.compile(mode="reduce-overhead")` against the twelve recordings in this folder '
          '(PyTorch 2.11.0+cu130, CUDA 13.0, one NVIDIA H200, Python 3.12.3; see README.md). Same method and format as '
          '`../cudagraph_cases/truth.md`; the machine-readable version is `truth.json` (format `cudagraph-truth/1`), made by '
          '`truth_scripts/analyze.py` (evidence per step from log, snapshot, trace) and `truth_scripts/build_truth.py` (the per-call reading, '
          'checked against that evidence). To rebuild: `tar xzf traces.tgz -C /tmp/tf; python3 truth_scripts/analyze.py . /tmp/tf > /tmp/a.json; '
          'python3 truth_scripts/build_truth.py /tmp/a.json .`\n')
md.append('## How each fact was derived\n')
md.append('* **Log (strong).** Each `X.log` is stdout and stderr in one file. The script prints one line `[  t s] step {...}` after each step, so every PyTorch line '
          'between the lines of steps k-1 and k was written during step k. With `+cudagraphs` the tree manager logs `Running warmup function=partition_0` (warm-up), '
          '`Recording function=partition_0, cuda_graph_id=N` (a capture, N counts per process), `Checkpointing cuda caching allocator state`, `Recording cudagraph tree for '
          'graph without symints` / `for symint key N` (a new tree function), and `skipping cudagraphs due to ...` (WARNING). A replay prints nothing. '
          '`Re-recording function=..., reason=...` is printed for every existing recording that does not match, **also when a later one matches and is replayed** (S4). '
          'Line numbers below are lines of `X.log`.\n'
          '* **Trace.** `compilation_metrics` give compile ids and `fail_type`; `recompile_reasons` the guard failures; one `CUDAGraphNode.record` span per capture. Every '
          'capture in the log has its trace span and vice versa (d_mark_step 2, d_rerecord_limit 7, d_recompile_limit 3, d_cpu_input 2, f_dynamic_true 4, f_training 2, '
          'f_mutate_plain_input 1, f_output_alias 1, f_param_swap 2; none in f_kv_not_static, f_skip_dynamic_graphs, f_trees_off).\n'
          '* **Snapshot.** As before: each decoder call allocates its two inputs straight from the script\'s `call()` frame, which opens its window; events are classified by frames '
          '(`run_eager`, `record_function`, `CUDAGraphTreeManager._run` -> model, `dealloc_current_path_weakrefs`, `apply_checkpoint_execution_state_in_allocator`, '
          '`compile_fx.cudagraphify_impl`). f_mutate_plain_input, f_output_alias, f_training and the lambda of d_cpu_input have no such windows; there the snapshot was read '
          'in sequence (frames of `f`, `<lambda>`, `c_training`).\n'
          '* **Replay** = no warm-up/record line in the log, no tree allocation in the snapshot window, out_ptr equal to the recording\'s. Which recording is replayed comes from '
          'the recording ids and static addresses (inferred; the logs do not name the replayed node).\n'
          '* **unknown** is written where the files do not tell; what would tell is said there.\n')
for c in cases:
    md.append(f"## {c['id']}\n")
    md.append(f"Recording: `{c['id']}.jsonl`, `{c['id']}.log`, `{c['id']}.pickle`, `traces.tgz:trace_{c['id']}/`\n")
    md.append(f"What ran: {c['script']}\n")
    md.append('Compiled graphs (trace): ' + '; '.join(
        f"{x['id']}" + (f" {x['fail_type']} ({x['fail_reason']})" if x['fail_type'] else '') +
        (f" recompile: {x['recompile_reasons'] if isinstance(x['recompile_reasons'], str) else '; '.join(x['recompile_reasons'])}" if x['recompile_reasons'] else '')
        for x in c['compiles']) + '\n')
    if c['counters_inductor_cudagraph']:
        md.append(f"Counters: `{json.dumps(c['counters_inductor_cudagraph'])}`\n")
    md.append('| # | call | served by | action | evidence | log lines | notes |\n|---|---|---|---|---|---|---|')
    for i, x in enumerate(c['calls']):
        ll = ', '.join(f"{e['kind']} {e['log_lines']}" for e in x['log'] if e['kind'] in ('warmup', 'record', 're-recording-line', 'checkpoint', 'skip', 'tree_function_created', 'recompile', 'recompile_limit'))
        if sum(1 for e in x['log'] if e['kind'] == 're-recording-line') > 2:
            n = sum(1 for e in x['log'] if e['kind'] == 're-recording-line')
            ll = ', '.join(f"{e['kind']} {e['log_lines']}" for e in x['log'] if e['kind'] in ('warmup', 'record', 'checkpoint', 'skip')) + f"; {n} re-recording messages"
        err = f" — {x['error']}: {x.get('message', '')!s}" if 'error' in x else ''
        md.append(f"| {i} | {x['label']} | {x['served_by'] or '-'} | **{x['action']}** | {x['evidence']} | {ll or '-'} | {x['notes']}{err} |")
    md.append('')
    if c['reads']:
        md.append('Reads of held outputs:\n\n| read | after call | ok | value / error | meaning |\n|---|---|---|---|---|')
        for r in c['reads']:
            md.append(f"| {r['label']} | {r['after_call']} | {r['ok']} | {r['value'] if r['ok'] else r['error'][:160]} | {r['meaning']} |")
        md.append('')
    if c['warnings']:
        md.append('Warnings (text shortened; call during which printed; log lines):\n')
        for w in c['warnings']:
            md.append(f"* during {w['during']} (log {w['log_lines']}): `{w['text'].splitlines()[0][:220]}`")
        md.append('')
    segs = c['pool']['graph_pool_segments_at_dump']
    md.append('Pool (snapshot, at dump): ' + (', '.join(f"{s['size'] // 1048576} MiB in {s['pool']}" for s in segs) or 'no private pool') + '\n')
    md.append(f"Summary: {c['summary']}\n")
md.append('## Unknowns\n')
for u in UNKNOWNS:
    md.append('* ' + u)
md.append('')
md.append('## Surprises\n')
for i, t, cs, sh in SURPRISES:
    md.append(f"* **{i}** ({', '.join(cs)}). {t} *Shown by:* {sh}.")
md.append('')
open(os.path.join(OUT, 'truth.md'), 'w').write('\n'.join(md) + '\n')
print('ok', len(cases), 'cases')
