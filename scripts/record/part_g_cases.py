"""Part G: CUDA Graph Trees behaviours the simulator was not built from, to check a scenario made from a
TORCH_TRACE alone against what PyTorch logged (TORCH_LOGS="+cudagraphs": every warm-up and recording).

Usage: part_g_cases.py CASE   (CASE in CASES below); run with TORCH_TRACE=<dir> and the logs on stderr."""
import sys
import torch
import torch.nn as nn

dev = torch.device("cuda")
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, d=256, brk=False):
        super().__init__()
        self.a = nn.Linear(d, 2 * d)
        self.b = nn.Linear(2 * d, d)
        self.register_buffer("scale", torch.ones(d))
        self.brk = brk

    def forward(self, x):
        h = torch.relu(self.a(x))
        if self.brk:
            torch._dynamo.graph_break()
        return self.b(h) * self.scale


def run(cm, x):
    with torch.no_grad():
        y = cm(x)
    torch.cuda.synchronize()
    print(f"CALL shape={tuple(x.shape)} out_ptr={y.data_ptr():#x}", file=sys.stderr, flush=True)
    return y


def g_buffer_swap():
    """A registered buffer replaced by a new tensor of the same shape after four calls."""
    m = MLP().to(dev).eval()
    cm = torch.compile(m, mode="reduce-overhead", dynamic=False)
    x = torch.randn(4, 256, device=dev)
    for _ in range(4):
        run(cm, x)
    m.scale = torch.full((256,), 2.0, device=dev)
    for _ in range(3):
        run(cm, x)


def g_graph_break():
    """A graph break in forward: two graphs per call, each captured on its own."""
    m = MLP(brk=True).to(dev).eval()
    cm = torch.compile(m, mode="reduce-overhead", dynamic=False)
    x = torch.randn(2, 256, device=dev)
    for _ in range(4):
        run(cm, x)


def g_auto_dynamic():
    """dynamic=None: the first size change recompiles as dynamic; then one function per size."""
    m = MLP().to(dev).eval()
    cm = torch.compile(m, mode="reduce-overhead")
    for b in [2, 2, 3, 4, 3, 5, 5, 2]:
        run(cm, torch.randn(b, 256, device=dev))


def g_two_models():
    """Two compiled models called in turn: one tree manager, one pool."""
    m1, m2 = MLP().to(dev).eval(), MLP(d=128).to(dev).eval()
    c1 = torch.compile(m1, mode="reduce-overhead", dynamic=False)
    c2 = torch.compile(m2, mode="reduce-overhead", dynamic=False)
    x1, x2 = torch.randn(2, 256, device=dev), torch.randn(2, 128, device=dev)
    for _ in range(3):
        run(c1, x1)
        run(c2, x2)


def g_feedback():
    """Each call's output fed back as the next call's input (a managed input)."""
    m = MLP().to(dev).eval()
    cm = torch.compile(m, mode="reduce-overhead", dynamic=False)
    x = torch.randn(2, 256, device=dev)
    for _ in range(5):
        x = run(cm, x)


CASES = {f.__name__: f for f in [g_buffer_swap, g_graph_break, g_auto_dynamic, g_two_models, g_feedback]}

if __name__ == "__main__":
    print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), file=sys.stderr, flush=True)
    CASES[sys.argv[1]]()
    print("DONE", file=sys.stderr, flush=True)
