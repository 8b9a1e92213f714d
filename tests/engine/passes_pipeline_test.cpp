// runReduceOverheadPasses (torchair-behavior.md §4.0): order, option switches, stage graphs, the
// reports' memory measurement, and how one pass changes what a later one can do.
#include "engine/scenario/decoder_generator.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>
#include <set>
#include <stdexcept>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

// x (user input, 128 x 128 f32 = 65536 bytes) -> a = x * 2 -> b = a + 1 -> returned.
engine::Graph chain()
{
    return graph({ input("x", { 128, 128 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 128, 128 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 128, 128 })),
            op("dead", "aten.neg.default", { "x" }, meta({ 128, 128 })) },
        { "b" });
}

const PassReport& pass(const engine::passes::PipelineResult& r, const std::string& name)
{
    const PassReport* p = engine::passes::findPass(r, name);
    if (!p)
        throw std::runtime_error("no pass " + name);
    return *p;
}

std::vector<std::string> names(const engine::passes::PipelineResult& r)
{
    std::vector<std::string> out;
    for (const PassReport& p : r.passes)
        out.push_back(p.name);
    return out;
}

} // namespace

TEST(PassPipeline, RunsInTorchAirOrder)
{
    // The order of TorchAir's test_torch_compile_acl_debug_dump (tests/st/torchair_npugraph_ex_compile_st.py),
    // without the user's custom passes (none given) and the dump of the AOT graph itself.
    const std::vector<std::string> torchair
        = { "remove_noop_ops", "recover_view_inplace_pattern", "apply_pattern_passes", "view_to_reshape",
              "remove_cat_ops", "apply_event_closure_with_multi_stream", "apply_event_record", "eliminate_dead_code",
              "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops", "decompose_auto_functionalized",
              "replace_dynamic_workspace_ops", "replace_core_limit_nodes", "resolve_default_stream_markers" };
    auto r = engine::passes::runReduceOverheadPasses(chain(), options());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(names(*r), torchair);
    ASSERT_EQ(r->stages.size(), torchair.size() + 1);
    for (size_t i = 0; i < r->passes.size(); ++i) {
        EXPECT_TRUE(r->passes[i].enabled);
        EXPECT_EQ(r->passes[i].stage, int(i) + 1);
    }
    // npugraph_ex adds eliminate_self_copy after decompose_auto_functionalized.
    auto ex = engine::passes::runReduceOverheadPasses(chain(), options({}, engine::config::Backend::NpugraphEx));
    ASSERT_TRUE(ex.ok());
    std::vector<std::string> npugraphEx = torchair;
    npugraphEx.insert(npugraphEx.begin() + 11, "eliminate_self_copy");
    EXPECT_EQ(names(*ex), npugraphEx);

    // Stage 0 is the input; DCE drops `dead`; the intermediate reinplace rewrites b.
    const int dce = pass(*r, "eliminate_dead_code").stage;
    const int reinplace = pass(*r, "reinplace_inplaceable_ops_pass").stage;
    EXPECT_TRUE(has(r->stages[0], "dead"));
    EXPECT_TRUE(has(r->stages[size_t(dce) - 1], "dead"));
    EXPECT_FALSE(has(r->stages[size_t(dce)], "dead"));
    EXPECT_EQ(pass(*r, "eliminate_dead_code").removed, (std::vector<std::string> { "dead" }));
    EXPECT_EQ(node(r->stages[size_t(reinplace) - 1], "b").target, "aten.add.Tensor");
    EXPECT_EQ(node(r->stages[size_t(reinplace)], "b").target, "aten.add_.Tensor");
    EXPECT_THAT(
        logText(pass(*r, "remove_noop_ops")), HasSubstr("After fx graph pass(optimize_noop_ops) optimization:"));
}

TEST(PassPipeline, OptionsSwitchPassesOff)
{
    const auto o = options({ { "experimental_config.remove_noop_ops", PyValue::boolean(false) },
        { "experimental_config.pattern_fusion_pass", PyValue::boolean(false) },
        { "debug.aclgraph.remove_cat_ops", PyValue::boolean(false) },
        { "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", PyValue::boolean(true) },
        { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", PyValue::boolean(true) } });
    auto r = engine::passes::runReduceOverheadPasses(chain(), o);
    ASSERT_TRUE(r.ok());
    // decompose_auto_functionalized runs only after reinplace_input_mutated_ops (fx2acl_converter.py).
    const std::set<std::string> off = { "remove_noop_ops", "apply_pattern_passes", "remove_cat_ops",
        "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops", "decompose_auto_functionalized" };
    int stage = 0;
    for (const PassReport& p : r->passes) {
        const bool enabled = !off.count(p.name);
        EXPECT_EQ(p.enabled, enabled) << p.name;
        EXPECT_EQ(p.stage, enabled ? ++stage : -1) << p.name;
        if (!enabled) {
            EXPECT_TRUE(p.log.empty()) << p.name;
            EXPECT_EQ(p.peakBytesAfter, 0u);
        }
    }
    ASSERT_EQ(r->stages.size(), size_t(stage) + 1);
    EXPECT_EQ(node(r->stages.back(), "b").target, "aten.add.Tensor");
    EXPECT_EQ(pass(*r, "remove_noop_ops").option, "experimental_config.remove_noop_ops");
    EXPECT_EQ(pass(*r, "apply_pattern_passes").option, "experimental_config.pattern_fusion_pass");
    EXPECT_EQ(pass(*r, "view_to_reshape").option, "");
    EXPECT_EQ(
        pass(*r, "reinplace_inplaceable_ops_pass").option, "debug.aclgraph.disable_reinplace_inplaceable_ops_pass");
}

TEST(PassPipeline, NpugraphExSpellsOptionsItsWay)
{
    const auto o = options({ { "inplace_pass", PyValue::boolean(false) } }, engine::config::Backend::NpugraphEx);
    auto r = engine::passes::runReduceOverheadPasses(chain(), o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(pass(*r, "remove_noop_ops").option, "remove_noop_ops");
    EXPECT_EQ(pass(*r, "remove_cat_ops").option, "remove_cat_ops");
    EXPECT_EQ(pass(*r, "reinplace_inplaceable_ops_pass").option, "inplace_pass");
    EXPECT_FALSE(pass(*r, "reinplace_inplaceable_ops_pass").enabled);
    EXPECT_EQ(pass(*r, "reinplace_input_mutated_ops").option, "input_inplace_pass");
}

// npugraph_ex closes with one more debug_compare_fx_graphs, "all npugraph_ex pass", of the AOT graph
// against the final one (TorchAir's test_debug_compare_fx_graphs looks for it); torchair prints none.
TEST(PassPipeline, NpugraphExComparesTheWholePipeline)
{
    auto ex = engine::passes::runReduceOverheadPasses(chain(), options({}, engine::config::Backend::NpugraphEx));
    ASSERT_TRUE(ex.ok()) << ex.error().toString();
    ASSERT_EQ(ex->finalLog.size(), 1u);
    // chain(): x, a, b, dead and the output; DCE drops dead, and b, rewritten in place, keeps its name.
    EXPECT_THAT(ex->finalLog[0],
        HasSubstr("After fx graph pass(all npugraph_ex pass) optimization:\n    before 5 nodes, after 4 nodes,\n"
                  "    removed nodes: ['dead'],\n"));
    EXPECT_THAT(ex->finalLog[0], HasSubstr("torch.ops.aten.add_.Tensor            0           1     1"));
    auto ta = engine::passes::runReduceOverheadPasses(chain(), options());
    ASSERT_TRUE(ta.ok());
    EXPECT_TRUE(ta->finalLog.empty());
}

TEST(PassPipeline, ReinplacingLowersThePeak)
{
    // Each 128 x 128 f32 tensor is 65536 bytes; the NPU allocator pads 32 bytes and rounds to 512:
    // 66048 bytes a block. Before: x's staging copy (clone_input), a and b are all live while b is
    // computed: 3 x 66048 = 198144. After b = add_(a, 1), b is a: 2 x 66048 = 132096. The bytes
    // written do not change (mul and add each write 65536).
    auto r = engine::passes::runReduceOverheadPasses(chain(), options());
    ASSERT_TRUE(r.ok());
    const PassReport& reinplace = pass(*r, "reinplace_inplaceable_ops_pass");
    EXPECT_EQ(reinplace.peakBytesBefore, 198144u);
    EXPECT_EQ(reinplace.peakBytesAfter, 132096u);
    EXPECT_EQ(reinplace.trafficBytesBefore, 2u * 65536u);
    EXPECT_EQ(reinplace.trafficBytesAfter, 2u * 65536u);
    // DCE dropped `dead` (65536 bytes written), which was never live at the peak... but was allocated.
    const PassReport& dce = pass(*r, "eliminate_dead_code");
    EXPECT_EQ(dce.trafficBytesBefore, 3u * 65536u);
    EXPECT_EQ(dce.trafficBytesAfter, 2u * 65536u);
}

TEST(PassPipeline, InputMutationReinplaceDropsTheCopy)
{
    // kv.copy_(kv + 1): before, add allocates 66048 bytes in the pool and copy_ writes kv again;
    // after, add_ writes kv directly and the pool holds nothing.
    auto g = graph({ input("kv", { 128, 128 }) },
        { op("a", "aten.add.Tensor", { "kv", 1 }, meta({ 128, 128 })),
            op("c", "aten.copy_.default", { "kv", "a" }, meta({ 128, 128 })) },
        ordered_json::array());
    auto r = engine::passes::runReduceOverheadPasses(g, options());
    ASSERT_TRUE(r.ok());
    const PassReport& p = pass(*r, "reinplace_input_mutated_ops");
    EXPECT_EQ(p.peakBytesBefore, 66048u);
    EXPECT_EQ(p.peakBytesAfter, 0u);
    EXPECT_EQ(p.trafficBytesBefore, 2u * 65536u);
    EXPECT_EQ(p.trafficBytesAfter, 65536u);
}

TEST(PassPipeline, MissingSymbolSkipsTheMeasurement)
{
    auto g = graph({ symInput("s", "s0"), input("x", { "s0", 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ "s0", 4 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ "s0", 4 })) },
        { "b" }, true);
    auto r = engine::passes::runReduceOverheadPasses(g, options());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(pass(*r, "reinplace_inplaceable_ops_pass").peakBytesBefore, 0u);
    EXPECT_FALSE(pass(*r, "reinplace_inplaceable_ops_pass").measured);
    EXPECT_THAT(pass(*r, "reinplace_inplaceable_ops_pass").unmeasured,
        HasSubstr("no value for symbol 's0' (give it with --symbols s0=N"));
    EXPECT_THAT(logText(pass(*r, "reinplace_inplaceable_ops_pass")),
        HasSubstr("aclgraph-inspector: memory effect not measured: no value for symbol 's0'"));

    // With s0 = 128: 128 x 4 f32 = 2048 bytes, 2560 a block; staging + a + b, then staging + a.
    auto measured = engine::passes::runReduceOverheadPasses(g, options(), { { "s0", 128 } });
    ASSERT_TRUE(measured.ok());
    EXPECT_TRUE(pass(*measured, "reinplace_inplaceable_ops_pass").measured);
    EXPECT_EQ(pass(*measured, "reinplace_inplaceable_ops_pass").peakBytesBefore, 3u * 2560u);
    EXPECT_EQ(pass(*measured, "reinplace_inplaceable_ops_pass").peakBytesAfter, 2u * 2560u);
}

TEST(PassPipeline, RemovingACloneCanStopALaterReinplace)
{
    // a = x.clone(); b = a + 1. With remove_noop_ops the clone goes and b would write into x, a graph
    // input: the intermediate reinplace refuses. Without it, b writes into the clone.
    auto g = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.clone.default", { "x" }, meta({ 4, 4 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 4, 4 })) },
        { "b" });
    auto on = engine::passes::runReduceOverheadPasses(g, options());
    ASSERT_TRUE(on.ok());
    EXPECT_EQ(pass(*on, "remove_noop_ops").removed, (std::vector<std::string> { "a" }));
    EXPECT_EQ(skipReason(pass(*on, "reinplace_inplaceable_ops_pass"), "b"),
        "Node[b] arg_index[0] mutate program inputs, skip reinplace");
    EXPECT_EQ(node(on->stages.back(), "b").target, "aten.add.Tensor");

    auto off = engine::passes::runReduceOverheadPasses(
        g, options({ { "experimental_config.remove_noop_ops", PyValue::boolean(false) } }));
    ASSERT_TRUE(off.ok());
    EXPECT_EQ(node(off->stages.back(), "b").target, "aten.add_.Tensor");
}

TEST(PassPipeline, DecoderGraphsGoThroughUnharmed)
{
    // The bundled synthetic decoder: every pass runs, and every stage is still a valid graph.
    engine::scenario::DecoderSpec spec;
    auto s
        = engine::scenario::parseScenario(engine::scenario::decoderScenarioJson(spec, "{}", { 2 }, 1), "decoder.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    for (const auto& g : s->graphs) {
        auto r = engine::passes::runReduceOverheadPasses(g, options(), { { "s0", 2 }, { "s1", 10 } });
        ASSERT_TRUE(r.ok()) << r.error().toString();
        for (auto stage : r->stages)
            EXPECT_TRUE(stage.finalize().ok());
        EXPECT_GT(pass(*r, "remove_noop_ops").peakBytesBefore, 0u)
            << g.id << " " << logText(pass(*r, "remove_noop_ops"));
    }
}

// The user's post_grad_custom_pre_pass / _post_pass (npu_fx_compiler.py _optimize_fx): first and after
// view_to_reshape when they ran. Their effect is the user's code, so it is taken from TorchAir's dump of
// their result (a TORCH_COMPILE_DEBUG folder); without one they are not in the pipeline at all.
TEST(PassPipeline, UserPassesRunAsTorchAirDumpedThem)
{
    auto plain = engine::passes::runReduceOverheadPasses(chain(), options());
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(engine::passes::findPass(*plain, "post_grad_custom_pre_pass"), nullptr);

    // The user's pre pass removed `dead` and renamed nothing else; its post pass changed nothing.
    engine::passes::PassEnvironment env;
    env.userPassResults["post_grad_custom_pre_pass"] = graph({ input("x", { 128, 128 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 128, 128 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 128, 128 })) },
        { "b" });
    env.userPassResults["post_grad_custom_post_pass"] = env.userPassResults["post_grad_custom_pre_pass"];
    auto r = engine::passes::runReduceOverheadPasses(chain(), options(), {}, env);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const std::vector<std::string> order = names(*r);
    ASSERT_GE(order.size(), 6u);
    EXPECT_EQ(order[0], "post_grad_custom_pre_pass");
    EXPECT_EQ(order[1], "remove_noop_ops");
    EXPECT_EQ(order[4], "view_to_reshape");
    EXPECT_EQ(order[5], "post_grad_custom_post_pass");
    const PassReport& pre = pass(*r, "post_grad_custom_pre_pass");
    EXPECT_EQ(pre.removed, (std::vector<std::string> { "dead" }));
    EXPECT_EQ(pre.option, "post_grad_custom_pre_pass");
    EXPECT_THAT(logText(pre), HasSubstr("After fx graph pass(post_grad_custom_pre_pass) optimization:"));
    EXPECT_FALSE(has(r->stages[size_t(pre.stage)], "dead"));
    EXPECT_TRUE(pass(*r, "post_grad_custom_post_pass").removed.empty());
    EXPECT_EQ(pass(*r, "eliminate_dead_code").removed, std::vector<std::string> {}); // already gone
}
