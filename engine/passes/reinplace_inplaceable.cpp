// reinplace_inplaceable_ops_pass (TA/graph_pass.py `_reinplace_inplaceable_ops_pass` and
// `reinplace_with_multi_stream_check`, §4.1): torch's reinplace pass with a stream check. An
// out-of-place op on an intermediate tensor that nothing reads afterwards becomes its in-place twin
// (b = add(a, 1) -> add_(a, 1)), so the graph stops allocating b; a *_scatter that writes back into
// such a tensor becomes a view plus copy_.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"
#include "engine/passes/reinplace_common.h"

#include <algorithm>

namespace engine::passes {

namespace {

using detail::refOf;

const char* pyBool(bool b)
{
    return b ? "True" : "False";
}

class Reinplacer {
public:
    Reinplacer(Graph& g, PassReport& report)
        : m_g(g)
        , m_report(report)
        , m_streams(g, true)
    {
    }

    Result<void> run();

private:
    struct Candidate {
        bool multi = false;
        const MultiInplaceOp* op = nullptr;
        std::vector<std::pair<int, std::string>> mutated; ///< (argument index, node name)
        std::map<int, int> outputOf; ///< argument index -> output index
    };

    void log(std::string line) { m_report.log.push_back(std::move(line)); }
    void skip(const std::string& node, std::string reason) { m_report.skipped.push_back({ node, std::move(reason) }); }
    std::optional<Candidate> candidate(const std::string& name);
    std::set<std::string> laterUsages(const std::set<std::string>& aliases, int opIndex) const;
    std::set<std::string> viewInverseUsages(
        const std::set<std::string>& later, const std::set<std::string>& aliases) const;
    std::optional<std::string> viewBase(const std::string& alias) const;
    Result<void> updateAliases(
        const std::string& name, const Candidate& c, const std::vector<std::set<std::string>>& inverse);

    Graph& m_g;
    PassReport& m_report;
    detail::StreamChecker m_streams;
    std::map<std::string, int> m_index; ///< node_idx: position when the pass started (new nodes have none)
    std::map<std::string, std::vector<int>> m_storage; ///< fake_result storages when the pass started
    std::map<int, std::set<std::string>> m_aliases; ///< storage_to_nodes
    std::set<int> m_inputStorages;
    std::set<std::string> m_toDelete; ///< all_later_view_inverse_nodes_to_delete
};

std::optional<Reinplacer::Candidate> Reinplacer::candidate(const std::string& name)
{
    const Node& n = m_g.nodes[size_t(m_g.find(name))];
    Candidate c;
    std::string failure;
    bool streamOk = false;
    if ((c.op = findMultiInplace(n.target))) {
        c.multi = true;
        for (int idx : c.op->mutatedArgs) {
            if (idx >= int(n.args.size()) || refOf(m_g, n.args[size_t(idx)]) < 0) {
                skip(name, "mutated argument " + std::to_string(idx) + " is not a node argument of " + name);
                return std::nullopt;
            }
            c.mutated.emplace_back(idx, n.args[size_t(idx)].s);
        }
        const int total = int(n.outputs.size());
        for (size_t k = 0; k < c.op->mutatedArgs.size(); ++k)
            c.outputOf[c.op->mutatedArgs[k]] = total - int(c.op->mutatedArgs.size()) + int(k);
        streamOk = m_streams.checkArgs(m_g, m_g.find(name), c.op->mutatedArgs, m_report.log, &failure);
    } else if (detail::isOpOverload(n)) {
        const OpSchema* schema = findSchema(n.target);
        if (!schema) {
            skip(name, "op " + detail::pyTarget(n) + " is not in the operator table: not reinplaced");
            return std::nullopt;
        }
        if (schema->args.empty() || schema->args[0].type != "Tensor") {
            skip(name, "its first schema argument is not a Tensor");
            return std::nullopt;
        }
        if (n.args.empty() || refOf(m_g, n.args[0]) < 0) {
            skip(name, "self (args[0]) is not a node");
            return std::nullopt;
        }
        c.mutated.emplace_back(0, n.args[0].s);
        c.outputOf[0] = 0;
        streamOk = m_streams.checkArgs(m_g, m_g.find(name), { 0 }, m_report.log, &failure);
    } else {
        skip(name, "not an OpOverload (only torch.ops.* calls are reinplaced)");
        return std::nullopt;
    }
    log(std::string("Node[") + name + "] check multi-stream is " + pyBool(streamOk));
    if (!streamOk) {
        skip(name, failure);
        return std::nullopt;
    }
    return c;
}

// _get_all_later_node_usages: users after the op of any alias of self, except later view ops and
// getitems that are themselves aliases (only their own uses count).
std::set<std::string> Reinplacer::laterUsages(const std::set<std::string>& aliases, int opIndex) const
{
    std::set<std::string> later;
    for (const std::string& t : aliases) {
        const int ti = m_g.find(t);
        if (ti < 0)
            continue;
        for (int u : m_g.nodes[size_t(ti)].users) {
            const Node& user = m_g.nodes[size_t(u)];
            auto it = m_index.find(user.name);
            if (it == m_index.end() || it->second <= opIndex)
                continue;
            if (aliases.count(user.name) && (detail::isOpOverload(user) || detail::isGetItem(user)))
                continue;
            later.insert(user.name);
        }
    }
    return later;
}

// `view_of` of an alias: the base a single-output view was taken from, or the base of the
// multi-output view a getitem picks from.
std::optional<std::string> Reinplacer::viewBase(const std::string& alias) const
{
    const int i = m_g.find(alias);
    if (i < 0 || !m_index.count(alias))
        return std::nullopt;
    const Node& n = m_g.nodes[size_t(i)];
    if (detail::isViewOp(n) && n.outputs.size() == 1 && !n.args.empty() && refOf(m_g, n.args[0]) >= 0)
        return n.args[0].s;
    if (detail::isGetItem(n) && !n.args.empty()) {
        const int src = refOf(m_g, n.args[0]);
        if (src >= 0 && detail::isViewOp(m_g.nodes[size_t(src)]) && m_g.nodes[size_t(src)].outputs.size() > 1
            && !m_g.nodes[size_t(src)].args.empty() && refOf(m_g, m_g.nodes[size_t(src)].args[0]) >= 0)
            return m_g.nodes[size_t(src)].args[0].s;
    }
    return std::nullopt;
}

/// The layout `view(base, args...)` would have: slice.Tensor, select.int, diagonal, as_strided.
std::optional<detail::Layout> replayView(const Graph& g, const std::string& view, const detail::Layout& base,
    const std::vector<Arg>& args, const std::vector<std::pair<std::string, Arg>>& kwargs, const SymbolValues& syms)
{
    const OpSchema* schema = findSchema(view);
    if (!schema)
        return std::nullopt;
    Node call;
    call.args.push_back(Arg()); // self
    call.args.insert(call.args.end(), args.begin(), args.end());
    call.kwargs = kwargs;
    const detail::BoundArgs bound(call, schema);
    auto intOf = [&](const char* name, std::optional<int64_t> fallback) -> std::optional<int64_t> {
        auto a = bound.get(name);
        if (!a || a->kind == Arg::Kind::None)
            return fallback;
        auto s = detail::sizeArg(g, *a);
        if (!s)
            return std::nullopt;
        auto v = s->eval(syms);
        return v ? std::optional<int64_t>(*v) : std::nullopt;
    };
    auto wrap = [](int64_t d, size_t rank) { return d < 0 ? d + int64_t(rank) : d; };
    detail::Layout l = base;
    const std::string name = schema->packet;
    if (name == "slice") {
        auto dim = intOf("dim", 0);
        if (!dim || wrap(*dim, l.shape.size()) < 0 || wrap(*dim, l.shape.size()) >= int64_t(l.shape.size()))
            return std::nullopt;
        const size_t d = size_t(wrap(*dim, l.shape.size()));
        const int64_t size = l.shape[d];
        auto start = intOf("start", 0), end = intOf("end", size), step = intOf("step", 1);
        if (!start || !end || !step || *step <= 0)
            return std::nullopt;
        int64_t s = std::clamp(*start < 0 ? *start + size : *start, int64_t(0), size);
        int64_t e = std::clamp(*end < 0 ? *end + size : *end, s, size);
        l.offset += s * l.stride[d];
        l.shape[d] = (e - s + *step - 1) / *step;
        l.stride[d] *= *step;
        return l;
    }
    if (name == "select") {
        auto dim = intOf("dim", std::nullopt), index = intOf("index", std::nullopt);
        if (!dim || !index || wrap(*dim, l.shape.size()) < 0 || wrap(*dim, l.shape.size()) >= int64_t(l.shape.size()))
            return std::nullopt;
        const size_t d = size_t(wrap(*dim, l.shape.size()));
        l.offset += (*index < 0 ? *index + l.shape[d] : *index) * l.stride[d];
        l.shape.erase(l.shape.begin() + long(d));
        l.stride.erase(l.stride.begin() + long(d));
        return l;
    }
    if (name == "diagonal") {
        auto offset = intOf("offset", 0), dim1 = intOf("dim1", 0), dim2 = intOf("dim2", 1);
        if (!offset || !dim1 || !dim2)
            return std::nullopt;
        const int64_t rank = int64_t(l.shape.size());
        const int64_t d1 = wrap(*dim1, size_t(rank)), d2 = wrap(*dim2, size_t(rank));
        if (d1 < 0 || d2 < 0 || d1 >= rank || d2 >= rank || d1 == d2)
            return std::nullopt;
        const int64_t len = *offset >= 0 ? std::max<int64_t>(0, std::min(l.shape[d1], l.shape[d2] - *offset))
                                         : std::max<int64_t>(0, std::min(l.shape[d1] + *offset, l.shape[d2]));
        l.offset += *offset >= 0 ? *offset * l.stride[d2] : -*offset * l.stride[d1];
        const int64_t stride = l.stride[d1] + l.stride[d2];
        for (int64_t d : { std::max(d1, d2), std::min(d1, d2) }) {
            l.shape.erase(l.shape.begin() + long(d));
            l.stride.erase(l.stride.begin() + long(d));
        }
        l.shape.push_back(len);
        l.stride.push_back(stride);
        return l;
    }
    if (name == "as_strided") {
        auto size = bound.get("size"), stride = bound.get("stride");
        if (!size || !stride || size->kind != Arg::Kind::List || stride->kind != Arg::Kind::List)
            return std::nullopt;
        l.shape.clear();
        l.stride.clear();
        for (const auto* list : { &size->items, &stride->items })
            for (const Arg& a : *list) {
                auto s = detail::sizeArg(g, a);
                auto v = s ? s->eval(syms) : Result<int64_t>(makeError(ErrorCode::InvalidArgument, "size"));
                if (!v)
                    return std::nullopt;
                (list == &size->items ? l.shape : l.stride).push_back(*v);
            }
        if (auto offset = intOf("storage_offset", base.offset))
            l.offset = *offset;
        return l;
    }
    return std::nullopt;
}

// _get_view_inverse_node_usages: later *_scatter(base, mutated, args...) calls that undo a view
// `alias = view(base, args...)` of self, so that writing self in place makes them unnecessary.
std::set<std::string> Reinplacer::viewInverseUsages(
    const std::set<std::string>& later, const std::set<std::string>& aliases) const
{
    std::vector<std::string> ordered(later.begin(), later.end());
    std::sort(ordered.begin(), ordered.end(),
        [&](const std::string& a, const std::string& b) { return m_index.at(a) < m_index.at(b); });
    std::set<std::string> inverse;
    for (const std::string& name : ordered) {
        const Node& n = m_g.nodes[size_t(m_g.find(name))];
        const std::string view = viewInverseOf(n.target);
        if (view.empty() || n.args.size() < 2)
            continue;
        const int base = refOf(m_g, n.args[0]);
        if (base < 0 || m_g.nodes[size_t(base)].outputs.size() != 1)
            continue;
        const std::vector<Arg> rest(n.args.begin() + 2, n.args.end());
        for (const std::string& alias : aliases) {
            auto aliasBase = viewBase(alias);
            const int ai = m_g.find(alias);
            const int bi = aliasBase ? m_g.find(*aliasBase) : -1;
            if (bi < 0 || m_g.nodes[size_t(ai)].outputs.size() != 1 || m_g.nodes[size_t(bi)].outputs.size() != 1)
                continue;
            const TensorMeta& aliasMeta = m_g.nodes[size_t(ai)].outputs[0];
            const TensorMeta& aliasBaseMeta = m_g.nodes[size_t(bi)].outputs[0];
            const TensorMeta& scatterBase = m_g.nodes[size_t(base)].outputs[0];
            std::set<std::string> symbols;
            for (const TensorMeta* t : { &aliasMeta, &aliasBaseMeta, &scatterBase })
                for (const SymExpr& e : t->shape)
                    for (const std::string& s : e.symbols())
                        symbols.insert(s);
            bool match = true;
            for (const SymbolValues& syms : detail::sampleAssignments(symbols)) {
                auto lb = detail::layoutAt(aliasBaseMeta, syms), sb = detail::layoutAt(scatterBase, syms);
                auto la = detail::layoutAt(aliasMeta, syms);
                auto replay = lb ? replayView(m_g, view, *lb, rest, n.kwargs, syms) : std::nullopt;
                match = match && lb && sb && la && replay && *lb == *sb && *replay == *la;
            }
            if (match)
                inverse.insert(name);
        }
    }
    return inverse;
}

Result<void> Reinplacer::updateAliases(
    const std::string& name, const Candidate& c, const std::vector<std::set<std::string>>& inverse)
{
    const std::vector<int> nodeStorages = m_storage[name];
    for (size_t k = 0; k < c.mutated.size(); ++k) {
        const auto& [argIndex, self] = c.mutated[k];
        if (m_storage[self].empty() || nodeStorages.empty())
            continue;
        const int selfStorage = m_storage[self][0];
        auto out = c.outputOf.find(argIndex);
        const int cur = out != c.outputOf.end() && out->second >= 0 && out->second < int(nodeStorages.size())
            ? nodeStorages[size_t(out->second)]
            : nodeStorages[0];
        m_aliases[selfStorage].insert(m_aliases[cur].begin(), m_aliases[cur].end());
        m_aliases[cur].insert(m_aliases[selfStorage].begin(), m_aliases[selfStorage].end());
        if (k >= inverse.size())
            continue;
        m_toDelete.insert(inverse[k].begin(), inverse[k].end());
        // Later users of the result (and of the dropped scatters) read self instead. TorchAir HEAD
        // redirects the scatters' users to self too (torch's own pass uses the scatter's base).
        std::vector<std::string> olds = { name };
        olds.insert(olds.end(), inverse[k].begin(), inverse[k].end());
        for (const std::string& old : olds) {
            std::set<std::string> update;
            for (int u : m_g.nodes[size_t(m_g.find(old))].users) {
                auto it = m_index.find(m_g.nodes[size_t(u)].name);
                if (it != m_index.end() && it->second > m_index[name])
                    update.insert(it->first);
            }
            if (update.empty())
                continue;
            const Node& oldNode = m_g.nodes[size_t(m_g.find(old))];
            if (old != name && !oldNode.args.empty() && oldNode.args[0].s != self)
                log("aclgraph-inspector: the users of " + old + " now read " + self + ", a view of " + oldNode.args[0].s
                    + ": TorchAir HEAD redirects them to self where torch's reinplace uses the scatter's base");
            if (auto r = detail::replaceUses(
                    m_g, old, self, [&](int i) { return update.count(m_g.nodes[size_t(i)].name) > 0; });
                !r)
                return r;
            const std::set<int> oldS(m_storage[old].begin(), m_storage[old].end());
            const std::set<int> newS(m_storage[self].begin(), m_storage[self].end());
            for (const std::string& u : update) {
                const std::set<int> userS(m_storage[u].begin(), m_storage[u].end());
                if (oldS.size() == 1 && userS.size() == 1 && oldS == userS && newS.size() == 1) {
                    const int nodeRef = *userS.begin(), newRef = *newS.begin();
                    m_aliases[nodeRef].insert(m_aliases[newRef].begin(), m_aliases[newRef].end());
                    m_aliases[newRef].insert(m_aliases[nodeRef].begin(), m_aliases[nodeRef].end());
                }
            }
        }
    }
    return {};
}

Result<void> Reinplacer::run()
{
    const detail::Storages st = detail::analyzeStorages(m_g);
    std::vector<std::string> order;
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        const Node& n = m_g.nodes[i];
        order.push_back(n.name);
        m_index[n.name] = int(i);
        m_storage[n.name] = st.of[i];
        if (n.op == NodeOp::Placeholder)
            m_inputStorages.insert(st.of[i].begin(), st.of[i].end());
    }
    for (const auto& [storage, nodes] : st.nodes)
        for (int n : nodes)
            m_aliases[storage].insert(m_g.nodes[size_t(n)].name);

    for (const std::string& name : order) {
        if (m_g.nodes[size_t(m_g.find(name))].op != NodeOp::CallFunction)
            continue;
        const auto c = candidate(name);
        if (!c)
            continue;
        const Node n = m_g.nodes[size_t(m_g.find(name))];
        std::vector<std::set<std::string>> inverse;
        std::string refused; // the skip reason
        bool logged = false; // TorchAir printed its own line already (or has none)
        for (const auto& [argIndex, self] : c->mutated) {
            const Node& selfNode = m_g.nodes[size_t(m_g.find(self))];
            const std::string prefix = "Node[" + name + "] arg_index[" + std::to_string(argIndex) + "]";
            if (!c->multi) {
                // Step 1a: self must be able to hold the result; 1c: self only once in the arguments.
                bool wrong = false;
                if (selfNode.outputs.size() == n.outputs.size())
                    for (size_t k = 0; k < n.outputs.size(); ++k)
                        wrong = wrong || !detail::sameNumel(selfNode.outputs[k], n.outputs[k])
                            || selfNode.outputs[k].dtype != n.outputs[k].dtype
                            || detail::hasInternalOverlap(selfNode.outputs[k]);
                if (wrong && detail::targetOf(n) != "aten.resize.default") {
                    refused = "Node[" + name + "] has self_has_wrong_metadata, skip reinplace";
                    break;
                }
                // A copy: C++17 lambdas cannot capture structured bindings (clang rejects it).
                const std::string selfName = self;
                const auto repeats = std::count_if(n.args.begin(), n.args.end(),
                    [&selfName](const Arg& a) { return a.kind == Arg::Kind::NodeRef && a.s == selfName; });
                if (repeats > 1) {
                    refused = "Node[" + name + "] has repeated self argument, skip reinplace";
                    break;
                }
            }
            // Step 1b: writing into a graph input would be a side effect the caller sees.
            if (m_storage[self].size() != 1) {
                refused = prefix + ": " + self + " is not a single tensor with metadata";
                logged = true;
                break;
            }
            const int selfStorage = m_storage[self][0];
            if (m_inputStorages.count(selfStorage)) {
                refused = prefix + " mutate program inputs, skip reinplace";
                break;
            }
            if (c->multi) {
                inverse.emplace_back(); // no later-use check for the registered multi-output ops
                continue;
            }
            // Step 2: nothing after the op may read self or an alias of it, scatters that undo a view aside.
            const std::set<std::string> aliases = m_aliases[selfStorage];
            const std::set<std::string> later = laterUsages(aliases, m_index[name]);
            const std::set<std::string> undo = viewInverseUsages(later, aliases);
            std::vector<int> blocking;
            for (const std::string& u : later)
                if (!undo.count(u))
                    blocking.push_back(m_g.find(u));
            std::sort(blocking.begin(), blocking.end());
            log(prefix + " check reinplace is " + pyBool(blocking.empty()));
            if (!blocking.empty()) {
                refused = prefix + " check reinplace is False (later uses: " + detail::nodeList(m_g, blocking) + ")";
                logged = true;
                break;
            }
            inverse.push_back(undo);
        }
        if (!refused.empty()) {
            if (!logged)
                log(refused);
            skip(name, refused);
            continue;
        }

        // Step 3: a scatter becomes view + copy_; anything else its in-place variant.
        const std::string view = viewInverseOf(n.target);
        if (!view.empty() && !m_toDelete.count(name)) {
            // TorchAir creates both nodes without metadata; the view has the mutated slice's shape.
            std::vector<TensorMeta> meta;
            const int src = n.args.size() > 1 ? refOf(m_g, n.args[1]) : -1;
            if (src >= 0 && m_g.nodes[size_t(src)].outputs.size() == 1)
                meta = m_g.nodes[size_t(src)].outputs;
            std::vector<Arg> args = { Arg::ref(c->mutated[0].second) };
            args.insert(args.end(), n.args.begin() + 2, n.args.end());
            Node viewNode = detail::callNode(m_g, view, args, n.kwargs, meta);
            const std::string viewName = viewNode.name;
            if (auto r = detail::insertNode(m_g, m_g.find(name), std::move(viewNode)); !r)
                return r.error();
            Node copy = detail::callNode(m_g, "aten.copy_.default", { Arg::ref(viewName), n.args[1] }, {}, meta);
            if (auto r = detail::insertNode(m_g, m_g.find(name), std::move(copy)); !r)
                return r.error();
            m_toDelete.insert(name);
            m_report.rewritten.push_back({ name, detail::targetOf(n), view + " + aten.copy_.default" });
        } else if (c->multi) {
            m_g.nodes[size_t(m_g.find(name))].target = c->op->inplace;
            m_report.rewritten.push_back({ name, detail::targetOf(n), c->op->inplace });
        } else {
            const InplaceLookup inplace = inplaceVariant(n.target);
            if (inplace.inplace.empty()) {
                skip(name, "no in-place variant of " + detail::pyTarget(n) + " (_maybe_get_inplace_op returns None)");
                continue;
            }
            m_g.nodes[size_t(m_g.find(name))].target = inplace.inplace;
            m_report.rewritten.push_back({ name, detail::targetOf(n), inplace.inplace });
        }
        log("Node[" + name + "] can reinplace, start to update alias maps");
        // The registered multi-output ops only change target (§4.1); their getitems stay on the node.
        if (!c->multi)
            if (auto r = updateAliases(name, *c, inverse); !r)
                return r;
    }

    // Step 5: the scatters that reinplacing made redundant.
    std::set<std::string> erase;
    for (const std::string& name : m_toDelete) {
        const int i = m_g.find(name);
        if (i >= 0 && m_g.nodes[size_t(i)].users.empty())
            erase.insert(name);
        else if (i >= 0)
            log("Skipped fx_pass _reinplace_inplaceable_ops_pass for unsupported fx graph " + m_g.id + ".");
    }
    return detail::eraseNodes(m_g, erase);
}

} // namespace

Result<PassReport> reinplaceInplaceableOps(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "reinplace_inplaceable_ops_pass", options.optionName("inplace_pass"),
        options.reinplaceInplaceableOps, [](Graph& g, PassReport& report) -> Result<void> {
            report.log.push_back("End to add stream labels to all FX nodes in graph " + g.id);
            report.log.push_back(
                "[_reinplace_inplaceable_ops_pass]processing reinplace_inplaceable_ops_pass for graph: " + g.id);
            Reinplacer r(g, report);
            if (auto ok = r.run(); !ok)
                return ok;
            report.log.push_back("[_reinplace_inplaceable_ops_pass]End to process reinplace pass for graph: " + g.id);
            return {};
        });
}

} // namespace engine::passes
