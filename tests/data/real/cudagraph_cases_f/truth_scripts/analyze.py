#!/usr/bin/env python3
"""Per-step evidence for the cudagraph_cases_f recordings (stdlib only).

Usage: analyze.py CASE_DIR TRACES_DIR [CASE ...] > analysis.json
  CASE_DIR   tests/data/real/cudagraph_cases_f (X.jsonl, X.log, X.pickle)
  TRACES_DIR the folder traces.tgz was unpacked into (trace_X/*.log)

Three independent sources per case, each attributed to the script's steps:
  log      X.log is the process's stdout+stderr in one file. The recording script prints one line
           ("[  t s] step {...}") after each step has finished, so every PyTorch log line between the
           line of step k-1 and the line of step k was written during step k. Each glog record is kept with
           its line number in X.log.
  snapshot X.pickle device_traces: each KV-decoder call allocates its two input tensors (randint, arange)
           straight from the script's call() frame; the k-th such group opens the window of the k-th call.
           Events inside the window are classified by their Python frames.
  trace    TORCH_TRACE: compile ids (dynamo_start / compilation_metrics with fail_type), recompile reasons,
           CUDAGraphNode.record chromium spans. Attributed to calls by epoch time using the snapshot windows
           (snapshot time_us and trace ts share the epoch clock); when a case has no snapshot windows,
           by the glog time stamps of the log.
"""
import glob, json, os, pickle, re, sys
from collections import Counter, OrderedDict

GLOG = re.compile(r'^([VIWE])(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^\]]+)\] ?(.*)$')
STEP = re.compile(r'^\[ *([\d.]+)s\] (\w+) (.*)$')


def glog_epoch_s(m, year=2026):
    # the device machine's glog clock is UTC (checked against the snapshot's epoch time_us)
    import calendar
    mmdd = m.group(2)
    return calendar.timegm((year, int(mmdd[:2]), int(mmdd[2:]), int(m.group(3)), int(m.group(4)),
                            int(m.group(5)))) + int(m.group(6)) / 1e6


def read_jsonl(path):
    return [json.loads(l) for l in open(path) if l.strip()]


# ---------------------------------------------------------------- log
def parse_log(path):
    """Returns (steps, records). steps: [{'line','step','label'}]; records: glog messages grouped
    (continuation lines with the same prefix, file:line and time join the record), each with the
    index of the step it belongs to."""
    lines = open(path).read().split('\n')
    steps, recs = [], []
    cur = None
    for no, l in enumerate(lines, 1):
        ms = STEP.match(l)
        if ms:
            try:
                body = json.loads(ms.group(3))
            except Exception:
                body = {}
            lab = body.get('label', body.get('i'))
            if lab is None:
                ml = re.search(r'"label": "([^"]*)"', ms.group(3))
                lab = ml.group(1) if ml else None
            steps.append({'line': no, 'step': ms.group(2), 'label': lab})
            cur = None
            continue
        mg = GLOG.match(l)
        if mg:
            key = (mg.group(3, 4, 5, 6), mg.group(8))
            msg = mg.group(9)
            if cur is not None and cur['key'] == key and not _starts_new(msg):
                cur['text'] += '\n' + _strip_tag(msg)
                cur['last_line'] = no
                continue
            cur = {'line': no, 'last_line': no, 'level': mg.group(1), 'src': mg.group(8), 'key': key,
                   'epoch': glog_epoch_s(mg), 'text': msg, 'step_index': len(steps)}
            recs.append(cur)
        elif l.strip():
            # a line without glog prefix (python warnings, tracebacks)
            if cur is not None and cur.get('raw') and l.startswith('  '):
                cur['text'] += '\n' + l
                cur['last_line'] = no
                continue
            cur = {'line': no, 'last_line': no, 'level': 'raw', 'src': '', 'key': None, 'epoch': None,
                   'text': l, 'raw': True, 'step_index': len(steps)}
            recs.append(cur)
    for r in recs:
        r.pop('key', None)
    return steps, recs


def _strip_tag(msg):
    return re.sub(r'^(\[\d+/\d+(_\d+)?\] |\[__\w+\] ?)*', '', msg)


def _starts_new(msg):
    body = _strip_tag(msg)
    return bool(re.match(r'(Recording|Running warmup|Re-recording|Checkpointing|skipping|Created \d+ graph|check mutation|'
                         r'Partition \d+:|Recompiling function|static input|Marking static|Adding static|Non-static)', body))


def classify_record(r):
    t = r['text']
    cid = re.search(r'\[(\d+/\d+(?:_\d+)?)\]', t)
    cid = cid.group(1) if cid else None
    m = re.search(r'Running warmup function=(\S+)', t)
    if m:
        return {'kind': 'warmup', 'function': m.group(1), 'compile_id': cid}
    m = re.search(r'Re-recording function=([^,]+),(?: mode=(\w+),)? reason=([^\n]*)', t)
    if m:
        names = re.findall(r'input name: (\S+)\. data pointer changed from (\d+) to (\d+)', t)
        return {'kind': 're-recording-line', 'function': m.group(1), 'compile_id': cid, 'reason': m.group(3).strip(),
                'changed': [{'input': n, 'from': int(a), 'to': int(b)} for n, a, b in names]}
    m = re.search(r'Recording function=([^,]+), cuda_graph_id=(\d+)', t)
    if m:
        return {'kind': 'record', 'function': m.group(1), 'cuda_graph_id': int(m.group(2)), 'compile_id': cid}
    if 'Checkpointing cuda caching allocator state' in t:
        return {'kind': 'checkpoint', 'text': t.strip()}
    m = re.search(r'skipping cudagraphs? due to ([^\n]*)', t)
    if m:
        return {'kind': 'skip', 'reason': m.group(1).strip(), 'text': t}
    m = re.search(r'Recording cudagraph tree for (.*)', t)
    if m:
        return {'kind': 'tree_function_created', 'for': m.group(1).strip()}
    if 'Recompiling function' in t:
        return {'kind': 'recompile', 'text': t}
    if 'hit config.recompile_limit' in t:
        return {'kind': 'recompile_limit', 'text': t}
    if 'Created' in t and 'graph partitions' in t:
        return {'kind': 'partitions', 'text': t}
    if 'Partition ' in t and 'cudagraphable' in t:
        return {'kind': 'partition', 'text': t}
    if 'check mutation' in t:
        return {'kind': 'check_mutation', 'text': t}
    if 'UserWarning' in t or 'Warning' in t or r['level'] == 'W':
        return {'kind': 'warning', 'text': t}
    if r['level'] == 'raw':
        return {'kind': 'raw', 'text': t}
    return None


# ---------------------------------------------------------------- snapshot
TREE_FRAMES = [
    ('dealloc_current_path_weakrefs', 'prev_generation_freed'),
    ('apply_checkpoint_execution_state_in_allocator', 'checkpoint'),
    ('record_function', 'record'),
    ('run_eager', 'warmup'),
]


def frame_names(e):
    return [f['name'] for f in e.get('frames', [])]


def classify_event(e):
    names = frame_names(e)
    files = [f['filename'] for f in e.get('frames', [])]
    for fn, kind in TREE_FRAMES:
        if fn in names:
            extra = ''
            if kind == 'prev_generation_freed':
                for via in ('try_end_curr_warmup', 'try_end_curr_recording', 'try_end_curr_execution'):
                    if via in names:
                        extra = ' via ' + via
            return kind + extra
    if 'CUDAGraphTreeManager' in ' '.join(names) or any('cudagraph_trees.py' in f for f in files):
        if '_run' in names:
            return 'tree_run_model_direct'
        return 'tree_other'
    if any(f.endswith('cudagraph_utils.py') for f in files):
        return 'cudagraph_utils'
    if any('compile_fx.py' in f for f in files) and ('cudagraphify' in ' '.join(names)):
        return 'cudagraphify(trees off)'
    if any('/torchinductor_' in f or 'inductor' in f and f.endswith('.py') and 'output_code' in f for f in files):
        return 'compiled_code'
    return None


def script_frame(e):
    for f in e.get('frames', []):
        if re.search(r'part_[a-z]_cases\.py$', f['filename']):
            return f['name'], f['line']
    return None, None


def snapshot_windows(pickle_path, n_calls):
    s = pickle.load(open(pickle_path, 'rb'))
    tr = s['device_traces'][0]
    starts = []
    prev_input = False
    for i, e in enumerate(tr):
        fr = e.get('frames') or []
        is_input = (e['action'] == 'alloc' and fr and fr[0]['name'] == 'call'
                    and re.search(r'part_[a-z]_cases\.py$', fr[0]['filename']))
        if is_input and not prev_input:
            starts.append(i)
        prev_input = bool(is_input)
    return s, tr, starts


def summarize_window(tr, a, b):
    c = Counter()
    frees = []
    for e in tr[a:b]:
        k = classify_event(e)
        act = e['action']
        c[f'{act}:{k}'] += 1
        if k and k.startswith('prev_generation_freed') and act == 'free_requested':
            frees.append({'addr': e['addr'], 'size': e['size']})
    return dict(c), frees


# ---------------------------------------------------------------- trace
def parse_trace(tdir):
    f = sorted(glob.glob(os.path.join(tdir, '*.log')))
    if not f:
        return None
    recs, cur = [], None
    for l in open(f[0]):
        l = l.rstrip('\n')
        if l.startswith('\t'):
            cur['payload'].append(l[1:])
            continue
        m = GLOG.match(l)
        if not m:
            continue
        try:
            hdr = json.loads(m.group(9))
        except Exception:
            continue
        cur = {'hdr': hdr, 'epoch': glog_epoch_s(m), 'payload': []}
        recs.append(cur)
    out = {'compiles': [], 'records': [], 'recompile_reasons': [], 'metrics_runtime': [], 'spans': []}
    open_rec = {}
    for r in recs:
        h = r['hdr']
        cid = None
        if 'frame_id' in h:
            cid = f"{h['frame_id']}/{h.get('frame_compile_id')}" + (f"_{h['attempt']}" if h.get('attempt') else '')
        if 'chromium_event' in h:
            p = json.loads('\n'.join(r['payload']))
            if p['name'] == 'CUDAGraphNode.record':
                key = p['name']
                if p['ph'] == 'B':
                    open_rec[key] = p
                elif p['ph'] == 'E' and key in open_rec:
                    b = open_rec.pop(key)
                    out['records'].append({'compile_id': b.get('args', {}).get('compile_id') or p.get('args', {}).get('compile_id'),
                                           'ts_s': b['ts'] / 1e6, 'dur_ms': round((p['ts'] - b['ts']) / 1e3, 3)})
            elif p['name'] in ('dynamo',) and p['ph'] == 'B':
                out['spans'].append({'name': p['name'], 'compile_id': p.get('args', {}).get('compile_id'), 'ts_s': p['ts'] / 1e6})
        elif 'compilation_metrics' in h:
            cm = h['compilation_metrics']
            out['compiles'].append({'compile_id': cm.get('compile_id'), 'fail_type': cm.get('fail_type'),
                                    'fail_reason': cm.get('fail_reason'), 'start_s': cm.get('start_time'),
                                    'is_recompile': (cm.get('recompile_reason') is not None),
                                    'recompile_reason': cm.get('recompile_reason'),
                                    'dynamo_config_auto_dynamic': None,
                                    'epoch': r['epoch']})
        elif 'compilation_metrics_runtime' in h:
            cm = h['compilation_metrics_runtime']
            out['metrics_runtime'].append({'compile_id': cid, 'epoch': r['epoch'], **{k: v for k, v in cm.items() if k != 'compile_id'}})
        elif 'artifact' in h and h['artifact'].get('name') == 'recompile_reasons':
            out['recompile_reasons'].append({'compile_id': cid, 'epoch': r['epoch'], 'reasons': _loads_or_text(r['payload'])})
    return out


# ---------------------------------------------------------------- per case
def analyze(case_dir, traces_dir, case):
    jl = read_jsonl(os.path.join(case_dir, case + '.jsonl'))
    steps, recs = parse_log(os.path.join(case_dir, case + '.log'))
    res = OrderedDict(case=case)
    res['jsonl_steps'] = [j for j in jl]
    # log events per step
    per_step = []
    for i, s in enumerate(steps):
        evs = []
        for r in recs:
            if r['step_index'] == i:
                c = classify_record(r)
                if c and c['kind'] not in ('check_mutation',):
                    c['log_lines'] = f"{r['line']}-{r['last_line']}" if r['last_line'] != r['line'] else str(r['line'])
                    c['epoch'] = r['epoch']
                    evs.append(c)
        cm_lines = [str(r['line']) for r in recs if r['step_index'] == i and 'check mutation static' in r['text']]
        per_step.append({'step': s['step'], 'label': s['label'], 'log_line': s['line'], 'events': evs,
                         'check_mutation_at_lines': cm_lines,
                         'epoch_bounds': _bounds(recs, i)})
    res['log_steps'] = per_step
    res['log_after_last_step'] = [dict(classify_record(r) or {'kind': 'other'}, line=r['line']) for r in recs if r['step_index'] == len(steps)]
    # snapshot
    calls = [j for j in jl if j['step'] in ('call', 'call_failed')]
    pk = os.path.join(case_dir, case + '.pickle')
    s, tr, starts = snapshot_windows(pk, len(calls))
    res['snapshot_call_windows'] = len(starts)
    wins = []
    if len(starts) == len(calls):
        for k, a in enumerate(starts):
            b = starts[k + 1] if k + 1 < len(starts) else len(tr)
            counts, frees = summarize_window(tr, a, b)
            wins.append({'label': calls[k].get('label'), 't0_s': tr[a]['time_us'] / 1e6,
                         't1_s': tr[b]['time_us'] / 1e6 if b < len(tr) else None, 'counts': counts,
                         'freed_prev_generation': frees})
    res['snapshot_windows'] = wins
    # pool
    segs = [{'addr': g['address'], 'size': g['total_size'], 'pool': str(g['segment_pool_id']), 'allocated': g['allocated_size']}
            for g in s['segments']]
    res['segments_at_dump'] = segs
    seg_allocs = []
    for e in tr:
        if e['action'] in ('segment_alloc', 'segment_free'):
            seg_allocs.append({'action': e['action'], 'size': e['size'], 'kind': classify_event(e), 't_s': e['time_us'] / 1e6})
    res['segment_events'] = seg_allocs
    # trace
    t = parse_trace(os.path.join(traces_dir, 'trace_' + case))
    if t:
        # attribute by time: snapshot windows, else log bounds
        def where(ts):
            if wins:
                lab = None
                for w in wins:
                    if ts >= w['t0_s'] - 0.0005:
                        lab = w['label']
                return lab
            for ps in per_step:
                lo, hi = ps['epoch_bounds']
                if ps['step'] in ('call', 'call_failed') and (hi is None or ts <= hi + 0.0015):
                    return ps['label']
            return None
        for k in ('records', 'spans'):
            for r in t[k]:
                r['during'] = where(r['ts_s'])
        for k in ('compiles', 'metrics_runtime', 'recompile_reasons'):
            for r in t[k]:
                r['during'] = where(r['epoch'])
    res['trace'] = t
    return res


def _loads_or_text(payload):
    txt = '\n'.join(payload)
    try:
        return json.loads(txt)
    except Exception:
        return txt


def _bounds(recs, i):
    """Epoch bounds of step i from the glog time stamps: after every record of step <= i-1's window ... """
    before = [r['epoch'] for r in recs if r['epoch'] is not None and r['step_index'] <= i]
    after = [r['epoch'] for r in recs if r['epoch'] is not None and r['step_index'] > i]
    return (max(before) if before else None, min(after) if after else None)


if __name__ == '__main__':
    case_dir, traces_dir = sys.argv[1], sys.argv[2]
    cases = sys.argv[3:] or sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(case_dir, '*.jsonl')))
    json.dump({c: analyze(case_dir, traces_dir, c) for c in cases}, sys.stdout, indent=1, default=str)
