#include "engine/config/cuda_options.h"

#include "engine/config/torch_config_names.h"

#include <algorithm>
#include <array>
#include <map>

/// How the settings combine, as PyTorch 2.11 combines them (docs/cuda-graph-trees.md §10):
///
/// * A setting is one of: a torch.compile argument (`mode`, `dynamic`, `fullgraph`), an assignment to a
///   config module (`torch._inductor.config.triton.X = v`, `torch._dynamo.config.X = v`), an entry of
///   torch.compile's `options=` dict (the short form `triton.X`, Inductor options only) or the TORCH_LOGS
///   environment variable. Within one form a later setting overrides an earlier one.
/// * Across forms PyTorch's precedence decides, not the order: torch.compile hands its mode's options
///   (torch/_inductor/__init__.py `list_mode_options`) and its `options=` dict to Inductor as
///   `config_patches` (torch/__init__.py `_TorchCompileInductorWrapper.__call__` -> compile_fx), which
///   `config.patch` lays over the module's values for its compiles. So `mode="reduce-overhead"` turns
///   triton.cudagraphs on even after `torch._inductor.config.triton.cudagraphs = False`, and an
///   `options=` entry beats the module assignment of the same option. A note says so when it happens.
/// * `mode` and `options=` together are an error in torch.compile itself, so an explicit triton.cudagraphs
///   can only come from options= without a mode, or from the module (which a cudagraph mode overrides).
///   Hence "mode sets cudagraphs unless triton.cudagraphs was set explicitly" is not PyTorch's rule and is
///   not implemented: `mode` decides whenever it is given; without `mode` or `options=` the simulator
///   assumes torch.compile(mode="reduce-overhead") (its premise); with `options=` and no mode there is no
///   mode, and triton.cudagraphs comes from options=, the module, or its default False.
/// * `dynamic=False` patches torch._dynamo.config.automatic_dynamic_shapes=False for its compiles
///   (torch/_dynamo/eval_frame.py `enable_dynamic`), over the module's value.
/// * With several invalid settings PyTorch may raise for another one first (torch.compile checks its own
///   arguments before the options= entries); here the first invalid setting in the order written fails.
/// * Not modelled, and not confirmed either way: options that Inductor reads only when a compiled graph first
///   runs (triton.cudagraph_capture_sizes and cudagraph_dynamic_shape_warn_limit, read by cudagraph_trees.py
///   `cudagraphify_impl`) may not see an options= patch, which covers the compile only; here they take it.
///
/// PyTorch's texts are cited by file and function: the 2.11 sources were not at hand, so no line numbers.
/// They were read from recent snapshots of pytorch/pytorch forks (torch/__init__.py with the Python 3.15
/// check, torch/_inductor/__init__.py with the "lite" mode, torch/utils/_config_module.py).
namespace engine::config {

namespace {

using Kind = PyValue::Kind;

const std::string kInductorPrefix = "torch._inductor.config.";
const std::string kDynamoPrefix = "torch._dynamo.config.";

/// torch/_inductor/__init__.py `list_mode_options`: the keys of its `mode_options` dict, in its order, which
/// is also the order of its "Unrecognized mode" text. PyTorch 2.11 has "lite" (pytorch/pytorch#167115,
/// Nov 2025; its fallback_by_default and selective_decompose options are in the 2.11 run's config dump).
const std::array<const char*, 5> kModes
    = { "default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune" };

/// The CudaOptions member (or none) each table row sets; same order as the table.
enum class Field {
    Mode,
    Dynamic,
    Fullgraph,
    Cudagraphs,
    CudagraphTrees,
    SkipDynamicGraphs,
    CaptureSizes,
    WarnLimit,
    RerecordLimit,
    SupportInputMutation,
    SlowPathAsserts,
    FastPathAsserts,
    HistoryRecording,
    Objgraph,
    ForceSync,
    ForceWarmup,
    SkipWarmup,
    OrError,
    GraphPartition,
    InlineInbuilt,
    RecompileLimit,
    AccumulatedLimit,
    FailOnLimitHit,
    AutomaticDynamic,
    TorchLogs,
};

struct Table {
    std::vector<CudaOptionSpec> specs;
    std::vector<Field> fields; ///< fields[i] is what specs[i] sets
};

const Table& table()
{
    static const Table t = [] {
        Table t;
        const PyValue T = PyValue::boolean(true);
        const PyValue F = PyValue::boolean(false);
        auto I = [](int64_t v) { return PyValue::integer(v); };
        const char* compile = "torch/__init__.py (torch.compile)";
        const char* triton = "torch/_inductor/config.py (class triton)";
        const char* dynamo = "torch/_dynamo/config.py";
        auto row = [&t](Field f, std::string name, std::vector<std::string> aliases, std::string type, PyValue def,
                       std::string effect, std::string source, bool modelled) {
            CudaOptionSpec s;
            s.name = std::move(name);
            s.aliases = std::move(aliases);
            s.type = std::move(type);
            s.defaultValue = std::move(def);
            s.effect = std::move(effect);
            s.source = std::move(source);
            s.modelled = modelled;
            t.specs.push_back(std::move(s));
            t.fields.push_back(f);
        };
        // An Inductor option under its module path, with the short form torch.compile's options= takes.
        auto ind = [&](Field f, const std::string& key, std::string type, PyValue def, std::string effect,
                       const char* source, bool modelled) {
            row(f, kInductorPrefix + key, { key }, std::move(type), std::move(def), std::move(effect), source,
                modelled);
        };
        row(Field::Mode, "mode", {}, "choice", PyValue::none(),
            "torch.compile's preset: reduce-overhead and max-autotune set triton.cudagraphs=True; without mode "
            "and options= the simulator assumes reduce-overhead",
            "torch/__init__.py (torch.compile, _TorchCompileInductorWrapper.apply_mode), torch/_inductor/__init__.py "
            "(list_mode_options)",
            true);
        for (const char* m : kModes)
            t.specs.back().choices.push_back(PyValue::str(m));
        row(Field::Dynamic, "dynamic", {}, "optional_bool", PyValue::none(),
            "None: recompile as dynamic after the first size change; True: dynamic from the first compile; False: "
            "every new size recompiles (turns automatic_dynamic_shapes off)",
            std::string(compile) + ", torch/_dynamo/eval_frame.py (enable_dynamic)", true);
        row(Field::Fullgraph, "fullgraph", {}, "bool", F,
            "Graph breaks are errors; hitting the recompile limit raises instead of falling back to eager", compile,
            true);
        ind(Field::Cudagraphs, "triton.cudagraphs", "bool", F,
            "Use CUDA graphs at all (default from env TORCHINDUCTOR_CUDAGRAPHS); mode reduce-overhead or "
            "max-autotune sets it",
            triton, true);
        ind(Field::CudagraphTrees, "triton.cudagraph_trees", "bool", T,
            "Use CUDA Graph Trees; False: the old per-graph cudagraphify (one pool per graph, no trees)", triton, true);
        ind(Field::SkipDynamicGraphs, "triton.cudagraph_skip_dynamic_graphs", "bool", F,
            "Graphs with symbolic size inputs run without cudagraphs", triton, true);
        ind(Field::CaptureSizes, "triton.cudagraph_capture_sizes", "int_tuples", PyValue::none(),
            "Size keys to capture (ints, tuples of ints for several size inputs); other sizes run without "
            "cudagraphs",
            triton, true);
        ind(Field::WarnLimit, "triton.cudagraph_dynamic_shape_warn_limit", "optional_int", I(8),
            "Warn once per graph when its distinct sizes exceed this; None or 0 never warns", triton, true);
        ind(Field::RerecordLimit, "triton.cudagraph_unexpected_rerecord_limit", "int", I(128),
            "Unexpected re-records allowed per node and function; enforced only without inline_inbuilt_nn_modules",
            triton, true);
        ind(Field::SupportInputMutation, "triton.cudagraph_support_input_mutation", "bool", T,
            "Allow mutation of pool tensors; a static input's address change re-records (False in fbcode)", triton,
            true);
        ind(Field::SlowPathAsserts, "triton.slow_path_cudagraph_asserts", "bool", T,
            "Pool consistency checks on warm-up and record", triton, false);
        ind(Field::FastPathAsserts, "triton.fast_path_cudagraph_asserts", "bool", F, "Invariant checks on every replay",
            triton, false);
        ind(Field::HistoryRecording, "triton.cudagraph_trees_history_recording", "bool", F,
            "Record allocator history during warm-up and record", triton, false);
        ind(Field::Objgraph, "triton.cudagraph_trees_objgraph", "bool", F, "Debug aid in pool-leak errors", triton,
            false);
        ind(Field::ForceSync, "triton.force_cudagraph_sync", "bool", F, "torch.cuda.synchronize() after each replay",
            triton, false);
        ind(Field::ForceWarmup, "triton.force_cudagraphs_warmup", "bool", F, "Always warm up, never record or replay",
            triton, true);
        ind(Field::SkipWarmup, "triton.skip_cudagraph_warmup", "bool", F, "Record on the first call (no warm-up)",
            triton, true);
        ind(Field::OrError, "triton.cudagraph_or_error", "bool", F,
            "Raise instead of skipping cudagraphs (default from env TORCHINDUCTOR_CUDAGRAPH_OR_ERROR)", triton, true);
        ind(Field::GraphPartition, "graph_partition", "bool", T,
            "Split cudagraph-unsafe ops out of the graph; functions are named partition_N", "torch/_inductor/config.py",
            true);
        row(Field::InlineInbuilt, kDynamoPrefix + "inline_inbuilt_nn_modules", {}, "bool", T,
            "Parameters and buffers are graph inputs; disables the unexpected re-record limit", dynamo, true);
        row(Field::RecompileLimit, kDynamoPrefix + "recompile_limit", { kDynamoPrefix + "cache_size_limit" }, "int",
            I(8), "Compiled entries per code object before Dynamo stops compiling it", dynamo, true);
        row(Field::AccumulatedLimit, kDynamoPrefix + "accumulated_recompile_limit",
            { kDynamoPrefix + "accumulated_cache_size_limit" }, "int", I(256),
            "Compiled entries over all code objects before Dynamo stops compiling", dynamo, true);
        row(Field::FailOnLimitHit, kDynamoPrefix + "fail_on_recompile_limit_hit",
            { kDynamoPrefix + "fail_on_cache_limit_hit" }, "bool", F,
            "Hitting a recompile limit raises FailOnRecompileLimitHit", dynamo, true);
        row(Field::AutomaticDynamic, kDynamoPrefix + "automatic_dynamic_shapes", {}, "bool", T,
            "dynamic=None recompiles as dynamic after the first size change (dynamic=False turns it off)", dynamo,
            true);
        row(Field::TorchLogs, "TORCH_LOGS", {}, "str", PyValue::str(""),
            "Environment variable of log settings; +cudagraphs logs the cudagraphs decisions at DEBUG",
            "torch/_logging/_internal.py (_parse_log_settings)", true);
        return t;
    }();
    return t;
}

/// Index of the row a name in any accepted spelling belongs to, and whether that spelling is a short form
/// (an options= key).
struct Found {
    size_t index;
    bool shortForm;
};

std::optional<Found> findRow(const std::string& name)
{
    const Table& t = table();
    for (size_t i = 0; i < t.specs.size(); ++i) {
        if (t.specs[i].name == name)
            return Found { i, false };
        for (const std::string& a : t.specs[i].aliases) {
            if (a == name)
                return Found { i, a.rfind("torch.", 0) != 0 };
        }
    }
    return std::nullopt;
}

bool isPyInt(const PyValue& v)
{
    return v.kind == Kind::Int || v.kind == Kind::Bool;
}

int64_t asInt(const PyValue& v)
{
    return v.kind == Kind::Bool ? int64_t(v.b) : v.i;
}

Error fail(const std::string& message, const std::string& written)
{
    return makeError(ErrorCode::InvalidArgument, message, written);
}

/// The short forms of the table, for the "known options" list PyTorch prints.
std::vector<std::string> shortForms()
{
    std::vector<std::string> out;
    for (const CudaOptionSpec& s : table().specs) {
        for (const std::string& a : s.aliases) {
            if (a.rfind("torch.", 0) != 0)
                out.push_back(a);
        }
    }
    return out;
}

/// The table option whose last name component is `key`'s, for a "did you mean" hint: its options= spelling
/// when it has one, else the module path that matched.
std::string guess(const std::string& key)
{
    const std::string last = "." + key.substr(key.rfind('.') + 1);
    auto endsWith = [&](const std::string& n) {
        return n.size() >= last.size() && n.compare(n.size() - last.size(), last.size(), last) == 0;
    };
    for (const CudaOptionSpec& s : table().specs) {
        std::vector<std::string> spellings = s.aliases;
        spellings.insert(spellings.begin(), s.name);
        for (const std::string& n : spellings) {
            if (!endsWith(n))
                continue;
            for (const std::string& a : s.aliases) {
                if (a.rfind("torch.", 0) != 0)
                    return a;
            }
            return n;
        }
    }
    return {};
}

/// Whether `name` is spelled like an environment variable (TORCH_LOGS, TORCHINDUCTOR_CUDAGRAPHS).
bool looksLikeEnvVar(const std::string& name)
{
    bool upper = false;
    for (char c : name) {
        if (c >= 'a' && c <= 'z')
            return false;
        upper = upper || (c >= 'A' && c <= 'Z');
    }
    return upper;
}

class CudaOptionParser {
public:
    Result<void> set(const std::string& name, const PyValue& value)
    {
        m_opts.written.emplace_back(name, value.repr());
        if (name == "mode")
            return setMode(value);
        if (std::optional<Found> f = findRow(name))
            return setRow(name, *f, value);
        if (name.rfind(kInductorPrefix, 0) == 0)
            return unknownModulePath(name, kInductorPrefix, true);
        if (name.rfind(kDynamoPrefix, 0) == 0)
            return unknownModulePath(name, kDynamoPrefix, false);
        if (name.rfind("torch.", 0) == 0)
            return fail(name
                    + ": not an option the simulator takes. It takes torch.compile's mode, dynamic and fullgraph, the "
                      "torch._inductor.config and torch._dynamo.config options of docs/cuda-graph-trees.md §10 and "
                      "TORCH_LOGS.",
                name);
        if (name == "backend" || name == "options" || name == "disable" || name == "model")
            return fail(name + ": torch.compile's " + name
                    + "= argument is not a setting the simulator takes: it models backend='inductor', and each "
                      "options= entry is a setting of its own (triton.cudagraph_trees=False, ...).",
                name);
        if (looksLikeEnvVar(name)) {
            std::string hint = name == "TORCHINDUCTOR_CUDAGRAPHS" ? " (set triton.cudagraphs instead)"
                : name == "TORCHINDUCTOR_CUDAGRAPH_OR_ERROR"      ? " (set triton.cudagraph_or_error instead)"
                                                                  : "";
            return fail(
                name + ": not an environment variable the simulator reads; TORCH_LOGS is the only one" + hint + ".",
                name);
        }
        // apply_options: `attr_name = key.replace("-", "_")`; the texts quote the key as written.
        std::string attr = name;
        std::replace(attr.begin(), attr.end(), '-', '_');
        if (std::optional<Found> f = findRow(attr); f && f->shortForm)
            return setRow(name, *f, value);
        return unknownOptionsKey(name, attr);
    }

    CudaOptions finish()
    {
        // Mode: torch.compile's `if mode is None and options is None: mode = "default"`, then
        // apply_mode's `if mode and mode != "default"`: a false value applies no mode.
        if (m_mode) {
            m_opts.mode = m_mode->value.truthy() ? m_mode->value.s : "default";
            if (!m_mode->value.truthy() && m_mode->value.kind != Kind::None)
                m_opts.notes.push_back("mode=" + m_mode->value.repr()
                    + ": torch.compile applies no mode for a false value, as for mode='default'.");
        } else {
            m_opts.mode = m_optionsKeys.empty() ? "reduce-overhead" : "default";
        }
        if (!m_optionsKeys.empty()) // then mode is absent or None (else set() failed)
            m_opts.notes.push_back(m_optionsKeys.front()
                + " is an entry of torch.compile's options=, which cannot be combined with mode=, so no mode "
                  "applies: triton.cudagraphs comes from options=, torch._inductor.config or its default False.");
        const bool modeSetsCudagraphs = m_opts.mode == "reduce-overhead" || m_opts.mode == "max-autotune";
        if (m_opts.mode == "max-autotune")
            m_opts.notes.push_back("mode='max-autotune' also sets max_autotune and coordinate_descent_tuning (kernel "
                                   "choice), which the simulator does not model.");

        const Table& t = table();
        for (size_t i = 0; i < t.specs.size(); ++i)
            apply(t.fields[i], effective(i, modeSetsCudagraphs && t.fields[i] == Field::Cudagraphs));

        // dynamic=False: enable_dynamic patches automatic_dynamic_shapes=False over the module's value.
        if (m_opts.dynamic == false && m_opts.automaticDynamicShapes) {
            m_opts.automaticDynamicShapes = false;
            if (const Set* s = find(m_module, Field::AutomaticDynamic))
                m_opts.notes.push_back(s->written + "=" + s->value.repr()
                    + ": dynamic=False patches automatic_dynamic_shapes=False over it for torch.compile's compiles.");
        }
        if (!m_opts.cudagraphs)
            m_opts.notes.push_back("triton.cudagraphs is False under mode " + pyStrRepr(m_opts.mode)
                + ": the compiled code runs without CUDA graphs, so CUDA Graph Trees never warm up, record or "
                  "replay.");
        return std::move(m_opts);
    }

private:
    struct Set {
        PyValue value;
        std::string written;
    };
    enum class Form { Argument, Module, OptionsKey };

    static const Set* find(const std::map<Field, Set>& m, Field f)
    {
        auto it = m.find(f);
        return it == m.end() ? nullptr : &it->second;
    }

    /// torch.compile's own check (torch/__init__.py `compile`), before it builds the Inductor wrapper.
    Result<void> conflict(const std::string& written) const
    {
        const std::string key = m_optionsKeys.empty() ? written : m_optionsKeys.front();
        return fail("RuntimeError: Either mode or options can be specified, but both can't be specified at the same "
                    "time. ("
                + key + " is an options= entry: to keep mode=, write it as torch._inductor.config." + key
                + " instead.)",
            written);
    }

    Result<void> setMode(const PyValue& value)
    {
        if (value.kind != Kind::None && !m_optionsKeys.empty())
            return conflict("mode");
        if (value.truthy()
            && !(value.kind == Kind::Str && std::find(kModes.begin(), kModes.end(), value.s) != kModes.end())) {
            // list_mode_options looks the mode up in a dict: a list is unhashable and raises before KeyError.
            if (value.kind == Kind::List)
                return fail("TypeError: unhashable type: 'list'", "mode");
            // torch/_inductor/__init__.py list_mode_options, reached from torch/__init__.py
            // _TorchCompileInductorWrapper.apply_mode (which in 2.11 no longer has a mode list of its own).
            std::string all;
            for (const char* m : kModes)
                all += (all.empty() ? "" : ", ") + std::string(m);
            return fail("RuntimeError: Unrecognized mode=" + value.str() + ", should be one of: " + all, "mode");
        }
        m_mode = Set { value, "mode" };
        return {};
    }

    Result<void> setRow(const std::string& written, const Found& found, const PyValue& value)
    {
        const CudaOptionSpec& spec = table().specs[found.index];
        const Field field = table().fields[found.index];
        Form form = found.shortForm             ? Form::OptionsKey
            : spec.name.rfind("torch.", 0) == 0 ? Form::Module
                                                : Form::Argument;
        if (form == Form::OptionsKey) {
            if (m_mode && m_mode->value.kind != Kind::None)
                return conflict(written);
            m_optionsKeys.push_back(written);
        }
        PyValue v = value;
        if (Result<void> r = check(written, spec, field, form, v); !r)
            return r;
        if (!spec.modelled)
            m_opts.notes.push_back(written + "=" + value.repr()
                + ": accepted, but it changes nothing the simulator models (" + spec.effect + ").");
        (form == Form::OptionsKey ? m_options : form == Form::Module ? m_module : m_args)[field] = Set { v, written };
        return {};
    }

    /// Checks (and normalises) a value for `spec`'s type, with PyTorch's text where PyTorch checks.
    Result<void> check(const std::string& written, const CudaOptionSpec& spec, Field field, Form form, PyValue& v)
    {
        const std::string& type = spec.type;
        const std::string repr = v.repr();
        // torch/__init__.py _TorchCompileInductorWrapper.apply_options: `isinstance(val, attr_type)` where the
        // option's type is a plain class (bool, int); Optional[...] types are not checked.
        auto optionsTypeError = [&](const char* expected) {
            return fail(
                "RuntimeError: Unexpected type of attr " + written + ", got " + v.typeName() + " should be " + expected,
                written);
        };
        // torch/utils/_config_module.py ConfigModule.__setattr__ checks the name only; apply_options skips
        // the type check of an Optional[...] option.
        auto unchecked = [&](const std::string& expected, const std::string& use) {
            return fail(written + "=" + repr + ": PyTorch would take this without a check ("
                    + (form == Form::OptionsKey ? "options= does not check the type of an Optional option"
                                                : "a config module checks only the name")
                    + ") and " + use + "; the simulator takes " + expected + ".",
                written);
        };
        if (field == Field::Dynamic) {
            if (v.kind == Kind::None || v.kind == Kind::Bool)
                return {};
            return fail("dynamic=" + repr
                    + ": torch.compile does not check this argument; Dynamo tests it against None, then for truth ("
                    + (v.truthy() ? "True" : "False") + "). The simulator takes only None, True or False.",
                written);
        }
        if (field == Field::TorchLogs) {
            if (v.kind == Kind::Str)
                return {};
            return fail("TORCH_LOGS=" + repr
                    + ": TORCH_LOGS is an environment variable, so its value is a string such as "
                      "'+cudagraphs,recompiles'.",
                written);
        }
        if (type == "bool") {
            if (v.kind == Kind::Bool)
                return {};
            if (form == Form::OptionsKey)
                return optionsTypeError("bool");
            if (form == Form::Argument)
                return fail(written + "=" + repr
                        + ": torch.compile does not check this argument and tests it for truth ("
                        + (v.truthy() ? "True" : "False") + "). The simulator takes only True or False.",
                    written);
            return unchecked("only True or False", "hand " + repr + " to code that expects a bool");
        }
        if (type == "int" || type == "optional_int") {
            if (type == "optional_int" && v.kind == Kind::None)
                return {};
            if (v.kind == Kind::Int)
                return {};
            if (v.kind == Kind::Bool) {
                m_opts.notes.push_back(written + "=" + repr + ": a bool is an int to Python, so PyTorch takes it as "
                    + std::to_string(asInt(v)) + ".");
                v = PyValue::integer(asInt(v));
                return {};
            }
            if (form == Form::OptionsKey && type == "int")
                return optionsTypeError("int");
            return unchecked(type == "int" ? "only an int" : "an int or None",
                "hand " + repr + " to code that expects " + (type == "int" ? "an int" : "an int or None"));
        }
        // int_tuples: triton.cudagraph_capture_sizes.
        if (v.kind == Kind::None)
            return {};
        const std::string expected = "None, or a list or tuple of ints and tuples of ints";
        const std::string use = "test each call's size key with `key in " + repr + "`";
        if (v.kind != Kind::List && v.kind != Kind::Tuple)
            return unchecked(expected, use);
        for (const PyValue& e : v.items) {
            bool ok = isPyInt(e);
            if (e.kind == Kind::List || e.kind == Kind::Tuple)
                ok = std::all_of(e.items.begin(), e.items.end(), [](const PyValue& x) { return isPyInt(x); });
            if (!ok)
                return unchecked(expected, use);
        }
        return {};
    }

    /// A module path outside the table: PyTorch's AttributeError when the module has no such attribute,
    /// else this product's text (a real option the simulator does not take).
    Result<void> unknownModulePath(const std::string& name, const std::string& prefix, bool inductor)
    {
        const std::string module = prefix.substr(0, prefix.size() - 1);
        const std::string key = name.substr(prefix.size());
        auto has = [&](const std::string& k) {
            return inductor ? detail::inductorConfigHas(k) : detail::dynamoConfigHas(k);
        };
        auto group = [&](const std::string& k) { return inductor && detail::inductorConfigHasGroup(k); };
        // `a.b.c = v` reads a, then a.b (a group is a SubConfigProxy; ConfigModule.__getattr__ raises for a
        // missing name), then sets c: the first missing component is the one PyTorch names.
        for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
            const std::string head = key.substr(0, dot);
            if (has(head))
                return fail(name + ": " + module + "." + head + " is an option, not a group of options.", name);
            if (!group(head))
                return fail("AttributeError: " + module + "." + head + " does not exist", name);
        }
        // ConfigModule.__setattr__ (torch/utils/_config_module.py): `raise AttributeError(f"{self.__name__}.{name}
        // does not exist")`; a group is not a settable name either.
        if (!has(key))
            return fail("AttributeError: " + module + "." + key + " does not exist", name);
        return fail(name
                + ": PyTorch 2.11 has this option, but it is not one of the CUDA Graph Trees options the simulator "
                  "takes (docs/cuda-graph-trees.md §10).",
            name);
    }

    /// An options= key outside the table (torch/__init__.py _TorchCompileInductorWrapper.apply_options).
    Result<void> unknownOptionsKey(const std::string& name, const std::string& attr)
    {
        if (m_mode && m_mode->value.kind != Kind::None)
            return conflict(name);
        if (detail::inductorConfigHas(attr))
            return fail(name
                    + ": PyTorch 2.11's Inductor has this option, but it is not one of the CUDA Graph Trees "
                      "options the simulator takes (docs/cuda-graph-trees.md §10).",
                name);
        const std::string hint = guess(attr);
        // PyTorch lists every Inductor option (543 in 2.11); the list here is the table's.
        return fail("RuntimeError: Unexpected optimization option " + name + ", known options are "
                + pyStrList(shortForms())
                + " (shortened to the CUDA Graph Trees options; PyTorch lists all of Inductor's"
                + (hint.empty() ? "" : "; did you mean " + hint + "?") + ")",
            name);
    }

    /// The value an option takes: options= entry, else the mode's patch, else the module's value, else the
    /// default. Notes a module value that a patch overrides.
    PyValue effective(size_t index, bool modePatch)
    {
        const Field f = table().fields[index];
        const Set* module = find(m_module, f);
        const Set* patch = find(m_options, f);
        if (const Set* a = find(m_args, f))
            return a->value;
        if (patch || modePatch) {
            const PyValue v = patch ? patch->value : PyValue::boolean(true);
            if (module && module->value.repr() != v.repr())
                m_opts.notes.push_back(module->written + "=" + module->value.repr() + " is overridden by "
                    + (patch         ? "the options= entry " + patch->written + "=" + v.repr()
                            : m_mode ? "mode=" + pyStrRepr(m_opts.mode) + ", which sets triton.cudagraphs=True"
                                     : "the assumed mode='reduce-overhead', which sets triton.cudagraphs=True")
                    + ": torch.compile patches the config for its compiles over the module's value.");
            return v;
        }
        return module ? module->value : table().specs[index].defaultValue;
    }

    void captureSizes(const PyValue& v)
    {
        if (v.kind == Kind::None)
            return; // stays nullopt
        std::vector<std::vector<int64_t>> sizes;
        bool tookLists = false;
        std::vector<std::string> dead;
        for (const PyValue& e : v.items) {
            if (isPyInt(e)) {
                sizes.push_back({ asInt(e) });
                continue;
            }
            // A graph with one size input has a bare int as its key, several a tuple: an entry of fewer
            // than two ints equals no key.
            if (e.items.size() < 2) {
                dead.push_back(e.repr());
                continue;
            }
            tookLists = tookLists || e.kind == Kind::List;
            std::vector<int64_t> key;
            for (const PyValue& x : e.items)
                key.push_back(asInt(x));
            sizes.push_back(std::move(key));
        }
        m_opts.captureSizes = std::move(sizes);
        const Set* s = find(m_options, Field::CaptureSizes);
        const std::string who = s ? s->written : find(m_module, Field::CaptureSizes)->written;
        if (tookLists)
            m_opts.notes.push_back(who
                + ": PyTorch matches a key of several sizes only against a tuple (a tuple never "
                  "equals a list); the lists are taken here as tuples because JSON has none.");
        for (const std::string& d : dead)
            m_opts.notes.push_back(who + ": the entry " + d + " matches no call: a graph with one size input has the "
                + "bare int as its key (write the int), and a graph with several has a tuple of them all.");
    }

    void apply(Field f, const PyValue& v)
    {
        switch (f) {
        case Field::Mode:
            return; // decided in finish()
        case Field::Dynamic:
            m_opts.dynamic = v.kind == Kind::None ? std::nullopt : std::optional<bool>(v.b);
            return;
        case Field::Fullgraph:
            m_opts.fullgraph = v.b;
            return;
        case Field::Cudagraphs:
            m_opts.cudagraphs = v.b;
            return;
        case Field::CudagraphTrees:
            m_opts.cudagraphTrees = v.b;
            return;
        case Field::SkipDynamicGraphs:
            m_opts.skipDynamicGraphs = v.b;
            return;
        case Field::CaptureSizes:
            return captureSizes(v);
        case Field::WarnLimit:
            m_opts.dynamicShapeWarnLimit = v.kind == Kind::None ? std::nullopt : std::optional<int64_t>(v.i);
            return;
        case Field::RerecordLimit:
            m_opts.unexpectedRerecordLimit = v.i;
            return;
        case Field::SupportInputMutation:
            m_opts.supportInputMutation = v.b;
            return;
        case Field::ForceWarmup:
            m_opts.forceCudagraphsWarmup = v.b;
            return;
        case Field::SkipWarmup:
            m_opts.skipCudagraphWarmup = v.b;
            return;
        case Field::OrError:
            m_opts.cudagraphOrError = v.b;
            return;
        case Field::InlineInbuilt:
            m_opts.inlineInbuiltNnModules = v.b;
            return;
        case Field::RecompileLimit:
            m_opts.recompileLimit = v.i;
            return;
        case Field::AccumulatedLimit:
            m_opts.accumulatedRecompileLimit = v.i;
            return;
        case Field::FailOnLimitHit:
            m_opts.failOnRecompileLimitHit = v.b;
            return;
        case Field::AutomaticDynamic:
            m_opts.automaticDynamicShapes = v.b;
            return;
        case Field::TorchLogs:
            m_opts.torchLogs = v.s;
            return;
        case Field::SlowPathAsserts:
        case Field::FastPathAsserts:
        case Field::HistoryRecording:
        case Field::Objgraph:
        case Field::ForceSync:
            return; // accepted, not modelled
        case Field::GraphPartition:
            m_opts.graphPartition = v.b;
            return;
        }
    }

    CudaOptions m_opts;
    std::optional<Set> m_mode;
    std::vector<std::string> m_optionsKeys; ///< options= entries as written, in order
    std::map<Field, Set> m_module; ///< config module assignments, last wins
    std::map<Field, Set> m_options; ///< options= entries, last wins
    std::map<Field, Set> m_args; ///< dynamic, fullgraph, TORCH_LOGS
};

} // namespace

const std::vector<CudaOptionSpec>& cudaOptionTable()
{
    return table().specs;
}

const CudaOptionSpec* findCudaOption(const std::string& name)
{
    std::optional<Found> f = findRow(name);
    return f ? &table().specs[f->index] : nullptr;
}

bool CudaOptions::debugCudagraphsLogging() const
{
    // torch/_logging/_internal.py _parse_log_settings removes whitespace, then splits at commas.
    std::string entry;
    for (size_t k = 0; k <= torchLogs.size(); ++k) {
        const char c = k < torchLogs.size() ? torchLogs[k] : ',';
        if (c == ',') {
            if (entry == "+cudagraphs")
                return true;
            entry.clear();
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
            entry += c;
        }
    }
    return false;
}

Result<CudaOptions> parseCudaOptions(const std::vector<std::pair<std::string, PyValue>>& settings)
{
    CudaOptionParser parser;
    for (const auto& [name, value] : settings) {
        Result<void> r = parser.set(name, value);
        if (!r)
            return r.error();
    }
    return parser.finish();
}

} // namespace engine::config
