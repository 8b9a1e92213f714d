#include "engine/config/options.h"

#include <gtest/gtest.h>

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
PyValue Pair(int64_t a, int64_t b)
{
    return PyValue::tuple({ I(a), I(b) });
}

Options parsedOk(Backend b, const Settings& s)
{
    auto r = parseOptions(b, s);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : Options {};
}

/// The error of a single setting; also checks the code and that the context is the name as written.
std::string errorOf(Backend b, const std::string& name, const PyValue& value)
{
    auto r = parseOptions(b, { { name, value } });
    EXPECT_FALSE(r.ok()) << name << "=" << value.repr();
    if (r.ok())
        return {};
    EXPECT_EQ(r.error().code, engine::ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().context, name);
    return r.error().message;
}

Options optionsFor(Backend b)
{
    Options o;
    o.backend = b;
    return o;
}

bool contains(const std::vector<std::string>& lines, const std::string& part)
{
    for (const std::string& l : lines) {
        if (l.find(part) != std::string::npos)
            return true;
    }
    return false;
}

const std::string kDefaultReduceOverheadWarning
    = "UserWarning: The following torchair config or properties may not take effect or report error in "
      "reduce-overhead mode: config.experimental_config.enable_view_optimize:True, set_dim_gears, dynamo_export, "
      "scope, npu_print";
const std::string kDeprecation = "DeprecationWarning: The \"reduce-overhead\" mode configuration will be deprecated. "
                                 "Please use the \"npugraph_ex\" backend.";
const std::string kFrozen = "UserWarning: When enable frozen_parameter, Parameters and input tensors with immutable "
                            "data_ptr marked by `torch._dynamo.mark_static_address()` will be considered static. "
                            "Please make sure that the Parameters data address remain the same throughout the "
                            "program runtime.";
const std::string kRunEagerly
    = "WARNING: When debug.run_eagerly=True is enabled, the graph FALLS BACK to EAGER execution. Once running "
      "finished, please make sure to disable the debug.run_eagerly=True config to ensure that the graph is compiled "
      "and executed.";
const std::string kForceEager
    = "WARNING: When force_eager=True is enabled, the graph FALLS BACK to EAGER execution. Once running finished, "
      "please make sure to disable the force_eager=True config to ensure that the graph is compiled and executed.";

const std::string kMapperAllowed
    = "['_vllm_aclnn_static_kernel_sym_index', '_vllm_aclnn_static_kernel_sym_range', 'capture_limit', "
      "'clone_input', 'clone_output', 'data_dump_dir', 'data_dump_stage', 'dump_tensor_data', 'force_eager', "
      "'frozen_parameter', 'inplace_pass', 'input_inplace_pass', 'pattern_fusion_pass', "
      "'post_grad_custom_post_pass', 'post_grad_custom_pre_pass', 'remove_cat_ops', 'remove_noop_ops', "
      "'reuse_graph_pool_in_same_fx', 'static_kernel_compile', 'super_kernel_debug_options', "
      "'super_kernel_optimize', 'super_kernel_optimize_options', 'use_graph_pool']";

const std::string kNpugraphExSupported
    = "['_vllm_aclnn_static_kernel_sym_index', '_vllm_aclnn_static_kernel_sym_range', 'capture_error_mode', "
      "'capture_limit', 'clone_input', 'clone_output', 'data_dump_dir', 'data_dump_stage', 'deadlock_check', "
      "'disable_static_kernel_compile_cache', 'dump_tensor_data', 'force_eager', 'force_recapture', "
      "'frozen_parameter', 'inplace_pass', 'input_inplace_pass', 'mode', 'pattern_fusion_pass', "
      "'post_grad_custom_post_pass', 'post_grad_custom_pre_pass', 'remove_cat_ops', 'remove_noop_ops', "
      "'reuse_graph_pool_in_same_fx', 'static_kernel_compile', 'super_kernel_debug_options', "
      "'super_kernel_optimize', 'super_kernel_optimize_options', 'use_graph_pool']";

void expectDefaults(const Options& o)
{
    EXPECT_FALSE(o.frozenParameter);
    EXPECT_FALSE(o.customPool.has_value());
    EXPECT_TRUE(o.reuseInSameFx);
    EXPECT_TRUE(o.cloneInput);
    EXPECT_FALSE(o.cloneOutput);
    EXPECT_EQ(o.captureLimit, 64);
    EXPECT_FALSE(o.forceEager);
    EXPECT_FALSE(o.forceRecapture);
    EXPECT_TRUE(o.removeNoopOps);
    EXPECT_TRUE(o.patternFusionPass);
    EXPECT_TRUE(o.removeCatOps);
    EXPECT_TRUE(o.reinplaceInplaceableOps);
    EXPECT_TRUE(o.reinplaceInputMutatedOps);
    EXPECT_FALSE(o.deadlockCheck);
    EXPECT_EQ(o.captureErrorMode, "global");
    EXPECT_TRUE(o.written.empty());
    EXPECT_TRUE(o.notes.empty());
}

} // namespace

TEST(Options, BackendNames)
{
    EXPECT_STREQ(backendName(Backend::TorchAir), "torchair");
    EXPECT_STREQ(backendName(Backend::NpugraphEx), "npugraph_ex");
}

TEST(Options, TorchAirDefaults)
{
    Options o = parsedOk(Backend::TorchAir, {});
    EXPECT_EQ(o.backend, Backend::TorchAir);
    EXPECT_EQ(o.mode, "reduce-overhead");
    expectDefaults(o);
    EXPECT_EQ(o.warnings, (std::vector<std::string> { kDefaultReduceOverheadWarning, kDeprecation }));
}

TEST(Options, NpugraphExDefaults)
{
    Options o = parsedOk(Backend::NpugraphEx, {});
    EXPECT_EQ(o.backend, Backend::NpugraphEx);
    EXPECT_EQ(o.mode, "npugraph_ex");
    expectDefaults(o);
    EXPECT_TRUE(o.warnings.empty());
}

TEST(OptionTable, FollowsReferenceTable)
{
    const auto& table = optionTable();
    EXPECT_EQ(table.size(), 30u);
    auto row = [&](const std::string& npugraphEx) -> const OptionSpec& {
        for (const OptionSpec& s : table) {
            if (s.npugraphExName == npugraphEx)
                return s;
        }
        ADD_FAILURE() << npugraphEx;
        return table.front();
    };
    const OptionSpec& reuse = row("reuse_graph_pool_in_same_fx");
    EXPECT_EQ(reuse.torchairName, "debug.aclgraph.disable_mempool_reuse_in_same_fx");
    EXPECT_TRUE(reuse.inverted);
    EXPECT_EQ(reuse.torchairDefault.repr(), "False");
    EXPECT_EQ(reuse.npugraphExDefault.repr(), "True");
    EXPECT_TRUE(reuse.inCacheKey);
    EXPECT_EQ(row("capture_limit").torchairDefault.repr(), "64");
    EXPECT_EQ(row("capture_limit").type, "int");
    EXPECT_EQ(row("mode").torchairDefault.repr(), "'max-autotune'");
    EXPECT_EQ(row("mode").npugraphExDefault.repr(), "'npugraph_ex'");
    EXPECT_EQ(row("use_graph_pool").type, "pool");
    EXPECT_FALSE(row("use_graph_pool").inCacheKey);
    EXPECT_FALSE(row("remove_cat_ops").inCacheKey);
    EXPECT_FALSE(row("inplace_pass").inCacheKey);
    EXPECT_TRUE(row("inplace_pass").inverted);
    EXPECT_TRUE(row("input_inplace_pass").inverted);
    EXPECT_EQ(row("capture_error_mode").torchairName, "");
    EXPECT_EQ(row("capture_error_mode").npugraphExDefault.repr(), "'global'");
    for (const char* rejected :
        { "force_recapture", "capture_error_mode", "deadlock_check", "disable_static_kernel_compile_cache" })
        EXPECT_FALSE(row(rejected).acceptedByTorchairOptions) << rejected;
    EXPECT_EQ(row("").torchairName, "experimental_config.keep_inference_input_mutations");
    for (const OptionSpec& s : table)
        EXPECT_FALSE(s.effect.empty()) << s.npugraphExName;
}

// Every row, in every spelling it has, set to its default: accepted, recorded, and no error.
TEST(Options, EveryOptionInBothSpellings)
{
    for (const OptionSpec& s : optionTable()) {
        if (!s.torchairName.empty()) {
            Options o = parsedOk(Backend::TorchAir, { { s.torchairName, s.torchairDefault } });
            ASSERT_EQ(o.written.size(), 1u);
            EXPECT_EQ(o.written[0].first, s.torchairName);
            EXPECT_EQ(o.written[0].second, s.torchairDefault.repr());
        }
        if (s.npugraphExName.empty())
            continue;
        Options n = parsedOk(Backend::NpugraphEx, { { s.npugraphExName, s.npugraphExDefault } });
        ASSERT_EQ(n.written.size(), 1u);
        EXPECT_EQ(n.written[0].first, s.npugraphExName);
        auto viaMapper = parseOptions(Backend::TorchAir, { { s.npugraphExName, s.npugraphExDefault } });
        EXPECT_EQ(viaMapper.ok(), s.acceptedByTorchairOptions || s.npugraphExName == "mode") << s.npugraphExName;
    }
}

struct BoolCase {
    const char* npugraphEx;
    const char* torchair;
    bool Options::*field;
    bool inverted;
};

const BoolCase kBoolCases[] = {
    { "reuse_graph_pool_in_same_fx", "debug.aclgraph.disable_mempool_reuse_in_same_fx", &Options::reuseInSameFx, true },
    { "clone_output", "debug.aclgraph.enable_output_clone", &Options::cloneOutput, false },
    { "clone_input", "debug.aclgraph.clone_input", &Options::cloneInput, false },
    { "remove_cat_ops", "debug.aclgraph.remove_cat_ops", &Options::removeCatOps, false },
    { "inplace_pass", "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", &Options::reinplaceInplaceableOps,
        true },
    { "input_inplace_pass", "debug.aclgraph.disable_reinplace_input_mutated_ops_pass",
        &Options::reinplaceInputMutatedOps, true },
    { "force_eager", "debug.run_eagerly", &Options::forceEager, false },
    { "frozen_parameter", "experimental_config.frozen_parameter", &Options::frozenParameter, false },
    { "remove_noop_ops", "experimental_config.remove_noop_ops", &Options::removeNoopOps, false },
    { "pattern_fusion_pass", "experimental_config.pattern_fusion_pass", &Options::patternFusionPass, false },
};

TEST(Options, BoolOptionsInEverySpelling)
{
    for (const BoolCase& c : kBoolCases) {
        for (bool want : { true, false }) {
            const bool torchairValue = c.inverted ? !want : want;
            Options dotted = parsedOk(Backend::TorchAir, { { c.torchair, PyValue::boolean(torchairValue) } });
            EXPECT_EQ(dotted.*c.field, want) << c.torchair << "=" << torchairValue;
            Options mapped = parsedOk(Backend::TorchAir, { { c.npugraphEx, PyValue::boolean(want) } });
            EXPECT_EQ(mapped.*c.field, want) << "options={" << c.npugraphEx << ": " << want << "}";
            Options flat = parsedOk(Backend::NpugraphEx, { { c.npugraphEx, PyValue::boolean(want) } });
            EXPECT_EQ(flat.*c.field, want) << c.npugraphEx << "=" << want;
            // torchair reads "1"/"0", so the integers work like the bools there.
            Options asInt = parsedOk(Backend::TorchAir, { { c.torchair, I(torchairValue ? 1 : 0) } });
            EXPECT_EQ(asInt.*c.field, want) << c.torchair << "=" << torchairValue;
        }
        EXPECT_EQ(optionsFor(Backend::TorchAir).optionName(c.npugraphEx), c.torchair);
    }
}

TEST(Options, NpugraphExOnlyBools)
{
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "force_recapture", T() } }).forceRecapture);
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "deadlock_check", T() } }).deadlockCheck);
    Options torchair = parsedOk(Backend::TorchAir, { { "debug.deadlock_check", T() } });
    EXPECT_FALSE(torchair.deadlockCheck);
    EXPECT_TRUE(contains(torchair.notes, "no deadlock-check hook"));
}

TEST(Options, CaptureLimitAndErrorMode)
{
    EXPECT_EQ(parsedOk(Backend::TorchAir, { { "debug.aclgraph.static_capture_size_limit", I(3) } }).captureLimit, 3);
    EXPECT_EQ(parsedOk(Backend::TorchAir, { { "capture_limit", I(5) } }).captureLimit, 5);
    EXPECT_EQ(parsedOk(Backend::NpugraphEx, { { "capture_limit", I(7) } }).captureLimit, 7);
    // bool is an int subclass: IntRangeValue takes True, and both runtimes read it back as 1.
    EXPECT_EQ(parsedOk(Backend::NpugraphEx, { { "capture_limit", T() } }).captureLimit, 1);
    EXPECT_EQ(parsedOk(Backend::NpugraphEx, { { "capture_error_mode", S("relaxed") } }).captureErrorMode, "relaxed");
}

TEST(Options, Mode)
{
    EXPECT_EQ(parsedOk(Backend::TorchAir, { { "mode", S("npugraph_ex") } }).mode, "npugraph_ex");
    Options ge = parsedOk(Backend::TorchAir, { { "mode", S("max-autotune") } });
    EXPECT_EQ(ge.mode, "max-autotune");
    EXPECT_TRUE(contains(ge.notes, "max-autotune"));
    EXPECT_EQ(parsedOk(Backend::NpugraphEx, { { "mode", S("npugraph_ex") } }).mode, "npugraph_ex");
}

TEST(Options, WrittenKeepsNamesAndValuesAsGiven)
{
    Options o = parsedOk(Backend::TorchAir,
        { { "inplace_pass", F() }, { "debug.aclgraph.clone_input", I(0) }, { "capture_limit", I(8) },
            { "mode", S("reduce-overhead") } });
    const std::vector<std::pair<std::string, std::string>> want = { { "inplace_pass", "False" },
        { "debug.aclgraph.clone_input", "0" }, { "capture_limit", "8" }, { "mode", "'reduce-overhead'" } };
    EXPECT_EQ(o.written, want);
}

TEST(Options, LaterSettingWinsAcrossSpellings)
{
    Options o = parsedOk(Backend::TorchAir, { { "clone_input", F() }, { "debug.aclgraph.clone_input", T() } });
    EXPECT_TRUE(o.cloneInput);
    o = parsedOk(Backend::TorchAir, { { "debug.aclgraph.clone_input", T() }, { "clone_input", F() } });
    EXPECT_FALSE(o.cloneInput);
}

TEST(OptionsValidation, ChoiceMessages)
{
    const std::string boolList = "not in optional list [True, False] (type: <class 'bool'>).";
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.aclgraph.clone_input", S("test")),
        "Value 'test' (type: <class 'str'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::TorchAir, "clone_input", S("test")), "Value 'test' (type: <class 'str'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "clone_input", S("test")), "Value 'test' (type: <class 'str'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "force_recapture", I(2)), "Value 2 (type: <class 'int'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.run_eagerly", PyValue::none()),
        "Value None (type: <class 'NoneType'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.run_eagerly", PyValue::real(0.5)),
        "Value 0.5 (type: <class 'float'>) " + boolList);
    EXPECT_EQ(errorOf(Backend::TorchAir, "dump_config.enable_dump", S("yes")),
        "Value 'yes' (type: <class 'str'>) not in optional list [False, True] (type: <class 'bool'>).");
    EXPECT_EQ(errorOf(Backend::TorchAir, "mode", S("default")),
        "Value 'default' (type: <class 'str'>) not in optional list ['max-autotune', 'reduce-overhead', "
        "'npugraph_ex'] (type: <class 'str'>).");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "mode", S("reduce-overhead")),
        "Value 'reduce-overhead' (type: <class 'str'>) not in optional list ['npugraph_ex'] (type: <class 'str'>).");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "capture_error_mode", S("local")),
        "Value 'local' (type: <class 'str'>) not in optional list ['global', 'thread_local', 'relaxed'] "
        "(type: <class 'str'>).");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "data_dump_stage", PyValue::list({ S("original") })),
        "Value ['original'] (type: <class 'list'>) not in optional list ['original', 'optimized'] "
        "(type: <class 'str'>).");
    // 0 == False and 1.0 == True in Python, so these pass `v in [True, False]`.
    EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "debug.run_eagerly", I(0) } }).ok());
    EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "debug.run_eagerly", PyValue::real(1.0) } }).ok());
}

TEST(OptionsValidation, IntRangeMessages)
{
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.aclgraph.static_capture_size_limit", PyValue::real(1.5)),
        "Please set integer type, but got <class 'float'>");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "capture_limit", S("64")), "Please set integer type, but got <class 'str'>");
    EXPECT_EQ(errorOf(Backend::TorchAir, "capture_limit", I(0)),
        "Please set value in [1, 9223372036854775807], 0 is out of range.");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "capture_limit", I(-3)),
        "Please set value in [1, 9223372036854775807], -3 is out of range.");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "capture_limit", F()),
        "Please set value in [1, 9223372036854775807], False is out of range.");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "_vllm_aclnn_static_kernel_sym_index", I(-1)),
        "Please set value in [0, 9223372036854775807], -1 is out of range.");
    EXPECT_EQ(errorOf(Backend::TorchAir, "experimental_config.static_model_ops_lower_limit", I(-2)),
        "Please set value in [-1, 9223372036854775807], -2 is out of range.");
}

TEST(OptionsValidation, OtherValueClasses)
{
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "_vllm_aclnn_static_kernel_sym_range", I(5)),
        "the set value must be None or list, got <class 'int'>");
    EXPECT_EQ(errorOf(Backend::TorchAir, "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range",
                  PyValue::list({ I(1), S("a") })),
        "the set value must be int list, got list type: [<class 'int'>, <class 'str'>]");
    EXPECT_TRUE(
        parseOptions(Backend::NpugraphEx, { { "_vllm_aclnn_static_kernel_sym_range", PyValue::tuple({ I(1), I(2) }) } })
            .ok());
    EXPECT_EQ(errorOf(Backend::TorchAir, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir", I(5)),
        "value must be str or None, got <class 'int'>");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "super_kernel_optimize_options", S("x")),
        "value must be dict or None, got <class 'str'>");
    EXPECT_EQ(errorOf(Backend::TorchAir, "post_grad_custom_pre_pass", S("fn")),
        "value must be Callable or None, got <class 'str'>");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "data_dump_dir", PyValue::none()),
        "Please set legal dir path, None is not found or is not a file directory!");
    EXPECT_EQ(errorOf(Backend::TorchAir, "dump_config.dump_step", S("abc")),
        "Please set legal regex value format match ^(((\\d+)|(\\d+-{0,1}\\d+))\\|{0,1})*$, abc is Illegal format, "
        "correct example:0|1|2-5|6.");
    EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "dump_config.dump_step", S("0|1|2-5") } }).ok());
    EXPECT_EQ(errorOf(Backend::TorchAir, "dump_config.dump_config_path", S("")), "File path cannot be empty!");
}

// Expected results taken from running TorchAir's own `re.match` pattern.
TEST(OptionsValidation, DumpStepAndLayerPatterns)
{
    for (const char* ok : { "", "0", "0|1|2-5|6", "1-23-4", "12|" })
        EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "dump_config.dump_step", S(ok) } }).ok()) << ok;
    for (const char* bad : { "1-2-3", "|1", "1||2", "-1", "a" })
        EXPECT_NE(errorOf(Backend::TorchAir, "dump_config.dump_step", S(bad)).find(std::string(", ") + bad + " is "),
            std::string::npos)
            << bad;
    EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "dump_config.dump_layer", S("Mul_1 Add1/x.y\\z\"") } }).ok());
    EXPECT_EQ(errorOf(Backend::TorchAir, "dump_config.dump_layer", S("a-b")),
        "Please set legal regex value format match ^[0-9a-zA-Z_\" \"/\\\\.]*$, a-b is Illegal format, correct "
        "example:Mul_1 Add1 Conv2D_1.");
    EXPECT_EQ(
        errorOf(Backend::TorchAir, "dump_config.dump_layer", I(1)), "expected string or bytes-like object, got 'int'");
}

TEST(OptionsValidation, FirstInvalidSettingWins)
{
    auto r = parseOptions(Backend::TorchAir,
        { { "clone_input", T() }, { "debug.aclgraph.enable_output_clone", S("a") }, { "capture_limit", I(0) } });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().context, "debug.aclgraph.enable_output_clone");
    EXPECT_EQ(r.error().toString(),
        "debug.aclgraph.enable_output_clone: Value 'a' (type: <class 'str'>) not in optional list [True, False] "
        "(type: <class 'bool'>).");
}

TEST(OptionsValidation, PoolHandle)
{
    EXPECT_EQ(errorOf(Backend::TorchAir, "aclgraph_config.use_custom_pool", Pair(1, 2)),
        "Invalid graph pool handle type, got value=(1, 2), type=tuple");
    EXPECT_EQ(errorOf(Backend::TorchAir, "use_graph_pool", S("abc")),
        "Invalid graph pool handle type, got value=abc, type=str");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "use_graph_pool", PyValue::list({ I(1), I(2) })),
        "Invalid graph pool handle type, got value=[1, 2], type=list");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "use_graph_pool", PyValue::tuple({ I(0), I(1), I(2) })),
        "Invalid graph pool handle type, got value=(0, 1, 2), type=tuple");
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "use_graph_pool", PyValue::tuple({ I(0), S("a") })),
        "Invalid graph pool handle type, got value=(0, 'a'), type=tuple");
    EXPECT_EQ(
        errorOf(Backend::NpugraphEx, "use_graph_pool", I(0)), "Invalid graph pool handle type, got value=0, type=int");
    // Checked when the graph is built, i.e. after all options: a later valid value wins, and an invalid option
    // set after a bad pool is reported first, as in TorchAir.
    EXPECT_TRUE(
        parseOptions(Backend::NpugraphEx, { { "use_graph_pool", I(1) }, { "use_graph_pool", PyValue::none() } }).ok());
    auto r = parseOptions(Backend::NpugraphEx, { { "use_graph_pool", I(1) }, { "clone_input", S("x") } });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().context, "clone_input");
}

// debug.graph_dump.type takes txt, pbtxt and py, but an aclgraph dumps only py: the first FX graph's
// compile raises (TorchAir's test_aclgraph_unsupported_dump: "... only support 'py' type, but got: pbtxt").
TEST(OptionsValidation, GraphDumpOfAnAclGraphIsPyOnly)
{
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.graph_dump.type", S("pbtxt")),
        "NotImplementedError: Graph dump for aclGraph only support 'py' type, but got: pbtxt.Please check compile "
        "config setting: config.debug.graph_dump.type (raised when the first FX graph compiles, by "
        "AclConcreteGraph.dump; torch.compile reports it as BackendCompilerFailed)");
    EXPECT_NE(errorOf(Backend::TorchAir, "debug.graph_dump.type", S("txt")).find("but got: txt."), std::string::npos);
    parsedOk(Backend::TorchAir, { { "debug.graph_dump.type", S("py") } });
    // Not dumped at all in export mode; a GE graph (max-autotune) dumps every type.
    parsedOk(Backend::TorchAir,
        { { "debug.graph_dump.type", S("pbtxt") }, { "export.export_mode", PyValue::boolean(true) } });
    parsedOk(Backend::TorchAir, { { "mode", S("max-autotune") }, { "debug.graph_dump.type", S("pbtxt") } });
    // The value itself is still checked when it is set, with the config's own message.
    EXPECT_NE(errorOf(Backend::TorchAir, "debug.graph_dump.type", S("png")).find("png"), std::string::npos);
}

TEST(Options, CustomPoolForcesNoReuseInSameFx)
{
    Options o = parsedOk(Backend::TorchAir,
        { { "debug.aclgraph.disable_mempool_reuse_in_same_fx", F() },
            { "aclgraph_config.use_custom_pool", Pair(0, 7) } });
    ASSERT_TRUE(o.customPool.has_value());
    EXPECT_EQ(*o.customPool, std::make_pair(uint64_t(0), uint64_t(7)));
    EXPECT_FALSE(o.reuseInSameFx);
    EXPECT_TRUE(contains(o.notes, "debug.aclgraph.disable_mempool_reuse_in_same_fx=True"));

    Options n
        = parsedOk(Backend::NpugraphEx, { { "reuse_graph_pool_in_same_fx", T() }, { "use_graph_pool", Pair(3, 0) } });
    EXPECT_EQ(*n.customPool, std::make_pair(uint64_t(3), uint64_t(0)));
    EXPECT_FALSE(n.reuseInSameFx);
    EXPECT_TRUE(contains(n.notes, "reuse_graph_pool_in_same_fx=False"));

    Options mapped = parsedOk(Backend::TorchAir, { { "use_graph_pool", Pair(0, 0) } });
    EXPECT_TRUE(mapped.customPool.has_value());
    EXPECT_FALSE(mapped.reuseInSameFx);
}

TEST(Options, PoolGivenAsListIsTakenAsTupleWithANote)
{
    Options o = parsedOk(Backend::NpugraphEx, { { "use_graph_pool", PyValue::list({ I(0), I(4) }) } });
    EXPECT_EQ(*o.customPool, std::make_pair(uint64_t(0), uint64_t(4)));
    EXPECT_TRUE(contains(o.notes, "requires a tuple"));
}

TEST(Options, TorchairMapperInvertsThreeOptions)
{
    EXPECT_FALSE(parsedOk(Backend::TorchAir, { { "inplace_pass", F() } }).reinplaceInplaceableOps);
    EXPECT_FALSE(parsedOk(Backend::TorchAir, { { "inplace_pass", I(0) } }).reinplaceInplaceableOps);
    EXPECT_TRUE(parsedOk(Backend::TorchAir, { { "inplace_pass", I(1) } }).reinplaceInplaceableOps);
    EXPECT_FALSE(parsedOk(Backend::TorchAir, { { "input_inplace_pass", F() } }).reinplaceInputMutatedOps);
    EXPECT_FALSE(parsedOk(Backend::TorchAir, { { "reuse_graph_pool_in_same_fx", F() } }).reuseInSameFx);
    EXPECT_FALSE(parsedOk(Backend::TorchAir, { { "reuse_graph_pool_in_same_fx", I(0) } }).reuseInSameFx);
    // Other values pass through unchanged, then meet the OptionValue check.
    EXPECT_EQ(errorOf(Backend::TorchAir, "inplace_pass", S("x")),
        "Value 'x' (type: <class 'str'>) not in optional list [True, False] (type: <class 'bool'>).");
    EXPECT_EQ(errorOf(Backend::TorchAir, "reuse_graph_pool_in_same_fx", I(2)),
        "Value 2 (type: <class 'int'>) not in optional list [True, False] (type: <class 'bool'>).");
    // 1.0 is not inverted: disable_reinplace_inplaceable_ops_pass=1.0 is truthy, so the pass is off.
    Options f = parsedOk(Backend::TorchAir, { { "inplace_pass", PyValue::real(1.0) } });
    EXPECT_FALSE(f.reinplaceInplaceableOps);
    EXPECT_TRUE(contains(f.notes, "inverts only bools"));
}

TEST(Options, NpugraphExIntegerZeroDoesNotTurnOptionsOff)
{
    // Read back as the string "0", which is truthy.
    Options o = parsedOk(Backend::NpugraphEx, { { "clone_input", I(0) } });
    EXPECT_TRUE(o.cloneInput);
    ASSERT_EQ(o.notes.size(), 1u);
    EXPECT_NE(o.notes[0].find("clone_input=0"), std::string::npos);
    EXPECT_NE(o.notes[0].find("truthy"), std::string::npos);
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "clone_output", I(0) } }).cloneOutput);
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "reuse_graph_pool_in_same_fx", I(0) } }).reuseInSameFx);
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "force_recapture", I(0) } }).forceRecapture);
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "deadlock_check", PyValue::real(0.0) } }).deadlockCheck);
    Options frozen = parsedOk(Backend::NpugraphEx, { { "frozen_parameter", I(0) } });
    EXPECT_TRUE(frozen.frozenParameter);
    EXPECT_EQ(frozen.warnings, std::vector<std::string> { kFrozen });
    // force_eager=0: the runtime runs eagerly, but the compile-time check sees 0 and prints no warning.
    Options eager = parsedOk(Backend::NpugraphEx, { { "force_eager", I(0) } });
    EXPECT_TRUE(eager.forceEager);
    EXPECT_TRUE(eager.warnings.empty());
    EXPECT_TRUE(contains(eager.notes, "warning is not printed"));
    // Options read through the config object itself do turn off.
    Options passes = parsedOk(Backend::NpugraphEx, { { "remove_cat_ops", I(0) }, { "inplace_pass", I(0) } });
    EXPECT_FALSE(passes.removeCatOps);
    EXPECT_FALSE(passes.reinplaceInplaceableOps);
    EXPECT_TRUE(passes.notes.empty());
    // Integer 1 and torchair's integer 0 behave like the bools: no note.
    EXPECT_TRUE(parsedOk(Backend::NpugraphEx, { { "clone_output", I(1) } }).notes.empty());
    Options torchair = parsedOk(Backend::TorchAir, { { "debug.aclgraph.clone_input", I(0) } });
    EXPECT_FALSE(torchair.cloneInput);
    EXPECT_TRUE(torchair.notes.empty());
}

TEST(Options, TorchairFloatOneIsNotOne)
{
    Options o = parsedOk(Backend::TorchAir, { { "clone_output", PyValue::real(1.0) } });
    EXPECT_FALSE(o.cloneOutput);
    EXPECT_TRUE(contains(o.notes, "which is not '1'"));
    Options eager = parsedOk(Backend::TorchAir, { { "debug.run_eagerly", PyValue::real(1.0) } });
    EXPECT_FALSE(eager.forceEager);
    EXPECT_EQ(eager.warnings.back(), kRunEagerly);
}

TEST(OptionsWarnings, TorchAirOrder)
{
    Options o = parsedOk(
        Backend::TorchAir, { { "debug.run_eagerly", T() }, { "experimental_config.frozen_parameter", T() } });
    EXPECT_EQ(
        o.warnings, (std::vector<std::string> { kDefaultReduceOverheadWarning, kDeprecation, kFrozen, kRunEagerly }));
    Options mapped = parsedOk(Backend::TorchAir, { { "force_eager", T() } });
    EXPECT_EQ(mapped.warnings.back(), kRunEagerly);
}

// _NpuFxCompiler._get_compiled_gm warns when fx_summary is enabled (its type set) in reduce-overhead.
TEST(OptionsWarnings, FxSummaryIsNotWrittenInReduceOverhead)
{
    const std::string warning = "WARNING: The fx_summary csv files will not be generated in reduce-overhead mode.";
    EXPECT_TRUE(contains(parsedOk(Backend::TorchAir, { { "debug.fx_summary.type", S("csv") } }).warnings, warning));
    EXPECT_FALSE(contains(parsedOk(Backend::TorchAir, {}).warnings, warning));
    EXPECT_FALSE(contains(
        parsedOk(Backend::TorchAir, { { "mode", S("max-autotune") }, { "debug.fx_summary.type", S("csv") } }).warnings,
        warning));
}

// compile_static_kernel (TA/static_kernel.py) warns at the first compile when the run packages are
// not cached by cache_compile, in each backend's words; nothing without the static kernel.
TEST(OptionsWarnings, StaticKernelWithoutCacheCompile)
{
    const std::string head
        = "UserWarning: The current version now supports caching run packages from static kernel "
          "compilation, it is recommended to delete the compilation cache and recompile when you use ";
    EXPECT_TRUE(contains(parsedOk(Backend::TorchAir,
                             { { "experimental_config.aclgraph._aclnn_static_shape_kernel", PyValue::boolean(true) } })
                             .warnings,
        head + "`torchair.inference.cache_compile` and do not use debug.run_eagerly=True."));
    EXPECT_TRUE(
        contains(parsedOk(Backend::NpugraphEx, { { "static_kernel_compile", PyValue::boolean(true) } }).warnings,
            head + "`torch.npu.npugraph_ex.inference.cache_compile` and do not use force_eager=True."));
    EXPECT_FALSE(contains(parsedOk(Backend::NpugraphEx, {}).warnings, head));
}

TEST(OptionsWarnings, NpugraphExModeEmitsNoModeWarnings)
{
    Options o = parsedOk(Backend::TorchAir, { { "mode", S("npugraph_ex") }, { "frozen_parameter", T() } });
    EXPECT_EQ(o.warnings, std::vector<std::string> { kFrozen });
    Options n = parsedOk(Backend::NpugraphEx, { { "frozen_parameter", T() }, { "force_eager", T() } });
    EXPECT_EQ(n.warnings, (std::vector<std::string> { kFrozen, kForceEager }));
}

TEST(OptionsWarnings, UnsupportedOptionsAreListedInTorchairOrder)
{
    Options o = parsedOk(Backend::TorchAir,
        { { "experimental_config.enable_view_optimize", F() }, { "ge_config.oo_level", S("O1") },
            { "dump_tensor_data", T() } });
    EXPECT_EQ(o.warnings.front(),
        "UserWarning: The following torchair config or properties may not take effect or report error in "
        "reduce-overhead mode: config.dump_config.enable_dump:True, config.ge_config.oo_level:O1, "
        "config.experimental_config.enable_view_optimize:False, set_dim_gears, dynamo_export, scope, npu_print");
    Options ge = parsedOk(Backend::TorchAir, { { "mode", S("max-autotune") }, { "debug.aclgraph.clone_input", F() } });
    EXPECT_EQ(ge.warnings,
        std::vector<std::string> { "UserWarning: The following torchair config or properties may not take effect or "
                                   "report error in max-autotune mode: config.debug.aclgraph.clone_input:False" });
}

TEST(OptionsNames, UnknownTorchairNames)
{
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.aclgraph.foo", T()),
        "_AclGraphDebugConfig has no option foo, all options ['disable_reinplace_inplaceable_ops_pass', "
        "'disable_reinplace_input_mutated_ops_pass', 'disable_mempool_reuse_in_same_fx', 'enable_output_clone', "
        "'static_capture_size_limit', 'clone_input', 'remove_cat_ops']");
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.foo", T()),
        "_DebugConfig has no option foo, all options ['graph_dump', 'data_dump', 'fx_summary', 'run_eagerly', "
        "'aclgraph', 'deadlock_check']");
    EXPECT_EQ(errorOf(Backend::TorchAir, "debug.graph_dump.foo", T()),
        "_Dump has no option foo, all options ['type', '_path', 'path']");
    EXPECT_EQ(errorOf(Backend::TorchAir, "aclgraph_config", T()),
        "CompilerConfig has no option aclgraph_config, all options ['debug', 'aoe_config', 'export', 'dump_config', "
        "'fusion_config', 'experimental_config', 'inference_config', 'ge_config', 'mode', "
        "'post_grad_custom_pre_pass', 'post_grad_custom_post_pass', 'post_grad_custom_pre_pass', "
        "'post_grad_custom_post_pass']");
    EXPECT_EQ(errorOf(Backend::TorchAir, "foo.bar", T()), "'CompilerConfig' object has no attribute 'foo'");
    EXPECT_EQ(
        errorOf(Backend::TorchAir, "debug.nope.clone_input", T()), "'_DebugConfig' object has no attribute 'nope'");
    EXPECT_NE(errorOf(Backend::TorchAir, "debug.aclgraph", T()).find("group of options"), std::string::npos);
    EXPECT_NE(errorOf(Backend::TorchAir, "debug.run_eagerly.x", T()).find("is an option"), std::string::npos);
}

TEST(OptionsNames, PlainObjectsAcceptAnyAttribute)
{
    Options o = parsedOk(Backend::TorchAir, { { "aclgraph_config.typo_pool", Pair(0, 1) } });
    EXPECT_FALSE(o.customPool.has_value());
    EXPECT_TRUE(contains(o.notes, "_AclGraphConfig does not check attribute names"));
}

TEST(OptionsNames, ExportConfigValidatesNothing)
{
    // _ExportConfig never runs NpuBaseConfig.__init__, so TorchAir takes any attribute there.
    EXPECT_TRUE(parseOptions(Backend::TorchAir, { { "export.export_mode", S("anything") } }).ok());
    EXPECT_EQ(errorOf(Backend::TorchAir, "export.experimental.enable_lite_export", I(3)),
        "Value 3 (type: <class 'int'>) not in optional list [True, False] (type: <class 'bool'>).");
}

TEST(OptionsNames, TorchairMapperRejects)
{
    for (const char* name :
        { "foo", "force_recapture", "capture_error_mode", "deadlock_check", "disable_static_kernel_compile_cache" })
        EXPECT_EQ(errorOf(Backend::TorchAir, name, T()),
            std::string("Invalid option '") + name + "', allowed options: " + kMapperAllowed);
}

TEST(OptionsNames, NpugraphExRejects)
{
    for (const char* name : { "debug.aclgraph.clone_input", "static_capture_size_limit", "foo" })
        EXPECT_EQ(errorOf(Backend::NpugraphEx, name, T()),
            std::string("Invalid option '") + name + "'. The 'CompilerConfig' object does not have attribute '" + name
                + "'. Supported attributes are: " + kNpugraphExSupported);
    EXPECT_EQ(errorOf(Backend::NpugraphEx, "as_dict", T()),
        "CompilerConfig has no option as_dict, all options ['force_eager', 'reuse_graph_pool_in_same_fx', "
        "'capture_limit', 'clone_input', 'clone_output', 'disable_static_kernel_compile_cache', "
        "'static_kernel_compile', 'frozen_parameter', 'remove_noop_ops', 'remove_cat_ops', 'inplace_pass', "
        "'input_inplace_pass', 'pattern_fusion_pass', 'post_grad_custom_pre_pass', 'post_grad_custom_post_pass', "
        "'dump_tensor_data', 'data_dump_stage', 'data_dump_dir', '_vllm_aclnn_static_kernel_sym_index', "
        "'_vllm_aclnn_static_kernel_sym_range', 'super_kernel_optimize', 'super_kernel_optimize_options', "
        "'super_kernel_debug_options', 'deadlock_check', 'capture_error_mode', 'mode', 'force_recapture', "
        "'post_grad_custom_pre_pass', 'post_grad_custom_post_pass', 'use_graph_pool']");
}

TEST(OptionsNames, OptionNamePerBackend)
{
    const Options torchair = optionsFor(Backend::TorchAir);
    EXPECT_EQ(torchair.optionName("clone_output"), "debug.aclgraph.enable_output_clone");
    EXPECT_EQ(torchair.optionName("capture_limit"), "debug.aclgraph.static_capture_size_limit");
    EXPECT_EQ(torchair.optionName("use_graph_pool"), "aclgraph_config.use_custom_pool");
    EXPECT_EQ(torchair.optionName("force_recapture"), "force_recapture");
    EXPECT_EQ(torchair.optionName("unknown"), "unknown");
    const Options npugraphEx = optionsFor(Backend::NpugraphEx);
    EXPECT_EQ(npugraphEx.optionName("clone_output"), "clone_output");
}

TEST(Options, GuessBackend)
{
    EXPECT_EQ(guessBackend({}), Backend::TorchAir);
    EXPECT_EQ(guessBackend({ { "clone_input", F() } }), Backend::TorchAir);
    EXPECT_EQ(guessBackend({ { "force_recapture", T() } }), Backend::NpugraphEx);
    EXPECT_EQ(guessBackend({ { "capture_error_mode", S("global") } }), Backend::NpugraphEx);
    EXPECT_EQ(guessBackend({ { "deadlock_check", T() } }), Backend::NpugraphEx);
    EXPECT_EQ(guessBackend({ { "mode", S("npugraph_ex") }, { "clone_input", F() } }), Backend::NpugraphEx);
    EXPECT_EQ(guessBackend({ { "mode", S("npugraph_ex") }, { "debug.aclgraph.clone_input", F() } }), Backend::TorchAir);
    EXPECT_EQ(guessBackend({ { "mode", S("reduce-overhead") }, { "clone_input", F() } }), Backend::TorchAir);
}
