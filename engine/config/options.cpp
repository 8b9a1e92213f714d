#include "engine/config/options.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string_view>

/// The data below mirrors TorchAir's config classes (reference §1.1-1.2, TC/*.py and NC/compiler_config.py):
/// attribute order matters because ValueError texts print `_fixed_attrs`, which follows `__dict__` order
/// plus the names each class appends after `super().__init__()`.
namespace engine::config {

const char* backendName(Backend b)
{
    return b == Backend::TorchAir ? "torchair" : "npugraph_ex";
}

namespace {

constexpr int64_t kInt64Max = INT64_MAX;

const auto B = [](bool v) { return PyValue::boolean(v); };
const auto S = [](const char* v) { return PyValue::str(v); };
const auto I = [](int64_t v) { return PyValue::integer(v); };
const auto isPyInt = [](const PyValue& v) { return v.kind == PyValue::Kind::Int || v.kind == PyValue::Kind::Bool; };
const auto asInt = [](const PyValue& v) { return v.kind == PyValue::Kind::Bool ? int64_t(v.b) : v.i; };

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

/// dump_step's `^(((\d+)|(\d+-{0,1}\d+))\|{0,1})*$`: items `N` or `N-M`, each optionally followed by '|'.
bool matchesDumpStep(const std::string& s)
{
    const size_t n = s.size();
    std::vector<bool> ok(n + 1, false); // ok[i]: s[i..] is a sequence of items
    ok[n] = true;
    auto digit = [&](size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
    for (size_t i = n; i-- > 0;) {
        for (size_t j = i; digit(j) && !ok[i]; ++j) { // s[i..j] digits; item ends after j or after "-digits"
            std::vector<size_t> ends { j + 1 };
            for (size_t k = j + 2; j + 1 < n && s[j + 1] == '-' && digit(k); ++k)
                ends.push_back(k + 1);
            for (size_t e : ends)
                ok[i] = ok[i] || ok[e] || (e < n && s[e] == '|' && ok[e + 1]);
        }
    }
    return ok[0];
}

/// dump_layer's `^[0-9a-zA-Z_" "/\\.]*$`.
bool matchesDumpLayer(const std::string& s)
{
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c))
            || std::string_view("_\" /\\.").find(c) != std::string_view::npos;
    });
}

// Factories named after what they model, so the tree below reads like TorchAir's __init__ bodies.
const auto checkOf = [](CheckKind kind, PyValue def = {}) { return Check { kind, def, {}, 0, 0, "", nullptr, "" }; };
const auto choice = [](PyValue def, std::vector<PyValue> choices) {
    return Check { CheckKind::Choice, def, std::move(choices), 0, 0, "", nullptr, "" };
};
const auto boolTF = [](bool def) { return choice(B(def), { B(true), B(false) }); };
const auto boolFT = [](bool def) { return choice(B(def), { B(false), B(true) }); }; // other repr order
const auto intRange = [](PyValue def, int64_t min, int64_t max) {
    return Check { CheckKind::IntRange, def, {}, min, max, "", nullptr, "" };
};
const auto regexCheck = [](const char* regex, bool (*matches)(const std::string&), const char* example) {
    return Check { CheckKind::Regex, S(""), {}, 0, 0, regex, matches, example };
};
Check strs(PyValue def, std::initializer_list<const char*> names)
{
    std::vector<PyValue> choices;
    for (const char* n : names)
        choices.push_back(S(n));
    return choice(std::move(def), std::move(choices));
}

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

const auto leaf = [](const char* name, Check c) { return Attr { name, AttrKind::Leaf, std::move(c) }; };
const auto node = [](const char* name) { return Attr { name, AttrKind::Node, checkOf(CheckKind::Any) }; };
const auto plain = [](const char* name) { return Attr { name, AttrKind::Plain, checkOf(CheckKind::Any) }; };
const auto plainNode = [](const char* name) { return Attr { name, AttrKind::PlainNode, checkOf(CheckKind::Any) }; };

const std::vector<Node>& torchairTree()
{
    static const std::vector<Node> tree = {
        { "", "CompilerConfig", true,
            { node("debug"), node("aoe_config"), node("export"), node("dump_config"), node("fusion_config"),
                node("experimental_config"), node("inference_config"), node("ge_config"), plainNode("aclgraph_config"),
                plainNode("npugraphex_config"),
                leaf("mode", strs(S("max-autotune"), { "max-autotune", "reduce-overhead", "npugraph_ex" })),
                leaf("post_grad_custom_pre_pass", checkOf(CheckKind::Callable)),
                leaf("post_grad_custom_post_pass", checkOf(CheckKind::Callable)) },
            { "post_grad_custom_pre_pass", "post_grad_custom_post_pass" } },
        { "debug", "_DebugConfig", true,
            { node("graph_dump"), node("data_dump"), node("fx_summary"), leaf("run_eagerly", boolTF(false)),
                node("aclgraph"), leaf("deadlock_check", boolTF(false)) },
            {} },
        { "debug.graph_dump", "_Dump", true,
            { leaf("type", strs({}, { "txt", "pbtxt", "py" })), leaf("_path", checkOf(CheckKind::Any)), plain("path") },
            { "path" } },
        { "debug.data_dump", "_DataDump", true,
            { plain("filter"), leaf("type", strs({}, { "npy" })), leaf("_path", checkOf(CheckKind::Any)),
                plain("path") },
            { "filter", "path" } },
        { "debug.fx_summary", "_FxSummary", true,
            { leaf("type", strs({}, { "csv" })), leaf("skip_compile", boolTF(true)),
                leaf("_path", checkOf(CheckKind::Any)) },
            {} },
        { "debug.aclgraph", "_AclGraphDebugConfig", true,
            { leaf("disable_reinplace_inplaceable_ops_pass", boolTF(false)),
                leaf("disable_reinplace_input_mutated_ops_pass", boolTF(false)),
                leaf("disable_mempool_reuse_in_same_fx", boolTF(false)), leaf("enable_output_clone", boolTF(false)),
                leaf("static_capture_size_limit", intRange(I(64), 1, kInt64Max)), leaf("clone_input", boolTF(true)),
                leaf("remove_cat_ops", boolTF(true)) },
            {} },
        { "aoe_config", "_AoeConfig", true,
            { leaf("aoe_mode", strs({}, { "2" })), leaf("work_path", checkOf(CheckKind::DirPath, S("./"))),
                leaf("aoe_config_file", checkOf(CheckKind::FilePath)) },
            {} },
        // _ExportConfig never calls NpuBaseConfig.__init__, so it has no _fixed_attrs and validates nothing.
        { "export", "_ExportConfig", false,
            { leaf("export_mode", boolFT(false)), leaf("export_path_dir", checkOf(CheckKind::DirPath, S("./"))),
                plain("export_name"), plain("weight_name"), plain("inputs_name"), node("experimental") },
            {} },
        { "export.experimental", "_ExperimentalConfig", true,
            { leaf("enable_record_nn_module_stack", boolTF(false)), leaf("auto_atc_config_generated", boolTF(false)),
                leaf("enable_lite_export", boolTF(false)) },
            {} },
        { "dump_config", "_DataDumpConfig", true,
            { leaf("enable_dump", boolFT(false)), leaf("dump_path", checkOf(CheckKind::DirPath, S("./"))),
                leaf("dump_mode", strs(S("all"), { "input", "output", "all" })), leaf("quant_dumpable", boolFT(false)),
                leaf("dump_step", regexCheck(R"(^(((\d+)|(\d+-{0,1}\d+))\|{0,1})*$)", matchesDumpStep, "0|1|2-5|6")),
                leaf("dump_layer", regexCheck(R"(^[0-9a-zA-Z_" "/\\.]*$)", matchesDumpLayer, "Mul_1 Add1 Conv2D_1")),
                leaf("dump_data", strs(S("tensor"), { "tensor", "stats" })),
                leaf("dump_config_path", checkOf(CheckKind::JsonFile)),
                leaf("data_dump_stage", strs(S("optimized"), { "original", "optimized" })) },
            {} },
        { "fusion_config", "_FusionConfig", true, { leaf("fusion_switch_file", checkOf(CheckKind::FilePath)) }, {} },
        { "experimental_config", "_ExperimentalConfig", true,
            { leaf("cc_parallel_enable", boolFT(false)), leaf("keep_inference_input_mutations", boolTF(true)),
                leaf("memory_efficiency", boolTF(false)), leaf("frozen_parameter", boolTF(false)),
                leaf("static_model_ops_lower_limit", intRange({}, -1, kInt64Max)),
                leaf("jit_compile", strs(S("auto"), { "auto" })), leaf("npu_fx_pass", boolTF(false)),
                leaf("aot_config_enable_joint_graph", boolTF(false)),
                leaf("aot_config_output_loss_index", checkOf(CheckKind::Any, I(0))),
                leaf("topology_sorting_strategy", strs(S("DFS"), { "BFS", "DFS", "RDFS", "StableRDFS" })),
                leaf("enable_ref_data", boolTF(false)), leaf("enable_view_optimize", boolTF(true)),
                leaf("remove_noop_ops", boolTF(true)), leaf("tiling_schedule_optimize", boolTF(false)),
                leaf("pattern_fusion_pass", boolTF(true)), node("aclgraph") },
            {} },
        { "experimental_config.aclgraph", "_AclGraphExperimentalConfig", true,
            { leaf("_aclnn_static_shape_kernel", boolTF(false)),
                leaf("_aclnn_static_shape_kernel_build_dir", checkOf(CheckKind::Str)),
                leaf("_aclnn_static_shape_kernel_sym_value_range", checkOf(CheckKind::IntList)),
                leaf("_aclnn_static_shape_kernel_sym_index", intRange(I(0), 0, kInt64Max)),
                leaf("_super_kernel_optimize", boolTF(false)),
                leaf("_super_kernel_optimize_options", checkOf(CheckKind::Dict)),
                leaf("_super_kernel_debug_options", checkOf(CheckKind::Dict)) },
            {} },
        { "inference_config", "_InferenceConfig", true,
            { leaf("dynamic_gears_merge_policy", strs(S("zip"), { "zip", "product" })) }, {} },
        { "ge_config", "_GEConfig", true,
            { leaf("enable_single_stream", boolTF(false)), leaf("oo_level", strs(S("O3"), { "O1", "O3" })),
                leaf("oo_constant_folding", choice({}, { B(true), B(false) })),
                leaf("oo_dead_code_elimination", choice({}, { B(true), B(false) })),
                leaf("export_compile_stat", strs(S("2"), { "0", "1", "2" })),
                leaf("aicore_num", checkOf(CheckKind::Any)), leaf("optimization_switch", checkOf(CheckKind::Any)) },
            {} },
        // Plain classes: getattr works, any attribute can be set, nothing is validated.
        { "aclgraph_config", "_AclGraphConfig", false, { plain("use_custom_pool") }, {} },
        { "npugraphex_config", "_NpuGraphExConfig", false, {}, {} },
    };
    return tree;
}

/// npugraph_ex's flat CompilerConfig (NC/compiler_config.py).
const Node& npugraphExConfig()
{
    static const Node config = { "", "CompilerConfig", true,
        { leaf("force_eager", boolTF(false)), plain("use_graph_pool"),
            leaf("reuse_graph_pool_in_same_fx", boolTF(true)), leaf("capture_limit", intRange(I(64), 1, kInt64Max)),
            leaf("clone_input", boolTF(true)), leaf("clone_output", boolTF(false)),
            leaf("disable_static_kernel_compile_cache", boolTF(false)), leaf("static_kernel_compile", boolTF(false)),
            leaf("frozen_parameter", boolTF(false)), leaf("remove_noop_ops", boolTF(true)),
            leaf("remove_cat_ops", boolTF(true)), leaf("inplace_pass", boolTF(true)),
            leaf("input_inplace_pass", boolTF(true)), leaf("pattern_fusion_pass", boolTF(true)),
            leaf("post_grad_custom_pre_pass", checkOf(CheckKind::Callable)),
            leaf("post_grad_custom_post_pass", checkOf(CheckKind::Callable)), leaf("dump_tensor_data", boolTF(false)),
            leaf("data_dump_stage", strs(S("optimized"), { "original", "optimized" })),
            leaf("data_dump_dir", checkOf(CheckKind::DirPath, S("./"))),
            leaf("_vllm_aclnn_static_kernel_sym_index", intRange(I(0), 0, kInt64Max)),
            leaf("_vllm_aclnn_static_kernel_sym_range", checkOf(CheckKind::IntList)),
            leaf("super_kernel_optimize", boolTF(false)),
            leaf("super_kernel_optimize_options", checkOf(CheckKind::Dict)),
            leaf("super_kernel_debug_options", checkOf(CheckKind::Dict)), leaf("deadlock_check", boolTF(false)),
            leaf("capture_error_mode", strs(S("global"), { "global", "thread_local", "relaxed" })),
            leaf("mode", strs(S("npugraph_ex"), { "npugraph_ex" })), leaf("force_recapture", boolTF(false)) },
        { "post_grad_custom_pre_pass", "post_grad_custom_post_pass", "use_graph_pool" } };
    return config;
}

const Node* findNode(const std::string& path)
{
    for (const Node& n : torchairTree()) {
        if (n.path == path)
            return &n;
    }
    return nullptr;
}

const Attr* findAttr(const Node& n, const std::string& name)
{
    for (const Attr& a : n.attrs) {
        if (a.name == name)
            return &a;
    }
    return nullptr;
}

std::vector<std::string> fixedAttrs(const Node& n)
{
    std::vector<std::string> out;
    for (const Attr& a : n.attrs) {
        if (a.kind == AttrKind::Leaf || a.kind == AttrKind::Node)
            out.push_back(a.name);
    }
    out.insert(out.end(), n.appended.begin(), n.appended.end());
    return out;
}

/// Python's str() of a list of str: ['a', 'b'].
std::string pyStrList(const std::vector<std::string>& names)
{
    std::vector<PyValue> items;
    for (const std::string& n : names)
        items.push_back(PyValue::str(n));
    return PyValue::list(std::move(items)).repr();
}

/// Default of a torchair dotted path (None for plain attributes and unknown paths).
PyValue torchairDefault(const std::string& path)
{
    const size_t dot = path.rfind('.');
    const Node* n = findNode(dot == std::string::npos ? "" : path.substr(0, dot));
    const Attr* a = n ? findAttr(*n, path.substr(dot == std::string::npos ? 0 : dot + 1)) : nullptr;
    return a ? a->check.def : PyValue {};
}

PyValue npugraphExDefault(const std::string& name)
{
    const Attr* a = findAttr(npugraphExConfig(), name);
    return a ? a->check.def : PyValue {};
}

/// The exact exception text of TorchAir's OptionValue setters, or nothing when the value passes.
/// Path and file checks stop at the type: the simulated run does not happen on the user's machine.
std::optional<std::string> validate(const Check& c, const PyValue& v)
{
    using K = PyValue::Kind;
    auto failIf = [](bool bad, std::string message) { return bad ? std::optional(message) : std::nullopt; };
    const bool isInt = v.kind == K::Int || v.kind == K::Bool; // bool is an int subclass in Python
    const bool noneOrStr = v.kind == K::None || v.kind == K::Str;
    switch (c.kind) {
    case CheckKind::Choice:
        return failIf(std::none_of(c.choices.begin(), c.choices.end(), [&](const PyValue& o) { return v.pyEquals(o); }),
            "Value " + v.repr() + " (type: " + v.typeRepr() + ") not in optional list "
                + PyValue::list(c.choices).repr() + " (type: " + (c.choices.empty() ? "None" : c.choices[0].typeRepr())
                + ").");
    case CheckKind::IntRange:
        if (!isInt)
            return "Please set integer type, but got " + v.typeRepr();
        return failIf(asInt(v) < c.min || asInt(v) > c.max,
            "Please set value in [" + std::to_string(c.min) + ", " + std::to_string(c.max) + "], " + v.str()
                + " is out of range.");
    case CheckKind::IntList: {
        if (v.kind != K::None && v.kind != K::List && v.kind != K::Tuple)
            return "the set value must be None or list, got " + v.typeRepr();
        std::string types;
        for (const PyValue& item : v.items)
            types += (types.empty() ? "" : ", ") + item.typeRepr();
        return failIf(!std::all_of(v.items.begin(), v.items.end(), isPyInt),
            "the set value must be int list, got list type: [" + types + "]");
    }
    case CheckKind::Str:
        return failIf(!noneOrStr, "value must be str or None, got " + v.typeRepr());
    case CheckKind::Dict: // a literal cannot spell a dict, so only None passes
        return failIf(v.kind != K::None, "value must be dict or None, got " + v.typeRepr());
    case CheckKind::Callable:
        return failIf(v.kind != K::None, "value must be Callable or None, got " + v.typeRepr());
    case CheckKind::DirPath:
        return failIf(
            v.kind != K::Str, "Please set legal dir path, " + v.str() + " is not found or is not a file directory!");
    case CheckKind::FilePath:
        return failIf(!noneOrStr, "Please set legal file path, " + v.str() + " is not found or is not a file!");
    case CheckKind::JsonFile:
        if (v.kind == K::Str && v.s.empty())
            return std::string("File path cannot be empty!");
        return failIf(!noneOrStr || (v.kind == K::Str && (v.s.size() < 5 || v.s.compare(v.s.size() - 5, 5, ".json"))),
            "Please set legal file path, " + v.str() + " is not found or is not '.json' file!");
    case CheckKind::Regex:
        if (v.kind != K::Str)
            return "expected string or bytes-like object, got '" + v.typeName() + "'";
        return failIf(!c.matches(v.s),
            std::string("Please set legal regex value format match ") + c.regex + ", " + v.s
                + " is Illegal format, correct example:" + c.example + ".");
    case CheckKind::Any:
        break;
    }
    return std::nullopt;
}

struct Row {
    const char* torchair;
    const char* npugraphEx;
    const char* type;
    bool inverted;
    bool inCacheKey;
    bool acceptedByTorchairOptions;
    const char* effect;
};

// §1.2 in its order. `mode` is not in torchair's options= map (it is a CompilerConfig attribute instead).
const Row kRows[] = {
    { "mode", "mode", "choice", false, true, false,
        "selects the aclgraph path (reduce-overhead / npugraph_ex); the simulator assumes reduce-overhead if unset" },
    { "aclgraph_config.use_custom_pool", "use_graph_pool", "pool", false, false, true,
        "memory pool handle for all captures of the FX graph; also turns off same-FX pool reuse" },
    { "debug.aclgraph.disable_mempool_reuse_in_same_fx", "reuse_graph_pool_in_same_fx", "bool", true, true, true,
        "lets several captured keys of one FX graph share one pool" },
    { "debug.aclgraph.enable_output_clone", "clone_output", "bool", false, true, true,
        "clones outputs before returning them, so a later replay cannot overwrite them" },
    { "debug.aclgraph.static_capture_size_limit", "capture_limit", "int", false, true, true,
        "most keys captured per FX graph; beyond it the graph falls back to eager for good" },
    { "debug.aclgraph.clone_input", "clone_input", "bool", false, true, true,
        "copies user inputs into graph-owned staging buffers before each replay" },
    { "debug.aclgraph.remove_cat_ops", "remove_cat_ops", "bool", false, false, true,
        "cat elimination pass (producers write into the cat output)" },
    { "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", "inplace_pass", "bool", true, false, true,
        "reinplace pass for intermediate tensors" },
    { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", "input_inplace_pass", "bool", true, false, true,
        "reinplace pass for mutated graph inputs" },
    { "debug.run_eagerly", "force_eager", "bool", false, true, true,
        "never captures; runs the generated forward eagerly on every call" },
    { "debug.deadlock_check", "deadlock_check", "bool", false, true, false,
        "npugraph_ex: dumps the captured graph and checks it for deadlocks after capture" },
    { "", "capture_error_mode", "choice", false, true, false,
        "capture_error_mode of torch_npu.npu.graph(); torchair always uses 'global'" },
    { "", "force_recapture", "bool", false, true, false, "recaptures an existing key on every call" },
    { "experimental_config.frozen_parameter", "frozen_parameter", "bool", false, true, true,
        "treats parameter addresses as fixed and drops them from the graph key" },
    { "experimental_config.remove_noop_ops", "remove_noop_ops", "bool", false, true, true,
        "inductor's remove_noop_ops pass" },
    { "experimental_config.pattern_fusion_pass", "pattern_fusion_pass", "bool", false, true, true,
        "pattern fusion passes" },
    { "experimental_config.keep_inference_input_mutations", "", "bool", false, false, false,
        "AOT keeps input mutations as copy_ epilogues in the graph (npugraph_ex: always)" },
    { "experimental_config.aclgraph._aclnn_static_shape_kernel", "static_kernel_compile", "bool", false, true, true,
        "compiles static-shape kernels at the first capture" },
    { "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir", "", "str", false, true, false,
        "output root of the static kernel build" },
    { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range", "_vllm_aclnn_static_kernel_sym_range",
        "intlist", false, true, true, "symbol values that trigger a static kernel compile under force_eager" },
    { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index", "_vllm_aclnn_static_kernel_sym_index", "int",
        false, true, true, "index of the symbol checked against the value range" },
    { "", "disable_static_kernel_compile_cache", "bool", false, true, false,
        "npugraph_ex: does not cache static kernel builds" },
    { "experimental_config.aclgraph._super_kernel_optimize", "super_kernel_optimize", "bool", false, true, true,
        "NPUGraph.super_kernel_optimize() after capture" },
    { "experimental_config.aclgraph._super_kernel_optimize_options", "super_kernel_optimize_options", "dict", false,
        true, true, "options of super_kernel_optimize" },
    { "experimental_config.aclgraph._super_kernel_debug_options", "super_kernel_debug_options", "dict", false, true,
        true, "debug options of super_kernel_optimize" },
    { "dump_config.enable_dump", "dump_tensor_data", "bool", false, true, true,
        "inserts npu.save_npugraph_tensor nodes" },
    { "dump_config.data_dump_stage", "data_dump_stage", "choice", false, true, true,
        "dumps the original or the optimized graph's tensors" },
    { "dump_config.dump_path", "data_dump_dir", "path", false, true, true, "tensor dump directory" },
    { "post_grad_custom_pre_pass", "post_grad_custom_pre_pass", "callable", false, true, true,
        "user FX pass before the built-in passes" },
    { "post_grad_custom_post_pass", "post_grad_custom_post_pass", "callable", false, true, true,
        "user FX pass after the built-in passes" },
};

const Row* rowByNpugraphExName(const std::string& name)
{
    for (const Row& r : kRows) {
        if (name == r.npugraphEx)
            return &r;
    }
    return nullptr;
}

/// The sorted ALLOWED_OPTIONS of torchair's options= mapper, printed as Python prints a sorted list.
const std::string& torchairMapperAllowed()
{
    static const std::string text = [] {
        std::vector<std::string> names;
        for (const Row& r : kRows) {
            if (r.acceptedByTorchairOptions)
                names.push_back(r.npugraphEx);
        }
        std::sort(names.begin(), names.end());
        return pyStrList(names);
    }();
    return text;
}

} // namespace

const std::vector<OptionSpec>& optionTable()
{
    static const std::vector<OptionSpec> table = [] {
        std::vector<OptionSpec> out;
        for (const Row& r : kRows)
            out.push_back({ r.torchair, r.npugraphEx, r.type, *r.torchair ? torchairDefault(r.torchair) : PyValue {},
                *r.npugraphEx ? npugraphExDefault(r.npugraphEx) : PyValue {}, r.inverted, r.inCacheKey,
                r.acceptedByTorchairOptions, r.effect });
        return out;
    }();
    return table;
}

std::string Options::optionName(const std::string& npugraphExName) const
{
    if (backend == Backend::NpugraphEx)
        return npugraphExName;
    const Row* r = rowByNpugraphExName(npugraphExName);
    return r && *r->torchair ? r->torchair : npugraphExName;
}

namespace {

std::string eagerWarning(const char* option)
{
    return std::string("WARNING: When ") + option
        + " is enabled, the graph FALLS BACK to EAGER execution. Once running finished, please make sure to "
          "disable the "
        + option + " config to ensure that the graph is compiled and executed.";
}

/// `_check_config_support` lists (TC/compiler_config.py): a path warns when its value is one of `values`, or
/// any non-None value when `values` is empty. Reduce-overhead checks the GE-only options, max-autotune the
/// aclgraph-only ones.
struct Unsupported {
    const char* path;
    std::vector<PyValue> values;
};

const std::vector<Unsupported>& unsupportedIn(const std::string& mode)
{
    static const std::vector<Unsupported> ge = {
        { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", { B(true) } },
        { "experimental_config.aclgraph._aclnn_static_shape_kernel", { B(true) } },
        { "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir", {} },
        { "debug.aclgraph.clone_input", { B(false) } },
        { "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", { B(true) } },
    };
    static const std::vector<Unsupported> aclgraph = {
        { "inference_config.dynamic_gears_merge_policy", { S("product") } },
        { "debug.fx_summary.type", { S("csv") } },
        { "dump_config.enable_dump", { B(true) } },
        { "ge_config.export_compile_stat", { S("1"), S("0") } },
        { "export.experimental.auto_atc_config_generated", { B(true) } },
        { "export.experimental.enable_record_nn_module_stack", { B(true) } },
        { "ge_config.enable_single_stream", { B(true) } },
        { "ge_config.oo_level", { S("O1") } },
        { "ge_config.oo_constant_folding", { B(true), B(false) } },
        { "ge_config.oo_dead_code_elimination", { B(true), B(false) } },
        { "experimental_config.topology_sorting_strategy", { S("BFS"), S("RDFS"), S("StableRDFS") } },
        { "experimental_config.cc_parallel_enable", { B(true) } },
        { "experimental_config.enable_ref_data", { B(true) } },
        { "experimental_config.tiling_schedule_optimize", { B(true) } },
        { "experimental_config.enable_view_optimize", { B(false), B(true) } },
        { "fusion_config.fusion_switch_file", {} },
        { "experimental_config.static_model_ops_lower_limit", {} },
        { "ge_config.aicore_num", {} },
        { "ge_config.optimization_switch", {} },
    };
    return mode == "max-autotune" ? ge : aclgraph;
}

/// How the runtime reads a bool option back. torchair's getter turns True/False into "1"/"0" and other values
/// into str(v); npugraph_ex's keeps bools and also turns other values into str(v). Call sites then test
/// `== "1"` (TorchStr), the string's truthiness (NpuStr) or the OptionValue itself (Truthy, `__bool__`).
/// They agree for True/False; they differ for the 0, 1, 0.0, 1.0 that `v in [True, False]` lets through.
enum class Read { Truthy, TorchStr, NpuStr, Absent };

bool readAs(Read r, const PyValue& v)
{
    switch (r) {
    case Read::Truthy:
        return v.truthy();
    case Read::TorchStr:
        return v.kind == PyValue::Kind::Bool ? v.b : v.kind == PyValue::Kind::Int && v.i == 1;
    case Read::NpuStr:
        return v.kind == PyValue::Kind::Bool ? v.b : v.kind != PyValue::Kind::None;
    case Read::Absent:
        return false;
    }
    return false;
}

struct BoolField {
    const char* name; ///< npugraph_ex spelling
    bool Options::*field;
    Read torchair;
    Read npugraphEx;
    bool torchairNegated; ///< torchair's option says "disable"
};

// Read sites: TA/acl_graph.py, TA/fx2acl_converter.py, T/npu_fx_compiler.py and their NA/, N/ copies.
// torchair has no deadlock-check hook in reduce-overhead and no force_recapture at all (reference §1.2).
const BoolField kBoolFields[] = {
    { "reuse_graph_pool_in_same_fx", &Options::reuseInSameFx, Read::TorchStr, Read::NpuStr, true },
    { "clone_output", &Options::cloneOutput, Read::TorchStr, Read::NpuStr, false },
    { "clone_input", &Options::cloneInput, Read::TorchStr, Read::NpuStr, false },
    { "force_eager", &Options::forceEager, Read::TorchStr, Read::NpuStr, false },
    { "force_recapture", &Options::forceRecapture, Read::Absent, Read::NpuStr, false },
    { "frozen_parameter", &Options::frozenParameter, Read::TorchStr, Read::NpuStr, false },
    { "remove_noop_ops", &Options::removeNoopOps, Read::Truthy, Read::Truthy, false },
    { "pattern_fusion_pass", &Options::patternFusionPass, Read::Truthy, Read::Truthy, false },
    { "remove_cat_ops", &Options::removeCatOps, Read::Truthy, Read::Truthy, false },
    { "inplace_pass", &Options::reinplaceInplaceableOps, Read::Truthy, Read::Truthy, true },
    { "input_inplace_pass", &Options::reinplaceInputMutatedOps, Read::Truthy, Read::Truthy, true },
    { "deadlock_check", &Options::deadlockCheck, Read::Absent, Read::NpuStr, false },
};

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> parts(1);
    for (char c : s) {
        if (c == sep)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

/// Applies settings the way TorchAir's config objects take them, then derives the effective `Options`.
class OptionParser {
public:
    explicit OptionParser(Backend backend)
    {
        m_opts.backend = backend;
        m_opts.mode = backend == Backend::NpugraphEx ? "npugraph_ex" : "reduce-overhead";
    }

    Result<void> set(const std::string& name, const PyValue& value)
    {
        m_opts.written.emplace_back(name, value.repr());
        if (m_opts.backend == Backend::NpugraphEx)
            return setNpugraphEx(name, value);
        // Top-level CompilerConfig attributes (mode, post_grad_custom_*) are set directly, as a user would.
        if (name.find('.') != std::string::npos || findAttr(*findNode(""), name))
            return setTorchair(name, name, value);
        return setThroughMapper(name, value);
    }

    Result<Options> finish()
    {
        if (m_opts.backend == Backend::TorchAir) {
            if (const Stored* mode = stored("mode"))
                m_opts.mode = mode->value.s;
            if (m_opts.mode == "max-autotune")
                m_opts.notes.push_back("mode='max-autotune' builds a GE graph; the simulator models only the aclgraph "
                                       "modes (reduce-overhead, npugraph_ex) and runs it as reduce-overhead.");
        }
        Result<void> pool = applyPool();
        if (!pool)
            return pool.error();
        applyBools();
        if (m_opts.customPool)
            m_opts.reuseInSameFx = false;
        const PyValue limit = valueOf(keyOf("capture_limit"));
        m_opts.captureLimit = isPyInt(limit) ? asInt(limit) : 64;
        if (m_opts.backend == Backend::NpugraphEx)
            m_opts.captureErrorMode = valueOf("capture_error_mode").s;
        addWarnings();
        return std::move(m_opts);
    }

private:
    struct Stored {
        PyValue value;
        std::string written;
    };

    Error fail(const std::string& message, const std::string& written) const
    {
        return makeError(ErrorCode::InvalidArgument, message, written);
    }

    /// `_NpuGraphExConfig._process_kwargs_options`: flat name -> dotted path, with invert_bool on three.
    Result<void> setThroughMapper(const std::string& name, const PyValue& value)
    {
        const Row* row = rowByNpugraphExName(name);
        if (!row || !row->acceptedByTorchairOptions)
            return fail("Invalid option '" + name + "', allowed options: " + torchairMapperAllowed(), name);
        PyValue mapped = value;
        if (row->inverted) {
            if (value.kind == PyValue::Kind::Bool)
                mapped = B(!value.b);
            else if (value.kind == PyValue::Kind::Int && (value.i == 0 || value.i == 1))
                mapped = I(1 - value.i);
            else if (value.kind == PyValue::Kind::Float && (value.f == 0.0 || value.f == 1.0))
                m_opts.notes.push_back(name + "=" + value.repr() + ": torchair's options= mapper inverts only bools "
                    + "and the integers 0 and 1, so " + value.repr() + " reaches " + row->torchair
                    + " unchanged and keeps that option's meaning instead of the inverted one.");
        }
        return setTorchair(name, row->torchair, mapped);
    }

    /// `NpuBaseConfig.__setattr__` down the dotted path.
    Result<void> setTorchair(const std::string& written, const std::string& path, const PyValue& value)
    {
        const std::vector<std::string> parts = split(path, '.');
        const Node* cur = findNode("");
        std::string curPath;
        for (size_t k = 0; k + 1 < parts.size(); ++k) {
            const Attr* a = findAttr(*cur, parts[k]);
            if (!a)
                return fail("'" + cur->className + "' object has no attribute '" + parts[k] + "'", written);
            curPath += (curPath.empty() ? "" : ".") + parts[k];
            if (a->kind != AttrKind::Node && a->kind != AttrKind::PlainNode)
                return fail(curPath + " is an option, not a group of options", written);
            cur = findNode(curPath);
        }
        const std::string& key = parts.back();
        if (cur->validates) {
            const std::vector<std::string> fixed = fixedAttrs(*cur);
            if (std::find(fixed.begin(), fixed.end(), key) == fixed.end())
                return fail(cur->className + " has no option " + key + ", all options " + pyStrList(fixed), written);
        }
        const Attr* a = findAttr(*cur, key);
        // Python would replace the whole sub-config object; no user means that.
        if (a && (a->kind == AttrKind::Node || a->kind == AttrKind::PlainNode)) {
            std::vector<std::string> names;
            for (const Attr& child : findNode(path)->attrs)
                names.push_back(child.name);
            return fail(path + " is a group of options; set one of " + pyStrList(names), written);
        }
        if (a && a->kind == AttrKind::Leaf && cur->validates) {
            if (std::optional<std::string> message = validate(a->check, value))
                return fail(*message, written);
        }
        if (!a)
            m_opts.notes.push_back(written + ": " + cur->className
                + " does not check attribute names, so TorchAir stores " + key
                + " without complaint and never reads it.");
        m_values[path] = { value, written };
        return {};
    }

    /// npugraph_ex's `_process_kwargs_options`: hasattr() first, then `NpuBaseConfig.__setattr__`.
    Result<void> setNpugraphEx(const std::string& name, const PyValue& value)
    {
        const Node& config = npugraphExConfig();
        const Attr* a = findAttr(config, name);
        if (!a) {
            // Methods and _fixed_attrs pass hasattr() and then fail in __setattr__.
            if (name == "as_dict" || name == "_fixed_attrs" || name == "_data_dump_full_path"
                || name == "_eager_data_dump_full_path")
                return fail(
                    "CompilerConfig has no option " + name + ", all options " + pyStrList(fixedAttrs(config)), name);
            std::vector<std::string> supported;
            for (const Attr& attr : config.attrs)
                supported.push_back(attr.name);
            std::sort(supported.begin(), supported.end()); // dir() order
            return fail("Invalid option '" + name + "'. The 'CompilerConfig' object does not have attribute '" + name
                    + "'. Supported attributes are: " + pyStrList(supported),
                name);
        }
        if (a->kind == AttrKind::Leaf) {
            if (std::optional<std::string> message = validate(a->check, value))
                return fail(*message, name);
        }
        m_values[name] = { value, name };
        return {};
    }

    /// Where an option lives in this backend's config; empty when the backend has no such option.
    std::string keyOf(const std::string& npugraphExName) const
    {
        if (m_opts.backend == Backend::NpugraphEx)
            return npugraphExName;
        const Row* row = rowByNpugraphExName(npugraphExName);
        return row ? row->torchair : "";
    }
    const Stored* stored(const std::string& key) const
    {
        auto it = m_values.find(key);
        return it == m_values.end() ? nullptr : &it->second;
    }
    PyValue valueOf(const std::string& key) const
    {
        if (const Stored* s = stored(key))
            return s->value;
        return m_opts.backend == Backend::NpugraphEx ? npugraphExDefault(key) : torchairDefault(key);
    }

    /// `AclGraphCacheInfo.__post_init__`, raised when the concrete graph is built, i.e. after every option is set.
    Result<void> applyPool()
    {
        const Stored* s = stored(keyOf("use_graph_pool"));
        if (!s || s->value.kind == PyValue::Kind::None)
            return {};
        const PyValue& p = s->value;
        const bool sequence = p.kind == PyValue::Kind::Tuple || p.kind == PyValue::Kind::List;
        if (!(sequence && p.items.size() == 2 && isPyInt(p.items[0]) && isPyInt(p.items[1])
                && (asInt(p.items[0]) == 0 || asInt(p.items[1]) == 0)))
            return fail("Invalid graph pool handle type, got value=" + p.str() + ", type=" + p.typeName(), s->written);
        m_opts.customPool = std::make_pair(uint64_t(asInt(p.items[0])), uint64_t(asInt(p.items[1])));
        const std::string asTuple = PyValue::tuple(p.items).repr();
        if (p.kind == PyValue::Kind::List)
            m_opts.notes.push_back(s->written + "=" + p.repr() + ": TorchAir requires a tuple and raises TypeError "
                + "for a list; taken here as " + asTuple + " because JSON has no tuples.");
        const bool torchair = m_opts.backend == Backend::TorchAir;
        m_opts.notes.push_back(s->written + "=" + asTuple + " is a custom pool, so " + backendName(m_opts.backend)
            + " sets " + m_opts.optionName("reuse_graph_pool_in_same_fx") + (torchair ? "=True" : "=False")
            + " on the config object (it stays changed for later compiles with that object): captures of one FX "
              "graph never reuse each other's memory.");
        return {};
    }

    void applyBools()
    {
        const bool torchair = m_opts.backend == Backend::TorchAir;
        for (const BoolField& f : kBoolFields) {
            const Read read = torchair ? f.torchair : f.npugraphEx;
            const std::string key = keyOf(f.name);
            const PyValue raw = key.empty() ? PyValue {} : valueOf(key);
            const bool on = readAs(read, raw);
            m_opts.*f.field = torchair && f.torchairNegated ? !on : on;

            const Stored* s = key.empty() ? nullptr : stored(key);
            if (!s)
                continue;
            if (torchair && f.field == &Options::deadlockCheck && readAs(Read::TorchStr, raw))
                m_opts.notes.push_back(s->written + "=" + s->value.repr() + ": torchair's reduce-overhead runtime has "
                    + "no deadlock-check hook (only npugraph_ex checks the captured graph); the option only changes "
                      "the compile-cache hash.");
            const bool overriddenByPool = f.field == &Options::reuseInSameFx && m_opts.customPool;
            if (raw.kind == PyValue::Kind::Bool || read == Read::Truthy || read == Read::Absent || overriddenByPool
                || on == raw.truthy())
                continue;
            const std::string v = raw.repr();
            std::string note = s->written + "=" + v + ": ";
            if (torchair) {
                note += "torchair accepts " + v + " for a bool option (" + v + " == True) but reads it back as the "
                    + "string '" + raw.str() + "', which is not '1', so " + key + " takes effect as False.";
                if (f.field == &Options::forceEager)
                    note += " The compile-time check tests the value itself, so the run_eagerly warning is still "
                            "printed.";
            } else {
                note += "npugraph_ex accepts " + v + " for a bool option (" + v + " == False) but stores it as " + v
                    + " and the runtime reads it back as the string '" + raw.str() + "', which is truthy, so " + key
                    + " takes effect as True. Write False to turn it off.";
                if (f.field == &Options::forceEager)
                    note += " The compile-time check tests the value itself, so the force_eager warning is not "
                            "printed.";
            }
            m_opts.notes.push_back(note);
        }
    }

    /// In TorchAir's order: `_check_config_support` (backend creation), then `normalize_config`'s
    /// frozen_parameter warning and the run_eagerly warning (compile of each FX graph).
    void addWarnings()
    {
        const bool torchair = m_opts.backend == Backend::TorchAir;
        const std::string& mode = m_opts.mode;
        if (torchair && (mode == "max-autotune" || mode == "reduce-overhead")) {
            std::string hits;
            for (const Unsupported& u : unsupportedIn(mode)) {
                const PyValue v = valueOf(u.path);
                if (v.kind == PyValue::Kind::None)
                    continue;
                bool match = u.values.empty();
                for (const PyValue& x : u.values)
                    match = match || v.pyEquals(x);
                if (match)
                    hits += (hits.empty() ? "config." : ", config.") + std::string(u.path) + ":" + v.str();
            }
            if (!hits.empty())
                m_opts.warnings.push_back(
                    "UserWarning: The following torchair config or properties may not take effect or report error in "
                    + mode + " mode: " + hits
                    + (mode == "reduce-overhead" ? ", set_dim_gears, dynamo_export, scope, npu_print" : ""));
        }
        if (torchair && mode == "reduce-overhead")
            m_opts.warnings.push_back("DeprecationWarning: The \"reduce-overhead\" mode configuration will be "
                                      "deprecated. Please use the \"npugraph_ex\" backend.");
        // The GE path (max-autotune) has its own frozen_parameter wording, which the simulator does not model.
        if (m_opts.frozenParameter && mode != "max-autotune")
            m_opts.warnings.push_back(
                "UserWarning: When enable frozen_parameter, Parameters and input tensors with immutable data_ptr "
                "marked by `torch._dynamo.mark_static_address()` will be considered static. Please make sure that "
                "the Parameters data address remain the same throughout the program runtime.");
        if (valueOf(keyOf("force_eager")).truthy())
            m_opts.warnings.push_back(eagerWarning(torchair ? "debug.run_eagerly=True" : "force_eager=True"));
    }

    Options m_opts;
    std::map<std::string, Stored> m_values; ///< torchair dotted path or npugraph_ex name -> last value set
};

} // namespace

Result<Options> parseOptions(Backend backend, const std::vector<std::pair<std::string, PyValue>>& settings)
{
    OptionParser parser(backend);
    for (const auto& [name, value] : settings) {
        Result<void> r = parser.set(name, value);
        if (!r)
            return r.error();
    }
    return parser.finish();
}

Backend guessBackend(const std::vector<std::pair<std::string, PyValue>>& settings)
{
    bool npugraphExMode = false;
    bool dotted = false;
    for (const auto& [name, value] : settings) {
        // Names only npugraph_ex has: torchair's options= mapper rejects them.
        if (name == "force_recapture" || name == "capture_error_mode" || name == "deadlock_check"
            || name == "disable_static_kernel_compile_cache")
            return Backend::NpugraphEx;
        npugraphExMode
            = npugraphExMode || (name == "mode" && value.kind == PyValue::Kind::Str && value.s == "npugraph_ex");
        dotted = dotted || name.find('.') != std::string::npos;
    }
    // torchair's own CompilerConfig also takes mode='npugraph_ex'; dotted names say that is what is meant.
    return npugraphExMode && !dotted ? Backend::NpugraphEx : Backend::TorchAir;
}

} // namespace engine::config
