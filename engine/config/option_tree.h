#pragma once
/// Internal to engine/config: TorchAir's config tree model and value validation, shared by
/// option_tree.cpp (the data and the checks) and options.cpp (parsing and normalisation).
/// Not part of the engine's interface; include options.h instead.
#include "engine/config/options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace engine::config::detail {

/// Short constructors and int tests for PyValue, as TorchAir's config code writes the values.
inline const auto B = [](bool v) { return PyValue::boolean(v); };
inline const auto S = [](const char* v) { return PyValue::str(v); };
inline const auto I = [](int64_t v) { return PyValue::integer(v); };
inline const auto isPyInt
    = [](const PyValue& v) { return v.kind == PyValue::Kind::Int || v.kind == PyValue::Kind::Bool; };
inline const auto asInt = [](const PyValue& v) { return v.kind == PyValue::Kind::Bool ? int64_t(v.b) : v.i; };

/// How an OptionValue subclass validates a value (TC/_option_base.py).
enum class CheckKind { Choice, IntRange, IntList, Str, Dict, Callable, DirPath, FilePath, JsonFile, Regex, Any };

struct Check {
    CheckKind kind;
    PyValue def;
    std::vector<PyValue> choices;
    int64_t min;
    int64_t max;
    const char* regex; ///< Python's pattern, for the message
    bool (*matches)(const std::string&); ///< hand-written: <regex> trips -Wmaybe-uninitialized in GCC 12
    const char* example;
};

/// Leaf: an OptionValue (validated, in _fixed_attrs). Node: an NpuBaseConfig child (in _fixed_attrs).
/// Plain: a plain attribute, settable only if the class appends it to _fixed_attrs. PlainNode: a plain
/// object reachable with getattr but not itself settable (aclgraph_config, npugraphex_config).
enum class AttrKind { Leaf, Node, Plain, PlainNode };

struct Attr {
    std::string name;
    AttrKind kind;
    Check check;
};

struct Node {
    std::string path;
    std::string className;
    bool validates; ///< false for classes without _fixed_attrs: every assignment is accepted as is
    std::vector<Attr> attrs; ///< in __dict__ order
    std::vector<std::string> appended; ///< names appended to _fixed_attrs after super().__init__()
};

/// npugraph_ex's flat CompilerConfig (NC/compiler_config.py).
const Node& npugraphExConfig();

/// The node of torchair's CompilerConfig tree at a dotted path ("" is the root), or nullptr.
const Node* findNode(const std::string& path);
/// The attribute `name` of `n`, or nullptr.
const Attr* findAttr(const Node& n, const std::string& name);
/// `n`'s `_fixed_attrs`: its Leaf and Node attributes in __dict__ order, then the appended names.
std::vector<std::string> fixedAttrs(const Node& n);

/// Default of a torchair dotted path (None for plain attributes and unknown paths).
PyValue torchairDefault(const std::string& path);
/// Default of an npugraph_ex option (None for plain attributes and unknown names).
PyValue npugraphExDefault(const std::string& name);

/// The exact exception text of TorchAir's OptionValue setters, or nothing when the value passes.
/// Path and file checks stop at the type: the simulated run does not happen on the user's machine.
std::optional<std::string> validate(const Check& c, const PyValue& v);

/// One row of the option table in reference §1.2 (the source of `optionTable()`).
struct Row {
    const char* torchair;
    const char* npugraphEx;
    const char* type;
    bool inverted;
    bool inCacheKey;
    bool acceptedByTorchairOptions;
    const char* effect;
};

/// The §1.2 row whose npugraph_ex name is `name`, or nullptr.
const Row* rowByNpugraphExName(const std::string& name);

/// The sorted ALLOWED_OPTIONS of torchair's options= mapper, printed as Python prints a sorted list.
const std::string& torchairMapperAllowed();

} // namespace engine::config::detail
