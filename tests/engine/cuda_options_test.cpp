#include "engine/config/cuda_options.h"
#include "engine/config/torch_config_names.h"

#include <functional>
#include <gtest/gtest.h>
#include <set>

using engine::PyValue;
using namespace engine::config;

namespace {

using Settings = std::vector<std::pair<std::string, PyValue>>;

PyValue T()
{
    return PyValue::boolean(true);
}
PyValue F()
{
    return PyValue::boolean(false);
}
PyValue I(int64_t v)
{
    return PyValue::integer(v);
}
PyValue S(const char* v)
{
    return PyValue::str(v);
}
PyValue None()
{
    return PyValue::none();
}
PyValue Tup(std::vector<PyValue> v)
{
    return PyValue::tuple(std::move(v));
}
PyValue List(std::vector<PyValue> v)
{
    return PyValue::list(std::move(v));
}

CudaOptions parsedOk(const Settings& s)
{
    auto r = parseCudaOptions(s);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : CudaOptions {};
}

/// The error of `s`; also checks the code and that the context is `context` (the name as written).
std::string errorOf(const Settings& s, const std::string& context)
{
    auto r = parseCudaOptions(s);
    EXPECT_FALSE(r.ok()) << context;
    if (r.ok())
        return {};
    EXPECT_EQ(r.error().code, engine::ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().context, context);
    return r.error().message;
}

std::string errorOf(const std::string& name, const PyValue& value)
{
    return errorOf({ { name, value } }, name);
}

bool contains(const std::vector<std::string>& lines, const std::string& part)
{
    for (const std::string& l : lines) {
        if (l.find(part) != std::string::npos)
            return true;
    }
    return false;
}

const std::string kIndu = "torch._inductor.config.";
const std::string kDyn = "torch._dynamo.config.";

const std::string kModes = "default, lite, reduce-overhead, max-autotune-no-cudagraphs, max-autotune";
const std::string kConflict
    = "RuntimeError: Either mode or options can be specified, but both can't be specified at the same time.";
const std::string kKnown
    = "['triton.cudagraphs', 'triton.cudagraph_trees', 'triton.cudagraph_skip_dynamic_graphs', "
      "'triton.cudagraph_capture_sizes', 'triton.cudagraph_dynamic_shape_warn_limit', "
      "'triton.cudagraph_unexpected_rerecord_limit', 'triton.cudagraph_support_input_mutation', "
      "'triton.slow_path_cudagraph_asserts', 'triton.fast_path_cudagraph_asserts', "
      "'triton.cudagraph_trees_history_recording', 'triton.cudagraph_trees_objgraph', 'triton.force_cudagraph_sync', "
      "'triton.force_cudagraphs_warmup', 'triton.skip_cudagraph_warmup', 'triton.cudagraph_or_error', "
      "'graph_partition']";

/// Every spelling of a table option: its module path (or argument name) and its aliases.
std::vector<std::string> spellings(const std::string& name)
{
    const CudaOptionSpec* s = findCudaOption(name);
    EXPECT_NE(s, nullptr) << name;
    if (!s)
        return {};
    std::vector<std::string> out { s->name };
    out.insert(out.end(), s->aliases.begin(), s->aliases.end());
    return out;
}

} // namespace

TEST(CudaOptions, Defaults)
{
    CudaOptions o = parsedOk({});
    EXPECT_EQ(o.mode, "reduce-overhead");
    EXPECT_FALSE(o.dynamic.has_value());
    EXPECT_FALSE(o.fullgraph);
    EXPECT_TRUE(o.cudagraphs);
    EXPECT_TRUE(o.cudagraphTrees);
    EXPECT_FALSE(o.skipDynamicGraphs);
    EXPECT_FALSE(o.captureSizes.has_value());
    EXPECT_EQ(o.dynamicShapeWarnLimit, std::optional<int64_t>(8));
    EXPECT_EQ(o.unexpectedRerecordLimit, 128);
    EXPECT_TRUE(o.supportInputMutation);
    EXPECT_FALSE(o.forceCudagraphsWarmup);
    EXPECT_FALSE(o.skipCudagraphWarmup);
    EXPECT_FALSE(o.cudagraphOrError);
    EXPECT_TRUE(o.inlineInbuiltNnModules);
    EXPECT_EQ(o.recompileLimit, 8);
    EXPECT_EQ(o.accumulatedRecompileLimit, 256);
    EXPECT_FALSE(o.failOnRecompileLimitHit);
    EXPECT_TRUE(o.automaticDynamicShapes);
    EXPECT_EQ(o.torchLogs, "");
    EXPECT_FALSE(o.debugCudagraphsLogging());
    EXPECT_TRUE(o.written.empty());
    EXPECT_TRUE(o.warnings.empty());
    EXPECT_TRUE(o.notes.empty());
}

TEST(CudaOptionTable, RowsAndModelledFlags)
{
    const auto& table = cudaOptionTable();
    EXPECT_EQ(table.size(), 25u);
    std::set<std::string> notModelled;
    for (const CudaOptionSpec& s : table) {
        EXPECT_FALSE(s.effect.empty()) << s.name;
        EXPECT_FALSE(s.source.empty()) << s.name;
        EXPECT_FALSE(s.type.empty()) << s.name;
        EXPECT_EQ(s.effect.find('\n'), std::string::npos) << s.name;
        if (!s.modelled)
            notModelled.insert(s.name);
        // Every Inductor option is also taken the way torch.compile's options= takes it.
        if (s.name.rfind(kIndu, 0) == 0) {
            ASSERT_FALSE(s.aliases.empty()) << s.name;
            EXPECT_EQ(kIndu + s.aliases[0], s.name);
        }
    }
    EXPECT_EQ(notModelled,
        (std::set<std::string> { kIndu + "triton.slow_path_cudagraph_asserts",
            kIndu + "triton.fast_path_cudagraph_asserts", kIndu + "triton.cudagraph_trees_history_recording",
            kIndu + "triton.cudagraph_trees_objgraph", kIndu + "triton.force_cudagraph_sync" }));

    const CudaOptionSpec* mode = findCudaOption("mode");
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ(mode->type, "choice");
    std::string choices;
    for (const PyValue& c : mode->choices)
        choices += (choices.empty() ? "" : ", ") + c.s;
    EXPECT_EQ(choices, kModes);
    EXPECT_EQ(findCudaOption(kIndu + "triton.cudagraphs")->defaultValue.repr(), "False");
    EXPECT_EQ(findCudaOption(kIndu + "triton.cudagraph_dynamic_shape_warn_limit")->type, "optional_int");
    EXPECT_EQ(findCudaOption(kIndu + "triton.cudagraph_dynamic_shape_warn_limit")->defaultValue.repr(), "8");
    EXPECT_EQ(findCudaOption(kIndu + "triton.cudagraph_capture_sizes")->type, "int_tuples");
    EXPECT_EQ(findCudaOption(kIndu + "triton.cudagraph_unexpected_rerecord_limit")->defaultValue.repr(), "128");
    EXPECT_EQ(findCudaOption(kIndu + "graph_partition")->defaultValue.repr(), "True");
    EXPECT_EQ(findCudaOption(kDyn + "accumulated_recompile_limit")->defaultValue.repr(), "256");
    EXPECT_EQ(findCudaOption("dynamic")->type, "optional_bool");
    EXPECT_EQ(findCudaOption("TORCH_LOGS")->type, "str");
}

TEST(CudaOptionTable, FindsEverySpelling)
{
    for (const CudaOptionSpec& s : cudaOptionTable()) {
        EXPECT_EQ(findCudaOption(s.name), &s);
        for (const std::string& a : s.aliases)
            EXPECT_EQ(findCudaOption(a), &s) << a;
    }
    EXPECT_EQ(findCudaOption(kDyn + "cache_size_limit"), findCudaOption(kDyn + "recompile_limit"));
    EXPECT_EQ(
        findCudaOption(kDyn + "accumulated_cache_size_limit"), findCudaOption(kDyn + "accumulated_recompile_limit"));
    EXPECT_EQ(findCudaOption(kDyn + "fail_on_cache_limit_hit"), findCudaOption(kDyn + "fail_on_recompile_limit_hit"));
    EXPECT_EQ(findCudaOption("triton.cudagraph_trees"), findCudaOption(kIndu + "triton.cudagraph_trees"));
    EXPECT_EQ(findCudaOption(kIndu + "triton.nope"), nullptr);
    EXPECT_EQ(findCudaOption("cudagraph_trees"), nullptr);
    EXPECT_EQ(findCudaOption("recompile_limit"), nullptr); // options= takes Inductor options only
}

// Every row, in every spelling, set to its default: accepted, recorded as written.
TEST(CudaOptions, EverySpellingTakesItsDefault)
{
    for (const CudaOptionSpec& s : cudaOptionTable()) {
        for (const std::string& name : spellings(s.name)) {
            CudaOptions o = parsedOk({ { name, s.defaultValue } });
            ASSERT_EQ(o.written.size(), 1u) << name;
            EXPECT_EQ(o.written[0].first, name);
            EXPECT_EQ(o.written[0].second, s.defaultValue.repr());
        }
    }
}

// Each modelled option, in each of its spellings, set to a value other than its default.
TEST(CudaOptions, EverySpellingSetsItsField)
{
    struct Case {
        std::string name;
        PyValue value;
        std::function<bool(const CudaOptions&)> took;
    };
    const std::vector<Case> cases = {
        { "dynamic", T(), [](const CudaOptions& o) { return o.dynamic == true; } },
        { "fullgraph", T(), [](const CudaOptions& o) { return o.fullgraph; } },
        { kIndu + "triton.cudagraph_trees", F(), [](const CudaOptions& o) { return !o.cudagraphTrees; } },
        { kIndu + "triton.cudagraph_skip_dynamic_graphs", T(),
            [](const CudaOptions& o) { return o.skipDynamicGraphs; } },
        { kIndu + "triton.cudagraph_capture_sizes", Tup({ I(4) }),
            [](const CudaOptions& o) { return o.captureSizes == std::vector<std::vector<int64_t>> { { 4 } }; } },
        { kIndu + "triton.cudagraph_dynamic_shape_warn_limit", None(),
            [](const CudaOptions& o) { return !o.dynamicShapeWarnLimit.has_value(); } },
        { kIndu + "triton.cudagraph_unexpected_rerecord_limit", I(3),
            [](const CudaOptions& o) { return o.unexpectedRerecordLimit == 3; } },
        { kIndu + "triton.cudagraph_support_input_mutation", F(),
            [](const CudaOptions& o) { return !o.supportInputMutation; } },
        { kIndu + "triton.force_cudagraphs_warmup", T(), [](const CudaOptions& o) { return o.forceCudagraphsWarmup; } },
        { kIndu + "triton.skip_cudagraph_warmup", T(), [](const CudaOptions& o) { return o.skipCudagraphWarmup; } },
        { kIndu + "triton.cudagraph_or_error", T(), [](const CudaOptions& o) { return o.cudagraphOrError; } },
        { kDyn + "inline_inbuilt_nn_modules", F(), [](const CudaOptions& o) { return !o.inlineInbuiltNnModules; } },
        { kDyn + "recompile_limit", I(2), [](const CudaOptions& o) { return o.recompileLimit == 2; } },
        { kDyn + "accumulated_recompile_limit", I(9),
            [](const CudaOptions& o) { return o.accumulatedRecompileLimit == 9; } },
        { kDyn + "fail_on_recompile_limit_hit", T(), [](const CudaOptions& o) { return o.failOnRecompileLimitHit; } },
        { kDyn + "automatic_dynamic_shapes", F(), [](const CudaOptions& o) { return !o.automaticDynamicShapes; } },
        { "TORCH_LOGS", S("recompiles"), [](const CudaOptions& o) { return o.torchLogs == "recompiles"; } },
    };
    for (const Case& c : cases) {
        for (const std::string& name : spellings(c.name)) {
            CudaOptions o = parsedOk({ { name, c.value } });
            EXPECT_TRUE(c.took(o)) << name;
        }
    }
    // triton.cudagraphs: under options= (no mode) and under a mode that does not set it.
    EXPECT_TRUE(parsedOk({ { "triton.cudagraphs", T() } }).cudagraphs);
    EXPECT_FALSE(parsedOk({ { "triton.cudagraphs", F() } }).cudagraphs);
    EXPECT_TRUE(parsedOk({ { "mode", S("default") }, { kIndu + "triton.cudagraphs", T() } }).cudagraphs);
}

TEST(CudaOptions, ModesAndCudagraphs)
{
    for (const char* m : { "reduce-overhead", "max-autotune" }) {
        CudaOptions o = parsedOk({ { "mode", S(m) } });
        EXPECT_EQ(o.mode, m);
        EXPECT_TRUE(o.cudagraphs) << m;
        EXPECT_FALSE(contains(o.notes, "without CUDA graphs")) << m;
    }
    EXPECT_TRUE(contains(parsedOk({ { "mode", S("max-autotune") } }).notes, "coordinate_descent_tuning"));
    for (const char* m : { "default", "lite", "max-autotune-no-cudagraphs" }) {
        CudaOptions o = parsedOk({ { "mode", S(m) } });
        EXPECT_EQ(o.mode, m);
        EXPECT_FALSE(o.cudagraphs) << m;
        EXPECT_EQ(o.notes,
            std::vector<std::string> { "triton.cudagraphs is False under mode '" + std::string(m)
                + "': the compiled code runs without CUDA graphs, so CUDA Graph Trees never warm up, record or "
                  "replay." });
    }
    // mode=None is torch.compile's default; a false value applies no mode either.
    CudaOptions none = parsedOk({ { "mode", None() } });
    EXPECT_EQ(none.mode, "default");
    EXPECT_FALSE(none.cudagraphs);
    EXPECT_FALSE(contains(none.notes, "false value"));
    for (const PyValue& v : { F(), S(""), I(0) }) {
        CudaOptions o = parsedOk({ { "mode", v } });
        EXPECT_EQ(o.mode, "default") << v.repr();
        EXPECT_FALSE(o.cudagraphs);
        EXPECT_TRUE(contains(o.notes, "mode=" + v.repr() + ": torch.compile applies no mode for a false value"));
    }
}

TEST(CudaOptions, LaterSettingOverridesEarlierOneOfTheSameForm)
{
    CudaOptions m = parsedOk({ { kDyn + "recompile_limit", I(4) }, { kDyn + "cache_size_limit", I(6) } });
    EXPECT_EQ(m.recompileLimit, 6);
    CudaOptions m2 = parsedOk({ { kDyn + "cache_size_limit", I(6) }, { kDyn + "recompile_limit", I(4) } });
    EXPECT_EQ(m2.recompileLimit, 4);
    CudaOptions s = parsedOk({ { "triton.cudagraph_unexpected_rerecord_limit", I(5) },
        { "triton.cudagraph_unexpected_rerecord_limit", I(7) } });
    EXPECT_EQ(s.unexpectedRerecordLimit, 7);
    CudaOptions a = parsedOk({ { "dynamic", T() }, { "dynamic", None() } });
    EXPECT_FALSE(a.dynamic.has_value());
    EXPECT_EQ(
        a.written, (std::vector<std::pair<std::string, std::string>> { { "dynamic", "True" }, { "dynamic", "None" } }));
}

// torch.compile patches its options= entries and its mode's options over the config module's values,
// whatever the order.
TEST(CudaOptions, PatchesBeatModuleAssignments)
{
    const std::string limit = kIndu + "triton.cudagraph_unexpected_rerecord_limit";
    const std::string note = limit
        + "=3 is overridden by the options= entry triton.cudagraph_unexpected_rerecord_limit=9: torch.compile patches "
          "the config for its compiles over the module's value.";
    for (bool moduleFirst : { true, false }) {
        Settings s { { limit, I(3) }, { "triton.cudagraph_unexpected_rerecord_limit", I(9) } };
        if (!moduleFirst)
            std::swap(s[0], s[1]);
        CudaOptions o = parsedOk(s);
        EXPECT_EQ(o.unexpectedRerecordLimit, 9);
        EXPECT_TRUE(contains(o.notes, note)) << moduleFirst;
    }
    const std::string cg = kIndu + "triton.cudagraphs";
    for (bool moduleFirst : { true, false }) {
        Settings s { { cg, F() }, { "mode", S("reduce-overhead") } };
        if (!moduleFirst)
            std::swap(s[0], s[1]);
        CudaOptions o = parsedOk(s);
        EXPECT_TRUE(o.cudagraphs);
        EXPECT_TRUE(
            contains(o.notes, cg + "=False is overridden by mode='reduce-overhead', which sets triton.cudagraphs=True"))
            << moduleFirst;
    }
    // The assumed mode (no mode, no options=) does the same, and says it was assumed.
    CudaOptions assumed = parsedOk({ { cg, F() } });
    EXPECT_TRUE(assumed.cudagraphs);
    EXPECT_TRUE(contains(assumed.notes, "the assumed mode='reduce-overhead'"));
    // A module value equal to the patch is not worth a note.
    EXPECT_TRUE(parsedOk({ { cg, T() } }).notes.empty());
    // A mode that sets nothing leaves the module's value.
    CudaOptions def = parsedOk({ { "mode", S("max-autotune-no-cudagraphs") }, { cg, T() } });
    EXPECT_TRUE(def.cudagraphs);
    EXPECT_TRUE(def.notes.empty());
}

TEST(CudaOptions, OptionsWithoutModeApplyNoMode)
{
    CudaOptions o = parsedOk({ { "triton.cudagraph_skip_dynamic_graphs", T() } });
    EXPECT_EQ(o.mode, "default");
    EXPECT_FALSE(o.cudagraphs);
    EXPECT_TRUE(o.skipDynamicGraphs);
    EXPECT_TRUE(contains(o.notes,
        "triton.cudagraph_skip_dynamic_graphs is an entry of torch.compile's options=, which cannot be combined with "
        "mode=, so no mode applies"));
    EXPECT_TRUE(contains(o.notes, "triton.cudagraphs is False under mode 'default'"));
    CudaOptions on = parsedOk({ { "triton.cudagraph_skip_dynamic_graphs", T() }, { "triton.cudagraphs", T() } });
    EXPECT_TRUE(on.cudagraphs);
    EXPECT_FALSE(contains(on.notes, "without CUDA graphs"));
    // mode=None is no mode, so it goes with options=.
    CudaOptions n = parsedOk({ { "mode", None() }, { "triton.cudagraphs", T() } });
    EXPECT_TRUE(n.cudagraphs);
    EXPECT_EQ(n.mode, "default");
    EXPECT_EQ(n.notes,
        std::vector<std::string> { "triton.cudagraphs is an entry of torch.compile's options=, which cannot be "
                                   "combined with mode=, so no mode applies: triton.cudagraphs comes from options=, "
                                   "torch._inductor.config or its default False." });
}

TEST(CudaOptions, ModeAndOptionsTogetherFail)
{
    const std::string hint = " (triton.cudagraph_trees is an options= entry: to keep mode=, write it as "
                             "torch._inductor.config.triton.cudagraph_trees instead.)";
    EXPECT_EQ(
        errorOf({ { "mode", S("reduce-overhead") }, { "triton.cudagraph_trees", T() } }, "triton.cudagraph_trees"),
        kConflict + hint);
    EXPECT_EQ(errorOf({ { "triton.cudagraph_trees", T() }, { "mode", S("default") } }, "mode"), kConflict + hint);
    // torch.compile tests `mode is not None`: a false mode still conflicts, and the conflict comes first.
    EXPECT_EQ(
        errorOf({ { "mode", S("") }, { "triton.nope", T() } }, "triton.nope").substr(0, kConflict.size()), kConflict);
    EXPECT_EQ(errorOf({ { "triton.cudagraph_trees", T() }, { "mode", S("fast") } }, "mode").substr(0, kConflict.size()),
        kConflict);
    // The module path is not options=.
    EXPECT_TRUE(parsedOk({ { "mode", S("reduce-overhead") }, { kIndu + "triton.cudagraph_trees", T() } }).cudagraphs);
}

TEST(CudaOptions, UnrecognizedMode)
{
    EXPECT_EQ(errorOf("mode", S("fast")), "RuntimeError: Unrecognized mode=fast, should be one of: " + kModes);
    EXPECT_EQ(errorOf("mode", S("Reduce-Overhead")),
        "RuntimeError: Unrecognized mode=Reduce-Overhead, should be one of: " + kModes);
    EXPECT_EQ(errorOf("mode", I(3)), "RuntimeError: Unrecognized mode=3, should be one of: " + kModes);
    EXPECT_EQ(errorOf("mode", T()), "RuntimeError: Unrecognized mode=True, should be one of: " + kModes);
    EXPECT_EQ(errorOf("mode", Tup({ I(1) })), "RuntimeError: Unrecognized mode=(1,), should be one of: " + kModes);
    EXPECT_EQ(errorOf("mode", List({ S("default") })), "TypeError: unhashable type: 'list'");
}

TEST(CudaOptions, OptionsTypeErrorsUsePyTorchText)
{
    EXPECT_EQ(errorOf("triton.cudagraph_trees", I(1)),
        "RuntimeError: Unexpected type of attr triton.cudagraph_trees, got int should be bool");
    EXPECT_EQ(errorOf("triton.cudagraphs", None()),
        "RuntimeError: Unexpected type of attr triton.cudagraphs, got NoneType should be bool");
    EXPECT_EQ(errorOf("graph_partition", S("True")),
        "RuntimeError: Unexpected type of attr graph_partition, got str should be bool");
    EXPECT_EQ(errorOf("triton.cudagraph_unexpected_rerecord_limit", PyValue::real(8.0)),
        "RuntimeError: Unexpected type of attr triton.cudagraph_unexpected_rerecord_limit, got float should be int");
    // apply_options replaces '-' by '_' to find the option and quotes the key as written.
    EXPECT_EQ(errorOf("triton.cudagraph-trees", I(1)),
        "RuntimeError: Unexpected type of attr triton.cudagraph-trees, got int should be bool");
    CudaOptions dashed = parsedOk({ { "triton.cudagraph-trees", F() } });
    EXPECT_FALSE(dashed.cudagraphTrees);
    EXPECT_EQ(dashed.written[0].first, "triton.cudagraph-trees");
}

// Where PyTorch checks no type (config module assignments, Optional options in options=, torch.compile's
// own arguments), the text is this product's and says so.
TEST(CudaOptions, UncheckedTypesGetOurText)
{
    const std::string trees = kIndu + "triton.cudagraph_trees";
    EXPECT_EQ(errorOf(trees, I(1)),
        trees
            + "=1: PyTorch would take this without a check (a config module checks only the name) and hand 1 to code "
              "that expects a bool; the simulator takes only True or False.");
    EXPECT_EQ(errorOf(kDyn + "recompile_limit", S("8")),
        kDyn
            + "recompile_limit='8': PyTorch would take this without a check (a config module checks only the name) "
              "and hand '8' to code that expects an int; the simulator takes only an int.");
    EXPECT_EQ(errorOf("triton.cudagraph_dynamic_shape_warn_limit", PyValue::real(2.5)),
        "triton.cudagraph_dynamic_shape_warn_limit=2.5: PyTorch would take this without a check (options= does not "
        "check the type of an Optional option) and hand 2.5 to code that expects an int or None; the simulator "
        "takes an int or None.");
    EXPECT_EQ(errorOf("dynamic", I(1)),
        "dynamic=1: torch.compile does not check this argument; Dynamo tests it against None, then for truth (True). "
        "The simulator takes only None, True or False.");
    EXPECT_EQ(errorOf("fullgraph", S("")),
        "fullgraph='': torch.compile does not check this argument and tests it for truth (False). The simulator takes "
        "only True or False.");
    EXPECT_EQ(errorOf("TORCH_LOGS", I(1)),
        "TORCH_LOGS=1: TORCH_LOGS is an environment variable, so its value is a string such as "
        "'+cudagraphs,recompiles'.");
}

TEST(CudaOptions, UnknownModulePathsGetAttributeError)
{
    EXPECT_EQ(errorOf(kIndu + "triton.nope", T()), "AttributeError: torch._inductor.config.triton.nope does not exist");
    EXPECT_EQ(errorOf(kIndu + "nope", T()), "AttributeError: torch._inductor.config.nope does not exist");
    EXPECT_EQ(errorOf(kIndu + "nope.x", T()), "AttributeError: torch._inductor.config.nope does not exist");
    EXPECT_EQ(
        errorOf(kIndu + "triton.nope.x", T()), "AttributeError: torch._inductor.config.triton.nope does not exist");
    EXPECT_EQ(errorOf(kIndu + "triton", T()), "AttributeError: torch._inductor.config.triton does not exist");
    EXPECT_EQ(errorOf(kDyn + "nope", T()), "AttributeError: torch._dynamo.config.nope does not exist");
    EXPECT_EQ(
        errorOf(kDyn + "cudagraph_trees", T()), "AttributeError: torch._dynamo.config.cudagraph_trees does not exist");
    EXPECT_EQ(errorOf(kIndu + "triton.cudagraphs.x", T()),
        kIndu + "triton.cudagraphs.x: torch._inductor.config.triton.cudagraphs is an option, not a group of options.");
}

TEST(CudaOptions, RealOptionsOutsideTheTableGetOurText)
{
    const std::string tail = ": PyTorch 2.11 has this option, but it is not one of the CUDA Graph Trees options the "
                             "simulator takes (docs/cuda-graph-trees.md §10).";
    for (const std::string& n : { kIndu + "max_autotune", kIndu + "triton.max_tiles", kDyn + "suppress_errors",
             kDyn + "verbose", kDyn + "skip_code_recursive_on_cache_limit_hit" })
        EXPECT_EQ(errorOf(n, T()), n + tail);
    EXPECT_EQ(errorOf("max_autotune", T()),
        "max_autotune: PyTorch 2.11's Inductor has this option, but it is not one of the CUDA Graph Trees options the "
        "simulator takes (docs/cuda-graph-trees.md §10).");
}

TEST(CudaOptions, UnknownOptionsKeysGetPyTorchText)
{
    const std::string head = "RuntimeError: Unexpected optimization option ";
    const std::string shortened = " (shortened to the CUDA Graph Trees options; PyTorch lists all of Inductor's";
    EXPECT_EQ(errorOf("triton.nope", T()), head + "triton.nope, known options are " + kKnown + shortened + ")");
    EXPECT_EQ(errorOf("cudagraph_trees", T()),
        head + "cudagraph_trees, known options are " + kKnown + shortened + "; did you mean triton.cudagraph_trees?)");
    EXPECT_EQ(errorOf("recompile_limit", I(3)),
        head + "recompile_limit, known options are " + kKnown + shortened
            + "; did you mean torch._dynamo.config.recompile_limit?)");
    EXPECT_EQ(errorOf("cache_size_limit", I(3)),
        head + "cache_size_limit, known options are " + kKnown + shortened
            + "; did you mean torch._dynamo.config.cache_size_limit?)");
}

TEST(CudaOptions, OtherNamesGetAClearText)
{
    EXPECT_EQ(errorOf("torch.compiler.config.x", T()),
        "torch.compiler.config.x: not an option the simulator takes. It takes torch.compile's mode, dynamic and "
        "fullgraph, the torch._inductor.config and torch._dynamo.config options of docs/cuda-graph-trees.md §10 and "
        "TORCH_LOGS.");
    EXPECT_EQ(errorOf("backend", S("eager")),
        "backend: torch.compile's backend= argument is not a setting the simulator takes: it models "
        "backend='inductor', and each options= entry is a setting of its own (triton.cudagraph_trees=False, ...).");
    EXPECT_EQ(errorOf("TORCHINDUCTOR_CUDAGRAPHS", S("1")),
        "TORCHINDUCTOR_CUDAGRAPHS: not an environment variable the simulator reads; TORCH_LOGS is the only one (set "
        "triton.cudagraphs instead).");
    EXPECT_EQ(errorOf("TORCH_COMPILE_DEBUG", S("1")),
        "TORCH_COMPILE_DEBUG: not an environment variable the simulator reads; TORCH_LOGS is the only one.");
}

TEST(CudaOptions, FirstInvalidSettingFails)
{
    EXPECT_EQ(
        errorOf({ { "fullgraph", T() }, { kIndu + "triton.nope", T() }, { "mode", S("fast") } }, kIndu + "triton.nope"),
        "AttributeError: torch._inductor.config.triton.nope does not exist");
}

TEST(CudaOptions, CaptureSizesNormalised)
{
    const std::string name = kIndu + "triton.cudagraph_capture_sizes";
    using Sizes = std::vector<std::vector<int64_t>>;
    CudaOptions o = parsedOk({ { name, List({ I(1), I(2), Tup({ I(3), I(4) }) }) } });
    EXPECT_EQ(o.captureSizes, Sizes({ { 1 }, { 2 }, { 3, 4 } }));
    EXPECT_TRUE(o.notes.empty());
    EXPECT_EQ(
        parsedOk({ { "triton.cudagraph_capture_sizes", Tup({ I(8), T() }) } }).captureSizes, Sizes({ { 8 }, { 1 } }));
    // Set but empty: no size is captured.
    CudaOptions empty = parsedOk({ { name, Tup({}) } });
    ASSERT_TRUE(empty.captureSizes.has_value());
    EXPECT_TRUE(empty.captureSizes->empty());
    // None after a value resets it.
    EXPECT_FALSE(parsedOk({ { name, List({ I(1) }) }, { name, None() } }).captureSizes.has_value());

    // A list where Python needs a tuple is taken as one, with a note.
    CudaOptions lists = parsedOk({ { name, List({ List({ I(2), I(3) }) }) } });
    EXPECT_EQ(lists.captureSizes, Sizes({ { 2, 3 } }));
    EXPECT_EQ(lists.notes,
        std::vector<std::string> { name
            + ": PyTorch matches a key of several sizes only against a tuple (a tuple never equals a list); the lists "
              "are taken here as tuples because JSON has none." });
    // (5,) and () equal no key: dropped, with a note.
    CudaOptions dead = parsedOk({ { name, List({ Tup({ I(5) }), I(6), Tup({}) }) } });
    EXPECT_EQ(dead.captureSizes, Sizes({ { 6 } }));
    EXPECT_TRUE(contains(dead.notes, name + ": the entry (5,) matches no call"));
    EXPECT_TRUE(contains(dead.notes, name + ": the entry () matches no call"));

    const std::string tail = ": PyTorch would take this without a check (a config module checks only the name) and "
                             "test each call's size key with `key in ";
    EXPECT_EQ(errorOf(name, I(4)),
        name + "=4" + tail + "4`; the simulator takes None, or a list or tuple of ints and tuples of ints.");
    for (const PyValue& bad : { S("1,2"), List({ PyValue::real(1.5) }), List({ Tup({ I(1), PyValue::real(2.0) }) }),
             List({ Tup({ I(1), Tup({ I(2), I(3) }) }) }), List({ None() }) }) {
        const std::string message = errorOf(name, bad);
        EXPECT_EQ(message.rfind(name + "=" + bad.repr() + tail, 0), 0u) << message;
    }
    EXPECT_NE(errorOf("triton.cudagraph_capture_sizes", I(4)).find("options= does not check the type of an Optional"),
        std::string::npos);
}

TEST(CudaOptions, NotesForUnmodelledOptions)
{
    for (const char* key : { "triton.slow_path_cudagraph_asserts", "triton.fast_path_cudagraph_asserts",
             "triton.cudagraph_trees_history_recording", "triton.cudagraph_trees_objgraph",
             "triton.force_cudagraph_sync" }) {
        for (const std::string& name : spellings(kIndu + key)) {
            CudaOptions o = parsedOk({ { name, T() } });
            ASSERT_FALSE(o.notes.empty()) << name;
            EXPECT_EQ(o.notes[0].rfind(name + "=True: accepted, but it changes nothing the simulator models (", 0), 0u)
                << o.notes[0];
        }
    }
    CudaOptions trees = parsedOk({ { kIndu + "triton.cudagraph_trees", F() } });
    EXPECT_FALSE(trees.cudagraphTrees);
    EXPECT_TRUE(trees.notes.empty());
    EXPECT_FALSE(parsedOk({ { kIndu + "graph_partition", F() } }).graphPartition);
    // Modelled options set to other values need no note.
    EXPECT_TRUE(parsedOk({ { kIndu + "triton.skip_cudagraph_warmup", T() }, { kDyn + "recompile_limit", I(1) } })
                    .notes.empty());
}

TEST(CudaOptions, BoolForIntIsTakenAsPythonDoes)
{
    CudaOptions o = parsedOk({ { kDyn + "recompile_limit", T() } });
    EXPECT_EQ(o.recompileLimit, 1);
    EXPECT_EQ(o.notes,
        std::vector<std::string> {
            kDyn + "recompile_limit=True: a bool is an int to Python, so PyTorch takes it as 1." });
    // isinstance(False, int) holds, so options= accepts it too.
    EXPECT_EQ(parsedOk({ { "triton.cudagraph_unexpected_rerecord_limit", F() } }).unexpectedRerecordLimit, 0);
    EXPECT_EQ(parsedOk({ { "triton.cudagraph_dynamic_shape_warn_limit", T() } }).dynamicShapeWarnLimit,
        std::optional<int64_t>(1));
}

TEST(CudaOptions, DynamicFalseTurnsAutomaticDynamicShapesOff)
{
    CudaOptions f = parsedOk({ { "dynamic", F() } });
    EXPECT_EQ(f.dynamic, std::optional<bool>(false));
    EXPECT_FALSE(f.automaticDynamicShapes);
    EXPECT_TRUE(f.notes.empty());
    CudaOptions both = parsedOk({ { kDyn + "automatic_dynamic_shapes", T() }, { "dynamic", F() } });
    EXPECT_FALSE(both.automaticDynamicShapes);
    EXPECT_EQ(both.notes,
        std::vector<std::string> { kDyn
            + "automatic_dynamic_shapes=True: dynamic=False patches automatic_dynamic_shapes=False over it for "
              "torch.compile's compiles." });
    CudaOptions t = parsedOk({ { "dynamic", T() } });
    EXPECT_EQ(t.dynamic, std::optional<bool>(true));
    EXPECT_TRUE(t.automaticDynamicShapes);
    EXPECT_FALSE(parsedOk({ { "dynamic", None() } }).dynamic.has_value());
}

TEST(CudaOptions, TorchLogsDebugCudagraphs)
{
    auto debug = [](const char* logs) { return parsedOk({ { "TORCH_LOGS", S(logs) } }).debugCudagraphsLogging(); };
    EXPECT_TRUE(debug("+cudagraphs"));
    EXPECT_TRUE(debug("+cudagraphs,recompiles"));
    EXPECT_TRUE(debug("recompiles, +cudagraphs"));
    EXPECT_TRUE(debug(" + cudagraphs "));
    EXPECT_FALSE(debug("cudagraphs"));
    EXPECT_FALSE(debug("-cudagraphs"));
    EXPECT_FALSE(debug("+cudagraphs_x"));
    EXPECT_FALSE(debug("+cudagraphs.x,recompiles"));
    EXPECT_FALSE(debug(""));
    EXPECT_EQ(parsedOk({ { "TORCH_LOGS", S("+cudagraphs,recompiles") } }).torchLogs, "+cudagraphs,recompiles");
}

TEST(CudaOptions, WrittenInOrderAndNoWarnings)
{
    const Settings s { { "mode", S("reduce-overhead") }, { "dynamic", None() }, { "fullgraph", T() },
        { kIndu + "triton.cudagraph_dynamic_shape_warn_limit", I(3) }, { kDyn + "cache_size_limit", I(16) },
        { "TORCH_LOGS", S("+cudagraphs") } };
    CudaOptions o = parsedOk(s);
    EXPECT_EQ(o.written,
        (std::vector<std::pair<std::string, std::string>> { { "mode", "'reduce-overhead'" }, { "dynamic", "None" },
            { "fullgraph", "True" }, { kIndu + "triton.cudagraph_dynamic_shape_warn_limit", "3" },
            { kDyn + "cache_size_limit", "16" }, { "TORCH_LOGS", "'+cudagraphs'" } }));
    EXPECT_EQ(o.dynamicShapeWarnLimit, std::optional<int64_t>(3));
    EXPECT_EQ(o.recompileLimit, 16);
    EXPECT_TRUE(o.fullgraph);
    EXPECT_TRUE(o.debugCudagraphsLogging());
    // PyTorch prints no warning for a configuration at compile time that this parser knows of.
    EXPECT_TRUE(o.warnings.empty());
    EXPECT_TRUE(o.notes.empty());
}

// The 2.11 name lists know every option of the table (else its spellings would be reported missing).
TEST(CudaOptionTable, EveryModulePathIsAPyTorchName)
{
    for (const CudaOptionSpec& s : cudaOptionTable()) {
        std::vector<std::string> names { s.name };
        names.insert(names.end(), s.aliases.begin(), s.aliases.end());
        for (const std::string& n : names) {
            if (n.rfind(kIndu, 0) == 0) {
                EXPECT_TRUE(detail::inductorConfigHas(n.substr(kIndu.size()))) << n;
            } else if (n.rfind(kDyn, 0) == 0) {
                EXPECT_TRUE(detail::dynamoConfigHas(n.substr(kDyn.size()))) << n;
            } else if (n.find('.') != std::string::npos || n == "graph_partition") {
                EXPECT_TRUE(detail::inductorConfigHas(n)) << n;
            }
        }
    }
    EXPECT_TRUE(detail::inductorConfigHasGroup("triton"));
    EXPECT_FALSE(detail::inductorConfigHasGroup("trito"));
    EXPECT_FALSE(detail::inductorConfigHasGroup("triton.cudagraphs"));
    EXPECT_FALSE(detail::inductorConfigHas("triton"));
    EXPECT_FALSE(detail::dynamoConfigHas("cudagraph_trees"));
}
