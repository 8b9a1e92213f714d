// diffGraphs and compareText (engine/graph/graph_diff.h): nodes matched by name, what changed per
// node, target counts, and TorchAir's debug_compare_fx_graphs summary text.
#include "engine/graph/graph_diff.h"
#include "engine/readers/fx_reader.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace engine;

namespace {

Graph readGraph(const std::string& code)
{
    auto r = readers::readFxCode(code, "t.py");
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() && !r->graphs.empty() ? r->graphs.front() : Graph();
}

const NodeChange* changeOf(const GraphDiff& d, const std::string& node)
{
    for (const NodeChange& c : d.changed)
        if (c.node == node)
            return &c;
    return nullptr;
}

const char* kBefore = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 8][8, 1]npu:0", arg1_1: "f32[4, 8][8, 1]npu:0", arg2_1: "f32[4, 8][8, 1]npu:0"):
        view: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.view.default(arg0_1, [4, 8]);  arg0_1 = None
        mul: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.mul.Tensor(view, 2);  view = None
        add: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.add.Tensor(mul, arg1_1);  arg1_1 = None
        sum_1: "f32[4][1]npu:0" = torch.ops.aten.sum.dim_IntList(add, [1]);  add = None
        return (sum_1, mul)
)FX";

// What a noop-removal plus reinplace plus an argument edit would make of it: `view` gone, `add`
// in place and reading arg2_1, `sum_1` with keepdim and a new shape, a new `neg`.
const char* kAfter = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 8][8, 1]npu:0", arg1_1: "f32[4, 8][8, 1]npu:0", arg2_1: "f32[4, 8][8, 1]npu:0"):
        mul: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.mul.Tensor(arg0_1, 2);  arg0_1 = None
        add: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.add_.Tensor(mul, arg2_1);  arg2_1 = None
        sum_1: "f32[4, 1][1, 1]npu:0" = torch.ops.aten.sum.dim_IntList(add, [1], keepdim = True);  add = None
        neg: "f32[4, 1][1, 1]npu:0" = torch.ops.aten.neg.default(sum_1)
        return (sum_1, mul, neg)
)FX";

TEST(GraphDiff, RemovedAddedChanged)
{
    const Graph a = readGraph(kBefore), b = readGraph(kAfter);
    const GraphDiff d = diffGraphs(a, b);
    EXPECT_EQ(d.nodesBefore, 8);
    EXPECT_EQ(d.nodesAfter, 8);
    EXPECT_EQ(d.removed, (std::vector<std::string> { "view" }));
    EXPECT_EQ(d.added, (std::vector<std::string> { "neg" }));
    std::vector<std::string> changed;
    for (const NodeChange& c : d.changed)
        changed.push_back(c.node);
    // In the second graph's order; the placeholders and arg2_1's users are otherwise the same.
    EXPECT_EQ(changed, (std::vector<std::string> { "mul", "add", "sum_1", "output" }));
    EXPECT_FALSE(d.identical());

    ASSERT_NE(changeOf(d, "mul"), nullptr);
    EXPECT_EQ(changeOf(d, "mul")->text(), "mul: args (view, 2) -> (arg0_1, 2)");
    ASSERT_NE(changeOf(d, "add"), nullptr);
    EXPECT_EQ(changeOf(d, "add")->text(),
        "add: target aten.add.Tensor -> aten.add_.Tensor; args (mul, arg1_1) -> (mul, arg2_1)");
    ASSERT_EQ(changeOf(d, "add")->changes.size(), 2u);
    EXPECT_EQ(changeOf(d, "add")->changes[0].field, "target");
    EXPECT_EQ(changeOf(d, "add")->changes[0].before, "aten.add.Tensor");
    EXPECT_EQ(changeOf(d, "add")->changes[0].after, "aten.add_.Tensor");
    ASSERT_NE(changeOf(d, "sum_1"), nullptr);
    EXPECT_EQ(changeOf(d, "sum_1")->text(),
        "sum_1: kwargs {} -> {'keepdim': True}; meta f32[4][1]npu:0 -> f32[4, 1][1, 1]npu:0");
    ASSERT_NE(changeOf(d, "output"), nullptr);
    EXPECT_EQ(changeOf(d, "output")->text(), "output: args ([sum_1, mul],) -> ([sum_1, mul, neg],)");
}

TEST(GraphDiff, TargetStatisticsOnlyChangedCounts)
{
    const GraphDiff d = diffGraphs(readGraph(kBefore), readGraph(kAfter));
    std::vector<std::string> rows;
    for (const OpCount& c : d.targetChanges)
        rows.push_back(c.name + " " + std::to_string(c.before) + " -> " + std::to_string(c.after));
    EXPECT_EQ(rows,
        (std::vector<std::string> { "aten.add.Tensor 1 -> 0", "aten.add_.Tensor 0 -> 1", "aten.neg.default 0 -> 1",
            "aten.view.default 1 -> 0" }));
    // The full tables keep every row, the unchanged ones too.
    ASSERT_EQ(d.operations.size(), 3u);
    EXPECT_EQ(d.operations[0].name, "call_function");
    EXPECT_EQ(d.operations[0].before, 4);
    EXPECT_EQ(d.operations[0].after, 4);
}

TEST(GraphDiff, InputKindAndOpChanges)
{
    Graph a = readGraph(kBefore);
    Graph b = a;
    b.nodes[1].inputKind = InputKind::Parameter;
    b.nodes[4].op = NodeOp::CallMethod;
    const GraphDiff d = diffGraphs(a, b);
    ASSERT_EQ(d.changed.size(), 2u);
    EXPECT_EQ(d.changed[0].text(), "arg1_1: input kind user_input -> parameter");
    EXPECT_EQ(d.changed[1].text(), "mul: op call_function -> call_method");
    EXPECT_TRUE(diffGraphs(a, a).identical());
}

TEST(GraphDiff, TorchOpsPrefixAndMissingStridesAreNotChanges)
{
    // print_readable() without strides or devices prints "f32[4, 8]"; that is not a change of layout
    // or device, and
    // "torch.ops.aten.mm" names the same op as "aten.mm.default".
    Graph a = readGraph(R"FX(class M(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        mm: "f32[4, 4]" = torch.ops.aten.mm.default(x, x)
        return (mm,)
)FX");
    Graph b = readGraph(R"FX(class M(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]npu:0"):
        mm: "f32[4, 4][4, 1]npu:0" = torch.ops.aten.mm.default(x, x)
        return (mm,)
)FX");
    b.nodes[1].target = "torch.ops.aten.mm";
    EXPECT_TRUE(diffGraphs(a, b).identical());
    b.nodes[1].outputs[0].dtype = DType::F16;
    const GraphDiff d = diffGraphs(a, b);
    ASSERT_EQ(d.changed.size(), 1u);
    EXPECT_EQ(d.changed[0].text(), "mm: meta f32[4, 4] -> f16[4, 4]");
}

TEST(GraphDiff, SymIntMetaAndStringArgs)
{
    Graph a = readGraph(R"FX(class M(torch.nn.Module):
    def forward(self, x: "f32[s0, 8][8, 1]npu:0", s0: "Sym(s0)"):
        attn = torch.ops.npu.npu_fused_infer_attention_score.default(x, x, x, input_layout = 'TND', scale = 0.125)
        getitem: "f32[s0, 8][8, 1]npu:0" = attn[0];  attn = None
        return (getitem,)
)FX");
    Graph b = a;
    b.nodes[1].symbol = SymExpr::parse("s1").value();
    b.nodes[2].kwargs[0].second.s = "BSH";
    b.nodes[2].kwargs[1].second.f = 0.5;
    const GraphDiff d = diffGraphs(a, b);
    ASSERT_EQ(d.changed.size(), 2u);
    EXPECT_EQ(d.changed[0].text(), "s0: meta Sym(s0) -> Sym(s1)");
    EXPECT_EQ(d.changed[1].text(),
        "attn: kwargs {'input_layout': 'TND', 'scale': 0.125} -> {'input_layout': 'BSH', 'scale': 0.5}");
}

TEST(GraphDiff, CompareTextIsTorchAirsSummary)
{
    const GraphDiff d = diffGraphs(readGraph(kBefore), readGraph(kAfter));
    EXPECT_EQ(compareText("optimize_noop_ops", d),
        "After fx graph pass(optimize_noop_ops) optimization:\n"
        "    before 8 nodes, after 8 nodes,\n"
        "    removed nodes: ['view'],\n"
        "    added nodes: ['neg'],\n"
        "    operations statistics:\n"
        "     name           cnt(before)  cnt(after)  diff\n"
        "    -------------  -----------  ----------  ----\n"
        "    total                    8           8     0\n"
        "    call_function            4           4     0\n"
        "    output                   1           1     0\n"
        "    placeholder              3           3     0\n"
        "\n"
        "    targets statistics:\n"
        "     name                            cnt(before)  cnt(after)  diff\n"
        "    ------------------------------  -----------  ----------  ----\n"
        "    total                                     8           8     0\n"
        "    arg0_1                                    1           1     0\n"
        "    arg1_1                                    1           1     0\n"
        "    arg2_1                                    1           1     0\n"
        "    output                                    1           1     0\n"
        "    torch.ops.aten.add.Tensor                 1           0    -1\n"
        "    torch.ops.aten.add_.Tensor                0           1     1\n"
        "    torch.ops.aten.mul.Tensor                 1           1     0\n"
        "    torch.ops.aten.neg.default                0           1     1\n"
        "    torch.ops.aten.sum.dim_IntList            1           1     0\n"
        "    torch.ops.aten.view.default               1           0    -1");
}

TEST(GraphDiff, EmptyListsPrintAsPythonDoes)
{
    const Graph a = readGraph(kBefore);
    const std::string text = compareText("eliminate_dead_code", diffGraphs(a, a));
    EXPECT_NE(text.find("    before 8 nodes, after 8 nodes,\n    removed nodes: [],\n    added nodes: [],\n"),
        std::string::npos)
        << text;
}

} // namespace
