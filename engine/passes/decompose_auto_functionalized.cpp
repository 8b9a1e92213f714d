// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> decomposeAutoFunctionalized(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "decompose_auto_functionalized", {}, options.reinplaceInputMutatedOps,
        [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back(
                "aclgraph-inspector: decompose_auto_functionalized is not modelled yet; the graph passes unchanged");
            return {};
        });
}

} // namespace engine::passes
