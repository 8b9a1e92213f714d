// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> eliminateSelfCopy(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "eliminate_self_copy", {}, true, [](Graph&, PassReport& report) -> Result<void> {
        report.log.push_back("aclgraph-inspector: eliminate_self_copy is not modelled yet; the graph passes unchanged");
        return {};
    });
}

} // namespace engine::passes
