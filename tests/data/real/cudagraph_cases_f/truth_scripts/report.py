#!/usr/bin/env python3
"""Prints analyze.py's output as one compact block per case (what each step did by log, snapshot, trace).
Usage: report.py analysis.json [CASE ...]"""
import json, sys

A = json.load(open(sys.argv[1]))
for case in (sys.argv[2:] or A):
    a = A[case]
    print(f'===== {case}  (snapshot call windows: {a["snapshot_call_windows"]})')
    wins = {i: w for i, w in enumerate(a['snapshot_windows'])}
    calls = [j for j in a['jsonl_steps'] if j['step'] in ('call', 'call_failed')]
    ci = 0
    for s in a['log_steps']:
        evs = []
        for e in s['events']:
            k = e['kind']
            if k == 'warmup':
                evs.append(f"WARMUP[{e['compile_id']}]@{e['log_lines']}")
            elif k == 'record':
                evs.append(f"RECORD id={e['cuda_graph_id']}[{e['compile_id']}]@{e['log_lines']}")
            elif k == 're-recording-line':
                ch = ','.join(f"{c['input']}:{c['from']}->{c['to']}" for c in e['changed'])
                evs.append(f"RE-REC-LINE[{e['compile_id']}] {e['reason'][:60]} ({ch})@{e['log_lines']}")
            elif k == 'checkpoint':
                evs.append(f"CHECKPOINT@{e['log_lines']}")
            elif k == 'skip':
                evs.append(f"SKIP {e['reason'][:80]}@{e['log_lines']}")
            elif k == 'tree_function_created':
                evs.append(f"TREEFN({e['for']})@{e['log_lines']}")
            elif k in ('recompile', 'recompile_limit'):
                evs.append(f"{k.upper()} {e['text'][-120:]!r}@{e['log_lines']}")
            elif k in ('partitions', 'partition'):
                evs.append(f"{e['text'][:90]!r}@{e['log_lines']}")
            elif k in ('warning', 'raw'):
                evs.append(f"{k.upper()} {e['text'][:140]!r}@{e['log_lines']}")
        line = f"  [{s['step']}] {s['label']} (log line {s['log_line']})"
        if s['step'] in ('call', 'call_failed'):
            j = calls[ci]
            w = wins.get(ci)
            ci += 1
            extra = {k: j[k] for k in ('out_ptr', 'kv0_ptr', 'wall_ms', 'error') if k in j}
            line += ' ' + json.dumps(extra)
            if w:
                line += '\n      snap: ' + json.dumps({k: v for k, v in w['counts'].items() if not k.endswith(':None')})
                if w['freed_prev_generation']:
                    line += f" freed_prev_gen={w['freed_prev_generation']}"
        elif s['step'] == 'read':
            j = s.get('label')
        print(line)
        for e in evs:
            print('      ' + e)
        if s['check_mutation_at_lines']:
            print('      check_mutation lines ' + ','.join(s['check_mutation_at_lines']))
    t = a['trace']
    if t:
        print('  trace compiles:', [(c['compile_id'], c['fail_type'], (c['fail_reason'] or '')[:100], c['during']) for c in t['compiles']])
        print('  trace records:', [(r['compile_id'], r['dur_ms'], r['during']) for r in t['records']])
        print('  trace recompile reasons:', [(r['compile_id'], str(r['reasons'])[:200], r['during']) for r in t['recompile_reasons']])
    for j in a['jsonl_steps']:
        if j['step'] in ('read', 'case_failed', 'counters', 'train_step', 'train_step_failed', 'cpu_input_call'):
            print('  jsonl', json.dumps(j)[:600])
