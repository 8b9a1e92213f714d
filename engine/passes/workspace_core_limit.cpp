// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> replaceDynamicWorkspaceOps(Graph& graph, const config::Options& options)
{
    return detail::runPass(
        graph, "replace_dynamic_workspace_ops", {}, true, [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back(
                "aclgraph-inspector: replace_dynamic_workspace_ops is not modelled yet; the graph passes unchanged");
            return {};
        });
}

Result<PassReport> replaceCoreLimitNodes(Graph& graph, const config::Options& options, const PassEnvironment&)
{
    return detail::runPass(graph, "replace_core_limit_nodes", {}, true, [](Graph&, PassReport& report) -> Result<void> {
        report.log.push_back(
            "aclgraph-inspector: replace_core_limit_nodes is not modelled yet; the graph passes unchanged");
        return {};
    });
}

} // namespace engine::passes
