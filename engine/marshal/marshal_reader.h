#pragma once
/// A safe, static reader of CPython `marshal` data (the `compiled_fn` bytes of a TorchAir compile
/// cache are `marshal.dumps(code)`): it decodes the value tree, code objects included, and never
/// executes anything. Code-object layouts of CPython 3.8 to 3.13 are known; marshal data carries no
/// version, so the layout is recognised from the data itself (3.8-3.10 vs 3.11+), and the bytecode
/// version is guessed by the disassembler (disassembler.h).
///
/// Hostile input gets an Error naming the file and the byte offset, never a crash, a hang or
/// unbounded memory: `compiled_fn: offset 57: truncated TYPE_SHORT_ASCII (needs 12 bytes, 3 left)`.
#include "engine/core/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine::marshal {

constexpr uint32_t kNone = UINT32_MAX; ///< "no value" for ids

/// A CPython version (3.minor).
struct PyVersion {
    int major = 3;
    int minor = 11;
    bool operator==(const PyVersion& o) const { return major == o.major && minor == o.minor; }
    bool operator!=(const PyVersion& o) const { return !(*this == o); }
    bool operator<(const PyVersion& o) const { return major != o.major ? major < o.major : minor < o.minor; }
    std::string text() const; ///< "3.11"
};
/// The versions whose code objects and opcode tables we know, oldest first: 3.8 ... 3.13.
const std::vector<PyVersion>& supportedVersions();
/// Parses "3.10" (also "310", "py310"); false for anything unsupported.
bool parseVersion(std::string_view text, PyVersion& out);

enum class Kind : uint8_t {
    Null, ///< TYPE_NULL (only inside dicts as their end; never a value users see)
    None,
    Bool,
    StopIteration,
    Ellipsis,
    Int, ///< fits in int64 (TYPE_INT, or a TYPE_LONG that fits)
    BigInt, ///< longer TYPE_LONG: `text` holds its decimal digits with sign
    Float,
    Complex,
    Str, ///< UTF-8 in `text` (lone surrogates kept as 'surrogatepass' writes them)
    Bytes, ///< raw bytes in `text`
    Tuple,
    List,
    Dict, ///< items: key, value, key, value, ...
    Set,
    FrozenSet,
    Code, ///< `code` is an index into Document::codes
};

struct Value {
    Kind kind = Kind::None;
    int64_t integer = 0; ///< Int, Bool
    double real = 0; ///< Float, Complex
    double imag = 0; ///< Complex
    std::string text; ///< Str, Bytes, BigInt
    std::vector<uint32_t> items; ///< containers: value ids
    uint32_t code = kNone; ///< Code: index into Document::codes
};

/// Which code-object layout the data has.
enum class CodeLayout : uint8_t {
    Py38, ///< 3.8-3.10: argcount, posonlyargcount, kwonlyargcount, nlocals, stacksize, flags, code,
          ///< consts, names, varnames, freevars, cellvars, filename, name, firstlineno, lnotab
    Py311, ///< 3.11-3.13: argcount, posonlyargcount, kwonlyargcount, stacksize, flags, code, consts,
           ///< names, localsplusnames, localspluskinds, filename, name, qualname, firstlineno,
           ///< linetable, exceptiontable
};

/// One code object, flattened for display.
struct Code {
    CodeLayout layout = CodeLayout::Py311;
    int argCount = 0;
    int posOnlyArgCount = 0;
    int kwOnlyArgCount = 0;
    int nLocals = 0; ///< Py38: co_nlocals; Py311: the number of local (not cell/free) names
    int stackSize = 0;
    uint32_t flags = 0; ///< co_flags
    int firstLineNo = 0;
    std::string name; ///< co_name
    std::string qualname; ///< co_qualname (Py311); Py38: equal to name
    std::string filename; ///< co_filename
    std::vector<uint32_t> consts; ///< value ids
    std::vector<std::string> names; ///< co_names
    std::vector<std::string> varNames; ///< co_varnames (arguments first)
    std::vector<std::string> cellVars;
    std::vector<std::string> freeVars;
    /// Py311: co_localsplusnames / co_localspluskinds as stored (the disassembler indexes these).
    std::vector<std::string> localsPlusNames;
    std::string localsPlusKinds;
    std::string bytecode; ///< co_code
    std::string lineTable; ///< co_lnotab (3.8/3.9), co_linetable (3.10+)
    std::string exceptionTable; ///< Py311 only
    std::vector<uint32_t> nested; ///< indices into Document::codes of the code objects in consts
    uint64_t offset = 0; ///< byte offset of the code object in the input

    /// Argument names, in order: positional (posonly first), then *args, keyword-only, **kwargs,
    /// as `inspect` lists them ("*args" / "**kwargs" spelled with their stars).
    std::vector<std::string> argumentNames() const;
};

struct Limits {
    uint64_t maxBytes = uint64_t(256) << 20; ///< input size
    uint32_t maxDepth = 2000; ///< nesting (CPython's MAX_MARSHAL_STACK_DEPTH is 2000)
    uint64_t maxValues = uint64_t(1) << 24;
    uint64_t maxRefs = uint64_t(1) << 24; ///< FLAG_REF entries
    /// Decimal digits of a TYPE_LONG (Python's default int_max_str_digits: 3.11+ refuses to print
    /// longer ints); a longer one is an error, and the conversion stays cheap.
    uint32_t maxIntDigits = 4300;
};

struct Document {
    std::vector<Value> values;
    std::vector<Code> codes;
    uint32_t root = kNone; ///< value id of the top value
    CodeLayout layout = CodeLayout::Py311; ///< of the code objects (all share one)
    bool hasCode = false;
    std::vector<std::string> warnings; ///< recoverable oddities ("12 bytes after the value"), with offsets

    const Value& at(uint32_t id) const { return values[id]; }
    /// The root's code object when the root is a Code value, else nullptr.
    const Code* rootCode() const;
};

/// Reads one marshalled value from `bytes`; `path` names the input in errors and warnings.
Result<Document> readMarshal(std::string_view bytes, const std::string& path, const Limits& limits = {});

/// Reads a file with readMarshal (an Io error when it cannot be read or is larger than maxBytes).
Result<Document> readMarshalFile(const std::string& path, const Limits& limits = {});

/// Python's repr() of a value, at most about `maxChars` characters ("..." marks a cut); a code
/// object prints as dis does: `<code object NAME at 0x..., file "FILE", line N>` (the address is a
/// stable fake derived from its offset).
std::string repr(const Document& doc, uint32_t id, size_t maxChars = 4096);

} // namespace engine::marshal
