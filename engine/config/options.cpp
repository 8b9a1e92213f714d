#include "engine/config/options.h"

#include "engine/config/option_tree.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace engine::config {

const char* backendName(Backend b)
{
    return b == Backend::TorchAir ? "torchair" : "npugraph_ex";
}

using namespace detail;

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
        Result<void> dump = checkGraphDump();
        if (!dump)
            return dump.error();
        applyBools();
        if (m_opts.customPool)
            m_opts.reuseInSameFx = false;
        const PyValue limit = valueOf(keyOf("capture_limit"));
        m_opts.captureLimit = isPyInt(limit) ? asInt(limit) : 64;
        if (m_opts.backend == Backend::NpugraphEx)
            m_opts.captureErrorMode = valueOf("capture_error_mode").s;
        m_opts.staticKernel = valueOf(keyOf("static_kernel_compile")).truthy();
        const PyValue range = valueOf(keyOf("_vllm_aclnn_static_kernel_sym_range"));
        if (range.kind == PyValue::Kind::List || range.kind == PyValue::Kind::Tuple) {
            m_opts.staticKernelSymRange.emplace();
            for (const PyValue& v : range.items)
                if (isPyInt(v))
                    m_opts.staticKernelSymRange->push_back(asInt(v));
        }
        if (const PyValue index = valueOf(keyOf("_vllm_aclnn_static_kernel_sym_index")); isPyInt(index))
            m_opts.staticKernelSymIndex = asInt(index);
        if (m_opts.backend == Backend::TorchAir && !valueOf("export.export_mode").truthy()) {
            if (const PyValue t = valueOf("debug.graph_dump.type"); t.kind == PyValue::Kind::Str)
                m_opts.graphDumpType = t.s;
            if (const PyValue p = valueOf("debug.graph_dump.path"); p.kind == PyValue::Kind::Str)
                m_opts.graphDumpPath = p.s;
        }
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

    /// `AclConcreteGraph.dump` (TA/fx2acl_converter.py), called by `_NpuFxCompiler._gen_compiled_gm` when
    /// `debug.graph_dump` is enabled and export_mode is off: the config takes txt, pbtxt and py, but an
    /// aclgraph dumps only py, so the first FX graph's compile raises and torch.compile reports it as
    /// BackendCompilerFailed (a RuntimeError; TorchAir's test_aclgraph_unsupported_dump).
    Result<void> checkGraphDump() const
    {
        if (m_opts.backend != Backend::TorchAir || m_opts.mode != "reduce-overhead")
            return {};
        const PyValue type = valueOf("debug.graph_dump.type");
        if (type.kind != PyValue::Kind::Str || type.s == "py" || valueOf("export.export_mode").truthy())
            return {};
        return fail("NotImplementedError: Graph dump for aclGraph only support 'py' type, but got: " + type.s
                + ".Please check compile config setting: config.debug.graph_dump.type (raised when the first FX "
                  "graph compiles, by AclConcreteGraph.dump; torch.compile reports it as BackendCompilerFailed)",
            "debug.graph_dump.type");
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
        // _NpuFxCompiler._get_compiled_gm, at the compile of each FX graph (T/npu_fx_compiler.py).
        if (torchair && mode == "reduce-overhead" && valueOf("debug.fx_summary.type").kind == PyValue::Kind::Str)
            m_opts.warnings.push_back(
                "WARNING: The fx_summary csv files will not be generated in reduce-overhead mode.");
        if (valueOf(keyOf("force_eager")).truthy())
            m_opts.warnings.push_back(eagerWarning(torchair ? "debug.run_eagerly=True" : "force_eager=True"));
        // TA/static_kernel.py compile_static_kernel, at the first call of each FX graph (AclGraph.compile, or
        // run_eagerly_compile): without cache_compile's run packages (a scenario cannot ask for them) it warns,
        // then filters the text out, so once per process.
        if (mode != "max-autotune" && m_opts.staticKernel)
            m_opts.warnings.push_back(
                std::string(
                    "UserWarning: The current version now supports caching run packages from static kernel "
                    "compilation, it is recommended to delete the compilation cache and recompile when you use ")
                + (torchair ? "`torchair.inference.cache_compile` and do not use debug.run_eagerly=True."
                            : "`torch.npu.npugraph_ex.inference.cache_compile` and do not use force_eager=True."));
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
