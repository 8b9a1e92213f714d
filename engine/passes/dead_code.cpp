// eliminate_dead_code (FX Graph.eliminate_dead_code, §4.0 pass 10): walking the graph backwards, a node
// without users is erased unless it is impure (placeholders, the output, ops that write an argument,
// random ops, assertions, TorchAir's air.* scope and event ops).
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <set>

namespace engine::passes {

Result<PassReport> eliminateDeadCode(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "eliminate_dead_code", {}, true, [](Graph& g, PassReport& report) -> Result<void> {
        std::vector<int> users(g.nodes.size());
        for (size_t i = 0; i < g.nodes.size(); ++i)
            users[i] = int(g.nodes[i].users.size());
        std::set<std::string> erased;
        std::vector<NodeSkip> kept;
        for (size_t i = g.nodes.size(); i-- > 0;) {
            const Node& n = g.nodes[i];
            if (n.op == NodeOp::Placeholder || n.op == NodeOp::Output || users[i] > 0)
                continue;
            std::string reason;
            if ((n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod) && isImpure(n.target, &reason)) {
                kept.push_back({ n.name, "no users, kept: " + reason });
                continue;
            }
            erased.insert(n.name);
            // Its inputs lose a user; those left with none are erased when the walk reaches them.
            std::set<int> inputs;
            std::function<void(const Arg&)> visit = [&](const Arg& a) {
                if (a.kind == Arg::Kind::List)
                    for (const Arg& x : a.items)
                        visit(x);
                if (int r = detail::refOf(g, a); r >= 0)
                    inputs.insert(r);
            };
            for (const Arg& a : n.args)
                visit(a);
            for (const auto& kw : n.kwargs)
                visit(kw.second);
            for (int r : inputs)
                --users[size_t(r)];
        }
        report.skipped.assign(kept.rbegin(), kept.rend());
        return detail::eraseNodes(g, erased);
    });
}

} // namespace engine::passes
