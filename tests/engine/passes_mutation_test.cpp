// The passes that undo functionalization's copies (torchair-behavior.md §4.2, §4.5):
// recover_view_inplace_pattern (view -> NPU scatter -> view -> copy_ into an input), inductor's
// decompose_auto_functionalized after reinplace_input_mutated_ops, and npugraph_ex's
// eliminate_self_copy. Each behaviour has a graph where it fires and one where it must not, in the
// shape of TorchAir's own tests (tests/st/torchair_fx_pattern_st.py, torchair_npugraph_ex_compile_st.py).
#include "engine/passes/pass_util.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::PyValue;
using engine::passes::PassEnvironment;
using engine::passes::PassReport;
using testing::HasSubstr;
using testing::Not;

namespace {

// ---- recover_view_inplace_pattern ----

PassReport recover(engine::Graph& g, const std::string& cann = "8.3.RC1")
{
    PassEnvironment env;
    env.cann = cann;
    auto r = engine::passes::recoverViewInplacePattern(g, options(), env);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

// TorchAir's test_view_copy_not_inplace / test_view_add_inplace model after AOT: data (16 x 4 x 16) is
// viewed, scattered into, viewed back and copied into data. `copySource` replaces the copy_'s source,
// `extra` nodes go before the copy_, `outputs` is what the graph returns.
engine::Graph scatterGraph(const std::string& scatter = "npu.scatter_update.default",
    ordered_json extra = ordered_json::array(), const std::string& copySource = "view_3",
    ordered_json outputs = ordered_json::array())
{
    ordered_json args = { "view_1", "indices", "view_2" };
    if (scatter == "npu.scatter_update.default")
        args.push_back(-2);
    if (scatter == "npu.npu_quant_scatter.default")
        args.push_back("scales");
    ordered_json nodes = { op("view_1", "aten.view.default", { "data", list({ 2, -1, 4, 16 }) }, meta({ 2, 8, 4, 16 })),
        op("view_2", "aten.view.default", { "updates", list({ 2, -1, 1, 16 }) }, meta({ 2, 8, 1, 16 })),
        op("scatter_update_1", scatter, args, meta({ 2, 8, 4, 16 })),
        op("view_3", "aten.view.default", { "scatter_update_1", list({ -1, 4, 16 }) }, meta({ 16, 4, 16 })) };
    for (const auto& n : extra)
        nodes.push_back(n);
    nodes.push_back(op("copy_", "aten.copy_.default", { "data", copySource }, meta({ 16, 4, 16 })));
    return graph({ input("data", { 16, 4, 16 }), input("indices", { 2 }, "user_input", "i64"),
                     input("updates", { 16, 1, 16 }), input("scales", { 1 }) },
        nodes, outputs);
}

const char* const kMapKeys = "dict_keys([<OpOverload(op='npu.scatter_update', overload='default')>, "
                             "<OpOverload(op='npu.npu_scatter_nd_update', overload='default')>, "
                             "<OpOverload(op='npu.npu_quant_scatter', overload='default')>])";

// ---- decompose_auto_functionalized ----

PassReport decompose(engine::Graph& g, const engine::config::Options& o = options())
{
    auto r = engine::passes::decomposeAutoFunctionalized(g, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

PassReport reinplaceInputs(engine::Graph& g)
{
    auto r = engine::passes::reinplaceInputMutatedOps(g, options());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

// A custom op `mylib.update(Tensor(a!) x) -> ()` on the graph input kv, functionalized by v2 as AOT
// autograd hands it over: af = auto_functionalized_v2(op, _x_base_index=0, _all_bases=[kv]); the new
// kv is getitem 1 (getitem 0 would be the op's None), copied back into kv by the epilogue c.
// `middle` nodes go between the getitem and the epilogue.
engine::Graph autoFunctionalizedV2(
    ordered_json middle = ordered_json::array(), ordered_json outputs = ordered_json::array())
{
    ordered_json nodes = { op("af", "torch.ops.higher_order.auto_functionalized_v2", { str("mylib.update.default") },
                               list({ meta({ 4, 4 }) }), { { "_x_base_index", 0 }, { "_all_bases", list({ "kv" }) } }),
        op("getitem_1", "operator.getitem", { "af", 1 }, meta({ 4, 4 })) };
    for (const auto& n : middle)
        nodes.push_back(n);
    nodes.push_back(op("c", "aten.copy_.default", { "kv", "getitem_1" }, meta({ 4, 4 })));
    return graph({ input("kv", { 4, 4 }) }, nodes, outputs);
}

// ---- eliminate_self_copy ----

PassReport eliminate(engine::Graph& g)
{
    auto r = engine::passes::eliminateSelfCopy(g, options({}, engine::config::Backend::NpugraphEx));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

} // namespace

// ================= recover_view_inplace_pattern =================

TEST(PassRecoverViewInplace, ScatterUpdateBecomesInplaceAndTheCopyGoes)
{
    auto g = scatterGraph();
    auto r = recover(g);
    EXPECT_EQ(r.option, "");
    ASSERT_TRUE(has(g, "scatter_update_1_inplace"));
    const auto& n = node(g, "scatter_update_1_inplace");
    EXPECT_EQ(n.target, "npu.scatter_update_.default");
    EXPECT_EQ(refs(n.args), "view_1,indices,view_2");
    ASSERT_EQ(n.outputs.size(), 1u); // propagate_meta
    EXPECT_EQ(refs(node(g, "view_3").args), "scatter_update_1_inplace,[]");
    EXPECT_FALSE(has(g, "scatter_update_1"));
    EXPECT_FALSE(has(g, "copy_"));
    // Inserted right after the op it replaces.
    EXPECT_EQ(g.find("scatter_update_1_inplace"), g.find("view_3") - 1);
    EXPECT_EQ(rewrittenTo(r, "scatter_update_1"), "npu.scatter_update_.default");
    EXPECT_EQ(r.removed, (std::vector<std::string> { "scatter_update_1", "copy_" }));
    EXPECT_EQ(r.added, (std::vector<std::string> { "scatter_update_1_inplace" }));
    const std::string log = logText(r);
    EXPECT_THAT(log, HasSubstr("In fx_graph, find all copy_ nodes to optimize, those are [copy_]\n"));
    EXPECT_THAT(log,
        HasSubstr(
            "In fx_graph, find 1 matched patterns for view inplace optimization, those are  [{'placeholder': "
            "data, 'pre_view': view_1, 'non_inplace': scatter_update_1, 'post_view': view_3, 'copy_': copy_}].\n"));
    EXPECT_THAT(log,
        HasSubstr("In ACL graph, success to replace non_inplace node scatter_update_1 by inserting new inplace node "
                  "scatter_update_1_inplace[target: npu.scatter_update_.default].\n"));
    EXPECT_THAT(log, HasSubstr("After fx graph pass(recover_view_inplace_pattern) optimization:"));
    EXPECT_THAT(log, Not(HasSubstr("aclgraph-inspector: the CANN version is unknown")));
}

TEST(PassRecoverViewInplace, EveryMappedOpHasItsInplaceTwin)
{
    for (const auto& [op, inplace] : std::vector<std::pair<std::string, std::string>> {
             { "npu.npu_scatter_nd_update.default", "npu.npu_scatter_nd_update_.default" },
             { "npu.npu_quant_scatter.default", "npu.npu_quant_scatter_.default" } }) {
        auto g = scatterGraph(op);
        recover(g);
        EXPECT_EQ(node(g, "scatter_update_1_inplace").target, inplace) << op;
        EXPECT_FALSE(has(g, "copy_")) << op;
    }
    // An op outside _INPLACE_OPS_MAP (TorchAir's test_view_add_inplace had to register aten.add itself).
    auto g = scatterGraph("aten.add.Tensor");
    auto r = recover(g);
    EXPECT_TRUE(has(g, "copy_"));
    EXPECT_EQ(skipReason(r, "copy_"),
        std::string("Skip copy_ node: copy_, because input of post_view is not in expected non_inplace nodes set ")
            + kMapKeys + ", but is scatter_update_1.");
    EXPECT_THAT(logText(r), HasSubstr("find 0 matched patterns for view inplace optimization, those are  [].\n"));
}

TEST(PassRecoverViewInplace, CopyFromAFunctionalCopyIsNoPattern)
{
    // test_view_copy_not_inplace: the user's data.copy_(view_3) becomes copy = aten.copy(data, view_3)
    // and the epilogue copies that, so the copy_'s source is not a view.
    auto g = scatterGraph("npu.scatter_update.default",
        { op("copy", "aten.copy.default", { "data", "view_3" }, meta({ 16, 4, 16 })) }, "copy");
    auto r = recover(g);
    EXPECT_TRUE(has(g, "scatter_update_1"));
    EXPECT_TRUE(has(g, "copy_"));
    EXPECT_EQ(skipReason(r, "copy_"),
        "Skip copy_ node: copy_, because src input of copy is not expected view node, but is copy.");
    EXPECT_THAT(logText(r), HasSubstr("In fx_graph, find 0 matched patterns"));
    EXPECT_TRUE(r.removed.empty());
}

TEST(PassRecoverViewInplace, CopyCandidatesNeedTwoArgsInputDestinationAndEqualShapes)
{
    auto g = graph({ input("a", { 64 }), input("b", { 64 }), input("c", { 4, 16 }) },
        { op("three", "aten.copy_.default", { "a", "b", false }, meta({ 64 })),
            op("inputs", "aten.copy_.default", { "a", "b" }, meta({ 64 })),
            op("n", "aten.neg.default", { "b" }, meta({ 64 })),
            op("intermediate", "aten.copy_.default", { "n", "n" }, meta({ 64 })),
            op("m", "aten.neg.default", { "c" }, meta({ 4, 16 })),
            op("shapes", "aten.copy_.default", { "a", "m" }, meta({ 64 })) },
        ordered_json::array());
    auto r = recover(g);
    EXPECT_EQ(skipReason(r, "three"), "Skip copy_ node: three, due to unexpected input num 3, expected 2 inputs.");
    EXPECT_EQ(skipReason(r, "inputs"),
        "Skip copy_ node: inputs, expect copy from other_node to placeholder_node, but get an copy_ node from "
        "placeholder to placeholder.");
    EXPECT_EQ(skipReason(r, "intermediate"),
        "Skip copy_ node: intermediate, expect copy from other_node to placeholder_node, but get an copy_ node from "
        "call_function to call_function.");
    EXPECT_EQ(skipReason(r, "shapes"),
        "Skip copy_ node: shapes, expect the shape of src and dst to be the same, but src shape is torch.Size([4, "
        "16]), and dst shape is torch.Size([64]).");
    EXPECT_THAT(logText(r), HasSubstr("In fx_graph, find all copy_ nodes to optimize, those are []\n"));
    EXPECT_TRUE(r.removed.empty());
}

TEST(PassRecoverViewInplace, ShapesCompareAsSymbolicSizes)
{
    // Equal symbolic sizes pass the shape check; a different symbol does not.
    auto g = graph({ symInput("s0", "s0"), input("a", { "s0", 4 }), input("b", { "s0", 4 }) },
        { op("x", "aten.neg.default", { "b" }, meta({ "s0", 4 })), op("same", "aten.copy_.default", { "a", "x" }),
            op("y", "aten.neg.default", { "b" }, meta({ "s1", 4 })), op("other", "aten.copy_.default", { "a", "y" }) },
        ordered_json::array(), true);
    auto r = recover(g);
    EXPECT_THAT(logText(r), HasSubstr("those are [same]\n"));
    EXPECT_EQ(
        skipReason(r, "same"), "Skip copy_ node: same, because src input of copy is not expected view node, but is x.");
    EXPECT_EQ(skipReason(r, "other"),
        "Skip copy_ node: other, expect the shape of src and dst to be the same, but src shape is torch.Size([s1, "
        "4]), and dst shape is torch.Size([s0, 4]).");
}

TEST(PassRecoverViewInplace, ThePatternMustBeExact)
{
    // The scatter reads data itself, not a view of it.
    auto direct = graph(
        { input("data", { 16, 4, 16 }), input("indices", { 2 }, "user_input", "i64"), input("updates", { 16, 4, 16 }) },
        { op("s", "npu.scatter_update.default", { "data", "indices", "updates", -2 }, meta({ 16, 4, 16 })),
            op("v", "aten.view.default", { "s", list({ 16, 4, 16 }) }, meta({ 16, 4, 16 })),
            op("copy_", "aten.copy_.default", { "data", "v" }, meta({ 16, 4, 16 })) },
        ordered_json::array());
    auto r = recover(direct);
    EXPECT_EQ(skipReason(r, "copy_"),
        "Skip copy_ node: copy_, because ref input of non_inplace node is not expected view node, but is data.");

    // The pre_view views another input than the one copied into.
    auto other = graph({ input("data", { 16, 4, 16 }), input("other", { 16, 4, 16 }),
                           input("indices", { 2 }, "user_input", "i64"), input("updates", { 16, 4, 16 }) },
        { op("pv", "aten.view.default", { "other", list({ 16, 4, 16 }) }, meta({ 16, 4, 16 })),
            op("s", "npu.scatter_update.default", { "pv", "indices", "updates", -2 }, meta({ 16, 4, 16 })),
            op("v", "aten.view.default", { "s", list({ 16, 4, 16 }) }, meta({ 16, 4, 16 })),
            op("copy_", "aten.copy_.default", { "data", "v" }, meta({ 16, 4, 16 })) },
        ordered_json::array());
    r = recover(other);
    EXPECT_EQ(skipReason(r, "copy_"),
        "Skip copy_ node: copy_, because dst input of copy and input of pre_view are not the same node, those are "
        "data and other.");

    // data is also read by a third node: writing it in place would change what that node sees.
    auto g = scatterGraph("npu.scatter_update.default",
        { op("r", "aten.relu.default", { "data" }, meta({ 16, 4, 16 })) }, "view_3", list({ "r" }));
    r = recover(g);
    EXPECT_TRUE(has(g, "scatter_update_1"));
    EXPECT_THAT(skipReason(r, "copy_"),
        HasSubstr("Skip copy_ node: copy_, pre_view node must have only one user\xef\xbc\x8c but get 1,  and "
                  "placeholder node must have only two user, but get 3. (pre_view view_1 users [scatter_update_1], "
                  "data users [view_1, r, copy_])"));
}

TEST(PassRecoverViewInplace, ACopyWithUsersStays)
{
    // The op is replaced all the same; the copy_ stays because something uses it (graph_pass.py erases
    // it only without users).
    auto g = scatterGraph("npu.scatter_update.default", {}, "view_3", list({ "copy_" }));
    auto r = recover(g);
    EXPECT_EQ(node(g, "scatter_update_1_inplace").target, "npu.scatter_update_.default");
    ASSERT_TRUE(has(g, "copy_"));
    EXPECT_THAT(skipReason(r, "copy_"), HasSubstr("the copy_ has users [output]"));
    EXPECT_EQ(r.removed, (std::vector<std::string> { "scatter_update_1" }));
}

TEST(PassRecoverViewInplace, OlderCannSkipsThePass)
{
    for (const std::string cann : { "8.2.RC1", "8.3.T10", "8.1.0" }) {
        auto g = scatterGraph();
        auto r = recover(g, cann);
        EXPECT_TRUE(has(g, "scatter_update_1")) << cann;
        EXPECT_TRUE(has(g, "copy_")) << cann;
        EXPECT_THAT(logText(r),
            HasSubstr("Skip running the current pattern of recovering to view inplace operators, due to unsupported "
                      "cann version, please update to at least version 8.3.RC1.\n"));
        EXPECT_THAT(logText(r), Not(HasSubstr("find all copy_ nodes")));
    }
    for (const std::string cann : { "8.3.RC1", "8.3.RC1.alpha001", "8.3.0", "8.5.0", "9.0.0" }) {
        auto g = scatterGraph();
        auto r = recover(g, cann);
        EXPECT_FALSE(has(g, "copy_")) << cann;
        EXPECT_THAT(logText(r), Not(HasSubstr("Skip running the current pattern"))) << cann;
    }
    // Text torch_npu does not parse counts as older than everything; the log says why.
    auto g = scatterGraph();
    auto r = recover(g, "8.3");
    EXPECT_TRUE(has(g, "copy_"));
    EXPECT_THAT(logText(r), HasSubstr("aclgraph-inspector: torch_npu does not recognise the CANN version '8.3'"));
}

TEST(PassRecoverViewInplace, UnknownCannRunsAndSaysSo)
{
    auto g = scatterGraph();
    auto r = recover(g, "");
    EXPECT_FALSE(has(g, "copy_"));
    EXPECT_THAT(logText(r),
        HasSubstr("aclgraph-inspector: the CANN version is unknown; recover_view_inplace_pattern runs only on CANN >= "
                  "8.3.RC1 and runs here as on a current CANN (give the version with --cann)\n"));
}

TEST(PassRecoverViewInplace, CannVersionsOrderAsTorchNpuOrdersThem)
{
    using engine::passes::detail::cannVersionNumber;
    // torch_npu GetCANNInfo.cpp CannVersionToNum: T builds < RCs < RC alphas of the same RC < releases.
    const std::vector<std::string> ascending
        = { "8.2.0", "8.3.T5", "8.3.RC1", "8.3.RC1.alpha001", "8.3.RC2", "8.3.0", "8.3.1", "8.5.0", "9.0.0" };
    for (size_t i = 1; i < ascending.size(); ++i)
        EXPECT_LT(cannVersionNumber(ascending[i - 1]), cannVersionNumber(ascending[i]))
            << ascending[i - 1] << " < " << ascending[i];
    EXPECT_EQ(cannVersionNumber("8.3.RC1"), 904005100);
    EXPECT_EQ(cannVersionNumber("8.3.0"), 904009900);
    bool recognised = true;
    EXPECT_EQ(cannVersionNumber("8.3", &recognised), -100);
    EXPECT_FALSE(recognised);
    EXPECT_TRUE(engine::passes::detail::cannAtLeast("8.3.RC1", "8.3.RC1"));
    EXPECT_FALSE(engine::passes::detail::cannAtLeast("8.3.RC1", "8.3.0"));
}

// ================= decompose_auto_functionalized =================

TEST(PassDecomposeAutoFunctionalized, ReinplacedBaseIsWrittenInPlaceAndLeavesASelfCopy)
{
    auto g = autoFunctionalizedV2();
    reinplaceInputs(g);
    const auto* meta = &node(g, "af").passMeta;
    ASSERT_TRUE(meta->count("only_clone_these_tensors"));
    EXPECT_TRUE(meta->at("only_clone_these_tensors").items.empty());

    auto r = decompose(g);
    EXPECT_EQ(r.option, "debug.aclgraph.disable_reinplace_input_mutated_ops_pass");
    EXPECT_FALSE(has(g, "af"));
    EXPECT_FALSE(has(g, "getitem_1"));
    // The op writes kv itself; the epilogue now copies kv onto itself (eliminate_self_copy's job).
    ASSERT_TRUE(has(g, "update_default"));
    const auto& call = node(g, "update_default");
    EXPECT_EQ(call.target, "mylib.update.default");
    EXPECT_TRUE(call.args.empty());
    ASSERT_EQ(call.kwargs.size(), 1u);
    EXPECT_EQ(call.kwargs[0].first, "x");
    EXPECT_EQ(call.kwargs[0].second.s, "kv");
    EXPECT_EQ(refs(node(g, "c").args), "kv,kv");
    EXPECT_EQ(rewrittenTo(r, "af"), "mylib.update.default");
    EXPECT_EQ(r.added, (std::vector<std::string> { "update_default" }));
    EXPECT_THAT(logText(r),
        HasSubstr("aclgraph-inspector: the schema of mylib.update.default is not in the operator table: af's op is "
                  "called with keyword arguments"));
}

TEST(PassDecomposeAutoFunctionalized, BaseReadLaterIsClonedPreservingStrides)
{
    // kv is read by r after the op and before its epilogue: it cannot be written in place, so the op
    // runs on a clone (clone_preserve_strides: as_strided span, clone, as_strided back).
    auto g = autoFunctionalizedV2({ op("r", "aten.relu.default", { "kv" }, meta({ 4, 4 })) }, list({ "r" }));
    auto rr = reinplaceInputs(g);
    EXPECT_THAT(logText(rr), HasSubstr("We were unable to reinplace [0]; [0] (if non-empty)"));
    EXPECT_EQ(skipReason(rr, "af"),
        "auto_functionalized_v2: only_clone_these_tensors=[0]; decompose_auto_functionalized expands it into clones "
        "of those and the mutable op");

    auto r = decompose(g);
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "as_strided_default", "clone_default", "as_strided_default_1", "update_default" }));
    const auto& span = node(g, "as_strided_default");
    EXPECT_EQ(span.target, "aten.as_strided.default");
    EXPECT_EQ(refs(span.args), "kv,[],[]");
    ASSERT_EQ(span.args.size(), 4u);
    EXPECT_EQ(span.args[1].items.at(0).i, 16);
    EXPECT_EQ(span.args[2].items.at(0).i, 1);
    EXPECT_EQ(refs(node(g, "clone_default").args), "as_strided_default");
    const auto& back = node(g, "as_strided_default_1");
    ASSERT_EQ(back.args.size(), 4u);
    EXPECT_EQ(back.args[1].items.size(), 2u);
    EXPECT_EQ(back.args[2].items.at(0).i, 4);
    EXPECT_EQ(back.args[2].items.at(1).i, 1);
    EXPECT_EQ(node(g, "update_default").kwargs.at(0).second.s, "as_strided_default_1");
    EXPECT_EQ(refs(node(g, "c").args), "kv,as_strided_default_1");
}

TEST(PassDecomposeAutoFunctionalized, ViewsOfBasesAreRegenerated)
{
    // Four mutable arguments: an alias of base 0, a slice of it, an as_strided view of base 1, and one
    // that is None (`_w_base_index=None`); nothing recorded, so nothing is cloned (meta.get(..., [])).
    auto g = graph({ input("a", { 8, 4 }), input("b", { 16 }) },
        { op("af", "higher_order.auto_functionalized_v2", { str("mylib.many.default") },
              list({ meta({ 8, 4 }), meta({ 16 }) }),
              { { "eps", 0.5 }, { "_x_base_index", 0 }, { "_x_alias", true }, { "_y_base_index", 0 },
                  { "_y_slice_dim", 0 }, { "_y_slice_start", 2 }, { "_y_slice_end", 6 }, { "_z_base_index", 1 },
                  { "_z_size", list({ 2, 2 }) }, { "_z_stride", list({ 4, 1 }) }, { "_z_storage_offset", 8 },
                  { "_w_base_index", nullptr }, { "_all_bases", list({ "a", "b" }) } }),
            op("g1", "operator.getitem", { "af", 1 }, meta({ 8, 4 })),
            op("g2", "operator.getitem", { "af", 2 }, meta({ 16 })), op("ca", "aten.copy_.default", { "a", "g1" }),
            op("cb", "aten.copy_.default", { "b", "g2" }) },
        ordered_json::array());
    auto r = decompose(g);
    EXPECT_THAT(logText(r),
        HasSubstr("aclgraph-inspector: af carries no only_clone_these_tensors (reinplace_input_mutated_ops recorded "
                  "none); as in inductor (meta.get(..., [])), nothing is cloned"));
    EXPECT_EQ(
        r.added, (std::vector<std::string> { "alias_default", "slice_tensor", "as_strided_default", "many_default" }));
    EXPECT_EQ(refs(node(g, "alias_default").args), "a");
    const auto& slice = node(g, "slice_tensor");
    EXPECT_EQ(slice.target, "aten.slice.Tensor");
    ASSERT_EQ(slice.args.size(), 4u);
    EXPECT_EQ(slice.args[2].i, 2);
    EXPECT_EQ(slice.args[3].i, 6);
    ASSERT_EQ(slice.outputs.size(), 1u);
    EXPECT_EQ(slice.outputs[0].shape[0].text(), "4");
    EXPECT_EQ(slice.outputs[0].storageOffset, 8);
    const auto& strided = node(g, "as_strided_default");
    EXPECT_EQ(refs(strided.args), "b,[],[]");
    EXPECT_EQ(strided.args[3].i, 8);
    // The other kwargs first, then the mutable ones in order (new_kwargs[arg_name] = ...).
    const auto& call = node(g, "many_default");
    std::string keys;
    for (const auto& [k, v] : call.kwargs)
        keys += k + (v.kind == engine::Arg::Kind::NodeRef ? "=" + v.s : "") + ";";
    EXPECT_EQ(keys, "eps;x=alias_default;y=slice_tensor;z=as_strided_default;w;");
    EXPECT_EQ(refs(node(g, "ca").args), "a,a");
    EXPECT_EQ(refs(node(g, "cb").args), "b,b");
}

TEST(PassDecomposeAutoFunctionalized, SchemaGivesPositionalArgumentsAndOutputs)
{
    // The in-place form of v2 (self is a base, its result getitem 0): npu_scatter_nd_update_ is in the
    // operator table, so the call is positional, and getitem 0 becomes the op's own result.
    auto g = graph({ input("cache", { 8, 16 }), input("idx", { 2, 1 }, "user_input", "i64"), input("upd", { 2, 16 }) },
        { op("af", "torch.ops.higher_order.auto_functionalized_v2",
              { str("torch.ops.npu.npu_scatter_nd_update_.default") }, list({ meta({ 8, 16 }), meta({ 8, 16 }) }),
              { { "indices", "idx" }, { "updates", "upd" }, { "_self_base_index", 0 },
                  { "_all_bases", list({ "cache" }) } }),
            op("getitem", "operator.getitem", { "af", 0 }, meta({ 8, 16 })),
            op("getitem_1", "operator.getitem", { "af", 1 }, meta({ 8, 16 })),
            op("c", "aten.copy_.default", { "cache", "getitem_1" }),
            op("m", "aten.mul.Tensor", { "getitem", 2 }, meta({ 8, 16 })) },
        list({ "m" }));
    reinplaceInputs(g);
    auto r = decompose(g);
    const auto& call = node(g, "npu_scatter_nd_update__default");
    EXPECT_EQ(call.target, "npu.npu_scatter_nd_update_.default");
    EXPECT_EQ(refs(call.args), "cache,idx,upd");
    EXPECT_TRUE(call.kwargs.empty());
    EXPECT_EQ(refs(node(g, "m").args), "npu_scatter_nd_update__default");
    EXPECT_EQ(refs(node(g, "c").args), "cache,cache");
    EXPECT_THAT(logText(r), Not(HasSubstr("not in the operator table")));
}

TEST(PassDecomposeAutoFunctionalized, TrailingDefaultsAreLeftOut)
{
    // normalized kwargs carry every argument; the dispatcher drops trailing ones equal to their default.
    auto make = [](int axis) {
        return graph({ input("cache", { 8, 16 }), input("idx", { 2 }, "user_input", "i64"), input("upd", { 2, 16 }),
                         input("scales", { 1 }) },
            { op("af", "higher_order.auto_functionalized_v2", { str("npu.npu_quant_scatter_.default") },
                  list({ meta({ 8, 16 }), meta({ 8, 16 }) }),
                  { { "indices", "idx" }, { "updates", "upd" }, { "quant_scales", "scales" },
                      { "quant_zero_points", nullptr }, { "axis", axis }, { "quant_axis", 1 },
                      { "reduce", str("update") }, { "_self_base_index", 0 }, { "_all_bases", list({ "cache" }) } }),
                op("getitem_1", "operator.getitem", { "af", 1 }, meta({ 8, 16 })),
                op("c", "aten.copy_.default", { "cache", "getitem_1" }) },
            ordered_json::array());
    };
    auto g = make(0);
    decompose(g);
    EXPECT_EQ(node(g, "npu_quant_scatter__default").args.size(), 4u);
    g = make(-2);
    decompose(g);
    const auto& call = node(g, "npu_quant_scatter__default");
    ASSERT_EQ(call.args.size(), 6u);
    EXPECT_EQ(call.args[4].kind, engine::Arg::Kind::None);
    EXPECT_EQ(call.args[5].i, -2);
}

TEST(PassDecomposeAutoFunctionalized, TupleResultsGetGetitemsOfTheOp)
{
    // No schema: the node's 3 tensor results and 1 base say the op returns 2 values.
    auto g = graph({ input("kv", { 4, 4 }) },
        { op("af", "higher_order.auto_functionalized_v2", { str("mylib.pair.default") },
              list({ meta({ 4 }), meta({ 2 }), meta({ 4, 4 }) }),
              { { "_x_base_index", 0 }, { "_all_bases", list({ "kv" }) } }),
            op("o1", "operator.getitem", { "af", 1 }, meta({ 2 })),
            op("nb", "operator.getitem", { "af", 2 }, meta({ 4, 4 })), op("c", "aten.copy_.default", { "kv", "nb" }),
            op("m", "aten.neg.default", { "o1" }, meta({ 2 })) },
        list({ "m" }));
    auto r = decompose(g);
    EXPECT_THAT(
        logText(r), HasSubstr("it is taken to return 2 value(s), from the node's 3 tensor result(s) and 1 base(s)"));
    EXPECT_EQ(node(g, "pair_default").outputs.size(), 2u);
    ASSERT_TRUE(has(g, "getitem"));
    EXPECT_EQ(node(g, "getitem").args.at(1).i, 1);
    EXPECT_EQ(refs(node(g, "m").args), "getitem");
    EXPECT_EQ(refs(node(g, "c").args), "kv,kv");
}

TEST(PassDecomposeAutoFunctionalized, V1UsesTheSchemaAndItsRecordedNames)
{
    // v1 keeps every argument by name; the reinplace pass records the names to clone.
    auto make = [](ordered_json middle) {
        ordered_json nodes
            = { op("af", "higher_order.auto_functionalized", { str("npu.npu_scatter_nd_update_.default") },
                    list({ meta({ 8, 16 }), meta({ 8, 16 }) }),
                    { { "self", "cache" }, { "indices", "idx" }, { "updates", "upd" } }),
                  op("getitem_1", "operator.getitem", { "af", 1 }, meta({ 8, 16 })) };
        for (const auto& n : middle)
            nodes.push_back(n);
        nodes.push_back(op("c", "aten.copy_.default", { "cache", "getitem_1" }));
        return graph(
            { input("cache", { 8, 16 }), input("idx", { 2, 1 }, "user_input", "i64"), input("upd", { 2, 16 }) }, nodes,
            list({ "getitem_1" }));
    };
    auto g = make(ordered_json::array());
    auto rr = reinplaceInputs(g);
    EXPECT_THAT(logText(rr),
        HasSubstr("For node npu::npu_scatter_nd_update_, attempted to reinplace ['self']. We were unable to reinplace "
                  "[]; [] (if non-empty)"));
    decompose(g);
    EXPECT_EQ(refs(node(g, "npu_scatter_nd_update__default").args), "cache,idx,upd");
    EXPECT_EQ(refs(node(g, "c").args), "cache,cache");

    // cache is read before the epilogue: 'self' is cloned.
    g = make({ op("r", "aten.relu.default", { "cache" }, meta({ 8, 16 })) });
    rr = reinplaceInputs(g);
    EXPECT_EQ(skipReason(rr, "af"),
        "auto_functionalized: only_clone_these_tensors=['self']; decompose_auto_functionalized expands it into clones "
        "of those and the mutable op");
    decompose(g);
    EXPECT_EQ(refs(node(g, "npu_scatter_nd_update__default").args), "as_strided_default_1,idx,upd");
    EXPECT_EQ(refs(node(g, "c").args), "cache,as_strided_default_1");
}

TEST(PassDecomposeAutoFunctionalized, V1WithoutASchemaStays)
{
    auto g = graph({ input("kv", { 4, 4 }) },
        { op("af", "higher_order.auto_functionalized", { str("mylib.update.default") }, list({ meta({ 4, 4 }) }),
            { { "x", "kv" } }) },
        ordered_json::array());
    auto r = decompose(g);
    EXPECT_TRUE(has(g, "af"));
    EXPECT_THAT(skipReason(r, "af"), HasSubstr("the schema of mylib.update.default is not in the operator table"));
    EXPECT_TRUE(r.added.empty());
}

TEST(PassDecomposeAutoFunctionalized, OutFormOfV2IsLeft)
{
    // Newer PyTorch functionalizes out= ops with no bases and the out tensor's properties instead.
    auto g = graph({ input("x", { 4 }) },
        { op("af", "higher_order.auto_functionalized_v2", { str("mylib.sin.out") }, list({ meta({ 4 }) }),
            { { "x", "x" }, { "_out_size", list({ 4 }) }, { "_out_stride", list({ 1 }) },
                { "_out_dtype", str("torch.float32") }, { "_out_device", str("npu:0") },
                { "_all_bases", list({}) } }) },
        list({ "af" }));
    auto r = decompose(g);
    EXPECT_TRUE(has(g, "af"));
    EXPECT_THAT(skipReason(r, "af"), HasSubstr("it is the out= form of auto_functionalized_v2"));
}

TEST(PassDecomposeAutoFunctionalized, OffWithTheInputReinplacePass)
{
    auto g = autoFunctionalizedV2();
    auto r = engine::passes::decomposeAutoFunctionalized(
        g, options({ { "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", PyValue::boolean(true) } }));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->enabled);
    EXPECT_TRUE(has(g, "af"));
}

// ================= eliminate_self_copy =================

TEST(PassEliminateSelfCopy, SelfCopyWithoutUsersGoes)
{
    // test_self_copy_no_crash: x.copy_(x) in a model that returns nothing.
    auto g = graph(
        { input("x", { 3 }) }, { op("copy_", "aten.copy_.default", { "x", "x" }, meta({ 3 })) }, ordered_json::array());
    auto r = eliminate(g);
    EXPECT_FALSE(has(g, "copy_"));
    EXPECT_EQ(r.removed, (std::vector<std::string> { "copy_" }));
    const std::string log = logText(r);
    EXPECT_THAT(log, HasSubstr("Eliminating self-copy node: copy_\nEliminated 1 self-copy nodes\n"));
    EXPECT_THAT(log, HasSubstr("After fx graph pass(eliminate_self_copy) optimization:"));
}

TEST(PassEliminateSelfCopy, CopiesBetweenTwoTensorsStay)
{
    // test_self_copy_preserves_normal_copy: y = zeros_like(x); y.copy_(x).
    auto g = graph({ input("x", { 3 }) },
        { op("zeros_like", "aten.zeros_like.default", { "x" }, meta({ 3 })),
            op("copy", "aten.copy_.default", { "zeros_like", "x" }, meta({ 3 })) },
        ordered_json::array());
    auto r = eliminate(g);
    EXPECT_TRUE(has(g, "copy"));
    EXPECT_THAT(logText(r), Not(HasSubstr("self-copy")));
}

TEST(PassEliminateSelfCopy, ASelfCopyWithUsersStays)
{
    // A graph-level chain copy = copy_(x, x); copy_1 = copy_(copy, copy): the second has no users and
    // goes; the first had one when the pass looked at it (one walk over the graph), so it stays.
    auto g = graph({ input("x", { 3 }) },
        { op("copy", "aten.copy_.default", { "x", "x" }, meta({ 3 })),
            op("copy_1", "aten.copy_.default", { "copy", "copy" }, meta({ 3 })) },
        ordered_json::array());
    auto r = eliminate(g);
    EXPECT_TRUE(has(g, "copy"));
    EXPECT_FALSE(has(g, "copy_1"));
    EXPECT_THAT(skipReason(r, "copy"), HasSubstr("has users [copy_1]"));
    EXPECT_THAT(logText(r), HasSubstr("Eliminating self-copy node: copy_1\nEliminated 1 self-copy nodes\n"));
}

TEST(PassEliminateSelfCopy, PipelineRemovesWhatTheDecompositionLeavesOnNpugraphExOnly)
{
    // test_self_copy_with_decompose: a custom op mutating an input -> auto_functionalized_v2 ->
    // reinplaced -> decomposed -> copy_(kv, kv) -> eliminated; torchair has no eliminate_self_copy.
    auto ex = engine::passes::runReduceOverheadPasses(
        autoFunctionalizedV2(), options({}, engine::config::Backend::NpugraphEx));
    ASSERT_TRUE(ex.ok()) << ex.error().toString();
    const engine::Graph& last = ex->stages.back();
    EXPECT_FALSE(has(last, "af"));
    EXPECT_FALSE(has(last, "c"));
    ASSERT_TRUE(has(last, "update_default"));
    EXPECT_EQ(node(last, "update_default").kwargs.at(0).second.s, "kv");
    const auto* self = engine::passes::findPass(*ex, "eliminate_self_copy");
    ASSERT_NE(self, nullptr);
    EXPECT_THAT(logText(*self), HasSubstr("Eliminating self-copy node: c\nEliminated 1 self-copy nodes\n"));

    auto ta = engine::passes::runReduceOverheadPasses(autoFunctionalizedV2(), options());
    ASSERT_TRUE(ta.ok());
    EXPECT_EQ(engine::passes::findPass(*ta, "eliminate_self_copy"), nullptr);
    EXPECT_EQ(refs(node(ta->stages.back(), "c").args), "kv,kv");

    // A self-copy in the model itself (test_self_copy_no_crash): reinplace_input_mutated_ops keeps it,
    // eliminate_self_copy removes it.
    auto direct = graph(
        { input("x", { 3 }) }, { op("copy_", "aten.copy_.default", { "x", "x" }, meta({ 3 })) }, ordered_json::array());
    auto d = engine::passes::runReduceOverheadPasses(direct, options({}, engine::config::Backend::NpugraphEx));
    ASSERT_TRUE(d.ok());
    EXPECT_THAT(skipReason(*engine::passes::findPass(*d, "reinplace_input_mutated_ops"), "copy_"),
        HasSubstr("npugraph_ex's eliminate_self_copy removes it later"));
    EXPECT_FALSE(has(d->stages.back(), "copy_"));
}
