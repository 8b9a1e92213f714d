// eliminate_self_copy (npugraph_ex _acl_concrete_graph/graph_pass.py `eliminate_self_copy`, lines
// 1480-1503; called by fx2acl_converter.py after decompose_auto_functionalized, npugraph_ex only):
// `copy_(x, x)` writes a tensor onto itself. decompose_auto_functionalized leaves one behind when a
// mutated base was reinplaced (its getitem became the base, so the epilogue copies the input onto
// itself); copy_ is impure, so dead-code elimination keeps it. Such a copy_ without users goes.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> eliminateSelfCopy(Graph& graph, const config::Options&)
{
    return detail::runPass(graph, "eliminate_self_copy", {}, true, [](Graph& g, PassReport& report) -> Result<void> {
        // Collected first, erased afterwards: a copy_ whose only user is another self-copy keeps that
        // user while the pass looks at it, so it stays (graph_pass.py walks the graph once).
        std::vector<int> erase;
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            const Node& n = g.nodes[i];
            if (!detail::isCopyInPlace(n) || n.args.size() < 2)
                continue;
            const int dst = detail::refOf(g, n.args[0]);
            if (dst < 0 || dst != detail::refOf(g, n.args[1]))
                continue;
            if (n.users.empty())
                erase.push_back(int(i));
            else
                report.skipped.push_back({ n.name,
                    "aclgraph-inspector: copy_(" + g.nodes[size_t(dst)].name + ", itself) has users "
                        + detail::nodeList(g, n.users)
                        + "; eliminate_self_copy only removes a self-copy without users" });
        }
        std::set<std::string> names;
        for (int i : erase) {
            report.log.push_back("Eliminating self-copy node: " + g.nodes[size_t(i)].name);
            names.insert(g.nodes[size_t(i)].name);
        }
        if (!erase.empty())
            report.log.push_back("Eliminated " + std::to_string(erase.size()) + " self-copy nodes");
        return detail::eraseNodes(g, names);
    });
}

} // namespace engine::passes
