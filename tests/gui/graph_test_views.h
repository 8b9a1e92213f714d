#pragma once
// Hand-built ViewGraphs for the graph view tests (the grouping code is not needed to draw).
#include "engine/graph/graph_view.h"

#include <string>

namespace graph_test {

using engine::view::NodeRole;
using engine::view::ViewEdge;
using engine::view::ViewGraph;
using engine::view::ViewItem;

inline ViewItem node(const std::string& name, const std::string& target, NodeRole role = NodeRole::Intermediate)
{
    ViewItem it;
    it.label = name;
    it.detail = target;
    it.role = role;
    return it;
}

inline ViewItem group(int id, const std::string& label, int members)
{
    ViewItem it;
    it.kind = ViewItem::Kind::Group;
    it.index = id;
    it.label = label;
    it.detail = std::to_string(members) + " nodes";
    it.members = members;
    return it;
}

/// A key from the shape, as ViewGraph::key is a digest of items and edges.
inline void setKey(ViewGraph& v, const std::string& prefix)
{
    v.key = prefix + ":" + std::to_string(v.items.size()) + ":" + std::to_string(v.edges.size());
    for (const auto& e : v.edges)
        v.key += "," + std::to_string(e.from) + ">" + std::to_string(e.to);
}

/// i-1 -> i for all i, plus a skip edge i-3 -> i every third item.
inline ViewGraph chain(int n)
{
    ViewGraph v;
    for (int i = 0; i < n; ++i)
        v.items.push_back(node("node_" + std::to_string(i), "aten.add.Tensor"));
    for (int i = 1; i < n; ++i) {
        v.edges.push_back({ i - 1, i, 1 });
        if (i >= 3 && i % 3 == 0)
            v.edges.push_back({ i - 3, i, 2 });
    }
    setKey(v, "chain");
    return v;
}

/// A small decoder-like view: inputs, parameters, an embedding, a folded "layers" group, two
/// expanded layer groups' neighbours, a head and the output (about 20 items).
inline ViewGraph decoder()
{
    ViewGraph v;
    auto add = [&](ViewItem it) {
        v.items.push_back(it);
        return int(v.items.size() - 1);
    };
    const int ids = add(node("input_ids", "placeholder", NodeRole::UserInput));
    const int pos = add(node("positions", "placeholder", NodeRole::UserInput));
    const int s0 = add(node("s0", "sym_size", NodeRole::SymInt));
    const int kv = add(node("kv_cache", "placeholder", NodeRole::MutatedInput));
    const int embw = add(node("embed_tokens.weight", "parameter", NodeRole::Parameter));
    const int rope = add(node("rope_cos_sin", "static address", NodeRole::Static));
    const int emb = add(node("embedding", "aten.embedding.default"));
    const int view = add(node("view", "aten.view.default"));
    const int layers = add(group(1, "layers 0-78 (x79)", 2923));
    const int last = add(group(80, "layer 79", 37));
    const int norm = add(node("norm", "npu.npu_rms_norm.default"));
    const int normw = add(node("norm.weight", "parameter", NodeRole::Parameter));
    const int getitem = add(node("getitem_316", "operator.getitem"));
    const int lmw = add(node("lm_head.weight", "parameter", NodeRole::Parameter));
    const int mm = add(node("lm_head", "aten.mm.default"));
    const int slice = add(node("slice_scatter_default", "aten.slice_scatter.default"));
    const int copy = add(node("copy_", "aten.copy_.default"));
    const int attn = add(group(81, "self_attn", 12));
    const int out = add(node("output", "output", NodeRole::Output));
    v.items[slice].rewritten = true;
    v.items[attn].rewritten = true;
    v.edges = { { ids, emb, 1 }, { embw, emb, 1 }, { emb, view, 1 }, { s0, view, 1 }, { view, layers, 1 },
        { pos, layers, 1 }, { rope, layers, 2 }, { kv, layers, 79 }, { layers, last, 2 }, { rope, last, 2 },
        { kv, attn, 1 }, { last, attn, 1 }, { attn, norm, 1 }, { normw, norm, 1 }, { norm, getitem, 1 },
        { getitem, mm, 1 }, { lmw, mm, 1 }, { kv, slice, 1 }, { slice, copy, 1 }, { mm, out, 1 }, { copy, out, 1 } };
    setKey(v, "decoder");
    return v;
}

} // namespace graph_test
