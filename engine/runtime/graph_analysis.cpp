#include "engine/runtime/graph_analysis.h"

#include "engine/graph/op_info.h"

#include <algorithm>

namespace engine::runtime {

namespace {

/// The ops whose parameter lists TorchAir patches at replay instead of recapturing
/// (torchair-behavior.md §2.5, `_REPLACE_FUNC_MAP`): keyword names and positional indices.
struct UpdatableOp {
    const char* packet;
    std::vector<std::string> kwargs;
    std::vector<int> positions;
};

const std::vector<UpdatableOp>& updatableOps()
{
    static const std::vector<UpdatableOp> ops = {
        { "npu_fused_infer_attention_score",
            { "actual_seq_lengths", "actual_seq_lengths_kv", "actual_shared_prefix_len" }, {} },
        { "npu_fused_infer_attention_score_v2", { "actual_seq_qlen", "actual_seq_kvlen" }, {} },
        // replace_dynamic_workspace_ops' workspace ops read the same parameters
        // (get_unupdated_sym_input_index, TA/acl_graph.py:284-287).
        { "_npu_fused_infer_attention_score_get_max_workspace",
            { "actual_seq_lengths", "actual_seq_lengths_kv", "actual_shared_prefix_len" }, {} },
        { "_npu_fused_infer_attention_score_v2_get_max_workspace", { "actual_seq_qlen", "actual_seq_kvlen" }, {} },
        { "_npu_paged_attention", { "context_lens" }, { 7 } },
        { "_npu_paged_attention_splitfuse", {}, { 4, 6 } },
    };
    return ops;
}

const UpdatableOp* findUpdatable(const Node& node)
{
    if (node.op != NodeOp::CallFunction)
        return nullptr;
    const OpInfo info = classifyOp(node.target);
    for (const auto& op : updatableOps())
        if (info.packet == op.packet)
            return &op;
    return nullptr;
}

bool mentions(const Arg& arg, int node)
{
    if (arg.kind == Arg::Kind::NodeRef)
        return arg.node == node;
    if (arg.kind == Arg::Kind::List)
        return std::any_of(arg.items.begin(), arg.items.end(), [node](const Arg& a) { return mentions(a, node); });
    return false;
}

/// Does `user` use `node` somewhere other than the updatable parameter lists?
bool usedOutsideUpdatableParams(const Node& user, int node, const UpdatableOp& op)
{
    for (size_t i = 0; i < user.args.size(); ++i) {
        const bool updatable = std::find(op.positions.begin(), op.positions.end(), int(i)) != op.positions.end();
        if (!updatable && mentions(user.args[i], node))
            return true;
    }
    for (const auto& [name, arg] : user.kwargs) {
        const bool updatable = std::find(op.kwargs.begin(), op.kwargs.end(), name) != op.kwargs.end();
        if (!updatable && mentions(arg, node))
            return true;
    }
    return false;
}

bool updatableParamsMentionSym(const Graph& graph, const Node& user, const UpdatableOp& op)
{
    auto hasSym = [&graph](const Arg& a, auto&& self) -> bool {
        if (a.kind == Arg::Kind::NodeRef)
            return a.node >= 0 && graph.nodes[a.node].op == NodeOp::Placeholder
                && graph.nodes[a.node].inputKind == InputKind::SymInt;
        if (a.kind == Arg::Kind::List)
            return std::any_of(a.items.begin(), a.items.end(), [&](const Arg& x) { return self(x, self); });
        return false;
    };
    for (int pos : op.positions)
        if (pos < int(user.args.size()) && hasSym(user.args[pos], hasSym))
            return true;
    for (const auto& [name, arg] : user.kwargs)
        if (std::find(op.kwargs.begin(), op.kwargs.end(), name) != op.kwargs.end() && hasSym(arg, hasSym))
            return true;
    return false;
}

bool isTensorPlaceholder(const Node& n)
{
    return n.op == NodeOp::Placeholder && n.inputKind != InputKind::SymInt;
}

void computeKeyEntries(const Graph& graph, GraphAnalysis& a)
{
    // Symbols that have their own SymInt placeholder: a tensor dim that is exactly such a symbol is
    // keyed by that placeholder's value rather than by the tensor's shape.
    std::map<std::string, int> symPlaceholder;
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const Node& n = graph.nodes[a.placeholders[pos]];
        if (n.inputKind == InputKind::SymInt)
            if (auto s = n.symbol.singleSymbol())
                symPlaceholder.emplace(*s, int(pos));
    }
    std::set<GraphAnalysis::KeyEntry> entries;
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const int idx = a.placeholders[pos];
        const Node& n = graph.nodes[idx];
        const bool sym = n.inputKind == InputKind::SymInt;
        const bool symbolicTensor = !sym && !n.outputs.empty() && n.outputs[0].isSymbolic();
        if (!sym && !symbolicTensor)
            continue;
        const bool needsKey = std::any_of(n.users.begin(), n.users.end(), [&](int u) {
            const Node& user = graph.nodes[u];
            const UpdatableOp* op = findUpdatable(user);
            return !op || usedOutsideUpdatableParams(user, idx, *op);
        });
        if (!needsKey)
            continue;
        if (sym) {
            entries.insert({ int(pos), true });
            continue;
        }
        for (const SymExpr& dim : n.outputs[0].shape) {
            if (dim.constantValue())
                continue;
            auto single = dim.singleSymbol();
            auto it = single ? symPlaceholder.find(*single) : symPlaceholder.end();
            if (it != symPlaceholder.end())
                entries.insert({ it->second, true });
            else
                entries.insert({ int(pos), false });
        }
    }
    a.keyEntries.assign(entries.begin(), entries.end());
    for (const Node& n : graph.nodes)
        if (const UpdatableOp* op = findUpdatable(n))
            a.updatedNodeCount += updatableParamsMentionSym(graph, n, *op) ? 1 : 0;
}

int firstStorageOf(const GraphAnalysis& a, const Arg& arg)
{
    if (arg.kind != Arg::Kind::NodeRef || arg.node < 0 || a.nodeStorages[arg.node].empty())
        return -1;
    return a.nodeStorages[arg.node][0];
}

void planStorages(const Graph& graph, GraphAnalysis& a)
{
    const int n = int(graph.nodes.size());
    a.nodeStorages.assign(n, {});
    a.freeAfter.assign(n, {});
    auto newStorage = [&a](int node, int output, int inputPosition) {
        a.storages.push_back({ node, output, inputPosition, node });
        return int(a.storages.size()) - 1;
    };
    int position = 0;
    for (int i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        auto& mine = a.nodeStorages[i];
        if (node.op == NodeOp::Placeholder) {
            if (isTensorPlaceholder(node))
                mine.push_back(newStorage(i, 0, position));
            ++position;
            continue;
        }
        if (node.op == NodeOp::Output || node.outputs.empty())
            continue;
        OpInfo info;
        if (node.op != NodeOp::GetAttr)
            info = classifyOp(node.target);
        // In-place ops write args[0]; an `.out` overload writes its `out=` tensor instead.
        int source = node.args.empty() ? -1 : firstStorageOf(a, node.args[0]);
        const bool outVariant = info.overload == "out" || (info.overload.size() > 4
            && info.overload.compare(info.overload.size() - 4, 4, "_out") == 0);
        if (info.effect == OpInfo::Effect::InPlace && outVariant) {
            source = -1;
            for (const auto& [name, arg] : node.kwargs) {
                if (name != "out")
                    continue;
                source = firstStorageOf(a, arg);
                // out=[a, b] (the attention .out of replace_dynamic_workspace_ops): result k is out[k].
                if (arg.kind == Arg::Kind::List && !arg.items.empty() && arg.items.size() == node.outputs.size()) {
                    std::vector<int> each;
                    for (const Arg& item : arg.items)
                        each.push_back(firstStorageOf(a, item));
                    if (std::none_of(each.begin(), each.end(), [](int s) { return s < 0; }))
                        mine = each;
                }
            }
            if (!mine.empty())
                continue;
        }
        switch (info.effect) {
        case OpInfo::Effect::GetItem: {
            const Arg* from = node.args.empty() ? nullptr : &node.args[0];
            const int which = node.args.size() > 1 && node.args[1].kind == Arg::Kind::Int ? int(node.args[1].i) : 0;
            if (from && from->kind == Arg::Kind::NodeRef && from->node >= 0) {
                const auto& producer = a.nodeStorages[from->node];
                if (!producer.empty())
                    mine.push_back(producer[std::min<size_t>(which, producer.size() - 1)]);
            }
            break;
        }
        case OpInfo::Effect::View:
        case OpInfo::Effect::InPlace:
            if (source >= 0) {
                mine.assign(node.outputs.size(), source);
                break;
            }
            [[fallthrough]];
        case OpInfo::Effect::Allocates:
            for (size_t k = 0; k < node.outputs.size(); ++k)
                mine.push_back(newStorage(i, int(k), -1));
            break;
        case OpInfo::Effect::NoTensor:
            break;
        }
    }

    // A storage lives until the last user of any node that refers to it.
    for (int i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        int last = i;
        for (int u : node.users)
            last = std::max(last, graph.nodes[u].op == NodeOp::Output ? INT_MAX : u);
        for (int s : a.nodeStorages[i])
            a.storages[s].liveUntil = std::max(a.storages[s].liveUntil, last);
    }
    for (size_t s = 0; s < a.storages.size(); ++s) {
        const auto& st = a.storages[s];
        if (st.inputPosition < 0 && st.liveUntil != INT_MAX)
            a.freeAfter[std::max(st.liveUntil, st.node)].push_back(int(s));
    }
}

} // namespace

Result<GraphAnalysis> analyzeGraph(const Graph& graph)
{
    GraphAnalysis a;
    a.placeholders = graph.placeholders();
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const Node& n = graph.nodes[a.placeholders[pos]];
        switch (n.inputKind) {
        case InputKind::Parameter:
        case InputKind::Buffer:
        case InputKind::StaticAddress:
            a.parameterInputs.push_back(int(pos));
            break;
        case InputKind::UserInput:
            a.userInputs.push_back(int(pos));
            break;
        case InputKind::SymInt:
            break;
        }
    }
    for (const std::string& name : graph.mutatedInputs())
        a.mutatedUserInputs.insert(name);

    computeKeyEntries(graph, a);
    planStorages(graph, a);

    const int out = graph.outputNode();
    if (out < 0 || graph.nodes[out].args.size() != 1)
        return makeError(ErrorCode::InvalidArgument,
            "Unsupported case in AclGraph: for output node with args: [...]. Args must be list or a tuple, and the "
            "length of args must be equal to 1.",
            graph.id);
    const Arg& ret = graph.nodes[out].args[0];
    std::vector<const Arg*> rets;
    if (ret.kind == Arg::Kind::List)
        for (const Arg& r : ret.items)
            rets.push_back(&r);
    else
        rets.push_back(&ret);
    for (size_t k = 0; k < rets.size(); ++k) {
        const Arg& r = *rets[k];
        const int s = firstStorageOf(a, r);
        a.outputs.push_back(s);
        a.outputNames.push_back(r.kind == Arg::Kind::NodeRef ? r.s : "None");
        if (s >= 0 && a.storages[s].inputPosition >= 0)
            a.aliasInputs[a.storages[s].inputPosition].push_back(int(k));
    }
    return a;
}

} // namespace engine::runtime
