// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> applyPatternPasses(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "apply_pattern_passes", options.optionName("pattern_fusion_pass"),
        options.patternFusionPass, [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back(
                "aclgraph-inspector: apply_pattern_passes is not modelled yet; the graph passes unchanged");
            return {};
        });
}

} // namespace engine::passes
