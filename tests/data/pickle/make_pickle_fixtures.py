#!/usr/bin/env python3
"""Writes the pickle fixtures of tests/engine/pickle_reader_test.cpp, and next to each one
`<name>.dis.txt`, its `pickletools.dis` listing, for the reviewer.

Standard library only; run from anywhere with python3 (3.8+; made with 3.11):
    python3 tests/data/pickle/make_pickle_fixtures.py
The classes of TorchAir's cache (`torchair.inference._cache_compiler` and npugraph_ex's) are
defined here with those module names and registered in sys.modules, so that pickle writes exactly
the layout TorchAir's `CompiledModel.save` writes (`pickle.dump(artifact, f)`, default protocol 4:
PROTO 4, FRAME, STACK_GLOBAL, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, MARK, SETITEMS, BUILD).
Nothing here is ever unpickled.
"""
import collections
import dataclasses
import io
import os
import pickle
import pickletools
import sys
import types
from typing import List, Tuple

OUT = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    listing = io.StringIO()
    try:
        pickletools.dis(data, out=listing, annotate=0)
    except Exception as e:  # hand-made broken fixtures: show how far pickletools gets
        listing.write(f"pickletools.dis stops: {type(e).__name__}: {e}\n")
    with open(os.path.join(OUT, name[: -len(".pkl")] + ".dis.txt"), "w") as f:
        f.write(listing.getvalue())


def cache_module(name, version):
    """TorchAir's three dataclasses, in a module of the given name."""
    mod = types.ModuleType(name)

    @dataclasses.dataclass
    class ModelCacheMeta:
        name: str
        date: str
        version: str

    @dataclasses.dataclass
    class CompiledFX:
        signature: str
        py_code: str
        input_parameters: List[Tuple[str, bool]]

    @dataclasses.dataclass
    class ModelCacheArtifact:
        meta: ModelCacheMeta
        compiled_fn: bytes
        compiled_fx: CompiledFX

    for cls in (ModelCacheMeta, CompiledFX, ModelCacheArtifact):
        cls.__module__ = name
        cls.__qualname__ = cls.__name__
        setattr(mod, cls.__name__, cls)
    sys.modules[name] = mod
    parts = name.split(".")
    for i in range(1, len(parts)):  # the parent packages, for pickle's import of the module
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    meta = ModelCacheMeta("Model.prompt(x)", "2026-06-01 12:00:00.123456+00:00", version)
    fx = CompiledFX(
        signature="-" * 42 + "graph module" + "-" * 46 + "\nclass GraphModule(torch.nn.Module):\n",
        py_code="def forward(arg0_1, arg1_1):\n    return (arg0_1,)\n",
        input_parameters=[("linear1.weight", True), ("linear1.bias", True), ("L['self'].buffer", False)],
    )
    return ModelCacheArtifact(meta=meta, compiled_fn=b"\xe3\x00\x00\x00marshal", compiled_fx=fx)


class Evil:
    """What an attacker writes: unpickling would run `echo hi`."""

    def __reduce__(self):
        return (os.system, ("echo hi",))


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1
        self.b = "two"


Slotted.__module__ = "fixtures"
sys.modules["fixtures"] = types.ModuleType("fixtures")
sys.modules["fixtures"].Slotted = Slotted


def values():
    """Every plain kind: ints of every width, floats, strings, bytes, containers."""
    ints = [0, 1, -1, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63),
            2**63, -(2**63) - 1, 2**64 + 5, 10**100, -(10**100)]
    return {
        "ints": ints,
        "floats": [1.5, -0.0, 1e300, 5e-324, 0.1, 123456789.125, 1e16],
        "strs": ["", "ascii", "h\xe9llo", "\u65e5\u672c", "\U0001f600", "quote'\"\\\n\t"],
        "bytes": [b"", b"\x00\xff", b"abc"],
        "consts": [None, True, False],
        "nested": [(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (), [[], {}], {"k": [1, {"deep": (None,)}]}],
        "sets": [{1, 2, 3}, frozenset([7]), set()],
        1: "int key",
    }


def memory_snapshot_like():
    """The shape of torch.cuda.memory._snapshot(): dicts and lists of ints and strings, shared
    frame lists, addresses that need 9-byte LONG1 integers."""
    frames = [{"filename": "model.py", "line": 12, "name": "forward"},
              {"filename": "torch/nn/modules/linear.py", "line": 125, "name": "forward"}]
    blocks = [{"address": 2**63 + 512 * i, "size": 512, "requested_size": 500, "state": "active_allocated",
               "frames": frames} for i in range(3)]
    segment = {"device": 0, "address": 2**63, "total_size": 2097152, "allocated_size": 1536,
               "active_size": 1536, "requested_size": 1500, "stream": 0, "segment_type": "small",
               "segment_pool_id": (0, 0), "is_expandable": False, "frames": frames, "blocks": blocks}
    traces = [[{"action": "alloc", "addr": 2**63 + 512 * i, "size": 512, "stream": 0, "time_us": 1000 + i,
                "frames": frames} for i in range(3)]]
    return {"segments": [segment], "device_traces": traces,
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                   "garbage_collection_threshold": 0.0, "expandable_segments": False}}


def main():
    for p in range(6):
        write(f"values_p{p}.pkl", pickle.dumps(values(), protocol=p))

    shared = [1, 2]
    for p in (0, 2, 4):
        write(f"shared_p{p}.pkl", pickle.dumps({"a": shared, "b": shared, "t": (shared, shared)}, protocol=p))

    selfref = [1]
    selfref.append(selfref)
    for p in (0, 4):
        write(f"self_ref_p{p}.pkl", pickle.dumps(selfref, protocol=p))

    write("torchair_cache.pkl", pickle.dumps(cache_module("torchair.inference._cache_compiler", "1.0.5"), protocol=4))
    write("npugraph_ex_cache.pkl",
          pickle.dumps(cache_module("npugraph_ex.inference._cache_compiler", "1.0.6"), protocol=4))
    write("torchair_cache_p2.pkl",
          pickle.dumps(cache_module("torchair.inference._cache_compiler", "1.0.5"), protocol=2))

    # The natural attack pickles os.system as posix.system (its __module__); the classic hand-written
    # one names os.system with protocol 0's GLOBAL.
    write("foreign_reduce.pkl", pickle.dumps(Evil(), protocol=4))
    write("foreign_os_system_p0.pkl", b"cos\nsystem\n(S'echo hi'\ntR.")

    write("objects_p4.pkl", pickle.dumps(
        {"ordered": collections.OrderedDict([("x", 1), ("y", 2)]), "slotted": Slotted(),
         "counter": collections.Counter("aab")}, protocol=4))
    write("memory_snapshot_like.pkl", pickle.dumps(memory_snapshot_like(), protocol=4))

    buffers = []
    write("out_of_band_p5.pkl", pickle.dumps(pickle.PickleBuffer(b"abc"), protocol=5,
                                             buffer_callback=buffers.append))
    # Two pickles back to back: the reader reads the first and warns about the rest.
    write("trailing_bytes.pkl", pickle.dumps([1], protocol=2) + pickle.dumps([2], protocol=2))


if __name__ == "__main__":
    main()
