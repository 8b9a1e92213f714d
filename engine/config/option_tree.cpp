#include "engine/config/option_tree.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

/// The data below mirrors TorchAir's config classes (reference §1.1-1.2, TC/*.py and NC/compiler_config.py):
/// attribute order matters because ValueError texts print `_fixed_attrs`, which follows `__dict__` order
/// plus the names each class appends after `super().__init__()`.
namespace engine::config {

namespace detail {

namespace {

constexpr int64_t kInt64Max = INT64_MAX;

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

} // namespace

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

namespace {

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

} // namespace

const Row* rowByNpugraphExName(const std::string& name)
{
    for (const Row& r : kRows) {
        if (name == r.npugraphEx)
            return &r;
    }
    return nullptr;
}

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

} // namespace detail

using namespace detail;

const std::vector<OptionSpec>& optionTable()
{
    static const std::vector<OptionSpec> table = [] {
        auto choices = [](const Node* n, const std::string& name) {
            const Attr* a = n ? findAttr(*n, name) : nullptr;
            return a && a->kind == AttrKind::Leaf && a->check.kind == CheckKind::Choice ? a->check.choices
                                                                                        : std::vector<PyValue> {};
        };
        std::vector<OptionSpec> out;
        for (const Row& r : kRows) {
            OptionSpec o { r.torchair, r.npugraphEx, r.type, *r.torchair ? torchairDefault(r.torchair) : PyValue {},
                *r.npugraphEx ? npugraphExDefault(r.npugraphEx) : PyValue {}, {}, {}, r.inverted, r.inCacheKey,
                r.acceptedByTorchairOptions, r.effect };
            if (o.type == "choice") {
                const size_t dot = o.torchairName.rfind('.');
                if (!o.torchairName.empty())
                    o.torchairChoices = choices(findNode(dot == std::string::npos ? "" : o.torchairName.substr(0, dot)),
                        o.torchairName.substr(dot == std::string::npos ? 0 : dot + 1));
                if (!o.npugraphExName.empty())
                    o.npugraphExChoices = choices(&npugraphExConfig(), o.npugraphExName);
            }
            out.push_back(std::move(o));
        }
        return out;
    }();
    return table;
}

} // namespace engine::config
