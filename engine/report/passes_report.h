#pragma once
/// JSON for TorchAir's reduce-overhead FX pass reports (engine/passes/pass_report.h), shared by
/// `aclgraph-inspector passes --json` and the reports (report_doc.h): one implementation, so both
/// carry the same fields (docs/passes.md).
#include "engine/graph/graph.h"
#include "engine/passes/pipeline.h"

#include <string>
#include <vector>

namespace engine::report {

/// The reports as a JSON array, one object per pass in order: name, option, enabled, rewritten
/// [{node, before, after}], skipped [{node, reason}], removed, added, nodes_before/after,
/// peak_bytes_before/after, traffic_bytes_before/after, log (TorchAir's DEBUG lines).
std::string passReportsJson(const std::vector<passes::PassReport>& reports, int indent = 2);

/// `passes --json`: {format "aclgraph-inspector-passes", version 1, graph {id, nodes}, passes[]},
/// with passes[] as passReportsJson writes it. Ends with a newline.
std::string passesJson(const Graph& graph, const passes::PipelineResult& result);

} // namespace engine::report
