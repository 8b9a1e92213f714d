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
            // null where not measured: a 0 would read as a measured figure ("unmeasured" says why).
            { "peak_bytes_before", p.measured ? ordered_json(p.peakBytesBefore) : ordered_json() },
            { "peak_bytes_after", p.measured ? ordered_json(p.peakBytesAfter) : ordered_json() },
            { "traffic_bytes_before", p.measured ? ordered_json(p.trafficBytesBefore) : ordered_json() },
            { "traffic_bytes_after", p.measured ? ordered_json(p.trafficBytesAfter) : ordered_json() },
            { "log", p.log } });
        if (!p.measured)
            out.back()["unmeasured"] = p.unmeasured;
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
    if (!result.finalLog.empty())
        j["final_log"] = result.finalLog; // npugraph_ex's "all npugraph_ex pass" comparison
    return jsonText(j) + "\n";
}

} // namespace engine::report
