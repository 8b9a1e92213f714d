// apply_pattern_passes (torchair-behavior.md §4.5): each fusion where it fires and where it must not,
// in the shapes of TorchAir's own tests (tests/smoke/aclgraph_test.py test_pattern_pass_*,
// test_close_pattern_pass_*, tests/st/torchair_aclgraph_st.py test_pattern_pass_transpose_batchmatmul_logger):
// the graphs are what AOT records for those models, with TorchAir's DEBUG texts.
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassReport;
using testing::HasSubstr;
using testing::Not;

namespace {

PassReport run(engine::Graph& g, const engine::config::Options& o = options())
{
    auto r = engine::passes::applyPatternPasses(g, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

ordered_json f16(ordered_json shape)
{
    return meta(std::move(shape), "f16");
}

/// npu_add_rms_norm(x1, x2, gamma[, epsilon]) on [1, 2, 3] inputs: (y, rstd, x_out).
ordered_json norm(
    const std::string& name, ordered_json args, ordered_json shape = { 1, 2, 3 }, const std::string& dtype = "f16")
{
    ordered_json rstd = shape;
    rstd[rstd.size() - 1] = 1;
    return op(name, "npu.npu_add_rms_norm.default", std::move(args),
        ordered_json::array({ meta(shape, dtype), meta(rstd, "f32"), meta(shape, dtype) }));
}

ordered_json item(const std::string& name, const std::string& of, int index, ordered_json m)
{
    return op(name, "operator.getitem", { of, index }, std::move(m));
}

ordered_json dynQuant(
    const std::string& name, const std::string& in, ordered_json shape, ordered_json kwargs = ordered_json::object())
{
    ordered_json scale = shape;
    scale.erase(scale.size() - 1);
    return op(name, "npu.npu_dynamic_quant.default", { in },
        ordered_json::array({ meta(shape, "i8"), meta(scale, "f32") }), std::move(kwargs));
}

ordered_json rmsInputs(ordered_json shape = { 1, 2, 3 }, const std::string& dtype = "f16")
{
    ordered_json last = { shape.back() };
    return { input("x1", shape, "user_input", dtype), input("x2", shape, "user_input", dtype),
        input("w", last, "parameter", dtype), input("s", last, "user_input", dtype) };
}

// test_pattern_pass_for_aclgraph, first block: y, _, xOut = npu_add_rms_norm(x1, x2, w);
// yOut, scale1Out = npu_dynamic_quant(y, smooth_scales=s). `between` goes between the two ops.
engine::Graph dynQuantGraph(ordered_json between = ordered_json::array(), ordered_json extraUse = nullptr)
{
    ordered_json nodes
        = { norm("npu_add_rms_norm", { "x1", "x2", "w" }), item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
              item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })) };
    for (const auto& n : between)
        nodes.push_back(n);
    nodes.push_back(dynQuant("npu_dynamic_quant", "getitem", { 1, 2, 3 }, { { "smooth_scales", "s" } }));
    nodes.push_back(item("getitem_3", "npu_dynamic_quant", 0, meta({ 1, 2, 3 }, "i8")));
    nodes.push_back(item("getitem_4", "npu_dynamic_quant", 1, meta({ 1, 2 }, "f32")));
    ordered_json outputs = { "getitem_3", "getitem_2", "getitem_4" };
    if (!extraUse.is_null()) {
        nodes.push_back(extraUse);
        outputs.push_back(extraUse["name"]);
    }
    return graph(rmsInputs(), nodes, outputs);
}

} // namespace

// ---- add_rms_norm + dynamic_quant ----

TEST(PassPatternFusion, AddRmsNormDynamicQuantBecomesOneOp)
{
    auto g = dynQuantGraph();
    auto r = run(g);
    EXPECT_EQ(r.option, "experimental_config.pattern_fusion_pass");
    EXPECT_EQ(rewrittenTo(r, "getitem_3"), "npu.npu_add_rms_norm_dynamic_quant.default");
    EXPECT_EQ(r.removed,
        (std::vector<std::string> {
            "npu_add_rms_norm", "getitem", "getitem_2", "npu_dynamic_quant", "getitem_3", "getitem_4" }));
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "npu_add_rms_norm_dynamic_quant_default", "getitem_1", "getitem_5", "getitem_6" }));
    const auto& fused = node(g, "npu_add_rms_norm_dynamic_quant_default");
    EXPECT_EQ(refs(fused.args), "x1,x2,w");
    ASSERT_EQ(fused.kwargs.size(), 2u);
    EXPECT_EQ(fused.kwargs[0].first, "smooth_scale1");
    EXPECT_EQ(fused.kwargs[0].second.s, "s");
    EXPECT_EQ(fused.kwargs[1].first, "output_mask");
    ASSERT_EQ(fused.outputs.size(), 5u); // op-plugin's meta: y1, y2 (empty), x_out, scale1, scale2 (empty)
    EXPECT_EQ(fused.outputs[0].dtype, engine::DType::I8);
    EXPECT_EQ(fused.outputs[3].shape.size(), 2u);
    // yOut, xOut, scale1Out are items 0, 2 and 3 of the fused op.
    EXPECT_EQ(node(g, "getitem_1").args[1].i, 0);
    EXPECT_EQ(node(g, "getitem_5").args[1].i, 2);
    EXPECT_EQ(node(g, "getitem_6").args[1].i, 3);
    EXPECT_EQ(refs(g.nodes[size_t(g.outputNode())].args), "[getitem_1,getitem_5,getitem_6]");
    EXPECT_THAT(logText(r),
        HasSubstr("aclgraph-inspector: addrmsnormdynamicquant search_fn: [npu_add_rms_norm, "
                  "getitem, npu_dynamic_quant, getitem_3, getitem_2, getitem_4] -> "
                  "npu_add_rms_norm_dynamic_quant_default"));
    EXPECT_TRUE(r.skipped.empty());
}

// test_pattern_pass_for_aclgraph_with_epsilon, first block: epsilon given, xOut unused.
TEST(PassPatternFusion, DynamicQuantWithEpsilonAndNoXOut)
{
    auto g = graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w", 1e-05 }),
            item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            dynQuant("npu_dynamic_quant", "getitem", { 1, 2, 3 }, { { "smooth_scales", "s" } }),
            item("getitem_3", "npu_dynamic_quant", 0, meta({ 1, 2, 3 }, "i8")),
            item("getitem_4", "npu_dynamic_quant", 1, meta({ 1, 2 }, "f32")) },
        { "getitem_3", "getitem_4" });
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "getitem_3"), "npu.npu_add_rms_norm_dynamic_quant.default");
    const auto& fused = node(g, "npu_add_rms_norm_dynamic_quant_default");
    ASSERT_EQ(fused.kwargs.size(), 3u);
    EXPECT_EQ(fused.kwargs[1].first, "epsilon");
    EXPECT_DOUBLE_EQ(fused.kwargs[1].second.f, 1e-05);
    EXPECT_THAT(logText(r), HasSubstr("search_fn_no_xout_with_epsilon"));
    EXPECT_EQ(node(g, "getitem_2").args[1].i, 3); // items 0 and 3 only
}

// The traced search_fn_with_epsilon drops epsilon=1e-06 (the default): a node that spells it out
// matches the first trace and not the check_fn's re-trace.
TEST(PassPatternFusion, DefaultEpsilonSpelledOutIsNotFused)
{
    auto g = graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w", 1e-06 }),
            item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            dynQuant("npu_dynamic_quant", "getitem", { 1, 2, 3 }, { { "smooth_scales", "s" } }),
            item("getitem_3", "npu_dynamic_quant", 0, meta({ 1, 2, 3 }, "i8")),
            item("getitem_4", "npu_dynamic_quant", 1, meta({ 1, 2 }, "f32")) },
        { "getitem_3", "getitem_4" });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "getitem_3"), HasSubstr("epsilon is 1e-06"));
}

// The inductor matcher refuses a match whose intermediate node (y) has a user outside it.
TEST(PassPatternFusion, IntermediateWithAnotherUserIsNotFused)
{
    auto g = dynQuantGraph(
        ordered_json::array(), op("add", "aten.add.Tensor", { "getitem", "getitem" }, f16({ 1, 2, 3 })));
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_TRUE(has(g, "npu_dynamic_quant"));
    EXPECT_THAT(skipReason(r, "getitem_3"),
        HasSubstr("aclgraph-inspector: getitem (y = getitem(npu_add_rms_norm, 0)) has 2 users [npu_dynamic_quant, add] "
                  "where the pattern has 1: an intermediate node of the match used outside it"));
}

// test_pattern_pass_for_dynamicquant_with_subgraph_in_diff_stream.
TEST(PassPatternFusion, CrossStreamMatchIsRefused)
{
    auto g = graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }), item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })), streamEnter("scope_enter", "2"),
            dynQuant("npu_dynamic_quant", "getitem", { 1, 2, 3 }, { { "smooth_scales", "s" } }),
            item("getitem_3", "npu_dynamic_quant", 0, meta({ 1, 2, 3 }, "i8")),
            item("getitem_4", "npu_dynamic_quant", 1, meta({ 1, 2 }, "f32")), streamExit("scope_exit") },
        { "getitem_3", "getitem_2", "getitem_4" });
    auto r = run(g);
    const std::string line
        = "Cross-stream operation detected in pattern match. Match nodes: "
          "['npu_add_rms_norm(npu.npu_add_rms_norm.default)', 'getitem(<built-in function getitem>)', "
          "'npu_dynamic_quant(npu.npu_dynamic_quant.default)', 'getitem_3(<built-in function getitem>)', "
          "'getitem_2(<built-in function getitem>)', 'getitem_4(<built-in function getitem>)']. "
          "Stream distribution: {'default': ['npu_add_rms_norm', 'getitem', 'getitem_2'], '2': "
          "['npu_dynamic_quant', 'getitem_3', 'getitem_4']}. Fusion is not supported for "
          "cross-stream operations.";
    EXPECT_THAT(logText(r), HasSubstr(line + "\n"));
    EXPECT_EQ(skipReason(r, "getitem_3"), line);
    EXPECT_TRUE(r.rewritten.empty());
}

// test_pattern_pass_for_aclgraph_with_multistream: the whole match inside one stream scope fuses.
TEST(PassPatternFusion, MatchInsideOneStreamScopeFuses)
{
    auto g = graph(rmsInputs(),
        { streamEnter("scope_enter", "2"), norm("npu_add_rms_norm", { "x1", "x2", "w" }),
            item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })),
            dynQuant("npu_dynamic_quant", "getitem", { 1, 2, 3 }, { { "smooth_scales", "s" } }),
            item("getitem_3", "npu_dynamic_quant", 0, meta({ 1, 2, 3 }, "i8")),
            item("getitem_4", "npu_dynamic_quant", 1, meta({ 1, 2 }, "f32")), streamExit("scope_exit") },
        { "getitem_3", "getitem_2", "getitem_4" });
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "getitem_3"), "npu.npu_add_rms_norm_dynamic_quant.default");
    EXPECT_THAT(logText(r), Not(HasSubstr("Cross-stream")));
    // The fused op stays inside the scope.
    EXPECT_LT(g.find("scope_enter"), g.find("npu_add_rms_norm_dynamic_quant_default"));
    EXPECT_LT(g.find("npu_add_rms_norm_dynamic_quant_default"), g.find("scope_exit"));
}

// A mutation (copy_ into an input) between the two ops: inductor discards a match across it.
TEST(PassPatternFusion, MatchAcrossAMutationIsDiscarded)
{
    auto g = dynQuantGraph({ op("copy_", "aten.copy_.default", { "x2", "x1" }, f16({ 1, 2, 3 })) });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "getitem_3"), HasSubstr("crosses a mutation barrier (copy_)"));
}

TEST(PassPatternFusion, SwitchedOffByPatternFusionPass)
{
    auto g = dynQuantGraph();
    auto r = run(g, options({ { "pattern_fusion_pass", PyValue::boolean(false) } }));
    EXPECT_FALSE(r.enabled);
    EXPECT_TRUE(has(g, "npu_dynamic_quant"));
    EXPECT_TRUE(r.rewritten.empty());
}

// test_pattern_pass_for_aclgraph, third block: npu_dynamic_quant(y3.flatten(0, 1)) and
// scale1Out3.view(-1, 1) (the explicit second pattern, _check_view_shape).
engine::Graph flattenGraph(ordered_json flatSize)
{
    return graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }), item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })),
            op("view", "aten.view.default", { "getitem", flatSize }, f16({ 2, 3 })),
            dynQuant("npu_dynamic_quant", "view", { 2, 3 }),
            item("getitem_3", "npu_dynamic_quant", 0, meta({ 2, 3 }, "i8")),
            item("getitem_4", "npu_dynamic_quant", 1, meta({ 2 }, "f32")),
            op("view_1", "aten.view.default", { "getitem_4", list({ -1, 1 }) }, meta({ 2, 1 }, "f32")) },
        { "getitem_2", "getitem_3", "view_1" });
}

TEST(PassPatternFusion, FlattenedDynamicQuantBecomesOneOpAndViews)
{
    auto g = flattenGraph(list({ 2, 3 }));
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "getitem_3"), "npu.npu_add_rms_norm_dynamic_quant.default");
    EXPECT_THAT(logText(r), HasSubstr("End extra check for addrmsnormdynamicquant: True. \n"));
    EXPECT_THAT(logText(r), HasSubstr("addrmsnormdynamicquant2 search_fn"));
    // yOut.flatten(0, 1) and scale1Out.view(-1, 1) on the fused op's items 0 and 3.
    const auto& flat = node(g, "view_default");
    EXPECT_EQ(flat.args[0].s, "getitem_1");
    EXPECT_EQ(flat.args[1].items[0].i, 2);
    EXPECT_EQ(flat.args[1].items[1].i, 3);
    const auto& scale = node(g, "view_default_1");
    EXPECT_EQ(scale.args[1].items[0].i, -1);
    EXPECT_EQ(refs(g.nodes[size_t(g.outputNode())].args), "[getitem_5,view_default,view_default_1]");
    EXPECT_FALSE(has(g, "npu_dynamic_quant"));
}

TEST(PassPatternFusion, FlattenCheckRefusesAnotherView)
{
    auto g = flattenGraph(list({ 1, 6 }));
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_EQ(skipReason(r, "getitem_3"), "End extra check for addrmsnormdynamicquant: False. ");
}

// ---- add_rms_norm + cast ----

// test_pattern_pass_for_aclgraph, second block: y1.view(-1, h).to(torch.float32).
engine::Graph castGraph(ordered_json h, const std::string& castTarget = "aten._to_copy.default")
{
    ordered_json cast = castTarget == "aten._to_copy.default"
        ? op("to", castTarget, { "view" }, meta({ 2, 3 }, "f32"), { { "dtype", str("torch.float32") } })
        : op("to", castTarget, { "view", str("torch.float32") }, meta({ 2, 3 }, "f32"));
    return graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }), item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })),
            op("view", "aten.view.default", { "getitem", list({ -1, h }) }, f16({ 2, 3 })), cast },
        { "getitem", "getitem_2", "to" });
}

TEST(PassPatternFusion, AddRmsNormCastBecomesOneOp)
{
    for (const std::string target : { "aten._to_copy.default", "npu._npu_dtype_cast.default" }) {
        auto g = castGraph(3, target);
        auto r = run(g);
        EXPECT_EQ(rewrittenTo(r, "getitem"), "npu.npu_add_rms_norm_cast.default") << target;
        // y, xOut, y_cast.view(-1, h): items 1 and 3, and a view of item 0.
        const auto& out = g.nodes[size_t(g.outputNode())];
        EXPECT_EQ(refs(out.args), "[getitem_3,getitem_4,view_default]") << target;
        EXPECT_EQ(node(g, "getitem_1").args[1].i, 0);
        EXPECT_EQ(node(g, "view_default").args[1].items[1].i, 3);
        EXPECT_EQ(node(g, "npu_add_rms_norm_cast_default").outputs.at(0).dtype, engine::DType::F32);
    }
}

TEST(PassPatternFusion, CastCheckRefusesAViewToAnotherLastDimension)
{
    auto g = castGraph(6);
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_EQ(skipReason(r, "getitem"),
        "aclgraph-inspector: the view's size is [-1, 6] and x1's last dimension is 3 (_pattern_extra_check returns "
        "False "
        "without a log)");
}

// test_pattern_pass_for_cast_with_subgraph_in_diff_stream.
TEST(PassPatternFusion, CastInAnotherStreamIsRefused)
{
    auto g = graph(rmsInputs(),
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }), item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, 3 })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, 3 })), streamEnter("scope_enter", "2"),
            op("view", "aten.view.default", { "getitem", list({ -1, 3 }) }, f16({ 2, 3 })),
            op("to", "aten._to_copy.default", { "view" }, meta({ 2, 3 }, "f32"), { { "dtype", str("torch.float32") } }),
            streamExit("scope_exit") },
        { "to", "getitem_2" });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "getitem"),
        HasSubstr("Cross-stream operation detected in pattern match. Match nodes: ['npu_add_rms_norm("
                  "npu.npu_add_rms_norm.default)', 'getitem(<built-in function getitem>)', 'getitem_2(<built-in "
                  "function getitem>)', 'view(aten.view.default)', 'to(aten._to_copy.default)']. Stream distribution: "
                  "{'default': ['npu_add_rms_norm', 'getitem', 'getitem_2'], '2': ['view', 'to']}."));
}

// ---- bmm + transpose -> npu_transpose_batchmatmul ----

// matmul(x1, x2).transpose(1, 0) on [64, 4, K] x [64, K, 128].
engine::Graph bmmGraph(int k, ordered_json dims = { 1, 0 }, const std::string& dtype = "f16")
{
    return graph({ input("x1", { 64, 4, k }, "user_input", dtype), input("x2", { 64, k, 128 }, "user_input", dtype) },
        { op("bmm", "aten.bmm.default", { "x1", "x2" }, meta({ 64, 4, 128 }, dtype)),
            op("transpose", "aten.transpose.int", { "bmm", dims[0], dims[1] },
                { { "shape", { 4, 64, 128 } }, { "stride", { 128, 512, 1 } }, { "dtype", dtype } }) },
        { "transpose" });
}

TEST(PassPatternFusion, BmmTransposeBecomesTransposeBatchMatmul)
{
    auto g = bmmGraph(512);
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "transpose"), "npu.npu_transpose_batchmatmul.default");
    const auto& fused = node(g, "npu_transpose_batchmatmul_default");
    EXPECT_EQ(refs(fused.args), "x1,x2");
    ASSERT_EQ(fused.kwargs.size(), 1u);
    EXPECT_EQ(fused.kwargs[0].first, "perm_x1");
    EXPECT_EQ(fused.kwargs[0].second.items[1].i, 1); // [0, 1, 2]
    EXPECT_TRUE(fused.outputs.at(0).stride.empty());
    EXPECT_EQ(r.removed, (std::vector<std::string> { "bmm", "transpose" }));
    EXPECT_THAT(logText(r), HasSubstr("batchmatmultranspose pattern: [bmm, transpose]"));
}

// test_pattern_pass_transpose_batchmatmul_logger / test_close_pattern_pass_batch_matmul_transpose_for_aclgraph_KN.
TEST(PassPatternFusion, BmmUnalignedKIsRefused)
{
    auto g = bmmGraph(511);
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    const std::string line
        = "K or N alignment check failed for npu_transpose_batchmatmul. input0 size: "
          "torch.Size([64, 4, 511]). Fusion is not supported because K or N must be divisible by 128.";
    EXPECT_THAT(logText(r), HasSubstr(line + "\n"));
    EXPECT_EQ(skipReason(r, "transpose"), line);
}

// test_close_pattern_pass_batch_matmul_transpose_for_aclgraph_view1: transpose(0, 2).
TEST(PassPatternFusion, BmmTransposeOfOtherDimsIsRefused)
{
    auto g = bmmGraph(512, { 0, 2 });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_EQ(skipReason(r, "transpose"),
        "Transpose args only support 0 or 1 for npu_transpose_batchmatmul. Got dim1=0, dim2=2.");
}

TEST(PassPatternFusion, BmmOfIntegersIsRefused)
{
    auto g = bmmGraph(512, { 1, 0 }, "i32");
    auto r = run(g);
    EXPECT_EQ(skipReason(r, "transpose"),
        "Input type check failed for npu_transpose_batchmatmul. input0 dtype: torch.int32. Fusion is not supported "
        "because data types not in [torch.bfloat16, torch.float16, torch.float32].");
}

// test_pattern_pass_transpose_batch_matmul_transpose_for_aclgraph: matmul(x1.transpose(0, 1), x2).transpose(0, 1)
// with the no-op expand and views matmul records (pattern2, perm_x1=[1, 0, 2]).
engine::Graph transposeBmmGraph(int m, int k)
{
    const ordered_json t = { { "shape", { 64, m, k } }, { "stride", { k, 64 * k, 1 } }, { "dtype", "f16" } };
    return graph({ input("x1", { m, 64, k }, "user_input", "f16"), input("x2", { 64, k, 128 }, "user_input", "f16") },
        { op("transpose", "aten.transpose.int", { "x1", 0, 1 }, t),
            op("expand", "aten.expand.default", { "transpose", list({ 64, m, k }) }, t),
            op("view", "aten.view.default", { "expand", list({ 64, m, k }) }, t),
            op("bmm", "aten.bmm.default", { "view", "x2" }, f16({ 64, m, 128 })),
            op("view_1", "aten.view.default", { "bmm", list({ 64, m, 128 }) }, f16({ 64, m, 128 })),
            op("transpose_1", "aten.transpose.int", { "view_1", 0, 1 },
                { { "shape", { m, 64, 128 } }, { "stride", { 128, 128 * m, 1 } }, { "dtype", "f16" } }) },
        { "transpose_1" });
}

TEST(PassPatternFusion, TransposeBmmTransposeUsesPermX1)
{
    auto g = transposeBmmGraph(4, 512);
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "transpose_1"), "npu.npu_transpose_batchmatmul.default");
    const auto& fused = node(g, "npu_transpose_batchmatmul_default");
    EXPECT_EQ(refs(fused.args), "x1,x2");
    EXPECT_EQ(fused.kwargs.at(0).second.items[0].i, 1); // [1, 0, 2]
    EXPECT_THAT(
        logText(r), HasSubstr("batchmatmultranspose pattern2: [transpose, expand, view, bmm, view_1, transpose_1]"));
    EXPECT_EQ(g.nodes.size(), 4u); // x1, x2, the fused op, output
}

// test_close_pattern_pass_transpose_batch_matmul_transpose_for_aclgraph_KB_constraint: pattern2 is
// refused (K*B = 73728), and then pattern1 (bmm -> view -> transpose), tried after it on the same
// transpose, matches with the no-op view as x1 and perm_x1=[0, 1, 2], where only K < 65536 is asked.
TEST(PassPatternFusion, TransposeBmmOverKBLimitFallsToPattern1)
{
    auto g = transposeBmmGraph(4, 1152);
    auto r = run(g);
    EXPECT_THAT(logText(r),
        HasSubstr("K*B constraint check failed for npu_transpose_batchmatmul. K=1152, B=64, K*B=73728. Fusion is not "
                  "supported because K*B must be in range [1, 65536) when perm_x1=[1, 0, 2].\n"));
    EXPECT_EQ(rewrittenTo(r, "transpose_1"), "npu.npu_transpose_batchmatmul.default");
    EXPECT_THAT(logText(r), HasSubstr("batchmatmultranspose pattern1: [bmm, view_1, transpose_1]"));
    const auto& fused = node(g, "npu_transpose_batchmatmul_default");
    EXPECT_EQ(refs(fused.args), "view,x2");
    EXPECT_EQ(fused.kwargs.at(0).second.items[0].i, 0); // [0, 1, 2]
    EXPECT_TRUE(has(g, "transpose"));
}

// When view_1 is not a no-op, pattern1 is refused too (same_meta), and the report gives the reason of
// the entry that came closest, pattern2's K*B text.
TEST(PassPatternFusion, TransposeBmmOverKBLimitIsRefused)
{
    auto g = transposeBmmGraph(4, 1152);
    auto& v = g.nodes[size_t(g.find("view_1"))];
    v.outputs[0].shape = { engine::SymExpr::constant(256), engine::SymExpr::constant(128) };
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_EQ(skipReason(r, "transpose_1"),
        "K*B constraint check failed for npu_transpose_batchmatmul. K=1152, B=64, K*B=73728. Fusion is not supported "
        "because K*B must be in range [1, 65536) when perm_x1=[1, 0, 2].");
    EXPECT_THAT(logText(r),
        HasSubstr("aten.view.default node input/output meta mismatch for npu_transpose_batchmatmul. Fusion is not "
                  "supported because it must be a no-op.\n"));
}

// test_pattern_pass_batch_matmul_transpose_for_aclgraph_with_multistream: the transpose in stream '2'.
TEST(PassPatternFusion, BmmTransposeAcrossStreamsIsRefused)
{
    auto g = graph(
        { input("x1", { 64, 4, 512 }, "user_input", "f16"), input("x2", { 64, 512, 128 }, "user_input", "f16") },
        { op("bmm", "aten.bmm.default", { "x1", "x2" }, f16({ 64, 4, 128 })), streamEnter("scope_enter", "2"),
            op("transpose", "aten.transpose.int", { "bmm", 1, 0 }, f16({ 4, 64, 128 })), streamExit("scope_exit") },
        { "transpose" });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "transpose"), HasSubstr("Stream distribution: {'default': ['bmm'], '2': ['transpose']}"));
}

TEST(PassPatternFusion, MaxAutotuneRegistersNoBmmPattern)
{
    auto g = bmmGraph(512);
    auto o = options();
    o.mode = "max-autotune";
    auto r = run(g, o);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_TRUE(has(g, "bmm"));
    EXPECT_THAT(logText(r), HasSubstr("not registered"));
}

// ---- add_rms_norm + quantize -> npu_add_rms_norm_quant ----

// test_pattern_pass_addrmsnorm_quant: y, _, xOut = npu_add_rms_norm(...); npu_quantize(y, scales,
// zero_points, dtype, axis=-1[, div_mode]) on [1, 2, 16] inputs.
engine::Graph quantGraph(ordered_json normArgs, ordered_json quantArgs, bool xout = true, const std::string& x = "f16",
    const std::string& zp = "i32", int last = 16)
{
    ordered_json nodes = { norm("npu_add_rms_norm", std::move(normArgs), { 1, 2, last }, x),
        item("getitem", "npu_add_rms_norm", 0, meta({ 1, 2, last }, x)) };
    if (xout)
        nodes.push_back(item("getitem_2", "npu_add_rms_norm", 2, meta({ 1, 2, last }, x)));
    nodes.push_back(op("npu_quantize", "npu.npu_quantize.default", std::move(quantArgs), meta({ 1, 2, last }, "i8")));
    ordered_json outputs = { "npu_quantize" };
    if (xout)
        outputs.push_back("getitem_2");
    return graph({ input("x1", { 1, 2, last }, "user_input", x), input("x2", { 1, 2, last }, "user_input", x),
                     input("gamma", { last }, "parameter", x), input("scales", { last }, "user_input", "f32"),
                     input("zp", { last }, "user_input", zp) },
        nodes, outputs);
}

TEST(PassPatternFusion, AddRmsNormQuantizeBecomesOneOp)
{
    auto g = quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 12, -1 });
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "npu_quantize"), "npu.npu_add_rms_norm_quant.default");
    const auto& fused = node(g, "npu_add_rms_norm_quant_default");
    EXPECT_EQ(refs(fused.args), "x1,x2,gamma,scales,zp");
    EXPECT_TRUE(fused.kwargs.empty()); // axis=-1 is the default
    EXPECT_THAT(logText(r), HasSubstr("addrmsnormquant _register_addrmsnormquant_pattern_default"));
    EXPECT_EQ(refs(g.nodes[size_t(g.outputNode())].args), "[getitem_1,getitem_3]");
}

TEST(PassPatternFusion, QuantizeWithEpsilonAndWithoutXOut)
{
    auto g = quantGraph({ "x1", "x2", "gamma", 4e-06 }, { "getitem", "scales", "zp", 1, -1 }, false);
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "npu_quantize"), "npu.npu_add_rms_norm_quant.default");
    const auto& fused = node(g, "npu_add_rms_norm_quant_default");
    ASSERT_EQ(fused.kwargs.size(), 1u);
    EXPECT_EQ(fused.kwargs[0].first, "epsilon");
    EXPECT_THAT(logText(r), HasSubstr("search_fn_no_xout_with_epsilon"));
}

// test_pattern_pass_addrmsnorm_quant_mismatched.
TEST(PassPatternFusion, QuantizeChecksRefuse)
{
    struct Case {
        engine::Graph g;
        std::string reason;
    } cases[] = {
        { quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 12, -1 }, true, "f16", "u8"),
            "Zero_points dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass." },
        { quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 3, -1 }, true, "bf16", "bf16"),
            "Output dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass." },
        { quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 12, -1 }, true, "f32"),
            "Input x dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass." },
        { quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 12, -1 }, true, "bf16", "bf16", 3),
            "Input size detected in pattern match for npu_add_rms_norm_quant fusion pass. Fusion is not supported "
            "because "
            "the input of the npu_add_rms_norm_quant must be divisible by 32 bytes." },
    };
    for (auto& c : cases) {
        auto r = run(c.g);
        EXPECT_TRUE(r.rewritten.empty()) << c.reason;
        EXPECT_EQ(skipReason(r, "npu_quantize"), c.reason);
        EXPECT_THAT(logText(r), HasSubstr(c.reason + "\n"));
    }
}

// div_mode=False is a sixth argument: no pattern has it.
TEST(PassPatternFusion, QuantizeWithDivModeFalseDoesNotMatch)
{
    auto g = quantGraph({ "x1", "x2", "gamma" }, { "getitem", "scales", "zp", 12, -1, false });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "npu_quantize"), HasSubstr("has 6 positional arguments"));
}

// test_pattern_pass_addrmsnorm_quant_with_diff_stream.
TEST(PassPatternFusion, QuantizeInAnotherStreamIsRefused)
{
    auto g = graph({ input("x1", { 1, 2, 16 }, "user_input", "bf16"), input("x2", { 1, 2, 16 }, "user_input", "bf16"),
                       input("gamma", { 16 }, "parameter", "bf16"), input("scales", { 16 }, "user_input", "bf16"),
                       input("zp", { 16 }, "user_input", "bf16") },
        { norm("npu_add_rms_norm", { "x1", "x2", "gamma" }, { 1, 2, 16 }, "bf16"),
            item("getitem", "npu_add_rms_norm", 0, meta({ 1, 2, 16 }, "bf16")),
            item("getitem_2", "npu_add_rms_norm", 2, meta({ 1, 2, 16 }, "bf16")), streamEnter("scope_enter", "2"),
            op("npu_quantize", "npu.npu_quantize.default", { "getitem", "scales", "zp", 12, -1 },
                meta({ 1, 2, 16 }, "i8")),
            streamExit("scope_exit") },
        { "npu_quantize", "getitem_2" });
    auto r = run(g);
    EXPECT_TRUE(r.rewritten.empty());
    EXPECT_THAT(skipReason(r, "npu_quantize"), HasSubstr("Cross-stream operation detected in pattern match."));
}

// dynamic=True: h is the SymInt input carrying x1's last dimension; the new view(-1, h) reuses it.
TEST(PassPatternFusion, CastWithSymbolicLastDimensionReusesH)
{
    ordered_json inputs = { symInput("h", "s1"), input("x1", { 1, 2, "s1" }, "user_input", "f16"),
        input("x2", { 1, 2, "s1" }, "user_input", "f16"), input("w", { "s1" }, "parameter", "f16") };
    auto g = graph(inputs,
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }, { 1, 2, "s1" }),
            item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, "s1" })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, "s1" })),
            op("view", "aten.view.default", { "getitem", list({ -1, "h" }) }, f16({ 2, "s1" })),
            op("to", "aten._to_copy.default", { "view" }, meta({ 2, "s1" }, "f32"),
                { { "dtype", str("torch.float32") } }) },
        { "getitem", "getitem_2", "to" }, true);
    auto r = run(g);
    EXPECT_EQ(rewrittenTo(r, "getitem"), "npu.npu_add_rms_norm_cast.default");
    EXPECT_EQ(node(g, "view_default").args[1].items[1].s, "h");
    EXPECT_THAT(logText(r), HasSubstr("aclgraph-inspector: y's last dimension is symbolic"));

    // A view to another symbol is refused by the extra check.
    inputs.push_back(symInput("k", "s2"));
    auto other = graph(inputs,
        { norm("npu_add_rms_norm", { "x1", "x2", "w" }, { 1, 2, "s1" }),
            item("getitem", "npu_add_rms_norm", 0, f16({ 1, 2, "s1" })),
            item("getitem_2", "npu_add_rms_norm", 2, f16({ 1, 2, "s1" })),
            op("view", "aten.view.default", { "getitem", list({ -1, "k" }) }, f16({ 2, "s1" })),
            op("to", "aten._to_copy.default", { "view" }, meta({ 2, "s1" }, "f32"),
                { { "dtype", str("torch.float32") } }) },
        { "getitem", "getitem_2", "to" }, true);
    auto refused = run(other);
    EXPECT_TRUE(refused.rewritten.empty());
    EXPECT_THAT(skipReason(refused, "getitem"), HasSubstr("[-1, s2] and x1's last dimension is s1"));
}
