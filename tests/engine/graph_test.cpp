#include "engine/graph/graph.h"
#include "engine/graph/op_info.h"

#include <gtest/gtest.h>

using namespace engine;

namespace {

SymExpr sym(const std::string& text)
{
    return SymExpr::parse(text).value();
}

TensorMeta tensor(
    std::vector<SymExpr> shape, DType dtype = DType::F32, std::vector<SymExpr> stride = {}, int64_t offset = 0)
{
    TensorMeta t;
    t.shape = std::move(shape);
    t.stride = std::move(stride);
    t.dtype = dtype;
    t.storageOffset = offset;
    return t;
}

Node placeholder(const std::string& name, InputKind kind = InputKind::UserInput)
{
    Node n;
    n.name = name;
    n.op = NodeOp::Placeholder;
    n.inputKind = kind;
    n.outputs.push_back(tensor({ SymExpr::constant(4) }));
    return n;
}

Node call(const std::string& name, const std::string& target, std::vector<Arg> args, NodeOp op = NodeOp::CallFunction)
{
    Node n;
    n.name = name;
    n.op = op;
    n.target = target;
    n.args = std::move(args);
    return n;
}

Node output(std::vector<Arg> items)
{
    Node n;
    n.name = "output";
    n.op = NodeOp::Output;
    n.args.push_back(Arg::list(std::move(items)));
    return n;
}

std::string finalizeError(Graph g)
{
    auto r = g.finalize();
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
}

} // namespace

TEST(DType, SizesAndNames)
{
    EXPECT_EQ(dtypeSize(DType::F32), 4u);
    EXPECT_EQ(dtypeSize(DType::BF16), 2u);
    EXPECT_EQ(dtypeSize(DType::I64), 8u);
    EXPECT_EQ(dtypeSize(DType::Bool), 1u);
    EXPECT_EQ(dtypeSize(DType::C64), 8u);
    EXPECT_EQ(dtypeSize(DType::C128), 16u);
    EXPECT_EQ(dtypeSize(DType::F8E5M2), 1u);
    EXPECT_EQ(dtypeSize(DType::Unknown), 0u);

    const DType all[] = { DType::F32, DType::F16, DType::BF16, DType::F64, DType::I64, DType::I32, DType::I16,
        DType::I8, DType::U8, DType::Bool, DType::C64, DType::C128, DType::F8E4M3, DType::F8E5M2 };
    for (DType t : all)
        EXPECT_EQ(parseDType(dtypeShortName(t)), t) << dtypeShortName(t);
    EXPECT_EQ(dtypeShortName(DType::Bool), "b8");
    EXPECT_EQ(dtypeShortName(DType::F8E4M3), "f8e4m3fn");
}

TEST(DType, Spellings)
{
    EXPECT_EQ(parseDType("torch.float32"), DType::F32);
    EXPECT_EQ(parseDType("float"), DType::F32);
    EXPECT_EQ(parseDType("fp32"), DType::F32);
    EXPECT_EQ(parseDType("torch.half"), DType::F16);
    EXPECT_EQ(parseDType("BF16"), DType::BF16);
    EXPECT_EQ(parseDType("torch.bfloat16"), DType::BF16);
    EXPECT_EQ(parseDType("double"), DType::F64);
    EXPECT_EQ(parseDType("long"), DType::I64);
    EXPECT_EQ(parseDType("int"), DType::I32);
    EXPECT_EQ(parseDType("torch.int16"), DType::I16);
    EXPECT_EQ(parseDType("int8"), DType::I8);
    EXPECT_EQ(parseDType("torch.uint8"), DType::U8);
    EXPECT_EQ(parseDType("torch.bool"), DType::Bool);
    EXPECT_EQ(parseDType("complex64"), DType::C64);
    EXPECT_EQ(parseDType("torch.cdouble"), DType::C128);
    EXPECT_EQ(parseDType("torch.float8_e4m3fn"), DType::F8E4M3);
    EXPECT_EQ(parseDType("float8_e5m2"), DType::F8E5M2);
    EXPECT_EQ(parseDType(" f16 "), DType::F16);
    EXPECT_EQ(parseDType("f8e4m3fnuz"), DType::Unknown);
    EXPECT_EQ(parseDType("u16"), DType::Unknown);
    EXPECT_EQ(parseDType(""), DType::Unknown);
    EXPECT_EQ(parseDType("torch."), DType::Unknown);
}

TEST(InputKind, Names)
{
    EXPECT_STREQ(inputKindName(InputKind::Parameter), "parameter");
    EXPECT_STREQ(inputKindName(InputKind::Buffer), "buffer");
    EXPECT_STREQ(inputKindName(InputKind::StaticAddress), "static_address");
    EXPECT_STREQ(inputKindName(InputKind::UserInput), "user_input");
    EXPECT_STREQ(inputKindName(InputKind::SymInt), "symint");
}

TEST(TensorMeta, StorageBytesContiguous)
{
    EXPECT_EQ(tensor({ SymExpr::constant(4), SymExpr::constant(8) }).storageBytes({}).value(), 128u);
    EXPECT_EQ(tensor({}, DType::I64).storageBytes({}).value(), 8u); // a 0-d tensor holds one element
    EXPECT_EQ(tensor({ SymExpr::constant(3), SymExpr::constant(0) }).storageBytes({}).value(), 0u);
    TensorMeta dyn = tensor({ sym("s0"), sym("s0*2") }, DType::BF16);
    EXPECT_TRUE(dyn.isSymbolic());
    EXPECT_EQ(dyn.storageBytes({ { "s0", 3 } }).value(), 36u);
    EXPECT_EQ(dyn.concreteShape({ { "s0", 3 } }).value(), (std::vector<int64_t> { 3, 6 }));
    EXPECT_FALSE(tensor({ SymExpr::constant(2) }).isSymbolic());
    EXPECT_FALSE(dyn.storageBytes({}).ok());
}

TEST(TensorMeta, StorageBytesWithStridesAndOffset)
{
    auto c = [](int64_t v) { return SymExpr::constant(v); };
    // A transposed view of a 4x8 tensor: last element at 7*1 + 3*8.
    EXPECT_EQ(tensor({ c(8), c(4) }, DType::F32, { c(1), c(8) }).storageBytes({}).value(), 4u * 32);
    // Slice [:, 2:4] of a 4x8 tensor: offset 2, last element 2 + 3*8 + 1.
    EXPECT_EQ(tensor({ c(4), c(2) }, DType::F16, { c(8), c(1) }, 2).storageBytes({}).value(), 2u * 28);
    // Expanded (stride 0) dimensions cost nothing.
    EXPECT_EQ(tensor({ c(1024), c(16) }, DType::F32, { c(0), c(1) }).storageBytes({}).value(), 64u);
    // Symbolic strides.
    EXPECT_EQ(tensor({ sym("s0"), c(4) }, DType::I8, { c(4), c(1) }, 1).storageBytes({ { "s0", 5 } }).value(), 21u);
    // Zero size wins over the offset.
    EXPECT_EQ(tensor({ c(0) }, DType::F32, { c(1) }, 100).storageBytes({}).value(), 0u);
}

TEST(TensorMeta, StorageBytesErrors)
{
    auto c = [](int64_t v) { return SymExpr::constant(v); };
    EXPECT_FALSE(tensor({ c(4), c(2) }, DType::F32, { c(1) }).storageBytes({}).ok());
    EXPECT_FALSE(tensor({ sym("s0 - 10") }).storageBytes({ { "s0", 2 } }).ok());
    EXPECT_FALSE(tensor({ c(4) }, DType::Unknown).storageBytes({}).ok());
    EXPECT_FALSE(tensor({ c(4) }, DType::F32, {}, -1).storageBytes({}).ok());
    EXPECT_FALSE(tensor({ c(4) }, DType::F32, { sym("-1") }).storageBytes({}).ok());
    auto big = tensor({ c(INT64_MAX), c(INT64_MAX), c(INT64_MAX), c(INT64_MAX), c(INT64_MAX) });
    auto r = big.storageBytes({});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("64 bits"), std::string::npos);
    EXPECT_FALSE(tensor({ c(1ll << 62) }, DType::F32).storageBytes({}).ok());
    EXPECT_EQ(tensor({ c(1ll << 62) }, DType::U8).storageBytes({}).value(), 1ull << 62);
}

TEST(Arg, Helpers)
{
    Arg r = Arg::ref("mm");
    EXPECT_EQ(r.kind, Arg::Kind::NodeRef);
    EXPECT_EQ(r.s, "mm");
    EXPECT_EQ(r.node, -1);
    EXPECT_EQ(Arg::integer(-3).i, -3);
    EXPECT_EQ(Arg::integer(-3).kind, Arg::Kind::Int);
    Arg l = Arg::list({ Arg::integer(1), Arg::ref("x") });
    EXPECT_EQ(l.kind, Arg::Kind::List);
    ASSERT_EQ(l.items.size(), 2u);
    EXPECT_EQ(Arg().kind, Arg::Kind::None);
}

TEST(Graph, FinalizeResolvesReferencesAndUsers)
{
    Graph g;
    g.id = "g";
    g.nodes.push_back(placeholder("x"));
    g.nodes.push_back(placeholder("w", InputKind::Parameter));
    g.nodes.push_back(call("mm", "aten.mm.default", { Arg::ref("x"), Arg::ref("w") }));
    g.nodes.push_back(
        call("cat", "aten.cat.default", { Arg::list({ Arg::ref("mm"), Arg::ref("x"), Arg::ref("mm") }) }));
    Node add = call("add", "aten.add.Tensor", { Arg::ref("cat") });
    add.kwargs.emplace_back("other", Arg::list({ Arg::list({ Arg::ref("x") }) }));
    g.nodes.push_back(add);
    g.nodes.push_back(output({ Arg::ref("add"), Arg(), Arg::ref("mm") }));
    ASSERT_TRUE(g.finalize().ok());

    EXPECT_EQ(g.nodes[3].args[0].items[0].node, 2);
    EXPECT_EQ(g.nodes[3].args[0].items[1].node, 0);
    EXPECT_EQ(g.nodes[4].kwargs[0].second.items[0].items[0].node, 0);
    EXPECT_EQ(g.nodes[0].users, (std::vector<int> { 2, 3, 4 }));
    EXPECT_EQ(g.nodes[2].users, (std::vector<int> { 3, 5 }));
    EXPECT_EQ(g.nodes[4].users, (std::vector<int> { 5 }));
    EXPECT_TRUE(g.nodes[5].users.empty());
    EXPECT_EQ(g.find("cat"), 3);
    EXPECT_EQ(g.find("nope"), -1);
    EXPECT_EQ(g.placeholders(), (std::vector<int> { 0, 1 }));
    EXPECT_EQ(g.outputNode(), 5);

    // finalize is repeatable: users are recomputed, not appended.
    ASSERT_TRUE(g.finalize().ok());
    EXPECT_EQ(g.nodes[0].users, (std::vector<int> { 2, 3, 4 }));
}

TEST(Graph, FindWorksBeforeFinalizeAndAfterEdits)
{
    Graph g;
    g.nodes.push_back(placeholder("x"));
    EXPECT_EQ(g.find("x"), 0);
    g.nodes.push_back(output({ Arg::ref("x") }));
    ASSERT_TRUE(g.finalize().ok());
    g.nodes.insert(g.nodes.begin(), placeholder("y"));
    EXPECT_EQ(g.find("x"), 1);
    EXPECT_EQ(g.find("y"), 0);
}

TEST(Graph, FinalizeErrors)
{
    Graph g;
    g.id = "decode";
    g.nodes.push_back(placeholder("x"));
    g.nodes.push_back(call("a", "aten.relu.default", { Arg::ref("x") }));
    g.nodes.push_back(output({ Arg::ref("a") }));
    ASSERT_TRUE(Graph(g).finalize().ok());

    Graph dup = g;
    dup.nodes[1].name = "x";
    EXPECT_EQ(finalizeError(dup), "node name 'x' is used twice (nodes 0 and 1)");
    auto r = dup.finalize();
    EXPECT_EQ(r.error().context, "graph 'decode'");
    EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);

    Graph unnamed = g;
    unnamed.nodes[1].name.clear();
    EXPECT_EQ(finalizeError(unnamed), "node 1 has no name");

    Graph late = g;
    late.nodes.insert(late.nodes.begin() + 2, placeholder("y"));
    EXPECT_EQ(finalizeError(late), "placeholder 'y' comes after non-placeholder nodes");

    Graph noOutput = g;
    noOutput.nodes.pop_back();
    EXPECT_EQ(finalizeError(noOutput), "graph has no output node");

    Graph twoOutputs = g;
    twoOutputs.nodes.push_back(output({}));
    twoOutputs.nodes.back().name = "output_1";
    EXPECT_EQ(finalizeError(twoOutputs), "graph has two output nodes ('output' and 'output_1')");

    Graph notLast = g;
    notLast.nodes.push_back(call("b", "aten.relu.default", { Arg::ref("a") }));
    EXPECT_EQ(finalizeError(notLast), "output node 'output' is not the last node");

    Graph unknown = g;
    unknown.nodes[1].args[0] = Arg::list({ Arg::ref("zzz") });
    EXPECT_EQ(finalizeError(unknown), "node 'a' uses 'zzz', which is not a node of the graph");

    Graph forward = g;
    forward.nodes[1].args[0] = Arg::ref("output");
    EXPECT_EQ(
        finalizeError(forward), "node 'a' uses 'output', which is defined after it; nodes may only use earlier nodes");

    Graph self = g;
    self.nodes[1].kwargs.emplace_back("out", Arg::ref("a"));
    EXPECT_EQ(finalizeError(self),
        "node 'a' uses 'a', which is defined by the node itself; nodes may only use earlier nodes");
}

TEST(Graph, MutatedInputs)
{
    Graph g;
    g.nodes.push_back(placeholder("cache", InputKind::UserInput));
    g.nodes.push_back(placeholder("w", InputKind::Parameter));
    g.nodes.push_back(placeholder("x"));
    g.nodes.push_back(placeholder("idx"));
    g.nodes.push_back(placeholder("y"));
    // A write through a view does not count (TorchAir checks args[0] itself).
    g.nodes.push_back(call("v", "aten.view.default", { Arg::ref("y"), Arg::list({ Arg::integer(4) }) }));
    g.nodes.push_back(call("c1", "aten.copy_.default", { Arg::ref("v"), Arg::ref("x") }));
    g.nodes.push_back(call("ip", "aten.index_put_.default", { Arg::ref("cache"), Arg::ref("idx"), Arg::ref("x") }));
    g.nodes.push_back(call("ip2", "torch.ops.aten.index_put_.default", { Arg::ref("cache"), Arg::ref("idx") }));
    g.nodes.push_back(call("add", "add_", { Arg::ref("w"), Arg::integer(1) }, NodeOp::CallMethod));
    // args[0] matters, not the others; non-in-place ops do not count.
    g.nodes.push_back(call("cp", "aten.copy_.default", { Arg::ref("v"), Arg::ref("idx") }));
    g.nodes.push_back(call("tc", "aten._to_copy.default", { Arg::ref("x") }));
    g.nodes.push_back(call("cl", "aten.clone.default", { Arg::ref("x") }));
    g.nodes.push_back(output({ Arg::ref("ip") }));
    // Works on names before finalize, and on indices after.
    EXPECT_EQ(g.mutatedInputs(), (std::vector<std::string> { "cache", "w" }));
    ASSERT_TRUE(g.finalize().ok());
    EXPECT_EQ(g.mutatedInputs(), (std::vector<std::string> { "cache", "w" }));
}

TEST(OpInfo, ClassifyTable)
{
    using E = OpInfo::Effect;
    struct Row {
        const char* target;
        E effect;
        const char* packet;
        const char* ns;
    };
    const Row rows[] = {
        { "aten.mm.default", E::Allocates, "mm", "aten" },
        { "torch.ops.aten.view.default", E::View, "view", "aten" },
        { "aten._unsafe_view.default", E::View, "_unsafe_view", "aten" },
        { "aten.reshape.default", E::View, "reshape", "aten" },
        { "aten.t.default", E::View, "t", "aten" },
        { "aten.transpose.int", E::View, "transpose", "aten" },
        { "aten.permute.default", E::View, "permute", "aten" },
        { "aten.slice.Tensor", E::View, "slice", "aten" },
        { "aten.select.int", E::View, "select", "aten" },
        { "aten.expand.default", E::View, "expand", "aten" },
        { "aten.split.Tensor", E::View, "split", "aten" },
        { "aten.split_with_sizes.default", E::View, "split_with_sizes", "aten" },
        { "aten.unbind.int", E::View, "unbind", "aten" },
        { "aten.chunk.default", E::View, "chunk", "aten" },
        { "aten.detach.default", E::View, "detach", "aten" },
        { "aten.as_strided.default", E::View, "as_strided", "aten" },
        { "aten.alias.default", E::View, "alias", "aten" },
        { "aten.squeeze.dim", E::View, "squeeze", "aten" },
        { "aten.unsqueeze.default", E::View, "unsqueeze", "aten" },
        { "aten.view_as_real.default", E::View, "view_as_real", "aten" },
        { "aten.unsafe_split.Tensor", E::View, "unsafe_split", "aten" },
        { "view", E::View, "view", "" },
        { "transpose", E::View, "transpose", "" },
        { "aten.copy_.default", E::InPlace, "copy_", "aten" },
        { "aten.index_put_.default", E::InPlace, "index_put_", "aten" },
        { "aten._foreach_add_.Scalar", E::InPlace, "_foreach_add_", "aten" },
        { "npu.npu_scatter_nd_update_.default", E::InPlace, "npu_scatter_nd_update_", "npu" },
        { "add_", E::InPlace, "add_", "" },
        { "__iadd__", E::InPlace, "__iadd__", "" },
        { "__add__", E::Allocates, "__add__", "" },
        { "aten.cat.out", E::InPlace, "cat", "aten" },
        { "aten.sum.IntList_out", E::InPlace, "sum", "aten" },
        { "aten._to_copy.default", E::Allocates, "_to_copy", "aten" },
        { "aten.clone.default", E::Allocates, "clone", "aten" },
        { "aten.empty.memory_format", E::Allocates, "empty", "aten" },
        { "npu.npu_fused_infer_attention_score.default", E::Allocates, "npu_fused_infer_attention_score", "npu" },
        { "operator.getitem", E::GetItem, "getitem", "" },
        { "getitem", E::GetItem, "getitem", "" },
        { "_operator.getitem", E::GetItem, "getitem", "" },
        { "operator.add", E::NoTensor, "add", "" },
        { "operator.mul", E::NoTensor, "mul", "" },
        { "operator.floordiv", E::NoTensor, "floordiv", "" },
        { "operator.sub", E::NoTensor, "sub", "" },
        { "operator.and_", E::NoTensor, "and_", "" },
        { "operator.setitem", E::InPlace, "setitem", "" },
        { "aten.sym_size.int", E::NoTensor, "sym_size", "aten" },
        { "torch.ops.aten.sym_stride.int", E::NoTensor, "sym_stride", "aten" },
        { "aten.sym_numel.default", E::NoTensor, "sym_numel", "aten" },
        { "aten._assert_scalar.default", E::NoTensor, "_assert_scalar", "aten" },
        { "aten._assert_tensor_metadata.default", E::NoTensor, "_assert_tensor_metadata", "aten" },
        { "torch.sym_max", E::NoTensor, "sym_max", "torch" },
        { "torch._check", E::NoTensor, "_check", "torch" },
        { "torch.nn.functional.gelu", E::Allocates, "gelu", "torch" },
        { "torch.Tensor.add_", E::InPlace, "add_", "torch" },
        { "torch.reshape", E::View, "reshape", "torch" },
        { "size", E::NoTensor, "size", "" },
        { "", E::Allocates, "", "" },
        { "_", E::Allocates, "_", "" },
    };
    for (const Row& row : rows) {
        OpInfo info = classifyOp(row.target);
        EXPECT_EQ(info.effect, row.effect) << row.target;
        EXPECT_EQ(info.packet, row.packet) << row.target;
        EXPECT_EQ(info.ns, row.ns) << row.target;
    }
    EXPECT_EQ(classifyOp("aten.add.Tensor").overload, "Tensor");
    EXPECT_EQ(classifyOp("aten.add").overload, "");
    EXPECT_EQ(classifyOp("aten.add").packet, "add");
}
