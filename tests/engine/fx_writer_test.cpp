#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "fx_test_util.h"

#include <string>

using namespace engine;
using namespace engine::readers;
using namespace fxtest;

namespace {

// ---- writer ------------------------------------------------------------------------------------

TEST(FxWriter, WritesPyTorchLayout)
{
    auto r = readOk("print_readable_simple.py");
    ASSERT_EQ(r.graphs.size(), 1u);
    // The file printed no device, so none is written back (an unknown device is never made up).
    EXPECT_EQ(writeFxCode(r.graphs[0]),
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, arg0_1: \"f32[4, 4][4, 1]\", arg1_1: \"f32[4][1]\"):\n"
        "\n"
        "        # File: /home/user/model.py:12 in forward, code: y = x @ x\n"
        "        mm: \"f32[4, 4][4, 1]\" = torch.ops.aten.mm.default(arg0_1, arg0_1);  arg0_1 = None\n"
        "\n"
        "        # File: /home/user/model.py:13 in forward, code: return y + b\n"
        "        add: \"f32[4, 4][4, 1]\" = torch.ops.aten.add.Tensor(mm, arg1_1);  mm = arg1_1 = None\n"
        "        return (add,)\n");
}

TEST(FxWriter, RoundTripsEveryFixture)
{
    for (const char* file : { "print_readable_simple.py", "aot_forward_expanded.txt", "dynamo_graph_module.py",
             "traced_modules.py", "joint_pytree.py", "boxed_args.py", "nested_submodules.py",
             "torchair_000_aot_forward_graph.txt", "broken_unknown_syntax.py" }) {
        SCOPED_TRACE(file);
        auto r = readOk(file);
        for (const Graph& g : r.graphs) {
            SCOPED_TRACE(g.id);
            Graph back = roundTrip(g);
            // The fixtures' "= None" tails follow PyTorch's rule, which the writer recomputes.
            expectEquivalent(g, back, true);
        }
    }
    auto dump = readOk("print_graph_dump.txt");
    expectEquivalent(dump.graphs.at(0), roundTrip(dump.graphs.at(0)), false);
}

TEST(FxWriter, RoundTripsGeneratedDecoder)
{
    scenario::DecoderSpec spec;
    spec.layers = 2;
    auto s = scenario::parseScenario(scenario::decoderScenarioJson(spec, "{}", { 1, 4 }, 2), "decoder.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_EQ(s->graphs.size(), 2u);
    for (const Graph& g : s->graphs) {
        SCOPED_TRACE(g.id);
        std::string text = writeFxCode(g, "DecoderModule");
        // Parameters need the expanded header; rms_norm's second result has no getitem user.
        EXPECT_NE(text.find("# ParamAOTInput(target='model.embed_tokens.weight')"), std::string::npos);
        EXPECT_NE(text.find("l0_rms_norm: \"(bf16["), std::string::npos);
        EXPECT_NE(text.find("torch.ops.npu.npu_fused_infer_attention_score.default(l0_q, l0_k_cache, l0_v_cache, "
                            "actual_seq_lengths = ["),
            std::string::npos);
        Graph back = roundTrip(g, "DecoderModule");
        expectEquivalent(g, back, false);
        EXPECT_EQ(back.id, "DecoderModule");
        EXPECT_EQ(back.dynamic, g.dynamic);
        EXPECT_EQ(back.mutatedInputs(), g.mutatedInputs());
    }
}

TEST(FxWriter, OperatorMethodAndModuleForms)
{
    Graph g;
    auto ph = [&](const std::string& name, InputKind kind = InputKind::UserInput) {
        Node n;
        n.name = name;
        n.op = NodeOp::Placeholder;
        n.inputKind = kind;
        TensorMeta t;
        t.shape = { SymExpr::constant(4) };
        if (kind == InputKind::SymInt)
            n.symbol = SymExpr::parse("s0").value();
        else
            n.outputs.push_back(t);
        g.nodes.push_back(n);
    };
    auto call = [&](const std::string& name, NodeOp op, const std::string& target, std::vector<Arg> args) {
        Node n;
        n.name = name;
        n.op = op;
        n.target = target;
        n.args = std::move(args);
        g.nodes.push_back(n);
        return &g.nodes.back();
    };
    Arg str;
    str.kind = Arg::Kind::Str;
    ph("x");
    ph("n", InputKind::SymInt);
    call("neg", NodeOp::CallFunction, "operator.neg", { Arg::ref("n") });
    call("add", NodeOp::CallFunction, "operator.add", { Arg::ref("x"), Arg::integer(-1) });
    call("getitem", NodeOp::CallFunction, "operator.getitem", { Arg::ref("add"), Arg::integer(0) });
    call("view", NodeOp::CallMethod, "view", { Arg::ref("add"), Arg::ref("neg") });
    call("w", NodeOp::GetAttr, "layers.0.weight", {});
    call("lin", NodeOp::CallModule, "layers.0", { Arg::ref("view") });
    str.s = "torch.float32";
    Node* to = call("to", NodeOp::CallFunction, "aten._to_copy.default", { Arg::ref("lin") });
    to->kwargs.emplace_back("dtype", str);
    str.s = "a + b";
    to->kwargs.emplace_back("note", str);
    call("iadd", NodeOp::CallFunction, "operator.iadd", { Arg::ref("to"), Arg::ref("w") });
    call("shape", NodeOp::CallFunction, "getattr", { Arg::ref("iadd"), [] {
                                                        Arg a;
                                                        a.kind = Arg::Kind::Str;
                                                        a.s = "shape";
                                                        return a;
                                                    }() });
    call("cond", NodeOp::CallFunction, "higher_order.cond", { Arg::ref("x") });
    Node out;
    out.name = "output";
    out.op = NodeOp::Output;
    out.args.push_back(Arg::ref("iadd"));
    g.nodes.push_back(out);
    ASSERT_TRUE(g.finalize().ok());

    const std::string text = writeFxCode(g, "M");
    for (const char* line : {
             "    def forward(self, x: \"f32[4][1]npu:0\", n: \"Sym(s0)\"):\n",
             "        neg = -n;  n = None\n",
             "        add = x + -1\n",
             "        getitem = add[0];  getitem = None\n",
             "        view = add.view(neg);  add = neg = None\n",
             "        w = getattr(self.layers, \"0\").weight\n",
             "        lin = getattr(self.layers, \"0\")(view);  view = None\n",
             "        to = torch.ops.aten._to_copy.default(lin, dtype = torch.float32, note = 'a + b');  lin = None\n",
             "        to += w;  iadd = to;  to = w = None\n",
             "        shape = iadd.shape;  shape = None\n",
             "        cond = torch.ops.higher_order.cond(x);  x = cond = None\n",
             "        return iadd\n",
         })
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    expectEquivalent(g, roundTrip(g, "M"), false);
}

TEST(FxWriter, TargetsTheReaderWouldMistakeGetTorchOps)
{
    // Found by the fuzzer: `torch.ops.n.op.default(...)` where `n` is also a node.
    auto r = readText("class M(torch.nn.Module):\n"
                      "    def forward(self, n: \"Sym(s0)\", x: \"f32[4]\"):\n"
                      "        a = torch.ops.n.op.default(x)\n"
                      "        b = torch.ops.self.op(a)\n"
                      "        c = torch.ops.next(b)\n"
                      "        d = torch.ops.torch.ops.f(c)\n"
                      "        return (d, n)\n");
    ASSERT_EQ(r.graphs.size(), 1u);
    const Graph& g = r.graphs[0];
    EXPECT_EQ(node(g, "a").target, "n.op.default");
    EXPECT_EQ(node(g, "b").target, "self.op");
    EXPECT_EQ(node(g, "c").target, "next");
    EXPECT_EQ(node(g, "d").target, "torch.ops.f");
    const std::string text = writeFxCode(g);
    EXPECT_NE(text.find("a = torch.ops.n.op.default(x)"), std::string::npos) << text;
    EXPECT_NE(text.find("d = torch.ops.torch.ops.f(c)"), std::string::npos) << text;
    expectEquivalent(g, roundTrip(g), false);
}

TEST(FxWriter, StringsThatReadBackAsThemselvesAreUnquoted)
{
    EXPECT_TRUE(detail::isOpaqueConstantText("torch.float32"));
    EXPECT_TRUE(detail::isOpaqueConstantText("device(type='cuda', index=0)"));
    EXPECT_TRUE(detail::isOpaqueConstantText("slice(None, 2, None)"));
    EXPECT_FALSE(detail::isOpaqueConstantText("TND"));
    EXPECT_FALSE(detail::isOpaqueConstantText("1"));
    EXPECT_FALSE(detail::isOpaqueConstantText("a + b"));
    EXPECT_FALSE(detail::isOpaqueConstantText("torch.float32 "));
    EXPECT_FALSE(detail::isOpaqueConstantText("f(x) # c"));
    EXPECT_FALSE(detail::isOpaqueConstantText("inf"));
}

} // namespace
