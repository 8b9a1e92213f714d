// reinplace_input_mutated_ops (TA/graph_pass.py `_reinplace_input_mutated_ops` / `_mutated_input_reinplace`,
// §4.2): inductor's reinplace for graph inputs, with stream checks. AOT autograd writes a mutated input
// back with a copy_ epilogue (`copy_(x, add(x, 1))`); when nothing reads x between the op and its
// epilogue, the op becomes in-place (`add_(x, 1)`) and the copy_ goes, saving a buffer and a copy.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"
#include "engine/passes/reinplace_common.h"

#include <algorithm>

namespace engine::passes {

namespace {

using detail::refOf;

bool isInputLike(const Node& n)
{
    return n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr;
}

class InputReinplacer {
public:
    /// `fakeResults`: the intermediate reinplace pass ran before and left meta["fake_result"] on the nodes.
    InputReinplacer(Graph& g, PassReport& report, bool fakeResults)
        : m_g(g)
        , m_report(report)
        , m_streams(g, fakeResults)
        , m_st(detail::analyzeStorages(g))
    {
    }

    Result<void> run();

private:
    void log(std::string line) { m_report.log.push_back(std::move(line)); }
    void skip(const std::string& node, std::string reason) { m_report.skipped.push_back({ node, std::move(reason) }); }
    std::string canInplace(int node, int arg) const; ///< empty when it can, else why not
    void replace(const std::string& node, const std::string& by);
    void collectEpilogues();
    void multiOutput(int node, const MultiInplaceOp& op);
    void directSource(int node);
    void autoFunctionalized(int node, bool v2);

    Graph& m_g;
    PassReport& m_report;
    detail::StreamChecker m_streams;
    const detail::Storages m_st;
    std::map<int, std::vector<int>> m_storageNodes; ///< storage_to_nodes (single-tensor nodes)
    std::map<std::pair<int, int>, int> m_copyOf; ///< copy_args_to_copy_nodes: (dst, src) -> first copy_
    std::map<int, int> m_firstCopy; ///< copy_nodes: dst -> first copy_ into it (its epilogue)
    std::set<int> m_targets; ///< to_replace_targets: the direct sources of the copies
    std::vector<std::pair<std::string, std::string>> m_replace; ///< replace_dict, in insertion order
};

void InputReinplacer::replace(const std::string& node, const std::string& by)
{
    for (auto& entry : m_replace)
        if (entry.first == node) {
            entry.second = by;
            return;
        }
    m_replace.emplace_back(node, by);
}

void InputReinplacer::collectEpilogues()
{
    // Walked backwards, so that the first copy_ in graph order is the one that stays in the maps.
    for (size_t i = m_g.nodes.size(); i-- > 0;) {
        const Node& n = m_g.nodes[i];
        m_storageNodes[m_st.single(int(i))].insert(m_storageNodes[m_st.single(int(i))].begin(), int(i));
        if (!detail::isCopyInPlace(n) || n.args.size() < 2)
            continue;
        const int dst = refOf(m_g, n.args[0]);
        int src = refOf(m_g, n.args[1]);
        if (dst < 0 || src < 0 || !isInputLike(m_g.nodes[size_t(dst)]))
            continue;
        const Node& s = m_g.nodes[size_t(src)];
        if (detail::isGetItem(s) && !s.args.empty()) {
            const int producer = refOf(m_g, s.args[0]);
            if (producer >= 0 && findMultiInplace(m_g.nodes[size_t(producer)].target))
                src = producer;
        }
        m_copyOf[{ dst, src }] = int(i);
        m_firstCopy[dst] = int(i);
        m_targets.insert(refOf(m_g, n.args[1]));
    }
    std::string targets = "{";
    for (int t : m_targets)
        targets += (targets.size() > 1 ? ", " : "") + m_g.nodes[size_t(t)].name;
    std::string copies = "{";
    for (const auto& [key, copy] : m_copyOf)
        copies += (copies.size() > 1 ? ", (" : "(") + m_g.nodes[size_t(key.first)].name + ", "
            + m_g.nodes[size_t(key.second)].name + "): " + m_g.nodes[size_t(copy)].name;
    log("[_reinplace_input_mutated_ops] mutated input replace candidates: to_replace_targets="
        + (m_targets.empty() ? std::string("set()") : targets + "}") + ", copy_args_to_copy_nodes=" + copies + "}");
}

std::string InputReinplacer::canInplace(int node, int arg) const
{
    const int storage = m_st.single(arg);
    const Node& a = m_g.nodes[size_t(arg)];
    if (storage < 0)
        return a.name + " has no single-tensor storage";
    std::vector<int> shared;
    auto it = m_storageNodes.find(storage);
    if (it != m_storageNodes.end())
        for (int v : it->second)
            if (detail::mayOverlap(a.outputs[0], m_g.nodes[size_t(v)].outputs[0]))
                shared.push_back(v);

    // any_use_of_views_after_node: a real use of the storage after `node` (and before the epilogue).
    std::function<bool(int)> metaOnly = [&](int u) {
        const Node& user = m_g.nodes[size_t(u)];
        if (detail::isViewOp(user))
            return std::all_of(user.users.begin(), user.users.end(), metaOnly);
        return detail::isMetaOnlyOp(user);
    };
    auto useAfter = [&](int copy) -> int {
        for (int v : shared)
            for (int u : m_g.nodes[size_t(v)].users) {
                if (u <= node || (copy >= 0 && copy <= u) || metaOnly(u))
                    continue;
                const Node& user = m_g.nodes[size_t(u)];
                if (detail::isCopyInPlace(user) && !user.args.empty() && refOf(m_g, user.args[0]) == arg)
                    continue; // overwritten by that copy_ anyway
                return u;
            }
        return -1;
    };
    if (isInputLike(a)) {
        auto copy = m_firstCopy.find(arg);
        if (copy == m_firstCopy.end())
            return a.name + " has no copy_ epilogue (the graph does not mutate it)";
        if (int u = useAfter(copy->second); u >= 0)
            return a.name + " is read by " + m_g.nodes[size_t(u)].name + " before its copy_ epilogue "
                + m_g.nodes[size_t(copy->second)].name;
        return {};
    }
    for (int v : shared)
        if (isInputLike(m_g.nodes[size_t(v)]))
            return a.name + " is a view of graph input " + m_g.nodes[size_t(v)].name;
    if (int u = useAfter(-1); u >= 0)
        return a.name + " is used later by " + m_g.nodes[size_t(u)].name;
    return {};
}

void InputReinplacer::multiOutput(int node, const MultiInplaceOp& op)
{
    Node& n = m_g.nodes[size_t(node)];
    std::vector<int> mutated;
    for (int idx : op.mutatedArgs)
        mutated.push_back(idx < int(n.args.size()) ? refOf(m_g, n.args[size_t(idx)]) : -1);
    const bool allCopied = std::all_of(mutated.begin(), mutated.end(), [&](int a) {
        return a >= 0 && m_copyOf.count({ a, node }) > 0;
    });
    if (!allCopied) {
        const std::string line
            = "reinplace failed, all mutated args(get_item) must have copy epilogues: " + detail::pyTarget(n);
        log(line);
        skip(n.name, line);
        return;
    }
    std::string why;
    std::set<int> storages;
    for (int a : mutated)
        storages.insert(m_st.single(a));
    if (storages.size() != mutated.size())
        why = "two mutated arguments share a storage";
    for (size_t k = 0; k < mutated.size() && why.empty(); ++k)
        why = canInplace(node, mutated[k]);
    std::string failure;
    if (why.empty() && !m_streams.checkArgs(m_g, node, op.mutatedArgs, m_report.log, &failure))
        why = failure;
    if (!why.empty()) {
        const std::string line = "can_inplace return False, will skip reinplacing for node: " + detail::pyTarget(n);
        log(line);
        skip(n.name, line + " (" + why + ")");
        return;
    }
    for (int a : mutated) {
        const Node& copy = m_g.nodes[size_t(m_copyOf[{ a, node }])];
        replace(copy.name, copy.args[0].s);
        const int src = refOf(m_g, copy.args[1]);
        if (src >= 0 && detail::isGetItem(m_g.nodes[size_t(src)]))
            replace(m_g.nodes[size_t(src)].name, copy.args[0].s);
    }
    m_report.rewritten.push_back({ n.name, detail::targetOf(n), op.inplace });
    n.target = op.inplace;
}

void InputReinplacer::directSource(int node)
{
    Node& n = m_g.nodes[size_t(node)];
    const InplaceLookup inplace = detail::isOpOverload(n) ? inplaceVariant(n.target) : InplaceLookup {};
    if (inplace.inplace.empty()) {
        const std::string line = "cannot find an inplace op for node " + detail::pyTarget(n);
        log(line);
        skip(n.name, line + (detail::isOpOverload(n) && !inplace.known ? " (op not in the operator table)" : ""));
        return;
    }
    const int arg = n.args.empty() ? -1 : refOf(m_g, n.args[0]);
    std::string why = arg < 0 ? "args[0] is not a node" : canInplace(node, arg);
    std::string failure;
    if (why.empty() && !m_streams.checkArgs(m_g, node, { 0 }, m_report.log, &failure))
        why = failure;
    if (!why.empty()) {
        const std::string line = "can_inplace return False, will skip reinplacing for node: " + detail::pyTarget(n);
        log(line);
        skip(n.name, line + " (" + why + ")");
        return;
    }
    // Only an epilogue of this very argument goes; with an intermediate args[0] the copy_ stays.
    auto copy = m_copyOf.find({ arg, node });
    if (copy != m_copyOf.end())
        replace(m_g.nodes[size_t(copy->second)].name, n.args[0].s);
    m_report.rewritten.push_back({ n.name, detail::targetOf(n), inplace.inplace });
    n.target = inplace.inplace;
}

void InputReinplacer::autoFunctionalized(int node, bool v2)
{
    Node& n = m_g.nodes[size_t(node)];
    // The candidates: v2 reinplaces its `_all_bases` by index; v1 the arguments its op's schema
    // writes, by name, leaving out those that are None (graph_pass.py lines 461-501).
    struct Candidate {
        Arg label; ///< the index (v2) or the argument name (v1), as only_clone_these_tensors holds it
        std::vector<int> nodes; ///< the tensor(s) it stands for (a Tensor[] argument has several)
        bool list = false;
    };
    std::vector<Candidate> candidates;
    std::string nodeName = "auto_functionalized_v2";
    auto find = [&](const std::string& key) -> const Arg* {
        for (const auto& [k, value] : n.kwargs)
            if (k == key)
                return &value;
        return nullptr;
    };
    if (v2) {
        const Arg* bases = find("_all_bases");
        if (!bases || bases->kind != Arg::Kind::List) {
            skip(n.name, "auto_functionalized_v2 without an _all_bases list");
            return;
        }
        for (size_t i = 0; i < bases->items.size(); ++i)
            candidates.push_back({ Arg::integer(int64_t(i)), { refOf(m_g, bases->items[i]) }, false });
    } else {
        const std::string op = n.args.empty() ? std::string() : canonicalTarget(n.args[0].s);
        const OpSchema* schema = op.empty() ? nullptr : findSchema(op);
        if (!schema) {
            skip(n.name,
                "auto_functionalized: the schema of " + (op.empty() ? std::string("its op") : op)
                    + " is not in the operator table, so which arguments it mutates is not known; left as is "
                      "(decompose_auto_functionalized cannot expand it either)");
            return;
        }
        // OpOverload._name: "ns::op", with ".overload" unless it is the default one.
        nodeName = schema->ns + "::" + schema->packet + (schema->overload == "default" ? "" : "." + schema->overload);
        for (const SchemaArg& a : schema->args) {
            const Arg* value = a.writes ? find(a.name) : nullptr;
            if (!value || value->kind == Arg::Kind::None)
                continue;
            Candidate c { detail::strArg(a.name), {}, value->kind == Arg::Kind::List };
            if (c.list)
                for (const Arg& item : value->items)
                    c.nodes.push_back(refOf(m_g, item));
            else
                c.nodes.push_back(refOf(m_g, *value));
            candidates.push_back(std::move(c));
        }
    }
    // reinplace_and_refine_tensors_to_clone: each candidate is reinplaced unless one with the same
    // storage already was, or can_inplace / the stream check refuses it.
    std::set<int> reinplaced;
    std::vector<Arg> toClone, missed, attempted;
    uint64_t missedBytes = 0;
    for (const Candidate& c : candidates) {
        attempted.push_back(c.label);
        const bool valid = std::all_of(c.nodes.begin(), c.nodes.end(), [](int a) { return a >= 0; });
        bool attempt = valid;
        std::set<int> storages;
        for (int a : c.nodes)
            if (a >= 0) {
                attempt = attempt && !reinplaced.count(m_st.single(a));
                storages.insert(m_st.single(a));
            }
        bool ok = attempt && (!c.list || storages.size() == c.nodes.size());
        for (int a : c.nodes) {
            std::string failure;
            ok = ok && canInplace(node, a).empty() && m_streams.checkArg(m_g, node, a, m_report.log, &failure);
        }
        if (ok) {
            if (c.nodes.size() == 1) {
                auto copy = m_copyOf.find({ c.nodes[0], node });
                if (copy != m_copyOf.end())
                    replace(m_g.nodes[size_t(copy->second)].name, m_g.nodes[size_t(c.nodes[0])].name);
            }
            reinplaced.insert(storages.begin(), storages.end());
            continue;
        }
        if (attempt) {
            missed.push_back(c.label);
            for (int arg : c.nodes) {
                const Node& a = m_g.nodes[size_t(arg)];
                if (a.outputs.size() == 1 && !a.outputs[0].isSymbolic())
                    if (auto shape = a.outputs[0].concreteShape({})) {
                        uint64_t numel = 1;
                        for (int64_t d : *shape)
                            numel *= uint64_t(d);
                        missedBytes += numel * dtypeSize(a.outputs[0].dtype);
                    }
            }
        }
        toClone.push_back(c.label);
    }
    // Python's repr of the lists: [0, 1] for v2, ['x', 'y'] for v1; v2's candidates are range(0, n).
    auto list = [](const std::vector<Arg>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + (v[i].kind == Arg::Kind::Str ? "'" + v[i].s + "'" : std::to_string(v[i].i));
        return s + "]";
    };
    log("For node " + nodeName + ", attempted to reinplace "
        + (v2 ? "range(0, " + std::to_string(candidates.size()) + ")" : list(attempted))
        + ". We were unable to reinplace " + list(toClone) + "; " + list(missed)
        + " (if non-empty) are possible missed reinplacing opportunities that may be bad for memory usage and "
          "performance. Total size of missed opportunities with static shapes is : "
        + std::to_string(missedBytes) + " bytes.");
    // node.meta["only_clone_these_tensors"], which decompose_auto_functionalized reads.
    n.passMeta["only_clone_these_tensors"] = Arg::list(toClone);
    skip(n.name,
        std::string(v2 ? "auto_functionalized_v2" : "auto_functionalized") + ": only_clone_these_tensors="
            + list(toClone) + "; decompose_auto_functionalized expands it into clones of those and the mutable op");
}

Result<void> InputReinplacer::run()
{
    collectEpilogues();
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        const Node& n = m_g.nodes[i];
        bool v2 = false;
        if (n.op == NodeOp::CallFunction && findMultiInplace(n.target))
            multiOutput(int(i), *findMultiInplace(n.target));
        else if (m_targets.count(int(i)) && !isInputLike(n))
            directSource(int(i));
        else if (detail::isAutoFunctionalized(n, &v2))
            autoFunctionalized(int(i), v2);
    }
    std::set<std::string> replaced;
    for (const auto& entry : m_replace)
        replaced.insert(entry.first);
    for (const auto& [dst, copy] : m_firstCopy) {
        const Node& c = m_g.nodes[size_t(copy)];
        if (replaced.count(c.name))
            continue;
        if (refOf(m_g, c.args[1]) == dst)
            skip(c.name,
                "self-copy copy_(" + m_g.nodes[size_t(dst)].name
                    + ", itself): nothing to reinplace; kept (npugraph_ex's eliminate_self_copy removes it later)");
        else
            skip(c.name,
                "copy_ epilogue into " + m_g.nodes[size_t(dst)].name + " kept: its source was not reinplaced into "
                    + m_g.nodes[size_t(dst)].name);
    }

    // The replace_dict: each dropped node's uses go to its (final) replacement, then it is erased.
    for (size_t k = 0; k < m_replace.size(); ++k) {
        std::string by = m_replace[k].second;
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& entry : m_replace)
                if (entry.first == by) {
                    by = entry.second;
                    changed = true;
                }
        }
        m_replace[k].second = by;
        if (auto r = detail::replaceUses(m_g, m_replace[k].first, by); !r)
            return r;
        if (auto r = detail::eraseNodes(m_g, { m_replace[k].first }); !r)
            return r;
    }
    return {};
}

} // namespace

Result<PassReport> reinplaceInputMutatedOps(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "reinplace_input_mutated_ops", options.optionName("input_inplace_pass"),
        options.reinplaceInputMutatedOps, [&options](Graph& g, PassReport& report) -> Result<void> {
            report.log.push_back(
                "[_reinplace_input_mutated_ops]processing reinplace_input_mutated_ops_pass for graph: " + g.id);
            report.log.push_back("End to add stream labels to all FX nodes in graph " + g.id);
            InputReinplacer r(g, report, options.reinplaceInplaceableOps);
            if (auto ok = r.run(); !ok)
                return ok;
            report.log.push_back("End to process reinplace input mutated ops fx pass for graph: " + g.id);
            return {};
        });
}

} // namespace engine::passes
