// runReduceOverheadPasses (torchair-behavior.md §4.0): order, option switches, stage graphs, the
// reports' memory measurement, and how one pass changes what a later one can do.
#include "engine/scenario/decoder_generator.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>

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
    auto r = engine::passes::runReduceOverheadPasses(chain(), options());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(names(*r),
        (std::vector<std::string> { "remove_noop_ops", "view_to_reshape", "remove_cat_ops", "eliminate_dead_code",
            "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops" }));
    ASSERT_EQ(r->stages.size(), 7u);
    for (size_t i = 0; i < r->passes.size(); ++i) {
        EXPECT_TRUE(r->passes[i].enabled);
        EXPECT_EQ(r->passes[i].stage, int(i) + 1);
    }
    // Stage 0 is the input; DCE (stage 4) drops `dead`; the intermediate reinplace (stage 5) rewrites b.
    EXPECT_TRUE(has(r->stages[0], "dead"));
    EXPECT_TRUE(has(r->stages[3], "dead"));
    EXPECT_FALSE(has(r->stages[4], "dead"));
    EXPECT_EQ(r->passes[3].removed, (std::vector<std::string> { "dead" }));
    EXPECT_EQ(node(r->stages[4], "b").target, "aten.add.Tensor");
    EXPECT_EQ(node(r->stages[5], "b").target, "aten.add_.Tensor");
    EXPECT_THAT(logText(r->passes[0]), HasSubstr("After fx graph pass(optimize_noop_ops) optimization:"));
}

TEST(PassPipeline, OptionsSwitchPassesOff)
{
    const auto o = options({ { "experimental_config.remove_noop_ops", PyValue::boolean(false) },
        { "debug.aclgraph.remove_cat_ops", PyValue::boolean(false) },
        { "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", PyValue::boolean(true) },
        { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", PyValue::boolean(true) } });
    auto r = engine::passes::runReduceOverheadPasses(chain(), o);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->passes.size(), 6u);
    const bool enabled[] = { false, true, false, true, false, false };
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(r->passes[i].enabled, enabled[i]) << r->passes[i].name;
        EXPECT_EQ(r->passes[i].stage, enabled[i] ? (i == 1 ? 1 : 2) : -1) << r->passes[i].name;
        if (!enabled[i]) {
            EXPECT_TRUE(r->passes[i].log.empty());
            EXPECT_EQ(r->passes[i].peakBytesAfter, 0u);
        }
    }
    ASSERT_EQ(r->stages.size(), 3u);
    EXPECT_EQ(node(r->stages[2], "b").target, "aten.add.Tensor");
    EXPECT_EQ(r->passes[0].option, "experimental_config.remove_noop_ops");
    EXPECT_EQ(r->passes[1].option, "");
    EXPECT_EQ(r->passes[4].option, "debug.aclgraph.disable_reinplace_inplaceable_ops_pass");
}

TEST(PassPipeline, NpugraphExSpellsOptionsItsWay)
{
    const auto o = options({ { "inplace_pass", PyValue::boolean(false) } }, engine::config::Backend::NpugraphEx);
    auto r = engine::passes::runReduceOverheadPasses(chain(), o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->passes[0].option, "remove_noop_ops");
    EXPECT_EQ(r->passes[2].option, "remove_cat_ops");
    EXPECT_EQ(r->passes[4].option, "inplace_pass");
    EXPECT_FALSE(r->passes[4].enabled);
    EXPECT_EQ(r->passes[5].option, "input_inplace_pass");
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
    const PassReport& reinplace = r->passes[4];
    EXPECT_EQ(reinplace.peakBytesBefore, 198144u);
    EXPECT_EQ(reinplace.peakBytesAfter, 132096u);
    EXPECT_EQ(reinplace.trafficBytesBefore, 2u * 65536u);
    EXPECT_EQ(reinplace.trafficBytesAfter, 2u * 65536u);
    // DCE dropped `dead` (65536 bytes written), which was never live at the peak... but was allocated.
    const PassReport& dce = r->passes[3];
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
    const PassReport& p = r->passes[5];
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
    EXPECT_EQ(r->passes[4].peakBytesBefore, 0u);
    EXPECT_FALSE(r->passes[4].measured);
    EXPECT_THAT(r->passes[4].unmeasured, HasSubstr("no value for symbol 's0' (give it with --symbols s0=N"));
    EXPECT_THAT(logText(r->passes[4]),
        HasSubstr("aclgraph-inspector: memory effect not measured: no value for symbol 's0'"));

    // With s0 = 128: 128 x 4 f32 = 2048 bytes, 2560 a block; staging + a + b, then staging + a.
    auto measured = engine::passes::runReduceOverheadPasses(g, options(), { { "s0", 128 } });
    ASSERT_TRUE(measured.ok());
    EXPECT_TRUE(measured->passes[4].measured);
    EXPECT_EQ(measured->passes[4].peakBytesBefore, 3u * 2560u);
    EXPECT_EQ(measured->passes[4].peakBytesAfter, 2u * 2560u);
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
    EXPECT_EQ(on->passes[0].removed, (std::vector<std::string> { "a" }));
    EXPECT_EQ(skipReason(on->passes[4], "b"), "Node[b] arg_index[0] mutate program inputs, skip reinplace");
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
        EXPECT_GT(r->passes[0].peakBytesBefore, 0u) << g.id << " " << logText(r->passes[0]);
    }
}
