// reinplace_input_mutated_ops (torchair-behavior.md §4.2): copy_ epilogues into graph inputs, one graph
// where the op becomes in-place and one per condition that stops it, with TorchAir's DEBUG texts.
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

PassReport run(engine::Graph& g)
{
    auto r = engine::passes::reinplaceInputMutatedOps(g, options());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

// kv (mutated input): a = kv + 1, `middle` nodes, c = kv.copy_(a), `after` nodes; returns `outputs`.
engine::Graph epilogue(ordered_json middle = ordered_json::array(), ordered_json after = ordered_json::array(),
    ordered_json outputs = ordered_json::array())
{
    ordered_json nodes = { op("a", "aten.add.Tensor", { "kv", 1 }, meta({ 4, 4 })) };
    for (const auto& n : middle)
        nodes.push_back(n);
    nodes.push_back(op("c", "aten.copy_.default", { "kv", "a" }, meta({ 4, 4 })));
    for (const auto& n : after)
        nodes.push_back(n);
    return graph({ input("kv", { 4, 4 }), input("x", { 4, 4 }) }, nodes, outputs);
}

const char* const kRefused = "can_inplace return False, will skip reinplacing for node: aten.add.Tensor";

} // namespace

TEST(PassInputMutated, OpWritesTheInputAndTheEpilogueGoes)
{
    auto g = epilogue();
    auto r = run(g);
    EXPECT_EQ(r.option, "debug.aclgraph.disable_reinplace_input_mutated_ops_pass");
    EXPECT_EQ(node(g, "a").target, "aten.add_.Tensor");
    EXPECT_EQ(rewrittenTo(r, "a"), "aten.add_.Tensor");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "c" }));
    const std::string log = logText(r);
    EXPECT_THAT(
        log, HasSubstr("[_reinplace_input_mutated_ops]processing reinplace_input_mutated_ops_pass for graph: g\n"));
    EXPECT_THAT(log,
        HasSubstr("[_reinplace_input_mutated_ops] mutated input replace candidates: to_replace_targets={a}, "
                  "copy_args_to_copy_nodes={(kv, a): c}\n"));
    EXPECT_THAT(log, HasSubstr("After fx graph pass(reinplace_input_mutated_ops) optimization:"));
}

TEST(PassInputMutated, UsersOfTheEpilogueReadTheInput)
{
    auto g = epilogue({}, { op("d", "aten.mul.Tensor", { "c", 2 }, meta({ 4, 4 })) }, list({ "d" }));
    run(g);
    EXPECT_FALSE(has(g, "c"));
    EXPECT_EQ(refs(node(g, "d").args), "kv");
}

TEST(PassInputMutated, ReadBeforeTheEpilogueBlocks)
{
    auto g = epilogue({ op("r", "aten.relu.default", { "kv" }, meta({ 4, 4 })) }, {}, list({ "r" }));
    auto r = run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add.Tensor");
    EXPECT_TRUE(has(g, "c"));
    EXPECT_EQ(skipReason(r, "a"), std::string(kRefused) + " (kv is read by r before its copy_ epilogue c)");
    EXPECT_THAT(logText(r), HasSubstr(std::string(kRefused) + "\n"));
    EXPECT_EQ(skipReason(r, "c"), "copy_ epilogue into kv kept: its source was not reinplaced into kv");
}

TEST(PassInputMutated, ReadsAfterTheEpilogueAndSizeQueriesDoNotBlock)
{
    // sym_size only reads metadata; r comes after the epilogue, when kv holds the new value anyway.
    auto g = epilogue({ op("n", "aten.sym_size.int", { "kv", 0 }) },
        { op("r", "aten.relu.default", { "kv" }, meta({ 4, 4 })) }, list({ "r" }));
    run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add_.Tensor");
}

TEST(PassInputMutated, FirstCopyIsTheEpilogue)
{
    // Two copies into kv: the first (c) is the epilogue, so b, the source of the second, finds c
    // before itself and nothing after; both ops become in-place.
    auto g = epilogue({},
        { op("b", "aten.mul.Tensor", { "kv", 2 }, meta({ 4, 4 })),
            op("c2", "aten.copy_.default", { "kv", "b" }, meta({ 4, 4 })) });
    auto r = run(g);
    EXPECT_THAT(logText(r), HasSubstr("copy_args_to_copy_nodes={(kv, a): c, (kv, b): c2}"));
    EXPECT_EQ(node(g, "a").target, "aten.add_.Tensor");
    EXPECT_EQ(node(g, "b").target, "aten.mul_.Tensor");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "c", "c2" }));
}

TEST(PassInputMutated, InputWithoutEpilogueIsNotWritten)
{
    // kv.copy_(x + 1): the op's own args[0] is x, which no copy_ writes back.
    auto g = graph({ input("kv", { 4, 4 }), input("x", { 4, 4 }) },
        { op("a", "aten.add.Tensor", { "x", 1 }, meta({ 4, 4 })),
            op("c", "aten.copy_.default", { "kv", "a" }, meta({ 4, 4 })) },
        ordered_json::array());
    auto r = run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "a"), std::string(kRefused) + " (x has no copy_ epilogue (the graph does not mutate it))");
}

TEST(PassInputMutated, IntermediateSelfIsWrittenAndTheCopyStays)
{
    // m = kv * 2; a = m + 1; kv.copy_(a): a writes into m; the epilogue still copies into kv.
    auto g = graph({ input("kv", { 4, 4 }) },
        { op("m", "aten.mul.Tensor", { "kv", 2 }, meta({ 4, 4 })),
            op("a", "aten.add.Tensor", { "m", 1 }, meta({ 4, 4 })),
            op("c", "aten.copy_.default", { "kv", "a" }, meta({ 4, 4 })) },
        ordered_json::array());
    auto r = run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add_.Tensor");
    EXPECT_TRUE(has(g, "c"));
    EXPECT_EQ(refs(node(g, "c").args), "kv,a");
    EXPECT_EQ(node(g, "m").target, "aten.mul.Tensor");
}

TEST(PassInputMutated, ViewOfAnInputIsNotWritten)
{
    auto g = graph({ input("kv", { 16 }), input("x", { 4, 4 }) },
        { op("v", "aten.view.default", { "x", { 16 } }, meta({ 16 })),
            op("a", "aten.add.Tensor", { "v", 1 }, meta({ 16 })),
            op("c", "aten.copy_.default", { "kv", "a" }, meta({ 16 })) },
        ordered_json::array());
    auto r = run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "a"), std::string(kRefused) + " (v is a view of graph input x)");
}

TEST(PassInputMutated, OpWithoutInplaceVariant)
{
    auto g = graph({ input("kv", { 4, 4 }), input("w", { 4, 4 }, "parameter") },
        { op("a", "aten.mm.default", { "kv", "w" }, meta({ 4, 4 })),
            op("c", "aten.copy_.default", { "kv", "a" }, meta({ 4, 4 })) },
        ordered_json::array());
    auto r = run(g);
    EXPECT_EQ(skipReason(r, "a"), "cannot find an inplace op for node aten.mm.default");
    EXPECT_THAT(logText(r), HasSubstr("cannot find an inplace op for node aten.mm.default\n"));
}

TEST(PassInputMutated, SelfCopyDoesNotCrash)
{
    auto g = graph({ input("kv", { 4, 4 }) }, { op("c", "aten.copy_.default", { "kv", "kv" }, meta({ 4, 4 })) },
        ordered_json::array());
    auto r = run(g);
    EXPECT_TRUE(has(g, "c"));
    EXPECT_EQ(skipReason(r, "c"),
        "self-copy copy_(kv, itself): nothing to reinplace; kept (npugraph_ex's eliminate_self_copy removes it later)");
}

TEST(PassInputMutated, UsersOnTwoStreamsBlock)
{
    // r reads kv on stream s1 after the epilogue: can_inplace passes, the stream check does not.
    auto g = epilogue({},
        { streamEnter("enter", "s1"), op("r", "aten.relu.default", { "kv" }, meta({ 4, 4 })), streamExit("exit") },
        list({ "r" }));
    auto r = run(g);
    EXPECT_EQ(node(g, "a").target, "aten.add.Tensor");
    EXPECT_EQ(skipReason(r, "a"),
        std::string(kRefused)
            + " ([multi_stream_single_reinplace]Current node: a, type: aten.add.Tensor check no multi stream users "
              "failed "
              "for reinplace. The users of the mutated input node have multiple streams. All the users are [a, r].)");
}

namespace {

// npu_add_rms_norm_v2_functional(x1, x2, gamma): outputs 2 and 3 are the new x1 and x2, copied back.
engine::Graph multi(const std::string& secondCopyDst, ordered_json middle = ordered_json::array())
{
    ordered_json nodes = { op("n", "npu.npu_add_rms_norm_v2_functional.default", { "x1", "x2", "gamma" },
                               list({ meta({ 4, 8 }), meta({ 4, 1 }), meta({ 4, 8 }), meta({ 4, 8 }) })),
        op("y", "operator.getitem", { "n", 0 }, meta({ 4, 8 })),
        op("g2", "operator.getitem", { "n", 2 }, meta({ 4, 8 })),
        op("g3", "operator.getitem", { "n", 3 }, meta({ 4, 8 })) };
    for (const auto& m : middle)
        nodes.push_back(m);
    nodes.push_back(op("c1", "aten.copy_.default", { "x1", "g2" }, meta({ 4, 8 })));
    nodes.push_back(op("c2", "aten.copy_.default", { secondCopyDst, "g3" }, meta({ 4, 8 })));
    return graph(
        { input("x1", { 4, 8 }), input("x2", { 4, 8 }), input("z", { 4, 8 }), input("gamma", { 8 }, "parameter") },
        nodes, list({ "y" }));
}

} // namespace

TEST(PassInputMutated, MultiOutputOpWithEveryEpilogue)
{
    auto g = multi("x2");
    auto r = run(g);
    EXPECT_EQ(node(g, "n").target, "npu.npu_add_rms_norm_v2.default");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "g2", "g3", "c1", "c2" }));
    // TorchAir also looks at the getitems (and logs that getitem has no in-place op); removed, they are not "skipped".
    EXPECT_THAT(logText(r), HasSubstr("cannot find an inplace op for node <built-in function getitem>\n"));
    EXPECT_EQ(skipReason(r, "g2"), "");
    EXPECT_THAT(logText(r), HasSubstr("copy_args_to_copy_nodes={(x1, n): c1, (x2, n): c2}"));
}

TEST(PassInputMutated, MultiOutputOpMissingAnEpilogue)
{
    // The second result is copied into z, which the op does not take: x2 has no epilogue from it.
    auto g = multi("z");
    auto r = run(g);
    const std::string line = "reinplace failed, all mutated args(get_item) must have copy epilogues: "
                             "npu.npu_add_rms_norm_v2_functional.default";
    EXPECT_EQ(node(g, "n").target, "npu.npu_add_rms_norm_v2_functional.default");
    EXPECT_EQ(skipReason(r, "n"), line);
    EXPECT_THAT(logText(r), HasSubstr(line + "\n"));
}

TEST(PassInputMutated, MultiOutputOpRefusedByCanInplace)
{
    auto g = multi("x2", { op("r", "aten.relu.default", { "x2" }, meta({ 4, 8 })) });
    auto r = run(g);
    EXPECT_EQ(node(g, "n").target, "npu.npu_add_rms_norm_v2_functional.default");
    EXPECT_EQ(skipReason(r, "n"),
        "can_inplace return False, will skip reinplacing for node: npu.npu_add_rms_norm_v2_functional.default (x2 is "
        "read by r before its copy_ epilogue c2)");
}

TEST(PassInputMutated, AutoFunctionalizedIsRecognised)
{
    auto v2 = graph({ input("kv", { 4, 4 }) },
        { op("af", "torch.ops.higher_order.auto_functionalized_v2", { str("mylib.update.default") },
              list({ meta({ 4, 4 }) }), { { "_all_bases", list({ "kv" }) } }),
            op("g1", "operator.getitem", { "af", 1 }, meta({ 4, 4 })),
            op("c", "aten.copy_.default", { "kv", "g1" }, meta({ 4, 4 })) },
        ordered_json::array());
    auto r = run(v2);
    EXPECT_EQ(skipReason(r, "af"),
        "auto_functionalized_v2: only_clone_these_tensors=[]; decompose_auto_functionalized expands it into clones "
        "of those and the mutable op");
    EXPECT_EQ(node(v2, "af").passMeta.at("only_clone_these_tensors").kind, engine::Arg::Kind::List);
    EXPECT_THAT(logText(r),
        HasSubstr(
            "For node auto_functionalized_v2, attempted to reinplace range(0, 1). We were unable to reinplace []; [] "
            "(if non-empty) are possible missed reinplacing opportunities that may be bad for memory usage and "
            "performance. Total size of missed opportunities with static shapes is : 0 bytes."));

    auto v1 = graph({ input("kv", { 4, 4 }) },
        { op("af", "higher_order.auto_functionalized", { str("mylib.update.default") }, list({ meta({ 4, 4 }) }),
            { { "x", "kv" } }) },
        ordered_json::array());
    r = run(v1);
    EXPECT_THAT(skipReason(r, "af"),
        HasSubstr("auto_functionalized: the schema of mylib.update.default is not in the operator "
                  "table, so which arguments it mutates is not known"));
    EXPECT_FALSE(node(v1, "af").passMeta.count("only_clone_these_tensors"));
}

TEST(PassInputMutated, DisabledLeavesGraphAlone)
{
    auto g = epilogue();
    auto r = engine::passes::reinplaceInputMutatedOps(
        g, options({ { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", PyValue::boolean(true) } }));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->enabled);
    EXPECT_TRUE(has(g, "c"));
}
