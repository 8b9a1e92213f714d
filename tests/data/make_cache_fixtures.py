#!/usr/bin/env python3
"""Writes TorchAir compile-cache fixtures (`cache_compile`'s `compiled_module` files) under
tests/data/cache/, with manifest.json describing every file and what TorchAir's loader does with it.

Standard library only; torch / torchair are NOT needed (nor imported). Run from the repo root:

    python3 tests/data/make_cache_fixtures.py

It deletes everything under tests/data/cache/ except README.md and writes it again. Output is
deterministic for a given set of interpreters (fixed dates, sorted manifest, no randomness).

How the files match TorchAir (python/torchair/inference/_cache_compiler.py at fced884, 2026-06-01;
npugraph_ex/npugraph_ex/inference/_cache_compiler.py for npugraph_ex):
  * `compiled_module` = `pickle.dump(ModelCacheArtifact(meta, compiled_fn, compiled_fx), f)` with the
    default protocol of the writing Python. The three dataclasses are defined here and registered in
    sys.modules as `torchair.inference._cache_compiler` (or `npugraph_ex.inference._cache_compiler`),
    so pickle writes the very same STACK_GLOBAL/NEWOBJ/BUILD layout TorchAir writes.
  * `compiled_fn` = `marshal.dumps(code)` of a Dynamo-like transformed function. marshal is specific to
    the CPython minor version; pyversions/ has one file per interpreter found (this script re-runs
    itself with `--child` under each).
  * `compiled_fx.signature` = `_pretty_title('graph module')`, `print_readable(False)` of the AOT graph,
    `_pretty_title('inputs')`, one line per placeholder, `_pretty_title('compile options')`, the option
    list, joined with "\\n" (ModelCacheSaver.save_compiled_fx).
  * `compiled_fx.py_code` = the module AclConcreteGraph.codegen() writes (fx2acl_converter.py), rendered
    here from the same small graph description as the signature, so node names agree.
  * path = <cache_dir>/<Class>_<dynamic|static>_aclgraphcache_<md5(module repr + option string)>/
    [<dist dir>/]<func name>/compiled_module  (CompiledModel.get_cache_bin).

This file must stay parseable by Python 3.8 (it runs itself under every interpreter it finds).
"""
import dataclasses
import hashlib
import io
import json
import marshal
import os
import pickle
import pickletools
import shutil
import subprocess
import sys
import types
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cache")

TORCHAIR_MODULE = "torchair.inference._cache_compiler"
NPUGRAPH_EX_MODULE = "npugraph_ex.inference._cache_compiler"
VERSIONS = {"torchair": "1.0.5", "npugraph_ex": "1.0.6"}
CACHE_MODULES = {"torchair": TORCHAIR_MODULE, "npugraph_ex": NPUGRAPH_EX_MODULE}

# Option strings exactly as _get_str_options(config) builds them (torchair-behavior.md §5.1).
TORCHAIR_DEFAULT_OPTIONS = [
    ("ge.enableSingleStream", "false"), ("ge.oo.level", "O3"), ("ge.exportCompileStat", "2"),
    ("disable_mempool_reuse_in_same_fx", "0"), ("enable_output_clone", "0"), ("static_capture_size_limit", "64"),
    ("clone_input", "1"), ("run_eagerly", "0"), ("deadlock_check", "0"), ("remove_noop_ops", "1"),
    ("pattern_fusion_pass", "1"), ("frozen_parameter", "0"), ("mode", "reduce-overhead"),
]
# npugraph_ex keeps bools as bools: the option string shows True/False, the generated module writes
# them unquoted (`compile_configs["force_eager"] = False`) and other values quoted (`"64"`).
NPUGRAPH_EX_DEFAULT_OPTIONS = [
    ("force_eager", False), ("reuse_graph_pool_in_same_fx", True), ("clone_output", False),
    ("capture_limit", "64"), ("clone_input", True), ("deadlock_check", False), ("capture_error_mode", "global"),
    ("force_recapture", False), ("remove_noop_ops", True), ("pattern_fusion_pass", True),
    ("frozen_parameter", False),
]
# torchair's compile_configs (AclConcreteGraph.normalize_config) are the aclgraph options without the
# global ge.* options and without `mode`.
TORCHAIR_NOT_IN_COMPILE_CONFIGS = {"ge.enableSingleStream", "ge.oo.level", "ge.exportCompileStat", "mode"}

MODEL_REPR = ("Model(\n"
              "  (linear1): Linear(in_features=2, out_features=2, bias=True)\n"
              "  (linear2): Linear(in_features=2, out_features=2, bias=True)\n"
              ")")
LLAMA_REPR = ("LlamaDecoder(\n"
              "  (embed_tokens): Embedding(32, 16)\n"
              "  (input_layernorm): LlamaRMSNorm((16,), eps=1e-06)\n"
              "  (qkv_proj): Linear(in_features=16, out_features=24, bias=False)\n"
              "  (o_proj): Linear(in_features=8, out_features=16, bias=False)\n"
              ")")


def with_options(base, **changes):
    out = []
    for k, v in base:
        out.append((k, changes.pop(k, v)))
    if changes:
        raise KeyError(sorted(changes))
    return out


def option_string(options, sep=","):
    return sep.join("{}={}".format(k, v) for k, v in options)


# ---------------------------------------------------------------------------------------------------
# Writing one artifact. Used in-process and by `--child` under other interpreters: keep it 3.8-safe.
# ---------------------------------------------------------------------------------------------------

def cache_classes(module_name):
    """TorchAir's three dataclasses (plus CompiledModel, only for a broken case), registered as
    `module_name` so that pickle refers to them by that name."""
    if module_name in sys.modules and hasattr(sys.modules[module_name], "ModelCacheArtifact"):
        return sys.modules[module_name]
    mod = types.ModuleType(module_name)

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

    class CompiledModel:  # not a dataclass and not allowed by _StrictModelUnpickler
        def __init__(self, meta, compiled_fn, compiled_fx):
            self.meta = meta
            self.name = meta.name
            self.compiled_fn = compiled_fn
            self.compiled_fx = compiled_fx

    for cls in (ModelCacheMeta, CompiledFX, ModelCacheArtifact, CompiledModel):
        cls.__module__ = module_name
        cls.__qualname__ = cls.__name__
        setattr(mod, cls.__name__, cls)
    sys.modules[module_name] = mod
    parts = module_name.split(".")
    for i in range(1, len(parts)):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    return mod


def make_code(fn):
    """The Dynamo-like transformed code object: compiled from `fn["source"]`, then given the user's
    file name, first line and qualified name (code.replace), as Dynamo keeps them."""
    module_code = compile(fn["source"], fn["filename"], "exec")
    code = [c for c in module_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn["name"]][0]
    changes = {"co_firstlineno": fn["firstlineno"]}
    if sys.version_info >= (3, 11):
        changes["co_qualname"] = fn["qualname"]
    return code.replace(**changes)


def dis_text(code):
    import dis
    out = io.StringIO()
    dis.dis(code, file=out)
    return out.getvalue()


def build_artifact(spec):
    mod = cache_classes(spec["module"])
    meta = mod.ModelCacheMeta(spec["meta"]["name"], spec["meta"]["date"], spec["meta"]["version"])
    code = make_code(spec["fn"])
    compiled_fn = marshal.dumps(code)
    fx = spec.get("fx")
    compiled_fx = None
    if fx is not None:
        compiled_fx = mod.CompiledFX(fx["signature"], fx["py_code"],
                                     [(name, bool(is_param)) for name, is_param in fx["input_parameters"]])
    top = spec.get("top", "artifact")
    if top == "compiled_model":
        obj = mod.CompiledModel(meta, compiled_fn, compiled_fx)
    else:
        obj = mod.ModelCacheArtifact(meta, compiled_fn, compiled_fx)
    return obj, code, compiled_fn


def fn_info(code, compiled_fn):
    return {
        "co_name": code.co_name,
        "co_qualname": getattr(code, "co_qualname", None),
        "co_filename": code.co_filename,
        "co_firstlineno": code.co_firstlineno,
        "co_names": list(code.co_names),
        "co_varnames": list(code.co_varnames),
        "python": "{}.{}".format(*sys.version_info[:2]),
        "python_full": "{}.{}.{}".format(*sys.version_info[:3]),
        "marshal_version": marshal.version,
        "marshal_size": len(compiled_fn),
        "dis": dis_text(marshal.loads(compiled_fn)),
    }


def write_artifact(spec, path):
    """Exactly CompiledModel.save: pickle.dump(artifact, f) with the default protocol, chmod 600."""
    obj, code, compiled_fn = build_artifact(spec)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump(obj, f)
    os.chmod(path, 0o600)
    info = fn_info(code, compiled_fn)
    info["pickle_protocol"] = pickle.DEFAULT_PROTOCOL
    return info


def child_main(out_path):
    spec = json.load(sys.stdin)
    info = write_artifact(spec, out_path)
    # Check under this very interpreter that the file loads back with the strict rules.
    with open(out_path, "rb") as f:
        artifact = StrictUnpickler(f, spec["module"]).load()
    code = marshal.loads(artifact.compiled_fn)
    info["loads_back"] = (artifact.meta.version == spec["meta"]["version"]
                          and list(code.co_names) == info["co_names"])
    # What TorchAir's readable_cache() prints for this file under this interpreter (CompiledModel.readable):
    # the golden our `cache readable` is compared with.
    readable = "\n".join(["=" * 100, meta_repr(artifact.meta), str(artifact.compiled_fx.signature),
                          pretty_title("caller frame"), dis_text(code)])
    with open(os.path.join(os.path.dirname(out_path), "readable_cache.txt"), "w") as f:
        f.write(readable)
    sys.stdout.write(json.dumps(info, sort_keys=True))


class StrictUnpickler(pickle.Unpickler):
    """TorchAir's _StrictModelUnpickler.find_class: only the three dataclasses of one module."""

    def __init__(self, f, module_name):
        super().__init__(f)
        self.allowed = {module_name + "." + n for n in ("ModelCacheMeta", "CompiledFX", "ModelCacheArtifact")}
        cache_classes(module_name)

    def find_class(self, module, name):
        full_name = "{}.{}".format(module, name)
        if full_name not in self.allowed:
            raise pickle.UnpicklingError("Forbidden deserialize {}".format(full_name))
        cls = super().find_class(module, name)
        if not dataclasses.is_dataclass(cls):
            raise pickle.UnpicklingError("Forbidden non-dataclass {}".format(full_name))
        return cls


# ---------------------------------------------------------------------------------------------------
# A small FX graph description, rendered as print_readable(False) and as TorchAir's generated module.
# ---------------------------------------------------------------------------------------------------

class Ref:
    """A reference to a node in a graph description."""

    def __init__(self, name):
        self.name = name


class Raw:
    """Printed as written (dtypes: torch.float32)."""

    def __init__(self, text):
        self.text = text


DTYPES = {"f32": ("torch.float32", "f32"), "bf16": ("torch.bfloat16", "bf16"), "f16": ("torch.float16", "f16"),
          "i64": ("torch.int64", "i64")}


def dims_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def tuple_text(items):
    items = [str(i) for i in items]
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def contiguous_stride(shape):
    if any(not isinstance(d, int) for d in shape[1:]):
        raise ValueError("symbolic sizes only in dim 0 here")
    stride, acc = [], 1
    for d in reversed(shape):
        stride.append(acc)
        if isinstance(d, int):
            acc *= d
    return list(reversed(stride))


class Graph:
    """placeholders: dicts name, kind (param|buffer|user|sym), source (param/buffer), dtype, shape, sym.
    nodes: dicts name, target ('aten.t.default' or 'getitem'), args, kwargs, out (dtype, shape) or None,
    trace (the `# File:` summary) or None."""

    def __init__(self, placeholders, nodes, outputs, fx_graph_name):
        self.placeholders = placeholders
        self.nodes = nodes
        self.outputs = outputs
        self.fx_graph_name = fx_graph_name
        self.users = {}
        for n in nodes:
            for r in self.refs(n):
                self.users.setdefault(r, []).append(n["name"])
        for o in outputs:
            self.users.setdefault(o, []).append("output")
        # torch.fx codegen: delete values after their last use (reverse walk, args then kwargs)
        seen = set()
        self.last_uses = {}
        for user in ["output"] + [n["name"] for n in reversed(nodes)]:
            refs = list(outputs) if user == "output" else self.refs(self.node(user))
            for r in refs:
                if r not in seen:
                    seen.add(r)
                    self.last_uses.setdefault(user, []).append(r)

    def node(self, name):
        return [n for n in self.nodes if n["name"] == name][0]

    @staticmethod
    def refs(node):
        out = []

        def walk(a):
            if isinstance(a, Ref):
                out.append(a.name)
            elif isinstance(a, (list, tuple)):
                for x in a:
                    walk(x)
            elif isinstance(a, dict):
                for x in a.values():
                    walk(x)
        walk(node["args"])
        walk(node.get("kwargs", {}))
        return out

    @staticmethod
    def arg_text(a):
        if isinstance(a, Ref):
            return a.name
        if isinstance(a, Raw):
            return a.text
        if isinstance(a, list):
            return "[" + ", ".join(Graph.arg_text(x) for x in a) + "]"
        if isinstance(a, tuple):
            return tuple_text([Graph.arg_text(x) for x in a]) if a else "()"
        return repr(a)

    def statement(self, n, annotated):
        if n["target"] == "getitem":
            rhs = "{}[{}]".format(self.arg_text(n["args"][0]), self.arg_text(n["args"][1]))
        else:
            args = [self.arg_text(a) for a in n["args"]]
            args += ["{} = {}".format(k, self.arg_text(v)) for k, v in n.get("kwargs", {}).items()]
            rhs = "torch.ops.{}({})".format(n["target"], ", ".join(args))
        ann = ""
        if annotated and n.get("out") is not None:
            ann = ': "{}{}"'.format(DTYPES[n["out"][0]][1], dims_text(n["out"][1]))
        dead = list(self.last_uses.get(n["name"], []))
        if not self.users.get(n["name"]):
            dead.append(n["name"])
        tail = ";  " + " = ".join(dead + ["None"]) if dead else ""
        return "{}{} = {}{}".format(n["name"], ann, rhs, tail)

    def placeholder_annotation(self, p):
        if p["kind"] == "sym":
            return '"Sym({})"'.format(p["sym"])
        return '"{}{}"'.format(DTYPES[p["dtype"]][1], dims_text(p["shape"]))

    def return_text(self):
        return "return " + tuple_text(self.outputs)

    def print_readable(self):
        """GraphModule.print_readable(print_output=False): verbose python_code, class header, 4-space
        indent (torch.fx _addindent). Blank lines inside keep the indentation as trailing spaces and the
        text ends with a newline plus 8 spaces, as torch prints it."""
        body = []
        prev = None
        for n in self.nodes:
            summary = "# " + (n.get("trace") or "No stacktrace found for following nodes")
            if summary != prev:
                if prev is not None:
                    body.append("")
                body.append(summary)
                prev = summary
            body.append(self.statement(n, annotated=True))
        body.append(self.return_text())
        body.append("")
        params = ", ".join("{}: {}".format(p["name"], self.placeholder_annotation(p)) for p in self.placeholders)
        lines = ["class GraphModule(torch.nn.Module):", "    def forward(self, {}):".format(params)]
        lines += ["        " + line for line in body]
        return "\n".join(lines)

    def forward_code(self, backend):
        """_codegen_fx_forward: TorchAir's forward over the GraphModule's own (non-verbose) code: no
        annotations, no `# File:` comments, the same clean-up tails."""
        names = [p["name"] for p in self.placeholders]
        unpack = ", ".join(names) + ("," if len(names) == 1 else "")
        lines = ["def forward(*args, node_info=[], is_capturing: bool = False):", "    {} = args".format(unpack), ""]
        lines += ["    " + self.statement(n, annotated=False) for n in self.nodes]
        lines.append("    " + self.return_text())
        return lines

    # --- what AclConcreteGraph records ------------------------------------------------------------
    def parameter_user_inputs(self):
        return [i for i, p in enumerate(self.placeholders) if p["kind"] in ("param", "buffer")]

    def user_inputs(self):
        return [(p["name"], i) for i, p in enumerate(self.placeholders) if p["kind"] == "user"]

    def sym_inputs(self):
        return [(p["sym"], i) for i, p in enumerate(self.placeholders) if p["kind"] == "sym"]

    def unupdated_sym_input_index(self):
        syms = dict(self.sym_inputs())
        out = set()
        for i, p in enumerate(self.placeholders):
            if not self.users.get(p["name"]):
                continue
            if p["kind"] == "sym":
                out.add((i, True))
            else:
                for d in p["shape"]:
                    if isinstance(d, str):
                        out.add((syms[d], True) if d in syms else (i, False))
        return sorted(out)

    def mutated_user_inputs(self):
        names = {p["name"] for p in self.placeholders}
        out = []
        for n in self.nodes:
            op = n["target"].split(".")
            if n["target"] != "getitem" and op[-2].endswith("_") and isinstance(n["args"][0], Ref) \
                    and n["args"][0].name in names:
                out.append(n["args"][0].name)
        return out

    def tensor_placeholders(self):
        return [(i, p) for i, p in enumerate(self.placeholders) if p["kind"] != "sym"]


def fake_tensor_text(p):
    """str(example_inputs[i]) in the AOT fw compiler: FakeTensors print like TorchAir's own INFO log
    (`FakeTensor(..., device='npu:0', size=(64, 128))`); non-default dtypes add `dtype=...`; a SymInt
    prints as its symbol."""
    if p["kind"] == "sym":
        return p["sym"]
    text = "FakeTensor(..., device='npu:0', size={}".format(tuple_text(p["shape"]))
    if p["dtype"] != "f32":
        text += ", dtype={}".format(DTYPES[p["dtype"]][0])
    return text + ")"


def pretty_title(title, length=100):
    pad = max(0, length - len(title))
    return "-" * (pad // 2) + title + "-" * (pad - pad // 2)


def signature_text(graph, options):
    """ModelCacheSaver.save_compiled_fx."""
    input_parameters = [(p["source"], p["kind"] == "param")
                        for p in graph.placeholders if p["kind"] in ("param", "buffer")]
    arg_signatures = []
    for i, p in enumerate(graph.placeholders):
        example = fake_tensor_text(p)
        if i >= len(input_parameters):
            arg_signatures.append("{}:{} UserInput({})={}".format(i, p["name"], i - len(input_parameters), example))
        else:
            type_str = "Parameter" if input_parameters[i][1] else "Buffer"
            arg_signatures.append("{}:{} {}({})={}".format(i, p["name"], type_str, input_parameters[i][0], example))
    readable = [pretty_title("graph module"), graph.print_readable(), pretty_title("inputs")]
    readable += arg_signatures
    readable += [pretty_title("compile options"), option_string(options, sep="\n")]
    return "\n".join(readable), input_parameters


def compile_config_lines(backend, options):
    lines = ["compile_configs = {}"]
    for k, v in options:
        if backend == "torchair":
            if k in TORCHAIR_NOT_IN_COMPILE_CONFIGS:
                continue
            lines.append('compile_configs["{}"] = "{}"'.format(k, v))
        elif isinstance(v, bool):
            lines.append('compile_configs["{}"] = {}'.format(k, v))
        else:
            lines.append('compile_configs["{}"] = "{}"'.format(k, v))
    return lines


def ordered_dict_repr(items):
    # repr(OrderedDict) of Python <= 3.11 (3.12 prints OrderedDict({...})); the fixtures are made with 3.11.
    if not items:
        return "OrderedDict()"
    return "OrderedDict([" + ", ".join("({!r}, {})".format(k, v) for k, v in items) + "])"


def py_code_text(graph, backend, options):
    """AclConcreteGraph.codegen(): the exact line layout of torch._inductor's IndentedBuffer output,
    starting with an empty line and ending after main()'s return."""
    pkg = "torchair" if backend == "torchair" else "npugraph_ex"
    lines = [
        "",
        "import threading",
        "from collections import OrderedDict",
        "",
        "import torch",
        "from torch._dynamo.testing import rand_strided",
        "",
        "import torch_npu",
        "from {}._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo".format(pkg),
        "from {}._acl_concrete_graph.acl_graph_cache_utils import SerializableGraphModule".format(pkg),
        "from {}.ops._tagged_event import _npu_create_tagged_event".format(pkg),
        "",
        "assert_size_stride = torch._C._dynamo.guards.assert_size_stride",
        "",
        "from torch._dynamo.guards import _get_closure_vars",
        "globals().update(_get_closure_vars())",
        'globals().update({"nan": float("nan")})',
        "",
    ]
    lines += graph.forward_code(backend)
    lines += ["", ""]
    lines += compile_config_lines(backend, options)
    lines += ["", "acl_graph = AclGraph(fx_forward=forward, config=compile_configs)", ""]
    lines += [
        "aclgraph_cache_info = AclGraphCacheInfo(",
        "    pool=None,",
        "    stream=torch.npu.Stream(),",
        '    capture_error_mode="global",',
        "    num_warmup_iters=0,",
        '    fx_graph_name="{}",'.format(graph.fx_graph_name),
        "    user_inputs_mapping={},".format(ordered_dict_repr(graph.user_inputs())),
        "    unupdated_sym_input_index={},".format(graph.unupdated_sym_input_index()),
        "    updated_ops_param={},",
        "    ops_update_rulers={},",
        "    mutated_user_inputs={},".format(graph.mutated_user_inputs()),
        "    tagged_event_names=[],",
        "    parameter_user_inputs={},".format(graph.parameter_user_inputs()),
        "    user_stream_label=set(),",
        "    user_stream_info={},",
        "    userinput_ref_with_output={}",
        ")",
        "acl_graph.load(aclgraph_cache_info)",
        "",
        "",
        "_is_first_run = True",
        "def kernel(*args, **kwargs):",
        "",
        "    global _is_first_run",
        "    if _is_first_run:",
        "        _is_first_run = False",
        "",
    ]
    names = [p["name"] for p in graph.placeholders]
    syms = graph.sym_inputs()
    if syms:
        lines.append("        {} = args".format(", ".join(names) + ("," if len(names) == 1 else "")))
        for sym, idx in syms:
            lines.append("        {} = {}".format(sym, names[idx]))
    for i, p in graph.tensor_placeholders():
        lines.append("        assert_size_stride(args[{}], {}, {})".format(
            i, tuple_text(p["shape"]), tuple_text(contiguous_stride(p["shape"]))))
    lines.append("    return acl_graph(*args, **kwargs)")
    lines += ["", "def main():"]
    for sym, idx in syms:
        lines.append("    {} = {}".format(names[idx], 2 + idx))
        lines.append("    {} = {}".format(sym, names[idx]))
    for i, p in graph.tensor_placeholders():
        lines.append("    {} = rand_strided({},{},device ='npu:0',dtype ={})".format(
            p["name"], tuple_text(p["shape"]), tuple_text(contiguous_stride(p["shape"])), DTYPES[p["dtype"]][0]))
    lines.append("    return kernel({})".format(", ".join(names)))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------------

def ph(name, kind, dtype=None, shape=None, source=None, sym=None):
    return {"name": name, "kind": kind, "dtype": dtype, "shape": shape, "source": source, "sym": sym}


def nd(name, target, args, out, trace, kwargs=None):
    return {"name": name, "target": target, "args": args, "kwargs": kwargs or {}, "out": out, "trace": trace}


TEST_PY = "/home/workspace/test.py"


def model_prompt_graph(dynamic, fx_graph_name, batch):
    """Model.prompt -> self._forward(x): linear1, relu, linear2 (params lifted first by AOT)."""
    b = "s0" if dynamic else batch
    phs = [ph("arg0_1", "param", "f32", [2, 2], "linear1.weight"), ph("arg1_1", "param", "f32", [2], "linear1.bias"),
           ph("arg2_1", "param", "f32", [2, 2], "linear2.weight"), ph("arg3_1", "param", "f32", [2], "linear2.bias")]
    if dynamic:
        phs += [ph("arg4_1", "sym", sym="s0"), ph("arg5_1", "user", "f32", [b, 2])]
    else:
        phs += [ph("arg4_1", "user", "f32", [b, 2])]
    x = phs[-1]["name"]
    f1 = "File: {}:39 in _forward, code: h = self.linear1(x)".format(TEST_PY)
    f2 = "File: {}:40 in _forward, code: h = torch.relu(h)".format(TEST_PY)
    f3 = "File: {}:41 in _forward, code: return self.linear2(h)".format(TEST_PY)
    nodes = [
        nd("t", "aten.t.default", [Ref("arg0_1")], ("f32", [2, 2]), f1),
        nd("addmm", "aten.addmm.default", [Ref("arg1_1"), Ref(x), Ref("t")], ("f32", [b, 2]), f1),
        nd("relu", "aten.relu.default", [Ref("addmm")], ("f32", [b, 2]), f2),
        nd("t_1", "aten.t.default", [Ref("arg2_1")], ("f32", [2, 2]), f3),
        nd("addmm_1", "aten.addmm.default", [Ref("arg3_1"), Ref("relu"), Ref("t_1")], ("f32", [b, 2]), f3),
    ]
    return Graph(phs, nodes, ["addmm_1"], fx_graph_name)


def model_decode_graph(fx_graph_name):
    """Model.decode(x) -> self.linear2(x) + x with a batch of 1: dynamic=True still specialises size 1,
    so the graph is static and only linear2's parameters are lifted."""
    phs = [ph("arg0_1", "param", "f32", [2, 2], "linear2.weight"), ph("arg1_1", "param", "f32", [2], "linear2.bias"),
           ph("arg2_1", "user", "f32", [1, 2])]
    f = "File: {}:47 in decode, code: return self.linear2(x) + x".format(TEST_PY)
    nodes = [
        nd("t", "aten.t.default", [Ref("arg0_1")], ("f32", [2, 2]), f),
        nd("addmm", "aten.addmm.default", [Ref("arg1_1"), Ref("arg2_1"), Ref("t")], ("f32", [1, 2]), f),
        nd("add", "aten.add.Tensor", [Ref("addmm"), Ref("arg2_1")], ("f32", [1, 2]), f),
    ]
    return Graph(phs, nodes, ["add"], fx_graph_name)


LLAMA_PY = "/home/workspace/llama_decoder.py"


def llama_graph(tp_group_name):
    """LlamaDecoder.forward(input_ids, slot_mapping) on one rank of TP=2: embedding, RMSNorm in f32,
    fused qkv matmul, KV-cache write into two registered buffers (index_put + the copy_ epilogue AOT
    emits for a mutated input), o_proj, TP all_reduce, residual add."""
    phs = [
        ph("arg0_1", "param", "bf16", [32, 16], "embed_tokens.weight"),
        ph("arg1_1", "param", "bf16", [16], "input_layernorm.weight"),
        ph("arg2_1", "param", "bf16", [24, 16], "qkv_proj.weight"),
        ph("arg3_1", "param", "bf16", [16, 8], "o_proj.weight"),
        ph("arg4_1", "buffer", "bf16", [64, 8], "k_cache"),
        ph("arg5_1", "buffer", "bf16", [64, 8], "v_cache"),
        ph("arg6_1", "sym", sym="s0"),
        ph("arg7_1", "user", "i64", ["s0"]),
        ph("arg8_1", "user", "i64", ["s0"]),
    ]

    def f(line, code):
        return "File: {}:{} in forward, code: {}".format(LLAMA_PY, line, code)
    f_emb = f(52, "hidden = self.embed_tokens(input_ids)")
    f_norm = f(53, "h = self.input_layernorm(hidden)")
    f_qkv = f(54, "q, k, v = self.qkv_proj(h).split([8, 8, 8], dim=-1)")
    f_k = f(55, "self.k_cache[slot_mapping] = k")
    f_v = f(56, "self.v_cache[slot_mapping] = v")
    f_attn = f(57, "attn = q * v")
    f_o = f(58, "out = tensor_model_parallel_all_reduce(self.o_proj(attn))")
    f_res = f(59, "return out + hidden")
    s = "s0"
    nodes = [
        nd("embedding", "aten.embedding.default", [Ref("arg0_1"), Ref("arg7_1")], ("bf16", [s, 16]), f_emb),
        nd("_to_copy", "aten._to_copy.default", [Ref("embedding")], ("f32", [s, 16]), f_norm,
           kwargs={"dtype": Raw("torch.float32")}),
        nd("pow_1", "aten.pow.Tensor_Scalar", [Ref("_to_copy"), 2], ("f32", [s, 16]), f_norm),
        nd("mean", "aten.mean.dim", [Ref("pow_1"), [-1], True], ("f32", [s, 1]), f_norm),
        nd("add", "aten.add.Tensor", [Ref("mean"), 1e-06], ("f32", [s, 1]), f_norm),
        nd("rsqrt", "aten.rsqrt.default", [Ref("add")], ("f32", [s, 1]), f_norm),
        nd("mul", "aten.mul.Tensor", [Ref("_to_copy"), Ref("rsqrt")], ("f32", [s, 16]), f_norm),
        nd("_to_copy_1", "aten._to_copy.default", [Ref("mul")], ("bf16", [s, 16]), f_norm,
           kwargs={"dtype": Raw("torch.bfloat16")}),
        nd("mul_1", "aten.mul.Tensor", [Ref("arg1_1"), Ref("_to_copy_1")], ("bf16", [s, 16]), f_norm),
        nd("t", "aten.t.default", [Ref("arg2_1")], ("bf16", [16, 24]), f_qkv),
        nd("mm", "aten.mm.default", [Ref("mul_1"), Ref("t")], ("bf16", [s, 24]), f_qkv),
        nd("split_with_sizes", "aten.split_with_sizes.default", [Ref("mm"), [8, 8, 8], -1], None, f_qkv),
        nd("getitem", "getitem", [Ref("split_with_sizes"), 0], ("bf16", [s, 8]), f_qkv),
        nd("getitem_1", "getitem", [Ref("split_with_sizes"), 1], ("bf16", [s, 8]), f_qkv),
        nd("getitem_2", "getitem", [Ref("split_with_sizes"), 2], ("bf16", [s, 8]), f_qkv),
        nd("index_put", "aten.index_put.default", [Ref("arg4_1"), [Ref("arg8_1")], Ref("getitem_1")],
           ("bf16", [64, 8]), f_k),
        nd("index_put_1", "aten.index_put.default", [Ref("arg5_1"), [Ref("arg8_1")], Ref("getitem_2")],
           ("bf16", [64, 8]), f_v),
        nd("mul_2", "aten.mul.Tensor", [Ref("getitem"), Ref("getitem_2")], ("bf16", [s, 8]), f_attn),
        nd("t_1", "aten.t.default", [Ref("arg3_1")], ("bf16", [8, 16]), f_o),
        nd("mm_1", "aten.mm.default", [Ref("mul_2"), Ref("t_1")], ("bf16", [s, 16]), f_o),
        nd("all_reduce", "_c10d_functional.all_reduce.default", [Ref("mm_1"), "sum", tp_group_name],
           ("bf16", [s, 16]), f_o),
        nd("wait_tensor", "_c10d_functional.wait_tensor.default", [Ref("all_reduce")], ("bf16", [s, 16]), f_o),
        nd("add_1", "aten.add.Tensor", [Ref("wait_tensor"), Ref("embedding")], ("bf16", [s, 16]), f_res),
        nd("copy_", "aten.copy_.default", [Ref("arg4_1"), Ref("index_put")], ("bf16", [64, 8]), None),
        nd("copy__1", "aten.copy_.default", [Ref("arg5_1"), Ref("index_put_1")], ("bf16", [64, 8]), None),
    ]
    return Graph(phs, nodes, ["add_1"], "graph_1")


def fn_spec(name, qualname, params, body, filename, firstlineno):
    src = "def {}(self, {}):\n".format(name, ", ".join(params)) + "".join("    " + line + "\n" for line in body)
    return {"name": name, "qualname": qualname, "source": src, "filename": filename, "firstlineno": firstlineno}


def dynamo_fn(name, qualname, params, call_args, compiled_fn, filename, firstlineno):
    """What Dynamo's transformed bytecode does: call the compiled graph, return output 0."""
    body = ["graph_out_0 = {}({})".format(compiled_fn, ", ".join(call_args)), "return graph_out_0[0]"]
    return fn_spec(name, qualname, params, body, filename, firstlineno)


class Case:
    def __init__(self, rel_dir, backend, model_class, module_repr, options, dynamic, func, graph, fn, date,
                 dist=None, version=None, qual_params=None, module=None, fx=True, top="artifact"):
        self.rel_dir = rel_dir          # the cache_dir, relative to tests/data/cache
        self.backend = backend          # the writer: torchair | npugraph_ex
        self.model_class = model_class
        self.module_repr = module_repr
        self.options = options
        self.dynamic = dynamic
        self.func = func
        self.graph = graph
        self.fn = fn
        self.date = date
        self.dist = dist or {}
        self.version = version or VERSIONS[backend]
        self.qual_params = qual_params
        self.module = module or CACHE_MODULES[backend]
        self.fx = fx
        self.top = top

    @property
    def opts(self):
        return option_string(self.options)

    @property
    def md5(self):
        return hashlib.md5((self.module_repr + self.opts).encode()).hexdigest()

    @property
    def model_dir(self):
        return "_".join([self.model_class, "dynamic" if self.dynamic else "static", "aclgraphcache", self.md5])

    @property
    def dist_dir(self):
        parts = []
        if self.dist.get("world") is not None and self.dist["world"] > 1:
            parts.append("world{}global_rank{}".format(self.dist["world"], self.dist["global_rank"]))
        if self.dist.get("tp_rank") is not None:
            parts.append("tp_rank{}".format(self.dist["tp_rank"]))
        if self.dist.get("pp_rank") is not None:
            parts.append("pp_rank{}".format(self.dist["pp_rank"]))
        return "_".join(parts)

    @property
    def func_dir(self):
        return "/".join(p for p in [self.rel_dir, self.model_dir, self.dist_dir, self.func] if p)

    @property
    def path(self):
        return self.func_dir + "/compiled_module"

    @property
    def meta_name(self):
        return "{}.{}({})".format(self.model_class, self.func, ", ".join(self.qual_params))

    def spec(self):
        spec = {"module": self.module, "top": self.top, "fn": self.fn,
                "meta": {"name": self.meta_name, "date": self.date, "version": self.version}}
        if self.fx:
            signature, input_parameters = signature_text(self.graph, self.options)
            spec["fx"] = {"signature": signature, "py_code": py_code_text(self.graph, self.backend, self.options),
                          "input_parameters": input_parameters}
        return spec


def torchair_prompt(rel_dir, options=None, date="2026-06-01 12:00:00.123456+00:00", **kw):
    fn = dynamo_fn("prompt", "Model.prompt", ["x"], ["x.size()[0]", "x"], "__compiled_fn_1", TEST_PY, 43)
    return Case(rel_dir, "torchair", "Model", MODEL_REPR, options or TORCHAIR_DEFAULT_OPTIONS, True, "prompt",
                model_prompt_graph(True, "graph_1", None), fn, date, qual_params=["x"], **kw)


def good_cases():
    cases = []
    # 1. torchair: Model, dynamic, default reduce-overhead config: prompt and decode; prompt again with
    #    a non-default config (another md5 folder).
    cases.append(("torchair_default_prompt", torchair_prompt("torchair_cache")))
    fn = dynamo_fn("decode", "Model.decode", ["x"], ["x"], "__compiled_fn_3", TEST_PY, 46)
    cases.append(("torchair_default_decode", Case(
        "torchair_cache", "torchair", "Model", MODEL_REPR, TORCHAIR_DEFAULT_OPTIONS, True, "decode",
        model_decode_graph("graph_2"), fn, "2026-06-01 12:00:01.234567+00:00", qual_params=["x"])))
    nondefault = with_options(TORCHAIR_DEFAULT_OPTIONS, static_capture_size_limit="8", clone_input="0",
                              frozen_parameter="1")
    cases.append(("torchair_nondefault_prompt", torchair_prompt(
        "torchair_cache", nondefault, date="2026-06-01 12:05:00.345678+00:00")))

    # 2. npugraph_ex: Model, static, forward; default config and a non-default one.
    npx_py = "/home/workspace/npugraph_ex_model.py"
    for case_name, options, date in (
            ("npugraph_ex_default_forward", NPUGRAPH_EX_DEFAULT_OPTIONS, "2026-06-01 13:00:00.456789+00:00"),
            ("npugraph_ex_nondefault_forward",
             with_options(NPUGRAPH_EX_DEFAULT_OPTIONS, capture_limit="8", clone_input=False, frozen_parameter=True),
             "2026-06-01 13:05:00.567890+00:00")):
        graph = model_prompt_graph(False, "graph_1", 4)
        for n in graph.nodes:
            n["trace"] = n["trace"].replace(TEST_PY, npx_py)
        fn = dynamo_fn("forward", "Model.forward", ["x"], ["x"], "__compiled_fn_1", npx_py, 43)
        cases.append((case_name, Case("npugraph_ex_cache", "npugraph_ex", "Model", MODEL_REPR, options, False,
                                      "forward", graph, fn, date, qual_params=["x"])))

    # 3. multi-rank: LlamaDecoder, world 4 = TP 2 x PP 2. Same module repr and options on every rank,
    #    so one md5 folder with one dist folder per rank; the TP group name differs per PP stage.
    for pp in (0, 1):
        for tp in (0, 1):
            rank = pp * 2 + tp
            fn = dynamo_fn("forward", "LlamaDecoder.forward", ["input_ids", "slot_mapping"],
                           ["input_ids.size()[0]", "input_ids", "slot_mapping"], "__compiled_fn_1", LLAMA_PY, 50)
            cases.append(("multirank_rank{}".format(rank), Case(
                "multirank_cache", "torchair", "LlamaDecoder", LLAMA_REPR, TORCHAIR_DEFAULT_OPTIONS, True, "forward",
                llama_graph(str(1 + pp)), fn, "2026-06-01 14:00:0{}.10000{}+00:00".format(rank, rank),
                dist={"world": 4, "global_rank": rank, "tp_rank": tp, "pp_rank": pp},
                qual_params=["input_ids", "slot_mapping"])))
    return cases


# ---------------------------------------------------------------------------------------------------
# Writing the broken cases
# ---------------------------------------------------------------------------------------------------

class Evil:
    """What an attacker writes: unpickling it would call os.system("echo pwned"). Only ever pickled."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


class OsSystemPickler(pickle._Pickler):
    """os.system's __module__ is `posix` on Linux, so a plain pickle names `posix.system`. This pickler
    writes the `os.system` spelling (proto 4: SHORT_BINUNICODE 'os', 'system', STACK_GLOBAL)."""

    def save_global(self, obj, name=None):
        if obj is os.system:
            self.save("os")
            self.save("system")
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        super().save_global(obj, name)


def write_bytes(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)


# ---------------------------------------------------------------------------------------------------
# TorchAir's loader, mimicked (LazyCompiledModel.compile -> CompiledModel.load -> rebase, readable_cache)
# ---------------------------------------------------------------------------------------------------

PATH = "{path}"  # placeholder for the absolute path TorchAir would print


def meta_repr(meta):
    return "ModelCacheMeta(name={!r}, date={!r}, version={!r})".format(meta.name, meta.date, meta.version)


def torchair_load(abs_path, backend):
    """Returns {"ok": True} or {"ok": False, "exception", "message", "stage"}. Owner and mode checks
    (`File must be owned by the current user`, `Permissions must be 600`) are not simulated: git does
    not keep them."""
    real = os.path.realpath(abs_path)
    if not os.path.exists(real):
        return {"ok": False, "exception": "ValueError", "stage": "exists",
                "message": "Cache file {} is not exists".format(PATH), "torchair_action": "compile afresh"}
    expected_version = VERSIONS[backend]
    stage = "unpickle"
    try:
        with open(real, "rb") as f:
            artifact = StrictUnpickler(f, CACHE_MODULES[backend]).load()
        stage = "version"
        if artifact.meta.version != expected_version:
            raise ValueError("Version mismatch: {} != {}".format(artifact.meta.version, expected_version))
        stage = "marshal"
        code = marshal.loads(artifact.compiled_fn)
        stage = "recompile"
        if artifact.compiled_fx is None:
            raise RuntimeError("Recompile CompiledModel({}) not compiled yet is not supported yet".format(
                meta_repr(artifact.meta)))
        stage = "rebase"
        fn_names = [n for n in code.co_names if n.startswith("__compiled_fn")]
        if len(fn_names) != 1:
            raise ValueError("Expected 1 compiled function, found {}".format(fn_names))
        return {"ok": True}
    except Exception as e:  # what LazyCompiledModel.compile catches
        return {"ok": False, "exception": type(e).__name__, "message": str(e), "stage": stage,
                "torchair_action": "warning `Clear broken cache <path> as <message>`, delete the func folder, "
                                   "compile afresh"}


def torchair_readable(abs_path, backend):
    if not os.path.exists(abs_path):
        return {"ok": False, "exception": "ValueError", "message": "Cache file {} is not exists".format(PATH)}
    if os.path.islink(abs_path):
        return {"ok": False, "exception": "ValueError", "message": "Cache file {} can not be a symlink".format(PATH)}
    r = torchair_load(abs_path, backend)
    if not r["ok"] and r["stage"] not in ("recompile", "rebase"):
        return {k: r[k] for k in ("ok", "exception", "message")}
    with open(abs_path, "rb") as f:
        artifact = StrictUnpickler(f, CACHE_MODULES[backend]).load()
    if artifact.compiled_fx is None:  # readable() reads compiled_fx.signature
        return {"ok": False, "exception": "AttributeError",
                "message": "'NoneType' object has no attribute 'signature'"}
    return {"ok": True}


def static_globals(data):
    """The (module, name) pairs a pickle asks find_class for, in order, without unpickling it."""
    out, strings, memo = [], [], {}
    for op, arg, _pos in pickletools.genops(data):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
            strings.append(arg)
        elif op.name == "MEMOIZE":
            memo[len(memo)] = strings[-1] if strings else None
        elif op.name in ("BINGET", "LONG_BINGET"):
            strings.append(memo.get(arg))
        elif op.name == "STACK_GLOBAL":
            out.append((strings[-2], strings[-1]))
        elif op.name in ("GLOBAL", "INST"):
            out.append(tuple(arg.split(" ", 1)))
    return out


# The opcodes a TorchAir cache pickle may use (torchair-behavior.md §5.2).
EXPECTED_OPS = {"PROTO", "FRAME", "SHORT_BINUNICODE", "BINUNICODE", "MEMOIZE", "STACK_GLOBAL", "EMPTY_TUPLE",
                "NEWOBJ", "EMPTY_DICT", "MARK", "SETITEMS", "BUILD", "SHORT_BINBYTES", "BINBYTES", "EMPTY_LIST",
                "APPENDS", "APPEND", "TUPLE2", "NEWTRUE", "NEWFALSE", "BINGET", "STOP", "NONE"}


def check_layout(data, module):
    ops = [(op.name, arg) for op, arg, _ in pickletools.genops(data)]
    names = [o for o, _ in ops]
    head = [o for o in names if o != "MEMOIZE"][:12]
    want = ["PROTO", "FRAME", "SHORT_BINUNICODE", "SHORT_BINUNICODE", "STACK_GLOBAL", "EMPTY_TUPLE", "NEWOBJ",
            "EMPTY_DICT", "MARK"]
    assert head[:len(want)] == want, head
    assert ops[0][1] == 4 and ops[2][1] == module and ops[4][1] == "ModelCacheArtifact", ops[:5]
    assert names[-3:] == ["SETITEMS", "BUILD", "STOP"], names[-3:]
    assert set(names) <= EXPECTED_OPS, set(names) - EXPECTED_OPS
    assert names.count("STACK_GLOBAL") == 3, names.count("STACK_GLOBAL")


# ---------------------------------------------------------------------------------------------------
# Other interpreters
# ---------------------------------------------------------------------------------------------------

def find_interpreters():
    """One interpreter per CPython minor version >= 3.8: pyenv's, then python3.X on PATH."""
    candidates = []
    root = os.path.expanduser("~/.pyenv/versions")
    if os.path.isdir(root):
        for v in sorted(os.listdir(root)):
            candidates.append(os.path.join(root, v, "bin", "python"))
    for minor in range(8, 20):
        found = shutil.which("python3.{}".format(minor))
        if found:
            candidates.append(found)
    found, messages = {}, []
    for exe in candidates:
        if not os.path.exists(exe):
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode != 0:
            continue
        ver = out.stdout.decode().strip()
        major, minor = (int(x) for x in ver.split("."))
        if (major, minor) < (3, 8):
            if ver not in found:
                messages.append("skipping Python {} ({}): TorchAir needs Python >= 3.8".format(ver, exe))
                found[ver] = None
            continue
        found.setdefault(ver, exe)
    result = sorted(((v, e) for v, e in found.items() if e), key=lambda ve: tuple(int(x) for x in ve[0].split(".")))
    return result, messages


# ---------------------------------------------------------------------------------------------------

def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def describe_case(case):
    return {
        "writer_backend": case.backend,
        "model_class": case.model_class,
        "trace": "dynamic" if case.dynamic else "static",
        "md5": case.md5,
        "module_repr": case.module_repr,
        "options": case.opts,
        "model_dir": case.model_dir,
        "dist_dir": case.dist_dir,
        "dist": {k: case.dist.get(k) for k in ("world", "global_rank", "tp_rank", "pp_rank")},
        "func": case.func,
        "meta": {"name": case.meta_name, "date": case.date, "version": case.version},
    }


def describe_file(abs_path, module):
    """What is inside a file that pickle can read with the strict rules of `module`."""
    with open(abs_path, "rb") as f:
        data = f.read()
    info = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "pickle_protocol": data[1]}
    with open(abs_path, "rb") as f:
        artifact = StrictUnpickler(f, module).load()
    info["meta_repr"] = meta_repr(artifact.meta)
    if artifact.compiled_fx is not None:
        fx = artifact.compiled_fx
        info["input_parameters"] = [list(p) for p in fx.input_parameters]
        info["signature_sha256"] = hashlib.sha256(fx.signature.encode()).hexdigest()
        info["py_code_sha256"] = hashlib.sha256(fx.py_code.encode()).hexdigest()
    return info, artifact


def main():
    if os.path.isdir(OUT):
        for entry in sorted(os.listdir(OUT)):
            if entry == "README.md":
                continue
            p = os.path.join(OUT, entry)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.remove(p)
    os.makedirs(OUT, exist_ok=True)
    entries = []
    running = "{}.{}".format(*sys.version_info[:2])

    # --- the good caches -------------------------------------------------------------------------
    cases = good_cases()
    default_prompt = cases[0][1]
    for name, case in cases:
        abs_path = os.path.join(OUT, case.path)
        info = write_artifact(case.spec(), abs_path)
        with open(abs_path, "rb") as f:
            check_layout(f.read(), case.module)
        entry = {"case": name, "path": case.path, "kind": "good", "loader": case.backend}
        entry.update(describe_case(case))
        file_info, artifact = describe_file(abs_path, case.module)
        entry.update(file_info)
        entry["compiled_fn"] = info
        entry["fx_graph_name"] = case.graph.fx_graph_name
        entry["load"] = torchair_load(abs_path, case.backend)
        entry["readable_cache"] = torchair_readable(abs_path, case.backend)
        assert entry["load"]["ok"] and entry["readable_cache"]["ok"], (name, entry["load"])
        assert artifact.compiled_fx.signature == case.spec()["fx"]["signature"]
        entries.append(entry)

    # --- pyversions: the default prompt cache written by every interpreter found ---------------------
    interpreters, messages = find_interpreters()
    for m in messages:
        print(m)
    spec = default_prompt.spec()
    for ver, exe in interpreters:
        rel = "pyversions/py{}/compiled_module".format(ver.replace(".", ""))
        abs_path = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(abs_path), exist_ok=True)
        proc = subprocess.run([exe, os.path.abspath(__file__), "--child", abs_path],
                              input=json.dumps(spec).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            print("skipping Python {} ({}): {}".format(ver, exe, proc.stderr.decode().strip().splitlines()[-1:]))
            continue
        info = json.loads(proc.stdout.decode())
        assert info.pop("loads_back"), ver
        entry = {"case": "pyversion_py{}".format(ver.replace(".", "")), "path": rel, "kind": "pyversion",
                 "loader": "torchair"}
        entry.update(describe_case(default_prompt))
        file_info, _ = describe_file(abs_path, TORCHAIR_MODULE)
        entry.update(file_info)
        entry["compiled_fn"] = info
        entry["fx_graph_name"] = default_prompt.graph.fx_graph_name
        entry["note"] = ("compiled_fn is marshal data of CPython {}; TorchAir's marshal.loads under another minor "
                         "version fails or yields a code object that does not run".format(ver))
        if ver == running:
            entry["load"] = torchair_load(abs_path, "torchair")
            assert entry["load"]["ok"]
        else:
            entry["load"] = {"ok": True, "note": "checked by the child process under Python {}".format(ver)}
        entries.append(entry)
        print("pyversions: Python {} ({}) -> {}".format(ver, exe, rel))

    # --- broken caches ---------------------------------------------------------------------------
    def broken_case(case_dir, **kw):
        return torchair_prompt("broken/" + case_dir, **kw)

    broken = []  # (name, case or None, abs path, expected load message, extra)

    good_bytes = open(os.path.join(OUT, default_prompt.path), "rb").read()

    c = broken_case("truncated")
    write_bytes(os.path.join(OUT, c.path), good_bytes[:len(good_bytes) // 2])
    broken.append(("truncated", c, None,
                   "pickle cut after {} of {} bytes".format(len(good_bytes) // 2, len(good_bytes))))

    c = broken_case("wrong_version", version="1.0.4")
    write_artifact(c.spec(), os.path.join(OUT, c.path))
    broken.append(("wrong_version", c, "Version mismatch: 1.0.4 != 1.0.5", "meta.version 1.0.4"))

    c = broken_case("foreign_class")
    obj, _code, _fn = build_artifact(c.spec())
    obj.compiled_fx = Evil()
    buf = io.BytesIO()
    OsSystemPickler(buf, protocol=4).dump(obj)
    write_bytes(os.path.join(OUT, c.path), buf.getvalue())
    broken.append(("foreign_class", c, "Forbidden deserialize os.system",
                   "compiled_fx is an object whose __reduce__ names os.system (REDUCE); never unpickled here"))

    c = broken_case("non_allowed_class_in_module", top="compiled_model")
    write_artifact(c.spec(), os.path.join(OUT, c.path))
    broken.append(("non_allowed_class_in_module", c,
                   "Forbidden deserialize torchair.inference._cache_compiler.CompiledModel",
                   "top object is a (non-dataclass) torchair.inference._cache_compiler.CompiledModel"))

    # An npugraph_ex 1.0.6 file placed in the torchair folder of Model.prompt (as if copied there).
    c = broken_case("npugraph_ex_in_torchair_dir")
    npx = Case(c.rel_dir, "npugraph_ex", "Model", MODEL_REPR, NPUGRAPH_EX_DEFAULT_OPTIONS, True, "prompt",
               model_prompt_graph(True, "graph_1", None), c.fn, c.date, qual_params=["x"])
    write_artifact(npx.spec(), os.path.join(OUT, c.path))
    broken.append(("npugraph_ex_in_torchair_dir", c,
                   "Forbidden deserialize npugraph_ex.inference._cache_compiler.ModelCacheArtifact",
                   "an npugraph_ex 1.0.6 artifact in a torchair cache folder; npugraph_ex's own loader reads it"))

    c = broken_case("no_compiled_fx", fx=False)
    write_artifact(c.spec(), os.path.join(OUT, c.path))
    broken.append(("no_compiled_fx", c,
                   "Recompile CompiledModel(ModelCacheMeta(name='Model.prompt(x)', date='{}', version='1.0.5')) "
                   "not compiled yet is not supported yet".format(c.date), "compiled_fx=None"))

    c = broken_case("two_compiled_fns")
    c.fn = fn_spec("prompt", "Model.prompt", ["x"],
                   ["graph_out_0 = __compiled_fn_1(x.size()[0], x)", "graph_out_1 = __compiled_fn_3(graph_out_0[0])",
                    "return graph_out_1[0]"], TEST_PY, 43)
    write_artifact(c.spec(), os.path.join(OUT, c.path))
    broken.append(("two_compiled_fns", c, "Expected 1 compiled function, found ['__compiled_fn_1', '__compiled_fn_3']",
                   "compiled_fn's co_names holds two __compiled_fn names"))

    c = broken_case("symlink")
    target_rel = "broken/symlink/target_compiled_module"
    write_bytes(os.path.join(OUT, target_rel), good_bytes)
    link = os.path.join(OUT, c.path)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink(os.path.relpath(os.path.join(OUT, target_rel), os.path.dirname(link)), link)
    broken.append(("symlink", c, None, "relative symlink to ../../target_compiled_module (a good torchair file)"))

    # Text where a pickle should be: what readable_cache(..., file=<this path>) would have written over
    # the cache (its "# "-prefixed report, then py_code).
    c = broken_case("not_a_pickle")
    spec = default_prompt.spec()
    report = ["=" * 100, "ModelCacheMeta(name={!r}, date={!r}, version={!r})".format(
        spec["meta"]["name"], spec["meta"]["date"], spec["meta"]["version"]), spec["fx"]["signature"],
        pretty_title("caller frame"), dis_text(make_code(spec["fn"]))]
    text = "\n".join("# " + line for line in "\n".join(report).split("\n")) + "\n" + spec["fx"]["py_code"]
    write_bytes(os.path.join(OUT, c.path), text.encode())
    broken.append(("not_a_pickle", c, "invalid load key, '#'.",
                   "text: a readable_cache(file=...) report written over the cache file"))

    c = broken_case("empty_func_folder")
    keep = os.path.join(OUT, c.func_dir, ".gitkeep")
    os.makedirs(os.path.dirname(keep), exist_ok=True)
    open(keep, "wb").close()
    broken.append(("empty_func_folder", c, None, "func folder without compiled_module (.gitkeep keeps it in git)"))

    for name, case, expected, what in broken:
        abs_path = os.path.join(OUT, case.path)
        entry = {"case": "broken_" + name, "path": case.path, "kind": "broken", "loader": "torchair",
                 "what": what}
        entry.update(describe_case(case))
        entry["is_symlink"] = os.path.islink(abs_path)
        if name == "symlink":
            entry["symlink_target"] = os.readlink(abs_path)
        present = os.path.exists(abs_path)
        entry["compiled_module_present"] = present
        if present:
            with open(abs_path, "rb") as f:
                data = f.read()
            entry["size"] = len(data)
            entry["sha256"] = hashlib.sha256(data).hexdigest()
        if name == "foreign_class":
            # Never unpickled: the strict find_class would refuse the first global it is not allowed.
            allowed = {TORCHAIR_MODULE + "." + n for n in ("ModelCacheMeta", "CompiledFX", "ModelCacheArtifact")}
            globs = static_globals(data)
            first_bad = [m + "." + n for m, n in globs if m + "." + n not in allowed][0]
            assert "REDUCE" in [op.name for op, _a, _p in pickletools.genops(data)]
            entry["globals"] = [m + "." + n for m, n in globs]
            entry["load"] = {"ok": False, "exception": "UnpicklingError", "stage": "unpickle",
                             "message": "Forbidden deserialize {}".format(first_bad),
                             "torchair_action": "warning `Clear broken cache <path> as <message>`, delete the func "
                                                "folder, compile afresh"}
            entry["readable_cache"] = {k: entry["load"][k] for k in ("ok", "exception", "message")}
        else:
            entry["load"] = torchair_load(abs_path, "torchair")
            entry["readable_cache"] = torchair_readable(abs_path, "torchair")
            if present and name in ("wrong_version", "non_allowed_class_in_module", "npugraph_ex_in_torchair_dir",
                                    "no_compiled_fx", "two_compiled_fns", "symlink"):
                entry["globals"] = [m + "." + n for m, n in static_globals(data)]
            if name not in ("not_a_pickle", "truncated", "non_allowed_class_in_module", "npugraph_ex_in_torchair_dir") \
                    and present:
                with open(abs_path, "rb") as f:
                    art = StrictUnpickler(f, TORCHAIR_MODULE).load()
                entry["meta_repr"] = meta_repr(art.meta)
                entry["compiled_fn"] = fn_info(marshal.loads(art.compiled_fn), art.compiled_fn)
        if expected is not None:
            assert entry["load"]["message"] == expected, (name, entry["load"])
        if name == "symlink":
            assert entry["load"]["ok"]
            entry["load"]["note"] = ("get_cache_bin returns realpath(), so TorchAir loads the target; a later "
                                     "'Clear broken cache' would delete the target's folder")
        if name == "empty_func_folder":
            entry["load"] = {"ok": False, "stage": "exists", "exception": None, "message": None,
                             "torchair_action": "no cache file: log `Compiling cache for <func> to <path>` and "
                                                "compile afresh (no error)"}
        if name in ("truncated", "not_a_pickle"):
            assert not entry["load"]["ok"] and entry["load"]["stage"] == "unpickle", entry["load"]
        entries.append(entry)

    entries.sort(key=lambda e: e["path"])
    manifest = {
        "generator": "tests/data/make_cache_fixtures.py",
        "generated_with_python": "{}.{}.{}".format(*sys.version_info[:3]),
        "torchair_version": VERSIONS["torchair"],
        "npugraph_ex_version": VERSIONS["npugraph_ex"],
        "path_placeholder": PATH,
        "note": ("paths are relative to tests/data/cache; messages are str(exception) as TorchAir's loader "
                 "raises them, with {path} for the absolute path it prints. File modes (600) and owners are not "
                 "kept by git: copy the files and chmod 600 before checking owner/permission rules."),
        "files": entries,
    }
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = 0
    for root, _dirs, files in os.walk(OUT):
        for fn in files:
            p = os.path.join(root, fn)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    print("wrote {} entries, {} bytes under {}".format(len(entries), total, os.path.relpath(OUT)))


def child_verify(path, module):
    """Under the interpreter that wrote `path`: strict load, marshal.loads, dis."""
    with open(path, "rb") as f:
        artifact = StrictUnpickler(f, module).load()
    code = marshal.loads(artifact.compiled_fn)
    sys.stdout.write(json.dumps({"co_names": list(code.co_names), "dis": dis_text(code)}, sort_keys=True))


def comparable(result):
    return {k: result.get(k) for k in ("ok", "exception", "message")}


def verify_main():
    """Checks the files on disk against manifest.json without rewriting anything."""
    with open(os.path.join(OUT, "manifest.json")) as f:
        manifest = json.load(f)
    problems = []
    listed = set()
    interpreters = dict(find_interpreters()[0])
    running = "{}.{}".format(*sys.version_info[:2])
    for e in manifest["files"]:
        abs_path = os.path.join(OUT, e["path"])
        listed.add(e["path"])
        if os.path.islink(abs_path) != e.get("is_symlink", False):
            problems.append("{}: symlink-ness differs".format(e["path"]))
        if e.get("compiled_module_present", True):
            if not os.path.exists(abs_path):
                problems.append("{}: missing".format(e["path"]))
                continue
            if sha256(abs_path) != e["sha256"]:
                problems.append("{}: sha256 differs".format(e["path"]))
        elif os.path.exists(abs_path):
            problems.append("{}: should not exist".format(e["path"]))
        if e["case"] == "broken_foreign_class":  # never unpickled
            with open(abs_path, "rb") as f:
                globs = static_globals(f.read())
            if "Forbidden deserialize {}.{}".format(*globs[-1]) != e["load"]["message"]:
                problems.append("{}: its last global is {}".format(e["path"], globs[-1]))
            continue
        if e["kind"] == "pyversion":
            ver = e["compiled_fn"]["python"]
            exe = interpreters.get(ver)
            if exe is None:
                print("cannot check {}: no Python {} here".format(e["path"], ver))
                continue
            proc = subprocess.run([exe, os.path.abspath(__file__), "--child-verify", abs_path, TORCHAIR_MODULE],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            got = json.loads(proc.stdout.decode()) if proc.returncode == 0 else {}
            if got.get("dis") != e["compiled_fn"]["dis"] or got.get("co_names") != e["compiled_fn"]["co_names"]:
                problems.append("{}: marshal/dis under Python {} differs: {}".format(
                    e["path"], ver, proc.stderr.decode()[-300:]))
            if ver != running:
                continue
        if e.get("compiled_module_present", True):
            got = torchair_load(abs_path, e["loader"])
            if comparable(got) != comparable(e["load"]):
                problems.append("{}: load gives {}, manifest says {}".format(e["path"], got, e["load"]))
            if e.get("readable_cache") is not None:
                got = torchair_readable(abs_path, e["loader"])
                if comparable(got) != comparable(e["readable_cache"]):
                    problems.append("{}: readable_cache gives {}".format(e["path"], got))
            if e["load"]["ok"] and e.get("compiled_fn", {}).get("python") == running:
                with open(abs_path, "rb") as f:
                    art = StrictUnpickler(f, CACHE_MODULES[e["loader"]]).load()
                if dis_text(marshal.loads(art.compiled_fn)) != e["compiled_fn"]["dis"]:
                    problems.append("{}: dis differs".format(e["path"]))
    for root, _dirs, files in os.walk(OUT):
        for fn in files:
            rel = os.path.relpath(os.path.join(root, fn), OUT).replace(os.sep, "/")
            if fn == "compiled_module" and rel not in listed:
                problems.append("{}: not in manifest".format(rel))
    for p in problems:
        print("PROBLEM:", p)
    print("verified {} manifest entries: {}".format(len(manifest["files"]), "FAILED" if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child_main(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "--child-verify":
        child_verify(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "--verify":
        sys.exit(verify_main())
    else:
        main()
