#!/usr/bin/env python3
"""Writes the marshal fixtures of tests/engine/marshal_reader_test.cpp for the Python that runs it.

Standard library only. Run it once under every CPython the reader knows (3.8 to 3.13), e.g. with
pyenv:
    for v in 3.8.18 3.9.18 3.10.13 3.11.7 3.12.1 3.13.0; do
        ~/.pyenv/versions/$v/bin/python tests/data/marshal/make_marshal_fixtures.py
    done
For each case below it compiles the source (file name "model.py"), picks one code object and writes
    <case>.py3X.marshal   marshal.dumps(code), as TorchAir stores `compiled_fn` in its cache
    <case>.py3X.dis       dis.dis() of marshal.loads() of those bytes: the listing our disassembler
                          must print (addresses of code objects differ from run to run; the test
                          compares them as "0x...")
and, for all cases of that version, fields.py3X.json: what the code objects hold (names, qualname,
argument names, reprs of the constants, ...) and opcodes.py3X.txt: the interpreter's own opcode
table (name, argument, inline cache entries of every byte), against which the test checks ours.
Nothing is executed but the compiler: no function is called.
"""
import dis
import inspect
import io
import json
import marshal
import opcode
import os
import sys
import types

OUT = os.path.dirname(os.path.abspath(__file__))
TAG = "py%d%d" % sys.version_info[:2]

# What Dynamo writes back into a user's frame: a call of the compiled graph (a global named
# __compiled_fn_N) on the inputs, then the outputs picked out of the tuple it returns, and a
# resume function for the code after a graph break.
COMPILED_FN = """
class Model:
    def forward(self, x, y):
        __temp_2 = __compiled_fn_1(x, self.weight, y)
        out = __temp_2[0]
        if __temp_2[1] is not None:
            return out, __temp_2[1]
        return out
""" + "\n" * 1000 + """
def __resume_at_30_2(___stack0, self, x):
    return ___stack0 + self.linear(x)
"""

METHOD = """
class Block(Base):
    def call(self, a, b=2, /, c=3, *args, d, e=5.5, **kwargs):
        kwargs.setdefault("scale", e)
        r = super().call(a, b, c, *args, d=d, **kwargs)
        return self.proj(r, key=a.key, value=b)[c]
"""

# Cell and free variables, and the nested code objects of a closure, a comprehension (its own code
# object before 3.12), a generator expression and a lambda with a keyword-only default.
CLOSURE = """
def make_counter(start, step=1):
    total = start
    def bump(n=1):
        nonlocal total
        total += n * step
        return total
    odd = [x * step for x in range(start) if x % 2]
    return bump, (x + total for x in odd), lambda v, *, k=3: v[k]
"""

CONTROL = """
def control(items, path, limit=10):
    count = 0
    for i, item in enumerate(items):
        if i >= limit:
            break
        elif item is None:
            continue
        count += i
    try:
        with open(path) as f:
            data = f.read()[1:-1]
    except (OSError, ValueError) as e:
        raise RuntimeError(f"failed: {e!r:>10} {count}") from e
    assert count, "empty"
    return len(data) < count <= limit
"""

CONSTANTS = """
def constants(x):
    big = 1267650600228229401496703205376
    neg = -1606938044258990275541962092341162602522202993782792835301376
    floats = (0.1, -0.0, 1.5e300, 1e-07, 1e16, 123456789.125)
    cplx = (1 + 2j, -3j, 1.5j)
    raw = b"\\x00\\xff'\\"\\t"
    text = ("it's", 'say "hi"', "h\\xe9llo \\u65e5\\u672c", "tab\\there\\n", "")
    nested = ((1, (2, 3), "a"), (None,), (), ..., True, False)
    if x in {1, 2, 3}:
        return big, neg, floats, cplx, raw, text, nested
    return x not in frozenset({7}), 255, 256, -1, 2147483648, -9223372036854775809
"""

# Line numbers past 1000 (a wider line column), and a long jump: the attribute chain takes more
# than 255 code units after the inline caches of 3.11+ (LOAD_ATTR has 4, 3.12+ 9), so the jump over
# it needs EXTENDED_ARG. (Before 3.11 the same jump would need hundreds of instructions: the tests
# build such code by hand instead.)
ATTRS = 52 if sys.version_info[:2] == (3, 11) else 26
CHAIN = "\n" * 1200 + """
def chain(m, flag):
    if flag:
        return m.%s
    return m
""" % ".".join("a%d" % i for i in range(ATTRS))

CASES = {
    "compiled_fn": (COMPILED_FN, "forward"),
    "resume_fn": (COMPILED_FN, "__resume_at_30_2"),
    "method": (METHOD, "call"),
    "closure": (CLOSURE, "make_counter"),
    "control": (CONTROL, "control"),
    "constants": (CONSTANTS, "constants"),
    "chain": (CHAIN, "chain"),  # 3.11+ only: see CHAIN
}


def unmangle(code):
    """Dynamo writes `__compiled_fn_1` into a method's code as it is: undo the compiler's mangling
    of the names inside class Model (Dynamo, too, builds its code objects with CodeType)."""
    def fix(names):
        return tuple(n.replace("_Model__", "__") for n in names)

    return code.replace(co_names=fix(code.co_names), co_varnames=fix(code.co_varnames))


def find_code(code, name):
    if name is None or code.co_name == name:
        return code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            found = find_code(c, name)
            if found is not None:
                return found
    return None


def nested_codes(code):
    """The code objects inside `code`, in the order dis prints them."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c
            yield from nested_codes(c)


def argument_names(code):
    """The argument names as inspect.signature lists them, * and ** spelled."""
    cells = tuple(types.CellType() for _ in code.co_freevars)
    fn = types.FunctionType(code, {}, None, None, cells)  # never called
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            out.append("*" + p.name)
        elif p.kind == p.VAR_KEYWORD:
            out.append("**" + p.name)
        else:
            out.append(p.name)
    return out


def fields(code):
    out = {
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),
        "filename": code.co_filename,
        "firstlineno": code.co_firstlineno,
        "counts": [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_nlocals,
                   code.co_stacksize, code.co_flags],
        "names": list(code.co_names),
        "varnames": list(code.co_varnames),
        "cellvars": list(code.co_cellvars),
        "freevars": list(code.co_freevars),
        "arguments": argument_names(code) if code.co_flags & inspect.CO_NEWLOCALS else [],
        "consts": [repr(c) for c in code.co_consts],
    }
    return out


def opcode_table():
    """Every byte with a name: "byte name arg caches kinds", arg 1 when it takes an argument, kinds
    the lists of the opcode module it is in (c hasconst, n hasname, r hasjrel, a hasjabs, l haslocal,
    f hasfree, m hascompare; "-" for none)."""
    caches = getattr(opcode, "_inline_cache_entries", None)
    lists = [("c", opcode.hasconst), ("n", opcode.hasname), ("r", opcode.hasjrel), ("a", opcode.hasjabs),
             ("l", opcode.haslocal), ("f", opcode.hasfree), ("m", opcode.hascompare)]
    table = []
    for op in range(256):
        name = opcode.opname[op]
        if name.startswith("<"):
            continue
        has_arg = op in opcode.hasarg if hasattr(opcode, "hasarg") else op >= opcode.HAVE_ARGUMENT
        if caches is None:
            n = 0
        elif isinstance(caches, dict):
            n = caches.get(name, 0)
        else:
            n = caches[op]
        kinds = "".join(letter for letter, ops in lists if op in ops) or "-"
        table.append("%d %s %d %d %s" % (op, name, has_arg, n, kinds))
    return "\n".join(table) + "\n"


def main():
    all_fields = {}
    for case, (source, name) in CASES.items():
        if case == "chain" and sys.version_info < (3, 11):
            continue
        code = find_code(compile(source, "model.py", "exec"), name)
        if case == "compiled_fn":
            code = unmangle(code)
        data = marshal.dumps(code)
        with open(os.path.join(OUT, "%s.%s.marshal" % (case, TAG)), "wb") as f:
            f.write(data)
        listing = io.StringIO()
        dis.dis(marshal.loads(data), file=listing)
        with open(os.path.join(OUT, "%s.%s.dis" % (case, TAG)), "w", encoding="utf-8") as f:
            f.write(listing.getvalue())
        loaded = marshal.loads(data)
        nested = [{k: v for k, v in fields(c).items() if k in ("name", "qualname", "firstlineno", "arguments")}
                  for c in nested_codes(loaded)]
        all_fields[case] = [fields(loaded)] + nested
    with open(os.path.join(OUT, "fields.%s.json" % TAG), "w", encoding="utf-8") as f:
        json.dump(all_fields, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(OUT, "opcodes.%s.txt" % TAG), "w", encoding="utf-8") as f:
        f.write(opcode_table())


if __name__ == "__main__":
    main()
