// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> recoverViewInplacePattern(Graph& graph, const config::Options& options, const PassEnvironment&)
{
    return detail::runPass(
        graph, "recover_view_inplace_pattern", {}, true, [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back(
                "aclgraph-inspector: recover_view_inplace_pattern is not modelled yet; the graph passes unchanged");
            return {};
        });
}

} // namespace engine::passes
