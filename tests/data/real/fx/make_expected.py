"""Independent counts for the real FX texts that index.jsonl does not cover (Inductor's
fx_graph_*.py, TORCH_TRACE payloads, output_code.py graph fragments): a few regular expressions over
the text, not the C++ reader. Writes expected.json; run `python3 make_expected.py` here."""
import json, re, collections, glob

NODE = re.compile(r'^\s+(\w+)(?:: "[^"]*")? = (.*)$')

def code_counts(path):
    text = open(path).read()
    sig = re.search(r'def forward\((.*?)\):\n', text, re.S).group(1)
    sig = re.sub(r'"[^"]*"', '', re.sub(r'#[^\n]*', '', sig))
    params = [p.split(':')[0].strip() for p in sig.split(',')]
    params = [p for p in params if p and p != 'self']
    aliases = {}
    nodes, ops = 0, collections.Counter()
    for line in text.split('\n'):
        m = NODE.match(line)
        if not m:
            continue
        name, value = m.group(1), m.group(2).split(';')[0].strip()
        if value in params:  # `l_x_ = L_x_`: names a placeholder
            aliases[value] = name
            continue
        nodes += 1
        call = re.match(r'torch\.ops\.([\w.]+)\(', value)
        if call:
            ops[call.group(1)] += 1
        elif re.match(r'operator\.getitem\(|\w+\[', value):
            ops['getitem'] += 1
    placeholders = [aliases.get(p, p) for p in params]
    return {'nodes': len(placeholders) + nodes + 1, 'placeholders': placeholders, 'ops': dict(ops)}

def fragment_counts(path):
    """One entry per `# Graph fragment:` block that is a whole graph (every %name it uses, returns
    included, defined before, none defined twice); `skipped` lists the others by position."""
    out, skipped = [], []
    for index, block in enumerate(open(path).read().split('# Graph fragment:\n')[1:]):
        lines = []
        for l in block.split('\n'):
            if not l.startswith('#   '):
                break
            lines.append(l[1:].strip())
        defined, whole = set(), True
        for l in lines:
            name = re.match(r'%(\w+)', l)
            uses = re.findall(r'%(\w+)', l[name.end():] if name else l)
            whole = whole and all(u in defined for u in uses)
            if name:
                whole = whole and name.group(1) not in defined
                defined.add(name.group(1))
        whole = whole and bool(lines) and lines[-1].startswith('return')
        if not whole:
            skipped.append(index)
            continue
        ph = [re.match(r'%(\w+)', l).group(1) for l in lines if '= PlaceHolder[' in l]
        ops = collections.Counter(re.search(r'target=torch\.ops\.([\w.]+)\]', l).group(1)
                                  for l in lines if '= call_function[target=torch.ops.' in l)
        body = [l for l in lines if l.startswith('%')]
        out.append({'fragment': index, 'nodes': len(body) + 1, 'placeholders': ph, 'ops': dict(ops)})
    return {'graphs': out, 'skipped': skipped}

expected = {}
# Inductor's model__0 files are read where the debug folder has them (../inductor/, copied once).
MODEL0 = '../inductor/torch_compile_debug/run_2026_11_26_08_52_02_717226-pid_457/torchinductor/model__0_inference_0.0/'
for f in sorted([MODEL0 + 'fx_graph_readable.py', MODEL0 + 'fx_graph_transformed.py'] + glob.glob('trace_*.txt')):
    expected[f] = code_counts(f)
for f in sorted(glob.glob('output_code_*') + [MODEL0 + 'output_code.py']):
    expected[f] = fragment_counts(f)
json.dump(expected, open('expected.json', 'w'), indent=1, sort_keys=True)
for k, v in expected.items():
    print(k, [(x['nodes'], len(x['placeholders'])) for x in v.get('graphs', [v])], v.get('skipped', ''))
