// groupNodes and buildView: repeated layers found from node names (generated decoders, Dynamo and
// module-path names) and from repeated op sequences, the folded and expanded views, roles, edges.
#include "engine/graph/graph_view.h"
#include "engine/readers/torchair_module.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "fx_test_util.h"

#include <chrono>
#include <gtest/gtest.h>
#include <set>

using namespace engine;
using namespace engine::view;

namespace {

TensorMeta vec4()
{
    TensorMeta t;
    t.shape = { SymExpr::constant(4) };
    return t;
}

// A graph written by hand: placeholders, then ops, then the output.
struct GraphBuilder {
    Graph g;

    GraphBuilder& input(const std::string& name, InputKind kind = InputKind::Parameter)
    {
        Node n;
        n.name = name;
        n.op = NodeOp::Placeholder;
        n.inputKind = kind;
        if (kind == InputKind::SymInt)
            n.symbol = SymExpr::parse("s0").value();
        else
            n.outputs.push_back(vec4());
        g.nodes.push_back(std::move(n));
        return *this;
    }
    GraphBuilder& op(const std::string& name, const std::string& target, const std::vector<std::string>& args,
        const std::string& provenance = {})
    {
        Node n;
        n.name = name;
        n.target = target;
        for (const std::string& a : args)
            n.args.push_back(Arg::ref(a));
        n.provenance = provenance;
        n.outputs.push_back(vec4());
        g.nodes.push_back(std::move(n));
        return *this;
    }
    Graph done(const std::vector<std::string>& outputs)
    {
        Node n;
        n.name = "output";
        n.op = NodeOp::Output;
        std::vector<Arg> items;
        for (const std::string& o : outputs)
            items.push_back(Arg::ref(o));
        n.args.push_back(Arg::list(std::move(items)));
        g.nodes.push_back(std::move(n));
        auto r = g.finalize();
        EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
        return g;
    }
};

Graph decoder(int layers, const std::string& id = "decode")
{
    scenario::DecoderSpec spec;
    spec.layers = layers;
    auto s = scenario::parseScenario(scenario::decoderScenarioJson(spec, "{}", { 1 }, 1), "decoder.json");
    EXPECT_TRUE(s.ok()) << (s.ok() ? std::string() : s.error().toString());
    const Graph* g = s.ok() ? s->graph(id) : nullptr;
    return g ? *g : Graph();
}

std::vector<int> groupsOfKind(const Grouping& gr, const std::string& kind)
{
    std::vector<int> out;
    for (const NodeGroup& g : gr.groups)
        if (g.kind == kind)
            out.push_back(g.id);
    return out;
}

// The "layer" group a node is in (-1: none).
int layerOf(const Grouping& gr, int node)
{
    for (int g = gr.groupOf[size_t(node)]; g >= 0; g = gr.groups[size_t(g)].parent)
        if (gr.groups[size_t(g)].kind == "layer")
            return gr.groups[size_t(g)].layerIndex;
    return -1;
}

int layerOf(const Grouping& gr, const Graph& g, const std::string& name)
{
    int i = g.find(name);
    EXPECT_GE(i, 0) << name;
    return i < 0 ? -2 : layerOf(gr, i);
}

bool inGroup(const Grouping& gr, int node, int group)
{
    for (int g = gr.groupOf[size_t(node)]; g >= 0; g = gr.groups[size_t(g)].parent)
        if (g == group)
            return true;
    return false;
}

// Every node is shown by a valid item: itself, or a group that holds it; edges are valid, unique,
// never self-edges, and stand for the node-level edges between different items.
void expectConsistent(const Graph& graph, const Grouping& gr, const ViewGraph& v)
{
    ASSERT_EQ(v.itemOfNode.size(), graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        int it = v.itemOfNode[i];
        ASSERT_GE(it, 0);
        ASSERT_LT(size_t(it), v.items.size());
        const ViewItem& item = v.items[size_t(it)];
        if (item.kind == ViewItem::Kind::Node)
            EXPECT_EQ(item.index, int(i));
        else
            EXPECT_TRUE(inGroup(gr, int(i), item.index)) << graph.nodes[i].name << " in " << item.label;
    }
    int members = 0;
    for (const ViewItem& item : v.items)
        members += item.members;
    EXPECT_EQ(members, int(graph.nodes.size()));
    std::set<std::pair<int, int>> seen;
    int total = 0;
    for (const ViewEdge& e : v.edges) {
        EXPECT_NE(e.from, e.to);
        EXPECT_TRUE(seen.insert({ e.from, e.to }).second);
        EXPECT_GE(e.count, 1);
        ASSERT_LT(size_t(std::max(e.from, e.to)), v.items.size());
        total += e.count;
    }
    int expected = 0;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (int u : graph.nodes[i].users)
            expected += v.itemOfNode[i] != v.itemOfNode[size_t(u)] ? 1 : 0;
    EXPECT_EQ(total, expected);
}

// The generator names layer k's nodes `l<k>_...`: exactly those are in layer k, the rest top level.
// `named` is the generated graph (gr may group a renamed copy of it).
void expectGeneratedLayers(const Graph& named, const Grouping& gr)
{
    for (size_t i = 0; i < named.nodes.size(); ++i) {
        const std::string& name = named.nodes[i].name;
        int expected = -1;
        if (name.size() > 2 && name[0] == 'l' && std::isdigit(static_cast<unsigned char>(name[1])))
            expected = std::stoi(name.substr(1));
        EXPECT_EQ(layerOf(gr, int(i)), expected) << name;
    }
}

int itemOfGroup(const ViewGraph& v, int group)
{
    for (size_t i = 0; i < v.items.size(); ++i)
        if (v.items[i].kind == ViewItem::Kind::Group && v.items[i].index == group)
            return int(i);
    return -1;
}

} // namespace

TEST(GraphViewDecoder, FoldsGeneratedDecoders)
{
    for (int layers : { 2, 32, 80 }) {
        SCOPED_TRACE(std::to_string(layers) + " layers");
        Graph g = decoder(layers);
        Grouping gr = groupNodes(g);
        EXPECT_EQ(gr.method, "node names: l<n>");
        auto stacks = groupsOfKind(gr, "layers");
        ASSERT_EQ(stacks.size(), 1u);
        const NodeGroup& stack = gr.groups[size_t(stacks[0])];
        EXPECT_EQ(stack.repeat, layers);
        EXPECT_EQ(stack.label, "layers 0-" + std::to_string(layers - 1) + " (x" + std::to_string(layers) + ")");
        EXPECT_EQ(int(stack.children.size()), layers);
        EXPECT_EQ(gr.roots, std::vector<int> { stack.id });
        expectGeneratedLayers(g, gr);
        for (const char* top :
            { "embedding", "embed_tokens", "final_rms", "final_norm", "lm_head", "logits", "output" })
            EXPECT_EQ(gr.groupOf[size_t(g.find(top))], -1) << top;

        ViewGraph folded = buildView(g, gr, {});
        expectConsistent(g, gr, folded);
        EXPECT_LT(folded.items.size(), 20u);
        int stackItem = itemOfGroup(folded, stack.id);
        ASSERT_GE(stackItem, 0);
        EXPECT_EQ(folded.items[size_t(stackItem)].label, stack.label);
        bool in = false, out = false;
        for (const ViewEdge& e : folded.edges) {
            in = in || e.to == stackItem;
            out = out || e.from == stackItem;
        }
        EXPECT_TRUE(in && out);
        EXPECT_EQ(buildView(g, gr, {}).key, folded.key);

        ViewGraph open = buildView(g, gr, { stack.id });
        expectConsistent(g, gr, open);
        EXPECT_EQ(int(groupsOfKind(gr, "layer").size()), layers);
        int layerItems = 0;
        for (const ViewItem& item : open.items)
            layerItems += item.kind == ViewItem::Kind::Group && gr.groups[size_t(item.index)].kind == "layer";
        EXPECT_EQ(layerItems, layers);
        EXPECT_NE(open.key, folded.key);

        int layer1 = stack.children[1];
        ViewGraph one = buildView(g, gr, { stack.id, layer1 });
        expectConsistent(g, gr, one);
        EXPECT_EQ(one.items.size(), open.items.size() - 1 + gr.groups[size_t(layer1)].nodes.size());
        EXPECT_NE(one.key, open.key);
        EXPECT_EQ(one.items[size_t(one.itemOfNode[size_t(g.find("l1_qkv"))])].label, "l1_qkv");
        // Expanding a layer whose parent is folded changes nothing.
        EXPECT_EQ(buildView(g, gr, { layer1 }).key, folded.key);
    }
}

TEST(GraphViewDecoder, EightyLayersInMilliseconds)
{
    Graph g = decoder(80);
    ASSERT_GT(g.nodes.size(), 2000u);
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    auto t0 = clock::now();
    Grouping gr = groupNodes(g);
    auto t1 = clock::now();
    ViewGraph folded = buildView(g, gr, {});
    auto t2 = clock::now();
    std::set<int> all;
    for (const NodeGroup& group : gr.groups)
        all.insert(group.id);
    ViewGraph open = buildView(g, gr, all);
    auto t3 = clock::now();
    std::printf("[ timing   ] %zu nodes: groupNodes %.2f ms, folded view %.2f ms, expanded view %.2f ms\n",
        g.nodes.size(), ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
    EXPECT_EQ(open.items.size(), g.nodes.size());
    EXPECT_LT(folded.items.size(), 20u);
    // Generous bounds (sanitizer builds run at -O0); a quadratic algorithm would blow them.
    EXPECT_LT(ms(t1 - t0), 1000.0);
    EXPECT_LT(ms(t3 - t1), 1000.0);
}

TEST(GraphViewNames, DynamoModulePaths)
{
    GraphBuilder b;
    b.input("l_x_", InputKind::UserInput);
    for (int k = 0; k < 3; ++k) {
        std::string p = "l__self___layers_" + std::to_string(k) + "_";
        for (const char* w : { "input_layernorm_weight", "self_attn_q_proj_weight", "self_attn_o_proj_weight",
                 "mlp_up_proj_weight", "mlp_down_proj_weight" })
            b.input(p + w);
    }
    b.input("l__self___norm_weight");
    std::string h = "l_x_";
    for (int k = 0; k < 3; ++k) {
        std::string p = "l__self___layers_" + std::to_string(k) + "_";
        std::string s = std::to_string(k);
        b.op(p + "input_layernorm", "aten.rms_norm.default", { h, p + "input_layernorm_weight" });
        b.op(p + "self_attn_q_proj", "aten.linear.default", { p + "input_layernorm", p + "self_attn_q_proj_weight" });
        b.op("softmax_" + s, "aten.softmax.default", { p + "self_attn_q_proj" });
        b.op(p + "self_attn_o_proj", "aten.linear.default", { "softmax_" + s, p + "self_attn_o_proj_weight" });
        b.op("add_" + s, "aten.add.Tensor", { h, p + "self_attn_o_proj" });
        b.op(p + "mlp_up_proj", "aten.linear.default", { "add_" + s, p + "mlp_up_proj_weight" });
        b.op(p + "mlp_act_fn", "aten.silu.default", { p + "mlp_up_proj" });
        b.op(p + "mlp_down_proj", "aten.linear.default", { p + "mlp_act_fn", p + "mlp_down_proj_weight" });
        b.op("add_1" + s, "aten.add.Tensor", { "add_" + s, p + "mlp_down_proj" });
        h = "add_1" + s;
    }
    b.op("l__self___norm", "aten.rms_norm.default", { h, "l__self___norm_weight" });
    Graph g = b.done({ "l__self___norm" });
    Grouping gr = groupNodes(g);
    EXPECT_EQ(gr.method, "node names: layers_<n>");
    auto stacks = groupsOfKind(gr, "layers");
    ASSERT_EQ(stacks.size(), 1u);
    EXPECT_EQ(gr.groups[size_t(stacks[0])].repeat, 3);
    for (int k = 0; k < 3; ++k) {
        std::string s = std::to_string(k);
        EXPECT_EQ(layerOf(gr, g, "softmax_" + s), k); // between two ops of the layer
        EXPECT_EQ(layerOf(gr, g, "add_" + s), k);
        EXPECT_EQ(layerOf(gr, g, "l__self___layers_" + s + "_mlp_down_proj_weight"), k);
    }
    // The model's input is read by layer 0 only, but other layers have no such input: top level.
    // The residual add after the last layer's last named op ends that layer, as the others end theirs.
    EXPECT_EQ(layerOf(gr, g, "add_12"), 2);
    EXPECT_EQ(layerOf(gr, g, "l__self___norm"), -1);
    EXPECT_EQ(layerOf(gr, g, "l_x_"), -1);
    // Module groups by the path after the index.
    std::set<std::string> modules;
    for (int m : groupsOfKind(gr, "module"))
        modules.insert(gr.groups[size_t(m)].label);
    EXPECT_EQ(modules, (std::set<std::string> { "self_attn", "mlp" }));
    EXPECT_EQ(groupsOfKind(gr, "module").size(), 6u);
    int q = g.find("l__self___layers_1_self_attn_q_proj");
    const NodeGroup& attn = gr.groups[size_t(gr.groupOf[size_t(q)])];
    EXPECT_EQ(attn.label, "self_attn");
    EXPECT_EQ(gr.groups[size_t(attn.parent)].layerIndex, 1);
    EXPECT_EQ(gr.groupOf[size_t(g.find("softmax_1"))], attn.id); // between q_proj and o_proj
    EXPECT_EQ(gr.groupOf[size_t(g.find("l__self___layers_1_self_attn_o_proj_weight"))], attn.id);

    std::set<int> all;
    for (const NodeGroup& group : gr.groups)
        all.insert(group.id);
    for (const std::set<int>& expanded : { std::set<int> {}, std::set<int> { stacks[0] }, all })
        expectConsistent(g, gr, buildView(g, gr, expanded));
}

// model_layers_<n>_ parameters, ops with FX's generic names (`mm_3`) and a decomposed RMS norm
// before each layer's first weighted op: the norm belongs to its layer, the residual add to the
// layer before.
TEST(GraphViewNames, ModuleParametersAndUnnamedOps)
{
    const int layers = 4;
    GraphBuilder b;
    b.input("input_ids", InputKind::UserInput).input("model_embed_tokens_weight");
    for (int k = 0; k < layers; ++k) {
        std::string p = "model_layers_" + std::to_string(k) + "_";
        b.input(p + "input_layernorm_weight")
            .input(p + "self_attn_qkv_proj_weight")
            .input(p + "self_attn_o_proj_weight");
    }
    b.input("model_norm_weight").input("lm_head_weight");
    int serial = 0;
    auto name = [&](const std::string& base) { return base + "_" + std::to_string(serial++); };
    b.op("embedding", "aten.embedding.default", { "model_embed_tokens_weight", "input_ids" });
    std::string h = "embedding";
    auto rmsNorm = [&](const std::string& weight) {
        std::string pw = name("pow"), mean = name("mean"), add = name("add"), rs = name("rsqrt"), mul = name("mul"),
                    out = name("mul");
        b.op(pw, "aten.pow.Tensor_Scalar", { h });
        b.op(mean, "aten.mean.dim", { pw });
        b.op(add, "aten.add.Tensor", { mean });
        b.op(rs, "aten.rsqrt.default", { add });
        b.op(mul, "aten.mul.Tensor", { h, rs });
        b.op(out, "aten.mul.Tensor", { weight, mul });
        return out;
    };
    std::vector<std::vector<std::string>> opsOf(layers);
    for (int k = 0; k < layers; ++k) {
        std::string p = "model_layers_" + std::to_string(k) + "_";
        size_t first = b.g.nodes.size();
        std::string normed = rmsNorm(p + "input_layernorm_weight");
        std::string qkv = name("mm"), o = name("mm"), res = name("add");
        b.op(qkv, "aten.mm.default", { normed, p + "self_attn_qkv_proj_weight" });
        b.op(o, "aten.mm.default", { qkv, p + "self_attn_o_proj_weight" });
        b.op(res, "aten.add.Tensor", { h, o });
        for (size_t i = first; i < b.g.nodes.size(); ++i)
            opsOf[size_t(k)].push_back(b.g.nodes[i].name);
        h = res;
    }
    std::string final = rmsNorm("model_norm_weight");
    std::string logits = name("mm");
    b.op(logits, "aten.mm.default", { final, "lm_head_weight" });
    Graph g = b.done({ logits });

    Grouping gr = groupNodes(g);
    EXPECT_EQ(gr.method, "node names: model_layers_<n>");
    auto stacks = groupsOfKind(gr, "layers");
    ASSERT_EQ(stacks.size(), 1u);
    EXPECT_EQ(gr.groups[size_t(stacks[0])].repeat, layers);
    for (int k = 0; k < layers; ++k) {
        for (const std::string& op : opsOf[size_t(k)])
            EXPECT_EQ(layerOf(gr, g, op), k) << op;
        const NodeGroup& layer = gr.groups[size_t(gr.groups[size_t(stacks[0])].children[size_t(k)])];
        EXPECT_EQ(layer.nodes.size(), opsOf[size_t(k)].size() + 3); // + its three weights
    }
    for (const char* top : { "embedding", "input_ids", "model_embed_tokens_weight", "model_norm_weight" })
        EXPECT_EQ(layerOf(gr, g, top), -1) << top;
    EXPECT_EQ(layerOf(gr, g, logits), -1);
    EXPECT_EQ(layerOf(gr, g, final), -1);
    expectConsistent(g, gr, buildView(g, gr, {}));
}

// No index in any name (AOT's arg0_1, mm_3): the layers come from the op sequence that repeats,
// with the same `# File:` line in every unrolled layer.
TEST(GraphViewRepeat, RepeatedProvenanceWithoutIndices)
{
    const int layers = 5;
    GraphBuilder b;
    b.input("arg0_1", InputKind::UserInput);
    for (int k = 0; k < layers; ++k)
        b.input("arg" + std::to_string(k * 2 + 1) + "_1").input("arg" + std::to_string(k * 2 + 2) + "_1");
    b.input("arg99_1", InputKind::UserInput); // read by every layer: stays top level
    for (int k = 0; k < layers; ++k)
        b.input("arg" + std::to_string(50 + k) + "_1", InputKind::UserInput); // one cache per layer
    auto file = [](int line, const std::string& code) {
        return "# File: /models/m.py:" + std::to_string(line) + " in forward, code: " + code;
    };
    int serial = 0;
    auto name = [&](const std::string& base) { return serial == 0 ? base : base + "_" + std::to_string(serial); };
    b.op("embedding", "aten.embedding.default", { "arg0_1" }, file(10, "h = self.embed(ids)"));
    std::string h = "embedding";
    std::vector<std::vector<std::string>> opsOf(layers);
    for (int k = 0; k < layers; ++k, ++serial) {
        std::string w1 = "arg" + std::to_string(k * 2 + 1) + "_1", w2 = "arg" + std::to_string(k * 2 + 2) + "_1";
        std::vector<std::string> ops = { name("mm"), name("relu"), name("mm_b"), name("mul"), name("add") };
        b.op(ops[0], "aten.mm.default", { h, w1 }, file(20, "a = self.up(h)"));
        b.op(ops[1], "aten.relu.default", { ops[0] }, file(21, "a = a.relu()"));
        b.op(ops[2], "aten.mm.default", { ops[1], w2 }, file(22, "a = self.down(a)"));
        b.op(ops[3], "aten.mul.Tensor", { ops[2], "arg99_1" }, file(23, "a = a * scale"));
        b.op(ops[4], "aten.add.Tensor", { h, ops[3], "arg" + std::to_string(50 + k) + "_1" }, file(24, "h = h + a"));
        opsOf[size_t(k)] = ops;
        h = ops[4];
    }
    b.op("head", "aten.mm.default", { h, "arg1_1" }, file(30, "return self.head(h)"));
    Graph g = b.done({ "head" });

    Grouping gr = groupNodes(g);
    EXPECT_EQ(gr.method, "repeated op sequence of 5 ops x 5");
    auto stacks = groupsOfKind(gr, "layers");
    ASSERT_EQ(stacks.size(), 1u);
    EXPECT_EQ(gr.groups[size_t(stacks[0])].label, "layers 0-4 (x5)");
    for (int k = 0; k < layers; ++k)
        for (const std::string& op : opsOf[size_t(k)])
            EXPECT_EQ(layerOf(gr, g, op), k) << op;
    EXPECT_EQ(layerOf(gr, g, "arg4_1"), 1); // read by layer 1 only
    EXPECT_EQ(layerOf(gr, g, "arg53_1"), 3);
    for (const char* top : { "arg0_1", "arg1_1", "arg99_1", "embedding", "head" })
        EXPECT_EQ(layerOf(gr, g, top), -1) << top;
    ViewGraph v = buildView(g, gr, {});
    expectConsistent(g, gr, v);
    EXPECT_EQ(v.items.size(), 7u); // arg0_1, arg1_1, arg99_1, embedding, layers, head, output
}

void renameRefs(Arg& a, const Graph& g)
{
    if (a.kind == Arg::Kind::NodeRef)
        a.s = g.nodes[size_t(a.node)].name;
    for (Arg& item : a.items)
        renameRefs(item, g);
}

// The generated decoder with every name replaced by `node_<i>` (no provenance either): the layers
// come from the op sequence alone, also for 500 layers (about 10k nodes) in milliseconds.
TEST(GraphViewRepeat, AnonymousDecoder)
{
    for (int layers : { 3, 500 }) {
        SCOPED_TRACE(std::to_string(layers) + " layers");
        Graph named = decoder(layers);
        Graph g = named;
        for (size_t i = 0; i + 1 < g.nodes.size(); ++i)
            g.nodes[i].name = "node_" + std::to_string(i);
        for (Node& n : g.nodes) {
            for (Arg& a : n.args)
                renameRefs(a, g);
            for (auto& kv : n.kwargs)
                renameRefs(kv.second, g);
        }
        ASSERT_TRUE(g.finalize().ok());
        auto t0 = std::chrono::steady_clock::now();
        Grouping gr = groupNodes(g);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf(
            "[ timing   ] %zu anonymous nodes: groupNodes %.2f ms (%s)\n", g.nodes.size(), ms, gr.method.c_str());
        EXPECT_EQ(gr.method.rfind("repeated op sequence of ", 0), 0u) << gr.method;
        auto stacks = groupsOfKind(gr, "layers");
        ASSERT_EQ(stacks.size(), 1u);
        EXPECT_EQ(gr.groups[size_t(stacks[0])].repeat, layers);
        expectGeneratedLayers(named, gr);
        expectConsistent(g, gr, buildView(g, gr, {}));
        EXPECT_LT(ms, 1000.0);
    }
}

// AOT autograd's write-backs of mutated inputs come after the last layer (`copy_(arg6_1,
// index_copy)`): each folds into the layer that computed its source, and so does the cache
// placeholder it writes, which that layer alone uses. Inputs every layer reads stay outside.
TEST(GraphViewRepeat, WriteBacksFoldIntoTheirLayer)
{
    GraphBuilder b;
    b.input("x", InputKind::UserInput).input("pos", InputKind::UserInput);
    for (int l = 0; l < 3; ++l)
        b.input("w" + std::to_string(l)).input("c" + std::to_string(l), InputKind::UserInput);
    std::string h = "x";
    for (int l = 0; l < 3; ++l) {
        const std::string s = l == 0 ? "" : "_" + std::to_string(l);
        b.op("mm" + s, "aten.mm.default", { h, "w" + std::to_string(l) });
        b.op("index_copy" + s, "aten.index_copy.default", { "c" + std::to_string(l), "pos", "mm" + s });
        b.op("add" + s, "aten.add.Tensor", { "mm" + s, "index_copy" + s });
        h = "add" + s;
    }
    b.op("copy_", "aten.copy_.default", { "c0", "index_copy" });
    b.op("copy__1", "aten.copy_.default", { "c1", "index_copy_1" });
    b.op("copy__2", "aten.copy_.default", { "c2", "index_copy_2" });
    // A write-back of something computed outside the layers stays where it is.
    b.op("neg", "aten.neg.default", { "x" });
    b.op("copy__3", "aten.copy_.default", { "x", "neg" });
    Graph g = b.done({ h });
    Grouping gr = groupNodes(g);
    ASSERT_EQ(gr.method.rfind("repeated op sequence", 0), 0u) << gr.method;
    EXPECT_EQ(layerOf(gr, g, "copy_"), 0);
    EXPECT_EQ(layerOf(gr, g, "copy__1"), 1);
    EXPECT_EQ(layerOf(gr, g, "copy__2"), 2);
    EXPECT_EQ(layerOf(gr, g, "c0"), 0);
    EXPECT_EQ(layerOf(gr, g, "c2"), 2);
    EXPECT_EQ(layerOf(gr, g, "w1"), 1);
    EXPECT_EQ(layerOf(gr, g, "pos"), -1);
    EXPECT_EQ(layerOf(gr, g, "x"), -1);
    EXPECT_EQ(layerOf(gr, g, "copy__3"), -1);
    // Folded: x, pos, the layers, neg, copy__3 and the output.
    ViewGraph folded = buildView(g, gr, {});
    EXPECT_EQ(folded.items.size(), 6u);
    expectConsistent(g, gr, folded);
    // Still reachable: expanding the stack and layer 1 draws copy__1 and c1 on their own.
    auto stacks = groupsOfKind(gr, "layers");
    ASSERT_EQ(stacks.size(), 1u);
    const int layer1 = gr.groups[size_t(stacks[0])].children[1];
    ViewGraph open = buildView(g, gr, { stacks[0], layer1 });
    for (const char* name : { "copy__1", "c1" }) {
        const ViewItem& item = open.items[size_t(open.itemOfNode[size_t(g.find(name))])];
        EXPECT_EQ(item.kind, ViewItem::Kind::Node) << name;
        EXPECT_EQ(item.label, name);
    }
}

TEST(GraphViewRepeat, NoRepetitionNoLayers)
{
    auto r = fxtest::readOk("torchair_000_aot_forward_graph.txt");
    ASSERT_EQ(r.graphs.size(), 1u);
    Grouping gr = groupNodes(r.graphs[0]);
    EXPECT_TRUE(gr.groups.empty());
    EXPECT_EQ(gr.method, "none");
    ViewGraph v = buildView(r.graphs[0], gr, {});
    EXPECT_EQ(v.items.size(), r.graphs[0].nodes.size());
    expectConsistent(r.graphs[0], gr, v);
}

TEST(GraphViewData, FixturesGroupAndView)
{
    std::vector<Graph> graphs;
    for (const char* file : { "aot_forward_expanded.txt", "boxed_args.py", "dynamo_graph_module.py", "joint_pytree.py",
             "nested_submodules.py", "print_graph_dump.txt", "print_readable_simple.py",
             "torchair_000_aot_forward_graph.txt", "traced_modules.py" }) {
        auto r = fxtest::readOk(file);
        for (Graph& g : r.graphs)
            graphs.push_back(std::move(g));
    }
    for (const char* file : { "output_code_static.py", "output_code_dynamic_npugraph_ex.py" }) {
        auto m = readers::readTorchairModuleFile(std::string(ACLGI_TEST_DATA_DIR) + "/torchair/" + file);
        ASSERT_TRUE(m.ok()) << m.error().toString();
        graphs.push_back(m->graph);
    }
    ASSERT_GE(graphs.size(), 11u);
    for (const Graph& g : graphs) {
        SCOPED_TRACE(g.id);
        Grouping gr = groupNodes(g);
        ASSERT_EQ(gr.groupOf.size(), g.nodes.size());
        std::set<int> all;
        for (const NodeGroup& group : gr.groups)
            all.insert(group.id);
        expectConsistent(g, gr, buildView(g, gr, {}));
        expectConsistent(g, gr, buildView(g, gr, all));
    }
}

TEST(GraphViewRoles, EveryRole)
{
    GraphBuilder b;
    b.input("w", InputKind::Parameter)
        .input("buf", InputKind::Buffer)
        .input("st", InputKind::StaticAddress)
        .input("cache", InputKind::UserInput)
        .input("x", InputKind::UserInput)
        .input("s0", InputKind::SymInt);
    b.op("mm", "aten.mm.default", { "x", "w" });
    b.op("mul", "aten.mul.Tensor", { "mm", "buf" });
    b.op("add", "aten.add.Tensor", { "mul", "st" });
    b.op("copy_", "aten.copy_.default", { "cache", "add" });
    Graph g = b.done({ "add" });
    auto m = g.mutatedInputs();
    std::set<std::string> mutated(m.begin(), m.end());
    EXPECT_EQ(mutated, std::set<std::string> { "cache" });
    std::vector<std::pair<std::string, std::string>> expected = { { "w", "parameter" }, { "buf", "parameter" },
        { "st", "static" }, { "cache", "mutated_input" }, { "x", "user_input" }, { "s0", "sym_int" },
        { "mm", "intermediate" }, { "copy_", "intermediate" }, { "output", "output" } };
    ViewGraph v = buildView(g, groupNodes(g), {});
    for (const auto& [name, role] : expected) {
        EXPECT_EQ(nodeRoleName(nodeRole(g, g.find(name), mutated)), role) << name;
        EXPECT_EQ(nodeRoleName(v.items[size_t(v.itemOfNode[size_t(g.find(name))])].role), role) << name;
    }
    EXPECT_EQ(v.items[size_t(v.itemOfNode[size_t(g.find("mm"))])].detail, "aten.mm.default");
    EXPECT_EQ(v.items[size_t(v.itemOfNode[size_t(g.find("w"))])].detail, "parameter");
}

// A grouping made by hand: edges into and out of a group merge into one edge with a count; edges
// inside it disappear; rewritten marks carry to the group.
TEST(GraphViewEdges, MergedWithCounts)
{
    GraphBuilder b;
    b.input("x", InputKind::UserInput).input("w");
    b.op("a", "aten.mm.default", { "x", "w" });
    b.op("b", "aten.relu.default", { "a" });
    b.op("c", "aten.mul.Tensor", { "a", "b" });
    b.op("d", "aten.add.Tensor", { "b", "c" });
    Graph g = b.done({ "d" });
    Grouping gr;
    gr.groupOf.assign(g.nodes.size(), -1);
    NodeGroup grp;
    grp.kind = "module";
    grp.label = "block";
    grp.nodes = { g.find("b"), g.find("c") };
    grp.firstNode = grp.nodes.front();
    grp.lastNode = grp.nodes.back();
    gr.groups.push_back(grp);
    gr.roots = { 0 };
    for (int n : grp.nodes)
        gr.groupOf[size_t(n)] = 0;

    ViewGraph v = buildView(g, gr, {}, { "c" });
    expectConsistent(g, gr, v);
    ASSERT_EQ(v.items.size(), g.nodes.size() - 1);
    int block = itemOfGroup(v, 0), a = v.itemOfNode[size_t(g.find("a"))], d = v.itemOfNode[size_t(g.find("d"))];
    EXPECT_EQ(v.items[size_t(block)].members, 2);
    EXPECT_EQ(v.items[size_t(block)].detail, "2 nodes");
    EXPECT_TRUE(v.items[size_t(block)].rewritten);
    EXPECT_FALSE(v.items[size_t(a)].rewritten);
    std::map<std::pair<int, int>, int> counts;
    for (const ViewEdge& e : v.edges)
        counts[{ e.from, e.to }] = e.count;
    EXPECT_EQ(counts[std::make_pair(a, block)], 2); // a -> b, a -> c
    EXPECT_EQ(counts[std::make_pair(block, d)], 2); // b -> d, c -> d
    EXPECT_EQ(v.edges.size(), 5u); // x -> a, w -> a, a -> block, block -> d, d -> output

    ViewGraph open = buildView(g, gr, { 0 }, { "c" });
    expectConsistent(g, gr, open);
    EXPECT_EQ(open.items.size(), g.nodes.size());
    EXPECT_EQ(open.edges.size(), 8u);
    EXPECT_NE(open.key, v.key);
    EXPECT_NE(buildView(g, gr, {}).key, v.key); // the rewritten mark is part of the key
}
