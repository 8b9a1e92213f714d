// remove_cat_ops (torchair-behavior.md §4.4): one graph where the rewrite happens and one per skip
// reason, with TorchAir's DEBUG texts.
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

ordered_json weights()
{
    return { input("x", { 2, 4 }), input("w1", { 4, 4 }, "parameter"), input("w2", { 4, 4 }, "parameter") };
}

// m1 = x @ w1, m2 = x @ w2 ([2, 4] each), c = cat([m1, m2] + extra args), returned.
engine::Graph catOf(
    ordered_json catArgs, ordered_json catMeta = meta({ 4, 4 }), ordered_json kwargs = ordered_json::object())
{
    return graph(weights(),
        { op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", std::move(catArgs), std::move(catMeta), std::move(kwargs)) },
        { "c" });
}

PassReport run(engine::Graph& g)
{
    auto r = engine::passes::removeCatOps(g, options());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

// The pass left `c` alone and said `reason`, in the report and in its DEBUG line.
void expectSkip(engine::Graph g, const std::string& reason)
{
    auto r = run(g);
    EXPECT_TRUE(has(g, "c"));
    EXPECT_EQ(skipReason(r, "c"), reason);
    EXPECT_THAT(logText(r), HasSubstr("Skip c: " + reason + "\n"));
    EXPECT_THAT(logText(r), testing::Not(HasSubstr("Optimized")));
}

} // namespace

TEST(PassRemoveCat, ProducersWriteIntoSlicesOfOneBuffer)
{
    auto g = catOf(list({ list({ "m1", "m2" }) }));
    auto r = run(g);
    EXPECT_EQ(r.option, "debug.aclgraph.remove_cat_ops");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "m1", "m2", "c" }));
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "empty_memory_format", "slice_tensor", "mm_out", "slice_tensor_1", "mm_out_1" }));
    EXPECT_EQ(rewrittenTo(r, "m1"), "aten.mm.out");
    EXPECT_EQ(rewrittenTo(r, "c"), "aten.empty.memory_format");

    const auto& empty = node(g, "empty_memory_format");
    EXPECT_EQ(empty.target, "aten.empty.memory_format");
    ASSERT_EQ(empty.args.size(), 1u);
    EXPECT_EQ(empty.args[0].items.size(), 2u);
    EXPECT_EQ(empty.args[0].items[0].i, 4);
    ASSERT_EQ(empty.kwargs.size(), 4u);
    EXPECT_EQ(empty.kwargs[0].first, "dtype");
    EXPECT_EQ(empty.kwargs[0].second.s, "torch.float32");
    EXPECT_EQ(empty.kwargs[1].second.s, "npu:0");
    EXPECT_EQ(empty.kwargs[2].first, "pin_memory");
    EXPECT_EQ(empty.kwargs[3].second.kind, engine::Arg::Kind::None);

    // slice.Tensor(buffer, 0, start, end), then mm.out(x, w, out=slice).
    const auto& second = node(g, "slice_tensor_1");
    EXPECT_EQ(second.target, "aten.slice.Tensor");
    EXPECT_EQ(refs(second.args), "empty_memory_format");
    EXPECT_EQ(second.args[2].i, 2);
    EXPECT_EQ(second.args[3].i, 4);
    const auto& out = node(g, "mm_out_1");
    EXPECT_EQ(refs(out.args), "x,w2");
    ASSERT_EQ(out.kwargs.size(), 1u);
    EXPECT_EQ(out.kwargs[0].first, "out");
    EXPECT_EQ(out.kwargs[0].second.s, "slice_tensor_1");
    // The graph returns the buffer.
    EXPECT_EQ(refs(g.nodes.back().args), "[empty_memory_format]");

    const std::string log = logText(r);
    EXPECT_THAT(log, HasSubstr("[remove_cat_ops] Found 1 cat node(s)\nOptimizing c (2 inputs)\n"));
    EXPECT_THAT(log, HasSubstr("remove_cat_ops: Optimized 1 cat node(s)\nAfter fx graph pass(remove_cat_ops)"));
}

TEST(PassRemoveCat, DimAsKeywordAndFalseAreZero)
{
    auto kw = catOf(list({ list({ "m1", "m2" }) }), meta({ 4, 4 }), { { "dim", 0 } });
    run(kw);
    EXPECT_FALSE(has(kw, "c"));
    // isinstance(False, int) and False == 0 in Python.
    auto boolean = catOf({ list({ "m1", "m2" }), false });
    run(boolean);
    EXPECT_FALSE(has(boolean, "c"));
}

TEST(PassRemoveCat, SkipReasons)
{
    expectSkip(catOf(ordered_json::array()), "Missing arguments");
    expectSkip(catOf({ { "m1" } }), "Need at least 2 tensors");
    expectSkip(catOf({ list({ "m1", "m2" }), 1 }, meta({ 2, 8 })), "Only supports dim=0, got dim=1");
    expectSkip(catOf({ list({ "m1", "m2" }), -2 }), "Only supports dim=0, got dim=-2");
    expectSkip(catOf(list({ list({ "m1", "m2" }) }), nullptr), "Missing output metadata");
    expectSkip(catOf(list({ list({ "x", "m2" }) })), "Input 0 is not a function call node");
}

TEST(PassRemoveCat, InputWithoutMetadata)
{
    auto g = graph(weights(),
        { op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })), op("m2", "aten.mm.default", { "x", "w2" }),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })) },
        { "c" });
    expectSkip(g, "Input 1 missing metadata");
}

// Ordinary pointwise producers (TorchAir's own basic case): exp and sin write into slices of one
// buffer through exp.out and sin.out, which PyTorch's registry has.
TEST(PassRemoveCat, PointwiseProducersUseTheirOutOverloads)
{
    auto g = graph(weights(),
        { op("e", "aten.exp.default", { "x" }, meta({ 2, 4 })), op("s", "aten.sin.default", { "x" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "e", "s" }) }), meta({ 4, 4 })) },
        { "c" });
    auto r = run(g);
    EXPECT_FALSE(has(g, "c"));
    EXPECT_THAT(logText(r), HasSubstr("Optimizing c (2 inputs)\nremove_cat_ops: Optimized 1 cat node(s)\n"));
    EXPECT_TRUE(has(g, "exp_out"));
    EXPECT_TRUE(has(g, "sin_out"));
    EXPECT_EQ(node(g, "exp_out").target, "aten.exp.out");
    EXPECT_EQ(node(g, "sin_out").target, "aten.sin.out");
}

// The shapes of npugraph_ex's own cat tests (test_cat_optimization_*), as their AOT graphs are:
// three different producers (exp, sin, and add of a clone: `x.clone().add_(y)` functionalized) all
// write into slices; producers that are views have no .out overload and the cat stays.
TEST(PassRemoveCat, DifferentProducersAndViews)
{
    auto g = graph({ input("x", { 2, 4 }), input("y", { 2, 4 }) },
        { op("e", "aten.exp.default", { "x" }, meta({ 2, 4 })), op("s", "aten.sin.default", { "x" }, meta({ 2, 4 })),
            op("k", "aten.clone.default", { "x" }, meta({ 2, 4 })),
            op("a", "aten.add.Tensor", { "k", "y" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "e", "s", "a" }) }), meta({ 6, 4 })) },
        { "c" });
    auto r = run(g);
    EXPECT_FALSE(has(g, "c"));
    EXPECT_THAT(logText(r), HasSubstr("Optimizing c (3 inputs)\n"));
    EXPECT_EQ(node(g, "add_out").target, "aten.add.out");

    auto views = graph({ input("x", { 2, 4 }) },
        { op("v1", "aten.view.default", { "x", list({ 8 }) }, meta({ 8 })),
            op("v2", "aten.view.default", { "x", list({ 8 }) }, meta({ 8 })),
            op("c", "aten.cat.default", list({ list({ "v1", "v2" }) }), meta({ 16 })) },
        { "c" });
    expectSkip(views, "Input 0 op aten.view.default has no .out variant");
}

TEST(PassRemoveCat, InputWithoutOutVariant)
{
    auto g = graph(weights(),
        { op("m1", "aten.argwhere.default", { "x" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })) },
        { "c" });
    expectSkip(g, "Input 0 op aten.argwhere.default has no .out variant"); // PyTorch registers no argwhere.out

    // An op the table does not know is refused with the same text, and the report says why.
    auto unknown = graph(weights(),
        { op("m1", "mylib.foo.default", { "x" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })) },
        { "c" });
    auto r = run(unknown);
    EXPECT_EQ(skipReason(r, "c"), "Input 0 op mylib.foo.default has no .out variant (op not in the operator table)");
    EXPECT_THAT(logText(r), HasSubstr("Skip c: Input 0 op mylib.foo.default has no .out variant\n"));
}

TEST(PassRemoveCat, InputSharedWithAnotherCat)
{
    auto g = graph(weights(),
        { op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })),
            op("d", "aten.cat.default", list({ list({ "m2", "m1" }) }), meta({ 4, 4 })) },
        { "c", "d" });
    auto r = run(g);
    EXPECT_EQ(skipReason(r, "c"), "Input 0 is shared with another cat node");
    EXPECT_EQ(skipReason(r, "d"), "Input 0 is shared with another cat node");
    EXPECT_THAT(logText(r), HasSubstr("[remove_cat_ops] Found 2 cat node(s)\nSkip c: "));
}

TEST(PassRemoveCat, ShapesMustAgreeOffDimZero)
{
    auto ranks = graph(weights(),
        { op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 8 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })) },
        { "c" });
    expectSkip(ranks, "Incompatible tensor ranks");
    auto shapes = graph(weights(),
        { op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 3 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })) },
        { "c" });
    expectSkip(shapes, "Shape mismatch on non-concat dimensions");
}

TEST(PassRemoveCat, BufferStaysInTheCatsStream)
{
    auto g = graph(weights(),
        { streamEnter("enter", "s1"), op("m1", "aten.mm.default", { "x", "w1" }, meta({ 2, 4 })),
            op("m2", "aten.mm.default", { "x", "w2" }, meta({ 2, 4 })),
            op("c", "aten.cat.default", list({ list({ "m1", "m2" }) }), meta({ 4, 4 })), streamExit("exit") },
        { "c" });
    auto r = run(g);
    ASSERT_FALSE(has(g, "c"));
    // scope_enter(['_user_stream_label'], ['s1']), empty, scope_exit, before the first producer.
    const int e = g.find("empty_memory_format");
    ASSERT_GT(e, 0);
    EXPECT_EQ(g.nodes[size_t(e) - 1].target, "air.scope_enter.default");
    EXPECT_EQ(g.nodes[size_t(e) - 1].args[1].items[0].s, "s1");
    EXPECT_EQ(g.nodes[size_t(e) + 1].target, "air.scope_exit.default");
    EXPECT_EQ(r.added.size(), 7u);
}

TEST(PassRemoveCat, SymbolicSizesComeFromSymIntInputs)
{
    // Dim 0 static, dim 1 symbolic: the buffer's shape names the SymInt placeholder.
    auto g = graph({ symInput("s", "s0"), input("x", { 2, "s0" }), input("y", { 3, "s0" }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 2, "s0" })),
            op("b", "aten.mul.Tensor", { "y", 2 }, meta({ 3, "s0" })),
            op("c", "aten.cat.default", list({ list({ "a", "b" }) }), meta({ 5, "s0" })) },
        { "c" }, true);
    run(g);
    ASSERT_FALSE(has(g, "c"));
    EXPECT_EQ(refs(node(g, "empty_memory_format").args), "[s]");

    // A compound size (2*s0) would need operator nodes built from the expression: not modelled.
    auto compound = graph({ symInput("s", "s0"), input("x", { "s0", 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ "s0", 4 })),
            op("b", "aten.mul.Tensor", { "x", 3 }, meta({ "s0", 4 })),
            op("c", "aten.cat.default", list({ list({ "a", "b" }) }), meta({ "2*s0", 4 })) },
        { "c" }, true);
    auto r = run(compound);
    EXPECT_TRUE(has(compound, "c"));
    EXPECT_EQ(skipReason(r, "c"), "aclgraph-inspector: the size 2*s0 is a compound expression, which is not modelled");
}

TEST(PassRemoveCat, DisabledLeavesGraphAlone)
{
    auto g = catOf(list({ list({ "m1", "m2" }) }));
    auto r = engine::passes::removeCatOps(g, options({ { "remove_cat_ops", PyValue::boolean(false) } }));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->enabled);
    EXPECT_TRUE(has(g, "c"));
}

TEST(PassRemoveCat, SavesTheCopyAndABuffer)
{
    // Traffic: before, m1 and m2 write 2*32 bytes and the cat copies 64: 128; after, only the mm.out
    // writes (64). Peak: x's staging copy (32 + 32 pad -> 512) plus, before, m1, m2 and c (3 x 512);
    // after, the buffer alone (512).
    auto g = catOf(list({ list({ "m1", "m2" }) }));
    auto r = engine::passes::runReduceOverheadPasses(g, options());
    ASSERT_TRUE(r.ok());
    const PassReport& cat = *engine::passes::findPass(*r, "remove_cat_ops");
    EXPECT_EQ(cat.name, "remove_cat_ops");
    EXPECT_EQ(cat.trafficBytesBefore, 128u);
    EXPECT_EQ(cat.trafficBytesAfter, 64u);
    EXPECT_EQ(cat.peakBytesBefore, 4u * 512u);
    EXPECT_EQ(cat.peakBytesAfter, 2u * 512u);
}
