// STUB (to be replaced): the pass runs and changes nothing.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> applyEventClosureWithMultiStream(Graph& graph, const config::Options& options)
{
    return detail::runPass(
        graph, "apply_event_closure_with_multi_stream", {}, true, [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back("aclgraph-inspector: apply_event_closure_with_multi_stream is not modelled yet; the "
                                 "graph passes unchanged");
            return {};
        });
}

Result<PassReport> applyEventRecord(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "apply_event_record", {}, true, [](Graph&, PassReport& report) -> Result<void> {
        report.log.push_back("aclgraph-inspector: apply_event_record is not modelled yet; the graph passes unchanged");
        return {};
    });
}

Result<PassReport> resolveDefaultStreamMarkers(Graph& graph, const config::Options& options)
{
    return detail::runPass(
        graph, "resolve_default_stream_markers", {}, true, [](Graph&, PassReport& report) -> Result<void> {
            report.log.push_back(
                "aclgraph-inspector: resolve_default_stream_markers is not modelled yet; the graph passes unchanged");
            return {};
        });
}

} // namespace engine::passes
