// TorchAir's reduce-overhead FX passes (torchair-behavior.md §4.0, §4.3), the op schema table, and the
// pipeline: order, option switches, stages, reports and the memory measurement. The reinplace passes
// are in passes_reinplace_test.cpp, remove_cat_ops in passes_cat_test.cpp.
#include "engine/passes/op_schemas.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

// x (input) -> a = x * 2 -> b = <op>(a) -> c = b + 1, returned: `b` is the node under test.
engine::Graph unary(const std::string& target, ordered_json args, ordered_json bMeta,
    ordered_json aMeta = meta({ 4, 4 }), ordered_json kwargs = ordered_json::object())
{
    return graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, aMeta), op("b", target, std::move(args), bMeta, std::move(kwargs)),
            op("c", "aten.add.Tensor", { "b", 1 }, bMeta) },
        { "c" });
}

PassReport noop(engine::Graph& g)
{
    auto r = engine::passes::removeNoopOps(g, options());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

} // namespace

TEST(PassSchema, InplaceAndOutVariantsComeFromTheTable)
{
    using namespace engine::passes;
    EXPECT_EQ(inplaceVariant("aten.add.Tensor").inplace, "aten.add_.Tensor");
    EXPECT_EQ(inplaceVariant("torch.ops.aten.mul.Scalar").inplace, "aten.mul_.Scalar");
    // Matched by argument types, not by overload name.
    EXPECT_EQ(inplaceVariant("aten.pow.Tensor_Scalar").inplace, "aten.pow_.Scalar");
    EXPECT_EQ(inplaceVariant("aten.copy.default").inplace, "aten.copy_.default");
    EXPECT_TRUE(inplaceVariant("aten.mm.default").known);
    EXPECT_EQ(inplaceVariant("aten.mm.default").inplace, "");
    // Views have in-place twins that reinplacing must not use.
    EXPECT_EQ(inplaceVariant("aten.slice.Tensor").inplace, "");
    EXPECT_FALSE(inplaceVariant("mylib.foo.default").known);
    EXPECT_EQ(outVariant("aten.mm.default").out, "aten.mm.out");
    EXPECT_EQ(outVariant("aten.sum.dim_IntList").out, "aten.sum.IntList_out");
    EXPECT_EQ(outVariant("aten.add.Scalar").out, "aten.add.Scalar_out");
    EXPECT_EQ(outVariant("aten.relu.default").out, "aten.relu.out");
    EXPECT_EQ(outVariant("aten.exp.default").out, "aten.exp.out");
    EXPECT_TRUE(outVariant("aten.argwhere.default").known);
    EXPECT_EQ(outVariant("aten.argwhere.default").out, ""); // PyTorch registers no argwhere.out
    // The K/V-cache updates have in-place twins in PyTorch's registry.
    EXPECT_EQ(inplaceVariant("aten.index_copy.default").inplace, "aten.index_copy_.default");
    EXPECT_EQ(inplaceVariant("aten.index_put.default").inplace, "aten.index_put_.default");
    EXPECT_EQ(inplaceVariant("aten.scatter.src").inplace, "aten.scatter_.src");
    // _schemas_match also wants the in-place overload's first argument written (a!): as_strided_'s
    // is Tensor(a) (an inplace_view), so as_strided_scatter finds none even by its types.
    EXPECT_EQ(inplaceVariant("aten.exp.default").inplace, "aten.exp_.default");
    EXPECT_EQ(viewInverseOf("aten.slice_scatter.default"), "aten.slice.Tensor");
    ASSERT_NE(findMultiInplace("npu.npu_mla_prolog_v3_functional.default"), nullptr);
    EXPECT_EQ(findMultiInplace("npu.npu_mla_prolog_v3_functional.default")->mutatedArgs, (std::vector<int> { 9, 10 }));
    EXPECT_EQ(torchairPassName("remove_noop_ops"), "optimize_noop_ops");
    EXPECT_EQ(debugFileName("remove_cat_ops"), "aot_forward_graph_after_remove_cat_ops.txt");
}

TEST(PassNoop, RemovesCloneOfIntermediate)
{
    auto g = unary("aten.clone.default", { "a" }, meta({ 4, 4 }));
    auto r = noop(g);
    EXPECT_EQ(r.name, "remove_noop_ops");
    EXPECT_EQ(r.option, "experimental_config.remove_noop_ops");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "b" }));
    EXPECT_EQ(refs(node(g, "c").args), "a");
    EXPECT_EQ(r.nodesBefore, 5);
    EXPECT_EQ(r.nodesAfter, 4);
}

TEST(PassNoop, KeepsCloneThatWouldAliasInputAndOutput)
{
    // `return x.clone()`: removing the clone would return the caller's own tensor.
    auto g = graph({ input("x", { 4, 4 }) }, { op("b", "aten.clone.default", { "x" }, meta({ 4, 4 })) }, { "b" });
    auto r = noop(g);
    EXPECT_TRUE(has(g, "b"));
    EXPECT_EQ(skipReason(r, "b"),
        "not removed: graph output b would alias graph input x (inductor does not introduce new aliasing between "
        "inputs and outputs)");
}

TEST(PassNoop, KeepsCloneThatWouldAliasTwoOutputs)
{
    auto g = graph({ input("x", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
            op("b", "aten.clone.default", { "a" }, meta({ 4, 4 })) },
        { "a", "b" });
    auto r = noop(g);
    EXPECT_TRUE(has(g, "b"));
    EXPECT_THAT(skipReason(r, "b"), HasSubstr("would alias graph output a"));
}

TEST(PassNoop, FullRangeSliceGoesPartialStays)
{
    auto full = unary("aten.slice.Tensor", { "a", 0, 0, 9223372036854775807LL }, meta({ 4, 4 }));
    noop(full);
    EXPECT_FALSE(has(full, "b"));

    auto toSize = unary("aten.slice.Tensor", { "a", 1, 0, 4 }, meta({ 4, 4 }));
    noop(toSize);
    EXPECT_FALSE(has(toSize, "b"));

    auto partial = unary("aten.slice.Tensor", { "a", 0, 0, 2 }, meta({ 2, 4 }));
    auto r = noop(partial);
    EXPECT_TRUE(has(partial, "b"));
    EXPECT_EQ(skipReason(r, "b"), "input and output metadata differ (same_meta: size, stride, dtype, device)");

    // Same metadata, but inductor's slice_noop wants an explicit end.
    auto open = unary("aten.slice.Tensor", { "a", 0, 0, nullptr }, meta({ 4, 4 }));
    r = noop(open);
    EXPECT_TRUE(has(open, "b"));
    EXPECT_EQ(skipReason(r, "b"), "not a no-op: slice without start or end is not treated as a no-op");
}

TEST(PassNoop, OtherNoopPatterns)
{
    struct Case {
        const char* target;
        ordered_json args;
        ordered_json aMeta;
        bool removed;
        const char* reason;
    };
    const Case cases[] = {
        { "aten.repeat.default", { "a", { 1, 1 } }, meta({ 4, 4 }), true, "" },
        { "aten.constant_pad_nd.default", { "a", { 0, 0, 0, 0 } }, meta({ 4, 4 }), true, "" },
        { "prims.convert_element_type.default", { "a", str("torch.float32") }, meta({ 4, 4 }), true, "" },
        { "prims.device_put.default", { "a", str("npu") }, meta({ 4, 4 }), true, "" },
        { "aten.pow.Tensor_Scalar", { "a", 1 }, meta({ 4, 4 }), true, "" },
        { "aten.pow.Tensor_Scalar", { "a", 1.0 }, meta({ 4, 4 }), false, "not a no-op: the exponent is not the int 1" },
        { "aten.cat.default", { { "a" } }, meta({ 4, 4 }), true, "" },
        { "aten.view.default", { "a", { 4, 4 } }, meta({ 4, 4 }), true, "" },
        { "aten.alias.default", { "a" }, meta({ 4, 4 }), true, "" },
        { "aten.floor.default", { "a" }, meta({ 4, 4 }, "i64"), true, "" },
        { "aten.floor.default", { "a" }, meta({ 4, 4 }), false, "not a no-op: floor is not on an integer tensor" },
    };
    for (const Case& c : cases) {
        const std::string dtype = c.aMeta["dtype"];
        auto g = unary(c.target, c.args, meta({ 4, 4 }, dtype), c.aMeta);
        auto r = noop(g);
        EXPECT_EQ(!has(g, "b"), c.removed) << c.target << " " << c.args.dump();
        EXPECT_EQ(skipReason(r, "b"), c.reason) << c.target << " " << c.args.dump();
    }
}

TEST(PassNoop, DtypeChangeIsNotANoop)
{
    auto g = unary("prims.convert_element_type.default", { "a", str("torch.float16") }, meta({ 4, 4 }, "f16"));
    auto r = noop(g);
    EXPECT_TRUE(has(g, "b"));
    EXPECT_EQ(skipReason(r, "b"), "input and output metadata differ (same_meta: size, stride, dtype, device)");
}

TEST(PassNoop, CopyUsesItsSecondArgument)
{
    // aten.copy(self, src) is registered with nop_arg=1: uses of the copy read src.
    auto g = graph({ input("x", { 4, 4 }), input("y", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "y", 2 }, meta({ 4, 4 })),
            op("b", "aten.copy.default", { "x", "a" }, meta({ 4, 4 })),
            op("c", "aten.add.Tensor", { "b", 1 }, meta({ 4, 4 })) },
        { "c" });
    noop(g);
    EXPECT_FALSE(has(g, "b"));
    EXPECT_EQ(refs(node(g, "c").args), "a");
}

TEST(PassNoop, SymbolicShapesCompareSymbolically)
{
    auto g = graph({ symInput("s", "s0"), input("x", { "s0", 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ "s0", 4 })),
            op("b", "aten.view.default", { "a", { "s", 4 } }, meta({ "s0", 4 })),
            op("c", "aten.add.Tensor", { "b", 1 }, meta({ "s0", 4 })) },
        { "c" }, true);
    noop(g);
    EXPECT_FALSE(has(g, "b"));
}

TEST(PassNoop, DisabledLeavesGraphAlone)
{
    auto g = unary("aten.clone.default", { "a" }, meta({ 4, 4 }));
    auto r = engine::passes::removeNoopOps(
        g, options({ { "experimental_config.remove_noop_ops", PyValue::boolean(false) } }));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->enabled);
    EXPECT_TRUE(has(g, "b"));
    EXPECT_TRUE(r->log.empty());
}

TEST(PassViewToReshape, RewritesViewDefaultOnly)
{
    auto g = graph({ input("x", { 4, 4 }) },
        { op("v", "aten.view.default", { "x", { 16 } }, meta({ 16 })),
            op("d", "aten.view.dtype", { "x", str("torch.int32") }, meta({ 4, 4 }, "i32")) },
        { "v", "d" });
    auto r = engine::passes::viewToReshape(g, options());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->option, "");
    EXPECT_EQ(node(g, "v").target, "aten.reshape.default");
    EXPECT_EQ(rewrittenTo(*r, "v"), "aten.reshape.default");
    EXPECT_EQ(node(g, "d").target, "aten.view.dtype");
    EXPECT_EQ(skipReason(*r, "d"), "only aten.view.default is rewritten; aten.view.dtype stays");
    EXPECT_THAT(logText(*r), HasSubstr("After fx graph pass(view_to_reshape) optimization:"));
}

TEST(PassDeadCode, RemovesUnusedChainsKeepsSideEffects)
{
    auto g = graph({ input("x", { 4, 4 }), input("kv", { 4, 4 }) },
        { op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })), op("b", "aten.relu.default", { "a" }, meta({ 4, 4 })),
            op("upd", "aten.add_.Tensor", { "kv", 1 }, meta({ 4, 4 })), streamEnter("enter", "s1"),
            op("r", "aten.rand.default", { { 4 } }, meta({ 4 })), streamExit("exit"),
            op("custom", "mylib.foo.default", { "x" }, meta({ 4, 4 })),
            op("out", "aten.neg.default", { "x" }, meta({ 4, 4 })) },
        { "out" });
    auto r = engine::passes::eliminateDeadCode(g, options());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->removed, (std::vector<std::string> { "a", "b" }));
    EXPECT_EQ(skipReason(*r, "upd"), "no users, kept: mutable schema: writes an argument");
    EXPECT_EQ(skipReason(*r, "enter"), "no users, kept: air.* scope/event op (side effect on the stream schedule)");
    EXPECT_EQ(skipReason(*r, "r"), "no users, kept: nondeterministic_seeded: advances the RNG state");
    EXPECT_EQ(skipReason(*r, "custom"),
        "no users, kept: op not in the operator table: kept, as its schema may mark it mutable");
    EXPECT_THAT(logText(*r),
        HasSubstr("After fx graph pass(eliminate_dead_code) optimization:\n    before 11 nodes, after 9 nodes,\n"
                  "    removed nodes: ['a', 'b'],\n    added nodes: [],\n    operations statistics:\n"
                  "     name           cnt(before)  cnt(after)  diff\n"
                  "    -------------  -----------  ----------  ----\n"
                  "    total                   11           9    -2\n"
                  "    call_function            8           6    -2\n"
                  "    output                   1           1     0\n"
                  "    placeholder              2           2     0\n\n"
                  "    targets statistics:\n"));
}
