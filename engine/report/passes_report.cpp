// Pass reports as JSON (passes_report.h).
#include "engine/report/passes_report.h"

#include "engine/core/json_text.h"

#include <nlohmann/json.hpp>

namespace engine::report {

using nlohmann::ordered_json;

namespace {

ordered_json reportsValue(const std::vector<passes::PassReport>& reports)
{
    ordered_json out = ordered_json::array();
    for (const auto& p : reports) {
        ordered_json rewritten = ordered_json::array();
        for (const auto& w : p.rewritten)
            rewritten.push_back({ { "node", w.node }, { "before", w.before }, { "after", w.after } });
        ordered_json skipped = ordered_json::array();
        for (const auto& s : p.skipped)
            skipped.push_back({ { "node", s.node }, { "reason", s.reason } });
        out.push_back({ { "name", p.name }, { "option", p.option }, { "enabled", p.enabled },
            { "rewritten", rewritten }, { "skipped", skipped }, { "removed", p.removed }, { "added", p.added },
            { "nodes_before", p.nodesBefore }, { "nodes_after", p.nodesAfter },
            { "peak_bytes_before", p.peakBytesBefore }, { "peak_bytes_after", p.peakBytesAfter },
            { "traffic_bytes_before", p.trafficBytesBefore }, { "traffic_bytes_after", p.trafficBytesAfter },
            { "log", p.log } });
    }
    return out;
}

} // namespace

std::string passReportsJson(const std::vector<passes::PassReport>& reports, int indent)
{
    return jsonText(reportsValue(reports), indent);
}

std::string passesJson(const Graph& graph, const passes::PipelineResult& result)
{
    ordered_json j = { { "format", "aclgraph-inspector-passes" }, { "version", 1 },
        { "graph", { { "id", graph.id }, { "nodes", graph.nodes.size() } } },
        { "passes", reportsValue(result.passes) } };
    return jsonText(j) + "\n";
}

} // namespace engine::report
