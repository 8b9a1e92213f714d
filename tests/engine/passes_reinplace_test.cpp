// reinplace_inplaceable_ops_pass (torchair-behavior.md §4.1): one graph where it fires and one per
// condition that stops it, with TorchAir's DEBUG texts.
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

PassReport run(engine::Graph& g)
{
    auto r = engine::passes::reinplaceInplaceableOps(g, options());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

// x (input) -> a = x * 2 (intermediate) -> b = a + 1, returned, plus `extra` nodes and outputs.
engine::Graph chain(ordered_json extra = ordered_json::array(), ordered_json outputs = list({ "b" }))
{
    ordered_json nodes = { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
        op("b", "aten.add.Tensor", { "a", 1 }, meta({ 4, 4 })) };
    for (const auto& n : extra)
        nodes.push_back(n);
    return graph({ input("x", { 4, 4 }) }, nodes, outputs);
}

} // namespace

TEST(PassReinplace, IntermediateBecomesInPlace)
{
    auto g = chain();
    auto r = run(g);
    EXPECT_EQ(r.option, "debug.aclgraph.disable_reinplace_inplaceable_ops_pass");
    EXPECT_EQ(node(g, "b").target, "aten.add_.Tensor");
    EXPECT_EQ(rewrittenTo(r, "b"), "aten.add_.Tensor");
    // a = x * 2 writes into x, a graph input: refused.
    EXPECT_EQ(node(g, "a").target, "aten.mul.Tensor");
    EXPECT_EQ(skipReason(r, "a"), "Node[a] arg_index[0] mutate program inputs, skip reinplace");
    const std::string log = logText(r);
    EXPECT_THAT(
        log, HasSubstr("[_reinplace_inplaceable_ops_pass]processing reinplace_inplaceable_ops_pass for graph: g\n"));
    EXPECT_THAT(log,
        HasSubstr("[multi_stream_single_reinplace]Current node: b, type: aten.add.Tensor check no multi stream users "
                  "success for reinplace. The users of the mutated input node did not have multiple streams.\n"
                  "Node[b] check multi-stream is True\nNode[b] arg_index[0] check reinplace is True\n"
                  "Node[b] can reinplace, start to update alias maps\n"));
    EXPECT_THAT(log, HasSubstr("After fx graph pass(reinplace_inplaceable_ops_pass) optimization:"));
}

TEST(PassReinplace, LaterUseOfSelfBlocks)
{
    auto g = chain({ op("c", "aten.mul.Tensor", { "a", "b" }, meta({ 4, 4 })) }, list({ "c" }));
    auto r = run(g);
    EXPECT_EQ(node(g, "b").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "b"), "Node[b] arg_index[0] check reinplace is False (later uses: [c])");
    EXPECT_THAT(logText(r), HasSubstr("Node[b] arg_index[0] check reinplace is False\n"));
    // c = a * b: a is not used after c, so c can write into a.
    EXPECT_EQ(node(g, "c").target, "aten.mul_.Tensor");
}

TEST(PassReinplace, LaterUseThroughAViewBlocks)
{
    // v = a.view(16) aliases a; returning v reads a's storage after b.
    auto g = chain({ op("v", "aten.view.default", { "a", { 16 } }, meta({ 16 })) }, list({ "b", "v" }));
    auto r = run(g);
    EXPECT_EQ(node(g, "b").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "b"), "Node[b] arg_index[0] check reinplace is False (later uses: [output])");
}

TEST(PassReinplace, SelfMustHoldTheResult)
{
    // numel: a is [1, 4], the result [4, 4].
    auto numel = graph({ input("x", { 1, 4 }), input("y", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 1, 4 })),
            op("b", "aten.add.Tensor", { "a", "y" }, meta({ 4, 4 })) },
        { "b" });
    auto r = run(numel);
    EXPECT_EQ(node(numel, "b").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "b"), "Node[b] has self_has_wrong_metadata, skip reinplace");
    EXPECT_THAT(logText(r), HasSubstr("Node[b] has self_has_wrong_metadata, skip reinplace\n"));

    // dtype: f16 self, f32 result.
    auto dtype = graph({ input("x", { 4, 4 }, "user_input", "f16"), input("y", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 }, "f16")),
            op("b", "aten.add.Tensor", { "a", "y" }, meta({ 4, 4 })) },
        { "b" });
    r = run(dtype);
    EXPECT_EQ(skipReason(r, "b"), "Node[b] has self_has_wrong_metadata, skip reinplace");

    // Internal overlap: an expanded tensor (stride 0) cannot be written element by element.
    auto overlap = graph({ input("x", { 1, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 1, 4 })),
            op("e", "aten.expand.default", { "a", { 4, 4 } },
                { { "shape", { 4, 4 } }, { "stride", { 0, 1 } }, { "dtype", "f32" } }),
            op("b", "aten.add.Tensor", { "e", 1 }, meta({ 4, 4 })) },
        { "b" });
    r = run(overlap);
    EXPECT_EQ(skipReason(r, "b"), "Node[b] has self_has_wrong_metadata, skip reinplace");
}

TEST(PassReinplace, RepeatedSelfBlocks)
{
    auto g = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("b", "aten.mul.Tensor", { "a", "a" }, meta({ 4, 4 })) },
        { "b" });
    auto r = run(g);
    EXPECT_EQ(node(g, "b").target, "aten.mul.Tensor");
    EXPECT_EQ(skipReason(r, "b"), "Node[b] has repeated self argument, skip reinplace");
}

TEST(PassReinplace, OpsWithoutInplaceVariantOrSchema)
{
    auto g = graph({ input("x", { 4, 4 }), input("w", { 4, 4 }, "parameter") },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("m", "aten.mm.default", { "a", "w" }, meta({ 4, 4 })),
            op("u", "mylib.foo.default", { "m" }, meta({ 4, 4 })),
            op("c", "aten.cat.default", list({ list({ "u", "u" }) }), meta({ 8, 4 })) },
        { "c" });
    auto r = run(g);
    EXPECT_EQ(skipReason(r, "m"), "no in-place variant of aten.mm.default (_maybe_get_inplace_op returns None)");
    EXPECT_EQ(skipReason(r, "u"), "op mylib.foo.default is not in the operator table: not reinplaced");
    EXPECT_EQ(skipReason(r, "c"), "its first schema argument is not a Tensor");
}

// The K/V-cache updates of a decoder step: index_copy and index_put into an intermediate cache are
// reinplaced through PyTorch's own in-place overloads (the table has every one).
TEST(PassReinplace, KvCacheUpdatesBecomeInPlace)
{
    auto g = graph({ input("x", { 8, 4 }), input("idx", { 2 }, "user_input", "i64"), input("v", { 2, 4 }) },
        { op("k", "aten.mul.Tensor", { "x", 2 }, meta({ 8, 4 })),
            op("u", "aten.index_copy.default", { "k", 0, "idx", "v" }, meta({ 8, 4 })),
            op("p", "aten.index_put.default", { "u", list({ "idx" }), "v" }, meta({ 8, 4 })) },
        { "p" });
    auto r = run(g);
    EXPECT_EQ(node(g, "u").target, "aten.index_copy_.default");
    EXPECT_EQ(rewrittenTo(r, "u"), "aten.index_copy_.default");
    EXPECT_EQ(node(g, "p").target, "aten.index_put_.default");
    EXPECT_THAT(logText(r), testing::Not(HasSubstr("operator table")));
}

TEST(PassReinplace, UsersOnTwoStreamsBlock)
{
    // a's users: c inside stream s1, b outside.
    auto g = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })), streamEnter("enter", "s1"),
            op("c", "aten.relu.default", { "a" }, meta({ 4, 4 })), streamExit("exit"),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 4, 4 })) },
        { "b", "c" });
    auto r = run(g);
    const std::string failed = "[multi_stream_single_reinplace]Current node: b, type: aten.add.Tensor check no multi "
                               "stream users failed for reinplace. The users of the mutated input node have multiple "
                               "streams. All the users are [c, b].";
    EXPECT_EQ(node(g, "b").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "b"), failed);
    EXPECT_THAT(logText(r), HasSubstr(failed + "\nNode[b] check multi-stream is False\n"));

    // The same graph without the scope: b is rewritten.
    auto single = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })), op("c", "aten.relu.default", { "a" }, meta({ 4, 4 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 4, 4 })) },
        { "b", "c" });
    run(single);
    EXPECT_EQ(node(single, "b").target, "aten.add_.Tensor");
}

TEST(PassReinplace, OutputCountsAsAUserOnTheDefaultStream)
{
    // Everything in stream s1, but the graph output (label None) also reads a.
    auto g = graph({ input("x", { 4, 4 }) },
        { streamEnter("enter", "s1"), op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("b", "aten.add.Tensor", { "a", 1 }, meta({ 4, 4 })), streamExit("exit") },
        { "a", "b" });
    auto r = run(g);
    EXPECT_THAT(skipReason(r, "b"), HasSubstr("All the users are [b, output]."));
}

TEST(PassReinplace, MultiOutputNpuOp)
{
    // npu_add_rms_norm_v2_functional(x1, x2, gamma) mutates args 0 and 1 (outputs 2 and 3 of 4).
    auto build = [](const std::string& x1) {
        return graph({ input("x", { 4, 8 }), input("y", { 4, 8 }), input("gamma", { 8 }, "parameter") },
            { op("p", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 8 })),
                op("q", "aten.mul.Tensor", { "y", 2 }, meta({ 4, 8 })),
                op("n", "npu.npu_add_rms_norm_v2_functional.default", { x1, "q", "gamma" },
                    list({ meta({ 4, 8 }), meta({ 4, 1 }), meta({ 4, 8 }), meta({ 4, 8 }) })),
                op("y0", "operator.getitem", { "n", 0 }, meta({ 4, 8 })),
                // A later use of a mutated buffer does not block these ops.
                op("late", "aten.relu.default", { "q" }, meta({ 4, 8 })) },
            { "y0", "late" });
    };
    auto g = build("p");
    auto r = run(g);
    EXPECT_EQ(node(g, "n").target, "npu.npu_add_rms_norm_v2.default");
    EXPECT_THAT(logText(r),
        HasSubstr("[multi_stream_multi_reinplace]Current node: n, type: npu.npu_add_rms_norm_v2_functional.default "
                  "check no multi stream users success"));

    auto fromInput = build("x");
    r = run(fromInput);
    EXPECT_EQ(node(fromInput, "n").target, "npu.npu_add_rms_norm_v2_functional.default");
    EXPECT_EQ(skipReason(r, "n"), "Node[n] arg_index[0] mutate program inputs, skip reinplace");
}

// TorchAir checks the users of the getitem that extracts a mutated argument's output too, counting
// the outputs from meta["fake_result"], which its own metadata propagation always sets
// (graph_pass.py: _FunctionalizationMetadataProp(gm).propagate; utils.py get_inplace_op_mutated_input_users).
// A graph read without metadata for the op still has those outputs: the schema says how many.
TEST(PassReinplace, MultiOutputUsersOfTheMutatedOutputCountWithoutMetadata)
{
    // npu_add_rms_norm_v2_functional returns 3 tensors; arg 0 (p) comes back as output 1, which the graph
    // returns (default stream) and c reads inside stream s1.
    auto build = [](bool withMeta) {
        return graph({ input("x", { 4, 8 }), input("y", { 4, 8 }), input("gamma", { 8 }, "parameter") },
            { op("p", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 8 })),
                op("q", "aten.mul.Tensor", { "y", 2 }, meta({ 4, 8 })),
                op("n", "npu.npu_add_rms_norm_v2_functional.default", { "p", "q", "gamma" },
                    withMeta ? list({ meta({ 4, 8 }), meta({ 4, 8 }), meta({ 4, 8 }) }) : ordered_json(nullptr)),
                op("g1", "operator.getitem", { "n", 1 }, meta({ 4, 8 })), streamEnter("enter", "s1"),
                op("c", "aten.relu.default", { "g1" }, meta({ 4, 8 })), streamExit("exit") },
            { "g1", "c" });
    };
    for (bool withMeta : { true, false }) {
        auto g = build(withMeta);
        auto r = run(g);
        EXPECT_EQ(node(g, "n").target, "npu.npu_add_rms_norm_v2_functional.default") << withMeta;
        EXPECT_EQ(skipReason(r, "n"),
            "[multi_stream_multi_reinplace]Current node: n, type: npu.npu_add_rms_norm_v2_functional.default check no "
            "multi stream users failed for reinplace. The users of the mutated input node have multiple streams. All "
            "the users are [n, c, output].")
            << withMeta;
    }
    // Without the stream scope the same users agree and the op is reinplaced.
    auto plain = graph({ input("x", { 4, 8 }), input("y", { 4, 8 }), input("gamma", { 8 }, "parameter") },
        { op("p", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 8 })),
            op("q", "aten.mul.Tensor", { "y", 2 }, meta({ 4, 8 })),
            op("n", "npu.npu_add_rms_norm_v2_functional.default", { "p", "q", "gamma" }),
            op("g1", "operator.getitem", { "n", 1 }, meta({ 4, 8 })),
            op("c", "aten.relu.default", { "g1" }, meta({ 4, 8 })) },
        { "g1", "c" });
    run(plain);
    EXPECT_EQ(node(plain, "n").target, "npu.npu_add_rms_norm_v2.default");
}

TEST(PassReinplace, MultiOutputNpuOpNeedsItsMutatedArguments)
{
    // npu_kv_rmsnorm_rope_cache_v2_functional mutates args 5 and 6; with three arguments it is left alone.
    auto g = graph({ input("x", { 4, 8 }) },
        { op("p", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 8 })),
            op("n", "npu.npu_kv_rmsnorm_rope_cache_v2_functional.default", { "p", "p", "p" },
                list({ meta({ 4, 8 }) })) },
        { "n" });
    auto r = run(g);
    EXPECT_EQ(skipReason(r, "n"), "mutated argument 5 is not a node argument of n");
}

TEST(PassReinplace, ViewInverseScatterBecomesViewAndCopy)
{
    // a = x * 2; s = a[0:2]; m = s * 3; u = slice_scatter(a, m, 0, 0, 2): m can write into s in place,
    // which makes the scatter (putting m back into a) unnecessary, so it goes.
    auto g = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("s", "aten.slice.Tensor", { "a", 0, 0, 2 }, meta({ 2, 4 })),
            op("m", "aten.mul.Tensor", { "s", 3 }, meta({ 2, 4 })),
            op("u", "aten.slice_scatter.default", { "a", "m", 0, 0, 2 }, meta({ 4, 4 })) },
        { "u" });
    auto r = run(g);
    EXPECT_EQ(node(g, "m").target, "aten.mul_.Tensor");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "u" }));
    EXPECT_EQ(skipReason(r, "u"), "");
    // TorchAir HEAD points the scatter's users at self (torch's pass uses the scatter's base).
    EXPECT_EQ(refs(g.nodes.back().args), "[s]");
    EXPECT_THAT(logText(r), HasSubstr("aclgraph-inspector: the users of u now read s, a view of a"));
    EXPECT_EQ(skipReason(r, "s"), "Node[s] has self_has_wrong_metadata, skip reinplace");

    // A scatter whose own self is an intermediate nobody reads later: slice + copy_ replace it.
    auto direct = graph({ input("x", { 4, 4 }), input("y", { 2, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("u", "aten.slice_scatter.default", { "a", "y", 0, 0, 2 }, meta({ 4, 4 })) },
        { "u" });
    r = run(direct);
    EXPECT_FALSE(has(direct, "u"));
    EXPECT_EQ(r.added, (std::vector<std::string> { "slice_tensor", "copy__default" }));
    EXPECT_EQ(node(direct, "slice_tensor").target, "aten.slice.Tensor");
    EXPECT_EQ(refs(node(direct, "copy__default").args), "slice_tensor,y");
    EXPECT_EQ(refs(direct.nodes.back().args), "[a]");
    EXPECT_EQ(rewrittenTo(r, "u"), "aten.slice.Tensor + aten.copy_.default");
}

TEST(PassReinplace, DisabledLeavesGraphAlone)
{
    auto g = chain();
    auto r = engine::passes::reinplaceInplaceableOps(g, options({ { "inplace_pass", PyValue::boolean(false) } }));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->enabled);
    EXPECT_EQ(node(g, "b").target, "aten.add.Tensor");

    auto npu = engine::passes::reinplaceInplaceableOps(
        g, options({ { "inplace_pass", PyValue::boolean(false) } }, engine::config::Backend::NpugraphEx));
    ASSERT_TRUE(npu.ok());
    EXPECT_EQ(npu->option, "inplace_pass");
    EXPECT_FALSE(npu->enabled);
}
