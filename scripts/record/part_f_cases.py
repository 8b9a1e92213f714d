"""Part F: more CUDA Graph Trees behaviours, one case at a time (ground truth for the simulator).

Usage: part_f_cases.py OUT CASE   (CASE in the CASES dict below)
Each case writes OUT/f_<case>.jsonl (steps, what PyTorch answered) and OUT/f_<case>.pickle."""
import os, signal, sys, time
import torch
import torch.nn as nn
from common import Log, TinyDecoder, record_history, env_info

out, case = sys.argv[1], sys.argv[2]
log = Log(os.path.join(out, f"f_{case}.jsonl"))
log("env", case=case, **env_info())
signal.signal(signal.SIGTERM, lambda s, f: (_ for _ in ()).throw(SystemExit(143)))
dev = torch.device("cuda")
record_history(200000)
torch.manual_seed(0)
m = TinyDecoder().to(dev).eval()


def caches(batch, static=True):
    kv = m.new_cache(batch, 64, dev)
    if static:
        for t in kv:
            torch._dynamo.mark_static_address(t)
    return kv


def mk(**kw):
    kw.setdefault("mode", "reduce-overhead")
    kw.setdefault("fullgraph", True)
    return torch.compile(m, **kw)


def call(cm, label, batch, pos, kv, seq=1):
    t = time.time()
    try:
        with torch.no_grad():
            y = cm(torch.randint(0, 1024, (batch, seq), device=dev), torch.arange(pos, pos + seq, device=dev), kv)
        torch.cuda.synchronize()
        log("call", label=label, batch=batch, seq=seq, pos0=pos, out_ptr=y.data_ptr(), kv0_ptr=kv[0].data_ptr(),
            wall_ms=round((time.time() - t) * 1e3, 2), mem_allocated=torch.cuda.memory_allocated(),
            mem_reserved=torch.cuda.memory_reserved())
        return y
    except Exception as e:
        log("call_failed", label=label, error=type(e).__name__, message=str(e)[:3000])


def read(label, y):
    try:
        log("read", label=label, ok=True, value=float(y.float().sum()))
    except Exception as e:
        log("read", label=label, ok=False, error=type(e).__name__, message=str(e)[:3000])


def fn_call(f, label, *args):
    t = time.time()
    try:
        r = f(*args)
        torch.cuda.synchronize()
        log("call", label=label, out_ptr=r.data_ptr() if torch.is_tensor(r) else None,
            arg_ptrs=[a.data_ptr() for a in args if torch.is_tensor(a)], wall_ms=round((time.time() - t) * 1e3, 2),
            mem_allocated=torch.cuda.memory_allocated(), mem_reserved=torch.cuda.memory_reserved())
        return r
    except Exception as e:
        log("call_failed", label=label, error=type(e).__name__, message=str(e)[:3000])


def c_kv_not_static():
    """K/V caches updated in place but NOT marked static: mutated inputs."""
    cm = mk(dynamic=False); kv = caches(1, static=False)
    for i in range(4):
        call(cm, f"decode{i}", 1, i, kv)
    kv2 = caches(1, static=False)
    for i in range(2):
        call(cm, f"decode_newkv{i}", 1, i, kv2)


def c_mutate_plain_input():
    """A plain function that mutates a non-static input, and one that mutates a static one."""
    def f(x, y):
        x.add_(1)
        return (x * y).sum(0)
    cf = torch.compile(f, mode="reduce-overhead")
    x = torch.randn(16, 8, device=dev); y = torch.randn(16, 8, device=dev)
    for i in range(3):
        fn_call(cf, f"mutate_plain{i}", x, y)
    xs = torch.randn(16, 8, device=dev); torch._dynamo.mark_static_address(xs)
    g = torch.compile(lambda a, b: (a.add_(1) * b).sum(0), mode="reduce-overhead")
    for i in range(3):
        fn_call(g, f"mutate_static{i}", xs, y)


def c_dynamic_true():
    """dynamic=True: one graph for every batch size, a recording per distinct size."""
    cm = mk(dynamic=True)
    for b in (2, 3, 4, 3, 2, 5):
        kv = caches(b)
        call(cm, f"batch{b}_a", b, 0, kv); call(cm, f"batch{b}_b", b, 1, kv); call(cm, f"batch{b}_c", b, 2, kv)


def c_skip_dynamic_graphs():
    """cudagraph_skip_dynamic_graphs with dynamic=True: skipped because of symbolic shapes."""
    import torch._inductor.config as ic
    ic.triton.cudagraph_skip_dynamic_graphs = True
    cm = mk(dynamic=True)
    for b in (2, 3, 2):
        kv = caches(b)
        call(cm, f"batch{b}_a", b, 0, kv); call(cm, f"batch{b}_b", b, 1, kv)


def c_trees_off():
    """cudagraph_trees=False: the older cudagraphify path (one graph per input shape, inputs copied)."""
    import torch._inductor.config as ic
    ic.triton.cudagraph_trees = False
    cm = mk(dynamic=False); kv = caches(1); ys = []
    for i in range(4):
        ys.append(call(cm, f"decode{i}", 1, i, kv))
    read("decode1 after decode3", ys[1])
    kv2 = caches(1)
    for i in range(2):
        call(cm, f"decode_newkv{i}", 1, i, kv2)


def c_training():
    """A training step compiled with reduce-overhead: forward and backward graphs in the tree."""
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    cnet = torch.compile(net, mode="reduce-overhead")
    for i in range(5):
        t = time.time()
        try:
            x = torch.randn(32, 64, device=dev)
            loss = cnet(x).square().mean()
            loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            log("train_step", i=i, loss=float(loss), wall_ms=round((time.time() - t) * 1e3, 2),
                mem_reserved=torch.cuda.memory_reserved())
        except Exception as e:
            log("train_step_failed", i=i, error=type(e).__name__, message=str(e)[:3000])


def c_output_alias():
    """Outputs that alias an input, and a held output read after the next replay."""
    def f(x):
        return x[1:], x * 2
    cf = torch.compile(f, mode="reduce-overhead")
    x = torch.randn(8, 8, device=dev)
    held = []
    for i in range(4):
        try:
            a, b = cf(x); torch.cuda.synchronize(); held.append(b)
            log("call", label=f"alias{i}", alias_ptr=a.data_ptr(), x_ptr=x.data_ptr(), out_ptr=b.data_ptr())
        except Exception as e:
            log("call_failed", label=f"alias{i}", error=type(e).__name__, message=str(e)[:3000])
        x = torch.randn(8, 8, device=dev)
    read("out1 after call3", held[1])
    read("out3", held[3])


def c_param_swap():
    """A parameter replaced between calls (weights reloaded into a new tensor)."""
    cm = mk(dynamic=False); kv = caches(1)
    for i in range(3):
        call(cm, f"decode{i}", 1, i, kv)
    with torch.no_grad():
        m.lm_head.weight = nn.Parameter(m.lm_head.weight.detach().clone())
    for i in range(3):
        call(cm, f"after_swap{i}", 1, 3 + i, kv)
    with torch.no_grad():
        m.lm_head.weight.copy_(torch.randn_like(m.lm_head.weight))
    for i in range(2):
        call(cm, f"after_copy{i}", 1, 6 + i, kv)


CASES = {k[2:]: v for k, v in globals().items() if k.startswith("c_")}
try:
    CASES[case]()
except Exception as e:
    log.error("case_failed", e)
finally:
    try:
        from torch._dynamo.utils import counters
        log("counters", counters={k: dict(v) for k, v in counters.items()})
    except Exception as e:
        log.error("no_counters", e)
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(os.path.join(out, f"f_{case}.pickle"))
    log("dumped", file=f"f_{case}.pickle")
