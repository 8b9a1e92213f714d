#include "fx_test_util.h"

#include <string>

using namespace engine;
using namespace engine::readers;
using namespace fxtest;

namespace {

// ---- readable code ---------------------------------------------------------------------------

TEST(FxReaderCode, PrintReadableSimple)
{
    auto r = readOk("print_readable_simple.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(g.id, "GraphModule");
    EXPECT_FALSE(g.dynamic);
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg0_1", "arg1_1", "mm", "add", "output" }));
    EXPECT_EQ(node(g, "arg0_1").op, NodeOp::Placeholder);
    EXPECT_EQ(node(g, "arg0_1").inputKind, InputKind::UserInput);
    // No strides or device printed: strides stay empty (contiguous), the device stays unknown (empty).
    EXPECT_EQ(outputsText(node(g, "arg0_1")), "f32[4, 4][]");
    EXPECT_EQ(node(g, "mm").target, "aten.mm.default");
    EXPECT_EQ(argsText(node(g, "mm")), "%arg0_1, %arg0_1");
    EXPECT_EQ(node(g, "mm").provenance, "# File: /home/user/model.py:12 in forward, code: y = x @ x");
    EXPECT_EQ(node(g, "add").provenance, "# File: /home/user/model.py:13 in forward, code: return y + b");
    EXPECT_EQ(freed(g, "mm"), (std::vector<std::string> { "arg0_1" }));
    EXPECT_EQ(freed(g, "add"), (std::vector<std::string> { "mm", "arg1_1" }));
    EXPECT_EQ(argsText(node(g, "output")), "[%add]");
    EXPECT_EQ(node(g, "mm").users, (std::vector<int> { 3 }));
}

TEST(FxReaderCode, AotExpandedHeaderAndReturn)
{
    auto r = readOk("aot_forward_expanded.txt");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_TRUE(g.dynamic);
    EXPECT_EQ(names(g),
        (std::vector<std::string> {
            "primals_1", "primals_2", "primals_3", "primals_4", "primals_5", "permute", "addmm", "output" }));
    EXPECT_EQ(node(g, "primals_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "primals_2").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "primals_3").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "primals_3").symbol.text(), "s0");
    EXPECT_TRUE(node(g, "primals_3").outputs.empty());
    EXPECT_EQ(node(g, "primals_4").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(g, "primals_5").inputKind, InputKind::Buffer);
    EXPECT_EQ(outputsText(node(g, "primals_4")), "f32[s0, 16][16, 1]cuda:0");
    EXPECT_EQ(outputsText(node(g, "primals_5")), "bf16[8][1]cuda:0");
    EXPECT_EQ(outputsText(node(g, "permute")), "f32[16, 8][1, 16]cuda:0");
    EXPECT_EQ(argsText(node(g, "permute")), "%primals_1, [1, 0]");
    EXPECT_EQ(freed(g, "addmm"), (std::vector<std::string> { "primals_2", "permute" }));
    EXPECT_EQ(node(g, "addmm").provenance, node(g, "permute").provenance);
    EXPECT_EQ(argsText(node(g, "output")), "[%addmm, %primals_4, %primals_3, None]");
}

TEST(FxReaderCode, DynamoGraphModule)
{
    auto r = readOk("dynamo_graph_module.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty()) << diagnosticTexts(r).front();
    const Graph& g = r.graphs[0];
    EXPECT_TRUE(g.dynamic);
    // Alias lines name the placeholders; kinds come from Dynamo's names.
    EXPECT_EQ(g.find("L_x_"), -1);
    EXPECT_EQ(node(g, "l_x_").op, NodeOp::Placeholder);
    EXPECT_EQ(node(g, "l_x_").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(g, "s0").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "l_self_modules_linear_parameters_weight_").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "l_self_buffers_scale_").inputKind, InputKind::Buffer);
    EXPECT_EQ(outputsText(node(g, "l_y_")), "i64[][]cpu");
    EXPECT_EQ(g.placeholders().size(), 5u);

    const Node& sin = node(g, "sin");
    EXPECT_EQ(sin.op, NodeOp::CallMethod);
    EXPECT_EQ(sin.target, "sin");
    EXPECT_EQ(argsText(sin), "%l_x_");
    EXPECT_EQ(sin.provenance, "# File: /tmp/m.py:8 in forward, code: a = x.sin()");
    EXPECT_EQ(node(g, "linear").target, "torch._C._nn.linear");
    EXPECT_EQ(argsText(node(g, "linear")), "%sin, %l_self_modules_linear_parameters_weight_, None");
    EXPECT_EQ(node(g, "mul").target, "operator.mul");
    EXPECT_EQ(node(g, "mul").provenance, "# File: /tmp/m.py:9 in forward, code: b = self.linear(a) * self.scale");
    EXPECT_EQ(node(g, "size").provenance, ""); // "# No stacktrace found" ends the run
    EXPECT_EQ(node(g, "size").op, NodeOp::CallMethod);
    EXPECT_EQ(node(g, "getitem").target, "operator.getitem");
    EXPECT_EQ(node(g, "getitem").symbol.text(), "s0");
    EXPECT_TRUE(node(g, "getitem").outputs.empty());
    EXPECT_EQ(node(g, "floordiv").target, "operator.floordiv");
    EXPECT_EQ(argsText(node(g, "floordiv")), "%getitem, 3");
    EXPECT_EQ(node(g, "floordiv").symbol.text(), "s0//3");
    EXPECT_EQ(node(g, "neg").target, "operator.neg");
    EXPECT_EQ(node(g, "neg").symbol.text(), "-u1");
    EXPECT_EQ(node(g, "add").target, "operator.add");
    EXPECT_EQ(node(g, "truediv").target, "operator.truediv");
    EXPECT_EQ(node(g, "gt").target, "operator.gt");
    EXPECT_EQ(outputsText(node(g, "gt")), "b8[4][1]cpu");
    EXPECT_EQ(node(g, "shape").target, "getattr");
    EXPECT_EQ(argsText(node(g, "shape")), "%truediv, 'shape'");
    EXPECT_EQ(freed(g, "shape"), (std::vector<std::string> { "shape" }));
    EXPECT_EQ(argsText(node(g, "dropout")), "%truediv, 0.1, True, False");
    EXPECT_EQ(node(g, "dropout").target, "torch.nn.functional.dropout");

    const Node& iadd = node(g, "iadd");
    EXPECT_EQ(iadd.target, "operator.iadd");
    EXPECT_EQ(argsText(iadd), "%clone, 2");
    EXPECT_EQ(outputsText(iadd), "f32[s0, 4][4, 1]cpu");
    EXPECT_EQ(iadd.freedAfter, (std::vector<std::string> { "clone" }));

    EXPECT_EQ(argsText(node(g, "zeros")), "4, dtype='torch.float32', device='device(type='cpu')', pin_memory=False");
    EXPECT_EQ(argsText(node(g, "where")), "%gt, %zeros, -inf");
    EXPECT_EQ(argsText(node(g, "pad")), "%where, [1, 1], -1.5e-05");
    EXPECT_EQ(argsText(node(g, "fill")), "%pad, 'torch.Tensor(size=[2], dtype=torch.float32)', alpha=2");
    EXPECT_EQ(argsText(node(g, "output")), "[%iadd, %getitem_1, %neg, %fill, 'done', %s0]");
}

TEST(FxReaderCode, TracedModulesGetAttrAndCallModule)
{
    auto r = readOk("traced_modules.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(g.id, "Repro");
    // Python type annotations: no tensor metadata; `int` marks a SymInt.
    EXPECT_TRUE(node(g, "x").outputs.empty());
    EXPECT_EQ(node(g, "n").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "weight").op, NodeOp::GetAttr);
    EXPECT_EQ(node(g, "weight").target, "weight");
    EXPECT_EQ(node(g, "linear_bias").target, "linear.bias");
    EXPECT_EQ(node(g, "linear").op, NodeOp::CallModule);
    EXPECT_EQ(node(g, "linear").target, "linear");
    EXPECT_EQ(argsText(node(g, "linear")), "%x");
    EXPECT_EQ(node(g, "layers_0").op, NodeOp::CallModule);
    EXPECT_EQ(node(g, "layers_0").target, "layers.0");
    EXPECT_EQ(node(g, "getattr_1").target, "getattr");
    EXPECT_EQ(argsText(node(g, "getitem")), "%getattr_1, -1");
    EXPECT_EQ(freed(g, "mul"), (std::vector<std::string> { "getitem", "n" }));
}

TEST(FxReaderCode, JointGraphPytreeConvention)
{
    auto r = readOk("joint_pytree.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(g.id, "inner_f");
    // `primals` and `tangents` are pytrees, not inputs: the flattened names are.
    EXPECT_EQ(g.find("primals"), -1);
    EXPECT_EQ(g.find("tangents"), -1);
    EXPECT_EQ(g.placeholders(), (std::vector<int> { 0, 1, 2 }));
    EXPECT_EQ(node(g, "primals_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "primals_2").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(g, "tangents_1").inputKind, InputKind::UserInput);
    EXPECT_EQ(outputsText(node(g, "tangents_1")), "f32[4, 2][2, 1]cpu");
    EXPECT_EQ(argsText(node(g, "sum_1")), "%tangents_1, [0], True");
    EXPECT_EQ(argsText(node(g, "output")), "[%mm, %mm_1, None, %sum_1]");
    EXPECT_EQ(g.nodes.size(), 9u);
}

TEST(FxReaderCode, PytreeAnnotationsOnOneLine)
{
    // Older printers put every annotation on one line, separated by semicolons.
    auto r
        = readText("class inner_f(torch.nn.Module):\n"
                   "    def forward(self, primals, tangents):\n"
                   "        primals_1: \"f32[2]\"; tangents_1: \"f32[2]\"; \n"
                   "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"
                   "        mul: \"f32[2]\" = torch.ops.aten.mul.Tensor(primals_1, tangents_1);  primals_1 = "
                   "tangents_1 = None\n"
                   "        return pytree.tree_unflatten([mul], self._out_spec)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "primals_1", "tangents_1", "mul", "output" }));
    EXPECT_EQ(outputsText(node(g, "tangents_1")), "f32[2][]");
}

TEST(FxReaderCode, BoxedCallingConvention)
{
    auto r = readOk("boxed_args.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(g.id, "<lambda>");
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg0_1", "arg1_1", "mm", "output" }));
    EXPECT_EQ(outputsText(node(g, "arg1_1")), "f16[8, 8][8, 1]npu:0");
    EXPECT_EQ(freed(g, "mm"), (std::vector<std::string> { "arg0_1", "arg1_1" }));
}

TEST(FxReaderCode, NestedSubmodulesTwoLevels)
{
    auto r = readOk("nested_submodules.py");
    EXPECT_TRUE(r.diagnostics.empty());
    ASSERT_EQ(r.graphs.size(), 4u);
    EXPECT_EQ(r.graphs[0].id, "GraphModule");
    EXPECT_EQ(r.graphs[1].id, "GraphModule.cond_true_0");
    EXPECT_EQ(r.graphs[2].id, "GraphModule.cond_true_0.inner_true_0");
    EXPECT_EQ(r.graphs[3].id, "GraphModule.cond_false_0");
    const Graph& top = r.graphs[0];
    EXPECT_EQ(node(top, "cond_true_0").op, NodeOp::GetAttr);
    EXPECT_EQ(node(top, "cond").target, "higher_order.cond");
    EXPECT_EQ(argsText(node(top, "cond")), "%l_p_, %cond_true_0, %cond_false_0, [%l_x_, %l_p_]");
    // cond prints no annotation; its getitem user describes the result.
    EXPECT_EQ(outputsText(node(top, "cond")), "f32[4][1]cpu");
    EXPECT_EQ(freed(top, "cond"), (std::vector<std::string> { "l_p_", "cond_true_0", "cond_false_0", "l_x_" }));
    const Graph& child = r.graphs[1];
    EXPECT_EQ(
        names(child), (std::vector<std::string> { "l_x__1", "l_p__1", "inner_true_0", "cond", "getitem", "output" }));
    EXPECT_EQ(node(child, "inner_true_0").provenance,
        "# File: /tmp/c.py:2 in t, code: return torch.cond(p, inner, inner, (x,))");
    EXPECT_EQ(node(r.graphs[2], "sin").op, NodeOp::CallMethod);
    EXPECT_EQ(node(r.graphs[3], "cos").target, "cos");
}

TEST(FxReaderCode, TorchAirAttentionGraph)
{
    auto r = readOk("torchair_000_aot_forward_graph.txt");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_TRUE(g.dynamic);
    EXPECT_EQ(g.nodes.size(), 23u);
    EXPECT_EQ(g.placeholders().size(), 8u);
    EXPECT_EQ(node(g, "arg5_1").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "arg6_1").symbol.text(), "s1");
    EXPECT_EQ(outputsText(node(g, "arg0_1")), "bf16[s0, 1, 512][512, 512, 1]npu:0");
    EXPECT_EQ(argsText(node(g, "view")), "%arg0_1, [%arg5_1, 512]");

    const Node& split = node(g, "split_with_sizes");
    ASSERT_EQ(split.outputs.size(), 3u);
    EXPECT_EQ(metaText(split.outputs[2]), "bf16[s0, 512][1536, 1]npu:0");

    const Node& fia = node(g, "npu_fused_infer_attention_score");
    EXPECT_EQ(fia.target, "npu.npu_fused_infer_attention_score.default");
    EXPECT_EQ(argsText(fia),
        "%getitem, %index_put, %index_put_1, num_heads=8, input_layout='TND', scale=0.125, "
        "actual_seq_lengths=[%arg6_1], actual_seq_lengths_kv=[%arg6_1]");
    EXPECT_EQ(outputsText(fia), "bf16[s0, 512][512, 1]npu:0 f32[s0, 8, 1][8, 1, 1]npu:0");
    EXPECT_EQ(fia.freedAfter, (std::vector<std::string> { "getitem", "arg6_1" }));
    EXPECT_EQ(fia.provenance,
        "# File: /models/llama.py:108 in forward, code: out = torch_npu.npu_fused_infer_attention_score(q, k_cache, "
        "v_cache, ...)");
    EXPECT_EQ(node(g, "copy_").freedAfter, (std::vector<std::string> { "arg2_1", "index_put", "copy_" }));
    EXPECT_EQ(node(g, "copy_").provenance, "");
    // The in-place epilogue makes both KV caches mutated inputs.
    EXPECT_EQ(g.mutatedInputs(), (std::vector<std::string> { "arg2_1", "arg3_1" }));
    EXPECT_EQ(argsText(node(g, "output")), "[%mm_1, %getitem_4]");
}

TEST(FxReaderCode, ReturnForms)
{
    const std::string head = "class M(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n";
    auto ret = [&](const std::string& line) {
        auto r = readText(head + "        " + line + "\n");
        return r.graphs.empty() ? std::string("?") : argsText(r.graphs[0].nodes.back());
    };
    EXPECT_EQ(ret("return (x, x)"), "[%x, %x]");
    EXPECT_EQ(ret("return (x,)"), "[%x]");
    EXPECT_EQ(ret("return [x]"), "[%x]");
    EXPECT_EQ(ret("return x"), "%x");
    EXPECT_EQ(ret("return None"), "None");
    EXPECT_EQ(ret("return pytree.tree_unflatten([x, None], self._out_spec)"), "[%x, None]");
    EXPECT_EQ(
        ret("return (\n            x,  # PlainAOTOutput(idx=0)\n            None,  # None\n        )"), "[%x, None]");
}

TEST(FxReaderCode, PassBodyAndTopLevelForward)
{
    auto r = readText("class Empty(torch.nn.Module):\n    def forward(self):\n        pass\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    ASSERT_EQ(r.graphs[0].nodes.size(), 1u);
    EXPECT_EQ(r.graphs[0].nodes[0].op, NodeOp::Output);
    EXPECT_EQ(argsText(r.graphs[0].nodes[0]), "None");

    auto bare = readText("def forward(self, x: \"f32[2]\"):\n    return (x,)\n");
    ASSERT_EQ(bare.graphs.size(), 1u);
    EXPECT_EQ(bare.graphs[0].id, "forward");
}

TEST(FxReaderCode, SetItemAndInPlaceSugar)
{
    auto r = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, x: \"f32[4]\", y: \"f32[4]\"):\n"
                      "        x[0] = 1.0;  setitem = x\n"
                      "        x -= y;  isub: \"f32[4]\" = x;  x = y = None\n"
                      "        return (isub,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(node(g, "setitem").target, "operator.setitem");
    EXPECT_EQ(argsText(node(g, "setitem")), "%x, 0, 1.0");
    EXPECT_EQ(node(g, "isub").target, "operator.isub");
    EXPECT_EQ(freed(g, "isub"), (std::vector<std::string> { "x", "y" }));
    EXPECT_EQ(outputsText(node(g, "isub")), "f32[4][]");
}

TEST(FxReaderCode, Constants)
{
    auto r
        = readText("class M(torch.nn.Module):\n"
                   "    def forward(self, x: \"f32[4]\"):\n"
                   "        f = torch.ops.my.op.default(x, -9223372036854775808, 0x10, 1e-05, -2.5, nan, True, None, "
                   "'it''s', \"q\\\"\", [1, (2, 3)], (), torch.int64, torch.contiguous_format, "
                   "device(type='cuda', index=0), slice(None, 2, None), ..., big = 18446744073709551616)\n"
                   "        return (f,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(argsText(node(r.graphs[0], "f")),
        "%x, -9223372036854775808, 16, 1e-05, -2.5, nan, True, None, 'its', 'q\"', [1, [2, 3]], [], "
        "'torch.int64', 'torch.contiguous_format', 'device(type='cuda', index=0)', 'slice(None, 2, None)', 'Ellipsis', "
        "big=1.8446744073709552e+19");
    EXPECT_EQ(node(r.graphs[0], "f").target, "my.op.default");
}

TEST(FxReaderCode, SubscriptFormsOfHuggingFaceModels)
{
    // Subscripts as people and Hugging Face models write them, and as FX prints them: slices and
    // Ellipsis are kept as FX's own text (`slice(None, 4, None)`, `Ellipsis`), None stays None.
    auto r = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, x: \"f32[4, 8]\", n: \"Sym(s0)\"):\n"
                      "        a: \"f32[4, 4]\" = x[..., :4]\n"
                      "        b: \"f32[4, 1, 8]\" = x[:, None]\n"
                      "        c: \"f32[4]\" = x[(slice(None), 1)]\n"
                      "        d: \"f32[4, 8]\" = x[::-1]\n"
                      "        e: \"f32[4, 4]\" = operator.getitem(x, (Ellipsis, slice(None, 4, None)))\n"
                      "        f: \"f32[4, 4]\" = getitem(x, (Ellipsis, slice(2, None, -2)))\n"
                      "        g: \"f32[4, 8]\" = x[(Ellipsis,)]\n"
                      "        return (a, b, c, d, e, f, g)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty()) << diagnosticTexts(r).front();
    const Graph& g = r.graphs[0];
    for (const char* name : { "a", "b", "c", "d", "e", "g" })
        EXPECT_EQ(node(g, name).target, "operator.getitem") << name;
    EXPECT_EQ(argsText(node(g, "a")), "%x, ['Ellipsis', 'slice(None, 4, None)']");
    EXPECT_EQ(argsText(node(g, "b")), "%x, ['slice(None, None, None)', None]");
    EXPECT_EQ(argsText(node(g, "c")), "%x, ['slice(None, None, None)', 1]");
    EXPECT_EQ(argsText(node(g, "d")), "%x, 'slice(None, None, -1)'");
    EXPECT_EQ(argsText(node(g, "e")), argsText(node(g, "a")));
    EXPECT_EQ(argsText(node(g, "f")), "%x, ['Ellipsis', 'slice(2, None, -2)']");
    EXPECT_EQ(argsText(node(g, "g")), "%x, ['Ellipsis']");
    EXPECT_EQ(outputsText(node(g, "b")), "f32[4, 1, 8][]");
    // The same texts in the dump form.
    auto d = readText("graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
                      "    %a : [num_users=1] = call_function[target=operator.getitem](args = (%x, (Ellipsis, "
                      "slice(None, 4, None))), kwargs = {})\n    return (a,)\n");
    ASSERT_EQ(d.graphs.size(), 1u);
    EXPECT_EQ(argsText(node(d.graphs[0], "a")), argsText(node(g, "a")));

    // Dynamic sizes in slices: kept as text, one warning for the graph however many there are.
    auto y = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, x: \"f32[s0, 8]\", n: \"Sym(s1)\"):\n"
                      "        a: \"f32[s0, s1]\" = x[..., :n]\n"
                      "        b: \"f32[s1, 8]\" = x[slice(None, n, None)]\n"
                      "        c: \"f32[s0, 8]\" = torch.ops.aten.add.Tensor(x, n)\n"
                      "        return (a, b, c)\n",
        "y.py");
    ASSERT_EQ(y.graphs.size(), 1u);
    EXPECT_EQ(argsText(node(y.graphs[0], "a")), "%x, ['Ellipsis', 'slice(None, n, None)']");
    EXPECT_EQ(argsText(node(y.graphs[0], "b")), "%x, 'slice(None, n, None)'");
    EXPECT_EQ(diagnosticTexts(y),
        (std::vector<std::string> { "y.py:3:30: warning: 2 arguments of 'M' use nodes inside slices (the first: "
                                    "'n'); a slice is kept as its text, so the graph does not count these uses" }));
}

TEST(FxReaderCode, InputKindsAndTheirEvidence)
{
    auto r = readText("class GraphModule(torch.nn.Module):\n"
                      "    def forward(self, L_self_modules_fc_parameters_weight_: \"f32[4, 4]\", "
                      "L_self_buffers_mask_: \"b8[4]\", L_x_: \"f32[s0, 4]\", s0: \"Sym(s0)\", arg4_1: \"f32[4]\"):\n"
                      "        l_self_modules_fc_parameters_weight_ = L_self_modules_fc_parameters_weight_\n"
                      "        l_self_buffers_mask_ = L_self_buffers_mask_\n"
                      "        l_x_ = L_x_\n"
                      "        return (l_x_,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    const Graph& g = r.graphs[0];
    const Node& w = node(g, "l_self_modules_fc_parameters_weight_");
    EXPECT_EQ(w.inputKind, InputKind::Parameter);
    EXPECT_EQ(w.inputKindFrom, "Dynamo's input name L_self_modules_fc_parameters_weight_ (an nn.Module parameter)");
    EXPECT_EQ(node(g, "l_self_buffers_mask_").inputKind, InputKind::Buffer);
    EXPECT_EQ(node(g, "l_self_buffers_mask_").inputKindFrom,
        "Dynamo's input name L_self_buffers_mask_ (an nn.Module buffer)");
    EXPECT_EQ(node(g, "s0").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "s0").inputKindFrom, "its annotation Sym(s0)");
    // Nothing tells these: never guessed.
    EXPECT_EQ(node(g, "l_x_").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(g, "l_x_").inputKindFrom, "");
    EXPECT_EQ(node(g, "arg4_1").inputKindFrom, "");
    EXPECT_EQ(g.inputKindsUnknown(), (std::vector<std::string> { "l_x_", "arg4_1" }));

    // AOT's descriptors on a signature printed one argument per line (TORCH_TRACE payloads).
    auto a = readOk("aot_forward_expanded.txt");
    ASSERT_EQ(a.graphs.size(), 1u);
    const Graph& ag = a.graphs[0];
    EXPECT_EQ(node(ag, "primals_1").inputKindFrom, "AOT's input descriptor ParamAOTInput(target='linear.weight')");
    EXPECT_EQ(node(ag, "primals_5").inputKind, InputKind::Buffer);
    EXPECT_EQ(node(ag, "primals_5").inputKindFrom, "AOT's input descriptor BufferAOTInput(target='running_mean')");
    EXPECT_EQ(node(ag, "primals_3").inputKindFrom, "its annotation Sym(s0)");
    EXPECT_EQ(node(ag, "primals_4").inputKind, InputKind::UserInput); // PlainAOTInput tells no kind
    EXPECT_EQ(node(ag, "primals_4").inputKindFrom, "");

    // print(gm.graph) of a Dynamo graph prints each input's Python type.
    auto d = readText("graph():\n"
                      "    %l_w_ : torch.nn.parameter.Parameter [num_users=1] = placeholder[target=L_w_]\n"
                      "    %l_x_ : torch.Tensor [num_users=1] = placeholder[target=L_x_]\n"
                      "    %s0 : torch.SymInt [num_users=0] = placeholder[target=s0]\n"
                      "    %mul : [num_users=1] = call_function[target=operator.mul](args = (%l_w_, %l_x_), kwargs = "
                      "{})\n    return (mul,)\n");
    ASSERT_EQ(d.graphs.size(), 1u);
    EXPECT_EQ(node(d.graphs[0], "l_w_").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(d.graphs[0], "l_w_").inputKindFrom, "its type torch.nn.parameter.Parameter in print(gm.graph)");
    EXPECT_EQ(node(d.graphs[0], "l_x_").inputKindFrom, "");
    EXPECT_EQ(node(d.graphs[0], "s0").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(d.graphs[0], "s0").inputKindFrom, "its type torch.SymInt in print(gm.graph)");

    // TorchAir's generated module: its AclGraphCacheInfo tells.
    auto t = readFxFile(std::string(ACLGI_TEST_DATA_DIR) + "/torchair/output_code_static.py");
    ASSERT_TRUE(t.ok());
    const Graph& tg = t->graphs.at(0);
    EXPECT_EQ(node(tg, "arg1_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(tg, "arg1_1").inputKindFrom, "TorchAir's AclGraphCacheInfo parameter_user_inputs (input 1)");
    EXPECT_EQ(node(tg, "arg2_1").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(tg, "arg2_1").inputKindFrom, "TorchAir's AclGraphCacheInfo user_inputs_mapping");
    EXPECT_TRUE(tg.inputKindsUnknown().empty());
}

TEST(FxReaderCode, UnannotatedCodeOfPyTorch113)
{
    auto r = readText("class GraphModule(torch.nn.Module):\n"
                      "    def forward(self, arg0_1, arg1_1):\n"
                      "        mul = torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = None\n"
                      "        return (mul,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg0_1", "arg1_1", "mul", "output" }));
    EXPECT_EQ(freed(g, "mul"), (std::vector<std::string> { "arg0_1" }));
    for (const Node& n : g.nodes)
        EXPECT_TRUE(n.outputs.empty()) << n.name;
    EXPECT_EQ(g.metadataMissing.rfind("the code has no tensor annotations (PyTorch < 2.0 prints none)", 0), 0u)
        << g.metadataMissing;
    EXPECT_EQ(g.inputsWithoutMetadata(), (std::vector<std::string> { "arg0_1", "arg1_1" }));
    // Python types only (older printers, spaced `x : torch.Tensor`) carry no sizes either.
    auto t = readText("class GraphModule(torch.nn.Module):\n"
                      "    def forward(self, x : torch.Tensor, n : torch.SymInt):\n"
                      "        add : torch.Tensor = x + n;  x = None\n"
                      "        return (add,)\n");
    ASSERT_EQ(t.graphs.size(), 1u);
    EXPECT_TRUE(t.diagnostics.empty());
    EXPECT_FALSE(t.graphs[0].metadataMissing.empty());
    EXPECT_EQ(node(t.graphs[0], "n").inputKindFrom, "its annotation torch.SymInt");
    EXPECT_EQ(t.graphs[0].inputsWithoutMetadata(), (std::vector<std::string> { "x" }));
    // Annotated code has its metadata.
    EXPECT_TRUE(readOk("print_readable_simple.py").graphs[0].metadataMissing.empty());
}

TEST(FxReaderCode, AnnotationGrammar)
{
    auto r = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, a: \"f32[]\", b: \"Sym(-u1)\", c: \"DTensor(f32[8, 4][4, 1]cuda:0, "
                      "(Shard(dim=0),))\", d: \"f16[Max(1, s0), 2*s1 + 1][2*s1 + 1, 1]npu:1\", e: \"f8e4m3fnuz[2]\", "
                      "f: \"u16[2][1]cpu\", g: \"(f32[2][1]cpu, i32[])\", h: \"Sym(((-u1)//3))\", i: \"b8[3]meta\"):\n"
                      "        return (a,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    const Graph& g = r.graphs[0];
    EXPECT_TRUE(g.dynamic);
    EXPECT_EQ(outputsText(node(g, "a")), "f32[][]");
    EXPECT_EQ(node(g, "b").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "b").symbol.text(), "-u1");
    EXPECT_EQ(outputsText(node(g, "c")), "f32[8, 4][4, 1]cuda:0");
    EXPECT_EQ(outputsText(node(g, "d")), "f16[Max(1, s0), 2*s1 + 1][2*s1 + 1, 1]npu:1");
    EXPECT_EQ(node(g, "e").outputs.at(0).dtype, DType::F8E4M3);
    EXPECT_EQ(node(g, "f").outputs.at(0).dtype, DType::Unknown);
    EXPECT_EQ(outputsText(node(g, "g")), "f32[2][1]cpu i32[][]");
    EXPECT_EQ(node(g, "h").symbol.text(), "-u1//3"); // SymExpr prints the fewest parentheses
    EXPECT_EQ(outputsText(node(g, "i")), "b8[3][]meta");
    // The one unknown dtype is a warning at its annotation, not a failure.
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].line, 2);
    EXPECT_EQ(r.diagnostics[0].column, 177);
    EXPECT_NE(r.diagnostics[0].message.find("'u16'"), std::string::npos);
}

TEST(FxReaderCode, WindowsLineEndingsAndTabs)
{
    auto r = readText(
        "class M(torch.nn.Module):\r\n\tdef forward(self, x: \"f32[2]\"):\r\n\t\t# File: a.py:1 in f, code: y\r\n"
        "\t\ty: \"f32[2]\" = x.neg();  x = None\r\n\t\treturn (y,)\r\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(node(r.graphs[0], "y").provenance, "# File: a.py:1 in f, code: y");
    EXPECT_EQ(freed(r.graphs[0], "y"), (std::vector<std::string> { "x" }));
}

TEST(FxReaderCode, UnquotedAnnotationsOfOlderReleases)
{
    auto r = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, arg0_1: f32[4, 4], arg1_1: Sym(s0)):\n"
                      "        mm: f32[4, 4] = torch.ops.aten.mm.default(arg0_1, arg0_1)\n"
                      "        return (mm,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(outputsText(node(r.graphs[0], "mm")), "f32[4, 4][]");
    EXPECT_EQ(node(r.graphs[0], "arg1_1").inputKind, InputKind::SymInt);
}

// ---- diagnostics and errors --------------------------------------------------------------------

TEST(FxReaderDiagnostics, TruncatedFileIsAnErrorAtTheCut)
{
    auto r = readFxFile(kFxDir + "broken_truncated.py");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::ParseError);
    EXPECT_EQ(r.error().context, kFxDir + "broken_truncated.py:5:9");
    EXPECT_NE(r.error().message.find("ends without a return statement (line 5 could not be read"), std::string::npos)
        << r.error().message;
}

TEST(FxReaderDiagnostics, BadAnnotationsAreWarnings)
{
    auto r = readOk("broken_annotation.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    const std::string f = kFxDir + "broken_annotation.py";
    EXPECT_EQ(diagnosticTexts(r),
        (std::vector<std::string> {
            f
                + ":3:61: warning: dtype 'u16' is not one the simulator models; its element size is unknown "
                  "(DType::Unknown)",
            f
                + ":4:13: warning: cannot read the annotation \"f32[4, 4\": the sizes' '[' is not closed; 'mm' gets "
                  "no tensor metadata",
            f
                + ":5:14: warning: cannot read the annotation \"f32[4, @][4, 1]cpu\": in the sizes: invalid size "
                  "expression '@': unexpected '@' at position 1; 'add' gets no tensor metadata",
        }));
    EXPECT_TRUE(node(r.graphs[0], "mm").outputs.empty());
    EXPECT_EQ(outputsText(node(r.graphs[0], "view")), "f32[16][1]cpu");
}

TEST(FxReaderDiagnostics, UnknownSyntaxLinesAreSkipped)
{
    auto r = readOk("broken_unknown_syntax.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    const std::string f = kFxDir + "broken_unknown_syntax.py";
    EXPECT_EQ(diagnosticTexts(r),
        (std::vector<std::string> {
            f + ":3:1: warning: line outside a class is not FX code; it is skipped",
            f + ":5:5: warning: line in the body of class 'GraphModule' is not a method; it is skipped",
            f
                + ":7:9: warning: not an FX statement (expected 'name = ...', 'return ...' or 'pass'); the line is "
                  "skipped",
            f + ":9:38: warning: cannot read this line: unexpected character '$'; the line is skipped",
        }));
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg0_1", "relu", "sigmoid", "output" }));
    // An op nobody knows is kept as an opaque call.
    EXPECT_EQ(node(g, "sigmoid").target, "mylib.fancy_sigmoid.default");
}

TEST(FxReaderDiagnostics, InconsistentGraphsAreErrorsNamingThePlace)
{
    const std::string head = "class M(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n";
    EXPECT_EQ(readError(head + "        y = torch.ops.aten.neg.default(z)\n        return (y,)\n"),
        "t.py:3:40: 'z' is not defined before it is used");
    EXPECT_EQ(readError(head + "        y = torch.ops.aten.neg.default(x)\n        y = x + 1\n        return (y,)\n"),
        "t.py:4:9: 'y' is defined twice");
    EXPECT_EQ(readError(head + "        y: \"f32[2]\" = torch.ops.aten.neg.default(x) @@\n        return (y,)\n"),
        "t.py:4:17: 'y' is not defined (its statement on line 3 could not be read)");
    EXPECT_EQ(readError("class M(torch.nn.Module):\n    def forward(self, x: \"f32[2]\" y):\n        return (x,)\n"),
        "t.py:2:35: cannot read the forward header: expected ',' or ')' in the parameter list");
    auto second = readText(head + "        return (x,)\n    def forward(self, x):\n        return (x,)\n");
    ASSERT_EQ(second.diagnostics.size(), 1u);
    EXPECT_EQ(second.diagnostics[0].toString(), "t.py:4:5: warning: class 'M' has a second forward; it is ignored");
}

TEST(FxReaderDiagnostics, HostileInputNeverCrashes)
{
    // Deep nesting, a very long line, binary garbage, an empty text.
    std::string deep = "class M(torch.nn.Module):\n    def forward(self, x):\n        y = torch.f("
        + std::string(5000, '(') + "x" + std::string(5000, ')') + ")\n        return (x,)\n";
    auto r = readText(deep);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("nested more than 200 levels deep"), std::string::npos);

    std::string chain = "class M(torch.nn.Module):\n    def forward(self, x):\n        y = x";
    for (int i = 0; i < 100000; ++i)
        chain += " + x";
    auto c = readText(chain + "\n        return (x,)\n");
    ASSERT_EQ(c.diagnostics.size(), 1u);

    std::string longLine = "class M(torch.nn.Module):\n    def forward(self, x):\n        y = ["
        + std::string(5 << 20, '1') + "]\n        return (x,)\n";
    auto l = readText(longLine);
    ASSERT_EQ(l.diagnostics.size(), 1u);
    EXPECT_NE(l.diagnostics[0].message.find("longer than 4 MiB"), std::string::npos);

    // 100 MB on one line: a warning, in linear time.
    std::string huge = "class M(torch.nn.Module):\n    def forward(self, x):\n        y = "
        + std::string(100 << 20, 'a') + "\n        return (x,)\n";
    auto h = readText(huge);
    ASSERT_EQ(h.diagnostics.size(), 1u);
    EXPECT_EQ(h.diagnostics[0].line, 3);
    huge[0] = '%'; // the same as a graph dump
    EXPECT_FALSE(readFxText(huge, "h.txt").ok());

    std::string garbage;
    for (int i = 0; i < 100000; ++i)
        garbage += char((i * 7919) % 256);
    EXPECT_FALSE(readFxText(garbage, "g.bin").ok());
    EXPECT_EQ(readError(""),
        "t.py:1:1: no FX graph found (expected 'class <Name>(torch.nn.Module):' followed by "
        "'def forward(self, ...):')");
    std::string manyWarnings;
    for (int i = 0; i < 5000; ++i)
        manyWarnings += "junk line\n";
    auto many = readText(manyWarnings + "class M(torch.nn.Module):\n    def forward(self):\n        pass\n", "w.py");
    ASSERT_EQ(many.diagnostics.size(), 1001u);
    EXPECT_EQ(many.diagnostics.back().message, "4000 further diagnostics were not recorded");
}

TEST(FxReaderDiagnostics, DiagnosticText)
{
    Diagnostic d;
    d.file = "a.py";
    d.line = 12;
    d.column = 5;
    d.message = "something";
    EXPECT_EQ(d.toString(), "a.py:12:5: warning: something");
    d.severity = Diagnostic::Severity::Error;
    EXPECT_EQ(d.toString(), "a.py:12:5: error: something");
}

TEST(FxReaderDiagnostics, FilesThatCannotBeRead)
{
    auto missing = readFxFile(kFxDir + "no_such_file.py");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::Io);
    EXPECT_NE(missing.error().toString().find("no_such_file.py"), std::string::npos);
    auto dir = readFxFile(kFxDir);
    ASSERT_FALSE(dir.ok());
    EXPECT_EQ(dir.error().code, ErrorCode::Io);
}

// ---- print(gm.graph) ---------------------------------------------------------------------------

TEST(FxReaderDump, PrintGraphDump)
{
    auto r = readOk("print_graph_dump.txt");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(g.id, "graph");
    EXPECT_EQ(g.nodes.size(), 14u);
    EXPECT_EQ(node(g, "L_self_modules_linear_parameters_bias_").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "w").op, NodeOp::GetAttr);
    EXPECT_EQ(node(g, "w").target, "linear.weight");
    EXPECT_EQ(node(g, "add").target, "aten.add.Tensor");
    EXPECT_EQ(argsText(node(g, "add")), "%x, 1");
    EXPECT_EQ(node(g, "linear").op, NodeOp::CallModule);
    EXPECT_EQ(node(g, "sin").op, NodeOp::CallMethod);
    EXPECT_EQ(node(g, "getitem").target, "operator.getitem");
    EXPECT_EQ(argsText(node(g, "full")), "[2, 3], 0.5, dtype='torch.float16', device='cuda:0', pin_memory=False");
    EXPECT_EQ(node(g, "my_fn").target, "my_helper");
    EXPECT_EQ(node(g, "mul").target, "operator.mul");
    EXPECT_EQ(argsText(node(g, "attn")), "%mul, %mul, %mul, input_layout='TND', scale=-inf, actual_seq_lengths=[1, 2]");
    EXPECT_EQ(argsText(node(g, "output")), "[%attn, %getitem_1]");
    for (const Node& n : g.nodes)
        EXPECT_TRUE(n.outputs.empty()) << n.name;
    EXPECT_EQ(g.metadataMissing,
        "print(gm.graph) prints no tensor metadata: gm.print_readable(), fx_graph_readable.py or the TORCH_TRACE of "
        "the same compile give it");
}

TEST(FxReaderDump, OlderReleasesPrintUsersWithAHash)
{
    // PyTorch < 2.1: `[#users=k]`.
    auto r = readText("graph():\n    %arg0_1 : [#users=1] = placeholder[target=arg0_1]\n"
                      "    %s0 : torch.SymInt [#users=0] = placeholder[target=s0]\n"
                      "    %neg : [#users=1] = call_function[target=torch.ops.aten.neg.default](args = (%arg0_1,), "
                      "kwargs = {})\n    return (neg,)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_TRUE(r.diagnostics.empty());
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg0_1", "s0", "neg", "output" }));
    EXPECT_EQ(node(g, "s0").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "arg0_1").inputKindFrom, "");
    EXPECT_FALSE(g.metadataMissing.empty());
}

TEST(FxReaderDump, GraphFragmentsWithMetadata)
{
    // PyTorch 2.11 prints the nodes of each Inductor kernel as a commented dump with annotations.
    const std::string text = "from torch import device\n"
                             "# Graph fragment:\n"
                             "#   %arg1_1 : Tensor \"f32[1, 16][16, 1]cuda:0\" = PlaceHolder[target=arg1_1]\n"
                             "#   %arg2_1 : Tensor \"f32[16][1]cuda:0\" = PlaceHolder[target=arg2_1]\n"
                             "#   %mul_1 : Tensor \"f32[1, 16][16, 1]cuda:0\"[num_users=3] = "
                             "call_function[target=torch.ops.aten.mul.Tensor](args = (%arg1_1, %arg2_1), kwargs = {})\n"
                             "#   %iota : Tensor \"i64[64][1]cuda:0\"[num_users=1] = "
                             "call_function[target=torch.ops.prims.iota.default](args = (64,), kwargs = {start: 0, "
                             "step: 1, dtype: torch.int64, device: cuda:0, requires_grad: False})\n"
                             "#   return %mul_1,%iota\n"
                             "triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n"
                             "# Graph fragment:\n"
                             "#   %x : Tensor \"bf16[8][1]cuda:0\" = PlaceHolder[target=x]\n"
                             "#   %neg : Tensor \"bf16[8][1]cuda:0\"[num_users=1] = "
                             "call_function[target=torch.ops.aten.neg.default](args = (%x,), kwargs = {})\n"
                             "#   return %neg\n"
                             "''')\n";
    auto r = readText(text, "output_code.py");
    ASSERT_EQ(r.graphs.size(), 2u);
    EXPECT_TRUE(r.diagnostics.empty()) << diagnosticTexts(r).front();
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "arg1_1", "arg2_1", "mul_1", "iota", "output" }));
    EXPECT_EQ(outputsText(node(g, "arg1_1")), "f32[1, 16][16, 1]cuda:0");
    EXPECT_EQ(outputsText(node(g, "mul_1")), "f32[1, 16][16, 1]cuda:0");
    EXPECT_EQ(node(g, "mul_1").target, "aten.mul.Tensor");
    EXPECT_EQ(
        argsText(node(g, "iota")), "64, start=0, step=1, dtype='torch.int64', device='cuda:0', requires_grad=False");
    EXPECT_EQ(argsText(node(g, "output")), "[%mul_1, %iota]");
    EXPECT_TRUE(g.metadataMissing.empty());
    EXPECT_EQ(g.id, "fragment_0");
    EXPECT_EQ(r.graphs[1].id, "fragment_1");
    EXPECT_EQ(names(r.graphs[1]), (std::vector<std::string> { "x", "neg", "output" }));
    EXPECT_EQ(argsText(node(r.graphs[1], "output")), "%neg");
    EXPECT_EQ(outputsText(node(r.graphs[1], "neg")), "bf16[8][1]cuda:0");
}

TEST(FxReaderDump, FragmentsThatAreNotWholeGraphsAreSkipped)
{
    // As Inductor prints them: a value used but not listed, a buffer listed twice, a returned buffer
    // no line defines, a block cut short. Each is one warning; the whole fragment after them is read.
    const std::string text = "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n"
                             "#   %b : Tensor \"f32[4][1]cuda:0\"[num_users=1] = "
                             "call_function[target=torch.ops.aten.add.Tensor](args = (%a, %arg6_1), kwargs = {})\n"
                             "#   return %b\n"
                             "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\"[num_users=1] = "
                             "call_function[target=torch.ops.aten.neg.default](args = (%a,), kwargs = {})\n"
                             "#   return %a\n"
                             "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n"
                             "#   return %buf4,%a\n"
                             "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n"
                             "x = 1\n"
                             "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n"
                             "#   %n : Tensor \"f32[4][1]cuda:0\"[num_users=1] = "
                             "call_function[target=torch.ops.aten.neg.default](args = (%a,), kwargs = {})\n"
                             "#   return %n\n"
                             "# Graph fragment:\n"
                             "#   %a : Tensor \"f32[4][1]cuda:0\" = PlaceHolder[target=a]\n";
    auto r = readText(text, "output_code.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_EQ(r.graphs[0].id, "fragment_4");
    EXPECT_EQ(names(r.graphs[0]), (std::vector<std::string> { "a", "n", "output" }));
    const auto d = diagnosticTexts(r);
    ASSERT_EQ(d.size(), 5u);
    EXPECT_EQ(d[0],
        "output_code.py:3:110: warning: graph fragment 0 is not a whole graph ('arg6_1' is not defined "
        "before it is used); the fragment is skipped");
    EXPECT_NE(d[1].find("graph fragment 1 is not a whole graph ('a' is defined twice)"), std::string::npos) << d[1];
    EXPECT_NE(d[2].find("graph fragment 2 is not a whole graph ('buf4' is not defined"), std::string::npos) << d[2];
    EXPECT_NE(d[3].find("graph fragment 3 is not a whole graph (graph 'fragment_3' ends without a return line)"),
        std::string::npos)
        << d[3];
    EXPECT_NE(d[4].find("graph fragment 5 is not a whole graph"), std::string::npos) << d[4];
    // Only broken fragments: no graph, an error.
    EXPECT_NE(readError("# Graph fragment:\n#   %a : Tensor \"f32[4]\" = PlaceHolder[target=a]\n", "o.py")
                  .find("no FX graph"),
        std::string::npos);
}

TEST(FxReaderDump, OutputNodeFormsAndHeaderInputs)
{
    auto r = readText("graph(x, n: torch.SymInt):\n"
                      "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %n), kwargs = {})\n"
                      "    %output : [num_users=0] = output[target=output](args = ((%add,),), kwargs = {})\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    const Graph& g = r.graphs[0];
    EXPECT_EQ(names(g), (std::vector<std::string> { "x", "n", "add", "output" }));
    EXPECT_EQ(node(g, "n").inputKind, InputKind::SymInt);
    EXPECT_EQ(argsText(node(g, "output")), "[%add]");

    EXPECT_EQ(readError("graph():\n    %a : [num_users=1] = call_function[target=aten.neg.default](args = (%b,), "
                        "kwargs = {})\n    return a\n",
                  "d.txt"),
        "d.txt:2:73: 'b' is not defined before it is used");
    auto t = readText(
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %cat : [num_users=1] = call_function[target=aten.cat.default](args = ([%x, %x, ...[total_len=9]],), "
        "kwargs = {})\n    return (cat,)\n");
    ASSERT_EQ(t.diagnostics.size(), 1u);
    EXPECT_EQ(t.diagnostics[0].line, 3);
    EXPECT_NE(t.diagnostics[0].message.find("shortened"), std::string::npos);
}

} // namespace
